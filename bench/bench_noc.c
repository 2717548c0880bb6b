/* bench_noc.c: simulated interconnect cycles per second of the NoC simulator against BookSim 2's figure for the same point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "noc/noc.h"

#define CFG GPUEST_SOURCE_DIR "/data/reference/booksim/configs/mesh8_vc4_uniform_p1.cfg"
#define RUNS 5

static double now_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One BookSim latency-mode run (3 warm-up + 3 sample periods of 10,000 cycles
 * + drain, as the reference) at `rate`; returns simulated cycles per second. */
static int run(const gpuest_noc_booksim_t *b, double rate, double *wall_cps, double *cpu_cps,
               gpuest_noc_result_t *res)
{
    gpuest_noc_traffic_t t = b->traffic;
    t.rate = rate;
    gpuest_error_t e = {0};
    double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    if (gpuest_noc_measure(&b->cfg, &b->opts, &t, &b->measure, NULL, res, &e) != GPUEST_OK) {
        fprintf(stderr, "bench_noc: %s\n", e.msg);
        return 1;
    }
    double w1 = now_s(CLOCK_MONOTONIC), c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    *wall_cps = (double)res->sim_cycles / (w1 - w0);
    *cpu_cps = (double)res->sim_cycles / (c1 - c0);
    return 0;
}

int main(int argc, char **argv)
{
    gpuest_noc_booksim_t b;
    gpuest_error_t e = {0};
    if (gpuest_noc_booksim_load(argc > 1 ? argv[1] : CFG, &b, &e) != GPUEST_OK) {
        fprintf(stderr, "bench_noc: %s\n", e.msg);
        return 1;
    }
    const struct {
        double rate, booksim;
    } points[] = {{0.2, 5300.0}, {0.01, 60000.0}, {0.4, 2500.0}};
    printf("8x8 mesh, 4 VCs x 8 flits, uniform, 1-flit packets, BookSim latency mode (10,000-cycle periods)\n");
    printf("%-6s %10s %12s %12s %10s %12s %12s\n", "rate", "latency", "wall cyc/s", "cpu cyc/s", "BookSim",
           "x (wall)", "x (cpu)");
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        double wall[RUNS], cpu[RUNS];
        gpuest_noc_result_t res;
        for (int i = 0; i < RUNS; i++)
            if (run(&b, points[p].rate, &wall[i], &cpu[i], &res))
                return 1;
        qsort(wall, RUNS, sizeof wall[0], cmp_double);
        qsort(cpu, RUNS, sizeof cpu[0], cmp_double);
        printf("%-6.3g %10.2f %12.0f %12.0f %10.0f %11.1fx %11.1fx\n", points[p].rate, res.avg_packet_latency,
               wall[RUNS / 2], cpu[RUNS / 2], points[p].booksim, wall[RUNS / 2] / points[p].booksim,
               cpu[RUNS / 2] / points[p].booksim);
    }
    printf("(medians of %d runs; x = our cycles/s over BookSim's wall-clock figure from\n"
           " data/reference/booksim/README.md; on a shared machine the process CPU-time rate\n"
           " is the single-thread figure, wall-clock includes time waiting for a core)\n",
           RUNS);
    return 0;
}
