/* bench_model.c: speed of the analytical NoC model, its ratio to simulation, and its accuracy tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "model/model.h"
#include "noc/noc.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Our NoC simulator on the gpu pattern of cfg at rate (request flits per SM per cycle). */
static int simulate_gpu(const gpuest_config_t *cfg, double rate, int period, gpuest_noc_result_t *out, double *secs)
{
    gpuest_noc_opts_t o;
    gpuest_noc_traffic_t t;
    gpuest_noc_measure_cfg_t m;
    gpuest_error_t err;
    int req, rep;
    gpuest_model_gpu_packet_flits(cfg, &req, &rep);
    gpuest_noc_opts_default(&o);
    o.num_classes = 2;
    if (cfg->noc.topology == GPUEST_TOPO_CROSSBAR)
        o.num_nodes = gpuest_config_num_nodes(cfg);
    gpuest_noc_traffic_default(&t);
    t.pattern = GPUEST_NOC_TRAFFIC_GPU;
    t.rate = rate;
    t.packet_flits = rep;
    t.request_flits = req;
    t.num_mcs = cfg->mc.num_mcs;
    if (gpuest_config_mc_nodes(cfg, t.mc_nodes, &err) != GPUEST_OK)
        return -1;
    gpuest_noc_measure_default(&m);
    m.sample_period = period;
    double t0 = now_s();
    gpuest_err rc = gpuest_noc_measure(&cfg->noc, &o, &t, &m, NULL, out, &err);
    *secs = now_s() - t0;
    if (rc != GPUEST_OK) {
        fprintf(stderr, "simulation failed: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* One evaluation of an 8x8 mesh with two classes (mesh56, gpu traffic at half the saturation). */
static void bench_speed(void)
{
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_model_traffic_t t;
    gpuest_model_noc_t *m = NULL;
    gpuest_model_result_t r;
    double sat, times[31], build[31];
    gpuest_config_preset(&cfg, "mesh56", NULL);
    cfg.noc.routing_reply = GPUEST_ROUTE_YX;
    gpuest_model_pattern_init(&p, "gpu", NULL);
    gpuest_model_noc_saturation(&cfg, &p, NULL, &sat, NULL);
    double rate = 0.5 * sat;
    for (int rep = 0; rep < 31; rep++) {
        double t0 = now_s();
        gpuest_model_traffic_build(&t, &p, &cfg, rate, NULL);
        gpuest_model_noc_create(&cfg, &t, &m, NULL);
        double t1 = now_s();
        int n = 100;
        for (int i = 0; i < n; i++)
            gpuest_model_noc_eval(m, 1.0, NULL, &r, NULL);
        double t2 = now_s();
        build[rep] = t1 - t0;
        times[rep] = (t2 - t1) / n;
        gpuest_model_noc_destroy(m);
        gpuest_model_traffic_free(&t);
    }
    double ev = median(times, 31), bd = median(build, 31);
    printf("## Speed (mesh56 8x8, gpu traffic, 2 classes, XY-YX, rate %.5f = 0.5 x saturation)\n\n", rate);
    printf("model evaluation (fixed point, %d iterations): median %.1f us\n", r.iterations, 1e6 * ev);
    printf("model build (traffic matrix + routes + loads): median %.1f us; build + evaluate %.1f us\n", 1e6 * bd,
           1e6 * (bd + ev));
    gpuest_noc_result_t sr;
    double secs[3];
    for (int i = 0; i < 3; i++)
        if (simulate_gpu(&cfg, rate, 10000, &sr, &secs[i]) != 0)
            return;
    double sim = median(secs, 3);
    printf("NoC simulation of the same point (latency mode, 10000-cycle periods, %lld cycles): median %.3f s\n",
           (long long)sr.sim_cycles, sim);
    printf("model latency %.2f vs simulated %.2f; speed ratio simulate / (build + evaluate) = %.0fx, "
           "simulate / evaluate = %.0fx\n\n",
           r.avg_packet_latency, sr.avg_packet_latency, sim / (bd + ev), sim / ev);
}

/* GPU many-to-few traffic: model against our NoC simulator. */
static void bench_gpu_compare(const char *preset, gpuest_routing_t reply_routing, const char *label)
{
    gpuest_config_t cfg;
    gpuest_model_pattern_t p;
    gpuest_noc_result_t sr;
    double msat, secs;
    gpuest_config_preset(&cfg, preset, NULL);
    cfg.noc.routing_reply = reply_routing;
    gpuest_model_pattern_init(&p, "gpu", NULL);
    gpuest_model_noc_saturation(&cfg, &p, NULL, &msat, NULL);
    /* simulator saturation: bisection on the latency-mode verdict around the model's value */
    double lo = 0.5 * msat, hi = 2.0 * msat;
    for (int i = 0; i < 7; i++) {
        double mid = 0.5 * (lo + hi);
        if (simulate_gpu(&cfg, mid, 5000, &sr, &secs) != 0)
            return;
        if (sr.saturated)
            hi = mid;
        else
            lo = mid;
    }
    double ssat = 0.5 * (lo + hi);
    printf("### %s (%s): saturation simulated %.5f, model %.5f (%+.1f %%)\n\n", preset, label, ssat, msat,
           100 * (msat - ssat) / ssat);
    printf("| load / sim. sat. | rate | sim latency | model latency | error | sim request | model request | sim reply "
           "| model reply |\n|---|---|---|---|---|---|---|---|---|\n");
    const double fr[] = {0.1, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9};
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        double rate = fr[i] * ssat;
        gpuest_model_result_t r;
        if (simulate_gpu(&cfg, rate, 10000, &sr, &secs) != 0)
            return;
        gpuest_model_noc_point(&cfg, &p, rate, NULL, &r, NULL);
        if (r.saturated) {
            printf("| %.2f | %.5f | %.2f | saturated | - | %.2f | - | %.2f | - |\n", fr[i], rate, sr.avg_packet_latency,
                   sr.cls_packet_latency[0], sr.cls_packet_latency[1]);
            continue;
        }
        printf("| %.2f | %.5f | %.2f | %.2f | %+.1f %% | %.2f | %.2f | %.2f | %.2f |\n", fr[i], rate,
               sr.avg_packet_latency, r.avg_packet_latency,
               100 * (r.avg_packet_latency - sr.avg_packet_latency) / sr.avg_packet_latency, sr.cls_packet_latency[0],
               r.cls[0].avg_latency, sr.cls_packet_latency[1], r.cls[1].avg_latency);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--speed") == 0;
    bench_speed();
    if (quick)
        return 0;
    printf("## GPU many-to-few traffic: model vs our NoC simulator\n\n");
    bench_gpu_compare("mesh56", GPUEST_ROUTE_XY, "8x8, XY-XY");
    bench_gpu_compare("mesh56", GPUEST_ROUTE_YX, "8x8, XY-YX");
    bench_gpu_compare("mesh28", GPUEST_ROUTE_XY, "6x6, 1 VC, XY-XY");
    bench_gpu_compare("fermi", GPUEST_ROUTE_XY, "two 21-port crossbars");
    return 0;
}
