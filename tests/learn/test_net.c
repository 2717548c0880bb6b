/* test_net.c: the FANN wrapper: training, determinism, save/load round trip, damaged files, k-fold. */
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

#include "learn/learn.h"
#include "run_program.h"

static void tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/test_learn_%s", GPUEST_BINARY_DIR, name);
}

/* Two inputs on very different scales; target 1 when x0/1000 + x1 > 1 (needs the scaling). */
static void make_data(gpuest_learn_data_t *d)
{
    gpuest_learn_data_init(d, 2, 1);
    for (int i = 0; i < 60; i++) {
        double x[2] = {(double)(i % 10) * 200.0, (double)(i / 10) * 0.2};
        double y[1] = {x[0] / 1000.0 + x[1] > 1.0 ? 1.0 : 0.0};
        assert_int_equal(gpuest_learn_data_add(d, x, y, (uint32_t)(i / 3)), GPUEST_OK);
    }
}

static gpuest_learn_net_t *train(const gpuest_learn_data_t *d, gpuest_learn_algo_t algo, uint64_t seed)
{
    gpuest_learn_train_opts_t o;
    gpuest_learn_train_defaults(&o);
    o.algo = algo;
    o.hidden = 6;
    o.epochs = algo == GPUEST_LEARN_RPROP ? 800 : 400;
    o.learning_rate = algo == GPUEST_LEARN_RPROP ? 0.01 : 0.3;
    o.seed = seed;
    gpuest_learn_net_t *net = NULL;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_train(d, &o, &net, &err), GPUEST_OK);
    return net;
}

static double accuracy(const gpuest_learn_net_t *net, const gpuest_learn_data_t *d)
{
    size_t ok = 0;
    for (size_t r = 0; r < d->rows; r++) {
        double y;
        gpuest_learn_net_run(net, d->x + 2 * r, &y);
        ok += (y > 0.5) == (d->y[r] > 0.5);
    }
    return (double)ok / (double)d->rows;
}

static void test_train_both_algorithms(void **state)
{
    (void)state;
    gpuest_learn_data_t d;
    make_data(&d);
    for (int a = 0; a < 2; a++) {
        gpuest_learn_net_t *net = train(&d, a == 0 ? GPUEST_LEARN_RPROP : GPUEST_LEARN_INCREMENTAL, 3);
        assert_true(accuracy(net, &d) >= 0.95);
        double lo, hi;
        gpuest_learn_net_input_range(net, 0, &lo, &hi);
        assert_double_equal(lo, 0.0, 0.0);
        assert_double_equal(hi, 1800.0, 0.0);
        gpuest_learn_net_destroy(net);
    }
    gpuest_learn_data_free(&d);
}

static void save(const gpuest_learn_net_t *net, const char *tag, char *np, char *sp, size_t cap)
{
    char n[64], s[64];
    snprintf(n, sizeof n, "%s.net", tag);
    snprintf(s, sizeof s, "%s.scale.csv", tag);
    tmp_path(np, cap, n);
    tmp_path(sp, cap, s);
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_net_save(net, np, sp, &err), GPUEST_OK);
}

/* Same seed, same network bit for bit (both files); save/load gives the same outputs. */
static void test_determinism_and_round_trip(void **state)
{
    (void)state;
    gpuest_learn_data_t d;
    make_data(&d);
    gpuest_learn_net_t *a = train(&d, GPUEST_LEARN_INCREMENTAL, 11), *b = train(&d, GPUEST_LEARN_INCREMENTAL, 11);
    assert_int_equal(gpuest_learn_net_set_meta(a, "margin", 1.5), GPUEST_OK);
    assert_int_equal(gpuest_learn_net_set_meta(b, "margin", 1.5), GPUEST_OK);
    char na[512], sa[512], nb[512], sb[512];
    save(a, "a", na, sa, sizeof na);
    save(b, "b", nb, sb, sizeof nb);
    test_assert_same_file(na, nb);
    test_assert_same_file(sa, sb);
    gpuest_learn_net_t *l = NULL;
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_net_load(na, sa, 2, 1, &l, &err), GPUEST_OK);
    for (size_t r = 0; r < d.rows; r++) {
        double y1, y2;
        gpuest_learn_net_run(a, d.x + 2 * r, &y1);
        gpuest_learn_net_run(l, d.x + 2 * r, &y2);
        assert_double_equal(y1, y2, 1e-12);
    }
    double m = 0.0;
    assert_true(gpuest_learn_net_get_meta(l, "margin", &m));
    assert_double_equal(m, 1.5, 0.0);
    assert_false(gpuest_learn_net_get_meta(l, "nothing", &m));
    gpuest_learn_net_destroy(l);
    /* A different seed gives a different network. */
    gpuest_learn_net_t *c = train(&d, GPUEST_LEARN_INCREMENTAL, 12);
    char nc[512], sc[512];
    save(c, "c", nc, sc, sizeof nc);
    assert_false(test_files_equal(na, nc));
    gpuest_learn_net_destroy(a), gpuest_learn_net_destroy(b), gpuest_learn_net_destroy(c);
    remove(nb), remove(sb), remove(nc), remove(sc);
    gpuest_learn_data_free(&d);
}

static void flip_byte(const char *path, size_t at)
{
    unsigned char *data = NULL;
    size_t n = 0;
    assert_int_equal(gpuest_read_file(path, &data, &n, NULL), GPUEST_OK);
    assert_true(at < n);
    data[at] ^= 0x01;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(data, 1, n, f);
    fclose(f);
    free(data);
}

/* Missing and damaged model files give clear errors naming the file. */
static void test_missing_and_corrupt(void **state)
{
    (void)state;
    gpuest_learn_data_t d;
    make_data(&d);
    gpuest_learn_net_t *a = train(&d, GPUEST_LEARN_RPROP, 5), *l = NULL;
    char np[512], sp[512], missing[512];
    save(a, "corrupt", np, sp, sizeof np);
    gpuest_error_t err;
    tmp_path(missing, sizeof missing, "nonexistent.net");
    assert_int_equal(gpuest_learn_net_load(missing, sp, 2, 1, &l, &err), GPUEST_EIO);
    assert_non_null(strstr(err.msg, "nonexistent.net"));
    assert_int_equal(gpuest_learn_net_load(np, missing, 2, 1, &l, &err), GPUEST_EIO);
    /* Wrong shape. */
    assert_int_equal(gpuest_learn_net_load(np, sp, 4, 5, &l, &err), GPUEST_ECORRUPT); /* bad input: exit 2 */
    assert_non_null(strstr(err.msg, "shape"));
    /* One flipped byte deep in the weights: checksum. */
    flip_byte(np, 300);
    assert_int_equal(gpuest_learn_net_load(np, sp, 2, 1, &l, &err), GPUEST_ECORRUPT);
    assert_non_null(strstr(err.msg, "checksum"));
    assert_null(l);
    /* A damaged scaling file. */
    save(a, "corrupt", np, sp, sizeof np);
    FILE *f = fopen(sp, "a");
    fputs("bogus,row,1,2\n", f);
    fclose(f);
    assert_int_equal(gpuest_learn_net_load(np, sp, 2, 1, &l, &err), GPUEST_ECORRUPT);
    assert_non_null(strstr(err.msg, "scale.csv:"));
    /* Not a FANN file at all (checksum made to match). */
    save(a, "corrupt", np, sp, sizeof np);
    f = fopen(np, "w");
    fputs("hello\n", f);
    fclose(f);
    assert_int_equal(gpuest_learn_net_load(np, sp, 2, 1, &l, &err), GPUEST_ECORRUPT);
    remove(np), remove(sp);
    gpuest_learn_net_destroy(a);
    gpuest_learn_data_free(&d);
}

/* k-fold by group: a group never spans two folds; folds are balanced; seeded. */
static void test_kfold(void **state)
{
    (void)state;
    gpuest_learn_data_t d;
    make_data(&d); /* 20 groups of 3 rows */
    unsigned f1[60], f2[60];
    gpuest_error_t err;
    assert_int_equal(gpuest_learn_kfold(&d, 6, 1, f1, &err), GPUEST_OK);
    assert_int_equal(gpuest_learn_kfold(&d, 6, 1, f2, &err), GPUEST_OK);
    assert_memory_equal(f1, f2, sizeof f1);
    unsigned groups_in[6] = {0};
    for (size_t r = 0; r < d.rows; r++) {
        assert_true(f1[r] < 6);
        if (r % 3 == 0)
            groups_in[f1[r]]++;
        else
            assert_int_equal(f1[r], f1[r - 1]);
    }
    for (int f = 0; f < 6; f++)
        assert_true(groups_in[f] == 3 || groups_in[f] == 4);
    assert_int_equal(gpuest_learn_kfold(&d, 21, 1, f1, &err), GPUEST_ERANGE);
    assert_int_equal(gpuest_learn_kfold(&d, 1, 1, f1, &err), GPUEST_ERANGE);
    gpuest_learn_data_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_both_algorithms),
        cmocka_unit_test(test_determinism_and_round_trip),
        cmocka_unit_test(test_missing_and_corrupt),
        cmocka_unit_test(test_kfold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
