/* polybench_int.h: the matrix-vector kernel shape shared by the PolyBench ATAX and BICG generators. */
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

#endif
