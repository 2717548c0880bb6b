/* test_gen_streamcluster.c: Streamcluster generator: transposed-coordinate and Point-struct addresses, real pgain decisions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "gt_util.h"

#define NUM 1024
#define DIM 8

static float dist(const float *coord, int64_t a, int64_t b)
{
    float r = 0;
    for (int i = 0; i < DIM; i++) {
        float t = coord[i * NUM + a] - coord[i * NUM + b];
        r += t * t;
    }
    return r;
}

static int first_lane(uint32_t m)
{
    int k = 0;
    while (!(m >> k & 1))
        k++;
    return k;
}

/* Tiny: 1024 points of 8 dimensions, 2 CTAs of 512, 3 pgain calls.
 * CTA 1, warp 3: tid = 608 + lane. */
static void test_streamcluster_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("streamcluster", GPUEST_SCALE_TINY, 1);
    uint64_t coord = gt_base(wl, "coord_d"), p = gt_base(wl, "p"), work = gt_base(wl, "work_mem_d");
    uint64_t ctab = gt_base(wl, "center_table_d"), sw = gt_base(wl, "switch_membership_d");
    gt_warp_t w;
    gt_capture(wl, 0, 1, 3, GT_MAX_MEM, &w);
    assert_string_equal(w.launch.name, "kernel_compute_cost");
    assert_int_equal(w.launch.grid[0], 2);
    /* d_dist: coord_d[i*num + tid] (coalesced) and coord_d[i*num + x] (one address for all) */
    uint64_t x = (w.mem[1].addr[0] - coord) / 4;
    assert_true(x < NUM);
    for (int i = 0; i < DIM; i++) {
        assert_int_equal(w.mem[2 * i].addr[0], coord + 4 * (uint64_t)(i * NUM + 608));
        assert_int_equal(w.mem[2 * i].addr[31], coord + 4 * (uint64_t)(i * NUM + 639));
        assert_int_equal(w.mem[2 * i + 1].addr[17], coord + 4 * (i * NUM + x));
    }
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 1);
    assert_int_equal(req[0].line, coord + 2432);
    assert_int_equal(req[0].sectors, 0xF);
    /* p[tid].weight: 32-byte structs, four per line, every sector used once */
    assert_int_equal(w.mem[16].addr[0], p + 608 * 32);
    assert_int_equal(gpuest_coalesce(&w.mem[16], req), 8);
    assert_int_equal(req[0].sectors, 0xF);
    assert_int_equal(w.mem[17].addr[1], p + 609 * 32 + 24);   /* .cost */
    /* Branch: lanes whose cost to x is below their current cost. */
    const float *cf = gt_data(wl, "coord_d");
    const unsigned char *pd = gt_data(wl, "p");
    const int32_t *ct = gt_data(wl, "center_table_d");
    uint32_t lt = 0;
    for (int k = 0; k < 32; k++) {
        float cost;
        memcpy(&cost, pd + (608 + k) * 32 + 24, 4);
        if (dist(cf, 608 + k, (int64_t)x) < cost)
            lt |= 1u << k;
    }
    int m = 18;
    if (lt) {
        assert_int_equal(w.mem[m].active_mask, lt);
        assert_int_equal(w.mem[m].size, 1);
        int k0 = first_lane(lt);
        assert_int_equal(w.mem[m].addr[k0], sw + 608 + (uint64_t)k0);
        m += 3;   /* switch store, lower[K] load, store */
    }
    uint32_t ge = 0xffffffffu & ~lt;
    if (ge) {
        int k0 = first_lane(ge);
        assert_int_equal(w.mem[m].active_mask, ge);
        assert_int_equal(w.mem[m].size, 8);
        assert_int_equal(w.mem[m].addr[k0], p + (608 + (uint64_t)k0) * 32 + 16);
        int64_t as;
        memcpy(&as, pd + (608 + k0) * 32 + 16, 8);
        assert_int_equal(w.mem[m + 1].addr[k0], ctab + 4 * (uint64_t)as);
        /* lower[center_table[assign]] in row tid of stride K+1 */
        uint64_t a = w.mem[m + 2].addr[k0] - work;
        assert_int_equal(a % 4, 0);
        a /= 4;
        assert_true(a >= (608 + (uint64_t)k0) * (uint64_t)(ct[as] + 1));
        assert_int_equal(w.mem[m + 3].op, GPUEST_MEM_STORE);
    }
    gpuest_workload_destroy(wl);
}

/* Every launch: after the kernel, switch_membership[i] is set exactly for the
 * points closer to x than to their centre, and each point's cost is its
 * distance to its assigned centre. */
static void test_streamcluster_pgain(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("streamcluster", GPUEST_SCALE_TINY, 2);
    uint64_t coord = gt_base(wl, "coord_d");
    const float *cf = gt_data(wl, "coord_d");
    const unsigned char *pd = gt_data(wl, "p"), *sw = gt_data(wl, "switch_membership_d");
    gpuest_error_t err;
    int launches = 0, switched = 0;
    for (uint32_t l = 0; l < 3; l++) {
        gt_warp_t w;
        gt_capture(wl, l, 0, 0, 2, &w);
        launches++;
        uint64_t x = (w.mem[1].addr[0] - coord) / 4;
        float cost[NUM];
        int64_t as[NUM];
        for (int i = 0; i < NUM; i++) {
            memcpy(&cost[i], pd + i * 32 + 24, 4);
            memcpy(&as[i], pd + i * 32 + 16, 8);
            assert_true(fabsf(cost[i] - dist(cf, i, as[i])) <= 1e-5f * (1 + cost[i]));
        }
        assert_int_equal(gpuest_workload_end_launch(wl, &err), GPUEST_OK);
        for (int i = 0; i < NUM; i++) {
            int closer = dist(cf, i, (int64_t)x) < cost[i];
            assert_int_equal(sw[i], closer);
            switched += closer;
        }
    }
    gpuest_launch_t ln;
    int done = 0;
    assert_int_equal(gpuest_workload_next_launch(wl, &ln, &done, &err), GPUEST_OK);
    assert_int_equal(done, 1);
    assert_int_equal(launches, 3);
    assert_true(switched > 0);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamcluster_addresses),
        cmocka_unit_test(test_streamcluster_pgain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
