/* ldst_pool.c: the LD/ST unit's head-of-line blocking that a WarpPool relieves (scoreboard model).
 *
 * Without a pool the SM's LD/ST unit is in order: an access that finds the MSHRs or the miss queue
 * full holds it, and a warp whose memory instruction waits behind it issues nothing more (sm.c,
 * ldst_step; the model's LD/ST station, whose demand carries the measured blocking). With a pool
 * (sim/warppool.c) the unit hands its line requests to the pool's queues while the pool's FIFO head
 * is stalled, so the warp goes on issuing its epoch: the L1 port serves the same requests in the
 * same order (the LD/ST station keeps its demand and its queue), but the warp's own compute
 * dependences after its loads run while those loads wait for the port instead of after. The time
 * saved per customer cycle is the smaller of the warp's wait at the port beyond its own insertion
 * cycles and its compute-dependence delay, for the share of the waiting line requests the pool
 * holds (all of them while it has a free queue for each; pool / waiting beyond that, the rest wait
 * at the unit as before). The token model has no LD/ST station and no dependence delay: nothing. */
#include "model_int.h"

double gpuest_model_pool_overlap(double pool_lines, double waiting_lines, double port_wait, double dep)
{
    if (!(pool_lines > 0) || !(port_wait > 0) || !(dep > 0))
        return 0.0;
    double held = waiting_lines > pool_lines ? pool_lines / waiting_lines : 1.0;
    return held * (port_wait < dep ? port_wait : dep);
}
