/* gt_util.c: helpers for the generator tests (see gt_util.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "gt_util.h"

gpuest_workload_t *gt_create(const char *name, gpuest_scale_t scale, uint64_t seed)
{
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_create(name, scale, seed, &wl, &err);
    if (rc != GPUEST_OK)
        fail_msg("creating %s: %s", name, err.msg);
    return wl;
}

static void gt_next(gpuest_workload_t *wl, gpuest_launch_t *l, int *done)
{
    gpuest_error_t err;
    if (gpuest_workload_next_launch(wl, l, done, &err) != GPUEST_OK)
        fail_msg("next_launch: %s", err.msg);
}

void gt_capture(gpuest_workload_t *wl, uint32_t launch, uint32_t cta, uint32_t warp, int max, gt_warp_t *out)
{
    gpuest_error_t err;
    int done = 0;
    memset(out, 0, sizeof *out);
    for (;;) {
        gt_next(wl, &out->launch, &done);
        if (done)
            fail_msg("workload ended before launch %u", launch);
        if (out->launch.index == launch)
            break;
    }
    gpuest_warp_t *w = NULL;
    if (gpuest_warp_open(wl, cta, warp, &w, &err) != GPUEST_OK)
        fail_msg("warp_open: %s", err.msg);
    if (max > GT_MAX_MEM)
        max = GT_MAX_MEM;
    while (out->n < max) {
        gpuest_inst_t in;
        if (gpuest_warp_next(w, &in, &err) != GPUEST_OK)
            fail_msg("warp_next: %s", err.msg);
        if (in.kind == GPUEST_INST_END)
            break;
        if (in.kind == GPUEST_INST_MEM)
            out->mem[out->n++] = in;
    }
    gpuest_warp_close(w);
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static void gt_count_name(gt_run_t *r, const char *name)
{
    for (int i = 0; i < r->nnames; i++)
        if (strcmp(r->names[i], name) == 0) {
            r->per_name[i]++;
            return;
        }
    if (r->nnames < 8) {
        snprintf(r->names[r->nnames], GPUEST_WL_NAME_MAX, "%s", name);
        r->per_name[r->nnames++] = 1;
    }
}

void gt_run_all(gpuest_workload_t *wl, gt_after_fn after, void *ctx, gt_run_t *r)
{
    gpuest_error_t err;
    memset(r, 0, sizeof *r);
    r->hash = UINT64_C(0xcbf29ce484222325);
    gpuest_memimg_t *img = gpuest_workload_image(wl);
    for (;;) {
        gpuest_launch_t l;
        int done = 0;
        gt_next(wl, &l, &done);
        if (done)
            break;
        r->launches++;
        gt_count_name(r, l.name);
        for (uint32_t c = 0; c < l.num_ctas; c++)
            for (uint32_t wi = 0; wi < l.warps_per_cta; wi++) {
                gpuest_warp_t *w = NULL;
                if (gpuest_warp_open(wl, c, wi, &w, &err) != GPUEST_OK)
                    fail_msg("warp_open: %s", err.msg);
                r->warps++;
                for (;;) {
                    gpuest_inst_t in;
                    if (gpuest_warp_next(w, &in, &err) != GPUEST_OK)
                        fail_msg("warp_next: %s", err.msg);
                    if (in.kind == GPUEST_INST_END)
                        break;
                    r->insts++;
                    r->hash = fnv(r->hash, ((uint64_t)in.kind << 40) ^ ((uint64_t)in.pc << 32) ^ in.active_mask);
                    if (in.kind != GPUEST_INST_MEM)
                        continue;
                    r->mem_insts++;
                    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
                    r->line_requests += gpuest_coalesce(&in, req);
                    for (int k = 0; k < 32; k++)
                        if (in.active_mask >> k & 1) {
                            r->hash = fnv(r->hash, in.addr[k]);
                            if (!gpuest_memimg_find(img, in.addr[k]))
                                r->outside++;
                        }
                }
                gpuest_warp_close(w);
            }
        if (gpuest_workload_end_launch(wl, &err) != GPUEST_OK)
            fail_msg("end_launch: %s", err.msg);
        if (after)
            after(ctx, &l, wl);
    }
}

int gt_lines(const uint64_t *a, uint32_t mask, uint32_t size, uint64_t *lines, uint8_t *sectors)
{
    /* Fermi rule: 8-byte accesses are handled per half-warp, 16-byte per quarter. */
    int group = size == 8 ? 16 : size == 16 ? 8 : 32, n = 0;
    for (int g0 = 0; g0 < 32; g0 += group) {
        int first = n;
        for (int k = g0; k < g0 + group; k++) {
            if (!(mask >> k & 1))
                continue;
            for (uint64_t byte = a[k]; byte < a[k] + size; byte++) {
                uint64_t line = byte / 128 * 128;
                int s = (int)(byte % 128 / 32), j;
                for (j = first; j < n && lines[j] != line; j++)
                    ;
                if (j == n)
                    lines[n++] = line, sectors[j] = 0;
                sectors[j] |= (uint8_t)(1u << s);
            }
        }
    }
    return n;
}

int gt_check_coalesce(const gpuest_inst_t *inst)
{
    uint64_t lines[64];
    uint8_t sectors[64];
    int n = gt_lines(inst->addr, inst->active_mask, inst->size, lines, sectors);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    size_t got = gpuest_coalesce(inst, req);
    assert_int_equal(got, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(req[i].line, lines[i]);
        assert_int_equal(req[i].sectors, sectors[i]);
    }
    return n;
}

uint64_t gt_base(gpuest_workload_t *wl, const char *name)
{
    gpuest_alloc_t *a = gpuest_memimg_find_name(gpuest_workload_image(wl), name);
    if (!a)
        fail_msg("no allocation named %s", name);
    return a->base;
}

void *gt_data(gpuest_workload_t *wl, const char *name)
{
    gpuest_alloc_t *a = gpuest_memimg_find_name(gpuest_workload_image(wl), name);
    if (!a)
        fail_msg("no allocation named %s", name);
    return a->data;
}
