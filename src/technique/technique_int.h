/* technique_int.h: private declarations shared by the technique files. */
#ifndef GPUEST_TECHNIQUE_INT_H
#define GPUEST_TECHNIQUE_INT_H

#include "technique.h"

/* Appends one statistic when there is room; returns the new count. */
static inline size_t tech_stat(gpuest_technique_stat_t *out, size_t n, size_t max, const char *name, double v)
{
    if (n >= max)
        return n;
    size_t i = 0;
    for (; name[i] && i + 1 < GPUEST_TECH_STAT_NAME; i++)
        out[n].name[i] = name[i];
    out[n].name[i] = '\0';
    out[n].value = v;
    return n + 1;
}

/* tech_l1compression.c, for tests: the set-sampling counters of SM sm for mode m (hits,
 * insertions) and its current follower mode, from the technique's state (hooks.ctx). */
void tech_l1c_counts(const void *state, int sm, int mode, uint64_t *hits, uint64_t *misses);
int tech_l1c_mode(const void *state, int sm);
/* Kernel-OPT: every SM's mode from now on (policy: the config's technique.l1_compression). */
gpuest_err tech_l1c_set_mode(void *state, int mode, gpuest_error_t *err);

/* coalescing_model.c: the options of the functional walk every model transform runs (the
 * machine's SMs, residency and L1 geometry). */
void tech_walk_opts(const gpuest_config_t *cfg, gpuest_charact_opts_t *o);
/* coalescing_model.c: the model transform of technique.coalescing = pcu, and the inter-core
 * locality ratio it rests on (shared read line requests over read line requests, window
 * = MC ports x technique.pcu_rgrs read requests; runs every remaining launch of wl). */
gpuest_err tech_coal_locality(const gpuest_config_t *cfg, gpuest_workload_t *wl, double *ratio, gpuest_error_t *err);
/* filtering_model.c: the model transform of technique.filtering (reply flits from sector masks). */
gpuest_err tech_flt_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
gpuest_err tech_coal_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
/* coalescing_model.c: the PCUs' locality window (MC ports x technique.pcu_rgrs read requests). */
int tech_coal_window(const gpuest_config_t *cfg);
/* warppool_model.c: the model transform of technique.coalescing = warppool and pcu+warppool, and
 * the pool it walks (per SM: `queues` queues of up to `depth` loads of one line; exposed for the
 * tests). tech_wpm_request: 1 when the request merged into an open queue of its line. */
gpuest_err tech_wp_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
typedef struct tech_wpm_pool_s tech_wpm_pool_t;
gpuest_err tech_wpm_create(int sms, int queues, int depth, tech_wpm_pool_t **out, gpuest_error_t *err);
void tech_wpm_destroy(tech_wpm_pool_t *p);
void tech_wpm_flush(tech_wpm_pool_t *p);
int tech_wpm_request(tech_wpm_pool_t *p, int sm, uint64_t line, int is_load);
double tech_wpm_merged_share(const tech_wpm_pool_t *p);
/* wp_l1walk.c: the plain L1 walked in the order a WarpPool of `queues` full queues hands it the
 * requests (queues = 0: no pool). request: a line request of `warp` on SM sm; turn: `warp` starts
 * its turn (its queued requests access the L1, then its fills arrive); launch_end: the pool drains
 * and the L1 empties. miss_rate: read misses over read accesses (merged requests make none). */
typedef struct tech_wpl1_s tech_wpl1_t;
gpuest_err tech_wpl1_create(int sms, int sets, int assoc, int queues, int depth, tech_wpl1_t **out,
                            gpuest_error_t *err);
void tech_wpl1_destroy(tech_wpl1_t *w);
gpuest_err tech_wpl1_request(tech_wpl1_t *w, int sm, uint32_t warp, uint64_t line, int is_load, gpuest_error_t *err);
gpuest_err tech_wpl1_turn(tech_wpl1_t *w, int sm, uint32_t warp, gpuest_error_t *err);
gpuest_err tech_wpl1_launch_end(tech_wpl1_t *w, gpuest_error_t *err);
double tech_wpl1_miss_rate(const tech_wpl1_t *w);
uint64_t tech_wpl1_accesses(const tech_wpl1_t *w);
uint64_t tech_wpl1_misses(const tech_wpl1_t *w);
/* wp_setres.c: the L1's set reservations replayed in time (allocate on miss: a miss reserves a
 * way for miss_latency cycles; an allocating access that finds every way of its set reserved stalls
 * until the set's earliest fill), behind a WarpPool of `queues` FIFO queues of `depth` loads whose
 * accesses start `latency` cycles after entering it, or (queues = 0) from the in-order LD/ST unit.
 * stall_per_request: stall cycles over line requests (all after launch_end). */
typedef struct tech_wsr_s tech_wsr_t;
typedef struct {
    uint64_t requests, accesses, hits, mshr_merges, allocs, riders;
    uint64_t blocked, stall_cycles; /* allocating accesses that found their set reserved; their wait */
    uint64_t cycles; /* the L1 side's cycles, launch by launch: to the last access (after launch_end) */
} tech_wsr_counts_t;
gpuest_err tech_wsr_create(int sms, int sets, int assoc, int queues, int depth, int latency, int miss_latency,
                           tech_wsr_t **out, gpuest_error_t *err);
void tech_wsr_destroy(tech_wsr_t *w);
void tech_wsr_request(tech_wsr_t *w, int sm, uint64_t line, int is_load);
void tech_wsr_launch_end(tech_wsr_t *w);
tech_wsr_counts_t tech_wsr_counts(const tech_wsr_t *w);
double tech_wsr_stall_per_request(const tech_wsr_t *w);
/* The L1 side's cycles without an access (reservation stalls, and with a pool also the cycles its
 * accesses wait for their requests' pool latency) over line requests (after launch_end). */
double tech_wsr_idle_per_request(const tech_wsr_t *w);
/* probing_model.c: the model transform of technique.probing (pp, dp, ip); the probability that C
 * of `others` cores taken at random include one of k sharers; the mapping of the walk's misses by
 * sharer count (holders[0..GPUEST_CHARACT_MAX_HOLDERS]) onto the transform (for tests). */
gpuest_err tech_probe_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
double tech_probe_find_prob(int others, int cores, int k);
/* The share of L1 read misses the PC sharing predictor (probe_predictor.c) calls shared at its
 * fixed point when a miss it probes brings a remote hit with probability g (the long-run rate; the
 * transform runs the predictor from its cold start over the walk instead, probe_pred_walk.c). */
double tech_probe_pred_rate(double g);
/* LA-LLC's walk: shares of L1 read misses whose last reader at the L2 (the simulator's
 * direct-mapped table of `entries` lines) is another SM that holds the line / no longer does. */
typedef struct tech_llc_walk_s tech_llc_walk_t;
gpuest_err tech_llc_walk_create(int sms, int sets, int assoc, size_t entries, tech_llc_walk_t **out,
                                gpuest_error_t *err);
void tech_llc_walk_destroy(tech_llc_walk_t *w);
void tech_llc_walk_access(tech_llc_walk_t *w, int sm, uint64_t line, int is_load);
void tech_llc_walk_flush(tech_llc_walk_t *w);
void tech_llc_walk_shares(const tech_llc_walk_t *w, double *hold, double *gone);
void tech_probe_map(const gpuest_config_t *cfg, uint64_t misses, const uint64_t *holders,
                    gpuest_model_transform_t *out);
/* probe_drift.c: SM s's rate in the probing walk (rate[0..num_sms-1], the fastest 1): T_min / T_s,
 * T_s the SM's zero-load L2-hit latency (L1 and L2 hit latencies, the mean zero-load request and
 * line-reply trip to the MCs, core cycles: tech_probe_sm_latency for the SM at sm_node). Returns 1
 * on a mesh; 0 (every rate 1) where all SMs are alike (a crossbar) or the placement is unknown. */
double tech_probe_sm_latency(const gpuest_config_t *cfg, const int *mc_node, int sm_node);
int tech_probe_sm_rates(const gpuest_config_t *cfg, double *rate);
/* probe_pred_walk.c: RP/CCN's PC sharing predictor (one per SM) over the walk's read misses; a miss
 * of sm at pc with k other holders; 1 when it is probed (a probed miss answers with probability
 * send x tech_probe_find_prob(others, cores, k), dealt per SM by error diffusion). */
typedef struct tech_ppw_s tech_ppw_t;
gpuest_err tech_ppw_create(int sms, int others, int cores, double send, tech_ppw_t **out, gpuest_error_t *err);
void tech_ppw_destroy(tech_ppw_t *w);
int tech_ppw_miss(tech_ppw_t *w, int sm, uint32_t pc, int k);
uint64_t tech_ppw_misses(const tech_ppw_t *w);
const uint64_t *tech_ppw_probed(const tech_ppw_t *w); /* probed misses by k, 0..GPUEST_CHARACT_MAX_HOLDERS */
/* probing_model.c: the walk's in-flight window, in read misses of all SMs: the baseline's measured
 * misses in flight (in_flight, rounded; 0: not known) up to num_sms x l1.mshrs, the most misses the
 * machine holds in flight; the mapping of RP/CCN's probed misses by k. */
uint64_t tech_probe_holder_delay(const gpuest_config_t *cfg, double in_flight);
void tech_probe_map_probed(const gpuest_config_t *cfg, uint64_t misses, const uint64_t *probed,
                           gpuest_model_transform_t *out);
/* probe_hops.c: mean hops of a probe traversal (SM to SM; index_selector 1: to the next SM in
 * index order, 0: to any other SM) over the mean hops of an SM-to-MC request; 1 off a mesh. */
double tech_probe_trip_scale(const gpuest_config_t *cfg, int index_selector);
/* LA-LLC's walk: a last reader counts as holding the line only once its read is `delay` misses old. */
void tech_llc_walk_set_delay(tech_llc_walk_t *w, uint64_t delay);
/* l1c_model.c: the model transform of technique.l1_compression's static policies, and the
 * compressed L1 it walks (per SM: sets x 4*assoc tags, assoc x 4 sub-blocks of 32 bytes per set,
 * LRU lines dropped until a fill fits; exposed for the tests). */
gpuest_err tech_l1c_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
typedef struct tech_l1cm_cache_s tech_l1cm_cache_t;
gpuest_err tech_l1cm_create(int sms, int sets, int assoc, tech_l1cm_cache_t **out, gpuest_error_t *err);
void tech_l1cm_destroy(tech_l1cm_cache_t *c);
void tech_l1cm_flush(tech_l1cm_cache_t *c);
void tech_l1cm_invalidate(tech_l1cm_cache_t *c, int sm, uint64_t line);
/* A read of `line`: 1 on a hit (*hit_compressed: the line is stored in fewer than 128 bytes); on
 * a miss the line is filled taking ceil(bytes / 32) sub-blocks, and 0 is returned. */
int tech_l1cm_access(tech_l1cm_cache_t *c, int sm, uint64_t line, int bytes, int *hit_compressed);
/* 1 when SM sm's L1 holds line (its LRU order untouched). */
int tech_l1cm_holds(tech_l1cm_cache_t *c, int sm, uint64_t line);
/* A miss of SM sm to `line` takes its tag now: a raw line's room until tech_l1cm_access fills it
 * (dropping at most one LRU valid line now; the simulator's reservation, l1_compressed.c). */
void tech_l1cm_reserve(tech_l1cm_cache_t *c, int sm, uint64_t line);
/* The effective capacity of SM sm's L1: valid lines x 128 B over its data bytes. */
double tech_l1cm_capacity(const tech_l1cm_cache_t *c, int sm);

/* The L1 fills the walk defers to the requesting warp's next turn (l1c_fillq.c). which: 1 the
 * plain L1, 2 the compressed one, 3 both. take hands back the warp's fills in request order and
 * empties its list (the array stays valid until the next push). */
typedef struct {
    uint64_t line;
    int32_t sm;
    int32_t which;
    uint64_t seq; /* the timed fills' name for it (l1c_filltime.c); 0: none */
} tech_fill_t;
typedef struct tech_fillq_s tech_fillq_t;
gpuest_err tech_fillq_create(tech_fillq_t **out, gpuest_error_t *err);
void tech_fillq_destroy(tech_fillq_t *q);
gpuest_err tech_fillq_push(tech_fillq_t *q, uint32_t warp, tech_fill_t f, gpuest_error_t *err);
size_t tech_fillq_take(tech_fillq_t *q, uint32_t warp, const tech_fill_t **fills);
void tech_fillq_clear(tech_fillq_t *q);
/* The warp's queued fills (those not taken yet): how many, and the pos-th (NULL past the end). */
size_t tech_fillq_len(const tech_fillq_t *q, uint32_t warp);
tech_fill_t *tech_fillq_at(tech_fillq_t *q, uint32_t warp, size_t pos);
/* l1c_filltime.c: the walk's fills timed by a miss latency in the SM's own reads. Each SM counts
 * its L1 reads; a miss noted at read c is due once the SM has made `delay` more reads (it lands
 * before read c + delay + 1). delay 0: off (nothing is ever due; fills wait for the warp's turn). */
typedef struct {
    tech_fill_t fill; /* the fill (fill.seq its name) */
    uint32_t warp;
    uint32_t pos;
    uint64_t due;
} tech_ftime_t;
typedef struct tech_filltime_s tech_filltime_t;
gpuest_err tech_filltime_create(int sms, uint64_t delay, tech_filltime_t **out, gpuest_error_t *err);
void tech_filltime_destroy(tech_filltime_t *t);
void tech_filltime_clear(tech_filltime_t *t);
uint64_t tech_filltime_delay(const tech_filltime_t *t);
/* SM sm makes a read: its count goes up by one. */
void tech_filltime_read(tech_filltime_t *t, int sm);
/* A miss of SM fill.sm at its current read, queued as fill pos of warp's list (fill.seq names it). */
gpuest_err tech_filltime_note(tech_filltime_t *t, uint32_t warp, uint32_t pos, tech_fill_t fill,
                              gpuest_error_t *err);
/* The next fill of SM sm that is due now, in miss order: 1 and *f, or 0. */
int tech_filltime_pop(tech_filltime_t *t, int sm, tech_ftime_t *f);
/* The 18 FANN features (gpuest_l1c_fann_feature_names) the model can supply at candidate
 * v->current and EP position ep_in_period (l1c_model.c; the queue features are 0). */
void tech_l1c_fann_features(const gpuest_model_l1c_view_t *v, int ep_in_period, double x[GPUEST_L1C_FANN_FEATURES]);
/* Drops every line of SM sm stored in fewer than 128 bytes (a new SC book replaced the old one). */
void tech_l1cm_invalidate_compressed(tech_l1cm_cache_t *c, int sm);
/* l1c_scbook.c: the SC code book of the L1 walk per SM, rebuilt per period as the simulator's
 * (EPs of 256 reads, 10 a period; sampled in the first EP and in every EP 9, a new book at their
 * ends). tech_scbook_fill: the bytes a line filled now takes (128: raw, no book yet or no gain),
 * sampling it when its EP samples. tech_scbook_read: one read of SM sm counted; *invalidate = 1
 * when a period's new book took over and the SC lines must go. */
typedef struct tech_scbook_s tech_scbook_t;
gpuest_err tech_scbook_create(int sms, tech_scbook_t **out, gpuest_error_t *err);
void tech_scbook_destroy(tech_scbook_t *b);
int tech_scbook_fill(tech_scbook_t *b, int sm, uint64_t line, const uint8_t *data);
gpuest_err tech_scbook_read(tech_scbook_t *b, int sm, int *invalidate, gpuest_error_t *err);
uint64_t tech_scbook_books(const tech_scbook_t *b);
/* dq_replay.c: the decompression queue of eq. 3 (lat core cycles a line, 256 lines, per SM) replayed
 * on the walk's order at read-line spacings of 2^j core cycles (j < GPUEST_MODEL_DQ_SPACINGS), an
 * instruction's line requests one a cycle; waits: mean cycles per compressed hit at each spacing. */
typedef struct tech_dq_replay_s tech_dq_replay_t;
gpuest_err tech_dq_replay_create(int sms, int lat, tech_dq_replay_t **out, gpuest_error_t *err);
void tech_dq_replay_destroy(tech_dq_replay_t *r);
void tech_dq_replay_inst(tech_dq_replay_t *r, int sm);                  /* SM sm starts a memory instruction */
void tech_dq_replay_read(tech_dq_replay_t *r, int sm, int compressed_hit); /* one of its read line requests */
void tech_dq_replay_flush(tech_dq_replay_t *r);                         /* a launch ends: queues empty */
void tech_dq_replay_waits(const tech_dq_replay_t *r, double wait[GPUEST_MODEL_DQ_SPACINGS]);

/* l1c_learnwin.c: the adaptive compressed-L1 policies' learning windows on the walk's reads (per SM
 * EPs of 256 reads, 10 a period, going on across launches; candidate k's dedicated sets: with
 * stride = sets / 4, set s when s mod stride == k < ncand). read: one read of SM sm, plain_hit in
 * the plain L1 (counts for candidate 0's sets), comp_hit in candidate cand's compressed L1 (counts
 * for cand's sets); hits of EPs 0 and 1 are committed when their EP ends. has_evidence: some
 * learning EP ended and some candidate's window saw a hit; without it the policy stays in none. */
typedef struct tech_l1c_learn_s tech_l1c_learn_t;
gpuest_err tech_l1c_learn_create(int sms, int sets, int ncand, tech_l1c_learn_t **out, gpuest_error_t *err);
void tech_l1c_learn_destroy(tech_l1c_learn_t *t);
int tech_l1c_learn_group(const tech_l1c_learn_t *t, int set); /* the candidate set `set` samples, -1: follower */
void tech_l1c_learn_read(tech_l1c_learn_t *t, int sm, uint64_t line, int plain_hit, int comp_hit, int cand);
uint64_t tech_l1c_learn_hits(const tech_l1c_learn_t *t, int k);
uint64_t tech_l1c_learn_eps(const tech_l1c_learn_t *t);
int tech_l1c_learn_has_evidence(const tech_l1c_learn_t *t);

#endif
