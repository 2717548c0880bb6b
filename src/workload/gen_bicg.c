/* gen_bicg.c: PolyBench/GPU 1.0 BICG (CUDA/BICG/bicg.cu: bicg_kernel1 s = A^T r, bicg_kernel2 q = A p). */
#include <stdlib.h>

#include "polybench_int.h"

const gpuest_gen_ops_t gpuest_gen_bicg_ops;
const gpuest_generator_t gpuest_gen_bicg = {
    "bicg", "PolyBench", "BICG", "reuse", "fp32",
    "PolyBench/GPU 1.0 CUDA/BICG/bicg.cu bicg_kernel1 + bicg_kernel2", &gpuest_gen_bicg_ops};

/* Input: PolyBench's init_array (r[i] = p[i] = i*pi, A[i][j] = i*j/NX); the
 * benchmark's own values, so the seed is not used.
 * kernel1: j = gtid; s[j] = 0; for (i < NX) s[j] += A[i*NY+j] * r[i]   (coalesced, r[i] broadcast)
 * kernel2: i = gtid; q[i] = 0; for (j < NY) q[i] += A[i*NY+j] * p[j]   (row walk: 32 rows per warp) */
static gpuest_err bicg_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                              gpuest_error_t *err)
{
    (void)rng;
    pb_pair_t *b = calloc(1, sizeof *b);
    if (!b)
        return gpuest_fail(err, GPUEST_ENOMEM, "bicg: out of memory");
    *out = b;
    int64_t nx = gen_pick(scale, 64, 1024, 4096), ny = nx;
    gpuest_alloc_t *a, *r, *s, *p, *q; /* float A[nx*ny], r[nx], s[ny], p[ny], q[nx] */
    GPUEST_TRY(gpuest_memimg_alloc(img, "A", GPUEST_DT_FP32, (uint64_t)(nx * ny) * 4, &a, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "r", GPUEST_DT_FP32, (uint64_t)nx * 4, &r, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "s", GPUEST_DT_FP32, (uint64_t)ny * 4, &s, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "p", GPUEST_DT_FP32, (uint64_t)ny * 4, &p, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "q", GPUEST_DT_FP32, (uint64_t)nx * 4, &q, err));
    gpuest_memimg_set_approx(a, 12); gpuest_memimg_set_approx(r, 12); gpuest_memimg_set_approx(p, 12); /* approximable inputs (thesis 6.2: 12 bits) */
    pb_init_vector(r, nx);
    pb_init_matrix(a, nx, ny);
    pb_init_vector(p, ny);
    b->k[0] = (pb_mv_t){a, s, r, ny, ny, nx, 0, 1};
    b->k[1] = (pb_mv_t){a, q, p, ny, nx, ny, 1, 1};
    b->name[0] = "bicg_kernel1", b->name[1] = "bicg_kernel2";
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_bicg_ops = {bicg_create, pb_pair_destroy, pb_pair_next_launch, pb_pair_end_launch,
                                              pb_pair_warp_init, pb_pair_fill};
