/* warp_profile.c: the warp scoreboard profile of a workload (model inputs for the v2 core), from a
 * walk of its instruction streams without any timing of the memory system.
 *
 * The v2 simulator's warp issues in order and runs past its loads: a load takes one of the warp's
 * load slots and marks its destination registers pending; the warp stalls only when an
 * instruction reads or overwrites a pending register, when it needs a load slot and all are taken,
 * or at a barrier or its end with loads out (src/sim/sm.c). One such run is an *epoch*: the
 * instructions a warp issues between two memory waits, and the loads (line requests, coalesced as
 * the simulator's LD/ST unit does) it has in flight when it stops. The walk assumes every load of
 * an epoch returns before the warp goes on (they were issued close together and travel the same
 * path); the fitted alpha of the model corrects that. Within an epoch the walk also times the
 * warp alone against its compute dependences: an instruction issues one cycle after the previous
 * one or when its operands are written (ALU, SFU, shared-memory and constant latencies of the
 * configuration), whichever is later; the waits add up to the epoch's dependence delay.
 *
 * Resident warps per SM follow the simulator's CTA placement rule (sim_sm_fits: CTA, warp, thread,
 * register and shared-memory limits) and the launch size (a launch of fewer CTAs than fit on all
 * SMs fills them only partly), averaged over launches weighted by their instructions.
 *
 * Cost: at most WALK_WARPS warps per launch are walked (spread evenly over the launch's CTAs); the
 * per-epoch figures are means, so a sample of warps estimates them. */
#include <stdlib.h>
#include <string.h>

#include "study/study.h"

#define WALK_WARPS 256
#define LOAD_SLOTS 8 /* SIM_LOADS_PER_WARP of the simulator (docs/sim.md: up to 8 loads in flight per warp) */

typedef struct {
    double epochs, insts, lines, dep;
} walk_sums_t;

static int lat_of(const gpuest_config_t *cfg, gpuest_lat_class_t k)
{
    switch (k) {
    case GPUEST_LAT_SFU:
        return cfg->core.sfu_latency;
    case GPUEST_LAT_SHMEM:
        return cfg->core.shmem_latency;
    case GPUEST_LAT_CONST:
        return cfg->core.const_latency;
    default: /* ALU, branch */
        return cfg->core.alu_latency;
    }
}

static int is_load(const gpuest_inst_t *in) { return in->kind == GPUEST_INST_MEM && in->op != GPUEST_MEM_STORE; }

/* 1 when in reads or writes a register a load of this epoch has not returned. */
static int touches_pending(const gpuest_inst_t *in, const uint8_t *pending)
{
    for (int k = 0; k < in->nsrc; k++)
        if (in->src[k] != GPUEST_REG_ZERO && pending[in->src[k]])
            return 1;
    for (int k = 0; k < in->ndst; k++)
        if (in->dst[k] != GPUEST_REG_ZERO && pending[in->dst[k]])
            return 1;
    return 0;
}

/* Walks one warp to its END, adding its epochs to s. */
static gpuest_err walk_warp(const gpuest_config_t *cfg, gpuest_warp_t *warp, walk_sums_t *s, gpuest_error_t *err)
{
    uint8_t pending[GPUEST_REG_COUNT];
    int64_t ready[GPUEST_REG_COUNT]; /* own-clock cycle a compute result is written */
    memset(pending, 0, sizeof pending);
    memset(ready, 0, sizeof ready);
    int64_t now = -1;
    int loads = 0;
    double e_insts = 0;
    gpuest_inst_t in;
    gpuest_line_req_t reqs[GPUEST_COALESCE_MAX];
    for (;;) {
        GPUEST_TRY(gpuest_warp_next(warp, &in, err));
        int end = in.kind == GPUEST_INST_END;
        int stop = loads > 0 && (end || in.kind == GPUEST_INST_BARRIER || touches_pending(&in, pending) ||
                                 (is_load(&in) && loads == LOAD_SLOTS));
        if (stop || (end && e_insts > 0)) { /* the warp waits for its loads: the epoch ends */
            s->epochs += 1;
            memset(pending, 0, sizeof pending);
            loads = 0;
            e_insts = 0;
        }
        if (end)
            return GPUEST_OK;
        /* own-clock issue: one instruction a cycle, or when its compute operands are written */
        int64_t t = now + 1;
        for (int k = 0; k < in.nsrc; k++)
            if (ready[in.src[k]] > t)
                t = ready[in.src[k]];
        for (int k = 0; k < in.ndst; k++)
            if (ready[in.dst[k]] > t)
                t = ready[in.dst[k]];
        s->dep += (double)(t - (now + 1));
        now = t;
        s->insts += 1;
        e_insts += 1;
        if (in.kind == GPUEST_INST_COMPUTE) {
            for (int k = 0; k < in.ndst; k++)
                ready[in.dst[k]] = now + lat_of(cfg, in.lat);
        } else if (is_load(&in)) {
            size_t n = gpuest_coalesce(&in, reqs);
            if (n > 0) {
                s->lines += (double)n;
                loads++;
                for (int k = 0; k < in.ndst; k++)
                    if (in.dst[k] != GPUEST_REG_ZERO)
                        pending[in.dst[k]] = 1;
            }
        }
    }
}

/* CTAs of launch l resident on one SM at a time (the simulator's placement limits). */
static int ctas_per_sm(const gpuest_config_t *cfg, const gpuest_launch_t *l)
{
    const gpuest_core_cfg_t *c = &cfg->core;
    int n = c->ctas_per_sm;
    if (l->warps_per_cta > 0 && c->warps_per_sm / (int)l->warps_per_cta < n)
        n = c->warps_per_sm / (int)l->warps_per_cta;
    if (l->threads_per_cta > 0 && c->threads_per_sm / (int)l->threads_per_cta < n)
        n = c->threads_per_sm / (int)l->threads_per_cta;
    if (l->regs_per_cta > 0 && c->registers_per_sm / (int)l->regs_per_cta < n)
        n = c->registers_per_sm / (int)l->regs_per_cta;
    if (l->shmem_bytes > 0 && c->shmem_per_sm / (int)l->shmem_bytes < n)
        n = c->shmem_per_sm / (int)l->shmem_bytes;
    int spread = (int)((l->num_ctas + (uint32_t)c->num_sms - 1) / (uint32_t)c->num_sms);
    if (spread < n)
        n = spread;
    return n > 0 ? n : 1;
}

gpuest_err gpuest_study_warp_profile(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                     uint64_t seed, gpuest_model_workload_t *w, gpuest_error_t *err)
{
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    gpuest_err rc = gpuest_study_warp_profile_of(cfg, wl, w, err);
    gpuest_workload_destroy(wl);
    return rc;
}

/* Walks every stride-th warp of launch l (at most WALK_WARPS of them) into s and ends the launch;
 * *stride is how many warps each walked one stands for, *longest (when asked) the most
 * instructions one walked warp issued. */
static gpuest_err walk_launch(const gpuest_config_t *cfg, gpuest_workload_t *wl, const gpuest_launch_t *l,
                              walk_sums_t *s, uint64_t *stride, double *longest, gpuest_error_t *err)
{
    uint64_t total = (uint64_t)l->num_ctas * l->warps_per_cta;
    *stride = total > WALK_WARPS ? (total + WALK_WARPS - 1) / WALK_WARPS : 1;
    gpuest_err rc = GPUEST_OK;
    for (uint64_t i = 0; i < total && rc == GPUEST_OK; i += *stride) {
        gpuest_warp_t *warp = NULL;
        double before = s->insts;
        rc = gpuest_warp_open(wl, (uint32_t)(i / l->warps_per_cta), (uint32_t)(i % l->warps_per_cta), &warp, err);
        if (rc == GPUEST_OK)
            rc = walk_warp(cfg, warp, s, err);
        gpuest_warp_close(warp);
        if (longest && s->insts - before > *longest)
            *longest = s->insts - before;
    }
    return rc == GPUEST_OK ? gpuest_workload_end_launch(wl, err) : rc;
}

gpuest_err gpuest_study_warp_profile_of(const gpuest_config_t *cfg, gpuest_workload_t *wl, gpuest_model_workload_t *w,
                                        gpuest_error_t *err)
{
    walk_sums_t all = {0};
    double warps_w = 0.0, weight = 0.0;
    gpuest_err rc = GPUEST_OK;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        rc = gpuest_workload_next_launch(wl, &l, &done, err);
        if (rc != GPUEST_OK || done)
            break;
        walk_sums_t s = {0};
        uint64_t stride = 1;
        rc = walk_launch(cfg, wl, &l, &s, &stride, NULL, err);
        if (rc != GPUEST_OK)
            break;
        double scale_up = (double)stride; /* the walked warps stand for the launch */
        all.epochs += s.epochs * scale_up;
        all.insts += s.insts * scale_up;
        all.lines += s.lines * scale_up;
        all.dep += s.dep * scale_up;
        double wi = s.insts * scale_up;
        warps_w += wi * (double)ctas_per_sm(cfg, &l) * l.warps_per_cta;
        weight += wi;
    }
    GPUEST_TRY(rc);
    if (!(all.epochs > 0) || !(weight > 0))
        return gpuest_fail(err, GPUEST_EINVAL, "workload %s issues no instruction: no warp profile",
                           gpuest_workload_name(wl));
    w->resident_warps = warps_w / weight;
    w->insts_per_epoch = all.insts / all.epochs;
    w->lines_per_epoch = all.lines / all.epochs;
    w->dep_per_epoch = all.dep / all.epochs;
    return GPUEST_OK;
}

gpuest_err gpuest_study_profile_calibration(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err)
{
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    GPUEST_TRY(gpuest_study_warp_profile(cfg, c->workload, c->scale, c->seed, &w, err));
    double v[4] = {w.resident_warps, w.insts_per_epoch, w.lines_per_epoch, w.dep_per_epoch};
    gpuest_calibration_set_profile(c, v);
    return GPUEST_OK;
}

/* Per launch (the kernel phases, phases.c): the same walk, one record a launch, plus the launch's
 * warps with work at a time: its warp instructions over (SMs x its longest walked warp's), capped
 * by the resident warps. If every warp ran at the same rate from the launch's start, that is the
 * mean number of warps issuing per SM while the longest one runs; a launch where one warp carries
 * most of the work (a BFS level whose frontier is one node of high degree) has about one. */
gpuest_err gpuest_study_launch_profiles(const gpuest_config_t *cfg, gpuest_workload_t *wl,
                                        gpuest_study_launch_profile_t *out, int cap, int *n, gpuest_error_t *err)
{
    *n = 0;
    gpuest_err rc = GPUEST_OK;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        rc = gpuest_workload_next_launch(wl, &l, &done, err);
        if (rc != GPUEST_OK || done)
            break;
        if (*n >= cap)
            return gpuest_fail(err, GPUEST_ERANGE, "workload %s: more than %d launches", gpuest_workload_name(wl), cap);
        walk_sums_t s = {0};
        uint64_t stride = 1;
        double longest = 0.0;
        rc = walk_launch(cfg, wl, &l, &s, &stride, &longest, err);
        if (rc != GPUEST_OK)
            break;
        gpuest_study_launch_profile_t *o = &out[(*n)++];
        memset(o, 0, sizeof *o);
        snprintf(o->name, sizeof o->name, "%s", l.name);
        double up = (double)stride;
        o->epochs = s.epochs * up;
        o->insts = s.insts * up;
        o->lines = s.lines * up;
        o->dep = s.dep * up;
        o->resident = (double)ctas_per_sm(cfg, &l) * l.warps_per_cta;
        double act = longest > 0 ? o->insts / ((double)cfg->core.num_sms * longest) : o->resident;
        o->active = act < o->resident ? act : o->resident;
    }
    return rc;
}
