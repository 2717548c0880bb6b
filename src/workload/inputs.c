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

/* The first vertex whose cumulative weight exceeds x (the last one when none does): the binary
 * search over [lo, hi] of the original form. */
static int64_t cum_search(const double *cum, int64_t lo, int64_t hi, double x)
{
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (cum[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* cum_search over the whole array, started from a bucket of the weight axis: start[b] is the first
 * vertex whose cumulative weight exceeds b x total / nb, so the answer for x in bucket b lies in
 * [start[b], start[b + 1]]. The bracket is checked against cum itself before it is used (floating
 * point may put x in a neighbouring bucket), and the whole array is searched when the check fails,
 * so the vertex is the whole search's, bit for bit; the search touches a few cache lines of an
 * array of n doubles instead of log2(n) scattered ones (bfs at default scale: 6 M draws over a
 * million vertices were 15 % of a sampled run's CPU, done once per generator instance). */
typedef struct {
    const double *cum;
    int64_t n, nb, *start;
    double per; /* buckets per unit of weight */
} cum_index_t;

static int cum_index_build(cum_index_t *ix, const double *cum, int64_t n)
{
    ix->cum = cum;
    ix->n = n;
    ix->nb = n;
    ix->start = malloc((size_t)(ix->nb + 1) * sizeof *ix->start);
    if (!ix->start || n < 1)
        return 0;
    double total = cum[n - 1];
    ix->per = total > 0 ? (double)ix->nb / total : 0;
    int64_t i = 0;
    for (int64_t b = 0; b <= ix->nb; b++) {
        double bnd = total * ((double)b / (double)ix->nb);
        while (i < n && !(cum[i] > bnd))
            i++;
        ix->start[b] = i;
    }
    return 1;
}

static int64_t cum_index_find(const cum_index_t *ix, double x)
{
    int64_t n = ix->n, b = (int64_t)(x * ix->per);
    if (b < 0 || b >= ix->nb || !(x * ix->per < (double)ix->nb))
        return cum_search(ix->cum, 0, n - 1, x);
    int64_t lo = ix->start[b], hi = ix->start[b + 1] < n - 1 ? ix->start[b + 1] : n - 1;
    if (lo > hi || (lo > 0 && ix->cum[lo - 1] > x) || (hi < n - 1 && !(ix->cum[hi] > x)))
        return cum_search(ix->cum, 0, n - 1, x); /* the bracket does not hold: the whole search */
    return cum_search(ix->cum, lo, hi, x);
}

gpuest_err gen_graph_powerlaw_paths(gpuest_rng_t *rng, int64_t n, double avg_deg, int slow, gen_graph_t *g,
                                    gpuest_error_t *err)
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
    cum_index_t ix = {0};
    int indexed = !slow && cum_index_build(&ix, cum, n);
    int64_t k = 0;
    while (k < ne) {
        int32_t uv[2];
        for (int s = 0; s < 2; s++) {
            double x = gpuest_rng_uniform(rng) * total;
            uv[s] = (int32_t)(indexed ? cum_index_find(&ix, x) : cum_search(cum, 0, n - 1, x));
        }
        if (uv[0] == uv[1])
            continue;
        eu[k] = uv[0], ev[k] = uv[1], k++;
    }
    free(ix.start);
    free(cum);
    gpuest_err rc = csr_from_edges(n, eu, ev, ne, g, err);
    free(eu), free(ev);
    return rc;
}

gpuest_err gen_graph_powerlaw(gpuest_rng_t *rng, int64_t n, double avg_deg, gen_graph_t *g, gpuest_error_t *err)
{
    return gen_graph_powerlaw_paths(rng, n, avg_deg, 0, g, err);
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
