/* test_graph_index.c: the power-law graph builder's bucket index (src/workload/inputs.c) picks every
 * edge endpoint the whole binary search picks, so the graph is the same bit for bit: compared with
 * the slow path (gen_graph_powerlaw_paths, slow 1) on graphs large enough that many draws fall near
 * a bucket's edge, and on small ones where a bucket holds several heavy vertices. A bracket off by
 * one vertex (start[b + 1] - 1 as its upper end, or no check of the bracket) moves some endpoint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "workload/workload_int.h"

static void same_graph(int64_t n, double deg, uint64_t seed)
{
    gpuest_error_t err;
    gen_graph_t a, b;
    gpuest_rng_t *ra = NULL, *rb = NULL;
    assert_int_equal(gpuest_rng_create(seed, &ra), GPUEST_OK);
    assert_int_equal(gpuest_rng_create(seed, &rb), GPUEST_OK);
    assert_int_equal(gen_graph_powerlaw_paths(ra, n, deg, 0, &a, &err), GPUEST_OK);
    assert_int_equal(gen_graph_powerlaw_paths(rb, n, deg, 1, &b, &err), GPUEST_OK);
    assert_int_equal(a.n, n);
    assert_int_equal(a.m, b.m);
    assert_true(a.m >= (int64_t)(deg * (double)n) - 2);
    assert_memory_equal(a.row, b.row, (size_t)(n + 1) * sizeof *a.row);
    assert_memory_equal(a.col, b.col, (size_t)a.m * sizeof *a.col);
    /* the generator streams stayed together: the same number of draws was taken */
    assert_true(gpuest_rng_u64(ra) == gpuest_rng_u64(rb));
    gen_graph_free(&a);
    gen_graph_free(&b);
    gpuest_rng_destroy(ra);
    gpuest_rng_destroy(rb);
}

static void large_graphs(void **state)
{
    (void)state;
    same_graph(200000, 6.0, 11);
    same_graph(150001, 10.0, 12);
}

static void small_graphs(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 20; s++)
        same_graph(2 + (int64_t)s * 7, 6.0, s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(large_graphs),
        cmocka_unit_test(small_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
