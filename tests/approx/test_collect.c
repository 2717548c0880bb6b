/* test_collect.c: dataset collection to CSV: contents, read-back, determinism, bad files. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifndef assert_double_equal /* older cmocka: compare in double, not float */
#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (double)(eps))
#endif

#include "approx/approx.h"
#include "run_program.h"

static void tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/test_approx_%s", GPUEST_BINARY_DIR, name);
}

static void small_opts(gpuest_approx_app_t app, gpuest_approx_collect_opts_t *o)
{
    gpuest_approx_collect_defaults(app, o);
    o->datasets = 3;
    o->seed = 9;
    o->size_min = app == GPUEST_APPROX_KMEANS ? 100 : 12;
    o->size_max = app == GPUEST_APPROX_KMEANS ? 300 : 24;
    o->constraint_max = 6;
}

static void test_collect_and_read(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "lud.csv");
    gpuest_approx_collect_opts_t o;
    small_opts(GPUEST_APPROX_LUD, &o);
    gpuest_error_t err;
    assert_int_equal(gpuest_approx_collect(GPUEST_APPROX_LUD, &o, path, NULL, &err), GPUEST_OK);
    gpuest_approx_record_t *r = NULL;
    size_t n = 0;
    assert_int_equal(gpuest_approx_read_csv(path, &r, &n, &err), GPUEST_OK);
    /* LUD records two metrics: 3 datasets x 5 levels x 2. */
    assert_int_equal(n, 30);
    for (size_t i = 0; i < n; i++) {
        assert_true(r[i].size >= 12 && r[i].size <= 24);
        assert_true(r[i].cond_target >= 1.0 && r[i].cond_target <= 6.0);
        assert_true(r[i].log10_cond > r[i].cond_target - 0.1 && r[i].log10_cond < r[i].cond_target + 0.1);
        assert_int_equal(r[i].bits, 4 + 4 * (int)((i / 2) % 5));
        assert_string_equal(r[i].metric, i % 2 == 0 ? "mre" : "nrmse");
        assert_int_equal(r[i].dataset, i / 10);
    }
    /* A dataset regenerated from the recorded seed reproduces the recorded error. */
    gpuest_approx_params_t p = {r[4].size, r[4].cond_target, 0};
    gpuest_approx_dataset_t *ds = NULL;
    assert_int_equal(gpuest_approx_dataset_create(GPUEST_APPROX_LUD, &p, r[4].seed, &ds, &err), GPUEST_OK);
    double e[2];
    assert_int_equal(gpuest_approx_measure(ds, r[4].bits, e, &err), GPUEST_OK);
    assert_double_equal(e[0], r[4].error, 0.0);
    gpuest_approx_dataset_destroy(ds);
    free(r);
    remove(path);
}

static void test_same_seed_same_csv(void **state)
{
    (void)state;
    char a[512], b[512];
    tmp_path(a, sizeof a, "km_a.csv");
    tmp_path(b, sizeof b, "km_b.csv");
    gpuest_approx_collect_opts_t o;
    small_opts(GPUEST_APPROX_KMEANS, &o);
    assert_int_equal(gpuest_approx_collect(GPUEST_APPROX_KMEANS, &o, a, NULL, NULL), GPUEST_OK);
    assert_int_equal(gpuest_approx_collect(GPUEST_APPROX_KMEANS, &o, b, NULL, NULL), GPUEST_OK);
    test_assert_same_file(a, b);
    /* A different seed gives different data (a still holds the first seed's). */
    o.seed = 10;
    assert_int_equal(gpuest_approx_collect(GPUEST_APPROX_KMEANS, &o, b, NULL, NULL), GPUEST_OK);
    assert_false(test_files_equal(a, b));
    remove(a);
    remove(b);
}

static void test_bad_csv(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "bad.csv");
    gpuest_error_t err;
    gpuest_approx_record_t *r = NULL;
    size_t n = 0;
    test_write_text(path, "dataset,seed,size,cond_target,log10_cond,constraint,metric,error,bits\n"
                     "0,1,64,0,0,0,mre,0.5,4\n"
                     "0,1,64,0,0,0,mre,abc,8\n");
    assert_int_equal(gpuest_approx_read_csv(path, &r, &n, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, ":3:"));
    assert_non_null(strstr(err.msg, "error"));
    test_write_text(path, "dataset,seed,size\n0,1,64\n");
    assert_int_equal(gpuest_approx_read_csv(path, &r, &n, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, ":1:"));
    remove(path);
    assert_int_equal(gpuest_approx_read_csv(path, &r, &n, &err), GPUEST_EIO);
    assert_non_null(strstr(err.msg, "bad.csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collect_and_read),
        cmocka_unit_test(test_same_seed_same_csv),
        cmocka_unit_test(test_bad_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
