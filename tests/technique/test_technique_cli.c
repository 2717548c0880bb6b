/* test_technique_cli.c: techniques as a user meets them: `gpuest simulate --set technique.compression=X`
 * changes what the run prints for every algorithm; a technique the command cannot run exits 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compress/compress.h"
#include "run_program.h"

static char out[1 << 16];

/* IPC, AMAT, MC stall ratio and reply flits of the "total" row of the simulate table
 * (columns: kernel cycles winst ipc l1_miss amat req mem reply stall req_fl rep_fl loc960). */
typedef struct {
    char ipc[32], amat[32], stall[32], rep_fl[32];
} total_t;

static void total_row(total_t *t)
{
    const char *p = strstr(out, "\ntotal");
    assert_non_null(p);
    char f[13][32];
    assert_int_equal(sscanf(p + 1, "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s", f[0], f[1],
                            f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12]),
                     13);
    snprintf(t->ipc, sizeof t->ipc, "%s", f[3]);
    snprintf(t->amat, sizeof t->amat, "%s", f[5]);
    snprintf(t->stall, sizeof t->stall, "%s", f[9]);
    snprintf(t->rep_fl, sizeof t->rep_fl, "%s", f[11]);
}

/* wordcount's first 40000 warp instructions keep fermi's MC NI stalled most of the time
 * (ratio 0.78), so every algorithm must move all four figures. */
#define RUN "simulate --preset fermi --workload wordcount --scale small --max-instructions 40000"

static void test_every_algorithm_changes_the_run(void **state)
{
    (void)state;
    char args[512];
    total_t base, t;
    assert_int_equal(run_gpuest(RUN, out, sizeof out), 0);
    total_row(&base);
    assert_true(atof(base.stall) > 0.1);
    for (size_t i = 0; gpuest_compress_algos[i]; i++) {
        const char *name = gpuest_compress_algos[i]->name;
        if (strcmp(name, "none") == 0)
            continue;
        snprintf(args, sizeof args, RUN " --set technique.compression=%s", name);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        assert_non_null(strstr(out, "technique compression.rate = "));
        total_row(&t);
        if (!strcmp(t.ipc, base.ipc) || !strcmp(t.amat, base.amat) || !strcmp(t.stall, base.stall) ||
            !strcmp(t.rep_fl, base.rep_fl))
            fail_msg("compression=%s left a figure as the baseline's: ipc %s/%s amat %s/%s stall %s/%s reply "
                     "flits %s/%s", name, t.ipc, base.ipc, t.amat, base.amat, t.stall, base.stall, t.rep_fl,
                     base.rep_fl);
    }
}

static void test_unsupported_command_exits_2(void **state)
{
    (void)state;
    int rc = run_gpuest("run --preset fermi --workload bfs --scale tiny --set technique.compression=bdi", out,
                        sizeof out);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "technique.compression"));
}

/* The estimator as a user meets it: BDI compresses the lines backprop's kernels load (measured by
 * walking its launches), so the estimate with BDI must show fewer reply flits (under 4.5 of 5), an
 * IPC at least 1 % higher than without and no "no transform" note; fails when the transform is not
 * built or not passed to the model (the two estimates are then the same). The detailed simulation
 * measures +3.8 % (data/estimator/validate-fermi-backprop-small.csv, compression_bdi); this
 * calibration estimated +15 % while the hot links' capacity followed its kappa (5.9) and +2.8 %
 * since it is taken at the open model's own constants (docs/estimator.md, "NoC structure points on
 * mesh56"), which is why the bound is no longer 5 %. Coalescing has no transform: exit 2 naming
 * its key. */
/* A calibration kept with the test (the token-model fit of the v2 simulator's runs, the file
 * models/calibrations/fermi-backprop-small.cal had before the kernel phases), so that a refit of the
 * shipped calibrations does not move what this test checks: the transform, not a fit. */
#define EST "estimate --preset fermi --workload backprop --scale small --calibration tests/technique/data/fermi-backprop-small.cal"

static double est_ipc(void)
{
    const char *p = strstr(out, "\npoint");
    assert_non_null(p);
    p = strstr(p + 1, "\npoint"); /* the row after the header */
    assert_non_null(p);
    char name[32];
    double ipc = 0;
    assert_int_equal(sscanf(p + 1, "%31s %lf", name, &ipc), 2);
    return ipc;
}

static void test_estimate_applies_the_compression_transform(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest(EST, out, sizeof out), 0);
    double base = est_ipc();
    assert_int_equal(run_gpuest(EST " --set technique.compression=bdi", out, sizeof out), 0);
    double bdi = est_ipc();
    assert_null(strstr(out, "no transform given"));
    const char *tr = strstr(out, "technique transform: mean read reply ");
    assert_non_null(tr);
    double flits = atof(tr + strlen("technique transform: mean read reply "));
    if (!(flits < 4.5 && bdi > base * 1.01))
        fail_msg("BDI estimate: %g reply flits (uncompressed 5), IPC %g vs %g without", flits, bdi, base);
    /* fermi's crossbar takes PCU multicasts: the estimate prints the measured saving */
    assert_int_equal(run_gpuest(EST " --set technique.coalescing=pcu", out, sizeof out), 0);
    assert_non_null(strstr(out, "saved by coalescing"));
    /* the WarpPool (refused before its transform existed) prints its merged shares and occupancy */
    assert_int_equal(run_gpuest(EST " --set technique.coalescing=warppool", out, sizeof out), 0);
    assert_non_null(strstr(out, "technique transform: WarpPool, merged line requests"));
    assert_int_equal(run_gpuest(EST " --set technique.coalescing=pcu+warppool", out, sizeof out), 0);
    assert_non_null(strstr(out, "saved by coalescing"));
    assert_non_null(strstr(out, "WarpPool"));
    /* remote-L1 probing: every scenario is estimated (rp, ccn and la_llc were refused before) */
    assert_int_equal(run_gpuest(EST " --set technique.probing=pp", out, sizeof out), 0);
    assert_non_null(strstr(out, "served by a remote L1"));
    assert_int_equal(run_gpuest(EST " --set technique.probing=rp --set technique.probe_cores=14", out, sizeof out), 0);
    assert_non_null(strstr(out, "served by a remote L1"));
    assert_int_equal(run_gpuest(EST " --set technique.probing=ccn", out, sizeof out), 0);
    assert_non_null(strstr(out, "served by a remote L1"));
    assert_int_equal(run_gpuest(EST " --set technique.probing=la_llc", out, sizeof out), 0);
    assert_non_null(strstr(out, "technique transform: LA-LLC"));
    /* a combination the simulator refuses stays refused (a PCU multicast reply is not compressed) */
    assert_int_equal(run_gpuest(EST " --set technique.coalescing=pcu --set technique.compression=bdi", out, sizeof out),
                     2);
    assert_non_null(strstr(out, "technique.coalescing"));
}

/* Coalescing as a user meets it: gaussian's rows are read by every SM, so on mesh56 the PCUs must
 * cut the reply flits (each grouped read no longer gets a packet of its own) and print their
 * lines; fails when the front-end hooks are not installed. mesh56 needs 9-flit VC buffers for
 * its 9-flit multicast replies, and refuses PCUs without them (exit 2). */
#define PCU_RUN "simulate --preset mesh56 --workload gaussian --scale tiny --set noc.buffer_flits=9"

static void test_coalescing_changes_the_reply_traffic(void **state)
{
    (void)state;
    total_t base, t;
    assert_int_equal(run_gpuest(PCU_RUN, out, sizeof out), 0);
    total_row(&base);
    assert_int_equal(run_gpuest(PCU_RUN " --set technique.coalescing=pcu", out, sizeof out), 0);
    total_row(&t);
    assert_non_null(strstr(out, "technique coalescing.actual_locality = "));
    assert_non_null(strstr(out, "technique coalescing.rgr_occupancy = "));
    assert_non_null(strstr(out, "technique coalescing.grouped_per_reply = "));
    if (!(atof(t.rep_fl) < 0.8 * atof(base.rep_fl)))
        fail_msg("reply flits with PCUs %s, without %s", t.rep_fl, base.rep_fl);
    const char *p = strstr(out, "coalescing.multicast_replies = ");
    assert_non_null(p);
    assert_true(atof(p + strlen("coalescing.multicast_replies = ")) > 0);
    /* 8-flit buffers, compression alongside, and names we do not implement: exit 2 */
    assert_int_equal(run_gpuest("simulate --preset mesh56 --workload gaussian --scale tiny "
                                "--set technique.coalescing=pcu", out, sizeof out), 2);
    assert_non_null(strstr(out, "noc.buffer_flits"));
    assert_int_equal(run_gpuest(PCU_RUN " --set technique.coalescing=pcu --set technique.compression=bdi", out,
                                sizeof out), 2);
    assert_int_equal(run_gpuest(PCU_RUN " --set technique.coalescing=warp_pool", out, sizeof out), 2);
    /* WarpPool, alone and with PCUs: runs, reports its pools' counters */
    assert_int_equal(run_gpuest(PCU_RUN " --set technique.coalescing=pcu+warppool", out, sizeof out), 0);
    assert_non_null(strstr(out, "technique warppool.merged = "));
    assert_non_null(strstr(out, "technique coalescing.actual_locality = "));
    assert_int_equal(run_gpuest("simulate --preset mesh56 --workload gaussian --scale tiny "
                                "--set technique.coalescing=warppool", out, sizeof out), 0);
    assert_non_null(strstr(out, "technique warppool.requests = "));
    assert_null(strstr(out, "technique coalescing.")); /* no PCUs */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm_changes_the_run),
        cmocka_unit_test(test_unsupported_command_exits_2),
        cmocka_unit_test(test_estimate_applies_the_compression_transform),
        cmocka_unit_test(test_coalescing_changes_the_reply_traffic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
