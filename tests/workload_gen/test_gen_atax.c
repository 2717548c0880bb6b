/* test_gen_atax.c: ATAX generator: row-walk and coalesced kernels by hand, y = A^T (A x) computed for real. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "gt_util.h"

/* Tiny: NX = NY = 64, one CTA of 256 threads (8 warps, 2 with work). */
static void test_atax_kernel1_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("atax", GPUEST_SCALE_TINY, 1);
    uint64_t A = gt_base(wl, "A"), x = gt_base(wl, "x"), tmp = gt_base(wl, "tmp");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 1, 8, &w);
    assert_string_equal(w.launch.name, "atax_kernel1");
    assert_int_equal(w.launch.num_ctas, 1);
    assert_int_equal(w.launch.threads_per_cta, 256);
    /* i = 32 + k: tmp[i] RMW, A[i*64 + j] (one row per lane, 256 B apart), x[j] broadcast */
    assert_int_equal(w.mem[0].addr[0], tmp + 128);
    assert_int_equal(w.mem[1].addr[0], A + 32 * 256);
    assert_int_equal(w.mem[1].addr[31], A + 63 * 256);
    assert_int_equal(w.mem[2].addr[17], x);
    assert_int_equal(w.mem[3].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[5].addr[2], A + 34 * 256 + 4);   /* j = 1 */
    assert_int_equal(w.mem[6].addr[2], x + 4);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[1], req), 32);   /* fully uncoalesced */
    assert_int_equal(req[5].line, A + 37 * 256);
    assert_int_equal(req[5].sectors, 0x1);
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 1);
    assert_int_equal(req[0].sectors, 0xF);
    gpuest_workload_destroy(wl);
    /* Warp 2 has no row (i >= 64): no memory instruction at all. */
    wl = gt_create("atax", GPUEST_SCALE_TINY, 1);
    gt_capture(wl, 0, 0, 2, 8, &w);
    assert_int_equal(w.n, 0);
    gpuest_workload_destroy(wl);
}

static void test_atax_kernel2_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("atax", GPUEST_SCALE_TINY, 1);
    uint64_t A = gt_base(wl, "A"), y = gt_base(wl, "y"), tmp = gt_base(wl, "tmp");
    gt_warp_t w;
    gt_capture(wl, 1, 0, 1, 12, &w);
    assert_string_equal(w.launch.name, "atax_kernel2");
    /* j = 32 + k: y[j], A[i*64 + j] (coalesced), tmp[i] broadcast */
    assert_int_equal(w.mem[0].addr[1], y + 132);
    assert_int_equal(w.mem[1].addr[0], A + 128);
    assert_int_equal(w.mem[2].addr[31], tmp);
    assert_int_equal(w.mem[5].addr[0], A + 256 + 128);      /* i = 1 */
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[5], req), 1);
    assert_int_equal(req[0].line, A + 384);
    assert_int_equal(req[0].sectors, 0xF);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

static void test_atax_result(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("atax", GPUEST_SCALE_TINY, 1);
    const float *A = gt_data(wl, "A"), *x = gt_data(wl, "x"), *y = gt_data(wl, "y");
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 2);
    assert_int_equal(r.outside, 0);
    /* 2 working warps x 64 iterations x 4 accesses, twice */
    assert_int_equal(r.mem_insts, 2 * 2 * 64 * 4);
    double t[64];
    for (int i = 0; i < 64; i++) {
        t[i] = 0;
        for (int j = 0; j < 64; j++)
            t[i] += (double)(i * j) / 64.0 * (j * 3.14159265358979);
    }
    for (int j = 0; j < 64; j++) {
        double s = 0;
        for (int i = 0; i < 64; i++)
            s += (double)A[i * 64 + j] * t[i];
        assert_true(fabs(s - y[j]) <= 1e-4 * fabs(s) + 1e-3);
    }
    assert_true(fabs(x[2] - 6.2831853f) < 1e-5);
    assert_true(y[63] > 1e6);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atax_kernel1_addresses),
        cmocka_unit_test(test_atax_kernel2_addresses),
        cmocka_unit_test(test_atax_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
