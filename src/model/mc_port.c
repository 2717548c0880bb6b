/* mc_port.c: the MC reply-injection port as the MC sees it, for the MC stall ratio of the closed
 * GPU model (gpu_model.c; docs/estimator.md, "The MC stall ratio in the model (sixth session)").
 *
 * The simulator counts an MC stall in an L2 cycle whose head reply is ready but refused by the
 * network interface (src/sim/mc.c, inject_reply). The NI queue takes a packet of f flits when it is
 * empty or when its flits plus f fit its capacity C (noc.inject_queue_flits; src/noc/network.c,
 * iq_room), and at most noc.inject_queue packets. In packets of work at the port the NI is "full"
 * past C / f, so the blocking threshold is K = C / f packets, not noc.inject_queue: with the
 * presets' C = 9 a 5-flit reply (fermi) leaves K = 1.8, a 9-flit reply (mesh56) K = 1. A shorter
 * reply (compression) raises K as well as shortening the port's service.
 *
 * Within a stretch of cycles in which a reply waits, the NI takes one packet every S L2 cycles
 * (S: the port's service time of a reply in L2 cycles); that cycle sends instead of stalling, so
 * the stalled share of the blocked time is 1 - 1 / S (saturated: 1 - 1/5 = 0.8 on fermi's 5-flit
 * replies, which is what the simulator's saturated points approach). */
#include <math.h>

#include "model/model_int.h"

double gpuest_model_ni_packets(int inject_queue, int inject_queue_flits, double flits)
{
    double k = inject_queue > 0 ? (double)inject_queue : 1.0;
    if (inject_queue_flits > 0 && flits > 0) {
        double kf = (double)inject_queue_flits / flits;
        kf = kf > 1.0 ? kf : 1.0; /* an empty NI takes any packet */
        k = kf < k ? kf : k;
    }
    return k;
}

/* P(N > k) at a fractional k: log-linear between the integer thresholds around it (exact for an
 * untruncated geometric law, whose tail is rho^(k + 1)), linear where the upper one is zero. */
static double tail_at(double mean, double b, double k)
{
    double k0 = floor(k), fr = k - k0;
    double t0 = gpuest_model_stall_ratio(mean, b, k0, NULL);
    if (fr <= 0.0)
        return t0;
    double t1 = gpuest_model_stall_ratio(mean, b, k0 + 1.0, NULL);
    if (t0 > 0.0 && t1 > 0.0)
        return exp((1.0 - fr) * log(t0) + fr * log(t1));
    return (1.0 - fr) * t0 + fr * t1;
}

double gpuest_model_mc_stall(double mean, double reply_queue, double k, double service_l2)
{
    if (!(mean > 0.0) || !(k > 0.0))
        return 0.0;
    double b = reply_queue + k; /* the reply side holds the MC's reply queue and the NI's packets */
    double blocked = tail_at(mean, b, k);
    double send_share = service_l2 > 1.0 ? 1.0 / service_l2 : 1.0;
    return blocked * (1.0 - send_share);
}
