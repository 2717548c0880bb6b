/* phases.c: the closed GPU model per kernel phase, and the combination of the phases into a run.
 *
 * The phases of a run execute one after another (a kernel launch waits for the previous one), so a
 * phase's time is its instructions over its own IPC and the run's time is their sum; IPC is then the
 * harmonic mean of the phases' IPCs weighted by instructions, not their arithmetic mean (a phase at
 * IPC 2 that carries 1 % of the instructions can take most of the time). The per-request figures
 * are weighted by the requests each phase makes (the simulator averages them over requests), the
 * per-cycle ones (utilisations, stall ratio) by the phases' times. */
#include <math.h>
#include <string.h>

#include "model/model.h"

gpuest_err gpuest_model_combine_phases(const gpuest_model_phase_t *ph, const gpuest_gpu_estimate_t *e, int n,
                                       gpuest_gpu_estimate_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    double time = 0, winst = 0, tinst = 0, acc = 0, reads = 0, longest = 0;
    for (int k = 0; k < n; k++) {
        if (!(ph[k].warp_insts > 0))
            continue;
        if (!(e[k].warp_ipc > 0) || !(e[k].ipc > 0))
            return gpuest_fail(err, GPUEST_EINVAL, "phase %d: IPC %g is not positive", k, e[k].warp_ipc);
        double t = ph[k].warp_insts / e[k].warp_ipc;
        time += t;
        winst += ph[k].warp_insts;
        tinst += ph[k].warp_insts * (e[k].ipc / e[k].warp_ipc);
        double a = ph[k].line_reqs > 0 ? ph[k].line_reqs : 0, r = ph[k].reads > 0 ? ph[k].reads : 0;
        acc += a;
        reads += r;
        out->amat += a * e[k].amat;
        out->miss_latency += r * e[k].miss_latency;
        out->req_latency += r * e[k].req_latency;
        out->mem_latency += r * e[k].mem_latency;
        out->reply_latency += r * e[k].reply_latency;
        out->mc_stall_ratio += t * e[k].mc_stall_ratio;
        out->inject_util += t * e[k].inject_util;
        out->link_util_max += t * e[k].link_util_max;
        out->link_util_mean += t * e[k].link_util_mean;
        out->bottleneck_util += t * e[k].bottleneck_util;
        out->tokens_per_sm += t * e[k].tokens_per_sm;
        out->ldst_queue_lines += t * e[k].ldst_queue_lines;
        out->ldst_line_rate += t * e[k].ldst_line_rate;
        out->pool_occupancy += t * e[k].pool_occupancy;
        out->pool_merge_share += t * e[k].pool_merge_share;
        out->l1_dq_wait += t * e[k].l1_dq_wait;
        out->l1_dq_rate += t * e[k].l1_dq_rate;
        out->pool_overlap += t * e[k].pool_overlap;
        if (t > longest) { /* an adaptive L1's choice: the one of the phase that takes the most time */
            longest = t;
            out->l1c_choice = e[k].l1c_choice;
        }
        out->promoted_links = e[k].promoted_links > out->promoted_links ? e[k].promoted_links : out->promoted_links;
        out->outer_iterations = e[k].outer_iterations > out->outer_iterations ? e[k].outer_iterations
                                                                              : out->outer_iterations;
    }
    if (!(time > 0))
        return gpuest_fail(err, GPUEST_EINVAL, "no phase has instructions");
    int active = 0, last = -1;
    for (int k = 0; k < n; k++)
        if (ph[k].warp_insts > 0)
            active++, last = k;
    if (active == 1) { /* one phase is its own solve, bit for bit (a weighted mean of one value can move its last bit) */
        *out = e[last];
        return GPUEST_OK;
    }
    out->warp_ipc = winst / time;
    out->ipc = tinst / time;
    if (acc > 0)
        out->amat /= acc;
    if (reads > 0) {
        out->miss_latency /= reads;
        out->req_latency /= reads;
        out->mem_latency /= reads;
        out->reply_latency /= reads;
    }
    out->mc_stall_ratio /= time;
    out->inject_util /= time;
    out->link_util_max /= time;
    out->link_util_mean /= time;
    out->bottleneck_util /= time;
    out->tokens_per_sm /= time;
    out->ldst_queue_lines /= time;
    out->ldst_line_rate /= time;
    out->pool_occupancy /= time;
    out->pool_merge_share /= time;
    out->l1_dq_wait /= time;
    out->l1_dq_rate /= time;
    out->pool_overlap /= time;
    return GPUEST_OK;
}

gpuest_err gpuest_gpu_model_solve_phases(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                         const gpuest_model_phase_t *ph, int n, const gpuest_model_transform_t *t,
                                         const gpuest_gpu_params_t *p, gpuest_gpu_estimate_t *out,
                                         gpuest_error_t *err)
{
    if (!ph || n <= 0)
        return gpuest_gpu_model_solve(m, w, t, p, out, err);
    if (n > GPUEST_MODEL_MAX_PHASES)
        return gpuest_fail(err, GPUEST_EINVAL, "%d phases: at most %d", n, GPUEST_MODEL_MAX_PHASES);
    gpuest_gpu_estimate_t e[GPUEST_MODEL_MAX_PHASES];
    memset(e, 0, sizeof e);
    for (int k = 0; k < n; k++)
        if (ph[k].warp_insts > 0) {
            gpuest_gpu_model_t *mk;
            GPUEST_TRY(gpuest_gpu_model_for_phase(m, k, &mk, err));
            GPUEST_TRY(gpuest_gpu_model_solve(mk, &ph[k].w, t, p, &e[k], err));
        }
    return gpuest_model_combine_phases(ph, e, n, out, err);
}
