/* l1c_fillq.c: the L1 fills the characterization walk defers to the requesting warp's next turn.
 *
 * Why: in the simulator a missed line enters the L1 when its fill returns, and under the GTO
 * scheduler the warp that asked for it issues again right then (its next instruction needed the
 * data), so the warp's next access to the line's neighbours comes a few fills after the line
 * arrived. A walk that installs the line at the access puts every other resident warp's accesses
 * of a whole round between the fill and that reuse (2dconv on mesh56: 0 hits in the walk's plain
 * L1, 28 % in the simulator). The walk has no time; it takes the requester's next turn as the fill
 * time: each miss is queued under its warp and installed when that warp's turn starts. */
#include <stdlib.h>

#include "technique_int.h"

typedef struct {
    tech_fill_t *e;
    size_t n, cap;
} fill_list_t;

struct tech_fillq_s {
    fill_list_t *warps; /* indexed by the walk's warp name */
    size_t nwarps;
};

gpuest_err tech_fillq_create(tech_fillq_t **out, gpuest_error_t *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "L1 fill queue: out of memory");
}

void tech_fillq_destroy(tech_fillq_t *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->nwarps; i++)
        free(q->warps[i].e);
    free(q->warps);
    free(q);
}

gpuest_err tech_fillq_push(tech_fillq_t *q, uint32_t warp, tech_fill_t f, gpuest_error_t *err)
{
    if (warp >= q->nwarps) {
        size_t n = q->nwarps ? q->nwarps : 64;
        while (n <= warp)
            n *= 2;
        fill_list_t *p = realloc(q->warps, n * sizeof *p);
        if (!p)
            return gpuest_fail(err, GPUEST_ENOMEM, "L1 fill queue: out of memory");
        for (size_t i = q->nwarps; i < n; i++)
            p[i] = (fill_list_t){NULL, 0, 0};
        q->warps = p;
        q->nwarps = n;
    }
    fill_list_t *l = &q->warps[warp];
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 16;
        tech_fill_t *e = realloc(l->e, c * sizeof *e);
        if (!e)
            return gpuest_fail(err, GPUEST_ENOMEM, "L1 fill queue: out of memory");
        l->e = e;
        l->cap = c;
    }
    l->e[l->n++] = f;
    return GPUEST_OK;
}

size_t tech_fillq_take(tech_fillq_t *q, uint32_t warp, const tech_fill_t **fills)
{
    *fills = NULL;
    if (warp >= q->nwarps)
        return 0;
    fill_list_t *l = &q->warps[warp];
    size_t n = l->n;
    *fills = l->e;
    l->n = 0; /* the array stays valid until the next push */
    return n;
}

void tech_fillq_clear(tech_fillq_t *q)
{
    for (size_t i = 0; i < q->nwarps; i++)
        q->warps[i].n = 0;
}

size_t tech_fillq_len(const tech_fillq_t *q, uint32_t warp) { return warp < q->nwarps ? q->warps[warp].n : 0; }

tech_fill_t *tech_fillq_at(tech_fillq_t *q, uint32_t warp, size_t pos)
{
    return warp < q->nwarps && pos < q->warps[warp].n ? &q->warps[warp].e[pos] : NULL;
}
