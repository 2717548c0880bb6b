/* workload_int.h: private interface between the workload framework and its generators / trace readers. */
#ifndef GPUEST_WORKLOAD_INT_H
#define GPUEST_WORKLOAD_INT_H

#include <stdio.h>
#include <string.h>

#include "workload/workload.h"

/* Instructions a generator may emit in one fill call. */
#define GEN_BUF 64
/* Per-lane scratch registers of a warp (loop counters, bounds). */
#define GEN_LANE_REGS 4
#define GEN_WARP_REGS 12

/* The state of one warp being generated. Generators keep their position in
 * step/v/lane and append instructions to buf in fill(); the framework hands
 * them out one at a time and calls fill() again when buf runs dry. */
struct gpuest_warp_s {
    gpuest_workload_t *wl;
    uint32_t cta;                  /* linear CTA id */
    uint32_t warp;                 /* warp within the CTA */
    uint32_t ctaid[3];             /* blockIdx */
    uint32_t tid0;                 /* linear thread id (in the CTA) of lane 0 */
    uint32_t live;                 /* lanes that have a thread (tid < threads per CTA) */
    uint64_t step;                 /* generator-defined position */
    int64_t v[GEN_WARP_REGS];      /* generator-defined warp registers */
    int64_t lane[GEN_LANE_REGS][GPUEST_WARP_SIZE]; /* generator-defined per-lane registers */
    int finished;                  /* set by fill() when no more instructions follow */
    /* 1 while gpuest_warp_count walks the warp: the fills that follow skip writing per-lane
     * addresses (gen_mem_idx), which counting never reads; every other field is written as usual */
    int count_only;
    /* default register pattern (workload.c, generated workloads only) */
    uint8_t rp_alu;                /* ALU temporaries written so far */
    uint8_t rp_ld;                 /* load destinations written so far (mod 256, a multiple of the rotation) */
    uint8_t rp_nld;                /* the same, saturating at 255 */
    uint8_t rp_nfresh;             /* loaded values not yet read by an ALU instruction */
    uint8_t rp_fresh[GPUEST_INST_MAX_SRC];
    int n, pos;                    /* buffered instructions, next to hand out */
    uint8_t addr_dep[GEN_BUF];     /* buf[i]'s address is the value of the load addr_dep[i] loads back (0: none) */
    gpuest_inst_t buf[GEN_BUF];
};

/* Generator / trace-reader operations. ctx is the generator's own state. */
typedef struct gpuest_gen_ops_s {
    /* Builds inputs into img from rng at scale; returns ctx. */
    gpuest_err (*create)(gpuest_memimg_t *img, gpuest_scale_t scale, gpuest_rng_t *rng, void **ctx,
                         gpuest_error_t *err);
    void (*destroy)(void *ctx);
    /* Decides the next launch from the current image (data-dependent kernels run
     * the real algorithm here or in end_launch). Sets *done when none is left.
     * The framework fills the derived fields (num_ctas, ...) of launch. */
    gpuest_err (*next_launch)(void *ctx, gpuest_memimg_t *img, gpuest_launch_t *launch, int *done,
                              gpuest_error_t *err);
    /* Applies the finished launch's writes to img. */
    gpuest_err (*end_launch)(void *ctx, gpuest_memimg_t *img, const gpuest_launch_t *launch, gpuest_error_t *err);
    /* Prepares w (fields wl..live already set) for the current launch. */
    void (*warp_init)(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *launch, gpuest_warp_t *w);
    /* Appends at most GEN_BUF instructions to w->buf (w->n); sets w->finished
     * when the warp has no more. May append nothing only when finishing. */
    gpuest_err (*fill)(void *ctx, const gpuest_memimg_t *img, const gpuest_launch_t *launch, gpuest_warp_t *w,
                       gpuest_error_t *err);
} gpuest_gen_ops_t;

/* Internal constructor shared by generators and trace readers: takes ownership of img and ctx. */
gpuest_err wl_create_from_ops(const char *name, const gpuest_generator_t *gen, const gpuest_gen_ops_t *ops,
                              gpuest_memimg_t *img, void *ctx, gpuest_workload_t **out, gpuest_error_t *err);
void wl_set_warning(gpuest_workload_t *wl, const char *text);

/* ------------------------------------------------------------ emit helpers */

/* Per-lane thread index (threadIdx) of lane in w for a launch's block shape. */
static inline void gen_thread_idx(const gpuest_launch_t *l, const gpuest_warp_t *w, int lane, uint32_t *tx,
                                  uint32_t *ty, uint32_t *tz)
{
    uint32_t t = w->tid0 + (uint32_t)lane;
    *tx = t % l->block[0];
    *ty = (t / l->block[0]) % l->block[1];
    *tz = t / (l->block[0] * l->block[1]);
}

/* Appends an instruction with every field but the addresses set; pc is a byte
 * offset and no register operand is set. */
static inline gpuest_inst_t *gen_push_raw(gpuest_warp_t *w, gpuest_inst_kind_t kind, uint32_t pc, uint32_t mask,
                                          gpuest_lat_class_t lat, gpuest_mem_op_t op, uint32_t size)
{
    w->addr_dep[w->n] = 0;
    gpuest_inst_t *i = &w->buf[w->n++];
    i->kind = kind;
    i->pc = pc;
    i->active_mask = mask;
    i->lat = lat;
    i->op = op;
    i->size = size;
    i->ndst = i->nsrc = 0;
    return i;
}

/* Same for generators. Their pcs are byte offsets in the kernel's code, 8
 * bytes (GPUEST_GEN_INST_BYTES) apart between the instructions a generator
 * names; the ALU runs of gen_alu take the next byte offsets after their
 * leading pc, so they stay in its instruction-cache line. Registers are left
 * to the default pattern of gpuest_warp_next (docs/workload.md). */
static inline gpuest_inst_t *gen_push(gpuest_warp_t *w, gpuest_inst_kind_t kind, uint32_t pc, uint32_t mask,
                                      gpuest_lat_class_t lat, gpuest_mem_op_t op, uint32_t size)
{
    return gen_push_raw(w, kind, pc, mask, lat, op, size);
}

static inline void gen_compute(gpuest_warp_t *w, uint32_t pc, gpuest_lat_class_t lat, uint32_t mask)
{
    gen_push(w, GPUEST_INST_COMPUTE, pc, mask, lat, GPUEST_MEM_LOAD, 0);
}

/* Marks the instruction just emitted as addressed by a loaded value: the one
 * of the load `back` loads earlier (1: the latest), as in a pointer chase
 * (BFS's visited[edges[i]], SpMV's x[cols[j]]); the default register pattern
 * then makes it read that load's destination. */
static inline void gen_addr_from_load(gpuest_warp_t *w, int back)
{
    if (w->n > 0 && back > 0)
        w->addr_dep[w->n - 1] = (uint8_t)back;
}

/* Read of a __constant__ array: every lane in mask reads size bytes at the
 * same offset of the constant space (a uniform index, the common case). */
static inline void gen_const(gpuest_warp_t *w, uint32_t pc, uint32_t mask, uint64_t offset, uint32_t size)
{
    gpuest_inst_t *i = gen_push(w, GPUEST_INST_COMPUTE, pc, mask, GPUEST_LAT_CONST, GPUEST_MEM_LOAD, size);
    for (int k = 0; k < GPUEST_WARP_SIZE; k++)
        i->addr[k] = (mask >> k & 1) ? offset : 0;
}

/* n ALU instructions with consecutive pcs starting at pc. */
static inline void gen_alu(gpuest_warp_t *w, uint32_t pc, int n, uint32_t mask)
{
    for (int k = 0; k < n; k++)
        gen_compute(w, pc + (uint32_t)k, GPUEST_LAT_ALU, mask);
}

static inline void gen_barrier(gpuest_warp_t *w, uint32_t pc)
{
    gen_push(w, GPUEST_INST_BARRIER, pc, w->live, GPUEST_LAT_ALU, GPUEST_MEM_LOAD, 0);
}

/* Starts a memory instruction; the caller fills addr[] for the lanes in mask
 * (inactive lanes are zeroed here). Returns NULL (nothing emitted) for mask 0. */
static inline gpuest_inst_t *gen_mem(gpuest_warp_t *w, uint32_t pc, gpuest_mem_op_t op, uint32_t size,
                                     uint32_t mask)
{
    if (mask == 0)
        return NULL;
    gpuest_inst_t *i = gen_push(w, GPUEST_INST_MEM, pc, mask, GPUEST_LAT_ALU, op, size);
    memset(i->addr, 0, sizeof i->addr);
    return i;
}

/* Memory instruction where lane k (in mask) accesses base + idx[k]*elem (one pass, no memset). */
static inline void gen_mem_idx(gpuest_warp_t *w, uint32_t pc, gpuest_mem_op_t op, uint32_t size, uint32_t mask,
                               uint64_t base, const int64_t *idx, uint64_t elem)
{
    if (mask == 0)
        return;
    gpuest_inst_t *i = gen_push(w, GPUEST_INST_MEM, pc, mask, GPUEST_LAT_ALU, op, size);
    if (w->count_only) /* counted, never read: the address stores were most of a counting fill's time */
        return;
    for (int k = 0; k < GPUEST_WARP_SIZE; k++)
        i->addr[k] = (mask >> k & 1) ? base + (uint64_t)idx[k] * elem : 0;
}

/* Lanes of w whose linear global index value (computed by the caller) is below n. */
static inline uint32_t gen_mask_below(const int64_t *idx, uint32_t mask, int64_t n)
{
    uint32_t m = 0;
    for (int k = 0; k < GPUEST_WARP_SIZE; k++)
        if ((mask & (1u << k)) && idx[k] >= 0 && idx[k] < n)
            m |= 1u << k;
    return m;
}

/* Scale-dependent size: tiny / small / default. */
static inline int64_t gen_pick(gpuest_scale_t s, int64_t tiny, int64_t small, int64_t def)
{
    return s == GPUEST_SCALE_TINY ? tiny : s == GPUEST_SCALE_SMALL ? small : def;
}

/* Fills a launch's geometry fields. */
static inline void gen_launch(gpuest_launch_t *l, const char *name, uint32_t gx, uint32_t gy, uint32_t gz,
                              uint32_t bx, uint32_t by, uint32_t bz, uint32_t shmem, uint32_t regs)
{
    snprintf(l->name, sizeof l->name, "%s", name);
    l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = gz;
    l->block[0] = bx, l->block[1] = by, l->block[2] = bz;
    l->shmem_bytes = shmem;
    l->regs_per_thread = regs;
}

/* Reads a typed element of an allocation (host-side functional execution). */
#define GEN_AT(alloc, type, i) (((type *)(void *)(alloc)->data)[(i)])

/* gpuest_coalesce without its one-line fast path: the lane loop alone (the same requests;
 * tests/workload/test_coalesce_fast.c compares the two). */
size_t gpuest_coalesce_slow(const gpuest_inst_t *inst, gpuest_line_req_t out[GPUEST_COALESCE_MAX]);

/* Graph / matrix input builders shared by generators (inputs.c). */
typedef struct {
    int64_t n;          /* vertices */
    int64_t m;          /* directed edges (each undirected edge stored twice) */
    int64_t *row;       /* n+1 offsets */
    int32_t *col;       /* m targets */
} gen_graph_t;

/* Power-law degree graph (avg degree about avg_deg), undirected, no self loops. */
gpuest_err gen_graph_powerlaw(gpuest_rng_t *rng, int64_t n, double avg_deg, gen_graph_t *g, gpuest_error_t *err);
/* gen_graph_powerlaw with slow 1: every endpoint by a binary search over the whole cumulative
 * weights (the path the bucket index replaced; the same graph, tests/workload/test_graph_index.c) */
gpuest_err gen_graph_powerlaw_paths(gpuest_rng_t *rng, int64_t n, double avg_deg, int slow, gen_graph_t *g,
                                    gpuest_error_t *err);
/* Road-like grid: w x h lattice with a fraction of extra local shortcuts. */
gpuest_err gen_graph_grid(gpuest_rng_t *rng, int64_t w, int64_t h, gen_graph_t *g, gpuest_error_t *err);
void gen_graph_free(gen_graph_t *g);

/* Spatially correlated image in [lo, hi): smoothed random field. */
void gen_field_f32(gpuest_rng_t *rng, float *out, int64_t w, int64_t h, float lo, float hi);

/* ------------------------------------------------------------ stored traces (trace_store.c)
 * A trace read from a file keeps every instruction; addresses of memory
 * instructions are pooled (one per active lane, lane order). */
typedef struct {
    uint8_t kind, lat, op, size;
    uint32_t pc, mask;
    uint8_t ndst, nsrc;
    uint8_t dst[GPUEST_INST_MAX_DST], src[GPUEST_INST_MAX_SRC];
    uint64_t addr_off;        /* first address in the pool (instructions with addresses) */
} tr_inst_t;

typedef struct {
    tr_inst_t *insts;
    size_t n, cap;
} tr_warp_t;

typedef struct {
    gpuest_launch_t l;        /* derived fields filled by tr_add_kernel */
    tr_warp_t *warps;         /* num_ctas * warps_per_cta, CTA-major */
} tr_kernel_t;

typedef struct {
    tr_kernel_t *k;
    size_t nk, capk;
    uint64_t *addr;
    size_t naddr, capaddr;
    size_t next;              /* next kernel to launch */
} tr_trace_t;

extern const gpuest_gen_ops_t gpuest_trace_ops;   /* ctx = tr_trace_t */
tr_trace_t *tr_new(void);
void tr_free(tr_trace_t *t);
/* Adds a launch (geometry in l) and returns it. */
gpuest_err tr_add_kernel(tr_trace_t *t, const gpuest_launch_t *l, tr_kernel_t **out, gpuest_error_t *err);
/* Appends an instruction to warp (cta, warp) of kernel k; addr holds one entry per lane (MEM only). */
gpuest_err tr_add_inst(tr_trace_t *t, tr_kernel_t *k, uint32_t cta, uint32_t warp, const gpuest_inst_t *in,
                       gpuest_error_t *err);
/* Parses a whole hexadecimal field (optional 0x prefix) of a trace file; returns 0 when it is not one. */
int tr_parse_hex(const char *s, uint64_t *out);
/* ERANGE when a warp announcing n instructions could not be held within the memory limit. */
gpuest_err tr_check_insts(const tr_trace_t *t, uint64_t n, gpuest_error_t *err);

/* ------------------------------------------------------------ PageRank's arithmetic (gen_pagerank.c)
 * Shared with its test. pagerank1: every vertex v (ascending, edges in CSR order) adds
 * pr1[v]/deg(v) to pr2[col[e]]; row has n entries, the last vertex ends at m. pagerank2:
 * pr1 = 0.15/n + 0.85 pr2 (in double, rounded to float), then pr2 = 0. */
void gen_pagerank1(int64_t n, int64_t m, const int32_t *row, const int32_t *col, const float *pr1, float *pr2);
void gen_pagerank2(int64_t n, float *pr1, float *pr2);

#endif
