/* workload.h: memory image, kernel launches as lazy warp instruction streams, coalescer, generators, trace readers. */
#ifndef GPUEST_WORKLOAD_H
#define GPUEST_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"   /* gpuest_err, gpuest_error_t, gpuest_rng_t */

#ifdef __cplusplus
extern "C" {
#endif

#define GPUEST_WARP_SIZE 32
#define GPUEST_LINE_BYTES 128
#define GPUEST_SECTOR_BYTES 32
#define GPUEST_SECTORS_PER_LINE 4
#define GPUEST_WL_NAME_MAX 64
/* Most line requests one warp instruction can produce: 32 lanes, each access
 * may straddle a line boundary, and 8/16-byte accesses are split in sub-warps. */
#define GPUEST_COALESCE_MAX 64

/* ================================================================ memory image
 * The global memory of the modelled program: named allocations placed like
 * cudaMalloc (512-byte aligned, increasing addresses from GPUEST_MEMIMG_BASE),
 * each holding the real values the algorithm keeps there. Addresses outside
 * every allocation read as zero. */

#define GPUEST_MEMIMG_BASE UINT64_C(0x0000000100000000)
#define GPUEST_MEMIMG_ALIGN 512

typedef enum {
    GPUEST_DT_INT32 = 0,
    GPUEST_DT_UINT32 = 1,
    GPUEST_DT_FP32 = 2,
    GPUEST_DT_FP64 = 3,
    GPUEST_DT_BYTES = 4     /* raw bytes: bools, chars, structs */
} gpuest_dtype_t;

const char *gpuest_dtype_name(gpuest_dtype_t t);            /* "int32", "uint32", "fp32", "fp64", "bytes" */
gpuest_err gpuest_dtype_parse(const char *s, gpuest_dtype_t *out);
size_t gpuest_dtype_size(gpuest_dtype_t t);                 /* 4, 4, 4, 8, 1 */

/* One allocation. Fields are read-only to users except through the functions
 * below; data may be written in place by whoever owns the image (generators). */
typedef struct {
    char name[GPUEST_WL_NAME_MAX];
    uint64_t base;          /* device virtual address of byte 0 */
    uint64_t size;          /* bytes */
    gpuest_dtype_t type;    /* element type of the contents */
    int approximable;       /* 1: DSM+APPROX may truncate mantissas here */
    int approx_bits;        /* mantissa bits that may be dropped (0 when not approximable) */
    unsigned char *data;    /* size bytes, owned by the image, malloc-aligned */
} gpuest_alloc_t;

typedef struct gpuest_memimg_s gpuest_memimg_t;

/* Memory one workload may take for what its input declares (image bytes, per-warp trace tables,
 * announced instructions). A declaration beyond it fails with ERANGE naming the limit before
 * anything is allocated, instead of exhausting the machine. Default: the machine's physical
 * memory. Process-wide (the fuzz harness lowers it to stay inside its own memory budget). */
void gpuest_workload_set_memory_limit(uint64_t bytes);
uint64_t gpuest_workload_memory_limit(void);

gpuest_err gpuest_memimg_create(gpuest_memimg_t **out, gpuest_error_t *err);
void gpuest_memimg_destroy(gpuest_memimg_t *img);
/* New zero-filled allocation at the next aligned address; *out (may be NULL)
 * stays valid until the image is destroyed. Duplicate names are an error. */
gpuest_err gpuest_memimg_alloc(gpuest_memimg_t *img, const char *name, gpuest_dtype_t type, uint64_t size,
                               gpuest_alloc_t **out, gpuest_error_t *err);
/* Same at a fixed base (traces). Overlap with an existing allocation is an error. */
gpuest_err gpuest_memimg_alloc_at(gpuest_memimg_t *img, const char *name, gpuest_dtype_t type, uint64_t base,
                                  uint64_t size, gpuest_alloc_t **out, gpuest_error_t *err);
/* Marks an allocation approximable with bits mantissa bits (0 clears the flag). */
void gpuest_memimg_set_approx(gpuest_alloc_t *a, int bits);
size_t gpuest_memimg_count(const gpuest_memimg_t *img);
gpuest_alloc_t *gpuest_memimg_get(const gpuest_memimg_t *img, size_t index);   /* allocation order */
gpuest_alloc_t *gpuest_memimg_find_name(const gpuest_memimg_t *img, const char *name);
/* Allocation holding byte addr, or NULL. */
gpuest_alloc_t *gpuest_memimg_find(const gpuest_memimg_t *img, uint64_t addr);
/* Copies the 128 bytes of the line containing addr into out (zeros where no
 * allocation); returns the allocation holding the line's first backed byte, or
 * NULL when the whole line is unbacked. */
const gpuest_alloc_t *gpuest_memimg_read_line(const gpuest_memimg_t *img, uint64_t addr,
                                              unsigned char out[GPUEST_LINE_BYTES]);
/* Byte-range read/write across allocations; unbacked bytes read as zero,
 * writes to unbacked bytes are an error. */
void gpuest_memimg_read(const gpuest_memimg_t *img, uint64_t addr, void *dst, size_t n);
gpuest_err gpuest_memimg_write(gpuest_memimg_t *img, uint64_t addr, const void *src, size_t n, gpuest_error_t *err);
/* 0 when the image carries no real values (a trace without an image file). */
int gpuest_memimg_has_values(const gpuest_memimg_t *img);
void gpuest_memimg_set_has_values(gpuest_memimg_t *img, int has_values);

/* ================================================================ instructions */

typedef enum {
    GPUEST_INST_END = 0,     /* the warp has no more instructions (not an instruction) */
    GPUEST_INST_COMPUTE = 1, /* ALU/SFU/shared-memory work, latency given by lat */
    GPUEST_INST_MEM = 2,     /* global memory access through L1 */
    GPUEST_INST_BARRIER = 3  /* __syncthreads(): wait for every warp of the CTA */
} gpuest_inst_kind_t;

/* Latency class of a compute instruction (the simulator maps each to cycles). */
typedef enum {
    GPUEST_LAT_ALU = 0,      /* integer / single-precision add, mul, logic, moves */
    GPUEST_LAT_SFU = 1,      /* transcendental, division, double precision */
    GPUEST_LAT_SHMEM = 2,    /* shared-memory load/store */
    GPUEST_LAT_CONST = 3,    /* constant-cache read (__constant__ arrays) */
    GPUEST_LAT_BRANCH = 4    /* control flow */
} gpuest_lat_class_t;

typedef enum {
    GPUEST_MEM_LOAD = 0,
    GPUEST_MEM_STORE = 1,
    GPUEST_MEM_ATOMIC = 2    /* read-modify-write performed at L2 */
} gpuest_mem_op_t;

const char *gpuest_mem_op_name(gpuest_mem_op_t op);         /* "load", "store", "atomic" */

/* Registers of an instruction: R0..R254 (R255 is the zero register RZ and
 * never creates a dependence). A warp's scoreboard tracks writes to them. */
#define GPUEST_REG_COUNT 256
#define GPUEST_REG_ZERO 255
#define GPUEST_INST_MAX_DST 2
#define GPUEST_INST_MAX_SRC 4
/* Bytes of one instruction in generated code (Fermi's 64-bit SASS encoding):
 * the spacing of the pcs generators give their instructions. */
#define GPUEST_GEN_INST_BYTES 8

/* One dynamic warp instruction. For GPUEST_INST_MEM, addr[i] is lane i's byte
 * address when bit i of active_mask is set (else 0); each lane accesses size
 * bytes from addr[i]. Texture fetches are reported as loads. A COMPUTE
 * instruction of class GPUEST_LAT_CONST with size > 0 is a constant-memory read:
 * addr[i] are then byte offsets in the 64 KB constant space (size 0: no address
 * known, the constant cache is taken to hit). */
typedef struct {
    gpuest_inst_kind_t kind;
    uint32_t pc;                 /* byte offset of the instruction in its kernel's code */
    uint32_t active_mask;        /* bit i = lane i executes it */
    gpuest_lat_class_t lat;      /* COMPUTE only */
    gpuest_mem_op_t op;          /* MEM only */
    uint32_t size;               /* MEM (and constant reads): bytes per lane, 1, 2, 4, 8 or 16 */
    uint8_t ndst, nsrc;          /* register operands (0 each: none) */
    uint8_t dst[GPUEST_INST_MAX_DST];
    uint8_t src[GPUEST_INST_MAX_SRC];
    uint64_t addr[GPUEST_WARP_SIZE];
} gpuest_inst_t;

/* 1 when inst carries addresses in addr[] (memory instructions, constant reads). */
static inline int gpuest_inst_has_addr(const gpuest_inst_t *inst)
{
    return inst->kind == GPUEST_INST_MEM || (inst->kind == GPUEST_INST_COMPUTE && inst->lat == GPUEST_LAT_CONST && inst->size > 0);
}

/* ================================================================ coalescer
 * Fermi-style rules (documented in docs/workload.md):
 *  1. Lanes are split into sub-warps by access size: 32 lanes for 1, 2 and 4
 *     bytes, 16 for 8 bytes, 8 for 16 bytes; sub-warps are handled in order.
 *  2. Within a sub-warp, one request per distinct 128-byte line touched by an
 *     active lane's bytes [addr, addr+size) (a straddling lane touches two).
 *  3. The sector mask of a request is the OR of the 32-byte sectors those
 *     bytes cover (bit s = bytes 32s..32s+31 of the line).
 *  4. Requests come out in order of the first lane (then byte) touching them.
 * Loads, stores and atomics coalesce alike. */
typedef struct {
    uint64_t line;       /* byte address of the line (multiple of 128) */
    uint8_t sectors;     /* 4-bit sector mask, never 0 */
    uint32_t lanes;      /* lanes served by this request */
} gpuest_line_req_t;

/* Returns the number of requests written to out (0 for a non-memory
 * instruction or an empty mask). */
size_t gpuest_coalesce(const gpuest_inst_t *inst, gpuest_line_req_t out[GPUEST_COALESCE_MAX]);
int gpuest_sector_count(uint8_t sectors);   /* popcount of the 4-bit mask */

/* ================================================================ workloads
 * A workload is a memory image plus a sequence of kernel launches. Launches are
 * produced one at a time because the next may depend on the results of the
 * previous one (BFS levels, Kmeans iterations): the generator runs the real
 * algorithm on the image when a launch ends.
 *
 * Protocol:
 *   gpuest_workload_next_launch(wl, &launch, &done)      -> launch k begins
 *   for any CTA c < launch.num_ctas, warp w < launch.warps_per_cta, in any order
 *   and interleaving: gpuest_warp_open / gpuest_warp_next ... END / gpuest_warp_close
 *   gpuest_workload_end_launch(wl)                       -> results written to the image
 *   ... until done.
 * During a launch the image holds the values as of the launch's start; the
 * kernel's writes are applied at end_launch (next_launch ends a launch still
 * open). Warps are generated lazily from a few counters, so memory does not
 * grow with the number of instructions. Warps of one launch may be open at the
 * same time; all must be closed before end_launch. */

typedef struct {
    char name[GPUEST_WL_NAME_MAX];   /* kernel name, e.g. "bfs_kernel1" */
    uint32_t index;                  /* 0-based launch number in the workload */
    uint32_t grid[3];                /* CTAs per dimension */
    uint32_t block[3];               /* threads per dimension */
    uint32_t shmem_bytes;            /* shared memory per CTA */
    uint32_t regs_per_thread;
    uint32_t regs_per_cta;           /* regs_per_thread x threads, as the occupancy calculator counts */
    uint32_t num_ctas;               /* grid[0]*grid[1]*grid[2] */
    uint32_t threads_per_cta;        /* block[0]*block[1]*block[2] */
    uint32_t warps_per_cta;          /* ceil(threads_per_cta / 32) */
} gpuest_launch_t;

typedef enum {
    GPUEST_SCALE_TINY = 0,     /* a few CTAs: unit tests, hand checks */
    GPUEST_SCALE_SMALL = 1,    /* seconds: characterization table, CI */
    GPUEST_SCALE_DEFAULT = 2   /* the documents' input sizes */
} gpuest_scale_t;

const char *gpuest_scale_name(gpuest_scale_t s);
gpuest_err gpuest_scale_parse(const char *s, gpuest_scale_t *out);

typedef struct gpuest_workload_s gpuest_workload_t;
typedef struct gpuest_warp_s gpuest_warp_t;

/* Generator description (one per gen_<name>.c, listed in the registry table). */
struct gpuest_gen_ops_s;
typedef struct {
    const char *name;         /* CLI name, e.g. "bfs" */
    const char *suite;        /* "Rodinia", "PolyBench", "Parboil", "Mars", "Pannotia", "CUDA SDK" */
    const char *benchmark;    /* benchmark name as the suite spells it */
    const char *category;     /* graph, stencil, reuse, mining, dynprog, mapreduce, pointer, streaming */
    const char *data_type;    /* main element type: int32, fp32, ... */
    const char *kernel_source;/* original kernel(s) followed: suite path and function names */
    const struct gpuest_gen_ops_s *ops;
} gpuest_generator_t;

/* NULL-terminated, in table order. */
extern const gpuest_generator_t *const gpuest_generators[];
size_t gpuest_generator_count(void);
/* NULL when unknown. */
const gpuest_generator_t *gpuest_generator_find(const char *name);

/* Builds a generated workload (inputs made from seed at the given scale).
 * Unknown name -> GPUEST_ENOKEY with the valid names in the message. */
gpuest_err gpuest_workload_create(const char *name, gpuest_scale_t scale, uint64_t seed, gpuest_workload_t **out,
                                  gpuest_error_t *err);
/* Accel-Sim / NVBit trace folder: dir/kernelslist.g + the kernel-N.traceg it
 * names. Everything is parsed and checked before returning; no values exist, so
 * the image is zero and gpuest_workload_warning() says so. */
gpuest_err gpuest_workload_open_accelsim(const char *dir, gpuest_workload_t **out, gpuest_error_t *err);
/* Native CSV trace (format in docs/workload.md); image_path (may be NULL) is the
 * raw memory-image file holding the contents of the declared allocations. */
gpuest_err gpuest_workload_open_csv(const char *path, const char *image_path, gpuest_workload_t **out,
                                    gpuest_error_t *err);
/* Writes a workload (all its launches, run to completion) as a native CSV trace,
 * and, when image_path is not NULL, the initial image as a raw image file. */
gpuest_err gpuest_workload_write_csv(gpuest_workload_t *wl, const char *path, const char *image_path,
                                     gpuest_error_t *err);
void gpuest_workload_destroy(gpuest_workload_t *wl);

/* Warp instructions (END excluded) of every launch of wl, for progress
 * reports. Traces count their stored instructions; a generated workload runs
 * the front end of a fresh copy (same generator, scale and seed) to its end,
 * a few percent of a detailed simulation's time. wl itself is not advanced. */
gpuest_err gpuest_workload_count_insts(const gpuest_workload_t *wl, uint64_t *total, gpuest_error_t *err);
const char *gpuest_workload_name(const gpuest_workload_t *wl);
/* The generator behind a generated workload, NULL for traces. */
const gpuest_generator_t *gpuest_workload_generator(const gpuest_workload_t *wl);
gpuest_memimg_t *gpuest_workload_image(gpuest_workload_t *wl);
/* A warning for the user (e.g. "trace has no data values"), or NULL. */
const char *gpuest_workload_warning(const gpuest_workload_t *wl);

/* Begins the next launch; *done = 1 (and launch untouched) when there is none. */
gpuest_err gpuest_workload_next_launch(gpuest_workload_t *wl, gpuest_launch_t *launch, int *done,
                                       gpuest_error_t *err);
gpuest_err gpuest_workload_end_launch(gpuest_workload_t *wl, gpuest_error_t *err);

/* Opens warp `warp` of CTA `cta` (linear: x fastest) of the current launch. */
gpuest_err gpuest_warp_open(gpuest_workload_t *wl, uint32_t cta, uint32_t warp, gpuest_warp_t **out,
                            gpuest_error_t *err);
/* Next instruction in program order; inst->kind == GPUEST_INST_END when finished
 * (and on every later call). */
gpuest_err gpuest_warp_next(gpuest_warp_t *w, gpuest_inst_t *inst, gpuest_error_t *err);
void gpuest_warp_close(gpuest_warp_t *w);
/* What gpuest_warp_next would hand out from here to the END, counted without handing it out:
 * *warp_insts instructions (END excluded) and *thread_insts their active lanes (popcount of
 * active_mask) added to the two totals. The warp is left finished. Sampled simulation's counting
 * pass (sim/sample.c) walks every instruction of a workload once before it samples; this skips
 * the per-instruction copy and the register naming that counting does not need. */
gpuest_err gpuest_warp_count(gpuest_warp_t *w, uint64_t *warp_insts, uint64_t *thread_insts, gpuest_error_t *err);

/* Front-end speed: runs launches of wl (all, or the first max_launches),
 * generating every warp to its end and coalescing every memory instruction,
 * as a simulator's front end would. Times are this thread's CPU time. */
typedef struct {
    uint64_t launches, warps, insts, mem_insts, line_requests;
    double next_s;   /* in next_launch (data-dependent launch decisions) */
    double gen_s;    /* generating warps and coalescing */
    double end_s;    /* in end_launch (the kernels' host-side algorithms) */
} gpuest_workload_speed_t;

gpuest_err gpuest_workload_measure(gpuest_workload_t *wl, uint64_t max_launches, gpuest_workload_speed_t *out,
                                   gpuest_error_t *err);
/* This thread's CPU time in seconds (the clock of gpuest_workload_measure). */
double gpuest_workload_cpu_s(void);

/* ================================================================ characterization
 * Per-kernel statistics of a workload's request stream, computed without a
 * timing model: CTAs are spread round-robin over num_sms SMs, up to
 * ctas_per_sm (and warps_per_sm warps) resident each, and resident warps issue one instruction each in
 * turn. Line generations are tracked in a per-SM LRU cache of l1_lines lines
 * (assoc ways) to measure sector use until eviction. */
typedef struct {
    int num_sms;             /* default 15 */
    int ctas_per_sm;         /* default 8 */
    int warps_per_sm;        /* default 48: fewer CTAs are resident when they are large */
    int l1_lines;            /* default 128 (16 KB of 128-byte lines) */
    int l1_assoc;            /* default 4 */
    int share_window;        /* inter-core sharing window in line requests, default 1024 */
    /* Called for every line request in walk order, with the image as the walk has it then
     * (is_load 0: a store); NULL: none. Non-OK stops the run. */
    gpuest_err (*access_cb)(void *ctx, const gpuest_memimg_t *img, int sm, uint64_t line, int is_load,
                            gpuest_error_t *err);
    void *access_ctx;
    /* Called with access_ctx before the line requests of each memory instruction (lines: how many
     * it makes, is_load 0: a store); NULL: none. Non-OK stops the run. */
    gpuest_err (*inst_cb)(void *ctx, int sm, int is_load, int lines, gpuest_error_t *err);
    /* miss_holders counts another SM as a holder only once its line has been in that L1 for at
     * least this many of the launch's read misses (all SMs together): a line missed that recently
     * is still in flight in a timed machine. Default 0 (present at once). */
    uint64_t holder_delay;
    /* Called with access_ctx for every read that misses the walk's L1: its SM, its instruction's
     * pc and the holders counted for miss_holders (clipped the same way); NULL: none. */
    gpuest_err (*miss_cb)(void *ctx, int sm, uint32_t pc, int holders, gpuest_error_t *err);
    /* 0 (default): each resident warp issues one instruction in turn. 1: greedy bursts, the order a
     * greedy-then-oldest scheduler gives when loads take long: in its turn a warp issues until an
     * instruction reads a register a load of this burst writes, or a barrier (that instruction
     * opens its next turn). A warp's loads up to its first use of their data are then adjacent. */
    int gto_bursts;
    /* Called with access_ctx when a resident warp starts its turn (before its instructions), warp
     * naming it among the launch's resident warps (a slot's index x warps per CTA + its index in
     * the CTA: reused by the CTA that takes a finished one's slot); NULL: none. */
    gpuest_err (*turn_cb)(void *ctx, int sm, uint32_t warp, gpuest_error_t *err);
    /* 1: a launch's first CTAs go to the SMs in the simulator's issue order (gpuest_cta_place_first);
     * 0 (default): CTA c to SM c mod num_sms. */
    int sim_placement;
    /* num_sms rates in (0, 1], or NULL (default: lockstep): SM s issues in a fraction sm_rate[s] of
     * the walk's rounds (dealt by error diffusion), so SMs that run slower in a timed machine fall
     * behind the others as they do there. */
    const double *sm_rate;
} gpuest_charact_opts_t;

void gpuest_charact_opts_default(gpuest_charact_opts_t *o);

#define GPUEST_CHARACT_MAX_HOLDERS 64
typedef struct {
    char workload[GPUEST_WL_NAME_MAX];
    char kernel[GPUEST_WL_NAME_MAX];
    uint32_t launch;                 /* launch index */
    uint64_t warps;
    uint64_t warp_instructions;      /* all kinds except END */
    uint64_t mem_instructions;
    uint64_t line_requests;
    uint64_t read_requests;          /* line requests of loads */
    uint64_t req_by_sectors[4];      /* line requests with 1, 2, 3, 4 sectors (32/64/96/128 B) */
    uint64_t pdr, fdr;               /* read requests with a partial / full sector mask */
    /* L1 line generations (fill to eviction or kernel end), by sectors used: */
    uint64_t gen_ca[4];              /* consistent: every access inside the first access's sectors */
    uint64_t gen_ica[4];             /* inconsistent; gen_ica[0] is always 0 */
    uint64_t shared_requests;        /* read requests to a line another SM requested within the window */
    uint64_t distinct_lines;         /* distinct lines touched by the launch */
    /* The reads that miss the walk's L1 (line absent: the baseline L1 fills whole lines), and those of
     * them to a line another SM's miss requested within the window, counted in misses: the
     * inter-core locality of the stream that reaches the MCs (the PCUs' view). */
    uint64_t miss_reads, shared_misses;
    uint64_t read_by_sectors[4];     /* read line requests with 1, 2, 3, 4 sectors */
    /* The reads that miss the walk's L1, by how many other SMs' L1s hold the line at that moment
     * (the clip GPUEST_CHARACT_MAX_HOLDERS counts that many or more): the remote-L1 probing view. */
    uint64_t miss_holders[GPUEST_CHARACT_MAX_HOLDERS + 1];
} gpuest_charact_t;

/* Called once per launch with its statistics, and once per distinct line the
 * launch touched (line_cb may be NULL) while the image still holds the
 * launch's input values. Either callback returning non-OK stops the run. */
typedef gpuest_err (*gpuest_charact_cb)(void *ctx, const gpuest_charact_t *stats, gpuest_error_t *err);
typedef gpuest_err (*gpuest_charact_line_cb)(void *ctx, const gpuest_memimg_t *img, uint64_t line,
                                             gpuest_error_t *err);

/* The SMs of a launch's first CTAs in the simulator's CTA issue order (its round-robin pointer
 * moves inside the loop over the SMs: docs/sim.md, "Known defect"), at most per_sm on an SM:
 * sm_of[i] for CTA i, count[s] CTAs on SM s (num_sms entries). Returns how many were placed
 * (min(num_ctas, max, num_sms x per_sm)). */
size_t gpuest_cta_place_first(int num_sms, int per_sm, uint32_t num_ctas, int *sm_of, int *count, size_t max);

/* Runs every remaining launch of wl. progress may be NULL. */
gpuest_err gpuest_workload_characterize(gpuest_workload_t *wl, const gpuest_charact_opts_t *opts,
                                        gpuest_charact_cb cb, gpuest_charact_line_cb line_cb, void *ctx,
                                        gpuest_progress_t *progress, gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
