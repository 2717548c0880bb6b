/* test_tech_rules.c: the closed model's technique rules worked by hand: the latency tolerance of
 * an added L1 hit latency, the adaptive compressed L1's decision rules, the WarpPool's merged
 * share at the model's occupancy, and LA-LLC's forwarded replies. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

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

/* A workload with a warp profile (the scoreboard model), L1 hit rate 1/2, 2 lines an epoch. */
static void sb_workload(gpuest_model_workload_t *w, double avail, double cps)
{
    memset(w, 0, sizeof *w);
    w->insts_per_request = 8.0;
    w->hits_per_request = 1.0;
    w->l1_hit_rate = 0.5;
    w->l2_hit_rate = 0.5;
    w->dram_per_request = 0.5;
    w->row_hit_rate = 0.5;
    w->threads_per_warp_inst = 32;
    w->avail_warps = avail;
    w->cycles_per_schedule = cps;
    w->resident_warps = 16;
    w->insts_per_epoch = 10;
    w->lines_per_epoch = 2;
    w->dep_per_epoch = 4;
}

static void close_rel(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: %.12g, expected %.12g", what, got, want);
}

static void exposed_extra_by_hand(void **state)
{
    (void)state;
    assert_true(gpuest_model_exposed_extra(2.0, 3.0) == 0.0); /* tolerance above the latency: nothing */
    assert_true(gpuest_model_exposed_extra(5.0, 2.0) == 3.0); /* below: the difference */
    assert_true(gpuest_model_exposed_extra(2.0, -1.0) == 2.0);
    assert_true(gpuest_model_exposed_extra(0.0, 0.0) == 0.0);
}

/* Scoreboard model, alpha = 1. LT = 1.5 x 2 = 3 hides 2 added cycles: IPC as without them, bit for
 * bit, AMAT 1/2 x 2 higher (AMAT is the latency a hit has). LT = 0.5 x 2 = 1 leaves 2 of 3 added
 * cycles: the machine whose L1 hit is 2 cycles longer. Fails when the latency is charged in full,
 * the tolerance is ignored or made a credit, or AMAT drops the hidden cycles. */
static void tolerance_hides_the_added_latency(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    char kv[64];
    snprintf(kv, sizeof kv, "l1.hit_latency=%d", cfg.l1.hit_latency + 2);
    gpuest_gpu_model_t *m = model(NULL), *slow = model(kv);
    gpuest_gpu_params_t p = {1.0, 0.8, 1.0};
    gpuest_model_workload_t w;
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    gpuest_gpu_estimate_t base, got, want;
    sb_workload(&w, 1.5, 2.0);
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    t.l1_hit_extra_latency = 2.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_true(got.ipc == base.ipc);
    close_rel(got.amat, base.amat + 0.5 * 2.0, 1e-12, "AMAT with 2 hidden cycles");
    sb_workload(&w, 0.5, 2.0);
    t.l1_hit_extra_latency = 3.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(slow, &w, NULL, &p, &want, &err), GPUEST_OK);
    close_rel(got.ipc, want.ipc, 1e-9, "IPC with 2 of 3 added cycles exposed");
    gpuest_gpu_model_destroy(m);
    gpuest_gpu_model_destroy(slow);
}

/* alpha = 0.5: a customer cycle is half an epoch, and the added latency is paid once per epoch that
 * ends on hits: 0.5 x h1^2 = 1/8 per cycle, where a longer base hit costs h1^(0.5 x 2) = 1/2 per
 * cycle. So 8 added cycles (no tolerance) cost what a 2-cycle longer base hit does. Fails when the
 * charge is per customer cycle (8 cycles would cost four times more). */
static void added_latency_paid_once_per_epoch(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    char kv[64];
    snprintf(kv, sizeof kv, "l1.hit_latency=%d", cfg.l1.hit_latency + 2);
    gpuest_gpu_model_t *m = model(NULL), *slow = model(kv);
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_model_workload_t w;
    sb_workload(&w, 0.0, 0.0);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.l1_hit_extra_latency = 8.0;
    gpuest_gpu_estimate_t got, want;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(slow, &w, NULL, &p, &want, &err), GPUEST_OK);
    close_rel(got.ipc, want.ipc, 1e-9, "IPC with 8 cycles once per epoch");
    gpuest_gpu_model_destroy(m);
    gpuest_gpu_model_destroy(slow);
}

/* Three candidates: none (miss x 1, +0), BDI (x 0.8, +2), SC (x 0.5, +14); h1 = 0.5, hit 20 cycles,
 * miss latency 30. AMAT_GPU = h1' max(hit - LT, 0) + (1 - h1') miss, h1' = 1 - 0.5 s:
 * LT = 4: none 0.5 x 16 + 15 = 23, BDI 0.6 x 18 + 12 = 22.8, SC 0.75 x 30 + 7.5 = 30 -> BDI;
 * LT = 0: 25, 25.2, 33 -> none; LT = 40: 15, 12, 7.5 -> SC (without the clamp at zero: 5, 1.2, 3 ->
 * BDI). Fewest misses: SC; on a tie the lower latency candidate. Adaptive-CMP, counter = avoided x
 * miss latency - paid: avoided 0.05 / 0.1, paid 1 / 8: miss 100 -> BDI (4 vs 2); 200 -> SC (9 vs
 * 12); 10 -> none (no positive counter). Fails on a rule without LT, without the clamp, ties to
 * the wrong side, or a counter that may win when negative. */
static void l1c_rules_by_hand(void **state)
{
    (void)state;
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.l1c_modes = 3;
    double s[3] = {1.0, 0.8, 0.5}, x[3] = {0.0, 2.0, 14.0}, av[3] = {0, 0.05, 0.1}, pd[3] = {0, 1.0, 8.0};
    for (int i = 0; i < 3; i++) {
        t.l1c_miss_scale[i] = s[i];
        t.l1c_hit_extra[i] = x[i];
        t.l1c_avoided[i] = av[i];
        t.l1c_paid[i] = pd[i];
    }
    gpuest_gpu_estimate_t est[3];
    memset(est, 0, sizeof est);
    for (int i = 0; i < 3; i++)
        est[i].miss_latency = 30.0;
    t.l1c_rule = GPUEST_MODEL_L1C_AMAT_GPU;
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 2.0, 2.0), 1);
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 0.0, 2.0), 0);
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 20.0, 2.0), 2);
    t.l1c_rule = GPUEST_MODEL_L1C_FEWEST_MISSES;
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 2.0, 2.0), 2);
    t.l1c_miss_scale[1] = 0.5;
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 2.0, 2.0), 1);
    t.l1c_rule = GPUEST_MODEL_L1C_CMP;
    est[0].miss_latency = 100.0;
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 2.0, 2.0), 1);
    est[0].miss_latency = 200.0;
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 2.0, 2.0), 2);
    est[0].miss_latency = 10.0;
    assert_int_equal(gpuest_model_l1c_pick(&t, est, 0.5, 20.0, 2.0, 2.0), 0);
}

static gpuest_model_l1c_view_t seen;
static int always_sc(const gpuest_model_l1c_view_t *v)
{
    seen = *v;
    return 2;
}

/* The adaptive solve is the static solve of the candidate its rule picks, bit for bit, and says
 * which; an external rule sees the measured tolerance and each candidate's hit ratio, and is
 * followed to its fixed point. Fails when the solve does not dispatch on the rule, mixes up the
 * candidates' fields, or reports another choice than it returns. */
static void adaptive_solve_is_the_picked_static_one(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model(NULL);
    gpuest_gpu_params_t p = {1.0, 0.8, 1.0};
    gpuest_model_workload_t w;
    sb_workload(&w, 1.0, 2.0);
    gpuest_error_t err;
    gpuest_model_transform_t t, st;
    gpuest_model_transform_identity(&t);
    t.l1c_rule = GPUEST_MODEL_L1C_FEWEST_MISSES;
    t.l1c_modes = 3;
    t.l1c_mode_id[1] = 1;
    t.l1c_mode_id[2] = 2;
    t.l1c_miss_scale[0] = 1.0;
    t.l1c_miss_scale[1] = 0.7;
    t.l1c_miss_scale[2] = 0.9;
    t.l1c_hit_extra[1] = 5.0;
    t.l1c_hit_extra[2] = 1.0;
    gpuest_gpu_estimate_t got, want;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_int_equal(got.l1c_choice, 1);
    gpuest_model_transform_identity(&st);
    st.l1_miss_scale = 0.7;
    st.l1_hit_extra_latency = 5.0;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &st, &p, &want, &err), GPUEST_OK);
    assert_true(got.ipc == want.ipc && got.amat == want.amat);
    t.l1c_rule = GPUEST_MODEL_L1C_EXTERNAL;
    t.l1c_choose = always_sc;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_int_equal(got.l1c_choice, 2);
    assert_true(seen.current == 2); /* asked again at its own choice: a fixed point */
    assert_true(seen.latency_tolerance == 2.0);
    close_rel(seen.hit_ratio[1], 1.0 - 0.5 * 0.7, 1e-15, "hit ratio of candidate 1");
    assert_true(seen.hit_extra[2] == 1.0);
    gpuest_gpu_model_destroy(m);
}

/* Merged shares 0.1, 0.2, 0.4 at 1, 2, 4 queues: 0.1 below one queue, 0.2 at 2, 0.3 at 2^1.5
 * (log-linear), 0.4 at the pool's size and beyond. Fails on linear interpolation in queues, or no
 * clipping. */
static void merge_share_by_hand(void **state)
{
    (void)state;
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    assert_true(gpuest_model_merge_share_at(&t, 8.0) == 0.0);
    t.l1_merge_windows = 3;
    t.l1_merge_share[0] = 0.1;
    t.l1_merge_share[1] = 0.2;
    t.l1_merge_share[2] = 0.4;
    assert_true(gpuest_model_merge_share_at(&t, 0.5) == 0.1);
    assert_true(gpuest_model_merge_share_at(&t, 2.0) == 0.2);
    close_rel(gpuest_model_merge_share_at(&t, sqrt(8.0)), 0.3, 1e-12, "share at 2^1.5 queues");
    assert_true(gpuest_model_merge_share_at(&t, 4.0) == 0.4);
    assert_true(gpuest_model_merge_share_at(&t, 100.0) == 0.4);
}

/* A WarpPool whose merged share is 0.5 at any size halves the LD/ST unit's per-request cycles:
 * the pool's solve reports it and IPC rises on a workload the LD/ST unit limits (1 line an
 * instruction). Fails when the share is not applied or the occupancy is not reported. */
static void warppool_relieves_the_ldst_unit(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model(NULL);
    gpuest_gpu_params_t p = {1.0, 1.0, 1.0};
    gpuest_model_workload_t w;
    sb_workload(&w, 4.0, 2.0);
    w.lines_per_epoch = 10;
    w.l1_hit_rate = 0.95;
    w.ldst_block_per_read = 4.0;
    w.block_miss_latency = 300.0;
    gpuest_error_t err;
    gpuest_gpu_estimate_t base, got;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.l1_merge_windows = 2;
    t.l1_merge_share[0] = 0.5;
    t.l1_merge_share[1] = 0.5;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &got, &err), GPUEST_OK);
    assert_true(got.pool_merge_share == 0.5);
    assert_true(got.pool_occupancy > 0.0);
    if (!(got.ipc > base.ipc))
        fail_msg("IPC %g with half the L1 accesses merged, %g without", got.ipc, base.ipc);
    gpuest_gpu_model_destroy(m);
}

/* LA-LLC on the reply-bound machine (16-byte flits), no writes: with half the misses' last reader
 * another SM that holds the line and an L2 hit rate of 1/2, a quarter of the read replies leave a
 * sharer's SM instead of the MC: the MC port's flits per unit of IPC fall to 3/4 exactly. Fails
 * when the forward share ignores the L2 hit rate, or is not taken off the MC's reply port. */
static void llc_forward_off_the_mc_port(void **state)
{
    (void)state;
    gpuest_gpu_model_t *m = model("noc.flit_bytes=16");
    gpuest_model_workload_t w;
    memset(&w, 0, sizeof w);
    w.insts_per_request = 8.0;
    w.l1_hit_rate = 0.2;
    w.l2_hit_rate = 0.5;
    w.dram_per_request = 0.5;
    w.row_hit_rate = 0.5;
    w.threads_per_warp_inst = 32;
    gpuest_gpu_params_t p = {0.5, 0.8, 1.0};
    gpuest_error_t err;
    gpuest_gpu_estimate_t base, fwd;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, NULL, &p, &base, &err), GPUEST_OK);
    gpuest_model_transform_t t;
    gpuest_model_transform_identity(&t);
    t.llc_fwd_hold = 0.5;
    assert_int_equal(gpuest_gpu_model_solve(m, &w, &t, &p, &fwd, &err), GPUEST_OK);
    close_rel(fwd.inject_util / fwd.ipc, 0.75 * base.inject_util / base.ipc, 1e-9, "MC port flits per IPC");
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exposed_extra_by_hand),
        cmocka_unit_test(tolerance_hides_the_added_latency),
        cmocka_unit_test(added_latency_paid_once_per_epoch),
        cmocka_unit_test(l1c_rules_by_hand),
        cmocka_unit_test(adaptive_solve_is_the_picked_static_one),
        cmocka_unit_test(merge_share_by_hand),
        cmocka_unit_test(warppool_relieves_the_ldst_unit),
        cmocka_unit_test(llc_forward_off_the_mc_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
