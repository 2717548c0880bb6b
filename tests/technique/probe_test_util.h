/* probe_test_util.h: shared fixture of the remote-L1 probing model tests. */
#ifndef PROBE_TEST_UTIL_H
#define PROBE_TEST_UTIL_H

#include <string.h>

#include "model/model.h"

/* A plain memory-bound workload for the closed model: 8 instructions a request, a fifth of the
 * reads hit the L1, half the rest the L2, half the DRAM accesses hit an open row, no writes. */
static inline void probe_test_workload(gpuest_model_workload_t *w)
{
    memset(w, 0, sizeof *w);
    w->insts_per_request = 8.0;
    w->l1_hit_rate = 0.2;
    w->l2_hit_rate = 0.5;
    w->dram_per_request = 0.5;
    w->row_hit_rate = 0.5;
    w->write_fraction = 0.0;
    w->threads_per_warp_inst = 32;
}

#endif
