/* test_gen_lud.c: LUD generator: launch sequence, hand-computed addresses and lines, and a real LU factorization. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"

/* n = 32 at tiny scale: diagonal, perimeter, internal at offset 0, then the last diagonal. */
static void test_lud_launches(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("lud", GPUEST_SCALE_TINY, 1);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 4);
    assert_string_equal(r.names[0], "lud_diagonal");
    assert_int_equal(r.per_name[0], 2);
    assert_string_equal(r.names[1], "lud_perimeter");
    assert_string_equal(r.names[2], "lud_internal");
    assert_int_equal(r.outside, 0);
    /* warps: diag 1 + peri 1 + internal 8 + diag 1 */
    assert_int_equal(r.warps, 11);
    gpuest_workload_destroy(wl);
}

/* lud_internal at offset 0 (launch 2), CTA (0,0), warp 1 = rows ty 2 and 3.
 * peri_row: m[(0+ty)*32 + 16 + tx]  -> elements 80..95 and 112..127
 * peri_col: m[(16+ty)*32 + 0 + tx]  -> elements 576..591 and 608..623
 * target:   m[(16+ty)*32 + 16 + tx] -> elements 592..607 and 624..639 */
static void test_lud_internal_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("lud", GPUEST_SCALE_TINY, 1);
    uint64_t m = gt_base(wl, "m");
    gt_warp_t w;
    gt_capture(wl, 2, 0, 1, 8, &w);
    assert_string_equal(w.launch.name, "lud_internal");
    assert_int_equal(w.launch.grid[0], 1);
    assert_int_equal(w.launch.block[1], 16);
    assert_int_equal(w.n, 4);
    assert_int_equal(w.mem[0].addr[0], m + 320);    /* 80*4 */
    assert_int_equal(w.mem[0].addr[15], m + 380);
    assert_int_equal(w.mem[0].addr[16], m + 448);   /* 112*4 */
    assert_int_equal(w.mem[1].addr[0], m + 2304);   /* 576*4 */
    assert_int_equal(w.mem[1].addr[31], m + 2492);  /* 623*4 */
    assert_int_equal(w.mem[2].addr[0], m + 2368);   /* 592*4 */
    assert_int_equal(w.mem[3].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[3].addr[16], m + 2496);  /* 624*4 */
    /* Lines: each half-warp covers the upper or lower 64 bytes of one line. */
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 2);
    assert_int_equal(req[0].line, m + 256);
    assert_int_equal(req[0].sectors, 0xC);
    assert_int_equal(req[1].line, m + 384);
    assert_int_equal(req[1].sectors, 0xC);
    assert_int_equal(gpuest_coalesce(&w.mem[1], req), 2);
    assert_int_equal(req[0].line, m + 2304);
    assert_int_equal(req[0].sectors, 0x3);
    assert_int_equal(req[1].line, m + 2432);
    assert_int_equal(req[1].sectors, 0x3);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

/* lud_perimeter at offset 0 (launch 1): one warp; lanes 0-15 read diag rows
 * 0-7 then the row tile, lanes 16-31 diag rows 8-15 then the column tile. */
static void test_lud_perimeter_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("lud", GPUEST_SCALE_TINY, 1);
    uint64_t m = gt_base(wl, "m");
    gt_warp_t w;
    gt_capture(wl, 1, 0, 0, 64, &w);
    assert_string_equal(w.launch.name, "lud_perimeter");
    assert_int_equal(w.launch.threads_per_cta, 32);
    /* 8 + 16 loads, 8 + 16 loads, 15 + 16 stores */
    assert_int_equal(w.n, 79 > GT_MAX_MEM ? GT_MAX_MEM : 79);
    assert_int_equal(w.mem[0].active_mask, 0x0000ffffu);
    assert_int_equal(w.mem[0].addr[3], m + 12);           /* m[0*32 + 3] */
    assert_int_equal(w.mem[7].addr[0], m + 7 * 128);      /* dia row 7 */
    assert_int_equal(w.mem[8].addr[0], m + 64);           /* peri_row row 0, column 16 */
    assert_int_equal(w.mem[23].addr[15], m + 15 * 128 + 124);
    assert_int_equal(w.mem[24].active_mask, 0xffff0000u);
    assert_int_equal(w.mem[24].addr[16], m + 8 * 128);    /* dia row 8, lane 16 = idx 0 */
    assert_int_equal(w.mem[32].addr[17], m + 16 * 128 + 4); /* peri_col row 16, idx 1 */
    assert_int_equal(w.mem[48].op, GPUEST_MEM_STORE);     /* first row-tile store: row 1 */
    assert_int_equal(w.mem[48].addr[0], m + 128 + 64);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[8], req), 1);
    assert_int_equal(req[0].line, m);
    assert_int_equal(req[0].sectors, 0xC);
    gpuest_workload_destroy(wl);
}

/* After all launches m holds L (unit diagonal, below) and U: L*U must equal
 * the input matrix. Checked on the small scale too (16 steps). */
static void check_lu(gpuest_scale_t scale, int64_t n)
{
    gpuest_workload_t *wl = gt_create("lud", scale, 7);
    const float *m = gt_data(wl, "m");
    double *a = malloc((size_t)(n * n) * sizeof *a);
    for (int64_t i = 0; i < n * n; i++)
        a[i] = m[i];
    int done = 0, launches = 0;
    gpuest_error_t err;
    gpuest_launch_t l;
    while (gpuest_workload_next_launch(wl, &l, &done, &err) == GPUEST_OK && !done)
        launches++;
    assert_int_equal(launches, 3 * (n / 16 - 1) + 1);
    double worst = 0, big = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t k = 0; k <= (i < j ? i : j); k++)
                s += (k == i ? 1.0 : m[i * n + k]) * m[k * n + j];
            worst = fmax(worst, fabs(s - a[i * n + j]));
            big = fmax(big, fabs(a[i * n + j]));
        }
    assert_true(worst / big < 1e-3);
    /* The factorization changed the matrix (it is not the identity map). */
    assert_true(fabs(m[(n - 1) * n + n - 1] - a[(n - 1) * n + n - 1]) > 1e-3);
    free(a);
    gpuest_workload_destroy(wl);
}

static void test_lud_factorization(void **state)
{
    (void)state;
    check_lu(GPUEST_SCALE_TINY, 32);
    check_lu(GPUEST_SCALE_SMALL, 256);
}

static void test_lud_deterministic(void **state)
{
    (void)state;
    gt_run_t a, b;
    gpuest_workload_t *w1 = gt_create("lud", GPUEST_SCALE_TINY, 3), *w2 = gt_create("lud", GPUEST_SCALE_TINY, 3);
    gt_run_all(w1, NULL, NULL, &a);
    gt_run_all(w2, NULL, NULL, &b);
    assert_int_equal(a.hash, b.hash);
    assert_int_equal(a.insts, b.insts);
    assert_memory_equal(gt_data(w1, "m"), gt_data(w2, "m"), 32 * 32 * 4);
    gpuest_workload_destroy(w1);
    gpuest_workload_destroy(w2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lud_launches),
        cmocka_unit_test(test_lud_internal_addresses),
        cmocka_unit_test(test_lud_perimeter_addresses),
        cmocka_unit_test(test_lud_factorization),
        cmocka_unit_test(test_lud_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
