/* test_l1c_targets.c: the seventh round's rule-relative targets (docs/latte-cc.md, "Seventh
 * round"): asymmetric spans, each the nearest-rank 99th percentile of the training savings of its
 * sign, worked out by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cli/l1c_targets.h"

/* A -45 % hold reaches the network as 0.5 - 0.45 / (2 x 1.5) = 0.35 with a 150 % loss span, where
 * the sixth round's 5 % span clipped it to 0 (as it does a -5 % hold); gains keep their own span:
 * +3.4 % with a 17 % gain span reads 0.5 + 0.034 / 0.34 = 0.6. Catches one span for both signs,
 * a missing factor 2, a missing clamp. */
static void test_target_by_hand(void **state)
{
    (void)state;
    assert_true(fabs(cli_l1c_rule_target(-0.45, 0.17, 1.5) - 0.35) < 1e-12);
    assert_true(fabs(cli_l1c_rule_target(-0.05, 0.17, 1.5) - (0.5 - 0.05 / 3.0)) < 1e-12);
    assert_true(fabs(cli_l1c_rule_target(0.034, 0.17, 1.5) - 0.6) < 1e-12);
    assert_true(cli_l1c_rule_target(0.0, 0.17, 1.5) == 0.5);
    assert_true(cli_l1c_rule_target(0.2, 0.17, 1.5) == 1.0);   /* beyond the gain span */
    assert_true(cli_l1c_rule_target(-2.0, 0.17, 1.5) == 0.0);  /* beyond the loss span */
    assert_true(cli_l1c_rule_target(-0.45, 0.05, 0.05) == 0.0); /* the sixth round's clip */
    assert_true(cli_l1c_rule_target(-0.05, 0.05, 0.05) == 0.0);
}

/* 35 rows of 3 outputs against a rule cost of 1000 (a 36th row with rule cost 0 is skipped):
 * 101 positive savings 0.001, 0.002, ..., 0.101 (cost 1000 - j), then -0.45 (cost 1450) and a row
 * of -2.0 (cost 3000), 0 (cost 1000, neither sign) and -0.10 (cost 1100). Gain: nearest rank
 * ceil(0.99 x 101) = 100 of the sorted positives = 0.100 (not the maximum 0.101, not rank 99's
 * 0.099). Loss: 3 negatives, rank ceil(2.97) = 3 = 2.0 (|s|, not s: the largest loss). With no
 * negative saving at all the loss span is the fallback. Catches the maximum taken for the
 * percentile, a rank rounded down, signs mixed into one list, zero savings or skipped rows counted. */
static void test_spans_p99_by_hand(void **state)
{
    (void)state;
    enum { ROWS = 36 };
    double cost[ROWS * 3], crule[ROWS];
    int j = 1;
    for (int i = 0; i < 34; i++) {
        crule[i] = 1000;
        for (int k = 0; k < 3; k++, j++)
            cost[i * 3 + k] = j <= 101 ? 1000 - j : 1450;
    }
    crule[34] = 1000;
    cost[34 * 3 + 0] = 3000;
    cost[34 * 3 + 1] = 1000;
    cost[34 * 3 + 2] = 1100;
    crule[35] = 0; /* no rule cost: skipped (it would read as huge savings) */
    cost[35 * 3 + 0] = cost[35 * 3 + 1] = cost[35 * 3 + 2] = 1;
    double gain = 0, loss = 0;
    gpuest_error_t err;
    assert_int_equal(cli_l1c_spans_p99(cost, crule, ROWS, 3, 0.05, &gain, &loss, &err), GPUEST_OK);
    assert_true(fabs(gain - 0.100) < 1e-12);
    assert_true(fabs(loss - 2.0) < 1e-12);
    /* the first 10 rows only: 30 positives 0.001 .. 0.030, rank 30 = 0.030; no loss: fallback */
    assert_int_equal(cli_l1c_spans_p99(cost, crule, 10, 3, 0.05, &gain, &loss, &err), GPUEST_OK);
    assert_true(fabs(gain - 0.030) < 1e-12);
    assert_true(loss == 0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target_by_hand),
        cmocka_unit_test(test_spans_p99_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
