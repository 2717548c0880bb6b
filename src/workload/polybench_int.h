/* polybench_int.h: the kernel shapes shared by PolyBench generators: matrix-vector (ATAX, BICG) and
 * matrix product (GEMM, 2MM). */
#ifndef GPUEST_WORKLOAD_POLYBENCH_INT_H
#define GPUEST_WORKLOAD_POLYBENCH_INT_H

#include "workload_int.h"

#define PB_MV_BLOCK 256  /* DIM_THREAD_BLOCK_X 256, DIM_THREAD_BLOCK_Y 1 in atax.cu / bicg.cu */
#define PB_MV_UNROLL 7   /* loop iterations emitted per fill call */

/* One launch of a thread-per-output kernel: thread g (g < n) computes
 * acc[g] (+)= sum over q < trip of A[..] * vec[q], walking row g of A
 * (A[g*ny+q]) or column g (A[q*ny+g]). */
typedef struct {
    const gpuest_alloc_t *a, *acc, *vec;
    int64_t ny;      /* row length of A */
    int64_t n, trip; /* threads with an output, loop length */
    int rows;        /* 1: row walk, 0: column walk */
    int zero_acc;    /* the kernel first stores acc[g] = 0 */
} pb_mv_t;

/* PolyBench's init_array: A[i][j] = i*j/nx (nx x ny) and vec[i] = i*pi (n entries). */
void pb_init_matrix(gpuest_alloc_t *a, int64_t nx, int64_t ny);
void pb_init_vector(gpuest_alloc_t *vec, int64_t n);

/* A benchmark of two such launches, in order (ATAX, BICG); the generator's
 * create() fills it and uses pb_pair_* for the other operations. */
typedef struct {
    pb_mv_t k[2];
    const char *name[2];
    int kernel; /* launches begun: 0, 1, 2 */
} pb_pair_t;

void pb_pair_destroy(void *ctx);
gpuest_err pb_pair_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err);
/* Applies the launch's functional result to acc (same summation order as the kernel). */
gpuest_err pb_pair_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err);
void pb_pair_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w);
gpuest_err pb_pair_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                        gpuest_error_t *err);

/* One launch of a thread-per-output matrix product (GEMM's gemm_kernel, 2MM's mm2_kernel1 and
 * mm2_kernel2; polybench_mm.c): 32x8 blocks, thread (i = y, j = x) with i < rows and j < ocols
 * runs a prologue on out[i][j] (out *= out_scale, or out = 0), then for k < nk
 * out[i][j] += left_scale * left[i][k] * right[k][j] with out re-read and re-written every k. */
typedef struct {
    gpuest_alloc_t *out, *left, *right;
    int64_t rows, ocols;   /* out: rows x ocols, right: nk x ocols */
    int64_t lcols, nk;     /* left: rows x lcols, the loop's trip */
    float left_scale;      /* alpha; 1 for none (exact) */
    float out_scale;       /* beta of the prologue (unused with zero_out) */
    int zero_out;          /* 1: the prologue stores out[i][j] = 0 without reading it */
    int alu_per_k;         /* ALU instructions per iteration */
} pb_mm_t;

void pb_mm_launch(const pb_mm_t *m, const char *name, gpuest_launch_t *l);
/* Applies the launch's functional result to out (same summation order as the kernel). */
void pb_mm_host(const pb_mm_t *m);
void pb_mm_warp_init(const pb_mm_t *m, const gpuest_launch_t *l, gpuest_warp_t *w);
void pb_mm_fill(const pb_mm_t *m, gpuest_warp_t *w);

#endif
