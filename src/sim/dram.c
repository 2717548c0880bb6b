/* dram.c: one GDDR5 channel per MC: banks with row buffers (open page), FR-FCFS or FCFS, the presets' timing.
 *
 * Runs on the DRAM clock; all timing parameters are DRAM cycles. One command
 * decision per cycle: FR-FCFS takes the oldest request that hits an open row in
 * a free bank, else the oldest request to a free bank. A column access waits
 * tCCD after the previous one; a row miss precharges (tRP, after tRAS since the
 * activate), activates (tRCD, tRRD between activates, tRC per bank) and reads.
 * The data bus carries a 128-byte burst in 128 / bus_bytes cycles, so
 * completions leave in scheduling order. Address map: bank = (local / row_bytes)
 * mod banks, row = local / (row_bytes * banks). */
#include "sim_int.h"

static int burst_cycles(const gpuest_config_t *c)
{
    int b = c->dram.bus_bytes > 0 ? c->dram.bus_bytes : 16;
    return (c->l2.line_bytes + b - 1) / b;
}

int sim_dram_unloaded_cycles(const gpuest_config_t *cfg)
{
    return cfg->dram.tRCD + cfg->dram.tCL + burst_cycles(cfg);
}

gpuest_err sim_dram_init(sim_gpu_t *g, sim_dram_t *d, gpuest_error_t *err)
{
    memset(d, 0, sizeof *d);
    int nb = g->cfg->dram.banks;
    if (nb <= 0 || g->cfg->dram.row_bytes <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "dram.banks and dram.row_bytes must be positive (got %d, %d)", nb,
                           g->cfg->dram.row_bytes);
    d->banks = calloc((size_t)nb, sizeof *d->banks);
    if (!d->banks)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for DRAM banks");
    for (int b = 0; b < nb; b++) {
        d->banks[b].open_row = -1;
        d->banks[b].t_act = -1000000;
    }
    d->last_act = -1000000;
    d->last_col = -1000000;
    return GPUEST_OK;
}

void sim_dram_free(sim_dram_t *d)
{
    free(d->banks);
    free(d->q);
    memset(d, 0, sizeof *d);
}

int sim_dram_push(sim_gpu_t *g, sim_mc_t *mc, int32_t req, uint64_t line, int write)
{
    sim_dram_t *d = &mc->dram;
    if (d->qlen == d->qcap) {
        int ncap = d->qcap ? d->qcap * 2 : 32;
        sim_dram_req_t *nq = realloc(d->q, (size_t)ncap * sizeof *nq);
        if (!nq)
            return -1;
        d->q = nq;
        d->qcap = ncap;
    }
    uint64_t local = sim_mc_local(g, line), rb = (uint64_t)g->cfg->dram.row_bytes;
    sim_dram_req_t *r = &d->q[d->qlen++];
    r->req = req;
    r->line = line;
    r->write = write;
    r->bank = (int)((local / rb) % (uint64_t)g->cfg->dram.banks);
    r->row = (int64_t)(local / (rb * (uint64_t)g->cfg->dram.banks));
    r->arrive = g->now;
    if (!write)
        d->reads_queued++;
    return 0;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int choose(const sim_gpu_t *g, const sim_dram_t *d, int64_t c)
{
    int first_free = -1;
    for (int k = 0; k < d->qlen; k++) {
        const sim_dram_req_t *r = &d->q[k];
        const sim_bank_t *b = &d->banks[r->bank];
        if (r->arrive > g->now || b->ready > c) {
            if (g->cfg->dram.scheduler == GPUEST_DSCHED_FCFS)
                return -1;
            continue;
        }
        if (g->cfg->dram.scheduler == GPUEST_DSCHED_FCFS || b->open_row == r->row)
            return k;
        if (first_free < 0)
            first_free = k;
    }
    return first_free;
}

void sim_dram_cycle(sim_gpu_t *g, sim_mc_t *mc)
{
    sim_dram_t *d = &mc->dram;
    if (d->qlen == 0)
        return;
    const gpuest_dram_cfg_t *t = &g->cfg->dram;
    int64_t c = (int64_t)g->ticks[GPUEST_CLK_DRAM];
    int k = choose(g, d, c);
    if (k < 0)
        return;
    sim_dram_req_t r = d->q[k];
    memmove(&d->q[k], &d->q[k + 1], (size_t)(d->qlen - k - 1) * sizeof *d->q);
    d->qlen--;
    sim_bank_t *b = &d->banks[r.bank];
    int64_t col;
    if (b->open_row == r.row) {
        col = max64(c, d->last_col + t->tCCD);
        g->ctr.v[SC_dram_row_hits]++;
    } else {
        int64_t act = max64(c, d->last_act + t->tRRD);
        act = max64(act, b->t_act + t->tRC);
        if (b->open_row >= 0)
            act = max64(act, max64(c, b->t_act + t->tRAS) + t->tRP);
        b->t_act = act;
        b->open_row = r.row;
        d->last_act = act;
        col = max64(act + t->tRCD, d->last_col + t->tCCD);
    }
    d->last_col = col;
    int64_t data = max64(col + t->tCL, d->bus_free), end = data + burst_cycles(g->cfg);
    d->bus_free = end;
    b->ready = r.write ? end + t->tWR : col + t->tCCD;
    sim_progress(g);
    if (r.write) {
        g->ctr.v[SC_dram_writes]++;
        return;
    }
    d->reads_queued--;
    g->ctr.v[SC_dram_reads]++;
    sim_time_t done = g->now + (sim_time_t)(end - c) * g->period[GPUEST_CLK_DRAM];
    if (sim_tfifo_push(&mc->fills, done, r.req) != 0)
        g->failed = 1;
}
