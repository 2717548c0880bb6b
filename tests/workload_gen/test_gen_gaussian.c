/* test_gen_gaussian.c: Gaussian generator: 2(n-1) launches, hand-computed Fan1/Fan2 addresses, a solved system. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"

/* n = 16 at tiny scale: Fan1, Fan2 alternate 15 times each. */
static void test_gaussian_launches(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("gaussian", GPUEST_SCALE_TINY, 1);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 30);
    assert_int_equal(r.nnames, 2);
    assert_string_equal(r.names[0], "Fan1");
    assert_int_equal(r.per_name[0], 15);
    assert_string_equal(r.names[1], "Fan2");
    assert_int_equal(r.per_name[1], 15);
    assert_int_equal(r.outside, 0);
    /* Fan1: 1 CTA of 512 threads = 16 warps; Fan2: 4x4 CTAs of 16 threads = 1 warp */
    assert_int_equal(r.warps, 15 * 16 + 15 * 16);
    gpuest_workload_destroy(wl);
}

/* Fan1 at t = 0: lane k (k < 15) reads a[16*(k+1)] (64-byte stride: two lanes a
 * line), the pivot a[0] by every lane, and writes m[16*(k+1)]. */
static void test_gaussian_fan1_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("gaussian", GPUEST_SCALE_TINY, 1);
    uint64_t a = gt_base(wl, "a_cuda"), m = gt_base(wl, "m_cuda");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 0, 8, &w);
    assert_string_equal(w.launch.name, "Fan1");
    assert_int_equal(w.n, 3);
    assert_int_equal(w.mem[0].active_mask, 0x7fffu);
    assert_int_equal(w.mem[0].addr[0], a + 64);
    assert_int_equal(w.mem[0].addr[14], a + 960);
    assert_int_equal(w.mem[1].addr[9], a);
    assert_int_equal(w.mem[2].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[2].addr[3], m + 256);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 8);
    assert_int_equal(req[0].line, a);
    assert_int_equal(req[0].sectors, 0x4);
    assert_int_equal(req[1].line, a + 128);
    assert_int_equal(req[1].sectors, 0x5);
    assert_int_equal(req[7].line, a + 896);
    assert_int_equal(req[7].sectors, 0x5);
    assert_int_equal(gpuest_coalesce(&w.mem[1], req), 1);
    assert_int_equal(req[0].sectors, 0x1);
    /* Warp 1 of Fan1 has no row left (rows 32.. >= n-1-t): no memory access. */
    gpuest_workload_destroy(wl);
    wl = gt_create("gaussian", GPUEST_SCALE_TINY, 1);
    gt_capture(wl, 0, 0, 1, 8, &w);
    assert_int_equal(w.n, 0);
    gpuest_workload_destroy(wl);
}

/* Fan2 at t = 1 (launch 3), CTA (1,0): lane k has tx = k%4 (row offset),
 * ty = k/4 (column offset); x = 4+tx, y = ty. */
static void test_gaussian_fan2_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("gaussian", GPUEST_SCALE_TINY, 1);
    uint64_t a = gt_base(wl, "a_cuda"), m = gt_base(wl, "m_cuda"), b = gt_base(wl, "b_cuda");
    gt_warp_t w;
    gt_capture(wl, 3, 1, 0, 16, &w);
    assert_string_equal(w.launch.name, "Fan2");
    assert_int_equal(w.launch.block[0], 4);
    assert_int_equal(w.n, 8);
    assert_int_equal(w.mem[0].active_mask, 0xffffu);
    assert_int_equal(w.mem[0].addr[0], m + 388);   /* m[16*6+1] */
    assert_int_equal(w.mem[0].addr[5], m + 452);   /* m[16*7+1] */
    assert_int_equal(w.mem[1].addr[0], a + 68);    /* a[16*1+1] */
    assert_int_equal(w.mem[1].addr[5], a + 72);    /* a[16*1+2] */
    assert_int_equal(w.mem[2].addr[5], a + 456);   /* a[16*7+2] */
    assert_int_equal(w.mem[3].op, GPUEST_MEM_STORE);
    /* yidx == 0 lanes update b: b[1] and b[x+2] */
    assert_int_equal(w.mem[5].active_mask, 0xfu);
    assert_int_equal(w.mem[5].addr[2], b + 4);
    assert_int_equal(w.mem[6].addr[0], b + 24);
    assert_int_equal(w.mem[6].addr[3], b + 36);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[2], req), 2);
    assert_int_equal(req[0].line, a + 384);
    assert_int_equal(req[0].sectors, 0x5);
    assert_int_equal(req[1].line, a + 512);
    assert_int_equal(req[1].sectors, 0x5);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

/* After elimination a is upper triangular; back substitution must solve the
 * original system A x = 1. */
static void check_solve(gpuest_scale_t scale, int64_t n)
{
    gpuest_workload_t *wl = gt_create("gaussian", scale, 5);
    const float *a = gt_data(wl, "a_cuda"), *b = gt_data(wl, "b_cuda");
    double *a0 = malloc((size_t)(n * n) * sizeof *a0), *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n * n; i++)
        a0[i] = a[i];
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 2 * (n - 1));
    for (int64_t i = 1; i < n; i++)
        assert_true(fabs(a[i * n + i - 1]) < 1e-3 * fabs(a[i * n + i]));
    for (int64_t i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int64_t j = i + 1; j < n; j++)
            s -= a[i * n + j] * x[j];
        x[i] = s / a[i * n + i];
    }
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t j = 0; j < n; j++)
            s += a0[i * n + j] * x[j];
        worst = fmax(worst, fabs(s - 1.0));
    }
    assert_true(worst < 1e-2);
    free(a0), free(x);
    gpuest_workload_destroy(wl);
}

static void test_gaussian_solves(void **state)
{
    (void)state;
    check_solve(GPUEST_SCALE_TINY, 16);
}

static void test_gaussian_deterministic(void **state)
{
    (void)state;
    gt_run_t r1, r2, r3;
    gpuest_workload_t *w1 = gt_create("gaussian", GPUEST_SCALE_TINY, 3);
    gpuest_workload_t *w2 = gt_create("gaussian", GPUEST_SCALE_TINY, 3);
    gpuest_workload_t *w3 = gt_create("gaussian", GPUEST_SCALE_TINY, 4);
    gt_run_all(w1, NULL, NULL, &r1);
    gt_run_all(w2, NULL, NULL, &r2);
    gt_run_all(w3, NULL, NULL, &r3);
    assert_int_equal(r1.hash, r2.hash);
    assert_memory_equal(gt_data(w1, "a_cuda"), gt_data(w2, "a_cuda"), 16 * 16 * 4);
    /* another seed: same addresses, different values */
    assert_int_equal(r1.hash, r3.hash);
    assert_memory_not_equal(gt_data(w1, "a_cuda"), gt_data(w3, "a_cuda"), 16 * 16 * 4);
    gpuest_workload_destroy(w1);
    gpuest_workload_destroy(w2);
    gpuest_workload_destroy(w3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaussian_launches),
        cmocka_unit_test(test_gaussian_fan1_addresses),
        cmocka_unit_test(test_gaussian_fan2_addresses),
        cmocka_unit_test(test_gaussian_solves),
        cmocka_unit_test(test_gaussian_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
