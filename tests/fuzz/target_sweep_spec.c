/* target_sweep_spec.c: sweep specs (src/sweep, inih) as `gpuest sweep SPEC` reads them. A spec
 * that fails names the file; one that parses and is small enough is expanded into its points,
 * which either all resolve to valid machines or fail naming the spec; every point's hash is
 * distinct and the expansion is the same twice (ids, hashes). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sweep/sweep.h"

/* Points the spec makes, without expanding it (0 when it could be large). */
static size_t count_points(const gpuest_sweep_spec_t *s)
{
    size_t rows = 1;
    if (s->design != GPUEST_SWEEP_GRID && s->naxes > 0)
        rows = (size_t)s->points;
    else
        for (int a = 0; a < s->naxes && rows <= 4096; a++)
            rows *= (size_t)s->axes[a].nvalues;
    size_t lists = (size_t)s->workloads.n * (size_t)s->scales.n * (size_t)s->seeds.n * (size_t)s->techniques.n;
    return rows <= 4096 && lists <= 4096 && rows * lists <= 512 ? rows * lists : 0;
}

int gpuest_fuzz_sweep_spec(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write(0, "sweep.ini", data, size);
    const char *names[] = {path, NULL};
    gpuest_sweep_spec_t spec;
    gpuest_error_t err;
    gpuest_err rc = gpuest_sweep_spec_load(path, &spec, &err);
    fuzz_check_error("sweep_spec", rc, &err, names);
    if (rc != GPUEST_OK)
        return 0;
    /* a base configuration file is another input (its errors name it): not expanded here */
    if (spec.config_file[0] || count_points(&spec) == 0) {
        gpuest_sweep_spec_free(&spec);
        return 0;
    }
    gpuest_sweep_point_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    rc = gpuest_sweep_points(&spec, GPUEST_SWEEP_ESTIMATE, &a, &na, &err);
    fuzz_check_error("sweep_spec", rc, &err, names);
    if (rc == GPUEST_OK) {
        if (gpuest_sweep_points(&spec, GPUEST_SWEEP_ESTIMATE, &b, &nb, &err) != GPUEST_OK || nb != na)
            fuzz_finding("sweep_spec", "a second expansion of the same spec differs");
        for (size_t i = 0; i < na; i++)
            if (a[i].id != (long)i || strcmp(a[i].hash, b[i].hash) != 0)
                fuzz_finding("sweep_spec", "point %zu: id or hash differs between two expansions", i);
        gpuest_sweep_points_free(b, nb);
        gpuest_sweep_points_free(a, na);
    }
    gpuest_sweep_spec_free(&spec);
    return 0;
}
