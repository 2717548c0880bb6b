/* queues.c: the simulator's small containers: index FIFOs, timed FIFOs (delay lines) and the request pool. */
#include "sim_int.h"

static int grow_ring(void **buf, uint32_t *cap, uint32_t head, uint32_t len, size_t elem)
{
    uint32_t ncap = *cap ? *cap * 2 : 16;
    unsigned char *nb = malloc((size_t)ncap * elem);
    if (!nb)
        return -1;
    for (uint32_t i = 0; i < len; i++)
        memcpy(nb + (size_t)i * elem, (unsigned char *)*buf + (size_t)((head + i) % *cap) * elem, elem);
    free(*buf);
    *buf = nb;
    *cap = ncap;
    return 0;
}

int sim_fifo_push(sim_fifo_t *q, int32_t v)
{
    if (q->len == q->cap) {
        void *b = q->buf;
        if (grow_ring(&b, &q->cap, q->head, q->len, sizeof *q->buf) != 0)
            return -1;
        q->buf = b;
        q->head = 0;
    }
    q->buf[(q->head + q->len) % q->cap] = v;
    q->len++;
    return 0;
}

int32_t sim_fifo_pop(sim_fifo_t *q)
{
    int32_t v = q->buf[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return v;
}

void sim_fifo_free(sim_fifo_t *q)
{
    free(q->buf);
    memset(q, 0, sizeof *q);
}

int sim_tfifo_push(sim_tfifo_t *q, sim_time_t ready, int32_t req)
{
    if (q->len == q->cap) {
        void *b = q->buf;
        if (grow_ring(&b, &q->cap, q->head, q->len, sizeof *q->buf) != 0)
            return -1;
        q->buf = b;
        q->head = 0;
    }
    q->buf[(q->head + q->len) % q->cap] = (sim_timed_t){ready, req};
    q->len++;
    return 0;
}

void sim_tfifo_pop(sim_tfifo_t *q)
{
    q->head = (q->head + 1) % q->cap;
    q->len--;
}

void sim_tfifo_free(sim_tfifo_t *q)
{
    free(q->buf);
    memset(q, 0, sizeof *q);
}

/* Free records form a list through .next; the pool doubles when empty. */
int32_t sim_pool_alloc(sim_pool_t *p)
{
    if (p->free_head < 0) {
        int32_t ncap = p->cap ? p->cap * 2 : 1024;
        sim_req_t *nr = realloc(p->r, (size_t)ncap * sizeof *nr);
        if (!nr)
            return -1;
        p->r = nr;
        for (int32_t i = p->cap; i < ncap; i++) {
            memset(&nr[i], 0, sizeof nr[i]);
            nr[i].next = i + 1 < ncap ? i + 1 : -1;
        }
        p->free_head = p->cap;
        p->cap = ncap;
    }
    int32_t i = p->free_head;
    p->free_head = p->r[i].next;
    memset(&p->r[i], 0, sizeof p->r[i]);
    p->r[i].next = -1;
    p->r[i].next2 = -1;
    p->r[i].group_next = -1;
    p->live++;
    return i;
}

void sim_pool_release(sim_pool_t *p, int32_t i)
{
    p->r[i].state = RQ_FREE;
    p->r[i].next = p->free_head;
    p->free_head = i;
    p->live--;
}

void sim_pool_free(sim_pool_t *p)
{
    free(p->r);
    memset(p, 0, sizeof *p);
    p->free_head = -1;
}
