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
