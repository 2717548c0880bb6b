/* test_report.c: results databases read back, each figure's data worked by hand, and 'gpuest plot' through gnuplot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sqlite3.h>

#include "fixture_db.h"
#include "report/report.h"
#include "run_program.h"

static char db_path[256];
static int have_gnuplot_quiet(void);
static char out[1 << 16];

static int setup(void **state)
{
    (void)state;
    snprintf(db_path, sizeof db_path, "%s/report_fixture_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    fixture_db_create(db_path);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(db_path);
    return 0;
}

static gpuest_rdb_t *open_fixture(void)
{
    gpuest_error_t err;
    gpuest_rdb_t *db = NULL;
    if (gpuest_rdb_open(db_path, &db, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    return db;
}

static const gpuest_rdb_point_t *point_by_id(const gpuest_rdb_t *db, int64_t id)
{
    for (size_t i = 0; i < gpuest_rdb_num_points(db); i++)
        if (gpuest_rdb_point(db, i)->id == id)
            return gpuest_rdb_point(db, i);
    fail_msg("no point %lld", (long long)id);
    return NULL;
}

/* Every table read back: intervals only where lo/hi are set, the last run's status. */
static void test_database_read_back(void **state)
{
    (void)state;
    gpuest_rdb_t *db = open_fixture();
    assert_int_equal(gpuest_rdb_num_points(db), 14);
    assert_string_equal(gpuest_rdb_meta(db, "spec_hash"), "abc123");
    assert_null(gpuest_rdb_meta(db, "nothing"));
    const gpuest_rdb_point_t *p = point_by_id(db, 10);
    assert_string_equal(p->mode, "estimate");
    assert_string_equal(p->design_hash, "d2");
    const gpuest_rdb_result_t *r = gpuest_rdb_result(p, "ipc");
    assert_non_null(r);
    assert_true(r->has_interval && r->value == 130 && r->lo == 125 && r->hi == 135);
    r = gpuest_rdb_result(point_by_id(db, 1), "ipc");
    assert_false(r->has_interval);
    assert_int_equal(point_by_id(db, 1)->num_results, 2);
    p = point_by_id(db, 8);
    assert_string_equal(p->status, "ok"); /* run 3 came after the failed run 2 */
    assert_string_equal(p->host, "hostB");
    assert_int_equal(p->seed, 2);
    char buf[64];
    assert_string_equal(gpuest_rdb_key_value(p, "l1.size_bytes", buf, sizeof buf), "65536");       /* swept */
    assert_string_equal(gpuest_rdb_key_value(p, "core.num_sms", buf, sizeof buf), "56");           /* from config */
    assert_string_equal(gpuest_rdb_key_value(p, "technique.compression", buf, sizeof buf), "sc2"); /* last line */
    assert_null(gpuest_rdb_key_value(p, "core.num", buf, sizeof buf)); /* a prefix is not a key */
    gpuest_rdb_close(db);
}

static void build(gpuest_figure_spec_t spec, gpuest_figure_t *fig)
{
    gpuest_rdb_t *db = open_fixture();
    gpuest_error_t err;
    if (gpuest_figure_build(db, &spec, fig, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    gpuest_rdb_close(db);
}

/* bfs bdi: 120/100 = 1.2 and 99/110 = 0.9, geometric mean sqrt(1.08) = 1.03923; hotspot bdi
 * 250/200 = 1.25, sc2 180/200 = 0.9 (point 8, seed 2 at 64K, has no baseline and is left
 * out); GMEAN bdi sqrt(1.03923 x 1.25) = 1.13975. Estimates are not mixed in (mode simulate). */
static const char ipc_bars_data[] =
    "# IPC normalized to technique none of the same design (mode simulate; geometric mean over designs and seeds; "
    "? = no pair)\n"
    "# workload\tcompression=bdi\tcompression=sc2\n"
    "bfs\t1.03923\t?\n"
    "hotspot\t1.25\t0.9\n"
    "GMEAN\t1.13975\t0.9\n";

static void test_ipc_bars_data(void **state)
{
    (void)state;
    gpuest_figure_t fig;
    build((gpuest_figure_spec_t){.kind = GPUEST_FIG_IPC_BARS}, &fig);
    assert_string_equal(fig.data, ipc_bars_data);
    assert_int_equal(fig.rows, 3);
    assert_non_null(strstr(fig.script, "using 2:xtic(1) title \"compression=bdi\""));
    assert_non_null(strstr(fig.script, "using 3 title \"compression=sc2\""));
    gpuest_figure_free(&fig);
    /* the estimate points alone: bfs bdi 130/95 */
    build((gpuest_figure_spec_t){.kind = GPUEST_FIG_IPC_BARS, .mode = "estimate"}, &fig);
    assert_non_null(strstr(fig.data, "\nbfs\t1.36842\n"));
    gpuest_figure_free(&fig);
}

static const char latency_data[] =
    "# latency (cycles) and accepted rate (flits/node/cycle) against offered injection rate\n"
    "# series 0: mesh56 uniform noc.vcs=2\n"
    "# injection_rate\tlatency\taccepted\n"
    "0.05\t18\t0.05\n"
    "0.1\t20\t0.1\n"
    "0.3\t300.5\t0.21\n"
    "\n\n"
    "# series 1: mesh56 uniform noc.vcs=4\n"
    "# injection_rate\tlatency\taccepted\n"
    "0.1\t19\t0.1\n";

static void test_latency_injection_data(void **state)
{
    (void)state;
    gpuest_figure_t fig;
    build((gpuest_figure_spec_t){.kind = GPUEST_FIG_LATENCY_INJECTION}, &fig);
    assert_string_equal(fig.data, latency_data);
    assert_non_null(strstr(fig.script, "index 1 using 1:2 with linespoints pt 7 title \"mesh56 uniform noc.vcs=4\""));
    gpuest_figure_free(&fig);
}

/* Pairs by design_hash: d1 (simulate 100, estimate 95 [90, 105]) and d2 (120, 130 [125, 135]);
 * mean |error| (5/100 + 10/120) / 2 = 6.7 %, one simulate value inside its interval. */
static void test_estimate_vs_simulate_data(void **state)
{
    (void)state;
    gpuest_figure_t fig;
    build((gpuest_figure_spec_t){.kind = GPUEST_FIG_EST_VS_SIM}, &fig);
    assert_string_equal(fig.data,
                        "# ipc: estimate (with its interval) against the detailed simulation of the same design\n"
                        "# simulate\testimate\tlo\thi\tworkload\tdesign_hash\n"
                        "100\t95\t90\t105\tbfs\td1\n"
                        "120\t130\t125\t135\tbfs\td2\n");
    assert_non_null(strstr(fig.title, "2 designs, mean |error| 6.7 %, 1 inside the interval"));
    assert_non_null(strstr(fig.script, "set xrange [0:141.75]")); /* 135 x 1.05 */
    gpuest_figure_free(&fig);
}

static const char stat_key_data[] =
    "# ipc against l1.size_bytes\n"
    "# series 0: mesh56 bfs\n# l1.size_bytes\tipc\n16384\t100\n32768\t110\n\n\n"
    "# series 1: mesh56 bfs compression=bdi\n# l1.size_bytes\tipc\n16384\t120\n32768\t99\n\n\n"
    "# series 2: mesh56 hotspot\n# l1.size_bytes\tipc\n16384\t200\n\n\n"
    "# series 3: mesh56 hotspot compression=bdi\n# l1.size_bytes\tipc\n16384\t250\n\n\n"
    "# series 4: mesh56 hotspot compression=sc2\n# l1.size_bytes\tipc\n16384\t180\n65536\t170\n";

static void test_stat_vs_key_data(void **state)
{
    (void)state;
    gpuest_figure_t fig;
    build(
        (gpuest_figure_spec_t){
            .kind = GPUEST_FIG_STAT_VS_KEY, .stat = "ipc", .key = "l1.size_bytes", .mode = "simulate"},
        &fig);
    assert_string_equal(fig.data, stat_key_data);
    gpuest_figure_free(&fig);
    /* every noc point its own combination of the other swept key (the rate): one scatter series
     * instead of four single-point lines */
    build((gpuest_figure_spec_t){.kind = GPUEST_FIG_STAT_VS_KEY, .stat = "latency", .key = "noc.vcs"}, &fig);
    assert_string_equal(fig.data, "# latency against noc.vcs\n# series 0: mesh56 uniform\n# noc.vcs\tlatency\n"
                                  "2\t18\n2\t20\n2\t300.5\n4\t19\n");
    assert_non_null(strstr(fig.script, "with points"));
    gpuest_figure_free(&fig);
    /* a configuration key that was not swept, text values placed at 0, 1, ... */
    build(
        (gpuest_figure_spec_t){
            .kind = GPUEST_FIG_STAT_VS_KEY, .stat = "ipc", .key = "technique.compression", .mode = "estimate"},
        &fig);
    assert_string_equal(fig.data, "# ipc against technique.compression (text values at 0, 1, ... in name order)\n"
                                  "# series 0: mesh56 bfs l1.size_bytes=16384\n"
                                  "# technique.compression\tipc\tlabel\n"
                                  "0\t130\tbdi\n1\t95\tnone\n");
    gpuest_figure_free(&fig);
}

/* gpuest sweep keeps one mode per database: the estimate points in one file, the rest in
 * another, merged, give the same pairs as one database. */
static void test_merged_databases_pair(void **state)
{
    (void)state;
    char est[300], sim[300];
    snprintf(est, sizeof est, "%s.est", db_path);
    snprintf(sim, sizeof sim, "%s.sim", db_path);
    fixture_db_create(est);
    fixture_db_create(sim);
    const char *del[2][2] = {{est, "DELETE FROM points WHERE mode != 'estimate'"},
                             {sim, "DELETE FROM points WHERE mode = 'estimate'"}};
    for (int i = 0; i < 2; i++) {
        sqlite3 *h = NULL;
        assert_int_equal(sqlite3_open(del[i][0], &h), SQLITE_OK);
        assert_int_equal(sqlite3_exec(h, del[i][1], NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
    }
    gpuest_error_t err;
    gpuest_rdb_t *a = NULL, *b = NULL;
    assert_int_equal(gpuest_rdb_open(sim, &a, &err), GPUEST_OK);
    assert_int_equal(gpuest_rdb_open(est, &b, &err), GPUEST_OK);
    assert_int_equal(gpuest_rdb_num_points(a), 12);
    assert_int_equal(gpuest_rdb_merge(a, b, &err), GPUEST_OK);
    assert_int_equal(gpuest_rdb_num_points(a), 14);
    assert_int_equal(gpuest_rdb_num_sources(a), 2);
    assert_int_equal(gpuest_rdb_point(a, 12)->source, 1);
    assert_int_equal(gpuest_rdb_point(a, 12)->id, 9);
    gpuest_figure_t fig;
    gpuest_figure_spec_t spec = {.kind = GPUEST_FIG_EST_VS_SIM};
    assert_int_equal(gpuest_figure_build(a, &spec, &fig, &err), GPUEST_OK);
    assert_non_null(strstr(fig.data, "100\t95\t90\t105\tbfs\td1\n120\t130\t125\t135\tbfs\td2\n"));
    gpuest_figure_free(&fig);
    gpuest_rdb_close(a);
    /* the estimate file alone has nothing to pair */
    assert_int_equal(gpuest_rdb_open(est, &b, &err), GPUEST_OK);
    assert_int_equal(gpuest_figure_build(b, &spec, &fig, &err), GPUEST_EINVAL);
    gpuest_rdb_close(b);
    if (have_gnuplot_quiet()) { /* the command line: --with */
        char args[1200], png[400];
        snprintf(png, sizeof png, "%s.png", est);
        snprintf(args, sizeof args, "plot %s --with %s --figure estimate-vs-simulate --out %s", sim, est, png);
        if (run_gpuest(args, out, sizeof out) != 0)
            fail_msg("%s", out);
        assert_non_null(strstr(out, "2 designs"));
        unlink(png);
    }
    unlink(est);
    unlink(sim);
}

static void test_figure_errors(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_figure_kind_t k;
    assert_int_equal(gpuest_figure_find("ipc-bar", &k, &err), GPUEST_ENOKEY);
    assert_non_null(strstr(err.msg, "ipc-bars"));
    char empty[300];
    snprintf(empty, sizeof empty, "%s.empty", db_path);
    fixture_db_create_empty(empty);
    gpuest_rdb_t *db = NULL;
    assert_int_equal(gpuest_rdb_open(empty, &db, &err), GPUEST_OK);
    gpuest_figure_t fig;
    for (int kind = 0; kind < 4; kind++) {
        gpuest_figure_spec_t spec = {.kind = (gpuest_figure_kind_t)kind, .stat = "ipc", .key = "noc.vcs"};
        assert_int_equal(gpuest_figure_build(db, &spec, &fig, &err), GPUEST_EINVAL);
    }
    gpuest_rdb_close(db);
    /* not a results database: names what is missing */
    test_write_text(empty, "");
    assert_int_equal(gpuest_rdb_open(empty, &db, &err), GPUEST_ECORRUPT);
    assert_non_null(strstr(err.msg, "table meta"));
    unlink(empty);
}

/* PNG: signature and the IHDR size (900 x 560, the terminal's); SVG: root element and size. */
static int have_gnuplot_quiet(void)
{
    return gpuest_gnuplot_available();
}

static void check_png(const char *path)
{
    unsigned char h[24];
    long size = fixture_file_head(path, h, sizeof h);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    assert_memory_equal(h, sig, 8);
    assert_memory_equal(h + 12, "IHDR", 4);
    assert_int_equal((h[16] << 24) | (h[17] << 16) | (h[18] << 8) | h[19], 900);
    assert_int_equal((h[20] << 24) | (h[21] << 16) | (h[22] << 8) | h[23], 560);
    assert_true(size > 8000 && size < 2000000); /* a drawn chart, not an empty canvas (~3 KB) */
}

static int have_gnuplot(void)
{
    if (gpuest_gnuplot_available())
        return 1;
    print_message("SKIP: gnuplot is not installed (apt-get install gnuplot-nox): figures not checked\n");
    return 0;
}

static void read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void test_plot_png_and_data_file(void **state)
{
    (void)state;
    if (!have_gnuplot())
        skip();
    char png[300], dir[300], args[1200], path[400];
    static char text[1 << 16];
    snprintf(png, sizeof png, "%s/report_plot_%d.png", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(dir, sizeof dir, "%s/report_plot_%d.d", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "plot %s --figure ipc-bars --out %s --data-dir %s", db_path, png, dir);
    if (run_gpuest(args, out, sizeof out) != 0)
        fail_msg("%s", out);
    check_png(png);
    snprintf(path, sizeof path, "%s/figure.dat", dir);
    read_text(path, text, sizeof text);
    assert_string_equal(text, ipc_bars_data); /* the file gnuplot read */
    snprintf(path, sizeof path, "%s/figure.gp", dir);
    read_text(path, text, sizeof text);
    assert_non_null(strstr(text, "set terminal pngcairo size 900,560"));
    assert_non_null(strstr(text, "/figure.dat' using 2:xtic(1)"));
    snprintf(args, sizeof args, "rm -rf %s %s", dir, png);
    assert_int_equal(system(args), 0);
}

static void test_plot_svg_each_figure(void **state)
{
    (void)state;
    if (!have_gnuplot())
        skip();
    static const char *const figures[] = {"latency-injection", "estimate-vs-simulate",
                                          "stat-vs-key --stat ipc --key l1.size_bytes"};
    static char text[1 << 20];
    for (int i = 0; i < 3; i++) {
        char svg[300], args[1200];
        snprintf(svg, sizeof svg, "%s/report_plot_%d_%d.svg", GPUEST_BINARY_DIR, (int)getpid(), i);
        snprintf(args, sizeof args, "plot %s --figure %s --out %s", db_path, figures[i], svg);
        if (run_gpuest(args, out, sizeof out) != 0)
            fail_msg("%s: %s", figures[i], out);
        read_text(svg, text, sizeof text);
        assert_true(strlen(text) > 5000);
        assert_non_null(strstr(text, "<svg"));
        assert_non_null(strstr(text, "width=\"900\" height=\"560\""));
        assert_non_null(strstr(text, "</svg>"));
        unlink(svg);
    }
    /* bad requests: exit 2, nothing written */
    char bad[300], args[1200];
    snprintf(bad, sizeof bad, "%s/report_bad_%d.svg", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "plot %s --figure stat-vs-key --stat ipc --key no.such --out %s", db_path, bad);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "no point has both the statistic 'ipc' and the key 'no.such'"));
    assert_int_equal(access(bad, F_OK), -1);
    snprintf(args, sizeof args, "plot %s --figure ipc-bars --out %s.jpg", db_path, bad);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "must end in .png or .svg"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_database_read_back),     cmocka_unit_test(test_ipc_bars_data),
        cmocka_unit_test(test_latency_injection_data), cmocka_unit_test(test_estimate_vs_simulate_data),
        cmocka_unit_test(test_stat_vs_key_data),       cmocka_unit_test(test_merged_databases_pair),
        cmocka_unit_test(test_figure_errors),          cmocka_unit_test(test_plot_png_and_data_file),
        cmocka_unit_test(test_plot_svg_each_figure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
