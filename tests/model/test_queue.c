/* test_queue.c: queueing primitives against closed forms and seeded simulations (M/D/1, Karol, M/D/1/K). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>

#include "core/core.h"
#include "model_test_util.h"

/* Lindley recursion for a FIFO queue with Poisson arrivals and fixed service d. */
static double simulate_md1(double lambda, double d, int n, uint64_t seed)
{
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(seed, &rng), GPUEST_OK);
    void *g = gpuest_rng_gsl(rng);
    double w = 0.0, sum = 0.0;
    for (int i = 0; i < n; i++) {
        double a = gsl_ran_exponential(g, 1.0 / lambda);
        w = w + d - a;
        if (w < 0.0)
            w = 0.0;
        sum += w;
    }
    gpuest_rng_destroy(rng);
    return sum / n;
}

static void test_md1_formula_vs_simulation(void **state)
{
    (void)state;
    const double d = 4.0;
    for (double rho = 0.3; rho < 0.85; rho += 0.25) {
        double lambda = rho / d, w;
        assert_int_equal(gpuest_model_mg1_wait(lambda, d, d * d, &w), GPUEST_OK);
        assert_double_equal(w, rho * d / (2.0 * (1.0 - rho)), 1e-12);
        double sim = simulate_md1(lambda, d, 400000, 42);
        assert_true(fabs(sim - w) / w < 0.03);
    }
    double w;
    assert_int_equal(gpuest_model_mg1_wait(0.3, 4.0, 16.0, &w), GPUEST_ESATURATED);
    assert_double_equal(w, 0.0, 0.0);
}

static void test_erlang_c(void **state)
{
    (void)state;
    assert_double_equal(gpuest_model_erlang_c(1, 0.4), 0.4, 1e-12);
    assert_double_equal(gpuest_model_erlang_c(2, 1.0), 1.0 / 3.0, 1e-12);
    /* M/M/3, a = 2: P0^-1 = 1 + 2 + 2 + (8/6)/(1/3) = 9, C = 4/9 */
    assert_double_equal(gpuest_model_erlang_c(3, 2.0), 4.0 / 9.0, 1e-12);
    double w;
    /* G/G/1 with ca2 = 1, cs2 = 0 is M/D/1 */
    assert_int_equal(gpuest_model_ggc_wait(1, 0.2, 3.0, 1.0, 0.0, &w), GPUEST_OK);
    assert_double_equal(w, 0.6 * 3.0 / (2.0 * 0.4), 1e-12);
}

/* An isolated output link fed by many independent Poisson-like inputs with fixed service:
 * the model's output wait is Karol's (N-1)/N * rho L / (2 (1 - rho)) with kappa = 1, which tends
 * to M/D/1 as N grows; we check the formula and that it matches a simulated M/D/1 queue. */
static void test_isolated_link_md1(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    gpuest_model_result_t res;
    gpuest_model_params_t pp;
    const int n = 200, len = 4;
    const double rho = 0.7;
    gpuest_config_preset(&cfg, "fermi", NULL);
    cfg.noc.topology = GPUEST_TOPO_CROSSBAR;
    cfg.noc.vcs = 64; /* the input stage never queues: only the output link does */
    cfg.noc.buffer_flits = 8;
    assert_int_equal(gpuest_model_traffic_init(&t, n, 1, NULL), GPUEST_OK);
    t.packet_flits[0] = len;
    for (int s = 1; s < n; s++)
        *gpuest_model_traffic_at(&t, 0, s, 0) = rho / len / (n - 1);
    assert_int_equal(gpuest_model_noc_create(&cfg, &t, &m, NULL), GPUEST_OK);
    gpuest_model_params_default(&pp);
    pp.kappa = 1.0;
    assert_int_equal(gpuest_model_noc_eval(m, 1.0, &pp, &res, NULL), GPUEST_OK);
    double md1 = rho * len / (2.0 * (1.0 - rho));
    double karol = md1 * (1.0 - 1.0 / (n - 1));
    assert_double_equal(gpuest_model_noc_port_load(m, 0, 0, -1), rho, 1e-12);
    assert_double_equal(res.cls[0].hop_wait, karol, 1e-9);
    double sim = simulate_md1(rho / len, len, 400000, 7);
    assert_true(fabs(sim - res.cls[0].hop_wait) / sim < 0.03);
    gpuest_model_noc_destroy(m);
    gpuest_model_traffic_free(&t);
}

/* M/D/1/K: K = 1 is the Erlang loss system; large K approaches M/D/1; small K against simulation. */
static double simulate_md1k_full(double lambda, double d, int k, uint64_t seed)
{
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(seed, &rng), GPUEST_OK);
    void *g = gpuest_rng_gsl(rng);
    /* departure times of customers in system (FIFO, at most k) */
    double dep[64];
    int head = 0, count = 0, refused = 0, total = 300000;
    double t = 0.0;
    for (int i = 0; i < total; i++) {
        t += gsl_ran_exponential(g, 1.0 / lambda);
        while (count > 0 && dep[head] <= t) {
            head = (head + 1) % 64;
            count--;
        }
        if (count == k) {
            refused++;
            continue;
        }
        double last = count > 0 ? dep[(head + count - 1) % 64] : t;
        dep[(head + count) % 64] = (last > t ? last : t) + d;
        count++;
    }
    gpuest_rng_destroy(rng);
    return (double)refused / total; /* PASTA: arrivals see time averages */
}

static void test_md1k(void **state)
{
    (void)state;
    gpuest_model_md1k_t q;
    assert_int_equal(gpuest_model_md1k(0.25, 2.0, 1, &q, NULL), GPUEST_OK);
    assert_double_equal(q.p_full, 0.5 / 1.5, 1e-12);
    assert_int_equal(gpuest_model_md1k(0.1, 5.0, 64, &q, NULL), GPUEST_OK);
    assert_true(q.p_full < 1e-12);
    assert_double_equal(q.mean_wait, 0.5 * 5.0 / (2 * 0.5), 1e-6);
    const double lam[] = {0.15, 0.2, 0.3};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(gpuest_model_md1k(lam[i], 4.0, 3, &q, NULL), GPUEST_OK);
        double sim = simulate_md1k_full(lam[i], 4.0, 3, 99 + i);
        assert_true(fabs(sim - q.p_full) < 0.01 + 0.03 * q.p_full);
        double s = 0.0;
        for (int j = 0; j <= 3; j++)
            s += q.p[j];
        assert_double_equal(s, 1.0, 1e-12);
    }
    assert_int_equal(gpuest_model_md1k(0.1, 5.0, 0, &q, NULL), GPUEST_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md1_formula_vs_simulation),
        cmocka_unit_test(test_erlang_c),
        cmocka_unit_test(test_isolated_link_md1),
        cmocka_unit_test(test_md1k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
