/* l1c_model.c: the analytical estimator's view of LATTE-CC's compressed L1D for the static
 * policies (technique.l1_compression = static_bdi | static_sc | static_bpc): AMAT_GPU with the
 * hit and miss counts of the mode measured without the simulator (ARCHITECTURE.md, techniques).
 *
 * The characterization walk (src/workload/charact.c) hands every line request, in its issue order
 * on the machine's SMs, to two L1 models per SM with the machine's L1 geometry: the plain one and
 * the compressed one of src/sim/l1_compressed.c (4x tags per set, data in 32-byte sub-blocks,
 * assoc x 4 sub-blocks per set, LRU lines dropped until a fill fits). A read that misses fills the
 * line; in the compressed one it takes ceil(size / 32) sub-blocks, its size from compressing the
 * line's bytes in the image as the walk has them then, with the compress module, as the
 * simulator's l1c_fill does (a line that does not shrink is stored raw). A store drops the line
 * from both (write-evict). Both L1s start empty at each launch. The plain L1 is the same code
 * with every line 4 sub-blocks, so the two differ only by compression.
 *
 * Mapping: the model's L1 read miss rate is multiplied by miss(mode) / miss(plain) (fewer requests
 * to the network and the L2), and an L1 hit costs the mode's decompression latency (BDI 2, SC 14,
 * BPC 11 core cycles) times the share of hits on compressed lines more, charged by the model only
 * beyond the SM's latency tolerance (LATTE-CC eq. 2 and 4, src/model/gpu_model.c).
 * The decompressor queue of eq. 3: the walk also gives the share of hits on compressed lines, the
 * compressed hits of one warp instruction ahead of each, and the queue replayed on its own order at
 * several paces (dq_replay.c); the model reads the wait at its own throughput (src/model/l1c_queue.c).
 * A miss reserves its tag at once in both L1s (a raw line's room until its fill, at most one LRU
 * line dropped then, as src/sim/l1_compressed.c; docs/estimator.md, "Compressed-L1 policies'
 * modes in the estimate"). Short: no MSHR merging (a read of a line in flight is a miss here).
 * The fills can also be timed by the baseline's miss latency in the SM's own reads (l1c_filltime.c,
 * `--l1-fill-timing on`); off by default: the development points did not take it (docs/estimator.md, "Compressed-L1
 * walk: reservations held for the miss latency").
 * SC's code book follows the simulator's period rule (l1c_scbook.c): built from the fills of the first EP, rebuilt
 * from those of each period's last EP, the SC lines of the old book invalidated; before the first
 * book an SC line is stored raw, as in the simulator.
 * The adaptive policies (latte_cc, latte_cc_bdi_bpc, adaptive_hit_count, adaptive_cmp, fann): the
 * plain L1 and the policy's two compressed modes are walked together (one walk: it consumes the
 * launches) and the model applies the policy's rule to its per-candidate estimates
 * (src/model/l1c_rule.c); fann runs the shipped network on the features the model can supply.
 * Before that, the walk counts the policy's learning windows as the simulator's SMs do
 * (l1c_learnwin.c): with no learning EP ended or no window hit, the followers never leave none and
 * the estimate is the plain L1's. */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "compress/compress.h"
#include "learn/learn.h"
#include "technique_int.h"

#define L1CM_TAGS 4    /* tags per raw way */
#define L1CM_SUB 32    /* bytes per sub-block */
#define L1CM_RAW (GPUEST_LINE_BYTES / L1CM_SUB)
#define L1CM_EP 256    /* L1 accesses of an EP: the SC book's sampling window */
#define L1CM_PERIOD 10 /* EPs of a period (the FANN feature ep_in_period) */

typedef struct {
    uint64_t line;
    uint64_t lru;
    uint8_t valid, blocks, compressed;
    uint8_t reserved; /* a miss's tag waiting for its fill: a raw line's room, not a hit */
} l1cm_way_t;

struct tech_l1cm_cache_s {
    int sms, sets, tags, blocks_per_set;
    uint64_t clock;
    l1cm_way_t *ways;
};

gpuest_err tech_l1cm_create(int sms, int sets, int assoc, tech_l1cm_cache_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1 || sets < 1 || assoc < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "compressed L1 model: SMs, sets and ways must be >= 1");
    tech_l1cm_cache_t *c = calloc(1, sizeof *c);
    if (c)
        c->ways = calloc((size_t)sms * (size_t)sets * (size_t)assoc * L1CM_TAGS, sizeof *c->ways);
    if (!c || !c->ways) {
        free(c);
        return gpuest_fail(err, GPUEST_ENOMEM, "compressed L1 model: out of memory");
    }
    c->sms = sms;
    c->sets = sets;
    c->tags = assoc * L1CM_TAGS;
    c->blocks_per_set = assoc * L1CM_RAW;
    *out = c;
    return GPUEST_OK;
}

void tech_l1cm_destroy(tech_l1cm_cache_t *c)
{
    if (c)
        free(c->ways);
    free(c);
}

void tech_l1cm_flush(tech_l1cm_cache_t *c)
{
    memset(c->ways, 0, (size_t)c->sms * (size_t)c->sets * (size_t)c->tags * sizeof *c->ways);
}

static l1cm_way_t *set_of(tech_l1cm_cache_t *c, int sm, uint64_t line)
{
    size_t set = (size_t)((line / GPUEST_LINE_BYTES) % (uint64_t)c->sets);
    return &c->ways[((size_t)sm * (size_t)c->sets + set) * (size_t)c->tags];
}

static l1cm_way_t *lookup(tech_l1cm_cache_t *c, l1cm_way_t *s, uint64_t line)
{
    for (int i = 0; i < c->tags; i++)
        if (s[i].valid && s[i].line == line)
            return &s[i];
    return NULL;
}

int tech_l1cm_holds(tech_l1cm_cache_t *c, int sm, uint64_t line) { return lookup(c, set_of(c, sm, line), line) != NULL; }

void tech_l1cm_invalidate_compressed(tech_l1cm_cache_t *c, int sm)
{
    l1cm_way_t *s = &c->ways[(size_t)sm * (size_t)c->sets * (size_t)c->tags];
    for (size_t i = 0, n = (size_t)c->sets * (size_t)c->tags; i < n; i++)
        if (s[i].compressed)
            s[i].valid = 0;
}

void tech_l1cm_invalidate(tech_l1cm_cache_t *c, int sm, uint64_t line)
{
    l1cm_way_t *w = lookup(c, set_of(c, sm, line), line);
    if (w)
        w->valid = 0;
}

/* Sub-blocks held by the set's valid lines; *lru: the least recently used of them (NULL: none). */
static int used_blocks(const tech_l1cm_cache_t *c, l1cm_way_t *s, l1cm_way_t **lru)
{
    int used = 0;
    *lru = NULL;
    for (int i = 0; i < c->tags; i++)
        if (s[i].reserved) {
            used += L1CM_RAW; /* its size is known only at its fill */
        } else if (s[i].valid) {
            used += s[i].blocks;
            if (!*lru || s[i].lru < (*lru)->lru)
                *lru = &s[i];
        }
    return used;
}

double tech_l1cm_capacity(const tech_l1cm_cache_t *c, int sm)
{
    const l1cm_way_t *s = &c->ways[(size_t)sm * (size_t)c->sets * (size_t)c->tags];
    int valid = 0;
    for (int i = 0; i < c->sets * c->tags; i++)
        valid += s[i].valid;
    return (double)valid * L1CM_RAW / ((double)c->sets * (double)c->blocks_per_set);
}

int tech_l1cm_access(tech_l1cm_cache_t *c, int sm, uint64_t line, int bytes, int *hit_compressed)
{
    l1cm_way_t *s = set_of(c, sm, line), *w = lookup(c, s, line), *lru;
    c->clock++;
    *hit_compressed = 0;
    if (w) {
        w->lru = c->clock;
        *hit_compressed = w->compressed;
        return 1;
    }
    bytes = bytes < 1 ? 1 : bytes > GPUEST_LINE_BYTES ? GPUEST_LINE_BYTES : bytes;
    int need = (bytes + L1CM_SUB - 1) / L1CM_SUB;
    for (int i = 0; i < c->tags && !w; i++)
        if (s[i].reserved && s[i].line == line)
            w = &s[i];
    if (w) { /* the reserved tag's fill: the line keeps `need` sub-blocks, LRU lines go until it fits */
        *w = (l1cm_way_t){.line = line, .lru = c->clock, .valid = 0, .blocks = (uint8_t)need,
                          .compressed = bytes < GPUEST_LINE_BYTES};
        while (used_blocks(c, s, &lru) + need > c->blocks_per_set && lru)
            lru->valid = 0;
        w->valid = 1;
        return 0;
    }
    while (used_blocks(c, s, &lru) + need > c->blocks_per_set && lru)
        lru->valid = 0; /* LRU lines lose their data until the fill fits */
    for (int i = 0; i < c->tags && !w; i++)
        if (!s[i].valid)
            w = &s[i];
    if (!w) { /* every tag holds a line: the LRU one gives its tag */
        used_blocks(c, s, &lru);
        w = lru;
    }
    *w = (l1cm_way_t){.line = line, .lru = c->clock, .valid = 1, .blocks = (uint8_t)need,
                      .compressed = bytes < GPUEST_LINE_BYTES};
    return 0;
}

/* The simulator's allocate-on-miss reservation (src/sim/l1_compressed.c): a miss takes a tag at
 * once, counting a raw line's room until its fill, and drops at most one line, the least recently
 * used valid one, when the set has no room left for a raw line; at most assoc tags of a set are
 * reserved at once (the simulator's further miss waits; here it reserves nothing). */
void tech_l1cm_reserve(tech_l1cm_cache_t *c, int sm, uint64_t line)
{
    l1cm_way_t *s = set_of(c, sm, line), *w = NULL, *lru;
    int reserved = 0;
    for (int i = 0; i < c->tags; i++) {
        if (s[i].reserved && s[i].line == line)
            return; /* already in flight (the simulator's MSHR merge) */
        reserved += s[i].reserved;
    }
    if ((reserved + 1) * L1CM_RAW > c->blocks_per_set || lookup(c, s, line))
        return;
    for (int i = 0; i < c->tags && !w; i++)
        if (!s[i].valid && !s[i].reserved)
            w = &s[i];
    if (!w) { /* every free tag taken: the LRU valid line gives its tag */
        used_blocks(c, s, &lru);
        if (!lru)
            return;
        w = lru;
        w->valid = 0;
    }
    if (used_blocks(c, s, &lru) + L1CM_RAW > c->blocks_per_set && lru)
        lru->valid = 0;
    *w = (l1cm_way_t){.line = line, .lru = c->clock, .reserved = 1, .blocks = L1CM_RAW};
}

/* ------------------------------------------------------------------ the walk */

static const int decomp_cycles[GPUEST_L1C_MODES] = {0, 2, 14, 11}; /* none, BDI, SC, BPC (LATTE-CC IV-C) */

typedef struct {
    int mode; /* GPUEST_L1C_* */
    tech_l1cm_cache_t *plain, *comp;
    gpuest_codec_t codec; /* BDI or BPC */
    tech_scbook_t *sc; /* SC: the per-SM code books, rebuilt per period */
    uint64_t reads, miss_plain, miss_comp, hits_comp, hits_on_compressed;
    /* Adaptive-CMP's events: compressed-L1 hits the plain L1 misses (a miss compression avoided),
     * and hits on compressed lines the plain L1 also hits (decompression paid for nothing) */
    uint64_t avoided, paid_hits;
    /* the decompression queue's batches: compressed hits of the current warp instruction (its lines
     * come in a row), and the sum over instructions of k (k - 1) / 2 (hits each finds ahead of it) */
    uint64_t inst_comp_hits, comp_hits_ahead;
    tech_dq_replay_t *dq; /* the decompression queue replayed on the walk's order */
    tech_fillq_t *fq;     /* the misses' fills, installed at the requester's next turn */
    uint32_t warp;        /* the warp whose turn it is */
    const gpuest_memimg_t *img; /* the image the walk reads (the fills size their lines from it) */
    /* effective capacity, sampled on one SM's two L1s every EP (256 of its reads) */
    double cap_plain, cap_comp;
    uint64_t cap_samples;
    /* the adaptive policies' learning windows (l1c_learnwin.c): this walk's candidate index in its
     * policy (0: a static walk, none counted) */
    int cand;
    tech_l1c_learn_t *learn;
    /* the fills timed by the baseline's miss latency in the SM's reads (l1c_filltime.c): a fill
     * lands at its warp's next turn or when due there, whichever comes first */
    tech_filltime_t *ft;
    uint64_t fill_seq;
} l1cm_walk_t;

static int line_bytes_in_mode(l1cm_walk_t *w, int sm, uint64_t line, const uint8_t *data)
{
    if (w->mode == GPUEST_L1C_SC)
        return tech_scbook_fill(w->sc, sm, line, data); /* samples the line when its EP does */
    uint32_t bits = gpuest_codec_size_bits(&w->codec, line, data);
    return gpuest_codec_is_compressed(&w->codec, bits) ? (int)((bits + 7) / 8) : GPUEST_LINE_BYTES;
}

/* SC: the read counted in its SM's EP; at a period's book change the old book's lines go. A miss
 * counts before its fill is sized (the simulator's fill comes after its access), a hit after. */
static gpuest_err sc_count_read(l1cm_walk_t *w, int sm, gpuest_error_t *err)
{
    int inv = 0;
    if (w->mode == GPUEST_L1C_SC)
        GPUEST_TRY(tech_scbook_read(w->sc, sm, &inv, err));
    if (inv)
        tech_l1cm_invalidate_compressed(w->comp, sm);
    return GPUEST_OK;
}

/* A fill arrives: the plain L1 takes the line, the compressed one sizes it from the image as the
 * walk has it now (a line another warp's fill brought is only touched). */
static void land_fill(l1cm_walk_t *w, const tech_fill_t *f)
{
    int hc;
    if (f->which & 1)
        tech_l1cm_access(w->plain, f->sm, f->line, GPUEST_LINE_BYTES, &hc);
    if ((f->which & 2) && !tech_l1cm_holds(w->comp, f->sm, f->line)) {
        uint8_t buf[GPUEST_LINE_BYTES];
        gpuest_memimg_read_line(w->img, f->line, buf);
        tech_l1cm_access(w->comp, f->sm, f->line, line_bytes_in_mode(w, f->sm, f->line, buf), &hc);
    }
}

/* SM sm makes a read: the fills its clock makes due land first (those their warp's turn already
 * brought are gone from the warp's list, or were renamed by a later push: seq tells). */
static void land_due_fills(l1cm_walk_t *w, int sm)
{
    tech_ftime_t d;
    tech_filltime_read(w->ft, sm);
    while (tech_filltime_pop(w->ft, sm, &d)) {
        tech_fill_t *f = tech_fillq_at(w->fq, d.warp, d.pos);
        if (f && f->seq == d.fill.seq && f->which) {
            land_fill(w, f);
            f->which = 0; /* landed: its warp's turn finds nothing left to do */
        }
    }
}

static gpuest_err queue_fill(l1cm_walk_t *w, int sm, uint64_t line, int which, gpuest_error_t *err)
{
    uint32_t pos = (uint32_t)tech_fillq_len(w->fq, w->warp);
    tech_fill_t f = {.line = line, .sm = sm, .which = which, .seq = ++w->fill_seq};
    GPUEST_TRY(tech_fillq_push(w->fq, w->warp, f, err));
    return tech_filltime_note(w->ft, w->warp, pos, f, err);
}

static gpuest_err on_access(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                            gpuest_error_t *err)
{
    l1cm_walk_t *w = ctx;
    if (is_load) { /* a read ticks its SM's clock (only reads: the delay is in reads) */
        w->img = img;
        land_due_fills(w, sm);
    } else {
        tech_l1cm_invalidate(w->plain, sm, line);
        tech_l1cm_invalidate(w->comp, sm, line);
        return GPUEST_OK;
    }
    w->reads++;
    int hc;
    /* a miss only queues its fill (installed at the warp's next turn, fill_turn) */
    int plain_hit = tech_l1cm_holds(w->plain, sm, line) && tech_l1cm_access(w->plain, sm, line, GPUEST_LINE_BYTES, &hc);
    w->miss_plain += !plain_hit;
    l1cm_way_t *present = lookup(w->comp, set_of(w->comp, sm, line), line);
    if (!present)
        GPUEST_TRY(sc_count_read(w, sm, err));
    int comp_hit = present && tech_l1cm_access(w->comp, sm, line, GPUEST_LINE_BYTES, &hc);
    if (present)
        GPUEST_TRY(sc_count_read(w, sm, err));
    int which = (!plain_hit ? 1 : 0) | (!comp_hit ? 2 : 0);
    /* the misses take their tags now, as the simulator's L1s do (its reservation) */
    if (!plain_hit)
        tech_l1cm_reserve(w->plain, sm, line);
    if (!comp_hit)
        tech_l1cm_reserve(w->comp, sm, line);
    if (which)
        GPUEST_TRY(queue_fill(w, sm, line, which, err));
    tech_dq_replay_read(w->dq, sm, comp_hit && hc);
    if (comp_hit) {
        w->hits_comp++;
        w->hits_on_compressed += hc != 0;
        w->inst_comp_hits += hc != 0;
        w->avoided += !plain_hit;
        w->paid_hits += plain_hit && hc;
    } else {
        w->miss_comp++;
    }
    if (w->learn)
        tech_l1c_learn_read(w->learn, sm, line, plain_hit, comp_hit, w->cand);
    if (w->reads % L1CM_EP == 0) { /* the reading SM's effective capacity, every 256 reads */
        w->cap_plain += tech_l1cm_capacity(w->plain, sm);
        w->cap_comp += tech_l1cm_capacity(w->comp, sm);
        w->cap_samples++;
    }
    return GPUEST_OK;
}

/* Warp `warp` starts its turn: the fills of its misses arrive (the compressed line sized from the
 * image as the walk has it now; a line another warp's fill brought is only touched). */
static gpuest_err fill_turn(l1cm_walk_t *w, uint32_t warp, gpuest_error_t *err)
{
    const tech_fill_t *f;
    size_t n = tech_fillq_take(w->fq, warp, &f);
    w->warp = warp;
    for (size_t i = 0; i < n; i++)
        land_fill(w, &f[i]); /* which 0: its SM's clock landed it already */
    (void)err;
    return GPUEST_OK;
}

/* A warp instruction's compressed hits are done: each found those before it in the queue. */
static void end_instruction(l1cm_walk_t *w)
{
    w->comp_hits_ahead += w->inst_comp_hits * (w->inst_comp_hits - (w->inst_comp_hits > 0)) / 2;
    w->inst_comp_hits = 0;
}

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)s;
    (void)err;
    l1cm_walk_t *w = ctx;
    end_instruction(w);
    tech_dq_replay_flush(w->dq);
    tech_fillq_clear(w->fq);
    tech_filltime_clear(w->ft);
    tech_l1cm_flush(w->plain); /* the walk's L1s start empty at each launch */
    tech_l1cm_flush(w->comp);
    return GPUEST_OK;
}

static void walk_free(l1cm_walk_t *w)
{
    tech_l1cm_destroy(w->plain);
    tech_l1cm_destroy(w->comp);
    tech_dq_replay_destroy(w->dq);
    tech_fillq_destroy(w->fq);
    tech_filltime_destroy(w->ft);
    tech_scbook_destroy(w->sc);
    tech_l1c_learn_destroy(w->learn);
}

static gpuest_err walk_init(l1cm_walk_t *w, const gpuest_config_t *cfg, int sets, int assoc, uint64_t fill_delay,
                            gpuest_error_t *err)
{
    const gpuest_compress_algo_t *a;
    gpuest_codec_opts_t o = {.line_bytes = GPUEST_LINE_BYTES};
    int n = cfg->core.num_sms;
    GPUEST_TRY(tech_l1cm_create(n, sets, assoc, &w->plain, err));
    GPUEST_TRY(tech_l1cm_create(n, sets, assoc, &w->comp, err));
    GPUEST_TRY(tech_dq_replay_create(n, decomp_cycles[w->mode], &w->dq, err));
    GPUEST_TRY(tech_fillq_create(&w->fq, err));
    GPUEST_TRY(tech_filltime_create(n, fill_delay, &w->ft, err));
    if (w->cand > 0) /* an adaptive policy's candidate: none, BDI and the high-capacity mode */
        GPUEST_TRY(tech_l1c_learn_create(n, sets, 3, &w->learn, err));
    if (w->mode != GPUEST_L1C_SC) {
        GPUEST_TRY(gpuest_compress_lookup(w->mode == GPUEST_L1C_BDI ? "bdi" : "bpc", &a, err));
        return gpuest_codec_init(&w->codec, a, &o, err);
    }
    return tech_scbook_create(n, &w->sc, err);
}

/* The per-mode figures of one walk (a compressed L1 in `mode` beside the plain one). */
typedef struct {
    double miss_scale, hit_extra, avoided, paid, capacity, capacity_plain;
    double dq_latency, dq_share, dq_ahead; /* the decompression queue's inputs (model.h) */
    double dq_wait_at[GPUEST_MODEL_DQ_SPACINGS];
    /* an adaptive candidate's learning windows: hits of none's and of its own dedicated sets in
     * the windows of EPs that ended, and the learning EPs that ended (l1c_learnwin.c) */
    uint64_t learn_hits_none, learn_hits_own, learn_eps;
} l1cm_mode_t;

/* Several modes in one walk (the walk consumes the workload's launches): one plain and one
 * compressed L1 per mode, fed the same accesses. */
#define L1CM_MAX_WALKS 2
typedef struct {
    int n;
    l1cm_walk_t w[L1CM_MAX_WALKS];
} l1cm_walks_t;

static gpuest_err on_access_all(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                                gpuest_error_t *err)
{
    l1cm_walks_t *m = ctx;
    for (int i = 0; i < m->n; i++)
        GPUEST_TRY(on_access(&m->w[i], img, sm, line, is_load, err));
    return GPUEST_OK;
}

static gpuest_err on_inst_all(void *ctx, int sm, int is_load, int lines, gpuest_error_t *err)
{
    (void)is_load;
    (void)lines;
    (void)err;
    l1cm_walks_t *m = ctx;
    for (int i = 0; i < m->n; i++) {
        end_instruction(&m->w[i]);
        tech_dq_replay_inst(m->w[i].dq, sm);
    }
    return GPUEST_OK;
}

static gpuest_err on_turn_all(void *ctx, int sm, uint32_t warp, gpuest_error_t *err)
{
    (void)sm;
    l1cm_walks_t *m = ctx;
    for (int i = 0; i < m->n; i++)
        GPUEST_TRY(fill_turn(&m->w[i], warp, err));
    return GPUEST_OK;
}

static gpuest_err on_launch_all(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    l1cm_walks_t *m = ctx;
    for (int i = 0; i < m->n; i++)
        GPUEST_TRY(on_launch(&m->w[i], s, err));
    return GPUEST_OK;
}

static void mode_result(const l1cm_walk_t *w, l1cm_mode_t *out)
{
    int mode = w->mode;
    out->miss_scale = (double)w->miss_comp / (double)w->miss_plain;
    if (!(out->miss_scale > 0))
        out->miss_scale = 1e-9; /* 0 is the identity: every miss removed stays removed */
    out->hit_extra = w->hits_comp ? decomp_cycles[mode] * (double)w->hits_on_compressed / (double)w->hits_comp : 0.0;
    out->avoided = (double)w->avoided / (double)w->reads;
    out->paid = decomp_cycles[mode] * (double)w->paid_hits / (double)w->reads;
    out->capacity = w->cap_samples ? w->cap_comp / (double)w->cap_samples : 1.0;
    out->capacity_plain = w->cap_samples ? w->cap_plain / (double)w->cap_samples : 1.0;
    out->dq_latency = decomp_cycles[mode];
    out->dq_share = w->hits_comp ? (double)w->hits_on_compressed / (double)w->hits_comp : 0.0;
    out->dq_ahead = w->hits_on_compressed ? (double)w->comp_hits_ahead / (double)w->hits_on_compressed : 0.0;
    tech_dq_replay_waits(w->dq, out->dq_wait_at);
    if (w->learn) {
        out->learn_hits_none = tech_l1c_learn_hits(w->learn, 0);
        out->learn_hits_own = tech_l1c_learn_hits(w->learn, w->cand);
        out->learn_eps = tech_l1c_learn_eps(w->learn);
    }
}

/* The reads of one SM in the baseline's read miss latency, rounded (0: not known, or the timing
 * switched off, `--l1-fill-timing off`, the default: fills at the warp's next turn only). A fill
 * then lands at its warp's next turn or when its SM's clock makes it due, whichever is first. */
static uint64_t fill_delay(const gpuest_technique_env_t *env)
{
    double d = env->l1_reads_per_miss_latency;
    return d >= 0.5 && d < 1e9 ? (uint64_t)(d + 0.5) : 0;
}

/* first_cand: the candidate index of modes[0] in an adaptive policy (its learning windows are
 * counted), 0 for a static walk. */
static gpuest_err walk_modes(const gpuest_technique_env_t *env, const int *modes, int n, int first_cand,
                             l1cm_mode_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    l1cm_walks_t m;
    memset(&m, 0, sizeof m);
    m.n = n < L1CM_MAX_WALKS ? n : L1CM_MAX_WALKS;
    o.access_cb = on_access_all;
    o.access_ctx = &m;
    o.inst_cb = on_inst_all;
    /* the simulator's GTO scheduler runs a warp until it needs a load's data, and the warp goes on
     * when that data (and the line's fill) arrives: fills at the warp's next turn (l1c_fillq.c) */
    o.gto_bursts = 1;
    o.turn_cb = on_turn_all;
    gpuest_err rc = GPUEST_OK;
    for (int i = 0; i < m.n && rc == GPUEST_OK; i++) {
        m.w[i].mode = modes[i];
        m.w[i].cand = first_cand > 0 ? first_cand + i : 0;
        rc = walk_init(&m.w[i], cfg, o.l1_lines / o.l1_assoc, o.l1_assoc, fill_delay(env), err);
    }
    if (rc == GPUEST_OK)
        rc = gpuest_workload_characterize(env->launches, &o, on_launch_all, NULL, &m, NULL, err);
    if (rc == GPUEST_OK && m.w[0].miss_plain == 0)
        rc = gpuest_fail(err, GPUEST_EUNSUPPORTED,
                         "technique.l1_compression: no read of the workload misses the plain L1, so there is no "
                         "miss rate for compression to lower");
    for (int i = 0; i < m.n; i++) {
        end_instruction(&m.w[i]);
        if (rc == GPUEST_OK)
            mode_result(&m.w[i], &out[i]);
        walk_free(&m.w[i]);
    }
    return rc;
}

/* ------------------------------------------------------------------ FANN on the model's features */

/* The shipped network, loaded once per process from the model folder the transform was given
 * (kept for the process's life: the model calls the rule long after the transform returns). */
static gpuest_learn_net_t *fann_net;
static char fann_dir[1024];
static double fann_span, fann_margin, fann_guard, fann_period;

static gpuest_err fann_load(const char *model_dir, gpuest_error_t *err)
{
    const char *dir = model_dir ? model_dir : "models";
    if (fann_net && strcmp(dir, fann_dir) == 0)
        return GPUEST_OK;
    char net_path[1100], scale_path[1100];
    snprintf(net_path, sizeof net_path, "%s/latte-fann.net", dir);
    snprintf(scale_path, sizeof scale_path, "%s/latte-fann.scale.csv", dir);
    gpuest_learn_net_t *net = NULL;
    GPUEST_TRY(gpuest_learn_net_load(net_path, scale_path, GPUEST_L1C_FANN_FEATURES, GPUEST_L1C_FANN_OUTPUTS, &net,
                                     err));
    gpuest_learn_net_destroy(fann_net);
    fann_net = net;
    /* the decision settings the simulator's policy reads from the same metadata */
    if (!gpuest_learn_net_get_meta(net, "rule_span", &fann_span))
        fann_span = 0;
    if (!gpuest_learn_net_get_meta(net, "margin", &fann_margin))
        fann_margin = 0;
    if (!gpuest_learn_net_get_meta(net, "range_guard", &fann_guard))
        fann_guard = 0;
    if (!gpuest_learn_net_get_meta(net, "period", &fann_period))
        fann_period = 0;
    snprintf(fann_dir, sizeof fann_dir, "%s", dir);
    return GPUEST_OK;
}

void tech_l1c_fann_features(const gpuest_model_l1c_view_t *v, int ep_in_period, double x[GPUEST_L1C_FANN_FEATURES])
{
    int c = v->current;
    x[0] = v->avail_warps;
    x[1] = v->cycles_per_schedule;
    x[2] = v->latency_tolerance;
    x[3] = v->hit_ratio[0]; /* fann's candidates: none, BDI, SC */
    x[4] = v->hit_ratio[1];
    x[5] = v->hit_ratio[2];
    x[6] = decomp_cycles[GPUEST_L1C_BDI]; /* the nominal latency: no decompressor queue in the model */
    x[7] = decomp_cycles[GPUEST_L1C_SC];
    x[8] = v->miss_rate;
    x[9] = 0.0; /* steady state: no change from the previous EP */
    x[10] = v->miss_latency;
    x[11] = 0.0; /* queue position: no decompressor queue in the model */
    x[12] = v->capacity[c];
    x[13] = ep_in_period;
    x[14] = v->mode_id[c] == GPUEST_L1C_NONE;
    x[15] = v->mode_id[c] == GPUEST_L1C_BDI;
    x[16] = v->mode_id[c] == GPUEST_L1C_SC;
    x[17] = v->hit_extra[c];
    for (int k = 0; k < GPUEST_L1C_FANN_OUTPUTS; k++) {
        x[18 + k] = k < v->modes ? v->amat_gpu[k] : -1.0; /* the simulator's -1: a mode never seen */
        x[21 + k] = k == v->rule;
    }
}

/* The network at each of a period's 10 EP positions (the position is a feature; the model has no
 * time), each EP deciding as the simulator's policy does (gpuest_l1c_fann_decide with the model's
 * margin, the rule's choice outside the training range when the model asks for the guard); the
 * candidate most EPs take wins (ties: the lower latency one). */
static int fann_period_rule(const gpuest_model_l1c_view_t *v);

static int fann_rule(const gpuest_model_l1c_view_t *v)
{
    if (fann_period > 0)
        return fann_period_rule(v);
    int votes[GPUEST_L1C_FANN_OUTPUTS] = {0};
    for (int ep = 0; ep < L1CM_PERIOD; ep++) {
        double x[GPUEST_L1C_FANN_FEATURES], y[GPUEST_L1C_FANN_OUTPUTS];
        tech_l1c_fann_features(v, ep, x);
        int best = v->rule;
        if (!(fann_guard > 0 && !gpuest_l1c_fann_in_range(fann_net, x))) {
            gpuest_learn_net_run(fann_net, x, y);
            best = gpuest_l1c_fann_decide(y, v->rule, fann_span, fann_margin);
        }
        votes[best]++;
    }
    int pick = 0;
    for (int i = 1; i < GPUEST_L1C_FANN_OUTPUTS && i < v->modes; i++)
        if (votes[i] > votes[pick])
            pick = i;
    return pick;
}

/* A period model (metadata 'period' = 1, docs/latte-cc.md "Sixth round"): the network runs once,
 * at the period's decision position (GPUEST_L1C_PERIOD_DECISION_EP), as the simulator's policy
 * does; a held mode runs 8 of the period's 10 EPs (the rule the other 2), so it is the majority;
 * no hold (or the guard) leaves the rule's candidate. */
static int fann_period_rule(const gpuest_model_l1c_view_t *v)
{
    double x[GPUEST_L1C_FANN_FEATURES], y[GPUEST_L1C_FANN_OUTPUTS];
    tech_l1c_fann_features(v, GPUEST_L1C_PERIOD_DECISION_EP, x);
    if (fann_guard > 0 && !gpuest_l1c_fann_in_range(fann_net, x))
        return v->rule;
    gpuest_learn_net_run(fann_net, x, y);
    int k = gpuest_l1c_fann_decide_period(y, fann_span, fann_margin);
    return k >= 0 && k < v->modes ? k : v->rule;
}

/* ------------------------------------------------------------------ the transforms */

static gpuest_err static_transform(const gpuest_technique_env_t *env, int mode, gpuest_model_transform_t *out,
                                   gpuest_error_t *err)
{
    l1cm_mode_t r;
    GPUEST_TRY(walk_modes(env, &mode, 1, 0, &r, err));
    out->l1_miss_scale = r.miss_scale;
    out->l1_hit_extra_latency = r.hit_extra;
    out->l1_dq_latency = r.dq_latency;
    out->l1_dq_share = r.dq_share;
    out->l1_dq_ahead = r.dq_ahead;
    memcpy(out->l1_dq_wait_at, r.dq_wait_at, sizeof out->l1_dq_wait_at);
    return GPUEST_OK;
}

/* The simulator's rule has evidence to leave none only when some learning EP ended and some
 * candidate's dedicated sets hit in their windows (none's counted on the plain L1 of either walk,
 * both walks seeing the same reads); with none, every AMAT_GPU is the miss latency, every miss ratio
 * 1 and every Adaptive-CMP counter 0, and the tie goes to none (l1c_learnwin.c). */
static int learn_evidence(const l1cm_mode_t r[2])
{
    uint64_t eps = r[0].learn_eps;
    uint64_t hits = r[0].learn_hits_none + r[0].learn_hits_own + r[1].learn_hits_own;
    return eps > 0 && hits > 0;
}

/* An adaptive policy: the plain L1 and each of its compressed modes walked as static ones, and the
 * policy's rule, applied by the model to its per-candidate estimates (src/model/l1c_rule.c). */
static gpuest_err adaptive_transform(const gpuest_technique_env_t *env, int policy, gpuest_model_transform_t *out,
                                     gpuest_error_t *err)
{
    int high = policy == GPUEST_L1COMP_LATTE_CC_BDI_BPC ? GPUEST_L1C_BPC : GPUEST_L1C_SC;
    int modes[3] = {GPUEST_L1C_NONE, GPUEST_L1C_BDI, high};
    out->l1c_rule = policy == GPUEST_L1COMP_ADAPTIVE_HIT_COUNT ? GPUEST_MODEL_L1C_FEWEST_MISSES
                    : policy == GPUEST_L1COMP_ADAPTIVE_CMP    ? GPUEST_MODEL_L1C_CMP
                    : policy == GPUEST_L1COMP_FANN            ? GPUEST_MODEL_L1C_EXTERNAL
                    : policy == GPUEST_L1COMP_KERNEL_OPT      ? GPUEST_MODEL_L1C_FASTEST
                                                              : GPUEST_MODEL_L1C_AMAT_GPU;
    if (policy == GPUEST_L1COMP_FANN) {
        GPUEST_TRY(fann_load(env->model_dir, err));
        out->l1c_choose = fann_rule;
    }
    l1cm_mode_t r[2];
    memset(r, 0, sizeof r);
    GPUEST_TRY(walk_modes(env, modes + 1, 2, 1, r, err));
    if (!learn_evidence(r)) {
        /* the policy's followers never leave none: the plain L1 is its only candidate (the model's
         * solve of it is the identity transform's, and the estimate shows the policy took none) */
        out->l1c_modes = 1;
        out->l1c_mode_id[0] = GPUEST_L1C_NONE;
        out->l1c_miss_scale[0] = 1.0;
        out->l1c_capacity[0] = r[0].capacity_plain;
        return GPUEST_OK;
    }
    out->l1c_modes = 3;
    out->l1c_mode_id[0] = GPUEST_L1C_NONE;
    out->l1c_miss_scale[0] = 1.0;
    out->l1c_capacity[0] = r[0].capacity_plain;
    for (int i = 1; i < 3; i++) {
        out->l1c_mode_id[i] = modes[i];
        out->l1c_miss_scale[i] = r[i - 1].miss_scale;
        out->l1c_hit_extra[i] = r[i - 1].hit_extra;
        out->l1c_avoided[i] = r[i - 1].avoided;
        out->l1c_paid[i] = r[i - 1].paid;
        out->l1c_capacity[i] = r[i - 1].capacity;
        out->l1c_dq_latency[i] = r[i - 1].dq_latency;
        out->l1c_dq_share[i] = r[i - 1].dq_share;
        out->l1c_dq_ahead[i] = r[i - 1].dq_ahead;
        memcpy(out->l1c_dq_wait_at[i], r[i - 1].dq_wait_at, sizeof out->l1c_dq_wait_at[i]);
    }
    return GPUEST_OK;
}

gpuest_err tech_l1c_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_model_transform_identity(out);
    int policy = cfg->technique.l1_compression;
    int mode = policy == GPUEST_L1COMP_STATIC_BDI  ? GPUEST_L1C_BDI
               : policy == GPUEST_L1COMP_STATIC_SC ? GPUEST_L1C_SC
               : policy == GPUEST_L1COMP_STATIC_BPC ? GPUEST_L1C_BPC
                                                    : -1;
    if (!env->launches)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.l1_compression: the estimate needs the workload's launches to walk its L1 "
                           "accesses (a generated workload or a trace)");
    if (mode >= 0)
        return static_transform(env, mode, out, err);
    return adaptive_transform(env, policy, out, err);
}
