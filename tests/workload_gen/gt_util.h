/* gt_util.h: helpers for the generator tests: capture a warp's memory instructions, run whole workloads. */
#ifndef GT_UTIL_H
#define GT_UTIL_H

#include <stdint.h>

#include "workload/workload.h"

#define GT_MAX_MEM 64

/* The first memory instructions of one warp of one launch. */
typedef struct {
    gpuest_launch_t launch;
    int n;                          /* memory instructions captured */
    gpuest_inst_t mem[GT_MAX_MEM];
} gt_warp_t;

/* Creates workload name at scale from seed; fails the test on error. */
gpuest_workload_t *gt_create(const char *name, gpuest_scale_t scale, uint64_t seed);

/* Advances wl to launch number `launch` (earlier launches run without
 * generating warps: their results come from end_launch) and captures up to max
 * memory instructions of (cta, warp). Leaves the launch open. */
void gt_capture(gpuest_workload_t *wl, uint32_t launch, uint32_t cta, uint32_t warp, int max, gt_warp_t *out);

/* Statistics of a complete run where every warp is generated to its end. */
typedef struct {
    uint32_t launches;
    uint64_t warps, insts, mem_insts, line_requests;
    uint64_t hash;                  /* FNV-1a over every instruction (kinds, masks, addresses) */
    uint64_t outside;               /* active lanes addressing no allocation */
    char names[8][GPUEST_WL_NAME_MAX]; /* distinct kernel names in order of appearance */
    int nnames;
    uint32_t per_name[8];           /* launches per distinct name */
} gt_run_t;

/* Per-launch hook, called after end_launch with the image holding the results. */
typedef void (*gt_after_fn)(void *ctx, const gpuest_launch_t *l, gpuest_workload_t *wl);

void gt_run_all(gpuest_workload_t *wl, gt_after_fn after, void *ctx, gt_run_t *out);

/* Expected lines: the distinct 128-byte lines of addresses a[k] (k in mask),
 * sector masks included, in order of first lane, computed independently of
 * the coalescer. Returns the count. */
int gt_lines(const uint64_t *a, uint32_t mask, uint32_t size, uint64_t *lines, uint8_t *sectors);
/* Asserts the coalescer's output for inst equals gt_lines(). Returns the count. */
int gt_check_coalesce(const gpuest_inst_t *inst);

/* Base address of a named allocation. */
uint64_t gt_base(gpuest_workload_t *wl, const char *name);
/* Typed pointer to a named allocation's data. */
void *gt_data(gpuest_workload_t *wl, const char *name);

#endif
