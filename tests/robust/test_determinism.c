/* test_determinism.c: every gpuest command that takes a seed, run twice with the same seed, gives
 * byte-identical output (files and printed text); a different seed gives different output where the
 * seed drives the result, so the comparison can fail. (No command has a --jobs option yet; when one
 * gets it, add a --jobs 1 / --jobs 2 pair here.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_program.h"

static char g_root[512];
static char out_a[1 << 16], out_b[1 << 16];

typedef struct {
    const char *args;     /* '@' stands for the run's own output folder, '%' for the seed */
    const char *files[3]; /* outputs to compare (in the run's folder) */
    int compare_stdout;   /* printed text too (commands that print no timings) */
    int seed_matters;     /* another seed must change at least one output */
} seeded_cmd;

static const seeded_cmd cmds[] = {
    {"workload export bfs --scale tiny --seed % --out @/w.csv --image @/w.img", {"w.csv", "w.img"}, 0, 1},
    {"characterize --workload bfs --scale tiny --seed % --csv @/ch.csv", {"ch.csv"}, 1, 1},
    {"simulate --workload bfs --scale tiny --seed % --max-cycles 20000 --csv @/sim.csv", {"sim.csv"}, 0, 1},
    {"noc --preset mesh28 --k 4 --sample-period 500 --warmup-periods 1 --max-samples 3 --seed % --csv @/noc.csv",
     {"noc.csv"},
     1,
     1},
    {"run --scale tiny --workload hotspot --seed % --calibration " GPUEST_SOURCE_DIR
     "/models/calibrations/mesh56-hotspot-tiny.cal",
     {NULL},
     1,
     1},
    {"approx collect --app atax --datasets 2 --seed % --size-min 16 --size-max 24 --out @/atax.csv",
     {"atax.csv"},
     0,
     1},
    {"approx train --app atax --seed % --data-dir " GPUEST_SOURCE_DIR "/tests/robust/data --model-dir @",
     {"approx-atax.net", "approx-atax.scale.csv"},
     0,
     1},
    {"approx run --app atax --size 24 --bits 8 --seed %", {NULL}, 1, 1},
};

static void expand(const char *args, const char *dir, const char *seed, char *buf, size_t cap)
{
    size_t used = 0;
    for (const char *p = args; *p && used + 1 < cap; p++) {
        const char *with = *p == '@' ? dir : *p == '%' ? seed : NULL;
        if (with)
            used += (size_t)snprintf(buf + used, cap - used, "%s", with);
        else
            buf[used++] = *p;
    }
    buf[used < cap ? used : cap - 1] = '\0';
}

/* Runs cmd with seed into folder name; returns its printed text in out. */
static void run_into(const seeded_cmd *c, const char *name, const char *seed, char *out, size_t cap)
{
    char dir[700], args[2048];
    snprintf(dir, sizeof dir, "%s/%s", g_root, name);
    mkdir(dir, 0777);
    expand(c->args, dir, seed, args, sizeof args);
    int status = run_gpuest(args, out, cap);
    if (status != 0)
        fail_msg("gpuest %s: exit %d\n%s", args, status, out);
}

static int same_outputs(const seeded_cmd *c, const char *a, const char *b, const char *out1, const char *out2)
{
    if (c->compare_stdout && strcmp(out1, out2) != 0)
        return 0;
    for (int f = 0; f < 3 && c->files[f]; f++) {
        char pa[1024], pb[1024];
        snprintf(pa, sizeof pa, "%s/%s/%s", g_root, a, c->files[f]);
        snprintf(pb, sizeof pb, "%s/%s/%s", g_root, b, c->files[f]);
        if (!test_files_equal(pa, pb))
            return 0;
    }
    return 1;
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const seeded_cmd *c = &cmds[i];
        char a[32], b[32], other[32];
        snprintf(a, sizeof a, "c%zu-a", i);
        snprintf(b, sizeof b, "c%zu-b", i);
        snprintf(other, sizeof other, "c%zu-other", i);
        run_into(c, a, "3", out_a, sizeof out_a);
        run_into(c, b, "3", out_b, sizeof out_b);
        /* the printed text names the output folder: make the two runs' folder names agree */
        if (c->compare_stdout && strstr(out_a, a))
            fail_msg("gpuest %s prints its output folder; compare without it", c->args);
        if (!same_outputs(c, a, b, out_a, out_b))
            fail_msg("gpuest %s: two runs with seed 3 differ\n--- first:\n%s\n--- second:\n%s", c->args, out_a, out_b);
        if (c->seed_matters) {
            run_into(c, other, "4", out_b, sizeof out_b);
            if (same_outputs(c, a, other, out_a, out_b))
                fail_msg("gpuest %s: seeds 3 and 4 give the same output (is the seed used?)", c->args);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    test_scratch_make(g_root, sizeof g_root, GPUEST_BINARY_DIR, "determinism");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_scratch_remove(g_root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_seed_same_bytes)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
