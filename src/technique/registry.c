/* registry.c: the table of techniques, their mode checks and the set of active techniques of a run.
 * Adding a technique: write tech_<name>.c (ending with its descriptor), add its two lines here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "technique_int.h"

extern const gpuest_technique_t gpuest_tech_compression;
extern const gpuest_technique_t gpuest_tech_coalescing;
extern const gpuest_technique_t gpuest_tech_probing;
extern const gpuest_technique_t gpuest_tech_l1compression;
extern const gpuest_technique_t gpuest_tech_filtering;

const gpuest_technique_t *const gpuest_techniques[] = {
    &gpuest_tech_compression,
    &gpuest_tech_coalescing,
    &gpuest_tech_probing,
    &gpuest_tech_l1compression,
    &gpuest_tech_filtering,
    NULL,
};

const char *gpuest_technique_names(void)
{
    static char buf[512];
    if (!buf[0]) {
        size_t len = 0;
        for (size_t i = 0; gpuest_techniques[i] && len < sizeof buf; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", gpuest_techniques[i]->name);
    }
    return buf;
}

static const char *mode_name(unsigned bit)
{
    switch (bit) {
    case GPUEST_TECH_MODE_SIM:
        return "the detailed simulator";
    case GPUEST_TECH_MODE_MODEL:
        return "the analytical estimator (no transform of the model inputs for it)";
    default:
        return "the standalone network (and run's open NoC model)";
    }
}

gpuest_err gpuest_technique_validate(const gpuest_config_t *cfg, unsigned modes, gpuest_error_t *err)
{
    for (size_t i = 0; gpuest_techniques[i]; i++) {
        const gpuest_technique_t *t = gpuest_techniques[i];
        GPUEST_TRY(t->validate(cfg, err));
        if (!t->active(cfg))
            continue;
        unsigned supported = t->modes_of ? t->modes_of(cfg) : t->modes;
        for (unsigned bit = 1; bit <= GPUEST_TECH_MODE_NOC; bit <<= 1) {
            if (!(modes & bit) || (supported & bit))
                continue;
            char at[256];
            const char *key = t->keys[0];
            return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                               "%s: technique.%s is set, but %s does not support the %s technique; unset it for "
                               "this command",
                               gpuest_config_key_origin(cfg, "technique", key, at, sizeof at), key, mode_name(bit),
                               t->name);
        }
    }
    return GPUEST_OK;
}

gpuest_err gpuest_technique_model_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out,
                                            gpuest_error_t *err)
{
    gpuest_model_transform_identity(out);
    GPUEST_TRY(gpuest_technique_validate(env->cfg, GPUEST_TECH_MODE_MODEL, err));
    const char *done = NULL;
    for (size_t i = 0; gpuest_techniques[i]; i++) {
        const gpuest_technique_t *t = gpuest_techniques[i];
        if (!t->active(env->cfg))
            continue;
        if (!t->transform)
            return gpuest_fail(err, GPUEST_EUNSUPPORTED, "technique %s has no model transform", t->name);
        if (done) /* two transforms of the same reply traffic do not compose by simple addition */
            return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                               "techniques %s and %s are both on; the estimator takes one technique at a time", done,
                               t->name);
        GPUEST_TRY(t->transform(env, out, err));
        done = t->name;
    }
    return GPUEST_OK;
}

/* ------------------------------------------------------------ the set of one run */
struct gpuest_technique_set_s {
    size_t n;
    const gpuest_technique_t *tech[8];
    void *state[8];
};

gpuest_err gpuest_technique_set_create(const gpuest_technique_env_t *env, gpuest_sim_hooks_t *hooks,
                                       gpuest_technique_set_t **out, gpuest_error_t *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the techniques");
    gpuest_technique_set_t *set = *out;
    const char *hooked = NULL;
    for (size_t i = 0; gpuest_techniques[i] && set->n < sizeof set->tech / sizeof set->tech[0]; i++) {
        const gpuest_technique_t *t = gpuest_techniques[i];
        if (!t->active(env->cfg))
            continue;
        void *state = NULL;
        gpuest_err rc = t->create(env, &state, err);
        if (state) { /* kept even after a failed create, so that destroy frees what it built */
            set->tech[set->n] = t;
            set->state[set->n++] = state;
        }
        GPUEST_TRY(rc);
        if (!t->install)
            continue;
        if (hooked) /* a chaining dispatcher comes with the second technique that hooks the simulator */
            return gpuest_fail(err, GPUEST_EUNSUPPORTED, "techniques %s and %s both hook the simulator; running them "
                                                         "together is not supported yet", hooked, t->name);
        hooked = t->name;
        gpuest_sim_hooks_t h;
        memset(&h, 0, sizeof h);
        t->install(state, &h);
        h.ctx = state;
        *hooks = h;
    }
    return GPUEST_OK;
}

void gpuest_technique_set_destroy(gpuest_technique_set_t *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        set->tech[i]->destroy(set->state[i]);
    free(set);
}

size_t gpuest_technique_set_stats(gpuest_technique_set_t *set, gpuest_technique_stat_t *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; set && i < set->n; i++)
        if (set->tech[i]->stats && n < max)
            n += set->tech[i]->stats(set->state[i], out + n, max - n);
    return n;
}

gpuest_err gpuest_technique_set_l1c_mode(gpuest_technique_set_t *set, int mode, gpuest_error_t *err)
{
    for (size_t i = 0; set && i < set->n; i++)
        if (set->tech[i] == &gpuest_tech_l1compression)
            return tech_l1c_set_mode(set->state[i], mode, err);
    return gpuest_fail(err, GPUEST_EINVAL, "technique.l1_compression is off: no compressed L1 mode to set");
}
