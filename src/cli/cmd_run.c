/* cmd_run.c: 'gpuest run': the main job on the built-in default design point (mesh56).
 *
 * Until the calibrated estimator exists the main job is the detailed simulation of
 * one workload on the machine, followed by the analytical NoC model evaluated at the
 * network load the simulation measured, so both answers are printed side by side. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "model/model.h"
#include "sim/sim.h"
#include "study/study.h"
#include "workload/workload.h"

#define CMD "run"

static void run_help(FILE *out)
{
    fprintf(out, "usage: gpuest run [--workload W] [--scale tiny|small|default] [--seed N]\n"
                 "                  [--preset P] [--config FILE] [--set S.K=V ...]\n\n"
                 "The main job on the built-in default (the mesh56 preset, workload hotspot at\n"
                 "small scale): a detailed cycle-level simulation, then the analytical NoC and\n"
                 "MC-reply model evaluated at the network load the simulation measured.\n\n"
                 "options:\n" CLI_CONFIG_HELP);
}

static void print_machine(const gpuest_config_t *c)
{
    const char *desc = gpuest_preset_description(c->name);
    printf("machine: %s (%s)\n", c->name, desc ? desc : "");
    printf("  SMs %d x %d warps, %s, core %.0f MHz | L1D %d KB %d-way, %d B lines | L2 %d KB x %d MCs\n",
           c->core.num_sms, c->core.warps_per_sm, c->core.scheduler == GPUEST_WSCHED_GTO ? "GTO" : "LRR",
           c->core.clock_mhz, c->l1.size_bytes / 1024, c->l1.assoc, c->l1.line_bytes, c->l2.size_per_mc_bytes / 1024,
           c->mc.num_mcs);
    if (c->noc.topology == GPUEST_TOPO_MESH)
        printf("  NoC %dx%d mesh, %d VCs x %d flits, %d B flits, %s-%s routing, MCs %s, %.0f MHz\n", c->noc.k, c->noc.k,
               c->noc.vcs, c->noc.buffer_flits, c->noc.flit_bytes, gpuest_routing_name(c->noc.routing_request),
               gpuest_routing_name(c->noc.routing_reply), gpuest_mc_placement_name(c->noc.mc_placement),
               c->noc.clock_mhz);
    else
        printf("  NoC request + reply crossbars, %d B flits, %d flit(s)/cycle/port, %.0f MHz\n", c->noc.flit_bytes,
               c->noc.xbar_port_flits, c->noc.clock_mhz);
}

static void print_simulation(const gpuest_sim_stats_t *t)
{
    printf("\ndetailed simulation (core cycles):\n");
    printf("  cycles %llu, warp instructions %llu, IPC %.3f, L1D miss rate %.3f\n", (unsigned long long)t->cycles,
           (unsigned long long)t->warp_instructions, t->ipc, t->l1_miss_rate);
    printf("  AMAT %.1f; L1 miss penalty %.1f = request %.1f + memory %.1f + reply %.1f\n", t->amat, t->miss_latency,
           t->req_latency, t->mem_latency, t->reply_latency);
    printf("  MC stall ratio %.3f; flits request %llu, reply %llu; inter-core locality (960 cycles) %.3f\n",
           t->mc_stall_ratio, (unsigned long long)t->flits[0], (unsigned long long)t->flits[1],
           t->intercore_locality[3]);
}

/* The analytical NoC model at the simulated average load (the computation lives in study). */
static int print_model(const gpuest_config_t *cfg, const gpuest_sim_stats_t *t)
{
    gpuest_study_noc_compare_t c;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    if (t->icnt_cycles == 0 || t->read_requests + t->write_requests == 0)
        return 0;
    gpuest_err rc = gpuest_study_noc_compare(cfg, t, &c, &err);
    if (rc != GPUEST_OK)
        return cli_report(CMD, rc, &err);
    const gpuest_model_result_t *m = &c.model;
    printf("\nanalytical NoC model at the simulated average load (%.4f requests/SM/cycle; an open-loop\n"
           "steady-state model: 'gpuest calibrate' and 'gpuest estimate' give the closed, calibrated one):\n",
           c.rate);
    printf("  model saturation rate %.4f requests/SM/cycle (the run averaged %.0f %% of it)\n", c.sat_rate,
           c.sat_rate > 0 ? 100.0 * c.rate / c.sat_rate : 0.0);
    if (m->saturated) {
        printf("  saturated: bottleneck utilisation %.2f at this load (the network runs at its capacity,\n"
               "  as the simulated request latency shows); no latency is reported past saturation\n",
               m->max_util);
        return 0;
    }
    printf("  request latency %.1f (simulated %.1f), reply latency %.1f (simulated %.1f) core cycles\n",
           m->cls[0].avg_latency * c.to_core, t->net_latency[0], m->cls[1].avg_latency * c.to_core, t->net_latency[1]);
    printf("  MC reply injection utilisation %.2f, MC stall ratio %.3f (simulated %.3f)\n", m->mc_inject_util,
           m->mc_stall_ratio, t->mc_stall_ratio);
    return 0;
}

int cli_cmd_run(int argc, char **argv)
{
    cli_config_t cc;
    cli_config_init(&cc, "mesh56");
    const char *workload = "hotspot";
    gpuest_scale_t scale = GPUEST_SCALE_SMALL;
    unsigned long long seed = 1;
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        if (cli_args_is(&a, "help")) {
            run_help(stdout);
            return 0;
        }
        int used = a.name ? cli_config_option(&cc, &a) : 0;
        if (used < 0)
            return 2;
        if (used > 0)
            continue;
        const char *v = a.name ? cli_args_value(&a) : NULL;
        if (a.name && !v)
            return 2;
        if (cli_args_is(&a, "workload")) {
            workload = v;
        } else if (cli_args_is(&a, "scale")) {
            if (gpuest_scale_parse(v, &scale) != GPUEST_OK)
                return cli_usage_error(CMD, "--scale %s: expected tiny, small or default", v);
        } else if (cli_args_is(&a, "seed")) {
            if (cli_parse_u64(CMD, "seed", v, &seed))
                return 2;
        } else {
            return cli_usage_error(CMD, "unexpected argument '%s'", a.name ? a.name : a.value);
        }
    }
    int rc = cli_config_finish(&cc, CMD);
    if (rc != 0)
        return rc;
    print_machine(&cc.cfg);
    printf("workload: %s (scale %s, seed %llu)\n", workload, gpuest_scale_name(scale), seed);

    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_workload_t *wl = NULL;
    gpuest_err e = gpuest_workload_create(workload, scale, seed, &wl, &err);
    if (e != GPUEST_OK)
        return cli_report(CMD, e, &err);
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t so;
    gpuest_sim_opts_default(&so);
    so.progress = cli_progress("simulate", 0);
    if (so.progress)
        gpuest_progress_set_unit(so.progress, "cycles");
    gpuest_sim_result_t r;
    memset(&r, 0, sizeof r);
    e = gpuest_sim_run(&cc.cfg, &src, &so, &r, &err);
    gpuest_progress_finish(so.progress);
    if (e == GPUEST_OK) {
        print_simulation(&r.total);
        rc = print_model(&cc.cfg, &r.total);
    } else {
        rc = cli_report(CMD, e, &err);
    }
    gpuest_sim_result_free(&r);
    gpuest_workload_destroy(wl);
    return rc;
}
