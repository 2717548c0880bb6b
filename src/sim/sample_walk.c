/* sample_walk.c: the untimed walk of a two-speed fast-forward (sample_walk.h). */
#include "sample_walk.h"

uint64_t sim_walk_window(double units, uint64_t unit_insts)
{
    if (!(units > 0))
        return 0;
    double w = units * (double)unit_insts + 0.5;
    return w >= 1.8e19 ? UINT64_MAX : (uint64_t)w;
}

uint64_t sim_walk_untimed_part(uint64_t gap, uint64_t window) { return gap > window ? gap - window : 0; }

/* One round over SM sm's warp slots: each active warp steps once. */
static gpuest_err walk_sm(sim_gpu_t *g, sim_sm_t *sm, uint64_t budget, sim_walk_step_fn step, void *ctx,
                          uint64_t *done, int *moved, gpuest_error_t *err)
{
    int W = g->cfg->core.warps_per_sm;
    for (int s = 0; s < W && *done < budget; s++) {
        sim_warp_t *w = &sm->warps[s];
        if (w->state != WS_ACTIVE)
            continue;
        int end = w->inst.kind == GPUEST_INST_END, adv = 0;
        GPUEST_TRY(step(ctx, g, sm, s, &adv, err));
        if (!adv)
            continue;
        *moved = 1;
        if (end) /* retired: its slot (and maybe its CTA's) is free for the launch's next CTAs */
            GPUEST_TRY(sim_gpu_assign_ctas(g, err));
        else
            (*done)++;
    }
    return GPUEST_OK;
}

gpuest_err sim_walk_untimed(sim_gpu_t *g, uint64_t budget, sim_walk_step_fn step, void *ctx, uint64_t *done,
                            gpuest_error_t *err)
{
    *done = 0;
    GPUEST_TRY(sim_gpu_assign_ctas(g, err)); /* CTA slots a drain's retirements freed */
    while (*done < budget && g->ctas_done < g->launch.num_ctas) {
        int moved = 0;
        for (int i = 0; i < g->nsm && *done < budget; i++)
            GPUEST_TRY(walk_sm(g, &g->sm[i], budget, step, ctx, done, &moved, err));
        if (!moved)
            break;
    }
    return GPUEST_OK;
}
