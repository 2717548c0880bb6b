/* dataset.c: the application table, dataset creation and the exact-vs-approximate measurement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "approx_int.h"

const int gpuest_approx_levels[GPUEST_APPROX_NLEVELS] = {4, 8, 12, 16, 20};

/* Sizes: matrix and image apps take the side length; the others an element count.
 * Collect ranges reach 1.5 times past the thesis' own sizes (Table 6.3), so that those sizes lie
 * inside the sampled range and not at its sparse top end: Kmeans 1,000-30,000 instances
 * (thesis 20,000) and 2-20 clusters, ATAX, BICG and 2DCONV sides 64-6,144 (thesis 4,096),
 * SRAD2 64-3,072 (thesis 2,048), HybridSort 1,000-750,000 (thesis 500,000); LUD and Gaussian
 * sides 64-1,024 (thesis 512 and 208) and ScalarProd 256-16,384 elements per vector (thesis
 * 4,096) already hold them well inside. */
static const gpuest_approx_info_t infos[GPUEST_APPROX_NAPPS] = {
    [GPUEST_APPROX_KMEANS] = {"kmeans", "hmpr", NULL, "instances", 16, 200000, 1000, 30000, 0, 1, 2, 40, 2, 20,
                              400},
    [GPUEST_APPROX_LUD] = {"lud", "mre", "nrmse", "side", 4, 4096, 64, 1024, 1, 0, 0, 0, 0, 0, 240},
    [GPUEST_APPROX_GAUSSIAN] = {"gaussian", "linf", NULL, "side", 4, 4096, 64, 1024, 1, 0, 0, 0, 0, 0, 360},
    [GPUEST_APPROX_ATAX] = {"atax", "mre", NULL, "side", 4, 8192, 64, 6144, 0, 0, 0, 0, 0, 0, 40},
    [GPUEST_APPROX_BICG] = {"bicg", "mre", NULL, "side", 4, 8192, 64, 6144, 0, 0, 0, 0, 0, 0, 40},
    [GPUEST_APPROX_2DCONV] = {"2dconv", "mre", NULL, "side", 4, 8192, 64, 6144, 0, 0, 0, 0, 0, 0, 40},
    [GPUEST_APPROX_SCALARPROD] = {"scalarprod", "nrmse", NULL, "elements per vector", 4, 1 << 20, 256, 16384, 0, 0,
                                  0, 0, 0, 0, 40},
    [GPUEST_APPROX_SRAD2] = {"srad2", "nrmse", NULL, "side", 4, 8192, 64, 3072, 0, 0, 0, 0, 0, 0, 40},
    [GPUEST_APPROX_HYBRIDSORT] = {"hybridsort", "nrmse", NULL, "elements", 16, 1L << 24, 1000, 750000, 0, 0, 0, 0,
                                  0, 0, 40},
};

static const approx_app_ops_t *const ops_table[GPUEST_APPROX_NAPPS] = {
    &approx_ops_kmeans, &approx_ops_lud,        &approx_ops_gaussian, &approx_ops_atax,      &approx_ops_bicg,
    &approx_ops_2dconv, &approx_ops_scalarprod, &approx_ops_srad2,    &approx_ops_hybridsort,
};

const gpuest_approx_info_t *gpuest_approx_info(gpuest_approx_app_t app)
{
    if ((unsigned)app >= GPUEST_APPROX_NAPPS)
        return NULL;
    return &infos[app];
}

gpuest_err gpuest_approx_find(const char *name, gpuest_approx_app_t *out, gpuest_error_t *err)
{
    for (int i = 0; i < GPUEST_APPROX_NAPPS; i++) {
        if (name && strcmp(name, infos[i].name) == 0) {
            *out = (gpuest_approx_app_t)i;
            return GPUEST_OK;
        }
    }
    return gpuest_fail(err, GPUEST_ENOKEY,
                       "unknown application '%s' (expected one of kmeans, lud, gaussian, atax, bicg, 2dconv, "
                       "scalarprod, srad2, hybridsort)",
                       name ? name : "");
}

void approx_output_free(approx_output_t *o)
{
    free(o->values);
    free(o->labels);
    memset(o, 0, sizeof *o);
}

gpuest_err approx_alloc_floats(float **out, size_t n, gpuest_error_t *err)
{
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory allocating %zu floats", n);
    return GPUEST_OK;
}

void approx_fill_uniform(float *v, size_t n, double lo, double hi, gpuest_rng_t *rng)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(lo + (hi - lo) * gpuest_rng_uniform(rng));
}

static gpuest_err check_params(gpuest_approx_app_t app, const gpuest_approx_params_t *p, gpuest_error_t *err)
{
    const gpuest_approx_info_t *in = &infos[app];
    if (p->size < in->size_min || p->size > in->size_max)
        return gpuest_fail(err, GPUEST_ERANGE, "%s: size %ld (%s) is out of range [%ld, %ld]", in->name, p->size,
                           in->size_meaning, in->size_min, in->size_max);
    if (in->uses_cond && !(p->log10_cond >= GPUEST_APPROX_COND_MIN && p->log10_cond <= GPUEST_APPROX_COND_MAX))
        return gpuest_fail(err, GPUEST_ERANGE, "%s: log10 condition number %g is out of range [%g, %g]", in->name,
                           p->log10_cond, GPUEST_APPROX_COND_MIN, GPUEST_APPROX_COND_MAX);
    if (in->uses_constraint) {
        if (p->constraint < in->constraint_min || p->constraint > in->constraint_max)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: constraint %ld is out of range [%ld, %ld]", in->name,
                               p->constraint, in->constraint_min, in->constraint_max);
        if (p->constraint > p->size)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: constraint %ld exceeds the size %ld", in->name,
                               p->constraint, p->size);
    }
    return GPUEST_OK;
}

gpuest_err gpuest_approx_dataset_create(gpuest_approx_app_t app, const gpuest_approx_params_t *params, uint64_t seed,
                                        gpuest_approx_dataset_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if ((unsigned)app >= GPUEST_APPROX_NAPPS || !params)
        return gpuest_fail(err, GPUEST_EINVAL, "invalid application or parameters");
    GPUEST_TRY(check_params(app, params, err));
    approx_ds_t *ds = calloc(1, sizeof *ds);
    if (!ds)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    ds->app = app;
    ds->params = *params;
    if (!infos[app].uses_cond)
        ds->params.log10_cond = 0.0;
    if (!infos[app].uses_constraint)
        ds->params.constraint = 0;
    ds->seed = seed;
    gpuest_rng_t *rng = NULL;
    gpuest_err rc = gpuest_rng_create(seed, &rng);
    if (rc != GPUEST_OK) {
        free(ds);
        return gpuest_fail(err, rc, "cannot create the random generator");
    }
    rc = ops_table[app]->generate(ds, rng, err);
    gpuest_rng_destroy(rng);
    if (rc != GPUEST_OK) {
        gpuest_approx_dataset_destroy(ds);
        return rc;
    }
    *out = ds;
    return GPUEST_OK;
}

void gpuest_approx_dataset_destroy(gpuest_approx_dataset_t *ds)
{
    if (!ds)
        return;
    free(ds->a);
    free(ds->b);
    free(ds->c);
    free(ds->init);
    approx_output_free(&ds->exact);
    free(ds);
}

double gpuest_approx_dataset_log10_cond(const gpuest_approx_dataset_t *ds)
{
    return ds->log10_cond;
}

int gpuest_approx_dataset_cond_measured(const gpuest_approx_dataset_t *ds)
{
    return ds->cond_measured;
}

gpuest_err gpuest_approx_measure(gpuest_approx_dataset_t *ds, int bits, double errors[2], gpuest_error_t *err)
{
    if (bits < 0 || bits > 23)
        return gpuest_fail(err, GPUEST_ERANGE, "approximation bits %d out of range [0, 23]", bits);
    const approx_app_ops_t *ops = ops_table[ds->app];
    if (!ds->have_exact) {
        if (ops->run(ds, 0, &ds->exact) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOMEM, "%s: out of memory in the exact run", infos[ds->app].name);
        ds->have_exact = 1;
    }
    approx_output_t out = {0};
    if (ops->run(ds, bits, &out) != GPUEST_OK) {
        approx_output_free(&out);
        return gpuest_fail(err, GPUEST_ENOMEM, "%s: out of memory in the approximate run", infos[ds->app].name);
    }
    ops->score(ds, &ds->exact, &out, errors);
    approx_output_free(&out);
    return GPUEST_OK;
}
