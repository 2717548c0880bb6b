/* test_config_cli.c: the gpuest program's frame and 'config' command, run as a user would. */
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

static void test_frame(void **state)
{
    (void)state;
    assert_int_equal(run_gpuest("--version", out, sizeof out), 0);
    assert_non_null(strstr(out, "gpuest 0."));
    assert_int_equal(run_gpuest("--help", out, sizeof out), 0);
    assert_non_null(strstr(out, "simulate"));
    assert_non_null(strstr(out, "estimate"));
    assert_non_null(strstr(out, "sample"));
    assert_int_equal(run_gpuest("confg show", out, sizeof out), 2);
    assert_non_null(strstr(out, "did you mean 'config'"));
    assert_int_equal(run_gpuest("estimate --calibration /nonexistent/x.cal", out, sizeof out), 2);
    assert_non_null(strstr(out, "gpuest calibrate")); /* says how to make one */
    assert_int_equal(run_gpuest("config --help", out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: gpuest config"));
    /* the main job on the default machine (the hybrid; a committed calibration keeps it short) */
    assert_int_equal(run_gpuest("run --scale tiny --workload hotspot --calibration " GPUEST_SOURCE_DIR
                                "/models/calibrations/mesh56-hotspot-tiny.cal",
                                out, sizeof out),
                     0);
    assert_non_null(strstr(out, "mesh56"));
    assert_non_null(strstr(out, "detailed simulation"));
    assert_non_null(strstr(out, "IPC error over the 3 simulated points"));
}

static void test_show_then_check_round_trip(void **state)
{
    (void)state;
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/cfg_roundtrip_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    const char *presets[] = {"fermi", "mesh56", "mesh28", "latte15"};
    for (int i = 0; i < 4; i++) {
        snprintf(args, sizeof args, "config show --preset %s --set noc.header_bytes=4 > %s", presets[i], path);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        snprintf(args, sizeof args, "config check %s", path);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        assert_string_equal(out, "ok\n");
        /* Showing the file again prints the identical text. */
        char first[1 << 15];
        snprintf(args, sizeof args, "config show --preset %s --set noc.header_bytes=4", presets[i]);
        run_gpuest(args, first, sizeof first);
        snprintf(args, sizeof args, "config show %s", path);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        assert_string_equal(out, first);
    }
    unlink(path);
}

static void test_bad_file_messages(void **state)
{
    (void)state;
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/cfg_bad_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    test_write_text(path, "[preset]\nname = mesh56\n\n[l1]\nasoc = 8\n");
    snprintf(args, sizeof args, "config check %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, ":5: unknown key 'l1.asoc' (did you mean 'l1.assoc'?)"));
    test_write_text(path, "[l1]\nsize_bytes = 3000\n");
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, ":2: l1.size_bytes = 3000 is not divisible"));
    assert_int_equal(run_gpuest("config check /nonexistent/x.ini", out, sizeof out), 1);
    assert_non_null(strstr(out, "cannot open"));
    assert_int_equal(run_gpuest("config show --preset volta", out, sizeof out), 2);
    assert_non_null(strstr(out, "valid presets"));
    assert_int_equal(run_gpuest("config show --set noc.k=1", out, sizeof out), 2);
    assert_non_null(strstr(out, "--set: noc.k"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_show_then_check_round_trip),
        cmocka_unit_test(test_bad_file_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
