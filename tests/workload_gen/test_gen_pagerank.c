/* test_gen_pagerank.c: Pannotia PageRank generator: one iteration worked by hand on a 4-vertex graph,
 * the ranks in the image after the first iteration, and the atomic adds' targets (col[e] of the
 * thread's own edges, each edge exactly once). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"
#include "workload/workload_int.h"

#define N 256 /* tiny scale */

/* Undirected edges 0-1, 0-2, 0-3, 1-2 in Pannotia's CSR (row has n entries, the last vertex ends
 * at m = 8). Degrees 3, 2, 2, 1; ranks start at 1/4. pagerank1 gives
 *   pr2[0] = 0.25/2 (from 1) + 0.25/2 (from 2) + 0.25/1 (from 3) = 0.5
 *   pr2[1] = 0.25/3 + 0.25/2 = 0.208333..., pr2[2] the same, pr2[3] = 0.25/3 = 0.083333...
 * and pagerank2 gives pr1 = 0.15/4 + 0.85 pr2: 0.4625, 0.2145833..., 0.2145833..., 0.1083333...
 * (they sum to 1: no vertex is dangling). A division by the target's degree, an add to the source
 * instead of col[e], a dropped damping term or a pr2 left uncleared each change these. */
static void test_pagerank_hand(void **state)
{
    (void)state;
    const int32_t row[4] = {0, 3, 5, 7};
    const int32_t col[8] = {1, 2, 3, 0, 2, 0, 1, 0};
    float pr1[4] = {0.25f, 0.25f, 0.25f, 0.25f}, pr2[4] = {0, 0, 0, 0};
    gen_pagerank1(4, 8, row, col, pr1, pr2);
    assert_true(pr2[0] == 0.5f);
    assert_float_equal(pr2[1], 0.25 / 3 + 0.125, 1e-7);
    assert_float_equal(pr2[2], 0.25 / 3 + 0.125, 1e-7);
    assert_float_equal(pr2[3], 0.25 / 3, 1e-7);
    gen_pagerank2(4, pr1, pr2);
    assert_true(pr1[0] == 0.4625f); /* 0.0375 + 0.425 in double, rounded once */
    assert_float_equal(pr1[1], 0.0375 + 0.85 * (0.25 / 3 + 0.125), 1e-7);
    assert_float_equal(pr1[2], 0.0375 + 0.85 * (0.25 / 3 + 0.125), 1e-7);
    assert_float_equal(pr1[3], 0.0375 + 0.85 * 0.25 / 3, 1e-7);
    for (int v = 0; v < 4; v++)
        assert_true(pr2[v] == 0.0f);
}

/* After the first pagerank2 (launch 2), every vertex's rank in the image is, recomputed here in
 * double from the image's CSR arrays, 0.15/n + 0.85 * sum over neighbours u of (1/n)/deg(u)
 * (undirected: u's edges include v). Launch order and names are inibuffer, then 20 pairs. */
typedef struct {
    int checked;
} pr_after_t;

static void pr_after(void *ctx, const gpuest_launch_t *l, gpuest_workload_t *wl)
{
    pr_after_t *a = ctx;
    if (l->index != 2)
        return;
    assert_string_equal(l->name, "pagerank2");
    const int32_t *row = gt_data(wl, "row_d"), *col = gt_data(wl, "col_d");
    const float *pr1 = gt_data(wl, "pagerank1_d"), *pr2 = gt_data(wl, "pagerank2_d");
    int64_t m = (int64_t)(gpuest_memimg_find_name(gpuest_workload_image(wl), "col_d")->size / 4);
    double *in = calloc(N, sizeof *in);
    for (int u = 0; u < N; u++) {
        int64_t end = u + 1 < N ? row[u + 1] : m;
        for (int64_t e = row[u]; e < end; e++)
            in[col[e]] += (1.0 / N) / (double)(end - row[u]);
    }
    for (int v = 0; v < N; v++) {
        double want = 0.15 / N + 0.85 * in[v];
        assert_true(fabs(pr1[v] - want) <= 1e-6 * want);
        assert_true(pr2[v] == 0.0f);
    }
    free(in);
    a->checked = 1;
}

static void test_pagerank_image(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pagerank", GPUEST_SCALE_TINY, 4);
    pr_after_t a = {0};
    gt_run_t r;
    gt_run_all(wl, pr_after, &a, &r);
    assert_int_equal(a.checked, 1);
    assert_int_equal(r.launches, 41);
    assert_int_equal(r.nnames, 3);
    assert_string_equal(r.names[0], "inibuffer");
    assert_string_equal(r.names[1], "pagerank1");
    assert_string_equal(r.names[2], "pagerank2");
    assert_int_equal(r.per_name[1], 20);
    assert_int_equal(r.outside, 0);
    gpuest_workload_destroy(wl);
}

/* pagerank1, CTA 0 warp 0 (vertices 0..31): row[tid], row[tid+1] (not for the last vertex, absent
 * here), then per edge step it: col[start+it], page_rank1[tid], page_rank2[nid] and the atomic on
 * page_rank2[nid], nid = col[start+it], for the lanes with more than it edges. */
static void test_pagerank_warp(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pagerank", GPUEST_SCALE_TINY, 1);
    uint64_t rowb = gt_base(wl, "row_d"), colb = gt_base(wl, "col_d");
    uint64_t p1 = gt_base(wl, "pagerank1_d"), p2 = gt_base(wl, "pagerank2_d");
    const int32_t *row = gt_data(wl, "row_d"), *col = gt_data(wl, "col_d");
    gt_warp_t w;
    gt_capture(wl, 1, 0, 0, GT_MAX_MEM, &w);
    assert_string_equal(w.launch.name, "pagerank1");
    assert_int_equal(w.mem[0].addr[7], rowb + 28);
    assert_int_equal(w.mem[1].addr[7], rowb + 32);
    int steps = (w.n - 2) / 4;
    assert_true(steps >= 2);
    for (int it = 0; it < steps; it++) {
        const gpuest_inst_t *in = &w.mem[2 + 4 * it];
        uint32_t run = 0;
        for (int k = 0; k < 32; k++)
            if (row[k + 1] - row[k] > it)
                run |= 1u << k;
        assert_int_equal(in[0].active_mask, run);
        assert_int_equal(in[3].active_mask, run);
        assert_int_equal(in[0].op, GPUEST_MEM_LOAD);
        assert_int_equal(in[2].op, GPUEST_MEM_LOAD);
        assert_int_equal(in[3].op, GPUEST_MEM_ATOMIC);
        for (int k = 0; k < 32; k++)
            if (run >> k & 1) {
                uint64_t nid = (uint64_t)col[row[k] + it];
                assert_int_equal(in[0].addr[k], colb + 4 * (uint64_t)(row[k] + it));
                assert_int_equal(in[1].addr[k], p1 + 4 * (uint64_t)k);
                assert_int_equal(in[2].addr[k], p2 + 4 * nid);
                assert_int_equal(in[3].addr[k], p2 + 4 * nid);
            }
    }
    gpuest_workload_destroy(wl);
}

/* Over the whole first pagerank1, the atomic lanes hit page_rank2[v] exactly as many times as v
 * appears in col (each edge once: a skipped last vertex, a lost or repeated edge step shows). */
static void test_pagerank_atomic_targets(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pagerank", GPUEST_SCALE_TINY, 2);
    gpuest_error_t err;
    gpuest_launch_t l;
    int done = 0;
    do
        assert_int_equal(gpuest_workload_next_launch(wl, &l, &done, &err), GPUEST_OK);
    while (!done && l.index < 1);
    assert_string_equal(l.name, "pagerank1");
    const int32_t *col = gt_data(wl, "col_d");
    uint64_t p2 = gt_base(wl, "pagerank2_d");
    int64_t m = (int64_t)(gpuest_memimg_find_name(gpuest_workload_image(wl), "col_d")->size / 4);
    int64_t *want = calloc(N, sizeof *want), *got = calloc(N, sizeof *got), atomics = 0;
    for (int64_t e = 0; e < m; e++)
        want[col[e]]++;
    for (uint32_t c = 0; c < l.num_ctas; c++)
        for (uint32_t wi = 0; wi < l.warps_per_cta; wi++) {
            gpuest_warp_t *w = NULL;
            assert_int_equal(gpuest_warp_open(wl, c, wi, &w, &err), GPUEST_OK);
            for (;;) {
                gpuest_inst_t in;
                assert_int_equal(gpuest_warp_next(w, &in, &err), GPUEST_OK);
                if (in.kind == GPUEST_INST_END)
                    break;
                if (in.kind != GPUEST_INST_MEM || in.op != GPUEST_MEM_ATOMIC)
                    continue;
                for (int k = 0; k < 32; k++)
                    if (in.active_mask >> k & 1) {
                        assert_true(in.addr[k] >= p2 && in.addr[k] < p2 + 4 * N);
                        got[(in.addr[k] - p2) / 4]++;
                        atomics++;
                    }
            }
            gpuest_warp_close(w);
        }
    assert_int_equal(atomics, m);
    assert_memory_equal(got, want, N * sizeof *got);
    free(want), free(got);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pagerank_hand),
        cmocka_unit_test(test_pagerank_image),
        cmocka_unit_test(test_pagerank_warp),
        cmocka_unit_test(test_pagerank_atomic_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
