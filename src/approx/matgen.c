/* matgen.c: matrices with a chosen condition number, and its measurement with GSL. */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>

#include "approx_int.h"

/* Reflections applied per matrix. Each one mixes every row and column with a dense random
 * direction, so a couple of dozen give a dense matrix whose entries all carry the small
 * singular directions; a full Haar-random factor (n reflections) would cost O(n^3). */
#define COND_REFLECTIONS 24

/* A <- H A H with H = I - 2 v v^T / (v^T v): keeps A symmetric and its eigenvalues. */
static void reflect_both_sides(double *a, size_t n, const double *v, double *w)
{
    double vv = 0.0;
    for (size_t i = 0; i < n; i++)
        vv += v[i] * v[i];
    double beta = 2.0 / vv;
    /* w = A v; then H A H = A - beta (v w^T + w v^T) + beta^2 (v^T w) v v^T. */
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        const double *row = a + i * n;
        for (size_t j = 0; j < n; j++)
            s += row[j] * v[j];
        w[i] = s;
    }
    double vw = 0.0;
    for (size_t i = 0; i < n; i++)
        vw += v[i] * w[i];
    double g = beta * beta * vw;
    for (size_t i = 0; i < n; i++) {
        double *row = a + i * n;
        double bvi = beta * v[i], bwi = beta * w[i], gvi = g * v[i];
        for (size_t j = 0; j < n; j++)
            row[j] += -bvi * w[j] - bwi * v[j] + gvi * v[j];
    }
}

/* log10(max |s| / min |s|) of a list of singular values or eigenvalues. */
static double log10_ratio(const gsl_vector *s)
{
    double lo = INFINITY, hi = 0.0;
    for (size_t i = 0; i < s->size; i++) {
        double v = fabs(gsl_vector_get(s, i));
        if (v > hi)
            hi = v;
        if (v < lo)
            lo = v;
    }
    if (lo == 0.0)
        return INFINITY;
    return log10(hi / lo);
}

/* Condition number of the float matrix as stored. Small sides: GSL's SVD. Larger sides:
 * the matrix is symmetric, so its singular values are the absolute eigenvalues, and GSL's
 * symmetric eigensolver gets them ~20x faster than the SVD (which needs 22 s at 1024). */
static gpuest_err measure_cond(const float *m, size_t n, double *log10_cond, int *by_svd, gpuest_error_t *err)
{
    gsl_matrix *a = gsl_matrix_alloc(n, n);
    gsl_vector *s = gsl_vector_alloc(n);
    if (!a || !s) {
        gsl_matrix_free(a);
        gsl_vector_free(s);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory measuring a condition number");
    }
    for (size_t i = 0; i < n * n; i++)
        a->data[(i / n) * a->tda + i % n] = m[i];
    int status;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (n <= GPUEST_APPROX_SVD_MAX_SIDE) {
        gsl_matrix *v = gsl_matrix_alloc(n, n);
        gsl_vector *work = gsl_vector_alloc(n);
        status = (v && work) ? gsl_linalg_SV_decomp(a, v, s, work) : GSL_ENOMEM;
        gsl_matrix_free(v);
        gsl_vector_free(work);
        *by_svd = 1;
    } else {
        gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
        status = w ? gsl_eigen_symm(a, s, w) : GSL_ENOMEM;
        gsl_eigen_symm_free(w);
        *by_svd = 0;
    }
    gsl_set_error_handler(old);
    if (status == GSL_SUCCESS)
        *log10_cond = log10_ratio(s);
    gsl_matrix_free(a);
    gsl_vector_free(s);
    if (status != GSL_SUCCESS)
        return gpuest_fail(err, GPUEST_EIO, "GSL failed to measure a condition number: %s", gsl_strerror(status));
    return GPUEST_OK;
}

gpuest_err approx_cond_matrix(approx_ds_t *ds, float *m, size_t n, double log10_cond, gpuest_rng_t *rng,
                              gpuest_error_t *err)
{
    double *a = calloc(n * n + 2 * n, sizeof *a);
    if (!a)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory building a %zu x %zu matrix", n, n);
    double *v = a + n * n, *w = v + n;
    /* Symmetric positive definite: eigenvalues 10^(-c * t) for t evenly spread over [0, 1]
     * in random order, so the LU/Gaussian kernels (no pivoting, like Rodinia's) stay
     * stable and the condition number is exactly 10^c before rounding to float. */
    for (size_t i = 0; i < n; i++) {
        double t = n > 1 ? (double)i / (double)(n - 1) : 0.0;
        size_t j = (size_t)gpuest_rng_below(rng, i + 1); /* inside-out shuffle */
        a[i * n + i] = a[j * n + j];
        a[j * n + j] = pow(10.0, -log10_cond * t);
    }
    for (int r = 0; r < COND_REFLECTIONS; r++) {
        for (size_t i = 0; i < n; i++)
            v[i] = gpuest_rng_gaussian(rng, 1.0);
        reflect_both_sides(a, n, v, w);
    }
    /* Round symmetrically so the stored float matrix is exactly symmetric. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            float x = (float)(0.5 * (a[i * n + j] + a[j * n + i]));
            m[i * n + j] = x;
            m[j * n + i] = x;
        }
    free(a);
    return measure_cond(m, n, &ds->log10_cond, &ds->cond_measured, err);
}
