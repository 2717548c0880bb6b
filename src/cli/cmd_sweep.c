/* cmd_sweep.c: 'gpuest sweep': every point of a spec evaluated by worker processes (or Open MPI
 * ranks) into a SQLite database that a rerun resumes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sweep/sweep.h"

#define CMD "sweep"

static void help(FILE *out)
{
    fprintf(out,
            "usage: gpuest sweep SPEC.ini [--db FILE] [--jobs N] [--mode estimate|sample|simulate|noc]\n"
            "                   [--list]\n\n"
            "Evaluates every design point of the spec (axes over any configuration key, techniques,\n"
            "workloads, scales, seeds; a grid, random, Latin hypercube or Sobol design) and stores\n"
            "each finished point in the SQLite database in one transaction. Run the same command\n"
            "again after an interruption (even kill -9): points already stored are skipped.\n"
            "Under 'mpirun -n N', rank 0 hands out points and writes the database, the other ranks\n"
            "compute. Spec format and database tables: docs/sweep.md.\n\noptions:\n"
            "  --db FILE     database (default: the spec's name with .sqlite)\n"
            "  --jobs N      local worker processes (default: the number of cores)\n"
            "  --mode M      overrides the spec's mode (default estimate)\n"
            "  --list        print the design points and exit (nothing is run or written)\n");
}

typedef struct {
    const char *spec_path;
    const char *db;
    long jobs;
    const char *mode;
    int list;
} sweep_opts;

static int parse(sweep_opts *o, int argc, char **argv)
{
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        const char *v;
        if (!a.name) {
            if (o->spec_path)
                return cli_usage_error(CMD, "one spec file expected ('%s' is a second)", a.value);
            o->spec_path = a.value;
        } else if (cli_args_is(&a, "help")) {
            help(stdout);
            return 0;
        } else if (cli_args_is(&a, "db")) {
            if (!(o->db = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "mode")) {
            if (!(o->mode = cli_args_value(&a)))
                return 2;
        } else if (cli_args_is(&a, "jobs")) {
            if (!(v = cli_args_value(&a)) || cli_parse_int(CMD, "jobs", v, 1, 4096, &o->jobs))
                return 2;
        } else if (cli_args_is(&a, "list")) {
            o->list = 1;
        } else {
            return cli_usage_error(CMD, "unknown option --%s (try --help)", a.name);
        }
    }
    if (!o->spec_path)
        return cli_usage_error(CMD, "a spec file is required (see --help)");
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_done(void *ctx, size_t done, size_t total)
{
    (void)total;
    gpuest_progress_update(ctx, done);
}

static void default_db(const char *spec, char *buf, size_t cap)
{
    const char *dot = strrchr(spec, '.');
    const char *slash = strrchr(spec, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - spec) : strlen(spec);
    snprintf(buf, cap, "%.*s.sqlite", (int)stem, spec);
}

static void list_points(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        printf("%ld\t%s\t%s\t%s\t%s\tseed=%llu", pts[i].id, pts[i].hash, pts[i].workload, pts[i].scale,
               pts[i].technique, (unsigned long long)pts[i].seed);
        for (int a = 0; a < spec->naxes; a++)
            printf("\t%s=%s", spec->axes[a].key, pts[i].axis_values[a]);
        printf("\n");
    }
}

/* Spec + mode + points; returns 0 or the exit code (printed). */
static int prepare(const sweep_opts *o, const char *text, const char *origin, gpuest_sweep_mode_t *mode,
                   gpuest_sweep_spec_t *spec, gpuest_sweep_point_t **pts, size_t *n)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = text ? gpuest_sweep_spec_parse(text, origin, spec, &err) : gpuest_sweep_spec_load(origin, spec, &err);
    if (rc != GPUEST_OK)
        return cli_report(CMD, rc, &err);
    if (o->mode && gpuest_sweep_mode_parse(o->mode, mode) != GPUEST_OK) {
        gpuest_sweep_spec_free(spec);
        return cli_usage_error(CMD, "--mode '%s' (expected estimate, sample, simulate or noc)", o->mode);
    }
    if (!o->mode)
        *mode = spec->mode_given ? spec->mode : GPUEST_SWEEP_ESTIMATE;
    if (!spec->calibrations[0])
        snprintf(spec->calibrations, sizeof spec->calibrations, "%s",
                 access("models/calibrations", F_OK) == 0 ? "models/calibrations"
                                                           : GPUEST_SOURCE_DIR "/models/calibrations");
    if ((rc = gpuest_sweep_points(spec, *mode, pts, n, &err)) != GPUEST_OK) {
        gpuest_sweep_spec_free(spec);
        return cli_report(CMD, rc, &err);
    }
    return 0;
}

/* Set by run_master when it stopped before every worker was told to stop (MPI must then abort). */
static int master_fatal;

/* Rank 0 or the local master: database, resume, run, summary. */
static int run_master(const sweep_opts *o, const gpuest_sweep_spec_t *spec, gpuest_sweep_mode_t mode,
                      const gpuest_sweep_point_t *pts, size_t n, int mpi_size)
{
    char dbpath[1024];
    if (o->db)
        snprintf(dbpath, sizeof dbpath, "%s", o->db);
    else
        default_db(o->spec_path, dbpath, sizeof dbpath);
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_sweep_db_t *db = NULL;
    gpuest_err rc = gpuest_sweep_db_open(dbpath, spec, mode, &db, &err);
    unsigned char *done = rc == GPUEST_OK ? malloc(n ? n : 1) : NULL;
    if (rc == GPUEST_OK && !done)
        rc = gpuest_fail(&err, GPUEST_ENOMEM, "out of memory");
    if (rc == GPUEST_OK)
        rc = gpuest_sweep_db_done(db, pts, n, done, &err);
    if (rc != GPUEST_OK) {
        master_fatal = 1;
        free(done);
        gpuest_sweep_db_close(db);
        return rc == GPUEST_EMISMATCH ? (fprintf(stderr, "gpuest %s: %s\n", CMD, err.msg), 2) : cli_report(CMD, rc, &err);
    }
    size_t have = 0;
    for (size_t i = 0; i < n; i++)
        have += done[i];
    long jobs = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    if (mpi_size > 1)
        printf("sweep %s: %zu %s points, %zu already in %s, %d MPI ranks computing\n", spec->origin, n,
               gpuest_sweep_mode_name(mode), have, dbpath, mpi_size - 1);
    else
        printf("sweep %s: %zu %s points, %zu already in %s, %ld worker process(es)\n", spec->origin, n,
               gpuest_sweep_mode_name(mode), have, dbpath, jobs);
    fflush(stdout);
    gpuest_progress_t *bar = cli_progress(CMD, n - have);
    gpuest_progress_set_unit(bar, "points");
    gpuest_progress_show_count(bar);
    size_t failed = 0;
    double t0 = now_s();
    if (mpi_size > 1)
        rc = gpuest_sweep_mpi_master(spec, pts, n, db, done, bar ? on_done : NULL, bar, &failed, &err);
    else
        rc = gpuest_sweep_run_local(spec, pts, n, db, done, (int)jobs, cli_model_dir(), bar ? on_done : NULL, bar,
                                    &failed, &err);
    double dt = now_s() - t0;
    gpuest_progress_finish(bar);
    free(done);
    gpuest_sweep_db_close(db);
    if (rc != GPUEST_OK) {
        master_fatal = 1;
        return cli_report(CMD, rc, &err);
    }
    size_t ran = n - have;
    printf("sweep: %zu point(s) computed in %.3f s (%.1f points/s), %zu failed; %s holds %zu of %zu\n", ran, dt,
           dt > 0 ? (double)ran / dt : 0.0, failed, dbpath, have + ran - failed, n);
    if (failed)
        fprintf(stderr, "gpuest %s: %zu point(s) failed (table runs, status 'error', says why); a rerun retries them\n",
                CMD, failed);
    return failed ? 1 : 0;
}

static int run_mpi(const sweep_opts *o)
{
    int rank = 0, size = 1;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_sweep_mpi_init(&rank, &size, &err);
    if (rc != GPUEST_OK)
        return cli_report(CMD, rc, &err);
    gpuest_sweep_spec_t spec;
    gpuest_sweep_point_t *pts = NULL;
    size_t n = 0;
    gpuest_sweep_mode_t mode = GPUEST_SWEEP_ESTIMATE;
    int code = 0, have = 0;
    /* rank 0 reads the spec and shares its text: the other hosts need no copy of it */
    char *text = NULL;
    char origin[256];
    snprintf(origin, sizeof origin, "%s", o->spec_path);
    if (rank == 0) {
        code = prepare(o, NULL, o->spec_path, &mode, &spec, &pts, &n);
        have = code == 0;
        text = have ? spec.text : NULL;
    }
    int imode = (int)mode;
    rc = gpuest_sweep_mpi_share(&text, origin, sizeof origin, &imode, &err);
    if (rank != 0 && rc == GPUEST_OK) {
        sweep_opts wo = *o;
        wo.mode = gpuest_sweep_mode_name((gpuest_sweep_mode_t)imode);
        code = prepare(&wo, text, origin, &mode, &spec, &pts, &n);
        have = code == 0;
        free(text);
        if (have && (rc = gpuest_sweep_mpi_worker(&spec, pts, n, cli_model_dir(), &err)) != GPUEST_OK)
            code = cli_report(CMD, rc, &err);
    } else if (rank == 0 && have) {
        code = run_master(o, &spec, mode, pts, n, size);
        if (master_fatal) /* the workers wait for points that will not come */
            gpuest_sweep_mpi_abort(code);
    } else if (rank != 0) {
        code = 2; /* rank 0 could not read the spec and said why */
    }
    if (have) {
        gpuest_sweep_points_free(pts, n);
        gpuest_sweep_spec_free(&spec);
    }
    gpuest_sweep_mpi_finalize();
    return code;
}

int cli_cmd_sweep(int argc, char **argv)
{
    sweep_opts o = {0};
    int rc = parse(&o, argc, argv);
    if (rc >= 0)
        return rc;
    if (gpuest_sweep_mpi_launched() && !gpuest_sweep_mpi_available() && !o.list) {
        /* every rank would run the whole sweep on one database */
        fprintf(stderr, "gpuest %s: started by mpirun, but this gpuest was built without Open MPI (install "
                        "libopenmpi-dev, reconfigure and rebuild)\n", CMD);
        return 2;
    }
    if (gpuest_sweep_mpi_launched() && !o.list)
        return run_mpi(&o);
    gpuest_sweep_spec_t spec;
    gpuest_sweep_point_t *pts = NULL;
    size_t n = 0;
    gpuest_sweep_mode_t mode;
    if ((rc = prepare(&o, NULL, o.spec_path, &mode, &spec, &pts, &n)) != 0)
        return rc;
    rc = o.list ? (list_points(&spec, pts, n), 0) : run_master(&o, &spec, mode, pts, n, 1);
    gpuest_sweep_points_free(pts, n);
    gpuest_sweep_spec_free(&spec);
    return rc;
}
