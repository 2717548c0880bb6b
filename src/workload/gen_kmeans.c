/* gen_kmeans.c: Rodinia 3.1 Kmeans (kmeans/kmeans_cuda_kernel.cu invert_mapping + kmeansPoint), iterated until no point moves. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

#define KM_THREADS 256     /* THREADS_PER_BLOCK in kmeans_cuda_kernel.cu */
#define KM_FEAT_PER_FILL 10  /* invert_mapping: 3 instructions per feature */
#define KM_TERMS_PER_FILL 6   /* kmeansPoint: up to 7 instructions per term */
#define KM_MAX_LOOPS 500   /* the host loop's iteration cap */

typedef struct {
    int64_t np, nf, nc;
    gpuest_alloc_t *input, *features, *membership;
    float *clusters;           /* c_clusters (__constant__): nc x nf, host copy */
    int *host_member;          /* membership as the host keeps it between iterations */
    int launches;              /* launches begun */
    int iterations;            /* kmeansPoint launches */
    int64_t delta;             /* points that changed cluster in the last iteration */
    uint32_t grid_dim;         /* square grid side of kmeansPoint */
} km_t;

static gpuest_err km_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    km_t *m = calloc(1, sizeof *m);
    if (!m)
        return gpuest_fail(err, GPUEST_ENOMEM, "kmeans: out of memory");
    *out = m;
    m->np = gen_pick(scale, 1024, 16384, 494020);
    m->nf = 34;   /* kdd_cup features */
    m->nc = 5;    /* Rodinia's default min = max = 5 clusters */
    m->clusters = malloc((size_t)(m->nc * m->nf) * sizeof *m->clusters);
    m->host_member = malloc((size_t)m->np * sizeof *m->host_member);
    if (!m->clusters || !m->host_member)
        return gpuest_fail(err, GPUEST_ENOMEM, "kmeans: out of memory");
    uint64_t bytes = (uint64_t)(m->np * m->nf) * 4;
    GPUEST_TRY(gpuest_memimg_alloc(img, "feature_flipped_d", GPUEST_DT_FP32, bytes, &m->input, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "feature_d", GPUEST_DT_FP32, bytes, &m->features, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "membership_d", GPUEST_DT_INT32, (uint64_t)m->np * 4, &m->membership, err));
    gpuest_memimg_set_approx(m->input, 10);
    gpuest_memimg_set_approx(m->features, 10);
    /* Points from a mixture of 8 Gaussian blobs; features have different
     * scales (0..1 up to 0..1000), as in network-connection records. */
    float centre[8][64];
    float scale_f[64];
    for (int64_t f = 0; f < m->nf; f++)
        scale_f[f] = (float)(f % 4 == 0 ? 1000.0 : f % 4 == 1 ? 50.0 : f % 4 == 2 ? 5.0 : 1.0);
    for (int c = 0; c < 8; c++)
        for (int64_t f = 0; f < m->nf; f++)
            centre[c][f] = (float)gpuest_rng_uniform(rng) * scale_f[f];
    for (int64_t p = 0; p < m->np; p++) {
        int c = (int)gpuest_rng_below(rng, 8);
        for (int64_t f = 0; f < m->nf; f++) {
            float v = centre[c][f] + (float)gpuest_rng_gaussian(rng, 0.08 * scale_f[f]);
            GEN_AT(m->input, float, p * m->nf + f) = v < 0 ? 0 : v;
        }
        m->host_member[p] = -1;
    }
    /* Initial centres: the first nc points, as Rodinia's kmeans_clustering does. */
    for (int64_t c = 0; c < m->nc; c++)
        for (int64_t f = 0; f < m->nf; f++)
            m->clusters[c * m->nf + f] = GEN_AT(m->input, float, c * m->nf + f);
    int64_t blocks = (m->np + KM_THREADS - 1) / KM_THREADS;
    uint32_t side = 1;
    while ((int64_t)side * side < blocks)
        side++;
    m->grid_dim = side;
    return GPUEST_OK;
}

static void km_destroy(void *ctx)
{
    km_t *m = ctx;
    if (!m)
        return;
    free(m->clusters);
    free(m->host_member);
    free(m);
}

static gpuest_err km_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                 gpuest_error_t *err)
{
    (void)img, (void)err;
    km_t *m = ctx;
    uint32_t blocks = (uint32_t)((m->np + KM_THREADS - 1) / KM_THREADS);
    if (m->launches == 0) {
        gen_launch(l, "invert_mapping", blocks, 1, 1, KM_THREADS, 1, 1, 0, 10);
    } else {
        /* do { kmeansPoint; recompute centres } while (delta > threshold && loop++ < 500) */
        if (m->iterations > 0 && (m->delta == 0 || m->iterations > KM_MAX_LOOPS)) {
            *done = 1;
            return GPUEST_OK;
        }
        m->iterations++;
        gen_launch(l, "kmeansPoint", m->grid_dim, m->grid_dim, 1, KM_THREADS, 1, 1, 0, 20);
    }
    m->launches++;
    return GPUEST_OK;
}

/* The host side of one iteration: memberships from the kernel, then new centres. */
static void km_iterate(km_t *m)
{
    const float *feat = (const float *)(const void *)m->features->data;
    int32_t *mem = (int32_t *)(void *)m->membership->data;
    int64_t np = m->np, nf = m->nf, nc = m->nc;
    m->delta = 0;
    for (int64_t p = 0; p < np; p++) {
        int index = -1;
        float min_dist = FLT_MAX;
        for (int64_t c = 0; c < nc; c++) {
            float ans = 0;
            for (int64_t f = 0; f < nf; f++) {
                float d = feat[p + f * np] - m->clusters[c * nf + f];
                ans += d * d;
            }
            if (ans < min_dist) {
                min_dist = ans;
                index = (int)c;
            }
        }
        mem[p] = index;
        if (m->host_member[p] != index)
            m->delta++;
        m->host_member[p] = index;
    }
    double *sum = calloc((size_t)(nc * nf), sizeof *sum);
    int64_t *cnt = calloc((size_t)nc, sizeof *cnt);
    if (!sum || !cnt) {
        free(sum), free(cnt);
        return;
    }
    for (int64_t p = 0; p < np; p++) {
        cnt[mem[p]]++;
        for (int64_t f = 0; f < nf; f++)
            sum[mem[p] * nf + f] += feat[p + f * np];
    }
    for (int64_t c = 0; c < nc; c++)
        if (cnt[c] > 0)
            for (int64_t f = 0; f < nf; f++)
                m->clusters[c * nf + f] = (float)(sum[c * nf + f] / (double)cnt[c]);
    free(sum), free(cnt);
}

static gpuest_err km_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)err;
    km_t *m = ctx;
    if (strcmp(l->name, "invert_mapping") == 0) {
        for (int64_t p = 0; p < m->np; p++)
            for (int64_t f = 0; f < m->nf; f++)
                GEN_AT(m->features, float, p + m->np * f) = GEN_AT(m->input, float, p * m->nf + f);
    } else {
        km_iterate(m);
    }
    return GPUEST_OK;
}

static void km_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img;
    km_t *m = ctx;
    int64_t pt[32];
    uint32_t block_id = l->grid[0] * w->ctaid[1] + w->ctaid[0];
    for (int k = 0; k < 32; k++)
        pt[k] = (int64_t)block_id * KM_THREADS + w->tid0 + k;
    for (int k = 0; k < 32; k++)
        w->lane[0][k] = pt[k];
    w->v[0] = gen_mask_below(pt, w->live, m->np);
}

static gpuest_err km_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)err;
    km_t *m = ctx;
    uint32_t act = (uint32_t)w->v[0];
    int64_t idx[32];
    if (w->step == 0) {
        gen_alu(w, 0x00, 4, w->live);
        gen_compute(w, 0x20, GPUEST_LAT_BRANCH, w->live);
        w->step = 1;
        if (!act)
            w->finished = 1;
        return GPUEST_OK;
    }
    if (strcmp(l->name, "invert_mapping") == 0) {
        /* for (i < nfeatures) output[pt + np*i] = input[pt*nf + i] */
        int64_t f0 = (int64_t)w->step - 1;
        for (int64_t f = f0; f < m->nf && f < f0 + KM_FEAT_PER_FILL; f++) {
            for (int k = 0; k < 32; k++)
                idx[k] = w->lane[0][k] * m->nf + f;
            gen_mem_idx(w, 0x30, GPUEST_MEM_LOAD, 4, act, m->input->base, idx, 4);
            for (int k = 0; k < 32; k++)
                idx[k] = w->lane[0][k] + m->np * f;
            gen_mem_idx(w, 0x38, GPUEST_MEM_STORE, 4, act, m->features->base, idx, 4);
            gen_compute(w, 0x40, GPUEST_LAT_BRANCH, act);
        }
        w->step += KM_FEAT_PER_FILL;
        if ((int64_t)w->step - 1 >= m->nf)
            w->finished = 1;
        return GPUEST_OK;
    }
    /* kmeansPoint: step - 1 = c * nf + f over clusters c and features f. */
    int64_t pos = (int64_t)w->step - 1, total = m->nc * m->nf;
    if (pos >= total) {
        for (int k = 0; k < 32; k++)
            idx[k] = w->lane[0][k];
        gen_mem_idx(w, 0xa0, GPUEST_MEM_STORE, 4, act, m->membership->base, idx, 4);
        w->finished = 1;
        return GPUEST_OK;
    }
    for (int n = 0; n < KM_TERMS_PER_FILL && pos < total; n++, pos++) {
        int64_t f = pos % m->nf;
        for (int k = 0; k < 32; k++)
            idx[k] = w->lane[0][k] + f * m->np;
        gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, act, m->features->base, idx, 4);  /* tex1Dfetch(t_features) */
        gen_const(w, 0x58, act, (uint64_t)pos * 4, 4);                             /* c_clusters[c*nf + f] */
        gen_alu(w, 0x60, 2, act);
        if (f == m->nf - 1)
            gen_alu(w, 0x70, 3, act);   /* compare with min_dist, select index */
    }
    w->step = (uint64_t)pos + 1;
    return GPUEST_OK;
}

static const gpuest_gen_ops_t kmeans_ops_tab = {km_create, km_destroy, km_next_launch, km_end_launch,
                                                km_warp_init, km_fill};

const gpuest_generator_t gpuest_gen_kmeans = {"kmeans", "Rodinia", "Kmeans", "mining", "fp32",
    "Rodinia 3.1 kmeans/kmeans_cuda_kernel.cu invert_mapping + kmeansPoint (until no point moves)", &kmeans_ops_tab};
