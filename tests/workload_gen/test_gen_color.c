/* test_gen_color.c: graph coloring generator: data-dependent rounds end in a valid colouring; gathers by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"

#define N 256

/* The run ends when a color round finds no uncolored vertex: every vertex has
 * a colour, no edge joins two equal colours, and there is one pair of launches
 * per colour plus the final empty pair. */
static void test_color_valid(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        gpuest_workload_t *wl = gt_create("color", GPUEST_SCALE_TINY, seed);
        gt_run_t r;
        gt_run_all(wl, NULL, NULL, &r);
        const int32_t *row = gt_data(wl, "row"), *col = gt_data(wl, "col"), *c = gt_data(wl, "col_array");
        gpuest_alloc_t *ca = gpuest_memimg_find_name(gpuest_workload_image(wl), "col");
        int64_t m = (int64_t)(ca->size / 4);
        int maxc = 0;
        for (int v = 0; v < N; v++) {
            assert_true(c[v] >= 1);
            maxc = c[v] > maxc ? c[v] : maxc;
            int64_t end = v + 1 < N ? row[v + 1] : m;
            for (int64_t e = row[v]; e < end; e++)
                assert_true(c[col[e]] != c[v]);
        }
        assert_true(maxc >= 2);
        assert_int_equal(r.launches, 2 * (maxc + 1));
        assert_string_equal(r.names[0], "color");
        assert_string_equal(r.names[1], "color2");
        assert_int_equal(r.per_name[0], maxc + 1);
        assert_int_equal(r.outside, 0);
        gpuest_workload_destroy(wl);
    }
}

/* First color launch, warp 0 (vertices 0..31, all uncolored). */
static void test_color_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("color", GPUEST_SCALE_TINY, 1);
    uint64_t rowb = gt_base(wl, "row"), colb = gt_base(wl, "col"), cab = gt_base(wl, "col_array");
    uint64_t stop = gt_base(wl, "stop"), val = gt_base(wl, "node_value");
    const int32_t *row = gt_data(wl, "row"), *col = gt_data(wl, "col");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 0, 16, &w);
    assert_string_equal(w.launch.name, "color");
    assert_int_equal(w.mem[0].addr[5], cab + 20);
    assert_int_equal(w.mem[1].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[1].addr[31], stop);
    assert_int_equal(w.mem[2].addr[3], rowb + 12);
    assert_int_equal(w.mem[3].addr[0], rowb + 4);       /* row[tid + 1] */
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[1], req), 1);
    assert_int_equal(req[0].sectors, 0x1);
    assert_int_equal(gpuest_coalesce(&w.mem[3], req), 2);   /* bytes 4..131 */
    assert_int_equal(req[0].sectors, 0xF);
    assert_int_equal(req[1].line, rowb + 128);
    assert_int_equal(req[1].sectors, 0x1);
    /* First neighbour of each vertex with one: col[row[v]], then col_array[col[row[v]]]
     * and (all uncolored) node_value of that neighbour. */
    uint32_t has = 0;
    for (int k = 0; k < 32; k++)
        if (row[k + 1] > row[k])
            has |= 1u << k;
    assert_int_equal(w.mem[4].active_mask, has);
    for (int k = 0; k < 32; k++)
        if (has >> k & 1) {
            assert_int_equal(w.mem[4].addr[k], colb + 4 * (uint64_t)row[k]);
            assert_int_equal(w.mem[5].addr[k], cab + 4 * (uint64_t)col[row[k]]);
            assert_int_equal(w.mem[6].addr[k], val + 4 * (uint64_t)col[row[k]]);
        }
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

/* First color2 launch, warp 1 (vertices 32..63): the winners, computed here
 * from the values, store their colour. */
static void test_color2_winners(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("color", GPUEST_SCALE_TINY, 1);
    uint64_t cab = gt_base(wl, "col_array");
    const int32_t *row = gt_data(wl, "row"), *col = gt_data(wl, "col");
    const float *v = gt_data(wl, "node_value");
    gpuest_alloc_t *ca = gpuest_memimg_find_name(gpuest_workload_image(wl), "col");
    int64_t m = (int64_t)(ca->size / 4);
    uint32_t win = 0;
    for (int k = 0; k < 32; k++) {
        int t = 32 + k, ok = 1;
        int64_t end = t + 1 < N ? row[t + 1] : m;
        for (int64_t e = row[t]; e < end; e++)
            if (v[col[e]] > v[t])
                ok = 0;
        if (ok)
            win |= 1u << k;
    }
    gt_warp_t w;
    gt_capture(wl, 1, 0, 1, 8, &w);
    assert_string_equal(w.launch.name, "color2");
    if (win) {
        assert_int_equal(w.n, 4);
        assert_int_equal(w.mem[3].op, GPUEST_MEM_STORE);
        assert_int_equal(w.mem[3].active_mask, win);
        int k0 = 0;
        while (!(win >> k0 & 1))
            k0++;
        assert_int_equal(w.mem[3].addr[k0], cab + 4 * (uint64_t)(32 + k0));
    } else {
        assert_int_equal(w.n, 3);
    }
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_color_valid),
        cmocka_unit_test(test_color_addresses),
        cmocka_unit_test(test_color2_winners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
