/* test_amva.c: exact MVA and Schweitzer-Bard AMVA against closed networks solved by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/model.h"

/* Two queues, demands 1 and 2, three customers. By hand (exact MVA):
 * n=1: R = (1, 2), X = 1/3, Q = (1/3, 2/3)
 * n=2: R = (4/3, 10/3), X = 3/7, Q = (4/7, 10/7)
 * n=3: R = (11/7, 34/7), X = 7/15.
 * Check by product form: P(n1) ~ 1^n1 2^(3-n1) -> weights 8, 4, 2, 1 (G(3) = 15),
 * G(2) = 4 + 2 + 1 = 7, X = G(2)/G(3) = 7/15. */
static void exact_two_queues(void **state)
{
    (void)state;
    double d[2] = {1, 2}, r[2], q[2], x;
    int delay[2] = {0, 0};
    gpuest_error_t err;
    assert_int_equal(gpuest_model_mva_exact(d, delay, 2, 3, &x, r, q, &err), GPUEST_OK);
    assert_true(fabs(x - 7.0 / 15.0) < 1e-12);
    assert_true(fabs(r[0] - 11.0 / 7.0) < 1e-12);
    assert_true(fabs(r[1] - 34.0 / 7.0) < 1e-12);
    assert_true(fabs(q[0] + q[1] - 3.0) < 1e-12);
}

/* A queue (D = 1) and a delay (Z = 2), two customers. n=1: X = 1/3, Q = 1/3;
 * n=2: R = 4/3, X = 2 / (4/3 + 2) = 3/5. */
static void exact_queue_and_delay(void **state)
{
    (void)state;
    double d[2] = {1, 2}, r[2], q[2], x;
    int delay[2] = {0, 1};
    gpuest_error_t err;
    assert_int_equal(gpuest_model_mva_exact(d, delay, 2, 2, &x, r, q, &err), GPUEST_OK);
    assert_true(fabs(x - 0.6) < 1e-12);
    assert_true(fabs(r[0] - 4.0 / 3.0) < 1e-12);
    assert_true(fabs(r[1] - 2.0) < 1e-12);
}

/* Schweitzer, one class, demands 1 and 2, N = 2. With Q1 = q, Q2 = 2 - q:
 * R1 = 1 + q/2, R2 = 2 (1 + (2 - q)/2) = 4 - q, X = 2 / (5 - q/2), q = X R1
 * -> q^2 - 8 q + 4 = 0, q = 4 - sqrt(12); X = 2 / (5 - q/2) = 0.42264973...
 * (exact MVA gives 3/7 = 0.428571: the approximation's known error, 1.4 %). */
static void schweitzer_single_class(void **state)
{
    (void)state;
    gpuest_amva_station_t st[2] = {{GPUEST_ST_QUEUE, 1.0, 1, 0, 1, 1.0, 1.0}, {GPUEST_ST_QUEUE, 2.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 2, 1, 2.0, 1e-12, &a, &err), GPUEST_OK);
    double q = 4.0 - sqrt(12.0);
    assert_true(fabs(a.x - 2.0 / (5.0 - q / 2.0)) < 1e-9);
    assert_true(fabs(a.q[0] - q) < 1e-8);
    assert_true(fabs(a.r[1] - (4.0 - q)) < 1e-8);
}

/* Two groups of one customer each; each group has its own private queue (D = 1), and both
 * share one queue (D = 1). Private: an arrival sees Q (n-1)/n = 0, so R_p = 1. Shared: it sees
 * the other group's content q1 (G - 1/n = 1), R_s = 1 + q1; X_g = 1 / (2 + q1), q1 = X_g R_s
 * -> q1^2 + q1 - 1 = 0, q1 = (sqrt(5) - 1)/2, X = 2 / (2 + q1) = 0.76393202... */
static void schweitzer_groups_private_shared(void **state)
{
    (void)state;
    gpuest_amva_station_t st[2] = {{GPUEST_ST_QUEUE, 1.0, 2, 1, 1, 1.0, 1.0}, {GPUEST_ST_QUEUE, 1.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 2, 2, 1.0, 1e-12, &a, &err), GPUEST_OK);
    double q1 = (sqrt(5.0) - 1.0) / 2.0;
    assert_true(fabs(a.x - 2.0 / (2.0 + q1)) < 1e-9);
    assert_true(fabs(a.r[0] - 1.0) < 1e-12);
    assert_true(fabs(a.q[1] - 2.0 * q1) < 1e-8); /* both groups: 2 X_g R_s = 2 q1 */
}

/* Seidmann: one customer at a 2-server station of demand 2 and a delay of 2: no queueing,
 * R = D/2 (queue part) + D/2 (delay part) = 2, X = 1/4. With deterministic service (scv 0) and
 * one customer the residual correction must vanish as well (nobody is seen). */
static void seidmann_one_customer(void **state)
{
    (void)state;
    gpuest_amva_station_t st[2] = {{GPUEST_ST_MULTI, 2.0, 1, 0, 2, 0.0, 1.0}, {GPUEST_ST_DELAY, 2.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 2, 1, 1.0, 1e-12, &a, &err), GPUEST_OK);
    assert_true(fabs(a.x - 0.25) < 1e-12);
    assert_true(fabs(a.r[0] - 2.0) < 1e-12);
}

/* Large population: throughput approaches the bottleneck bound 1 / D_max (asymptotic bound). */
static void bottleneck_bound(void **state)
{
    (void)state;
    gpuest_amva_station_t st[3] = {{GPUEST_ST_QUEUE, 1.0, 1, 0, 1, 1.0, 1.0}, {GPUEST_ST_QUEUE, 4.0, 1, 0, 1, 1.0, 1.0},
                                   {GPUEST_ST_DELAY, 50.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 3, 1, 500.0, 1e-12, &a, &err), GPUEST_OK);
    assert_true(a.x <= 0.25 + 1e-12);
    assert_true(a.x > 0.249);
    assert_true(fabs(a.util[1] - 4.0 * a.x) < 1e-12);
}

/* A batch station (fork): one customer's visit is 2 requests of service 1 spread over 2 replicas
 * (demand 2, fork 2), then a delay of 1. One customer: nobody is seen, R = D / fork = 1, X = 1/2
 * (a station without the fork would serve the batch serially: R = 2, X = 1/3). Two customers:
 * the arrival sees q1 (G - 1/n) = q1 / 2, where q1 = X R (each customer present at both
 * replicas at once, Little's law per replica); R = 1 + X R / 2, X = 2 / (R + 1)
 * -> R^2 - R - 1 = 0, R = (1 + sqrt 5) / 2, X = 2 / (R + 1) = 0.76393202... */
static void fork_batch_by_hand(void **state)
{
    (void)state;
    gpuest_amva_station_t st[2] = {{GPUEST_ST_QUEUE, 2.0, 2, 0, 1, 1.0, 2.0}, {GPUEST_ST_DELAY, 1.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 2, 1, 1.0, 1e-12, &a, &err), GPUEST_OK);
    assert_true(fabs(a.x - 0.5) < 1e-12);
    assert_true(fabs(a.r[0] - 1.0) < 1e-12);
    assert_true(fabs(a.util[0] - 0.5) < 1e-12); /* X D / replicas: the whole batch is work */
    assert_int_equal(gpuest_model_amva(st, 2, 1, 2.0, 1e-13, &a, &err), GPUEST_OK);
    double r = (1.0 + sqrt(5.0)) / 2.0;
    assert_true(fabs(a.r[0] - r) < 1e-8);
    assert_true(fabs(a.x - 2.0 / (r + 1.0)) < 1e-9);
}

/* A batch station under a large population keeps the bottleneck bound replicas / D (here 2 / 2 =
 * 1 customer a cycle): counting a customer at one replica only would let X reach 2. */
static void fork_bottleneck_bound(void **state)
{
    (void)state;
    gpuest_amva_station_t st[2] = {{GPUEST_ST_QUEUE, 2.0, 2, 0, 1, 1.0, 2.0}, {GPUEST_ST_DELAY, 1.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 2, 1, 400.0, 1e-12, &a, &err), GPUEST_OK);
    assert_true(a.x <= 1.0 + 1e-9);
    assert_true(a.x > 0.99);
}

static void rejects_bad_input(void **state)
{
    (void)state;
    gpuest_amva_station_t st[1] = {{GPUEST_ST_QUEUE, 0.0, 1, 0, 1, 1.0, 1.0}};
    gpuest_amva_result_t a;
    gpuest_error_t err;
    assert_int_equal(gpuest_model_amva(st, 1, 1, 2.0, 1e-9, &a, &err), GPUEST_EINVAL);
    st[0].demand = NAN;
    assert_int_equal(gpuest_model_amva(st, 1, 1, 2.0, 1e-9, &a, &err), GPUEST_EINVAL);
    st[0].demand = 1.0;
    assert_int_equal(gpuest_model_amva(st, 1, 0, 2.0, 1e-9, &a, &err), GPUEST_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_two_queues),      cmocka_unit_test(exact_queue_and_delay),
        cmocka_unit_test(schweitzer_single_class), cmocka_unit_test(schweitzer_groups_private_shared),
        cmocka_unit_test(seidmann_one_customer), cmocka_unit_test(bottleneck_bound),
        cmocka_unit_test(fork_batch_by_hand),    cmocka_unit_test(fork_bottleneck_bound),
        cmocka_unit_test(rejects_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
