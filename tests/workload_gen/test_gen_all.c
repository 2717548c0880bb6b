/* test_gen_all.c: every generator of the second set: determinism, seed sensitivity, addresses inside allocations, small scale runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "gt_util.h"

static const char *const names[] = {"lud", "gaussian", "atax", "bicg", "srad", "pathfinder", "backprop",
                                    "3dconv", "streamcluster", "color", "ss", "pvc", "pagerank", "2mm"};
#define NGEN (sizeof names / sizeof names[0])

/* Accesses outside every allocation: none, except SRAD, whose srad_cuda_2 reads
 * C_cuda[index_s] for the bottom tile row (a row past the image, overridden
 * afterwards) and, in the bottom-right CTA, C_cuda[index_e] one past the end:
 * per iteration (cols/16)*256 + 16 lanes, beyond C_cuda, the last array. */
static uint64_t expected_outside(const char *name, uint64_t cols)
{
    return strcmp(name, "srad") == 0 ? 2 * (cols / 16 * 256 + 16) : 0;
}

/* Same seed, same stream bit for bit, same final image. */
static void test_all_deterministic(void **state)
{
    (void)state;
    for (size_t g = 0; g < NGEN; g++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            const gpuest_generator_t *gen = gpuest_generator_find(names[g]);
            assert_non_null(gen);
            assert_non_null(strstr(gen->kernel_source, gen->suite));
            gt_run_t a, b;
            gpuest_workload_t *w1 = gt_create(names[g], GPUEST_SCALE_TINY, seed);
            gpuest_workload_t *w2 = gt_create(names[g], GPUEST_SCALE_TINY, seed);
            gt_run_all(w1, NULL, NULL, &a);
            gt_run_all(w2, NULL, NULL, &b);
            assert_true(a.launches >= 1);
            assert_true(a.mem_insts > 0);
            assert_int_equal(a.hash, b.hash);
            assert_int_equal(a.insts, b.insts);
            assert_int_equal(a.outside, expected_outside(names[g], 32));
            /* the final images are identical too */
            gpuest_memimg_t *i1 = gpuest_workload_image(w1), *i2 = gpuest_workload_image(w2);
            assert_int_equal(gpuest_memimg_count(i1), gpuest_memimg_count(i2));
            for (size_t k = 0; k < gpuest_memimg_count(i1); k++) {
                gpuest_alloc_t *x = gpuest_memimg_get(i1, k), *y = gpuest_memimg_get(i2, k);
                assert_int_equal(x->size, y->size);
                assert_memory_equal(x->data, y->data, x->size);
            }
            gpuest_workload_destroy(w1);
            gpuest_workload_destroy(w2);
        }
}

/* Generators with seeded inputs give different data for different seeds. */
static void test_seed_changes_data(void **state)
{
    (void)state;
    static const char *const seeded[][2] = {{"lud", "m"}, {"gaussian", "a_cuda"}, {"srad", "J_cuda"},
                                            {"pathfinder", "gpuWall"}, {"backprop", "input_hidden_cuda"},
                                            {"streamcluster", "coord_d"}, {"color", "col"}, {"ss", "d_matrix"},
                                            {"pvc", "d_log"}, {"pagerank", "col_d"}};
    for (size_t g = 0; g < sizeof seeded / sizeof seeded[0]; g++) {
        gpuest_workload_t *w1 = gt_create(seeded[g][0], GPUEST_SCALE_TINY, 1);
        gpuest_workload_t *w2 = gt_create(seeded[g][0], GPUEST_SCALE_TINY, 2);
        gpuest_alloc_t *a = gpuest_memimg_find_name(gpuest_workload_image(w1), seeded[g][1]);
        gpuest_alloc_t *b = gpuest_memimg_find_name(gpuest_workload_image(w2), seeded[g][1]);
        assert_non_null(a);
        assert_non_null(b);
        size_t n = a->size < b->size ? (size_t)a->size : (size_t)b->size;
        assert_true(memcmp(a->data, b->data, n) != 0);
        gpuest_workload_destroy(w1);
        gpuest_workload_destroy(w2);
    }
}

/* Every generator runs to completion at the small scale (the characterization
 * scale) and issues a sizeable stream. */
static void test_small_scale(void **state)
{
    (void)state;
    for (size_t g = 0; g < NGEN; g++) {
        gpuest_workload_t *wl = gt_create(names[g], GPUEST_SCALE_SMALL, 1);
        gt_run_t r;
        gt_run_all(wl, NULL, NULL, &r);
        assert_true(r.line_requests > 20000);
        assert_int_equal(r.outside, expected_outside(names[g], 512));
        gpuest_workload_destroy(wl);
    }
}

/* gpuest_workload_measure counts what an independent warp-by-warp walk counts;
 * max_launches stops it after that many launches. */
static void test_measure_counts(void **state)
{
    (void)state;
    for (size_t g = 0; g < NGEN; g++) {
        gt_run_t ref;
        gpuest_workload_t *w1 = gt_create(names[g], GPUEST_SCALE_TINY, 1);
        gt_run_all(w1, NULL, NULL, &ref);
        gpuest_workload_destroy(w1);
        gpuest_workload_speed_t s;
        gpuest_error_t err;
        gpuest_workload_t *w2 = gt_create(names[g], GPUEST_SCALE_TINY, 1);
        assert_int_equal(gpuest_workload_measure(w2, UINT64_MAX, &s, &err), GPUEST_OK);
        gpuest_workload_destroy(w2);
        assert_int_equal(s.launches, ref.launches);
        assert_int_equal(s.warps, ref.warps);
        assert_int_equal(s.insts, ref.insts);
        assert_int_equal(s.mem_insts, ref.mem_insts);
        assert_int_equal(s.line_requests, ref.line_requests);
        assert_true(s.gen_s >= 0 && s.next_s >= 0 && s.end_s >= 0);
        gpuest_workload_t *w3 = gt_create(names[g], GPUEST_SCALE_TINY, 1);
        assert_int_equal(gpuest_workload_measure(w3, 1, &s, &err), GPUEST_OK);
        gpuest_workload_destroy(w3);
        assert_int_equal(s.launches, 1);
        assert_true(s.warps > 0 && s.warps <= ref.warps);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_deterministic),
        cmocka_unit_test(test_seed_changes_data),
        cmocka_unit_test(test_small_scale),
        cmocka_unit_test(test_measure_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
