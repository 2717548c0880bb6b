/* sim_int.h: private structures shared by the simulator's components (one component per .c file). */
#ifndef GPUEST_SIM_INT_H
#define GPUEST_SIM_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "noc/noc.h"
#include "sim/sim.h"

/* Every timestamp is an absolute time in femtoseconds (int64: ~2.5 hours of
 * simulated time). Each clock domain's period is rounded to a whole fs. */
typedef int64_t sim_time_t;
#define SIM_NONE (-1)

/* ---------------------------------------------------------------- counters
 * Raw counters, all uint64, so a kernel's figures are (end - start) element by
 * element. Latency sums are in fs. */
#define SIM_COUNTER_LIST(X)                                                                                            \
    X(warp_insts) X(thread_insts) X(l1_accesses) X(l1_hits) X(l1_misses) X(l1_merges) X(l1_mshr_stalls)                \
    X(l1_missq_stalls) X(ctrl_packets) X(ctrl_flits) X(ctrl_received) X(store_reqs) X(atomic_reqs) X(read_reqs) X(write_reqs) X(replies) X(read_done)              \
    X(miss_fs) X(req_fs) X(mem_fs) X(reply_fs) X(amat_fs) X(amat_n) X(l2_accesses) X(l2_hits) X(l2_misses)           \
    X(l2_merges) X(dram_reads) X(dram_writes) X(dram_row_hits) X(mc_cycles) X(mc_stalls) X(loc_reads) X(loc_sh0)      \
    X(loc_sh1) X(loc_sh2) X(loc_sh3) X(loc_sh4) X(avail_sum) X(sm_cycles) X(sched_issue) X(sched_runs)            \
    X(l1i_accesses) X(l1i_misses) X(l1c_accesses) X(l1c_misses) X(front_reqs)                                        \
    X(dram_acts) X(dram_bus) X(dram_cycles)                                                                       \
    X(wp_requests) X(wp_merged) X(wp_accesses) X(wp_full) X(write_bytes) X(dram_turns)
enum {
#define SIM_CTR_ENUM(n) SC_##n,
    SIM_COUNTER_LIST(SIM_CTR_ENUM)
#undef SIM_CTR_ENUM
        SC_COUNT
};
typedef struct {
    uint64_t v[SC_COUNT];
} sim_counters_t;

/* ---------------------------------------------------------------- growable index queue (FIFO ring) */
typedef struct {
    int32_t *buf;
    uint32_t cap, head, len;
} sim_fifo_t;
int sim_fifo_push(sim_fifo_t *q, int32_t v); /* 0 ok, -1 out of memory */
int32_t sim_fifo_pop(sim_fifo_t *q);         /* caller checks len */
static inline int32_t sim_fifo_peek(const sim_fifo_t *q) { return q->buf[q->head]; }
void sim_fifo_free(sim_fifo_t *q);

/* ---------------------------------------------------------------- memory requests
 * One record per line request that leaves the LD/ST unit: sent ones travel the
 * network and come back; merged ones wait on an L1 MSHR entry. Records live in
 * a pool addressed by index (the NoC payload is index + 1). */
typedef enum { RQ_FREE = 0, RQ_MERGED, RQ_MISSQ, RQ_REQ_NET, RQ_AT_MC, RQ_REPLY_NET } sim_req_state_t;
/* The SM cache a read request fills: the L1D, the instruction cache or the
 * constant cache (the last two travel as ordinary read requests). */
typedef enum { RC_DATA = 0, RC_INST = 1, RC_CONST = 2 } sim_req_cache_t;

typedef struct {
    uint64_t line;
    uint8_t sectors;
    uint8_t op;    /* gpuest_mem_op_t */
    uint8_t state; /* sim_req_state_t */
    uint8_t cache; /* sim_req_cache_t */
    int8_t load;   /* load slot of the warp (data loads and atomics) */
    uint8_t fetch; /* an L2 fetch-on-write read: fills the line, answered by nobody (l2.c) */
    int16_t sm;
    int16_t mc;
    int32_t warp;  /* warp slot in the SM */
    int32_t next;  /* L1 MSHR merge chain (and the pool's free list) */
    int32_t next2; /* L2 MSHR merge chain */
    int32_t flits; /* reply flits (after the mc_reply hook) */
    int32_t extra_core; /* decompression cycles at the SM */
    int32_t inject_delay; /* L2 cycles in the MC's reply pipe (compressor) */
    int32_t ctrl_flits;   /* control packet to the same SM ahead of the reply (0: none) */
    int32_t bcast_flits;  /* control packet to every SM ahead of the reply (0: none) */
    int16_t bcast_next;   /* next SM of the broadcast */
    uint8_t overlap;      /* inject_delay counts from t_reply (overlaps the reply queue) */
    uint8_t carrier;      /* a multicast reply in flight: group_next chains its members (mc.c) */
    int32_t group_next;   /* reads answered by this request's reply (JOIN), or a carrier's members; -1 none */
    int32_t copies_left;  /* carrier: member copies not yet received */
    sim_time_t t_access;  /* L1 access */
    sim_time_t t_created; /* request packet created (enters the miss queue) */
    sim_time_t t_accept;  /* tail accepted at the MC */
    sim_time_t t_reply;   /* reply packet created at the MC */
    sim_time_t t_inject_ok; /* earliest injection of the reply (compressor latency) */
    uint8_t llc_back;       /* LA-LLC: the sharer missed; the L2 answers this read itself (probe.c) */
    uint8_t reply_sectors;  /* data filtering: sectors the reply carries (0: the whole line; 0x10: none) */
    uint8_t pdr;            /* data filtering: a partial data request of the L1D's sector mode */
    uint8_t answered;       /* data filtering: its warp was answered by another reply of the line (l1_sector.c) */
    uint8_t l2_miss;        /* the L2 missed it (a DRAM read or an L2 MSHR merge): the sampler's latency draws */
} sim_req_t;

typedef struct {
    sim_req_t *r;
    int32_t cap, free_head, live;
} sim_pool_t;
int32_t sim_pool_alloc(sim_pool_t *p); /* -1 out of memory */
void sim_pool_release(sim_pool_t *p, int32_t i);
void sim_pool_free(sim_pool_t *p);

/* ---------------------------------------------------------------- set-associative tag array (cache.c) */
typedef struct {
    uint64_t tag;    /* line address */
    uint64_t lru;    /* last-use stamp */
    uint8_t valid;   /* sector mask of valid data (L2: 0xF when valid) */
    uint8_t dirty;
    uint8_t reserved; /* allocated at miss time, data not yet back (GPGPU-Sim's RESERVED line) */
} sim_way_t;

typedef struct {
    int sets, assoc, line_bytes;
    uint64_t stamp;
    sim_way_t *ways; /* sets * assoc */
} sim_tags_t;

gpuest_err sim_tags_init(sim_tags_t *t, const char *section, int size_bytes, int line_bytes, int assoc,
                         gpuest_error_t *err);
void sim_tags_free(sim_tags_t *t);
void sim_tags_invalidate_all(sim_tags_t *t);
/* Way holding line (set from index_addr), or NULL. Touches LRU when touch. */
sim_way_t *sim_tags_find(sim_tags_t *t, uint64_t index_addr, uint64_t line, int touch);
/* Victim way for line (invalid first, then LRU); the caller reads the old
 * contents before overwriting. */
sim_way_t *sim_tags_victim(sim_tags_t *t, uint64_t index_addr);
void sim_tags_fill(sim_tags_t *t, sim_way_t *w, uint64_t line, uint8_t valid);
/* Allocate-on-miss (GPGPU-Sim's 'm' policy): reserves a way for line, choosing
 * the victim among unreserved ways (invalid first, then LRU); *old receives the
 * victim's previous contents (for a write-back). NULL when every way of the set
 * is reserved: the miss then fails reservation. */
sim_way_t *sim_tags_reserve(sim_tags_t *t, uint64_t index_addr, uint64_t line, sim_way_t *old);
/* The reserved way waiting for line, or NULL. */
sim_way_t *sim_tags_find_reserved(sim_tags_t *t, uint64_t index_addr, uint64_t line);

/* ---------------------------------------------------------------- MSHR table (mshr.c) */
typedef struct {
    uint64_t line;
    int32_t head, tail; /* request chain through sim_req_t.next */
    int32_t count;
    uint8_t valid;
} sim_mshr_entry_t;

typedef struct {
    sim_mshr_entry_t *e;
    int entries, merge, used;
    int l2; /* 1: chains run through sim_req_t.next2 (a request sits in an L1 and an L2 chain at once) */
} sim_mshr_t;
static inline int32_t *sim_mshr_link(const sim_mshr_t *m, sim_req_t *r) { return m->l2 ? &r->next2 : &r->next; }

gpuest_err sim_mshr_init(sim_mshr_t *m, int entries, int merge, gpuest_error_t *err);
void sim_mshr_free(sim_mshr_t *m);
int sim_mshr_find(const sim_mshr_t *m, uint64_t line);                  /* entry index or -1 */
int sim_mshr_alloc(sim_mshr_t *m, uint64_t line, sim_pool_t *p, int32_t req); /* -1 when full */
int sim_mshr_add(sim_mshr_t *m, int e, sim_pool_t *p, int32_t req);       /* 0 ok, -1 merge limit */
int32_t sim_mshr_release(sim_mshr_t *m, int e);                         /* returns the chain head */

/* ---------------------------------------------------------------- SM (sm.c, scheduler.c, l1.c) */
typedef enum { WS_EMPTY = 0, WS_ACTIVE, WS_BARRIER, WS_DONE } sim_warp_state_t;

/* Loads (and atomics, constant-cache misses) of one warp in flight at once. */
#define SIM_LOADS_PER_WARP 8

/* One load in flight: its destination registers stay pending on the warp's
 * scoreboard until every line request has returned. */
typedef struct {
    int32_t pending;  /* line requests not yet returned; 0: slot free */
    sim_time_t done;  /* latest completion of a returned line */
    uint64_t issue;   /* core cycle of issue */
    int hits, misses;
    uint8_t ndst, dst[GPUEST_INST_MAX_DST];
} sim_load_t;

typedef struct {
    uint8_t state;
    uint8_t ifetch_wait;     /* the next instruction's L1I line is being fetched */
    int32_t cta_slot;
    uint64_t age;            /* assignment order, for GTO "oldest" */
    void *stream;            /* source warp handle */
    gpuest_inst_t inst;      /* next instruction (fetched) */
    uint64_t iline;          /* L1I line of the last fetch (the fetch buffer) */
    sim_time_t *reg_ready;   /* scoreboard: GPUEST_REG_COUNT write-back times, INT64_MAX while a load is pending */
    sim_time_t last_write;   /* latest write-back of an issued instruction (barrier, exit) */
    int32_t pending_loads;   /* loads in flight */
    int32_t pending_stores;  /* stores without acknowledgement */
    sim_load_t load[SIM_LOADS_PER_WARP];
    uint64_t issued;         /* instructions since the warp started (sample.c: per-warp rates) */
} sim_warp_t;

/* A warp waiting on an instruction or constant cache line (front.c). */
typedef struct {
    uint64_t line;  /* the cache's line address */
    int32_t warp;   /* warp slot */
    int8_t slot;    /* load slot (constant misses), -1 for instruction fetches */
    uint8_t cache;  /* RC_INST or RC_CONST */
} sim_fwait_t;

typedef struct {
    int used;
    uint32_t cta_id;
    int warps_live; /* warps not yet done */
    int at_barrier;
    int nwarps;
    int first_warp; /* warp slots first_warp .. first_warp + nwarps - 1 */
} sim_cta_t;

typedef struct {
    int last;        /* warp slot issued last, -1 none */
    int nslots;      /* warp slots of this scheduler: slot = sched + k * nsched */
    uint64_t runs, issues;
} sim_sched_t;

/* The LD/ST unit: one memory instruction at a time, one line request per cycle. */
typedef struct {
    int busy;
    int warp;
    int load; /* load slot of the warp (loads, atomics) */
    int op;
    int stalled;   /* the last try stalled and nothing it depends on changed since (see ldst_step) */
    int stall_ctr; /* counter the stall is charged to (SC_l1_mshr_stalls / SC_l1_missq_stalls) */
    size_t n, next;
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    uint32_t pc; /* the memory instruction's pc (remote-L1 probing's predictor) */
} sim_ldst_t;

typedef struct sim_gpu_s sim_gpu_t;

typedef struct {
    int id, node;
    sim_warp_t *warps; /* warps_per_sm slots */
    sim_cta_t *ctas;   /* ctas_per_sm slots */
    sim_sched_t *sched;
    int nsched;
    int warps_used, ctas_used, threads_used, regs_used, shmem_used;
    sim_ldst_t ldst;
    sim_tags_t l1;
    sim_mshr_t mshr;
    sim_fifo_t missq; /* request indices waiting for the NI */
    sim_tags_t l1i, l1c;  /* instruction and constant caches (front.c) */
    sim_fifo_t fmissq;    /* their read requests waiting for the NI (ahead of missq) */
    sim_fwait_t *fwait;   /* warps waiting on their fills */
    int nfwait, capfwait;
    sim_time_t *regs;     /* scoreboards: warps_per_sm x GPUEST_REG_COUNT */
    sim_time_t sleep_until; /* no warp can become ready before this (0: scan every cycle) */
    /* time series accumulation over the current interval */
    uint64_t iv_avail, iv_cycles, iv_issue, iv_runs;
    uint64_t l1_port_cycle; /* core cycle + 1 of the last local L1D access (remote probes wait for a free port) */
    /* the same, cumulative over the run (the compressed L1's latency tolerance input) */
    uint64_t lt_avail, lt_cycles, lt_issue, lt_runs;
    struct sim_l1c_s *l1comp; /* compressed L1D state (l1_compressed.c); NULL: plain L1D */
    struct sim_wp_s *wp; /* WarpPool between the LD/ST unit and the L1D (warppool.c), NULL when off */
    struct sim_l1s_s *l1s; /* the L1D's sector mode of data filtering (l1_sector.c), NULL when off */
} sim_sm_t;

gpuest_err sim_sm_init(sim_gpu_t *g, sim_sm_t *sm, int id, int node, gpuest_error_t *err);
void sim_sm_free(sim_gpu_t *g, sim_sm_t *sm);
int sim_sm_fits(const sim_gpu_t *g, const sim_sm_t *sm, const gpuest_launch_t *l);
gpuest_err sim_sm_assign_cta(sim_gpu_t *g, sim_sm_t *sm, uint32_t cta, gpuest_error_t *err);
/* Phase 1 of a core cycle: schedule + issue, LD/ST unit, miss queue -> NI. */
gpuest_err sim_sm_cycle(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err);
/* Phase 2: one reply from the NI. */
gpuest_err sim_sm_receive(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err);
void sim_sm_abort(sim_gpu_t *g, sim_sm_t *sm); /* closes every open warp stream */
int sim_sm_busy(const sim_sm_t *sm);

/* scheduler.c: picks the warp slot to issue on scheduler s, or -1. ready[] marks
 * slots able to issue this cycle. */
int sim_sched_pick(sim_gpu_t *g, sim_sm_t *sm, int s, const uint8_t *ready);
void sim_sched_issued(sim_sm_t *sm, int s, int slot);
/* sim_sched_pick with scheduler s's ready slots also given as a bit set (nw 64-bit words) and their ages
 * taken from ages[slot] (== sm->warps[slot].age). */
int sim_sched_pick_bits(sim_gpu_t *g, sim_sm_t *sm, int s, const uint8_t *ready, const uint64_t *bits, int nw,
                        const uint64_t *ages);

/* sm.c: a line request of load slot `load` of warp `warp` completed at `done`. */
void sim_load_line_done(sim_gpu_t *g, sim_sm_t *sm, int warp, int load, sim_time_t done, int hit);
int sim_load_slot_free(const sim_warp_t *w); /* a free load slot index, or -1 */

/* front.c: instruction fetch through the L1I and constant reads through the L1C. */
#define SIM_CODE_BASE UINT64_C(0xF0000000)  /* GPGPU-Sim's PROGRAM_MEM_START */
#define SIM_CODE_BYTES_PER_KERNEL 0x10000  /* 64 KB of code per distinct kernel */
#define SIM_CONST_BASE UINT64_C(0xFF000000) /* the 64 KB constant space */
gpuest_err sim_front_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err);
void sim_front_free(sim_sm_t *sm);
/* The warp's next instruction was fetched from its stream: look its pc up in the L1I. */
void sim_front_fetch(sim_gpu_t *g, sim_sm_t *sm, int warp);
/* Issues a constant read: its destination is ready at the returned time, or
 * (INT64_MAX) when a line missed and the read occupies load slot *slot_out. */
sim_time_t sim_front_const(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_inst_t *in);
/* A reply for an instruction or constant request arrived. */
void sim_front_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t req);
int sim_front_idle(const sim_sm_t *sm);
/* Picks the code segment of the launch just begun (one per distinct kernel name). */
gpuest_err sim_front_launch(sim_gpu_t *g, gpuest_error_t *err);

/* l1.c */
typedef enum { L1_HIT = 0, L1_MISS_SENT, L1_MISS_MERGED, L1_STALL_MSHR, L1_STALL_MISSQ } sim_l1_outcome_t;
sim_l1_outcome_t sim_l1_load(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int op);
int sim_l1_store(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int op); /* 0 sent, -1 stall */
void sim_l1_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t req);
sim_time_t sim_l1_hit_time(sim_gpu_t *g, const sim_sm_t *sm, uint64_t line); /* fs, with the l1_hit_extra hook */
/* The current load of warp answered by an L1 hit at time done: its completion and the hit counters. */
void sim_l1_hit_done(sim_gpu_t *g, sim_sm_t *sm, int warp, sim_time_t done);
int32_t sim_l1_new_request(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r, int op); /* -1: no memory */
/* Record i enters the miss queue: its state and creation time, and the l1_miss hook. */
void sim_l1_mark_missq(sim_gpu_t *g, int32_t i);

/* l1_compressed.c: the compressed L1D organization (LATTE-CC); sm->l1 then holds 4x tags. */
#define SIM_DQ_CAP 256
/* A decompressor's FIFO queue: completion times of the lines it is decompressing. */
typedef struct {
    sim_time_t done[SIM_DQ_CAP];
    int head, len;
} sim_dq_t;
/* Eq. 3: a hit at `now` on a line needing `lat` cycles (period fs each) enters the queue at
 * position pos (lines still queued or in service) and waits lat x (pos + 1) cycles; returns
 * that many cycles and sets *pos. */
int sim_dq_enter(sim_dq_t *q, sim_time_t now, sim_time_t period, int lat, int *pos);
gpuest_err sim_l1c_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err);
void sim_l1c_free(sim_sm_t *sm);
sim_time_t sim_l1c_hit(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way);   /* extra hit time (fs) */
void sim_l1c_miss(sim_gpu_t *g, sim_sm_t *sm, uint64_t line);
/* Whether a miss may reserve a tag in the set of line (fewer than assoc reserved there);
 * sim_l1c_reserved drops the LRU line when the set has no room for one more raw line, as the
 * plain L1D drops its victim at reservation. */
int sim_l1c_can_reserve(const sim_sm_t *sm, uint64_t line);
void sim_l1c_reserved(sim_sm_t *sm, sim_way_t *way);
void sim_l1c_filled(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way, uint64_t miss_cycles);
/* Fast-forward's functional access (sample.c): no queue timing, no miss latency, the policy's
 * hooks as in detailed mode. */
void sim_l1c_hit_functional(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way);
int sim_l1c_fill_functional(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way, uint64_t line);
/* warppool.c: inter-warp merging in front of the L1D (technique.coalescing = warppool, pcu+warppool).
 * With a pool the LD/ST unit's line requests enter it (sim_wp_step replaces the unit's L1 step). */
typedef struct sim_wp_s sim_wp_t;
int sim_wp_enabled(const gpuest_config_t *cfg);
gpuest_err sim_wp_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err); /* sm->wp = NULL when off */
void sim_wp_free(sim_sm_t *sm);
int sim_wp_len(const sim_sm_t *sm); /* requests waiting in the pool (0 without one) */
/* Puts one line request into the pool: 0, or -1 when no queue can take it. */
int sim_wp_insert(sim_gpu_t *g, sim_sm_t *sm, int warp, int load, const gpuest_line_req_t *r, int op);
/* One cycle: the FIFO head queue's L1 access (when due), then one request from the LD/ST unit. */
void sim_wp_step(sim_gpu_t *g, sim_sm_t *sm);
/* l1_sector.c: the L1D's sector mode (data filtering), on when hooks.l1_sector_request is set. */
gpuest_err sim_l1s_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err);
void sim_l1s_free(sim_sm_t *sm);
sim_l1_outcome_t sim_l1s_load(sim_gpu_t *g, sim_sm_t *sm, int warp, const gpuest_line_req_t *r);
void sim_l1s_fill(sim_gpu_t *g, sim_sm_t *sm, int32_t req);
int sim_l1s_load_functional(sim_gpu_t *g, sim_sm_t *sm, const gpuest_line_req_t *r, uint64_t now, uint64_t until);
void sim_l1s_ff_close(sim_gpu_t *g, sim_sm_t *sm);

/* ---------------------------------------------------------------- MC node (mc.c, l2.c, dram.c) */
/* A request in a DRAM channel: a line read (L2 miss or fetch-on-write) or a
 * line write (write-back of a dirty victim, or a write miss's data). */
typedef struct {
    int32_t req;    /* request index, or -1 for a write-back (nothing answers it) */
    int16_t sub;    /* sub-partition (MC node index) the data or the ack returns to */
    uint8_t write;
    uint8_t row_hit; /* counted as a row-buffer hit when it reached its bank */
    int bank;
    int64_t row;
    int atoms_left; /* column commands still to issue (line bytes / bytes per column command) */
} sim_dram_req_t;

/* One bank: open row and the earliest DRAM cycle of each command it may take
 * (GPGPU-Sim dram.cc keeps the same constraints as count-down counters). */
typedef struct {
    int active;       /* a row is open */
    int64_t row;      /* open row */
    int has_cur;      /* a request is being served (GPGPU-Sim's mrq) */
    sim_dram_req_t cur;
    int64_t rd_ok, wr_ok; /* column commands after ACT: tRCD, tRCDWR */
    int64_t pre_ok;       /* PRE: tRAS after ACT, tWTP after WR, burst after RD */
    int64_t act_ok;       /* ACT: tRC after the last ACT, tRP after PRE */
} sim_bank_t;

typedef struct {
    int64_t ccdl_ok, rtpl_ok, rrdl_ok; /* same-group column, read-to-precharge and activate constraints */
} sim_bankgrp_t;

typedef struct {
    sim_bank_t *banks;
    sim_bankgrp_t *groups;
    sim_dram_req_t *q; /* scheduler queue, arrival order: requests not yet given to a bank */
    int qlen, qcap;
    int inflight; /* L2 misses (reads, write data) from the L2 lookup to their completion; dram.queue_size bounds it */
    int64_t ccd_ok, rrd_ok, rtw_ok, wtr_ok; /* rank-wide: column, activate, read->write, write->read */
    int64_t bus_free; /* first DRAM cycle the data bus is free */
    int prio;         /* bank the command arbiter looks at first (GPGPU-Sim's prio) */
    int work;         /* requests queued or in banks: 0 lets the channel skip its cycle */
    /* tests: sees every command issued (cmd: SIM_DRAM_ACT / PRE / RD / WR) */
    void (*trace)(void *ctx, int cmd, int bank, int64_t row, int64_t cycle);
    void *trace_ctx;
    int last_column; /* direction of the last column command (0 none, SIM_DRAM_RD, SIM_DRAM_WR): counts turnarounds */
} sim_dram_t;
enum { SIM_DRAM_ACT = 0, SIM_DRAM_PRE, SIM_DRAM_RD, SIM_DRAM_WR };

typedef struct {
    sim_time_t ready;
    int32_t req;
} sim_timed_t;

/* FIFO of timed items (delay lines with constant latency stay sorted). */
typedef struct {
    sim_timed_t *buf;
    uint32_t cap, head, len;
} sim_tfifo_t;
int sim_tfifo_push(sim_tfifo_t *q, sim_time_t ready, int32_t req);
static inline const sim_timed_t *sim_tfifo_peek(const sim_tfifo_t *q) { return &q->buf[q->head]; }
void sim_tfifo_pop(sim_tfifo_t *q);
void sim_tfifo_free(sim_tfifo_t *q);

typedef struct {
    int id, node;
    int chan, sub;        /* DRAM channel and sub-partition within it (GPGPU-Sim memory_sub_partition) */
    sim_tfifo_t rop;      /* ROP delay line: accepted requests travel the minimum L2 latency (GPGPU-Sim m_rop) */
    sim_fifo_t reqq;      /* icnt->L2 queue, mc.request_queue entries; full stops acceptance from the NI */
    sim_fifo_t replyq;    /* L2->icnt queue, mc.reply_queue entries; full stops the L2 */
    sim_tfifo_t pipe;     /* reply pipe between the L2->icnt queue and the NI (only with an mc_reply hook):
                           * a pipelined unit such as a compressor, ready = when the reply may inject */
    sim_tfifo_t topipe;   /* L2 misses on their way to the DRAM queue (fixed part of the DRAM latency) */
    sim_tfifo_t fills;    /* DRAM data back, ready to fill the L2 */
    int32_t fill_pending; /* MSHR chain being answered after a fill, -1 none */
    int32_t front_wait;   /* a request ejected but refused by the front end (mc_front_accept), -1 none */
    sim_tags_t l2;
    sim_mshr_t mshr;
} sim_mc_t;

gpuest_err sim_mc_init(sim_gpu_t *g, sim_mc_t *mc, int id, int node, gpuest_error_t *err);
void sim_mc_free(sim_mc_t *mc);
gpuest_err sim_mc_cycle(sim_gpu_t *g, sim_mc_t *mc, gpuest_error_t *err);   /* phase 1 (L2 clock) */
gpuest_err sim_mc_receive(sim_gpu_t *g, sim_mc_t *mc, gpuest_error_t *err); /* phase 2 (L2 clock) */
/* Channel-local address: the channel interleaving bits removed (DRAM bank and row). */
uint64_t sim_mc_local(const sim_gpu_t *g, uint64_t addr);
/* Sub-partition (MC node index) serving addr, and the address within it (L2 set indexing).
 * Alternate lines of a channel go to alternate sub-partitions: GPGPU-Sim's GTX480
 * map takes the sub-partition from the lowest bank bit, address bit 7. */
int sim_mc_of(const sim_gpu_t *g, uint64_t addr);
uint64_t sim_sub_local(const sim_gpu_t *g, uint64_t addr);

/* l2.c: tag lookup of the request leaving the L2 pipeline; 1 consumed, 0 stalled. */
int sim_l2_access(sim_gpu_t *g, sim_mc_t *mc, int32_t req);
/* Puts a reply (read data or write ack) for req into the MC reply queue (caller checked room). */
int sim_mc_make_reply(sim_gpu_t *g, sim_mc_t *mc, int32_t req);
int sim_mc_reply_room(const sim_gpu_t *g, const sim_mc_t *mc);
/* A DRAM read came back: fill the line; its waiting requests go to the reply queue. */
int sim_l2_fill_step(sim_gpu_t *g, sim_mc_t *mc); /* 1 progress */

/* dram.c */
gpuest_err sim_dram_init(sim_gpu_t *g, sim_dram_t *d, gpuest_error_t *err);
void sim_dram_free(sim_dram_t *d);
/* Queues a line read or write from sub-partition mc; -1 out of memory. */
int sim_dram_push(sim_gpu_t *g, sim_mc_t *mc, int32_t req, uint64_t line, int write);
void sim_dram_cycle(sim_gpu_t *g, int chan); /* DRAM clock: schedule, then at most one command */
/* Derived GDDR timing, DRAM cycles (GPGPU-Sim's formulas). */
int sim_dram_burst_cycles(const gpuest_config_t *c); /* data-bus cycles of one column command */
int sim_dram_atoms(const gpuest_config_t *c);        /* column commands per line */
/* Unloaded read of a closed bank, DRAM cycles: ACT, tRCD, the column commands tCCD apart, tCL, burst. */
int sim_dram_unloaded_cycles(const gpuest_config_t *cfg);

/* ---------------------------------------------------------------- inter-core locality (locality.c) */
typedef struct {
    uint64_t line;
    sim_time_t start;
    uint64_t sms; /* SMs that read the line in this window (bit sm % 64) */
    int32_t next; /* hash chain */
} sim_loc_entry_t;

typedef struct {
    sim_time_t window;
    sim_loc_entry_t *ring; /* allocation order == expiry order */
    uint32_t cap, head, len;
    int32_t *bucket; /* nbuckets heads (ring positions) */
    uint32_t nbuckets;
    uint64_t shared; /* reads of a line another SM read earlier in the same window */
} sim_loc_t;

gpuest_err sim_loc_init(sim_loc_t *l, sim_time_t window, gpuest_error_t *err);
void sim_loc_free(sim_loc_t *l);
int sim_loc_access(sim_loc_t *l, uint64_t line, int sm, sim_time_t now); /* -1 out of memory */
void sim_loc_expire(sim_loc_t *l, sim_time_t now);
void sim_loc_flush(sim_loc_t *l);

/* ---------------------------------------------------------------- the GPU (gpu.c) */
struct sim_gpu_s {
    const gpuest_config_t *cfg;
    const gpuest_sim_source_t *src;
    const gpuest_sim_opts_t *opts;
    gpuest_noc_t *noc;
    int nsm, nmc; /* nmc: MC nodes = channels x sub-partitions */
    sim_sm_t *sm;
    sim_mc_t *mc;
    int nchan, nsub;
    sim_dram_t *chan; /* one DRAM channel per memory controller, shared by its sub-partitions */
    sim_pool_t pool;
    sim_counters_t ctr;
    sim_loc_t loc[GPUEST_SIM_LOCALITY_WINDOWS];

    /* clocks */
    sim_time_t period[GPUEST_CLK_DOMAINS];
    sim_time_t next[GPUEST_CLK_DOMAINS];
    uint64_t ticks[GPUEST_CLK_DOMAINS];
    sim_time_t now;

    /* derived latencies */
    sim_time_t l1_hit_fs, l2_hit_fs, dram_fixed_fs;
    int read_req_flits, read_reply_flits, write_ack_flits, line_bytes;
    int lat_class[5]; /* core cycles per gpuest_lat_class_t */
    uint64_t code_base; /* code segment of the current launch (front.c) */
    char (*kernel_names)[GPUEST_WL_NAME_MAX]; /* distinct kernel names seen, in order: code segments */
    int nkernel_names;

    /* current launch */
    gpuest_launch_t launch;
    int in_launch;
    uint32_t next_cta, ctas_done;
    int rr_sm;
    uint64_t age;

    /* progress tracking */
    uint64_t last_progress; /* core cycle of the last observed progress */
    int64_t noc_progress;

    gpuest_noc_stats_t noc_total;
    uint64_t *link_total; /* flits per link over the run */
    int nlinks;
    int failed; /* an allocation failed inside a component */
    int hold_issue; /* run control (sample.c): SMs issue nothing and no CTA starts (draining) */
    int functional; /* run control (sample.c): fast-forward, the L1I fills a missing line at once */
    gpuest_error_t *err; /* the run's error report */
    struct sim_probe_s *probe; /* remote-L1 probing (probe.c), NULL when no probing hook is set */
    /* run control (sample.c): when lat_ring is set, each data read's L1 miss latency (core cycles,
     * request to reply; the top bit set when the L2 missed it) goes into this ring of lat_cap entries
     * at lat_pos (sm.c) */
    uint32_t *lat_ring;
    uint32_t lat_cap;
    uint64_t lat_pos;
};

/* Time a decompressor of D (extra_core) cycles adds between a reply's ejection and its fill: D
 * core cycles, so the data is written back exactly D cycles later than without one. */
static inline sim_time_t sim_fill_delay_fs(const sim_gpu_t *g, const sim_req_t *q)
{
    return (sim_time_t)q->extra_core * g->period[GPUEST_CLK_CORE];
}

static inline uint64_t sim_core_cycle(const sim_gpu_t *g) { return g->ticks[GPUEST_CLK_CORE]; }
static inline void sim_progress(sim_gpu_t *g) { g->last_progress = g->ticks[GPUEST_CLK_CORE]; }
gpuest_err sim_oom(sim_gpu_t *g, const char *what);
/* Network injection of a request record; 0 injected, -1 busy. */
/* ---- network interface calls (the only place the simulator hands packets to the network) ---- */
int sim_inject(sim_gpu_t *g, int src, int dst, int cls, int flits, int32_t req);
/* One packet to the node set dests[0..n) (n >= 1; n = 1 is unicast), replicated by the routers
 * (coalescing paper section 4); every member ejects one copy carrying req. 0 on success, -1 when
 * the NI queue is full (retry next cycle); other failures set g->failed. */
int sim_inject_multicast(sim_gpu_t *g, int src, const int *dests, int n, int cls, int flits, int32_t req);
/* The same with any payload (remote-L1 probing tags its messages, probe.c). */
int sim_inject_payload(sim_gpu_t *g, int src, const int *dests, int n, int cls, int flits, void *payload);

/* run control for sampled simulation (gpu.c, sm.c; used by sample.c) */
gpuest_err sim_gpu_build(sim_gpu_t *g, gpuest_error_t *err);
void sim_gpu_teardown(sim_gpu_t *g);
gpuest_err sim_gpu_instant(sim_gpu_t *g, gpuest_error_t *err);       /* one scheduler instant, all domains due */
gpuest_err sim_gpu_assign_ctas(sim_gpu_t *g, gpuest_error_t *err);   /* starts CTAs where they fit */
gpuest_err sim_gpu_check_launch(const sim_gpu_t *g, gpuest_error_t *err);
gpuest_err sim_sm_retire_warp(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err);
gpuest_err sim_sm_barrier_arrive(sim_gpu_t *g, sim_sm_t *sm, int slot, gpuest_error_t *err);

/* ---------------------------------------------------------------- remote-L1 probing (probe.c) */
typedef struct sim_probe_s sim_probe_t;
gpuest_err sim_probe_init(sim_gpu_t *g, gpuest_error_t *err); /* g->probe stays NULL without probing hooks */
void sim_probe_free(sim_gpu_t *g);
/* l1.c: read miss i is about to enter the miss queue; 1 when probing took it (it reaches the miss
 * queue later, if at all). */
int sim_probe_take(sim_gpu_t *g, sim_sm_t *sm, int32_t i);
int sim_probe_functional_read(sim_gpu_t *g, sim_sm_t *sm, uint64_t line, uint8_t sectors, uint32_t pc);
void sim_probe_functional_llc(sim_gpu_t *g, const sim_mc_t *mc, const sim_sm_t *sm, uint64_t line, int hit);
/* gpu.c: every core cycle after the SMs' phase 1 (also for idle SMs: they answer probes). */
void sim_probe_cycle(sim_gpu_t *g);
/* sm.c: 1 when an ejected packet is a probe message (then sim_probe_receive consumes it). */
int sim_probe_is_msg(const gpuest_noc_packet_t *pkt);
gpuest_err sim_probe_receive(sim_gpu_t *g, sim_sm_t *sm, const gpuest_noc_packet_t *pkt, gpuest_error_t *err);
/* l2.c: LA-LLC, a load looked up in the L2 (hit or not); 1 when a hit was forwarded to a sharer. */
int sim_probe_llc(sim_gpu_t *g, sim_mc_t *mc, int32_t i, int hit);

/* stats.c */
void sim_stats_from_counters(const sim_gpu_t *g, const sim_counters_t *c, gpuest_sim_stats_t *s);
/* Counts warp's instructions to its END (gpuest_warp_count) when s is a workload's source
 * (gpuest_sim_source_workload): *counted = 1 and the counts added; else *counted = 0 and the
 * caller walks the warp with s->warp_next. (source.c) */
gpuest_err sim_source_count_warp(const gpuest_sim_source_t *s, void *warp, uint64_t *warp_insts,
                                 uint64_t *thread_insts, int *counted, gpuest_error_t *err);
void sim_stats_network(const sim_gpu_t *g, const gpuest_noc_stats_t *ns, const uint64_t *link_flits, int nlinks,
                       gpuest_sim_stats_t *s);
void sim_noc_stats_add(gpuest_noc_stats_t *acc, const gpuest_noc_stats_t *x);

/* x / d and x % d (d >= 1) by a shift and a mask when d is a power of two (the cache, channel and
 * bank geometries mostly are), else by the division: the same value either way, without a 64-bit
 * division on the fast-forward's tag and address paths (seventh session). */
static inline uint64_t sim_udiv(uint64_t x, uint64_t d)
{
    return (d & (d - 1)) == 0 ? x >> __builtin_ctzll(d) : x / d;
}

static inline uint64_t sim_umod(uint64_t x, uint64_t d)
{
    return (d & (d - 1)) == 0 ? x & (d - 1) : x % d;
}

#endif
