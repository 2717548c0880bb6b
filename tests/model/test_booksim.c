/* test_booksim.c: model accuracy against the BookSim 2 reference curves in data/reference/booksim. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "model_test_util.h"

#define MAX_ROWS 128
#define MAX_CFGS 4

typedef struct {
    char name[64];
    int k, vcs, buf, flits;
    double rate, lat, net;
    int saturated;
} bs_row_t;

typedef struct {
    bs_row_t rows[MAX_ROWS];
    int n;
} bs_data_t;

static gpuest_err read_row(void *ctx, size_t line, const char *const *f, size_t nf, gpuest_error_t *err)
{
    bs_data_t *d = ctx;
    if (line == 1)
        return GPUEST_OK; /* header */
    if (nf < 13 || d->n >= MAX_ROWS)
        return gpuest_fail(err, GPUEST_EPARSE, "results.csv:%zu: expected 15 columns", line);
    bs_row_t *r = &d->rows[d->n++];
    int64_t v;
    snprintf(r->name, sizeof r->name, "%s", f[0]);
    GPUEST_TRY(gpuest_parse_i64(f[2], &v));
    r->k = (int)v;
    GPUEST_TRY(gpuest_parse_i64(f[3], &v));
    r->vcs = (int)v;
    GPUEST_TRY(gpuest_parse_i64(f[4], &v));
    r->buf = (int)v;
    GPUEST_TRY(gpuest_parse_i64(f[7], &v));
    r->flits = (int)v;
    GPUEST_TRY(gpuest_parse_double(f[8], &r->rate));
    GPUEST_TRY(gpuest_parse_i64(f[12], &v));
    r->saturated = (int)v;
    if (!r->saturated) {
        GPUEST_TRY(gpuest_parse_double(f[9], &r->lat));
        GPUEST_TRY(gpuest_parse_double(f[10], &r->net));
    }
    return GPUEST_OK;
}

/* BookSim saturation: midpoint between the last stable and the first unstable offered rate. */
static double booksim_saturation(const bs_data_t *d, const char *name)
{
    double stable = 0.0, unstable = 1e9;
    for (int i = 0; i < d->n; i++) {
        if (strcmp(d->rows[i].name, name) != 0)
            continue;
        if (d->rows[i].saturated && d->rows[i].rate < unstable)
            unstable = d->rows[i].rate;
        if (!d->rows[i].saturated && d->rows[i].rate > stable)
            stable = d->rows[i].rate;
    }
    return 0.5 * (stable + unstable);
}

static void test_booksim_accuracy(void **state)
{
    (void)state;
    static bs_data_t data;
    gpuest_error_t err;
    data.n = 0;
    assert_int_equal(gpuest_csv_read("data/reference/booksim/results.csv", read_row, &data, &err), GPUEST_OK);
    assert_true(data.n > 30);
    const char *names[] = {"mesh8_vc4_uniform_p1", "mesh8_vc4_uniform_p5", "mesh6_vc1_uniform_p1"};
    printf("| config | rate | load/sat | BookSim latency | model latency | error | BookSim net | model net | error |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int c = 0; c < 3; c++) {
        double bsat = booksim_saturation(&data, names[c]);
        double e60 = 0.0, e80 = 0.0;
        int n60 = 0, n80 = 0;
        gpuest_config_t cfg;
        gpuest_model_pattern_t p;
        gpuest_model_traffic_t t;
        gpuest_model_noc_t *m = NULL;
        const bs_row_t *first = NULL;
        for (int i = 0; i < data.n && !first; i++)
            if (strcmp(data.rows[i].name, names[c]) == 0)
                first = &data.rows[i];
        assert_non_null(first);
        booksim_mesh(&cfg, first->k, first->vcs, first->buf);
        assert_int_equal(gpuest_model_pattern_init(&p, "uniform", NULL), GPUEST_OK);
        p.packet_flits = first->flits;
        assert_int_equal(gpuest_model_traffic_build(&t, &p, &cfg, 1.0, NULL), GPUEST_OK);
        assert_int_equal(gpuest_model_noc_create(&cfg, &t, &m, NULL), GPUEST_OK);
        gpuest_model_traffic_free(&t);
        for (int i = 0; i < data.n; i++) {
            const bs_row_t *r = &data.rows[i];
            if (strcmp(r->name, names[c]) != 0 || r->saturated)
                continue;
            double f = r->rate / bsat;
            gpuest_model_result_t res;
            gpuest_err rc = gpuest_model_noc_eval(m, r->rate, NULL, &res, NULL);
            if (rc != GPUEST_OK) {
                printf("| %s | %.4f | %.2f | %.2f | saturated | - | %.2f | saturated | - |\n", names[c], r->rate, f,
                       r->lat, r->net);
                assert_true(f > 0.8); /* the model may only give up above 80 % of saturation */
                continue;
            }
            double e = (res.avg_packet_latency - r->lat) / r->lat;
            double en = (res.avg_network_latency - r->net) / r->net;
            printf("| %s | %.4f | %.2f | %.2f | %.2f | %+.1f %% | %.2f | %.2f | %+.1f %% |\n", names[c], r->rate, f,
                   r->lat, res.avg_packet_latency, 100 * e, r->net, res.avg_network_latency, 100 * en);
            if (f <= 0.6) {
                e60 = fmax(e60, fabs(e));
                n60++;
            }
            if (f <= 0.8) {
                e80 = fmax(e80, fabs(e));
                n80++;
            }
        }
        double msat;
        assert_int_equal(gpuest_model_noc_saturation_scale(m, NULL, &msat, &err), GPUEST_OK);
        double es = (msat - bsat) / bsat;
        printf("| %s | saturation | BookSim %.4f | model %.4f | %+.1f %% | max err <=60 %%: %.1f %% | <=80 %%: %.1f %% "
               "| | |\n",
               names[c], bsat, msat, 100 * es, 100 * e60, 100 * e80);
        assert_true(n60 >= 4 && n80 > n60);
        assert_true(e60 <= 0.05);
        assert_true(e80 <= 0.10);
        assert_true(fabs(es) <= 0.10);
        gpuest_model_noc_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_booksim_accuracy)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
