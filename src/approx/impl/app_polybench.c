/* app_polybench.c: PolyBench/GPU ATAX, BICG and 2DCONV with truncated global-memory accesses. */
#include <stdlib.h>

#include "../approx_int.h"

/* Inputs are uniform in [0, 1) like PolyBench's positive initialisers. */
static gpuest_err matvec_generate(approx_ds_t *ds, gpuest_rng_t *rng, size_t vectors, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n * n, err));
    ds->na = n * n;
    approx_fill_uniform(ds->a, n * n, 0.0, 1.0, rng);
    GPUEST_TRY(approx_alloc_floats(&ds->b, n, err));
    ds->nb = n;
    approx_fill_uniform(ds->b, n, 0.0, 1.0, rng);
    if (vectors > 1) {
        GPUEST_TRY(approx_alloc_floats(&ds->c, n, err));
        ds->nc = n;
        approx_fill_uniform(ds->c, n, 0.0, 1.0, rng);
    }
    return GPUEST_OK;
}

/* Copies a host array into a device (approximable) region. */
static float *to_device(const float *host, size_t n, uint32_t mask)
{
    float *d = malloc((n ? n : 1) * sizeof *d);
    if (d)
        for (size_t i = 0; i < n; i++)
            approx_st(d, i, host[i], mask);
    return d;
}

/* ------------------------------------------------------------ ATAX: y = A^T (A x) */

static gpuest_err atax_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    return matvec_generate(ds, rng, 1, err);
}

static gpuest_err atax_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t n = (size_t)ds->params.size;
    float *a = to_device(ds->a, n * n, mask), *x = to_device(ds->b, n, mask);
    float *tmp = malloc(n * sizeof *tmp), *y = malloc(n * sizeof *y);
    if (!a || !x || !tmp || !y) {
        free(a), free(x), free(tmp), free(y);
        return GPUEST_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) { /* kernel 1: tmp = A x (tmp is an intermediate region) */
        float s = 0.0f;
        for (size_t j = 0; j < n; j++)
            s += approx_ld(a, i * n + j, mask) * approx_ld(x, j, mask);
        approx_st(tmp, i, s, mask);
    }
    for (size_t j = 0; j < n; j++) { /* kernel 2: y = A^T tmp (y is output, kept exact) */
        float s = 0.0f;
        for (size_t i = 0; i < n; i++)
            s += approx_ld(a, i * n + j, mask) * approx_ld(tmp, i, mask);
        y[j] = s;
    }
    free(a), free(x), free(tmp);
    out->values = y;
    out->nvalues = n;
    return GPUEST_OK;
}

const approx_app_ops_t approx_ops_atax = {atax_generate, atax_run, approx_score_mre};

/* ------------------------------------------------------------ BICG: s = A^T r, q = A p */

static gpuest_err bicg_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    return matvec_generate(ds, rng, 2, err);
}

static gpuest_err bicg_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t n = (size_t)ds->params.size;
    float *a = to_device(ds->a, n * n, mask), *r = to_device(ds->b, n, mask), *p = to_device(ds->c, n, mask);
    float *sq = malloc(2 * n * sizeof *sq); /* output: s then q */
    if (!a || !r || !p || !sq) {
        free(a), free(r), free(p), free(sq);
        return GPUEST_ENOMEM;
    }
    for (size_t j = 0; j < n; j++) { /* kernel 1: s = A^T r */
        float s = 0.0f;
        for (size_t i = 0; i < n; i++)
            s += approx_ld(r, i, mask) * approx_ld(a, i * n + j, mask);
        sq[j] = s;
    }
    for (size_t i = 0; i < n; i++) { /* kernel 2: q = A p */
        float q = 0.0f;
        for (size_t j = 0; j < n; j++)
            q += approx_ld(a, i * n + j, mask) * approx_ld(p, j, mask);
        sq[n + i] = q;
    }
    free(a), free(r), free(p);
    out->values = sq;
    out->nvalues = 2 * n;
    return GPUEST_OK;
}

const approx_app_ops_t approx_ops_bicg = {bicg_generate, bicg_run, approx_score_mre};

/* ------------------------------------------------------------ 2DCONV: 3x3 stencil */

static gpuest_err conv_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n * n, err));
    ds->na = n * n;
    approx_fill_uniform(ds->a, n * n, 0.0, 1.0, rng);
    return GPUEST_OK;
}

static gpuest_err conv_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    /* PolyBench's coefficients; the mixed signs make some outputs cancel, which is where
     * relative errors get large. */
    static const float c[3][3] = {{0.2f, -0.3f, 0.4f}, {0.5f, 0.6f, 0.7f}, {-0.8f, -0.9f, 0.10f}};
    size_t n = (size_t)ds->params.size, m = n > 2 ? n - 2 : 0;
    float *a = to_device(ds->a, n * n, mask), *b = malloc((m > 0 ? m * m : 1) * sizeof *b);
    if (!a || !b) {
        free(a), free(b);
        return GPUEST_ENOMEM;
    }
    for (size_t i = 1; i + 1 < n; i++)
        for (size_t j = 1; j + 1 < n; j++) {
            float s = 0.0f;
            for (size_t di = 0; di < 3; di++)
                for (size_t dj = 0; dj < 3; dj++)
                    s += c[di][dj] * approx_ld(a, (i + di - 1) * n + (j + dj - 1), mask);
            b[(i - 1) * m + (j - 1)] = s;
        }
    free(a);
    out->values = b;
    out->nvalues = m * m;
    return GPUEST_OK;
}

const approx_app_ops_t approx_ops_2dconv = {conv_generate, conv_run, approx_score_mre};
