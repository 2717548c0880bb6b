/* gen_atax.c: PolyBench/GPU 1.0 ATAX (CUDA/ATAX/atax.cu: atax_kernel1 tmp = A x, atax_kernel2 y = A^T tmp). */
#include <stdlib.h>

#include "polybench_int.h"

const gpuest_gen_ops_t gpuest_gen_atax_ops;
const gpuest_generator_t gpuest_gen_atax = {
    "atax", "PolyBench", "ATAX", "reuse", "fp32",
    "PolyBench/GPU 1.0 CUDA/ATAX/atax.cu atax_kernel1 + atax_kernel2", &gpuest_gen_atax_ops};

/* Input: PolyBench's init_array (x[i] = i*pi, A[i][j] = i*j/NX); these are
 * the values the benchmark really holds, so the seed is not used.
 * kernel1: i = gtid; for (j < NY) tmp[i] += A[i*NY+j] * x[j]   (row walk: 32 rows per warp)
 * kernel2: j = gtid; for (i < NX) y[j] += A[i*NY+j] * tmp[i]   (coalesced, tmp[i] broadcast) */
static gpuest_err atax_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    (void)rng;
    pb_pair_t *p = calloc(1, sizeof *p);
    if (!p)
        return gpuest_fail(err, GPUEST_ENOMEM, "atax: out of memory");
    *out = p;
    int64_t nx = gen_pick(scale, 64, 1024, 4096), ny = nx;
    gpuest_alloc_t *a, *x, *y, *tmp; /* float A[nx*ny], x[ny], y[ny], tmp[nx] */
    GPUEST_TRY(gpuest_memimg_alloc(img, "A", GPUEST_DT_FP32, (uint64_t)(nx * ny) * 4, &a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "x", GPUEST_DT_FP32, (uint64_t)ny * 4, &x, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "y", GPUEST_DT_FP32, (uint64_t)ny * 4, &y, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "tmp", GPUEST_DT_FP32, (uint64_t)nx * 4, &tmp, err));
    gpuest_memimg_set_approx(a, 12); gpuest_memimg_set_approx(x, 12); /* approximable inputs (thesis 6.2: 12 bits) */
    pb_init_vector(x, ny);
    pb_init_matrix(a, nx, ny);
    p->k[0] = (pb_mv_t){a, tmp, x, ny, nx, ny, 1, 0};
    p->k[1] = (pb_mv_t){a, y, tmp, ny, ny, nx, 0, 0};
    p->name[0] = "atax_kernel1", p->name[1] = "atax_kernel2";
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_atax_ops = {atax_create, pb_pair_destroy, pb_pair_next_launch, pb_pair_end_launch,
                                              pb_pair_warp_init, pb_pair_fill};
