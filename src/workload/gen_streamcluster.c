/* gen_streamcluster.c: Rodinia 3.1 Streamcluster (cuda/streamcluster/streamcluster_cuda.cu: kernel_compute_cost, one launch per pgain call). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

#define SC_THREADS 512      /* THREADS_PER_BLOCK */
#define SC_POINT_BYTES 32   /* struct Point {float weight; float *coord; long assign; float cost;} on LP64 */
#define SC_UNROLL 8         /* d_dist loop iterations emitted per fill call */
#define SC_KMAX 40          /* most open centers kept (work_mem is sized for it) */
#define SC_HOST_COORD UINT64_C(0x00007f3a10000000)  /* host address held in Point.coord */

typedef struct {
    int64_t num, dim;
    int calls, call;                   /* pgain calls to make, made */
    gpuest_alloc_t *coord, *p, *work, *ctab, *sw;
    float *pt;                         /* host copy of coordinates, point-major */
    float *cost, *weight;              /* host Point fields */
    int64_t *assign;
    unsigned char *is_center;
    int64_t *cand;                     /* candidate x of each call */
    int64_t x;                         /* candidate of the current launch */
    int k, stride;                     /* centers (K) and stride = K+1 of the current launch */
    float z;                           /* facility cost */
    int opened;                        /* pgain calls that opened their candidate */
} sc_t;

const gpuest_gen_ops_t gpuest_gen_streamcluster_ops;
const gpuest_generator_t gpuest_gen_streamcluster = {
    "streamcluster", "Rodinia", "Streamcluster", "mining", "fp32",
    "Rodinia 3.1 cuda/streamcluster/streamcluster_cuda.cu kernel_compute_cost (one launch per pgain call)",
    &gpuest_gen_streamcluster_ops};

static float sc_dist(const sc_t *s, int64_t a, int64_t b)
{
    float r = 0;
    for (int64_t i = 0; i < s->dim; i++) {
        float t = s->pt[a * s->dim + i] - s->pt[b * s->dim + i];
        r += t * t;
    }
    return r;
}

/* Points from a mixture of 8 Gaussian clusters in the unit cube (Rodinia's
 * default stream is uniform noise, which has no cluster structure to find). */
static void sc_points(sc_t *s, gpuest_rng_t *rng)
{
    float centre[8][64];
    int64_t d = s->dim < 64 ? s->dim : 64;
    for (int c = 0; c < 8; c++)
        for (int64_t i = 0; i < d; i++)
            centre[c][i] = (float)gpuest_rng_uniform(rng);
    for (int64_t p = 0; p < s->num; p++) {
        int c = (int)gpuest_rng_below(rng, 8);
        for (int64_t i = 0; i < s->dim; i++)
            s->pt[p * s->dim + i] = centre[c][i % 64] + (float)gpuest_rng_gaussian(rng, 0.05);
    }
}

/* Initial solution in the spirit of pspeedy: point 0 is a centre; each point
 * in turn opens as a centre with probability cost/z, else joins its nearest. */
static void sc_initial(sc_t *s, gpuest_rng_t *rng)
{
    float total = 0;
    for (int64_t i = 0; i < s->num; i++)
        total += sc_dist(s, i, 0);
    s->z = total / 10.0f;
    int open = 1;
    s->is_center[0] = 1;
    for (int64_t i = 0; i < s->num; i++) {
        s->weight[i] = 1.0f;
        s->assign[i] = 0;
        s->cost[i] = sc_dist(s, i, 0);
    }
    for (int64_t i = 1; i < s->num && open < SC_KMAX / 2; i++)
        if (gpuest_rng_uniform(rng) < s->cost[i] / s->z) {
            s->is_center[i] = 1;
            open++;
            for (int64_t j = 0; j < s->num; j++) {
                float d = sc_dist(s, j, i);
                if (d < s->cost[j])
                    s->cost[j] = d, s->assign[j] = i;
            }
        }
}

static gpuest_err sc_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    sc_t *s = calloc(1, sizeof *s);
    if (!s)
        return gpuest_fail(err, GPUEST_ENOMEM, "streamcluster: out of memory");
    *out = s;
    s->num = gen_pick(scale, 1024, 8192, 65536);
    s->dim = gen_pick(scale, 8, 32, 32);
    s->calls = (int)gen_pick(scale, 3, 6, 20);
    uint64_t n = (uint64_t)s->num;
    s->pt = malloc(n * (uint64_t)s->dim * sizeof *s->pt);
    s->cost = malloc(n * sizeof *s->cost);
    s->weight = malloc(n * sizeof *s->weight);
    s->assign = malloc(n * sizeof *s->assign);
    s->is_center = calloc(n, 1);
    s->cand = malloc((size_t)s->calls * sizeof *s->cand);
    if (!s->pt || !s->cost || !s->weight || !s->assign || !s->is_center || !s->cand)
        return gpuest_fail(err, GPUEST_ENOMEM, "streamcluster: out of memory");
    GPUEST_TRY(gpuest_memimg_alloc(img, "coord_d", GPUEST_DT_FP32, n * (uint64_t)s->dim * 4, &s->coord, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "p", GPUEST_DT_BYTES, n * SC_POINT_BYTES, &s->p, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "work_mem_d", GPUEST_DT_FP32, n * (SC_KMAX + 2) * 4, &s->work, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "center_table_d", GPUEST_DT_INT32, n * 4, &s->ctab, err));
    GPUEST_TRY(gpuest_memimg_alloc(img, "switch_membership_d", GPUEST_DT_BYTES, n, &s->sw, err));
    sc_points(s, rng);
    for (int64_t p = 0; p < s->num; p++) /* transposed: coord_d[i*num + p] */
        for (int64_t i = 0; i < s->dim; i++)
            GEN_AT(s->coord, float, i * s->num + p) = s->pt[p * s->dim + i];
    sc_initial(s, rng);
    for (int c = 0; c < s->calls; c++) /* pFL draws candidates at random */
        s->cand[c] = (int64_t)gpuest_rng_below(rng, n);
    return GPUEST_OK;
}

static void sc_destroy(void *ctx)
{
    sc_t *s = ctx;
    if (!s)
        return;
    free(s->pt), free(s->cost), free(s->weight), free(s->assign), free(s->is_center), free(s->cand);
    free(s);
}

/* Host side before the launch: center table, zeroed work memory and switch
 * flags, Point array copied to the device. */
static void sc_upload(sc_t *s)
{
    int32_t *ctab = (int32_t *)(void *)s->ctab->data;
    int count = 0;
    for (int64_t i = 0; i < s->num; i++)
        if (s->is_center[i])
            ctab[i] = count++;
    s->k = count;
    s->stride = count + 1;
    memset(s->work->data, 0, (size_t)s->work->size);
    memset(s->sw->data, 0, (size_t)s->sw->size);
    for (int64_t i = 0; i < s->num; i++) {
        unsigned char *rec = s->p->data + i * SC_POINT_BYTES;
        uint64_t cp = SC_HOST_COORD + (uint64_t)(i * s->dim) * 4;
        int64_t as = s->assign[i];
        memset(rec, 0, SC_POINT_BYTES);
        memcpy(rec, &s->weight[i], 4);
        memcpy(rec + 8, &cp, 8);
        memcpy(rec + 16, &as, 8);
        memcpy(rec + 24, &s->cost[i], 4);
    }
}

static gpuest_err sc_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done, gpuest_error_t *err)
{
    (void)img, (void)err;
    sc_t *s = ctx;
    if (s->call >= s->calls) {
        *done = 1;
        return GPUEST_OK;
    }
    s->x = s->cand[s->call];
    sc_upload(s);
    gen_launch(l, "kernel_compute_cost", (uint32_t)((s->num + SC_THREADS - 1) / SC_THREADS), 1, 1, SC_THREADS, 1, 1,
               0, 20);
    return GPUEST_OK;
}

/* The kernel's effect, then the host part of pgain(): the gain of opening x
 * and closing the centres whose points would all move. */
static gpuest_err sc_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l;
    sc_t *s = ctx;
    float *work = (float *)(void *)s->work->data;
    const int32_t *ctab = (const int32_t *)(const void *)s->ctab->data;
    int64_t st = s->stride, K = s->k;
    for (int64_t t = 0; t < s->num; t++) {
        float xc = sc_dist(s, t, s->x) * s->weight[t];
        if (xc < s->cost[t]) {
            s->sw->data[t] = 1;
            work[t * st + K] += xc - s->cost[t];
        } else {
            work[t * st + ctab[s->assign[t]]] += s->cost[t] - xc;
        }
    }
    float *lower = calloc((size_t)K + 1, sizeof *lower);
    if (!lower)
        return gpuest_fail(err, GPUEST_ENOMEM, "streamcluster: out of memory");
    float gain = s->z;
    int close = 0;
    for (int64_t i = 0; i < s->num; i++) {
        if (s->is_center[i]) {
            float low = s->z;
            for (int64_t j = 0; j < s->num; j++)
                low += work[j * st + ctab[i]];
            lower[ctab[i]] = low;
            if (low > 0) {
                close++;
                work[i * st + K] -= low;
            }
        }
        gain += work[i * st + K];
    }
    if (gain < 0 && K + 1 - close <= SC_KMAX) {
        for (int64_t i = 0; i < s->num; i++)
            if (s->sw->data[i] || lower[ctab[s->assign[i]]] > 0) {
                s->cost[i] = sc_dist(s, i, s->x) * s->weight[i];
                s->assign[i] = s->x;
            }
        for (int64_t i = 0; i < s->num; i++)
            if (s->is_center[i] && lower[ctab[i]] > 0)
                s->is_center[i] = 0;
        s->is_center[s->x] = 1;
        s->opened++;
    }
    free(lower);
    s->call++;
    return GPUEST_OK;
}

static void sc_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)ctx, (void)img, (void)l, (void)w;
}

static gpuest_err sc_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    sc_t *s = ctx;
    int64_t tid[32], a[32], b[32];
    for (int k = 0; k < 32; k++)
        tid[k] = (int64_t)w->ctaid[0] * SC_THREADS + w->tid0 + k;
    uint32_t act = gen_mask_below(tid, w->live, s->num);
    if (w->step == 0) {
        gen_alu(w, 0x00, 4, w->live);
        gen_compute(w, 0x10, GPUEST_LAT_BRANCH, w->live);
        w->step = act ? 1 : 2;
        if (!act)
            w->finished = 1;
        return GPUEST_OK;
    }
    if (w->step == 1) { /* d_dist: coord_d[i*num + tid] - coord_d[i*num + x] */
        for (int it = 0; it < SC_UNROLL && w->v[0] < s->dim; it++, w->v[0]++) {
            for (int k = 0; k < 32; k++) {
                a[k] = w->v[0] * s->num + tid[k];
                b[k] = w->v[0] * s->num + s->x;
            }
            gen_mem_idx(w, 0x20, GPUEST_MEM_LOAD, 4, act, s->coord->base, a, 4);
            gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, act, s->coord->base, b, 4);
            gen_compute(w, 0x30, GPUEST_LAT_ALU, act);
            gen_compute(w, 0x34, GPUEST_LAT_ALU, act);
            gen_compute(w, 0x38, GPUEST_LAT_BRANCH, act);
        }
        if (w->v[0] >= s->dim)
            w->step = 2;
        return GPUEST_OK;
    }
    /* x_cost = dist * p[tid].weight; if (x_cost < p[tid].cost) ... else ... */
    uint32_t lt = 0;
    for (int k = 0; k < 32; k++)
        if ((act >> k & 1) && sc_dist(s, tid[k], s->x) * s->weight[tid[k]] < s->cost[tid[k]])
            lt |= 1u << k;
    uint32_t ge = act & ~lt;
    gen_mem_idx(w, 0x40, GPUEST_MEM_LOAD, 4, act, s->p->base, tid, SC_POINT_BYTES);
    gen_compute(w, 0x44, GPUEST_LAT_ALU, act);
    gen_mem_idx(w, 0x48, GPUEST_MEM_LOAD, 4, act, s->p->base + 24, tid, SC_POINT_BYTES);
    gen_compute(w, 0x4c, GPUEST_LAT_BRANCH, act);
    const int32_t *ctab = (const int32_t *)(const void *)s->ctab->data;
    for (int k = 0; k < 32; k++) {
        a[k] = tid[k] * s->stride + s->k;                       /* lower[K] */
        b[k] = (ge >> k & 1) ? s->assign[tid[k]] : 0;           /* p[tid].assign */
    }
    gen_mem_idx(w, 0x50, GPUEST_MEM_STORE, 1, lt, s->sw->base, tid, 1);
    gen_mem_idx(w, 0x58, GPUEST_MEM_LOAD, 4, lt, s->work->base, a, 4);
    if (lt)
        gen_compute(w, 0x5c, GPUEST_LAT_ALU, lt);
    gen_mem_idx(w, 0x60, GPUEST_MEM_STORE, 4, lt, s->work->base, a, 4);
    gen_mem_idx(w, 0x68, GPUEST_MEM_LOAD, 8, ge, s->p->base + 16, tid, SC_POINT_BYTES);
    gen_mem_idx(w, 0x70, GPUEST_MEM_LOAD, 4, ge, s->ctab->base, b, 4);
    for (int k = 0; k < 32; k++)
        a[k] = (ge >> k & 1) ? tid[k] * s->stride + ctab[b[k]] : 0;   /* lower[center_table[assign]] */
    gen_mem_idx(w, 0x78, GPUEST_MEM_LOAD, 4, ge, s->work->base, a, 4);
    if (ge)
        gen_compute(w, 0x7c, GPUEST_LAT_ALU, ge);
    gen_mem_idx(w, 0x80, GPUEST_MEM_STORE, 4, ge, s->work->base, a, 4);
    w->finished = 1;
    return GPUEST_OK;
}

const gpuest_gen_ops_t gpuest_gen_streamcluster_ops = {sc_create, sc_destroy, sc_next_launch, sc_end_launch,
                                                       sc_warp_init, sc_fill};
