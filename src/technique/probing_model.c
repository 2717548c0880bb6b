/* probing_model.c: the analytical estimator's view of remote-L1 probing (technique.probing).
 *
 * ARCHITECTURE.md, techniques table: remote hit rate x shorter path, plus added request-network
 * load. The remote hit rate is measured without the simulator by the characterization walk
 * (src/workload/charact.c) on the machine's SMs and L1 size: for every read that misses the
 * walk's L1, how many other SMs' L1s hold the line at that moment (k). Per scenario:
 *  pp  every miss with k >= 1 is served by a sharer at once (the simulator's zero-cycle oracle):
 *      no L2, DRAM or network on those reads, no messages;
 *  dp  the same reads, each with one probe to a sharer and the data back over the network;
 *  ip  IP(C,S,P): a miss with k >= 1 (or, with probe_precision < 1, a non-shared miss taken as
 *      shared) is probed with probability P when S = 1 (S - 1 = 0 probes: straight to the L2), always
 *      when S >= 2; the S probes cover C of the num_sms - 1 other cores, taken here as a uniform
 *      random C-subset, so a sharer is found with probability 1 - C(N-1-k, C) / C(N-1, C).
 *      Each of the S probes walks a chain of L = ceil(C / S) of the C cores (one request packet per
 *      core visited) and stops at the first holder (data back) or ends in a NACK home: a chain
 *      visits sum_{j<L} P(the first j cores hold none) cores in expectation (for L = N - 1, N/(k + 1));
 *      a found miss pays those visits in place of the one traversal to the L2, a failed one L + 1
 *      traversals before its L2 request. The chains are taken as independent and do not stop
 *      each other.
 * Choices and limits (docs/estimator.md): the walk's L1 has no timing and no MSHR merging (a line in
 * flight to another SM counts as absent); the supplier selector (probe_selector = supplier) is
 * taken as a random choice (a lower bound of its hit rate when C < N - 1; exact when C = N - 1);
 * two-level probing, deflections, timeouts and the SM-to-SM links in the open NoC model are left
 * out. RP and CCN (the PC predictor's training needs the timed reply stream) and LA-LLC (the L2's
 * last-reader forwarding) are refused. */
#include <string.h>

#include "technique_int.h"

typedef struct {
    uint64_t misses;
    uint64_t holders[GPUEST_CHARACT_MAX_HOLDERS + 1];
} holders_t;

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    holders_t *h = ctx;
    h->misses += s->miss_reads;
    for (int k = 0; k <= GPUEST_CHARACT_MAX_HOLDERS; k++)
        h->holders[k] += s->miss_holders[k];
    return GPUEST_OK;
}

double tech_probe_find_prob(int others, int cores, int k)
{
    if (k <= 0 || cores <= 0)
        return 0.0;
    if (k > others)
        k = others;
    /* C(N-1-k, C) / C(N-1, C) = prod_{i<C} (N-1-k-i) / (N-1-i) */
    double miss = 1.0;
    for (int i = 0; i < cores && miss > 0; i++)
        miss *= (double)(others - k - i > 0 ? others - k - i : 0) / (double)(others - i);
    return 1.0 - miss;
}

/* One probe chain visits up to L of the `others` cores in a random order and stops at the first
 * of k holders: the expected cores visited, sum over j < L of P(the first j hold none). */
static double chain_visits(int others, int L, int k)
{
    double none = 1.0, visits = 0.0;
    for (int j = 0; j < L && j < others; j++) {
        visits += none;
        none *= (double)(others - k - j > 0 ? others - k - j : 0) / (double)(others - j);
    }
    return visits;
}

void tech_probe_map(const gpuest_config_t *cfg, uint64_t misses, const uint64_t *holders,
                    gpuest_model_transform_t *out)
{
    const gpuest_technique_cfg_t *t = &cfg->technique;
    double m = (double)misses, shared = 0.0;
    for (int k = 1; k <= GPUEST_CHARACT_MAX_HOLDERS; k++)
        shared += (double)holders[k];
    if (!(m > 0))
        return;
    if (t->probing == GPUEST_PROBE_PP || t->probing == GPUEST_PROBE_DP) {
        out->remote_read_share = shared / m;
        out->remote_net_share = t->probing == GPUEST_PROBE_DP ? 1.0 : 0.0;
        out->probe_msgs_per_read = t->probing == GPUEST_PROBE_DP ? shared / m : 0.0;
        return;
    }
    int others = cfg->core.num_sms - 1, C = t->probe_cores < others ? t->probe_cores : others;
    int S = t->probe_count < C ? t->probe_count : C;
    double q = S >= 2 ? 1.0 : t->probe_rate; /* probability a taken miss sends probes */
    int L = (C + S - 1) / S;                  /* cores per probe chain */
    double found = 0.0, msgs = 0.0, trips = 0.0;
    for (int k = 1; k <= GPUEST_CHARACT_MAX_HOLDERS; k++) {
        double n = (double)holders[k] * q, f = tech_probe_find_prob(others, C, k);
        double v = chain_visits(others, L, k), none = tech_probe_find_prob(others, L, k);
        found += n * f;
        msgs += n * S * (v + (1.0 - none));             /* visits, and a NACK from each empty chain */
        trips += n * (f * (v - 1.0) + (1.0 - f) * (L + 1)); /* found: the chain's visits for the L2's one */
    }
    double fp = (double)holders[0] * q * (1.0 - t->probe_precision); /* false sharing calls */
    msgs += fp * S * (L + 1);
    trips += fp * (L + 1);
    out->remote_read_share = found / m;
    out->remote_net_share = 1.0;
    out->probe_msgs_per_read = msgs / m;
    out->probe_extra_trips = trips / m;
}

gpuest_err tech_probe_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out,
                                gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    char at[256];
    gpuest_model_transform_identity(out);
    int mode = cfg->technique.probing;
    if (mode != GPUEST_PROBE_PP && mode != GPUEST_PROBE_DP && mode != GPUEST_PROBE_IP)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: the estimator models technique.probing = pp, dp and ip only; rp and ccn rest on "
                           "the PC sharing predictor trained by the timed replies, la_llc on the L2's last-reader "
                           "forwarding: use 'gpuest simulate' for them",
                           gpuest_config_key_origin(cfg, "technique", "probing", at, sizeof at));
    if (!env->launches)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.probing: the estimate needs the workload's launches to measure the remote "
                           "hit rate (a generated workload or a trace)");
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    holders_t h;
    memset(&h, 0, sizeof h);
    GPUEST_TRY(gpuest_workload_characterize(env->launches, &o, on_launch, NULL, &h, NULL, err));
    if (h.misses == 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.probing: the workload reads no line, so there is no remote hit rate to "
                           "measure");
    tech_probe_map(cfg, h.misses, h.holders, out);
    return GPUEST_OK;
}
