/* l1c_rule.c: the adaptive compressed L1 (LATTE-CC's adaptive policies) in the closed model.
 *
 * The technique layer measures, without the simulator, each candidate mode's static transform
 * (its L1 miss scale and extra hit latency, src/technique/l1c_model.c). An adaptive policy picks
 * one of them by its own rule, fed with what the model knows: the workload's measured latency
 * tolerance (LATTE-CC eq. 4: available warps x cycles per schedule), its measured L1 hit rate
 * scaled by each candidate's miss scale, and the model's own miss latency under each candidate.
 * The estimate is the picked candidate's. One choice for the whole workload: the simulator's
 * policies choose per SM and per EP (256 L1 accesses), so phases that would change the choice are
 * averaged away (docs/estimator.md). */
#include <math.h>
#include <string.h>

#include "model_int.h"

double gpuest_model_exposed_extra(double extra, double lt)
{
    if (!(extra > 0))
        return 0.0;
    lt = lt > 0 ? lt : 0.0;
    return extra > lt ? extra - lt : 0.0;
}

static double hit_rate_of(const gpuest_model_transform_t *t, int i, double h1)
{
    double s = t->l1c_miss_scale[i] > 0 ? t->l1c_miss_scale[i] : 1.0;
    h1 = h1 < 0 ? 0 : (h1 > 1 ? 1 : h1);
    return 1.0 - (1.0 - h1) * s;
}

/* LATTE-CC eq. 2 per L1 access, with the clamp at zero: hits pay what the tolerance does not hide. */
static double amat_gpu(double h1, double hit_lat, double lt, double miss_lat)
{
    double exposed = hit_lat - lt > 0 ? hit_lat - lt : 0.0;
    return h1 * exposed + (1.0 - h1) * miss_lat;
}

int gpuest_model_l1c_pick(const gpuest_model_transform_t *t, const gpuest_gpu_estimate_t *est, double l1_hit_rate,
                          double hit_latency, double avail_warps, double cycles_per_schedule)
{
    int n = t->l1c_modes < GPUEST_MODEL_L1C_MAX ? t->l1c_modes : GPUEST_MODEL_L1C_MAX, best = 0;
    double lt = avail_warps * cycles_per_schedule;
    if (n <= 1)
        return 0;
    switch (t->l1c_rule) {
    case GPUEST_MODEL_L1C_AMAT_GPU: { /* least AMAT_GPU; ties go to the lower latency (earlier) candidate */
        double bv = 0.0;
        for (int i = 0; i < n; i++) {
            double v = amat_gpu(hit_rate_of(t, i, l1_hit_rate), hit_latency + t->l1c_hit_extra[i], lt,
                                est[i].miss_latency);
            if (i == 0 || v < bv) {
                bv = v;
                best = i;
            }
        }
        return best;
    }
    case GPUEST_MODEL_L1C_FEWEST_MISSES: { /* lowest miss ratio, no latency at all */
        double bv = 0.0;
        for (int i = 0; i < n; i++) {
            double v = 1.0 - hit_rate_of(t, i, l1_hit_rate);
            if (i == 0 || v < bv) {
                bv = v;
                best = i;
            }
        }
        return best;
    }
    case GPUEST_MODEL_L1C_CMP: { /* largest positive counter: misses avoided x miss latency - cycles paid */
        double bv = 0.0;
        for (int i = 1; i < n; i++) {
            double v = t->l1c_avoided[i] * est[0].miss_latency - t->l1c_paid[i];
            if (v > bv) {
                bv = v;
                best = i;
            }
        }
        return best;
    }
    default:
        return 0;
    }
}

/* The external rule follows its own choice to a fixed point from the plain L1 (the simulator's
 * followers start in none): at most one step per candidate, the last one kept if it cycles. */
static int external_pick(const gpuest_model_transform_t *t, const gpuest_gpu_estimate_t *est, int n,
                         const gpuest_model_workload_t *w, double hit_latency)
{
    gpuest_model_l1c_view_t v;
    memset(&v, 0, sizeof v);
    v.avail_warps = w->avail_warps;
    v.cycles_per_schedule = w->cycles_per_schedule;
    v.latency_tolerance = w->avail_warps * w->cycles_per_schedule;
    v.hit_latency = hit_latency;
    v.modes = n;
    for (int i = 0; i < n; i++) {
        v.mode_id[i] = t->l1c_mode_id[i];
        v.hit_ratio[i] = hit_rate_of(t, i, w->l1_hit_rate);
        v.hit_extra[i] = t->l1c_hit_extra[i];
        v.capacity[i] = t->l1c_capacity[i];
    }
    int cur = 0;
    for (int step = 0; step <= n; step++) {
        v.current = cur;
        v.miss_latency = est[cur].miss_latency;
        v.miss_rate = 1.0 - v.hit_ratio[cur];
        v.rule = 0; /* as the simulator's SM sees it: every mode at the current miss latency */
        for (int i = 0; i < n; i++) {
            v.amat_gpu[i] = amat_gpu(v.hit_ratio[i], hit_latency + v.hit_extra[i], v.latency_tolerance,
                                     v.miss_latency);
            if (v.amat_gpu[i] < v.amat_gpu[v.rule])
                v.rule = i;
        }
        int next = t->l1c_choose(&v);
        if (next < 0 || next >= n || next == cur)
            break;
        cur = next;
    }
    return cur;
}

/* Kernel-OPT: the candidate whose own estimate runs fastest (highest IPC; ties: the lower latency,
 * earlier one). The simulator's kernel_opt times each launch in each mode and keeps the fastest;
 * the model has no launches but phases (gpuest_gpu_model_solve_phases solves each phase with this
 * transform), so with a phased calibration the pick is per phase, otherwise one for the run. */
static int fastest_pick(const gpuest_gpu_estimate_t *est, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (est[i].ipc > est[best].ipc)
            best = i;
    return best;
}

gpuest_err gpuest_model_l1c_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                  const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                  gpuest_gpu_estimate_t *out, gpuest_error_t *err)
{
    int n = t->l1c_modes;
    if (n < 1 || n > GPUEST_MODEL_L1C_MAX || (t->l1c_rule == GPUEST_MODEL_L1C_EXTERNAL && !t->l1c_choose))
        return gpuest_fail(err, GPUEST_EINVAL, "GPU model: an adaptive L1 rule needs 1..%d candidates (and its rule)",
                           GPUEST_MODEL_L1C_MAX);
    gpuest_gpu_estimate_t est[GPUEST_MODEL_L1C_MAX];
    for (int i = 0; i < n; i++) {
        gpuest_model_transform_t ti = *t;
        ti.l1c_rule = GPUEST_MODEL_L1C_STATIC;
        ti.l1c_modes = 0;
        /* the plain L1 (scale 1, no extra) is the identity of these two fields, bit for bit */
        ti.l1_miss_scale = t->l1c_miss_scale[i] == 1.0 ? 0.0 : t->l1c_miss_scale[i];
        ti.l1_hit_extra_latency = t->l1c_hit_extra[i];
        ti.l1_dq_latency = t->l1c_dq_latency[i]; /* the candidate's decompression queue (l1c_queue.c) */
        ti.l1_dq_share = t->l1c_dq_share[i];
        ti.l1_dq_ahead = t->l1c_dq_ahead[i];
        memcpy(ti.l1_dq_wait_at, t->l1c_dq_wait_at[i], sizeof ti.l1_dq_wait_at);
        GPUEST_TRY(gpuest_gpu_model_solve(m, w, &ti, p, &est[i], err));
    }
    double hit_latency = gpuest_gpu_model_hit_latency(m);
    /* The rules see the hit latency each candidate has in its solve: with a decompression queue,
     * its share x mean wait (eq. 3) rather than the nominal latency, as the simulator's policies
     * measure hit latencies that include the queue's waits (docs/estimator.md, "The L1
     * decompression queue in the estimate"). */
    gpuest_model_transform_t seen = *t;
    for (int i = 0; i < n; i++)
        if (est[i].l1_dq_wait > 0)
            seen.l1c_hit_extra[i] = t->l1c_dq_share[i] * est[i].l1_dq_wait;
    int pick = t->l1c_rule == GPUEST_MODEL_L1C_EXTERNAL ? external_pick(&seen, est, n, w, hit_latency)
               : t->l1c_rule == GPUEST_MODEL_L1C_FASTEST
                   ? fastest_pick(est, n)
                   : gpuest_model_l1c_pick(&seen, est, w->l1_hit_rate, hit_latency, w->avail_warps,
                                           w->cycles_per_schedule);
    *out = est[pick];
    out->l1c_choice = pick;
    return GPUEST_OK;
}
