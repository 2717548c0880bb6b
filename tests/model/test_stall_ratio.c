/* test_stall_ratio.c: the MC stall ratio with its shortened bisection (stall_ratio.c) against the
 * plain bisection it replaced, bit for bit, and the shortening actually taken. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/model_int.h"

/* The plain bisection (gpu_model.c before the anchors): every halving sums the law's mean. */
static double plain_stall_ratio(double mean, double b, double k)
{
    if (mean <= 0 || b <= k)
        return 0.0;
    if (mean > b - 0.5)
        mean = b - 0.5;
    double lo = 1e-6, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        double rho = sqrt(lo * hi), z = 0, m = 0, pn = 1;
        for (int n = 0; n <= (int)b; n++, pn *= rho) {
            z += pn;
            m += n * pn;
        }
        if (m / z < mean) {
            if (rho == lo)
                break;
            lo = rho;
        } else {
            if (rho == hi)
                break;
            hi = rho;
        }
    }
    double rho = sqrt(lo * hi), z = 0, tail = 0, pn = 1;
    for (int n = 0; n <= (int)b; n++, pn *= rho) {
        z += pn;
        if (n > (int)k)
            tail += pn;
    }
    return tail / z;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Means over the whole range (a log grid from 1e-9 to the cap, plus a seeded scatter) for queue
 * sizes on both sides of the anchors' limit (48) and K values from 0 to b - 1: every result equal
 * to the plain bisection's to the last bit. A wrong anchor (one that decides a comparison the sum
 * would decide the other way: a margin too thin, an anchor taken unchecked) moves the bracket and
 * the result. */
static void test_equals_plain_bisection(void **state)
{
    (void)state;
    static const double bs[] = {2, 9, 24, 25, 40, 48, 49, 64};
    uint64_t x = 0x243F6A8885A308D3ull;
    int cases = 0;
    for (size_t ib = 0; ib < sizeof bs / sizeof bs[0]; ib++) {
        double b = bs[ib];
        for (double k = 0; k < b; k += b > 10 ? 7 : 1) {
            for (double mean = 1e-9; mean < b; mean *= 1.37) {
                assert_true(same_bits(gpuest_model_stall_ratio(mean, b, k, NULL), plain_stall_ratio(mean, b, k)));
                cases++;
            }
            for (int r = 0; r < 40; r++) { /* xorshift: means spread over (0, b) */
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                double mean = (double)(x >> 11) / 9007199254740992.0 * b;
                assert_true(same_bits(gpuest_model_stall_ratio(mean, b, k, NULL), plain_stall_ratio(mean, b, k)));
                cases++;
            }
        }
    }
    /* the model's own operating points: b = reply queue + NI queue (8 + 16), K = 16 */
    for (double mean = 0.001; mean < 24.0; mean += 0.0173) {
        assert_true(same_bits(gpuest_model_stall_ratio(mean, 24, 16, NULL), plain_stall_ratio(mean, 24, 16)));
        cases++;
    }
    assert_true(cases > 3000);
}

/* The anchors are used: at the model's queue sizes a stall ratio takes at most 30 sums where the
 * plain bisection takes about 60 (fails if the anchors never check out, e.g. a root estimate that
 * does not converge, which would leave the result right and the time unchanged). */
static void test_anchors_shorten_the_bisection(void **state)
{
    (void)state;
    static const double means[] = {0.01, 0.3, 2.0, 7.5, 12.0, 20.0, 23.4};
    for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        int sums = 0;
        gpuest_model_stall_ratio(means[i], 24, 16, &sums);
        assert_true(sums > 0);
        assert_true(sums <= 30);
    }
    int sums = 0; /* above the anchors' limit every halving is summed */
    gpuest_model_stall_ratio(3.0, 64, 16, &sums);
    assert_true(sums >= 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equals_plain_bisection),
        cmocka_unit_test(test_anchors_shorten_the_bisection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
