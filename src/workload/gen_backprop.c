/* gen_backprop.c: Rodinia 3.1 Backprop (cuda/backprop/backprop_cuda_kernel.cu: bpnn_layerforward_CUDA, bpnn_adjust_weights_cuda). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

#define BP_W 16          /* WIDTH */
#define BP_H 16          /* HEIGHT */
#define BP_HID 16        /* hidden units */
#define BP_ETA 0.3f
#define BP_MOMENTUM 0.3f

typedef struct {
    int64_t in;                     /* input units (layer_size) */
    gpuest_alloc_t *input;          /* input_cuda[in+1] */
    gpuest_alloc_t *w;              /* input_hidden_cuda[(in+1)*(hid+1)] */
    gpuest_alloc_t *partial;        /* hidden_partial_sum[num_blocks*WIDTH] */
    gpuest_alloc_t *delta;          /* hidden_delta_cuda[hid+1] */
    gpuest_alloc_t *oldw;           /* input_prev_weights_cuda[(in+1)*(hid+1)] */
    float *host_w;                  /* the host's input_weights, copied back before adjust */
    float hidden_w[BP_HID + 1][2];  /* hidden -> output weights (host side) */
    int kernel;                     /* launches begun: 0, 1, 2 */
} bp_t;

const gpuest_gen_ops_t gpuest_gen_backprop_ops;
const gpuest_generator_t gpuest_gen_backprop = {
    "backprop", "Rodinia", "Backprop", "mining", "fp32",
    "Rodinia 3.1 cuda/backprop/backprop_cuda_kernel.cu bpnn_layerforward_CUDA + bpnn_adjust_weights_cuda",
    &gpuest_gen_backprop_ops};

/* Input as in backprop.c / facetrain.c: inputs uniform in [0,1), weights
 * uniform in [0,1) (bpnn_randomize_weights), previous weights zero; seeded. */
static gpuest_err bp_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    bp_t *b = calloc(1, sizeof *b);
    if (!b)
        return gpuest_fail(err, GPUEST_ENOMEM, "backprop: out of memory");
    *out = b;
    b->in = gen_pick(scale, 64, 4096, 65536);
    uint64_t nw = (uint64_t)(b->in + 1) * (BP_HID + 1);
    GPUEST_TRY(gpuest_memimg_alloc(img, "input_cuda", GPUEST_DT_FP32, (uint64_t)(b->in + 1) * 4, &b->input, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "input_hidden_cuda", GPUEST_DT_FP32, nw * 4, &b->w, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "hidden_partial_sum", GPUEST_DT_FP32, (uint64_t)(b->in / BP_H) * BP_W * 4,
                                   &b->partial, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "hidden_delta_cuda", GPUEST_DT_FP32, (BP_HID + 1) * 4, &b->delta, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "input_prev_weights_cuda", GPUEST_DT_FP32, nw * 4, &b->oldw, err));
    b->host_w = malloc(nw * sizeof *b->host_w);
    if (!b->host_w)
        return gpuest_fail(err, GPUEST_ENOMEM, "backprop: out of memory");
    for (int64_t i = 1; i <= b->in; i++)
        GEN_AT(b->input, float, i) = (float)gpuest_rng_uniform(rng);
    for (uint64_t i = 0; i < nw; i++)
        b->host_w[i] = GEN_AT(b->w, float, i) = (float)gpuest_rng_uniform(rng);
    for (int j = 0; j <= BP_HID; j++)
        b->hidden_w[j][1] = (float)gpuest_rng_uniform(rng);
    return GPUEST_OK;
}

static void bp_destroy(void *ctx)
{
    bp_t *b = ctx;
    if (b)
        free(b->host_w);
    free(b);
}

static gpuest_err bp_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    bp_t *b = ctx;
    if (b->kernel >= 2) {
        *done = 1;
        return GPUEST_OK;
    }
    uint32_t blocks = (uint32_t)(b->in / BP_H);   /* grid (1, in/16), threads (16, 16) */
    if (b->kernel == 0)
        gen_launch(l, "bpnn_layerforward_CUDA", 1, blocks, 1, BP_W, BP_H, 1, (BP_H + BP_H * BP_W) * 4, 12);
    else
        gen_launch(l, "bpnn_adjust_weights_cuda", 1, blocks, 1, BP_W, BP_H, 1, 0, 14);
    return GPUEST_OK;
}

static float bp_squash(float x) { return 1.0f / (1.0f + expf(-x)); }

/* After layerforward: the kernel's writes, then the host part of
 * bpnn_train_cuda (hidden sums, output layer, errors) and the copies made
 * before bpnn_adjust_weights_cuda (weights re-uploaded, hidden deltas). */
static void bp_after_forward(bp_t *b)
{
    int64_t nb = b->in / BP_H, pitch = BP_HID + 1;
    float *w = (float *)(void *)b->w->data, *part = (float *)(void *)b->partial->data;
    const float *input = (const float *)(const void *)b->input->data;
    for (int64_t by = 0; by < nb; by++)
        for (int tx = 0; tx < BP_W; tx++) {
            float col[BP_H];
            for (int ty = 0; ty < BP_H; ty++) {
                int64_t idx = pitch * BP_H * by + pitch * ty + tx + 1 + pitch;
                col[ty] = w[idx] * input[BP_H * by + ty + 1];
            }
            for (int pw = 2; pw <= BP_H; pw *= 2) /* tree reduction over ty */
                for (int ty = 0; ty < BP_H; ty += pw)
                    col[ty] += col[ty + pw / 2];
            for (int ty = 0; ty < BP_H; ty++) {
                int64_t idx = pitch * BP_H * by + pitch * ty + tx + 1 + pitch;
                w[idx] = col[ty];   /* the kernel writes weight_matrix back */
            }
            /* hidden_partial_sum[by*hid + ty] = weight_matrix[tx][ty] for tx == 0: row 0 holds the sums */
            part[by * BP_HID + tx] = col[0];
        }
    float hidden[BP_HID + 1], out = 0, delta[BP_HID + 1];
    hidden[0] = 1.0f;
    for (int j = 1; j <= BP_HID; j++) {
        float sum = 0;
        for (int64_t k = 0; k < nb; k++)
            sum += part[k * BP_HID + j - 1];
        sum += b->host_w[j];   /* bias weight of input unit 0 */
        hidden[j] = bp_squash(sum);
    }
    for (int j = 0; j <= BP_HID; j++)
        out += hidden[j] * b->hidden_w[j][1];
    out = bp_squash(out);
    float target = 0.1f, dout = out * (1 - out) * (target - out);
    delta[0] = 0;
    for (int j = 1; j <= BP_HID; j++)
        delta[j] = hidden[j] * (1 - hidden[j]) * dout * b->hidden_w[j][1];
    memcpy(b->delta->data, delta, sizeof delta);
    memcpy(b->w->data, b->host_w, (size_t)b->w->size);
}

static void bp_after_adjust(bp_t *b)
{
    int64_t nb = b->in / BP_H, pitch = BP_HID + 1;
    float *w = (float *)(void *)b->w->data, *oldw = (float *)(void *)b->oldw->data;
    const float *delta = (const float *)(const void *)b->delta->data, *ly = (const float *)(const void *)b->input->data;
    for (int64_t by = 0; by < nb; by++)
        for (int ty = 0; ty < BP_H; ty++)
            for (int tx = 0; tx < BP_W; tx++) {
                int64_t idx = pitch * BP_H * by + pitch * ty + tx + 1 + pitch;
                float d = BP_ETA * delta[tx + 1] * ly[BP_H * by + ty + 1] + BP_MOMENTUM * oldw[idx];
                w[idx] += d;
                oldw[idx] = d;
            }
    for (int tx = 0; tx < BP_W; tx++) { /* ty == 0 && by == 0: bias row */
        float d = BP_ETA * delta[tx + 1] + BP_MOMENTUM * oldw[tx + 1];
        w[tx + 1] += d;
        oldw[tx + 1] = d;
    }
}

static gpuest_err bp_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bp_t *b = ctx;
    if (b->kernel == 0)
        bp_after_forward(b);
    else
        bp_after_adjust(b);
    b->kernel++;
    return GPUEST_OK;
}

static void bp_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* Warp w of a (16,16) CTA holds ty = 2w (lanes 0-15) and 2w+1 (lanes 16-31). */
static void bp_index(const bp_t *b, const gpuest_warp_t *w, int64_t *index, int64_t *index_y, int64_t *index_x,
                     uint32_t *tx0)
{
    (void)b;
    int64_t by = w->ctaid[1], pitch = BP_HID + 1;
    *tx0 = 0;
    for (int k = 0; k < 32; k++) {
        int64_t ty = (w->tid0 + (uint32_t)k) / BP_W, tx = (w->tid0 + (uint32_t)k) % BP_W;
        index[k] = pitch * BP_H * by + pitch * ty + tx + 1 + pitch;
        index_y[k] = BP_H * by + ty + 1;
        index_x[k] = tx + 1;
        if (tx == 0)
            *tx0 |= 1u << k;
    }
}

static void bp_fill_forward(bp_t *b, gpuest_warp_t *w)
{
    int64_t index[32], iy[32], ix[32], ps[32];
    uint32_t tx0, all = 0xffffffffu;
    bp_index(b, w, index, iy, ix, &tx0);
    if (w->step == 1) { /* write back, then the partial sums (tx == 0 threads) */
        gen_compute(w, 0x78, GPUEST_LAT_SHMEM, all);
        gen_mem_idx(w, 0x80, GPUEST_MEM_STORE, 4, all, b->w->base, index, 4);
        gen_barrier(w, 0x88);
        for (int k = 0; k < 32; k++) /* hidden_partial_sum[by*hid + ty] */
            ps[k] = (int64_t)w->ctaid[1] * BP_HID + (w->tid0 + (uint32_t)k) / BP_W;
        gen_compute(w, 0x90, GPUEST_LAT_SHMEM, tx0);
        gen_mem_idx(w, 0x98, GPUEST_MEM_STORE, 4, tx0, b->partial->base, ps, 4);
        w->finished = 1;
        return;
    }
    gen_alu(w, 0x00, 6, all);
    gen_compute(w, 0x18, GPUEST_LAT_BRANCH, all);
    gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, tx0, b->input->base, iy, 4);   /* input_node[ty] */
    gen_compute(w, 0x24, GPUEST_LAT_SHMEM, tx0);
    gen_barrier(w, 0x28);
    gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, all, b->w->base, index, 4);    /* weight_matrix[ty][tx] */
    gen_compute(w, 0x34, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x38);
    gen_compute(w, 0x40, GPUEST_LAT_SHMEM, all);
    gen_compute(w, 0x44, GPUEST_LAT_SHMEM, all);
    gen_compute(w, 0x48, GPUEST_LAT_ALU, all);
    gen_compute(w, 0x4c, GPUEST_LAT_SHMEM, all);
    gen_barrier(w, 0x50);
    for (int i = 1, pw = 2; i <= 4; i++, pw *= 2) { /* if (ty % power_two == 0) add the partner row */
        uint32_t m = 0;
        for (int k = 0; k < 32; k++)
            if (((w->tid0 + (uint32_t)k) / BP_W) % (uint32_t)pw == 0)
                m |= 1u << k;
        gen_compute(w, 0x58, GPUEST_LAT_SFU, all);   /* __powf */
        gen_compute(w, 0x5c, GPUEST_LAT_BRANCH, all);
        if (m) {
            gen_compute(w, 0x60, GPUEST_LAT_SHMEM, m);
            gen_compute(w, 0x64, GPUEST_LAT_SHMEM, m);
            gen_compute(w, 0x68, GPUEST_LAT_ALU, m);
            gen_compute(w, 0x6c, GPUEST_LAT_SHMEM, m);
        }
        gen_barrier(w, 0x70);
    }
    w->step = 1;
}

/* w[index] += ETA*delta[index_x]*ly[index_y] + MOMENTUM*oldw[index];
 * oldw[index] = ETA*delta[index_x]*ly[index_y] + MOMENTUM*oldw[index];
 * The arrays may alias, so the second statement reloads its operands. */
static void bp_adjust_pair(bp_t *b, gpuest_warp_t *w, uint32_t pc, uint32_t m, const int64_t *dx, const int64_t *ly,
                           const int64_t *idx)
{
    gen_mem_idx(w, pc, GPUEST_MEM_LOAD, 4, m, b->delta->base, dx, 4);
    if (ly)
        gen_mem_idx(w, pc + 4, GPUEST_MEM_LOAD, 4, m, b->input->base, ly, 4);
    gen_mem_idx(w, pc + 8, GPUEST_MEM_LOAD, 4, m, b->oldw->base, idx, 4);
    gen_mem_idx(w, pc + 12, GPUEST_MEM_LOAD, 4, m, b->w->base, idx, 4);
    gen_alu(w, pc + 16, 3, m);
    gen_mem_idx(w, pc + 28, GPUEST_MEM_STORE, 4, m, b->w->base, idx, 4);
    gen_mem_idx(w, pc + 32, GPUEST_MEM_LOAD, 4, m, b->delta->base, dx, 4);
    if (ly)
        gen_mem_idx(w, pc + 36, GPUEST_MEM_LOAD, 4, m, b->input->base, ly, 4);
    gen_mem_idx(w, pc + 40, GPUEST_MEM_LOAD, 4, m, b->oldw->base, idx, 4);
    gen_alu(w, pc + 44, 3, m);
    gen_mem_idx(w, pc + 56, GPUEST_MEM_STORE, 4, m, b->oldw->base, idx, 4);
}

static void bp_fill_adjust(bp_t *b, gpuest_warp_t *w)
{
    int64_t index[32], iy[32], ix[32];
    uint32_t tx0, all = 0xffffffffu;
    bp_index(b, w, index, iy, ix, &tx0);
    gen_alu(w, 0x100, 6, all);
    bp_adjust_pair(b, w, 0x120, all, ix, iy, index);
    gen_barrier(w, 0x160);
    uint32_t row0 = 0;  /* ty == 0 && by == 0 */
    if (w->ctaid[1] == 0)
        for (int k = 0; k < 32; k++)
            if (w->tid0 + (uint32_t)k < BP_W)
                row0 |= 1u << k;
    gen_compute(w, 0x168, GPUEST_LAT_BRANCH, all);
    if (row0)
        bp_adjust_pair(b, w, 0x170, row0, ix, NULL, ix);
    w->finished = 1;
}

static gpuest_err bp_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bp_t *b = ctx;
    if (b->kernel == 0)
        bp_fill_forward(b, w);
    else
        bp_fill_adjust(b, w);
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_backprop_ops = {bp_create, bp_destroy, bp_next_launch, bp_end_launch,
                                                  bp_warp_init, bp_fill};
