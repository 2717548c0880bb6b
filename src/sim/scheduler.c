/* scheduler.c: warp schedulers of an SM: greedy-then-oldest (GTO) and loose round-robin (LRR).
 *
 * An SM has cfg->core.schedulers_per_sm schedulers; warp slot s belongs to
 * scheduler s % n. Each scheduler issues at most one instruction per core cycle.
 * A "run" is a maximal sequence of issues of one warp on one scheduler; the
 * issues per run are LATTE-CC's execution cycles per schedule (eq. 4). */
#include "sim_int.h"

static int pick_gto(const sim_sm_t *sm, int s, const uint8_t *ready)
{
    const sim_sched_t *sc = &sm->sched[s];
    if (sc->last >= 0 && ready[sc->last])
        return sc->last;
    int best = -1;
    for (int k = 0; k < sc->nslots; k++) {
        int slot = s + k * sm->nsched;
        if (ready[slot] && (best < 0 || sm->warps[slot].age < sm->warps[best].age))
            best = slot;
    }
    return best;
}

static int pick_lrr(const sim_sm_t *sm, int s, const uint8_t *ready)
{
    const sim_sched_t *sc = &sm->sched[s];
    int start = sc->last >= 0 ? (sc->last - s) / sm->nsched + 1 : 0;
    for (int k = 0; k < sc->nslots; k++) {
        int slot = s + ((start + k) % sc->nslots) * sm->nsched;
        if (ready[slot])
            return slot;
    }
    return -1;
}

/* pick_gto over a bit set of scheduler s's ready slots (bit slot % 64 of word slot / 64, nw
 * words; the same slots as ready[] holds for s) with their ages read from ages[slot] instead of the warps themselves: the same
 * pick whenever ages[slot] == sm->warps[slot].age for every ready slot (ties, which distinct ages
 * exclude anyway, go to the lowest slot as in pick_gto). Fast-forward keeps both; scanning every
 * slot of the scheduler and reading ages from sim_warp_t (over 2 KB apart) cost more than its
 * few ready warps. */
static int pick_gto_bits(const sim_sm_t *sm, int s, const uint8_t *ready, const uint64_t *bits, int nw,
                         const uint64_t *ages)
{
    const sim_sched_t *sc = &sm->sched[s];
    if (sc->last >= 0 && ready[sc->last])
        return sc->last;
    int best = -1;
    for (int w = 0; w < nw; w++)
        for (uint64_t m = bits[w]; m; m &= m - 1) {
            int slot = w * 64 + __builtin_ctzll(m);
            if (best < 0 || ages[slot] < ages[best])
                best = slot;
        }
    return best;
}

int sim_sched_pick_bits(sim_gpu_t *g, sim_sm_t *sm, int s, const uint8_t *ready, const uint64_t *bits, int nw,
                        const uint64_t *ages)
{
    if (g->cfg->core.scheduler == GPUEST_WSCHED_LRR)
        return pick_lrr(sm, s, ready);
    return pick_gto_bits(sm, s, ready, bits, nw, ages);
}

int sim_sched_pick(sim_gpu_t *g, sim_sm_t *sm, int s, const uint8_t *ready)
{
    if (g->cfg->core.scheduler == GPUEST_WSCHED_LRR)
        return pick_lrr(sm, s, ready);
    return pick_gto(sm, s, ready);
}

void sim_sched_issued(sim_sm_t *sm, int s, int slot)
{
    sim_sched_t *sc = &sm->sched[s];
    if (sc->last != slot)
        sc->runs++;
    sc->issues++;
    sc->last = slot;
}
