/* cmd_sample.c: 'gpuest sample': sampled simulation with confidence intervals, optionally against the full run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "study/study.h"
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CMD "sample"

static void help(FILE *out)
{
    fprintf(out, "usage: gpuest sample [--workload W] [--scale S] [--seed N] [machine]\n"
                 "                     [--units N] [--unit-insts N] [--warm CYCLES] [--confidence C]\n"
                 "                     [--warm-amats X] [--target E] [--sample-seed N] [--compare]\n"
                 "                     [--reference] [--cold] [--bias-check] [--ff-plain] [--ff-backpressure]\n"
                 "                     [--ff-miss-stalls] [--ff-l2-split] [--ff-gather] [--ff-pool K]\n"
                 "                     [--tail-stratum | --tail-stratum-sm] [--ff-window N] [--csv FILE]\n\n"
                 "Sampled simulation: whole-GPU units placed systematically (random start) in every\n"
                 "kernel; between units the GPU drains and fast-forwards functionally (L1/L2 tags, DRAM\n"
                 "rows; warps at their measured relative rates); a detailed warming of fixed length\n"
                 "precedes each unit, and whether it settled is checked (MSER-5 on requests in flight).\n"
                 "Prints IPC, AMAT, L1 miss latency and MC stall ratio with intervals (99.7 %% by\n"
                 "default), the units needed for the target half-width, and with --compare the full\n"
                 "detailed run, the errors and the speedup.\n\nmachine:\n" CLI_CONFIG_HELP
                 "\noptions:\n"
                 "  --units N         units over the run (default 30)\n"
                 "  --sample-seed N   random start of the systematic sample (default: --seed)\n"
                 "  --unit-insts N    warp instructions per unit (default 1000 x SMs)\n"
                 "  --warm CYCLES     minimum detailed warming per unit (default 3000)\n"
                 "  --confidence C    interval level (default 0.997)\n"
                 "  --target E        relative half-width of the IPC interval; reruns with the units it needs\n"
                 "  --warm-amats X    ... and at least X times the last unit's AMAT (default 8)\n"
                 "  --compare         also run the full detailed simulation\n"
                 "  --reference       run the gaps between units in detail (same units: the per-unit truth)\n"
                 "  --cold            fast-forward without functional warming (an experiment)\n"
                 "  --bias-check      rerun with twice the warming; passed if IPC moves less than the half-width\n"
                 "fast-forward: by default with the three options below (back-pressure, miss stalls, L2\n"
                 "split); --ff-plain starts from the plain schedule, and the options given add onto it\n"
                 "  --ff-plain        the plain fast-forward (the default before; each warp issues at the\n"
                 "                    latency-bound pace, a miss waits the mean latency)\n"
                 "  --ff-backpressure fast-forward with the last unit's LD/ST occupancy and miss latencies\n"
                 "                    (the memory system's back-pressure; docs/estimator.md)\n"
                 "  --ff-miss-stalls  with --ff-backpressure: the LD/ST unit's stall cycles are charged only\n"
                 "                    to the requests that leave the L1 (an L1 hit takes one cycle a line)\n"
                 "  --ff-l2-split     with --ff-backpressure: a line's drawn latency comes from the last\n"
                 "                    unit's L2 hits or L2 misses, as fast-forward's L2 lookup went\n"
                 "  --ff-gather       the plain fast-forward charging a load that misses n lines the expected\n"
                 "                    slowest of n of the last unit's miss latencies, not their mean (implies\n"
                 "                    --ff-plain; with --ff-backpressure it has no effect: its draws do that)\n"
                 "  --ff-pool K       with back-pressure: its LD/ST hold and latency draws from the last K\n"
                 "                    units together, not the last alone (0: off, the default)\n"
                 "  --tail-stratum    each kernel's tail census covers its last wave of CTAs (the last\n"
                 "                    resident-on-the-GPU CTAs' instructions, at most a tenth of the\n"
                 "                    kernel), so the launch's drain is measured whole (opt-in)\n"
                 "  --tail-stratum-sm the same with the last CTA of every SM only (the launch's last\n"
                 "                    SM-count CTAs: where the SMs run dry; opt-in)\n"
                 "  --ff-window N     two-speed fast-forward: each gap walked untimed (functional warming\n"
                 "                    only) but for its last N unit lengths on the timed schedule; the\n"
                 "                    fast-forward to a launch's end walked whole (opt-in; N may be 0)\n"
                 "  --csv FILE        one row per unit\n");
}

static int write_units(const gpuest_sample_result_t *r, const char *path)
{
    static const char *const header[] = {"unit", "kernel", "cycles", "warp_insts", "thread_insts", "ipc", "amat",
                                         "mc_stall", "warm_cycles", "warm_steady", "inflight", "census",
                                         "l1_hit_rate", "l2_hit_rate", "dram_reads", "dram_writes",
                                         "dram_row_hit_rate", "cta_spread", "warp_spread"};
    cli_table_t t;
    cli_table_init(&t, header, sizeof header / sizeof header[0]);
    for (size_t i = 0; i < r->num_units; i++) {
        const gpuest_sample_unit_t *u = &r->units[i];
        uint64_t dram = u->dram_reads + u->dram_writes;
        cli_table_addf(&t, "%zu\t%d\t%llu\t%llu\t%llu\t%.6g\t%.6g\t%.6g\t%llu\t%d\t%.6g\t%d\t%.6g\t%.6g\t%llu\t%llu\t%.6g\t%.6g\t%.6g", i,
                       u->kernel,
                       (unsigned long long)u->cycles, (unsigned long long)u->warp_insts,
                       (unsigned long long)u->thread_insts, u->cycles ? (double)u->thread_insts / u->cycles : 0.0,
                       u->amat_n > 0 ? u->amat_sum / u->amat_n : 0.0,
                       u->mc_cycles ? (double)u->mc_stalls / u->mc_cycles : 0.0, (unsigned long long)u->warm_cycles,
                       u->warm_steady, u->inflight, u->census,
                       u->l1_accesses ? (double)u->l1_hits / (double)u->l1_accesses : 0.0,
                       u->l2_accesses ? (double)u->l2_hits / (double)u->l2_accesses : 0.0,
                       (unsigned long long)u->dram_reads, (unsigned long long)u->dram_writes,
                       dram ? (double)u->dram_row_hits / (double)dram : 0.0, u->cta_spread, u->warp_spread);
    }
    int rc = cli_table_write_csv(&t, path, CMD);
    cli_table_free(&t);
    return rc;
}

int cli_cmd_sample(int argc, char **argv)
{
    cli_config_t cc;
    cli_config_init(&cc, "mesh56");
    const char *workload = "hotspot", *csv = NULL;
    gpuest_scale_t scale = GPUEST_SCALE_SMALL;
    unsigned long long seed = 1, ull, sample_seed = 0;
    int have_sample_seed = 0;
    double conf = 0.997, target = 0.0;
    int compare = 0, bias_check = 0;
    /* the fast-forward options given; with --ff-plain (or --ff-gather) they add onto the plain schedule */
    int ff_plain = 0, ff_bp = 0, ff_ms = 0, ff_l2 = 0;
    long lv;
    gpuest_sample_opts_t so;
    gpuest_sample_opts_default(&so);
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        if (cli_args_is(&a, "help")) {
            help(stdout);
            return 0;
        }
        int used = a.name ? cli_config_option(&cc, &a) : 0;
        if (used < 0)
            return 2;
        if (used > 0)
            continue;
        if (cli_args_is(&a, "compare")) {
            compare = 1;
            continue;
        }
        if (cli_args_is(&a, "reference")) {
            so.reference = 1;
            continue;
        }
        if (cli_args_is(&a, "ff-plain")) {
            ff_plain = 1;
            continue;
        }
        if (cli_args_is(&a, "ff-backpressure")) {
            ff_bp = 1;
            continue;
        }
        if (cli_args_is(&a, "ff-l2-split")) {
            ff_l2 = 1;
            continue;
        }
        if (cli_args_is(&a, "tail-stratum") || cli_args_is(&a, "tail-stratum-sm")) {
            int mode = cli_args_is(&a, "tail-stratum") ? 1 : 2;
            if (so.tail_stratum && so.tail_stratum != mode)
                return cli_usage_error(CMD, "--tail-stratum and --tail-stratum-sm: expected one of the two");
            so.tail_stratum = mode;
            continue;
        }
        if (cli_args_is(&a, "ff-gather")) {
            so.ff_gather = 1;
            continue;
        }
        if (cli_args_is(&a, "ff-miss-stalls")) {
            ff_ms = 1;
            continue;
        }
        if (cli_args_is(&a, "cold")) {
            so.cold = 1;
            continue;
        }
        if (cli_args_is(&a, "bias-check")) {
            bias_check = 1;
            continue;
        }
        /* every option the chain below reads a value for; one missing here is refused as unknown */
        static const char *const valued[] = {"workload", "csv", "scale", "seed", "sample-seed", "units", "unit-insts",
                                             "ff-pool", "ff-window", "warm", "warm-amats", "confidence", "target",
                                             NULL};
        if (!cli_args_known(&a, valued)) /* not "--bogus needs a value" */
            return cli_usage_error(CMD, "unexpected argument '%s'", a.name ? a.name : a.value);
        const char *v = a.name ? cli_args_value(&a) : NULL;
        if (a.name && !v)
            return 2;
        if (cli_args_is(&a, "workload"))
            workload = v;
        else if (cli_args_is(&a, "csv"))
            csv = v;
        else if (cli_args_is(&a, "scale")) {
            if (gpuest_scale_parse(v, &scale) != GPUEST_OK)
                return cli_usage_error(CMD, "--scale %s: expected tiny, small or default", v);
        } else if (cli_args_is(&a, "seed")) {
            if (cli_parse_u64(CMD, "seed", v, &seed))
                return 2;
        } else if (cli_args_is(&a, "sample-seed")) {
            if (cli_parse_u64(CMD, "sample-seed", v, &sample_seed))
                return 2;
            have_sample_seed = 1;
        } else if (cli_args_is(&a, "units")) {
            if (cli_parse_int(CMD, "units", v, 2, 400, &lv))
                return 2;
            so.units = (int)lv;
        } else if (cli_args_is(&a, "unit-insts")) {
            if (cli_parse_u64(CMD, "unit-insts", v, &ull))
                return 2;
            if (ull == 0) /* the library reads 0 as "the default": said nowhere, so refused */
                return cli_usage_error(CMD, "--unit-insts 0: expected a positive count of warp instructions "
                                            "(leave the option out for the default, 1000 x SMs)");
            so.unit_insts = ull;
        } else if (cli_args_is(&a, "ff-pool")) {
            if (cli_parse_int(CMD, "ff-pool", v, 0, 64, &lv))
                return 2;
            so.ff_pool = (int)lv;
        } else if (cli_args_is(&a, "ff-window")) {
            if (cli_parse_double(CMD, "ff-window", v, 0, 1e6, &so.ff_window_units))
                return 2;
            so.ff_walk = 1;
        } else if (cli_args_is(&a, "warm")) {
            if (cli_parse_u64(CMD, "warm", v, &ull))
                return 2;
            so.warm_cycles = ull;
        } else if (cli_args_is(&a, "warm-amats")) {
            if (cli_parse_double(CMD, "warm-amats", v, 0, 1000, &so.warm_amats))
                return 2;
        } else if (cli_args_is(&a, "confidence")) {
            if (cli_parse_double(CMD, "confidence", v, 0.5, 0.9999, &conf))
                return 2;
        } else if (cli_args_is(&a, "target")) {
            if (cli_parse_double(CMD, "target", v, 0.001, 0.5, &target))
                return 2;
        } else {
            return cli_usage_error(CMD, "unexpected argument '%s'", a.name ? a.name : a.value);
        }
    }
    int rc = cli_config_finish(&cc, CMD);
    if (rc == 0)
        rc = cli_check_output(CMD, "csv", csv);
    if (rc != 0)
        return rc;
    /* Options that had no effect, silently: a reference run has no fast-forward to warm or shape,
     * and the pool is the back-pressure schedule's. */
    if (so.reference && (so.cold || ff_plain || ff_bp || ff_ms || ff_l2 || so.ff_gather || so.ff_pool > 0))
        return cli_usage_error(CMD, "--reference runs every gap in detail: expected no fast-forward option with it "
                                    "(--cold, --ff-*)");
    if (so.ff_pool > 0 && (ff_plain || so.ff_gather) && !ff_bp)
        return cli_usage_error(CMD, "--ff-pool %d: expected with the back-pressure fast-forward (the default, or "
                                    "--ff-backpressure with --ff-plain)", so.ff_pool);
    so.seed = have_sample_seed ? sample_seed : seed; /* where the units fall; --seed is the input's */
    if (ff_plain || so.ff_gather) {
        so.ff_backpressure = ff_bp;
        so.ff_miss_stalls = ff_ms;
        so.ff_l2_split = ff_l2;
    }
    gpuest_error_t err;
    gpuest_error_clear(&err);
    so.progress = cli_progress("sample", 0);
    gpuest_study_sampled_t s;
    double c0 = cpu_now();
    gpuest_err e = gpuest_study_sample(&cc.cfg, workload, scale, seed, &so, conf, target, &s, &err);
    gpuest_progress_finish(so.progress);
    double cpu_sampled = cpu_now() - c0;
    if (e != GPUEST_OK) {
        gpuest_study_sampled_free(&s);
        return cli_report(CMD, e, &err);
    }
    printf("sampled simulation of %s on %s (scale %s, seed %llu), %.1f %% intervals:\n", workload, cc.cfg.name,
           gpuest_scale_name(scale), seed, 100 * conf);
    printf("  IPC            %10.3f  [%.3f, %.3f]\n", s.ipc.value, s.ipc.lo, s.ipc.hi);
    printf("  AMAT           %10.1f  [%.1f, %.1f] core cycles\n", s.amat.value, s.amat.lo, s.amat.hi);
    printf("  L1 miss lat.   %10.1f  [%.1f, %.1f]\n", s.miss_latency.value, s.miss_latency.lo, s.miss_latency.hi);
    printf("  MC stall ratio %10.3f  [%.3f, %.3f]\n", s.mc_stall.value, s.mc_stall.lo, s.mc_stall.hi);
    printf("  IPC half-width +-%.2f %%; %d units (%d sampled, %d with settled warming%s), CPI CoV within kernels "
           "%.3f; %d sampled units give +-%.1f %% at this level\n",
           100 * (s.ipc.hi - s.ipc.lo) / 2 / (s.ipc.value > 0 ? s.ipc.value : 1), s.units, s.units_sampled, s.units_steady,
           s.pilot_units ? ", after a pilot" : "", s.cov, s.units_needed, 100 * (target > 0 ? target : 0.01));
    printf("  detailed cycles %llu (%.1f %% of the run, drains %llu), %llu warp instructions fast-forwarded, "
           "%.2f s (CPU %.2f s: counting %.2f, fast-forward %.2f)\n",
           (unsigned long long)s.raw.detailed_cycles, 100 * s.detailed_fraction,
           (unsigned long long)s.raw.drain_cycles, (unsigned long long)s.raw.ff_warp_insts, s.raw.wall_seconds,
           cpu_sampled, s.raw.count_seconds, s.raw.ff_seconds);
    if (so.ff_walk)
        printf("  two-speed fast-forward: %llu of the fast-forwarded warp instructions walked untimed (window %g "
               "unit lengths)\n", (unsigned long long)s.raw.ff_walk_warp_insts, so.ff_window_units);
    if (s.full_seconds_est > 0)
        printf("  speedup over the full run about %.1fx (estimated: the full run at this run's detailed rate, %.1f s CPU)\n",
               s.full_seconds_est / cpu_sampled, s.full_seconds_est);
    if (bias_check) {
        gpuest_study_bias_t b;
        e = gpuest_study_sample_bias_check(&cc.cfg, workload, scale, seed, &so, conf, &s, &b, &err);
        if (e != GPUEST_OK) {
            gpuest_study_sampled_free(&s);
            return cli_report(CMD, e, &err);
        }
        if (isinf(b.half_width))
            printf("warming bias check: with twice the warming IPC %.3f (%+.2f %%); the interval is unbounded, "
                   "so the check says nothing (CPU %.2f s)\n",
                   b.ipc, 100 * b.shift, b.cpu_seconds);
        else
            printf("warming bias check: with twice the warming IPC %.3f (%+.2f %%), %s the half-width +-%.2f %% "
                   "(%s; CPU %.2f s)\n",
                   b.ipc, 100 * b.shift, b.passed ? "within" : "beyond", 100 * b.half_width,
                   b.passed ? "passed" : "failed: the warming is too short for this workload", b.cpu_seconds);
    }
    if (compare) {
        gpuest_study_run_t full;
        double c1 = cpu_now();
        e = gpuest_study_run_detailed(&cc.cfg, workload, scale, seed, &full, &err);
        if (e != GPUEST_OK) {
            gpuest_study_sampled_free(&s);
            return cli_report(CMD, e, &err);
        }
        double cpu_full = cpu_now() - c1;
        printf("full detailed run: IPC %.3f, AMAT %.1f, MC stall %.3f, %.2f s (CPU %.2f s)\n", full.ipc, full.amat,
               full.mc_stall, full.sim_seconds, cpu_full);
        printf("  IPC error %+.2f %% (%s the interval), AMAT error %+.2f %%, speedup %.2fx (measured, CPU time)\n",
               100 * (s.ipc.value - full.ipc) / full.ipc, full.ipc >= s.ipc.lo && full.ipc <= s.ipc.hi ? "inside" : "outside",
               100 * (s.amat.value - full.amat) / full.amat, cpu_full / cpu_sampled);
    }
    rc = csv ? write_units(&s.raw, csv) : 0;
    gpuest_study_sampled_free(&s);
    return rc;
}
