/* app_misc.c: CUDA SDK ScalarProd, Rodinia SRAD v2 and Hybridsort with truncated accesses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../approx_int.h"

/* ------------------------------------------------------------ ScalarProd */

#define SP_VECTORS 256 /* Table 6.3: 256 vector pairs; --size is the elements per vector */

static gpuest_err sp_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size * SP_VECTORS;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n, err));
    GPUEST_TRY(approx_alloc_floats(&ds->b, n, err));
    ds->na = ds->nb = n;
    approx_fill_uniform(ds->a, n, 0.0, 1.0, rng); /* the SDK sample's rand() / RAND_MAX */
    approx_fill_uniform(ds->b, n, 0.0, 1.0, rng);
    return GPUEST_OK;
}

/* Each block reduces one pair in shared memory (not approximated); inputs are read from
 * approximable global memory; the results are the output. */
static gpuest_err sp_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t len = (size_t)ds->params.size;
    float *res = malloc(SP_VECTORS * sizeof *res);
    if (!res)
        return GPUEST_ENOMEM;
    for (size_t v = 0; v < SP_VECTORS; v++) {
        float s = 0.0f;
        for (size_t i = 0; i < len; i++)
            s += approx_ld(ds->a, v * len + i, mask) * approx_ld(ds->b, v * len + i, mask);
        res[v] = s;
    }
    out->values = res;
    out->nvalues = SP_VECTORS;
    return GPUEST_OK;
}

const approx_app_ops_t approx_ops_scalarprod = {sp_generate, sp_run, approx_score_nrmse};

/* ------------------------------------------------------------ SRAD v2 */

#define SRAD_ITERATIONS 2   /* Rodinia's run script */
#define SRAD_LAMBDA 0.5f

static gpuest_err srad_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n * n, err));
    ds->na = n * n;
    for (size_t i = 0; i < n * n; i++) /* Rodinia: J = exp(uniform) */
        ds->a[i] = (float)exp(gpuest_rng_uniform(rng));
    return GPUEST_OK;
}

/* Kernel 1 writes the four derivatives and the diffusion coefficient (intermediate
 * regions); kernel 2 reads them and updates the image J (input and intermediate). */
static gpuest_err srad_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t n = (size_t)ds->params.size, nn = n * n;
    float *j = malloc(nn * sizeof *j), *dn = malloc(nn * sizeof *dn), *ds_ = malloc(nn * sizeof *ds_);
    float *dw = malloc(nn * sizeof *dw), *de = malloc(nn * sizeof *de), *c = malloc(nn * sizeof *c);
    if (!j || !dn || !ds_ || !dw || !de || !c) {
        free(j), free(dn), free(ds_), free(dw), free(de), free(c);
        return GPUEST_ENOMEM;
    }
    for (size_t i = 0; i < nn; i++)
        approx_st(j, i, ds->a[i], mask);
    for (int it = 0; it < SRAD_ITERATIONS; it++) {
        /* Region-of-interest statistics over the whole image (host side). */
        double sum = 0.0, sum2 = 0.0;
        for (size_t i = 0; i < nn; i++) {
            double v = approx_ld(j, i, mask);
            sum += v;
            sum2 += v * v;
        }
        double mean = sum / (double)nn, var = sum2 / (double)nn - mean * mean;
        float q0sqr = (float)(var / (mean * mean));
        for (size_t r = 0; r < n; r++)
            for (size_t s = 0; s < n; s++) {
                size_t k = r * n + s;
                size_t rn = r ? r - 1 : 0, rs = r + 1 < n ? r + 1 : n - 1;
                size_t sw = s ? s - 1 : 0, se = s + 1 < n ? s + 1 : n - 1;
                float jc = approx_ld(j, k, mask);
                float vn = approx_ld(j, rn * n + s, mask) - jc, vs = approx_ld(j, rs * n + s, mask) - jc;
                float vw = approx_ld(j, r * n + sw, mask) - jc, ve = approx_ld(j, r * n + se, mask) - jc;
                float g2 = (vn * vn + vs * vs + vw * vw + ve * ve) / (jc * jc);
                float l = (vn + vs + vw + ve) / jc;
                float num = 0.5f * g2 - (1.0f / 16.0f) * l * l;
                float den = 1.0f + 0.25f * l;
                float qsqr = num / (den * den);
                den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
                float cv = 1.0f / (1.0f + den);
                cv = cv < 0.0f ? 0.0f : (cv > 1.0f ? 1.0f : cv);
                approx_st(dn, k, vn, mask), approx_st(ds_, k, vs, mask);
                approx_st(dw, k, vw, mask), approx_st(de, k, ve, mask);
                approx_st(c, k, cv, mask);
            }
        for (size_t r = 0; r < n; r++)
            for (size_t s = 0; s < n; s++) {
                size_t k = r * n + s;
                size_t rs = r + 1 < n ? r + 1 : n - 1, se = s + 1 < n ? s + 1 : n - 1;
                float cn = approx_ld(c, k, mask), cw = cn;
                float cs = approx_ld(c, rs * n + s, mask), ce = approx_ld(c, r * n + se, mask);
                float d = cn * approx_ld(dn, k, mask) + cs * approx_ld(ds_, k, mask) + cw * approx_ld(dw, k, mask) +
                          ce * approx_ld(de, k, mask);
                approx_st(j, k, approx_ld(j, k, mask) + 0.25f * SRAD_LAMBDA * d, mask);
            }
    }
    free(dn), free(ds_), free(dw), free(de), free(c);
    out->values = j;
    out->nvalues = nn;
    return GPUEST_OK;
}

const approx_app_ops_t approx_ops_srad2 = {srad_generate, srad_run, approx_score_nrmse};

/* ------------------------------------------------------------ Hybridsort */

#define HS_BUCKETS 1024 /* Rodinia's bucket sort stage */

static gpuest_err hs_generate(approx_ds_t *ds, gpuest_rng_t *rng, gpuest_error_t *err)
{
    size_t n = (size_t)ds->params.size;
    GPUEST_TRY(approx_alloc_floats(&ds->a, n, err));
    ds->na = n;
    approx_fill_uniform(ds->a, n, 0.0, 1.0, rng);
    return GPUEST_OK;
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Bucket sort into HS_BUCKETS ranges between min and max, then a sort inside every
 * bucket (Rodinia's merge sort stage). The input, the bucketed array and the merged
 * array are approximable regions. */
static gpuest_err hs_run(const approx_ds_t *ds, int bits, approx_output_t *out)
{
    const uint32_t mask = approx_mask(bits);
    size_t n = (size_t)ds->params.size;
    float *in = malloc(n * sizeof *in), *buck = malloc(n * sizeof *buck);
    size_t *count = calloc(HS_BUCKETS + 1, sizeof *count);
    unsigned *which = malloc(n * sizeof *which);
    if (!in || !buck || !count || !which) {
        free(in), free(buck), free(count), free(which);
        return GPUEST_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        approx_st(in, i, ds->a[i], mask);
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        float v = approx_ld(in, i, mask);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    float width = (hi - lo) / HS_BUCKETS;
    for (size_t i = 0; i < n; i++) {
        float v = approx_ld(in, i, mask);
        unsigned b = width > 0.0f ? (unsigned)((v - lo) / width) : 0u;
        which[i] = b >= HS_BUCKETS ? HS_BUCKETS - 1 : b;
        count[which[i] + 1]++;
    }
    for (size_t b = 0; b < HS_BUCKETS; b++)
        count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++)
        approx_st(buck, count[which[i]]++, approx_ld(in, i, mask), mask);
    /* count[b] now holds the end of bucket b; sort each bucket in place. */
    size_t start = 0;
    for (size_t b = 0; b < HS_BUCKETS; b++) {
        qsort(buck + start, count[b] - start, sizeof *buck, cmp_float);
        for (size_t i = start; i < count[b]; i++)
            approx_st(buck, i, approx_ld(buck, i, mask), mask);
        start = count[b];
    }
    free(in), free(count), free(which);
    out->values = buck;
    out->nvalues = n;
    return GPUEST_OK;
}

const approx_app_ops_t approx_ops_hybridsort = {hs_generate, hs_run, approx_score_nrmse};
