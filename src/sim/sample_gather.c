/* sample_gather.c: the expected slowest line of a load that misses n lines.
 *
 * Fast-forward's default timed schedule charges a load that misses the L1 the last unit's mean L1
 * miss latency, whatever the number of lines it missed. In detailed mode a load completes when its
 * slowest line returns, so a gather that misses 32 lines (bfs's neighbour lists, spmv's x[col])
 * waits the largest of 32 latencies, far above the mean, while a coalesced load waits about the
 * mean. Charged the mean, the warps and CTAs that gather many lines run through fast-forward too
 * fast and leave it too few: the units after it see a lighter mix of resident CTAs than the
 * detailed run holds (a long-running CTA stays resident longer). The table below gives, for n
 * lines, the expected largest of n draws from the last unit's own per-line miss latencies, without
 * drawing (no random stream, so the schedule adds no noise of its own):
 *   E[max of n] = sum_j x_(j) ((j / N)^n - ((j - 1) / N)^n)   over the sorted latencies x_(1..N).
 * The draws are taken as independent; the lines of one load leave within a few cycles of each
 * other and meet the same queues, so the true largest is somewhat below this (measured, not
 * assumed: docs/estimator.md). */
#include "sample_gather.h"

#include <stdlib.h>

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int gpuest_gather_table(const uint32_t *lat, uint32_t nlat, uint32_t *scratch,
                        double emax[GPUEST_GATHER_MAX_LINES + 1])
{
    if (nlat == 0)
        return 0;
    for (uint32_t j = 0; j < nlat; j++)
        scratch[j] = lat[j] & 0x7FFFFFFFu;
    qsort(scratch, nlat, sizeof *scratch, cmp_u32);
    for (int n = 0; n <= GPUEST_GATHER_MAX_LINES; n++)
        emax[n] = 0.0;
    /* F_j = j / N; the weight of x_(j) in the max of n is F_j^n - F_(j-1)^n, built by running
     * powers of both ends of its step */
    double prev[GPUEST_GATHER_MAX_LINES + 1];
    for (int n = 0; n <= GPUEST_GATHER_MAX_LINES; n++)
        prev[n] = 0.0; /* F_0^n (n >= 1) */
    for (uint32_t j = 1; j <= nlat; j++) {
        double f = (double)j / (double)nlat, p = 1.0, x = (double)scratch[j - 1];
        for (int n = 1; n <= GPUEST_GATHER_MAX_LINES; n++) {
            p *= f;
            emax[n] += x * (p - prev[n]);
            prev[n] = p;
        }
    }
    return 1;
}
