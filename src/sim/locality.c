/* locality.c: timed inter-core locality tables at the MCs (coalescing paper, section 2.2).
 *
 * One table per time window. The first read request to a line opens an entry
 * that lives for the window from that moment. A read counts as shared when the
 * line's entry already holds a read from another SM (ARCHITECTURE.md: a read of
 * a block another SM requested inside the window); the first read of a line,
 * and reads repeated only by the same SM, do not count. ratio = shared reads /
 * read requests. Instruction and constant misses are read requests like the
 * L1D's, as in the paper's Fig. 2b. SMs are kept as a 64-bit set (bit sm % 64:
 * with more than 64 SMs, two SMs 64 apart look alike). The table is unbounded
 * (the paper's "unlimited entries"); entries expire in allocation order, so
 * they are kept in a ring with a chained hash index over ring positions. */
#include "sim_int.h"

static uint32_t hash_line(uint64_t line, uint32_t nb)
{
    uint64_t h = (line >> 7) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32) & (nb - 1);
}

gpuest_err sim_loc_init(sim_loc_t *l, sim_time_t window, gpuest_error_t *err)
{
    memset(l, 0, sizeof *l);
    l->window = window;
    l->cap = 256;
    l->nbuckets = 512;
    l->ring = calloc(l->cap, sizeof *l->ring);
    l->bucket = malloc(l->nbuckets * sizeof *l->bucket);
    if (!l->ring || !l->bucket)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the locality table");
    memset(l->bucket, 0xFF, l->nbuckets * sizeof *l->bucket);
    return GPUEST_OK;
}

void sim_loc_free(sim_loc_t *l)
{
    free(l->ring);
    free(l->bucket);
    memset(l, 0, sizeof *l);
}

static void link_entry(sim_loc_t *l, uint32_t pos)
{
    uint32_t h = hash_line(l->ring[pos].line, l->nbuckets);
    l->ring[pos].next = l->bucket[h];
    l->bucket[h] = (int32_t)pos;
}

static int grow(sim_loc_t *l)
{
    uint32_t ncap = l->cap * 2, nb = l->nbuckets * 2;
    sim_loc_entry_t *nr = malloc(ncap * sizeof *nr);
    int32_t *bk = malloc(nb * sizeof *bk);
    if (!nr || !bk) {
        free(nr);
        free(bk);
        return -1;
    }
    for (uint32_t k = 0; k < l->len; k++)
        nr[k] = l->ring[(l->head + k) % l->cap];
    free(l->ring);
    free(l->bucket);
    l->ring = nr;
    l->bucket = bk;
    l->cap = ncap;
    l->nbuckets = nb;
    l->head = 0;
    memset(bk, 0xFF, nb * sizeof *bk);
    for (uint32_t k = 0; k < l->len; k++)
        link_entry(l, k);
    return 0;
}

static void retire_head(sim_loc_t *l)
{
    uint32_t pos = l->head;
    sim_loc_entry_t *e = &l->ring[pos];
    int32_t *pp = &l->bucket[hash_line(e->line, l->nbuckets)];
    while (*pp != (int32_t)pos)
        pp = &l->ring[*pp].next;
    *pp = e->next;
    l->head = (l->head + 1) % l->cap;
    l->len--;
}

void sim_loc_expire(sim_loc_t *l, sim_time_t now)
{
    while (l->len > 0 && l->ring[l->head].start + l->window <= now)
        retire_head(l);
}

void sim_loc_flush(sim_loc_t *l)
{
    while (l->len > 0)
        retire_head(l);
}

int sim_loc_access(sim_loc_t *l, uint64_t line, int sm, sim_time_t now)
{
    for (int32_t p = l->bucket[hash_line(line, l->nbuckets)]; p >= 0; p = l->ring[p].next) {
        sim_loc_entry_t *e = &l->ring[p];
        if (e->line == line) {
            uint64_t me = UINT64_C(1) << (sm & 63);
            if (e->sms & ~me)
                l->shared++;
            e->sms |= me;
            return 0;
        }
    }
    if (l->len == l->cap && grow(l) != 0)
        return -1;
    uint32_t pos = (l->head + l->len) % l->cap;
    l->ring[pos] = (sim_loc_entry_t){.line = line, .start = now, .sms = UINT64_C(1) << (sm & 63)};
    link_entry(l, pos);
    l->len++;
    return 0;
}
