/* gen_hotspot.c: Rodinia 3.1 Hotspot (hotspot/hotspot.cu calculate_temp), pyramid tiles with halo over a chip temperature map. */
#include <stdlib.h>

#include "workload_int.h"

#define HS_BLOCK 16
#define HS_PYRAMID 2

/* Chip constants of hotspot.cu. */
#define HS_T_CHIP 0.0005
#define HS_CHIP_H 0.016
#define HS_CHIP_W 0.016
#define HS_AMB 80.0
#define HS_FACTOR 0.5
#define HS_SPEC_HEAT 1.75e6
#define HS_K_SI 100.0
#define HS_MAX_PD 3.0e6
#define HS_PRECISION 0.001

typedef struct {
    int64_t rows, cols;
    int total_iterations;
    int t;                      /* iterations done */
    int src;                    /* which temp buffer holds the current map */
    int cur_iter;               /* iterations of the current launch */
    gpuest_alloc_t *power, *temp[2];
    double cap, rx, ry, rz, step;
    uint32_t block_cols, block_rows;
} hs_t;

static gpuest_err hs_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    hs_t *h = calloc(1, sizeof *h);
    if (!h)
        return gpuest_fail(err, GPUEST_ENOMEM, "hotspot: out of memory");
    *out = h;
    h->rows = h->cols = gen_pick(scale, 64, 256, 512);
    h->total_iterations = 4;
    uint64_t bytes = (uint64_t)(h->rows * h->cols) * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, "MatrixPower", GPUEST_DT_FP32, bytes, &h->power, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "MatrixTemp0", GPUEST_DT_FP32, bytes, &h->temp[0], err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "MatrixTemp1", GPUEST_DT_FP32, bytes, &h->temp[1], err));
    gen_field_f32(rng, (float *)(void *)h->temp[0]->data, h->cols, h->rows, 322.0f, 345.0f);
    gen_field_f32(rng, (float *)(void *)h->power->data, h->cols, h->rows, 0.0f, 0.004f);
    for (int b = 0; b < 2; b++)
        gpuest_memimg_set_approx(h->temp[b], 8);
    double gh = HS_CHIP_H / (double)h->rows, gw = HS_CHIP_W / (double)h->cols;
    h->cap = HS_FACTOR * HS_SPEC_HEAT * HS_T_CHIP * gw * gh;
    h->rx = gw / (2.0 * HS_K_SI * HS_T_CHIP * gh);
    h->ry = gh / (2.0 * HS_K_SI * HS_T_CHIP * gw);
    h->rz = HS_T_CHIP / (HS_K_SI * gh * gw);
    h->step = HS_PRECISION / (HS_MAX_PD / (HS_FACTOR * HS_T_CHIP * HS_SPEC_HEAT));
    int small = HS_BLOCK - HS_PYRAMID * 2;
    h->block_cols = (uint32_t)((h->cols + small - 1) / small);
    h->block_rows = (uint32_t)((h->rows + small - 1) / small);
    return GPUEST_OK;
}

static void hs_destroy(void *ctx) { free(ctx); }

static gpuest_err hs_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                 gpuest_error_t *err)
{
    (void)img, (void)err;
    hs_t *h = ctx;
    /* for (t = 0; t < total_iterations; t += num_iterations) calculate_temp(MIN(num_iterations, total - t)) */
    if (h->t >= h->total_iterations) {
        *done = 1;
        return GPUEST_OK;
    }
    h->cur_iter = h->total_iterations - h->t < HS_PYRAMID ? h->total_iterations - h->t : HS_PYRAMID;
    gen_launch(l, "calculate_temp", h->block_cols, h->block_rows, 1, HS_BLOCK, HS_BLOCK, 1,
               3 * HS_BLOCK * HS_BLOCK * 4, 30);
    return GPUEST_OK;
}

static gpuest_err hs_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l;
    hs_t *h = ctx;
    int64_t R = h->rows, C = h->cols;
    float *cur = malloc((size_t)(R * C) * sizeof *cur), *nxt = malloc((size_t)(R * C) * sizeof *nxt);
    if (!cur || !nxt) {
        free(cur), free(nxt);
        return gpuest_fail(err, GPUEST_ENOMEM, "hotspot: out of memory");
    }
    memcpy(cur, h->temp[h->src]->data, (size_t)(R * C) * 4);
    const float *P = (const float *)(const void *)h->power->data;
    double sdc = h->step / h->cap;
    /* Each iteration updates every cell from its neighbours; at the chip edge
     * the missing neighbour is the cell itself (validYmin/validXmax clamping). */
    for (int it = 0; it < h->cur_iter; it++) {
        for (int64_t y = 0; y < R; y++)
            for (int64_t x = 0; x < C; x++) {
                float t = cur[y * C + x];
                float n = cur[(y > 0 ? y - 1 : y) * C + x], s = cur[(y < R - 1 ? y + 1 : y) * C + x];
                float w = cur[y * C + (x > 0 ? x - 1 : x)], e = cur[y * C + (x < C - 1 ? x + 1 : x)];
                nxt[y * C + x] = (float)(t + sdc * (P[y * C + x] + (s + n - 2.0 * t) / h->ry +
                                                    (e + w - 2.0 * t) / h->rx + (HS_AMB - t) / h->rz));
            }
        float *tmp = cur;
        cur = nxt, nxt = tmp;
    }
    memcpy(h->temp[1 - h->src]->data, cur, (size_t)(R * C) * 4);
    free(cur), free(nxt);
    h->src = 1 - h->src;
    h->t += h->cur_iter;
    return GPUEST_OK;
}

static void hs_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img;
    hs_t *h = ctx;
    int small = HS_BLOCK - HS_PYRAMID * 2;
    int64_t blk_y = (int64_t)small * w->ctaid[1] - HS_PYRAMID, blk_x = (int64_t)small * w->ctaid[0] - HS_PYRAMID;
    int64_t blk_ymax = blk_y + HS_BLOCK - 1, blk_xmax = blk_x + HS_BLOCK - 1;
    int64_t vymin = blk_y < 0 ? -blk_y : 0, vxmin = blk_x < 0 ? -blk_x : 0;
    int64_t vymax = blk_ymax > h->rows - 1 ? HS_BLOCK - 1 - (blk_ymax - h->rows + 1) : HS_BLOCK - 1;
    int64_t vxmax = blk_xmax > h->cols - 1 ? HS_BLOCK - 1 - (blk_xmax - h->cols + 1) : HS_BLOCK - 1;
    uint32_t in = 0, computed = 0;
    int last = h->cur_iter - 1;
    for (int k = 0; k < 32; k++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, k, &tx, &ty, &tz);
        int64_t y = blk_y + ty, x = blk_x + tx;
        w->lane[0][k] = y * h->cols + x;   /* index */
        if (y >= 0 && y <= h->rows - 1 && x >= 0 && x <= h->cols - 1)
            in |= 1u << k;
        /* computed in the last pyramid iteration */
        if ((int64_t)tx >= last + 1 && (int64_t)tx <= HS_BLOCK - last - 2 && (int64_t)ty >= last + 1 &&
            (int64_t)ty <= HS_BLOCK - last - 2 && (int64_t)tx >= vxmin && (int64_t)tx <= vxmax &&
            (int64_t)ty >= vymin && (int64_t)ty <= vymax)
            computed |= 1u << k;
    }
    w->v[0] = in & w->live;
    w->v[1] = computed & w->live;
    w->v[2] = vxmin, w->v[3] = vxmax, w->v[4] = vymin, w->v[5] = vymax;
}

static gpuest_err hs_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    hs_t *h = ctx;
    uint32_t in = (uint32_t)w->v[0];
    if (w->step == 0) {
        gen_alu(w, 0x00, 12, w->live);   /* constants, tile bounds, indices */
        gen_compute(w, 0x60, GPUEST_LAT_BRANCH, w->live);
        gen_mem_idx(w, 0x68, GPUEST_MEM_LOAD, 4, in, h->temp[h->src]->base, w->lane[0], 4);
        gen_mem_idx(w, 0x70, GPUEST_MEM_LOAD, 4, in, h->power->base, w->lane[0], 4);
        if (in) {
            gen_compute(w, 0x78, GPUEST_LAT_SHMEM, in);
            gen_compute(w, 0x80, GPUEST_LAT_SHMEM, in);
        }
        gen_barrier(w, 0x88);
        gen_alu(w, 0x90, 6, w->live);    /* validYmin ... */
        w->step = 1;
        return GPUEST_OK;
    }
    int i = (int)w->step - 1;
    if (i < h->cur_iter) {
        uint32_t comp = 0;
        for (int k = 0; k < 32; k++) {
            uint32_t tx, ty, tz;
            gen_thread_idx(l, w, k, &tx, &ty, &tz);
            if ((int64_t)tx >= i + 1 && (int64_t)tx <= HS_BLOCK - i - 2 && (int64_t)ty >= i + 1 &&
                (int64_t)ty <= HS_BLOCK - i - 2 && (int64_t)tx >= w->v[2] && (int64_t)tx <= w->v[3] &&
                (int64_t)ty >= w->v[4] && (int64_t)ty <= w->v[5])
                comp |= 1u << k;
        }
        comp &= w->live;
        gen_compute(w, 0xc0, GPUEST_LAT_BRANCH, w->live);
        if (comp) {
            for (int s = 0; s < 6; s++)
                gen_compute(w, 0xc8 + 8 * (uint32_t)s, GPUEST_LAT_SHMEM, comp);
            gen_alu(w, 0x100, 10, comp);
            gen_compute(w, 0x150, GPUEST_LAT_SHMEM, comp);
        }
        gen_barrier(w, 0x158);
        if (i < h->cur_iter - 1) {
            if (comp)
                gen_compute(w, 0x160, GPUEST_LAT_SHMEM, comp);
            gen_barrier(w, 0x168);
        }
        w->step++;
        return GPUEST_OK;
    }
    gen_mem_idx(w, 0x170, GPUEST_MEM_STORE, 4, (uint32_t)w->v[1], h->temp[1 - h->src]->base, w->lane[0], 4);
    w->finished = 1;
    return GPUEST_OK;
}

static const gpuest_gen_ops_t hotspot_ops_tab = {hs_create, hs_destroy, hs_next_launch, hs_end_launch,
                                                 hs_warp_init, hs_fill};

const gpuest_generator_t gpuest_gen_hotspot = {"hotspot", "Rodinia", "Hotspot", "stencil", "fp32",
    "Rodinia 3.1 hotspot/hotspot.cu calculate_temp", &hotspot_ops_tab};
