/* l1c_queue.c: the compressed L1's decompression queue (LATTE-CC eq. 3) in the closed model.
 *
 * The simulator (src/sim/l1_compressed.c, docs/latte-cc.md "The organization") gives each SM one
 * FIFO decompressor per mode: a hit on a compressed line that finds p lines in the queue gets its
 * data lat x (p + 1) core cycles after the plain hit (p at most 255: a full queue keeps its last
 * place). The nominal latency alone (lat, p = 0) is what the estimate charged before; here the
 * queue is a station fed by the compressed-hit rate at the model's own throughput.
 *
 * Mean value of that discipline: a compressed hit finds the lines other warp instructions left in
 * the queue, L on average (an arrival sees the time average), and the compressed hits of its own
 * instruction ahead of it (the LD/ST unit presents an instruction's lines back to back, within a
 * decompression time of each other), `ahead` on average, measured by the walk. So
 *     W = lat (1 + L + ahead), L = rate x W (Little's law)  =>  W = lat (1 + ahead) / (1 - rho),
 * rho = rate x lat, and W at most 257 lat (rho >= 1: the queue stays full, p = 256). The rate is the
 * model's L1 read hits per core cycle per SM x the share on compressed lines, and the throughput
 * depends on W (a longer hit, fewer instructions a cycle): the fixed point is found by bisection,
 * the wait being decreasing in the solve's W and the solve's W increasing. The queue's wait
 * replaces the nominal latency in l1_hit_extra_latency (share x W a hit); the model then charges
 * it as any added hit latency (beyond the SM's latency tolerance, src/model/gpu_model.c).
 *
 * That mean-value wait assumes compressed hits spread evenly over the run. Where the transform
 * carries the queue replayed on the walk's own order (src/technique/dq_replay.c: the same eq. 3
 * queue, at read-line spacings of 1 to 128 core cycles), the wait is read from it at the model's
 * spacing (1 / its L1 read line requests per core cycle per SM) instead: clustering of compressed
 * hits in some instructions, phases or kernels then raises the wait, as in the simulator, where the
 * formula's mean rate would hide it. */
#include <math.h>

#include "model_int.h"

#define DQ_CAP 256 /* the simulator's queue length (SIM_DQ_CAP) */

double gpuest_model_dq_wait_replayed(const double wait_at[GPUEST_MODEL_DQ_SPACINGS], double spacing)
{
    double x = spacing > 1.0 ? log2(spacing) : 0.0;
    if (x >= GPUEST_MODEL_DQ_SPACINGS - 1)
        return wait_at[GPUEST_MODEL_DQ_SPACINGS - 1];
    int j = (int)x;
    double f = x - j;
    return wait_at[j] + f * (wait_at[j + 1] - wait_at[j]);
}

double gpuest_model_dq_wait(double lat, double rate, double ahead)
{
    if (!(lat > 0))
        return 0.0;
    double cap = (DQ_CAP + 1) * lat, rho = (rate > 0 ? rate : 0.0) * lat;
    double base = lat * (1.0 + (ahead > 0 ? ahead : 0.0));
    if (rho >= 1.0 || base >= cap)
        return cap;
    double wq = base / (1.0 - rho);
    return wq < cap ? wq : cap;
}

/* The solve with a mean time per compressed hit of `wait` cycles; *g: the queue's wait at that
 * solve's throughput minus `wait`. */
static gpuest_err solve_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w, const gpuest_model_transform_t *t,
                           const gpuest_gpu_params_t *p, double wait, gpuest_gpu_estimate_t *out, double *g,
                           gpuest_error_t *err)
{
    gpuest_model_transform_t ti = *t;
    ti.l1_dq_latency = 0.0;
    ti.l1_hit_extra_latency = t->l1_dq_share * wait;
    GPUEST_TRY(gpuest_gpu_model_solve(m, w, &ti, p, out, err));
    double hits, reads;
    gpuest_gpu_model_l1_rates(m, w, t->l1_miss_scale, out, &hits, &reads);
    double rate = hits * t->l1_dq_share;
    if (t->l1_dq_wait_at[0] > 0) /* replayed on the walk's order at the model's spacing of read lines */
        *g = gpuest_model_dq_wait_replayed(t->l1_dq_wait_at, reads > 0 ? 1.0 / reads : 1e300) - wait;
    else
        *g = gpuest_model_dq_wait(t->l1_dq_latency, rate, t->l1_dq_ahead) - wait;
    out->l1_dq_wait = wait;
    out->l1_dq_rate = rate;
    return GPUEST_OK;
}

gpuest_err gpuest_model_l1c_queue_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                        const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                        gpuest_gpu_estimate_t *out, gpuest_error_t *err)
{
    double lat = t->l1_dq_latency;
    double lo = t->l1_dq_wait_at[0] > 0 ? lat : gpuest_model_dq_wait(lat, 0.0, t->l1_dq_ahead);
    double hi = (DQ_CAP + 1) * lat, g;
    if (!(t->l1_dq_share > 0)) /* no hit on a compressed line: nothing queues */
        return solve_at(m, w, t, p, 0.0, out, &g, err);
    GPUEST_TRY(solve_at(m, w, t, p, lo, out, &g, err));
    if (g <= 0.0)
        return GPUEST_OK;
    GPUEST_TRY(solve_at(m, w, t, p, hi, out, &g, err));
    if (g >= 0.0)
        return GPUEST_OK;
    /* g decreases with the wait: bisection to 1e-9 of the bracket */
    for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        GPUEST_TRY(solve_at(m, w, t, p, mid, out, &g, err));
        if (g > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return solve_at(m, w, t, p, 0.5 * (lo + hi), out, &g, err);
}
