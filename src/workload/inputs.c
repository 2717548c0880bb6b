/* inputs.c: seeded input builders shared by the generators (power-law and road-like graphs, smooth fields). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

void gen_graph_free(gen_graph_t *g)
{
    free(g->row);
    free(g->col);
    memset(g, 0, sizeof *g);
}

/* Builds CSR from an undirected edge list (both directions stored). */
static gpuest_err csr_from_edges(int64_t n, const int32_t *eu, const int32_t *ev, int64_t ne, gen_graph_t *g,
                                 gpuest_error_t *err)
{
    g->n = n;
    g->m = 2 * ne;
    g->row = calloc((size_t)n + 1, sizeof *g->row);
    g->col = malloc((size_t)(g->m ? g->m : 1) * sizeof *g->col);
    int64_t *fill = calloc((size_t)n, sizeof *fill);
    if (!g->row || !g->col || !fill) {
        free(fill);
        gen_graph_free(g);
        return gpuest_fail(err, GPUEST_ENOMEM, "graph of %lld vertices: out of memory", (long long)n);
    }
    for (int64_t e = 0; e < ne; e++) {
        g->row[eu[e] + 1]++;
        g->row[ev[e] + 1]++;
    }
    for (int64_t i = 0; i < n; i++)
        g->row[i + 1] += g->row[i];
    for (int64_t e = 0; e < ne; e++) {
        g->col[g->row[eu[e]] + fill[eu[e]]++] = ev[e];
        g->col[g->row[ev[e]] + fill[ev[e]]++] = eu[e];
    }
    free(fill);
    return GPUEST_OK;
}

gpuest_err gen_graph_powerlaw(gpuest_rng_t *rng, int64_t n, double avg_deg, gen_graph_t *g, gpuest_error_t *err)
{
    memset(g, 0, sizeof *g);
    int64_t ne = (int64_t)(avg_deg * (double)n / 2.0);
    double *cum = malloc((size_t)n * sizeof *cum);
    int32_t *eu = malloc((size_t)(ne ? ne : 1) * sizeof *eu);
    int32_t *ev = malloc((size_t)(ne ? ne : 1) * sizeof *ev);
    if (!cum || !eu || !ev) {
        free(cum), free(eu), free(ev);
        return gpuest_fail(err, GPUEST_ENOMEM, "graph of %lld vertices: out of memory", (long long)n);
    }
    /* Chung-Lu: vertex weights from a Pareto law (exponent 2.3, capped at
     * sqrt(n) times the minimum), endpoints drawn in proportion to weight. */
    double cap = sqrt((double)n), total = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = pow(gpuest_rng_uniform_pos(rng), -1.0 / 1.3);
        total += w < cap ? w : cap;
        cum[i] = total;
    }
    int64_t k = 0;
    while (k < ne) {
        int32_t uv[2];
        for (int s = 0; s < 2; s++) {
            double x = gpuest_rng_uniform(rng) * total;
            int64_t lo = 0, hi = n - 1;
            while (lo < hi) {
                int64_t mid = (lo + hi) / 2;
                if (cum[mid] > x)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            uv[s] = (int32_t)lo;
        }
        if (uv[0] == uv[1])
            continue;
        eu[k] = uv[0], ev[k] = uv[1], k++;
    }
    free(cum);
    gpuest_err rc = csr_from_edges(n, eu, ev, ne, g, err);
    free(eu), free(ev);
    return rc;
}

gpuest_err gen_graph_grid(gpuest_rng_t *rng, int64_t w, int64_t h, gen_graph_t *g, gpuest_error_t *err)
{
    memset(g, 0, sizeof *g);
    int64_t n = w * h, cap = 2 * n + n / 8 + 1, ne = 0;
    int32_t *eu = malloc((size_t)cap * sizeof *eu), *ev = malloc((size_t)cap * sizeof *ev);
    if (!eu || !ev) {
        free(eu), free(ev);
        return gpuest_fail(err, GPUEST_ENOMEM, "grid graph %lldx%lld: out of memory", (long long)w, (long long)h);
    }
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            int64_t v = y * w + x;
            /* Roads: most lattice links exist, a few are missing. */
            if (x + 1 < w && gpuest_rng_uniform(rng) < 0.9)
                eu[ne] = (int32_t)v, ev[ne++] = (int32_t)(v + 1);
            if (y + 1 < h && gpuest_rng_uniform(rng) < 0.9)
                eu[ne] = (int32_t)v, ev[ne++] = (int32_t)(v + w);
            /* Rare local shortcut (a diagonal street). */
            if (x + 1 < w && y + 1 < h && gpuest_rng_uniform(rng) < 0.1)
                eu[ne] = (int32_t)v, ev[ne++] = (int32_t)(v + w + 1);
        }
    gpuest_err rc = csr_from_edges(n, eu, ev, ne, g, err);
    free(eu), free(ev);
    return rc;
}

void gen_field_f32(gpuest_rng_t *rng, float *out, int64_t w, int64_t h, float lo, float hi)
{
    /* Sum of a few random low-frequency waves plus small noise: neighbouring
     * values are close, as in a temperature map or photograph. */
    double ax[4], ay[4], ph[4], amp[4];
    for (int k = 0; k < 4; k++) {
        ax[k] = (gpuest_rng_uniform(rng) * 6.0 + 1.0) / (double)w;
        ay[k] = (gpuest_rng_uniform(rng) * 6.0 + 1.0) / (double)h;
        ph[k] = gpuest_rng_uniform(rng) * 6.283185307179586;
        amp[k] = gpuest_rng_uniform(rng);
    }
    double norm = amp[0] + amp[1] + amp[2] + amp[3] + 0.05;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += amp[k] * sin(6.283185307179586 * (ax[k] * (double)x + ay[k] * (double)y) + ph[k]);
            s += 0.05 * (gpuest_rng_uniform(rng) * 2.0 - 1.0);
            double t = 0.5 + 0.5 * s / norm;   /* in [0, 1] */
            out[y * w + x] = (float)(lo + (hi - lo) * t);
        }
}
