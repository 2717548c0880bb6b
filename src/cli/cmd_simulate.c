/* cmd_simulate.c: 'gpuest simulate': the detailed cycle-level simulation of a workload on a machine. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_source.h"
#include "commands.h"
#include "l1c_kernel_opt.h"
#include "l1c_oracle.h"
#include "sim/sim.h"
#include "technique/technique.h"
#include "workload/workload.h"

static void simulate_help(FILE *out)
{
    fprintf(out,
            "usage: gpuest simulate (--workload NAME [--scale S] [--seed N] | --trace DIR |\n"
            "                        --csv-trace FILE [--image FILE]) [machine] [options]\n\n"
            "Runs the cycle-level simulator (SMs, L1D, NoC, MCs with L2 and DRAM) and prints per\n"
            "kernel and in total: cycles, warp instructions, IPC (thread instructions per core cycle),\n"
            "L1 miss rate, AMAT, the L1 miss penalty split into request / memory / reply latency\n"
            "(core cycles), the MC stall ratio, request and reply flits, and the inter-core locality\n"
            "ratio at a 960-cycle window. At exit it prints the simulation rate.\n\n"
            "machine:\n" CLI_CONFIG_HELP "\n"
            "options:\n"
            "  --workload NAME        a generator (see 'gpuest workload list')\n"
            "  --trace DIR            an Accel-Sim trace folder\n"
            "  --csv-trace FILE       a native CSV trace; --image FILE gives its memory image\n"
            "  --scale S              tiny, small (default) or default\n"
            "  --seed N               input seed (default 1)\n"
            "  --max-cycles N         stop after N core cycles (0: no limit)\n"
            "  --max-instructions N   stop after N warp instructions (0: no limit)\n"
            "  --watchdog N           core cycles without progress before reporting a deadlock (200000)\n"
            "  --csv FILE             one row per kernel and a 'total' row, all statistics\n"
            "  --samples FILE         per-SM time series (available warps, cycles per schedule) as CSV\n"
            "  --links FILE           per-link flits and utilization as CSV\n"
            "  --l1c-oracle FILE      with technique.l1_compression=latte_cc: label every EP of every SM\n"
            "                         with its fastest L1D mode (forked runs of each), follow the labels\n"
            "                         (the per-EP oracle) and write the EPs' features and labels as CSV\n"
            "  --l1c-horizon N        EPs each forked run keeps its mode before it is timed (default 1)\n"
            "  --l1c-every K          label one EP in K of each SM and keep the label between (default 1)\n"
            "  --l1c-continue W       hold (default): a forked run keeps its mode for the horizon and the\n"
            "                         other SMs keep theirs; rule: it deviates for one EP, then LATTE-CC's\n"
            "                         rule decides for every SM (a rollout), and unlabelled EPs follow the rule;\n"
            "                         period: one label per period of each SM: the rule, or none, BDI or SC\n"
            "                         held for the period's remaining EPs (docs/latte-cc.md, \"Sixth round\")\n\n"
            "Techniques are switched on with --set technique.KEY=V (see 'gpuest config show');\n"
            "technique.l1_compression=kernel_opt runs every launch in none, BDI and SC (forked copies),\n"
            "keeps the fastest and prints one 'kernel_opt launch' line per launch.\n"
            "each prints its own statistics as 'technique NAME = VALUE' lines.\n");
}

typedef struct {
    cli_source_t src;
    const char *csv, *samples, *links, *l1c_oracle, *l1c_continue;
    unsigned long long max_cycles, max_insts, watchdog, l1c_horizon, l1c_every;
    cli_config_t mc;
    int l1c_horizon_given, l1c_every_given;
} sim_args_t;

/* --l1c-horizon, --l1c-every: at most this many EPs (a run of the largest workloads has about 10^5) */
#define L1C_COUNT_MAX 1000000

static int parse_args(sim_args_t *o, int argc, char **argv)
{
    cli_args_t a;
    cli_args_init(&a, argc, argv, "simulate");
    while (cli_args_next(&a)) {
        const char *v;
        if (!a.name)
            return cli_usage_error(a.cmd, "unexpected argument '%s'", a.value);
        int c = cli_config_option(&o->mc, &a);
        if (c == 0)
            c = cli_source_option(&o->src, &a);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (cli_args_is(&a, "help")) {
            simulate_help(stdout);
            return -1;
        }
        const char **str = cli_args_is(&a, "csv")         ? &o->csv
                            : cli_args_is(&a, "samples")   ? &o->samples
                            : cli_args_is(&a, "links")     ? &o->links
                            : cli_args_is(&a, "l1c-oracle") ? &o->l1c_oracle
                            : cli_args_is(&a, "l1c-continue") ? &o->l1c_continue
                                                           : NULL;
        unsigned long long *num = cli_args_is(&a, "max-cycles")         ? &o->max_cycles
                                  : cli_args_is(&a, "max-instructions") ? &o->max_insts
                                  : cli_args_is(&a, "watchdog")         ? &o->watchdog
                                  : cli_args_is(&a, "l1c-horizon")      ? &o->l1c_horizon
                                  : cli_args_is(&a, "l1c-every")        ? &o->l1c_every
                                                                        : NULL;
        if (str) {
            if (!(*str = cli_args_value(&a)))
                return 2;
        } else if (num) {
            if (!(v = cli_args_value(&a)) || cli_parse_u64(a.cmd, a.name, v, num) != 0)
                return 2;
            o->l1c_horizon_given |= num == &o->l1c_horizon;
            o->l1c_every_given |= num == &o->l1c_every;
        } else {
            return cli_usage_error(a.cmd, "unknown option --%s (try --help)", a.name);
        }
    }
    int rc = cli_source_check(&o->src, a.cmd, 0, "--workload, --trace, --csv-trace");
    rc = rc ? rc : cli_config_finish(&o->mc, a.cmd);
    if (rc == 0 && o->l1c_oracle && o->mc.cfg.technique.l1_compression != GPUEST_L1COMP_LATTE_CC)
        return cli_usage_error(a.cmd, "--l1c-oracle needs --set technique.l1_compression=latte_cc");
    if (rc == 0 && o->l1c_continue && strcmp(o->l1c_continue, "hold") != 0 && strcmp(o->l1c_continue, "rule") != 0 &&
        strcmp(o->l1c_continue, "period") != 0)
        return cli_usage_error(a.cmd, "--l1c-continue: expected 'hold', 'rule' or 'period', got '%s'",
                               o->l1c_continue);
    /* the labelling options act only with --l1c-oracle: before, they were ignored without it, and
     * 0 or a count past 2^32 (cut to 32 bits) silently became the default 1 */
    if (rc == 0 && !o->l1c_oracle && (o->l1c_continue || o->l1c_horizon_given || o->l1c_every_given))
        return cli_usage_error(a.cmd, "--%s: expected together with --l1c-oracle FILE (it changes how the oracle "
                                      "labels EPs)",
                               o->l1c_continue ? "l1c-continue" : o->l1c_horizon_given ? "l1c-horizon" : "l1c-every");
    if (rc == 0 && o->l1c_horizon_given && (o->l1c_horizon < 1 || o->l1c_horizon > L1C_COUNT_MAX))
        return cli_usage_error(a.cmd, "--l1c-horizon %llu: expected 1..%d EPs", o->l1c_horizon, L1C_COUNT_MAX);
    if (rc == 0 && o->l1c_every_given && (o->l1c_every < 1 || o->l1c_every > L1C_COUNT_MAX))
        return cli_usage_error(a.cmd, "--l1c-every %llu: expected 1..%d", o->l1c_every, L1C_COUNT_MAX);
    if (rc == 0)
        rc = cli_check_output(a.cmd, "csv", o->csv);
    if (rc == 0)
        rc = cli_check_output(a.cmd, "samples", o->samples);
    if (rc == 0)
        rc = cli_check_output(a.cmd, "links", o->links);
    if (rc == 0)
        rc = cli_check_output(a.cmd, "l1c-oracle", o->l1c_oracle);
    return rc;
}

/* ------------------------------------------------------------ tables */
static const char *const csv_header[] = {
    "workload", "preset", "kernel", "cycles", "warp_instructions", "ipc", "l1_miss_rate", "amat", "req_latency",
    "mem_latency", "reply_latency", "mc_stall_ratio", "request_flits", "reply_flits", "intercore_locality_960",
    /* further columns */
    "launch", "partial", "thread_instructions", "warp_ipc", "miss_latency", "l1_accesses", "l1_hits", "l1_misses",
    "l1_mshr_merges", "l1_mshr_stalls", "l1_missq_stalls", "read_requests", "write_requests", "l2_accesses",
    "l2_hits", "l2_misses", "dram_reads", "dram_writes", "dram_row_hits", "request_packets", "reply_packets",
    "request_net_latency", "reply_net_latency", "link_util_mean", "link_util_max", "intercore_locality_120",
    "intercore_locality_240", "intercore_locality_480", "intercore_locality_1920", "avail_warps",
    "cycles_per_schedule", "latency_tolerance", "l1i_accesses", "l1i_misses", "l1c_accesses", "l1c_misses",
    "mc_stall_cycles", "ctrl_packets", "ctrl_flits"};
#define CSV_COLS (sizeof csv_header / sizeof csv_header[0])

static const char *const show_header[] = {"kernel", "cycles",  "winst",   "ipc",   "l1_miss", "amat",  "req",
                                          "mem",    "reply",   "stall",   "req_fl", "rep_fl", "loc960"};
#define SHOW_COLS (sizeof show_header / sizeof show_header[0])

typedef struct {
    char buf[CSV_COLS][48];
    const char *cells[CSV_COLS];
    size_t n;
} row_t;

static void cell(row_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cell(row_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->buf[r->n], sizeof r->buf[r->n], fmt, ap);
    va_end(ap);
    r->cells[r->n] = r->buf[r->n];
    r->n++;
}

#define U(x) ((unsigned long long)(x))

static void csv_row(cli_table_t *t, const char *wl, const char *preset, const gpuest_sim_stats_t *s)
{
    row_t r = {.n = 0};
    cell(&r, "%s", wl);
    cell(&r, "%s", preset);
    cell(&r, "%s", s->kernel);
    cell(&r, "%llu", U(s->cycles));
    cell(&r, "%llu", U(s->warp_instructions));
    cell(&r, "%.4f", s->ipc);
    cell(&r, "%.4f", s->l1_miss_rate);
    cell(&r, "%.2f", s->amat);
    cell(&r, "%.2f", s->req_latency);
    cell(&r, "%.2f", s->mem_latency);
    cell(&r, "%.2f", s->reply_latency);
    cell(&r, "%.4f", s->mc_stall_ratio);
    cell(&r, "%llu", U(s->flits[0]));
    cell(&r, "%llu", U(s->flits[1]));
    cell(&r, "%.4f", s->intercore_locality[3]);
    cell(&r, "%d", s->launch);
    cell(&r, "%d", s->partial);
    cell(&r, "%llu", U(s->thread_instructions));
    cell(&r, "%.4f", s->warp_ipc);
    cell(&r, "%.2f", s->miss_latency);
    cell(&r, "%llu", U(s->l1_accesses));
    cell(&r, "%llu", U(s->l1_hits));
    cell(&r, "%llu", U(s->l1_misses));
    cell(&r, "%llu", U(s->l1_mshr_merges));
    cell(&r, "%llu", U(s->l1_mshr_stalls));
    cell(&r, "%llu", U(s->l1_missq_stalls));
    cell(&r, "%llu", U(s->read_requests));
    cell(&r, "%llu", U(s->write_requests));
    cell(&r, "%llu", U(s->l2_accesses));
    cell(&r, "%llu", U(s->l2_hits));
    cell(&r, "%llu", U(s->l2_misses));
    cell(&r, "%llu", U(s->dram_reads));
    cell(&r, "%llu", U(s->dram_writes));
    cell(&r, "%llu", U(s->dram_row_hits));
    cell(&r, "%llu", U(s->packets[0]));
    cell(&r, "%llu", U(s->packets[1]));
    cell(&r, "%.2f", s->net_latency[0]);
    cell(&r, "%.2f", s->net_latency[1]);
    cell(&r, "%.4f", s->link_util_mean);
    cell(&r, "%.4f", s->link_util_max);
    cell(&r, "%.4f", s->intercore_locality[0]);
    cell(&r, "%.4f", s->intercore_locality[1]);
    cell(&r, "%.4f", s->intercore_locality[2]);
    cell(&r, "%.4f", s->intercore_locality[4]);
    cell(&r, "%.3f", s->avail_warps);
    cell(&r, "%.3f", s->cycles_per_schedule);
    cell(&r, "%.3f", s->latency_tolerance);
    cell(&r, "%llu", U(s->l1i_accesses));
    cell(&r, "%llu", U(s->l1i_misses));
    cell(&r, "%llu", U(s->l1c_accesses));
    cell(&r, "%llu", U(s->l1c_misses));
    cell(&r, "%llu", U(s->mc_stall_cycles));
    cell(&r, "%llu", U(s->ctrl_packets));
    cell(&r, "%llu", U(s->ctrl_flits));
    cli_table_add(t, r.cells);
}

static void show_row(cli_table_t *t, const gpuest_sim_stats_t *s)
{
    cli_table_addf(t, "%s%s\t%llu\t%llu\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%llu\t%llu\t%.3f", s->kernel,
                   s->partial ? "*" : "", U(s->cycles), U(s->warp_instructions), s->ipc, s->l1_miss_rate, s->amat,
                   s->req_latency, s->mem_latency, s->reply_latency, s->mc_stall_ratio, U(s->flits[0]),
                   U(s->flits[1]), s->intercore_locality[3]);
}

static void samples_table(const gpuest_sim_result_t *r, cli_table_t *t)
{
    static const char *const h[] = {"cycle", "kernel", "sm", "avail_warps", "cycles_per_schedule"};
    cli_table_init(t, h, 5);
    for (size_t i = 0; i < r->num_samples; i++) {
        const gpuest_sim_sample_t *s = &r->samples[i];
        cli_table_addf(t, "%llu\t%d\t%d\t%.4f\t%.4f", U(s->cycle), s->kernel, s->sm, s->avail_warps,
                       s->cycles_per_schedule);
    }
}

static void links_table(const gpuest_sim_result_t *r, cli_table_t *t)
{
    static const char *const h[] = {"net", "src_node", "dst_node", "kind", "flits", "utilization"};
    cli_table_init(t, h, 6);
    static const char *const kinds[] = {"router", "inject", "eject"};
    for (size_t i = 0; i < r->num_links; i++) {
        const gpuest_sim_link_t *l = &r->links[i];
        cli_table_addf(t, "%d\t%d\t%d\t%s\t%llu\t%.5f", l->net, l->src_node, l->dst_node,
                       (unsigned)l->kind < 3 ? kinds[l->kind] : "?", U(l->flits), l->utilization);
    }
}

/* --csv, --samples and --links: all three are written to temporary files first and renamed only
 * when every one is complete (before, a --links that could not be written left --csv behind). */
static int write_outputs(const sim_args_t *o, const gpuest_sim_result_t *r, const cli_table_t *csv)
{
    cli_table_t st, lt;
    samples_table(r, &st);
    links_table(r, &lt);
    const cli_table_t *tabs[3];
    const char *paths[3];
    int n = 0;
    if (o->csv) {
        tabs[n] = csv;
        paths[n++] = o->csv;
    }
    if (o->samples) {
        tabs[n] = &st;
        paths[n++] = o->samples;
    }
    if (o->links) {
        tabs[n] = &lt;
        paths[n++] = o->links;
    }
    gpuest_csv_writer_t w[3];
    int rc = 0, staged = 0;
    for (int i = 0; i < n && rc == 0; i++)
        if ((rc = cli_table_stage_csv(tabs[i], paths[i], "simulate", &w[i])) == 0)
            staged++;
    for (int i = 0; i < staged; i++) {
        if (rc != 0)
            gpuest_csv_writer_abort(&w[i]);
        else
            rc = cli_csv_commit(&w[i], "simulate");
    }
    cli_table_free(&st);
    cli_table_free(&lt);
    return rc;
}

/* One line per technique statistic: "technique <name> = <value>". */
static void print_technique_stats(gpuest_technique_set_t *set)
{
    gpuest_technique_stat_t st[GPUEST_TECH_MAX_STATS];
    size_t n = gpuest_technique_set_stats(set, st, GPUEST_TECH_MAX_STATS);
    for (size_t i = 0; i < n; i++)
        printf("technique %s = %.6g\n", st[i].name, st[i].value);
}

static int report(const sim_args_t *o, const char *wl_name, const gpuest_sim_result_t *r)
{
    cli_table_t show, csv;
    if (cli_table_init(&show, show_header, SHOW_COLS) != 0 || cli_table_init(&csv, csv_header, CSV_COLS) != 0)
        return 1;
    for (size_t k = 0; k < r->num_kernels; k++) {
        show_row(&show, &r->kernels[k]);
        csv_row(&csv, wl_name, o->mc.cfg.name, &r->kernels[k]);
    }
    show_row(&show, &r->total);
    csv_row(&csv, wl_name, o->mc.cfg.name, &r->total);
    printf("workload %s on %s (latencies in core cycles%s)\n", wl_name, o->mc.cfg.name,
           r->stopped_by_limit ? "; * = cut short by a limit" : "");
    cli_table_print(&show, stdout);
    int rc = write_outputs(o, r, &csv);
    cli_table_free(&show);
    cli_table_free(&csv);
    double w = r->wall_seconds > 1e-9 ? r->wall_seconds : 1e-9;
    unsigned long long secs = (unsigned long long)r->wall_seconds;
    int wp = o->mc.cfg.technique.coalescing == GPUEST_COALESCE_WARPPOOL ||
             o->mc.cfg.technique.coalescing == GPUEST_COALESCE_PCU_WARPPOOL;
    if (wp) { /* the pools live in the simulator's SMs: their counters are the run's (whole run) */
        const gpuest_sim_stats_t *s = &r->total;
        printf("technique warppool.requests = %llu\n", U(s->warppool_requests));
        printf("technique warppool.merged = %llu\n", U(s->warppool_merged));
        printf("technique warppool.l1_accesses = %llu\n", U(s->warppool_accesses));
        printf("technique warppool.merged_share = %.6g\n",
               s->warppool_requests ? (double)s->warppool_merged / (double)s->warppool_requests : 0.0);
    }
    printf("gpgpu_simulation_time = %llu days, %llu hrs, %llu min, %llu sec (%.3f sec)\n", secs / 86400,
           secs / 3600 % 24, secs / 60 % 60, secs % 60, r->wall_seconds);
    printf("gpgpu_simulation_rate = %.0f (inst/sec)\n", (double)r->total.warp_instructions / w);
    printf("gpgpu_simulation_rate = %.0f (cycle/sec)\n", (double)r->total.cycles / w);
    return rc;
}

int cli_cmd_simulate(int argc, char **argv)
{
    sim_args_t o;
    memset(&o, 0, sizeof o);
    cli_source_init(&o.src);
    o.watchdog = 200000;
    cli_config_init(&o.mc, "mesh56");
    int prc = parse_args(&o, argc, argv);
    if (prc < 0)
        return 0;
    if (prc > 0)
        return prc;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_workload_t *wl = NULL;
    gpuest_err rc = cli_source_open(&o.src, NULL, &wl, &err);
    if (rc != GPUEST_OK)
        return cli_report("simulate", rc, &err);
    if (gpuest_workload_warning(wl))
        fprintf(stderr, "gpuest simulate: warning: %s\n", gpuest_workload_warning(wl));
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t so;
    gpuest_sim_opts_default(&so);
    so.max_cycles = o.max_cycles;
    so.max_instructions = o.max_insts;
    so.watchdog_cycles = o.watchdog;
    uint64_t total = 0;
    if (isatty(fileno(stderr))) { /* the bar counts warp instructions out of the workload's total */
        gpuest_error_t cerr;
        if (gpuest_workload_count_insts(wl, &total, &cerr) != GPUEST_OK)
            total = 0; /* the run itself will report what is wrong */
        if (o.max_insts && (total == 0 || o.max_insts < total))
            total = o.max_insts;
    }
    const gpuest_generator_t *gen = gpuest_workload_generator(wl);
    gpuest_technique_env_t env = {&o.mc.cfg, gpuest_workload_image(wl), gen ? gen->name : NULL, cli_model_dir(),
                                  o.src.seed, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *techs = NULL;
    int kernel_opt = o.mc.cfg.technique.l1_compression == GPUEST_L1COMP_KERNEL_OPT;
    if (kernel_opt) /* this command sets the L1D's mode at every launch (l1c_kernel_opt.c) */
        cli_kopt_prepare();
    rc = gpuest_technique_set_create(&env, &so.hooks, &techs, &err);
    if (rc == GPUEST_OK && kernel_opt)
        rc = cli_kopt_start(&src, &so, techs, &err);
    if (rc != GPUEST_OK) {
        cli_kopt_stop();
        gpuest_technique_set_destroy(techs);
        gpuest_workload_destroy(wl);
        return cli_report("simulate", rc, &err);
    }
    so.progress = cli_progress("simulate", total);
    gpuest_progress_set_unit(so.progress, "inst");
    gpuest_progress_set_aux_unit(so.progress, "cycles");
    gpuest_sim_result_t r;
    if (o.l1c_oracle)
        cli_l1c_oracle_start(gpuest_workload_name(wl), (unsigned)o.l1c_horizon, (unsigned)o.l1c_every,
                             !o.l1c_continue                           ? 0
                             : strcmp(o.l1c_continue, "period") == 0 ? 2
                                                                     : strcmp(o.l1c_continue, "rule") == 0,
                             &err);
    rc = gpuest_sim_run(&o.mc.cfg, &src, &so, &r, &err);
    if (kernel_opt) /* a forked copy reports its launch's cycles and ends here */
        cli_kopt_child_end(rc, &r);
    if (o.l1c_oracle) { /* a child whose EP outlived the run ends here */
        gpuest_error_t oerr;
        gpuest_error_clear(&oerr);
        gpuest_err orc = cli_l1c_oracle_finish(o.l1c_oracle, &oerr);
        if (rc == GPUEST_OK && orc != GPUEST_OK) {
            rc = orc;
            err = oerr;
        }
    }
    gpuest_progress_finish(so.progress);
    int code = rc != GPUEST_OK ? cli_report("simulate", rc, &err) : report(&o, gpuest_workload_name(wl), &r);
    if (rc == GPUEST_OK && kernel_opt)
        cli_kopt_print(stdout);
    if (rc == GPUEST_OK)
        print_technique_stats(techs);
    if (kernel_opt)
        cli_kopt_stop();
    gpuest_technique_set_destroy(techs);
    gpuest_sim_result_free(&r);
    gpuest_workload_destroy(wl);
    return code;
}
