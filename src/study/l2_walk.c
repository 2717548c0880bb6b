/* l2_walk.c: the L2 hit rate an estimate uses when the evaluated machine's L2 geometry differs from
 * the calibrated one.
 *
 * A calibration measures the L2 hit rate (and DRAM accesses per request) on its own machine; a point
 * with fewer memory channels has a smaller L2 (channels x size per MC), so keeping the measured rate
 * overestimates it. We walk the workload's request stream functionally (no timing) through each
 * SM's L1 (LRU, write-evict, flushed at every launch as the simulator's) and, for what misses it,
 * through the L2 slices of a geometry: the slice and set of a line follow the simulator's address
 * mapping (channel interleaving, sub-partitions on alternate lines, channel-local set index), LRU,
 * allocate on read and write misses (the write-allocate fetch-on-write of l2.c), kept across launches.
 * The estimate keeps the calibrated level and applies the capacity effect only:
 *     h2' = h2_measured x walk(new) / walk(calibrated),
 * and DRAM accesses per request follow the L2 misses: d' = d x (1 - h2') / (1 - h2). Choices and
 * limits (docs/estimator.md, "L2 capacity in the estimate"):
 *  - both walks use the evaluated machine's cores and L1, so the ratio isolates the L2 geometry;
 *  - one whole-run ratio for every kernel phase (the calibration file does not keep which launches
 *    make a phase).
 * The L2 keeps dirty bits (write-back, as l2.c), and what it sends to DRAM is replayed through the
 * channels and banks (dram_stream.c): the row-hit rate, the DRAM accesses per miss (write-backs)
 * and the read/write turnarounds of that stream are carried to the target by the same kind of ratio
 * (dram_ratios; docs/estimator.md, "Channel counts in the estimate (fifth session)"). */
#include <stdlib.h>
#include <string.h>

#include "study/dram_stream.h"
#include "study/study.h"

typedef struct {
    int sets, assoc;
    uint64_t *tag; /* line address + 1 (0: invalid) */
    uint64_t *lru;
    uint64_t stamp;
    uint8_t *dirty; /* the L2's write-back state (the L1s leave it 0) */
} walk_cache_t;

static void cache_free(walk_cache_t *c)
{
    free(c->tag);
    free(c->lru);
    free(c->dirty);
    c->tag = NULL;
    c->lru = NULL;
    c->dirty = NULL;
}

static gpuest_err cache_init(walk_cache_t *c, int sets, int assoc, gpuest_error_t *err)
{
    memset(c, 0, sizeof *c);
    c->sets = sets;
    c->assoc = assoc;
    size_t n = (size_t)sets * (size_t)assoc;
    c->tag = calloc(n, sizeof *c->tag);
    c->lru = calloc(n, sizeof *c->lru);
    c->dirty = calloc(n, 1);
    if (!c->tag || !c->lru || !c->dirty) {
        cache_free(c);
        return gpuest_fail(err, GPUEST_ENOMEM, "L2 walk: out of memory for a %d-set cache", sets);
    }
    return GPUEST_OK;
}


/* 1 on a hit; a miss allocates the line (LRU victim) when allocate, else changes nothing. */
static int cache_access(walk_cache_t *c, uint64_t set, uint64_t line, int allocate)
{
    size_t b = (size_t)(set % (uint64_t)c->sets) * (size_t)c->assoc, v = b;
    for (size_t i = b; i < b + (size_t)c->assoc; i++) {
        if (c->tag[i] == line + 1) {
            c->lru[i] = ++c->stamp;
            return 1;
        }
        if (c->tag[v] && (!c->tag[i] || c->lru[i] < c->lru[v]))
            v = i;
    }
    if (allocate) {
        c->tag[v] = line + 1;
        c->lru[v] = ++c->stamp;
    }
    return 0;
}

/* The L2's access with the simulator's write-back policy (l2.c): a write hit dirties the line; a
 * miss allocates its way (LRU victim) clean, a write miss included (its data goes on to DRAM and
 * the fetch-on-write fill matches it). 1 on a hit; on a miss *wb is 1 and *victim the line when the
 * victim was dirty (a write-back). */
static int l2_access(walk_cache_t *c, uint64_t set, uint64_t line, int write, int *wb, uint64_t *victim)
{
    size_t b = (size_t)(set % (uint64_t)c->sets) * (size_t)c->assoc, v = b;
    *wb = 0;
    for (size_t i = b; i < b + (size_t)c->assoc; i++) {
        if (c->tag[i] == line + 1) {
            c->lru[i] = ++c->stamp;
            c->dirty[i] |= (uint8_t)(write != 0);
            return 1;
        }
        if (c->tag[v] && (!c->tag[i] || c->lru[i] < c->lru[v]))
            v = i;
    }
    if (c->tag[v] && c->dirty[v]) {
        *wb = 1;
        *victim = c->tag[v] - 1;
    }
    c->tag[v] = line + 1;
    c->lru[v] = ++c->stamp;
    c->dirty[v] = 0;
    return 0;
}

static void cache_drop(walk_cache_t *c, uint64_t set, uint64_t line)
{
    size_t b = (size_t)(set % (uint64_t)c->sets) * (size_t)c->assoc;
    for (size_t i = b; i < b + (size_t)c->assoc; i++)
        if (c->tag[i] == line + 1)
            c->tag[i] = 0;
}

typedef struct {
    const gpuest_config_t *cfg;
    int nsm, nsub, l1_line, l2_line;
    walk_cache_t *l1; /* one per SM */
    walk_cache_t *l2; /* one per sub-partition: channel x nsub + sub */
    gpuest_study_dram_stream_t dram; /* what the L2 sends to DRAM (dram_stream.c) */
    gpuest_study_dram_stream_t l2s;  /* the L2 access stream, for its channel concentration only */
    gpuest_study_l2_walk_t out;
} walk_t;

/* The slice of a line and its set index address (sim_mc_of and sim_sub_local). */
static void l2_place(const walk_t *w, uint64_t addr, int *slice, uint64_t *index)
{
    uint64_t il = (uint64_t)w->cfg->mc.interleave_bytes, chunk = addr / il, nch = (uint64_t)w->cfg->mc.num_mcs;
    uint64_t local = (chunk / nch) * il + addr % il, lb = (uint64_t)w->l2_line, ns = (uint64_t)w->nsub;
    int chan = (int)(chunk % nch);
    *slice = chan * w->nsub + (int)((local / lb) % ns);
    *index = ((local / (lb * ns)) * lb + local % lb) / lb;
}

static gpuest_err on_access(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                            gpuest_error_t *err)
{
    (void)img;
    (void)err;
    walk_t *w = ctx;
    walk_cache_t *l1 = &w->l1[sm % w->nsm];
    uint64_t l1set = line / (uint64_t)w->l1_line;
    if (is_load && cache_access(l1, l1set, line, 1))
        return GPUEST_OK;
    if (!is_load)
        cache_drop(l1, l1set, line); /* write-evict; the store goes on to the L2 */
    int slice;
    uint64_t index;
    l2_place(w, line, &slice, &index);
    w->out.accesses++;
    gpuest_study_dram_stream_push(&w->l2s, line, !is_load);
    int wb = 0;
    uint64_t victim = 0;
    if (l2_access(&w->l2[slice], index, line, !is_load, &wb, &victim)) {
        w->out.hits++;
        return GPUEST_OK;
    }
    /* the miss's DRAM accesses in the simulator's order (l2.c): the dirty victim's write-back at
     * the reservation, the read (a load's fill or the fetch-on-write), then a write miss's data */
    if (wb)
        gpuest_study_dram_stream_push(&w->dram, victim, 1);
    gpuest_study_dram_stream_push(&w->dram, line, 0);
    if (!is_load)
        gpuest_study_dram_stream_push(&w->dram, line, 1);
    return GPUEST_OK;
}

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)s;
    (void)err;
    walk_t *w = ctx;
    for (int i = 0; i < w->nsm; i++) /* the simulator's L1s start cold at each launch */
        memset(w->l1[i].tag, 0, (size_t)w->l1[i].sets * (size_t)w->l1[i].assoc * sizeof *w->l1[i].tag);
    return GPUEST_OK;
}

static gpuest_err geometry_check(const gpuest_config_t *cfg, int nsub, gpuest_error_t *err)
{
    int slice = cfg->l2.size_per_mc_bytes / nsub, unit = cfg->l2.line_bytes * cfg->l2.assoc;
    if (cfg->l2.line_bytes <= 0 || cfg->l2.assoc <= 0 || slice < unit || slice % unit)
        return gpuest_fail(err, GPUEST_EINVAL, "L2 walk: a slice of %d bytes cannot be split into %d-way sets of "
                           "%d-byte lines", slice, cfg->l2.assoc, cfg->l2.line_bytes);
    if (cfg->mc.num_mcs < 1 || cfg->mc.interleave_bytes < 1 || cfg->core.num_sms < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "L2 walk: the machine needs MCs, an interleave and SMs");
    return GPUEST_OK;
}

gpuest_err gpuest_study_l2_walk_of(const gpuest_config_t *cfg, gpuest_workload_t *wl, gpuest_study_l2_walk_t *out,
                                   gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    walk_t w = {.cfg = cfg, .nsm = cfg->core.num_sms, .nsub = cfg->mc.sub_partitions > 1 ? cfg->mc.sub_partitions : 1};
    GPUEST_TRY(geometry_check(cfg, w.nsub, err));
    w.l2_line = cfg->l2.line_bytes;
    w.l1_line = cfg->l1.line_bytes > 0 ? cfg->l1.line_bytes : GPUEST_LINE_BYTES;
    int l1_assoc = cfg->l1.assoc > 0 ? cfg->l1.assoc : 1, l1_sets = cfg->l1.size_bytes / (w.l1_line * l1_assoc);
    l1_sets = l1_sets < 1 ? 1 : l1_sets;
    int nslices = cfg->mc.num_mcs * w.nsub;
    int l2_sets = cfg->l2.size_per_mc_bytes / w.nsub / (cfg->l2.line_bytes * cfg->l2.assoc);
    w.l1 = calloc((size_t)w.nsm, sizeof *w.l1);
    w.l2 = calloc((size_t)nslices, sizeof *w.l2);
    gpuest_err rc = w.l1 && w.l2 ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "L2 walk: out of memory");
    for (int i = 0; rc == GPUEST_OK && i < w.nsm; i++)
        rc = cache_init(&w.l1[i], l1_sets, l1_assoc, err);
    for (int i = 0; rc == GPUEST_OK && i < nslices; i++)
        rc = cache_init(&w.l2[i], l2_sets, cfg->l2.assoc, err);
    if (rc == GPUEST_OK)
        rc = gpuest_study_dram_stream_init(&w.dram, cfg, gpuest_study_dram_stream_window(cfg), err);
    if (rc == GPUEST_OK)
        rc = gpuest_study_dram_stream_init(&w.l2s, cfg, gpuest_study_dram_stream_window(cfg), err);
    if (rc == GPUEST_OK) {
        gpuest_charact_opts_t o;
        gpuest_charact_opts_default(&o);
        o.num_sms = cfg->core.num_sms;
        o.ctas_per_sm = cfg->core.ctas_per_sm;
        o.warps_per_sm = cfg->core.warps_per_sm;
        o.access_cb = on_access;
        o.access_ctx = &w;
        rc = gpuest_workload_characterize(wl, &o, on_launch, NULL, &w, NULL, err);
    }
    for (int i = 0; w.l1 && i < w.nsm; i++)
        cache_free(&w.l1[i]);
    for (int i = 0; w.l2 && i < nslices; i++)
        cache_free(&w.l2[i]);
    free(w.l1);
    free(w.l2);
    w.out.dram_accesses = w.dram.accesses;
    w.out.dram_writes = w.dram.writes;
    w.out.dram_row_hit_rate = gpuest_study_dram_stream_row_hit_rate(&w.dram);
    w.out.dram_turn_rate = gpuest_study_dram_stream_turn_rate(&w.dram);
    w.out.dram_concentration = gpuest_study_dram_stream_concentration(&w.dram);
    w.out.dram_excess = gpuest_study_dram_stream_excess(&w.dram);
    w.out.l2_excess = gpuest_study_dram_stream_excess(&w.l2s);
    gpuest_study_dram_stream_free(&w.dram);
    gpuest_study_dram_stream_free(&w.l2s);
    GPUEST_TRY(rc);
    *out = w.out;
    return GPUEST_OK;
}

gpuest_err gpuest_study_l2_walk(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale, uint64_t seed,
                                gpuest_study_l2_walk_t *out, gpuest_error_t *err)
{
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(workload, scale, seed, &wl, err));
    gpuest_err rc = gpuest_study_l2_walk_of(cfg, wl, out, err);
    gpuest_workload_destroy(wl);
    return rc;
}

int gpuest_study_l2_same_geometry(const gpuest_config_t *a, const gpuest_config_t *b)
{
    int sa = a->mc.sub_partitions > 1 ? a->mc.sub_partitions : 1, sb = b->mc.sub_partitions > 1 ? b->mc.sub_partitions : 1;
    return a->mc.num_mcs == b->mc.num_mcs && sa == sb && a->mc.interleave_bytes == b->mc.interleave_bytes &&
           a->l2.size_per_mc_bytes == b->l2.size_per_mc_bytes && a->l2.assoc == b->l2.assoc &&
           a->l2.line_bytes == b->l2.line_bytes;
}

/* ------------------------------------------------------------ the scaling, with a cache of walks */

struct gpuest_study_l2_cache_s {
    int n;
    struct {
        gpuest_config_t cfg; /* the walked machine (L1, cores and L2 geometry are what matter) */
        gpuest_study_l2_walk_t walk;
    } e[GPUEST_STUDY_L2_CACHE];
};

gpuest_err gpuest_study_l2_cache_create(gpuest_study_l2_cache_t **out, gpuest_error_t *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "L2 walk cache: out of memory");
}

void gpuest_study_l2_cache_destroy(gpuest_study_l2_cache_t *c) { free(c); }

/* Same walk: same L2 geometry, same SMs, residency and L1 (the stream the L2 sees). */
static int same_walk(const gpuest_config_t *a, const gpuest_config_t *b)
{
    return gpuest_study_l2_same_geometry(a, b) && a->core.num_sms == b->core.num_sms &&
           a->core.ctas_per_sm == b->core.ctas_per_sm && a->core.warps_per_sm == b->core.warps_per_sm &&
           a->l1.size_bytes == b->l1.size_bytes && a->l1.assoc == b->l1.assoc && a->l1.line_bytes == b->l1.line_bytes;
}

static gpuest_err cached_walk(gpuest_study_l2_cache_t *cache, const gpuest_calibration_t *c, const gpuest_config_t *cfg,
                              gpuest_study_l2_walk_t *out, gpuest_error_t *err)
{
    for (int i = 0; cache && i < cache->n; i++)
        if (same_walk(&cache->e[i].cfg, cfg)) {
            *out = cache->e[i].walk;
            return GPUEST_OK;
        }
    GPUEST_TRY(gpuest_study_l2_walk(cfg, c->workload, c->scale, c->seed, out, err));
    if (cache) { /* the workload of a cache is the calibration's: one cache per calibration */
        int k = cache->n < GPUEST_STUDY_L2_CACHE ? cache->n++ : GPUEST_STUDY_L2_CACHE - 1;
        cache->e[k].cfg = *cfg;
        cache->e[k].walk = *out;
    }
    return GPUEST_OK;
}

void gpuest_study_l2_apply(gpuest_model_workload_t *w, double ratio, double walk_miss_ratio)
{
    double h = w->l2_hit_rate, hn = h * ratio;
    hn = hn < 0 ? 0 : (hn > 1 ? 1 : hn);
    /* DRAM traffic follows the L2 misses; with no measured miss, the walk's miss ratio */
    double scale = h < 1 ? (1 - hn) / (1 - h) : walk_miss_ratio;
    w->l2_hit_rate = hn;
    w->dram_per_request *= scale;
}

/* The DRAM figures of the walk at the target (wn) over those at the calibrated geometry (wc), the
 * ratios the estimate puts on the calibration's measured figures (docs/estimator.md, "Channel counts
 * in the estimate (fifth session)"; each was measured on the development points, M = 3, 5, 7):
 *  - row_ratio: the open-row replay's row-hit rate (fewer channels hold more rows per bank);
 *  - demand_ratio: DRAM accesses per L2 miss (fills, write-miss data and dirty write-backs: a
 *    smaller L2 evicts more dirty lines per miss), on top of the miss-rate scaling above;
 *  - turn_ratio: read/write turnarounds per access of each channel's stream.
 * The walk's channel concentration is applied at another channel map only, as its excess over a
 * hashed placement (excess_ratio below; the raw concentration ratio made the development
 * points worse, docs). */
static void dram_ratios(const gpuest_study_l2_walk_t *wn, const gpuest_study_l2_walk_t *wc, double *row_ratio,
                        double *demand_ratio, double *turn_ratio)
{
    if (wc->dram_row_hit_rate > 0)
        *row_ratio = wn->dram_row_hit_rate / wc->dram_row_hit_rate;
    double mn = (double)(wn->accesses - wn->hits), mc = (double)(wc->accesses - wc->hits);
    if (mn > 0 && mc > 0 && wc->dram_accesses > 0)
        *demand_ratio = ((double)wn->dram_accesses / mn) / ((double)wc->dram_accesses / mc);
    if (wc->dram_turn_rate > 0)
        *turn_ratio = wn->dram_turn_rate / wc->dram_turn_rate;
}

/* The channel concentration the estimate applies at another channel map (docs/estimator.md,
 * "Power-of-two channel counts in the estimate (fifth session)"), for the DRAM stream
 * (channel_concentration) and the L2 access stream (slice_concentration): the walk's excess over a
 * hashed placement (dram_stream.h) at the target over that at the calibrated map. The excess, not
 * the concentration itself: the model's per-MC stations are visited uniformly at random, which
 * already carries the chance concentration of a random placement (it changes with the channels
 * per window), so only what the address map adds to it is new; and a ratio, as every DRAM figure
 * here, because the calibrated excess is in the fit. 1 (no change) when either walk has no window. */
static double excess_ratio(double target, double calibrated)
{
    return target > 0 && calibrated > 0 ? target / calibrated : 1.0;
}

gpuest_err gpuest_study_l2_adjust(gpuest_study_l2_cache_t *cache, const gpuest_calibration_t *c,
                                  const gpuest_config_t *cfg, gpuest_model_workload_t *w, gpuest_model_phase_t *ph,
                                  int nph, int *applied, gpuest_error_t *err)
{
    *applied = 0;
    gpuest_config_t base;
    GPUEST_TRY(gpuest_config_preset(&base, c->preset, err));
    if (gpuest_study_l2_same_geometry(&base, cfg) || !c->workload[0])
        return GPUEST_OK;
    /* the calibrated L2 under the evaluated machine's cores and L1: the ratio is the L2's alone */
    gpuest_config_t cal = *cfg;
    cal.mc.num_mcs = base.mc.num_mcs;
    cal.mc.sub_partitions = base.mc.sub_partitions;
    cal.mc.interleave_bytes = base.mc.interleave_bytes;
    cal.l2 = base.l2;
    gpuest_study_l2_walk_t wn, wc;
    GPUEST_TRY(cached_walk(cache, c, cfg, &wn, err));
    GPUEST_TRY(cached_walk(cache, c, &cal, &wc, err));
    if (wn.accesses == 0 || wc.accesses == 0 || wc.hits == 0)
        return GPUEST_OK; /* nothing to scale by: the measured rate stays */
    double ratio = ((double)wn.hits / (double)wn.accesses) / ((double)wc.hits / (double)wc.accesses);
    double mc = (double)(wc.accesses - wc.hits), mn = (double)(wn.accesses - wn.hits);
    double miss_ratio = mc > 0 ? mn / mc : 1.0;
    gpuest_study_l2_apply(w, ratio, miss_ratio);
    for (int k = 0; k < nph; k++)
        gpuest_study_l2_apply(&ph[k].w, ratio, miss_ratio);
    double row_ratio = 1.0, demand_ratio = 1.0, turn_ratio = 1.0;
    dram_ratios(&wn, &wc, &row_ratio, &demand_ratio, &turn_ratio);
    gpuest_study_dram_apply(w, row_ratio, demand_ratio, turn_ratio);
    for (int k = 0; k < nph; k++)
        gpuest_study_dram_apply(&ph[k].w, row_ratio, demand_ratio, turn_ratio);
    if (cfg->mc.num_mcs != base.mc.num_mcs || cfg->mc.interleave_bytes != base.mc.interleave_bytes) {
        double cr = excess_ratio(wn.dram_excess, wc.dram_excess), lr = excess_ratio(wn.l2_excess, wc.l2_excess);
        w->channel_concentration = cr;
        w->slice_concentration = lr;
        for (int k = 0; k < nph; k++) {
            ph[k].w.channel_concentration = cr;
            ph[k].w.slice_concentration = lr;
        }
    }
    *applied = 1;
    return GPUEST_OK;
}
