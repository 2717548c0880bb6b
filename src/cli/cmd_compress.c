/* cmd_compress.c: the 'compress' subcommand: compress a binary file line by line, verify round trips, report ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compress/compress.h"

#define CMD "compress"

static const char *const csv_header[] = {
    "algorithm", "lines",     "input_bytes",      "compressed_bits",  "compression_ratio",
    "flits_in",  "flits_out", "compression_rate", "lines_compressed", "roundtrip_ok",
};
#define CSV_COLUMNS (sizeof csv_header / sizeof csv_header[0])

static const char *const text_header[] = {
    "algorithm", "lines", "ratio", "flits_in", "flits_out", "rate", "compressed", "lat c/d", "roundtrip",
};
#define TEXT_COLUMNS (sizeof text_header / sizeof text_header[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpuest compress FILE [options]\n"
            "Reads FILE as consecutive cache lines, compresses every line with each algorithm,\n"
            "decompresses it again and checks the round trip (exit 1 on any mismatch).\n"
            "  --algo NAME|all     algorithm (%s) or all (default)\n"
            "  --line BYTES        line size: 32, 64 or 128 (default 128)\n"
            "  --flit BYTES        flit size for the flit counts (default 16)\n"
            "  --header BYTES      packet header bytes sharing the flits with the data; 0 (default)\n"
            "                      = the header is a head flit of its own (noc.header_bytes)\n"
            "  --float             the file holds fp32 values that dsm_approx may approximate\n"
            "  --approx-bits N     mantissa bits dsm_approx zeroes, 1..23 (default 8; needs --float)\n"
            "  --csv FILE          also write one row per algorithm to FILE\n"
            "Compression ratio = input bits / compressed bits; compression rate = flits saved /\n"
            "flits of the uncompressed packets (packet compression thesis). SC2 trains its code\n"
            "book on the whole file first. Without --float, dsm_approx approximates nothing.\n",
            gpuest_compress_names());
}

typedef struct {
    const char *file, *csv, *algo;
    long line, flit, header, approx_bits;
    int is_float, approx_given;
} opts_t;

typedef struct {
    uint64_t lines, bits, flits_in, flits_out, compressed, mismatches;
} tally_t;

static int parse_opts(int argc, char **argv, opts_t *o)
{
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    *o = (opts_t){NULL, NULL, "all", 128, 16, 0, 8, 0, 0};
    while (cli_args_next(&a)) {
        const char *v;
        if (!a.name) {
            if (o->file)
                return cli_usage_error(CMD, "one FILE expected, got '%s' and '%s'", o->file, a.value);
            o->file = a.value;
        } else if (cli_args_is(&a, "help") || cli_args_is(&a, "h")) {
            usage(stdout);
            return -1;
        } else if (cli_args_is(&a, "float")) {
            o->is_float = 1;
        } else if (!(v = cli_args_value(&a))) {
            return 2;
        } else if (cli_args_is(&a, "algo")) {
            o->algo = v;
        } else if (cli_args_is(&a, "csv")) {
            o->csv = v;
        } else if (cli_args_is(&a, "line")) {
            if (cli_parse_int(CMD, "line", v, 32, 128, &o->line))
                return 2;
            if (o->line != 32 && o->line != 64 && o->line != 128)
                return cli_usage_error(CMD, "--line must be 32, 64 or 128, got %ld", o->line);
        } else if (cli_args_is(&a, "flit")) {
            if (cli_parse_int(CMD, "flit", v, 1, 4096, &o->flit))
                return 2;
        } else if (cli_args_is(&a, "header")) {
            if (cli_parse_int(CMD, "header", v, 0, 4096, &o->header))
                return 2;
        } else if (cli_args_is(&a, "approx-bits")) {
            if (cli_parse_int(CMD, "approx-bits", v, 1, 23, &o->approx_bits))
                return 2;
            o->approx_given = 1;
        } else {
            return cli_usage_error(CMD, "unknown option --%s", a.name);
        }
    }
    if (!o->file)
        return cli_usage_error(CMD, "missing FILE");
    if (o->approx_given && !o->is_float)
        return cli_usage_error(CMD, "--approx-bits needs --float (the file must hold fp32 data)");
    return 0;
}

/* Compresses, decompresses and checks every line with one codec. */
static gpuest_err run_codec(const gpuest_codec_t *c, const gpuest_compress_amap_t *amap, const unsigned char *data,
                            size_t size, const opts_t *o, tally_t *t, gpuest_progress_t *bar, uint64_t *done,
                            gpuest_error_t *err)
{
    uint8_t out[GPUEST_COMPRESS_MAX_STREAM_BYTES], dec[GPUEST_COMPRESS_MAX_LINE], want[GPUEST_COMPRESS_MAX_LINE];
    size_t lb = (size_t)o->line;
    /* the packet-size and flag rules the simulator uses (core.h, compress.h) */
    int raw_flits = gpuest_packet_flits((uint64_t)lb * 8u, (int)o->flit, (int)o->header);
    for (size_t off = 0; off < size; off += lb) {
        const uint8_t *line = data + off;
        uint32_t nbits;
        GPUEST_TRY(gpuest_codec_compress(c, off, line, out, sizeof out, &nbits, err));
        t->lines++;
        t->bits += nbits;
        t->flits_in += (uint64_t)raw_flits;
        t->flits_out += (uint64_t)gpuest_packet_flits(gpuest_codec_payload_bits(c, nbits), (int)o->flit, (int)o->header);
        t->compressed += (uint64_t)gpuest_codec_is_compressed(c, nbits);
        const uint8_t *expect = line;
        if (c->algo->flags & GPUEST_COMPRESS_LOSSY) {
            gpuest_compress_amap_apply(amap, off, line, want, lb);
            expect = want;
        }
        if (gpuest_codec_decompress(c, out, nbits, dec, NULL) != GPUEST_OK || memcmp(dec, expect, lb) != 0)
            t->mismatches++;
        if ((++*done & 4095u) == 0)
            gpuest_progress_update(bar, *done);
    }
    return GPUEST_OK;
}

static void add_rows(cli_table_t *text, cli_table_t *csv, const gpuest_compress_algo_t *a, const tally_t *t,
                     size_t line)
{
    double in_bits = (double)t->lines * (double)line * 8.0;
    double ratio = t->bits ? in_bits / (double)t->bits : 0.0;
    double rate = t->flits_in ? (double)((int64_t)t->flits_in - (int64_t)t->flits_out) / (double)t->flits_in : 0.0;
    double share = t->lines ? (double)t->compressed / (double)t->lines : 0.0;
    char sratio[32], srate[32];
    gpuest_fmt_double(sratio, sizeof sratio, ratio);
    gpuest_fmt_double(srate, sizeof srate, rate);
    cli_table_addf(csv, "%s\t%llu\t%llu\t%llu\t%s\t%llu\t%llu\t%s\t%llu\t%d", a->name, (unsigned long long)t->lines,
                   (unsigned long long)t->lines * line, (unsigned long long)t->bits, sratio,
                   (unsigned long long)t->flits_in, (unsigned long long)t->flits_out, srate,
                   (unsigned long long)t->compressed, t->mismatches == 0);
    cli_table_addf(text, "%s\t%llu\t%.3f\t%llu\t%llu\t%.1f%%\t%.1f%%\t%d/%d\t%s", a->name, (unsigned long long)t->lines,
                   ratio, (unsigned long long)t->flits_in, (unsigned long long)t->flits_out, 100.0 * rate,
                   100.0 * share, a->compress_latency, a->decompress_latency, t->mismatches ? "MISMATCH" : "ok");
}

static gpuest_err build_book(gpuest_sc2_book_t **book, const unsigned char *data, size_t size, size_t lb,
                             gpuest_error_t *err)
{
    gpuest_sc2_vft_t *vft;
    GPUEST_TRY(gpuest_sc2_vft_create(&vft, err));
    for (size_t off = 0; off < size; off += lb)
        gpuest_sc2_vft_sample(vft, data + off, lb);
    gpuest_err rc = gpuest_sc2_book_create(book, err);
    if (rc == GPUEST_OK)
        rc = gpuest_sc2_book_build_from_vft(*book, vft, err);
    gpuest_sc2_vft_destroy(vft);
    return rc;
}

static int run(const opts_t *o, const unsigned char *data, size_t size)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    const gpuest_compress_algo_t *only = NULL;
    if (strcmp(o->algo, "all") != 0)
        gpuest_compress_lookup(o->algo, &only, NULL); /* checked before the file was read */
    size_t lb = (size_t)o->line;
    gpuest_compress_amap_t amap;
    gpuest_compress_amap_init(&amap);
    if (o->is_float)
        gpuest_compress_amap_add(&amap, 0, size, (int)o->approx_bits, NULL);
    gpuest_sc2_book_t *book = NULL;
    if (!only || (only->flags & GPUEST_COMPRESS_NEEDS_BOOK)) {
        gpuest_err rc = build_book(&book, data, size, lb, &err);
        if (rc != GPUEST_OK)
            return cli_report(CMD, rc, &err);
    }
    cli_table_t text, csv;
    cli_table_init(&text, text_header, TEXT_COLUMNS);
    cli_table_init(&csv, csv_header, CSV_COLUMNS);
    size_t nalgo = 0;
    for (size_t k = 0; gpuest_compress_algos[k]; k++)
        nalgo += !only || only == gpuest_compress_algos[k];
    uint64_t done = 0;
    gpuest_progress_t *bar = cli_progress("compress", (unsigned long long)(size / lb * nalgo));
    int status = 0, mismatch = 0;
    for (size_t k = 0; gpuest_compress_algos[k] && !status; k++) {
        const gpuest_compress_algo_t *a = gpuest_compress_algos[k];
        if (only && only != a)
            continue;
        gpuest_codec_t c;
        gpuest_codec_opts_t co = {lb, book, &amap};
        tally_t t = {0};
        gpuest_err rc = gpuest_codec_init(&c, a, &co, &err);
        if (rc == GPUEST_OK)
            rc = run_codec(&c, &amap, data, size, o, &t, bar, &done, &err);
        if (rc != GPUEST_OK) {
            status = cli_report(CMD, rc, &err);
            break;
        }
        add_rows(&text, &csv, a, &t, lb);
        mismatch |= t.mismatches != 0;
    }
    gpuest_progress_finish(bar);
    if (!status) {
        cli_table_print(&text, stdout);
        if (o->csv)
            status = cli_table_write_csv(&csv, o->csv, CMD);
    }
    if (!status && mismatch) {
        fprintf(stderr, "gpuest %s: error: round trip mismatch (see the roundtrip column)\n", CMD);
        status = 1;
    }
    cli_table_free(&text);
    cli_table_free(&csv);
    gpuest_sc2_book_destroy(book);
    return status;
}

int cli_cmd_compress(int argc, char **argv)
{
    opts_t o;
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    unsigned char *data = NULL;
    size_t size = 0;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    const gpuest_compress_algo_t *a;
    if (strcmp(o.algo, "all") != 0 && gpuest_compress_lookup(o.algo, &a, &err) != GPUEST_OK)
        return cli_report(CMD, err.code, &err);
    gpuest_err e = gpuest_read_file(o.file, &data, &size, &err);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    if (size == 0) {
        free(data);
        return cli_report(
            CMD, gpuest_fail(&err, GPUEST_EPARSE, "%s is empty; expected at least one %ld-byte line", o.file, o.line),
            &err);
    }
    if (size % (size_t)o.line != 0) {
        free(data);
        return cli_report(
            CMD,
            gpuest_fail(&err, GPUEST_EPARSE,
                        "%s has %zu bytes, not a multiple of the %ld-byte line size (%zu bytes left over)", o.file,
                        size, o.line, size % (size_t)o.line),
            &err);
    }
    rc = run(&o, data, size);
    free(data);
    return rc;
}
