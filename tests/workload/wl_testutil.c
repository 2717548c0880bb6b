/* wl_testutil.c: runs workloads for the tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "wl_testutil.h"

int wlt_run(gpuest_workload_t *wl, wlt_launch_cb lcb, wlt_inst_cb icb, void *ctx)
{
    gpuest_error_t err;
    int launches = 0;
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        if (gpuest_workload_next_launch(wl, &l, &done, &err) != GPUEST_OK) {
            fprintf(stderr, "next_launch: %s\n", err.msg);
            return -1;
        }
        if (done)
            return launches;
        launches++;
        if (lcb)
            lcb(ctx, &l, wl, 0);
        for (uint32_t c = 0; c < l.num_ctas; c++)
            for (uint32_t w = 0; w < l.warps_per_cta; w++) {
                gpuest_warp_t *wp;
                if (gpuest_warp_open(wl, c, w, &wp, &err) != GPUEST_OK) {
                    fprintf(stderr, "warp_open: %s\n", err.msg);
                    return -1;
                }
                gpuest_inst_t inst;
                for (;;) {
                    if (gpuest_warp_next(wp, &inst, &err) != GPUEST_OK) {
                        fprintf(stderr, "warp_next: %s\n", err.msg);
                        gpuest_warp_close(wp);
                        return -1;
                    }
                    if (inst.kind == GPUEST_INST_END)
                        break;
                    if (icb && icb(ctx, &l, c, w, &inst) != 0)
                        break;
                }
                gpuest_warp_close(wp);
            }
        if (gpuest_workload_end_launch(wl, &err) != GPUEST_OK) {
            fprintf(stderr, "end_launch: %s\n", err.msg);
            return -1;
        }
        if (lcb)
            lcb(ctx, &l, wl, 1);
    }
}

gpuest_workload_t *wlt_create(const char *name, uint64_t seed)
{
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_create(name, GPUEST_SCALE_TINY, seed, &wl, &err);
    if (rc != GPUEST_OK)
        fprintf(stderr, "create %s: %s\n", name, err.msg);
    assert_int_equal(rc, GPUEST_OK);
    return wl;
}

int wlt_hash_inst(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp, const gpuest_inst_t *in)
{
    wlt_hash_t *h = ctx;
    uint64_t x = ((uint64_t)l->index << 40) ^ ((uint64_t)cta << 20) ^ warp;
    x = x * 31 + (uint64_t)in->kind * 7 + in->pc + ((uint64_t)in->active_mask << 8) + in->size + in->op + in->lat;
    if (gpuest_inst_has_addr(in))
        for (int k = 0; k < 32; k++)
            x = x * 1099511628211ull + in->addr[k];
    for (int k = 0; k < in->ndst; k++)
        x = x * 131 + in->dst[k] + 1;
    for (int k = 0; k < in->nsrc; k++)
        x = x * 137 + in->src[k] + 1;
    x = x * 139 + (uint64_t)in->ndst * 16 + in->nsrc;
    h->hash = (h->hash ^ x) * 1099511628211ull;
    h->count++;
    return 0;
}
