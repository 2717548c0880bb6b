/* dram_window.c: the wait for a slot in a DRAM channel's request window (docs/estimator.md,
 * "Channel counts, sixth session").
 *
 * The simulator admits an L2 miss only while its channel holds fewer than dram.queue_size requests
 * between the miss and its completion (l2.c, dram_room; a write miss takes two slots, its fetch and
 * its data; write-backs take none): the window counts the fixed DRAM pipeline (dram.latency, 100
 * core cycles on the GTX480) as well as the command timing. By Little's law a channel then moves at
 * most queue_size / hold requests per core cycle, hold the time a request keeps its slot: 16 / ~130
 * on `fermi`, about 0.09 per DRAM cycle, well under the data bus's 0.25 lines a cycle, and the
 * development points' channels flatten there at 2 and 3 channels. The closed model's DRAM pipeline
 * is a pure delay, so it had no such bound. The window is a multi-server station: queue_size
 * servers, each holding a request for `hold`; its mean wait is Erlang C's (M/M/c), which the
 * closed model adds to the DRAM delay of the reads that miss the L2. */
#include "model.h"

/* Erlang C: the probability that an arrival waits at c servers offered a = lambda x hold (a < c),
 * by Erlang B's recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1, and C = B / (1 - rho (1 - B)),
 * rho = a / c. */
static double erlang_c(double a, int c)
{
    double b = 1.0;
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    double rho = a / c;
    return b / (1.0 - rho * (1.0 - b));
}

double gpuest_model_dram_window_wait(double rate, double hold, int slots)
{
    if (!(rate > 0) || !(hold > 0) || slots <= 0)
        return 0.0;
    /* the offered load stays below the servers (a closed network never exceeds them; the outer
     * iteration may overshoot on its way to the fixed point) */
    double a = rate * hold, cap = GPUEST_MODEL_WINDOW_MAX_LOAD * slots;
    a = a < cap ? a : cap;
    return erlang_c(a, slots) * hold / (slots - a);
}
