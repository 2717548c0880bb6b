/* cache.c: set-associative tag array with LRU replacement, shared by the L1D and the L2 slices. */
#include "sim_int.h"

gpuest_err sim_tags_init(sim_tags_t *t, const char *section, int size_bytes, int line_bytes, int assoc,
                         gpuest_error_t *err)
{
    memset(t, 0, sizeof *t);
    if (line_bytes <= 0 || assoc <= 0 || size_bytes < line_bytes * assoc || size_bytes % (line_bytes * assoc))
        return gpuest_fail(err, GPUEST_EINVAL,
                           "[%s]: a cache of %d bytes cannot be split into %d-way sets of %d-byte lines", section,
                           size_bytes, assoc, line_bytes);
    t->sets = size_bytes / (line_bytes * assoc);
    t->assoc = assoc;
    t->line_bytes = line_bytes;
    t->ways = calloc((size_t)t->sets * (size_t)assoc, sizeof *t->ways);
    if (!t->ways)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for a %d-set cache", t->sets);
    return GPUEST_OK;
}

void sim_tags_free(sim_tags_t *t)
{
    free(t->ways);
    memset(t, 0, sizeof *t);
}

void sim_tags_invalidate_all(sim_tags_t *t)
{
    memset(t->ways, 0, (size_t)t->sets * (size_t)t->assoc * sizeof *t->ways);
}

static sim_way_t *set_of(sim_tags_t *t, uint64_t index_addr)
{
    uint64_t set = sim_umod(sim_udiv(index_addr, (uint64_t)t->line_bytes), (uint64_t)t->sets);
    return &t->ways[set * (uint64_t)t->assoc];
}

sim_way_t *sim_tags_find(sim_tags_t *t, uint64_t index_addr, uint64_t line, int touch)
{
    sim_way_t *s = set_of(t, index_addr);
    for (int i = 0; i < t->assoc; i++)
        if (s[i].valid && s[i].tag == line) {
            if (touch)
                s[i].lru = ++t->stamp;
            return &s[i];
        }
    return NULL;
}

/* Invalid and unreserved first, then the least recently used unreserved way;
 * NULL when every way is reserved. */
sim_way_t *sim_tags_victim(sim_tags_t *t, uint64_t index_addr)
{
    sim_way_t *s = set_of(t, index_addr), *v = NULL;
    for (int i = 0; i < t->assoc; i++) {
        if (s[i].reserved)
            continue;
        if (!s[i].valid)
            return &s[i];
        if (!v || s[i].lru < v->lru)
            v = &s[i];
    }
    return v;
}

sim_way_t *sim_tags_reserve(sim_tags_t *t, uint64_t index_addr, uint64_t line, sim_way_t *old)
{
    sim_way_t *v = sim_tags_victim(t, index_addr);
    if (!v)
        return NULL;
    *old = *v;
    *v = (sim_way_t){.tag = line, .lru = ++t->stamp, .valid = 0, .dirty = 0, .reserved = 1};
    return v;
}

sim_way_t *sim_tags_find_reserved(sim_tags_t *t, uint64_t index_addr, uint64_t line)
{
    sim_way_t *s = set_of(t, index_addr);
    for (int i = 0; i < t->assoc; i++)
        if (s[i].reserved && s[i].tag == line)
            return &s[i];
    return NULL;
}

void sim_tags_fill(sim_tags_t *t, sim_way_t *w, uint64_t line, uint8_t valid)
{
    w->tag = line;
    w->valid = valid;
    w->dirty = 0;
    w->reserved = 0;
    w->lru = ++t->stamp;
}
