/* gpu.c: the whole GPU: builds SMs, MC nodes and the NoC, runs the clock-domain scheduler, kernels, limits, watchdog, statistics.
 *
 * Clock domains (docs/sim.md): core, interconnect, L2 and DRAM each have a period
 * rounded to a whole femtosecond; the scheduler advances to the earliest next
 * edge and ticks every domain whose edge falls there (integer accumulators, no
 * drift between domains beyond the 1 fs rounding). At one instant the order is
 *   phase 1: SMs (issue, L1, miss queue -> NI), MCs (L2, DRAM returns, reply -> NI), DRAM
 *   network step
 *   phase 2: SMs take a reply from their NI, MCs take a request from theirs,
 * so a packet handed to an NI in phase 1 enters the network the same cycle and
 * a packet delivered by the step is consumed the same cycle. */
#include <time.h>

#include "sim_int.h"

void gpuest_sim_opts_default(gpuest_sim_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->watchdog_cycles = 200000;
    o->sample_interval = 1000;
}

gpuest_err sim_oom(sim_gpu_t *g, const char *what)
{
    return gpuest_fail(g->err, GPUEST_ENOMEM, "out of memory for the %s at core cycle %llu", what,
                       (unsigned long long)sim_core_cycle(g));
}

/* ---------------------------------------------------------------- network interface calls */
int sim_inject(sim_gpu_t *g, int src, int dst, int cls, int flits, int32_t req)
{
    return sim_inject_multicast(g, src, &dst, 1, cls, flits, req);
}

int sim_inject_multicast(sim_gpu_t *g, int src, const int *dests, int n, int cls, int flits, int32_t req)
{
    return sim_inject_payload(g, src, dests, n, cls, flits, (void *)(intptr_t)(req + 1));
}

int sim_inject_payload(sim_gpu_t *g, int src, const int *dests, int n, int cls, int flits, void *payload)
{
    if (!gpuest_noc_can_inject_flits(g->noc, src, cls, flits))
        return -1;
    gpuest_noc_send_t p = {.src = src, .dst = dests[0], .dests = n > 1 ? dests : NULL, .num_dests = n > 1 ? n : 0,
                           .cls = cls, .flits = flits, .payload = payload, .created = -1};
    gpuest_error_t e;
    gpuest_err rc = gpuest_noc_inject(g->noc, &p, NULL, &e);
    if (rc == GPUEST_EBUSY)
        return -1;
    if (rc != GPUEST_OK) {
        g->failed = 1;
        return -1;
    }
    return 0;
}

static sim_time_t period_fs(double mhz) { return (sim_time_t)(1e9 / mhz + 0.5); }

/* ---------------------------------------------------------------- build / teardown */
static gpuest_err build(sim_gpu_t *g, gpuest_error_t *err)
{
    const gpuest_config_t *c = g->cfg;
    double mhz[GPUEST_CLK_DOMAINS] = {c->core.clock_mhz, c->noc.clock_mhz, c->l2.clock_mhz, c->dram.clock_mhz};
    static const char *const names[] = {"core.clock_mhz", "noc.clock_mhz", "l2.clock_mhz", "dram.clock_mhz"};
    for (int d = 0; d < GPUEST_CLK_DOMAINS; d++) {
        if (!(mhz[d] > 0.01 && mhz[d] < 1e6))
            return gpuest_fail(err, GPUEST_EINVAL, "%s = %g: expected a frequency in MHz", names[d], mhz[d]);
        g->period[d] = period_fs(mhz[d]);
    }
    g->nsm = c->core.num_sms;
    g->nchan = c->mc.num_mcs;
    g->nsub = c->mc.sub_partitions > 0 ? c->mc.sub_partitions : 1;
    g->nmc = g->nchan * g->nsub;
    if (g->nsub > 1 && c->noc.topology != GPUEST_TOPO_CROSSBAR)
        return gpuest_fail(err, GPUEST_EINVAL, "mc.sub_partitions = %d needs noc.topology = crossbar (a mesh has one "
                                               "node per memory controller)",
                           g->nsub);
    if (g->nsm <= 0 || g->nmc <= 0 || c->core.warps_per_sm <= 0 || c->core.ctas_per_sm <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "core.num_sms, mc.num_mcs, core.warps_per_sm and core.ctas_per_sm "
                                               "must be positive");
    if (c->mc.request_queue <= 0 || c->mc.reply_queue <= 0 || c->l1.miss_queue <= 0 || c->dram.queue_size <= 0 ||
        c->mc.interleave_bytes <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "mc queues, l1.miss_queue, dram.queue_size and mc.interleave_bytes "
                                               "must be positive");
    if (c->l1.line_bytes != GPUEST_LINE_BYTES || c->l2.line_bytes != GPUEST_LINE_BYTES)
        return gpuest_fail(err, GPUEST_EINVAL, "l1.line_bytes = %d, l2.line_bytes = %d: the simulator models %d-byte "
                                               "lines (the coalescer's request size)",
                           c->l1.line_bytes, c->l2.line_bytes, GPUEST_LINE_BYTES);
    sim_time_t pc = g->period[GPUEST_CLK_CORE];
    g->l1_hit_fs = (sim_time_t)c->l1.hit_latency * pc;
    g->l2_hit_fs = (sim_time_t)c->l2.hit_latency * pc;
    g->dram_fixed_fs = (sim_time_t)c->dram.latency * pc; /* GPGPU-Sim's -dram_latency pipeline */
    g->line_bytes = GPUEST_LINE_BYTES;
    g->read_req_flits = 1;
    g->read_reply_flits = gpuest_sim_packet_flits(&c->noc, GPUEST_LINE_BYTES);
    g->write_ack_flits = 1;
    g->lat_class[GPUEST_LAT_ALU] = c->core.alu_latency;
    g->lat_class[GPUEST_LAT_SFU] = c->core.sfu_latency;
    g->lat_class[GPUEST_LAT_SHMEM] = c->core.shmem_latency;
    g->lat_class[GPUEST_LAT_CONST] = c->core.const_latency;
    g->lat_class[GPUEST_LAT_BRANCH] = c->core.alu_latency;

    int nodes_sm[1024], nodes_mc[GPUEST_MAX_MCS];
    if (g->nsm > 1024 || g->nmc > GPUEST_MAX_MCS)
        return gpuest_fail(err, GPUEST_ERANGE, "at most 1024 SMs and %d MCs", GPUEST_MAX_MCS);
    GPUEST_TRY(gpuest_config_sm_nodes(c, nodes_sm, err));
    if (g->nsub == 1)
        GPUEST_TRY(gpuest_config_mc_nodes(c, nodes_mc, err));
    else /* crossbar: one port per sub-partition after the SMs' (GPGPU-Sim's GTX480: 15 + 12 ports) */
        for (int i = 0; i < g->nmc; i++)
            nodes_mc[i] = g->nsm + i;
    gpuest_noc_opts_t no;
    gpuest_noc_opts_from_cfg(&c->noc, &no);
    no.num_nodes = g->nsm + g->nmc;
    no.num_classes = 2;
    GPUEST_TRY(gpuest_noc_create(&c->noc, &no, &g->noc, err));
    g->nlinks = gpuest_noc_num_links(g->noc);
    g->link_total = calloc((size_t)(g->nlinks > 0 ? g->nlinks : 1), sizeof *g->link_total);
    g->sm = calloc((size_t)g->nsm, sizeof *g->sm);
    g->mc = calloc((size_t)g->nmc, sizeof *g->mc);
    g->chan = calloc((size_t)g->nchan, sizeof *g->chan);
    if (!g->sm || !g->mc || !g->chan || !g->link_total)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the GPU");
    for (int i = 0; i < g->nsm; i++)
        GPUEST_TRY(sim_sm_init(g, &g->sm[i], i, nodes_sm[i], err));
    for (int i = 0; i < g->nmc; i++)
        GPUEST_TRY(sim_mc_init(g, &g->mc[i], i, nodes_mc[i], err));
    for (int i = 0; i < g->nchan; i++)
        GPUEST_TRY(sim_dram_init(g, &g->chan[i], err));
    for (int w = 0; w < GPUEST_SIM_LOCALITY_WINDOWS; w++)
        GPUEST_TRY(sim_loc_init(&g->loc[w], (sim_time_t)gpuest_sim_locality_window[w] * pc, err));
    g->pool.free_head = -1;
    return sim_probe_init(g, err);
}

static void teardown(sim_gpu_t *g)
{
    if (g->sm) {
        for (int i = 0; i < g->nsm; i++) {
            sim_sm_abort(g, &g->sm[i]);
            sim_sm_free(g, &g->sm[i]);
        }
    }
    if (g->mc)
        for (int i = 0; i < g->nmc; i++)
            sim_mc_free(&g->mc[i]);
    if (g->chan)
        for (int i = 0; i < g->nchan; i++)
            sim_dram_free(&g->chan[i]);
    free(g->sm);
    free(g->mc);
    free(g->chan);
    free(g->link_total);
    for (int w = 0; w < GPUEST_SIM_LOCALITY_WINDOWS; w++)
        sim_loc_free(&g->loc[w]);
    sim_pool_free(&g->pool);
    sim_probe_free(g);
    free(g->kernel_names);
    gpuest_noc_destroy(g->noc);
}

/* ---------------------------------------------------------------- one instant */
static gpuest_err assign_ctas(sim_gpu_t *g, gpuest_error_t *err)
{
    if (g->hold_issue)
        return GPUEST_OK;
    for (int k = 0; k < g->nsm && g->next_cta < g->launch.num_ctas; k++) {
        int s = (g->rr_sm + k) % g->nsm;
        if (!sim_sm_fits(g, &g->sm[s], &g->launch))
            continue;
        GPUEST_TRY(sim_sm_assign_cta(g, &g->sm[s], g->next_cta++, err));
        g->rr_sm = (s + 1) % g->nsm;
        sim_progress(g);
    }
    return GPUEST_OK;
}

static gpuest_err instant(sim_gpu_t *g, gpuest_error_t *err)
{
    sim_time_t t = g->next[0];
    for (int d = 1; d < GPUEST_CLK_DOMAINS; d++)
        if (g->next[d] < t)
            t = g->next[d];
    int on[GPUEST_CLK_DOMAINS];
    for (int d = 0; d < GPUEST_CLK_DOMAINS; d++)
        on[d] = g->next[d] == t;
    g->now = t;
    if (on[GPUEST_CLK_CORE]) {
        GPUEST_TRY(assign_ctas(g, err));
        for (int i = 0; i < g->nsm; i++)
            GPUEST_TRY(sim_sm_cycle(g, &g->sm[i], err));
        if (g->probe)
            sim_probe_cycle(g);
    }
    if (on[GPUEST_CLK_L2])
        for (int i = 0; i < g->nmc; i++)
            GPUEST_TRY(sim_mc_cycle(g, &g->mc[i], err));
    if (on[GPUEST_CLK_DRAM])
        for (int i = 0; i < g->nchan; i++)
            sim_dram_cycle(g, i);
    if (on[GPUEST_CLK_ICNT])
        gpuest_noc_step(g->noc);
    if (on[GPUEST_CLK_CORE])
        for (int i = 0; i < g->nsm; i++)
            GPUEST_TRY(sim_sm_receive(g, &g->sm[i], err));
    if (on[GPUEST_CLK_L2])
        for (int i = 0; i < g->nmc; i++)
            GPUEST_TRY(sim_mc_receive(g, &g->mc[i], err));
    if (g->failed)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory (or a NoC injection error) during simulation");
    for (int d = 0; d < GPUEST_CLK_DOMAINS; d++)
        if (on[d]) {
            g->ticks[d]++;
            g->next[d] += g->period[d];
        }
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- watchdog, samples */
static gpuest_err deadlock(sim_gpu_t *g, gpuest_error_t *err)
{
    for (int i = 0; i < g->nsm; i++) {
        const sim_sm_t *sm = &g->sm[i];
        for (int s = 0; s < g->cfg->core.warps_per_sm; s++) {
            const sim_warp_t *w = &sm->warps[s];
            if (w->state == WS_EMPTY)
                continue;
            return gpuest_fail(err, GPUEST_EDEADLOCK,
                               "no progress for %llu core cycles (cycle %llu, kernel %s): SM %d warp slot %d %s at "
                               "pc %u, %d loads and %d stores outstanding, %d MSHRs in use, %llu packets in the NoC",
                               (unsigned long long)g->opts->watchdog_cycles, (unsigned long long)sim_core_cycle(g),
                               g->launch.name, i, s, w->state == WS_BARRIER ? "waits at a barrier" : "waits",
                               w->inst.pc, w->pending_loads, w->pending_stores, sm->mshr.used,
                               (unsigned long long)gpuest_noc_in_flight(g->noc));
        }
    }
    return gpuest_fail(err, GPUEST_EDEADLOCK, "no progress for %llu core cycles (cycle %llu, kernel %s): %u of %u "
                                              "CTAs done, none resident",
                       (unsigned long long)g->opts->watchdog_cycles, (unsigned long long)sim_core_cycle(g),
                       g->launch.name, g->ctas_done, g->launch.num_ctas);
}

static gpuest_err watchdog(sim_gpu_t *g, gpuest_error_t *err)
{
    uint64_t wd = g->opts->watchdog_cycles;
    if (wd == 0 || sim_core_cycle(g) - g->last_progress <= wd)
        return GPUEST_OK;
    int64_t np = gpuest_noc_last_progress(g->noc);
    if (np != g->noc_progress) { /* flits still move: not stuck */
        g->noc_progress = np;
        sim_progress(g);
        return GPUEST_OK;
    }
    return deadlock(g, err);
}

static gpuest_err take_samples(sim_gpu_t *g, gpuest_sim_result_t *out, size_t *cap)
{
    for (int i = 0; i < g->nsm; i++) {
        sim_sm_t *sm = &g->sm[i];
        if (sm->iv_cycles == 0)
            continue;
        if (out->num_samples == *cap) {
            size_t nc = *cap ? *cap * 2 : 1024;
            gpuest_sim_sample_t *ns = realloc(out->samples, nc * sizeof *ns);
            if (!ns)
                return GPUEST_ENOMEM;
            out->samples = ns;
            *cap = nc;
        }
        out->samples[out->num_samples++] = (gpuest_sim_sample_t){
            .cycle = sim_core_cycle(g) + 1,
            .kernel = (int)out->num_kernels,
            .sm = i,
            .avail_warps = (double)sm->iv_avail / (double)sm->iv_cycles,
            .cycles_per_schedule = sm->iv_runs ? (double)sm->iv_issue / (double)sm->iv_runs : 0.0,
        };
        sm->iv_avail = sm->iv_cycles = sm->iv_issue = sm->iv_runs = 0;
    }
    return GPUEST_OK;
}

/* ---------------------------------------------------------------- kernels */
static gpuest_err check_launch(const sim_gpu_t *g, gpuest_error_t *err)
{
    const gpuest_launch_t *l = &g->launch;
    const gpuest_core_cfg_t *c = &g->cfg->core;
    if ((int)l->warps_per_cta > c->warps_per_sm || (int)l->threads_per_cta > c->threads_per_sm ||
        (int)l->regs_per_cta > c->registers_per_sm || (int)l->shmem_bytes > c->shmem_per_sm)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "kernel %s: a CTA needs %u warps, %u threads, %u registers and %u bytes of shared memory; "
                           "an SM holds %d, %d, %d and %d",
                           l->name, l->warps_per_cta, l->threads_per_cta, l->regs_per_cta, l->shmem_bytes,
                           c->warps_per_sm, c->threads_per_sm, c->registers_per_sm, c->shmem_per_sm);
    return GPUEST_OK;
}

static int limit_hit(const sim_gpu_t *g)
{
    const gpuest_sim_opts_t *o = g->opts;
    return (o->max_cycles && sim_core_cycle(g) >= o->max_cycles) ||
           (o->max_instructions && g->ctr.v[SC_warp_insts] >= o->max_instructions);
}

static gpuest_err push_kernel(gpuest_sim_result_t *out, const gpuest_sim_stats_t *k)
{
    gpuest_sim_stats_t *nk = realloc(out->kernels, (out->num_kernels + 1) * sizeof *nk);
    if (!nk)
        return GPUEST_ENOMEM;
    out->kernels = nk;
    out->kernels[out->num_kernels++] = *k;
    return GPUEST_OK;
}

/* Closes the kernel's statistics window. */
static gpuest_err end_kernel(sim_gpu_t *g, const sim_counters_t *start, uint64_t start_cycle, int partial,
                             gpuest_sim_result_t *out)
{
    for (int w = 0; w < GPUEST_SIM_LOCALITY_WINDOWS; w++) {
        sim_loc_flush(&g->loc[w]);
        g->ctr.v[SC_loc_sh0 + w] = g->loc[w].shared;
    }
    sim_counters_t d;
    for (int i = 0; i < SC_COUNT; i++)
        d.v[i] = g->ctr.v[i] - start->v[i];
    gpuest_sim_stats_t k;
    memset(&k, 0, sizeof k);
    snprintf(k.kernel, sizeof k.kernel, "%s", g->launch.name);
    k.launch = (int)g->launch.index;
    k.partial = partial;
    k.cycles = sim_core_cycle(g) - start_cycle;
    sim_stats_from_counters(g, &d, &k);
    gpuest_noc_stats_t ns;
    gpuest_noc_stats(g->noc, &ns);
    uint64_t *lf = calloc((size_t)(g->nlinks > 0 ? g->nlinks : 1), sizeof *lf);
    if (!lf)
        return GPUEST_ENOMEM;
    for (int l = 0; l < g->nlinks; l++) {
        gpuest_noc_link_t li;
        gpuest_noc_link_info(g->noc, l, &li);
        lf[l] = li.flits;
        g->link_total[l] += li.flits;
    }
    sim_stats_network(g, &ns, lf, g->nlinks, &k);
    free(lf);
    sim_noc_stats_add(&g->noc_total, &ns);
    return push_kernel(out, &k);
}

static gpuest_err run_kernel(sim_gpu_t *g, gpuest_sim_result_t *out, size_t *scap, int *stopped, gpuest_error_t *err)
{
    GPUEST_TRY(check_launch(g, err));
    GPUEST_TRY(sim_front_launch(g, err));
    sim_counters_t start = g->ctr;
    uint64_t start_cycle = sim_core_cycle(g);
    gpuest_noc_stats_reset(g->noc);
    for (int i = 0; i < g->nsm; i++)
        sim_tags_invalidate_all(&g->sm[i].l1); /* L1s start cold at each launch, as GPGPU-Sim flushes them */
    g->next_cta = g->ctas_done = 0;
    g->rr_sm = 0; /* every launch starts its round robin at SM 0 */
    sim_progress(g);
    uint64_t interval = g->opts->sample_interval;
    while (g->ctas_done < g->launch.num_ctas) {
        int core = g->next[GPUEST_CLK_CORE] <= g->next[GPUEST_CLK_ICNT] &&
                   g->next[GPUEST_CLK_CORE] <= g->next[GPUEST_CLK_L2] &&
                   g->next[GPUEST_CLK_CORE] <= g->next[GPUEST_CLK_DRAM];
        GPUEST_TRY(instant(g, err));
        if (!core)
            continue;
        uint64_t cyc = sim_core_cycle(g);
        if (interval && cyc % interval == 0 && take_samples(g, out, scap) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for samples");
        if ((cyc & 1023) == 0 && g->opts->progress)
            gpuest_progress_update_aux(g->opts->progress, g->ctr.v[SC_warp_insts], cyc);
        if (limit_hit(g)) {
            *stopped = 1;
            break;
        }
        GPUEST_TRY(watchdog(g, err));
    }
    if (interval && take_samples(g, out, scap) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for samples");
    if (end_kernel(g, &start, start_cycle, *stopped, out) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for statistics");
    return GPUEST_OK;
}

static gpuest_err finish(sim_gpu_t *g, gpuest_sim_result_t *out, gpuest_error_t *err)
{
    gpuest_sim_stats_t *t = &out->total;
    memset(t, 0, sizeof *t);
    snprintf(t->kernel, sizeof t->kernel, "total");
    t->launch = -1;
    t->partial = out->stopped_by_limit;
    t->cycles = sim_core_cycle(g);
    sim_stats_from_counters(g, &g->ctr, t);
    sim_stats_network(g, &g->noc_total, g->link_total, g->nlinks, t);
    out->links = calloc((size_t)(g->nlinks > 0 ? g->nlinks : 1), sizeof *out->links);
    if (!out->links)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for link statistics");
    out->num_links = (size_t)g->nlinks;
    for (int l = 0; l < g->nlinks; l++) {
        gpuest_noc_link_t li;
        gpuest_noc_link_info(g->noc, l, &li);
        out->links[l] = (gpuest_sim_link_t){li.net, li.src_node, li.dst_node, li.kind, g->link_total[l],
                                            t->icnt_cycles ? (double)g->link_total[l] / (double)t->icnt_cycles : 0};
    }
    out->requests_sent = g->ctr.v[SC_read_reqs] + g->ctr.v[SC_write_reqs] + g->ctr.v[SC_front_reqs];
    out->replies_received = g->ctr.v[SC_replies];
    out->outstanding = (uint64_t)g->pool.live;
    if (!out->stopped_by_limit && (out->requests_sent != out->replies_received || out->outstanding != 0))
        return gpuest_fail(err, GPUEST_ECORRUPT,
                           "%llu memory requests sent but %llu replies received (%llu records still live)",
                           (unsigned long long)out->requests_sent, (unsigned long long)out->replies_received,
                           (unsigned long long)out->outstanding);
    return GPUEST_OK;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static gpuest_err run_all(sim_gpu_t *g, gpuest_sim_result_t *out, gpuest_error_t *err)
{
    GPUEST_TRY(build(g, err));
    size_t scap = 0;
    for (;;) {
        int done = 0, stopped = 0;
        GPUEST_TRY(g->src->next_launch(g->src->ctx, &g->launch, &done, err));
        if (done)
            break;
        GPUEST_TRY(run_kernel(g, out, &scap, &stopped, err));
        if (stopped) {
            out->stopped_by_limit = 1;
            break;
        }
        GPUEST_TRY(g->src->end_launch(g->src->ctx, err));
    }
    return finish(g, out, err);
}

gpuest_err gpuest_sim_run(const gpuest_config_t *cfg, const gpuest_sim_source_t *src, const gpuest_sim_opts_t *opts,
                          gpuest_sim_result_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    gpuest_sim_opts_t defaults;
    if (!opts) {
        gpuest_sim_opts_default(&defaults);
        opts = &defaults;
    }
    sim_gpu_t *g = calloc(1, sizeof *g);
    if (!g)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the simulator");
    g->cfg = cfg;
    g->src = src;
    g->opts = opts;
    g->pool.free_head = -1;
    g->noc_progress = -1;
    g->err = err;
    double t0 = wall_now();
    gpuest_err rc = run_all(g, out, err);
    out->wall_seconds = wall_now() - t0;
    teardown(g);
    free(g);
    return rc;
}

/* ---------------------------------------------------------------- run control (sample.c) */
gpuest_err sim_gpu_build(sim_gpu_t *g, gpuest_error_t *err) { return build(g, err); }
void sim_gpu_teardown(sim_gpu_t *g) { teardown(g); }
gpuest_err sim_gpu_instant(sim_gpu_t *g, gpuest_error_t *err) { return instant(g, err); }
gpuest_err sim_gpu_assign_ctas(sim_gpu_t *g, gpuest_error_t *err) { return assign_ctas(g, err); }
gpuest_err sim_gpu_check_launch(const sim_gpu_t *g, gpuest_error_t *err) { return check_launch(g, err); }
