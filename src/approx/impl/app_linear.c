/* app_linear.c: Rodinia LUD and Gaussian elimination on matrices with a chosen condition number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../approx_int.h"

/* ------------------------------------------------------------ LUD */

static gpuest_err lud_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n * n, err));
    ds->na = n * n;
    return approx_cond_matrix(ds, ds->a, n, ds->params.log10_cond, rng, err);
}

/* In-place LU without pivoting, as Rodinia's kernels do it: the matrix lives in an
 * approximable region and is read and written there at every elimination step. */
static gpuest_err lud_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t n = (size_t)ds->params.size;
    float *m = malloc(n * n * sizeof *m);
    if (!m)
        return GPUEST_ENOMEM;
    for (size_t i = 0; i < n * n; i++)
        approx_st(m, i, ds->a[i], mask);
    for (size_t k = 0; k < n; k++) {
        float pivot = approx_ld(m, k * n + k, mask);
        for (size_t i = k + 1; i < n; i++)
            approx_st(m, i * n + k, approx_ld(m, i * n + k, mask) / pivot, mask);
        for (size_t i = k + 1; i < n; i++) {
            float l = approx_ld(m, i * n + k, mask);
            for (size_t j = k + 1; j < n; j++)
                approx_st(m, i * n + j, approx_ld(m, i * n + j, mask) - l * approx_ld(m, k * n + j, mask), mask);
        }
    }
    out->values = m;
    out->nvalues = n * n;
    return GPUEST_OK;
}

/* Table 6.3: LUD is measured with mean relative error and NRMSE (Fig. 6.8). */
static void lud_score(const approx_ds_t *ds, const approx_output_t *e, const approx_output_t *a, double errors[2])
{
    (void)ds;
    errors[0] = gpuest_approx_mre(e->values, a->values, e->nvalues);
    errors[1] = gpuest_approx_nrmse(e->values, a->values, e->nvalues);
}

const approx_app_ops_t approx_ops_lud = {lud_generate, lud_run, lud_score};

/* ------------------------------------------------------------ Gaussian elimination */

static gpuest_err ge_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n * n, err));
    ds->na = n * n;
    GPUEST_TRY(approx_alloc_floats(&ds->b, n, err));
    ds->nb = n;
    GPUEST_TRY(approx_cond_matrix(ds, ds->a, n, ds->params.log10_cond, rng, err));
    approx_fill_uniform(ds->b, n, -1.0, 1.0, rng);
    return GPUEST_OK;
}

/* Rodinia gaussian: Fan1 writes the multipliers m, Fan2 updates a and b; a, b and m are
 * approximable regions. Back substitution runs on the host over the copied-back arrays. */
static gpuest_err ge_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t n = (size_t)ds->params.size;
    float *a = malloc(n * n * sizeof *a), *b = malloc(n * sizeof *b), *m = calloc(n * n, sizeof *m);
    double *x = malloc(n * sizeof *x);
    float *xf = malloc(n * sizeof *xf);
    if (!a || !b || !m || !x || !xf) {
        free(a), free(b), free(m), free(x), free(xf);
        return GPUEST_ENOMEM;
    }
    for (size_t i = 0; i < n * n; i++)
        approx_st(a, i, ds->a[i], mask);
    for (size_t i = 0; i < n; i++)
        approx_st(b, i, ds->b[i], mask);
    for (size_t t = 0; t + 1 < n; t++) {
        float piv = approx_ld(a, t * n + t, mask);
        for (size_t i = t + 1; i < n; i++) /* Fan1 */
            approx_st(m, i * n + t, approx_ld(a, i * n + t, mask) / piv, mask);
        for (size_t i = t + 1; i < n; i++) { /* Fan2 */
            float mi = approx_ld(m, i * n + t, mask);
            for (size_t j = t; j < n; j++)
                approx_st(a, i * n + j, approx_ld(a, i * n + j, mask) - mi * approx_ld(a, t * n + j, mask), mask);
            approx_st(b, i, approx_ld(b, i, mask) - mi * approx_ld(b, t, mask), mask);
        }
    }
    /* Host back substitution (Rodinia's BackSub) on the values copied back. */
    for (size_t r = n; r-- > 0;) {
        float s = b[r];
        for (size_t j = r + 1; j < n; j++)
            s -= a[r * n + j] * (float)x[j];
        x[r] = s / a[r * n + r];
        xf[r] = (float)x[r];
    }
    free(a), free(b), free(m), free(x);
    out->values = xf;
    out->nvalues = n;
    return GPUEST_OK;
}

static void ge_score(const approx_ds_t *ds, const approx_output_t *e, const approx_output_t *a, double errors[2])
{
    (void)ds;
    errors[0] = gpuest_approx_linf(e->values, a->values, e->nvalues);
    errors[1] = NAN;
}

const approx_app_ops_t approx_ops_gaussian = {ge_generate, ge_run, ge_score};
