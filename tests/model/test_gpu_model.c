/* test_gpu_model.c: the closed GPU model's compression transform and its invariants. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"
#include "model_workload.h"

static gpuest_gpu_model_t *model(const char *set)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    if (set)
        assert_int_equal(gpuest_config_set(&cfg, set, "test", &err), GPUEST_OK);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    return m;
}

/* Mean reply flits over the histogram: half 3-flit, half 5-flit replies -> 4. */
static void reply_flits_mean(void **state)
{
    (void)state;
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    assert_true(gpuest_model_reply_flits(&t, 9) == 9.0); /* empty histogram: uncompressed */
    t.reply_flit_hist[3] = 0.5;
    t.reply_flit_hist[5] = 0.5;
    assert_true(gpuest_model_reply_flits(&t, 9) == 4.0);
}

/* A histogram with every reply at its uncompressed size changes nothing, bit for bit; fewer
 * flits on a reply-bound machine (16-byte flits: 9-flit replies) raise IPC and lower AMAT;
 * a decompressor latency on top lowers IPC again. */
static void compression_effects(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model("noc.flit_bytes=16");
    gpuest_model_workload_t w;
    plain_workload(&w, 8.0, 0.2);
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_error_t err;
    gpuest_gpu_estimate_t base, same, comp, slow;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.reply_flit_hist[9] = 1.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &same, &err), GPUEST_OK);
    assert_true(same.ipc == base.ipc && same.amat == base.amat);
    gpuest_model_transform_identity(&t);
    t.reply_flit_hist[3] = 1.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &comp, &err), GPUEST_OK);
    assert_true(comp.ipc > base.ipc * 1.05);
    assert_true(comp.amat < base.amat);
    t.decompress_latency = 50;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &slow, &err), GPUEST_OK);
    assert_true(slow.ipc < comp.ipc);
    assert_true(slow.reply_latency > comp.reply_latency);
    /* split adds up */
    assert_true(fabs(comp.req_latency + comp.mem_latency + comp.reply_latency - comp.miss_latency) < 1e-9 * comp.miss_latency);
    gpuest_gpu_model_destroy(m);
}

/* Compressed L1 (l1_miss_scale, l1_hit_extra_latency): read misses x 0.5 on the workload below
 * (write fraction 0.1, 8 instructions and 0 hits per request, hit rate 0.2) leave 0.45 + 0.1 =
 * 0.55 requests per request before: 8 / 0.55 instructions, 0.1 / 0.55 writes and 0.45 / 0.55 hits
 * per request, hit rate 1 - 0.8 x 0.5 = 0.6; 2 more hit cycles are the machine with an L1 hit
 * latency 2 cycles longer (to the solver's convergence: 1e-5). Fewer misses raise IPC. Fails when the scale is applied to the hit
 * rate, the request mix is not rescaled, or the extra latency is dropped or counted twice. */
static void l1_compression_fields(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    char kv[64];
    snprintf(kv, sizeof kv, "l1.hit_latency=%d", cfg.l1.hit_latency + 2);
    gpuest_gpu_model_t *m = model(NULL), *slow = model(kv);
    gpuest_model_workload_t w, w6;
    plain_workload(&w, 8.0, 0.2);
    plain_workload(&w6, 8.0, 0.2);
    w6.l1_hit_rate = 0.6;
    w6.insts_per_request = 8.0 / 0.55;
    w6.write_fraction = 0.1 / 0.55;
    w6.hits_per_request = 0.45 / 0.55;
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_gpu_estimate_t base, got, want, fewer;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.l1_miss_scale = 0.5;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &fewer, &err), GPUEST_OK);
    assert_true(fewer.ipc > base.ipc);
    t.l1_hit_extra_latency = 2.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(slow, &w6, NULL, &p, &want, &err), GPUEST_OK);
    assert_true(fabs(got.ipc - want.ipc) < 1e-5 * want.ipc && fabs(got.amat - want.amat) < 1e-5 * want.amat);
    assert_true(got.amat != fewer.amat);
    gpuest_gpu_model_destroy(m);
    gpuest_gpu_model_destroy(slow);
}

/* PCU coalescing: with half the read replies saved, the MC injection port carries half the
 * flits per read (no writes here, so its utilisation per unit of IPC halves exactly); on the
 * reply-bound machine (16-byte flits) IPC rises. Fails when the saving is not applied to the
 * injection port, or applied twice. */
static void coalescing_halves_injection(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model("noc.flit_bytes=16");
    gpuest_model_workload_t w;
    plain_workload(&w, 8.0, 0.2);
    w.write_fraction = 0.0;
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_error_t err;
    gpuest_gpu_estimate_t base, half;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.reply_packets_saved = 0.5;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &half, &err), GPUEST_OK);
    double per_base = base.inject_util / base.ipc, per_half = half.inject_util / half.ipc;
    if (fabs(per_half - 0.5 * per_base) > 1e-9 * per_base)
        fail_msg("injection utilisation per IPC %g with half the replies saved, %g without", per_half, per_base);
    assert_true(half.ipc > base.ipc);
    gpuest_gpu_model_destroy(m);
}

/* More tokens never lower throughput in a closed network (monotone in the population), and
 * the closed model never reports a link above one flit per cycle. */
static void population_monotone(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model(NULL);
    gpuest_model_workload_t w;
    plain_workload(&w, 8.0, 0.2);
    gpuest_error_t err;
    double last = 0.0;
    for (double a = 0.05; a <= 1.0; a *= 2) {
        gpuest_gpu_params_t p = {a, 0.8, 1.0};
        gpuest_gpu_estimate_t e;
        assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &e, &err), GPUEST_OK);
        assert_true(e.ipc >= last * (1 - 1e-9));
        assert_true(e.link_util_max <= 1.0 + 1e-9);
        last = e.ipc;
    }
    gpuest_gpu_model_destroy(m);
}

/* The reply-injection stations are per memory sub-partition (each has its own network port) on
 * the v2 fermi machine (6 channels x 2 sub-partitions = 12 ports): their utilisation is the read
 * throughput x (reply flits + writes per read x 1 ack flit) x core cycles per flit / 12, worked
 * from the config; dividing by the 6 channels instead would double it. */
static void sub_partition_ports(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    assert_int_equal(cfg.mc.num_mcs, 6);
    assert_int_equal(cfg.mc.sub_partitions, 2);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_model_workload_t w;
    plain_workload(&w, 8.0, 0.2);
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_gpu_estimate_t e;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &e, &err), GPUEST_OK);
    int req, rep;
    gpuest_model_gpu_packet_flits(&cfg, &req, &rep);
    double wpr = w.write_fraction / (1 - w.write_fraction);
    double x = e.warp_ipc / (w.insts_per_request * (1 + wpr)); /* reads per core cycle */
    double width = cfg.noc.xbar_port_flits > 1 ? cfg.noc.xbar_port_flits : 1;
    double tf = cfg.core.clock_mhz / cfg.noc.clock_mhz / width;
    double expect = x * (rep + wpr * 1.0) * tf / 12.0;
    assert_true(fabs(e.inject_util - expect) <= 1e-9 * expect);
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(reply_flits_mean), cmocka_unit_test(compression_effects),
                                       cmocka_unit_test(population_monotone), cmocka_unit_test(sub_partition_ports),
                                       cmocka_unit_test(coalescing_halves_injection),
                                       cmocka_unit_test(l1_compression_fields)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
