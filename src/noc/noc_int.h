/* noc_int.h: private data layout of the NoC simulator (flat arrays shared by network.c, router.c and alloc.c). */
#ifndef GPUEST_NOC_INT_H
#define GPUEST_NOC_INT_H

#include <assert.h>
#include <stdint.h>

#include "noc.h"

#define NOC_NONE UINT32_MAX
#define NOC_MAX_VCS 64 /* credit masks are one uint64_t */

/* Flit: 12 bytes, stored by value in VC buffers and links (never malloc'd). */
enum { NOC_FLIT_HEAD = 1, NOC_FLIT_TAIL = 2 };
typedef struct {
    uint32_t pkt;    /* index in the packet pool */
    uint16_t seq;    /* position within the packet, 0 = head */
    uint16_t dst;    /* destination node (copied from the packet so routing stays local) */
    uint8_t flags;   /* NOC_FLIT_HEAD | NOC_FLIT_TAIL */
    uint8_t vc;      /* VC it occupies on the link it travels / buffer it sits in */
    uint8_t cls;     /* message class */
    uint8_t pad;     /* head flit: routers crossed so far (saturates at 255) */
} noc_flit_t;

/* Packet record; one per packet copy in flight (multicast copies chain via next_copy). */
typedef struct {
    uint64_t id;
    int64_t created, injected;
    void *payload;
    int32_t src, dst, flits;
    int16_t cls, hops;       /* hops: routers whose switch the head crossed */
    int32_t resv;            /* holds an ejection-queue reservation */
    int32_t next_seq;        /* next flit sequence number expected at the destination */
    uint32_t next_copy;      /* next multicast copy to send after this one, or NOC_NONE */
    uint32_t next_free;      /* free-list link */
} noc_pkt_t;

/* Stage queue item (BookSim's (time, (input, vc), output) in a named struct).
 * ready < 0: not yet evaluated. out: allocation result (-1 none, -2 stalled). */
typedef struct {
    int64_t ready;
    int16_t port, vc;
    int32_t out;
    noc_flit_t flit;         /* crossbar stage only */
} noc_item_t;

/* FIFO ring of stage items; capacity fixed at creation (a power of two). */
typedef struct {
    noc_item_t *v;
    uint32_t head, count, mask;
} noc_queue_t;

/* Input VC. state follows BookSim's VC states. */
enum { NOC_VC_IDLE = 0, NOC_VC_ROUTING = 1, NOC_VC_VCALLOC = 2, NOC_VC_ACTIVE = 3 };
typedef struct {
    uint8_t state;
    int8_t out_port;         /* route result, -1 before routing */
    int16_t out_vc;          /* allocated downstream VC, -1 before VC allocation */
    uint16_t head, count;    /* ring in the router's buffer array */
} noc_ivc_t;

/* Downstream VC as seen from upstream (BookSim BufferState): credits and owner. */
typedef struct {
    int16_t credits;         /* free slots downstream, in [0, buffer] */
    int16_t owner;           /* input VC index holding it, -1 when free */
    uint8_t tail_sent;       /* the owner's tail has left (wait_for_tail_credit) */
} noc_ovc_t;

/* Link: a delay line for flits (downstream) and credits (upstream). An item
 * written at cycle t becomes visible to the receiver at t + delay. */
typedef struct {
    int64_t t;
    noc_flit_t f;
} noc_flit_slot_t;
typedef struct {
    int64_t t;
    uint64_t vcs;            /* VCs whose slot was freed */
} noc_credit_slot_t;
typedef struct {
    noc_flit_slot_t *fq;     /* ring, capacity cap */
    noc_credit_slot_t *cq;
    uint32_t fhead, fcount, chead, ccount, cap, mask; /* cap: power of two */
    int flit_delay, credit_delay;
    int kind;                /* 0 router->router, 1 NI->router, 2 router->NI */
    int net;
    int src_router, src_port;/* src_router -1: an NI (src_port = node) */
    int dst_router, dst_port;/* dst_router -1: an NI (dst_port = node) */
    int src_node, dst_node;
    uint64_t flits;          /* carried since stats reset */
} noc_link_t;

/* Separable allocator over nin x nout with bitset request matrices. */
typedef struct {
    int nin, nout, wi, wo;   /* sizes and words per bitset */
    gpuest_noc_alloc_t type;
    int iters;
    uint64_t *in_req;        /* [nin][wo] */
    uint64_t *out_req;       /* [nout][wi] */
    int *in_list, *out_list; /* inputs / outputs with requests this cycle */
    int nin_list, nout_list;
    int *gptr, *aptr;        /* round-robin pointers: per output / per input */
    int *inmatch, *outmatch; /* result */
    int *grant;              /* scratch: per output */
} noc_alloc_t;

/* Router: P ports x V VCs, buffers of B flits per input VC. */
typedef struct {
    int net, node, nports;
    int active;              /* has work (flits, queued items) */
    uint64_t fmask;          /* input ports whose link carries flits towards it */
    uint64_t cmask;          /* output ports whose link carries credits back to it */
    noc_ivc_t *ivc;          /* [P*V] */
    noc_ovc_t *ovc;          /* [P*V] */
    noc_flit_t *buf;         /* [P*V*B] */
    int *in_link;            /* [P] link feeding input port p, -1 none */
    int *out_link;           /* [P] link driven by output port p, -1 none */
    noc_queue_t route_q, va_q, sa_q, xbar_q;
    int *sw_rr;              /* [P] round-robin VC offset per input port */
    int16_t *sw_label;       /* [P*P] VC of the request (in, out) this cycle */
    noc_flit_t *out_slot;    /* [P] flit leaving on output p this cycle */
    uint8_t *out_valid;      /* [P] */
    uint64_t *credit_out;    /* [P] VCs freed at input p this cycle */
    uint64_t out_mask, credit_mask; /* ports with an output flit / credits this cycle */
    noc_alloc_t va, sa;
    int buffered;            /* flits in input buffers */
} noc_router_t;

/* Network interface of one node on one physical network. */
typedef struct {
    int node, net;
    int link_in;             /* injection link (NI -> router) */
    int link_out;            /* ejection link (router -> NI) */
    noc_ovc_t *ovc;          /* [V] state of the router's local input VCs */
    int last_vc[GPUEST_NOC_MAX_CLASSES];
    int last_class;
    /* injection: per class FIFO of packet indices and the packet being sent */
    uint32_t *iq[GPUEST_NOC_MAX_CLASSES];
    int iq_head[GPUEST_NOC_MAX_CLASSES], iq_count[GPUEST_NOC_MAX_CLASSES];
    int iq_flits[GPUEST_NOC_MAX_CLASSES]; /* flits queued or of the current packet not yet sent */
    uint32_t cur[GPUEST_NOC_MAX_CLASSES];  /* packet in progress or NOC_NONE */
    int cur_seq[GPUEST_NOC_MAX_CLASSES], cur_vc[GPUEST_NOC_MAX_CLASSES];
    /* ejection: flits waiting for a free ejection queue slot, per VC */
    noc_flit_t *pend;        /* [V*B] */
    uint16_t *pend_head, *pend_count;  /* [V] */
    uint8_t *vc_accepting;   /* [V] 1 while the VC's current packet holds a reservation */
    int pending_total;
    int last_eject_vc;       /* round-robin among VCs with waiting flits */
} noc_ni_t;

/* Delivered packets waiting for gpuest_noc_eject (per node, per class). */
typedef struct {
    gpuest_noc_packet_t *v;
    int head, count, cap, reserved;
    int flits; /* flits of the packets queued or reserved (noc.eject_queue_flits) */
} noc_ejq_t;

struct gpuest_noc_s {
    gpuest_noc_cfg_t cfg;
    gpuest_noc_opts_t opts;
    int nodes, nnets, nports, vcs, bufsz, k;
    int bstride, bmask;      /* ring stride of a VC buffer: power of two >= bufsz */
    int vc_lo[GPUEST_NOC_MAX_CLASSES], vc_hi[GPUEST_NOC_MAX_CLASSES];
    int64_t now;             /* switch cycles: sub per interconnect cycle */
    int sub;                 /* crossbar: xbar_port_flits; mesh: 1 */
    int nrouters;
    noc_router_t *routers;   /* [nnets * routers per net] */
    int *stepped;            /* scratch: routers evaluated this cycle */
    int routers_per_net;
    int nlinks;
    noc_link_t *links;
    noc_ni_t *nis;           /* [nnets * nodes] */
    noc_ejq_t *ejq;          /* [nodes * classes] */
    noc_pkt_t *pkts;
    uint32_t npkts, free_pkt;
    uint64_t next_id;
    uint64_t in_flight;
    int64_t last_progress;
    int64_t stats_start;
    gpuest_noc_class_stats_t st[GPUEST_NOC_MAX_CLASSES];
    uint64_t order_errors;   /* flits seen out of order at a destination (must stay 0) */
    gpuest_noc_eject_cb cb;
    void *cb_ctx;
};

/* alloc.c (the per-cycle operations are inline in alloc_inl.h) */
gpuest_err noc_alloc_init(noc_alloc_t *a, int nin, int nout, gpuest_noc_alloc_t type, int iters);
void noc_alloc_free(noc_alloc_t *a);

/* router.c */
void noc_router_step(gpuest_noc_t *noc, noc_router_t *r);
void noc_router_commit(gpuest_noc_t *noc, noc_router_t *r);
int noc_route(const gpuest_noc_t *noc, const noc_router_t *r, int dst, int cls);

/* ---------------------------------------------------------------- links */
static inline void noc_link_send_flit(gpuest_noc_t *noc, int link, noc_flit_t f)
{
    noc_link_t *l = &noc->links[link];
    assert(l->fcount < l->cap);
    int64_t t = noc->now + l->flit_delay;
    assert(l->fcount == 0 || l->fq[(l->fhead + l->fcount - 1) & l->mask].t < t);
    l->fq[(l->fhead + l->fcount) & l->mask] = (noc_flit_slot_t){.t = t, .f = f};
    l->fcount++;
    l->flits++;
    if (l->dst_router >= 0)
        noc->routers[l->dst_router].fmask |= UINT64_C(1) << l->dst_port;
}

static inline void noc_link_send_credit(gpuest_noc_t *noc, int link, uint64_t vcs)
{
    noc_link_t *l = &noc->links[link];
    int64_t t = noc->now + l->credit_delay;
    if (l->ccount > 0) {
        noc_credit_slot_t *last = &l->cq[(l->chead + l->ccount - 1) & l->mask];
        if (last->t == t) { /* credits for several VCs leave in one cycle: one message */
            assert(!(last->vcs & vcs)); /* never two for one VC: a mask cannot count */
            last->vcs |= vcs;
            return;
        }
    }
    assert(l->ccount < l->cap);
    l->cq[(l->chead + l->ccount) & l->mask] = (noc_credit_slot_t){.t = t, .vcs = vcs};
    l->ccount++;
    if (l->src_router >= 0)
        noc->routers[l->src_router].cmask |= UINT64_C(1) << l->src_port;
}

static inline int noc_link_recv_flit(gpuest_noc_t *noc, int link, noc_flit_t *f)
{
    noc_link_t *l = &noc->links[link];
    if (l->fcount == 0 || l->fq[l->fhead].t > noc->now)
        return 0;
    assert(l->fq[l->fhead].t == noc->now);
    *f = l->fq[l->fhead].f;
    l->fhead = (l->fhead + 1) & l->mask;
    l->fcount--;
    return 1;
}

static inline uint64_t noc_link_recv_credit(gpuest_noc_t *noc, int link)
{
    noc_link_t *l = &noc->links[link];
    if (l->ccount == 0 || l->cq[l->chead].t > noc->now)
        return 0;
    assert(l->cq[l->chead].t == noc->now);
    uint64_t m = l->cq[l->chead].vcs;
    l->chead = (l->chead + 1) & l->mask;
    l->ccount--;
    return m;
}

/* BookSim BufferState: a credit frees one slot; with wait_for_tail_credit the
 * VC is released once the owner's tail has left and every slot is back. */
static inline void noc_ovc_credit(const gpuest_noc_t *noc, noc_ovc_t *o)
{
    o->credits++;
    assert(o->credits <= noc->bufsz);
    if (o->tail_sent && o->credits == noc->bufsz) {
        o->owner = -1;
        o->tail_sent = 0;
    }
}

static inline void noc_ovc_send(const gpuest_noc_t *noc, noc_ovc_t *o, int tail)
{
    assert(o->credits > 0 && o->owner >= 0);
    o->credits--;
    if (tail) {
        if (noc->opts.wait_for_tail_credit)
            o->tail_sent = 1;
        else
            o->owner = -1;
    }
}

static inline noc_item_t *noc_q_at(noc_queue_t *q, uint32_t i) { return &q->v[(q->head + i) & q->mask]; }
static inline void noc_q_push(noc_queue_t *q, noc_item_t it)
{
    assert(q->count <= q->mask);
    q->v[(q->head + q->count) & q->mask] = it;
    q->count++;
}
static inline void noc_q_pop(noc_queue_t *q)
{
    assert(q->count > 0);
    q->head = (q->head + 1) & q->mask;
    q->count--;
}

#endif
