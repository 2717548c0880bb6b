/* test_warp_profile.c: the warp scoreboard profile (src/study/warp_profile.c) on a hand-written
 * trace whose epochs are worked by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "study/study.h"

/* One CTA of two warps (64 threads), one lane active, on fermi (ALU latency 4).
 * Warp 0: two loads (R1, R2; one line each), an ALU op R3 <- R4, an ALU op R5 <- R3 (waits for R3:
 *   issued at own cycle 2, result at 6, so it issues at 6 instead of 3: 3 cycles of dependence),
 *   an ALU op reading R1 (a loaded register: the warp waits for its loads; epoch 1 = 4 instructions,
 *   2 lines, 3 cycles), then its end (epoch 2 = that last instruction, no load).
 * Warp 1: nine independent loads: the ninth finds the 8 load slots taken (epoch 1 = 8 loads,
 *   8 lines), and the end waits for it (epoch 2 = 1 load, 1 line).
 * Totals: 4 epochs, 14 instructions, 11 lines, 3 dependence cycles; resident warps 2. */
static const char *trace_text(void)
{
    static char buf[4096];
    int n = snprintf(buf, sizeof buf,
                     "gpuest_trace,2\nalloc,a,0x10000,4096,fp32,0\nkernel,0,k,1,1,1,64,1,1,0,16\n"
                     "inst,0,0,0,0,load,4,00000001,0x10000,1,\n"
                     "inst,0,0,0,8,load,4,00000001,0x10080,2,\n"
                     "inst,0,0,0,16,alu,0,00000001,,3,4\n"
                     "inst,0,0,0,24,alu,0,00000001,,5,3\n"
                     "inst,0,0,0,32,alu,0,00000001,,6,1\n");
    for (int k = 0; k < 9; k++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "inst,0,0,1,%d,load,4,00000001,0x%x,%d,\n", 8 * k,
                      0x10000 + 128 * k, 10 + k);
    return buf;
}

static void profile_by_hand(void **state)
{
    (void)state;
    char path[] = "/tmp/gpuest_wp_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(trace_text(), f);
    fclose(f);
    gpuest_error_t err;
    gpuest_workload_t *wl = NULL;
    gpuest_err rc = gpuest_workload_open_csv(path, NULL, &wl, &err);
    unlink(path);
    assert_int_equal(rc, GPUEST_OK);
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    assert_int_equal(cfg.core.alu_latency, 4); /* the hand count assumes it */
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    assert_int_equal(gpuest_study_warp_profile_of(&cfg, wl, &w, &err), GPUEST_OK);
    gpuest_workload_destroy(wl);
    assert_true(fabs(w.resident_warps - 2.0) < 1e-12);
    assert_true(fabs(w.insts_per_epoch - 14.0 / 4.0) < 1e-12);
    assert_true(fabs(w.lines_per_epoch - 11.0 / 4.0) < 1e-12);
    assert_true(fabs(w.dep_per_epoch - 3.0 / 4.0) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(profile_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
