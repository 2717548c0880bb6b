/* router.c: input-queued VC router pipeline (route, VC allocation, switch allocation, crossbar) with BookSim 2 stage timing.
 *
 * Each stage owns a FIFO of items. In a cycle every stage first *evaluates*
 * (stamps new items ready = now + delay - 1 and runs its allocator), then every
 * stage *updates* (retires items whose time has come and hands them to the
 * next stage's queue, where they are evaluated the following cycle). This is
 * the ordering of BookSim's iq_router, so with delays of 1 a head flit spends
 * one cycle per stage: RC, VA, SA, ST, and the link adds its latency + 1. */
#include <string.h>

#include "alloc_inl.h"
#include "noc_int.h"

static inline int pkt_cls(const gpuest_noc_t *noc, noc_flit_t f)
{
    (void)noc;
    return f.cls;
}

/* Output port of the next hop. Mesh ports: 0 +x (east), 1 -x (west), 2 +y
 * (south, row+1), 3 -y (north), 4 local; crossbar: the destination's port.
 * Per-class dimension order lives here; a multicast route would return a port
 * set at this point (coalescing paper section 4: replicate where XY paths fork). */
int noc_route(const gpuest_noc_t *noc, const noc_router_t *r, int dst, int cls)
{
    if (noc->cfg.topology == GPUEST_TOPO_CROSSBAR)
        return dst;
    int k = noc->k;
    int col = r->node % k, row = r->node / k;
    int dcol = dst % k, drow = dst / k;
    int xport = dcol > col ? 0 : (dcol < col ? 1 : -1);
    int yport = drow > row ? 2 : (drow < row ? 3 : -1);
    int first = xport, second = yport;
    if (noc->opts.routing[cls] == GPUEST_ROUTE_YX) {
        first = yport;
        second = xport;
    }
    if (first >= 0)
        return first;
    if (second >= 0)
        return second;
    return 4;
}

static inline noc_flit_t *vc_front(noc_router_t *r, const gpuest_noc_t *noc, int iv)
{
    return &r->buf[(size_t)iv * noc->bstride + r->ivc[iv].head];
}

/* Head at the front of an idle VC: route now (look-ahead, routing_delay 0) or
 * queue it for the routing stage. */
static void start_route(gpuest_noc_t *noc, noc_router_t *r, int port, int vc)
{
    int iv = port * noc->vcs + vc;
    noc_ivc_t *ivc = &r->ivc[iv];
    assert(ivc->count > 0 && (vc_front(r, noc, iv)->flags & NOC_FLIT_HEAD));
    if (noc->cfg.routing_delay > 0) {
        ivc->state = NOC_VC_ROUTING;
        noc_q_push(&r->route_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = (int16_t)vc, .out = -1});
    } else {
        noc_flit_t f = *vc_front(r, noc, iv);
        ivc->out_port = (int8_t)noc_route(noc, r, f.dst, f.cls);
        ivc->state = NOC_VC_VCALLOC;
        noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = (int16_t)vc, .out = -1});
    }
}

/* Input queuing: a flit arriving on input port `port`. */
static void accept_flit(gpuest_noc_t *noc, noc_router_t *r, int port, noc_flit_t f)
{
    int iv = port * noc->vcs + f.vc;
    noc_ivc_t *ivc = &r->ivc[iv];
    assert(f.vc < noc->vcs);
    assert(ivc->count < noc->bufsz); /* credits guarantee room */
    r->buf[(size_t)iv * noc->bstride + ((ivc->head + ivc->count) & noc->bmask)] = f;
    ivc->count++;
    r->buffered++;
    if (ivc->state == NOC_VC_IDLE) {
        assert(ivc->count == 1 && (f.flags & NOC_FLIT_HEAD));
        start_route(noc, r, port, f.vc);
    } else if (ivc->state == NOC_VC_ACTIVE && ivc->count == 1) {
        noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = (int16_t)port, .vc = f.vc, .out = -1});
    }
}

static void receive(gpuest_noc_t *noc, noc_router_t *r)
{
    for (uint64_t m = r->fmask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        int li = r->in_link[p];
        noc_flit_t f;
        if (noc_link_recv_flit(noc, li, &f))
            accept_flit(noc, r, p, f);
        if (noc->links[li].fcount == 0)
            r->fmask &= ~(UINT64_C(1) << p);
    }
    for (uint64_t m = r->cmask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        int lo = r->out_link[p];
        uint64_t c = noc_link_recv_credit(noc, lo);
        for (int v = 0; c; v++, c >>= 1)
            if (c & 1)
                noc_ovc_credit(noc, &r->ovc[p * noc->vcs + v]);
        if (noc->links[lo].ccount == 0)
            r->cmask &= ~(UINT64_C(1) << p);
    }
}

/* ---------------------------------------------------------------- routing */
static void route_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    for (uint32_t i = 0; i < r->route_q.count; i++) {
        noc_item_t *it = noc_q_at(&r->route_q, i);
        if (it->ready >= 0)
            break;
        it->ready = noc->now + noc->cfg.routing_delay - 1;
    }
}

static void route_update(gpuest_noc_t *noc, noc_router_t *r)
{
    while (r->route_q.count) {
        noc_item_t it = *noc_q_at(&r->route_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        int iv = it.port * noc->vcs + it.vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert(ivc->state == NOC_VC_ROUTING);
        noc_flit_t f = *vc_front(r, noc, iv);
        ivc->out_port = (int8_t)noc_route(noc, r, f.dst, f.cls);
        ivc->state = NOC_VC_VCALLOC;
        noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        noc_q_pop(&r->route_q);
    }
}

/* ---------------------------------------------------------------- VC allocation */
static void va_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs;
    noc_alloc_clear(&r->va);
    uint32_t n = 0;
    for (; n < r->va_q.count; n++) {
        noc_item_t *it = noc_q_at(&r->va_q, n);
        if (it->ready >= 0)
            break;
        int iv = it->port * V + it->vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert(ivc->state == NOC_VC_VCALLOC && ivc->out_port >= 0);
        int cls = pkt_cls(noc, *vc_front(r, noc, iv));
        int op = ivc->out_port;
        for (int ov = noc->vc_lo[cls]; ov <= noc->vc_hi[cls]; ov++)
            if (r->ovc[op * V + ov].owner < 0)
                noc_alloc_request(&r->va, iv, op * V + ov);
    }
    if (n == 0)
        return;
    noc_alloc_run(&r->va);
    for (uint32_t i = 0; i < n; i++) {
        noc_item_t *it = noc_q_at(&r->va_q, i);
        it->ready = noc->now + noc->cfg.vc_alloc_delay - 1;
        it->out = r->va.inmatch[it->port * V + it->vc];
    }
}

static void va_update(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs;
    while (r->va_q.count) {
        noc_item_t it = *noc_q_at(&r->va_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        int iv = it.port * V + it.vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        assert(ivc->state == NOC_VC_VCALLOC);
        if (it.out >= 0) {
            noc_ovc_t *o = &r->ovc[it.out];
            assert(o->owner < 0 && it.out / V == ivc->out_port);
            o->owner = (int16_t)iv;
            o->tail_sent = 0;
            ivc->out_vc = (int16_t)(it.out % V);
            ivc->state = NOC_VC_ACTIVE;
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        } else {
            noc_q_push(&r->va_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        }
        noc_q_pop(&r->va_q);
    }
}

/* ---------------------------------------------------------------- switch allocation */
/* Among VCs of one input port asking for the same output, the one closest
 * after the port's round-robin offset wins the port's single request. */
static int supersedes(int vc, int other, int offset, int V)
{
    return ((vc - offset + V) % V) < ((other - offset + V) % V);
}

static void sa_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs, P = r->nports;
    noc_alloc_clear(&r->sa);
    uint32_t n = 0;
    for (; n < r->sa_q.count; n++) {
        noc_item_t *it = noc_q_at(&r->sa_q, n);
        if (it->ready >= 0)
            break;
        noc_ivc_t *ivc = &r->ivc[it->port * V + it->vc];
        assert(ivc->state == NOC_VC_ACTIVE && ivc->count > 0);
        int op = ivc->out_port;
        if (r->ovc[op * V + ivc->out_vc].credits <= 0) {
            it->out = -2; /* no downstream space: stall this cycle */
            continue;
        }
        it->out = -1;
        int16_t *label = &r->sw_label[it->port * P + op];
        if (noc_alloc_has(&r->sa, it->port, op)) {
            if (supersedes(it->vc, *label, r->sw_rr[it->port], V))
                *label = it->vc;
        } else {
            noc_alloc_request(&r->sa, it->port, op);
            *label = it->vc;
        }
    }
    if (n == 0)
        return;
    noc_alloc_run(&r->sa);
    for (uint32_t i = 0; i < n; i++) {
        noc_item_t *it = noc_q_at(&r->sa_q, i);
        it->ready = noc->now + noc->cfg.sw_alloc_delay - 1;
        if (it->out < -1)
            continue;
        int o = r->sa.inmatch[it->port];
        noc_ivc_t *ivc = &r->ivc[it->port * V + it->vc];
        if (o >= 0 && o == ivc->out_port && r->sw_label[it->port * P + o] == it->vc) {
            it->out = o;
            r->sw_rr[it->port] = (it->vc + 1) % V;
        } else {
            it->out = -1;
        }
    }
}

static void sa_update(gpuest_noc_t *noc, noc_router_t *r)
{
    int V = noc->vcs;
    while (r->sa_q.count) {
        noc_item_t it = *noc_q_at(&r->sa_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        noc_q_pop(&r->sa_q);
        int iv = it.port * V + it.vc;
        noc_ivc_t *ivc = &r->ivc[iv];
        if (it.out < 0) { /* lost arbitration or no credit: try again next cycle */
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
            continue;
        }
        assert(ivc->state == NOC_VC_ACTIVE && ivc->count > 0 && it.out == ivc->out_port);
        noc_flit_t f = *vc_front(r, noc, iv);
        ivc->head = (uint16_t)((ivc->head + 1) & noc->bmask);
        ivc->count--;
        r->buffered--;
        int tail = (f.flags & NOC_FLIT_TAIL) != 0;
        if (f.flags & NOC_FLIT_HEAD)
            f.pad = (uint8_t)(f.pad < 255 ? f.pad + 1 : 255); /* the head counts the routers it crosses */
        noc_ovc_t *o = &r->ovc[it.out * V + ivc->out_vc];
        assert(o->owner == iv);
        noc_ovc_send(noc, o, tail);
        f.vc = (uint8_t)ivc->out_vc;
        noc_q_push(&r->xbar_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = it.out, .flit = f});
        r->credit_out[it.port] |= UINT64_C(1) << it.vc;
        r->credit_mask |= UINT64_C(1) << it.port;
        noc->last_progress = noc->now;
        if (tail) {
            ivc->out_port = -1;
            ivc->out_vc = -1;
            ivc->state = NOC_VC_IDLE;
            if (ivc->count > 0)
                start_route(noc, r, it.port, it.vc);
        } else if (ivc->count > 0) {
            noc_q_push(&r->sa_q, (noc_item_t){.ready = -1, .port = it.port, .vc = it.vc, .out = -1});
        }
    }
}

/* ---------------------------------------------------------------- switch traversal */
static void xbar_evaluate(gpuest_noc_t *noc, noc_router_t *r)
{
    int delay = noc->cfg.st_prepare_delay + noc->cfg.st_final_delay;
    for (uint32_t i = 0; i < r->xbar_q.count; i++) {
        noc_item_t *it = noc_q_at(&r->xbar_q, i);
        if (it->ready >= 0)
            break;
        it->ready = noc->now + delay - 1;
    }
}

static void xbar_update(gpuest_noc_t *noc, noc_router_t *r)
{
    while (r->xbar_q.count) {
        noc_item_t it = *noc_q_at(&r->xbar_q, 0);
        if (it.ready < 0 || it.ready > noc->now)
            break;
        assert(!r->out_valid[it.out]); /* one flit per output per cycle */
        r->out_slot[it.out] = it.flit;
        r->out_valid[it.out] = 1;
        r->out_mask |= UINT64_C(1) << it.out;
        noc_q_pop(&r->xbar_q);
    }
}

/* Evaluate phase of one router for cycle noc->now. Reads only what links
 * delivered for this cycle; its outputs are held until noc_router_commit. */
void noc_router_step(gpuest_noc_t *noc, noc_router_t *r)
{
    receive(noc, r);
    if (r->route_q.count)
        route_evaluate(noc, r);
    if (r->va_q.count)
        va_evaluate(noc, r);
    if (r->sa_q.count)
        sa_evaluate(noc, r);
    if (r->xbar_q.count)
        xbar_evaluate(noc, r);
    if (r->route_q.count)
        route_update(noc, r);
    if (r->va_q.count)
        va_update(noc, r);
    if (r->sa_q.count)
        sa_update(noc, r);
    if (r->xbar_q.count)
        xbar_update(noc, r);
    r->active = r->route_q.count || r->va_q.count || r->sa_q.count || r->xbar_q.count;
}

/* Commit phase: puts this cycle's output flits and credits on the links. */
void noc_router_commit(gpuest_noc_t *noc, noc_router_t *r)
{
    for (uint64_t m = r->out_mask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        assert(r->out_valid[p] && r->out_link[p] >= 0);
        noc_link_send_flit(noc, r->out_link[p], r->out_slot[p]);
        r->out_valid[p] = 0;
    }
    for (uint64_t m = r->credit_mask; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        assert(r->in_link[p] >= 0);
        noc_link_send_credit(noc, r->in_link[p], r->credit_out[p]);
        r->credit_out[p] = 0;
    }
    r->out_mask = r->credit_mask = 0;
}
