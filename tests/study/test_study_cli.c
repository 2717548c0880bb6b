/* test_study_cli.c: calibrate / estimate / validate / sample as a user runs them (tiny scale). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_program.h"

static char out[1 << 16];

/* The committed calibration of hotspot (tiny) on fermi, made by 'gpuest calibrate'. */
#define CAL GPUEST_SOURCE_DIR "/models/calibrations/fermi-hotspot-tiny.cal"

static void estimate_point_and_batch(void **state)
{
    (void)state;
    char args[1024], csv[256], batch[256];
    snprintf(csv, sizeof csv, "%s/est_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "estimate --preset fermi --workload hotspot --calibration %s --set l2.hit_latency=60 "
                                "--csv %s", CAL, csv);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, "ipc,ipc_lo,ipc_hi,amat,amat_lo,amat_hi"));
    assert_non_null(fgets(line, sizeof line, f));
    double ipc, lo, hi;
    assert_int_equal(sscanf(strchr(line, ',') + 1, "%lf,%lf,%lf", &ipc, &lo, &hi), 3);
    assert_true(lo <= ipc && ipc <= hi && ipc > 0);
    fclose(f);
    remove(csv);
    /* batch: one point per line; a bad key names the batch file and line */
    snprintf(batch, sizeof batch, "%s/batch_%d.txt", GPUEST_BINARY_DIR, (int)getpid());
    test_write_text(batch, "noc.flit_bytes=16\n\nl2.hit_latency=60 dram.tCL=18\n");
    snprintf(args, sizeof args, "estimate --preset fermi --workload hotspot --calibration %s --batch %s", CAL, batch);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "line1"));
    assert_non_null(strstr(out, "line3"));
    test_write_text(batch, "noc.flit_bytes=16\nnoc.colour=3\n");
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, ":2"));
    remove(batch);
}

static void malformed_calibration(void **state)
{
    (void)state;
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/bad_%d.cal", GPUEST_BINARY_DIR, (int)getpid());
    test_write_text(path, "format 1\npreset fermi\nworkload hotspot\nscale tiny\nseed x\n");
    snprintf(args, sizeof args, "estimate --preset fermi --calibration %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, ":5: seed 'x'"));
    remove(path);
}

/* A calibration without the simulator and machine records (as every pre-v2 file) still
 * estimates (exit 0), with one warning line naming the file and the command that regenerates it. */
static void stale_calibration_warns(void **state)
{
    (void)state;
    FILE *in = fopen(CAL, "r");
    assert_non_null(in);
    char path[256], args[512], line[4096];
    snprintf(path, sizeof path, "%s/stale_%d.cal", GPUEST_BINARY_DIR, (int)getpid());
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    while (fgets(line, sizeof line, in))
        if (strncmp(line, "simulator ", 10) != 0 && strncmp(line, "machine ", 8) != 0)
            fputs(line, o);
    fclose(in);
    fclose(o);
    snprintf(args, sizeof args, "estimate --preset fermi --workload hotspot --scale tiny --calibration %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "warning: "));
    assert_non_null(strstr(out, "pre-v2"));
    assert_non_null(strstr(out, "regenerate it with 'gpuest calibrate --preset fermi --workload hotspot --scale tiny'"));
    assert_non_null(strstr(out, "estimate of hotspot on fermi"));
    remove(path);
}

static void validate_and_sample(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "validate --preset fermi --workload hotspot --scale tiny --calibration %s --points 2",
             CAL);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "IPC MAPE"));
    assert_non_null(strstr(out, "l2lat_x0.5"));
    /* technique points: one row each and the sign summary; an unknown algorithm is a usage error */
    snprintf(args, sizeof args, "validate --preset fermi --workload hotspot --scale tiny --calibration %s --points 1 "
             "--techniques bdi,coalescing=pcu", CAL);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "compression_bdi"));
    assert_non_null(strstr(out, "coalescing_pcu")); /* a key=value item, labelled key_value */
    assert_non_null(strstr(out, "sign right in"));
    snprintf(args, sizeof args, "validate --preset fermi --workload hotspot --scale tiny --calibration %s --points 1 "
             "--techniques bdi,zip", CAL);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    /* an item that switches nothing on, and a bad value, are usage errors before any simulation */
    snprintf(args, sizeof args, "validate --preset fermi --workload hotspot --scale tiny --calibration %s --points 1 "
             "--techniques coalescing=none", CAL);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "switches no technique on"));
    snprintf(args, sizeof args, "validate --preset fermi --workload hotspot --scale tiny --calibration %s --points 1 "
             "--techniques filtering=df_zip", CAL);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_int_equal(run_gpuest("sample --preset fermi --workload hotspot --scale tiny --units 6 --unit-insts 300 "
                                "--warm 200 --compare",
                                out, sizeof out),
                     0);
    assert_non_null(strstr(out, "99.7 % intervals"));
    assert_non_null(strstr(out, "speedup"));
    assert_int_equal(run_gpuest("sample --preset fermi --workload hotspot --scale tiny --units 6 --unit-insts 300 "
                                "--warm 200 --bias-check",
                                out, sizeof out),
                     0);
    assert_non_null(strstr(out, "warming bias check: with twice the warming"));
    assert_int_equal(run_gpuest("sample --units 1", out, sizeof out), 2);
}

/* 'gpuest run' with a calibration file (no sampled runs): the design space's six points, three
 * of them simulated, the error summary; a calibration of another machine or workload is refused
 * (exit 2) instead of estimating with it. */
static void run_hybrid_with_calibration(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "run --preset fermi --workload hotspot --scale tiny --calibration %s", CAL);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "calibration: read from"));
    assert_non_null(strstr(out, "flit16_none"));
    assert_non_null(strstr(out, "flit64_bdi"));
    assert_non_null(strstr(out, "IPC error over the 3 simulated points"));
    /* --save-calibration writes the calibration used: run again from it, the same table (catches a
     * file not written, or written without the fit or the runs the estimates need) */
    static char first[sizeof out];
    const char *saved = GPUEST_BINARY_DIR "/run_saved.cal";
    snprintf(args, sizeof args, "run --preset fermi --workload hotspot --scale tiny --calibration %s --save-calibration %s",
             CAL, saved);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "\n2. design space"));
    snprintf(first, sizeof first, "%s", strstr(out, "\n2. design space"));
    snprintf(args, sizeof args, "run --preset fermi --workload hotspot --scale tiny --calibration %s", saved);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "\n2. design space"));
    assert_string_equal(strstr(out, "\n2. design space"), first);
    remove(saved);
    snprintf(args, sizeof args, "run --workload hotspot --scale tiny --calibration %s", CAL); /* mesh56 */
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "not hotspot on mesh56"));
}

/* gpuest sample's fast-forward flags: the default is the three options (back-pressure, miss stalls, L2
 * split; docs/estimator.md, "Sampled simulation: the default fast-forward switched?"), --ff-plain
 * reaches the plain schedule, options given with it add onto it, and --ff-gather implies it. Compared
 * through the units' --csv (no timings in it): fails when the default is not the three options, when
 * --ff-plain clears nothing, when --ff-gather runs on back-pressure's schedule, or when --ff-window is
 * refused or ignored (the merge that added the list of valued options once left it out). */
static void sample_fast_forward_flags(void **state)
{
    (void)state;
    const char *flags[] = {"", "--ff-backpressure --ff-miss-stalls --ff-l2-split",
                           "--ff-plain --ff-backpressure --ff-miss-stalls --ff-l2-split", "--ff-plain",
                           "--ff-plain --ff-backpressure", "--ff-gather", "--ff-plain --ff-gather", "--ff-window 1"};
    enum { N = sizeof flags / sizeof flags[0] };
    char csv[N][256], args[4096]; /* args: room for any csv[i] the compiler assumes */
    for (int i = 0; i < N; i++) {
        snprintf(csv[i], sizeof csv[i], "%s/ff_%d_%d.csv", GPUEST_BINARY_DIR, (int)getpid(), i);
        snprintf(args, sizeof args, "sample --preset fermi --workload spmv --scale tiny --units 6 --unit-insts 300 "
                 "--warm 200 %s --csv %s", flags[i], csv[i]);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    }
    assert_true(test_files_equal(csv[0], csv[1]));  /* the default is the three options */
    assert_true(test_files_equal(csv[0], csv[2]));  /* ... which --ff-plain plus the three gives back */
    assert_false(test_files_equal(csv[0], csv[3])); /* the plain schedule differs */
    assert_false(test_files_equal(csv[3], csv[4])); /* back-pressure alone: neither plain ... */
    assert_false(test_files_equal(csv[0], csv[4])); /* ... nor the three */
    assert_true(test_files_equal(csv[5], csv[6]));  /* --ff-gather implies --ff-plain */
    assert_false(test_files_equal(csv[0], csv[5]));
    assert_false(test_files_equal(csv[0], csv[7])); /* the two-speed fast-forward reaches the sampler */
    for (int i = 0; i < N; i++)
        remove(csv[i]);
}

/* The IPC of the estimate's point row ("point  IPC ..."), or -1. */
static double point_ipc(const char *text)
{
    const char *p = text;
    while ((p = strstr(p, "\npoint ")) != NULL) {
        double ipc;
        if (sscanf(p + 7, " %lf", &ipc) == 1)
            return ipc;
        p += 7;
    }
    return -1.0;
}

/* --l1-fill-timing: off (the default) leaves fermi nw's Static-BDI walk without a hit the plain L1
 * lacks (its reservations held to the warp's next turn: the estimate equals the baseline's, as the
 * simulator's does), on lands the fills after the baseline's miss latency in the SM's reads, which
 * frees room sooner and gives BDI a few hits (3.699 against 3.686 here). Fails when the option is
 * ignored (on equal to off), when the timing leaks into the default (off above the baseline), or
 * when a bad value is accepted. */
static void l1_fill_timing_option(void **state)
{
    (void)state;
    char args[1024];
    const char *cal = GPUEST_SOURCE_DIR "/models/calibrations/fermi-nw-small.cal";
    double ipc[3];
    const char *extra[3] = {"", "--set technique.l1_compression=static_bdi",
                            "--set technique.l1_compression=static_bdi --l1-fill-timing on"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "estimate --preset fermi --workload nw --scale small --calibration %s %s", cal,
                 extra[i]);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        ipc[i] = point_ipc(out);
        assert_true(ipc[i] > 0);
    }
    assert_true(ipc[1] == ipc[0]);
    assert_true(ipc[2] > ipc[1]);
    snprintf(args, sizeof args, "estimate --preset fermi --workload nw --scale small --calibration %s "
                                "--l1-fill-timing maybe", cal);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "expected on or off"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(estimate_point_and_batch), cmocka_unit_test(malformed_calibration),
                                       cmocka_unit_test(stale_calibration_warns), cmocka_unit_test(validate_and_sample),
                                       cmocka_unit_test(run_hybrid_with_calibration),
                                       cmocka_unit_test(sample_fast_forward_flags),
                                       cmocka_unit_test(l1_fill_timing_option)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
