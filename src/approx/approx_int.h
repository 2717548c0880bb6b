/* approx_int.h: private parts of the approx module shared by the application files. */
#ifndef GPUEST_APPROX_INT_H
#define GPUEST_APPROX_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "approx/approx.h"
#include "compress/compress.h"

/* A global-memory access of approximable data: the value is truncated on the way in
 * and on the way out, as the thesis' approximation unit does for every access that
 * falls in an approximable region. The mask comes from the shared rule in compress.h
 * (approx_mask(0) keeps values exact); applying it inline keeps the O(n^3) kernels fast. */
static inline uint32_t approx_mask(int bits)
{
    return gpuest_truncate_f32_bits(UINT32_MAX, bits);
}
static inline float approx_trunc(float v, uint32_t mask)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u &= mask;
    memcpy(&v, &u, sizeof v);
    return v;
}
static inline float approx_ld(const float *mem, size_t i, uint32_t mask)
{
    return approx_trunc(mem[i], mask);
}
static inline void approx_st(float *mem, size_t i, float v, uint32_t mask)
{
    mem[i] = approx_trunc(v, mask);
}

/* Output of one run: float values and/or integer labels (Kmeans). Owned by the run. */
typedef struct {
    float *values;
    size_t nvalues;
    int *labels;
    size_t nlabels;
} approx_output_t;

void approx_output_free(approx_output_t *o);

/* The generated inputs. Arrays are owned; unused ones are NULL. */
struct gpuest_approx_dataset_s {
    gpuest_approx_app_t app;
    gpuest_approx_params_t params;
    uint64_t seed;
    double log10_cond;   /* measured (or constructed, see cond_measured) */
    int cond_measured;
    float *a;            /* main input (matrix, image, points, vector set) */
    size_t na;
    float *b;            /* second input (vector(s)) */
    size_t nb;
    float *c;            /* third input */
    size_t nc;
    int *init;           /* Kmeans: indices of the initial centres */
    size_t ninit;
    int have_exact;
    approx_output_t exact;
};
typedef struct gpuest_approx_dataset_s approx_ds_t;

/* Per-application hooks. generate fills the arrays of ds (params and seed are set);
 * run computes the output of one run with `bits` truncated bits; score compares an
 * approximate output with the exact one into errors[0..1]. */
typedef struct {
    gpuest_err (*generate)(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err);
    gpuest_err (*run)(const approx_ds_t *ds, int bits, approx_output_t *out);
    void (*score)(const approx_ds_t *ds, const approx_output_t *exact, const approx_output_t *approx,
                  double errors[2]);
} approx_app_ops_t;

extern const approx_app_ops_t approx_ops_kmeans, approx_ops_lud, approx_ops_gaussian, approx_ops_atax,
    approx_ops_bicg, approx_ops_2dconv, approx_ops_scalarprod, approx_ops_srad2, approx_ops_hybridsort;

/* Fills an n x n row-major float matrix with singular values spread log-uniformly from 1
 * down to 10^-log10_cond and random orthogonal factors (products of Householder
 * reflections), then sets ds->log10_cond (measured with GSL's SVD for small sides). */
gpuest_err approx_cond_matrix(approx_ds_t *ds, float *m, size_t n, double log10_cond, gpuest_rng_t *rng,
                              gpuest_error_t *err);
/* Uniform floats in [lo, hi). */
void approx_fill_uniform(float *v, size_t n, double lo, double hi, gpuest_rng_t *rng);
/* calloc that reports ENOMEM through err. */
gpuest_err approx_alloc_floats(float **out, size_t n, gpuest_error_t *err);

/* Scores shared by apps whose output is a float array. */
void approx_score_mre(const approx_ds_t *ds, const approx_output_t *e, const approx_output_t *a, double errors[2]);
void approx_score_nrmse(const approx_ds_t *ds, const approx_output_t *e, const approx_output_t *a, double errors[2]);

#endif
