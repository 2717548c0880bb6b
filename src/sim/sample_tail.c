/* sample_tail.c: the drain stratum of a sampled kernel (sample_tail.h). */
#include "sim/sample_tail.h"

static uint32_t fit(int have, uint32_t need, uint32_t n)
{
    if (need == 0)
        return n; /* the launch asks for none of it */
    uint32_t k = have > 0 ? (uint32_t)have / need : 0;
    return k < n ? k : n;
}

uint32_t gpuest_tail_resident_ctas(const gpuest_core_cfg_t *c, int nsm, const gpuest_launch_t *l)
{
    uint32_t n = c->ctas_per_sm > 0 ? (uint32_t)c->ctas_per_sm : 0;
    n = fit(c->warps_per_sm, l->warps_per_cta, n);
    n = fit(c->threads_per_sm, l->threads_per_cta, n);
    n = fit(c->registers_per_sm, l->regs_per_cta, n);
    n = fit(c->shmem_per_sm, l->shmem_bytes, n);
    uint64_t r = (uint64_t)n * (uint64_t)(nsm > 0 ? nsm : 0);
    return r < l->num_ctas ? (uint32_t)r : l->num_ctas;
}

uint32_t gpuest_tail_ctas(const gpuest_core_cfg_t *c, int nsm, const gpuest_launch_t *l, int mode)
{
    if (mode == 1)
        return gpuest_tail_resident_ctas(c, nsm, l);
    if (mode != 2 || nsm <= 0)
        return 0;
    return (uint32_t)nsm < l->num_ctas ? (uint32_t)nsm : l->num_ctas;
}

uint64_t gpuest_tail_census_len(uint64_t kinsts, uint64_t tail_insts, uint64_t unit)
{
    uint64_t len = tail_insts > unit ? tail_insts : unit;
    uint64_t cap = kinsts / 10;
    if (len > cap)
        len = cap > unit ? cap : unit;
    return len;
}
