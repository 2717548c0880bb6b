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
 * out.
 * In flight (fifth session): the walk is lockstep, so SMs whose CTAs read the same line do so within
 * a few misses of each other, where a timed machine still has the first reader's line in flight;
 * a holder counts only once its line has been in its L1 for num_sms x l1.mshrs of the launch's
 * misses (tech_probe_holder_delay: the most misses the machine holds in flight), for PP / DP / IP /
 * RP / CCN and for LA-LLC's last reader (its forward can overtake the reader's reply waiting in the
 * MC's reply queue). Traversals are priced by probe_hops.c (probe_trip_scale) and the lookups at the
 * visited L1s are counted (probe_visits_per_read).
 * SM drift (fifth session, second round): the walk places CTAs as the simulator does and runs each SM
 * at its own rate (probe_drift.c: SMs far from the MCs fall behind), so sharers miss on a line
 * hundreds of misses apart as in the simulator; the window is the calibrated baseline's read misses
 * in flight (env->misses_in_flight, Little's law), the machine bound only where it is not known.
 *  rp  RP(C,S,P) and ccn (RP(N-1,1,1), index selector): as ip, but the PC sharing predictor takes
 *      misses shared or not; it is run per SM and PC over the walk's misses from its cold start
 *      (probe_pred_walk.c; until the fourth session its fixed point, tech_probe_pred_rate, which
 *      short runs never reach);
 *  la_llc  the walk mirrors the simulator's last-reader table at the L2 and counts the misses whose
 *      last reader is another SM still holding the line / not any more; the model takes them x its
 *      L2 hit rate (only hits are forwarded). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probing_int.h"
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

/* IP's and RP's searches: a miss with k >= 1 sharers is taken (probed) with probability
 * take_shared, one with none with take_none; C cores in S chains of L = ceil(C / S) each. */
static void map_search(int others, int C, int S, double rate, double take_shared, double take_none, uint64_t misses,
                       const uint64_t *holders, gpuest_model_transform_t *out)
{
    double m = (double)misses;
    S = S < C ? S : C;
    double q = S >= 2 ? 1.0 : rate; /* probability a taken miss sends probes (S with P, else S - 1 = 0) */
    int L = (C + S - 1) / S;        /* cores per probe chain */
    double found = 0.0, msgs = 0.0, trips = 0.0, visits = 0.0;
    for (int k = 1; k <= GPUEST_CHARACT_MAX_HOLDERS; k++) {
        double n = (double)holders[k] * q * take_shared, f = tech_probe_find_prob(others, C, k);
        double v = chain_visits(others, L, k), none = tech_probe_find_prob(others, L, k);
        found += n * f;
        msgs += n * S * (v + (1.0 - none));             /* visits, and a NACK from each empty chain */
        visits += n * S * v;
        trips += n * (f * (v - 1.0) + (1.0 - f) * (L + 1)); /* found: the chain's visits for the L2's one */
    }
    double fp = (double)holders[0] * q * take_none; /* misses no L1 can answer, probed all the same */
    msgs += fp * S * (L + 1);
    visits += fp * S * L;
    trips += fp * (L + 1);
    out->remote_read_share = found / m;
    out->remote_net_share = 1.0;
    out->probe_msgs_per_read = msgs / m;
    out->probe_extra_trips = trips / m;
    out->probe_visits_per_read = visits / m;
}

/* P(X >= thr) for X ~ Binomial(n, g). */
static double binom_tail(int n, double g, int thr)
{
    double p = 0.0, term = pow(1.0 - g, n); /* P(X = 0) */
    for (int x = 0; x <= n; x++) {
        if (x >= thr)
            p += term;
        if (x < n)
            term = g < 1.0 ? term * (double)(n - x) / (double)(x + 1) * g / (1.0 - g) : (x + 1 == n ? 1.0 : 0.0);
    }
    return p > 1.0 ? 1.0 : p;
}

double tech_probe_pred_rate(double g)
{
    /* windows pass (replies >= threshold: one state down, towards probing every miss) or fail (one
     * up): a Markov chain over windows, whose stationary law is found by iterating its lazy form
     * (same law, aperiodic; a pass or a fail always moves, so it mixes in a few dozen steps) */
    double pass[PROBE_PRED_STATES], pi[PROBE_PRED_STATES], nx[PROBE_PRED_STATES];
    for (int st = 0; st < PROBE_PRED_STATES; st++) {
        pass[st] = binom_tail(probe_pred_shared(st), g, probe_pred_threshold(st));
        pi[st] = 1.0 / PROBE_PRED_STATES;
    }
    for (int it = 0; it < 4000; it++) {
        for (int st = 0; st < PROBE_PRED_STATES; st++)
            nx[st] = 0.5 * pi[st];
        for (int st = 0; st < PROBE_PRED_STATES; st++) {
            int down = st > 0 ? st - 1 : 0, up = st + 1 < PROBE_PRED_STATES ? st + 1 : st;
            nx[down] += 0.5 * pi[st] * pass[st];
            nx[up] += 0.5 * pi[st] * (1.0 - pass[st]);
        }
        memcpy(pi, nx, sizeof pi);
    }
    double shared = 0.0, misses = 0.0; /* a window of state s: window(s) misses, shared(s) of them probed */
    for (int st = 0; st < PROBE_PRED_STATES; st++) {
        shared += pi[st] * probe_pred_shared(st);
        misses += pi[st] * probe_pred_window(st);
    }
    return misses > 0 ? shared / misses : 0.0;
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
    if (t->probing == GPUEST_PROBE_IP) {
        map_search(others, C, t->probe_count, t->probe_rate, 1.0, 1.0 - t->probe_precision, misses, holders, out);
        out->probe_index_chain = t->probe_selector == GPUEST_PROBE_SEL_INDEX;
        out->probe_trip_scale = tech_probe_trip_scale(cfg, out->probe_index_chain);
        return;
    }
    /* RP(C,S,P) and CCN = RP(N-1,1,1) (index selector: every other core, so a sharer is always
     * found): the PC predictor probes a share rho of the misses whatever their sharers; it is
     * trained by the remote hits of its probes, g per probed miss (the predictor's fixed point) */
    int S = t->probe_count;
    double rate = t->probe_rate;
    if (t->probing == GPUEST_PROBE_CCN) {
        C = others;
        S = 1;
        rate = 1.0;
    }
    double g = 0.0;
    for (int k = 1; k <= GPUEST_CHARACT_MAX_HOLDERS; k++)
        g += (double)holders[k] / m * tech_probe_find_prob(others, C, k);
    g *= (S < C ? S : C) >= 2 ? 1.0 : rate;
    double rho = tech_probe_pred_rate(g);
    map_search(others, C, S, rate, rho, rho, misses, holders, out);
}

uint64_t tech_probe_holder_delay(const gpuest_config_t *cfg, double in_flight)
{
    int sms = cfg->core.num_sms > 0 ? cfg->core.num_sms : 1, mshrs = cfg->l1.mshrs > 0 ? cfg->l1.mshrs : 1;
    uint64_t bound = (uint64_t)sms * (uint64_t)mshrs;
    if (!(in_flight > 0.0) || in_flight >= (double)bound)
        return bound;
    return (uint64_t)(in_flight + 0.5);
}

/* RP(C,S,P) and CCN = RP(N-1,1,1) (index selector: every other core, so a sharer is always found):
 * the search's C, S and P */
static void rp_search(const gpuest_config_t *cfg, int *others, int *C, int *S, double *rate)
{
    const gpuest_technique_cfg_t *t = &cfg->technique;
    *others = cfg->core.num_sms - 1;
    *C = t->probe_cores < *others ? t->probe_cores : *others;
    *S = t->probe_count;
    *rate = t->probe_rate;
    if (t->probing == GPUEST_PROBE_CCN) {
        *C = *others;
        *S = 1;
        *rate = 1.0;
    }
}

void tech_probe_map_probed(const gpuest_config_t *cfg, uint64_t misses, const uint64_t *probed,
                           gpuest_model_transform_t *out)
{
    int others, C, S;
    double rate;
    rp_search(cfg, &others, &C, &S, &rate);
    if (misses == 0)
        return;
    map_search(others, C, S, rate, 1.0, 1.0, misses, probed, out);
    int index = cfg->technique.probing == GPUEST_PROBE_CCN || cfg->technique.probe_selector == GPUEST_PROBE_SEL_INDEX;
    out->probe_index_chain = index;
    out->probe_trip_scale = tech_probe_trip_scale(cfg, index);
}

static gpuest_err ppw_on_miss(void *ctx, int sm, uint32_t pc, int holders, gpuest_error_t *err)
{
    (void)err;
    tech_ppw_miss(ctx, sm, pc, holders);
    return GPUEST_OK;
}

/* RP / CCN: the predictor run over the walk's misses (probe_pred_walk.c) */
static gpuest_err rp_transform(const gpuest_technique_env_t *env, gpuest_charact_opts_t *o,
                               gpuest_model_transform_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    int others, C, S;
    double rate;
    rp_search(cfg, &others, &C, &S, &rate);
    tech_ppw_t *w = NULL;
    double send = (S < C ? S : C) >= 2 ? 1.0 : rate;
    GPUEST_TRY(tech_ppw_create(o->num_sms, others, C, send, &w, err));
    o->miss_cb = ppw_on_miss;
    o->access_ctx = w;
    gpuest_err rc = gpuest_workload_characterize(env->launches, o, NULL, NULL, w, NULL, err);
    if (rc == GPUEST_OK && tech_ppw_misses(w) == 0)
        rc = gpuest_fail(err, GPUEST_EUNSUPPORTED,
                         "technique.probing: the workload reads no line, so there is no remote hit rate to measure");
    if (rc == GPUEST_OK)
        tech_probe_map_probed(cfg, tech_ppw_misses(w), tech_ppw_probed(w), out);
    tech_ppw_destroy(w);
    return rc;
}

/* ------------------------------------------------------------------ LA-LLC */

typedef struct {
    uint64_t line;
    int sm;     /* -1: empty */
    uint64_t t; /* the walk's misses before that read */
} llc_last_t;

struct tech_llc_walk_s {
    tech_l1cm_cache_t *l1; /* per SM, the plain L1 (every line whole) */
    llc_last_t *last;
    size_t entries;
    uint64_t misses, hold, gone;
    uint64_t delay; /* a last reader's line counts once it has been in its L1 this many misses */
};

gpuest_err tech_llc_walk_create(int sms, int sets, int assoc, size_t entries, tech_llc_walk_t **out,
                                gpuest_error_t *err)
{
    *out = NULL;
    tech_llc_walk_t *w = calloc(1, sizeof *w);
    if (!w)
        return gpuest_fail(err, GPUEST_ENOMEM, "LA-LLC model: out of memory");
    w->entries = entries > 0 ? entries : 1;
    w->last = malloc(w->entries * sizeof *w->last);
    gpuest_err rc = w->last ? tech_l1cm_create(sms, sets, assoc, &w->l1, err)
                            : gpuest_fail(err, GPUEST_ENOMEM, "LA-LLC model: out of memory");
    if (rc != GPUEST_OK) {
        tech_llc_walk_destroy(w);
        return rc;
    }
    for (size_t k = 0; k < w->entries; k++)
        w->last[k] = (llc_last_t){0, -1, 0};
    *out = w;
    return GPUEST_OK;
}

void tech_llc_walk_destroy(tech_llc_walk_t *w)
{
    if (!w)
        return;
    tech_l1cm_destroy(w->l1);
    free(w->last);
    free(w);
}

void tech_llc_walk_flush(tech_llc_walk_t *w) { tech_l1cm_flush(w->l1); }

void tech_llc_walk_set_delay(tech_llc_walk_t *w, uint64_t delay) { w->delay = delay; }

void tech_llc_walk_access(tech_llc_walk_t *w, int sm, uint64_t line, int is_load)
{
    int hc;
    if (!is_load) { /* write-evict at the writer's L1 */
        tech_l1cm_invalidate(w->l1, sm, line);
        return;
    }
    if (tech_l1cm_access(w->l1, sm, line, GPUEST_LINE_BYTES, &hc))
        return; /* an L1 hit never reaches the L2 */
    uint64_t now = w->misses++;
    /* the simulator's last-reader table: direct mapped by (line ^ line >> 17), updated by every read */
    llc_last_t *e = &w->last[(line ^ (line >> 17)) % w->entries];
    int last = e->line == line ? e->sm : -1;
    uint64_t then = e->t;
    e->line = line;
    e->sm = sm;
    e->t = now;
    if (last < 0 || last == sm)
        return;
    /* a last reader whose line is still in flight does not hold it yet: the read comes back */
    if (then + w->delay <= now && tech_l1cm_holds(w->l1, last, line))
        w->hold++;
    else
        w->gone++;
}

void tech_llc_walk_shares(const tech_llc_walk_t *w, double *hold, double *gone)
{
    *hold = w->misses ? (double)w->hold / (double)w->misses : 0.0;
    *gone = w->misses ? (double)w->gone / (double)w->misses : 0.0;
}

static gpuest_err llc_on_access(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                                gpuest_error_t *err)
{
    (void)img;
    (void)err;
    tech_llc_walk_access(ctx, sm, line, is_load);
    return GPUEST_OK;
}

static gpuest_err llc_on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)s;
    (void)err;
    tech_llc_walk_flush(ctx); /* the L1s start empty at each launch; the L2's table stays */
    return GPUEST_OK;
}

/* The walk as the timed machine runs it: the simulator's CTA placement and each SM at its own rate
 * (probe_drift.c), so that SMs sharing lines drift apart as they do there instead of missing on the
 * same line within one round; rate: num_sms entries, owned by the caller. */
static void drift_opts(const gpuest_config_t *cfg, double *rate, gpuest_charact_opts_t *o)
{
    o->sim_placement = 1;
    o->sm_rate = tech_probe_sm_rates(cfg, rate) ? rate : NULL;
}

static gpuest_err llc_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    double *rate = malloc((size_t)o.num_sms * sizeof *rate);
    if (!rate)
        return gpuest_fail(err, GPUEST_ENOMEM, "LA-LLC model: out of memory");
    drift_opts(cfg, rate, &o);
    int nmc = cfg->mc.num_mcs * (cfg->mc.sub_partitions > 0 ? cfg->mc.sub_partitions : 1); /* as tech_probing.c */
    size_t entries = 2 * (size_t)nmc * (size_t)(cfg->l2.size_per_mc_bytes / GPUEST_LINE_BYTES + 1);
    tech_llc_walk_t *w = NULL;
    gpuest_err rc = tech_llc_walk_create(o.num_sms, o.l1_lines / o.l1_assoc, o.l1_assoc, entries, &w, err);
    if (rc != GPUEST_OK) {
        free(rate);
        return rc;
    }
    /* the probes' in-flight window: the forward leaves on the request network at once, while the
     * last reader's own reply may still wait in the MC's reply queue (or its L2 miss in DRAM), so
     * a forward can reach the last reader before its line does; then the read comes back */
    tech_llc_walk_set_delay(w, tech_probe_holder_delay(cfg, env->misses_in_flight));
    o.access_cb = llc_on_access;
    o.access_ctx = w;
    rc = gpuest_workload_characterize(env->launches, &o, llc_on_launch, NULL, w, NULL, err);
    if (rc == GPUEST_OK)
        tech_llc_walk_shares(w, &out->llc_fwd_hold, &out->llc_fwd_gone);
    tech_llc_walk_destroy(w);
    free(rate);
    return rc;
}

gpuest_err tech_probe_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out,
                                gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_model_transform_identity(out);
    if (!env->launches)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.probing: the estimate needs the workload's launches to measure the remote "
                           "hit rate (a generated workload or a trace)");
    if (cfg->technique.probing == GPUEST_PROBE_LA_LLC)
        return llc_transform(env, out, err);
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    o.holder_delay = tech_probe_holder_delay(cfg, env->misses_in_flight); /* in flight: answers no probe */
    double *rate = malloc((size_t)o.num_sms * sizeof *rate);
    if (!rate)
        return gpuest_fail(err, GPUEST_ENOMEM, "technique.probing model: out of memory");
    drift_opts(cfg, rate, &o);
    gpuest_err rc;
    holders_t h;
    memset(&h, 0, sizeof h);
    if (cfg->technique.probing == GPUEST_PROBE_RP || cfg->technique.probing == GPUEST_PROBE_CCN)
        rc = rp_transform(env, &o, out, err);
    else
        rc = gpuest_workload_characterize(env->launches, &o, on_launch, NULL, &h, NULL, err);
    free(rate);
    if (rc != GPUEST_OK || cfg->technique.probing == GPUEST_PROBE_RP || cfg->technique.probing == GPUEST_PROBE_CCN)
        return rc;
    if (h.misses == 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.probing: the workload reads no line, so there is no remote hit rate to "
                           "measure");
    tech_probe_map(cfg, h.misses, h.holders, out);
    return GPUEST_OK;
}
