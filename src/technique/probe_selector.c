/* probe_selector.c: which remote cores a probed miss searches (remote-core paper III-C): the
 * index-based selector of n-IP and CCN, and the supplier-based selector, which counts, per
 * requester, the data replies each core sent over a period of 8192 cycles. Choice (the paper says
 * the counts are reset every period): a period's draws use the counts of the period before, so
 * the selector never runs on an empty table after a reset; the very first period is uniform. */
#include <stdlib.h>
#include <string.h>

#include "probing_int.h"

gpuest_err probe_sel_init(probe_sel_t *s, int nsm, gpuest_error_t *err)
{
    memset(s, 0, sizeof *s);
    s->nsm = nsm;
    s->cur = calloc((size_t)nsm * (size_t)nsm, sizeof *s->cur);
    s->prev = calloc((size_t)nsm * (size_t)nsm, sizeof *s->prev);
    if (!s->cur || !s->prev)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the supplier-based core selector");
    return GPUEST_OK;
}

void probe_sel_free(probe_sel_t *s)
{
    free(s->cur);
    free(s->prev);
    memset(s, 0, sizeof *s);
}

void probe_sel_tick(probe_sel_t *s, uint64_t cycle)
{
    if (cycle < s->period_start + PROBE_SEL_PERIOD)
        return;
    size_t n = (size_t)s->nsm * (size_t)s->nsm;
    uint64_t periods = (cycle - s->period_start) / PROBE_SEL_PERIOD;
    if (periods == 1)
        memcpy(s->prev, s->cur, n * sizeof *s->cur);
    else /* a whole period passed without a draw: its counts (none) are the last period's */
        memset(s->prev, 0, n * sizeof *s->prev);
    memset(s->cur, 0, n * sizeof *s->cur);
    s->period_start += periods * PROBE_SEL_PERIOD;
}

void probe_sel_reply(probe_sel_t *s, int requester, int supplier, uint64_t cycle)
{
    probe_sel_tick(s, cycle);
    if (requester >= 0 && requester < s->nsm && supplier >= 0 && supplier < s->nsm)
        s->cur[(size_t)requester * (size_t)s->nsm + (size_t)supplier]++;
}

void probe_sel_weights(const probe_sel_t *s, int self, double *w)
{
    const uint32_t *row = s->prev + (size_t)self * (size_t)s->nsm;
    double total = 0;
    for (int c = 0; c < s->nsm; c++)
        total += c == self ? 0 : row[c];
    double low = 0;
    for (int c = 0; c < s->nsm; c++) {
        w[c] = c == self || total == 0 ? (c == self ? 0 : 1) : row[c] / total;
        if (c != self && w[c] > 0 && total > 0 && (low == 0 || w[c] < low))
            low = w[c];
    }
    if (total > 0)
        for (int c = 0; c < s->nsm; c++)
            if (c != self && row[c] == 0)
                w[c] = low / 2;
}

int probe_sel_index(int nsm, int self, int c, int16_t *out)
{
    for (int k = 0; k < c; k++)
        out[k] = (int16_t)((self + 1 + k) % nsm);
    return c;
}

int probe_sel_supplier(const probe_sel_t *s, gpuest_rng_t *rng, int self, int c, int16_t *out)
{
    double w[1024];
    probe_sel_weights(s, self, w);
    for (int k = 0; k < c; k++) {
        double sum = 0;
        for (int j = 0; j < s->nsm; j++)
            sum += w[j];
        double x = gpuest_rng_uniform(rng) * sum;
        int pick = -1;
        for (int j = 0; j < s->nsm; j++) {
            if (w[j] <= 0)
                continue;
            pick = j; /* the last positive one also catches rounding at the top */
            if (x < w[j])
                break;
            x -= w[j];
        }
        out[k] = (int16_t)pick;
        w[pick] = 0;
    }
    return c;
}
