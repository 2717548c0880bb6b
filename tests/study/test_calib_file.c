/* test_calib_file.c: calibration files round-trip exactly; every malformed input names file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "study/study.h"

static void sample_calibration(gpuest_calibration_t *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->preset, sizeof c->preset, "mesh56");
    snprintf(c->workload, sizeof c->workload, "hotspot");
    c->scale = GPUEST_SCALE_TINY;
    c->seed = 7;
    c->fit.params = (gpuest_gpu_params_t){0.1234567890123, 0.75, 1.0 / 3.0};
    for (int a = 0; a < GPUEST_GPU_PARAMS; a++)
        for (int b = 0; b < GPUEST_GPU_PARAMS; b++)
            c->fit.covar[a][b] = a == b ? 0.01 * (a + 1) : 1e-5 / 7.0;
    c->fit.chi2 = 0.0123;
    c->fit.dof = 8;
    c->fit.iterations = 12;
    c->fit.rms_rel_error = 0.031;
    c->cv_ipc = 0.04;
    c->cv_amat = 0.05;
    c->util_lo = 0.5;
    c->util_hi = 0.9;
    c->calib_seconds = 3.25;
    c->nruns = 2;
    for (int i = 0; i < 2; i++) {
        gpuest_study_run_t *r = &c->runs[i];
        snprintf(r->label, sizeof r->label, i ? "flit_x2" : "baseline");
        snprintf(r->sets, sizeof r->sets, i ? "noc.flit_bytes=32;l2.hit_latency=60" : "");
        r->ipc = 100.0 / 3.0 + i;
        r->amat = 5874.34314516129 + i;
        r->mc_stall = 0.71670212260226762;
        r->cycles = 126213 + (uint64_t)i;
        r->in = (gpuest_model_workload_t){8.6426059318049315, 0.0055, 0.007, 0.87, 0.077, 0.84, 0.26, 27.58, 0.28, 5.96,
                                          0.0, 0.0, 0.0, 0.0, 26.222660893190696 + i, 328.95513730199161, 0.0, 0.0,
                                          0.35 + 0.01 * i, 0.0, 0.0};
    }
    /* the warp profile record: written once, applied to every run (all run inputs round-trip) */
    static const double prof[4] = {43.343240304458135, 8.4373088685015283, 2.2844036697247705, 36.795107033639141};
    gpuest_calibration_set_profile(c, prof);
}

static void round_trip(void **state)
{
    (void)state;
    gpuest_calibration_t a, b;
    sample_calibration(&a);
    gpuest_error_t err;
    const char *path = GPUEST_BINARY_DIR "/test_calib_roundtrip.cal";
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_calibration_read(path, &b, &err), GPUEST_OK);
    assert_string_equal(a.preset, b.preset);
    assert_string_equal(a.workload, b.workload);
    assert_int_equal(a.scale, b.scale);
    assert_true(a.seed == b.seed);
    assert_memory_equal(&a.fit.params, &b.fit.params, sizeof a.fit.params); /* bit for bit */
    assert_memory_equal(a.fit.covar, b.fit.covar, sizeof a.fit.covar);
    assert_true(a.cv_ipc == b.cv_ipc && a.util_hi == b.util_hi && a.calib_seconds == b.calib_seconds);
    assert_int_equal(b.nruns, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(a.runs[i].label, b.runs[i].label);
        assert_string_equal(a.runs[i].sets, b.runs[i].sets);
        assert_true(a.runs[i].ipc == b.runs[i].ipc && a.runs[i].amat == b.runs[i].amat);
        assert_true(a.runs[i].cycles == b.runs[i].cycles);
        assert_memory_equal(&a.runs[i].in, &b.runs[i].in, sizeof a.runs[i].in);
    }
    assert_true(b.runs[1].in.insts_per_epoch == 8.4373088685015283 && b.runs[1].in.ldst_block_per_read == 27.222660893190696);
    remove(path);
}

/* Replaces the first line starting with `key` (or appends when key is NULL) in a valid file. */
static char *edited(const char *valid, const char *key, const char *replacement)
{
    size_t n = strlen(valid) + strlen(replacement) + 8;
    char *out = calloc(1, n);
    const char *p = valid;
    int done = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p + 1) : strlen(p);
        if (!done && key && strncmp(p, key, strlen(key)) == 0) {
            strcat(out, replacement);
            done = 1;
        } else {
            strncat(out, p, len);
        }
        p += len;
    }
    if (!key)
        strcat(out, replacement);
    return out;
}

static void bad_inputs(void **state)
{
    (void)state;
    gpuest_calibration_t a, b;
    sample_calibration(&a);
    gpuest_error_t err;
    const char *path = GPUEST_BINARY_DIR "/test_calib_bad.cal";
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    unsigned char *data;
    size_t size;
    assert_int_equal(gpuest_read_file(path, &data, &size, &err), GPUEST_OK);
    remove(path);
    const char *valid = (const char *)data;
    /* line 2 is "format 1"; the runs are the last two lines (16 and 17) */
    static const struct {
        const char *key, *replacement, *expect;
    } cases[] = {
        {"format", "format 2\n", "cal:2: format 2"},
        {"preset", "preset\n", "cal:3: record 'preset' takes 1 value"},
        {"param eta", "param eta 1.5\n", "cal:8: parameter eta = 1.5 outside"},
        {"param eta", "param gamma 0.5\n", "cal:8: unknown parameter 'gamma'"},
        {"chi2", "chi2 0.1x\n", "cal:11: chi2: expected a finite number, got '0.1x'"},
        {"cv_ipc", "cv_ipc -1\n", "cal:15: cv_ipc: expected a value >= 0"},
        {"util_range", "util_range 0.9 0.5\n", "cal:17: util_range: low above high"},
        {"rms", "colour blue\n", "cal:14: unknown record 'colour'"},
        {"dof", "seed 3\n", "cal:12: record 'seed' appears twice"},
        /* found by fuzzing: a count past INT_MAX was converted to int (undefined behaviour) */
        {"dof", "dof 1972786430005726\n", "cal:12: dof: expected a whole number"},
        {"dof", "dof 2.5\n", "cal:12: dof: expected a whole number"},
        {"calib_seconds", "# no timing\n", "missing record 'calib_seconds'"},
        {"run baseline", "run baseline - 1 2 3\n", "record 'run' takes 24 value(s)"},
        {"warp_profile", "warp_profile 43 8 2\n", "record 'warp_profile' takes 4 value(s)"},
        {"warp_profile", "warp_profile 0 8 2 3\n", "resident warps and instructions per epoch must be > 0"},
        {"run flit_x2", "run flit_x2 noc.flit_bytes=32 1 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1 -1 5\n",
         "LD/ST blocking, its miss latency, the write size and the DRAM turnarounds must be >= 0"},
        {"run flit_x2", "run flit_x2 noc.flit_bytes=32 1 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1 2 5 -32\n",
         "LD/ST blocking, its miss latency, the write size and the DRAM turnarounds must be >= 0"},
        {"run baseline", "run baseline - 0 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1\n", "IPC, AMAT and instructions per "
                                                                                   "request must be > 0"},
        {"run flit_x2", "run flit_x2 noc.flit_bytes=32 1 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 nan\n", "expected a finite "
                                                                                                 "number, got 'nan'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = edited(valid, cases[i].key, cases[i].replacement);
        gpuest_error_clear(&err);
        gpuest_err rc = gpuest_calibration_parse(text, "x.cal", &b, &err);
        if (rc != GPUEST_EPARSE || !strstr(err.msg, cases[i].expect))
            fail_msg("case %zu (%s): got %d '%s', expected '%s'", i, cases[i].replacement, rc, err.msg,
                     cases[i].expect);
        free(text);
    }
    /* the baseline must come first */
    char *text = edited(valid, "run baseline", "");
    strcat(text, "run baseline - 1 2 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1\n");
    assert_int_equal(gpuest_calibration_parse(text, "x.cal", &b, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, "first run must be the baseline"));
    free(text);
    free(data);
}

/* A calibration records the simulator generation and the machine it was fitted on; files without
 * the records (pre-v2) still load and are reported stale, as are other generations and machines. */
static void staleness(void **state)
{
    (void)state;
    gpuest_calibration_t a, b;
    gpuest_error_t err;
    char why[320];
    sample_calibration(&a);
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh56", &err), GPUEST_OK);
    a.sim_generation = GPUEST_STUDY_SIM_GENERATION;
    assert_int_equal(gpuest_study_machine_hash(&cfg, &a.machine_hash, &err), GPUEST_OK);
    const char *path = GPUEST_BINARY_DIR "/test_calib_stale.cal";
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_calibration_read(path, &b, &err), GPUEST_OK);
    remove(path);
    assert_int_equal(b.sim_generation, GPUEST_STUDY_SIM_GENERATION);
    assert_true(b.machine_hash == a.machine_hash);
    assert_int_equal(gpuest_calibration_stale(&b, why, sizeof why), 0);

    /* one key of the machine changed: another hash, reported */
    gpuest_config_t other = cfg;
    other.dram.tCL += 1;
    uint64_t h2 = 0;
    assert_int_equal(gpuest_study_machine_hash(&other, &h2, &err), GPUEST_OK);
    assert_true(h2 != a.machine_hash);
    b.machine_hash = h2;
    assert_int_equal(gpuest_calibration_stale(&b, why, sizeof why), 1);
    assert_non_null(strstr(why, "differs from preset 'mesh56'"));

    /* a technique key is a design point, not the machine: the hash ignores it */
    gpuest_config_t with_tech = cfg;
    with_tech.technique.pcu_rgrs += 1;
    uint64_t h3 = 0;
    assert_int_equal(gpuest_study_machine_hash(&with_tech, &h3, &err), GPUEST_OK);
    assert_true(h3 == a.machine_hash);

    /* another generation */
    b.machine_hash = a.machine_hash;
    b.sim_generation = 1;
    assert_int_equal(gpuest_calibration_stale(&b, why, sizeof why), 1);
    assert_non_null(strstr(why, "generation 1"));

    /* a file without the records (written before v2) loads, and is stale */
    sample_calibration(&a);
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_calibration_read(path, &b, &err), GPUEST_OK);
    remove(path);
    assert_int_equal(b.sim_generation, 0);
    assert_true(b.machine_hash == 0);
    assert_int_equal(gpuest_calibration_stale(&b, why, sizeof why), 1);
    assert_non_null(strstr(why, "pre-v2"));

    /* malformed optional records */
    static const char *const bad[][2] = {{"simulator 0\n", "simulator '0'"},
                                         {"machine xyz\n", "machine 'xyz'"},
                                         {"simulator 2\nsimulator 2\n", "record 'simulator' appears twice"},
                                         {"machine 1 2\n", "record 'machine' takes 1 value"}};
    unsigned char *data;
    size_t size;
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_read_file(path, &data, &size, &err), GPUEST_OK);
    remove(path);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *text = edited((const char *)data, NULL, bad[i][0]);
        gpuest_error_clear(&err);
        gpuest_err rc = gpuest_calibration_parse(text, "x.cal", &b, &err);
        if (rc != GPUEST_EPARSE || !strstr(err.msg, bad[i][1]))
            fail_msg("case %zu: got %d '%s', expected '%s'", i, rc, err.msg, bad[i][1]);
        free(text);
    }
    free(data);
}

/* Kernel phases: written and read back bit for bit (names, weights, inputs, active warps); a file
 * without them loads with none (the run as one phase); malformed phase records name their line. */
static void phases_round_trip(void **state)
{
    (void)state;
    gpuest_calibration_t a, b;
    sample_calibration(&a);
    a.nphases = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(a.phase_names[i], sizeof a.phase_names[i], i ? "bfs_kernel2+" : "bfs_kernel");
        a.phases[i].warp_insts = 389266.0 + i;
        a.phases[i].line_reqs = 1.0 / 3.0 + i;
        a.phases[i].reads = 1033406.0 / 7.0;
        a.phases[i].w = a.runs[0].in;
        a.phases[i].w.active_warps = 0.6 + 0.1 * i;
        a.phases[i].w.insts_per_request = 1.69 + i;
        a.phases[i].w.write_bytes = 64.0 + 16.003905296558457 * i; /* backprop's two kernels */
    }
    a.runs[1].in.write_bytes = 73.146045473566744;
    gpuest_error_t err;
    const char *path = GPUEST_BINARY_DIR "/test_calib_phases.cal";
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_calibration_read(path, &b, &err), GPUEST_OK);
    assert_int_equal(b.nphases, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(a.phase_names[i], b.phase_names[i]);
        assert_memory_equal(&a.phases[i], &b.phases[i], sizeof a.phases[i]);
    }
    assert_true(b.phases[1].w.write_bytes == 80.003905296558457 && b.runs[1].in.write_bytes == 73.146045473566744 &&
                b.runs[0].in.write_bytes == 0);
    /* the token form clears the scoreboard fields of the phases the model reads, keeps the rest */
    gpuest_model_phase_t mp[GPUEST_MODEL_MAX_PHASES];
    assert_int_equal(gpuest_calibration_model_phases(&b, mp), 2);
    assert_true(mp[1].w.insts_per_epoch == a.phases[1].w.insts_per_epoch);
    static const double none[4] = {0, 0, 0, 0};
    gpuest_calibration_set_profile(&b, none);
    assert_int_equal(gpuest_calibration_model_phases(&b, mp), 2);
    assert_true(mp[1].w.insts_per_epoch == 0 && mp[1].w.resident_warps == 0 && mp[1].w.active_warps == a.phases[1].w.active_warps &&
                mp[1].w.insts_per_request == a.phases[1].w.insts_per_request);
    unsigned char *data;
    size_t size;
    assert_int_equal(gpuest_read_file(path, &data, &size, &err), GPUEST_OK);
    remove(path);
    const char *valid = (const char *)data;
    static const char ok20[] = " 1 1 1 8 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 0\n";
    char nine[4096] = "";
    for (int i = 0; i < 9; i++)
        snprintf(nine + strlen(nine), sizeof nine - strlen(nine), "phase k%d%s", i, ok20);
    /* files written before the write size: phases of 20 numbers and runs of 20 load with 0 (a full line) */
    {
        char *old = edited(valid, "phase bfs_kernel2+", "phase k2 1 1 1 8 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 0.5\n");
        char *old2 = edited(old, "run flit_x2", "run flit_x2 noc.flit_bytes=32 1 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1 2 5\n");
        gpuest_error_clear(&err);
        if (gpuest_calibration_parse(old2, "x.cal", &b, &err) != GPUEST_OK)
            fail_msg("a file without the write size: %s", err.msg);
        assert_true(b.phases[1].w.active_warps == 0.5 && b.phases[1].w.write_bytes == 0);
        assert_true(b.runs[1].in.block_miss_latency == 5 && b.runs[1].in.write_bytes == 0);
        free(old);
        free(old2);
    }
    /* files written before the DRAM turnarounds: phases and runs of 21 numbers load with 0 (no bus
     * turnaround); negative turnarounds are refused */
    {
        char *old = edited(valid, "phase bfs_kernel2+", "phase k2 1 1 1 8 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 0.5 64\n");
        char *old2 = edited(old, "run flit_x2", "run flit_x2 noc.flit_bytes=32 1 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1 2 5 64\n");
        gpuest_error_clear(&err);
        if (gpuest_calibration_parse(old2, "x.cal", &b, &err) != GPUEST_OK)
            fail_msg("a file without the DRAM turnarounds: %s", err.msg);
        assert_true(b.phases[1].w.write_bytes == 64 && b.phases[1].w.dram_turns_per_access == 0);
        assert_true(b.runs[1].in.write_bytes == 64 && b.runs[1].in.dram_turns_per_access == 0);
        char *bad = edited(valid, "run flit_x2", "run flit_x2 noc.flit_bytes=32 1 1 0 0 0 0 1 1 8 0 0 0 0 0 0 1 1 1 2 5 64 -0.5\n");
        gpuest_error_clear(&err);
        assert_int_equal(gpuest_calibration_parse(bad, "x.cal", &b, &err), GPUEST_EPARSE);
        assert_non_null(strstr(err.msg, "the DRAM turnarounds must be >= 0"));
        free(old);
        free(old2);
        free(bad);
    }
    const struct {
        const char *replacement, *expect;
    } cases[] = {
        {"phase k 1 2 3\n", "record 'phase' takes 23 value(s)"},
        {"phase k 1 1 1 8 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 0 0 0 7\n", "record 'phase' takes 23 value(s)"},
        {"phase k 1 1 1 8 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 -1\n", "every field must be >= 0"},
        {"phase k 0 1 1 8 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 0\n", "warp instructions and instructions per request"},
        {"phase k 1 1 1 inf 0 0 0 0 0 0 32 0 0 0 0 0 0 0 0 0\n", "expected a finite number, got 'inf'"},
        {nine, "more than the 8 phases"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = edited(valid, "phase bfs_kernel2+", cases[i].replacement);
        gpuest_error_clear(&err);
        gpuest_err rc = gpuest_calibration_parse(text, "x.cal", &b, &err);
        if (rc != GPUEST_EPARSE || !strstr(err.msg, cases[i].expect) || !strstr(err.msg, "x.cal:"))
            fail_msg("phase case %zu: got %d '%s', expected '%s'", i, rc, err.msg, cases[i].expect);
        free(text);
    }
    free(data);
    /* a file written before the phases: none */
    sample_calibration(&a);
    assert_int_equal(gpuest_calibration_write(&a, path, &err), GPUEST_OK);
    assert_int_equal(gpuest_calibration_read(path, &b, &err), GPUEST_OK);
    assert_int_equal(b.nphases, 0);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(round_trip), cmocka_unit_test(bad_inputs),
                                       cmocka_unit_test(staleness), cmocka_unit_test(phases_round_trip)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
