/* test_gen_3dconv.c: 3DCONV generator: NI-2 launches, the 11 distinct taps by hand, values from the 15-term formula. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>

#include "gt_util.h"

/* Tiny: 8x8x8, one CTA of 32x8; launch 0 is plane i = 1. Warp 2 is row j = 2,
 * lanes k = 1..6 are interior. */
static void test_3dconv_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("3dconv", GPUEST_SCALE_TINY, 1);
    uint64_t A = gt_base(wl, "A"), B = gt_base(wl, "B");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 2, 16, &w);
    assert_string_equal(w.launch.name, "convolution3D_kernel");
    assert_int_equal(w.n, 12);
    assert_int_equal(w.mem[0].active_mask, 0x7Eu);
    assert_int_equal(w.mem[0].addr[1], A + 8 * 4);       /* A[(0*8+1)*8 + 0] */
    assert_int_equal(w.mem[0].addr[6], A + 13 * 4);
    assert_int_equal(w.mem[1].addr[1], A + 136 * 4);     /* A[(2*8+1)*8 + 0] */
    assert_int_equal(w.mem[2].addr[1], A + 73 * 4);      /* A[(1*8+1)*8 + 1] */
    assert_int_equal(w.mem[3].addr[1], A + 81 * 4);      /* A[(1*8+2)*8 + 1] */
    assert_int_equal(w.mem[10].addr[1], A + 154 * 4);    /* A[(2*8+3)*8 + 2] */
    assert_int_equal(w.mem[11].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[11].addr[6], B + 86 * 4);     /* B[(1*8+2)*8 + 6] */
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 1);
    assert_int_equal(req[0].line, A);
    assert_int_equal(req[0].sectors, 0x2);               /* bytes 32..55 */
    assert_int_equal(gpuest_coalesce(&w.mem[1], req), 1);
    assert_int_equal(req[0].line, A + 512);
    assert_int_equal(req[0].sectors, 0x2);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
    /* Rows 0 and 7 are borders: no memory access. */
    wl = gt_create("3dconv", GPUEST_SCALE_TINY, 1);
    gt_capture(wl, 0, 0, 7, 16, &w);
    assert_int_equal(w.n, 0);
    gpuest_workload_destroy(wl);
}

static double a_at(int i, int j, int k) { return i % 12 + 2 * (j % 7) + 3 * (k % 13); }

static void test_3dconv_values(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("3dconv", GPUEST_SCALE_TINY, 1);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 6);
    assert_int_equal(r.outside, 0);
    /* 6 planes x 6 interior rows x 12 accesses */
    assert_int_equal(r.mem_insts, 6 * 6 * 12);
    const float *B = gt_data(wl, "B");
    for (int i = 1; i < 7; i++)
        for (int j = 1; j < 7; j++)
            for (int k = 1; k < 7; k++) {
                double v = 2 * a_at(i - 1, j - 1, k - 1) + 4 * a_at(i + 1, j - 1, k - 1) + 5 * a_at(i - 1, j - 1, k - 1) +
                           7 * a_at(i + 1, j - 1, k - 1) - 8 * a_at(i - 1, j - 1, k - 1) + 10 * a_at(i + 1, j - 1, k - 1) -
                           3 * a_at(i, j - 1, k) + 6 * a_at(i, j, k) - 9 * a_at(i, j + 1, k) + 2 * a_at(i - 1, j - 1, k + 1) +
                           4 * a_at(i + 1, j - 1, k + 1) + 5 * a_at(i - 1, j, k + 1) + 7 * a_at(i + 1, j, k + 1) -
                           8 * a_at(i - 1, j + 1, k + 1) + 10 * a_at(i + 1, j + 1, k + 1);
                assert_true(fabs(v - B[(i * 8 + j) * 8 + k]) < 1e-3);
            }
    assert_true(B[0] == 0.0f);   /* borders untouched */
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_3dconv_addresses),
        cmocka_unit_test(test_3dconv_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
