/* sim.h: the detailed, cycle-level GPU simulator (SMs, L1D, NoC, MC nodes with L2 and DRAM) and its statistics. */
#ifndef GPUEST_SIM_H
#define GPUEST_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"     /* gpuest_config_t: the machine */
#include "core/core.h"         /* gpuest_err, gpuest_error_t, gpuest_progress_t */
#include "workload/workload.h" /* gpuest_launch_t, gpuest_inst_t, gpuest_workload_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ instruction source
 * The simulator pulls kernels and warp instruction streams through this table,
 * so tests can drive it with hand-written streams. gpuest_sim_source_workload()
 * adapts a gpuest_workload_t (generators and traces). The protocol is the one of
 * workload.h: next_launch, warps opened / read / closed in any order, end_launch. */
typedef struct {
    void *ctx;
    gpuest_err (*next_launch)(void *ctx, gpuest_launch_t *launch, int *done, gpuest_error_t *err);
    gpuest_err (*end_launch)(void *ctx, gpuest_error_t *err);
    gpuest_err (*warp_open)(void *ctx, uint32_t cta, uint32_t warp, void **warp_out, gpuest_error_t *err);
    gpuest_err (*warp_next)(void *ctx, void *warp, gpuest_inst_t *inst, gpuest_error_t *err);
    void (*warp_close)(void *ctx, void *warp);
    /* The 128 bytes of a line as the program's memory holds them now (the
     * image as of the current launch's start: every earlier launch's writes
     * applied), into buf; returns buf, or NULL when the source carries no data
     * values (a trace without an image). May be NULL (no values). */
    const uint8_t *(*read_line)(void *ctx, uint64_t line, uint8_t buf[GPUEST_LINE_BYTES]);
} gpuest_sim_source_t;

void gpuest_sim_source_workload(gpuest_sim_source_t *src, gpuest_workload_t *wl);

/* ================================================================ technique hooks
 * Places where the traffic-reduction techniques of ARCHITECTURE.md plug in. Every
 * pointer may be NULL (baseline behaviour). All are called from the simulator's
 * single thread with hooks.ctx. Times are in the cycles of the named domain. */
typedef struct {
    uint64_t line;   /* 128-byte line address */
    uint8_t sectors; /* sector mask the SM asked for */
    int op;          /* gpuest_mem_op_t */
    int sm;          /* requesting SM */
    int mc;          /* serving MC */
    int32_t id;      /* mc_accept and mc_reply: the request's token at the MC (as mc_front_accept's req) */
    int partial;     /* 1: a partial data request (PDR) of the L1D's sector mode (data filtering) */
} gpuest_sim_req_info_t;

/* What the mc_reply hook decides for one read reply. On entry: flits = the
 * uncompressed packet, everything else 0. */
typedef struct {
    int flits;           /* packet size in flits (>= 1) */
    int inject_delay;    /* L2 cycles the reply spends in a pipelined unit between the MC's
                          * reply queue and the NI (compressor latency) */
    int overlap_queue;   /* 0: inject_delay starts when the reply leaves the reply queue
                          * (serial with the queueing, as the packet compression thesis
                          * models it); 1: it starts when the reply is made, so it
                          * overlaps the time spent waiting in the reply queue */
    int fill_delay;      /* core cycles between ejection at the SM and the L1 fill
                          * (decompressor latency) */
    int ctrl_flits;      /* > 0: a control packet of this size goes to the same SM on the
                          * reply network just ahead of the reply (dictionary sync) */
    int bcast_flits;     /* > 0: a control packet of this size goes to every SM just ahead
                          * of the reply (code book shipping) */
    uint8_t sectors;     /* data filtering: the sectors the reply carries (0: the whole line;
                          * GPUEST_SIM_REPLY_NO_SECTORS: none, its data came with an earlier reply) */
} gpuest_sim_reply_t;
#define GPUEST_SIM_REPLY_NO_SECTORS 0x10

/* Data filtering (data-filtering thesis 3.3, 4.1): an L1D read miss of the sector mode, as the
 * l1_sector_request hook sees it. */
enum {
    GPUEST_SIM_MISS_FM = 0, /* first miss: the line is neither cached nor pending */
    GPUEST_SIM_MISS_SM = 1, /* subsequent miss: pending, and the sectors asked for so far lack some it needs */
    GPUEST_SIM_MISS_HI = 2, /* hit but invalid: cached, but some sector it needs is not valid */
};
typedef struct {
    int sm;
    uint64_t line;
    int kind;       /* GPUEST_SIM_MISS_* */
    uint8_t need;   /* the warp's sector mask (the coalescer's 4-bit critical-region map) */
    uint8_t have;   /* sectors valid in the line or already asked for (MSHR bitmap) */
    uint8_t used;   /* sectors warps have needed from the line so far, this access included */
    uint8_t functional; /* 1: a sampled run's fast-forward asks (the line fills at once, nothing is sent) */
} gpuest_sim_sector_miss_t;

/* What an MC request front end does with a request ejected at its MC (mc_front_accept). */
enum {
    GPUEST_SIM_FRONT_REFUSE = -1, /* no room now: the request stays in the NI (retried next L2 cycle, and
                                   * everything behind it waits: back-pressure into the network) */
    GPUEST_SIM_FRONT_PASS = 0,    /* straight into the L2 path, as without a front end (when it has room) */
    GPUEST_SIM_FRONT_HOLD = 1,    /* kept by the front end; it hands it to the L2 path later (mc_front_release) */
    GPUEST_SIM_FRONT_JOIN = 2,    /* a read answered by the reply of *leader, a read the front end holds or
                                   * released whose reply is not made yet: one multicast reply serves both */
};

/* Remote-L1 probing (remote-core paper; the messages run in sim/probe.c, a technique decides).
 * On an L1D read miss the probe_plan hook chooses what happens to it: */
enum {
    GPUEST_SIM_PROBE_L2 = 0,     /* the request goes to its L2 (as without probing) */
    GPUEST_SIM_PROBE_ORACLE = 1, /* perfect probing: the line comes at once from the nearest sharer's L1
                                  * (after one L1 access); needs a sharer (nearest >= 0) */
    GPUEST_SIM_PROBE_SEND = 2,   /* probes search the targets; the L2 request waits for them (timeout) */
};
#define GPUEST_SIM_PROBE_MAX_SMS 128  /* SMs a probing machine may have (bitmaps of 2 words) */
#define GPUEST_SIM_PROBE_MAX_PROBES 8 /* probes per miss */
typedef struct {
    uint64_t line;
    uint8_t sectors;
    int sm;                 /* requester */
    uint32_t pc;            /* the load's pc */
    /* oracle (PP, DP, IP): other SMs whose L1 holds every requested sector now, and the nearest of
     * them in router hops (ties: lowest index), -1 when none */
    uint64_t sharers[GPUEST_SIM_PROBE_MAX_SMS / 64];
    int nearest;
} gpuest_sim_probe_query_t;
typedef struct {
    int action;    /* GPUEST_SIM_PROBE_*; starts as L2 */
    int nprobes;   /* SEND: 1..GPUEST_SIM_PROBE_MAX_PROBES; the targets are split in order into nprobes
                    * consecutive chunks as equal as possible (the first ones one longer) */
    int two_level; /* SEND, nprobes >= 2: probe 0 leads, the others scout (collect candidates, no data) */
    int ntargets;  /* SEND: 1..num_sms - 1 distinct SMs other than the requester, search order */
    int16_t targets[GPUEST_SIM_PROBE_MAX_SMS];
} gpuest_sim_probe_plan_t;
/* Probe message events reported to probe_event (counted by the technique). */
enum {
    GPUEST_SIM_PEV_PROBE_SENT = 0,  /* a probe (first or second level) injected by its requester */
    GPUEST_SIM_PEV_FORWARD,         /* a probe forwarded to its next target (request network) */
    GPUEST_SIM_PEV_NACK,            /* a probe back at its requester without data (request network) */
    GPUEST_SIM_PEV_DATA_SENT,       /* a remote L1 sent the line (reply network) */
    GPUEST_SIM_PEV_REMOTE_HIT,      /* a probed miss filled from a remote L1 */
    GPUEST_SIM_PEV_TIMEOUT,         /* the L2 request of a probed miss left at its timeout */
    GPUEST_SIM_PEV_ALL_NACK,        /* ... left early: every probe came back without data */
    GPUEST_SIM_PEV_DEFLECT,         /* a probe found its target's probe queue full and moved on */
    GPUEST_SIM_PEV_DROP,            /* a probe found no room anywhere at an SM and was dropped */
    GPUEST_SIM_PEV_LATE,            /* data or a probe of a miss already served (discarded) */
    GPUEST_SIM_PEV_SECOND_LEVEL,    /* a second-level probe to the scouts' candidates */
    GPUEST_SIM_PEV_LOCAL_WAIT,      /* a cycle a waiting probe lost the L1 port to a local access */
    GPUEST_SIM_PEV_LLC_FORWARD,     /* LA-LLC: the L2 sent a read hit to the line's last sharer */
    GPUEST_SIM_PEV_LLC_BACK,        /* LA-LLC: the sharer missed, the read went back to the L2 */
    GPUEST_SIM_PEV_COUNT
};
/* Compressed L1D (LATTE-CC, sections III-IV; src/sim/l1_compressed.c). Installing
 * l1c_fill switches the L1D to the compressed organization: 4x tags per set, data in
 * 32-byte sub-blocks (the set's data store is unchanged: assoc x 128 bytes), two policy
 * bits per tag naming the mode the line was stored in, one decompressor per mode per SM
 * with a FIFO queue (effective hit latency of eq. 3). */
enum { GPUEST_L1C_NONE = 0, GPUEST_L1C_BDI = 1, GPUEST_L1C_SC = 2, GPUEST_L1C_BPC = 3, GPUEST_L1C_MODES = 4 };

/* One L1D load access or fill as the compressed L1 reports it. */
typedef struct {
    int sm, set, sets;     /* SM, set index of the line, sets per L1 */
    uint64_t line;
    int launch;            /* launch index */
    uint64_t core_cycle;
    int hit;               /* 1 hit, 0 miss (a primary miss or one merged into an MSHR) */
    int mode;              /* hit: the policy bits of the line hit (GPUEST_L1C_*) */
    int depth;             /* hit: LRU stack depth among the set's valid lines (0 = most recent) */
    int queue_pos;         /* hit on a compressed line: its position in the decompression queue */
    int extra_cycles;      /* hit: decompression cycles added (eq. 3), 0 for an uncompressed line */
    int hit_latency;       /* hit: base hit latency + extra_cycles (core cycles) */
    int valid_lines;       /* lines resident in this SM's L1 (effective capacity) when l1_tags is NULL (an
                            * event built by hand); read it with gpuest_sim_l1c_valid_lines */
    /* cumulative per-SM inputs of the latency tolerance (eq. 4) and of the miss latency */
    uint64_t avail_sum, sm_cycles, sched_issue, sched_runs;
    uint64_t miss_lat_sum, miss_lat_n; /* core cycles from access to fill, primary misses */
    const void *l1_tags;   /* the simulator's events: this SM's L1 tags, counted on demand (the count scans
                            * every way, and a policy needs it only at the end of an EP, not on every access) */
} gpuest_sim_l1c_event_t;

/* Lines resident in the event's SM's L1 at the event: the tags counted when the simulator made the
 * event, else ev->valid_lines. */
int gpuest_sim_l1c_valid_lines(const gpuest_sim_l1c_event_t *ev);

/* What the l1c_fill hook decides for a line being filled. */
typedef struct {
    int mode;         /* policy bits stored with the line (GPUEST_L1C_NONE: raw) */
    int bytes;        /* compressed size (1..128); 32-byte sub-blocks = ceil(bytes / 32) */
    int decomp_cycles; /* decompression latency of the line's mode (0 when raw) */
} gpuest_sim_l1c_line_t;

typedef struct {
    void *ctx;
    /* MC request front end (between the MC's NI and the L2 path), three points:
     *  - mc_front_accept: a request (any op) ejected at MC node `mc`, called at most once per L2
     *    cycle per MC, also while the L2 request queue is full; `req` is an opaque token naming the
     *    request until its reply is made. Returns GPUEST_SIM_FRONT_* (JOIN: *leader set);
     *  - mc_front_release: every L2 cycle of MC `mc`; room = 1 when the L2 path takes a request
     *    this cycle. Returns the token of a held request to enter the L2 path now, or -1;
     *  - mc_front_reply: the reply (read data or write ack) of a request the front end held or
     *    passed is made (it enters the MC reply queue); a JOIN naming it is no longer allowed.
     * The reply of a request with joined reads is one packet to the set of their SMs
     * (sim_inject_multicast: replicated by the routers); each member SM receives it once. */
    int (*mc_front_accept)(void *ctx, int mc, int32_t req, const gpuest_sim_req_info_t *info, uint64_t l2_cycle,
                           int32_t *leader);
    int32_t (*mc_front_release)(void *ctx, int mc, int room, uint64_t l2_cycle);
    void (*mc_front_reply)(void *ctx, int mc, int32_t req);
    /* MC network interface, a read reply (loads and atomics) about to enter the
     * reply path (reply compression, data filtering), called in the MC's reply
     * order. data: the line's 128 bytes from the source (NULL when the source
     * has no values, or the line is not program data). The hook fills *reply. Control packets travel in the reply
     * class from the MC's NI, one packet per L2 cycle like replies; a blocked one
     * counts as an MC stall; they are counted in the reply flits and in
     * ctrl_packets / ctrl_flits. */
    void (*mc_reply)(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data, gpuest_sim_reply_t *reply);
    /* MC, a read request accepted from the network, before the L2 (coalescing
     * unit, data-filter table): observation only for now (see docs/sim.md). */
    void (*mc_accept)(void *ctx, const gpuest_sim_req_info_t *req, uint64_t l2_cycle);
    /* L1D hit: extra core cycles on the hit path (compressed L1 decompression). */
    int (*l1_hit_extra)(void *ctx, int sm, uint64_t line);
    /* L1D miss, before the request enters the miss queue (remote-L1 probing):
     * observation only for now; the request always goes to its MC. */
    void (*l1_miss)(void *ctx, const gpuest_sim_req_info_t *req, uint64_t core_cycle);
    /* Test / trace hook: a load, atomic or constant-cache miss of a warp completed (its destination is written). */
    void (*load_done)(void *ctx, int sm, int warp_slot, uint64_t issue_cycle, uint64_t done_cycle, int hits,
                      int misses);
    /* Remote-L1 probing (sim/probe.c). probe_plan: an L1D load miss that allocated an MSHR
     * entry; fills *plan (it starts as GPUEST_SIM_PROBE_L2). probe_done: a probed miss (SEND)
     * finished; supplier = the SM whose L1 sent the line, or -1 (its L2 request left). */
    void (*probe_plan)(void *ctx, const gpuest_sim_probe_query_t *q, uint64_t core_cycle,
                       gpuest_sim_probe_plan_t *plan);
    void (*probe_done)(void *ctx, int sm, uint32_t pc, int supplier, uint64_t core_cycle);
    void (*probe_event)(void *ctx, int event, int sm);
    /* LA-LLC: a load of SM `sm` looked line up in the L2 of MC `mc` (hit or not). Returns the SM the
     * L2 forwards the hit to instead of answering, or -1 (answer). */
    int (*llc_read)(void *ctx, int mc, int sm, uint64_t line, int hit);
    /* Compressed L1D (see GPUEST_L1C_*): l1c_fill decides mode and size of a line being
     * filled (data: its 128 bytes from the source, NULL when it has none); l1c_access sees
     * every L1D load access (hits and misses) and returns a mask of modes (1 << mode)
     * whose resident lines must be invalidated now (0: none), e.g. when a code book changes. */
    void (*l1c_fill)(void *ctx, const gpuest_sim_l1c_event_t *ev, const uint8_t *data, gpuest_sim_l1c_line_t *out);
    unsigned (*l1c_access)(void *ctx, const gpuest_sim_l1c_event_t *ev);
    /* Data filtering (src/sim/l1_sector.c, docs/filtering.md). When l1_sector_request is set the
     * L1D works sector by sector: a line's valid bitmap grows with partial fills, a request
     * needing a sector the line lacks is an FM / SM / HI miss, and every such miss asks
     * l1_sector_request which sectors to fetch (the request controller); the simulator sends
     * (answer | need) & ~have, exactly the missing sectors. l1_sector_window (may be NULL) sees
     * each completed MSHR entry (evicted = 0) and each evicted line (evicted = 1) with the union
     * of the sectors warps used and whether they were used inconsistently (the windows manager). */
    unsigned (*l1_sector_request)(void *ctx, const gpuest_sim_sector_miss_t *miss);
    void (*l1_sector_window)(void *ctx, int sm, unsigned used, int inconsistent, int evicted);
    /* A sampled run's fast-forward (sim/sample.c): a read reply the MC would send for a line
     * fast-forward fetched from the L2 (data: its 128 bytes, NULL when the source has none). A
     * technique whose state lives across replies (reply compression's C-Pack dictionaries, SC2's
     * samples and code books) advances it as mc_reply would, counting no reply; NULL: nothing to
     * warm (the simulator then skips reading the line). */
    void (*mc_reply_warm)(void *ctx, const gpuest_sim_req_info_t *req, const uint8_t *data);
} gpuest_sim_hooks_t;

/* ================================================================ options */
typedef struct {
    uint64_t max_cycles;       /* stop after this many core cycles in all (0: no limit) */
    uint64_t max_instructions; /* stop after this many warp instructions (0: no limit) */
    uint64_t watchdog_cycles;  /* core cycles without any progress -> GPUEST_EDEADLOCK (default 200000) */
    uint64_t sample_interval;  /* core cycles per SM time-series sample (default 1000, 0: off) */
    gpuest_progress_t *progress; /* may be NULL; advanced in warp instructions issued (its total: the
                                  * caller's, e.g. gpuest_workload_count_insts), core cycles as its aux counter */
    gpuest_sim_hooks_t hooks;
} gpuest_sim_opts_t;

void gpuest_sim_opts_default(gpuest_sim_opts_t *o);

/* ================================================================ statistics
 * Plain data: the model module reads these without calling the simulator.
 * Cycles are core cycles unless a name says otherwise; latencies are averages
 * in core cycles. A kernel row covers one launch; the total row covers the run. */
#define GPUEST_SIM_LOCALITY_WINDOWS 5
extern const int gpuest_sim_locality_window[GPUEST_SIM_LOCALITY_WINDOWS]; /* 120, 240, 480, 960, 1920 */
#define GPUEST_SIM_CLASSES 3 /* request, reply, probe (gpuest_noc_class_t) */

typedef struct {
    char kernel[GPUEST_WL_NAME_MAX]; /* launch name, or "total" */
    int launch;                      /* launch index, -1 for the total */
    int partial;                     /* 1: cut short by --max-cycles / --max-instructions */
    uint64_t cycles;                 /* core cycles */
    uint64_t warp_instructions;
    uint64_t thread_instructions;    /* active lanes summed */
    double ipc;                      /* thread instructions per core cycle (GPGPU-Sim's gpu_ipc) */
    double warp_ipc;                 /* warp instructions per core cycle */

    /* L1D, load line requests */
    uint64_t l1_accesses, l1_hits, l1_misses; /* misses = primary misses + MSHR merges */
    uint64_t l1_mshr_merges;                  /* misses merged into a pending MSHR entry */
    uint64_t l1_mshr_stalls;                  /* cycles the LD/ST unit waited for an MSHR */
    uint64_t l1_missq_stalls;                 /* cycles it waited for the miss queue */
    uint64_t l1_reservation_fails;            /* tries that failed reservation and were retried (both kinds) */
    double l1_miss_rate;                      /* l1_misses / l1_accesses */
    uint64_t store_requests, atomic_requests;
    /* Instruction cache (fetches that changed line) and constant cache (distinct
     * lines of constant reads); misses include those waiting on another warp's request */
    uint64_t l1i_accesses, l1i_misses, l1c_accesses, l1c_misses;
    uint64_t front_requests; /* read requests the instruction and constant caches sent */

    /* Memory requests to the MCs */
    uint64_t read_requests;  /* L1D load misses sent (instruction and constant requests not included) */
    uint64_t write_requests; /* stores + atomics sent */
    uint64_t replies;        /* replies + acks received at SMs */
    /* L1 miss penalty of read requests (coalescing paper Fig. 1a), averages:
     * miss_latency == req_latency + mem_latency + reply_latency. */
    double miss_latency, req_latency, mem_latency, reply_latency;
    double amat; /* mean over load line requests: hit latency, or access-to-fill time of a miss */

    /* L2 / DRAM */
    uint64_t l2_accesses, l2_hits, l2_misses, l2_mshr_merges;
    uint64_t dram_reads, dram_writes, dram_row_hits; /* line reads / writes completed; row hits among them */
    uint64_t dram_activates;
    double dram_bus_util; /* data-bus busy cycles / DRAM cycles, over all channels */

    /* MCs: cycles (L2 clock) summed over MCs, and those with a reply ready but the NI input queue full */
    uint64_t mc_cycles, mc_stall_cycles;
    double mc_stall_ratio;
    /* Control packets a technique sent on the reply network (see mc_reply), included in
     * packets[1] / flits[1] */
    uint64_t ctrl_packets, ctrl_flits;

    /* Network, per class */
    uint64_t packets[GPUEST_SIM_CLASSES];
    uint64_t flits[GPUEST_SIM_CLASSES];
    double net_latency[GPUEST_SIM_CLASSES]; /* packet latency (created -> tail ejected), core cycles */
    double link_util_mean, link_util_max;   /* flits per interconnect cycle over every link */
    uint64_t icnt_cycles;

    /* Timed inter-core locality at the MCs (coalescing paper 2.2) */
    uint64_t locality_reads;
    uint64_t locality_shared[GPUEST_SIM_LOCALITY_WINDOWS];
    double intercore_locality[GPUEST_SIM_LOCALITY_WINDOWS];

    /* Latency tolerance inputs (LATTE-CC eq. 4), means over SMs and cycles */
    double avail_warps;         /* warps able to issue, per SM per cycle */
    double cycles_per_schedule; /* issue cycles per run of one warp on a scheduler */
    double latency_tolerance;   /* avail_warps * cycles_per_schedule */

    /* WarpPool (technique.coalescing = warppool / pcu+warppool): line requests that entered the
     * pools, those that joined another request's queue, and the L1 accesses the pools made */
    uint64_t warppool_requests, warppool_merged, warppool_accesses;
    uint64_t link_flits; /* flits over every network link (a multicast counts once per link of its tree) */
    uint64_t write_bytes; /* data bytes the write requests (stores + atomics) carried: sectors x 32 */
    uint64_t dram_turns;  /* column commands of a channel in the other direction than its previous one (read/write turnarounds) */
} gpuest_sim_stats_t;

/* One point of the per-SM time series. */
typedef struct {
    uint64_t cycle; /* core cycle at the end of the interval */
    int kernel;     /* index into result.kernels */
    int sm;
    double avail_warps;
    double cycles_per_schedule;
} gpuest_sim_sample_t;

/* Link utilization over the whole run. */
typedef struct {
    int net, src_node, dst_node, kind; /* as gpuest_noc_link_t */
    uint64_t flits;
    double utilization; /* flits per interconnect cycle */
} gpuest_sim_link_t;

typedef struct {
    gpuest_sim_stats_t *kernels;
    size_t num_kernels;
    gpuest_sim_stats_t total;
    gpuest_sim_link_t *links;
    size_t num_links;
    gpuest_sim_sample_t *samples;
    size_t num_samples;
    int stopped_by_limit;
    double wall_seconds;
    /* invariant counters, checked at the end of a run */
    uint64_t requests_sent, replies_received, outstanding;
} gpuest_sim_result_t;

void gpuest_sim_result_free(gpuest_sim_result_t *r); /* NULL-safe; leaves r zeroed */

/* ================================================================ running
 * Runs every launch of src on the machine cfg (validated by the caller) and
 * fills out (free with gpuest_sim_result_free, also after an error).
 * Errors: GPUEST_EINVAL (a CTA cannot fit an SM, bad config), GPUEST_EDEADLOCK
 * (watchdog), GPUEST_ECORRUPT (a request answered twice or never), or any error of
 * the source or the NoC. */
gpuest_err gpuest_sim_run(const gpuest_config_t *cfg, const gpuest_sim_source_t *src, const gpuest_sim_opts_t *opts,
                          gpuest_sim_result_t *out, gpuest_error_t *err);

/* Clock domains. */
typedef enum { GPUEST_CLK_CORE = 0, GPUEST_CLK_ICNT = 1, GPUEST_CLK_L2 = 2, GPUEST_CLK_DRAM = 3 } gpuest_clk_t;
#define GPUEST_CLK_DOMAINS 4

/* Packet size in flits of a packet carrying data_bytes: gpuest_packet_flits (core.h),
 * the rule shared with the model and the compression tools. */
int gpuest_sim_packet_flits(const gpuest_noc_cfg_t *noc, int data_bytes);


/* ================================================================ sampled simulation (sample.c)
 * Whole-GPU sampling units (every SM together: contention is global), stratified per kernel: the
 * kernel's first and last unit are measured whole (census), the middle gets one unit at a random
 * place in each of its periods. A unit starts at a fixed instruction position and spans the
 * cycles from the issue of its first instruction to the issue of the first after it. Between
 * units the GPU drains, then fast-forwards functionally with its clock stopped (CTAs advance in
 * proportion to their age rank's issue share in the last unit, updating L1/L2 tags, dirty bits and
 * DRAM open rows), then runs a detailed warming of max(warm_cycles, warm_amats x the last AMAT)
 * cycles; whether the requests in flight had settled is checked afterwards (MSER-5), not used to
 * place the unit. A kernel of at most 3 units is measured whole. unit_insts is the unit size.
 * count_src is a second, identical instance of the source: a counting pass over it gives every
 * kernel's instruction count, from which the units are placed. */
typedef struct {
    uint64_t unit_insts;  /* warp instructions per unit (0: 1000 x SMs) */
    int units;            /* sampled units over the run, spread over kernels by instruction count (default 30;
                           * each kernel's census head and tail come on top) */
    uint64_t warm_cycles; /* minimum detailed warming before a unit (default 3000 core cycles) */
    double warm_amats;    /* ... and at least this many of the last unit's AMAT (default 8) */
    uint64_t seed;        /* where the units fall in their periods */
    gpuest_progress_t *progress; /* may be NULL */
    gpuest_sim_hooks_t hooks;    /* technique hooks, as gpuest_sim_opts_t (fast-forward calls only l1c_fill/l1c_access) */
    int cold;             /* 1: fast-forward warms nothing (no L1/L2 tags, DRAM rows or technique state):
                           * an experiment that shows what functional warming is worth */
    int reference;        /* 1: the gaps between units run in detail instead of fast-forward (same unit
                           * placement and boundaries): the per-unit truth the sampled units are checked
                           * against (tests, `gpuest sample --reference`) */
    int ff_backpressure;  /* 1: fast-forward's timed schedule takes the memory system's back-pressure from
                           * the last unit: each line request holds the LD/ST unit for the unit's measured
                           * cycles per line (stalls on full MSHRs or miss queue included), and a load that
                           * misses waits a latency drawn from the unit's own L1 miss latencies instead of
                           * their mean (`gpuest sample --ff-backpressure`; docs/estimator.md). On by default,
                           * with ff_miss_stalls and ff_l2_split (gpuest_sample_opts_default; all three 0:
                           * the plain fast-forward, `gpuest sample --ff-plain`) */
    int ff_miss_stalls;   /* 1 (with ff_backpressure): the LD/ST unit's stall cycles are measured per request
                           * that left the L1 (L1 misses, stores, atomics) and charged to those only; an L1
                           * hit holds it one cycle a line (`gpuest sample --ff-miss-stalls`; docs/estimator.md,
                           * "Sampled simulation: gemm") */
    int ff_l2_split;      /* 1 (with ff_backpressure): a line that misses the L1 in fast-forward waits a latency
                           * drawn from the last unit's L2 hits when its fast-forwarded L2 lookup hits, from
                           * its L2 misses otherwise (`gpuest sample --ff-l2-split`; docs/estimator.md) */
    int slow_paths;       /* 1: the paths the fifth session's speed-ups replaced, same results: the counting pass
                           * through warp_next instruction by instruction, fast-forward's attention of every SM
                           * computed afresh in its turn, and its LD/ST hold pass run after every memory
                           * instruction (tests/study/test_sample_speed.c compares the two) */
    int ff_gather;        /* 1 (without ff_backpressure): a load that misses the L1 in n lines waits the
                           * expected slowest of n of the last unit's L1 miss latencies instead of their
                           * mean, so gathers take as long in fast-forward as in detail (`gpuest sample
                           * --ff-gather`; docs/estimator.md, "Sampled simulation: the lock-step schedule") */
    int ff_pool;          /* K >= 1 (with ff_backpressure): back-pressure's hold per request and latency draws come
                           * from the last K detailed units together (sum of stalls over sum of requests; the K
                           * units' latencies in one pool) instead of the last unit alone; 0: off (the last unit,
                           * as K = 1) (`gpuest sample --ff-pool K`; docs/estimator.md, "Back-pressure rates
                           * pooled over units") */
    int tail_stratum;     /* 1: each kernel's tail census covers its last wave of CTAs (the warp instructions of the
                           * launch's last R CTAs, R resident on the GPU at once; at least one unit, at most a tenth
                           * of the kernel), so the launch's drain is measured whole (`gpuest sample --tail-stratum`;
                           * sample_tail.h, docs/estimator.md "Sampled simulation: a drain stratum"); 0: one unit;
                           * 2: the last CTA of every SM only (the launch's last nsm CTAs; `--tail-stratum-sm`,
                           * docs/estimator.md "Sampled simulation: gemm's bias (seventh session, second round)") */
    int ff_walk;          /* 1: two-speed fast-forward (sample_walk.h): each gap's first part an untimed functional
                           * walk, its last ff_window_units unit lengths on the timed schedule, and the
                           * fast-forward to a launch's end walked whole (`gpuest sample --ff-window N`;
                           * docs/estimator.md, "Sampled simulation: an untimed walk before a timed window"); 0: off */
    double ff_window_units; /* with ff_walk: the timed window in unit lengths (unit_insts; 0: the whole gap walked) */
} gpuest_sample_opts_t;

void gpuest_sample_opts_default(gpuest_sample_opts_t *o);

typedef struct {
    int kernel;                /* launch index */
    int census;                /* 1: the kernel's first or last unit (or all of it), measured in every run */
    uint64_t cycles;           /* core cycles of the unit */
    uint64_t warp_insts, thread_insts;
    double amat_sum, amat_n;   /* load line requests: summed latency (core cycles) and count */
    double miss_sum, miss_n;   /* read requests: summed L1 miss penalty and count */
    uint64_t mc_cycles, mc_stalls;
    uint64_t link_flits;       /* flits over every link during the unit */
    uint64_t warm_cycles;      /* detailed warming before it */
    uint64_t warm_insts;       /* warp instructions issued during that warming */
    int warm_steady;           /* 1: in-flight requests had settled when the unit began */
    double inflight;           /* mean requests in flight during the unit */
    /* memory-system counts over the unit (functional warming is judged by them against the
     * reference mode's units at the same positions) */
    uint64_t l1_accesses, l1_hits, l2_accesses, l2_hits;
    uint64_t dram_reads, dram_writes, dram_row_hits;
    double cta_spread;         /* at the unit's start: standard deviation, over the resident CTAs, of their
                                * warps' mean instructions issued (how far apart the CTAs stand) */
    double warp_spread;        /* at the unit's start: standard deviation of the warps' instructions issued
                                * within each resident CTA, root mean square over the CTAs (how far apart
                                * a CTA's warps stand: in gemm they share their B lines in the L1) */
} gpuest_sample_unit_t;

typedef struct {
    gpuest_sample_unit_t *units;
    size_t num_units;
    size_t num_kernels;
    uint64_t *kernel_warp_insts;   /* from the counting pass */
    uint64_t *kernel_thread_insts;
    uint64_t detailed_cycles;      /* every detailed cycle: warming, units and drains */
    uint64_t drain_cycles;
    uint64_t ff_warp_insts;        /* instructions fast-forwarded */
    uint64_t detailed_warp_insts;  /* instructions simulated in detail (ff + detailed = counted total) */
    double wall_seconds;
    double cpu_seconds;            /* process CPU time of the whole sampled run ... */
    double count_seconds, ff_seconds; /* ... of which the counting pass and fast-forward (the rest: detailed) */
    uint64_t ff_schedule_hash;     /* FNV-1a over (SM, warp slot, virtual cycle) of every instruction fast-forward
                                    * issued: two runs with the same hash released every warp at the same cycles */
    uint64_t ff_parks_bulk, ff_parks_list; /* fast-forward's wake-ups of warps waiting for the LD/ST unit, parked
                                    * in the bit set and in the list (slow_paths: the list alone) */
    uint64_t *kernel_tail_warp_insts; /* tail_stratum only (else NULL): warp instructions of each kernel's last
                                    * wave of CTAs, from the counting pass */
    uint64_t ff_walk_warp_insts;   /* ff_walk: of ff_warp_insts, those the untimed walk took (0 without it) */
    uint64_t l2_tags_hash;         /* FNV-1a over every L2 bank's ways (line, valid, dirty) at the run's end */
} gpuest_sample_result_t;

gpuest_err gpuest_sim_sample(const gpuest_config_t *cfg, const gpuest_sim_source_t *src,
                             const gpuest_sim_source_t *count_src, const gpuest_sample_opts_t *opts,
                             gpuest_sample_result_t *out, gpuest_error_t *err);
void gpuest_sample_result_free(gpuest_sample_result_t *r); /* NULL-safe */

#ifdef __cplusplus
}
#endif
#endif
