/* tech_compression.c: reply-packet compression at the MC network interface (packet compression
 * thesis 3.4 and chapter 6; DPC from the data-filtering thesis 3.4.1.2).
 *
 * Every read reply is compressed on the real bytes of its line (the workload's memory image as
 * the kernels have written it by the current launch) before it enters the MC's NI, and
 * decompressed at the SM after ejection:
 *  - packet size: gpuest_packet_flits (core.h) of the payload; the compressed/raw flag is one
 *    header bit for every algorithm (gpuest_codec_payload_bits);
 *  - latencies: Table 6.5 (two 64-byte units in parallel for a 128-byte line, so a 128-byte
 *    line costs one unit's latency); compression delays injection (L2 cycles, serial with the
 *    reply queue unless technique.compress_overlap = 1), decompression delays the fill (core
 *    cycles) and only compressed packets pay it (a raw packet bypasses the decompressor);
 *  - cpack: the thesis' packet C-Pack keeps one dictionary per MC across packets; each SM keeps a
 *    copy per MC, and before a compressed packet is decoded the MC sends the SM a control packet
 *    with the entries its copy lacks (4-bit FIFO pointer + 5-bit count + 4-bit index and 32-bit
 *    word per entry);
 *  - sc2: each MC samples its first sc2_sample_lines replies of every period of sc2_period_lines
 *    into a value frequency table, then builds a code book and ships it to every SM (32-bit value
 *    + 5-bit code length per entry, plus 16 bits of count and escape length); the book is used
 *    from the next reply on and frozen until the next period's sample is complete; before the
 *    first book the replies travel raw;
 *  - dsm_approx: the approximable fp32 allocations of the workload (at most 8, the largest ones,
 *    as the thesis' 8-entry approximation memory map) with technique.approx_bits when set, else
 *    the approximation predictor's bits for the application under technique.approx_max_error,
 *    else the bits the workload declares; the application error of those bits is measured
 *    where the application is one of the predictor's nine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "approx/approx.h"
#include "compress/compress.h"
#include "learn/learn.h"
#include "technique_int.h"

#define LINE GPUEST_LINE_BYTES
#define RAW_BITS (8u * LINE)

typedef enum { KIND_CODEC = 0, KIND_CPACK, KIND_SC2 } comp_kind_t;

typedef struct {
    const gpuest_config_t *cfg;
    const gpuest_compress_algo_t *algo;
    comp_kind_t kind;
    int nsm, nmc;
    int comp_lat, decomp_lat, overlap;
    gpuest_codec_t codec;         /* KIND_CODEC */
    gpuest_compress_amap_t amap;  /* dsm_approx */
    /* packet C-Pack */
    gpuest_cpack_dict_t *mc_dict; /* nmc */
    gpuest_cpack_dict_t *sm_dict; /* nmc * nsm: SM s's copy of MC m's dictionary */
    /* SC2 */
    gpuest_sc2_vft_t **vft;       /* nmc */
    gpuest_sc2_book_t **book;     /* nmc */
    gpuest_codec_t *sc2_codec;    /* nmc, bound to book[m] */
    int *have_book;
    uint64_t *mc_replies;
    /* approximation */
    int approx_bits;
    const char *bits_source;
    double app_error; /* -1: not measured */
    /* statistics */
    uint64_t replies, compressed, flits_raw, flits_out, payload_bits, no_data, flits_passed;
    uint64_t sync_packets, sync_flits, sync_entries, books, book_packets, book_flits;
} comp_t;

static const char *const comp_keys[] = {"compression",      "approx_bits",      "approx_max_error",
                                        "compress_latency", "decompress_latency", "compress_overlap",
                                        "sc2_sample_lines", "sc2_period_lines", NULL};

static int comp_active(const gpuest_config_t *cfg)
{
    return strcmp(cfg->technique.compression, "none") != 0;
}

static gpuest_err comp_validate(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    const gpuest_compress_algo_t *a;
    char at[256];
    if (gpuest_compress_lookup(cfg->technique.compression, &a, NULL) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: technique.compression = '%s' (expected one of: %s)",
                           gpuest_config_key_origin(cfg, "technique", "compression", at, sizeof at),
                           cfg->technique.compression, gpuest_compress_names());
    if (cfg->technique.sc2_sample_lines > cfg->technique.sc2_period_lines)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: technique.sc2_sample_lines = %d exceeds sc2_period_lines = %d",
                           gpuest_config_key_origin(cfg, "technique", "sc2_sample_lines", at, sizeof at),
                           cfg->technique.sc2_sample_lines, cfg->technique.sc2_period_lines);
    return GPUEST_OK;
}

/* ------------------------------------------------------------ the application behind a workload
 * Generators whose algorithm is one of the approximation predictor's nine applications, and
 * where their inputs sit in the memory image. */
typedef struct {
    const char *generator;
    gpuest_approx_app_t app;
    const char *alloc;   /* the input allocation giving the size */
    long per_item;       /* fp32 elements per item: 0 = square matrix (size = side) */
    long constraint;     /* the generator's fixed constraint (Kmeans: clusters), 0 none */
} app_map_t;

static const app_map_t app_maps[] = {
    {"lud", GPUEST_APPROX_LUD, "m", 0, 0},
    {"gaussian", GPUEST_APPROX_GAUSSIAN, "a_cuda", 0, 0},
    {"atax", GPUEST_APPROX_ATAX, "A", 0, 0},
    {"bicg", GPUEST_APPROX_BICG, "A", 0, 0},
    {"2dconv", GPUEST_APPROX_2DCONV, "A", 0, 0},
    {"srad", GPUEST_APPROX_SRAD2, "J_cuda", 0, 0},
    {"kmeans", GPUEST_APPROX_KMEANS, "feature_d", 34, 5}, /* gen_kmeans: 34 features, 5 clusters */
};

static const app_map_t *find_app(const char *generator)
{
    for (size_t i = 0; generator && i < sizeof app_maps / sizeof app_maps[0]; i++)
        if (strcmp(app_maps[i].generator, generator) == 0)
            return &app_maps[i];
    return NULL;
}

/* log10 of the 2-norm condition number of the n x n fp32 matrix at data (GSL SVD). */
static double log10_cond(const unsigned char *data, long n)
{
    gsl_matrix *a = gsl_matrix_alloc((size_t)n, (size_t)n), *v = gsl_matrix_alloc((size_t)n, (size_t)n);
    gsl_vector *s = gsl_vector_alloc((size_t)n), *work = gsl_vector_alloc((size_t)n);
    double r = 0.0;
    if (a && v && s && work) {
        for (long i = 0; i < n * n; i++) {
            float f;
            memcpy(&f, data + 4 * i, 4);
            a->data[i] = f; /* row-major, tda == n */
        }
        gsl_set_error_handler_off();
        if (gsl_linalg_SV_decomp(a, v, s, work) == 0) {
            double lo = gsl_vector_get(s, (size_t)n - 1), hi = gsl_vector_get(s, 0);
            r = lo > 0 ? log10(hi / lo) : GPUEST_APPROX_COND_MAX;
        }
    }
    gsl_matrix_free(a);
    gsl_matrix_free(v);
    gsl_vector_free(s);
    gsl_vector_free(work);
    return r < GPUEST_APPROX_COND_MIN ? GPUEST_APPROX_COND_MIN : r > GPUEST_APPROX_COND_MAX ? GPUEST_APPROX_COND_MAX : r;
}

/* The application's factors as the predictor takes them, from the workload's inputs. */
static int app_factors(const app_map_t *m, gpuest_memimg_t *img, gpuest_approx_params_t *p)
{
    const gpuest_alloc_t *a = gpuest_memimg_find_name(img, m->alloc);
    if (!a)
        return 0;
    long elems = (long)(a->size / 4);
    const gpuest_approx_info_t *in = gpuest_approx_info(m->app);
    p->size = m->per_item ? elems / m->per_item : (long)llround(sqrt((double)elems));
    p->log10_cond = in->uses_cond ? log10_cond(a->data, p->size) : 0.0;
    p->constraint = in->uses_constraint ? m->constraint : 0;
    return 1;
}

/* Bits of the approximation: fixed key, else the predictor, else the workload's own. */
static gpuest_err choose_bits(comp_t *c, const gpuest_technique_env_t *env, int declared, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    c->app_error = -1.0;
    const app_map_t *m = find_app(env->workload);
    gpuest_approx_params_t p = {0, 0.0, 0};
    int have_factors = m && app_factors(m, env->image, &p);
    if (cfg->technique.approx_bits > 0) {
        c->approx_bits = cfg->technique.approx_bits;
        c->bits_source = "technique.approx_bits";
    } else if (have_factors) {
        const gpuest_approx_info_t *in = gpuest_approx_info(m->app);
        char net_path[4096], scale_path[4096];
        const char *dir = env->model_dir ? env->model_dir : "models";
        snprintf(net_path, sizeof net_path, "%s/approx-%s.net", dir, in->name);
        snprintf(scale_path, sizeof scale_path, "%s/approx-%s.scale.csv", dir, in->name);
        gpuest_learn_net_t *net = NULL;
        GPUEST_TRY(gpuest_learn_approx_load(net_path, scale_path, &net, err));
        unsigned warn = 0;
        c->approx_bits = gpuest_learn_approx_predict(net, (double)p.size, p.log10_cond, (double)p.constraint,
                                                     cfg->technique.approx_max_error, &warn);
        gpuest_learn_net_destroy(net);
        c->bits_source = "predictor";
    } else {
        c->approx_bits = declared;
        c->bits_source = "workload";
    }
    if (have_factors && c->approx_bits > 0) { /* the error these bits cause to the application */
        gpuest_approx_dataset_t *ds = NULL;
        double e[2] = {0, 0};
        gpuest_err rc = gpuest_approx_dataset_create(m->app, &p, env->seed, &ds, err);
        if (rc == GPUEST_OK)
            rc = gpuest_approx_measure(ds, c->approx_bits, e, err);
        gpuest_approx_dataset_destroy(ds);
        GPUEST_TRY(rc);
        c->app_error = e[0];
    } else if (have_factors) {
        c->app_error = 0.0;
    }
    return GPUEST_OK;
}

static int by_size_desc(const void *a, const void *b)
{
    const gpuest_alloc_t *x = *(const gpuest_alloc_t *const *)a, *y = *(const gpuest_alloc_t *const *)b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : (x->base > y->base) - (x->base < y->base);
}

/* The approximation map: approximable fp32 allocations, the 8 largest. */
static gpuest_err build_amap(comp_t *c, const gpuest_technique_env_t *env, gpuest_error_t *err)
{
    gpuest_alloc_t *list[256];
    size_t n = 0, count = gpuest_memimg_count(env->image);
    int declared = 0;
    for (size_t i = 0; i < count && n < 256; i++) {
        gpuest_alloc_t *a = gpuest_memimg_get(env->image, i);
        if (a->approximable && a->type == GPUEST_DT_FP32 && a->size >= 4) {
            list[n++] = a;
            if (a->approx_bits > declared)
                declared = a->approx_bits;
        }
    }
    qsort(list, n, sizeof list[0], by_size_desc);
    GPUEST_TRY(choose_bits(c, env, declared, err));
    gpuest_compress_amap_init(&c->amap);
    int bits = c->approx_bits > 23 ? 23 : c->approx_bits;
    for (size_t i = 0; bits > 0 && i < n && i < GPUEST_COMPRESS_AMAP_MAX; i++)
        GPUEST_TRY(gpuest_compress_amap_add(&c->amap, list[i]->base, list[i]->base + list[i]->size, bits, err));
    return GPUEST_OK;
}

/* ------------------------------------------------------------ per-reply work */
static uint32_t cpack_payload(comp_t *c, const gpuest_sim_req_info_t *req, const uint8_t *data,
                              gpuest_sim_reply_t *r)
{
    gpuest_cpack_dict_t *md = &c->mc_dict[req->mc];
    gpuest_cpack_dict_t *sd = &c->sm_dict[(size_t)req->mc * (size_t)c->nsm + (size_t)req->sm];
    gpuest_cpack_dict_t before = *md;
    uint8_t scratch[GPUEST_COMPRESS_MAX_STREAM_BYTES];
    gpuest_bitwriter_t w;
    gpuest_bitwriter_init(&w, scratch, sizeof scratch);
    gpuest_cpack_dict_encode(md, data, LINE, &w);
    uint32_t bits = gpuest_bitwriter_bits(&w);
    if (bits >= RAW_BITS) { /* sent raw: neither side's dictionary changes */
        *md = before;
        return RAW_BITS;
    }
    unsigned stale = gpuest_cpack_dict_diff(sd, &before);
    if (stale) { /* the SM's copy must equal the MC's dictionary before it decodes */
        uint64_t sync_bits = 4u + 5u + 36u * stale;
        r->ctrl_flits = gpuest_packet_flits(sync_bits, c->cfg->noc.flit_bytes, c->cfg->noc.header_bytes);
        c->sync_packets++;
        c->sync_flits += (uint64_t)r->ctrl_flits;
        c->sync_entries += stale;
    }
    *sd = *md; /* decoding replays the MC's insertions */
    return bits;
}

/* SC2 at a reply: the period moves, the sample grows, a complete sample becomes the book shipped
 * ahead of this reply; then, when sized, the reply's payload under the current book (a warm reply,
 * comp_on_reply_warm, needs only the state). */
static uint32_t sc2_payload(comp_t *c, const gpuest_sim_req_info_t *req, const uint8_t *data, gpuest_sim_reply_t *r,
                            int sized)
{
    int m = req->mc;
    uint64_t pos = c->mc_replies[m]++ % (uint64_t)c->cfg->technique.sc2_period_lines;
    uint64_t sample = (uint64_t)c->cfg->technique.sc2_sample_lines;
    if (pos == sample) { /* the period's sample is complete: new book, shipped ahead of this reply */
        size_t entries = gpuest_sc2_vft_size(c->vft[m]);
        if (gpuest_sc2_book_build_from_vft(c->book[m], c->vft[m], NULL) == GPUEST_OK && entries > 0) {
            c->have_book[m] = 1;
            c->books++;
            r->bcast_flits = gpuest_packet_flits(16u + 37u * (uint64_t)entries, c->cfg->noc.flit_bytes,
                                                 c->cfg->noc.header_bytes);
            c->book_packets += (uint64_t)c->nsm;
            c->book_flits += (uint64_t)c->nsm * (uint64_t)r->bcast_flits;
        }
        gpuest_sc2_vft_reset(c->vft[m]);
    }
    if (pos < sample)
        gpuest_sc2_vft_sample(c->vft[m], data, LINE);
    if (!c->have_book[m] || !sized)
        return RAW_BITS;
    uint32_t nbits = gpuest_codec_size_bits(&c->sc2_codec[m], req->line, data);
    return gpuest_codec_payload_bits(&c->sc2_codec[m], nbits);
}

static void comp_on_reply(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data, gpuest_sim_reply_t *r)
{
    comp_t *c = ctx;
    if (!data || req->mc < 0 || req->mc >= c->nmc || req->sm < 0 || req->sm >= c->nsm) {
        /* a line the program's memory does not hold (an instruction fetch): sent as it is */
        c->no_data++;
        c->flits_passed += (uint64_t)r->flits;
        return;
    }
    uint32_t payload;
    switch (c->kind) {
    case KIND_CPACK:
        payload = cpack_payload(c, req, data, r);
        break;
    case KIND_SC2:
        payload = sc2_payload(c, req, data, r, 1);
        break;
    default:
        payload = gpuest_codec_payload_bits(&c->codec, gpuest_codec_size_bits(&c->codec, req->line, data));
        break;
    }
    int raw_flits = r->flits;
    int flits = gpuest_packet_flits(payload, c->cfg->noc.flit_bytes, c->cfg->noc.header_bytes);
    r->flits = flits < raw_flits ? flits : raw_flits;
    r->inject_delay = c->comp_lat;
    r->overlap_queue = c->overlap;
    int compressed = payload < RAW_BITS;
    r->fill_delay = compressed ? c->decomp_lat : 0;
    c->replies++;
    c->compressed += (uint64_t)compressed;
    c->flits_raw += (uint64_t)raw_flits;
    c->flits_out += (uint64_t)r->flits;
    c->payload_bits += payload;
}

/* A sampled run's fast-forward (sim.h mc_reply_warm): a reply the L2 would send advances what
 * lives across replies, C-Pack's dictionaries (the MC's and the SM's copy) and SC2's period, sample
 * and code book, as comp_on_reply would; its counters are left as they were (no reply is sent). */
static void comp_on_reply_warm(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data)
{
    comp_t *c = ctx;
    if (!data || req->mc < 0 || req->mc >= c->nmc || req->sm < 0 || req->sm >= c->nsm)
        return;
    const uint64_t kept[6] = {c->sync_packets, c->sync_flits, c->sync_entries, c->books, c->book_packets, c->book_flits};
    gpuest_sim_reply_t r = {.flits = 1};
    if (c->kind == KIND_CPACK)
        (void)cpack_payload(c, req, data, &r);
    else
        (void)sc2_payload(c, req, data, &r, 0);
    c->sync_packets = kept[0];
    c->sync_flits = kept[1];
    c->sync_entries = kept[2];
    c->books = kept[3];
    c->book_packets = kept[4];
    c->book_flits = kept[5];
}

static void comp_install(void *state, gpuest_sim_hooks_t *hooks)
{
    const comp_t *c = state;
    hooks->mc_reply = comp_on_reply;
    if (c->kind == KIND_CPACK || c->kind == KIND_SC2) /* the stateless codecs have nothing to warm */
        hooks->mc_reply_warm = comp_on_reply_warm;
}

/* ------------------------------------------------------------ lifecycle */
static void comp_destroy(void *state)
{
    comp_t *c = state;
    if (!c)
        return;
    for (int m = 0; m < c->nmc; m++) {
        if (c->vft)
            gpuest_sc2_vft_destroy(c->vft[m]);
        if (c->book)
            gpuest_sc2_book_destroy(c->book[m]);
    }
    free(c->vft);
    free(c->book);
    free(c->sc2_codec);
    free(c->have_book);
    free(c->mc_replies);
    free(c->mc_dict);
    free(c->sm_dict);
    free(c);
}

static gpuest_err sc2_init(comp_t *c, gpuest_error_t *err)
{
    c->vft = calloc((size_t)c->nmc, sizeof *c->vft);
    c->book = calloc((size_t)c->nmc, sizeof *c->book);
    c->sc2_codec = calloc((size_t)c->nmc, sizeof *c->sc2_codec);
    c->have_book = calloc((size_t)c->nmc, sizeof *c->have_book);
    c->mc_replies = calloc((size_t)c->nmc, sizeof *c->mc_replies);
    if (!c->vft || !c->book || !c->sc2_codec || !c->have_book || !c->mc_replies)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the SC2 tables");
    for (int m = 0; m < c->nmc; m++) {
        GPUEST_TRY(gpuest_sc2_vft_create(&c->vft[m], err));
        GPUEST_TRY(gpuest_sc2_book_create(&c->book[m], err));
        gpuest_codec_opts_t o = {LINE, c->book[m], NULL};
        GPUEST_TRY(gpuest_codec_init(&c->sc2_codec[m], c->algo, &o, err));
    }
    return GPUEST_OK;
}

static gpuest_err comp_create(const gpuest_technique_env_t *env, void **state, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    char at[256];
    if (!env->image || !gpuest_memimg_has_values(env->image))
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: technique.compression = %s compresses the lines' real values, and this workload has "
                           "none (a trace without a memory image); give its image or unset the key",
                           gpuest_config_key_origin(cfg, "technique", "compression", at, sizeof at),
                           cfg->technique.compression);
    comp_t *c = calloc(1, sizeof *c);
    if (!c)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the compression technique");
    *state = c;
    c->cfg = cfg;
    c->nsm = cfg->core.num_sms;
    /* one reply port (and compressor) per memory sub-partition */
    c->nmc = cfg->mc.num_mcs * (cfg->mc.sub_partitions > 0 ? cfg->mc.sub_partitions : 1);
    c->app_error = -1.0;
    GPUEST_TRY(gpuest_compress_lookup(cfg->technique.compression, &c->algo, err));
    c->comp_lat = gpuest_compress_latency(c->algo, cfg->technique.compress_latency);
    c->decomp_lat = gpuest_decompress_latency(c->algo, cfg->technique.decompress_latency);
    c->overlap = cfg->technique.compress_overlap;
    if (strcmp(c->algo->name, "cpack") == 0) {
        c->kind = KIND_CPACK;
        c->mc_dict = calloc((size_t)c->nmc, sizeof *c->mc_dict);
        c->sm_dict = calloc((size_t)c->nmc * (size_t)c->nsm, sizeof *c->sm_dict);
        if (!c->mc_dict || !c->sm_dict)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the C-Pack dictionaries");
        return GPUEST_OK;
    }
    if (c->algo->flags & GPUEST_COMPRESS_NEEDS_BOOK) {
        c->kind = KIND_SC2;
        return sc2_init(c, err);
    }
    c->kind = KIND_CODEC;
    if (c->algo->flags & GPUEST_COMPRESS_LOSSY)
        GPUEST_TRY(build_amap(c, env, err));
    gpuest_codec_opts_t o = {LINE, NULL, &c->amap};
    return gpuest_codec_init(&c->codec, c->algo, &o, err);
}

/* ------------------------------------------------------------ model transform
 * The estimator's view (docs/estimator.md, "Techniques in the estimate"): the reply-size
 * histogram is measured without the simulator, by running the same per-reply path
 * (comp_on_reply: same codecs, same payload bits, same packet rule, same Table 6.5 latencies)
 * over the lines the replies would carry. Choices:
 *  - with env->launches: the kernels' load and atomic line requests (coalesced as the SMs do),
 *    launch by launch, each line's values as of its launch's start (the walk applies every
 *    launch's writes before the next, as the simulator sees them); a line weighs as many
 *    requests as touch it (L1 hits are not removed: the estimate has no L1 here), and is
 *    compressed once per launch, in first-touch order;
 *  - without (a bare image): every line of every allocation holding a non-zero byte counts once
 *    (an all-zero allocation is an output the kernels have not written yet: its final values
 *    are unknown, so it is left out rather than counted as perfectly compressible);
 *  - lines are dealt round robin to the sub-partitions' compressors and to the SMs (for C-Pack's
 *    per-MC dictionaries and the SMs' copies; SC2's per-MC samples);
 *  - C-Pack sync packets: the sync flits a reply needs are added to that reply's flits (it
 *    travels just ahead of it on the same path); their extra injection slot is not modelled;
 *  - SC2 book packets (one broadcast per period and MC) are not modelled;
 *  - decompression: only compressed replies pay it, so the transform's latency is the mean
 *    over replies (compressed share x Table 6.5 latency); every reply pays compression. */
typedef struct {
    double weight; /* requests measured */
    double compressed;
    uint64_t lines; /* lines compressed (round-robin position) */
    double count[GPUEST_MODEL_MAX_FLITS + 1];
} comp_hist_t;

static int all_zero(const unsigned char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static void measure_line(comp_t *c, const gpuest_memimg_t *img, uint64_t line, double weight, int raw_flits,
                         comp_hist_t *h)
{
    uint8_t buf[LINE];
    gpuest_memimg_read_line(img, line, buf);
    uint64_t i = h->lines++;
    gpuest_sim_req_info_t req = {line, 0xf, GPUEST_MEM_LOAD, (int)((i / (uint64_t)c->nmc) % (uint64_t)c->nsm),
                                 (int)(i % (uint64_t)c->nmc), -1, 0};
    gpuest_sim_reply_t r;
    memset(&r, 0, sizeof r);
    r.flits = raw_flits;
    uint64_t before = c->compressed;
    comp_on_reply(c, &req, buf, &r);
    int f = r.flits + r.ctrl_flits;
    h->count[f > GPUEST_MODEL_MAX_FLITS ? GPUEST_MODEL_MAX_FLITS : f < 1 ? 1 : f] += weight;
    h->compressed += (double)(c->compressed - before) * weight;
    h->weight += weight;
}

static void measure_image(comp_t *c, gpuest_memimg_t *img, int raw_flits, comp_hist_t *h)
{
    uint64_t last = UINT64_MAX; /* a line shared by two allocations counts once */
    for (size_t a = 0; a < gpuest_memimg_count(img); a++) {
        const gpuest_alloc_t *al = gpuest_memimg_get(img, a);
        if (al->size == 0 || all_zero(al->data, al->size))
            continue;
        for (uint64_t line = al->base & ~(uint64_t)(LINE - 1); line < al->base + al->size; line += LINE) {
            if (line == last)
                continue;
            measure_line(c, img, line, 1.0, raw_flits, h);
            last = line;
        }
    }
}

/* Lines one launch reads, in first-touch order, with their request counts (open addressing). */
typedef struct {
    uint64_t *line;
    double *count;
    size_t n, cap;
    uint32_t *slot; /* index + 1, 0 = empty; 2 x cap entries */
} line_set_t;

static size_t slot_of(const line_set_t *s, uint64_t line)
{
    size_t mask = 2 * s->cap - 1, i = (size_t)((line >> 7) * UINT64_C(0x9E3779B97F4A7C15) >> 20) & mask;
    while (s->slot[i] && s->line[s->slot[i] - 1] != line)
        i = (i + 1) & mask;
    return i;
}

static gpuest_err line_set_grow(line_set_t *s, gpuest_error_t *err)
{
    size_t cap = s->cap ? 2 * s->cap : 4096;
    uint64_t *l = realloc(s->line, cap * sizeof *l);
    if (l)
        s->line = l;
    double *c = realloc(s->count, cap * sizeof *c);
    if (c)
        s->count = c;
    uint32_t *slot = calloc(2 * cap, sizeof *slot);
    if (!l || !c || !slot || cap > UINT32_MAX / 2) {
        free(slot);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the lines a launch reads");
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    for (size_t k = 0; k < s->n; k++)
        s->slot[slot_of(s, s->line[k])] = (uint32_t)(k + 1);
    return GPUEST_OK;
}

static gpuest_err line_set_add(line_set_t *s, uint64_t line, gpuest_error_t *err)
{
    if (s->n + 1 > s->cap)
        GPUEST_TRY(line_set_grow(s, err));
    size_t i = slot_of(s, line);
    if (!s->slot[i]) {
        s->line[s->n] = line;
        s->count[s->n] = 0.0;
        s->slot[i] = (uint32_t)(++s->n);
    }
    s->count[s->slot[i] - 1] += 1.0;
    return GPUEST_OK;
}

static void line_set_clear(line_set_t *s)
{
    s->n = 0;
    if (s->slot)
        memset(s->slot, 0, 2 * s->cap * sizeof *s->slot);
}

static void line_set_free(line_set_t *s)
{
    free(s->line);
    free(s->count);
    free(s->slot);
}

/* Every load and atomic line request of the current launch into s. */
static gpuest_err launch_reads(gpuest_workload_t *wl, const gpuest_launch_t *l, line_set_t *s, gpuest_error_t *err)
{
    gpuest_inst_t inst;
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    for (uint32_t cta = 0; cta < l->num_ctas; cta++)
        for (uint32_t w = 0; w < l->warps_per_cta; w++) {
            gpuest_warp_t *warp = NULL;
            GPUEST_TRY(gpuest_warp_open(wl, cta, w, &warp, err));
            gpuest_err rc = GPUEST_OK;
            while ((rc = gpuest_warp_next(warp, &inst, err)) == GPUEST_OK && inst.kind != GPUEST_INST_END) {
                if (inst.kind != GPUEST_INST_MEM || inst.op == GPUEST_MEM_STORE)
                    continue;
                size_t n = gpuest_coalesce(&inst, req);
                for (size_t k = 0; k < n && rc == GPUEST_OK; k++)
                    rc = line_set_add(s, req[k].line, err);
                if (rc != GPUEST_OK)
                    break;
            }
            gpuest_warp_close(warp);
            GPUEST_TRY(rc);
        }
    return GPUEST_OK;
}

static gpuest_err measure_launches(comp_t *c, gpuest_workload_t *wl, int raw_flits, comp_hist_t *h,
                                   gpuest_error_t *err)
{
    line_set_t s = {0};
    gpuest_err rc = GPUEST_OK;
    gpuest_memimg_t *img = gpuest_workload_image(wl);
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        rc = gpuest_workload_next_launch(wl, &l, &done, err);
        if (rc != GPUEST_OK || done)
            break;
        line_set_clear(&s);
        rc = launch_reads(wl, &l, &s, err);
        if (rc != GPUEST_OK)
            break;
        for (size_t k = 0; k < s.n; k++) /* values as of the launch's start */
            measure_line(c, img, s.line[k], s.count[k], raw_flits, h);
        rc = gpuest_workload_end_launch(wl, err);
        if (rc != GPUEST_OK)
            break;
    }
    line_set_free(&s);
    return rc;
}

static gpuest_err comp_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out,
                                 gpuest_error_t *err)
{
    void *state = NULL;
    gpuest_model_transform_identity(out);
    gpuest_err rc = comp_create(env, &state, err);
    comp_t *c = state;
    comp_hist_t h;
    memset(&h, 0, sizeof h);
    int raw_flits = gpuest_packet_flits(RAW_BITS, env->cfg->noc.flit_bytes, env->cfg->noc.header_bytes);
    if (rc == GPUEST_OK && env->launches)
        rc = measure_launches(c, env->launches, raw_flits, &h, err);
    else if (rc == GPUEST_OK)
        measure_image(c, env->image, raw_flits, &h);
    if (rc == GPUEST_OK && !(h.weight > 0))
        rc = gpuest_fail(err, GPUEST_EUNSUPPORTED,
                         "technique.compression = %s: the workload reads no line with values to measure the reply "
                         "sizes on", env->cfg->technique.compression);
    if (rc == GPUEST_OK) {
        for (int f = 1; f <= GPUEST_MODEL_MAX_FLITS; f++)
            out->reply_flit_hist[f] = h.count[f] / h.weight;
        out->compress_latency = c->comp_lat;
        out->decompress_latency = c->decomp_lat * h.compressed / h.weight;
    }
    comp_destroy(c);
    return rc;
}

static size_t comp_stats(void *state, gpuest_technique_stat_t *out, size_t max)
{
    const comp_t *c = state;
    size_t n = 0;
    double saved = c->flits_raw ? (double)((int64_t)c->flits_raw - (int64_t)c->flits_out) / (double)c->flits_raw : 0;
    double ctrl = (double)(c->sync_flits + c->book_flits);
    double net = c->flits_raw ? ((double)c->flits_raw - (double)c->flits_out - ctrl) / (double)c->flits_raw : 0;
    n = tech_stat(out, n, max, "compression.replies", (double)c->replies);
    n = tech_stat(out, n, max, "compression.lines_compressed", (double)c->compressed);
    n = tech_stat(out, n, max, "compression.replies_without_data", (double)c->no_data);
    n = tech_stat(out, n, max, "compression.flits_without_data", (double)c->flits_passed);
    n = tech_stat(out, n, max, "compression.flits_uncompressed", (double)c->flits_raw);
    n = tech_stat(out, n, max, "compression.flits_sent", (double)c->flits_out);
    n = tech_stat(out, n, max, "compression.rate", saved);
    n = tech_stat(out, n, max, "compression.net_rate", net);
    n = tech_stat(out, n, max, "compression.mean_payload_bits",
                  c->replies ? (double)c->payload_bits / (double)c->replies : 0);
    n = tech_stat(out, n, max, "compression.compress_latency", c->comp_lat);
    n = tech_stat(out, n, max, "compression.decompress_latency", c->decomp_lat);
    if (c->kind == KIND_CPACK) {
        n = tech_stat(out, n, max, "compression.sync_packets", (double)c->sync_packets);
        n = tech_stat(out, n, max, "compression.sync_flits", (double)c->sync_flits);
        n = tech_stat(out, n, max, "compression.sync_entries", (double)c->sync_entries);
    }
    if (c->kind == KIND_SC2) {
        n = tech_stat(out, n, max, "compression.books_built", (double)c->books);
        n = tech_stat(out, n, max, "compression.book_packets", (double)c->book_packets);
        n = tech_stat(out, n, max, "compression.book_flits", (double)c->book_flits);
    }
    if (c->algo->flags & GPUEST_COMPRESS_LOSSY) {
        n = tech_stat(out, n, max, "compression.approx_bits", c->approx_bits);
        n = tech_stat(out, n, max, "compression.approx_ranges", (double)c->amap.count);
        n = tech_stat(out, n, max, "compression.approx_from_predictor",
                      c->bits_source && strcmp(c->bits_source, "predictor") == 0);
        n = tech_stat(out, n, max, "compression.app_error", c->app_error);
    }
    return n;
}

const gpuest_technique_t gpuest_tech_compression = {
    .name = "compression",
    .desc = "reply-packet compression at the MC network interface (BDI, FPC, C-Pack, BPC, SC2, DPC, DSM, "
            "DSM+APPROX)",
    .keys = comp_keys,
    .modes = GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL,
    .active = comp_active,
    .validate = comp_validate,
    .create = comp_create,
    .install = comp_install,
    .stats = comp_stats,
    .destroy = comp_destroy,
    .transform = comp_transform,
};
