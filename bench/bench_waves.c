/* bench_waves.c: per generator and scale, the launches, CTAs per SM and waves of CTAs on a preset, and the
 * memory image's size against the preset's L2 (docs/workload-generators.md, "CTAs per SM and waves").
 *
 * usage: bench_waves [PRESET [SCALE...]]   (default: mesh56, tiny small default)
 * Launches are enumerated without generating warps (next_launch / end_launch run
 * the host side of the algorithm), so the default scale takes seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "workload/workload.h"

/* CTAs of launch l one SM holds at once (the occupancy limits the simulator applies). */
static int resident_ctas(const gpuest_core_cfg_t *c, const gpuest_launch_t *l)
{
    int n = c->ctas_per_sm;
    int by_warps = c->warps_per_sm / (int)l->warps_per_cta, by_threads = c->threads_per_sm / (int)l->threads_per_cta;
    int by_regs = l->regs_per_cta ? c->registers_per_sm / (int)l->regs_per_cta : n;
    int by_shmem = l->shmem_bytes ? c->shmem_per_sm / (int)l->shmem_bytes : n;
    if (by_warps < n)
        n = by_warps;
    if (by_threads < n)
        n = by_threads;
    if (by_regs < n)
        n = by_regs;
    if (by_shmem < n)
        n = by_shmem;
    return n;
}

static int one(const gpuest_config_t *cfg, const char *name, gpuest_scale_t scale)
{
    gpuest_workload_t *wl;
    gpuest_error_t err;
    if (gpuest_workload_create(name, scale, 1, &wl, &err) != GPUEST_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return 1;
    }
    uint64_t image = 0;
    gpuest_memimg_t *img = gpuest_workload_image(wl);
    for (size_t i = 0; i < gpuest_memimg_count(img); i++)
        image += gpuest_memimg_get(img, i)->size;
    uint64_t launches = 0, ctas = 0, max_ctas = 0, waves = 0, max_waves = 0;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        if (gpuest_workload_next_launch(wl, &l, &done, &err) != GPUEST_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            gpuest_workload_destroy(wl);
            return 1;
        }
        if (done)
            break;
        int res = resident_ctas(&cfg->core, &l);
        uint64_t slots = (uint64_t)(res > 0 ? res : 1) * (uint64_t)cfg->core.num_sms;
        uint64_t w = (l.num_ctas + slots - 1) / slots;
        launches++;
        ctas += l.num_ctas;
        waves += w;
        if (l.num_ctas > max_ctas)
            max_ctas = l.num_ctas;
        if (w > max_waves)
            max_waves = w;
        if (gpuest_workload_end_launch(wl, &err) != GPUEST_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            gpuest_workload_destroy(wl);
            return 1;
        }
    }
    gpuest_workload_destroy(wl);
    uint64_t l2 = (uint64_t)cfg->l2.size_per_mc_bytes * (uint64_t)cfg->mc.num_mcs;
    printf("| `%s` | %s | %llu | %.1f | %.1f | %llu | %.2f | %.1f |\n", name, gpuest_scale_name(scale),
           (unsigned long long)launches, (double)ctas / (double)(launches ? launches : 1) / cfg->core.num_sms,
           (double)max_ctas / cfg->core.num_sms, (unsigned long long)max_waves,
           (double)waves / (double)(launches ? launches : 1), (double)image / (double)l2);
    return 0;
}

int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "mesh56";
    gpuest_config_t cfg;
    gpuest_error_t err;
    if (gpuest_config_preset(&cfg, preset, &err) != GPUEST_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    gpuest_scale_t scales[3] = {GPUEST_SCALE_TINY, GPUEST_SCALE_SMALL, GPUEST_SCALE_DEFAULT};
    int nscales = 3;
    if (argc > 2) {
        nscales = 0;
        for (int i = 2; i < argc && nscales < 3; i++)
            if (gpuest_scale_parse(argv[i], &scales[nscales]) == GPUEST_OK)
                nscales++;
    }
    printf("preset %s: %d SMs, L2 %d KB\n\n", preset, cfg.core.num_sms,
           cfg.l2.size_per_mc_bytes * cfg.mc.num_mcs / 1024);
    printf("| generator | scale | launches | CTAs per SM (mean per launch) | CTAs per SM (largest launch) | "
           "waves (largest launch) | waves (mean) | image / L2 |\n|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (size_t g = 0; gpuest_generators[g]; g++)
        for (int s = 0; s < nscales; s++)
            rc |= one(&cfg, gpuest_generators[g]->name, scales[s]);
    return rc;
}
