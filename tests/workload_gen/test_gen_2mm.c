/* test_gen_2mm.c: PolyBench 2MM generator: tmp and D elements worked by hand from the init formulas at
 * tiny size, and the two kernels' per-k accesses (left operand one broadcast word, right operand one
 * full line) of one warp. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "gt_util.h"

#define N 64 /* tiny: NI = NJ = NK = NL = 64 */

/* With A = ik/N, B = k(j+1)/N, C = k(j+3)/N, D0 = i(j+2)/N and S2 = sum k^2 = 85344,
 * S1 = sum k = 2016 over k < 64:
 *   tmp[i][j] = alpha sum_k (ik/N)(k(j+1)/N) = alpha i (j+1) S2 / N^2
 *   D[i][j] = beta i (j+2)/N + sum_k tmp[i][k] k (j+3)/N = beta i (j+2)/N + alpha i S2 (j+3)(S2+S1)/N^3.
 * Element (3, 5) is not symmetric in i and j, so a transposed operand, a swapped init formula
 * (j+1 for j+3), a dropped beta or alpha, or kernel2 reading tmp before kernel1 wrote it shows. */
static void test_2mm_hand(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("2mm", GPUEST_SCALE_TINY, 1);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 2);
    assert_string_equal(r.names[0], "mm2_kernel1");
    assert_string_equal(r.names[1], "mm2_kernel2");
    assert_int_equal(r.outside, 0);
    const float *tmp = gt_data(wl, "tmp"), *d = gt_data(wl, "D");
    const double alpha = 32412, beta = 2123, s2 = 85344, s1 = 2016, n = N;
    double t35 = alpha * 3 * 6 * s2 / (n * n);
    double d35 = beta * 3 * 7 / n + alpha * 3 * s2 * 8 * (s2 + s1) / (n * n * n);
    assert_true(fabs(tmp[3 * N + 5] - t35) <= 1e-5 * t35);
    assert_true(fabs(d[3 * N + 5] - d35) <= 1e-5 * d35);
    assert_true(d[0 * N + 7] == 0.0f); /* row 0 of A is zero and D0[0][*] = 0 */
    gpuest_workload_destroy(wl);
}

/* Kernel `launch`, CTA (1,2) of the 2 x 8 grid (linear 5), warp 3: i = 19, j = 32..63. Kernel 1
 * stores tmp = 0 first; kernel 2 loads D and stores D * beta. Then per k: left[19][k] is one word
 * for all 32 lanes (one line, one sector), right[k][32..63] is the second half line of row k. */
static void check_warp(uint32_t launch, const char *left, const char *right, const char *out, int first)
{
    gpuest_workload_t *wl = gt_create("2mm", GPUEST_SCALE_TINY, 1);
    uint64_t lb = gt_base(wl, left), rb = gt_base(wl, right), ob = gt_base(wl, out);
    gt_warp_t w;
    gt_capture(wl, launch, 5, 3, GT_MAX_MEM, &w);
    assert_int_equal(w.launch.grid[0], 2);
    assert_int_equal(w.launch.grid[1], 8);
    assert_int_equal(w.mem[first - 1].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[first - 1].addr[0], ob + 4 * (19 * N + 32));
    int steps = (w.n - first) / 4;
    assert_true(steps >= 10);
    for (int k = 0; k < steps; k++) {
        const gpuest_inst_t *in = &w.mem[first + 4 * k];
        assert_int_equal(in[0].active_mask, 0xffffffffu);
        for (int lane = 0; lane < 32; lane++) {
            assert_int_equal(in[0].addr[lane], lb + 4 * (uint64_t)(19 * N + k));
            assert_int_equal(in[1].addr[lane], rb + 4 * (uint64_t)(k * N + 32 + lane));
        }
        gpuest_line_req_t req[GPUEST_COALESCE_MAX];
        assert_int_equal(gpuest_coalesce(&in[0], req), 1);
        assert_int_equal(req[0].line, lb + 19 * 256 + (uint64_t)(k / 32) * 128);
        assert_int_equal(req[0].sectors, 1u << ((k % 32) / 8));
        assert_int_equal(gpuest_coalesce(&in[1], req), 1);
        assert_int_equal(req[0].line, rb + 256 * (uint64_t)k + 128);
        assert_int_equal(req[0].sectors, 0xF);
        assert_int_equal(in[2].addr[0], ob + 4 * (19 * N + 32));
        assert_int_equal(in[3].op, GPUEST_MEM_STORE);
    }
    gpuest_workload_destroy(wl);
}

static void test_2mm_kernel1_warp(void **state)
{
    (void)state;
    check_warp(0, "A", "B", "tmp", 1);
}

static void test_2mm_kernel2_warp(void **state)
{
    (void)state;
    check_warp(1, "tmp", "C", "D", 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2mm_hand),
        cmocka_unit_test(test_2mm_kernel1_warp),
        cmocka_unit_test(test_2mm_kernel2_warp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
