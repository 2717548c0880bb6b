/* test_bad_options.c: bad input on the surfaces added with the estimator and the compressed-L1
 * selector (sample, estimate --batch, validate --truth-csv, run --calibration, simulate's oracle
 * options, l1c-fann label files and models), given to the gpuest program as a user would. Each case
 * names the defect it guards against: every one of them was accepted (exit 0), reported without
 * the file and line, or left an output behind before the fixes of the ninth session. A case passes
 * when the exit status is the expected one, the message holds the place and the expectation, and
 * the named output file (and its temporary) is absent afterwards. Each case runs in well under a
 * second: the checks come before any simulation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_program.h"

static char out[1 << 16];
static char g_root[512];

#define CAL_DIR GPUEST_SOURCE_DIR "/models/calibrations/"
#define TINY_CAL CAL_DIR "mesh56-hotspot-tiny.cal"
#define SMALL_CAL CAL_DIR "mesh56-hotspot-small.cal"
#define VALIDATE "validate --preset mesh56 --workload hotspot --scale tiny --points 1 --calibration " TINY_CAL
#define ESTIMATE "estimate --preset mesh56 --workload hotspot --scale tiny --calibration " TINY_CAL
#define TRUTH_HEAD "point,sets,ipc_sim,amat_sim,sim_s\n"

/* The columns of 'gpuest simulate --l1c-oracle' (per-EP labels) and one row of them; the reader
 * finds its columns by name. Fields 30-34: rule_choice, cycles_none, cycles_bdi, cycles_sc, label. */
#define L1C_HEAD                                                                                                       \
    "workload,sm,ep,core_cycle,avail_warps,cycles_per_schedule,latency_tolerance,hit_ratio_none,hit_ratio_bdi,"       \
    "hit_ratio_sc,wait_bdi,wait_sc,miss_rate,miss_rate_change,miss_latency,queue_depth,capacity,ep_in_period,"        \
    "mode_none,mode_bdi,mode_sc,hit_extra,amat_none,amat_bdi,amat_sc,rule_none,rule_bdi,rule_sc,mode,rule_choice,"    \
    "cycles_none,cycles_bdi,cycles_sc,label\n"
#define L1C_X "w,0,0,100,0.8,1.1,0.06,0.1,0.7,0.4,2,14,0.4,0.2,230,0.6,0.7,0,1,0,0,0.2,200,210,220,1,0,0,0,"
#define L1C_ROW(rule, cycles, label) L1C_X rule "," cycles "," label "\n"
#define L1C_GOOD L1C_HEAD L1C_ROW("0", "1002,1003,1083", "0") L1C_ROW("1", "990,1003,1083", "0")
#define L1C_EVAL "l1c-fann eval --data @/l.csv --model-dir "
/* period labels ('simulate --l1c-continue period'): a column cycles_rule before the label */
#define L1C_PHEAD                                                                                                      \
    "workload,sm,ep,core_cycle,avail_warps,cycles_per_schedule,latency_tolerance,hit_ratio_none,hit_ratio_bdi,"       \
    "hit_ratio_sc,wait_bdi,wait_sc,miss_rate,miss_rate_change,miss_latency,queue_depth,capacity,ep_in_period,"        \
    "mode_none,mode_bdi,mode_sc,hit_extra,amat_none,amat_bdi,amat_sc,rule_none,rule_bdi,rule_sc,mode,rule_choice,"    \
    "cycles_none,cycles_bdi,cycles_sc,cycles_rule,label\n"

typedef struct {
    const char *file1, *text1, *file2, *text2; /* written into the case's folder (NULL: none) */
    void (*make)(const char *dir);             /* or made by code */
    const char *args;   /* '@' = the case's folder */
    int status;         /* expected exit status */
    const char *where;  /* the message contains this (file:line, or the option) */
    const char *what;   /* ... and this (the expectation) */
    const char *absent; /* a file that must not exist in the case's folder afterwards (NULL: none) */
} option_case;

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0777); /* one level of sub-folder (m/) */
    *slash = '/';
    test_write_bytes(path, data, n);
}

static char *read_source(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GPUEST_SOURCE_DIR, rel);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* m/NAME.{net,scale.csv}: a shipped model with one line of its scaling file edited (the checksum
 * covers the network file only, so the edit reaches the metadata reader). */
static void write_model_edit(const char *dir, const char *name, const char *from, const char *to)
{
    char rel[256], out_name[256];
    snprintf(rel, sizeof rel, "models/%s.net", name);
    char *net = read_source(rel);
    snprintf(rel, sizeof rel, "models/%s.scale.csv", name);
    char *scale = read_source(rel);
    char *at = strstr(scale, from);
    assert_non_null(at);
    char *edited = malloc(strlen(scale) + strlen(to) + 1);
    assert_non_null(edited);
    size_t a = (size_t)(at - scale);
    memcpy(edited, scale, a);
    strcpy(edited + a, to);
    strcat(edited, at + strlen(from));
    snprintf(out_name, sizeof out_name, "m/%s.net", name);
    write_file(dir, out_name, net, strlen(net));
    snprintf(out_name, sizeof out_name, "m/%s.scale.csv", name);
    write_file(dir, out_name, edited, strlen(edited));
    free(net);
    free(scale);
    free(edited);
}

static void write_latte_model(const char *dir, const char *from, const char *to)
{
    write_model_edit(dir, "latte-fann", from, to);
}

/* approximation predictor: 'inputs' was cast to an unsigned int (1e300 has no value there), and a
 * threshold outside (0, 1) was taken */
static void make_approx_inputs(const char *dir)
{
    write_model_edit(dir, "approx-atax", "meta,inputs,1,", "meta,inputs,1e300,");
}

static void make_approx_threshold(const char *dir)
{
    write_model_edit(dir, "approx-atax", "meta,threshold,0.5,", "meta,threshold,1.5,");
}

/* meta margin = nan: every comparison with the margin was false, the decisions changed silently */
static void make_nan_margin(const char *dir)
{
    write_latte_model(dir, "meta,margin,", "meta,margin,nan,\nmeta,unused,");
}

/* an infinite input range scaled that input to NaN at every EP */
static void make_inf_range(const char *dir)
{
    write_latte_model(dir, "input,0,0.012924071082390954,18.211409395973153", "input,0,-inf,inf");
}

/* c.cal: a copy of the tiny hotspot calibration (calibrate --refit rewrites the file it reads) */
static void make_cal_copy(const char *dir)
{
    char *cal = read_source("models/calibrations/mesh56-hotspot-tiny.cal");
    write_file(dir, "c.cal", cal, strlen(cal));
    free(cal);
}

/* c.cal: the small hotspot calibration with the text from (at the start of a line) replaced by to */
static void write_cal_edit(const char *dir, const char *from, const char *to)
{
    char *cal = read_source("models/calibrations/mesh56-hotspot-small.cal");
    char start[512];
    snprintf(start, sizeof start, "\n%s", from); /* at the start of a line, not inside a comment */
    char *at = strstr(cal, start);
    assert_non_null(at);
    at++;
    size_t a = (size_t)(at - cal);
    char *edited = malloc(strlen(cal) + strlen(to) + 1);
    assert_non_null(edited);
    memcpy(edited, cal, a);
    strcpy(edited + a, to);
    strcat(edited, at + strlen(from));
    write_file(dir, "c.cal", edited, strlen(edited));
    free(cal);
    free(edited);
}

/* 1e308 in the warp profile: the model's products overflowed, and AMVA reported a NaN demand
 * without the file or the line */
static void make_huge_profile(const char *dir)
{
    write_cal_edit(dir, "warp_profile 32 ", "warp_profile 1e308 ");
}

/* an MC stall ratio of 5 and a fractional cycle count in the baseline run: taken as they were */
static void make_bad_stall(const char *dir)
{
    write_cal_edit(dir, "run baseline - 223.24398577013844 1085.225569259962 0.74559939769645311",
                   "run baseline - 223.24398577013844 1085.225569259962 5");
}

static void make_fraction_cycles(const char *dir)
{
    write_cal_edit(dir, "run baseline - 223.24398577013844 1085.225569259962 0.74559939769645311 "
                        "0.88707689056391115 0 0 56782",
                   "run baseline - 223.24398577013844 1085.225569259962 0.74559939769645311 "
                   "0.88707689056391115 0 0 56782.5");
}

/* a batch line of 3000 characters: fgets cut it into two design points, the second reported as line 2 */
static void make_long_batch_line(const char *dir)
{
    char text[3100];
    memset(text, ' ', sizeof text);
    memcpy(text, "noc.flit_bytes=16", 17);
    memcpy(text + 3000, "noc.flit_bytes=32\n", 18);
    write_file(dir, "b.txt", text, 3018);
}

/* a NUL byte in a batch line: the rest of the line was dropped silently */
static void make_nul_batch(const char *dir)
{
    write_file(dir, "b.txt", "noc.flit_bytes=16\0 noc.flit_bytes=bogus\n", 41);
}

/* most cases leave 'absent' out (NULL: no output to check) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const option_case cases[] = {
    /* validate --truth-csv: messages said "line 2: ..." without the file */
    {"t.csv", TRUTH_HEAD "l2lat_x0.5,,abc,700,1\n", NULL, NULL, NULL, VALIDATE " --truth-csv @/t.csv", 2, "t.csv:2:",
     "ipc_sim and amat_sim finite numbers > 0"},
    /* ... a NaN or negative sim_s was taken (the summary printed a speedup of "nanx") */
    {"t.csv", TRUTH_HEAD "l2lat_x0.5,,100,700,nan\n", NULL, NULL, NULL, VALIDATE " --truth-csv @/t.csv", 2, "t.csv:2:",
     "sim_s a finite number >= 0"},
    {"t.csv", TRUTH_HEAD "l2lat_x0.5,,100,700,-3\n", NULL, NULL, NULL, VALIDATE " --truth-csv @/t.csv", 2, "t.csv:2:",
     "sim_s a finite number >= 0"},
    /* ... a point named twice: the first row was used, the second ignored */
    {"t.csv", TRUTH_HEAD "l2lat_x0.5,,100,700,1\nl2lat_x0.5,,200,800,1\n", NULL, NULL, NULL,
     VALIDATE " --truth-csv @/t.csv", 2, "t.csv:3:", "appears twice"},
    /* ... an empty file: "no stored detailed run for held-out point ..." naming no file */
    {"t.csv", "", NULL, NULL, NULL, VALIDATE " --truth-csv @/t.csv", 2, "t.csv:1:", "the file is empty"},
    {"t.csv", TRUTH_HEAD, NULL, NULL, NULL, VALIDATE " --truth-csv @/t.csv", 2, "t.csv: no stored detailed run",
     "expected a row for every held-out point"},
    /* validate --csv into a missing folder: exit 1 after the whole validation */
    {"t.csv", TRUTH_HEAD "l2lat_x0.5,,100,700,1\n", NULL, NULL, NULL,
     VALIDATE " --truth-csv @/t.csv --csv @/no/v.csv", 2, "--csv", "existing folder", NULL},
    /* estimate --batch */
    {NULL, NULL, NULL, NULL, make_long_batch_line, ESTIMATE " --batch @/b.txt", 2, "b.txt:1:",
     "line longer than 2047"},
    {NULL, NULL, NULL, NULL, make_nul_batch, ESTIMATE " --batch @/b.txt", 2, "b.txt:1:", "NUL byte"},
    /* ... an empty batch: exit 0 with an empty table and a CSV of a header only */
    {"b.txt", "", NULL, NULL, NULL, ESTIMATE " --batch @/b.txt --csv @/e.csv", 2, "b.txt:1:", "no design point",
     "e.csv"},
    {"b.txt", "# only a comment\n", NULL, NULL, NULL, ESTIMATE " --batch @/b.txt", 2, "b.txt:1:", "no design point"},
    /* ... an indented comment was read as the assignment '#' */
    {"b.txt", "  # flit widths\nnoc.flit_bytes=16\n", NULL, NULL, NULL, ESTIMATE " --batch @/b.txt", 0, "line2",
     "ipc"},
    /* ... a cross-key error printed its origin twice ("b.txt:1: b.txt:1: l1.size_bytes ...") */
    {"b.txt", "l1.assoc=3\n", NULL, NULL, NULL, ESTIMATE " --batch @/b.txt", 2, "error: ", "b.txt:1: l1.size_bytes"},
    /* estimate / validate --calibration of another workload or scale than asked: estimated silently */
    {NULL, NULL, NULL, NULL, NULL, "estimate --preset mesh56 --workload bfs --scale tiny --calibration " TINY_CAL, 2,
     "mesh56-hotspot-tiny.cal", "calibrated on workload hotspot, expected bfs"},
    {NULL, NULL, NULL, NULL, NULL, "estimate --preset mesh56 --workload hotspot --scale small --calibration " TINY_CAL,
     2, "mesh56-hotspot-tiny.cal", "calibrated at scale tiny, expected small"},
    {NULL, NULL, NULL, NULL, NULL, "validate --preset mesh56 --workload bfs --calibration " TINY_CAL, 2,
     "mesh56-hotspot-tiny.cal", "expected bfs"},
    /* calibration values out of range (hand-damaged files) */
    {NULL, NULL, NULL, NULL, make_huge_profile,
     "estimate --preset mesh56 --workload hotspot --scale small --calibration @/c.cal", 2, "c.cal:24:",
     "magnitude at most 1e18"},
    {NULL, NULL, NULL, NULL, make_bad_stall,
     "estimate --preset mesh56 --workload hotspot --scale small --calibration @/c.cal", 2, "c.cal:26:",
     "MC stall ratio, hit rates and write fraction in 0..1"},
    {NULL, NULL, NULL, NULL, make_fraction_cycles,
     "estimate --preset mesh56 --workload hotspot --scale small --calibration @/c.cal", 2, "c.cal:26:",
     "whole number of cycles"},
    /* calibrate --refit with --workload bfs on a hotspot file refitted (and rewrote) hotspot's runs */
    {NULL, NULL, NULL, NULL, make_cal_copy,
     "calibrate --preset mesh56 --workload bfs --scale tiny --calibration @/c.cal --refit", 2, "c.cal",
     "holds runs of hotspot, not bfs"},
    /* run --calibration at another scale: the tiny runs were compared with a small calibration */
    {NULL, NULL, NULL, NULL, NULL, "run --scale tiny --calibration " SMALL_CAL, 2, "mesh56-hotspot-small.cal",
     "made at scale small, not tiny"},
    /* run: --save-calibration was written first and stayed when --csv then failed */
    {NULL, NULL, NULL, NULL, NULL,
     "run --scale tiny --calibration " TINY_CAL " --save-calibration @/saved.cal --csv @/no/run.csv", 2, "--csv",
     "existing folder", "saved.cal"},
    {NULL, NULL, NULL, NULL, NULL, "run --scale tiny --bogus", 2, "run", "unexpected argument 'bogus'"},
    /* simulate: --csv was committed and --links then failed (exit 1 after the run) */
    {NULL, NULL, NULL, NULL, NULL, "simulate --workload hotspot --scale tiny --csv @/s.csv --links @/no/l.csv", 2,
     "--links", "existing folder", "s.csv"},
    /* ... the oracle's options were ignored without --l1c-oracle, and 0 read as 1 */
    {NULL, NULL, NULL, NULL, NULL, "simulate --workload hotspot --scale tiny --l1c-horizon 4", 2, "--l1c-horizon",
     "together with --l1c-oracle"},
    {NULL, NULL, NULL, NULL, NULL,
     "simulate --workload hotspot --scale tiny --set technique.l1_compression=latte_cc --l1c-oracle @/o.csv "
     "--l1c-every 0",
     2, "--l1c-every 0", "expected 1..", "o.csv"},
    {NULL, NULL, NULL, NULL, NULL,
     "simulate --workload hotspot --scale tiny --set technique.l1_compression=latte_cc --l1c-oracle @/o.csv "
     "--l1c-horizon 4294967297",
     2, "--l1c-horizon 4294967297", "expected 1..", "o.csv"},
    /* sample: 0 meant the default; --reference ignored --cold; an unknown flag "needs a value" */
    {NULL, NULL, NULL, NULL, NULL, "sample --scale tiny --units 2 --unit-insts 0", 2, "--unit-insts 0",
     "positive count"},
    {NULL, NULL, NULL, NULL, NULL, "sample --scale tiny --units 2 --reference --cold", 2, "--reference",
     "no fast-forward option"},
    {NULL, NULL, NULL, NULL, NULL, "sample --scale tiny --units 2 --ff-plain --ff-pool 4", 2, "--ff-pool 4",
     "back-pressure"},
    {NULL, NULL, NULL, NULL, NULL, "sample --scale tiny --units 2 --bogus", 2, "sample", "unexpected argument 'bogus'"},
    {NULL, NULL, NULL, NULL, NULL, "sample --scale tiny --units 2 --csv @/no/u.csv", 2, "--csv", "existing folder"},
    /* results on a file that is no database: the cause was formatted into the buffer it came from
     * (overlapping arguments of vsnprintf), printing "... (FILE: not a gpuest sweep database ()" */
    {"bad.db", "not a database at all, just text\n", NULL, NULL, NULL, "results @/bad.db", 2,
     "bad.db: not a gpuest sweep database (", "file is not a database)"},
    /* l1c-fann: an empty label file was a workload with no EP (exit 0) */
    {"l.csv", "", NULL, NULL, NULL, L1C_EVAL GPUEST_SOURCE_DIR "/models", 2, "l.csv:1:", "the file is empty"},
    /* ... a rule_choice outside 0..2 read as none (1e300: an overflowing conversion) */
    {"l.csv", L1C_HEAD L1C_ROW("7", "1002,1003,1083", "0"), NULL, NULL, NULL, L1C_EVAL GPUEST_SOURCE_DIR "/models",
     2, "l.csv:2:", "rule_choice 0, 1 or 2"},
    {"l.csv", L1C_HEAD L1C_ROW("1e300", "1002,1003,1083", "0"), NULL, NULL, NULL, L1C_EVAL GPUEST_SOURCE_DIR "/models",
     2, "l.csv:2:", "rule_choice 0, 1 or 2"},
    {"l.csv", L1C_HEAD L1C_ROW("0", "-5,1003,1083", "0"), NULL, NULL, NULL, L1C_EVAL GPUEST_SOURCE_DIR "/models", 2,
     "l.csv:2:", "cycles >= 0"},
    /* ... a period row with cycles_rule 0: its savings (shares of it) printed as inf / nan */
    {"l.csv", L1C_PHEAD L1C_ROW("0", "1002,1003,1083,0", "-1"), NULL, NULL, NULL, L1C_EVAL GPUEST_SOURCE_DIR "/models",
     2, "l.csv:2:", "cycles_rule > 0"},
    /* ... an empty --data list printed an empty table and exited 0 */
    {NULL, NULL, NULL, NULL, NULL, "l1c-fann eval --data , --model-dir " GPUEST_SOURCE_DIR "/models", 2, "--data",
     "one or more label files"},
    {NULL, NULL, NULL, NULL, make_approx_inputs, "approx predict --app atax --size 256 --max-error 0.1 --model-dir @/m",
     2, "approx-atax.scale.csv:10:", "meta inputs = 1e+300: expected a whole number 0..7"},
    {NULL, NULL, NULL, NULL, make_approx_threshold,
     "approx predict --app atax --size 256 --max-error 0.1 --model-dir @/m", 2, "approx-atax.scale.csv:8:",
     "expected a probability in (0, 1)"},
    /* ... options of the other action, or rule-target options with another target: ignored silently */
    {"l.csv", L1C_GOOD, NULL, NULL, NULL, L1C_EVAL GPUEST_SOURCE_DIR "/models --hidden 8", 2, "--hidden",
     "not an option of 'eval'"},
    {"l.csv", L1C_GOOD, NULL, NULL, NULL,
     "l1c-fann train --train @/l.csv --valid @/l.csv --model-dir @ --epochs 2 --target cost --margin 1", 2,
     "--margin with --target cost", "expected --target rule", "latte-fann.net"},
    /* ... a NaN metadata value or an infinite input range in the model was taken */
    {"l.csv", L1C_GOOD, NULL, NULL, make_nan_margin, L1C_EVAL "@/m", 2, "latte-fann.scale.csv:32:", "not NaN"},
    {"l.csv", L1C_GOOD, NULL, NULL, make_inf_range, L1C_EVAL "@/m", 2, "latte-fann.scale.csv:4:", "<min> <max>"},
    /* ... --epochs past 2^32 was cut to 1; a missing --model-dir failed after the training (exit 1) */
    {"l.csv", L1C_GOOD, NULL, NULL, NULL, "l1c-fann train --train @/l.csv --valid @/l.csv --model-dir @ --epochs 4294967297",
     2, "--epochs 4294967297", "expected 1 to", "latte-fann.net"},
    {"l.csv", L1C_GOOD, NULL, NULL, NULL, "l1c-fann train --train @/l.csv --valid @/l.csv --model-dir @/no --epochs 2",
     2, "--model-dir", "existing folder"},
};
#pragma GCC diagnostic pop

static void expand_args(const char *args, const char *dir, char *buf, size_t cap)
{
    size_t used = 0;
    for (const char *p = args; *p && used + 1 < cap; p++) {
        if (*p == '@')
            used += (size_t)snprintf(buf + used, cap - used, "%s", dir);
        else
            buf[used++] = *p;
    }
    buf[used < cap ? used : cap - 1] = '\0';
}

/* 1 when dir holds a file whose name starts with name (the final file or its temporary). */
static int left_behind(const char *dir, const char *name)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c '^%s' || true", dir, name);
    char count[64];
    assert_int_equal(test_run_program(cmd, "", count, sizeof count), 0);
    return atoi(count) != 0;
}

static void test_every_bad_option(void **state)
{
    (void)state;
    size_t count = sizeof cases / sizeof cases[0];
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        const option_case *c = &cases[i];
        char dir[600], args[4096];
        snprintf(dir, sizeof dir, "%s/case%02zu", g_root, i);
        mkdir(dir, 0777);
        if (c->file1)
            write_file(dir, c->file1, c->text1, strlen(c->text1));
        if (c->file2)
            write_file(dir, c->file2, c->text2, strlen(c->text2));
        if (c->make)
            c->make(dir);
        expand_args(c->args, dir, args, sizeof args);
        int status = run_gpuest(args, out, sizeof out);
        int left = c->absent && left_behind(dir, c->absent);
        if (status != c->status || !strstr(out, c->where) || !strstr(out, c->what) || left) {
            print_error("case %zu (gpuest %s): exit %d, expected %d with '%s' and '%s'%s%s; got:\n%s\n", i, c->args,
                        status, c->status, c->where, c->what, left ? "; left behind: " : "", left ? c->absent : "",
                        out);
            failed++;
        }
    }
    if (failed)
        fail_msg("%d of %zu cases failed", failed, count);
}

static int setup(void **state)
{
    (void)state;
    test_scratch_make(g_root, sizeof g_root, GPUEST_BINARY_DIR, "bad_options");
    /* FANN keeps the message of a file it cannot read in a buffer it never frees. */
    setenv("LSAN_OPTIONS", "suppressions=" GPUEST_SOURCE_DIR "/tests/fuzz/lsan.supp", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_scratch_remove(g_root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_bad_option),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
