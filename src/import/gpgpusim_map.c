/* gpgpusim_map.c: GPGPU-Sim 3.x / Accel-Sim options -> gpuest configuration keys.
 *
 * Every option gpuest has a mechanism for is mapped; the rest is listed as
 * ignored by the caller (import.c). Where GPGPU-Sim's unit differs from ours
 * the conversion is stated beside the mapping. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

typedef struct {
    gpuest_import_t *imp;
    imp_options_t *opts;
    const char *origin;
    gpuest_error_t *err;
} map_ctx;

/* The option's value as an integer in lo..hi; *found 0 when the file does not set it. */
static gpuest_err opt_int(map_ctx *m, const char *name, long lo, long hi, long *out, imp_option_t **opt)
{
    imp_option_t *o = imp_options_find(m->opts, name);
    *opt = o;
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    int64_t v;
    if (gpuest_parse_i64(o->value, &v) != GPUEST_OK || v < lo || v > hi)
        return gpuest_fail(m->err, GPUEST_EPARSE, "%s:%d: -%s '%s': expected an integer in %ld..%ld", m->origin,
                           o->line, name, o->value, lo, hi);
    *out = (long)v;
    return GPUEST_OK;
}

/* Splits "a<sep>b<sep>c" into exactly n numbers (doubles); 0 on a malformed list. */
static int split_numbers(const char *s, char sep, double *out, int n)
{
    for (int i = 0; i < n; i++) {
        char *e;
        if (!*s || isspace((unsigned char)*s))
            return 0;
        out[i] = strtod(s, &e);
        if (e == s)
            return 0;
        s = e;
        if (i + 1 < n && *s++ != sep)
            return 0;
    }
    return *s == '\0';
}

static gpuest_err set_int(map_ctx *m, const char *sec, const char *key, long v, const imp_option_t *o)
{
    char option[96];
    snprintf(option, sizeof option, "-%s", o->name);
    return imp_set_int(m->imp, sec, key, v, m->origin, o->line, option, m->err);
}

static gpuest_err set_str(map_ctx *m, const char *sec, const char *key, const char *v, const imp_option_t *o)
{
    char option[96];
    snprintf(option, sizeof option, "-%s", o->name);
    return imp_set(m->imp, sec, key, v, m->origin, o->line, option, m->err);
}

static gpuest_err note(map_ctx *m, const imp_option_t *o, const char *part, const char *why)
{
    char option[96];
    snprintf(option, sizeof option, "-%s%s%s", o->name, part ? " " : "", part ? part : "");
    return imp_ignore(m->imp, option, m->origin, o->line, why);
}

/* -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster SMs. */
static gpuest_err map_cores(map_ctx *m)
{
    long clusters = 0, per = 1;
    imp_option_t *oc, *op;
    GPUEST_TRY(opt_int(m, "gpgpu_n_clusters", 1, 1024, &clusters, &oc));
    GPUEST_TRY(opt_int(m, "gpgpu_n_cores_per_cluster", 1, 1024, &per, &op));
    if (!oc && op)
        return gpuest_fail(m->err, GPUEST_EPARSE, "%s:%d: -gpgpu_n_cores_per_cluster without -gpgpu_n_clusters",
                           m->origin, op->line);
    if (oc)
        GPUEST_TRY(set_int(m, "core", "num_sms", clusters * per, oc));
    return GPUEST_OK;
}

/* -gpgpu_shader_core_pipeline <threads per SM>:<warp size> */
static gpuest_err map_pipeline(map_ctx *m)
{
    imp_option_t *o = imp_options_find(m->opts, "gpgpu_shader_core_pipeline");
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    double v[2];
    if (!split_numbers(o->value, ':', v, 2) || v[0] < 1 || v[1] < 1 || v[0] != (long)v[0] || v[1] != (long)v[1] ||
        (long)v[0] % (long)v[1] != 0)
        return gpuest_fail(m->err, GPUEST_EPARSE,
                           "%s:%d: -gpgpu_shader_core_pipeline '%s': expected <threads per SM>:<warp size>, "
                           "threads a multiple of the warp size",
                           m->origin, o->line, o->value);
    GPUEST_TRY(set_int(m, "core", "threads_per_sm", (long)v[0], o));
    GPUEST_TRY(set_int(m, "core", "warp_size", (long)v[1], o));
    return set_int(m, "core", "warps_per_sm", (long)v[0] / (long)v[1], o);
}

/* -gpgpu_clock_domains <core>:<interconnect>:<L2>:<DRAM> in MHz. GPGPU-Sim's
 * "core" clock is the SIMT issue clock (Fermi's 1400 MHz shader clock halved),
 * the same clock gpuest's core.clock_mhz counts cycles in. */
static gpuest_err map_clocks(map_ctx *m)
{
    imp_option_t *o = imp_options_find(m->opts, "gpgpu_clock_domains");
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    double v[4];
    if (!split_numbers(o->value, ':', v, 4))
        return gpuest_fail(m->err, GPUEST_EPARSE,
                           "%s:%d: -gpgpu_clock_domains '%s': expected <core>:<interconnect>:<L2>:<DRAM> in MHz",
                           m->origin, o->line, o->value);
    static const char *const sections[4] = {"core", "noc", "l2", "dram"};
    for (int i = 0; i < 4; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.10g", v[i]);
        GPUEST_TRY(set_str(m, sections[i], "clock_mhz", buf, o));
    }
    return GPUEST_OK;
}

static gpuest_err map_simple_ints(map_ctx *m)
{
    static const struct {
        const char *option, *section, *key;
    } table[] = {
        {"gpgpu_shader_registers", "core", "registers_per_sm"},
        {"gpgpu_shader_cta", "core", "ctas_per_sm"},
        {"gpgpu_shmem_size", "core", "shmem_per_sm"},
        {"gpgpu_num_sched_per_core", "core", "schedulers_per_sm"},
        {"gpgpu_perfect_inst_const_cache", "core", "perfect_inst_const_cache"},
        {"gpgpu_n_mem", "mc", "num_mcs"},
        {"dram_latency", "dram", "latency"},
        {"gpgpu_n_mem_per_ctrlr", "dram", "chips_per_channel"},
        {"gpgpu_dram_buswidth", "dram", "chip_bytes"},
        {"gpgpu_dram_burst_length", "dram", "burst_length"},
        {"dram_data_command_freq_ratio", "dram", "data_rate"},
        {"gpgpu_l1_latency", "l1", "hit_latency"},       /* Accel-Sim */
        {"gpgpu_smem_latency", "core", "shmem_latency"}, /* Accel-Sim */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        long v = 0;
        imp_option_t *o;
        GPUEST_TRY(opt_int(m, table[i].option, -(1L << 30), 1L << 30, &v, &o));
        if (o)
            GPUEST_TRY(set_int(m, table[i].section, table[i].key, v, o));
    }
    return GPUEST_OK;
}

/* -rop_latency (3.x) / -gpgpu_l2_rop_latency (Accel-Sim): the L2 pipeline, our
 * minimum L2 hit latency; with -dram_latency it also gives the documents'
 * "minimum DRAM latency" (dram.min_latency, reference only). */
static gpuest_err map_latencies(map_ctx *m)
{
    long rop = 0, dram = 0;
    imp_option_t *o, *od;
    GPUEST_TRY(opt_int(m, "rop_latency", 1, 10000, &rop, &o));
    if (!o)
        GPUEST_TRY(opt_int(m, "gpgpu_l2_rop_latency", 1, 10000, &rop, &o));
    if (o)
        GPUEST_TRY(set_int(m, "l2", "hit_latency", rop, o));
    GPUEST_TRY(opt_int(m, "dram_latency", 0, 10000, &dram, &od)); /* set by map_simple_ints */
    if (o && od)
        GPUEST_TRY(set_int(m, "dram", "min_latency", rop + dram, od));
    /* "ADD,MAX,MUL,MAD,DIV" integer latencies: the ADD is gpuest's simple ALU op */
    imp_option_t *ol = imp_options_find(m->opts, "ptx_opcode_latency_int");
    if (ol) {
        ol->used = 1;
        double v[5];
        if (!split_numbers(ol->value, ',', v, 5) || v[0] < 1 || v[0] != (long)v[0])
            return gpuest_fail(m->err, GPUEST_EPARSE,
                               "%s:%d: -ptx_opcode_latency_int '%s': expected five latencies ADD,MAX,MUL,MAD,DIV",
                               m->origin, ol->line, ol->value);
        GPUEST_TRY(set_int(m, "core", "alu_latency", (long)v[0], ol));
        GPUEST_TRY(note(m, ol, "(MAX,MUL,MAD,DIV)", "one ALU latency (the ADD's) for every simple op"));
    }
    return GPUEST_OK;
}

static gpuest_err map_scheduler(map_ctx *m)
{
    imp_option_t *o = imp_options_find(m->opts, "gpgpu_scheduler");
    if (o) {
        o->used = 1;
        if (strcmp(o->value, "gto") != 0 && strcmp(o->value, "lrr") != 0)
            return gpuest_fail(m->err, GPUEST_EUNSUPPORTED,
                               "%s:%d: -gpgpu_scheduler %s is not modelled (supported: gto, lrr)", m->origin, o->line,
                               o->value);
        GPUEST_TRY(set_str(m, "core", "scheduler", o->value, o));
    }
    long v = 0;
    GPUEST_TRY(opt_int(m, "gpgpu_dram_scheduler", 0, 1, &v, &o)); /* 0 FIFO, 1 FR-FCFS */
    if (o)
        GPUEST_TRY(set_str(m, "dram", "scheduler", v ? "frfcfs" : "fcfs", o));
    GPUEST_TRY(opt_int(m, "gpgpu_frfcfs_dram_sched_queue_size", 0, 1L << 30, &v, &o));
    if (o) {
        if (v == 0 || v > 4096) { /* GPGPU-Sim: 0 = unbounded */
            GPUEST_TRY(note(m, o, NULL, "unbounded or over 4096: taken as dram.queue_size = 4096"));
            v = 4096;
        }
        GPUEST_TRY(set_int(m, "dram", "queue_size", v, o));
    }
    return GPUEST_OK;
}

/* -gpgpu_dram_partition_queues <icnt->L2>:<L2->DRAM>:<DRAM->L2>:<L2->icnt> */
static gpuest_err map_partition_queues(map_ctx *m)
{
    imp_option_t *o = imp_options_find(m->opts, "gpgpu_dram_partition_queues");
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    double v[4];
    int ok = split_numbers(o->value, ':', v, 4);
    for (int i = 0; ok && i < 4; i++)
        ok = v[i] >= 1 && v[i] == (long)v[i];
    if (!ok)
        return gpuest_fail(m->err, GPUEST_EPARSE,
                           "%s:%d: -gpgpu_dram_partition_queues '%s': expected four positive integers "
                           "<icnt->L2>:<L2->DRAM>:<DRAM->L2>:<L2->icnt>",
                           m->origin, o->line, o->value);
    GPUEST_TRY(set_int(m, "mc", "request_queue", (long)v[0], o));
    GPUEST_TRY(set_int(m, "mc", "reply_queue", (long)v[3], o));
    return note(m, o, "(L2->DRAM, DRAM->L2)", "the MC's DRAM side is bounded by dram.queue_size alone");
}

/* -gpgpu_dram_timing_opt "nbk=16:CCD=2:...": every field GPGPU-Sim 3.x defines. */
static gpuest_err map_dram_timing(map_ctx *m)
{
    imp_option_t *o = imp_options_find(m->opts, "gpgpu_dram_timing_opt");
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    static const struct {
        const char *field, *key;
    } table[] = {{"nbk", "banks"},  {"CCD", "tCCD"},   {"RRD", "tRRD"}, {"RCD", "tRCD"},
                 {"RAS", "tRAS"},   {"RP", "tRP"},     {"RC", "tRC"},   {"CL", "tCL"},
                 {"WL", "WL"},      {"CDLR", "tCDLR"}, {"WR", "tWR"},   {"nbkgrp", "bank_groups"},
                 {"CCDL", "tCCDL"}, {"RTPL", "tRTPL"}};
    const size_t nfields = sizeof table / sizeof table[0];
    char *copy = gpuest_strdup(o->value);
    if (!copy)
        return gpuest_fail(m->err, GPUEST_ENOMEM, "out of memory");
    gpuest_err rc = GPUEST_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ":", &save); tok && rc == GPUEST_OK; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        size_t i = 0;
        if (eq) {
            *eq = '\0';
            while (i < nfields && strcmp(table[i].field, tok) != 0)
                i++;
        }
        int64_t v;
        if (!eq || i == nfields || gpuest_parse_i64(eq + 1, &v) != GPUEST_OK) {
            rc = gpuest_fail(m->err, GPUEST_EPARSE,
                             "%s:%d: -gpgpu_dram_timing_opt: malformed field '%s%s%s' (expected NAME=integer, NAME one "
                             "of nbk CCD RRD RCD RAS RP RC CL WL CDLR WR nbkgrp CCDL RTPL)",
                             m->origin, o->line, tok, eq ? "=" : "", eq ? eq + 1 : "");
            break;
        }
        rc = set_int(m, "dram", table[i].key, (long)v, o);
    }
    free(copy);
    return rc;
}

/* -gpgpu_mem_addr_mapping "dramid@8;<bit mask>": the channel id starts at bit 8,
 * so consecutive 256-byte chunks go to consecutive channels (mc.interleave_bytes). */
static gpuest_err map_addr_mapping(map_ctx *m)
{
    imp_option_t *o = imp_options_find(m->opts, "gpgpu_mem_addr_mapping");
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    const char *at = strstr(o->value, "dramid@");
    if (!at)
        return note(m, o, NULL, "no dramid@N: the channel interleaving stays mc.interleave_bytes");
    char *e;
    long bit = strtol(at + 7, &e, 10);
    if (e == at + 7 || bit < 5 || bit > 20 || (*e != ';' && *e != '\0'))
        return gpuest_fail(m->err, GPUEST_EPARSE,
                           "%s:%d: -gpgpu_mem_addr_mapping '%s': expected dramid@<bit 5..20>;<mask>", m->origin,
                           o->line, o->value);
    GPUEST_TRY(set_int(m, "mc", "interleave_bytes", 1L << bit, o));
    return note(m, o, "(bit mask)", "banks and rows follow gpuest's map (dram.row_bytes), not the mask");
}

/* Notes the policy letters a gpuest cache does not have (wanted: its fixed policy). */
static gpuest_err cache_policy_notes(map_ctx *m, const imp_option_t *o, const imp_cache_t *c, const char *wanted)
{
    char got[16], part[64], why[160];
    snprintf(got, sizeof got, "%c:%c:%c:%c:%c", c->rep, c->wr, c->alloc, c->wr_alloc, c->index ? c->index : 'L');
    if (strcmp(got, wanted) != 0) {
        snprintf(part, sizeof part, "policies %s", got);
        snprintf(why, sizeof why, "gpuest's cache has the fixed policies %s", wanted);
        GPUEST_TRY(note(m, o, part, why));
    }
    if (c->extra_fields)
        GPUEST_TRY(note(m, o, "(fields after the miss queue)", "port widths are not modelled"));
    return GPUEST_OK;
}

/* gpuest's caches have at most this many ways (config schema); Accel-Sim's Volta L1 has 256. */
#define IMP_MAX_WAYS 64

static gpuest_err cache_option(map_ctx *m, const char *name, imp_cache_t *c, imp_option_t **out)
{
    imp_option_t *o = imp_options_find(m->opts, name);
    *out = o;
    if (!o)
        return GPUEST_OK;
    o->used = 1;
    char what[160];
    snprintf(what, sizeof what, "%s:%d: -%s", m->origin, o->line, name);
    GPUEST_TRY(imp_cache_parse(o->value, what, c, m->err));
    if (c->assoc > IMP_MAX_WAYS && c->assoc % IMP_MAX_WAYS == 0) {
        /* choice: keep the capacity and the line, fold the ways into more sets (a near fully
         * associative cache stays close to one), rather than refuse the whole machine */
        char why[160];
        snprintf(why, sizeof why, "%d ways taken as %d ways x %d times the sets (same capacity)", c->assoc,
                 IMP_MAX_WAYS, c->assoc / IMP_MAX_WAYS);
        GPUEST_TRY(note(m, o, "(associativity)", why));
        c->sets *= c->assoc / IMP_MAX_WAYS;
        c->assoc = IMP_MAX_WAYS;
    }
    return GPUEST_OK;
}

static gpuest_err map_caches(map_ctx *m)
{
    imp_cache_t c;
    imp_option_t *o;
    /* L1D: write-evict, allocate on miss, no write allocation, linear index, LRU (src/sim/l1.c) */
    GPUEST_TRY(cache_option(m, "gpgpu_cache:dl1", &c, &o));
    if (o) {
        GPUEST_TRY(set_int(m, "l1", "size_bytes", (long)c.sets * c.line_bytes * c.assoc, o));
        GPUEST_TRY(set_int(m, "l1", "line_bytes", c.line_bytes, o));
        GPUEST_TRY(set_int(m, "l1", "assoc", c.assoc, o));
        GPUEST_TRY(set_int(m, "l1", "mshrs", c.mshr_entries, o));
        GPUEST_TRY(set_int(m, "l1", "mshr_merge", c.mshr_merge, o));
        GPUEST_TRY(set_int(m, "l1", "miss_queue", c.miss_queue, o));
        GPUEST_TRY(cache_policy_notes(m, o, &c, "L:E:m:N:L"));
    }
    /* L2: GPGPU-Sim describes one bank per memory sub-partition; gpuest's slice is per channel */
    GPUEST_TRY(cache_option(m, "gpgpu_cache:dl2", &c, &o));
    if (o) {
        long subs = m->imp->cfg.mc.sub_partitions;
        GPUEST_TRY(set_int(m, "l2", "size_per_mc_bytes", (long)c.sets * c.line_bytes * c.assoc * subs, o));
        GPUEST_TRY(set_int(m, "l2", "line_bytes", c.line_bytes, o));
        GPUEST_TRY(set_int(m, "l2", "assoc", c.assoc, o));
        GPUEST_TRY(set_int(m, "l2", "mshrs", c.mshr_entries, o));
        GPUEST_TRY(set_int(m, "l2", "mshr_merge", c.mshr_merge, o));
        GPUEST_TRY(cache_policy_notes(m, o, &c, "L:B:m:W:L"));
        GPUEST_TRY(note(m, o, "(miss queue)", "the L2's queue towards DRAM is bounded by dram.queue_size"));
    }
    /* instruction and constant caches: read-only, LRU */
    static const struct {
        const char *option, *prefix;
    } ro[] = {{"gpgpu_cache:il1", "l1i"}, {"gpgpu_const_cache:l1", "l1c"}};
    for (size_t i = 0; i < 2; i++) {
        GPUEST_TRY(cache_option(m, ro[i].option, &c, &o));
        if (!o)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%s_size_bytes", ro[i].prefix);
        GPUEST_TRY(set_int(m, "core", key, (long)c.sets * c.line_bytes * c.assoc, o));
        snprintf(key, sizeof key, "%s_line_bytes", ro[i].prefix);
        GPUEST_TRY(set_int(m, "core", key, c.line_bytes, o));
        snprintf(key, sizeof key, "%s_assoc", ro[i].prefix);
        GPUEST_TRY(set_int(m, "core", key, c.assoc, o));
        GPUEST_TRY(note(m, o, "(policies, MSHRs, miss queue)", "read-only LRU cache with blocking misses"));
    }
    return GPUEST_OK;
}

/* -gpgpu_n_sub_partition_per_mchannel: one L2 bank and one network port per sub-partition. */
static gpuest_err map_sub_partitions(map_ctx *m)
{
    long v = 0;
    imp_option_t *o;
    GPUEST_TRY(opt_int(m, "gpgpu_n_sub_partition_per_mchannel", 1, 8, &v, &o));
    if (!o) { /* absent: GPGPU-Sim's default of one, not the base preset's (fermi has two) */
        GPUEST_TRY(imp_set(m->imp, "mc", "sub_partitions", "1", m->origin, 0, "(GPGPU-Sim default)", m->err));
        return imp_set(m->imp, "l2", "banks_per_mc", "1", m->origin, 0, "(GPGPU-Sim default)", m->err);
    }
    GPUEST_TRY(set_int(m, "mc", "sub_partitions", v, o));
    return set_int(m, "l2", "banks_per_mc", v, o);
}

gpuest_err imp_map_gpgpusim(gpuest_import_t *imp, imp_options_t *opts, const char *origin, gpuest_error_t *err)
{
    map_ctx m = {.imp = imp, .opts = opts, .origin = origin, .err = err};
    GPUEST_TRY(map_cores(&m));
    GPUEST_TRY(map_pipeline(&m));
    GPUEST_TRY(map_clocks(&m));
    GPUEST_TRY(map_simple_ints(&m));
    GPUEST_TRY(map_latencies(&m));
    GPUEST_TRY(map_scheduler(&m));
    GPUEST_TRY(map_partition_queues(&m));
    GPUEST_TRY(map_dram_timing(&m));
    GPUEST_TRY(map_addr_mapping(&m));
    GPUEST_TRY(map_sub_partitions(&m)); /* before the L2, whose size is per sub-partition */
    return map_caches(&m);
}
