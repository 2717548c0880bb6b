/* config.h: the machine + technique description, presets, INI loading, validation and printing. */
#ifndef GPUEST_CONFIG_H
#define GPUEST_CONFIG_H

#include "core/core.h"
#include "net/net.h" /* gpuest_topology_t, gpuest_routing_t: the shared network description */

#ifdef __cplusplus
extern "C" {
#endif

#define GPUEST_MAX_MCS 64
#define GPUEST_NAME_MAX 32

/* How message classes are kept apart: VC partitions of one network or separate networks. */
typedef enum { GPUEST_SPLIT_VIRTUAL = 0, GPUEST_SPLIT_PHYSICAL = 1 } gpuest_class_split_t;
typedef enum {
    GPUEST_MCPLACE_BOTTOM = 0,
    GPUEST_MCPLACE_TOP_BOTTOM = 1,
    GPUEST_MCPLACE_EDGE = 2,
    GPUEST_MCPLACE_DIAMOND = 3,
    GPUEST_MCPLACE_LIST = 4
} gpuest_mc_placement_t;
typedef enum { GPUEST_WSCHED_GTO = 0, GPUEST_WSCHED_LRR = 1 } gpuest_warp_sched_t;
typedef enum { GPUEST_DSCHED_FRFCFS = 0, GPUEST_DSCHED_FCFS = 1 } gpuest_dram_sched_t;
/* Router allocators (BookSim names: islip, separable_input_first). */
/* technique.coalescing (coalescing paper section 3) */
/* technique.probing (remote-core paper, Table I and section IV-B) */
typedef enum {
    GPUEST_PROBE_NONE = 0,
    GPUEST_PROBE_PP = 1,    /* perfect probing: zero-cycle fetch from a sharer */
    GPUEST_PROBE_DP = 2,    /* direct probe of the nearest sharer */
    GPUEST_PROBE_IP = 3,    /* IP(C,S,P): perfect sharing knowledge, searched targets */
    GPUEST_PROBE_RP = 4,    /* RP(C,S,P): PC-based sharing predictor */
    GPUEST_PROBE_CCN = 5,   /* CCN emulated as RP(27,1,1) with the index selector */
    GPUEST_PROBE_LA_LLC = 6 /* the L2 forwards a read hit to the line's last sharer */
} gpuest_probing_t;
typedef enum { GPUEST_PROBE_SEL_SUPPLIER = 0, GPUEST_PROBE_SEL_INDEX = 1 } gpuest_probe_selector_t;
/* technique.l1_compression (LATTE-CC): the compressed L1D's policy */
typedef enum {
    GPUEST_L1COMP_NONE = 0,
    GPUEST_L1COMP_STATIC_BDI,
    GPUEST_L1COMP_STATIC_SC,
    GPUEST_L1COMP_STATIC_BPC,
    GPUEST_L1COMP_LATTE_CC,
    GPUEST_L1COMP_LATTE_CC_BDI_BPC,
    GPUEST_L1COMP_ADAPTIVE_HIT_COUNT,
    GPUEST_L1COMP_ADAPTIVE_CMP,
    GPUEST_L1COMP_FANN,
    GPUEST_L1COMP_KERNEL_OPT, /* Kernel-OPT: none / BDI / SC per launch, the fastest of forked runs (gpuest simulate) */
} gpuest_l1_compression_t;
typedef enum {
    GPUEST_COALESCE_NONE = 0,
    GPUEST_COALESCE_PCU = 1,
    GPUEST_COALESCE_WARPPOOL = 2,     /* inter-warp merging at the L1 (the paper's comparison point) */
    GPUEST_COALESCE_PCU_WARPPOOL = 3, /* both (paper Fig. 6) */
} gpuest_coalescing_t;
/* technique.filtering (data-filtering thesis 3.4.1.3: both with DPC) */
typedef enum { GPUEST_FILTER_NONE = 0, GPUEST_FILTER_DF_TRUC = 1, GPUEST_FILTER_DF_MAN = 2 } gpuest_filtering_t;
typedef enum { GPUEST_ALLOC_ISLIP = 0, GPUEST_ALLOC_SEPARABLE_IF = 1 } gpuest_allocator_t;

/* Shader cores (SMs). All latencies in core cycles. */
typedef struct {
    int num_sms;
    int warp_size;      /* threads per warp */
    int warps_per_sm;   /* max resident warps */
    int ctas_per_sm;    /* max resident CTAs */
    int threads_per_sm; /* max resident threads */
    int registers_per_sm;
    int shmem_per_sm; /* bytes of shared memory */
    int schedulers_per_sm;
    gpuest_warp_sched_t scheduler;
    double clock_mhz;
    int alu_latency;   /* latency of a simple integer/fp op */
    int sfu_latency;   /* transcendental / long-latency op */
    int shmem_latency; /* shared-memory access */
    int const_latency; /* constant-cache hit */
    /* L1 instruction cache and constant cache per SM (sim/icache.c) */
    int l1i_size_bytes, l1i_line_bytes, l1i_assoc;
    int l1c_size_bytes, l1c_line_bytes, l1c_assoc;
    int perfect_inst_const_cache; /* 1: every instruction fetch and constant read hits (GPGPU-Sim's option) */
} gpuest_core_cfg_t;

/* Per-SM L1 data cache. */
typedef struct {
    int size_bytes;
    int line_bytes;
    int sector_bytes;
    int assoc;
    int mshrs;       /* MSHR entries */
    int mshr_merge;  /* requests merged per MSHR entry */
    int hit_latency; /* core cycles */
    int miss_queue;  /* entries of the miss queue towards the network */
} gpuest_l1_cfg_t;

/* One L2 slice per MC. */
typedef struct {
    int size_per_mc_bytes;
    int line_bytes;
    int assoc;
    int banks_per_mc;
    int mshrs;
    int mshr_merge;  /* requests merged per L2 MSHR entry */
    int hit_latency; /* minimum L2 hit latency, core cycles, as the documents give it */
    double clock_mhz;
} gpuest_l2_cfg_t;

/* GDDR5 channel per MC; timing in DRAM command-clock cycles. */
typedef struct {
    double clock_mhz;
    int banks;
    int bank_groups;
    int row_bytes;
    /* data bus (GPGPU-Sim -gpgpu_n_mem_per_ctrlr, -gpgpu_dram_buswidth, -gpgpu_dram_burst_length,
     * -dram_data_command_freq_ratio): one column command moves burst_length x chip_bytes x
     * chips_per_channel bytes in burst_length / data_rate command cycles */
    int chips_per_channel;
    int chip_bytes;   /* data pins per chip, in bytes */
    int burst_length; /* data transfers per column command */
    int data_rate;    /* data transfers per command clock (GDDR5: 4) */
    int tCL, tRP, tRC, tRAS, tCCD, tRCD, tRRD, tWR, tCDLR;
    int WL;                 /* write latency: WR command -> first data */
    int tCCDL, tRRDL, tRTPL; /* bank-group constraints (0: none) */
    int latency;     /* fixed DRAM pipeline, core cycles (GPGPU-Sim -dram_latency) */
    int min_latency; /* documents' "min DRAM latency", core cycles (reference only, see docs/sim.md) */
    int queue_size;  /* MC request queue entries */
    gpuest_dram_sched_t scheduler;
} gpuest_dram_cfg_t;

/* Memory controllers and address mapping. */
typedef struct {
    int num_mcs;
    int interleave_bytes; /* consecutive chunk mapped to one MC */
    int request_queue;    /* MC icnt->L2 queue (packets) behind the ROP delay; full: no request accepted */
    int reply_queue;      /* MC L2->icnt reply queue (packets); full: the L2 stops */
    int sub_partitions;   /* memory sub-partitions per channel, each with an L2 bank and a network port */
} gpuest_mc_cfg_t;

/* Interconnect. Delays follow BookSim 2 semantics (same names). */
typedef struct {
    gpuest_topology_t topology;
    int k;            /* mesh side (k x k nodes) */
    int vcs;          /* VCs per port, all classes together */
    int buffer_flits; /* flits per VC buffer */
    int flit_bytes;
    int header_bytes; /* header bytes carried by a packet's head flit data (0: header is the head flit) */
    int routing_delay;
    int vc_alloc_delay;
    int sw_alloc_delay;
    int st_prepare_delay;
    int st_final_delay;
    int credit_delay;
    int output_delay;
    int link_latency;
    gpuest_routing_t routing_request;
    gpuest_routing_t routing_reply;
    gpuest_class_split_t class_split;
    gpuest_mc_placement_t mc_placement;
    int mc_nodes[GPUEST_MAX_MCS]; /* explicit placement; first num_mc_nodes used */
    int num_mc_nodes;
    int xbar_port_flits; /* crossbar: flits per cycle per port */
    gpuest_allocator_t vc_allocator;
    gpuest_allocator_t sw_allocator;
    int alloc_iters;          /* allocator iterations (BookSim alloc_iters) */
    int wait_for_tail_credit; /* 1: an output VC is reused only after its tail's credit returns */
    int inject_queue;         /* NI injection queue, packets */
    int eject_queue;          /* NI ejection queue, packets */
    int inject_queue_flits;   /* > 0: the NI injection queue holds this many flits (inject_queue then bounds packets) */
    int eject_queue_flits;    /* > 0: the NI ejection queue holds this many flits per class */
    double clock_mhz;
} gpuest_noc_cfg_t;

/* Traffic-reduction techniques (filled in by later features). */
typedef struct {
    char compression[GPUEST_NAME_MAX]; /* reply compression algorithm: a name of the compress registry */
    int approx_bits;                   /* mantissa bits dropped by dsm_approx (0: from the predictor) */
    double approx_max_error;           /* dsm_approx: error limit given to the approximation predictor */
    int compress_overlap;              /* 1: compression overlaps queueing in the MC reply queue */
    int sc2_sample_lines;              /* sc2: replies per MC sampled each period */
    int sc2_period_lines;              /* sc2: replies per MC per code book period */
    int compress_latency;              /* -1: the algorithm's default from the documents */
    int decompress_latency;            /* -1: the algorithm's default */
    int coalescing;                    /* gpuest_coalescing_t: packet coalescing units at the MCs */
    int pcu_rgrs;                      /* request grouping registers per PCU */
    int probing;                       /* gpuest_probing_t: remote-L1 probing scenario */
    int probe_cores;                   /* C: remote cores searched per probed miss */
    int probe_count;                   /* S: probes per probed miss (S with probability P, else S - 1) */
    double probe_rate;                 /* P */
    int probe_selector;                /* gpuest_probe_selector_t */
    double probe_precision;            /* ip only: 1 - share of non-shared misses probed anyway (Fig. 14b) */
    int l1_compression;                /* gpuest_l1_compression_t: compressed L1D policy (LATTE-CC) */
    int warppool_queues;               /* WarpPool: line queues per SM */
    int warppool_depth;                /* WarpPool: requests one queue holds (merged into one L1 access) */
    int warppool_latency;              /* WarpPool: core cycles from entering the pool to the earliest L1 access */
    int filtering;                     /* gpuest_filtering_t: critical-word data filtering with DPC */
    int filter_table_entries;          /* data-filter table entries per MC port (thesis: 256) */
    int filter_window;                 /* windows manager: accesses each window keeps (thesis: 16) */
    int filter_ica_threshold;          /* request controller: ICA share (%) above which it fetches the whole line */
    int filter_fdr_threshold;          /* request controller: FDR share (%) above which it fetches the whole line */
    int filter_rc;                     /* 1: the request controller decides; 0: always the critical sectors */
} gpuest_technique_cfg_t;

/* Where each key got its value, so cross-field errors can name file:line.
 * Not part of the configuration's identity (gpuest_config_equal ignores it). */
#define GPUEST_CONFIG_MAX_KEYS 128
#define GPUEST_CONFIG_MAX_SOURCES 4
typedef struct {
    char sources[GPUEST_CONFIG_MAX_SOURCES][160];     /* distinct origins: file names, "--set" */
    unsigned char key_source[GPUEST_CONFIG_MAX_KEYS]; /* 0: the preset, i + 1: sources[i] */
    int key_line[GPUEST_CONFIG_MAX_KEYS];
} gpuest_config_origin_t;

typedef struct {
    char name[GPUEST_NAME_MAX]; /* preset it started from */
    gpuest_core_cfg_t core;
    gpuest_l1_cfg_t l1;
    gpuest_l2_cfg_t l2;
    gpuest_dram_cfg_t dram;
    gpuest_mc_cfg_t mc;
    gpuest_noc_cfg_t noc;
    gpuest_technique_cfg_t technique;
    gpuest_config_origin_t origin;
} gpuest_config_t;

/* ------------------------------------------------------------ presets */
/* NULL-terminated list of preset names: fermi, mesh56, mesh28, latte15. */
extern const char *const gpuest_preset_names[];
const char *gpuest_preset_description(const char *name);
/* Fills cfg from a preset; GPUEST_ENOKEY (message lists valid names) if unknown. */
gpuest_err gpuest_config_preset(gpuest_config_t *cfg, const char *name, gpuest_error_t *err);

/* ------------------------------------------------------------ loading */
/* Applies an INI file on top of cfg. A "[preset] name = P" entry, if present,
 * must come first and loads the preset before other keys. Unknown section/key,
 * wrong type or out-of-range value -> error naming path:line. Does not run the
 * cross-field checks; call gpuest_config_validate afterwards. */
gpuest_err gpuest_config_load_file(gpuest_config_t *cfg, const char *path, gpuest_error_t *err);
/* Applies INI text (origin names it in messages, e.g. a file name). */
gpuest_err gpuest_config_load_string(gpuest_config_t *cfg, const char *text, const char *origin, gpuest_error_t *err);
/* Applies one "section.key=value" override (origin names it: "--set"). */
gpuest_err gpuest_config_set(gpuest_config_t *cfg, const char *assignment, const char *origin, gpuest_error_t *err);
/* Sets one key; line is for messages (0 = none). */
gpuest_err gpuest_config_set_key(gpuest_config_t *cfg, const char *section, const char *key, const char *value,
                                 const char *origin, int line, gpuest_error_t *err);

/* "file:line", "--set" or "preset P": where section.key got its value. */
const char *gpuest_config_key_origin(const gpuest_config_t *cfg, const char *section, const char *key, char *buf,
                                     size_t cap);

/* Cross-field checks (geometry divisibility, MCs vs mesh nodes, placement list). */
gpuest_err gpuest_config_validate(const gpuest_config_t *cfg, gpuest_error_t *err);

/* Writes the full configuration as INI that loads back to an identical config. */
gpuest_err gpuest_config_write_ini(const gpuest_config_t *cfg, FILE *out);
/* 1 if every field is equal. */
int gpuest_config_equal(const gpuest_config_t *a, const gpuest_config_t *b);

/* ------------------------------------------------------------ derived values */
int gpuest_config_num_nodes(const gpuest_config_t *cfg); /* mesh: k*k; crossbar: SMs + MCs */
/* Node id of each MC (mesh: from the placement); out has cfg->mc.num_mcs entries. */
gpuest_err gpuest_config_mc_nodes(const gpuest_config_t *cfg, int *out, gpuest_error_t *err);
/* Node id of each SM: the mesh nodes not taken by MCs, in increasing order. */
gpuest_err gpuest_config_sm_nodes(const gpuest_config_t *cfg, int *out, gpuest_error_t *err);
/* MC index serving a byte address under the interleaving. */
int gpuest_config_mc_of_address(const gpuest_config_t *cfg, uint64_t addr);
/* Converts a count of cycles in clock domain from_mhz to cycles of to_mhz. */
double gpuest_cycles_convert(double cycles, double from_mhz, double to_mhz);

const char *gpuest_topology_name(gpuest_topology_t t);
const char *gpuest_routing_name(gpuest_routing_t r);
const char *gpuest_mc_placement_name(gpuest_mc_placement_t p);

#ifdef __cplusplus
}
#endif
#endif
