/* mshr.c: miss status holding registers: one entry per outstanding line, merging later requests to it. */
#include "sim_int.h"

gpuest_err sim_mshr_init(sim_mshr_t *m, int entries, int merge, gpuest_error_t *err)
{
    memset(m, 0, sizeof *m);
    if (entries <= 0 || merge <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "MSHR table needs >= 1 entry and >= 1 request per entry (got %d, %d)",
                           entries, merge);
    m->e = calloc((size_t)entries, sizeof *m->e);
    if (!m->e)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for %d MSHRs", entries);
    m->entries = entries;
    m->merge = merge;
    return GPUEST_OK;
}

void sim_mshr_free(sim_mshr_t *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

int sim_mshr_find(const sim_mshr_t *m, uint64_t line)
{
    if (m->used == 0)
        return -1;
    for (int i = 0; i < m->entries; i++)
        if (m->e[i].valid && m->e[i].line == line)
            return i;
    return -1;
}

int sim_mshr_alloc(sim_mshr_t *m, uint64_t line, sim_pool_t *p, int32_t req)
{
    if (m->used == m->entries)
        return -1;
    for (int i = 0; i < m->entries; i++)
        if (!m->e[i].valid) {
            m->e[i] = (sim_mshr_entry_t){.line = line, .head = req, .tail = req, .count = 1, .valid = 1};
            *sim_mshr_link(m, &p->r[req]) = -1;
            m->used++;
            return i;
        }
    return -1;
}

int sim_mshr_add(sim_mshr_t *m, int e, sim_pool_t *p, int32_t req)
{
    sim_mshr_entry_t *x = &m->e[e];
    if (x->count >= m->merge)
        return -1;
    *sim_mshr_link(m, &p->r[req]) = -1;
    *sim_mshr_link(m, &p->r[x->tail]) = req;
    x->tail = req;
    x->count++;
    return 0;
}

int32_t sim_mshr_release(sim_mshr_t *m, int e)
{
    int32_t head = m->e[e].head;
    m->e[e].valid = 0;
    m->used--;
    return head;
}
