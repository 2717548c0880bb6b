/* test_sweep_cli.c: 'gpuest sweep' and 'gpuest results' as a user runs them: kill -9 at random
 * moments then resume (every point exactly once, none half written, same results as an
 * uninterrupted run), worker counts, point errors on record, export, bad specs. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_program.h"
#include "sweep_db_check.h"

static char out[1 << 16];
static char spec[256], ref[256];

/* 36 estimate points (3 x 6 design rows x 2 workloads) on the committed mesh56 calibrations. */
#define SPEC_TEXT                                                                                                      \
    "[sweep]\npreset = mesh56\nmode = estimate\nworkloads = hotspot, bfs\ncalibrations = " GPUEST_SOURCE_DIR          \
    "/models/calibrations\n[axes]\nnoc.vcs = 2, 4, 8\nl2.hit_latency = 60..160 step 20\n"
#define NPOINTS 36
#define NSTATS 9 /* the estimate mode's statistics (docs/sweep.md) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int setup(void **state)
{
    (void)state;
    snprintf(spec, sizeof spec, "%s/sweep_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(ref, sizeof ref, "%s/sweep_ref_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    test_write_text(spec, SPEC_TEXT);
    char args[1024];
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", spec, ref);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(spec);
    remove_db(ref);
    return 0;
}

/* Starts the sweep as its own process (output discarded); returns its pid. */
static pid_t start_sweep(const char *db)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(GPUEST_PROGRAM, "gpuest", "sweep", spec, "--db", db, "--jobs", "2", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* kill -9 at random moments of the run, several times, resuming each time: the database never
 * holds a point twice or half, and the finished one equals the uninterrupted reference. */
static void kill9_then_resume(void **state)
{
    (void)state;
    char db[256];
    snprintf(db, sizeof db, "%s/sweep_kill_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(db);
    /* how long a whole run takes here, to aim the kills inside it */
    double t0 = now_s();
    pid_t pid = start_sweep(db);
    int status;
    waitpid(pid, &status, 0);
    double full = now_s() - t0;
    remove_db(db);
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    print_message("kill -9 moments drawn with seed %u over a %.2f s run\n", seed, full);
    srand(seed);
    int killed_mid_run = 0;
    for (int k = 0; k < 4; k++) {
        long long before = access(db, F_OK) == 0 ? check_ok_runs(db) : 0;
        pid = start_sweep(db);
        /* a moment in the first 70 % of a run (the resumed ones have less left to do) */
        double at = full * 0.7 * (double)rand() / RAND_MAX;
        struct timespec ts = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        killed_mid_run += WIFSIGNALED(status);
        if (access(db, F_OK) == 0) {
            check_consistent(db, NSTATS);
            long long after = check_ok_runs(db);
            assert_true(after >= before); /* nothing committed is lost */
            print_message("kill %d at %.2f s: %lld of %d points stored\n", k + 1, at, after, NPOINTS);
        }
    }
    assert_true(killed_mid_run > 0);
    char args[1024];
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", spec, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    check_consistent(db, NSTATS);
    check_same_as(db, ref, NPOINTS);
    /* a further rerun has nothing left to do */
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "36 already in"));
    assert_non_null(strstr(out, "0 point(s) computed"));
    check_same_as(db, ref, NPOINTS);
    remove_db(db);
}

/* A database whose stored point is not the point this gpuest builds from the same spec (another
 * version changed a default) is refused rather than completed with a mix. */
static void resume_checks_point_identity(void **state)
{
    (void)state;
    char db[256], args[1024];
    snprintf(db, sizeof db, "%s/sweep_ident_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(db);
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", spec, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    sqlite3 *h = check_open(db);
    assert_int_equal(sqlite3_exec(h, "UPDATE points SET hash = '0123456789abcdef' WHERE id = 5", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(h);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "point 5 was stored with another machine"));
    remove_db(db);
}

/* One worker or three: the same database. */
static void workers_do_not_change_results(void **state)
{
    (void)state;
    char db[256], args[1024];
    snprintf(db, sizeof db, "%s/sweep_j1_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(db);
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 1", spec, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    check_same_as(db, ref, NPOINTS);
    remove_db(db);
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 3", spec, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    check_same_as(db, ref, NPOINTS);
    remove_db(db);
}

/* A point that cannot be evaluated is on record with its message; the others are stored; a
 * rerun retries only the failed ones. */
static void point_errors_are_recorded(void **state)
{
    (void)state;
    char path[256], db[256], args[1024];
    snprintf(path, sizeof path, "%s/sweep_err_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(db, sizeof db, "%s/sweep_err_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(db);
    /* gemm has no mesh56 calibration */
    test_write_text(path, "[sweep]\npreset = mesh56\nworkloads = hotspot, gemm\ncalibrations = " GPUEST_SOURCE_DIR
                          "/models/calibrations\n[axes]\nnoc.vcs = 2, 4\n");
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", path, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 1);
    assert_non_null(strstr(out, "2 failed"));
    sqlite3 *h = check_open(db);
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM runs WHERE status = 'error' AND error LIKE '%gpuest calibrate%' "
                                  "AND point_id IN (SELECT id FROM points WHERE workload = 'gemm')"),
                     2);
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM runs WHERE status = 'ok'"), 2);
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM results WHERE point_id IN (SELECT id FROM points WHERE "
                                  "workload = 'gemm')"),
                     0);
    sqlite3_close(h);
    assert_int_equal(run_gpuest(args, out, sizeof out), 1);
    assert_non_null(strstr(out, "2 already in"));
    h = check_open(db);
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM runs WHERE status = 'error'"), 4);
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM runs WHERE status = 'ok'"), 2);
    sqlite3_close(h);
    /* the database belongs to its spec and mode */
    snprintf(args, sizeof args, "sweep %s --db %s --mode simulate", path, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "holds the estimate points"));
    snprintf(args, sizeof args, "sweep %s --db %s", spec, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "made from another spec"));
    remove(path);
    remove_db(db);
}

/* results: --where picks the rows, the CSV holds the database's numbers exactly. */
static void results_export(void **state)
{
    (void)state;
    char csv[256], args[1024];
    snprintf(csv, sizeof csv, "%s/sweep_res_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "results %s --csv %s --where \"workload = 'bfs' AND \\\"noc.vcs\\\" = '4'\"", ref, csv);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "6 row(s)"));
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, "id,hash,design_hash,preset,workload,scale,technique,seed,mode,status,noc.vcs,"
                                 "l2.hit_latency,ipc,ipc_lo,ipc_hi,amat"));
    sqlite3 *h = check_open(ref);
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        long id;
        assert_int_equal(sscanf(line, "%ld,", &id), 1);
        /* column 13 is ipc */
        char *p = line;
        for (int c = 0; c < 12; c++)
            p = strchr(p, ',') + 1;
        double ipc = strtod(p, NULL);
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT value FROM results WHERE point_id = %ld AND stat = 'ipc'", id);
        assert_true(ipc == check_double(h, sql));
        assert_non_null(strstr(line, ",bfs,"));
        rows++;
    }
    fclose(f);
    sqlite3_close(h);
    assert_int_equal(rows, 6);
    remove(csv);
    /* printed table; a bad --where is a usage error */
    snprintf(args, sizeof args, "results %s --where \"id < 2\"", ref);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "hotspot"));
    snprintf(args, sizeof args, "results %s --where \"nonsense_column > 1\"", ref);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_non_null(strstr(out, "nonsense_column"));
}

/* Field `col` (0-based) of the last line of a CSV file (the 'total' row of gpuest simulate). */
static double csv_total_field(const char *path, int col)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[8192], last[8192] = "";
    while (fgets(line, sizeof line, f))
        snprintf(last, sizeof last, "%s", line);
    fclose(f);
    char *p = last;
    for (int c = 0; c < col; c++) {
        p = strchr(p, ',');
        assert_non_null(p);
        p++;
    }
    return strtod(p, NULL);
}

/* The simulate mode gives what 'gpuest simulate' prints for the same machine, workload and
 * technique (the technique's hooks installed: BDI cuts bfs's reply flits). */
static void simulate_mode_matches_simulate(void **state)
{
    (void)state;
    char path[256], db[256], csv[256], args[1024];
    snprintf(path, sizeof path, "%s/sweep_sim_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(db, sizeof db, "%s/sweep_sim_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(csv, sizeof csv, "%s/sweep_sim_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(db);
    test_write_text(path, "[sweep]\npreset = mesh56\nmode = simulate\nworkloads = bfs\nscales = tiny\n"
                          "techniques = none, compression=bdi\n[axes]\nl2.hit_latency = 90\n");
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", path, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    sqlite3 *h = check_open(db);
    double flits[2];
    for (int t = 0; t < 2; t++) {
        snprintf(args, sizeof args,
                 "simulate --preset mesh56 --workload bfs --scale tiny --set l2.hit_latency=90 "
                 "--set technique.compression=%s --csv %s",
                 t ? "bdi" : "none", csv);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        char sql[256];
        /* columns of the simulate CSV: 3 cycles, 5 ipc, 13 reply_flits */
        snprintf(sql, sizeof sql, "SELECT value FROM results WHERE point_id = %d AND stat = 'cycles'", t);
        assert_true(check_double(h, sql) == csv_total_field(csv, 3));
        snprintf(sql, sizeof sql, "SELECT value FROM results WHERE point_id = %d AND stat = 'reply_flits'", t);
        flits[t] = check_double(h, sql);
        assert_true(flits[t] == csv_total_field(csv, 13));
        snprintf(sql, sizeof sql, "SELECT value FROM results WHERE point_id = %d AND stat = 'ipc'", t);
        assert_true(fabs(check_double(h, sql) - csv_total_field(csv, 5)) <= 0.00005);
    }
    assert_true(flits[1] < flits[0]);
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM results WHERE point_id = 1 AND stat = "
                                  "'compression.mean_payload_bits'"),
                     1);
    char tech[64];
    check_text(h, "SELECT technique FROM points WHERE id = 1", tech, sizeof tech);
    assert_string_equal(tech, "compression=bdi");
    sqlite3_close(h);
    remove(path);
    remove(csv);
    remove_db(db);
}

/* The noc mode measures what 'gpuest noc' measures for the same network and traffic. */
static void noc_mode_matches_noc(void **state)
{
    (void)state;
    char path[256], db[256], csv[256], args[1024];
    snprintf(path, sizeof path, "%s/sweep_noc_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(db, sizeof db, "%s/sweep_noc_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(csv, sizeof csv, "%s/sweep_noc_%d.csv", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(db);
    test_write_text(path, "[sweep]\npreset = mesh56\nmode = noc\n[noc]\ntraffic = uniform\nsample_period = 1000\n"
                          "[axes]\nnoc.vcs = 2\ntraffic.rate = 0.1, 0.3\n");
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", path, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    sqlite3 *h = check_open(db);
    static const char *const rates[] = {"0.1", "0.3"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "noc --preset mesh56 --traffic uniform --vcs 2 --rate %s --sample-period 1000 --csv %s",
                 rates[i], csv);
        assert_int_equal(run_gpuest(args, out, sizeof out), 0);
        char sql[256];
        /* gpuest noc's columns: 8 avg_packet_latency, 10 accepted_rate (6 significant digits) */
        snprintf(sql, sizeof sql, "SELECT value FROM results WHERE point_id = %d AND stat = 'latency'", i);
        double lat = check_double(h, sql);
        assert_true(fabs(lat - csv_total_field(csv, 8)) <= 1e-5 * lat);
        snprintf(sql, sizeof sql, "SELECT value FROM results WHERE point_id = %d AND stat = 'accepted'", i);
        double acc = check_double(h, sql);
        assert_true(fabs(acc - csv_total_field(csv, 10)) <= 1e-5 * acc);
    }
    char wl[32];
    check_text(h, "SELECT workload FROM points WHERE id = 1", wl, sizeof wl);
    assert_string_equal(wl, "uniform");
    assert_int_equal(check_int(h, "SELECT COUNT(*) FROM points WHERE scale IS NULL AND mode = 'noc'"), 2);
    sqlite3_close(h);
    remove(path);
    remove(csv);
    remove_db(db);
}

/* A bad spec: exit 2 naming file:line, and no database is made. */
static void bad_spec_exit_2(void **state)
{
    (void)state;
    char path[256], db[256], args[1024];
    snprintf(path, sizeof path, "%s/sweep_bad_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(db, sizeof db, "%s/sweep_bad_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    test_write_text(path, "[sweep]\npreset = mesh56\n[axes]\nnoc.vcs = 2, 4\nl2.hit_latncy = 60, 90\n");
    snprintf(args, sizeof args, "sweep %s --db %s", path, db);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    char want[300];
    snprintf(want, sizeof want, "%s:5", path);
    assert_non_null(strstr(out, want));
    assert_int_not_equal(access(db, F_OK), 0);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kill9_then_resume),         cmocka_unit_test(workers_do_not_change_results),
        cmocka_unit_test(point_errors_are_recorded), cmocka_unit_test(results_export),
        cmocka_unit_test(bad_spec_exit_2),           cmocka_unit_test(simulate_mode_matches_simulate),
        cmocka_unit_test(noc_mode_matches_noc),      cmocka_unit_test(resume_checks_point_identity),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
