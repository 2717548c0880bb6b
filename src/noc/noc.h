/* noc.h: cycle-level interconnect (2D mesh of VC routers, crossbars), synthetic traffic and BookSim-style measurement. */
#ifndef GPUEST_NOC_H
#define GPUEST_NOC_H

#include <stdint.h>

#include "config/config.h" /* gpuest_noc_cfg_t: the machine's network section (type only) */
#include "core/core.h"     /* gpuest_err, gpuest_error_t, gpuest_progress_t */
#include "net/net.h"       /* topology, routing functions, the synthetic traffic description */

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ network
 *
 * Life cycle: gpuest_noc_opts_default -> gpuest_noc_create -> (inject / step /
 * eject)* -> gpuest_noc_destroy. Time is counted in interconnect cycles from 0;
 * gpuest_noc_now() is the cycle the next gpuest_noc_step() simulates. Packets
 * injected between two steps are created "at" gpuest_noc_now(). */

typedef struct gpuest_noc_s gpuest_noc_t;

/* Message classes. Each class gets its own VC partition or its own physical
 * network (cfg->class_split), so replies can never be blocked behind requests. */
typedef enum {
    GPUEST_NOC_REQUEST = 0, /* SM -> MC */
    GPUEST_NOC_REPLY = 1,   /* MC -> SM */
    GPUEST_NOC_PROBE = 2    /* SM -> SM (remote-L1 probing) */
} gpuest_noc_class_t;
#define GPUEST_NOC_MAX_CLASSES 3

/* Allocator of the VC and switch allocation stages. */
typedef enum {
    GPUEST_NOC_ALLOC_ISLIP = 0,          /* request / grant / accept, round-robin pointers moved on accept (BookSim "islip") */
    GPUEST_NOC_ALLOC_SEPARABLE_IF = 1    /* separable input-first: input arbiters, then output arbiters (BookSim "separable_input_first") */
} gpuest_noc_alloc_t;

/* Settings the machine configuration does not carry (network-level knobs and
 * the endpoint count of a crossbar). Start from gpuest_noc_opts_default(). */
typedef struct {
    int num_nodes;                 /* crossbar: endpoints (SMs + MCs); mesh: ignored (k*k) */
    int num_classes;               /* message classes in use, 1..GPUEST_NOC_MAX_CLASSES (VCs are split among them) */
    gpuest_routing_t routing[GPUEST_NOC_MAX_CLASSES]; /* per-class dimension order; create() fills request/reply from cfg
                                                         unless routing_override is set */
    int routing_override;          /* 1: use routing[] as given instead of cfg->routing_request / routing_reply */
    gpuest_noc_alloc_t vc_allocator;
    gpuest_noc_alloc_t sw_allocator;
    int alloc_iters;               /* iSLIP iterations, >= 1 */
    int wait_for_tail_credit;      /* 1: an output VC is reusable only after the tail's credit returns */
    int unbounded_eject;           /* 1: ejection queues never fill (synthetic traffic drained by the caller each cycle) */
} gpuest_noc_opts_t;

void gpuest_noc_opts_default(gpuest_noc_opts_t *opts);
/* Defaults, then the allocator settings the machine configuration carries. */
void gpuest_noc_opts_from_cfg(const gpuest_noc_cfg_t *cfg, gpuest_noc_opts_t *opts);

/* Builds the network. cfg->topology MESH: k x k routers, node id = row*k + col,
 * row 0 at the top, one NI per node. CROSSBAR: one switch per class group with
 * opts->num_nodes ports; cfg->xbar_port_flits flits per port per cycle.
 * Errors: GPUEST_EINVAL / GPUEST_ERANGE naming the field. */
gpuest_err gpuest_noc_create(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts, gpuest_noc_t **out,
                             gpuest_error_t *err);
void gpuest_noc_destroy(gpuest_noc_t *noc); /* NULL-safe */

int gpuest_noc_num_nodes(const gpuest_noc_t *noc);
int64_t gpuest_noc_now(const gpuest_noc_t *noc);

/* A packet handed to the network. */
typedef struct {
    int src;                 /* source node */
    int dst;                 /* destination node (unicast); ignored when num_dests > 0 */
    const int *dests;        /* multicast destination set (copied), or NULL */
    int num_dests;           /* 0: unicast to dst */
    int cls;                 /* gpuest_noc_class_t */
    int flits;               /* packet size in flits, >= 1 */
    void *payload;           /* opaque, returned on ejection */
    int64_t created;         /* creation cycle for latency accounting; < 0 means gpuest_noc_now() */
} gpuest_noc_send_t;

/* A packet leaving the network at its destination. */
typedef struct {
    uint64_t id;             /* id returned by gpuest_noc_inject (multicast copies share it) */
    int src, dst, cls, flits;
    void *payload;
    int64_t created;         /* cycle it was created (gpuest_noc_send_t.created) */
    int64_t injected;        /* cycle its head flit entered the network */
    int64_t ejected;         /* cycle its tail flit reached the destination NI */
    int hops;                /* router-to-router links crossed */
} gpuest_noc_packet_t;

/* 1 if node's NI injection queue for cls has room for one more packet. */
int gpuest_noc_can_inject(const gpuest_noc_t *noc, int node, int cls);
/* As gpuest_noc_can_inject, for a packet of `flits` flits: with noc.inject_queue_flits
 * > 0 the NI queue holds that many flits (GPGPU-Sim's input buffer, which takes a
 * packet while queued + its flits <= capacity; an empty queue takes any packet). */
int gpuest_noc_can_inject_flits(const gpuest_noc_t *noc, int node, int cls, int flits);
/* Queues a packet at its source NI. GPUEST_EBUSY when the queue is full (retry
 * later; nothing was queued). A multicast packet (num_dests >= 2, nodes 0..63, at
 * most one VC buffer long) takes one queue slot and crosses the injection link once;
 * routers replicate it where the routes to its members part (DOR multicast tree,
 * docs/noc.md). Every member receives one copy with the same id. id_out may be NULL. */
gpuest_err gpuest_noc_inject(gpuest_noc_t *noc, const gpuest_noc_send_t *pkt, uint64_t *id_out, gpuest_error_t *err);

/* Simulates one interconnect cycle (all routers evaluate, then commit). */
void gpuest_noc_step(gpuest_noc_t *noc);

/* Poll mode (default): pops the oldest delivered packet at node (any class) into
 * out; returns 1, or 0 if none. A full ejection queue back-pressures the network. */
int gpuest_noc_eject(gpuest_noc_t *noc, int node, gpuest_noc_packet_t *out);
/* Callback mode: when set, every packet is handed to cb at the cycle its tail
 * arrives, and the ejection queues are bypassed. Pass NULL to go back to polling. */
typedef void (*gpuest_noc_eject_cb)(void *ctx, const gpuest_noc_packet_t *pkt);
void gpuest_noc_set_eject_callback(gpuest_noc_t *noc, gpuest_noc_eject_cb cb, void *ctx);

/* Packets accepted by inject() and not yet delivered (all copies). */
uint64_t gpuest_noc_in_flight(const gpuest_noc_t *noc);
/* Cycle of the last flit movement anywhere (for deadlock detection). */
int64_t gpuest_noc_last_progress(const gpuest_noc_t *noc);

/* ---------------------------------------------------------------- statistics
 * Counted from the last gpuest_noc_stats_reset (or creation). Latencies are sums,
 * in interconnect cycles, over packets delivered in the window. */
typedef struct {
    uint64_t packets_injected;   /* packets whose head flit entered the network */
    uint64_t flits_injected;
    uint64_t packets_ejected;
    uint64_t flits_ejected;
    double packet_latency_sum;   /* ejected - created */
    double network_latency_sum;  /* ejected - injected */
    double hops_sum;
    int64_t max_packet_latency;
} gpuest_noc_class_stats_t;

typedef struct {
    int64_t cycles;              /* cycles in the window */
    gpuest_noc_class_stats_t cls[GPUEST_NOC_MAX_CLASSES];
} gpuest_noc_stats_t;

void gpuest_noc_stats(const gpuest_noc_t *noc, gpuest_noc_stats_t *out);
void gpuest_noc_stats_reset(gpuest_noc_t *noc);

/* Links (router outputs, NI injection links, ejection links), for utilization. */
typedef struct {
    int net;                     /* physical network (0 unless classes are split physically) */
    int src_node;                /* upstream: router's node, or the NI's node for an injection link */
    int dst_node;                /* downstream node */
    int kind;                    /* 0 router->router, 1 NI->router (injection), 2 router->NI (ejection) */
    uint64_t flits;              /* flits carried since the last stats reset */
} gpuest_noc_link_t;
int gpuest_noc_num_links(const gpuest_noc_t *noc);
void gpuest_noc_link_info(const gpuest_noc_t *noc, int link, gpuest_noc_link_t *out);
/* The flits carried since the last stats reset, summed over every link: the sum of
 * gpuest_noc_link_info's flits over the links, in one call (sampled simulation reads it
 * every detailed cycle). */
uint64_t gpuest_noc_link_flits_total(const gpuest_noc_t *noc);

/* Invariant walker (tests, debug): credits within [0, buffer], buffer occupancy
 * equal to credits consumed, VC states consistent. GPUEST_ECORRUPT + message. */
gpuest_err gpuest_noc_check(const gpuest_noc_t *noc, gpuest_error_t *err);

/* ================================================================ synthetic traffic
 * The description is net.h's gpuest_net_traffic_t, shared with the analytical model. */
typedef gpuest_net_pattern_t gpuest_noc_pattern_t;
#define GPUEST_NOC_TRAFFIC_UNIFORM GPUEST_NET_TRAFFIC_UNIFORM
#define GPUEST_NOC_TRAFFIC_TRANSPOSE GPUEST_NET_TRAFFIC_TRANSPOSE
#define GPUEST_NOC_TRAFFIC_HOTSPOT GPUEST_NET_TRAFFIC_HOTSPOT
#define GPUEST_NOC_TRAFFIC_GPU GPUEST_NET_TRAFFIC_GPU
#define GPUEST_NOC_MAX_HOT GPUEST_NET_MAX_HOT
typedef gpuest_net_traffic_t gpuest_noc_traffic_t; /* the shared description (net.h) */

void gpuest_noc_traffic_default(gpuest_noc_traffic_t *t);
const char *gpuest_noc_pattern_name(gpuest_noc_pattern_t p);
gpuest_err gpuest_noc_pattern_parse(const char *name, gpuest_noc_pattern_t *out, gpuest_error_t *err);

/* BookSim latency-mode measurement (docs/noc.md): warm-up periods, then sample
 * periods until latency and accepted rate change by less than the thresholds
 * for 3 periods (or max_samples), then drain the measured packets. Saturation:
 * the average latency (in-flight packets counted with their age) exceeds
 * latency_thres, or the drain does not finish. */
typedef struct {
    int warmup_periods;      /* BookSim warmup_periods (3) */
    int sample_period;       /* cycles per period (BookSim 1000; the reference runs used 10000) */
    int max_samples;         /* periods in all, warm-up included (10) */
    double latency_thres;    /* saturation when the average latency exceeds this (500) */
    double warmup_thres;     /* relative latency change counted as converged (0.05) */
    double acc_thres;        /* relative accepted-rate change counted as converged (0.05) */
    int64_t drain_limit;     /* cycles allowed for the drain before declaring saturation (0: 20 sample periods) */
} gpuest_noc_measure_cfg_t;

void gpuest_noc_measure_default(gpuest_noc_measure_cfg_t *m);

typedef struct {
    double offered_rate;         /* traffic->rate */
    double avg_packet_latency;   /* created -> tail ejected, measured packets (NaN-free: 0 when saturated) */
    double avg_network_latency;  /* head injected -> tail ejected */
    double accepted_rate;        /* flits ejected per node per cycle in the measured window */
    double avg_hops;
    int saturated;
    int64_t sim_cycles;          /* cycles simulated, drain included */
    uint64_t packets;            /* packets measured */
    double cls_packet_latency[GPUEST_NOC_MAX_CLASSES];
    double cls_network_latency[GPUEST_NOC_MAX_CLASSES];
} gpuest_noc_result_t;

/* Runs one traffic point on a fresh network. progress may be NULL. */
gpuest_err gpuest_noc_measure(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                              const gpuest_noc_traffic_t *traffic, const gpuest_noc_measure_cfg_t *m,
                              gpuest_progress_t *progress, gpuest_noc_result_t *out, gpuest_error_t *err);

/* Throughput mode: runs warm + window cycles at traffic->rate and reports the
 * accepted rate over the window (used past saturation, where latency mode stops). */
gpuest_err gpuest_noc_throughput(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                                 const gpuest_noc_traffic_t *traffic, int64_t warm, int64_t window,
                                 gpuest_noc_result_t *out, gpuest_error_t *err);

/* Rates step, 2*step, ... until the first saturated point (included) or
 * max_rate; then the bracket is bisected `refine` times. out receives up to
 * cap results in increasing rate order; *n their count. */
gpuest_err gpuest_noc_sweep(const gpuest_noc_cfg_t *cfg, const gpuest_noc_opts_t *opts,
                            const gpuest_noc_traffic_t *traffic, const gpuest_noc_measure_cfg_t *m, double step,
                            double max_rate, int refine, gpuest_noc_result_t *out, int cap, int *n,
                            gpuest_progress_t *progress, gpuest_error_t *err);

/* Zero-load latency of one packet from src to dst (DOR path) implied by the
 * stage delays: 7 + 5*hops + (flits-1) with BookSim's defaults. */
int64_t gpuest_noc_zero_load_latency(const gpuest_noc_cfg_t *cfg, int hops, int flits);

/* ================================================================ BookSim configs */
#define GPUEST_NOC_BOOKSIM_MAX_IGNORED 64
typedef struct {
    gpuest_noc_cfg_t cfg;
    gpuest_noc_opts_t opts;
    gpuest_noc_traffic_t traffic;
    gpuest_noc_measure_cfg_t measure;
    char routing_function[GPUEST_NAME_MAX];
    char ignored[GPUEST_NOC_BOOKSIM_MAX_IGNORED][GPUEST_NAME_MAX]; /* keys read but not modelled */
    int num_ignored;
} gpuest_noc_booksim_t;

/* Reads a BookSim 2 configuration ("key = value;" lines, // comments). Keys
 * left out take BookSim's defaults. Unknown values (e.g. topology = torus) give
 * GPUEST_EUNSUPPORTED naming path:line; keys the model does not use are listed
 * in out->ignored. */
gpuest_err gpuest_noc_booksim_load(const char *path, gpuest_noc_booksim_t *out, gpuest_error_t *err);
gpuest_err gpuest_noc_booksim_parse(const char *text, const char *origin, gpuest_noc_booksim_t *out,
                                    gpuest_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
