/* cmd_characterize.c: 'gpuest characterize': per-kernel request statistics of a generated workload or a trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_source.h"
#include "commands.h"
#include "compress/compress.h"
#include "workload/workload.h"

#define CH_MAX_ALGOS 16

static void characterize_help(FILE *out)
{
    fprintf(out,
            "usage: gpuest characterize (--workload NAME [--scale S] [--seed N] | --all [--scale S] |\n"
            "                            --trace DIR | --csv-trace FILE [--image FILE]) [options]\n\n"
            "Prints per kernel (launches of one kernel name summed): warps, warp instructions, memory\n"
            "instructions, 128-byte line requests; the share of 32/64/96/128-byte requests and of\n"
            "partial (PDR) vs full (FDR) reads; the average share of a line used between fill and eviction\n"
            "in an L1 (line_use); L1 line generations that are consistent (CA) or not (ICA), and the\n"
            "partial-CA share; the share of reads to a line another SM read within the window\n"
            "(inter-core sharing); and the compression ratio (raw / compressed bits) of the distinct\n"
            "lines touched, for every algorithm of the compression library.\n\n"
            "options:\n"
            "  --workload NAME   a generator (see 'gpuest workload list'); --all runs every generator\n"
            "  --trace DIR       an Accel-Sim trace folder (kernelslist.g + kernel-N.traceg)\n"
            "  --csv-trace FILE  a native CSV trace; --image FILE gives its memory image\n"
            "  --scale S         tiny, small (default) or default\n"
            "  --seed N          input seed (default 1)\n"
            "  --sms N           SMs the CTAs are spread over (default 15)\n"
            "  --window N        inter-core sharing window in line requests (default 1024)\n"
            "  --no-compress     skip the compression columns\n"
            "  --csv FILE        write the table as CSV\n");
}

/* Per-kernel-name totals. */
typedef struct {
    char workload[GPUEST_WL_NAME_MAX];
    char kernel[GPUEST_WL_NAME_MAX];
    uint64_t launches;
    gpuest_charact_t s;                   /* summed */
    double raw_bits, comp_bits[CH_MAX_ALGOS];
} agg_t;

typedef struct {
    agg_t *rows;
    size_t n, cap;
    size_t first_of_workload;             /* rows of the current workload start here */
    int compress;
    uint64_t *lines;                      /* distinct lines of the current launch */
    size_t nlines, caplines;
    gpuest_compress_amap_t amap;
    gpuest_sc2_vft_t *vft;
    gpuest_sc2_book_t *book;
} ch_t;

static size_t num_algos(void)
{
    size_t n = 0;
    while (gpuest_compress_algos[n] && n < CH_MAX_ALGOS)
        n++;
    return n;
}

static agg_t *agg_for(ch_t *c, const gpuest_charact_t *s, gpuest_error_t *err)
{
    for (size_t i = c->first_of_workload; i < c->n; i++)
        if (strcmp(c->rows[i].kernel, s->kernel) == 0)
            return &c->rows[i];
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        agg_t *r = realloc(c->rows, cap * sizeof *r);
        if (!r) {
            gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            return NULL;
        }
        c->rows = r;
        c->cap = cap;
    }
    agg_t *a = &c->rows[c->n++];
    memset(a, 0, sizeof *a);
    strcpy(a->workload, s->workload);
    strcpy(a->kernel, s->kernel);
    return a;
}

typedef struct {
    ch_t *c;
    gpuest_workload_t *wl;
} cb_ctx_t;

static gpuest_err on_line(void *ctx, const gpuest_memimg_t *img, uint64_t line, gpuest_error_t *err)
{
    (void)img;
    ch_t *c = ((cb_ctx_t *)ctx)->c;
    if (c->nlines == c->caplines) {
        size_t cap = c->caplines ? c->caplines * 2 : 4096;
        uint64_t *p = realloc(c->lines, cap * sizeof *p);
        if (!p)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        c->lines = p;
        c->caplines = cap;
    }
    c->lines[c->nlines++] = line;
    return GPUEST_OK;
}

/* Compressed size of every distinct line of the launch under every algorithm.
 * The SC2 code book is built from this launch's own lines. */
static gpuest_err compress_lines(ch_t *c, agg_t *a, const gpuest_memimg_t *img, gpuest_error_t *err)
{
    unsigned char buf[GPUEST_LINE_BYTES];
    gpuest_sc2_vft_reset(c->vft);
    for (size_t i = 0; i < c->nlines; i++) {
        gpuest_memimg_read_line(img, c->lines[i], buf);
        gpuest_sc2_vft_sample(c->vft, buf, sizeof buf);
    }
    GPUEST_TRY(gpuest_sc2_book_build_from_vft(c->book, c->vft, err));
    size_t na = num_algos();
    gpuest_codec_t codec[CH_MAX_ALGOS];
    gpuest_codec_opts_t o = {GPUEST_LINE_BYTES, c->book, &c->amap};
    for (size_t k = 0; k < na; k++)
        GPUEST_TRY(gpuest_codec_init(&codec[k], gpuest_compress_algos[k], &o, err));
    for (size_t i = 0; i < c->nlines; i++) {
        gpuest_memimg_read_line(img, c->lines[i], buf);
        a->raw_bits += 8.0 * GPUEST_LINE_BYTES;
        for (size_t k = 0; k < na; k++)
            a->comp_bits[k] += gpuest_codec_size_bits(&codec[k], c->lines[i], buf);
    }
    return GPUEST_OK;
}

static gpuest_err on_stats(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    cb_ctx_t *cc = ctx;
    ch_t *c = cc->c;
    agg_t *a = agg_for(c, s, err);
    if (!a)
        return GPUEST_ENOMEM;
    a->launches++;
    gpuest_charact_t *t = &a->s;
    t->warps += s->warps;
    t->warp_instructions += s->warp_instructions;
    t->mem_instructions += s->mem_instructions;
    t->line_requests += s->line_requests;
    t->read_requests += s->read_requests;
    t->pdr += s->pdr;
    t->fdr += s->fdr;
    t->shared_requests += s->shared_requests;
    t->distinct_lines += s->distinct_lines;
    for (int i = 0; i < 4; i++) {
        t->req_by_sectors[i] += s->req_by_sectors[i];
        t->gen_ca[i] += s->gen_ca[i];
        t->gen_ica[i] += s->gen_ica[i];
    }
    gpuest_err rc = GPUEST_OK;
    if (c->compress)
        rc = compress_lines(c, a, gpuest_workload_image(cc->wl), err);
    c->nlines = 0;
    return rc;
}

static double share(uint64_t part, uint64_t whole) { return whole ? (double)part / (double)whole : 0.0; }

static void add_row(cli_table_t *t, const agg_t *a, int compress)
{
    const gpuest_charact_t *s = &a->s;
    char cell[32][40];
    const char *cells[32];
    size_t n = 0;
    uint64_t gens = 0, ca = 0, pca = 0, used = 0;
    for (int i = 0; i < 4; i++) {
        gens += s->gen_ca[i] + s->gen_ica[i];
        ca += s->gen_ca[i];
        used += (uint64_t)(i + 1) * (s->gen_ca[i] + s->gen_ica[i]);
    }
    pca = s->gen_ca[0] + s->gen_ca[1] + s->gen_ca[2];
#define CELL(...) (snprintf(cell[n], sizeof cell[n], __VA_ARGS__), cells[n] = cell[n], n++)
    cells[n++] = a->workload;
    cells[n++] = a->kernel;
    CELL("%llu", (unsigned long long)s->warps);
    CELL("%llu", (unsigned long long)s->warp_instructions);
    CELL("%llu", (unsigned long long)s->mem_instructions);
    CELL("%llu", (unsigned long long)s->line_requests);
    CELL("%llu", (unsigned long long)a->launches);
    for (int i = 0; i < 4; i++)
        CELL("%.4f", share(s->req_by_sectors[i], s->line_requests));
    CELL("%.4f", share(s->pdr, s->read_requests));
    CELL("%.4f", share(s->fdr, s->read_requests));
    CELL("%.4f", share(used, 4 * gens));
    CELL("%.4f", share(ca, gens));
    CELL("%.4f", share(gens - ca, gens));
    CELL("%.4f", share(pca, gens));
    CELL("%.4f", share(s->shared_requests, s->read_requests));
    CELL("%llu", (unsigned long long)s->distinct_lines);
    if (compress)
        for (size_t k = 0; k < num_algos(); k++)
            CELL("%.3f", a->comp_bits[k] > 0 ? a->raw_bits / a->comp_bits[k] : 0.0);
#undef CELL
    cli_table_add(t, cells);
}

typedef struct {
    cli_source_t src;
    const char *csv;
    int all, compress;
    gpuest_charact_opts_t opts;
} ch_args_t;

static int parse_args(ch_args_t *o, int argc, char **argv)
{
    cli_args_t a;
    cli_args_init(&a, argc, argv, "characterize");
    while (cli_args_next(&a)) {
        const char *v;
        long n;
        if (!a.name)
            return cli_usage_error(a.cmd, "unexpected argument '%s'", a.value);
        int c = cli_source_option(&o->src, &a);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (cli_args_is(&a, "help")) {
            characterize_help(stdout);
            return -1;
        } else if (cli_args_is(&a, "all")) {
            o->all = 1;
        } else if (cli_args_is(&a, "no-compress")) {
            o->compress = 0;
        } else if (cli_args_is(&a, "csv")) {
            if (!(o->csv = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "sms")) {
            if (!(v = cli_args_value(&a)) || cli_parse_int(a.cmd, "sms", v, 1, 1024, &n) != 0)
                return 2;
            o->opts.num_sms = (int)n;
        } else if (cli_args_is(&a, "window")) {
            if (!(v = cli_args_value(&a)) || cli_parse_int(a.cmd, "window", v, 1, 1L << 30, &n) != 0)
                return 2;
            o->opts.share_window = (int)n;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s", a.name);
        }
    }
    return cli_source_check(&o->src, a.cmd, o->all, "--workload, --all, --trace, --csv-trace");
}

/* Characterizes one workload into c (rows appended). */
static gpuest_err run_one(ch_t *c, gpuest_workload_t *wl, const ch_args_t *o, gpuest_error_t *err)
{
    c->first_of_workload = c->n;
    gpuest_compress_amap_init(&c->amap);
    gpuest_memimg_t *img = gpuest_workload_image(wl);
    for (size_t i = 0; i < gpuest_memimg_count(img) && c->amap.count < GPUEST_COMPRESS_AMAP_MAX; i++) {
        const gpuest_alloc_t *a = gpuest_memimg_get(img, i);
        if (a->approximable && a->type == GPUEST_DT_FP32 && a->approx_bits >= 1 && a->approx_bits <= 23)
            GPUEST_TRY(gpuest_compress_amap_add(&c->amap, a->base, a->base + a->size, a->approx_bits, err));
    }
    cb_ctx_t cc = {c, wl};
    gpuest_progress_t *p = cli_progress(gpuest_workload_name(wl), 0);   /* launches: total unknown */
    gpuest_progress_set_unit(p, "launches");
    gpuest_err rc = gpuest_workload_characterize(wl, &o->opts, on_stats, c->compress ? on_line : NULL, &cc, p, err);
    gpuest_progress_finish(p);
    return rc;
}

int cli_cmd_characterize(int argc, char **argv)
{
    ch_args_t o;
    memset(&o, 0, sizeof o);
    o.compress = 1;
    cli_source_init(&o.src);
    gpuest_charact_opts_default(&o.opts);
    int prc = parse_args(&o, argc, argv);
    if (prc < 0)
        return 0;
    if (prc > 0)
        return prc;
    ch_t c;
    memset(&c, 0, sizeof c);
    c.compress = o.compress;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = GPUEST_OK;
    if (c.compress) {
        rc = gpuest_sc2_vft_create(&c.vft, &err);
        if (rc == GPUEST_OK)
            rc = gpuest_sc2_book_create(&c.book, &err);
    }
    size_t count = o.all ? gpuest_generator_count() : 1;
    for (size_t i = 0; rc == GPUEST_OK && i < count; i++) {
        gpuest_workload_t *wl = NULL;
        rc = cli_source_open(&o.src, o.all ? gpuest_generators[i]->name : NULL, &wl, &err);
        if (rc == GPUEST_OK && gpuest_workload_warning(wl))
            fprintf(stderr, "gpuest characterize: warning: %s\n", gpuest_workload_warning(wl));
        if (rc == GPUEST_OK)
            rc = run_one(&c, wl, &o, &err);
        gpuest_workload_destroy(wl);
    }
    gpuest_sc2_vft_destroy(c.vft);
    gpuest_sc2_book_destroy(c.book);
    free(c.lines);
    if (rc != GPUEST_OK) {
        free(c.rows);
        return cli_report("characterize", rc, &err);
    }
    const char *header[32] = {"workload", "kernel", "warps", "warp_instructions", "mem_instructions",
                              "line_requests", "launches", "req_32B", "req_64B", "req_96B", "req_128B",
                              "pdr_share", "fdr_share", "line_use", "ca_share", "ica_share", "partial_ca_share",
                              "intercore_share", "distinct_lines"};
    size_t cols = 19;
    char names[CH_MAX_ALGOS][40];
    for (size_t k = 0; c.compress && k < num_algos(); k++) {
        snprintf(names[k], sizeof names[k], "cr_%s", gpuest_compress_algos[k]->name);
        header[cols++] = names[k];
    }
    cli_table_t t;
    if (cli_table_init(&t, header, cols) != 0) {
        free(c.rows);
        return cli_report("characterize", GPUEST_ENOMEM, NULL);
    }
    for (size_t i = 0; i < c.n; i++)
        add_row(&t, &c.rows[i], c.compress);
    cli_table_print(&t, stdout);
    int out = o.csv ? cli_table_write_csv(&t, o.csv, "characterize") : 0;
    cli_table_free(&t);
    free(c.rows);
    return out;
}
