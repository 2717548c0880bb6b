/* bench_compress_sim.c: the cost of reply compression in the detailed simulator: simulation speed
 * with each algorithm as a ratio to the run without compression, measured in one process, both
 * in warp instructions per CPU second (the same instructions with and without compression: the
 * user's time to an answer, which also moves with the simulated cycles) and in simulated core
 * cycles per CPU second. Both also move with what compression does to the simulated machine (fewer
 * flits, other stalls), so the bench also times the compressor itself: the CPU time spent inside
 * the technique's reply hook (every encoder run, dictionary, code book) as a share of the run's
 * CPU time; 1 - share is the speed relative to the same simulation without the compressor's work,
 * the figure the 25 % target is about. */
#include <time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cpu.h"
#include "compress/compress.h"
#include "sim/sim.h"
#include "technique/technique.h"

typedef struct {
    double insts, cycles; /* per CPU second */
    double hook_share;    /* CPU time in the reply hook / CPU time of the run */
} speed_t;

/* A timing wrapper around the technique's reply hook. */
typedef struct {
    gpuest_sim_hooks_t inner;
    double secs;
} timed_t;

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void timed_reply(void *ctx, const gpuest_sim_req_info_t *q, const uint8_t *data, gpuest_sim_reply_t *r)
{
    timed_t *t = ctx;
    double t0 = thread_cpu();
    t->inner.mc_reply(t->inner.ctx, q, data, r);
    t->secs += thread_cpu() - t0;
}

/* One run; returns its speeds (technique set-up excluded:
 * DSM+APPROX's predictor and application-error run happen once before the simulation). */
static speed_t run(const char *preset, const char *workload, gpuest_scale_t scale, const char *algo)
{
    gpuest_error_t e = {0};
    gpuest_config_t cfg;
    char kv[64];
    snprintf(kv, sizeof kv, "technique.compression=%s", algo);
    if (gpuest_config_preset(&cfg, preset, &e) != GPUEST_OK || gpuest_config_set(&cfg, kv, "bench", &e) != GPUEST_OK) {
        fprintf(stderr, "bench_compress_sim: %s\n", e.msg);
        exit(2);
    }
    gpuest_workload_t *wl = NULL;
    if (gpuest_workload_create(workload, scale, 1, &wl, &e) != GPUEST_OK) {
        fprintf(stderr, "bench_compress_sim: %s\n", e.msg);
        exit(1);
    }
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    gpuest_technique_env_t env = {&cfg, gpuest_workload_image(wl), workload, GPUEST_SOURCE_DIR "/models", 1, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *set = NULL;
    if (gpuest_technique_set_create(&env, &o.hooks, &set, &e) != GPUEST_OK) {
        fprintf(stderr, "bench_compress_sim: %s\n", e.msg);
        exit(1);
    }
    timed_t timed = {o.hooks, 0.0};
    /* the timing wrapper makes two clock reads per reply, which cost CPU time of their own:
     * BENCH_UNTIMED=1 leaves it out (hook shares then read 0) for clean end-to-end ratios */
    if (o.hooks.mc_reply && !getenv("BENCH_UNTIMED")) {
        o.hooks.ctx = &timed;
        o.hooks.mc_reply = timed_reply;
    }
    gpuest_sim_result_t r;
    double c0 = cpu_seconds();
    if (gpuest_sim_run(&cfg, &src, &o, &r, &e) != GPUEST_OK) {
        fprintf(stderr, "bench_compress_sim: %s / %s: %s\n", workload, algo, e.msg);
        exit(1);
    }
    double cpu = cpu_seconds() - c0;
    double c = cpu > 1e-9 ? cpu : 1e-9;
    speed_t sp = {(double)r.total.warp_instructions / c, (double)r.total.cycles / c, timed.secs / c};
    printf("%-10s %-10s %12llu %10.2f %14.0f %14.0f %8.3f", workload, algo, (unsigned long long)r.total.cycles, cpu,
           sp.insts, sp.cycles, sp.hook_share);
    gpuest_sim_result_free(&r);
    gpuest_technique_set_destroy(set);
    gpuest_workload_destroy(wl);
    return sp;
}

/* usage: [BENCH_UNTIMED=1] bench_compress_sim [preset] [scale] [workload...]
 * (defaults: fermi small bfs 2dconv) */
int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "fermi";
    const char *scale_name = argc > 2 ? argv[2] : "small";
    const char *defaults[] = {"bfs", "2dconv"};
    const char **names = argc > 3 ? (const char **)argv + 3 : defaults;
    int n = argc > 3 ? argc - 3 : 2;
    gpuest_scale_t scale;
    if (gpuest_scale_parse(scale_name, &scale) != GPUEST_OK) {
        fprintf(stderr, "bench_compress_sim: bad scale '%s'\n", scale_name);
        return 2;
    }
    printf("%s, --scale %s; speed = warp instructions per CPU second; ratio = speed / speed without compression\n",
           preset, scale_name);
    printf("%-10s %-10s %12s %10s %14s %14s %8s %8s %8s\n", "workload", "algorithm", "cycles", "cpu_s", "insts/cpu_s",
           "cycles/cpu_s", "hook", "r_insts", "r_cycles");
    double worst_i = 1e9, worst_c = 1e9, worst_h = 0;
    for (int i = 0; i < n; i++) {
        /* the baseline runs twice before the algorithms; the ratios use the faster run, so a
         * slow first run (cold caches, a burst of load) does not flatter the algorithms */
        speed_t base = run(preset, names[i], scale, "none");
        printf(" %8.3f %8.3f\n", 1.0, 1.0);
        speed_t again = run(preset, names[i], scale, "none");
        printf(" %8.3f %8.3f  (baseline again)\n", again.insts / base.insts, again.cycles / base.cycles);
        if (again.insts > base.insts)
            base = again;
        for (size_t a = 0; gpuest_compress_algos[a]; a++) {
            if (strcmp(gpuest_compress_algos[a]->name, "none") == 0)
                continue;
            speed_t s = run(preset, names[i], scale, gpuest_compress_algos[a]->name);
            double ri = s.insts / base.insts, rc = s.cycles / base.cycles;
            printf(" %8.3f %8.3f\n", ri, rc);
            worst_i = ri < worst_i ? ri : worst_i;
            worst_c = rc < worst_c ? rc : worst_c;
            worst_h = s.hook_share > worst_h ? s.hook_share : worst_h;
        }
    }
    if (!getenv("BENCH_UNTIMED"))
        printf("largest share of CPU time in the compressor: %.3f, so speed >= %.3f of the same simulation without "
               "it (target: compression costs at most 25 %% of simulation speed)\n", worst_h, 1.0 - worst_h);
    printf("worst end-to-end ratio (the simulated machine changes too): %.3f in instructions / CPU s, %.3f in core "
           "cycles / CPU s\n", worst_i, worst_c);
    return 0;
}
