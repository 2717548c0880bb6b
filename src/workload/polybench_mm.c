/* polybench_mm.c: the matrix-product kernel shape shared by the PolyBench GEMM and 2MM generators
 * (gemm_kernel, mm2_kernel1, mm2_kernel2): 32x8 blocks, one thread per output element (i = y,
 * j = x), a prologue on out[i][j], then for k < nk: out[i][j] += left_scale left[i][k] right[k][j]
 * with out re-read and re-written in global memory every k, as the sources code it. */
#include "polybench_int.h"

#define PB_MM_K_PER_FILL 6 /* loop iterations emitted per fill call */

void pb_mm_launch(const pb_mm_t *m, const char *name, gpuest_launch_t *l)
{
    gen_launch(l, name, (uint32_t)((m->ocols + 31) / 32), (uint32_t)((m->rows + 7) / 8), 1, 32, 8, 1, 0, 14);
}

/* Each element's float operations are those of its thread's loop in ascending k; the loops run
 * i, k, j so that the right operand and out are read along their rows (the j-innermost order read
 * the right operand down its columns and was 4 % of a sampled gemm run at default scale). */
void pb_mm_host(const pb_mm_t *m)
{
    const float *restrict L = (const float *)(const void *)m->left->data;
    const float *restrict R = (const float *)(const void *)m->right->data;
    float *restrict O = (float *)(void *)m->out->data;
    for (int64_t i = 0; i < m->rows; i++) {
        float *Oi = &O[i * m->ocols];
        for (int64_t j = 0; j < m->ocols; j++)
            Oi[j] = m->zero_out ? 0.0f : Oi[j] * m->out_scale;
        for (int64_t k = 0; k < m->nk; k++) {
            float a = m->left_scale * L[i * m->lcols + k]; /* exact when left_scale is 1 */
            const float *Rk = &R[k * m->ocols];
            for (int64_t j = 0; j < m->ocols; j++)
                Oi[j] += a * Rk[j];
        }
    }
}

void pb_mm_warp_init(const pb_mm_t *m, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    uint32_t act = 0;
    for (int k = 0; k < 32; k++) {
        uint32_t tx, ty, tz;
        gen_thread_idx(l, w, k, &tx, &ty, &tz);
        w->lane[0][k] = (int64_t)w->ctaid[1] * 8 + ty;  /* i */
        w->lane[1][k] = (int64_t)w->ctaid[0] * 32 + tx; /* j */
        if ((w->live >> k & 1) && w->lane[0][k] < m->rows && w->lane[1][k] < m->ocols)
            act |= 1u << k;
    }
    w->v[0] = act;
}

void pb_mm_fill(const pb_mm_t *m, gpuest_warp_t *w)
{
    uint32_t act = (uint32_t)w->v[0];
    int64_t idx[32];
    for (int k = 0; k < 32; k++)
        idx[k] = w->lane[0][k] * m->ocols + w->lane[1][k];
    if (w->step == 0) { /* the prologue: out[i][j] *= out_scale, or out[i][j] = 0 */
        gen_alu(w, 0x00, 5, w->live);
        gen_compute(w, 0x28, GPUEST_LAT_BRANCH, w->live);
        if (!act) {
            w->finished = 1;
            return;
        }
        if (!m->zero_out) {
            gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, m->out->base, idx, 4);
            gen_compute(w, 0x38, GPUEST_LAT_ALU, act);
        }
        gen_mem_idx(w, 0x40, GPUEST_MEM_STORE, 4, act, m->out->base, idx, 4);
        w->step = 1;
        return;
    }
    /* per k: left[i][k] (one word for the warp: i is the warp's row), right[k][j] (coalesced), out
     * re-read and re-written */
    int64_t k0 = (int64_t)w->step - 1;
    for (int64_t kk = k0; kk < m->nk && kk < k0 + PB_MM_K_PER_FILL; kk++) {
        int64_t li[32], ri[32];
        for (int k = 0; k < 32; k++) {
            li[k] = w->lane[0][k] * m->lcols + kk;
            ri[k] = kk * m->ocols + w->lane[1][k];
        }
        gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, act, m->left->base, li, 4);
        gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, act, m->right->base, ri, 4);
        gen_mem_idx(w, 0x58, GPUEST_MEM_LOAD, 4, act, m->out->base, idx, 4);
        gen_alu(w, 0x60, m->alu_per_k, act);
        gen_mem_idx(w, 0x70, GPUEST_MEM_STORE, 4, act, m->out->base, idx, 4);
        gen_compute(w, 0x78, GPUEST_LAT_BRANCH, act);
    }
    w->step += PB_MM_K_PER_FILL;
    if ((int64_t)w->step - 1 >= m->nk)
        w->finished = 1;
}
