/* model_int.h: private layout of the NoC model shared by noc_model.c and eval.c. */
#ifndef GPUEST_MODEL_INT_H
#define GPUEST_MODEL_INT_H

#include "model/model.h"

/* One hop (router r, input i, output o) of one class that carries traffic, with what the sweeps
 * need of it (eval.c). */
typedef struct {
    int r, i, o, c;
    double lam;     /* packets per cycle at scale 1 (pk) */
    double pkd;     /* deliveries per cycle behind the hop at scale 1 (pkd) */
    double b;       /* crossbar conflicts: stretch = 1 + conflict x scale x b */
    double bshare;  /* blocking_share of the class */
    int down;       /* downstream router x P + its input port, -1 at an ejection */
    int bp;         /* node of the MC that may refuse this request at this ejection, or -1 */
    int grp_out;    /* (plane x R + r) x P + o: the output it competes for */
    int grp_in;     /* (part x R + r) x P + i: the input VCs it holds */
} gpuest_model_noc_ent_t;

/* A hop in one sweep's order (eval.c): the entry it is, the slots the sweep reads, and whether the
 * hop ends its input's run (output sweep) and its group (both sweeps). */
#define GPUEST_NOC_END_INPUT 1
#define GPUEST_NOC_END_GROUP 2
typedef struct {
    int ent;    /* index into ent */
    int end;    /* GPUEST_NOC_END_* flags */
    int slot;   /* output sweep: the group's w_out slot; input sweep: the group's w_vc / w_down slot */
    int r, p;   /* the group's router and port (note_util) */
    int down_j; /* output sweep: the w_vc / w_down slot of the downstream VC, -1 at an ejection */
    int bp;     /* output sweep: the w_bp slot of the MC that may refuse, -1 */
    int wo;     /* input sweep: the w_out slot of the hop's output */
    int kind;   /* the hop's kind: its class, load at scale 1 and conflict coefficient (hx_ arrays) */
} gpuest_model_noc_sweep_hop_t;

/* A group of the output or input sweep: its hops [start, end) in the sweep's order; output sweep:
 * shape >= 0 when its result depends on its hops' kinds and the refusal wait of MC bp (-1: none)
 * alone; input sweep: its shape (the same kinds hop for hop). */
typedef struct {
    int start, end, shape, bp;
    int rep;        /* input sweep: the first group of its shape */
    int rep_slots;  /* input sweep: 1 when its hops read the same output slots as rep's, hop for hop */
} gpuest_model_noc_group_t;

/* A shape's result in one sweep (sweep_no), at refusal wait wbp: the output's load and wait. */
typedef struct {
    long sweep_no;
    double wbp, rho, w;
} gpuest_model_noc_shape_memo_t;

/* An input shape's result in one sweep (sweep_no), computed on input group g: whether the group
 * carries no packets (skip), its utilisation, VC wait and mean output wait. */
typedef struct {
    long sweep_no;
    int g, skip;
    double u, w, wd;
} gpuest_model_noc_in_memo_t;

struct gpuest_model_noc_s {
    gpuest_noc_cfg_t noc;
    gpuest_net_topo_t topo;    /* the network description shared with the simulator */
    const gpuest_net_routing_t *rf[GPUEST_MODEL_MAX_CLASSES]; /* routing function per class */
    int nodes, k;
    int routers, ports;        /* mesh: k*k routers of 5 ports; crossbar: 1 router of `nodes` ports */
    int ncls, nparts, planes;  /* classes; VC partitions (request/reply types); physical networks */
    int len[GPUEST_MODEL_MAX_CLASSES];   /* packet length, flits */
    int part[GPUEST_MODEL_MAX_CLASSES];  /* VC partition of each class */
    int plane[GPUEST_MODEL_MAX_CLASSES]; /* physical network of each class */
    int is_request[GPUEST_MODEL_MAX_CLASSES];
    int vcs_part;              /* VCs per partition at a port */
    /* switch cycles per interconnect cycle: a crossbar with xbar_port_flits = w runs its whole
     * network (NIs, switch pipeline, credits) w times per interconnect cycle (noc/network.c,
     * gpuest_noc_step), so the model solves a one-flit-per-cycle network at the rate per switch
     * cycle and reports times in interconnect cycles (eval.c, eval_from); 1 on a mesh */
    double clock;
    int mc_slots, ni_slots;    /* MC reply queue and NI queue capacities (packets) */
    /* loads at scale 1 */
    double *pk;        /* packets/cycle, [((r * P + i) * P + o) * C + c] */
    double *inj;       /* packets/cycle injected, [n * C + c] */
    double *arr;       /* packets/cycle ejected, [n * C + c] */
    int *mc;           /* 1 if node n injects a reply class (runs the MC reply path) */
    int injecting;     /* nodes that inject any traffic */
    double *pkd;       /* deliveries/cycle behind each hop (latency weights; = pk without multicast), as pk */
    int *cnt;          /* scratch: candidates routed through each hop, [(r * P + i) * P + o] */
    size_t *touched;   /* scratch: hops with cnt > 0 */
    double cls_inj[GPUEST_MODEL_MAX_CLASSES]; /* packets/cycle injected (a multicast packet once) */
    double cls_pk[GPUEST_MODEL_MAX_CLASSES], cls_hops[GPUEST_MODEL_MAX_CLASSES]; /* per delivery */
    double cls_t0[GPUEST_MODEL_MAX_CLASSES]; /* sum of rate * zero-load pipeline latency */
    /* state of one evaluation */
    double *w_out;     /* wait for an output port, [(plane * R + r) * P + o] */
    double *w_vc;      /* wait at an input VC, [(part * R + r) * P + i] */
    double *w_down;    /* mean wait at the outputs, for packets of input (part, r, i) */
    double *w_bp;      /* request acceptance wait at node n */
    double *w_src;     /* source-queue wait, [plane * N + n] */
    double *w_mcq;     /* MC reply-queue wait at node n */
    double *util_in;   /* crossbar-input flit load, [(plane * R + r) * P + i] */
    double *util_out;  /* output-port flit load, [(plane * R + r) * P + o] */
    /* the converged waits of the last warm evaluation (gpuest_model_noc_eval_warm), as the w_ arrays */
    double *k_out, *k_vc, *k_down, *k_bp, *k_src, *k_mcq;
    int keep_valid;
    double keep_scale;
    gpuest_model_params_t keep_params;
    /* built once (gpuest_model_noc_prepare): the crossbar-conflict coefficient of every injection
     * port, [(plane * R + r) * P + i] (inject_stretch = 1 + conflict x scale x istr), the hops that
     * carry traffic and their orders for the output and input sweeps */
    double *istr;
    unsigned char *used; /* 1 where a hop carries any traffic (pk or pkd > 0), [(r * P + i) * P + o] */
    gpuest_model_noc_ent_t *ent;
    int *ord_out, *ord_in;
    size_t nent, nout;
    double *mdk; /* per node: the last M/D/1/K inputs (rate, service) and outputs (stall, p_full, wait) */
    /* built once (gpuest_model_noc_prepare) for the sweeps (eval.c): the hops in the output sweep's
     * order (sw_out, as ord_out) and the input sweep's (sw_in, as ord_in), flat, each marking where
     * its groups end; per injecting (node, class) its VC slot, and per class the credit stall and
     * blocking share of an injection */
    gpuest_model_noc_sweep_hop_t *sw_out, *sw_in;
    int *inj_j;
    double inj_stall[GPUEST_MODEL_MAX_CLASSES], inj_bshare[GPUEST_MODEL_MAX_CLASSES];
    /* set at the start of each evaluation (eval.c, scale_hops): what the sweeps read of each hop and
     * injection that depends on the scale and the contention constants alone, so that a sweep does
     * not compute it again (the same operations, so the same values). Per hop kind (the hops of one
     * class with the same load at scale 1 and the same conflict coefficient have the same values:
     * a crossbar under uniform traffic has a few kinds, fermi 4 of 360 hops): packets per switch
     * cycle, serialization with crossbar conflicts, that + the VC turnaround, the output occupancy
     * without refusals where no downstream blocking enters it (at an ejection), and the input VC's
     * service without the output wait; per injection the service without blocking, [n * C + c].
     * kind_ent: an entry of each kind. */
    int nkinds;
    int *kind_ent;
    double *hx_lam, *hx_ser, *hx_sv, *hx_occ, *hx_svc, *inj_base;
    /* the output sweep's groups (one per output that carries traffic), in its order, and the shapes
     * of those whose result is a function of their hops' kinds and one refusal wait alone (every hop
     * at an ejection, one refusing MC or none): groups of one shape with equal refusal waits have
     * equal results, so a sweep computes a shape once per refusal wait (shape_memo, valid for the
     * sweep whose number it holds) */
    int nogroups, nshapes;
    gpuest_model_noc_group_t *ogroups;
    gpuest_model_noc_shape_memo_t *shape_memo;
    long sweep_no;
    /* the input sweep's groups (one per input VC partition that carries traffic) and their shapes
     * (the same kinds hop for hop): groups of one shape whose hops read equal output waits have
     * equal results (in_memo: the group a shape's result was computed on in sweep sweep_no) */
    int nigroups, nishapes;
    gpuest_model_noc_group_t *igroups;
    gpuest_model_noc_in_memo_t *in_memo;
    /* no_reuse: 1 computes every group, M/D/1/K and G/G/c wait afresh (tests compare the two);
     * reused: how many results were taken instead of computed */
    int no_reuse;
    long reused;
};

gpuest_err gpuest_model_noc_prepare(gpuest_model_noc_t *m, gpuest_error_t *err);
/* Whether the sweeps take a result computed for equal inputs in the same sweep (default 1) or
 * compute every one (0), and how many they took since the model was built (eval.c). */
void gpuest_model_noc_set_reuse(gpuest_model_noc_t *m, int on);
long gpuest_model_noc_reused(const gpuest_model_noc_t *m);
/* stall_ratio.c: P(N > k) for N on 0..b under the truncated-geometric law of mean `mean` (the MC
 * stall ratio of gpu_model.c); sums (may be NULL) gets the number of sums of b + 1 terms the
 * bisection for the law's parameter took. */
double gpuest_model_stall_ratio(double mean, double b, double k, int *sums);
/* mc_port.c: the packets the NI injection queue holds as a blocking threshold for replies of
 * `flits` flits (inject_queue_flits / flits, at least 1, at most inject_queue), and the MC stall
 * ratio: P(N > k) on 0..reply_queue + k (fractional k) for the reply-side mean `mean` per MC, times
 * the stalled share 1 - 1 / service_l2 of the blocked L2 cycles (service_l2: the port's service
 * time of one reply in L2 cycles). */
double gpuest_model_ni_packets(int inject_queue, int inject_queue_flits, double flits);
double gpuest_model_mc_stall(double mean, double reply_queue, double k, double service_l2);
/* gpuest_model_noc_eval_warm without the per-class latencies (class_results): the saturation
 * search reads the utilisation and the saturated flag alone (noc_saturation.c). */
gpuest_err gpuest_model_noc_eval_probe(gpuest_model_noc_t *m, double scale, const gpuest_model_params_t *params,
                                       gpuest_model_result_t *out, gpuest_error_t *err);

static inline size_t noc_pk_idx(const gpuest_model_noc_t *m, int r, int i, int o, int c)
{
    return (((size_t)r * m->ports + i) * m->ports + o) * m->ncls + c;
}

/* Next router and its input port when leaving router r through output port o; -1 for an ejection port. */
static inline int noc_next(const gpuest_model_noc_t *m, int r, int o, int *in_port)
{
    return gpuest_net_next(&m->topo, r, o, in_port);
}

/* l1c_rule.c: the solve of an adaptive compressed L1 (t->l1c_rule != 0): each candidate's static
 * transform solved, the policy's rule applied to their estimates, the picked one returned. */
gpuest_err gpuest_model_l1c_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                  const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                  gpuest_gpu_estimate_t *out, gpuest_error_t *err);
/* warppool_rule.c: the solve with a WarpPool (t->l1_merge_windows > 0): occupancy from the
 * pool-less solve, then the solve with the merged share at that occupancy. */
/* The machine's SMs (warppool_rule.c: the set-reservation relief of the token form). */
int gpuest_gpu_model_sms(const gpuest_gpu_model_t *m);
gpuest_err gpuest_model_warppool_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                       const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                       gpuest_gpu_estimate_t *out, gpuest_error_t *err);
/* l1c_queue.c: the solve of a static compressed L1 with its decompression queue (t->l1_dq_latency
 * > 0): the queue's wait at the model's own throughput, to a fixed point. */
gpuest_err gpuest_model_l1c_queue_solve(gpuest_gpu_model_t *m, const gpuest_model_workload_t *w,
                                        const gpuest_model_transform_t *t, const gpuest_gpu_params_t *p,
                                        gpuest_gpu_estimate_t *out, gpuest_error_t *err);
/* gpu_model.c: L1 read hits and L1 read line requests per core cycle per SM at the estimate's
 * throughput, the misses scaled by s as a compressed L1 does (0: as measured). */
void gpuest_gpu_model_l1_rates(const gpuest_gpu_model_t *m, const gpuest_model_workload_t *w, double s,
                               const gpuest_gpu_estimate_t *est, double *hits, double *reads);
/* gpu_model.c: the machine's L1 hit latency (core cycles). */
double gpuest_gpu_model_hit_latency(const gpuest_gpu_model_t *m);

#endif
