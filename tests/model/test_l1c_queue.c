/* test_l1c_queue.c: the compressed L1's decompression queue (LATTE-CC eq. 3) in the closed model:
 * its mean wait worked by hand, and the solve's fixed point between that wait and the model's own
 * throughput. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

static void close_rel(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: %.12g, expected %.12g", what, got, want);
}

/* W = lat (1 + ahead) / (1 - rate x lat), at most 256 lat:
 * an empty queue: SC 14 cycles; rho = 14/28 = 1/2 with no batch: 28 (L = 1/28 x 28 = 1 line found,
 * 14 x 2); BDI lat 2, rate 1/4 (rho 1/2), 1.5 hits of its instruction ahead: 2 x 2.5 / 0.5 = 10;
 * BPC 11 at rho = 11/11 = 1: the full queue's 257 x 11 = 2827 (256 lines found); a batch of 300
 * ahead: also the cap;
 * no decompressor (lat 0): 0. Fails on eq. 3 off by one (lat x p), the own instruction's hits left
 * out, a wait without Little's law (rho not in the denominator), or no cap at the queue's 256 lines. */
static void queue_wait_by_hand(void **state)
{
    (void)state;
    close_rel(gpuest_model_dq_wait(14.0, 0.0, 0.0), 14.0, 1e-15, "empty SC queue");
    close_rel(gpuest_model_dq_wait(14.0, 1.0 / 28.0, 0.0), 28.0, 1e-12, "SC at rho 1/2");
    close_rel(gpuest_model_dq_wait(2.0, 0.25, 1.5), 10.0, 1e-12, "BDI at rho 1/2, 1.5 ahead");
    close_rel(gpuest_model_dq_wait(11.0, 1.0 / 11.0, 0.0), 2827.0, 1e-15, "BPC saturated");
    close_rel(gpuest_model_dq_wait(11.0, 0.01, 300.0), 2827.0, 1e-15, "a batch past the queue");
    assert_true(gpuest_model_dq_wait(0.0, 0.5, 2.0) == 0.0);
}

static gpuest_gpu_model_t *model(void)
{
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    return m;
}

/* A workload with a warp profile (the scoreboard model): 8 warp instructions and 1 L1 hit per
 * request, h1 = 1/2, 2 lines an epoch, no latency tolerance (every added cycle exposed). */
static void sb_workload(gpuest_model_workload_t *w)
{
    memset(w, 0, sizeof *w);
    w->insts_per_request = 8.0;
    w->hits_per_request = 1.0;
    w->l1_hit_rate = 0.5;
    w->l2_hit_rate = 0.5;
    w->dram_per_request = 0.5;
    w->row_hit_rate = 0.5;
    w->threads_per_warp_inst = 32;
    w->resident_warps = 16;
    w->insts_per_epoch = 10;
    w->lines_per_epoch = 2;
    w->dep_per_epoch = 4;
}

/* SC (14 cycles), every hit compressed, 3 of its instruction's hits ahead, no miss saving. The solve
 * must sit at the fixed point: its reported wait W equals eq. 3's mean at its own compressed-hit
 * rate (1 hit per 8 warp instructions: rate = warp IPC / 15 SMs / 8, checked from the estimate's
 * IPC), W is above the empty queue's 14 x 4 = 56, and the estimate is the static solve whose hit is
 * W longer, bit for bit. Fails when the rate is not taken from the solve's throughput (another
 * fixed point), the bisection runs the wrong way (W stuck at a bracket end), the queue's wait is
 * not what the hit is charged, or the own instruction's hits are dropped (W near 14). */
static void solve_sits_at_the_queue_fixed_point(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model();
    gpuest_gpu_params_t p = {1.0, 0.8, 1.0};
    gpuest_model_workload_t w;
    sb_workload(&w);
    gpuest_error_t err;
    gpuest_model_transform_t t, st;
    gpuest_model_transform_identity(&t);
    t.l1_hit_extra_latency = 14.0; /* the nominal latency: replaced by the queue's */
    t.l1_dq_latency = 14.0;
    t.l1_dq_share = 1.0;
    t.l1_dq_ahead = 3.0;
    gpuest_gpu_estimate_t got, want;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    double rate = got.warp_ipc / 15.0 / 8.0;
    close_rel(got.l1_dq_rate, rate, 1e-12, "compressed hits per cycle per SM");
    assert_true(got.l1_dq_wait > 56.0 * (1.0 + 1e-3) && got.l1_dq_wait < 14.0 * 257);
    close_rel(got.l1_dq_wait, 56.0 / (1.0 - rate * 14.0), 1e-6, "eq. 3's wait at the solve's own rate");
    gpuest_model_transform_identity(&st);
    st.l1_hit_extra_latency = got.l1_dq_wait;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &st, &p, &want, &err), GPUEST_OK);
    assert_true(got.ipc == want.ipc && got.amat == want.amat);
    /* the queue costs more than the nominal latency alone */
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &(gpuest_model_transform_t){.l1_hit_extra_latency = 14.0}, &p,
                                            &want, &err),
                     GPUEST_OK);
    assert_true(got.ipc < want.ipc);
    gpuest_gpu_model_destroy(m);
}

/* An adaptive candidate carries its own queue: the solve of a candidate with a queue equals the
 * static solve with that queue, bit for bit. Fails when l1c_rule.c drops the candidate's queue
 * inputs (the nominal latency would be charged). */
static void adaptive_candidate_keeps_its_queue(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model();
    gpuest_gpu_params_t p = {1.0, 0.8, 1.0};
    gpuest_model_workload_t w;
    sb_workload(&w);
    gpuest_error_t err;
    gpuest_model_transform_t t, st;
    gpuest_model_transform_identity(&t);
    t.l1c_rule = GPUEST_MODEL_L1C_FEWEST_MISSES;
    t.l1c_modes = 2;
    t.l1c_mode_id[1] = 2;
    t.l1c_miss_scale[0] = 1.0;
    t.l1c_miss_scale[1] = 0.7;
    t.l1c_hit_extra[1] = 7.0;
    t.l1c_dq_latency[1] = 14.0;
    t.l1c_dq_share[1] = 0.5;
    t.l1c_dq_ahead[1] = 1.0;
    gpuest_gpu_estimate_t got, want;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_int_equal(got.l1c_choice, 1);
    gpuest_model_transform_identity(&st);
    st.l1_miss_scale = 0.7;
    st.l1_hit_extra_latency = 7.0;
    st.l1_dq_latency = 14.0;
    st.l1_dq_share = 0.5;
    st.l1_dq_ahead = 1.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &st, &p, &want, &err), GPUEST_OK);
    assert_true(got.ipc == want.ipc && got.l1_dq_wait == want.l1_dq_wait);
    assert_true(got.l1_dq_wait > 28.0); /* 14 x (1 + 1) at least */
    gpuest_gpu_model_destroy(m);
}

/* The replayed queue's waits at spacings 1, 2, 4, ...: 80, 40, 20, 10, then 5. At 1: 80; below 1
 * (the LD/ST unit's limit): 80; at 2^1.5 (halfway in log2): 30; past 128: 5. Fails on linear
 * interpolation in the spacing (2^1.5 = 2.83 would give 33.4) or no clamping at the grid's ends. */
static void replayed_wait_by_hand(void **state)
{
    (void)state;
    double at[GPUEST_MODEL_DQ_SPACINGS] = {80, 40, 20, 10, 5, 5, 5, 5};
    close_rel(gpuest_model_dq_wait_replayed(at, 1.0), 80.0, 1e-15, "spacing 1");
    close_rel(gpuest_model_dq_wait_replayed(at, 0.5), 80.0, 1e-15, "spacing 1/2");
    close_rel(gpuest_model_dq_wait_replayed(at, pow(2.0, 1.5)), 30.0, 1e-12, "spacing 2^1.5");
    close_rel(gpuest_model_dq_wait_replayed(at, 1000.0), 5.0, 1e-15, "spacing 1000");
}

/* With the replayed waits the solve sits where the replay's wait at the model's own spacing (1 /
 * read line requests per core cycle per SM: per request 1 hit and 1 read miss, 8 warp instructions,
 * so 2 x warp IPC / 15 / 8) equals the wait charged. Fails when the spacing is taken from the hits
 * alone or from another throughput, or the formula is used although the replay is there. */
static void solve_reads_the_replay_at_its_spacing(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model();
    gpuest_gpu_params_t p = {1.0, 0.8, 1.0};
    gpuest_model_workload_t w;
    sb_workload(&w);
    gpuest_error_t err;
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.l1_dq_latency = 14.0;
    t.l1_dq_share = 1.0;
    double at[GPUEST_MODEL_DQ_SPACINGS] = {400, 200, 100, 50, 25, 14, 14, 14};
    for (int j = 0; j < GPUEST_MODEL_DQ_SPACINGS; j++)
        t.l1_dq_wait_at[j] = at[j];
    gpuest_gpu_estimate_t got;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    double spacing = 1.0 / (2.0 * got.warp_ipc / 15.0 / 8.0);
    close_rel(got.l1_dq_wait, gpuest_model_dq_wait_replayed(at, spacing), 1e-6, "replayed wait at the spacing");
    assert_true(got.l1_dq_wait > 14.0 && got.l1_dq_wait < 400.0); /* an interior fixed point */
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queue_wait_by_hand),
        cmocka_unit_test(solve_sits_at_the_queue_fixed_point),
        cmocka_unit_test(adaptive_candidate_keeps_its_queue),
        cmocka_unit_test(replayed_wait_by_hand),
        cmocka_unit_test(solve_reads_the_replay_at_its_spacing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
