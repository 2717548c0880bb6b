/* test_apps.c: the error trends of the thesis' Figs. 6.4-6.8 on small generated datasets,
 * condition-number control, truncation, determinism and range checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#ifndef assert_double_equal /* older cmocka: compare in double, not float */
#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (double)(eps))
#endif

#include "approx/approx.h"

#define SEEDS 4

/* Mean over SEEDS datasets of the errors at every level (primary metric in m[0], second in m[1]). */
static void mean_errors(gpuest_approx_app_t app, long size, double cond, long k, double m[2][GPUEST_APPROX_NLEVELS])
{
    memset(m, 0, 2 * GPUEST_APPROX_NLEVELS * sizeof m[0][0]);
    gpuest_approx_params_t p = {size, cond, k};
    for (uint64_t s = 1; s <= SEEDS; s++) {
        gpuest_approx_dataset_t *ds = NULL;
        gpuest_error_t err;
        assert_int_equal(gpuest_approx_dataset_create(app, &p, 100 + s, &ds, &err), GPUEST_OK);
        for (int l = 0; l < GPUEST_APPROX_NLEVELS; l++) {
            double e[2];
            assert_int_equal(gpuest_approx_measure(ds, gpuest_approx_levels[l], e, &err), GPUEST_OK);
            assert_true(e[0] >= 0.0 && e[0] <= 1.0);
            m[0][l] += e[0] / SEEDS;
            m[1][l] += (isnan(e[1]) ? 0.0 : e[1]) / SEEDS;
        }
        gpuest_approx_dataset_destroy(ds);
    }
}

/* Fig. 6.4: for every application the error grows with the approximation bits. */
static void test_error_grows_with_bits(void **state)
{
    (void)state;
    static const struct {
        gpuest_approx_app_t app;
        long size, k;
        double cond;
    } cases[] = {
        {GPUEST_APPROX_LUD, 24, 0, 2.0},    {GPUEST_APPROX_GAUSSIAN, 24, 0, 1.0},
        {GPUEST_APPROX_ATAX, 24, 0, 0.0},   {GPUEST_APPROX_BICG, 24, 0, 0.0},
        {GPUEST_APPROX_2DCONV, 24, 0, 0.0}, {GPUEST_APPROX_SCALARPROD, 64, 0, 0.0},
        {GPUEST_APPROX_SRAD2, 24, 0, 0.0},  {GPUEST_APPROX_HYBRIDSORT, 500, 0, 0.0},
        {GPUEST_APPROX_KMEANS, 600, 8, 0.0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double m[2][GPUEST_APPROX_NLEVELS];
        mean_errors(cases[c].app, cases[c].size, cases[c].cond, cases[c].k, m);
        for (int l = 1; l < GPUEST_APPROX_NLEVELS; l++) {
            if (!(m[0][l] >= m[0][l - 1])) {
                print_error("%s: mean error at %d bits (%g) below %d bits (%g)\n",
                            gpuest_approx_info(cases[c].app)->name, gpuest_approx_levels[l], m[0][l],
                            gpuest_approx_levels[l - 1], m[0][l - 1]);
                fail();
            }
        }
        assert_true(m[0][GPUEST_APPROX_NLEVELS - 1] > m[0][0]);
        assert_true(m[0][GPUEST_APPROX_NLEVELS - 1] > 0.0);
    }
}

/* Fig. 6.5: Gaussian elimination's error grows with the condition number. */
static void test_gaussian_grows_with_cond(void **state)
{
    (void)state;
    double prev = -1.0;
    for (double cond = 1.0; cond <= 5.0; cond += 2.0) {
        double m[2][GPUEST_APPROX_NLEVELS];
        mean_errors(GPUEST_APPROX_GAUSSIAN, 32, cond, 0, m);
        assert_true(m[0][0] > prev); /* 4 bits */
        prev = m[0][0];
    }
}

/* Figs. 6.6 and 6.7: Kmeans' error grows with the cluster count (at 20 bits; like the thesis,
 * lower levels saturate first for the clusters holding many points) and with the input
 * size (at 16 bits, where the truncated running sums of a bigger input give way first). */
static void test_kmeans_trends(void **state)
{
    (void)state;
    double few[2][GPUEST_APPROX_NLEVELS], many[2][GPUEST_APPROX_NLEVELS];
    mean_errors(GPUEST_APPROX_KMEANS, 800, 0.0, 2, few);
    mean_errors(GPUEST_APPROX_KMEANS, 800, 0.0, 16, many);
    assert_true(many[0][4] > few[0][4]);
    assert_true(many[0][0] >= few[0][0]);
    double small[2][GPUEST_APPROX_NLEVELS], large[2][GPUEST_APPROX_NLEVELS];
    mean_errors(GPUEST_APPROX_KMEANS, 200, 0.0, 8, small);
    mean_errors(GPUEST_APPROX_KMEANS, 3000, 0.0, 8, large);
    assert_true(large[0][3] > small[0][3]);
    assert_true(large[0][2] >= small[0][2]);
}

/* Fig. 6.8: for LUD, NRMSE lies below the mean relative error (at 20 bits both can reach
 * 100 %: NRMSE saturates once the factorization blows up). */
static void test_lud_nrmse_below_mre(void **state)
{
    (void)state;
    double m[2][GPUEST_APPROX_NLEVELS];
    mean_errors(GPUEST_APPROX_LUD, 32, 3.0, 0, m);
    for (int l = 0; l < GPUEST_APPROX_NLEVELS - 1; l++)
        assert_true(m[1][l] < m[0][l]);
}

/* Matrices get the condition number asked for, as measured by GSL's SVD. */
static void test_condition_number(void **state)
{
    (void)state;
    for (int c = 1; c <= 6; c++) {
        gpuest_approx_params_t p = {40, (double)c, 0};
        gpuest_approx_dataset_t *ds = NULL;
        assert_int_equal(gpuest_approx_dataset_create(GPUEST_APPROX_LUD, &p, 7, &ds, NULL), GPUEST_OK);
        assert_true(gpuest_approx_dataset_cond_measured(ds));
        assert_double_equal(gpuest_approx_dataset_log10_cond(ds), (double)c, 0.05);
        gpuest_approx_dataset_destroy(ds);
    }
    /* Above GPUEST_APPROX_SVD_MAX_SIDE the symmetric eigensolver measures it. */
    gpuest_approx_params_t p = {GPUEST_APPROX_SVD_MAX_SIDE + 16, 3.0, 0};
    gpuest_approx_dataset_t *ds = NULL;
    assert_int_equal(gpuest_approx_dataset_create(GPUEST_APPROX_GAUSSIAN, &p, 8, &ds, NULL), GPUEST_OK);
    assert_false(gpuest_approx_dataset_cond_measured(ds));
    assert_double_equal(gpuest_approx_dataset_log10_cond(ds), 3.0, 0.05);
    gpuest_approx_dataset_destroy(ds);
}

/* The same seed gives the same errors bit for bit, and another seed other errors. */
static void test_deterministic(void **state)
{
    (void)state;
    for (int app = 0; app < GPUEST_APPROX_NAPPS; app++) {
        gpuest_approx_params_t p = {app == GPUEST_APPROX_KMEANS ? 300 : 20, 2.0, 4};
        double a[2], b[2], c[2];
        gpuest_approx_dataset_t *d1 = NULL, *d2 = NULL, *d3 = NULL;
        assert_int_equal(gpuest_approx_dataset_create((gpuest_approx_app_t)app, &p, 42, &d1, NULL), GPUEST_OK);
        assert_int_equal(gpuest_approx_dataset_create((gpuest_approx_app_t)app, &p, 42, &d2, NULL), GPUEST_OK);
        assert_int_equal(gpuest_approx_dataset_create((gpuest_approx_app_t)app, &p, 43, &d3, NULL), GPUEST_OK);
        assert_int_equal(gpuest_approx_measure(d1, 12, a, NULL), GPUEST_OK);
        assert_int_equal(gpuest_approx_measure(d2, 12, b, NULL), GPUEST_OK);
        assert_int_equal(gpuest_approx_measure(d3, 12, c, NULL), GPUEST_OK);
        assert_memory_equal(&a[0], &b[0], sizeof a[0]);
        if (app != GPUEST_APPROX_KMEANS) /* memberships can agree exactly (error 0); real values do not */
            assert_true(a[0] != c[0]);
        gpuest_approx_dataset_destroy(d1);
        gpuest_approx_dataset_destroy(d2);
        gpuest_approx_dataset_destroy(d3);
    }
}

#define LN2 0.69314718055994531
/* Worked by hand. Truncating N bits of a positive float with mantissa m in [1, 2) removes
 * d x 2^exponent with d uniform in [0, u), u = 2^(N-23): its relative error is d / m, whose
 * mean is (u / 2) E[1/m] = (u / 2) ln 2 = 0.347 u for mantissas spread evenly. Every
 * term of ATAX's y = A^T (A x) passes 4 truncations (A, x, the stored tmp, A again), all
 * towards zero on positive inputs, so y shrinks by 4 x 0.347 u = 1.39 u on average (first
 * order); BICG's s = A^T r and q = A p pass 2 (0.69 u). Above 12 bits the float rounding of
 * the sums (~1e-7 relative) is negligible against u. */
static void test_truncation_error_by_hand(void **state)
{
    (void)state;
    static const struct {
        gpuest_approx_app_t app;
        double per_u;
    } cases[] = {{GPUEST_APPROX_ATAX, 4 * 0.5 * LN2}, {GPUEST_APPROX_BICG, 2 * 0.5 * LN2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gpuest_approx_params_t p = {256, 0.0, 0};
        gpuest_approx_dataset_t *ds = NULL;
        assert_int_equal(gpuest_approx_dataset_create(cases[c].app, &p, 9, &ds, NULL), GPUEST_OK);
        for (int bits = 12; bits <= 16; bits += 4) {
            double u = ldexp(1.0, bits - 23), e[2];
            assert_int_equal(gpuest_approx_measure(ds, bits, e, NULL), GPUEST_OK);
            /* second-order terms and the uneven spread of mantissas: within 10 % */
            assert_true(fabs(e[0] / (cases[c].per_u * u) - 1.0) < 0.10);
        }
        gpuest_approx_dataset_destroy(ds);
    }
}

static void test_ranges(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_approx_dataset_t *ds = NULL;
    gpuest_approx_params_t p = {1000, 0.0, 1};
    assert_int_equal(gpuest_approx_dataset_create(GPUEST_APPROX_KMEANS, &p, 1, &ds, &err), GPUEST_ERANGE);
    assert_non_null(strstr(err.msg, "constraint"));
    assert_null(ds);
    p = (gpuest_approx_params_t){64, 9.0, 0};
    assert_int_equal(gpuest_approx_dataset_create(GPUEST_APPROX_GAUSSIAN, &p, 1, &ds, &err), GPUEST_ERANGE);
    assert_non_null(strstr(err.msg, "condition"));
    gpuest_approx_app_t app;
    assert_int_equal(gpuest_approx_find("kmean", &app, &err), GPUEST_ENOKEY);
    assert_non_null(strstr(err.msg, "hybridsort"));
    assert_int_equal(gpuest_approx_find("2dconv", &app, &err), GPUEST_OK);
    assert_int_equal(app, GPUEST_APPROX_2DCONV);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_grows_with_bits),
        cmocka_unit_test(test_gaussian_grows_with_cond),
        cmocka_unit_test(test_kmeans_trends),
        cmocka_unit_test(test_lud_nrmse_below_mre),
        cmocka_unit_test(test_condition_number),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_truncation_error_by_hand),
        cmocka_unit_test(test_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
