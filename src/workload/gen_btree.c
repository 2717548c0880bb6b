/* gen_btree.c: Rodinia 3.1 B+tree (b+tree/kernel/kernel_gpu_cuda.cu findK), one query per CTA walking a level-ordered tree. */
#include <limits.h>
#include <stdlib.h>

#include "workload_int.h"

#define BT_ORDER 256                         /* DEFAULT_ORDER */
#define BT_THREADS 256                       /* min(order, 1024) threads per CTA */
/* struct knode { int location; int indices[257]; int keys[257]; bool is_leaf; int num_keys; } */
#define BT_OFF_INDICES 4
#define BT_OFF_KEYS (4 + 4 * (BT_ORDER + 1))
#define BT_OFF_ISLEAF (BT_OFF_KEYS + 4 * (BT_ORDER + 1))
#define BT_OFF_NUMKEYS (BT_OFF_ISLEAF + 4)
#define BT_KNODE_BYTES (BT_OFF_NUMKEYS + 4)
#define BT_MAX_LEVELS 8

typedef struct {
    int64_t nkeys, nnodes, queries;
    int height;                 /* loop iterations of findK: tree levels above the leaves */
    gpuest_alloc_t *knodes, *records, *curr, *offset, *keys, *ans;
    int launched;
} bt_t;

static int32_t *kn_int(bt_t *b, int64_t node, int off, int64_t i)
{
    return (int32_t *)(void *)(b->knodes->data + node * BT_KNODE_BYTES + off + 4 * i);
}

/* Builds the tree bottom-up: nodes hold 128..255 entries (as after random
 * inserts into an order-256 tree), numbered level by level from the root. */
static gpuest_err bt_build(bt_t *b, gpuest_memimg_t *img, const int32_t *key, gpuest_rng_t *rng,
                           gpuest_error_t *err)
{
    int64_t count[BT_MAX_LEVELS];       /* nodes per level, level 0 = leaves */
    int64_t *first[BT_MAX_LEVELS];      /* per node: index of its first entry in the level below (or key) */
    int levels = 0;
    int64_t entries = b->nkeys;
    gpuest_err rc = GPUEST_OK;
    for (;;) {
        int64_t *f = malloc((size_t)(entries + 1) * sizeof *f);
        if (!f) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "b+tree: out of memory");
            break;
        }
        int64_t n = 0, e = 0;
        while (e < entries) {
            int64_t fill = 128 + (int64_t)gpuest_rng_below(rng, 128);
            if (entries - e < fill + 128 && entries - e <= 255)
                fill = entries - e;   /* last node takes the rest */
            f[n++] = e;
            e += fill;
        }
        f[n] = entries;
        first[levels] = f;
        count[levels++] = n;
        if (n == 1 || levels == BT_MAX_LEVELS)
            break;
        entries = n;
    }
    if (rc == GPUEST_OK && count[levels - 1] != 1)
        rc = gpuest_fail(err, GPUEST_ERANGE, "b+tree: too many keys for %d levels", BT_MAX_LEVELS);
    /* Node numbers: root level first. */
    int64_t start[BT_MAX_LEVELS], total = 0;
    for (int l = levels - 1; rc == GPUEST_OK && l >= 0; l--) {
        start[l] = total;
        total += count[l];
    }
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "knodesD", GPUEST_DT_INT32, (uint64_t)(total * BT_KNODE_BYTES), &b->knodes, err);
    if (rc == GPUEST_OK) {
        b->nnodes = total;
        b->height = levels - 1;
        for (int l = 0; l < levels; l++)
            for (int64_t nd = 0; nd < count[l]; nd++) {
                int64_t id = start[l] + nd, e0 = first[l][nd], e1 = first[l][nd + 1];
                *kn_int(b, id, 0, 0) = (int32_t)id;
                for (int64_t i = 0; i <= BT_ORDER; i++) {
                    *kn_int(b, id, BT_OFF_KEYS, i) = INT_MAX;
                    *kn_int(b, id, BT_OFF_INDICES, i) = 0;
                }
                for (int64_t e = e0; e < e1; e++) {
                    /* the smallest key under entry e */
                    int64_t lo = e;
                    for (int d = l - 1; d >= 0; d--)
                        lo = first[d][lo];
                    *kn_int(b, id, BT_OFF_KEYS, e - e0) = key[lo];
                    *kn_int(b, id, BT_OFF_INDICES, e - e0) = (int32_t)(l == 0 ? e : start[l - 1] + e);
                }
                b->knodes->data[id * BT_KNODE_BYTES + BT_OFF_ISLEAF] = l == 0;
                *kn_int(b, id, BT_OFF_NUMKEYS, 0) = (int32_t)(e1 - e0);
            }
    }
    for (int l = 0; l < levels; l++)
        free(first[l]);
    return rc;
}

static gpuest_err bt_create(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **out,
                            gpuest_error_t *err)
{
    bt_t *b = calloc(1, sizeof *b);
    if (!b)
        return gpuest_fail(err, GPUEST_ENOMEM, "b+tree: out of memory");
    *out = b;
    b->nkeys = gen_pick(scale, 4096, 100000, 1000000);
    b->queries = gen_pick(scale, 64, 2000, 10000);
    int32_t *key = malloc((size_t)b->nkeys * sizeof *key);
    if (!key)
        return gpuest_fail(err, GPUEST_ENOMEM, "b+tree: out of memory");
    int32_t k = 0;
    for (int64_t i = 0; i < b->nkeys; i++) {
        k += 1 + (int32_t)gpuest_rng_below(rng, 8);
        key[i] = k;
    }
    gpuest_err rc = bt_build(b, img, key, rng, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "recordsD", GPUEST_DT_INT32, (uint64_t)b->nkeys * 4, &b->records, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "currKnodeD", GPUEST_DT_BYTES, (uint64_t)b->queries * 8, &b->curr, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "offsetD", GPUEST_DT_BYTES, (uint64_t)b->queries * 8, &b->offset, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "keysD", GPUEST_DT_INT32, (uint64_t)b->queries * 4, &b->keys, err);
    if (rc == GPUEST_OK)
        rc = gpuest_memimg_alloc(img, "ansD", GPUEST_DT_INT32, (uint64_t)b->queries * 4, &b->ans, err);
    if (rc == GPUEST_OK) {
        for (int64_t i = 0; i < b->nkeys; i++)
            GEN_AT(b->records, int32_t, i) = key[i] * 3 + 1;   /* the record's value */
        for (int64_t q = 0; q < b->queries; q++) {
            /* mostly keys that exist; one in ten a miss */
            int32_t v = key[gpuest_rng_below(rng, (uint64_t)b->nkeys)];
            GEN_AT(b->keys, int32_t, q) = gpuest_rng_below(rng, 10) == 0 ? v + 1 : v;
            GEN_AT(b->ans, int32_t, q) = -1;
        }
    }
    free(key);
    return rc;
}

static void bt_destroy(void *ctx) { free(ctx); }

static gpuest_err bt_next_launch(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *l, int *done,
                                 gpuest_error_t *err)
{
    (void)img, (void)err;
    bt_t *b = ctx;
    if (b->launched++) {
        *done = 1;
        return GPUEST_OK;
    }
    gen_launch(l, "findK", (uint32_t)b->queries, 1, 1, BT_THREADS, 1, 1, 0, 18);
    return GPUEST_OK;
}

/* The node findK visits at each level for query q: path[0] = root ... path[height] = leaf. */
static void bt_path(bt_t *b, int64_t q, int64_t *path)
{
    int32_t key = GEN_AT(b->keys, int32_t, q);
    int64_t cur = 0;
    path[0] = 0;
    for (int lv = 0; lv < b->height; lv++) {
        for (int t = 0; t < BT_THREADS; t++)
            if (*kn_int(b, cur, BT_OFF_KEYS, t) <= key && *kn_int(b, cur, BT_OFF_KEYS, t + 1) > key) {
                int32_t nxt = *kn_int(b, cur, BT_OFF_INDICES, t);
                if (nxt < b->nnodes)
                    cur = nxt;
                break;
            }
        path[lv + 1] = cur;
    }
}

static gpuest_err bt_end_launch(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bt_t *b = ctx;
    int64_t path[BT_MAX_LEVELS + 1];
    for (int64_t q = 0; q < b->queries; q++) {
        bt_path(b, q, path);
        int64_t leaf = path[b->height];
        ((int64_t *)(void *)b->curr->data)[q] = leaf;
        ((int64_t *)(void *)b->offset->data)[q] = leaf;
        for (int t = 0; t < BT_THREADS; t++)
            if (*kn_int(b, leaf, BT_OFF_KEYS, t) == GEN_AT(b->keys, int32_t, q))
                GEN_AT(b->ans, int32_t, q) = GEN_AT(b->records, int32_t, *kn_int(b, leaf, BT_OFF_INDICES, t));
    }
    return GPUEST_OK;
}

static void bt_warp_init(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w)
{
    (void)img, (void)l;
    bt_t *b = ctx;
    int64_t path[BT_MAX_LEVELS + 1];
    bt_path(b, w->ctaid[0], path);
    for (int lv = 0; lv <= b->height && lv < GEN_WARP_REGS; lv++)
        w->v[lv] = path[lv];
}

/* One lane-uniform access (every lane in mask reads addr). */
static void bt_bcast(gpuest_warp_t *w, uint32_t pc, gpuest_mem_op_t op, uint32_t size, uint32_t mask, uint64_t addr)
{
    gpuest_inst_t *i = gen_mem(w, pc, op, size, mask);
    for (int k = 0; i && k < 32; k++)
        if (mask >> k & 1)
            i->addr[k] = addr;
}

static gpuest_err bt_fill(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *l, gpuest_warp_t *w,
                          gpuest_error_t *err)
{
    (void)img, (void)l, (void)err;
    bt_t *b = ctx;
    uint64_t bid = w->ctaid[0];
    int32_t key = GEN_AT(b->keys, int32_t, bid);
    int lv = (int)w->step;
    int64_t cur = w->v[lv], idx[32];
    uint64_t node = b->knodes->base + (uint64_t)cur * BT_KNODE_BYTES;
    uint32_t all = w->live;
    if (lv == 0)
        gen_alu(w, 0x00, 4, all);
    bt_bcast(w, 0x20, GPUEST_MEM_LOAD, 8, all, b->curr->base + bid * 8);   /* currKnodeD[bid] */
    for (int k = 0; k < 32; k++)
        idx[k] = w->tid0 + k;
    gen_mem_idx(w, 0x28, GPUEST_MEM_LOAD, 4, all, node + BT_OFF_KEYS, idx, 4);   /* keys[thid] */
    bt_bcast(w, 0x30, GPUEST_MEM_LOAD, 4, all, b->keys->base + bid * 4);         /* keysD[bid] */
    gen_compute(w, 0x38, GPUEST_LAT_BRANCH, all);
    uint32_t le = 0, hit = 0, eq = 0;
    for (int k = 0; k < 32; k++) {
        int64_t t = w->tid0 + k;
        int32_t kt = *kn_int(b, cur, BT_OFF_KEYS, t);
        if (kt <= key) {
            le |= 1u << k;
            if (*kn_int(b, cur, BT_OFF_KEYS, t + 1) > key)
                hit |= 1u << k;
        }
        if (kt == key)
            eq |= 1u << k;
    }
    if (lv < b->height) {
        for (int k = 0; k < 32; k++)
            idx[k] = w->tid0 + k + 1;
        gen_mem_idx(w, 0x40, GPUEST_MEM_LOAD, 4, le & all, node + BT_OFF_KEYS, idx, 4);   /* keys[thid+1] */
        if (hit) {
            /* offsetD[bid] == currKnodeD[bid] at this point */
            bt_bcast(w, 0x48, GPUEST_MEM_LOAD, 8, hit, b->offset->base + bid * 8);
            for (int k = 0; k < 32; k++)
                idx[k] = w->tid0 + k;
            gen_mem_idx(w, 0x50, GPUEST_MEM_LOAD, 4, hit, node + BT_OFF_INDICES, idx, 4);
            gen_compute(w, 0x58, GPUEST_LAT_BRANCH, hit);
            bt_bcast(w, 0x60, GPUEST_MEM_STORE, 8, hit, b->offset->base + bid * 8);
        }
        gen_barrier(w, 0x68);
        if (w->tid0 == 0) { /* thid == 0: currKnodeD[bid] = offsetD[bid] */
            bt_bcast(w, 0x70, GPUEST_MEM_LOAD, 8, 1u, b->offset->base + bid * 8);
            bt_bcast(w, 0x78, GPUEST_MEM_STORE, 8, 1u, b->curr->base + bid * 8);
        }
        gen_barrier(w, 0x80);
        w->step++;
        return GPUEST_OK;
    }
    /* leaf: if (keys[thid] == keysD[bid]) ansD[bid].value = recordsD[indices[thid]].value */
    eq &= all;
    if (eq) {
        for (int k = 0; k < 32; k++)
            idx[k] = w->tid0 + k;
        gen_mem_idx(w, 0x90, GPUEST_MEM_LOAD, 4, eq, node + BT_OFF_INDICES, idx, 4);
        for (int k = 0; k < 32; k++)
            idx[k] = (eq >> k & 1) ? *kn_int(b, cur, BT_OFF_INDICES, w->tid0 + k) : 0;
        gen_mem_idx(w, 0x98, GPUEST_MEM_LOAD, 4, eq, b->records->base, idx, 4);
        gen_addr_from_load(w, 1); /* recordsD[indices[thid]] */
        bt_bcast(w, 0xa0, GPUEST_MEM_STORE, 4, eq, b->ans->base + bid * 4);
    }
    w->finished = 1;
    return GPUEST_OK;
}

static const gpuest_gen_ops_t btree_ops_tab = {bt_create, bt_destroy, bt_next_launch, bt_end_launch, bt_warp_init,
                                               bt_fill};

const gpuest_generator_t gpuest_gen_btree = {"btree", "Rodinia", "B+tree", "pointer", "int32",
    "Rodinia 3.1 b+tree/kernel/kernel_gpu_cuda.cu findK", &btree_ops_tab};
