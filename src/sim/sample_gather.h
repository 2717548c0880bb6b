/* sample_gather.h: a fast-forwarded load's latency from the number of lines it missed
 * (gpuest_sample_opts_t.ff_gather; docs/estimator.md, "Sampled simulation: the lock-step schedule"). */
#ifndef GPUEST_SIM_SAMPLE_GATHER_H
#define GPUEST_SIM_SAMPLE_GATHER_H

#include <stdint.h>

#define GPUEST_GATHER_MAX_LINES 64 /* loads that miss more lines are charged this many */

/* emax[n] (n = 1 .. GPUEST_GATHER_MAX_LINES; emax[0] = 0) becomes the expected largest of n
 * independent draws from the nlat latencies lat[] (core cycles; only the low 31 bits count, the top
 * bit is sm.c's L2-miss flag), i.e. the expected completion of a load whose n missing lines each
 * take a latency from that distribution. scratch holds nlat entries (sorted there). Returns 0 and
 * leaves emax alone when nlat is 0. */
int gpuest_gather_table(const uint32_t *lat, uint32_t nlat, uint32_t *scratch,
                        double emax[GPUEST_GATHER_MAX_LINES + 1]);

#endif
