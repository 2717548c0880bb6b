/* noc_credit.c: the credit loop of a network interface's injection channel.
 *
 * The NI sends one packet of a class at a time (src/noc/network.c, ni_inject: the next packet
 * starts after the tail), flit by flit on one VC, and a flit needs a credit: the VC's buffer in
 * the router holds B flits, and a buffer slot comes back R cycles after the flit that took it was
 * sent (the flit's channel, one cycle in the router before the flit leaves its buffer, the
 * credit's channel). Flit i of a packet therefore leaves at t_i = max(t_(i-1) + 1, t_(i-B) + R):
 * with B >= R the packet streams at one flit a cycle, with B < R it sends B flits per R cycles.
 * An MC injects one class (replies), so its port delivers at most L / T(L) flits per cycle: with
 * mesh56's 4-flit buffers and 9-flit replies 9 / 11 = 0.82 (docs/estimator.md, "NoC structure
 * points on mesh56"). */
#include "model/model.h"

int gpuest_model_inject_credit_rtt(const gpuest_noc_cfg_t *noc)
{
    /* src/noc/network.c add_link: a channel of latency L delivers flits and credits L + 1 cycles
     * after they are sent; the NI's channel adds no credit_delay (that is a router's). The cycle in
     * the router was measured on the cycle-level NoC (zero-load latency of 9-flit packets with
     * 2, 3, 4 and 8-flit buffers, and with link latency 2) */
    int tl = noc->link_latency > 0 ? noc->link_latency : 1;
    return 2 * (tl + 1) + 1;
}

double gpuest_model_credit_send_time(int flits, int buffer, int rtt)
{
    if (flits < 1)
        return 0.0;
    if (buffer < 1)
        buffer = 1;
    if (buffer >= rtt || flits <= buffer)
        return flits;
    /* t_(L-1) = floor((L-1)/B) R + (L-1) mod B for R > B; the packet ends a cycle after it */
    return (double)((flits - 1) / buffer) * rtt + (flits - 1) % buffer + 1;
}
