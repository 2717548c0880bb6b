/* test_gen_pathfinder.c: Pathfinder generator: pyramid masks and halo addresses by hand, final costs = plain DP. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"

/* Tiny: cols 600, rows 9, pyramid 4: small block 248 columns, 3 CTAs, 2 launches.
 * Launch 0, CTA 1: blkX = 248 - 4 = 244, xidx = 244 + tx. */
static void test_pathfinder_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pathfinder", GPUEST_SCALE_TINY, 1);
    uint64_t src = gt_base(wl, "gpuResult0"), dst = gt_base(wl, "gpuResult1"), wall = gt_base(wl, "gpuWall");
    gt_warp_t w;
    gt_capture(wl, 0, 1, 0, 16, &w);
    assert_string_equal(w.launch.name, "dynproc_kernel");
    assert_int_equal(w.launch.grid[0], 3);
    assert_int_equal(w.n, 6);
    assert_int_equal(w.mem[0].active_mask, 0xffffffffu);
    assert_int_equal(w.mem[0].addr[0], src + 976);
    /* step i computes tx in [i+1, 254-i] */
    assert_int_equal(w.mem[1].active_mask, 0xfffffffeu);
    assert_int_equal(w.mem[1].addr[1], wall + 980);
    assert_int_equal(w.mem[2].active_mask, 0xfffffffcu);
    assert_int_equal(w.mem[2].addr[2], wall + (600 + 246) * 4);
    assert_int_equal(w.mem[4].active_mask, 0xfffffff0u);
    assert_int_equal(w.mem[4].addr[4], wall + (3 * 600 + 248) * 4);
    /* results of the last step: tx in [4, 251] */
    assert_int_equal(w.mem[5].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[5].active_mask, 0xfffffff0u);
    assert_int_equal(w.mem[5].addr[4], dst + 248 * 4);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 2);
    assert_int_equal(req[0].line, src + 896);
    assert_int_equal(req[0].sectors, 0xC);
    assert_int_equal(req[1].line, src + 1024);
    assert_int_equal(req[1].sectors, 0x7);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

/* CTA 1, warp 7 (tx 224..255) of the second launch reads the other buffer
 * (rows 4..7 of the wall) and writes tx <= 251 only. CTA 2 is clipped at the
 * right edge: validXmax = 255 - (747 - 600 + 1) = 107. */
static void test_pathfinder_edges(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pathfinder", GPUEST_SCALE_TINY, 1);
    uint64_t r0 = gt_base(wl, "gpuResult0"), r1 = gt_base(wl, "gpuResult1"), wall = gt_base(wl, "gpuWall");
    gt_warp_t w;
    gt_capture(wl, 1, 1, 7, 16, &w);
    assert_int_equal(w.mem[0].addr[0], r1 + (244 + 224) * 4);
    assert_int_equal(w.mem[1].active_mask, 0x7fffffffu);
    assert_int_equal(w.mem[1].addr[0], wall + (4 * 600 + 468) * 4);
    assert_int_equal(w.mem[5].active_mask, 0x0fffffffu);
    assert_int_equal(w.mem[5].addr[0], r0 + 468 * 4);
    gpuest_workload_destroy(wl);
    wl = gt_create("pathfinder", GPUEST_SCALE_TINY, 1);
    gt_capture(wl, 0, 2, 3, 16, &w);   /* tx 96..127, xidx 588..619 */
    assert_int_equal(w.mem[0].active_mask, 0x00000fffu);   /* xidx <= 599 */
    assert_int_equal(w.mem[1].active_mask, 0x00000fffu);   /* tx <= 107 */
    assert_int_equal(w.mem[5].active_mask, 0x00000fffu);
    gpuest_workload_destroy(wl);
}

static void test_pathfinder_result(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pathfinder", GPUEST_SCALE_TINY, 11);
    int32_t *row = malloc(600 * sizeof *row), *nxt = malloc(600 * sizeof *nxt);
    const int32_t *wall = gt_data(wl, "gpuWall"), *r0 = gt_data(wl, "gpuResult0");
    memcpy(row, r0, 600 * sizeof *row);
    int32_t maxv = 0;
    for (int i = 0; i < 8 * 600; i++)
        maxv = wall[i] > maxv ? wall[i] : maxv;
    assert_int_equal(maxv, 9);   /* rand() % 10 */
    for (int t = 0; t < 8; t++) {
        for (int x = 0; x < 600; x++) {
            int32_t m = row[x];
            if (x > 0 && row[x - 1] < m)
                m = row[x - 1];
            if (x < 599 && row[x + 1] < m)
                m = row[x + 1];
            nxt[x] = m + wall[t * 600 + x];
        }
        memcpy(row, nxt, 600 * sizeof *row);
    }
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 2);
    assert_int_equal(r.outside, 0);
    assert_memory_equal(row, gt_data(wl, "gpuResult0"), 600 * sizeof *row);
    free(row), free(nxt);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pathfinder_addresses),
        cmocka_unit_test(test_pathfinder_edges),
        cmocka_unit_test(test_pathfinder_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
