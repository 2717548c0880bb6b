/* blocked_workload.h: the fixture the LD/ST-blocking tests share (test_ldst_pool.c,
 * test_setres_relief.c): a fermi model with the DRAM request window out of the way, and a workload
 * whose LD/ST unit is blocked 6 cycles a read at a 300-cycle miss latency, optionally with a warp
 * profile (the scoreboard form's LD/ST station) whose warps wait dep cycles an epoch. */
#ifndef GPUEST_TEST_BLOCKED_WORKLOAD_H
#define GPUEST_TEST_BLOCKED_WORKLOAD_H

#include <string.h>

#include "model/model.h"

/* A wide DRAM request window, so that the channels' slots (dram_window.c) do not bound these
 * miss-heavy workloads: the tests are about the LD/ST unit, not the DRAM. */
static inline gpuest_gpu_model_t *blocked_model(void)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    cfg.dram.queue_size = 1024;
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    return m;
}

/* profile = 0: a token workload (no LD/ST station); 1: a scoreboard one, 32 resident warps, 20
 * instructions and 3 lines an epoch, dep cycles of compute dependences an epoch. */
static inline void blocked_workload_with(gpuest_model_workload_t *w, int profile, double dep)
{
    memset(w, 0, sizeof *w);
    w->insts_per_request = 8.0;
    w->hits_per_request = 0.5;
    w->l1_hit_rate = 0.3;
    w->l2_hit_rate = 0.5;
    w->dram_per_request = 0.5;
    w->row_hit_rate = 0.5;
    w->threads_per_warp_inst = 32;
    w->avail_warps = 2.0;
    w->cycles_per_schedule = 2.0;
    w->ldst_block_per_read = 6.0;
    w->block_miss_latency = 300.0;
    if (profile) {
        w->resident_warps = 32;
        w->insts_per_epoch = 20;
        w->lines_per_epoch = 3;
        w->dep_per_epoch = dep;
    }
}

#endif
