/* model.h: analytical queueing model of the NoC and the MC reply path (link loads, waits, saturation). */
#ifndef GPUEST_MODEL_H
#define GPUEST_MODEL_H

#include "config/config.h" /* gpuest_noc_cfg_t, gpuest_config_t, gpuest_routing_t */
#include "core/core.h"     /* gpuest_err, gpuest_error_t */
#include "net/net.h"       /* ports, topologies and routing functions shared with the simulator */

#ifdef __cplusplus
extern "C" {
#endif

/* The router model follows the structure of Kiasari, Lu and Jantsch, "An analytical latency
 * model for networks-on-chip" (IEEE TVLSI 21(1), 2013): every channel is a G/G/1-type queue,
 * a packet's service time at a channel grows with the waiting it meets downstream (computed by
 * iterating to a fixed point), and latency = zero-load pipeline + source queue + per-hop waits.
 * The per-output wait uses the discrete-time output-queue result of Karol, Hluchyj and Morgan
 * (IEEE Trans. Commun. 1987) generalised to unequal inputs; the input-VC stage is an M/G/c
 * queue (Erlang C with the Allen-Cunneen variability factor). The MC reply path is an
 * M/D/1/K queue. Assumptions and the calibration constants are listed in docs/model.md. */

#define GPUEST_MODEL_MAX_CLASSES 5 /* gpu: request, reply, write, write ack, remote-L1 probes */
#define GPUEST_MODEL_MAX_HOTSPOTS 64

/* ------------------------------------------------------------ queueing primitives */
/* Mean waiting time (before service) of an M/G/1 queue with arrival rate lambda and service
 * moments es = E[S], es2 = E[S^2] (Pollaczek-Khinchine). GPUEST_ESATURATED if rho >= 1. */
gpuest_err gpuest_model_mg1_wait(double lambda, double es, double es2, double *wait);
/* Erlang C probability that an arrival waits in an M/M/c queue with offered load a = lambda*E[S]. */
double gpuest_model_erlang_c(int c, double a);
/* Allen-Cunneen G/G/c mean wait: ErlangC * E[S] / (c (1-rho)) * (ca2 + cs2) / 2. */
gpuest_err gpuest_model_ggc_wait(int c, double lambda, double es, double ca2, double cs2, double *wait);

/* M/D/1/K: Poisson arrivals (rate lambda), deterministic service d, at most K in system. */
typedef struct {
    double p_full;      /* time-average probability that K are present (arrivals are refused) */
    double mean_number; /* time-average number in system */
    double mean_wait;   /* mean wait in queue of an accepted customer */
    double throughput;  /* lambda * (1 - p_full) */
    double p[65];       /* time-average distribution p[0..K] (K <= 64) */
} gpuest_model_md1k_t;
gpuest_err gpuest_model_md1k(double lambda, double d, int k, gpuest_model_md1k_t *out, gpuest_error_t *err);

/* ------------------------------------------------------------ traffic matrix */
/* Packets per cycle for every (class, source, destination). Class c has one packet length and
 * one routing function. A class with reply_class >= 0 triggers, at the destination, one packet of
 * reply_class per packet (requests -> replies); the MC reply path is modelled at those nodes. */
/* A multicast flow: packets per cycle from src, each delivered to a destination set. The set is
 * `dests` itself when size_min = 0; otherwise every packet draws its set size uniformly in
 * [size_min, size_max] and its members uniformly without replacement from the candidates `dests`. */
typedef struct {
    int cls, src;
    gpuest_net_dests_t dests; /* node bit mask (nodes 0..63) */
    int size_min, size_max;
    double rate;              /* packets per cycle */
} gpuest_model_mcast_t;

typedef struct {
    int num_nodes;
    int num_classes;
    int packet_flits[GPUEST_MODEL_MAX_CLASSES];
    gpuest_routing_t routing[GPUEST_MODEL_MAX_CLASSES];
    int reply_class[GPUEST_MODEL_MAX_CLASSES]; /* -1: none */
    char class_name[GPUEST_MODEL_MAX_CLASSES][GPUEST_NAME_MAX];
    double *rate; /* rate[(c * N + src) * N + dst], packets per cycle; owned */
    gpuest_model_mcast_t *mcast; /* multicast flows; owned */
    int num_mcast, cap_mcast;
} gpuest_model_traffic_t;

gpuest_err gpuest_model_traffic_init(gpuest_model_traffic_t *t, int num_nodes, int num_classes,
                                     gpuest_error_t *err);
void gpuest_model_traffic_free(gpuest_model_traffic_t *t);
double *gpuest_model_traffic_at(gpuest_model_traffic_t *t, int cls, int src, int dst);
/* Appends a multicast flow (copied). */
gpuest_err gpuest_model_traffic_add_mcast(gpuest_model_traffic_t *t, const gpuest_model_mcast_t *f,
                                          gpuest_error_t *err);
/* Total offered flits per cycle of one class (all pairs, multicast packets once). */
double gpuest_model_traffic_flits(const gpuest_model_traffic_t *t, int cls);

/* Synthetic patterns, with the names the NoC simulator uses:
 *   uniform   every node sends to every node (itself included, as BookSim does) with equal probability
 *   transpose node (x,y) sends to (y,x) (mesh only)
 *   hotspot   every node sends to the listed hotspot nodes, chosen with the listed weights
 *   gpu       SM nodes send request packets to MCs (uniform over MCs), each MC replies to the
 *             requester: class 0 "request", class 1 "reply"; write_fraction of the requests carry
 *             data (reply_flits long) and get a 1-flit reply.
 * rate: uniform/transpose/hotspot: flits per node per cycle (BookSim injection_rate_uses_flits);
 *       gpu: request flits per SM per cycle (request packets x request_flits), as the NoC simulator. */
typedef struct {
    char name[GPUEST_NAME_MAX];
    int packet_flits;                          /* uniform/transpose/hotspot (>= 1) */
    int num_hotspots;
    int hotspot_nodes[GPUEST_MODEL_MAX_HOTSPOTS];
    double hotspot_rates[GPUEST_MODEL_MAX_HOTSPOTS]; /* weights, normalised; all 0 -> equal */
    int request_flits;                         /* gpu: 0 = from the config (1 head flit) */
    int reply_flits;                           /* gpu: 0 = from the config (head + line) */
    double write_fraction;                     /* gpu: share of requests that are writes */
    double mcast_fraction;                     /* uniform: share of packets sent to a destination set */
    int mcast_min, mcast_max;                  /* set size drawn uniformly in [min, max] from all nodes */
    int write_flits;                           /* gpu: write request length; 0 = reply_flits (a full line) */
} gpuest_model_pattern_t;

/* A pattern of the given name with defaults (packet_flits 1, no hotspots, gpu sizes from config). */
gpuest_err gpuest_model_pattern_init(gpuest_model_pattern_t *p, const char *name, gpuest_error_t *err);
/* The shared synthetic-traffic description (net.h, also the NoC simulator's) as a pattern: the
 * same name, packet sizes (gpu: packet_flits is the reply), hotspots and multicast sets. */
gpuest_err gpuest_model_pattern_from_traffic(gpuest_model_pattern_t *p, const gpuest_net_traffic_t *tr,
                                             gpuest_error_t *err);
/* Builds the traffic matrix of pattern p at rate on the network of cfg (initialises t). */
gpuest_err gpuest_model_traffic_build(gpuest_model_traffic_t *t, const gpuest_model_pattern_t *p,
                                      const gpuest_config_t *cfg, double rate, gpuest_error_t *err);
/* probe_traffic.c: adds a class of remote-L1 probe packets (flits long, on the request partition,
 * answered by nothing) to gpu traffic t: per_sm packets per cycle from each SM to the next SM in
 * index order (index_chain) or spread evenly over the other SMs. */
gpuest_err gpuest_model_traffic_add_probes(gpuest_model_traffic_t *t, const gpuest_config_t *cfg, double per_sm,
                                           int index_chain, int flits, gpuest_error_t *err);
/* Request / reply packet lengths in flits implied by cfg (head flit + 128-byte line). */
void gpuest_model_gpu_packet_flits(const gpuest_config_t *cfg, int *request_flits, int *reply_flits);
/* Mean flits of a write request carrying `bytes` data bytes on average (0: a full line): the
 * packet sizing of the simulator, linear in the bytes (exact for a mix of 32-byte sectors when the
 * flit size divides 32 bytes). */
double gpuest_model_write_flits(const gpuest_config_t *cfg, double bytes);

/* ------------------------------------------------------------ model parameters */
/* Contention constants of the router model (defaults calibrated once against the BookSim iq
 * router curves in data/reference/booksim, see docs/model.md; kappa is the "contention
 * correction" of the method note). */
typedef struct {
    double kappa;     /* multiplier of the output-port wait (HOL/allocator loss over ideal output queueing) */
    double conflict;  /* share of crossbar-input conflicts a flit loses (round robin between two: 0.5) */
    double ca2;       /* squared coefficient of variation of arrivals at an input VC */
    double vc_hold;   /* extra cycles an output VC stays held per packet beyond its flits */
    int max_iter;     /* fixed-point iterations */
    double tol;       /* relative convergence tolerance */
} gpuest_model_params_t;

void gpuest_model_params_default(gpuest_model_params_t *p);

/* ------------------------------------------------------------ the NoC model */
typedef struct gpuest_model_noc_s gpuest_model_noc_t;

/* Per-class output of one evaluation. Latencies in interconnect cycles, averaged over packets. */
typedef struct {
    double packets;       /* offered packets per cycle (whole network) */
    double flits;         /* offered flits per cycle */
    double avg_hops;      /* mean router-to-router hops */
    double avg_latency;   /* creation to tail ejected, including the source queue */
    double avg_network_latency; /* avg_latency without the source queue */
    double zero_load;     /* pipeline + links without serialization (7 + 5 D in BookSim terms) */
    double serialization; /* (L - 1) / width */
    double source_queue;  /* wait in the NI injection queue (MC reply queue excluded) */
    double hop_wait;      /* waits at input VCs and output ports, summed along the path */
    double mc_queue;      /* reply class: wait in the MC reply queue; request class: wait for acceptance */
} gpuest_model_class_result_t;

typedef struct {
    int saturated;              /* 1: some queue has utilisation >= 1; latencies are then 0 */
    int iterations;             /* fixed-point iterations used */
    double offered_rate;        /* flits per injecting node per cycle */
    double accepted_rate;       /* same unit; offered / max utilisation when saturated */
    double avg_packet_latency;  /* over all classes, weighted by packets */
    double avg_network_latency;
    double max_util;            /* largest utilisation of any queue */
    int bottleneck_router;      /* where max_util occurs */
    int bottleneck_port;        /* port index (mesh: GPUEST_NET_PORT_*: 0 E, 1 W, 2 S, 3 N, 4 local) */
    int bottleneck_kind;        /* 0 output port, 1 input VC, 2 MC reply injection, 3 source queue */
    double mc_full_prob;        /* max over MCs: reply queue full (requests refused) */
    double mc_stall_ratio;      /* mean over MCs: reply ready but NI queue full */
    double mc_inject_util;      /* max over MCs: reply injection utilisation */
    int num_classes;
    gpuest_model_class_result_t cls[GPUEST_MODEL_MAX_CLASSES];
} gpuest_model_result_t;

#define GPUEST_MODEL_MESH_PORTS GPUEST_NET_MESH_PORTS /* port numbers: GPUEST_NET_PORT_* (net.h) */

/* Builds the model of traffic t on the network of cfg (mesh or crossbar). Nodes that inject a
 * reply class run the MC reply path. Routes and per-port loads are computed here once.
 * Node ids: mesh node = row * k + col (X = column); crossbar node = port. */
gpuest_err gpuest_model_noc_create(const gpuest_config_t *cfg, const gpuest_model_traffic_t *t,
                                   gpuest_model_noc_t **out, gpuest_error_t *err);
void gpuest_model_noc_destroy(gpuest_model_noc_t *m);

/* Evaluates the model with every rate of the traffic multiplied by scale. Returns GPUEST_OK, or
 * GPUEST_ESATURATED with out->saturated = 1 (out is filled either way, never NaN/inf). */
gpuest_err gpuest_model_noc_eval(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                                 gpuest_model_result_t *out, gpuest_error_t *err);

/* Link loads (at scale 1): flits per cycle leaving router r through output port p, all classes
 * (cls = -1) or one class. Mesh: p in 0..4 (4 = ejection); crossbar: router 0, p = node. */
double gpuest_model_noc_port_load(const gpuest_model_noc_t *m, int router, int port, int cls);
int gpuest_model_noc_num_routers(const gpuest_model_noc_t *m);
int gpuest_model_noc_num_ports(const gpuest_model_noc_t *m);
/* Router-to-router hops of the route from src to dst for class cls (0 for a crossbar). */
int gpuest_model_noc_hops(const gpuest_model_noc_t *m, int cls, int src, int dst);
/* Zero-load latency of one packet of length flits over hops router-to-router hops. */
double gpuest_model_zero_load(const gpuest_noc_cfg_t *noc, int hops, int flits);
/* Credit loop of an NI's injection channel (noc_credit.c): the round trip R in interconnect
 * cycles, and the cycles T an NI needs to send a packet of `flits` flits on one VC of `buffer`
 * flits (flits when buffer >= R; B flits per R cycles otherwise). */
int gpuest_model_inject_credit_rtt(const gpuest_noc_cfg_t *noc);
double gpuest_model_credit_send_time(int flits, int buffer, int rtt);

/* ------------------------------------------------------------ one-call helpers */
/* One point: config + pattern + rate -> result row. params NULL = defaults. Saturation is
 * reported in out->saturated (the function still returns GPUEST_OK). */
gpuest_err gpuest_model_noc_point(const gpuest_config_t *cfg, const gpuest_model_pattern_t *p, double rate,
                                  const gpuest_model_params_t *params, gpuest_model_result_t *out,
                                  gpuest_error_t *err);
/* Saturation rate (same unit as rate): the smallest rate at which the model saturates, found by
 * GSL bisection to relative precision 1e-4. */
gpuest_err gpuest_model_noc_saturation(const gpuest_config_t *cfg, const gpuest_model_pattern_t *p,
                                       const gpuest_model_params_t *params, double *rate,
                                       gpuest_error_t *err);
/* Same for an existing model (scale at which it saturates). */
gpuest_err gpuest_model_noc_saturation_scale(gpuest_model_noc_t *m, const gpuest_model_params_t *params,
                                             double *scale, gpuest_error_t *err);
/* As gpuest_model_noc_eval, but the fixed-point iteration starts from the waits of the last
 * converged warm evaluation of m when that one was at a scale <= this one with the same
 * contention constants (the same least fixed point, reached from below in fewer sweeps), and a
 * converged result becomes the start of the next. gpuest_model_noc_forget drops the kept waits. */
gpuest_err gpuest_model_noc_eval_warm(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                                      gpuest_model_result_t *out, gpuest_error_t *err);
void gpuest_model_noc_forget(gpuest_model_noc_t *m);
/* Saturation scale as the root of a continuous function: the largest queue utilisation of the
 * converged model minus one (the model saturates where a queue's utilisation reaches 1, or where
 * the fixed point stops converging). A bracketing secant search (Illinois) with warm-started
 * evaluations, from the bracket [lo, hi] (lo stable, hi saturated; checked, widened when wrong),
 * to a bracket narrower than rel_tol x hi; *scale is its midpoint, *evals the evaluations used
 * (may be NULL). docs/estimator.md, "Speed". */
gpuest_err gpuest_model_noc_saturation_root(gpuest_model_noc_t *m, const gpuest_model_params_t *params, double lo,
                                            double hi, double rel_tol, double *scale, int *evals,
                                            gpuest_error_t *err);


/* ============================================================ closed queueing networks (amva.c) */
#define GPUEST_AMVA_MAX_STATIONS 32
typedef enum { GPUEST_ST_QUEUE = 0, GPUEST_ST_DELAY = 1, GPUEST_ST_MULTI = 2 } gpuest_station_kind_t;

/* One station of a closed network whose customers form `groups` identical classes (one per SM).
 * demand = visits x service time per customer cycle, summed over the replicas. */
typedef struct {
    gpuest_station_kind_t kind;
    double demand;       /* cycles per customer cycle (all replicas together) */
    int replicas;        /* identical copies, visited uniformly (per-MC stations: MCs) */
    int private_station; /* 1: one replica per group, used only by its own group (per-SM stations) */
    int servers;         /* GPUEST_ST_MULTI: servers (Seidmann decomposition) */
    double scv;          /* squared coefficient of variation of service (1: exponential) */
    double fork;         /* > 1: a customer's visit is a batch of requests served in parallel by `fork`
                          * replicas/servers, so its residence is (demand / fork) (1 + seen queue);
                          * utilisation still counts the whole demand. 0 or 1: one request at a time */
} gpuest_amva_station_t;

typedef struct {
    double x;        /* throughput of all groups, customers per cycle */
    double x_group;  /* throughput of one group */
    double r[GPUEST_AMVA_MAX_STATIONS];    /* residence time per customer cycle (all replicas) */
    double q[GPUEST_AMVA_MAX_STATIONS];    /* mean customers at one replica (all groups) */
    double util[GPUEST_AMVA_MAX_STATIONS]; /* utilisation of one replica (one server of a MULTI station) */
    int iterations;
} gpuest_amva_result_t;

/* Schweitzer-Bard approximate MVA, groups x n customers (n per group, may be fractional). */
gpuest_err gpuest_model_amva(const gpuest_amva_station_t *st, int k, int groups, double n, double tol,
                             gpuest_amva_result_t *out, gpuest_error_t *err);
/* The same, iterating from the queues of `start` (a solution of a nearby network, NULL: cold);
 * converges to the same fixed point, in fewer iterations when start is close (the closed GPU
 * model's outer loop). */
gpuest_err gpuest_model_amva_from(const gpuest_amva_station_t *st, int k, int groups, double n, double tol,
                                  const gpuest_amva_result_t *start, gpuest_amva_result_t *out, gpuest_error_t *err);
/* Exact single-class MVA of k stations (queues, or delays where is_delay[i]) at population n:
 * throughput x, residence times r[k] and queue lengths q[k]. */
gpuest_err gpuest_model_mva_exact(const double *demand, const int *is_delay, int k, int n, double *x, double *r,
                                  double *q, gpuest_error_t *err);

/* ============================================================ closed GPU model (gpu_model.c)
 * Per kernel phase, the GPU is a closed network whose customers are outstanding L1-miss
 * tokens (docs/estimator.md). Inputs are plain data: the machine (gpuest_config_t), the
 * workload's measured characteristics, a technique transform and the fitted parameters. */

/* Workload characteristics measured by a (sampled) simulation; filled by the study module from
 * simulator statistics. Counts are per memory request (L1 read miss or write) sent to an MC. */
typedef struct {
    double insts_per_request;  /* warp instructions per request sent (reads + writes) */
    double hits_per_request;   /* L1 hits per request sent */
    double l1_hit_rate;        /* h1 over load line requests */
    double l2_hit_rate;        /* h2 */
    double dram_per_request;   /* DRAM accesses (reads + write-backs) per request (read + write) */
    double row_hit_rate;       /* DRAM row-buffer hits per DRAM access */
    double write_fraction;     /* writes among requests */
    double threads_per_warp_inst; /* active lanes per warp instruction (IPC in thread instructions) */
    double avail_warps;        /* warps able to issue, per SM per cycle (LATTE-CC eq. 4) */
    double cycles_per_schedule;
    /* The warp scoreboard profile (a walk of the workload's instruction streams, no timing;
     * src/study/warp_profile.c). A warp issues in order and keeps running past its loads until an
     * instruction reads or overwrites a loaded register (or its load slots are full): one such run
     * is an epoch, after which the warp waits for its loads. All zero: no profile (the token model
     * of the pre-v2 simulator, docs/estimator.md). */
    double resident_warps;     /* warps resident per SM (occupancy limits, launch size) */
    double insts_per_epoch;    /* warp instructions a warp issues per epoch */
    double lines_per_epoch;    /* load line requests (before the L1) a warp has in flight per epoch */
    double dep_per_epoch;      /* cycles a warp alone waits on compute results (ALU/SFU/shared/const latency) per epoch */
    /* The SM's LD/ST unit blocked by the L1's reservation failures (MSHRs, reserved ways, miss
     * queue), measured: blocked cycles per read request, and the read miss latency of the run
     * that measured it (a reserved way or MSHR is held for one miss latency, so the model scales
     * the blocking with its own miss latency). 0: not measured (no LD/ST station). */
    double ldst_block_per_read;
    double block_miss_latency;
    /* Warps per SM with work at a time, from the walk (phases.c: the launch's warp instructions
     * over SMs x its longest warp's, capped by the resident warps): a launch where a few warps carry
     * the work (a small BFS frontier) runs with that few customers. 0: not given (the resident warps,
     * or for the token model the SM's warp slots). */
    double active_warps;
    /* Mean data bytes a write request carries: the simulator's write sends only the 32-byte
     * sectors its store wrote (src/sim/sm.c, request_flits), not the line. 0: not measured (a full
     * line, the model before this input). */
    double write_bytes;
    /* Read/write turnarounds of a channel's data bus per DRAM access (column commands in the
     * other direction than the channel's previous one), measured by the simulator; they idle the
     * bus (gpu_model.c, bus_cycles_per_access). 0: not measured (no turnaround, the model before
     * this input). */
    double dram_turns_per_access;
    /* The DRAM stream's channel concentration at the evaluated channel count relative to the
     * calibrated one (the busiest channel's share of the accesses in flight over the even share,
     * target / calibrated; src/study/dram_stream.c): the DRAM stations' demand lands on that many
     * times fewer channels at once (gpu_model.c). 0: not given (1, the channels evenly loaded). */
    double channel_concentration;
    /* The same for the L2 access stream over the MCs' slices (target / calibrated): the L2 and
     * reply-injection stations' demand lands on that many times fewer slices at once. 0: 1. */
    double slice_concentration;
} gpuest_model_workload_t;

/* Technique transform of the model inputs (filled by the technique layer; identity by default).
 * Reply compression: reply_flit_hist[f] = share of read replies that are f flits long after
 * compression (f = 1..GPUEST_MODEL_MAX_FLITS; all zero = uncompressed), the compressor latency
 * at the MC (L2 cycles, pipelined with injection: exposed only when the port is idle) and the
 * decompressor latency at the SM (core cycles). */
#define GPUEST_MODEL_MAX_FLITS 64
struct gpuest_model_l1c_view_s; /* below: what an adaptive L1 rule sees */
#define GPUEST_MODEL_DQ_SPACINGS 8 /* decompression queue replay: 1, 2, 4, ..., 128 cycles a read line */
#define GPUEST_MODEL_MERGE_WINDOWS 11 /* pool sizes 1, 2, 4, ..., 1024 queues */
typedef struct {
    double reply_flit_hist[GPUEST_MODEL_MAX_FLITS + 1];
    double compress_latency;   /* L2 cycles */
    double decompress_latency; /* core cycles */
    /* Share of read replies the MC does not inject and the L2 does not serve (PCU coalescing: one
     * multicast reply and one L2 access per group of reads of a block; 0 = none). */
    double reply_packets_saved;
    /* Remote-L1 probing (0 = none): share of reads a remote L1 serves (no L2, DRAM or MC reply
     * port; the data reply leaves the supplier SM's injection port), of those the share that
     * crosses the network (0: PP's zero-cycle oracle), probe and NACK request packets per read
     * injected by SMs, and request-network traversals per read the probes add to the latency. */
    double remote_read_share;
    double remote_net_share;
    double probe_msgs_per_read;
    double probe_extra_trips;
    /* Compressed L1 (LATTE-CC's static modes): the L1 read miss rate is multiplied by
     * l1_miss_scale (0 = identity: unchanged) and every L1 hit costs l1_hit_extra_latency more
     * core cycles (the decompression latency times the share of hits on compressed lines). */
    double l1_miss_scale;
    double l1_hit_extra_latency;
    /* Adaptive compressed L1 (LATTE-CC's adaptive policies; l1c_rule.c): l1c_rule picks one of
     * l1c_modes candidate static transforms (index 0 = the plain L1: scale 1, no extra) by the
     * policy's own decision rule on the model's per-candidate estimates; the fields above are then
     * ignored. Per candidate: GPUEST_L1C_* mode id, miss scale, extra hit latency (as above), L1
     * misses the compressed L1 avoids per L1 read, decompression cycles per L1 read spent on hits the
     * plain L1 would have too (Adaptive-CMP's counter events). l1c_choose: the external rule's
     * function (GPUEST_MODEL_L1C_EXTERNAL), given what the model knows at candidate `current`. */
    int l1c_rule;  /* GPUEST_MODEL_L1C_* (0: static, the fields above) */
    int l1c_modes; /* candidates, at most GPUEST_MODEL_L1C_MAX */
    int l1c_mode_id[4];
    double l1c_miss_scale[4], l1c_hit_extra[4], l1c_avoided[4], l1c_paid[4];
    double l1c_capacity[4]; /* effective capacity (valid lines x 128 B / L1 size) in that mode */
    int (*l1c_choose)(const struct gpuest_model_l1c_view_s *v);
    /* WarpPool (inter-warp merging in front of the L1; warppool_rule.c): l1_merge_share[i] = share
     * of line requests merged into an open queue when the pool holds 2^i queues (i <
     * l1_merge_windows; 0 windows: no pool). The model takes the pool's occupancy from its own
     * LD/ST queue and sets l1_access_keep (0 = identity: every line request accesses the L1), the
     * share of line requests that still make an L1 access (the LD/ST unit's per-request cycle).
     * The pool's own latency rides on l1_hit_extra_latency. */
    int l1_merge_windows;
    double l1_merge_share[GPUEST_MODEL_MERGE_WINDOWS];
    double l1_access_keep;
    /* LA-LLC (the L2 forwards a read hit to the line's last reader): shares of L1 read misses whose
     * last reader at the L2 is another SM that still holds the line (answers it) and that no longer
     * does (the read returns to its L2). The model takes the forwarded shares as these x its L2 hit
     * rate: a forward skips the MC's reply injection (the sharer's SM injects the data), and costs
     * one more request-network traversal (two and one more L2 access when it returns). */
    double llc_fwd_hold;
    double llc_fwd_gone;
    /* Compressed L1's decompression queue (LATTE-CC eq. 3; l1c_queue.c): one FIFO decompressor per
     * SM of l1_dq_latency core cycles per line (0: no queue, l1_hit_extra_latency is charged as
     * given); l1_dq_share of the L1 read hits are on compressed lines, and a compressed hit finds
     * l1_dq_ahead compressed hits of its own warp instruction ahead of it on average. With a queue,
     * l1_hit_extra_latency is replaced by l1_dq_share x the queue's mean time per compressed hit at
     * the model's own throughput. The l1c_dq_* arrays: the same per adaptive candidate. */
    double l1_dq_latency, l1_dq_share, l1_dq_ahead;
    double l1c_dq_latency[4], l1c_dq_share[4], l1c_dq_ahead[4];
    /* The same queue replayed on the walk's order (technique dq_replay.c): mean cycles per
     * compressed hit when the SM makes one read line request every 2^j core cycles (all 0: not
     * replayed, the mean-value formula gpuest_model_dq_wait is used). */
    double l1_dq_wait_at[GPUEST_MODEL_DQ_SPACINGS];
    double l1c_dq_wait_at[4][GPUEST_MODEL_DQ_SPACINGS];
    /* Remote-L1 probing: a probe traversal (SM to SM) in units of a request's SM-to-MC traversal
     * at zero load: mean hops of the scheme's probe traversals over the mean SM-to-MC hops (1 on a
     * crossbar; the index selector's chain goes to the next SM, mostly one hop on a mesh). 0: the
     * traversals (probe_extra_trips) are priced at the request network's loaded delay, as before. */
    double probe_trip_scale;
    /* Remote-L1 probing: probe lookups at other SMs' L1s per read (the visits of probe_msgs_per_read,
     * without the NACKs home). Each takes the visited L1's port for a cycle the local LD/ST unit
     * leaves free (the simulator's probe handler, local accesses first); 0: not modelled. */
    double probe_visits_per_read;
    /* Remote-L1 probing: 1 when the probes go from each SM to the next in index order (CCN, the
     * index selector), 0 when to any other SM: the shape of their class in the open NoC model. */
    int probe_index_chain;
    /* WarpPool's L1 misses: l1_pool_miss_scale[i] = the walk's plain-L1 read miss rate in the
     * order a pool of 2^i full queues hands the L1 its requests over the one without a pool
     * (i < l1_merge_windows; 0 = identity). warppool_rule.c takes it at the pool's occupancy as
     * l1_miss_scale. */
    double l1_pool_miss_scale[GPUEST_MODEL_MERGE_WINDOWS];
    /* WarpPool's LD/ST unblocking (ldst_pool.c): the pool's queues, each taking one line request
     * that would otherwise wait at the in-order LD/ST unit (warppool_rule.c sets
     * technique.warppool_queues; 0: no pool, the unit blocks the warps as measured). */
    double ldst_pool_lines;
    /* WarpPool's relief of the L1's set reservations (src/technique/wp_setres.c): the stall cycles
     * per line request of the replayed L1 behind the pool over those of the in-order unit. The
     * model scales the measured reservation blocking by it (warppool_rule.c, setres_relief); 0:
     * not measured, or not asked for (the blocking as measured). */
    double ldst_block_scale;
} gpuest_model_transform_t;

/* Decision rules of the adaptive compressed L1 (l1c_rule.c). */
enum {
    GPUEST_MODEL_L1C_STATIC = 0,
    GPUEST_MODEL_L1C_AMAT_GPU,  /* LATTE-CC: least AMAT_GPU (eq. 2 with the latency tolerance of eq. 4) */
    GPUEST_MODEL_L1C_FEWEST_MISSES, /* Adaptive-Hit-Count */
    GPUEST_MODEL_L1C_CMP,       /* Adaptive-CMP: largest positive (avoided x miss latency - paid) */
    GPUEST_MODEL_L1C_EXTERNAL,  /* l1c_choose (FANN) */
    GPUEST_MODEL_L1C_FASTEST,   /* Kernel-OPT: the candidate of the highest estimated IPC (per phase) */
};
#define GPUEST_MODEL_L1C_MAX 4
/* What an external rule sees: the measured latency tolerance and its factors, the model's miss
 * latency and the L1 read miss rate under the current candidate, and every candidate's hit ratio
 * and extra hit latency. Returns the candidate index to take. */
typedef struct gpuest_model_l1c_view_s {
    double avail_warps, cycles_per_schedule, latency_tolerance;
    double miss_latency, miss_rate, hit_latency;
    int modes, current;
    int mode_id[4];
    double hit_ratio[4], hit_extra[4], capacity[4];
    /* LATTE-CC's view (the FANN selector's inputs 18-23): each candidate's AMAT_GPU (eq. 2 with
     * the current miss latency) and the candidate the AMAT_GPU rule takes */
    double amat_gpu[4];
    int rule;
} gpuest_model_l1c_view_t;

/* The share of an added L1 hit latency the SM does not hide: max(0, extra - lt), lt the latency
 * tolerance (available warps x cycles per schedule, LATTE-CC eq. 4). */
double gpuest_model_exposed_extra(double extra, double lt);
/* The decompression queue of eq. 3 (l1c_queue.c): a compressed hit that finds p lines in its
 * decompressor's FIFO waits lat x (p + 1) core cycles (p at most 256, the queue's size). Mean time
 * per compressed hit for compressed hits arriving at `rate` per core cycle per SM, `ahead` of them
 * from the hit's own warp instruction on average: W = lat (1 + ahead) / (1 - rate x lat), at most
 * 257 lat. */
double gpuest_model_dq_wait(double lat, double rate, double ahead);
/* The replayed queue's mean wait per compressed hit at `spacing` core cycles per read line request
 * of an SM: wait_at[j] holds it at 2^j, interpolated linearly in log2 spacing, clamped to the grid. */
double gpuest_model_dq_wait_replayed(const double wait_at[GPUEST_MODEL_DQ_SPACINGS], double spacing);

void gpuest_model_transform_identity(gpuest_model_transform_t *t);
/* Mean read-reply flits under t (uncompressed: the config's reply size). */
double gpuest_model_reply_flits(const gpuest_model_transform_t *t, int uncompressed_flits);

/* Fitted parameters (docs/estimator.md). */
#define GPUEST_GPU_PARAMS 3
typedef struct {
    double alpha; /* outstanding miss tokens per resident warp (effective memory-level parallelism) */
    double eta;   /* issue efficiency, (0, 1] */
    double kappa; /* contention correction of the NoC model's waits */
} gpuest_gpu_params_t;
extern const char *const gpuest_gpu_param_names[GPUEST_GPU_PARAMS];
extern const double gpuest_gpu_param_lo[GPUEST_GPU_PARAMS], gpuest_gpu_param_hi[GPUEST_GPU_PARAMS];
void gpuest_gpu_params_default(gpuest_gpu_params_t *p);
void gpuest_gpu_params_to_vec(const gpuest_gpu_params_t *p, double *v);
void gpuest_gpu_params_from_vec(gpuest_gpu_params_t *p, const double *v);

/* Outputs; latencies in core cycles. */
typedef struct {
    double ipc;             /* thread instructions per core cycle, whole GPU */
    double warp_ipc;
    double amat;            /* h1 t_hit + (1 - h1) miss latency */
    double miss_latency;    /* req + mem + reply */
    double req_latency, mem_latency, reply_latency;
    double mc_stall_ratio;  /* P(reply ready and NI queue full) per MC cycle */
    double inject_util;     /* MC reply-injection port utilisation */
    double link_util_max;   /* flits per cycle on the busiest NoC link */
    double link_util_mean;  /* over links that carry traffic */
    double bottleneck_util; /* largest utilisation of any station */
    double tokens_per_sm;   /* closed population per SM */
    int promoted_links;     /* hot links promoted to explicit stations */
    int outer_iterations;
    int l1c_choice;         /* adaptive compressed L1: the candidate its rule took (0: plain L1) */
    /* Scoreboard model: line requests waiting at or in one SM's LD/ST unit, and line requests per
     * core cycle per SM (0 without the LD/ST station); WarpPool: the pool's modelled occupancy
     * (queues) and the merged share taken at it. */
    double ldst_queue_lines, ldst_line_rate;
    double pool_occupancy, pool_merge_share;
    /* Compressed L1's decompression queue (l1c_queue.c): mean core cycles per compressed hit (eq. 3's
     * lat x (p + 1)) and compressed hits per core cycle per SM at the fixed point; 0 without one. */
    double l1_dq_wait, l1_dq_rate;
    /* WarpPool's LD/ST unblocking: core cycles per customer cycle of the warp's compute dependences
     * run while its loads wait in the pool for the L1 port (ldst_pool.c); 0 without a pool. */
    double pool_overlap;
} gpuest_gpu_estimate_t;

/* WarpPool: the merged share at a pool of `queues` queues, log-linear between the measured sizes
 * 1, 2, 4, ... (warppool_rule.c; exposed for the tests). */
double gpuest_model_merge_share_at(const gpuest_model_transform_t *t, double queues);

/* WarpPool's LD/ST unblocking (ldst_pool.c; exposed for the tests): core cycles per customer cycle
 * a warp saves when a pool of pool_lines queues takes the line requests that wait at the LD/ST unit
 * (waiting_lines of them per SM, its wait port_wait beyond its own insertion cycles) and it runs its
 * compute dependences (dep) meanwhile: min(port_wait, dep) x min(1, pool_lines / waiting_lines). */
double gpuest_model_pool_overlap(double pool_lines, double waiting_lines, double port_wait, double dep);

/* WarpPool's relief of the L1's set reservations (setres_relief.c; exposed for the tests): the
 * share of an SM's cycles its LD/ST unit is blocked (the measured blocking per read, scaled to the
 * miss latency, times the reads per SM cycle of warp_ipc over sms SMs; at most 1), and the SM's time
 * when the pool scales the blocked cycles by `scale`: 1 - f + f x scale (1 when either is 0). */
double gpuest_model_blocked_share(const gpuest_model_workload_t *w, double warp_ipc, double miss_latency, int sms);
double gpuest_model_setres_time_scale(double blocked_share, double scale);

/* t without its WarpPool part (warppool_rule.c): the merge windows and shares, the pool's L1 miss
 * scales, its LD/ST unblocking and its latency (l1_hit_extra_latency: one technique a transform)
 * set to the identity; every other field kept. A transform without a pool is copied unchanged. */
void gpuest_model_transform_without_pool(const gpuest_model_transform_t *t, gpuest_model_transform_t *rest);

/* The candidate the adaptive compressed L1's rule (t->l1c_rule) picks, given each candidate's
 * estimate est[i] and the workload's measured L1 hit rate and latency tolerance factors
 * (l1c_rule.c; exposed for the tests). */
int gpuest_model_l1c_pick(const gpuest_model_transform_t *t, const gpuest_gpu_estimate_t *est, double l1_hit_rate,
                          double hit_latency, double avail_warps, double cycles_per_schedule);

typedef struct gpuest_gpu_model_s gpuest_gpu_model_t;
/* Builds the model of machine cfg (routes and the open NoC model are built once here). */
gpuest_err gpuest_gpu_model_create(const gpuest_config_t *cfg, gpuest_gpu_model_t **out, gpuest_error_t *err);
void gpuest_gpu_model_destroy(gpuest_gpu_model_t *m);
/* Reuses m (its open NoC model, saturation points and surrogate curves) for machine cfg when cfg
 * differs from m's machine only outside the core, MC and network sections (L1, L2, DRAM timing and
 * clocks, techniques): returns 1 and m now models cfg; else 0 and m is unchanged. The batch form of
 * the estimate uses it to share the network part between design points. */
int gpuest_gpu_model_retarget(gpuest_gpu_model_t *m, const gpuest_config_t *cfg);
/* Solves the closed network for workload w under transform t (NULL: identity) and params p. */
gpuest_err gpuest_gpu_model_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                  const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                  gpuest_gpu_estimate_t *out, gpuest_error_t *err);

/* ============================================================ calibration fit (fit.c) */
/* One calibration observation: a machine, its measured workload inputs and measured outputs. */
typedef struct {
    gpuest_gpu_model_t *model;
    gpuest_model_workload_t workload;
    gpuest_model_transform_t transform;
    double ipc, amat;       /* measured */
    double ipc_cv, amat_cv; /* relative standard error of the measurements (0: exact, weight 1) */
    /* Kernel phases (phases.c; NULL or 0: the run as one phase, `workload`): each solved with its own
     * inputs and combined by instruction share. Not owned. */
    const struct gpuest_model_phase_s *phases;
    int num_phases;
} gpuest_fit_point_t;

typedef struct {
    gpuest_gpu_params_t params;
    double covar[GPUEST_GPU_PARAMS][GPUEST_GPU_PARAMS]; /* of the parameters, scaled by chi2/dof */
    double chi2;
    int dof;
    int iterations;
    double rms_rel_error; /* over every residual of the fit */
} gpuest_fit_result_t;

/* Fits the parameters to the points by GSL nonlinear least squares (trust region, finite-
 * difference Jacobian, logistic bounds, several starts), with weak priors around the defaults. */
gpuest_err gpuest_gpu_fit(gpuest_fit_point_t *pts, int n, gpuest_fit_result_t *out, gpuest_error_t *err);
/* The same from one start (warm start for refits, e.g. leave-one-out). */
gpuest_err gpuest_gpu_fit_from(gpuest_fit_point_t *pts, int n, const gpuest_gpu_params_t *start,
                               gpuest_fit_result_t *out, gpuest_error_t *err);
/* From one start, then the coordinate scouting of gpuest_gpu_fit (fit.c): the leave-one-out refits,
 * so that they repeat the procedure whose prediction error they estimate. */
gpuest_err gpuest_gpu_fit_from_scouted(gpuest_fit_point_t *pts, int n, const gpuest_gpu_params_t *start,
                                       gpuest_fit_result_t *out, gpuest_error_t *err);
/* Delta-method standard deviations of IPC and AMAT at one point. */
gpuest_err gpuest_gpu_predict_sd(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                 const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                 double *ipc_sd, double *amat_sd, gpuest_error_t *err);
/* The same from an estimate already solved on m at the fitted parameters (saves that solve). */
gpuest_err gpuest_gpu_predict_sd_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                    const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                    const gpuest_gpu_estimate_t *at, double *ipc_sd, double *amat_sd,
                                    gpuest_error_t *err);

/* ============================================================ kernel phases (phases.c)
 * A run is a sequence of kernel launches that differ in parallelism, hit rates and traffic (a BFS
 * level with a frontier of ten nodes and one of ten thousand). Each phase (one launch or a group of
 * similar ones) is solved as its own closed network with its own inputs; the phases run one after
 * another, so their times add: total time = sum over phases of instructions_k / IPC_k. */
#define GPUEST_MODEL_MAX_PHASES 8
typedef struct gpuest_model_phase_s {
    double warp_insts;   /* warp instructions of the phase (any common unit: shares suffice) */
    double line_reqs;    /* load line requests (L1 accesses): the weight of its AMAT */
    double reads;        /* read requests sent to the MCs: the weight of its miss latencies */
    gpuest_model_workload_t w; /* the phase's own inputs */
} gpuest_model_phase_t;

/* Combines per-phase estimates e[0..n) of phases ph into one run: thread IPC = thread instructions /
 * sum of phase times (time_k = warp_insts_k / warp_ipc_k); AMAT weighted by line requests; request,
 * memory, reply and miss latencies by reads; MC stall, link and injection utilisations, bottleneck
 * utilisation, tokens, the LD/ST queue and the WarpPool's occupancy and merged share by time; an
 * adaptive L1's choice is that of the phase taking the most time. Phases with no instructions are skipped. GPUEST_EINVAL when no
 * phase has instructions or a phase with instructions has a non-positive IPC. */
gpuest_err gpuest_model_combine_phases(const gpuest_model_phase_t *ph, const gpuest_gpu_estimate_t *e, int n,
                                       gpuest_gpu_estimate_t *out, gpuest_error_t *err);
/* Solves every phase on m (same transform and parameters) and combines them. n = 0 or ph = NULL:
 * gpuest_gpu_model_solve(m, w, ...). */
gpuest_err gpuest_gpu_model_solve_phases(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                         const gpuest_model_phase_t *ph, int n, const gpuest_model_transform_t *t,
                                         const gpuest_gpu_params_t *p, gpuest_gpu_estimate_t *out,
                                         gpuest_error_t *err);
/* The model phase k is solved on: m itself for k = 0, else a model of m's machine that m owns (made
 * on first use, retargeted and destroyed with m), so that each phase keeps its own open NoC model. */
gpuest_err gpuest_gpu_model_for_phase(gpuest_gpu_model_t *m, int k, gpuest_gpu_model_t **out, gpuest_error_t *err);
/* gpuest_gpu_predict_sd over phases (the same forward differences of the combined estimate). */
gpuest_err gpuest_gpu_predict_sd_phases(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                        const gpuest_model_phase_t *ph, int n, const gpuest_model_transform_t *t,
                                        const gpuest_fit_result_t *fit, double *ipc_sd, double *amat_sd,
                                        gpuest_error_t *err);
/* The same from the estimate at the fitted parameters the caller already solved. */
gpuest_err gpuest_gpu_predict_sd_phases_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                           const gpuest_model_phase_t *ph, int n,
                                           const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                           const gpuest_gpu_estimate_t *at, double *ipc_sd, double *amat_sd,
                                           gpuest_error_t *err);
/* The forward-difference gradients behind gpuest_gpu_predict_sd_phases_at: d IPC / d theta_j and
 * d AMAT / d theta_j at the fitted parameters (GPUEST_GPU_PARAMS each). */
gpuest_err gpuest_gpu_predict_grad_phases_at(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                             const gpuest_model_phase_t *ph, int n,
                                             const gpuest_model_transform_t *t, const gpuest_fit_result_t *fit,
                                             const gpuest_gpu_estimate_t *at, double *ipc_grad, double *amat_grad,
                                             gpuest_error_t *err);
/* sqrt(g^T C g) for a gradient g and the fit's parameter covariance C (the delta method). */
double gpuest_gpu_delta_sd(const gpuest_fit_result_t *fit, const double *grad);

/* The wait for a slot in a DRAM channel's request window (dram_window.c): `slots` servers
 * (dram.queue_size), each holding a request for `hold` core cycles, offered `rate` requests per core
 * cycle; Erlang C's mean wait in core cycles, the load capped at GPUEST_MODEL_WINDOW_MAX_LOAD of the
 * slots. 0 when any argument is not positive. */
#define GPUEST_MODEL_WINDOW_MAX_LOAD 0.98
double gpuest_model_dram_window_wait(double rate, double hold, int slots);

#ifdef __cplusplus
}
#endif
#endif
