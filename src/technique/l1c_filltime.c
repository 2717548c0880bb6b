/* l1c_filltime.c: the compressed-L1 walk's fills timed by a miss latency, in the walk's own clock.
 *
 * Why: a miss reserves its tag (a raw line's room) until its fill (l1_compressed.c). The walk
 * used to land every fill at the requesting warp's next GTO turn (l1c_fillq.c), so a reservation
 * was held for however many accesses the other warps' bursts made in between: on fermi bfs, with
 * many warps missing into the same sets, that is far longer than the simulator's miss, and the
 * compressed L1 lost too many lines (BDI miss ratio x 0.925 against the simulator's 0.882).
 * The walk has no cycles, but each SM's reads are its clock: in the calibrated baseline one SM
 * makes r L1 reads a cycle and a read miss takes L cycles, so a fill comes r x L reads of its SM
 * after its miss (`delay`, from the calibration: gpuest_study_l1_reads_per_miss_latency). A fill
 * lands at whichever comes first, its warp's next turn or `delay` reads of its SM: the turn stays
 * (under GTO the warp issues again when its data is there, so its own reuse finds the line), and
 * the clock stops a reservation from outliving the miss when the turn comes late.
 * Since delay is one number per walk, the dues of one SM come in miss order: a FIFO per SM. */
#include <stdlib.h>

#include "technique_int.h"

typedef struct {
    tech_ftime_t *e;
    size_t head, n, cap; /* a ring */
} ft_ring_t;

struct tech_filltime_s {
    uint64_t delay;
    int sms;
    uint64_t *reads; /* per SM */
    ft_ring_t *q;    /* per SM */
};

gpuest_err tech_filltime_create(int sms, uint64_t delay, tech_filltime_t **out, gpuest_error_t *err)
{
    tech_filltime_t *t = calloc(1, sizeof *t);
    if (t) {
        t->reads = calloc((size_t)sms, sizeof *t->reads);
        t->q = calloc((size_t)sms, sizeof *t->q);
    }
    if (!t || !t->reads || !t->q) {
        tech_filltime_destroy(t);
        return gpuest_fail(err, GPUEST_ENOMEM, "L1 fill timing: out of memory");
    }
    t->delay = delay;
    t->sms = sms;
    *out = t;
    return GPUEST_OK;
}

void tech_filltime_destroy(tech_filltime_t *t)
{
    if (!t)
        return;
    if (t->q)
        for (int i = 0; i < t->sms; i++)
            free(t->q[i].e);
    free(t->q);
    free(t->reads);
    free(t);
}

void tech_filltime_clear(tech_filltime_t *t)
{
    for (int i = 0; i < t->sms; i++)
        t->q[i].n = t->q[i].head = 0;
}

void tech_filltime_read(tech_filltime_t *t, int sm) { t->reads[sm]++; }

static gpuest_err ring_grow(ft_ring_t *r, gpuest_error_t *err)
{
    size_t c = r->cap ? r->cap * 2 : 64;
    tech_ftime_t *e = malloc(c * sizeof *e);
    if (!e)
        return gpuest_fail(err, GPUEST_ENOMEM, "L1 fill timing: out of memory");
    for (size_t i = 0; i < r->n; i++)
        e[i] = r->e[(r->head + i) % r->cap];
    free(r->e);
    *r = (ft_ring_t){e, 0, r->n, c};
    return GPUEST_OK;
}

gpuest_err tech_filltime_note(tech_filltime_t *t, uint32_t warp, uint32_t pos, tech_fill_t fill,
                              gpuest_error_t *err)
{
    int sm = fill.sm;
    if (t->delay == 0)
        return GPUEST_OK;
    ft_ring_t *r = &t->q[sm];
    if (r->n == r->cap)
        GPUEST_TRY(ring_grow(r, err));
    r->e[(r->head + r->n++) % r->cap] = (tech_ftime_t){fill, warp, pos, t->reads[sm] + t->delay};
    return GPUEST_OK;
}

int tech_filltime_pop(tech_filltime_t *t, int sm, tech_ftime_t *f)
{
    ft_ring_t *r = &t->q[sm];
    if (r->n == 0 || r->e[r->head].due >= t->reads[sm])
        return 0; /* due = c + delay: it lands once the SM's count has passed it */
    *f = r->e[r->head];
    r->head = (r->head + 1) % r->cap;
    r->n--;
    return 1;
}

uint64_t tech_filltime_delay(const tech_filltime_t *t) { return t->delay; }
