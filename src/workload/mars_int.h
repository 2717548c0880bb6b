/* mars_int.h: the Mars MapReduce runtime pieces shared by the Mars generators (gen_ss.c, gen_pvc.c). */
#ifndef GPUEST_WORKLOAD_MARS_INT_H
#define GPUEST_WORKLOAD_MARS_INT_H

#include "workload_int.h"

#define MARS_THREADS 256    /* dimBlockMap / dimBlockReduce */
#define MARS_MAX_BLOCKS 512 /* map grid cap; each thread then maps several records */

/* Runtime kernels in launch order; generators number their own kernels after MARS_SORT. */
enum { MARS_COUNT = 0, MARS_SCAN, MARS_MAP, MARS_SORT };

/* Map geometry over nrec records. */
typedef struct {
    int64_t nrec;
    uint32_t grid, rpt; /* map grid, records per thread */
    int64_t sort_n;     /* nrec padded to a power of two */
} mars_geom_t;

/* Per-map-thread key/value sizes and counts, and their exclusive prefix sums. */
typedef struct {
    gpuest_alloc_t *ksize, *vsize, *count, *psk, *psv, *psc;
} mars_counts_t;

/* One input array MapperCount reads per record: record q at base + q * bytes. */
typedef struct {
    const gpuest_alloc_t *alloc;
    uint32_t bytes;
} mars_input_t;

/* Bitonic network state: the (k, j) stage of the current bitonic_sort launch. */
typedef struct {
    int64_t k, j;
} mars_sort_t;

/* Whether the 4-byte keys at slots i and p (p > i) are out of order for direction up. */
typedef int (*mars_out_of_order_fn)(const void *keys, int64_t i, int64_t p, int up);

void mars_geometry(mars_geom_t *g, int64_t nrec);
static inline int64_t mars_threads(const mars_geom_t *g) { return (int64_t)g->grid * MARS_THREADS; }
/* Record handled by map thread t in round r: bid*rpt*256 + r*256 + tx. */
static inline int64_t mars_record(const mars_geom_t *g, int64_t t, uint32_t r)
{
    int64_t bid = t / MARS_THREADS, tx = t % MARS_THREADS;
    return bid * g->rpt * MARS_THREADS + (int64_t)r * MARS_THREADS + tx;
}

/* Allocates the six per-thread arrays; names[] names ksize, vsize and count (the prefix sums keep Mars's names). */
gpuest_err mars_alloc_counts(gpuest_memimg_t *img, const mars_geom_t *g, const char *const names[3],
                             mars_counts_t *c, gpuest_error_t *err);

/* Launch geometry of a runtime kernel (MARS_COUNT .. MARS_SORT); map_regs is the Mapper's register count. */
void mars_launch(gpuest_launch_t *l, int kernel, const mars_geom_t *g, uint32_t map_regs);

/* Functional results of MapperCount (key_bytes / val_bytes per record) and prefix_sum. */
void mars_end_count(const mars_geom_t *g, const mars_counts_t *c, int32_t key_bytes, int32_t val_bytes);
void mars_end_scan(const mars_geom_t *g, const mars_counts_t *c);
/* Output slot of map thread t's r-th record: its prefix-summed count plus earlier emitted records. */
int64_t mars_emit_slot(const mars_geom_t *g, const mars_counts_t *c, int64_t t, uint32_t r);

/* Bitonic sort (for k = 2..sort_n, for j = k/2..1): mars_sort_start sets the
 * first stage; mars_run_sort applies the current stage to keys (4 bytes each)
 * and vals (val_bytes each); mars_sort_advance steps to the next stage and
 * returns 1 when the stage just run was the last. */
void mars_sort_start(mars_sort_t *s);
void mars_run_sort(const mars_sort_t *s, int64_t sort_n, gpuest_alloc_t *keys, gpuest_alloc_t *vals,
                   size_t val_bytes, mars_out_of_order_fn out_of_order);
int mars_sort_advance(mars_sort_t *s, int64_t sort_n);

/* Mapper pieces. mars_map_round: the records q[] of round r of the lanes' map
 * threads t[]; returns the lanes that have one. mars_map_header: the round's
 * loop branch, then the thread's output offset and the record's inputs (pcs
 * 0x210 + 8 i); returns 0, finishing w, when no lane has a record.
 * mars_map_next_round: after the emit, on to the next round (or finished). */
uint32_t mars_map_round(const mars_geom_t *g, const int64_t *t, uint32_t r, uint32_t live, int64_t *q);
int mars_map_header(const mars_counts_t *c, const mars_input_t *in, int nin, uint32_t m, gpuest_warp_t *w,
                    const int64_t *t, const int64_t *q);
void mars_map_next_round(const mars_geom_t *g, gpuest_warp_t *w);

/* Warp streams of the runtime kernels (t[] = map thread of each lane). */
void mars_fill_count(const mars_geom_t *g, const mars_counts_t *c, const mars_input_t *in, int nin, gpuest_warp_t *w,
                     const int64_t *t);
void mars_fill_scan(const mars_counts_t *c, gpuest_warp_t *w, const int64_t *t);
void mars_fill_sort(const mars_sort_t *s, int64_t sort_n, const gpuest_alloc_t *keys, const gpuest_alloc_t *vals,
                    uint32_t val_bytes, mars_out_of_order_fn out_of_order, gpuest_warp_t *w, const gpuest_launch_t *l);

#endif
