/* gen_lud.c: Rodinia 3.1 LUD (cuda/lud/cuda/lud_kernel.cu: lud_diagonal, lud_perimeter, lud_internal), 16x16 blocked, in place. */
#include <math.h>
#include <stdlib.h>

#include "workload_int.h"

#define LUD_BS 16   /* BLOCK_SIZE in lud_kernel.cu */

/* The host loop of lud_cuda(): for (off = 0; off < n - 16; off += 16) {
 * diagonal; perimeter; internal } then one last diagonal at off = n - 16. */
enum { LUD_DIAG = 0, LUD_PERI = 1, LUD_INTERNAL = 2 };

typedef struct {
    int64_t n;             /* matrix_dim, a multiple of 16 */
    gpuest_alloc_t *m;     /* float m[n*n], row-major */
    int64_t off;           /* offset of the current step */
    int kind;              /* kernel of the current launch */
    int finished;          /* the last diagonal has run */
} lud_t;

const gpuest_gen_ops_t gpuest_gen_lud_ops;
const gpuest_generator_t gpuest_gen_lud = {
    "lud", "Rodinia", "LUD", "reuse", "fp32",
    "Rodinia 3.1 cuda/lud/cuda/lud_kernel.cu lud_diagonal + lud_perimeter + lud_internal (one triple per 16-column step)",
    &gpuest_gen_lud_ops};

/* Input: a Kac-Murdock-Szego Toeplitz matrix 10*rho^|i-j| as in Rodinia's
 * create_matrix (which uses rho = exp(-0.001)); the seed picks rho, which sets
 * the condition number (about (1+rho)/(1-rho)). It is symmetric positive
 * definite, so LU without pivoting (what the kernels do) is stable. */
static gpuest_err lud_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                             gpuest_error_t *err)
{
    lud_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "lud: out of memory");
    *out = s;
    s->n = gen_pick(scale, 32, 256, 512);
    GPUEST_TRY(gpuest_memimg_alloc(img, "m", GPUEST_DT_FP32, (uint64_t)(s->n * s->n) * 4, &s->m, err));
    gpuest_memimg_set_approx(s->m, 4); /* approximable input (thesis 6.2: 4 bits for LUD) */
    double lambda = 0.001 * pow(100.0, gpuest_rng_uniform(rng)); /* 0.001 .. 0.1 */
    float *m = (float *)(void *)s->m->data;
    for (int64_t i = 0; i < s->n; i++)
        for (int64_t j = 0; j < s->n; j++)
            m[i * s->n + j] = (float)(10.0 * exp(-lambda * (double)llabs(i - j)));
    return GPUEST_OK;
}

static void lud_destroy(void *ctx) { free(ctx); }

static gpuest_err lud_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                  gpuest_error_t *err)
{
    (void)img, (void)err;
    lud_t *s = ctx;
    if (s->finished) {
        *done = 1;
        return GPUEST_OK;
    }
    uint32_t nb = (uint32_t)((s->n - s->off) / LUD_BS - 1);
    if (s->kind == LUD_DIAG)
        gen_launch(l, "lud_diagonal", 1, 1, 1, LUD_BS, 1, 1, LUD_BS * LUD_BS * 4, 12);
    else if (s->kind == LUD_PERI)
        gen_launch(l, "lud_perimeter", nb, 1, 1, 2 * LUD_BS, 1, 1, 3 * LUD_BS * LUD_BS * 4, 16);
    else
        gen_launch(l, "lud_internal", nb, nb, 1, LUD_BS, LUD_BS, 1, 2 * LUD_BS * LUD_BS * 4, 14);
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- functional model */

static float *lud_at(lud_t *s, int64_t r, int64_t c) { return (float *)(void *)s->m->data + r * s->n + c; }

/* lud_diagonal: in-place LU of the 16x16 block at (off, off), in the kernel's order. */
static void lud_run_diag(lud_t *s)
{
    float sh[LUD_BS][LUD_BS];
    int64_t off = s->off;
    for (int i = 0; i < LUD_BS; i++)
        for (int t = 0; t < LUD_BS; t++)
            sh[i][t] = *lud_at(s, off + i, off + t);
    for (int i = 0; i < LUD_BS - 1; i++) {
        for (int t = i + 1; t < LUD_BS; t++) {
            for (int j = 0; j < i; j++)
                sh[t][i] -= sh[t][j] * sh[j][i];
            sh[t][i] /= sh[i][i];
        }
        for (int t = i + 1; t < LUD_BS; t++)
            for (int j = 0; j < i + 1; j++)
                sh[i + 1][t] -= sh[i + 1][j] * sh[j][t];
    }
    for (int i = 1; i < LUD_BS; i++)
        for (int t = 0; t < LUD_BS; t++)
            *lud_at(s, off + i, off + t) = sh[i][t];
}

/* lud_perimeter: the row tiles right of the diagonal block become U, the
 * column tiles below it become L. */
static void lud_run_peri(lud_t *s, uint32_t nb)
{
    int64_t off = s->off;
    float dia[LUD_BS][LUD_BS], row[LUD_BS][LUD_BS], col[LUD_BS][LUD_BS];
    for (int i = 0; i < LUD_BS; i++)
        for (int t = 0; t < LUD_BS; t++)
            dia[i][t] = *lud_at(s, off + i, off + t);
    for (uint32_t bx = 0; bx < nb; bx++) {
        int64_t tile = off + (int64_t)(bx + 1) * LUD_BS;
        for (int i = 0; i < LUD_BS; i++)
            for (int t = 0; t < LUD_BS; t++) {
                row[i][t] = *lud_at(s, off + i, tile + t);
                col[i][t] = *lud_at(s, tile + i, off + t);
            }
        for (int t = 0; t < LUD_BS; t++) {
            for (int i = 1; i < LUD_BS; i++)
                for (int j = 0; j < i; j++)
                    row[i][t] -= dia[i][j] * row[j][t];
            for (int i = 0; i < LUD_BS; i++) {
                for (int j = 0; j < i; j++)
                    col[t][i] -= col[t][j] * dia[j][i];
                col[t][i] /= dia[i][i];
            }
        }
        for (int i = 0; i < LUD_BS; i++)
            for (int t = 0; t < LUD_BS; t++) {
                if (i > 0)
                    *lud_at(s, off + i, tile + t) = row[i][t];
                *lud_at(s, tile + i, off + t) = col[i][t];
            }
    }
}

/* lud_internal: trailing submatrix update A -= L_col * U_row. */
static void lud_run_internal(lud_t *s, uint32_t nb)
{
    int64_t off = s->off;
    for (uint32_t by = 0; by < nb; by++)
        for (uint32_t bx = 0; bx < nb; bx++) {
            int64_t grow = off + (int64_t)(by + 1) * LUD_BS, gcol = off + (int64_t)(bx + 1) * LUD_BS;
            for (int ty = 0; ty < LUD_BS; ty++)
                for (int tx = 0; tx < LUD_BS; tx++) {
                    float sum = 0;
                    for (int i = 0; i < LUD_BS; i++)
                        sum += *lud_at(s, grow + ty, off + i) * *lud_at(s, off + i, gcol + tx);
                    *lud_at(s, grow + ty, gcol + tx) -= sum;
                }
        }
}

static gpuest_err lud_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)err;
    lud_t *s = ctx;
    if (s->kind == LUD_DIAG) {
        lud_run_diag(s);
        if (s->off >= s->n - LUD_BS)
            s->finished = 1;
        else
            s->kind = LUD_PERI;
    } else if (s->kind == LUD_PERI) {
        lud_run_peri(s, l->grid[0]);
        s->kind = LUD_INTERNAL;
    } else {
        lud_run_internal(s, l->grid[0]);
        s->off += LUD_BS;
        s->kind = LUD_DIAG;
    }
    return GPUEST_OK;
}

static void lud_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

/* ---------------------------------------------------------------- warp streams */

/* Lanes lo..hi-1 of the warp access row r (one per lane) from column c0+lane-lo. */
static void lud_row(lud_t *s, gpuest_warp_t *w, uint32_t pc, gpuest_mem_op_t op, uint32_t mask, int64_t r,
                    int64_t c0, int lo)
{
    gpuest_inst_t *in = gen_mem(w, pc, op, 4, mask);
    for (int k = 0; in && k < 32; k++)
        if (mask >> k & 1)
            in->addr[k] = s->m->base + (uint64_t)(r * s->n + c0 + (k - lo)) * 4;
}

/* Lanes whose threadIdx.x (lane number here) is above i, among the 16. */
static uint32_t lud_above(int i) { return 0xffffu & ~((2u << i) - 1u); }

static void lud_fill_diag(lud_t *s, gpuest_warp_t *w)
{
    int64_t off = s->off;
    uint64_t st = w->step++;
    if (st == 0) { /* shadow[i][tx] = m[(off+i)*n + off + tx] */
        for (int i = 0; i < LUD_BS; i++) {
            lud_row(s, w, 0x10, GPUEST_MEM_LOAD, 0xffffu, off + i, off, 0);
            gen_compute(w, 0x14, GPUEST_LAT_SHMEM, 0xffffu);
        }
        gen_barrier(w, 0x18);
    } else if (st <= 2 * (LUD_BS - 1)) {
        int i = (int)(st - 1) / 2;
        uint32_t act = lud_above(i);
        gen_compute(w, 0x20, GPUEST_LAT_BRANCH, 0xffffu);
        if ((st - 1) % 2 == 0) { /* column i of L: j < i, then divide */
            for (int j = 0; j < i; j++) {
                gen_compute(w, 0x24, GPUEST_LAT_SHMEM, act);
                gen_compute(w, 0x28, GPUEST_LAT_SHMEM, act);
                gen_compute(w, 0x2c, GPUEST_LAT_ALU, act);
            }
            gen_compute(w, 0x30, GPUEST_LAT_SFU, act);
            gen_compute(w, 0x34, GPUEST_LAT_SHMEM, act);
            gen_barrier(w, 0x38);
        } else { /* row i+1 of U: j < i+1 */
            for (int j = 0; j < i + 1; j++) {
                gen_compute(w, 0x40, GPUEST_LAT_SHMEM, act);
                gen_compute(w, 0x44, GPUEST_LAT_SHMEM, act);
                gen_compute(w, 0x48, GPUEST_LAT_ALU, act);
            }
            gen_barrier(w, 0x50);
        }
    } else { /* m[(off+i)*n + off + tx] = shadow[i][tx], i = 1..15 */
        for (int i = 1; i < LUD_BS; i++) {
            gen_compute(w, 0x58, GPUEST_LAT_SHMEM, 0xffffu);
            lud_row(s, w, 0x60, GPUEST_MEM_STORE, 0xffffu, off + i, off, 0);
        }
        w->finished = 1;
    }
}

/* One warp of 32: lanes 0-15 take the row-tile branch, 16-31 the column-tile
 * branch; the two paths are issued one after the other (divergence). */
static void lud_fill_peri(lud_t *s, gpuest_warp_t *w)
{
    int64_t off = s->off, tile = off + (int64_t)(w->ctaid[0] + 1) * LUD_BS;
    const uint32_t lo = 0x0000ffffu, hi = 0xffff0000u;
    uint64_t st = w->step++;
    switch (st) {
    case 0: /* rows 0-7 of the diagonal block, then the row tile */
        gen_compute(w, 0x100, GPUEST_LAT_BRANCH, 0xffffffffu);
        for (int i = 0; i < LUD_BS / 2; i++)
            lud_row(s, w, 0x108, GPUEST_MEM_LOAD, lo, off + i, off, 0);
        for (int i = 0; i < LUD_BS; i++)
            lud_row(s, w, 0x110, GPUEST_MEM_LOAD, lo, off + i, tile, 0);
        break;
    case 1: /* rows 8-15 of the diagonal block, then the column tile */
        for (int i = LUD_BS / 2; i < LUD_BS; i++)
            lud_row(s, w, 0x118, GPUEST_MEM_LOAD, hi, off + i, off, 16);
        for (int i = 0; i < LUD_BS; i++)
            lud_row(s, w, 0x120, GPUEST_MEM_LOAD, hi, tile + i, off, 16);
        gen_compute(w, 0x128, GPUEST_LAT_SHMEM, 0xffffffffu);
        gen_barrier(w, 0x130);
        break;
    case 2: /* peri_row: 120 multiply-subtracts in shared memory */
    case 3: /* peri_col: 120 multiply-subtracts and 16 divisions */
        for (int k = 0; k < 15; k++) {
            uint32_t m = st == 2 ? lo : hi;
            gen_compute(w, 0x140 + 0x10 * (uint32_t)(st - 2), GPUEST_LAT_SHMEM, m);
            gen_compute(w, 0x144 + 0x10 * (uint32_t)(st - 2), GPUEST_LAT_SHMEM, m);
            gen_compute(w, 0x148 + 0x10 * (uint32_t)(st - 2), GPUEST_LAT_ALU, m);
        }
        if (st == 3) {
            gen_compute(w, 0x160, GPUEST_LAT_SFU, hi);
            gen_barrier(w, 0x168);
        }
        break;
    case 4: /* write back: row tile rows 1-15, then column tile rows 0-15 */
        for (int i = 1; i < LUD_BS; i++)
            lud_row(s, w, 0x170, GPUEST_MEM_STORE, lo, off + i, tile, 0);
        for (int i = 0; i < LUD_BS; i++)
            lud_row(s, w, 0x178, GPUEST_MEM_STORE, hi, tile + i, off, 16);
        w->finished = 1;
        break;
    default:
        w->finished = 1;
    }
}

/* 8 warps of 16x16: warp w holds rows ty = 2w (lanes 0-15) and 2w+1 (16-31). */
static void lud_fill_internal(lud_t *s, gpuest_warp_t *w)
{
    int64_t off = s->off;
    int64_t grow = off + (int64_t)(w->ctaid[1] + 1) * LUD_BS, gcol = off + (int64_t)(w->ctaid[0] + 1) * LUD_BS;
    int64_t ty0 = w->tid0 / LUD_BS;
    int64_t idx[32];
    gen_alu(w, 0x200, 4, 0xffffffffu);
    for (int k = 0; k < 32; k++) /* peri_row[ty][tx] = m[(off+ty)*n + gcol + tx] */
        idx[k] = (off + ty0 + k / 16) * s->n + gcol + k % 16;
    gen_mem_idx(w, 0x210, GPUEST_MEM_LOAD, 4, 0xffffffffu, s->m->base, idx, 4);
    for (int k = 0; k < 32; k++) /* peri_col[ty][tx] = m[(grow+ty)*n + off + tx] */
        idx[k] = (grow + ty0 + k / 16) * s->n + off + k % 16;
    gen_mem_idx(w, 0x218, GPUEST_MEM_LOAD, 4, 0xffffffffu, s->m->base, idx, 4);
    gen_compute(w, 0x220, GPUEST_LAT_SHMEM, 0xffffffffu);
    gen_compute(w, 0x224, GPUEST_LAT_SHMEM, 0xffffffffu);
    gen_barrier(w, 0x228);
    for (int i = 0; i < 8; i++) { /* 16 products, shared-memory operands (two per 2 products) */
        gen_compute(w, 0x230, GPUEST_LAT_SHMEM, 0xffffffffu);
        gen_compute(w, 0x234, GPUEST_LAT_SHMEM, 0xffffffffu);
        gen_alu(w, 0x238, 2, 0xffffffffu);
    }
    for (int k = 0; k < 32; k++) /* m[(grow+ty)*n + gcol + tx] -= sum */
        idx[k] = (grow + ty0 + k / 16) * s->n + gcol + k % 16;
    gen_mem_idx(w, 0x240, GPUEST_MEM_LOAD, 4, 0xffffffffu, s->m->base, idx, 4);
    gen_compute(w, 0x244, GPUEST_LAT_ALU, 0xffffffffu);
    gen_mem_idx(w, 0x248, GPUEST_MEM_STORE, 4, 0xffffffffu, s->m->base, idx, 4);
    w->finished = 1;
}

static gpuest_err lud_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                           gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    lud_t *s = ctx;
    if (s->kind == LUD_DIAG)
        lud_fill_diag(s, w);
    else if (s->kind == LUD_PERI)
        lud_fill_peri(s, w);
    else
        lud_fill_internal(s, w);
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_lud_ops = {lud_create, lud_destroy, lud_next_launch, lud_end_launch,
                                             lud_warp_init, lud_fill};
