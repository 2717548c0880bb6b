/* tech_probing.c: remote-L1 probing (remote-core paper): the scenarios of technique.probing, which
 * decide per L1 read miss whether and where to probe; the simulator runs the messages (sim/probe.c).
 *  pp      perfect probing: a miss whose line another L1 holds gets it at once (zero-cycle oracle);
 *  dp      direct probing: one probe straight to the nearest L1 that holds the line;
 *  ip      IP(C,S,P): a perfect sharing oracle says whether some L1 holds the line (not which);
 *          then S probes with probability P, else S - 1 (0: to the L2), over C selected cores;
 *  rp      RP(C,S,P): as ip, with the PC-based sharing predictor instead of the oracle;
 *  ccn     CCN emulated as RP(num_sms - 1, 1, 1) with the index selector (paper IV-B);
 *  la_llc  the L2 forwards a read hit to the line's last reader instead of answering.
 * C = technique.probe_cores, S = probe_count, P = probe_rate; the selector is probe_selector.
 * With S >= 2 the probes use two-level probing (one leader, scouts; paper III-D). */
#include <stdlib.h>
#include <string.h>

#include "probing_int.h"
#include "technique_int.h"

typedef struct {
    uint64_t line;
    int16_t sm; /* last reader, -1 none */
} llc_entry_t;

typedef struct {
    int mode, nsm, cores, count, selector;
    double rate, precision;
    gpuest_rng_t *rng;
    probe_pred_t *pred; /* one per SM */
    probe_sel_t sel;
    llc_entry_t *llc;
    size_t nllc;
    /* statistics */
    uint64_t misses, oracle_shared, probed, predicted, tp, fp, fn, remote_hits, fallbacks;
    uint64_t ev[GPUEST_SIM_PEV_COUNT];
    uint64_t llc_reads, llc_hits;
} probing_t;

static const char *const probing_keys[] = {"probing",        "probe_cores",     "probe_count", "probe_rate",
                                           "probe_selector", "probe_precision", NULL};

static int probing_active(const gpuest_config_t *cfg) { return cfg->technique.probing != GPUEST_PROBE_NONE; }

static gpuest_err probing_validate(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    if (!probing_active(cfg))
        return GPUEST_OK;
    char at[256];
    const gpuest_technique_cfg_t *t = &cfg->technique;
    if (cfg->core.num_sms < 2 || cfg->core.num_sms > GPUEST_SIM_PROBE_MAX_SMS)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED, "%s: technique.probing needs 2..%d SMs, this machine has %d",
                           gpuest_config_key_origin(cfg, "technique", "probing", at, sizeof at),
                           GPUEST_SIM_PROBE_MAX_SMS, cfg->core.num_sms);
    if ((t->probing == GPUEST_PROBE_IP || t->probing == GPUEST_PROBE_RP) && t->probe_cores > cfg->core.num_sms - 1)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: technique.probe_cores = %d: at most num_sms - 1 = %d remote cores",
                           gpuest_config_key_origin(cfg, "technique", "probe_cores", at, sizeof at), t->probe_cores,
                           cfg->core.num_sms - 1);
    if ((t->probing == GPUEST_PROBE_IP || t->probing == GPUEST_PROBE_RP) && t->probe_count > t->probe_cores)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "%s: technique.probe_count = %d probes cannot split technique.probe_cores = %d cores",
                           gpuest_config_key_origin(cfg, "technique", "probe_count", at, sizeof at), t->probe_count,
                           t->probe_cores);
    if (strcmp(t->compression, "none") != 0 || t->coalescing != GPUEST_COALESCE_NONE)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.probing with reply compression or coalescing: the techniques do not share "
                           "the simulator's hooks yet; set the others to none",
                           gpuest_config_key_origin(cfg, "technique", "probing", at, sizeof at));
    return GPUEST_OK;
}

static void probing_destroy(void *state)
{
    probing_t *p = state;
    if (!p)
        return;
    gpuest_rng_destroy(p->rng);
    free(p->pred);
    probe_sel_free(&p->sel);
    free(p->llc);
    free(p);
}

static gpuest_err probing_create(const gpuest_technique_env_t *env, void **state, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    probing_t *p = calloc(1, sizeof *p);
    if (!p)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for remote-L1 probing");
    *state = p;
    const gpuest_technique_cfg_t *t = &cfg->technique;
    p->mode = t->probing;
    p->nsm = cfg->core.num_sms;
    p->cores = t->probe_cores;
    p->count = t->probe_count;
    p->rate = t->probe_rate;
    p->selector = t->probe_selector;
    p->precision = t->probe_precision;
    if (p->mode == GPUEST_PROBE_CCN) { /* the paper's emulation: RP(27,1,1), index selector */
        p->cores = p->nsm - 1;
        p->count = 1;
        p->rate = 1.0;
        p->selector = GPUEST_PROBE_SEL_INDEX;
    }
    if (gpuest_rng_create(env->seed ^ UINT64_C(0x70726f6265), &p->rng) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the probing generator");
    p->pred = malloc((size_t)p->nsm * sizeof *p->pred);
    if (!p->pred)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the sharing predictors");
    for (int s = 0; s < p->nsm; s++)
        probe_pred_init(&p->pred[s]);
    GPUEST_TRY(probe_sel_init(&p->sel, p->nsm, err));
    if (p->mode == GPUEST_PROBE_LA_LLC) { /* last-reader tags: two per L2 line, direct mapped */
        int nmc = cfg->mc.num_mcs * (cfg->mc.sub_partitions > 0 ? cfg->mc.sub_partitions : 1);
        p->nllc = 2 * (size_t)nmc * (size_t)(cfg->l2.size_per_mc_bytes / GPUEST_LINE_BYTES + 1);
        p->llc = malloc(p->nllc * sizeof *p->llc);
        if (!p->llc)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the LA-LLC sharer table");
        for (size_t k = 0; k < p->nllc; k++)
            p->llc[k] = (llc_entry_t){UINT64_MAX, -1};
    }
    return GPUEST_OK;
}

/* How many probes this miss sends: S with probability P, else S - 1. */
static int probe_number(probing_t *p)
{
    if (p->rate >= 1.0)
        return p->count;
    return gpuest_rng_uniform(p->rng) < p->rate ? p->count : p->count - 1;
}

static void search_plan(probing_t *p, int self, uint64_t cycle, gpuest_sim_probe_plan_t *pl)
{
    int n = probe_number(p);
    if (n <= 0)
        return; /* straight to the L2 */
    pl->action = GPUEST_SIM_PROBE_SEND;
    pl->nprobes = n;
    pl->two_level = n > 1;
    if (p->selector == GPUEST_PROBE_SEL_INDEX) {
        pl->ntargets = probe_sel_index(p->nsm, self, p->cores, pl->targets);
    } else {
        probe_sel_tick(&p->sel, cycle);
        pl->ntargets = probe_sel_supplier(&p->sel, p->rng, self, p->cores, pl->targets);
    }
    p->probed++;
}

static void probing_plan(void *ctx, const gpuest_sim_probe_query_t *q, uint64_t cycle, gpuest_sim_probe_plan_t *pl)
{
    probing_t *p = ctx;
    int shared = q->nearest >= 0;
    p->misses++;
    p->oracle_shared += (uint64_t)shared;
    switch (p->mode) {
    case GPUEST_PROBE_PP:
        if (shared)
            pl->action = GPUEST_SIM_PROBE_ORACLE;
        return;
    case GPUEST_PROBE_DP:
        if (shared) {
            pl->action = GPUEST_SIM_PROBE_SEND;
            pl->nprobes = 1;
            pl->ntargets = 1;
            pl->targets[0] = (int16_t)q->nearest;
            p->probed++;
        }
        return;
    case GPUEST_PROBE_IP: {
        /* imperfect IP (Fig. 14b): 1 - precision of the non-shared misses are taken as shared */
        int take = shared || (p->precision < 1.0 && gpuest_rng_uniform(p->rng) >= p->precision);
        if (take)
            search_plan(p, q->sm, cycle, pl);
        return;
    }
    case GPUEST_PROBE_RP:
    case GPUEST_PROBE_CCN: {
        int pred = probe_pred_predict(&p->pred[q->sm], q->pc);
        p->predicted += (uint64_t)pred;
        p->tp += (uint64_t)(pred && shared);
        p->fp += (uint64_t)(pred && !shared);
        p->fn += (uint64_t)(!pred && shared);
        if (pred)
            search_plan(p, q->sm, cycle, pl);
        return;
    }
    default:
        return;
    }
}

static void probing_done(void *ctx, int sm, uint32_t pc, int supplier, uint64_t cycle)
{
    probing_t *p = ctx;
    if (supplier < 0) {
        p->fallbacks++;
        return;
    }
    p->remote_hits++;
    probe_sel_reply(&p->sel, sm, supplier, cycle);
    if (p->mode == GPUEST_PROBE_RP || p->mode == GPUEST_PROBE_CCN)
        probe_pred_reply(&p->pred[sm], pc);
}

static void probing_event(void *ctx, int ev, int sm)
{
    probing_t *p = ctx;
    (void)sm;
    if (ev >= 0 && ev < GPUEST_SIM_PEV_COUNT)
        p->ev[ev]++;
}

static int probing_llc(void *ctx, int mc, int sm, uint64_t line, int hit)
{
    probing_t *p = ctx;
    (void)mc;
    llc_entry_t *e = &p->llc[(line ^ (line >> 17)) % p->nllc];
    int last = e->line == line ? e->sm : -1;
    e->line = line;
    e->sm = (int16_t)sm;
    p->llc_reads++;
    p->llc_hits += (uint64_t)hit;
    return hit && last != sm ? last : -1;
}

static void probing_install(void *state, gpuest_sim_hooks_t *hooks)
{
    probing_t *p = state;
    hooks->probe_event = probing_event;
    if (p->mode == GPUEST_PROBE_LA_LLC) {
        hooks->llc_read = probing_llc;
        return;
    }
    hooks->probe_plan = probing_plan;
    hooks->probe_done = probing_done;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

static size_t probing_stats(void *state, gpuest_technique_stat_t *out, size_t max)
{
    const probing_t *p = state;
    size_t n = 0;
    const uint64_t *e = p->ev;
    n = tech_stat(out, n, max, "probing.read_misses", (double)p->misses);
    n = tech_stat(out, n, max, "probing.oracle_shared", (double)p->oracle_shared);
    n = tech_stat(out, n, max, "probing.probed_misses", (double)p->probed);
    n = tech_stat(out, n, max, "probing.remote_hits", (double)e[GPUEST_SIM_PEV_REMOTE_HIT]);
    /* the paper's inter-core locality (remote hit rate): remote replies / L1 read misses */
    n = tech_stat(out, n, max, "probing.remote_hit_rate", ratio(e[GPUEST_SIM_PEV_REMOTE_HIT], p->misses));
    n = tech_stat(out, n, max, "probing.probes_sent", (double)e[GPUEST_SIM_PEV_PROBE_SENT]);
    n = tech_stat(out, n, max, "probing.forwards", (double)e[GPUEST_SIM_PEV_FORWARD]);
    n = tech_stat(out, n, max, "probing.nacks", (double)e[GPUEST_SIM_PEV_NACK]);
    n = tech_stat(out, n, max, "probing.data_sent", (double)e[GPUEST_SIM_PEV_DATA_SENT]);
    n = tech_stat(out, n, max, "probing.timeouts", (double)e[GPUEST_SIM_PEV_TIMEOUT]);
    n = tech_stat(out, n, max, "probing.all_nack", (double)e[GPUEST_SIM_PEV_ALL_NACK]);
    n = tech_stat(out, n, max, "probing.deflections", (double)e[GPUEST_SIM_PEV_DEFLECT]);
    n = tech_stat(out, n, max, "probing.drops", (double)e[GPUEST_SIM_PEV_DROP]);
    n = tech_stat(out, n, max, "probing.late", (double)e[GPUEST_SIM_PEV_LATE]);
    n = tech_stat(out, n, max, "probing.second_level", (double)e[GPUEST_SIM_PEV_SECOND_LEVEL]);
    n = tech_stat(out, n, max, "probing.local_waits", (double)e[GPUEST_SIM_PEV_LOCAL_WAIT]);
    n = tech_stat(out, n, max, "probing.predicted_shared", (double)p->predicted);
    n = tech_stat(out, n, max, "probing.precision", ratio(p->tp, p->tp + p->fp));
    n = tech_stat(out, n, max, "probing.recall", ratio(p->tp, p->tp + p->fn));
    n = tech_stat(out, n, max, "probing.llc_forwards", (double)e[GPUEST_SIM_PEV_LLC_FORWARD]);
    n = tech_stat(out, n, max, "probing.llc_backs", (double)e[GPUEST_SIM_PEV_LLC_BACK]);
    /* request-network messages of the probing protocol (probes + forwards + NACKs share one count) */
    n = tech_stat(out, n, max, "probing.request_msgs",
                  (double)(e[GPUEST_SIM_PEV_PROBE_SENT] + e[GPUEST_SIM_PEV_FORWARD] + e[GPUEST_SIM_PEV_LLC_FORWARD]));
    return n;
}

const gpuest_technique_t gpuest_tech_probing = {
    .name = "probing",
    .desc = "remote-L1 probing: PP, DP, IP(C,S,P), RP(C,S,P) with the PC predictor, CCN, LA-LLC (remote-core paper)",
    .keys = probing_keys,
    .modes = GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL,
    .active = probing_active,
    .validate = probing_validate,
    .create = probing_create,
    .install = probing_install,
    .stats = probing_stats,
    .destroy = probing_destroy,
    .transform = tech_probe_transform,
};
