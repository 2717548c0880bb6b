/* model_workload.h: the plain measured inputs the closed-model tests share: ipr instructions per
 * L1 request, an L1 hit rate, half the L1 misses hitting in the L2, half of DRAM accesses row hits,
 * a tenth of requests writes, full warps. */
#ifndef GPUEST_TEST_MODEL_WORKLOAD_H
#define GPUEST_TEST_MODEL_WORKLOAD_H

#include <string.h>

#include "model/model.h"

static inline void plain_workload(gpuest_model_workload_t *w, double ipr, double l1_hit)
{
    memset(w, 0, sizeof *w);
    w->insts_per_request = ipr;
    w->l1_hit_rate = l1_hit;
    w->l2_hit_rate = 0.5;
    w->dram_per_request = 0.5;
    w->row_hit_rate = 0.5;
    w->write_fraction = 0.1;
    w->threads_per_warp_inst = 32;
}

#endif
