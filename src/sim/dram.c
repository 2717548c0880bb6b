/* dram.c: one GDDR5 channel per memory controller, a per-bank command state machine in the manner of GPGPU-Sim's dram.cc.
 *
 * Runs on the DRAM command clock; every timing parameter is in command cycles.
 * Each cycle: (1) the scheduler gives each bank without work one request from
 * the channel queue (FR-FCFS: the oldest request to the bank's open row, else the
 * bank's oldest request; FCFS: only the queue head, when its bank is free);
 * (2) the command arbiter issues at most ONE command on the command bus, looking
 * at the banks round robin from `prio`: a column command (RD / WR) when the
 * bank's row is open, else ACT on an idle bank, else PRE on a bank whose open row
 * is the wrong one. A line takes line_bytes / atom column commands (atom = burst
 * x chip width x chips: 64 bytes on GTX480, so two per 128-byte line); its data
 * occupies the bus burst / data_rate cycles per command, from tCL (read) or WL
 * (write) after the command. The request is done when its last burst ends.
 *
 * Constraints (earliest cycle, kept per bank, per bank group and per channel):
 *   RD  : tRCD after ACT; tCCD after any column command; tCCDL after one in the
 *         same group; tWTR = WL + burst + tCDLR after a WR; free data bus
 *   WR  : tRCDWR = tRCD - (WL + 1) after ACT; tCCD, tCCDL; tRTW = tCL + burst +
 *         2 - WL after a RD; free data bus
 *   ACT : bank idle; tRP after its PRE; tRC after its last ACT; tRRD after any
 *         ACT; tRRDL after one in the same group
 *   PRE : tRAS after ACT; tWTP = WL + burst + tWR after a WR; burst after a RD
 *         and tRTPL after a RD in the same group
 * (tRTW, tWTR, tWTP and tRCDWR are GPGPU-Sim's derived values.)
 * Address map: bank = (channel-local address / row_bytes) mod banks, row =
 * local / (row_bytes x banks); bank group = bank mod groups. */
#include "sim_int.h"

#define FAR_PAST (-1000000)

int sim_dram_burst_cycles(const gpuest_config_t *c)
{
    int r = c->dram.data_rate > 0 ? c->dram.data_rate : 1;
    int b = (c->dram.burst_length + r - 1) / r;
    return b > 0 ? b : 1;
}

static int atom_bytes(const gpuest_config_t *c)
{
    int a = c->dram.burst_length * c->dram.chip_bytes * c->dram.chips_per_channel;
    return a > 0 ? a : 1;
}

int sim_dram_atoms(const gpuest_config_t *c)
{
    int a = atom_bytes(c);
    return (c->l2.line_bytes + a - 1) / a;
}

int sim_dram_unloaded_cycles(const gpuest_config_t *cfg)
{
    const gpuest_dram_cfg_t *t = &cfg->dram;
    int gap = t->tCCD > sim_dram_burst_cycles(cfg) ? t->tCCD : sim_dram_burst_cycles(cfg);
    if (t->bank_groups > 0 && t->tCCDL > gap)
        gap = t->tCCDL; /* a line's column commands go to one bank, so one group */
    return t->tRCD + (sim_dram_atoms(cfg) - 1) * gap + t->tCL + sim_dram_burst_cycles(cfg);
}

gpuest_err sim_dram_init(sim_gpu_t *g, sim_dram_t *d, gpuest_error_t *err)
{
    memset(d, 0, sizeof *d);
    const gpuest_dram_cfg_t *t = &g->cfg->dram;
    int nb = t->banks, ng = t->bank_groups > 0 ? t->bank_groups : 1;
    if (nb <= 0 || t->row_bytes <= 0 || nb % ng != 0)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "dram.banks (%d) and dram.row_bytes (%d) must be positive, banks a multiple of "
                           "dram.bank_groups (%d)",
                           nb, t->row_bytes, ng);
    if (t->burst_length <= 0 || t->chip_bytes <= 0 || t->chips_per_channel <= 0 || t->data_rate <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "dram.burst_length, chip_bytes, chips_per_channel and data_rate must "
                                               "be positive");
    d->banks = calloc((size_t)nb, sizeof *d->banks);
    d->groups = calloc((size_t)ng, sizeof *d->groups);
    if (!d->banks || !d->groups)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for DRAM banks");
    for (int b = 0; b < nb; b++) {
        sim_bank_t *k = &d->banks[b];
        k->row = -1;
        k->rd_ok = k->wr_ok = k->pre_ok = k->act_ok = FAR_PAST;
    }
    for (int i = 0; i < ng; i++)
        d->groups[i] = (sim_bankgrp_t){FAR_PAST, FAR_PAST, FAR_PAST};
    d->ccd_ok = d->rrd_ok = d->rtw_ok = d->wtr_ok = d->bus_free = FAR_PAST;
    return GPUEST_OK;
}

void sim_dram_free(sim_dram_t *d)
{
    free(d->banks);
    free(d->groups);
    free(d->q);
    memset(d, 0, sizeof *d);
}

int sim_dram_push(sim_gpu_t *g, sim_mc_t *mc, int32_t req, uint64_t line, int write)
{
    sim_dram_t *d = &g->chan[mc->chan];
    if (d->qlen == d->qcap) {
        int ncap = d->qcap ? d->qcap * 2 : 32;
        sim_dram_req_t *nq = realloc(d->q, (size_t)ncap * sizeof *nq);
        if (!nq)
            return -1;
        d->q = nq;
        d->qcap = ncap;
    }
    uint64_t local = sim_mc_local(g, line), rb = (uint64_t)g->cfg->dram.row_bytes;
    uint64_t nb = (uint64_t)g->cfg->dram.banks;
    d->q[d->qlen++] = (sim_dram_req_t){.req = req,
                                       .sub = (int16_t)mc->id,
                                       .write = (uint8_t)(write != 0),
                                       .bank = (int)((local / rb) % nb),
                                       .row = (int64_t)(local / (rb * nb)),
                                       .atoms_left = sim_dram_atoms(g->cfg)};
    d->work++;
    return 0;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static void trace(sim_dram_t *d, int cmd, int bank, int64_t c);

static int group_of(const gpuest_config_t *c, int bank)
{
    return c->dram.bank_groups > 1 ? bank % c->dram.bank_groups : 0;
}

static void take(sim_dram_t *d, int k, sim_bank_t *b)
{
    b->cur = d->q[k];
    b->cur.row_hit = (uint8_t)(b->active && b->row == b->cur.row);
    b->has_cur = 1;
    memmove(&d->q[k], &d->q[k + 1], (size_t)(d->qlen - k - 1) * sizeof *d->q);
    d->qlen--;
}

/* Gives idle banks their next request, in one pass over the queue (arrival
 * order): FR-FCFS takes, per idle bank, its oldest request to the open row, else
 * its oldest request. */
static void schedule(const gpuest_config_t *c, sim_dram_t *d)
{
    if (d->qlen == 0)
        return;
    if (c->dram.scheduler == GPUEST_DSCHED_FCFS) {
        sim_bank_t *b = &d->banks[d->q[0].bank];
        if (!b->has_cur)
            take(d, 0, b);
        return;
    }
    int pick[256], any = 0, nb = c->dram.banks < 256 ? c->dram.banks : 256;
    for (int b = 0; b < nb; b++)
        pick[b] = -1;
    for (int k = 0; k < d->qlen; k++) {
        const sim_dram_req_t *r = &d->q[k];
        const sim_bank_t *b = &d->banks[r->bank];
        if (r->bank >= nb || b->has_cur)
            continue;
        int hit = b->active && r->row == b->row;
        int cur = pick[r->bank];
        if (cur < 0 || (hit && !(d->q[cur].row == b->row && b->active))) {
            pick[r->bank] = k;
            any = 1;
        }
    }
    if (!any)
        return;
    for (int k = d->qlen - 1; k >= 0; k--) /* from the back: earlier indices stay valid */
        if (d->q[k].bank < nb && pick[d->q[k].bank] == k)
            take(d, k, &d->banks[d->q[k].bank]);
}

/* The request served by bank `bank` is complete at DRAM cycle `end`. */
static void finish(sim_gpu_t *g, const sim_dram_req_t *r, int64_t c, int64_t end)
{
    sim_dram_t *d = &g->chan[g->mc[r->sub].chan];
    d->work--;
    if (r->row_hit)
        g->ctr.v[SC_dram_row_hits]++;
    g->ctr.v[r->write ? SC_dram_writes : SC_dram_reads]++;
    if (r->req < 0)
        return; /* a write-back: nobody waits for it */
    d->inflight--;
    sim_time_t done = g->now + (sim_time_t)(end - c) * g->period[GPUEST_CLK_DRAM];
    if (sim_tfifo_push(&g->mc[r->sub].fills, done, r->req) != 0)
        g->failed = 1;
}

/* Column command (RD or WR) for bank b at cycle c, if every constraint allows. */
static int try_column(sim_gpu_t *g, sim_dram_t *d, int bank, int64_t c)
{
    const gpuest_dram_cfg_t *t = &g->cfg->dram;
    sim_bank_t *b = &d->banks[bank];
    sim_bankgrp_t *grp = &d->groups[group_of(g->cfg, bank)];
    int burst = sim_dram_burst_cycles(g->cfg), wr = b->cur.write;
    int64_t data = c + (wr ? t->WL : t->tCL);
    if (c < (wr ? b->wr_ok : b->rd_ok) || c < d->ccd_ok || c < grp->ccdl_ok || data < d->bus_free)
        return 0;
    if (wr ? c < d->rtw_ok : c < d->wtr_ok)
        return 0;
    trace(d, wr ? SIM_DRAM_WR : SIM_DRAM_RD, bank, c);
    int dir = wr ? SIM_DRAM_WR : SIM_DRAM_RD; /* a statistic only: the constraints above time the turn */
    g->ctr.v[SC_dram_turns] += (uint64_t)(d->last_column != 0 && d->last_column != dir);
    d->last_column = dir;
    d->ccd_ok = c + t->tCCD;
    grp->ccdl_ok = c + t->tCCDL;
    d->bus_free = data + burst;
    g->ctr.v[SC_dram_bus] += (uint64_t)burst;
    if (wr) {
        d->wtr_ok = c + t->WL + burst + t->tCDLR;
        b->pre_ok = max64(b->pre_ok, c + t->WL + burst + t->tWR);
    } else {
        d->rtw_ok = c + t->tCL + burst + 2 - t->WL;
        b->pre_ok = max64(b->pre_ok, c + burst);
        grp->rtpl_ok = c + t->tRTPL;
    }
    if (--b->cur.atoms_left == 0) {
        b->has_cur = 0;
        finish(g, &b->cur, c, data + burst);
    }
    return 1;
}

static int try_activate(sim_gpu_t *g, sim_dram_t *d, int bank, int64_t c)
{
    const gpuest_dram_cfg_t *t = &g->cfg->dram;
    sim_bank_t *b = &d->banks[bank];
    sim_bankgrp_t *grp = &d->groups[group_of(g->cfg, bank)];
    if (c < b->act_ok || c < d->rrd_ok || c < grp->rrdl_ok)
        return 0;
    b->active = 1;
    b->row = b->cur.row;
    b->rd_ok = c + t->tRCD;
    b->wr_ok = c + (t->tRCD > t->WL + 1 ? t->tRCD - (t->WL + 1) : 0);
    b->pre_ok = c + t->tRAS;
    b->act_ok = c + t->tRC;
    d->rrd_ok = c + t->tRRD;
    grp->rrdl_ok = c + t->tRRDL;
    g->ctr.v[SC_dram_acts]++;
    trace(d, SIM_DRAM_ACT, bank, c);
    return 1;
}

static int try_precharge(sim_gpu_t *g, sim_dram_t *d, int bank, int64_t c)
{
    sim_bank_t *b = &d->banks[bank];
    if (c < b->pre_ok || c < d->groups[group_of(g->cfg, bank)].rtpl_ok)
        return 0;
    trace(d, SIM_DRAM_PRE, bank, c);
    b->active = 0;
    b->act_ok = max64(b->act_ok, c + g->cfg->dram.tRP);
    return 1;
}

void sim_dram_cycle(sim_gpu_t *g, int chan)
{
    sim_dram_t *d = &g->chan[chan];
    g->ctr.v[SC_dram_cycles]++;
    if (d->work == 0)
        return;
    const gpuest_config_t *c = g->cfg;
    int64_t now = (int64_t)g->ticks[GPUEST_CLK_DRAM];
    schedule(c, d);
    int issued = 0;
    for (int i = 0; i < c->dram.banks && !issued; i++) {
        int bank = (d->prio + i) % c->dram.banks;
        sim_bank_t *b = &d->banks[bank];
        if (!b->has_cur)
            continue;
        if (b->active && b->row == b->cur.row) {
            issued = try_column(g, d, bank, now);
        } else {
            issued = b->active ? try_precharge(g, d, bank, now) : try_activate(g, d, bank, now);
            if (issued)
                d->prio = (bank + 1) % c->dram.banks;
        }
    }
    if (issued)
        sim_progress(g);
}

static void trace(sim_dram_t *d, int cmd, int bank, int64_t c)
{
    if (d->trace)
        d->trace(d->trace_ctx, cmd, bank, d->banks[bank].row, c);
}
