/* test_gen_bicg.c: BICG generator: coalesced and row-walk kernels by hand, s = A^T r and q = A p for real. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>

#include "gt_util.h"

/* Tiny: NX = NY = 64, one CTA of 256 threads. */
static void test_bicg_kernel1_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("bicg", GPUEST_SCALE_TINY, 1);
    uint64_t A = gt_base(wl, "A"), r = gt_base(wl, "r"), s = gt_base(wl, "s");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 0, 12, &w);
    assert_string_equal(w.launch.name, "bicg_kernel1");
    /* j = k: s[j] = 0, then per i: s[j], A[i*64 + j] (coalesced), r[i] broadcast, s[j] */
    assert_int_equal(w.mem[0].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[0].addr[3], s + 12);
    assert_int_equal(w.mem[1].op, GPUEST_MEM_LOAD);
    assert_int_equal(w.mem[2].addr[0], A);
    assert_int_equal(w.mem[2].addr[31], A + 124);
    assert_int_equal(w.mem[3].addr[7], r);
    assert_int_equal(w.mem[6].addr[1], A + 256 + 4);        /* i = 1 */
    assert_int_equal(w.mem[7].addr[30], r + 4);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[6], req), 1);
    assert_int_equal(req[0].line, A + 256);
    assert_int_equal(req[0].sectors, 0xF);
    gpuest_workload_destroy(wl);
}

static void test_bicg_kernel2_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("bicg", GPUEST_SCALE_TINY, 1);
    uint64_t A = gt_base(wl, "A"), p = gt_base(wl, "p"), q = gt_base(wl, "q");
    gt_warp_t w;
    gt_capture(wl, 1, 0, 1, 12, &w);
    assert_string_equal(w.launch.name, "bicg_kernel2");
    /* i = 32 + k: q[i] = 0, then per j: q[i], A[i*64 + j] (row walk), p[j] */
    assert_int_equal(w.mem[0].addr[0], q + 128);
    assert_int_equal(w.mem[2].addr[0], A + 32 * 256);
    assert_int_equal(w.mem[2].addr[1], A + 33 * 256);
    assert_int_equal(w.mem[3].addr[9], p);
    assert_int_equal(w.mem[6].addr[0], A + 32 * 256 + 4);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[2], req), 32);
    assert_int_equal(req[31].line, A + 63 * 256);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

static void test_bicg_result(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("bicg", GPUEST_SCALE_TINY, 1);
    const float *A = gt_data(wl, "A"), *r = gt_data(wl, "r"), *p = gt_data(wl, "p");
    const float *s = gt_data(wl, "s"), *q = gt_data(wl, "q");
    gt_run_t run;
    gt_run_all(wl, NULL, NULL, &run);
    assert_int_equal(run.launches, 2);
    assert_int_equal(run.outside, 0);
    assert_int_equal(run.mem_insts, 2 * 2 * (1 + 64 * 4));
    for (int j = 0; j < 64; j++) {
        double a = 0, b = 0;
        for (int i = 0; i < 64; i++) {
            a += (double)A[i * 64 + j] * r[i];
            b += (double)A[j * 64 + i] * p[i];
        }
        assert_true(fabs(a - s[j]) <= 1e-4 * fabs(a) + 1e-3);
        assert_true(fabs(b - q[j]) <= 1e-4 * fabs(b) + 1e-3);
    }
    assert_true(s[10] > 0);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bicg_kernel1_addresses),
        cmocka_unit_test(test_bicg_kernel2_addresses),
        cmocka_unit_test(test_bicg_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
