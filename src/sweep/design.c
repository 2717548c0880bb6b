/* design.c: the sampling designs in the unit cube (random, Latin hypercube, Sobol) and the map
 * from a unit coordinate to an axis value. */
#include <gsl/gsl_qrng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sweep/sweep.h"

static gpuest_err design_random(long rows, int dims, gpuest_rng_t *rng, double *out)
{
    for (long r = 0; r < rows; r++)
        for (int d = 0; d < dims; d++)
            out[r * dims + d] = gpuest_rng_uniform(rng);
    return GPUEST_OK;
}

/* Latin hypercube (McKay et al. 1979): in each dimension the rows fall one in each of `rows`
 * equal strata, in an independent random order, at a uniform position inside the stratum. */
static gpuest_err design_lhs(long rows, int dims, gpuest_rng_t *rng, double *out, gpuest_error_t *err)
{
    long *perm = malloc((size_t)rows * sizeof *perm);
    if (!perm)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (int d = 0; d < dims; d++) {
        for (long i = 0; i < rows; i++)
            perm[i] = i;
        for (long i = rows - 1; i > 0; i--) { /* Fisher-Yates */
            long j = (long)gpuest_rng_below(rng, (uint64_t)i + 1);
            long t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (long r = 0; r < rows; r++)
            out[r * dims + d] = ((double)perm[r] + gpuest_rng_uniform(rng)) / (double)rows;
    }
    free(perm);
    return GPUEST_OK;
}

/* GSL's Sobol sequence from its first point; no scrambling, so the seed does not enter. */
static gpuest_err design_sobol(long rows, int dims, double *out, gpuest_error_t *err)
{
    gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)dims);
    if (!q)
        return gpuest_fail(err, GPUEST_EINVAL, "sobol design: GSL refuses %d dimensions (1..40)", dims);
    for (long r = 0; r < rows; r++) {
        gsl_qrng_get(q, out + r * dims);
        for (int d = 0; d < dims; d++)
            if (out[r * dims + d] >= 1.0) /* keep [0, 1) so that a list's last value is not overrun */
                out[r * dims + d] = nextafter(1.0, 0.0);
    }
    gsl_qrng_free(q);
    return GPUEST_OK;
}

gpuest_err gpuest_sweep_design_unit(gpuest_sweep_design_t d, long rows, int dims, uint64_t seed, double *out,
                                    gpuest_error_t *err)
{
    if (rows < 1 || dims < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "design needs at least one row and one dimension");
    if (d == GPUEST_SWEEP_SOBOL)
        return design_sobol(rows, dims, out, err);
    gpuest_rng_t *rng = NULL;
    GPUEST_TRY(gpuest_rng_create(seed, &rng));
    gpuest_err rc = d == GPUEST_SWEEP_LHS      ? design_lhs(rows, dims, rng, out, err)
                    : d == GPUEST_SWEEP_RANDOM ? design_random(rows, dims, rng, out)
                                               : gpuest_fail(err, GPUEST_EINVAL, "not a sampling design");
    gpuest_rng_destroy(rng);
    return rc;
}

void gpuest_sweep_axis_value(const gpuest_sweep_axis_t *a, double u, char *buf, size_t cap)
{
    if (u < 0)
        u = 0;
    if (!a->continuous) {
        int i = (int)floor(u * a->nvalues);
        if (i >= a->nvalues)
            i = a->nvalues - 1;
        snprintf(buf, cap, "%s", a->values[i]);
    } else if (a->integer) {
        double v = a->lo + floor(u * (a->hi - a->lo + 1));
        if (v > a->hi)
            v = a->hi;
        snprintf(buf, cap, "%.0f", v);
    } else {
        gpuest_fmt_double(buf, cap, a->lo + u * (a->hi - a->lo));
    }
}
