/* mpi.c: Open MPI scale-out. Rank 0 is the master of runner.c (it hands out points and alone
 * writes the database); ranks 1..size-1 evaluate. Messages: a worker sends its result text (tag
 * RESULT; empty = ready), the master answers with a point id (tag POINT; -1 = stop). Built only
 * when CMake finds MPI (GPUEST_HAVE_MPI); otherwise every entry reports GPUEST_EUNSUPPORTED. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

int gpuest_sweep_mpi_launched(void)
{
    /* Open MPI's launcher sets these in every rank's environment (PMIx for newer launchers). */
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL;
}

#ifdef GPUEST_HAVE_MPI
#include <mpi.h>

enum { TAG_RESULT = 1, TAG_POINT = 2, TAG_SHARE = 3 };

int gpuest_sweep_mpi_available(void)
{
    return 1;
}

gpuest_err gpuest_sweep_mpi_init(int *rank, int *size, gpuest_error_t *err)
{
    int ok = 0;
    MPI_Initialized(&ok);
    if (!ok && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return gpuest_fail(err, GPUEST_EIO, "MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return GPUEST_OK;
}

void gpuest_sweep_mpi_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

void gpuest_sweep_mpi_finalize(void)
{
    int ok = 0, done = 0;
    MPI_Initialized(&ok);
    MPI_Finalized(&done);
    if (ok && !done)
        MPI_Finalize();
}

gpuest_err gpuest_sweep_mpi_share(char **text, char *origin, size_t origin_cap, int *mode, gpuest_error_t *err)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long long len = rank == 0 ? (*text ? (long long)strlen(*text) : -1) : 0; /* -1: rank 0 could not read it */
    int head[2] = {*mode, 0};
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(head, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (len < 0)
        return gpuest_fail(err, GPUEST_EINVAL, "rank 0 could not read the spec");
    if (rank != 0) {
        *text = malloc((size_t)len + 1);
        if (!*text)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        (*text)[len] = '\0';
        *mode = head[0];
    }
    MPI_Bcast(*text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(origin, (int)origin_cap, MPI_CHAR, 0, MPI_COMM_WORLD);
    return GPUEST_OK;
}

static gpuest_err mpi_recv(void *ctx, int *worker, char **msg, size_t *len, gpuest_error_t *err)
{
    (void)ctx;
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    char *buf = count ? malloc((size_t)count) : NULL;
    if (count && !buf)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    char dummy;
    MPI_Recv(buf ? buf : &dummy, count, MPI_CHAR, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *worker = st.MPI_SOURCE - 1;
    *msg = buf;
    *len = (size_t)count;
    return GPUEST_OK;
}

static gpuest_err mpi_send(void *ctx, int worker, long point, gpuest_error_t *err)
{
    (void)ctx;
    (void)err;
    long long id = point;
    MPI_Send(&id, 1, MPI_LONG_LONG, worker + 1, TAG_POINT, MPI_COMM_WORLD);
    return GPUEST_OK;
}

gpuest_err gpuest_sweep_mpi_master(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                   gpuest_sweep_db_t *db, const unsigned char *done, gpuest_sweep_done_fn on_done,
                                   void *done_ctx, size_t *failed, gpuest_error_t *err)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gpuest_sweep_transport_t t = {NULL, size - 1, mpi_recv, mpi_send};
    return gpuest_sweep_master(&t, db, spec, pts, n, done, on_done, done_ctx, failed, err);
}

gpuest_err gpuest_sweep_mpi_worker(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                   const char *model_dir, gpuest_error_t *err)
{
    gpuest_sweep_evaluator_t *ev = NULL;
    GPUEST_TRY(gpuest_sweep_evaluator_create(spec, model_dir, &ev, err));
    char ready = 0;
    MPI_Send(&ready, 0, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
    static gpuest_sweep_result_t r;
    gpuest_err rc = GPUEST_OK;
    for (;;) {
        long long id;
        MPI_Recv(&id, 1, MPI_LONG_LONG, 0, TAG_POINT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (id < 0)
            break;
        if ((unsigned long long)id >= n) {
            rc = gpuest_fail(err, GPUEST_ECORRUPT, "rank 0 sent point %lld of %zu", id, n);
            break;
        }
        gpuest_sweep_evaluate(ev, &pts[id], &r);
        size_t len;
        char *msg = gpuest_sweep_result_encode(&r, &len);
        if (!msg) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
            break;
        }
        MPI_Send(msg, (int)len, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(msg);
    }
    gpuest_sweep_evaluator_destroy(ev);
    return rc;
}

#else /* built without MPI */

int gpuest_sweep_mpi_available(void)
{
    return 0;
}

static gpuest_err no_mpi(gpuest_error_t *err)
{
    return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                       "this gpuest was built without Open MPI (install libopenmpi-dev and openmpi-bin, rebuild)");
}

gpuest_err gpuest_sweep_mpi_init(int *rank, int *size, gpuest_error_t *err)
{
    *rank = 0;
    *size = 1;
    return no_mpi(err);
}

void gpuest_sweep_mpi_finalize(void)
{
}

void gpuest_sweep_mpi_abort(int code)
{
    (void)code;
}

gpuest_err gpuest_sweep_mpi_share(char **text, char *origin, size_t origin_cap, int *mode, gpuest_error_t *err)
{
    (void)text;
    (void)origin;
    (void)origin_cap;
    (void)mode;
    return no_mpi(err);
}

gpuest_err gpuest_sweep_mpi_master(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                   gpuest_sweep_db_t *db, const unsigned char *done, gpuest_sweep_done_fn on_done,
                                   void *done_ctx, size_t *failed, gpuest_error_t *err)
{
    (void)spec, (void)pts, (void)n, (void)db, (void)done, (void)on_done, (void)done_ctx, (void)failed;
    return no_mpi(err);
}

gpuest_err gpuest_sweep_mpi_worker(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                   const char *model_dir, gpuest_error_t *err)
{
    (void)spec, (void)pts, (void)n, (void)model_dir;
    return no_mpi(err);
}
#endif
