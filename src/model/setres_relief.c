/* setres_relief.c: WarpPool's relief of the L1's set reservations in the closed model.
 *
 * The LD/ST unit is blocked by reservation failures for a measured number of cycles per read
 * (ldst_block_per_read; on fermi 2dconv 12.9 cycles a read, 85 % of an SM's cycles, nearly all of it
 * case (d): every way of the missing line's set reserved). The walk of wp_setres.c replays the L1
 * in time with and without the pool and gives the ratio s of their stall cycles per line request
 * (the transform's ldst_block_scale). The scoreboard form has the unit as a station whose demand
 * carries the blocking: the pool scales that blocking by s (warppool_rule.c). The token form has no
 * such station (its fitted tokens absorb the blocking), so there the blocked share f of an SM's
 * cycles is computed from the measured blocking and the solved read rate, and the SM's time scales
 * by (1 - f) + f s: the unit is what the SM waits on while it is blocked (Amdahl's law over the
 * blocked cycles). The network's load is not solved again at the faster rate: the relief is the
 * last step, so the IPC it gives is an upper bound of the closed network's answer. */
#include "model_int.h"

double gpuest_model_setres_time_scale(double blocked_share, double scale)
{
    if (!(scale > 0) || !(blocked_share > 0))
        return 1.0;
    double f = blocked_share < 1.0 ? blocked_share : 1.0;
    return 1.0 - f + f * scale;
}

double gpuest_model_blocked_share(const gpuest_model_workload_t *w, double warp_ipc, double miss_latency, int sms)
{
    if (!(w->ldst_block_per_read > 0) || !(w->insts_per_request > 0) || sms < 1 || !(warp_ipc > 0))
        return 0.0;
    double blk = w->ldst_block_per_read;
    if (w->block_miss_latency > 0 && miss_latency > 0) /* a reserved way is held for one miss */
        blk *= miss_latency / w->block_miss_latency;
    double wf = w->write_fraction < 0 ? 0 : (w->write_fraction > 1 ? 1 : w->write_fraction);
    double reads_per_sm_cycle = warp_ipc / sms / w->insts_per_request * (1.0 - wf);
    double f = blk * reads_per_sm_cycle;
    return f < 1.0 ? f : 1.0;
}
