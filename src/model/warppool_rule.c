/* warppool_rule.c: WarpPool (inter-warp merging in front of the L1) in the closed model.
 *
 * The technique layer measures, without the simulator, the share of line requests that find an
 * open queue of their line in a pool of 1, 2, 4, ... queues (src/technique/warppool_model.c). How
 * many queues are bound at once depends on timing: a request waits in the pool for its L1 access,
 * which is where it meets its partners. By Little's law the pool holds the line requests that wait
 * in front of the L1 (in the pool-less machine: those queued at the LD/ST unit, which the closed
 * network computes) plus those inside the pool's own latency (line request rate x latency). The
 * model solves the machine with the pool's latency and no merging, takes that occupancy (at least
 * one queue, at most technique.warppool_queues: the curve's last size), reads the merged share
 * there, and solves again with the merged requests taking no LD/ST cycle. */
#include <math.h>
#include <string.h>

#include "model_int.h"

double gpuest_model_merge_share_at(const gpuest_model_transform_t *t, double queues)
{
    int n = t->l1_merge_windows;
    if (n <= 0)
        return 0.0;
    if (n > GPUEST_MODEL_MERGE_WINDOWS)
        n = GPUEST_MODEL_MERGE_WINDOWS;
    double x = queues > 1.0 ? log2(queues) : 0.0;
    if (x >= n - 1)
        return t->l1_merge_share[n - 1];
    int i = (int)floor(x);
    double f = x - i;
    return t->l1_merge_share[i] + f * (t->l1_merge_share[i + 1] - t->l1_merge_share[i]);
}

/* The L1 read miss scale of a pool holding `queues` queues (l1_pool_miss_scale, interpolated on
 * log2 of the size as the merge share), 0 when the walk gave none. More misses than reads cannot
 * be: the scale stops where the L1 keeps no read hit (l1_fewer_misses in gpu_model.c). */
static double pool_miss_scale_at(const gpuest_model_transform_t *t, const gpuest_model_workload_t *w, double queues)
{
    int n = t->l1_merge_windows < GPUEST_MODEL_MERGE_WINDOWS ? t->l1_merge_windows : GPUEST_MODEL_MERGE_WINDOWS;
    if (n <= 0 || !(t->l1_pool_miss_scale[0] > 0))
        return 0.0;
    double x = queues > 1.0 ? log2(queues) : 0.0, s;
    if (x >= n - 1) {
        s = t->l1_pool_miss_scale[n - 1];
    } else {
        int i = (int)floor(x);
        double f = x - i;
        s = t->l1_pool_miss_scale[i] + f * (t->l1_pool_miss_scale[i + 1] - t->l1_pool_miss_scale[i]);
    }
    double wf = w->write_fraction < 0 ? 0 : (w->write_fraction > 0.95 ? 0.95 : w->write_fraction);
    double smax = 1.0 + (w->hits_per_request > 0 ? w->hits_per_request : 0.0) / (1.0 - wf);
    return s < smax ? s : smax;
}

gpuest_err gpuest_model_warppool_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                       const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                       gpuest_gpu_estimate_t *out, gpuest_error_t *err)
{
    gpuest_model_transform_t t0 = *t;
    t0.l1_merge_windows = 0;
    t0.l1_access_keep = 0.0;
    t0.ldst_pool_lines = 0.0; /* the first solve: the pool-less unit's queue */
    gpuest_gpu_estimate_t first;
    GPUEST_TRY(gpuest_gpu_model_solve(m, w, &t0, p, &first, err));
    double lat = t->l1_hit_extra_latency > 0 ? t->l1_hit_extra_latency : 0.0;
    double occ = first.ldst_queue_lines + first.ldst_line_rate * lat;
    double share = gpuest_model_merge_share_at(t, occ);
    t0.l1_access_keep = 1.0 - share > 1e-9 ? 1.0 - share : 1e-9;
    double scale = pool_miss_scale_at(t, w, occ);
    if (scale > 0)
        t0.l1_miss_scale = t->l1_miss_scale > 0 ? t->l1_miss_scale * scale : scale;
    /* the pool's queues take the line requests that wait at the in-order LD/ST unit (ldst_pool.c) */
    t0.ldst_pool_lines = t->ldst_pool_lines;
    /* the L1's set reservations the pool relieves (setres_relief.c): the scoreboard form's LD/ST
     * station carries the measured blocking, scaled by the walk's ratio; the token form's SM time
     * is scaled after the solve */
    double relief = t->ldst_block_scale > 0 ? t->ldst_block_scale : 0.0;
    int station = w->insts_per_epoch > 0 && w->resident_warps > 0;
    gpuest_model_workload_t wx = *w;
    if (relief > 0 && station)
        wx.ldst_block_per_read *= relief;
    GPUEST_TRY(gpuest_gpu_model_solve(m, &wx, &t0, p, out, err));
    if (relief > 0 && !station) {
        double f = gpuest_model_blocked_share(w, out->warp_ipc, out->miss_latency, gpuest_gpu_model_sms(m));
        double ts = gpuest_model_setres_time_scale(f, relief);
        out->ipc /= ts;
        out->warp_ipc /= ts;
    }
    out->pool_occupancy = occ;
    out->pool_merge_share = share;
    return GPUEST_OK;
}

/* The pool's part of a transform is every WarpPool field: its merge windows and shares, its L1
 * miss scales, its LD/ST unblocking, and its latency, which rides on l1_hit_extra_latency (the
 * registry composes one technique a point, so with a pool that latency is the pool's alone). What
 * remains is what the technique does besides the pool (pcu+warppool: PCU's saved replies). */
void gpuest_model_transform_without_pool(const gpuest_model_transform_t *t, gpuest_model_transform_t *rest)
{
    *rest = *t;
    if (!(t->l1_merge_windows > 0))
        return;
    rest->l1_merge_windows = 0;
    memset(rest->l1_merge_share, 0, sizeof rest->l1_merge_share);
    memset(rest->l1_pool_miss_scale, 0, sizeof rest->l1_pool_miss_scale);
    rest->l1_access_keep = 0.0;
    rest->ldst_pool_lines = 0.0;
    rest->l1_hit_extra_latency = 0.0;
    rest->ldst_block_scale = 0.0;
}
