/* tech_filtering.c: critical-word data filtering with DPC and the request controller (data-filtering thesis,
 * chapters 3-4), technique.filtering = df_truc | df_man.
 *
 * SM side (the simulator's L1D sector mode, src/sim/l1_sector.c, does the bitmaps, miss types and
 * fills); this file is the per-SM Request Controller (RC) and Windows Manager (WM), thesis Figs.
 * 4.4-4.5:
 *  - WM: per SM three ICA windows (lines whose used region is 64, 96 or 128 B) and one FDR window,
 *    each the last technique.filter_window outcomes (FIFO). Fed by every completed MSHR entry and
 *    every evicted line (l1_sector_window): the ICA window of the used size gets the line's
 *    consistency bit (a 32-B use cannot be inconsistent and feeds none), the FDR window gets FDR
 *    when all four sectors were used. "Used" is the warps' demand, not what was fetched, so the
 *    FDR window cannot lock itself on by its own full fetches.
 *  - RC, at every FM / SM / HI miss (l1_sector_request): the whole line when the FDR share of the
 *    FDR window exceeds filter_fdr_threshold; else the whole line for an SM (the MSHR was hit and
 *    the earlier request did not ask for enough: an inconsistent pattern); else the whole line when
 *    the ICA share of the window of the line's used size (this access included; at least 64 B)
 *    exceeds filter_ica_threshold; else only the critical sectors (a PDR). A share is over the
 *    outcomes the window holds (an empty window: 0). "Whole line" means every sector not already
 *    valid or asked for (the simulator never fetches a sector twice). filter_rc = 0 always
 *    answers the critical sectors (the naive scheme of thesis Fig. 4.1).
 * MC side, one Packet Data Filter per MC port (memory sub-partition, as the compression technique):
 *  - mc_accept: a PDR is registered in the data-filter table (technique.filter_table_entries
 *    entries, key SM id + line address); a PDR whose key is already there ORs its sector mask into
 *    that entry (thesis 3.3.1). A full table: the PDR is served as an FDR (whole line, plain DPC);
 *    counted as an overflow;
 *  - mc_reply: the reply of a registered PDR carries every sector its entry's requests are still
 *    owed (so the first reply after a merge brings both regions and the SM's MSHR bitmap empties
 *    early); a request owed nothing more gets a header-only reply carrying no sector (the thesis
 *    sends one merged reply; our simulator answers every request); the entry is freed with the
 *    reply of its last request. The data
 *    are reduced by DF-TRUC (only the critical sectors are DPC-encoded) or DF-MAN (non-critical
 *    sectors zero-filled, the better-compressing of original and manipulated line goes to DPC);
 *    FDRs and overflowed PDRs are plain DPC of the whole line. The packet payload is the DPC stream
 *    without its C flag (one header bit, as for every algorithm, docs/technique.md) plus the 4-bit
 *    sector map for PDR replies.
 *  - latencies: DPC's (2 L2 cycles to compress, 1 core cycle to decompress a compressed reply,
 *    serial with the reply queue as the compression technique); DF-MAN adds 1 L2 cycle for the
 *    compare-and-select of its two encodings (they run in parallel); DF-TRUC encodes fewer words
 *    in the same pipeline: DPC's latency.
 * Composition: filtering already includes DPC, so technique.compression must be none; PCU
 * coalescing multicasts one reply to several SMs whose critical sectors differ, which the filter
 * table (one mask per SM) does not model: rejected too (validate). */
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "technique_int.h"

#define LINE GPUEST_LINE_BYTES
#define NWIN 3 /* ICA windows: 64, 96, 128 B */

typedef struct {
    uint8_t bits[64];
    int size, len, head, ones;
} win_t;

typedef struct {
    win_t ica[NWIN], fdr;
} wm_t;

typedef struct {
    uint64_t line;
    int sm;
    int refs;     /* registered requests without a reply yet; 0 = free */
    int32_t head; /* their tokens, chained through flt_t.nxt */
} dft_entry_t;

typedef struct {
    dft_entry_t *e;
    int n, used;
} dft_t;

typedef struct {
    const gpuest_config_t *cfg;
    gpuest_df_mode mode;
    int nsm, nmc, rc, ica_thr, fdr_thr;
    int comp_lat, decomp_lat;
    gpuest_codec_t dpc;
    wm_t *wm;      /* nsm */
    dft_t *table;  /* nmc */
    int32_t *slot; /* by request token: entry index + 1 (0: not registered) */
    int32_t *nxt;  /* by request token: the next registered request of its entry (-1: last) */
    uint8_t *owed; /* by request token: its sectors no reply of its entry has carried yet */
    int32_t nslot;
    /* statistics */
    uint64_t fm, sm_miss, hi, pdr, fdr, full_by_fdr, full_by_sm, full_by_ica;
    uint64_t registered, merged, overflows, replies, pdr_replies, no_data, man_chosen, empty_replies;
    uint64_t flits_raw, flits_out, payload_bits, dpc_bits, sectors_sent;
    uint64_t win_reports, win_ica, evictions, used_hist[4], partial_ca;
} flt_t;

static const char *const flt_keys[] = {
    "filtering", "filter_table_entries", "filter_window", "filter_ica_threshold", "filter_fdr_threshold", "filter_rc",
    NULL};

static int flt_active(const gpuest_config_t *cfg)
{
    return cfg->technique.filtering != GPUEST_FILTER_NONE;
}

static gpuest_err flt_validate(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at[256];
    if (!flt_active(cfg))
        return GPUEST_OK;
    if (strcmp(cfg->technique.compression, "none") != 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.filtering already compresses every reply with DPC at the MC; "
                           "technique.compression = %s would compress it twice: unset one of them",
                           gpuest_config_key_origin(cfg, "technique", "filtering", at, sizeof at),
                           cfg->technique.compression);
    if (cfg->technique.coalescing != GPUEST_COALESCE_NONE)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.filtering with technique.coalescing: a coalesced reply goes to several "
                           "SMs whose critical sectors differ, and the data-filter table keeps one mask per SM; "
                           "the combination is not modelled: unset one of them",
                           gpuest_config_key_origin(cfg, "technique", "filtering", at, sizeof at));
    return GPUEST_OK;
}

/* ------------------------------------------------------------ windows manager */
static void win_push(win_t *w, int bit)
{
    if (w->len == w->size) { /* the oldest outcome leaves */
        w->ones -= w->bits[w->head];
        w->head = (w->head + 1) % w->size;
        w->len--;
    }
    w->bits[(w->head + w->len) % w->size] = (uint8_t)(bit != 0);
    w->len++;
    w->ones += bit != 0;
}

/* ones / len > pct %, in integers; an empty window never exceeds */
static int win_over(const win_t *w, int pct)
{
    return w->len > 0 && 100 * w->ones > pct * w->len;
}

static int ica_index(unsigned used)
{
    int n = __builtin_popcount(used & 0xFu);
    return n < 2 ? 0 : n - 2;
}

static void flt_window(void *ctx, int sm, unsigned used, int inconsistent, int evicted)
{
    flt_t *f = ctx;
    if (sm < 0 || sm >= f->nsm)
        return;
    wm_t *w = &f->wm[sm];
    int n = __builtin_popcount(used & 0xFu);
    f->win_reports++;
    f->evictions += evicted != 0;
    f->used_hist[n - 1]++; /* used is never empty (the simulator reports only used lines) */
    f->partial_ca += n < 4 && !inconsistent;
    if (n >= 2) {
        win_push(&w->ica[ica_index(used)], inconsistent);
        f->win_ica += inconsistent != 0;
    }
    win_push(&w->fdr, (used & 0xFu) == 0xFu);
}

/* ------------------------------------------------------------ request controller */
static unsigned flt_request(void *ctx, const gpuest_sim_sector_miss_t *m)
{
    flt_t *f = ctx;
    f->fm += m->kind == GPUEST_SIM_MISS_FM;
    f->sm_miss += m->kind == GPUEST_SIM_MISS_SM;
    f->hi += m->kind == GPUEST_SIM_MISS_HI;
    unsigned ask = m->need;
    if (f->rc && m->sm >= 0 && m->sm < f->nsm) {
        const wm_t *w = &f->wm[m->sm];
        if (win_over(&w->fdr, f->fdr_thr)) {
            ask = 0xF;
            f->full_by_fdr++;
        } else if (m->kind == GPUEST_SIM_MISS_SM) {
            ask = 0xF;
            f->full_by_sm++;
        } else if (win_over(&w->ica[ica_index(m->used)], f->ica_thr)) {
            ask = 0xF;
            f->full_by_ica++;
        }
    }
    if (((ask | m->need) & 0xFu) == 0xFu)
        f->fdr++;
    else
        f->pdr++;
    return ask;
}

/* ------------------------------------------------------------ data-filter table */
static int table_find(const dft_t *t, int sm, uint64_t line)
{
    if (t->used == 0)
        return -1;
    for (int k = 0; k < t->n; k++)
        if (t->e[k].refs > 0 && t->e[k].sm == sm && t->e[k].line == line)
            return k;
    return -1;
}

static int table_alloc(dft_t *t, int sm, uint64_t line)
{
    if (t->used == t->n)
        return -1;
    for (int k = 0; k < t->n; k++)
        if (t->e[k].refs == 0) {
            t->e[k] = (dft_entry_t){line, sm, 0, -1};
            t->used++;
            return k;
        }
    return -1;
}

static int grow_slots(flt_t *f, int32_t id)
{
    if (id < f->nslot)
        return 0;
    int32_t n = f->nslot ? f->nslot : 1024;
    while (n <= id)
        n *= 2;
    int32_t *s = realloc(f->slot, (size_t)n * sizeof *s);
    if (s)
        f->slot = s;
    int32_t *x = realloc(f->nxt, (size_t)n * sizeof *x);
    if (x)
        f->nxt = x;
    uint8_t *o = realloc(f->owed, (size_t)n * sizeof *o);
    if (o)
        f->owed = o;
    if (!s || !x || !o)
        return -1;
    memset(f->slot + f->nslot, 0, (size_t)(n - f->nslot) * sizeof *s);
    f->nslot = n;
    return 0;
}

static void flt_accept(void *ctx, const gpuest_sim_req_info_t *req, uint64_t l2_cycle)
{
    flt_t *f = ctx;
    (void)l2_cycle;
    if (!req->partial || req->id < 0 || req->mc < 0 || req->mc >= f->nmc || grow_slots(f, req->id) != 0)
        return; /* an FDR (or no room to remember the token): served whole */
    dft_t *t = &f->table[req->mc];
    int k = table_find(t, req->sm, req->line);
    if (k >= 0) {
        f->merged++;
    } else if ((k = table_alloc(t, req->sm, req->line)) < 0) {
        f->overflows++;
        f->slot[req->id] = 0;
        return;
    }
    t->e[k].refs++;
    f->registered++;
    f->slot[req->id] = k + 1;
    f->owed[req->id] = req->sectors & 0xF;
    f->nxt[req->id] = t->e[k].head;
    t->e[k].head = req->id;
}

/* The sectors the reply of request req carries: 0xF unless it is a registered PDR; then every sector
 * any request of its entry is still owed (the OR-merge), which those requests are then owed no
 * more; 0 when earlier replies of the entry carried all of its own. */
static unsigned reply_mask(flt_t *f, const gpuest_sim_req_info_t *req)
{
    if (!req->partial || req->id < 0 || req->id >= f->nslot || f->slot[req->id] == 0)
        return 0xF;
    dft_t *t = &f->table[req->mc];
    dft_entry_t *e = &t->e[f->slot[req->id] - 1];
    unsigned mask = 0;
    for (int32_t j = e->head; j >= 0; j = f->nxt[j]) {
        mask |= f->owed[j];
        f->owed[j] = 0;
    }
    int32_t *link = &e->head; /* unlink req */
    while (*link >= 0 && *link != req->id)
        link = &f->nxt[*link];
    if (*link == req->id)
        *link = f->nxt[req->id];
    f->slot[req->id] = 0;
    if (--e->refs == 0)
        t->used--;
    return mask;
}

/* ------------------------------------------------------------ the Packet Data Filter (reply path) */
static void flt_reply(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data, gpuest_sim_reply_t *r)
{
    flt_t *f = ctx;
    unsigned mask = reply_mask(f, req);
    if (!data || req->mc < 0 || req->mc >= f->nmc) { /* an instruction line: sent as it is */
        f->no_data++;
        return;
    }
    if (mask == 0) { /* merged: its sectors went with an earlier reply; a header-only packet answers it */
        r->flits = 1;
        r->sectors = GPUEST_SIM_REPLY_NO_SECTORS;
        f->empty_replies++;
        f->replies++;
        f->flits_out += 1;
        f->flits_raw += (uint64_t)gpuest_packet_flits(8u * LINE, f->cfg->noc.flit_bytes, f->cfg->noc.header_bytes);
        return;
    }
    uint32_t dpc_bits = gpuest_codec_payload_bits(&f->dpc, gpuest_codec_size_bits(&f->dpc, req->line, data));
    uint32_t payload = dpc_bits;
    if (mask != 0xF) {
        uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES];
        uint32_t nbits = 0;
        if (gpuest_dpc_df_compress(f->mode, mask, data, out, sizeof out, &nbits, NULL) == GPUEST_OK && nbits > 0) {
            payload = nbits - 1u + 4u; /* the C flag travels in the header; the 4-bit sector map in the payload */
            f->man_chosen += f->mode == GPUEST_DF_MAN && nbits - 1u < dpc_bits;
        }
        f->pdr_replies++;
    }
    int raw = r->flits;
    int flits = gpuest_packet_flits(payload, f->cfg->noc.flit_bytes, f->cfg->noc.header_bytes);
    r->flits = flits < raw ? flits : raw;
    r->sectors = (uint8_t)mask;
    r->inject_delay = f->comp_lat;
    r->overlap_queue = 0;
    r->fill_delay = payload < 8u * LINE ? f->decomp_lat : 0;
    f->replies++;
    f->flits_raw += (uint64_t)raw;
    f->flits_out += (uint64_t)r->flits;
    f->payload_bits += payload;
    f->dpc_bits += dpc_bits;
    f->sectors_sent += (uint64_t)__builtin_popcount(mask);
}

static void flt_install(void *state, gpuest_sim_hooks_t *hooks)
{
    (void)state;
    hooks->mc_accept = flt_accept;
    hooks->mc_reply = flt_reply;
    hooks->l1_sector_request = flt_request;
    hooks->l1_sector_window = flt_window;
}

/* ------------------------------------------------------------ lifecycle */
static void flt_destroy(void *state)
{
    flt_t *f = state;
    if (!f)
        return;
    for (int m = 0; f->table && m < f->nmc; m++)
        free(f->table[m].e);
    free(f->table);
    free(f->wm);
    free(f->slot);
    free(f->nxt);
    free(f->owed);
    free(f);
}

static gpuest_err flt_create(const gpuest_technique_env_t *env, void **state, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    char at[256];
    if (!env->image || !gpuest_memimg_has_values(env->image))
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.filtering compresses the lines' real values with DPC, and this workload "
                           "has none (a trace without a memory image); give its image or unset the key",
                           gpuest_config_key_origin(cfg, "technique", "filtering", at, sizeof at));
    flt_t *f = calloc(1, sizeof *f);
    if (!f)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the data-filtering technique");
    *state = f;
    const gpuest_technique_cfg_t *t = &cfg->technique;
    f->cfg = cfg;
    f->mode = t->filtering == GPUEST_FILTER_DF_MAN ? GPUEST_DF_MAN : GPUEST_DF_TRUC;
    f->nsm = cfg->core.num_sms;
    f->nmc = cfg->mc.num_mcs * (cfg->mc.sub_partitions > 0 ? cfg->mc.sub_partitions : 1);
    f->rc = t->filter_rc;
    f->ica_thr = t->filter_ica_threshold;
    f->fdr_thr = t->filter_fdr_threshold;
    const gpuest_compress_algo_t *dpc;
    GPUEST_TRY(gpuest_compress_lookup("dpc", &dpc, err));
    f->comp_lat = dpc->compress_latency + (f->mode == GPUEST_DF_MAN);
    f->decomp_lat = dpc->decompress_latency;
    gpuest_codec_opts_t o = {LINE, NULL, NULL};
    GPUEST_TRY(gpuest_codec_init(&f->dpc, dpc, &o, err));
    f->wm = calloc((size_t)f->nsm, sizeof *f->wm);
    f->table = calloc((size_t)f->nmc, sizeof *f->table);
    if (!f->wm || !f->table)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the data-filtering tables");
    for (int s = 0; s < f->nsm; s++) {
        for (int k = 0; k < NWIN; k++)
            f->wm[s].ica[k].size = t->filter_window;
        f->wm[s].fdr.size = t->filter_window;
    }
    for (int m = 0; m < f->nmc; m++) {
        f->table[m].n = t->filter_table_entries;
        f->table[m].e = calloc((size_t)t->filter_table_entries, sizeof *f->table[m].e);
        if (!f->table[m].e)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the data-filter tables");
    }
    return GPUEST_OK;
}

static size_t flt_stats(void *state, gpuest_technique_stat_t *out, size_t max)
{
    const flt_t *f = state;
    size_t n = 0;
    double raw_bits = 8.0 * LINE * (double)f->replies;
    n = tech_stat(out, n, max, "filtering.fm", (double)f->fm);
    n = tech_stat(out, n, max, "filtering.sm", (double)f->sm_miss);
    n = tech_stat(out, n, max, "filtering.hi", (double)f->hi);
    n = tech_stat(out, n, max, "filtering.pdr", (double)f->pdr);
    n = tech_stat(out, n, max, "filtering.fdr", (double)f->fdr);
    n = tech_stat(out, n, max, "filtering.full_by_fdr_window", (double)f->full_by_fdr);
    n = tech_stat(out, n, max, "filtering.full_by_sm", (double)f->full_by_sm);
    n = tech_stat(out, n, max, "filtering.full_by_ica_window", (double)f->full_by_ica);
    n = tech_stat(out, n, max, "filtering.table_registered", (double)f->registered);
    n = tech_stat(out, n, max, "filtering.table_merged", (double)f->merged);
    n = tech_stat(out, n, max, "filtering.table_overflows", (double)f->overflows);
    n = tech_stat(out, n, max, "filtering.replies", (double)f->replies);
    n = tech_stat(out, n, max, "filtering.pdr_replies", (double)f->pdr_replies);
    n = tech_stat(out, n, max, "filtering.merged_empty_replies", (double)f->empty_replies);
    n = tech_stat(out, n, max, "filtering.replies_without_data", (double)f->no_data);
    n = tech_stat(out, n, max, "filtering.man_chose_zero_filled", (double)f->man_chosen);
    n = tech_stat(out, n, max, "filtering.flits_uncompressed", (double)f->flits_raw);
    n = tech_stat(out, n, max, "filtering.flits_sent", (double)f->flits_out);
    n = tech_stat(out, n, max, "filtering.mean_sectors", f->replies ? (double)f->sectors_sent / (double)f->replies : 0);
    /* space savings (thesis Fig. 5.4): 1 - payload bits / the 128-byte lines' bits */
    n = tech_stat(out, n, max, "filtering.space_savings", raw_bits > 0 ? 1.0 - (double)f->payload_bits / raw_bits : 0);
    n = tech_stat(out, n, max, "filtering.dpc_space_savings", raw_bits > 0 ? 1.0 - (double)f->dpc_bits / raw_bits : 0);
    n = tech_stat(out, n, max, "filtering.window_reports", (double)f->win_reports);
    n = tech_stat(out, n, max, "filtering.window_ica", (double)f->win_ica);
    n = tech_stat(out, n, max, "filtering.evictions_seen", (double)f->evictions);
    /* the access-pattern characterization of thesis 2.2 (Figs. 2.3, 2.6) over the same reports */
    double rep = f->win_reports ? (double)f->win_reports : 1.0;
    n = tech_stat(out, n, max, "filtering.used_32B", (double)f->used_hist[0] / rep);
    n = tech_stat(out, n, max, "filtering.used_64B", (double)f->used_hist[1] / rep);
    n = tech_stat(out, n, max, "filtering.used_96B", (double)f->used_hist[2] / rep);
    n = tech_stat(out, n, max, "filtering.used_128B", (double)f->used_hist[3] / rep);
    n = tech_stat(out, n, max, "filtering.partial_ca_share", (double)f->partial_ca / rep);
    n = tech_stat(out, n, max, "filtering.compress_latency", f->comp_lat);
    n = tech_stat(out, n, max, "filtering.decompress_latency", f->decomp_lat);
    return n;
}

const gpuest_technique_t gpuest_tech_filtering = {
    .name = "filtering",
    .desc = "critical-word data filtering (DF-TRUC / DF-MAN with DPC) and the per-SM request controller",
    .keys = flt_keys,
    .modes = GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL, /* model: filtering_model.c */
    .active = flt_active,
    .validate = flt_validate,
    .create = flt_create,
    .install = flt_install,
    .stats = flt_stats,
    .destroy = flt_destroy,
    .transform = tech_flt_transform,
};
