/* test_gen_ss.c: Similarity Score generator: Mars record mapping and float4 row walks by hand; sorted cosine scores. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "gt_util.h"

#define DOCS 16
#define DIM 16
#define REC 120

static void pair_of(int q, int *a, int *b)
{
    for (int x = 0; x < DOCS; x++)
        for (int y = x + 1; y < DOCS; y++)
            if (q-- == 0) {
                *a = x, *b = y;
                return;
            }
}

/* Tiny: 16 documents x 16 features, 120 pair records, 1 CTA of 256, one record
 * per thread; then 7*8/2 = 28 bitonic stages over 128 slots. */
static void test_ss_launches(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("ss", GPUEST_SCALE_TINY, 1);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 3 + 28);
    assert_string_equal(r.names[0], "MapperCount");
    assert_string_equal(r.names[1], "prefix_sum");
    assert_string_equal(r.names[2], "Mapper");
    assert_string_equal(r.names[3], "bitonic_sort");
    assert_int_equal(r.per_name[3], 28);
    assert_int_equal(r.outside, 0);
    /* Group output: ascending scores, each the cosine of its document pair. */
    const float *key = gt_data(wl, "d_interKeys"), *m = gt_data(wl, "d_matrix");
    const int32_t *val = gt_data(wl, "d_interVals");
    int seen[REC] = {0};
    for (int o = 0; o < REC; o++) {
        if (o > 0)
            assert_true(key[o - 1] <= key[o]);
        int a = val[2 * o], b = val[2 * o + 1];
        assert_true(a >= 0 && a < b && b < DOCS);
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < DIM; i++)
            dot += m[a * DIM + i] * m[b * DIM + i], na += m[a * DIM + i] * m[a * DIM + i], nb += m[b * DIM + i] * m[b * DIM + i];
        assert_true(fabs(dot / sqrt(na * nb) - key[o]) < 1e-5);
        int q = a * DOCS - a * (a + 1) / 2 + (b - a - 1);
        seen[q]++;
    }
    for (int q = 0; q < REC; q++)
        assert_int_equal(seen[q], 1);
    gpuest_workload_destroy(wl);
}

static void test_ss_count_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("ss", GPUEST_SCALE_TINY, 1);
    uint64_t offs = gt_base(wl, "d_inputOffsetSizes"), keys = gt_base(wl, "d_inputKeys");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 3, 8, &w);   /* records 96..127: 96..119 exist */
    assert_int_equal(w.mem[0].size, 16);
    assert_int_equal(w.mem[0].active_mask, 0x00ffffffu);
    assert_int_equal(w.mem[0].addr[0], offs + 96 * 16);
    assert_int_equal(w.mem[1].addr[23], keys + 119 * 8);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 3);   /* 8 lanes x 16 B per line */
    assert_int_equal(gpuest_coalesce(&w.mem[1], req), 2);   /* 16 lanes, then 8 */
    assert_int_equal(req[1].sectors, 0x3);
    assert_int_equal(w.mem[2].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[2].active_mask, 0xffffffffu);
    gpuest_workload_destroy(wl);
}

static void test_ss_map_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("ss", GPUEST_SCALE_TINY, 1);
    uint64_t mat = gt_base(wl, "d_matrix"), ok = gt_base(wl, "d_interKeys");
    gt_warp_t w;
    gt_capture(wl, 2, 0, 0, GT_MAX_MEM, &w);
    assert_string_equal(w.launch.name, "Mapper");
    /* psc, offsets, key, val, then 4 float4 pairs, then 3 stores */
    assert_int_equal(w.n, 4 + 8 + 3);
    for (int it = 0; it < 4; it++)
        for (int k = 0; k < 32; k++) {
            int a = -1, b = -1;
            pair_of(k, &a, &b);
            assert_int_equal(w.mem[4 + 2 * it].addr[k], mat + (uint64_t)(a * DIM + 4 * it) * 4);
            assert_int_equal(w.mem[5 + 2 * it].addr[k], mat + (uint64_t)(b * DIM + 4 * it) * 4);
        }
    /* lanes 0..14 read document 0's first float4: one line, one sector, per quarter-warp */
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    size_t n = gpuest_coalesce(&w.mem[4], req);
    assert_int_equal(req[0].line, mat);
    assert_int_equal(req[0].sectors, 0x1);
    assert_true(n >= 4);
    assert_int_equal(w.mem[12].addr[7], ok + 28);
    gt_check_coalesce(&w.mem[5]);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ss_launches),
        cmocka_unit_test(test_ss_count_addresses),
        cmocka_unit_test(test_ss_map_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
