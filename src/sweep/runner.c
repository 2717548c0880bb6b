/* runner.c: the master loop shared by local worker processes and Open MPI ranks: hand each point
 * not yet done to the next idle worker, store each result as it arrives (one transaction). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

/* A worker that died while it held a point: the point is stored as an error run, so that a
 * crash is on record; the next run of the sweep retries it (only 'ok' runs count as done). */
static gpuest_err store_lost(gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *p,
                             const char *why, gpuest_error_t *err)
{
    gpuest_sweep_result_t r;
    memset(&r, 0, sizeof r);
    r.point = p->id;
    snprintf(r.error, sizeof r.error, "worker lost: %.400s", why);
    snprintf(r.host, sizeof r.host, "?");
    return gpuest_sweep_db_store(db, spec, p, &r, err);
}

gpuest_err gpuest_sweep_master(gpuest_sweep_transport_t *t, gpuest_sweep_db_t *db, const gpuest_sweep_spec_t *spec,
                               const gpuest_sweep_point_t *pts, size_t n, const unsigned char *done,
                               gpuest_sweep_done_fn on_done, void *done_ctx, size_t *failed, gpuest_error_t *err)
{
    *failed = 0;
    long *holding = malloc((size_t)(t->nworkers > 0 ? t->nworkers : 1) * sizeof *holding);
    if (!holding)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (int w = 0; w < t->nworkers; w++)
        holding[w] = -1;
    size_t next = 0, total = 0, stored = 0;
    for (size_t i = 0; i < n; i++)
        total += !done[i];
    int active = t->nworkers;
    gpuest_err rc = GPUEST_OK;
    while (active > 0 && rc == GPUEST_OK) {
        int w = -1;
        char *msg = NULL;
        size_t len = 0;
        gpuest_error_t rerr;
        gpuest_error_clear(&rerr);
        gpuest_err r = t->recv(t->ctx, &w, &msg, &len, &rerr);
        if (r == GPUEST_EIO && w >= 0 && w < t->nworkers) { /* that worker is gone */
            if (holding[w] >= 0) {
                rc = store_lost(db, spec, &pts[holding[w]], rerr.msg, err);
                (*failed)++;
                stored++;
                if (on_done)
                    on_done(done_ctx, stored, total);
            }
            holding[w] = -2;
            active--;
            continue;
        }
        if (r != GPUEST_OK) {
            rc = gpuest_fail(err, r, "%s", rerr.msg);
            break;
        }
        if (msg) {
            gpuest_sweep_result_t res;
            rc = gpuest_sweep_result_decode(msg, len, &res, err);
            free(msg);
            if (rc == GPUEST_OK && (res.point != holding[w] || res.point < 0 || (size_t)res.point >= n))
                rc = gpuest_fail(err, GPUEST_ECORRUPT, "worker %d answered point %ld, it was given %ld", w, res.point,
                                 holding[w]);
            if (rc == GPUEST_OK)
                rc = gpuest_sweep_db_store(db, spec, &pts[res.point], &res, err);
            if (rc != GPUEST_OK)
                break;
            *failed += !res.ok;
            stored++;
            if (on_done)
                on_done(done_ctx, stored, total);
        }
        while (next < n && done[next])
            next++;
        holding[w] = next < n ? (long)next : -1;
        rc = t->send(t->ctx, w, holding[w], err);
        if (next < n)
            next++;
        else
            active--;
    }
    if (rc == GPUEST_OK && stored < total)
        rc = gpuest_fail(err, GPUEST_EIO, "every worker is gone with %zu point(s) left; run the sweep again to resume",
                         total - stored);
    free(holding);
    return rc;
}
