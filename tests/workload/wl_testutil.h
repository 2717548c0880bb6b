/* wl_testutil.h: helpers for workload tests: run a workload warp by warp and collect its memory instructions. */
#ifndef WL_TESTUTIL_H
#define WL_TESTUTIL_H

#include "workload/workload.h"

/* Called for every instruction of every warp (warps in CTA-major order). Return 0 to continue. */
typedef int (*wlt_inst_cb)(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp,
                           const gpuest_inst_t *inst);
/* Called once per launch before its warps, and after end_launch (after = 1). */
typedef void (*wlt_launch_cb)(void *ctx, const gpuest_launch_t *l, gpuest_workload_t *wl, int after);

/* Runs every launch; returns the number of launches or -1 on error (message printed). */
int wlt_run(gpuest_workload_t *wl, wlt_launch_cb lcb, wlt_inst_cb icb, void *ctx);

/* A running hash of an instruction stream (every field, with each warp's place), for wlt_run. */
typedef struct {
    uint64_t hash, count;
} wlt_hash_t;
int wlt_hash_inst(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp, const gpuest_inst_t *in);

/* Creates a generated workload at tiny scale, failing the test on error. */
gpuest_workload_t *wlt_create(const char *name, uint64_t seed);

#endif
