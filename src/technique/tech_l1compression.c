/* tech_l1compression.c: the policies of the compressed L1D (LATTE-CC, Arunkumar et al.,
 * sections III and IV-C; the organization itself is src/sim/l1_compressed.c).
 *
 * technique.l1_compression picks the policy:
 *  - static_bdi / static_sc / static_bpc: every line in one mode;
 *  - latte_cc (modes none, BDI, SC) and latte_cc_bdi_bpc (none, BDI, BPC): per SM, execution is cut
 *    into experimental phases (EP) of 256 L1D accesses, 10 EPs a period; EP 0 of each period is
 *    the learning phase, in which 4 dedicated sets per mode store their lines in that mode while
 *    the other (follower) sets keep the current mode. Insertions (misses) in the dedicated sets
 *    are counted in EP 0, hits in EPs 0 and 1 (the paper's one-EP extension: a line's reuse comes
 *    after its insertion). At the end of every EP from EP 0 on, the mode of the next EP is the one
 *    with the least AMAT_GPU (eq. 2, with the clamp at zero of ARCHITECTURE.md):
 *        AMAT_GPU(m) = (N_hit(m) max(hit_lat(m) - LT, 0) + N_miss(m) miss_lat) / (N_hit(m) + N_miss(m))
 *    LT = available warps x cycles per schedule (eq. 4), both measured on this SM over the EP just
 *    ended; hit_lat(m) = L1 hit latency + the mean decompression wait (eq. 3) of this period's hits
 *    on mode-m lines (the nominal decompression latency before any); miss_lat = this SM's mean
 *    access-to-fill time of its primary misses so far.
 *  - adaptive_hit_count: the same sampling, the mode with the lowest miss ratio in its sets
 *    (no latency at all: the paper's Adaptive-Hit-Count).
 *  - adaptive_cmp: Alameldeen and Wood's adaptive policy for CMP caches (ISCA 2004) on the same
 *    sampling: a saturating counter per compressed mode, updated by the accesses to that mode's
 *    dedicated sets in the counting window from the LRU stack depth of the hit: a hit deeper than
 *    the uncompressed associativity is a miss avoided (+ miss latency), a hit within it on a
 *    compressed line a penalized hit (- its decompression cycles). The mode with the largest
 *    positive counter wins, none when no counter is positive. Their 'avoidable miss' term (a
 *    miss whose tag is still present) is left out: our tags keep the address of any invalidated
 *    line, evicted for room or not, so it cannot be told apart.
 *  - fann: the same sampling (none, BDI, SC); at the end of every EP the SM's features
 *    (gpuest_l1c_fann_feature_names: what the SM observes, the rule's AMAT_GPU estimates and the
 *    rule's own choice) go through models/latte-fann.net and gpuest_l1c_fann_decide picks the
 *    next EP's mode: the largest output, or for a model trained relative to the rule, the rule's
 *    choice unless the network predicts a saving above the model's margin (docs/latte-cc.md,
 *    "The FANN mode selector").
 * Ties go to the lower latency mode (none, then BDI, then the high-capacity one).
 *
 * SC (statistical compression): each SM has a value frequency table (1024 entries, 12-bit
 * counters) that samples the words of every line filled during the first EP of the first period
 * and during the last EP of every period; its canonical Huffman book takes effect at the end of
 * that EP (the first) or when the next period starts, and then every line stored with the old
 * book (policy bits = SC) is invalidated. Before the first book exists an SC line is stored raw.
 * BDI, SC and BPC sizes come from compressing the line's bytes with the compress module; a line
 * that does not shrink is stored raw (policy bits none, no decompression). Latencies (LATTE-CC
 * IV-C and Table I): decompression BDI 2, SC 14, BPC 11 cycles. The compression latencies (2, 6,
 * 11) are off the load's path: the reply's data goes to the warp while the line is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "learn/learn.h"
#include "technique_int.h"

#define EP_ACCESSES 256
#define EPS_PER_PERIOD 10
_Static_assert(EPS_PER_PERIOD == GPUEST_L1C_EPS_PER_PERIOD, "the period of technique.h's period decisions");
#define DEDICATED_SETS 4
#define CAP_BUCKETS 16
#define HITLAT_BINS 6
#define MODE_SLICES 8
#define GCP_LIMIT (1 << 18) /* Alameldeen-Wood's 19-bit saturating counter */

static const int decomp_cycles[GPUEST_L1C_MODES] = {0, 2, 14, 11};
static const char *const mode_names[GPUEST_L1C_MODES] = {"none", "bdi", "sc", "bpc"};

typedef enum { RULE_STATIC, RULE_AMAT, RULE_HIT_COUNT, RULE_CMP, RULE_FANN } rule_t;

typedef struct {
    int ep_acc;      /* accesses in the current EP */
    int ep;          /* EP index in the period, 0..9 */
    uint64_t period; /* periods started before the current one */
    int mode;        /* follower mode of the current EP */
    uint64_t nhit[GPUEST_L1C_MODES], nmiss[GPUEST_L1C_MODES];
    uint64_t dec_sum[GPUEST_L1C_MODES], dec_n[GPUEST_L1C_MODES];
    int64_t gcp[GPUEST_L1C_MODES];
    uint64_t avail0, cycles0, issue0, runs0; /* cumulative counters at the EP's start */
    double lt;                               /* latency tolerance of the last EP */
    gpuest_sc2_vft_t *vft;
    gpuest_sc2_book_t *book;
    gpuest_codec_t sc_codec;
    int book_ready;
    unsigned pending_invalidate; /* modes to invalidate at the next access */
    /* this EP's accesses as the FANN features need them */
    uint64_t ep_miss, ep_hits, ep_extra, ep_chits, ep_qpos;
    double prev_miss_rate;
    uint64_t eps_done; /* EPs of this SM ended so far */
    int held;          /* fann, period form: the mode held up to the period's last EP, -1: the rule's */
} sm_state_t;

typedef struct {
    rule_t rule;
    int cand[3], ncand; /* candidate modes, lowest latency first */
    int uses_sc;
    int nsm, base_hit, l1_bytes, assoc;
    sm_state_t *sm;
    gpuest_codec_t bdi, bpc;
    /* statistics */
    uint64_t eps, ep_mode[GPUEST_L1C_MODES], books, periods;
    double cap_sum, lt_sum;
    double cap_bucket[CAP_BUCKETS];
    uint64_t cap_n[CAP_BUCKETS];
    uint64_t slice_ep[MODE_SLICES], slice_bdi[MODE_SLICES], slice_hc[MODE_SLICES];
    double *cap_cycle; /* (cycle, capacity, mode) of every EP end, for the slices */
    size_t ncap, capcap;
    uint64_t hits, hit_extra_sum, hitlat_bin[HITLAT_BINS];
    uint64_t fills, fills_compressed, fill_bytes;
    gpuest_learn_net_t *net; /* fann only */
    double fann_span, fann_margin; /* the model's metadata 'rule_span' and 'margin' (0 when absent) */
    double fann_guard;             /* 'range_guard' (0 when absent) */
    int kernel_opt;                /* 1: kernel_opt, the mode set per launch by the caller */
    double fann_period;            /* 'period' (0 when absent): 1 = decisions held for a period */
} l1c_t;

const char *const gpuest_l1c_fann_feature_names[GPUEST_L1C_FANN_FEATURES] = {
    "avail_warps", "cycles_per_schedule", "latency_tolerance", "hit_ratio_none", "hit_ratio_bdi", "hit_ratio_sc",
    "wait_bdi", "wait_sc", "miss_rate", "miss_rate_change", "miss_latency", "queue_depth", "capacity",
    "ep_in_period", "mode_none", "mode_bdi", "mode_sc", "hit_extra", "amat_none", "amat_bdi", "amat_sc",
    "rule_none", "rule_bdi", "rule_sc"};

static gpuest_l1c_ep_fn ep_observer;
static void *ep_observer_ctx;

void gpuest_l1c_set_ep_observer(gpuest_l1c_ep_fn fn, void *ctx)
{
    ep_observer = fn;
    ep_observer_ctx = ctx;
}

static int launch_driver;

void gpuest_l1c_set_launch_driver(int on) { launch_driver = on; }

static const char *const l1c_keys[] = {"l1_compression", NULL};

/* The estimator models every policy (l1c_model.c: static ones directly, adaptive ones by their
 * rule over the static candidates). */
static unsigned l1c_modes_of(const gpuest_config_t *cfg)
{
    (void)cfg;
    return GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL;
}

static int l1c_active(const gpuest_config_t *cfg) { return cfg->technique.l1_compression != GPUEST_L1COMP_NONE; }

static gpuest_err l1c_validate(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at[256];
    if (!l1c_active(cfg))
        return GPUEST_OK;
    int sets = cfg->l1.size_bytes / (cfg->l1.line_bytes * cfg->l1.assoc);
    if (sets < DEDICATED_SETS * 3)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "%s: technique.l1_compression needs at least %d L1D sets (4 dedicated sets for each of "
                           "3 modes), this L1D has %d",
                           gpuest_config_key_origin(cfg, "technique", "l1_compression", at, sizeof at),
                           DEDICATED_SETS * 3, sets);
    if (cfg->l1.assoc * 4 > 255)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: technique.l1_compression supports an L1D of at most 63 ways",
                           gpuest_config_key_origin(cfg, "technique", "l1_compression", at, sizeof at));
    return GPUEST_OK;
}

static void l1c_destroy(void *state)
{
    l1c_t *c = state;
    if (!c)
        return;
    for (int i = 0; c->sm && i < c->nsm; i++) {
        gpuest_sc2_vft_destroy(c->sm[i].vft);
        gpuest_sc2_book_destroy(c->sm[i].book);
    }
    free(c->sm);
    free(c->cap_cycle);
    gpuest_learn_net_destroy(c->net);
    free(c);
}

static void set_policy(l1c_t *c, int policy)
{
    static const struct {
        rule_t rule;
        int cand[3], ncand;
    } table[] = {
        [GPUEST_L1COMP_STATIC_BDI] = {RULE_STATIC, {GPUEST_L1C_BDI}, 1},
        [GPUEST_L1COMP_STATIC_SC] = {RULE_STATIC, {GPUEST_L1C_SC}, 1},
        [GPUEST_L1COMP_STATIC_BPC] = {RULE_STATIC, {GPUEST_L1C_BPC}, 1},
        [GPUEST_L1COMP_LATTE_CC] = {RULE_AMAT, {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC}, 3},
        [GPUEST_L1COMP_LATTE_CC_BDI_BPC] = {RULE_AMAT, {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_BPC}, 3},
        [GPUEST_L1COMP_ADAPTIVE_HIT_COUNT] = {RULE_HIT_COUNT, {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC}, 3},
        [GPUEST_L1COMP_ADAPTIVE_CMP] = {RULE_CMP, {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC}, 3},
        [GPUEST_L1COMP_FANN] = {RULE_FANN, {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC}, 3},
        /* Kernel-OPT: static within a launch (no dedicated sets), the mode set by the caller before
         * each launch (gpuest_technique_set_l1c_mode); it starts in none. SC's books are built and
         * rebuilt on the usual EP / period schedule whatever the mode, as in static_sc. */
        [GPUEST_L1COMP_KERNEL_OPT] = {RULE_STATIC, {GPUEST_L1C_NONE, GPUEST_L1C_BDI, GPUEST_L1C_SC}, 3},
    };
    c->rule = table[policy].rule;
    c->ncand = table[policy].ncand;
    for (int i = 0; i < c->ncand; i++) {
        c->cand[i] = table[policy].cand[i];
        c->uses_sc |= c->cand[i] == GPUEST_L1C_SC;
    }
}

static gpuest_err l1c_create(const gpuest_technique_env_t *env, void **state, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    if (cfg->technique.l1_compression == GPUEST_L1COMP_KERNEL_OPT && !launch_driver) {
        char at[256];
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.l1_compression = kernel_opt is an oracle that runs every launch in "
                           "none, static_bdi and static_sc by forked copies of the simulation and keeps the "
                           "fastest; only 'gpuest simulate' can run it (this path simulates each launch once)",
                           gpuest_config_key_origin(cfg, "technique", "l1_compression", at, sizeof at));
    }
    l1c_t *c = calloc(1, sizeof *c);
    if (!c || !(c->sm = calloc((size_t)cfg->core.num_sms, sizeof *c->sm))) {
        free(c);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the compressed L1 policy");
    }
    c->nsm = cfg->core.num_sms;
    c->base_hit = cfg->l1.hit_latency;
    c->l1_bytes = cfg->l1.size_bytes;
    c->assoc = cfg->l1.assoc;
    set_policy(c, cfg->technique.l1_compression);
    c->kernel_opt = cfg->technique.l1_compression == GPUEST_L1COMP_KERNEL_OPT;
    const gpuest_compress_algo_t *a;
    gpuest_codec_opts_t o = {.line_bytes = GPUEST_LINE_BYTES};
    gpuest_err rc = gpuest_compress_lookup("bdi", &a, err);
    if (rc == GPUEST_OK && c->rule == RULE_FANN) {
        char net_path[4096], scale_path[4096];
        const char *dir = env->model_dir ? env->model_dir : "models";
        snprintf(net_path, sizeof net_path, "%s/latte-fann.net", dir);
        snprintf(scale_path, sizeof scale_path, "%s/latte-fann.scale.csv", dir);
        rc = gpuest_learn_net_load(net_path, scale_path, GPUEST_L1C_FANN_FEATURES, GPUEST_L1C_FANN_OUTPUTS, &c->net,
                                   err);
        if (rc != GPUEST_OK && err && strstr(err->msg, "network shape") && strlen(err->msg) < 300) {
            char msg[320];
            memcpy(msg, err->msg, strlen(err->msg) + 1); /* under 300 bytes: checked above */
            rc = gpuest_fail(err, rc,
                             "%s (the fann selector takes %d features since the rule's estimates and choice were "
                             "added; a model of the first selector, 18 features, must be retrained with "
                             "'gpuest l1c-fann train')",
                             msg, GPUEST_L1C_FANN_FEATURES);
        }
        if (rc == GPUEST_OK) {
            if (!gpuest_learn_net_get_meta(c->net, "rule_span", &c->fann_span))
                c->fann_span = 0;
            if (!gpuest_learn_net_get_meta(c->net, "margin", &c->fann_margin))
                c->fann_margin = 0;
            if (!gpuest_learn_net_get_meta(c->net, "range_guard", &c->fann_guard))
                c->fann_guard = 0;
            if (!gpuest_learn_net_get_meta(c->net, "period", &c->fann_period))
                c->fann_period = 0; /* a per-EP model (rounds 1-5) */
        }
    }
    if (rc == GPUEST_OK)
        rc = gpuest_codec_init(&c->bdi, a, &o, err);
    if (rc == GPUEST_OK)
        rc = gpuest_compress_lookup("bpc", &a, err);
    if (rc == GPUEST_OK)
        rc = gpuest_codec_init(&c->bpc, a, &o, err);
    for (int i = 0; rc == GPUEST_OK && i < c->nsm; i++) {
        sm_state_t *s = &c->sm[i];
        s->mode = c->rule == RULE_STATIC ? c->cand[0] : GPUEST_L1C_NONE;
        s->held = -1;
        if (!c->uses_sc)
            continue;
        rc = gpuest_sc2_vft_create(&s->vft, err);
        if (rc == GPUEST_OK)
            rc = gpuest_sc2_book_create(&s->book, err);
        if (rc == GPUEST_OK)
            rc = gpuest_compress_lookup("sc2", &a, err);
        gpuest_codec_opts_t so = {.line_bytes = GPUEST_LINE_BYTES, .sc2_book = s->book};
        if (rc == GPUEST_OK)
            rc = gpuest_codec_init(&s->sc_codec, a, &so, err);
    }
    if (rc != GPUEST_OK) {
        l1c_destroy(c);
        return rc;
    }
    *state = c;
    return GPUEST_OK;
}

/* The mode dedicated set `set` samples (-1: a follower set). Dedicated sets are spread over the
 * cache: with stride = sets / 4, set s belongs to candidate s mod stride when that is < ncand. */
static int dedicated_mode(const l1c_t *c, int set, int sets)
{
    if (c->rule == RULE_STATIC)
        return -1;
    int stride = sets / DEDICATED_SETS;
    int k = set % stride;
    return k < c->ncand && set / stride < DEDICATED_SETS ? c->cand[k] : -1;
}

/* The counting windows: insertions in EP 0 (learning), hits in EPs 0 and 1. */
static int counts_misses(const sm_state_t *s) { return s->ep == 0; }
static int counts_hits(const sm_state_t *s) { return s->ep <= 1; }
static int samples_values(const sm_state_t *s) { return (s->period == 0 && s->ep == 0) || s->ep == EPS_PER_PERIOD - 1; }

static double miss_latency(const gpuest_sim_l1c_event_t *ev)
{
    /* before this SM's first fill: the machine's minimum L2 hit latency would do as well; 220
     * cycles (LATTE-CC Table II's minimum DRAM latency) is only used for the very first EP */
    return ev->miss_lat_n ? (double)ev->miss_lat_sum / (double)ev->miss_lat_n : 220.0;
}

static double hit_latency(const l1c_t *c, const sm_state_t *s, int m)
{
    double extra = s->dec_n[m] ? (double)s->dec_sum[m] / (double)s->dec_n[m] : (double)decomp_cycles[m];
    return (double)c->base_hit + extra;
}

/* AMAT_GPU of mode m (eq. 2, clamped at zero); -1 when its sets saw no access. */
static double amat_gpu(const l1c_t *c, const sm_state_t *s, int m, double miss_lat)
{
    uint64_t n = s->nhit[m] + s->nmiss[m];
    if (n == 0)
        return -1;
    double exposed = hit_latency(c, s, m) - s->lt;
    if (exposed < 0)
        exposed = 0;
    return ((double)s->nhit[m] * exposed + (double)s->nmiss[m] * miss_lat) / (double)n;
}

/* The mode `rule` picks for the next EP (fann's own choice is made elsewhere; asked for RULE_FANN
 * this gives AMAT_GPU's, the rule the network is compared with). */
static int choose_mode(const l1c_t *c, const sm_state_t *s, double miss_lat, rule_t rule)
{
    int best = -1;
    double best_v = 0;
    for (int i = 0; i < c->ncand; i++) {
        int m = c->cand[i];
        double v;
        if (rule == RULE_AMAT || rule == RULE_FANN) {
            v = amat_gpu(c, s, m, miss_lat);
        } else if (rule == RULE_HIT_COUNT) {
            uint64_t n = s->nhit[m] + s->nmiss[m];
            v = n ? (double)s->nmiss[m] / (double)n : -1;
        } else { /* RULE_CMP: larger counter is better; none stands at 0 */
            v = m == GPUEST_L1C_NONE ? 0.0 : -(double)s->gcp[m];
        }
        if (v < 0 && rule != RULE_CMP)
            continue;
        if (best < 0 || v < best_v) {
            best = m;
            best_v = v;
        }
    }
    return best < 0 ? s->mode : best;
}

static void record_capacity(l1c_t *c, const gpuest_sim_l1c_event_t *ev, int mode)
{
    double cap = (double)gpuest_sim_l1c_valid_lines(ev) * GPUEST_LINE_BYTES / (double)c->l1_bytes;
    c->cap_sum += cap;
    if (c->ncap + 3 > c->capcap) {
        size_t nc = c->capcap ? c->capcap * 2 : 4096;
        double *p = realloc(c->cap_cycle, nc * sizeof *p);
        if (!p)
            return; /* the time series loses points; the means stay right */
        c->cap_cycle = p;
        c->capcap = nc;
    }
    c->cap_cycle[c->ncap++] = (double)ev->core_cycle;
    c->cap_cycle[c->ncap++] = cap;
    c->cap_cycle[c->ncap++] = mode;
}

static gpuest_err build_book(sm_state_t *s)
{
    gpuest_error_t e;
    gpuest_err rc = gpuest_sc2_book_build_from_vft(s->book, s->vft, &e);
    gpuest_sc2_vft_reset(s->vft);
    s->book_ready = rc == GPUEST_OK;
    return rc;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* The FANN features of SM s at the end of its EP (after eq. 4 of the EP is measured, before the
 * period's counters restart): what the SM's own counters show, nothing from other SMs. */
static void fann_features(const l1c_t *c, const sm_state_t *s, const gpuest_sim_l1c_event_t *ev, double avail,
                          double cps, double x[GPUEST_L1C_FANN_FEATURES])
{
    double miss_rate = ratio(s->ep_miss, EP_ACCESSES);
    x[0] = avail;
    x[1] = cps;
    x[2] = s->lt;
    x[3] = ratio(s->nhit[GPUEST_L1C_NONE], s->nhit[GPUEST_L1C_NONE] + s->nmiss[GPUEST_L1C_NONE]);
    x[4] = ratio(s->nhit[GPUEST_L1C_BDI], s->nhit[GPUEST_L1C_BDI] + s->nmiss[GPUEST_L1C_BDI]);
    x[5] = ratio(s->nhit[GPUEST_L1C_SC], s->nhit[GPUEST_L1C_SC] + s->nmiss[GPUEST_L1C_SC]);
    x[6] = hit_latency(c, s, GPUEST_L1C_BDI) - c->base_hit;
    x[7] = hit_latency(c, s, GPUEST_L1C_SC) - c->base_hit;
    x[8] = miss_rate;
    x[9] = miss_rate - s->prev_miss_rate;
    x[10] = miss_latency(ev);
    x[11] = ratio(s->ep_qpos, s->ep_chits);
    x[12] = (double)gpuest_sim_l1c_valid_lines(ev) * GPUEST_LINE_BYTES / (double)c->l1_bytes;
    x[13] = s->ep;
    x[14] = s->mode == GPUEST_L1C_NONE;
    x[15] = s->mode == GPUEST_L1C_BDI;
    x[16] = s->mode == GPUEST_L1C_SC;
    x[17] = ratio(s->ep_extra, s->ep_hits);
    /* LATTE-CC's view of the same EP end: AMAT_GPU (eq. 2) of each candidate, -1 where the
     * mode's sets saw no access (the rule skips it), and the rule's choice one-hot, so the
     * network can learn when to depart from the rule rather than relearn it */
    double ml = miss_latency(ev);
    int rule = choose_mode(c, s, ml, RULE_AMAT);
    for (int k = 0; k < GPUEST_L1C_FANN_OUTPUTS; k++) {
        x[18 + k] = amat_gpu(c, s, c->cand[k], ml);
        x[21 + k] = c->cand[k] == rule;
    }
}

int gpuest_l1c_fann_decide(const double y[GPUEST_L1C_FANN_OUTPUTS], int rule, double span, double margin)
{
    int best = 0;
    for (int i = 1; i < GPUEST_L1C_FANN_OUTPUTS; i++)
        if (y[i] > y[best])
            best = i;
    if (span <= 0 || rule < 0 || rule >= GPUEST_L1C_FANN_OUTPUTS)
        return best;
    return best != rule && (y[best] - y[rule]) * 2.0 * span > margin ? best : rule;
}

int gpuest_l1c_fann_in_range(const struct gpuest_learn_net_s *net, const double x[GPUEST_L1C_FANN_FEATURES])
{
    for (size_t i = 0; i < GPUEST_L1C_FANN_FEATURES; i++) {
        double lo, hi;
        gpuest_learn_net_input_range(net, i, &lo, &hi);
        if (x[i] < lo || x[i] > hi)
            return 0;
    }
    return 1;
}

/* The fann policy's mode: the network's outputs through gpuest_l1c_fann_decide, with the rule's
 * choice read from its one-hot features; with a range guard, the rule's choice outside the
 * network's training range. */
static int fann_choice(const l1c_t *c, const double x[GPUEST_L1C_FANN_FEATURES])
{
    int rule = 0;
    for (int k = 0; k < GPUEST_L1C_FANN_OUTPUTS; k++)
        if (x[21 + k] > 0.5)
            rule = k;
    if (c->fann_guard > 0 && !gpuest_l1c_fann_in_range(c->net, x))
        return c->cand[rule];
    double y[GPUEST_L1C_FANN_OUTPUTS];
    gpuest_learn_net_run(c->net, x, y);
    return c->cand[gpuest_l1c_fann_decide(y, rule, c->fann_span, c->fann_margin)];
}

int gpuest_l1c_fann_decide_period(const double y[GPUEST_L1C_FANN_OUTPUTS], double span, double margin)
{
    int best = 0;
    for (int i = 1; i < GPUEST_L1C_FANN_OUTPUTS; i++)
        if (y[i] > y[best])
            best = i;
    return (y[best] - 0.5) * 2.0 * span > margin ? best : -1;
}

/* The fann policy with a period model (metadata 'period' = 1; docs/latte-cc.md, "Sixth round"):
 * at the end of EP GPUEST_L1C_PERIOD_DECISION_EP of a period, the network decides whether the SM
 * holds one mode for the period's remaining EPs (2..9) or leaves them to the rule; at the end of
 * the period's last EP the hold ends and the rule decides again (the next period's EP 0 and 1). */
static int fann_period_choice(const l1c_t *c, sm_state_t *s, const double x[GPUEST_L1C_FANN_FEATURES])
{
    int rule = 0;
    for (int k = 0; k < GPUEST_L1C_FANN_OUTPUTS; k++)
        if (x[21 + k] > 0.5)
            rule = k;
    if (s->ep == GPUEST_L1C_PERIOD_DECISION_EP) {
        s->held = -1;
        if (!(c->fann_guard > 0 && !gpuest_l1c_fann_in_range(c->net, x))) {
            double y[GPUEST_L1C_FANN_OUTPUTS];
            gpuest_learn_net_run(c->net, x, y);
            int k = gpuest_l1c_fann_decide_period(y, c->fann_span, c->fann_margin);
            s->held = k >= 0 ? c->cand[k] : -1;
        }
    } else if (s->ep == EPS_PER_PERIOD - 1) {
        s->held = -1;
    }
    return s->held >= 0 ? s->held : c->cand[rule];
}

/* The next EP's mode: the rule's, then the observer's word if one is set. */
static int next_mode(const l1c_t *c, sm_state_t *s, const gpuest_sim_l1c_event_t *ev, double avail, double cps)
{
    if (c->rule == RULE_STATIC)
        return s->mode;
    gpuest_l1c_ep_t ep = {.sm = ev->sm, .ep = s->eps_done, .core_cycle = ev->core_cycle, .mode = s->mode};
    fann_features(c, s, ev, avail, cps, ep.x);
    ep.choice = c->rule != RULE_FANN ? choose_mode(c, s, miss_latency(ev), c->rule)
                : c->fann_period > 0 ? fann_period_choice(c, s, ep.x)
                                     : fann_choice(c, ep.x);
    int forced = ep_observer ? ep_observer(ep_observer_ctx, &ep) : -1;
    return forced >= 0 && forced < GPUEST_L1C_MODES ? forced : ep.choice;
}

/* The EP of SM s ended with access ev: measure, roll the period, decide the next mode. */
static void end_ep(l1c_t *c, sm_state_t *s, const gpuest_sim_l1c_event_t *ev)
{
    uint64_t dc = ev->sm_cycles - s->cycles0, dr = ev->sched_runs - s->runs0;
    double avail = dc ? (double)(ev->avail_sum - s->avail0) / (double)dc : 0;
    double cps = dr ? (double)(ev->sched_issue - s->issue0) / (double)dr : 0;
    s->lt = avail * cps; /* eq. 4 */
    s->avail0 = ev->avail_sum;
    s->cycles0 = ev->sm_cycles;
    s->issue0 = ev->sched_issue;
    s->runs0 = ev->sched_runs;
    c->eps++;
    c->ep_mode[s->mode]++;
    c->lt_sum += s->lt;
    record_capacity(c, ev, s->mode);

    int built_first = c->uses_sc && s->period == 0 && s->ep == 0;
    int built_last = c->uses_sc && s->ep == EPS_PER_PERIOD - 1;
    if (built_first || built_last) {
        if (build_book(s) == GPUEST_OK)
            c->books++;
        if (built_last) /* the new book takes over: lines coded with the old one go */
            s->pending_invalidate |= 1u << GPUEST_L1C_SC;
    }
    s->mode = next_mode(c, s, ev, avail, cps);
    s->prev_miss_rate = ratio(s->ep_miss, EP_ACCESSES);
    s->ep_miss = s->ep_hits = s->ep_extra = s->ep_chits = s->ep_qpos = 0;
    s->eps_done++;
    s->ep_acc = 0;
    if (++s->ep == EPS_PER_PERIOD) {
        s->ep = 0;
        s->period++;
        c->periods++;
        memset(s->nhit, 0, sizeof s->nhit);
        memset(s->nmiss, 0, sizeof s->nmiss);
        memset(s->dec_sum, 0, sizeof s->dec_sum);
        memset(s->dec_n, 0, sizeof s->dec_n);
        memset(s->gcp, 0, sizeof s->gcp);
    }
}

static int hitlat_bin(int extra)
{
    static const int upper[HITLAT_BINS - 1] = {0, 8, 16, 32, 64};
    for (int i = 0; i < HITLAT_BINS - 1; i++)
        if (extra <= upper[i])
            return i;
    return HITLAT_BINS - 1;
}

static void count_sample(l1c_t *c, sm_state_t *s, int m, const gpuest_sim_l1c_event_t *ev)
{
    if (ev->hit && counts_hits(s)) {
        s->nhit[m]++;
        if (c->rule == RULE_CMP && m != GPUEST_L1C_NONE) {
            if (ev->depth >= c->assoc) /* beyond an uncompressed set: a miss avoided */
                s->gcp[m] += (int64_t)miss_latency(ev);
            else if (ev->extra_cycles > 0) /* would have hit anyway: paid the decompression */
                s->gcp[m] -= ev->extra_cycles;
            s->gcp[m] = s->gcp[m] > GCP_LIMIT ? GCP_LIMIT : s->gcp[m] < -GCP_LIMIT ? -GCP_LIMIT : s->gcp[m];
        }
    } else if (!ev->hit && counts_misses(s)) {
        s->nmiss[m]++;
    }
}

static unsigned l1c_access(void *ctx, const gpuest_sim_l1c_event_t *ev)
{
    l1c_t *c = ctx;
    sm_state_t *s = &c->sm[ev->sm];
    if (ev->hit) {
        c->hits++;
        c->hit_extra_sum += (uint64_t)ev->extra_cycles;
        c->hitlat_bin[hitlat_bin(ev->extra_cycles)]++;
        if (ev->extra_cycles > 0) {
            s->dec_sum[ev->mode] += (uint64_t)ev->extra_cycles;
            s->dec_n[ev->mode]++;
        }
        s->ep_hits++;
        s->ep_extra += (uint64_t)ev->extra_cycles;
        if (ev->mode != GPUEST_L1C_NONE) {
            s->ep_chits++;
            s->ep_qpos += (uint64_t)(ev->queue_pos > 0 ? ev->queue_pos : 0);
        }
    } else {
        s->ep_miss++;
    }
    int m = dedicated_mode(c, ev->set, ev->sets);
    if (m >= 0)
        count_sample(c, s, m, ev);
    if (++s->ep_acc == EP_ACCESSES)
        end_ep(c, s, ev);
    unsigned inv = s->pending_invalidate;
    s->pending_invalidate = 0;
    return inv;
}

/* Size in bytes of the line in mode m (128 when it does not shrink or the mode cannot code it). */
static int coded_bytes(l1c_t *c, sm_state_t *s, int m, uint64_t line, const uint8_t *data)
{
    const gpuest_codec_t *codec = m == GPUEST_L1C_BDI ? &c->bdi
                                  : m == GPUEST_L1C_BPC ? &c->bpc
                                  : m == GPUEST_L1C_SC && s->book_ready ? &s->sc_codec
                                                                        : NULL;
    if (!codec || !data)
        return GPUEST_LINE_BYTES;
    uint32_t bits = gpuest_codec_size_bits(codec, line, data);
    if (!gpuest_codec_is_compressed(codec, bits))
        return GPUEST_LINE_BYTES;
    return (int)((bits + 7) / 8);
}

static void l1c_fill(void *ctx, const gpuest_sim_l1c_event_t *ev, const uint8_t *data, gpuest_sim_l1c_line_t *out)
{
    l1c_t *c = ctx;
    sm_state_t *s = &c->sm[ev->sm];
    if (c->uses_sc && data && samples_values(s))
        gpuest_sc2_vft_sample(s->vft, data, GPUEST_LINE_BYTES);
    int dm = dedicated_mode(c, ev->set, ev->sets);
    int m = dm >= 0 && counts_hits(s) ? dm : s->mode; /* dedicated sets keep their mode while counted */
    int bytes = m == GPUEST_L1C_NONE ? GPUEST_LINE_BYTES : coded_bytes(c, s, m, ev->line, data);
    if (bytes >= GPUEST_LINE_BYTES)
        m = GPUEST_L1C_NONE;
    out->mode = m;
    out->bytes = bytes;
    out->decomp_cycles = decomp_cycles[m];
    c->fills++;
    c->fills_compressed += m != GPUEST_L1C_NONE;
    c->fill_bytes += (uint64_t)bytes;
}

static void l1c_install(void *state, gpuest_sim_hooks_t *hooks)
{
    (void)state;
    hooks->l1c_fill = l1c_fill;
    hooks->l1c_access = l1c_access;
}

/* Mean effective capacity in CAP_BUCKETS equal slices of the run's cycles, and the share of the
 * EPs ending in each of MODE_SLICES slices that ran compressed (BDI) and high-capacity (SC/BPC). */
static void capacity_buckets(l1c_t *c)
{
    double last = 0;
    for (size_t i = 0; i < c->ncap; i += 3)
        last = c->cap_cycle[i] > last ? c->cap_cycle[i] : last;
    memset(c->cap_bucket, 0, sizeof c->cap_bucket);
    memset(c->cap_n, 0, sizeof c->cap_n);
    memset(c->slice_ep, 0, sizeof c->slice_ep);
    memset(c->slice_bdi, 0, sizeof c->slice_bdi);
    memset(c->slice_hc, 0, sizeof c->slice_hc);
    for (size_t i = 0; i < c->ncap; i += 3) {
        int b = (int)(c->cap_cycle[i] * CAP_BUCKETS / (last + 1));
        c->cap_bucket[b] += c->cap_cycle[i + 1];
        c->cap_n[b]++;
        int m = (int)c->cap_cycle[i + 2], k = (int)(c->cap_cycle[i] * MODE_SLICES / (last + 1));
        c->slice_ep[k]++;
        c->slice_bdi[k] += m == GPUEST_L1C_BDI;
        c->slice_hc[k] += m == GPUEST_L1C_SC || m == GPUEST_L1C_BPC;
    }
}

static size_t l1c_stats(void *state, gpuest_technique_stat_t *out, size_t max)
{
    l1c_t *c = state;
    size_t n = 0;
    char name[GPUEST_TECH_STAT_NAME];
    n = tech_stat(out, n, max, "l1_compression.eps", (double)c->eps);
    for (int m = 0; m < GPUEST_L1C_MODES; m++) {
        snprintf(name, sizeof name, "l1_compression.ep_share_%s", mode_names[m]);
        n = tech_stat(out, n, max, name, c->eps ? (double)c->ep_mode[m] / (double)c->eps : 0);
    }
    n = tech_stat(out, n, max, "l1_compression.latency_tolerance", c->eps ? c->lt_sum / (double)c->eps : 0);
    n = tech_stat(out, n, max, "l1_compression.capacity_mean", c->eps ? c->cap_sum / (double)c->eps : 0);
    n = tech_stat(out, n, max, "l1_compression.fills_compressed",
                  c->fills ? (double)c->fills_compressed / (double)c->fills : 0);
    n = tech_stat(out, n, max, "l1_compression.fill_bytes", c->fills ? (double)c->fill_bytes / (double)c->fills : 0);
    n = tech_stat(out, n, max, "l1_compression.books", (double)c->books);
    n = tech_stat(out, n, max, "l1_compression.hit_extra", c->hits ? (double)c->hit_extra_sum / (double)c->hits : 0);
    static const char *const bins[HITLAT_BINS] = {"0", "1_8", "9_16", "17_32", "33_64", "65up"};
    for (int i = 0; i < HITLAT_BINS; i++) {
        snprintf(name, sizeof name, "l1_compression.hit_extra_%s", bins[i]);
        n = tech_stat(out, n, max, name, c->hits ? (double)c->hitlat_bin[i] / (double)c->hits : 0);
    }
    capacity_buckets(c);
    double carried = 0; /* a slice without an EP end shows the capacity of the last one before it */
    for (int b = 0; b < CAP_BUCKETS; b++) {
        snprintf(name, sizeof name, "l1_compression.capacity_t%02d", b);
        if (c->cap_n[b])
            carried = c->cap_bucket[b] / (double)c->cap_n[b];
        n = tech_stat(out, n, max, name, carried);
    }
    for (int k = 0; k < MODE_SLICES; k++) {
        double e = (double)c->slice_ep[k];
        snprintf(name, sizeof name, "l1_compression.bdi_share_t%d", k);
        n = tech_stat(out, n, max, name, e > 0 ? (double)c->slice_bdi[k] / e : 0);
        snprintf(name, sizeof name, "l1_compression.hc_share_t%d", k);
        n = tech_stat(out, n, max, name, e > 0 ? (double)c->slice_hc[k] / e : 0);
    }
    return n;
}

void tech_l1c_counts(const void *state, int sm, int mode, uint64_t *hits, uint64_t *misses)
{
    const l1c_t *c = state;
    *hits = c->sm[sm].nhit[mode];
    *misses = c->sm[sm].nmiss[mode];
}

int tech_l1c_mode(const void *state, int sm) { return ((const l1c_t *)state)->sm[sm].mode; }

gpuest_err tech_l1c_set_mode(void *state, int mode, gpuest_error_t *err)
{
    l1c_t *c = state;
    if (!c->kernel_opt)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "the compressed L1's mode can be set per launch only with technique.l1_compression = "
                           "kernel_opt");
    int ok = 0;
    for (int i = 0; i < c->ncand; i++)
        ok |= c->cand[i] == mode;
    if (!ok)
        return gpuest_fail(err, GPUEST_EINVAL, "kernel_opt: mode %d is not none, BDI or SC", mode);
    for (int i = 0; i < c->nsm; i++)
        c->sm[i].mode = mode;
    return GPUEST_OK;
}

const gpuest_technique_t gpuest_tech_l1compression = {
    .name = "l1_compression",
    .desc = "compressed L1D with LATTE-CC's latency-tolerance-aware mode selection and its comparison policies",
    .keys = l1c_keys,
    .modes = GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL,
    .active = l1c_active,
    .validate = l1c_validate,
    .create = l1c_create,
    .install = l1c_install,
    .stats = l1c_stats,
    .destroy = l1c_destroy,
    .transform = tech_l1c_transform,
    .modes_of = l1c_modes_of,
};
