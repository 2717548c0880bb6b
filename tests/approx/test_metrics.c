/* test_metrics.c: the error metrics against values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#ifndef assert_double_equal /* older cmocka: compare in double, not float */
#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (double)(eps))
#endif

#include "approx/approx.h"

static void test_mre(void **state)
{
    (void)state;
    const float e[4] = {1.0f, 2.0f, -4.0f, 0.0f};
    const float a[4] = {1.5f, 2.0f, -3.0f, 0.0f};
    /* |0.5|/1 = 0.5, 0, 1/4 = 0.25, 0/0 -> 0: mean = 0.75 / 4 */
    assert_double_equal(gpuest_approx_mre(e, a, 4), 0.1875, 1e-12);
    const float big[2] = {1.0f, 1.0f}, off[2] = {5.0f, 1.0f};
    /* relative error 4 is capped at 1: (1 + 0) / 2 */
    assert_double_equal(gpuest_approx_mre(big, off, 2), 0.5, 1e-12);
    const float z[1] = {0.0f}, nz[1] = {0.25f};
    assert_double_equal(gpuest_approx_mre(z, nz, 1), 1.0, 0.0);
    assert_double_equal(gpuest_approx_mre(e, e, 4), 0.0, 0.0);
}

static void test_nrmse(void **state)
{
    (void)state;
    const float e[4] = {0.0f, 1.0f, 2.0f, 4.0f};
    const float a[4] = {0.0f, 1.0f, 2.0f, 6.0f};
    /* rmse = sqrt(4 / 4) = 1, range = 4 */
    assert_double_equal(gpuest_approx_nrmse(e, a, 4), 0.25, 1e-12);
    const float c[2] = {2.0f, 2.0f}, ca[2] = {2.0f, 3.0f};
    /* constant output: rmse = sqrt(1/2), normalized by |2| */
    assert_double_equal(gpuest_approx_nrmse(c, ca, 2), sqrt(0.5) / 2.0, 1e-12);
    assert_double_equal(gpuest_approx_nrmse(e, e, 4), 0.0, 0.0);
}

static void test_linf(void **state)
{
    (void)state;
    const float e[3] = {1.0f, -8.0f, 2.0f};
    const float a[3] = {1.5f, -7.0f, 2.0f};
    /* max |d| = 1, max |e| = 8 */
    assert_double_equal(gpuest_approx_linf(e, a, 3), 0.125, 1e-12);
    const float n[1] = {NAN};
    assert_double_equal(gpuest_approx_linf(e, n, 1), 1.0, 0.0);
}

static void test_cluster_error(void **state)
{
    (void)state;
    /* Same partition with permuted labels: no error. */
    const int e[6] = {0, 0, 0, 1, 1, 1};
    const int p[6] = {1, 1, 1, 0, 0, 0};
    assert_double_equal(gpuest_approx_cluster_error(e, p, 6, 2), 0.0, 0.0);
    /* One point moved: exact same-cluster pairs 3 + 3 = 6; approx clusters {0,1} and
     * {2,3,4,5}: 1 + 6 = 7 pairs, of which 1 + 3 = 4 are shared.
     * precision 4/7, recall 4/6, HM = 2*(4/7)(4/6)/((4/7)+(4/6)) = 8/13. */
    const int m[6] = {0, 0, 1, 1, 1, 1};
    assert_double_equal(gpuest_approx_cluster_error(e, m, 6, 2), 1.0 - 8.0 / 13.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mre),
        cmocka_unit_test(test_nrmse),
        cmocka_unit_test(test_linf),
        cmocka_unit_test(test_cluster_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
