/* bench_coalescing_sim.c: the cost of packet coalescing in the detailed simulator: simulation speed
 * with PCUs and in-router multicast (technique.coalescing = pcu), with WarpPool, and with both, as a
 * ratio to the baseline (coalescing none), measured in one process on the same machine and workload
 * (mesh56 with 9-flit VC buffers in every run, as the coalescing tables). Speed is simulated core
 * cycles per CPU second (the cost per simulated cycle: the RGR searches, the multicast replication
 * in the routers, the pool's queues) and warp instructions per CPU second (the user's time to an
 * answer, which also moves with what coalescing does to the simulated machine). The baseline runs
 * twice and the faster run is kept, so a slow first run does not flatter the techniques.
 * Target (issue 14): coalescing costs at most 25 % of simulation speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cpu.h"
#include "sim/sim.h"
#include "technique/technique.h"

typedef struct {
    double insts, cycles; /* per CPU second */
} speed_t;

static void die(const char *what, const char *msg, int code)
{
    fprintf(stderr, "bench_coalescing_sim: %s: %s\n", what, msg);
    exit(code);
}

static speed_t run(const char *preset, const char *workload, gpuest_scale_t scale, uint64_t max_insts,
                   const char *coalescing)
{
    gpuest_error_t e = {0};
    gpuest_config_t cfg;
    char kv[64];
    snprintf(kv, sizeof kv, "technique.coalescing=%s", coalescing);
    if (gpuest_config_preset(&cfg, preset, &e) != GPUEST_OK || gpuest_config_set(&cfg, kv, "bench", &e) != GPUEST_OK)
        die(preset, e.msg, 2);
    if (cfg.noc.topology == GPUEST_TOPO_MESH && gpuest_config_set(&cfg, "noc.buffer_flits=9", "bench", &e) != GPUEST_OK)
        die(preset, e.msg, 2);
    if (gpuest_technique_validate(&cfg, GPUEST_TECH_MODE_SIM, &e) != GPUEST_OK)
        die(coalescing, e.msg, 2);
    gpuest_workload_t *wl = NULL;
    if (gpuest_workload_create(workload, scale, 1, &wl, &e) != GPUEST_OK)
        die(workload, e.msg, 1);
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.max_instructions = max_insts;
    gpuest_technique_env_t env = {&cfg, gpuest_workload_image(wl), workload, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *set = NULL;
    if (gpuest_technique_set_create(&env, &o.hooks, &set, &e) != GPUEST_OK)
        die(coalescing, e.msg, 1);
    gpuest_sim_result_t r;
    double c0 = cpu_seconds();
    if (gpuest_sim_run(&cfg, &src, &o, &r, &e) != GPUEST_OK)
        die(workload, e.msg, 1);
    double cpu = cpu_seconds() - c0;
    double c = cpu > 1e-9 ? cpu : 1e-9;
    speed_t sp = {(double)r.total.warp_instructions / c, (double)r.total.cycles / c};
    printf("%-10s %-13s %12llu %8.2f %14.0f %14.0f", workload, coalescing, (unsigned long long)r.total.cycles, cpu,
           sp.insts, sp.cycles);
    gpuest_sim_result_free(&r);
    gpuest_technique_set_destroy(set);
    gpuest_workload_destroy(wl);
    return sp;
}

/* usage: bench_coalescing_sim [preset] [scale] [max_insts] [workload...]
 * (defaults: mesh56 small 300000 gaussian btree bfs 2dconv) */
int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "mesh56";
    const char *scale_name = argc > 2 ? argv[2] : "small";
    uint64_t max_insts = argc > 3 ? strtoull(argv[3], NULL, 10) : 300000;
    const char *defaults[] = {"gaussian", "btree", "bfs", "2dconv"};
    const char **names = argc > 4 ? (const char **)argv + 4 : defaults;
    int n = argc > 4 ? argc - 4 : 4;
    static const char *const techs[] = {"pcu", "warppool", "pcu+warppool"};
    gpuest_scale_t scale;
    if (gpuest_scale_parse(scale_name, &scale) != GPUEST_OK) {
        fprintf(stderr, "bench_coalescing_sim: bad scale '%s'\n", scale_name);
        return 2;
    }
    printf("%s, --scale %s, %llu warp instructions a run; ratio = speed / the baseline's speed\n", preset, scale_name,
           (unsigned long long)max_insts);
    printf("%-10s %-13s %12s %8s %14s %14s %8s %8s\n", "workload", "coalescing", "cycles", "cpu_s", "insts/cpu_s",
           "cycles/cpu_s", "r_insts", "r_cycles");
    double worst_c[3] = {1e9, 1e9, 1e9}, worst_i[3] = {1e9, 1e9, 1e9};
    for (int i = 0; i < n; i++) {
        speed_t base = run(preset, names[i], scale, max_insts, "none");
        printf(" %8.3f %8.3f\n", 1.0, 1.0);
        speed_t again = run(preset, names[i], scale, max_insts, "none");
        printf(" %8.3f %8.3f  (baseline again)\n", again.insts / base.insts, again.cycles / base.cycles);
        if (again.cycles > base.cycles)
            base = again;
        for (int t = 0; t < 3; t++) {
            speed_t s = run(preset, names[i], scale, max_insts, techs[t]);
            double ri = s.insts / base.insts, rc = s.cycles / base.cycles;
            printf(" %8.3f %8.3f\n", ri, rc);
            worst_i[t] = ri < worst_i[t] ? ri : worst_i[t];
            worst_c[t] = rc < worst_c[t] ? rc : worst_c[t];
        }
    }
    for (int t = 0; t < 3; t++)
        printf("%-13s worst ratio: %.3f in core cycles / CPU s, %.3f in instructions / CPU s (target: >= 0.75)\n",
               techs[t], worst_c[t], worst_i[t]);
    return 0;
}
