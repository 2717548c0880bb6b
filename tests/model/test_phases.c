/* test_phases.c: the kernel phases of the closed model combined by hand (model/phases.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"
#include "model_workload.h"

/* |a - b| <= tol (cmocka 1.1 has no double comparison) */
#define assert_double_equal(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* Two phases worked by hand. A: 1000 warp instructions at warp IPC 10 (32 lanes: IPC 320) take 100
 * cycles; B: 1000 at warp IPC 1 (16 lanes: IPC 16) take 1000. The run: 2000 warp instructions in
 * 1100 cycles, warp IPC 1.8182 (the instruction-weighted mean would say 5.5), thread IPC
 * (32,000 + 16,000) / 1100 = 43.636. AMAT by line requests (100 at 200, 300 at 400): 350; request
 * latency by reads (50 at 100, 150 at 300): 250; MC stall by time (0.1 for 100 cycles, 0.5 for
 * 1000): 510 / 1100; WarpPool occupancy by time (2 and 4 queues): 4200 / 1100; an adaptive L1's
 * choice is the longer phase's (B: 2). A third phase without instructions is left out. */
static void two_phases_by_hand(void **state)
{
    (void)state;
    gpuest_model_phase_t ph[3];
    memset(ph, 0, sizeof ph);
    ph[0].warp_insts = 1000;
    ph[0].line_reqs = 100;
    ph[0].reads = 50;
    ph[1].warp_insts = 1000;
    ph[1].line_reqs = 300;
    ph[1].reads = 150;
    gpuest_gpu_estimate_t e[3], out;
    memset(e, 0, sizeof e);
    e[0] = (gpuest_gpu_estimate_t){.ipc = 320, .warp_ipc = 10, .amat = 200, .req_latency = 100, .mc_stall_ratio = 0.1,
                                   .pool_occupancy = 2, .l1c_choice = 1};
    e[1] = (gpuest_gpu_estimate_t){.ipc = 16, .warp_ipc = 1, .amat = 400, .req_latency = 300, .mc_stall_ratio = 0.5,
                                   .pool_occupancy = 4, .l1c_choice = 2};
    e[2] = (gpuest_gpu_estimate_t){.ipc = 1e9, .warp_ipc = 1e9, .amat = 1e9}; /* no instructions: ignored */
    gpuest_error_t err;
    assert_int_equal(gpuest_model_combine_phases(ph, e, 3, &out, &err), GPUEST_OK);
    assert_double_equal(out.warp_ipc, 2000.0 / 1100.0, 1e-12);
    assert_double_equal(out.ipc, 48000.0 / 1100.0, 1e-12);
    assert_double_equal(out.amat, 350.0, 1e-12);
    assert_double_equal(out.req_latency, 250.0, 1e-12);
    assert_double_equal(out.mc_stall_ratio, 510.0 / 1100.0, 1e-12);
    assert_double_equal(out.pool_occupancy, 4200.0 / 1100.0, 1e-12);
    assert_int_equal(out.l1c_choice, 2);
    /* a phase with instructions but no positive IPC is an error, not an infinite time */
    e[1].warp_ipc = 0;
    assert_int_equal(gpuest_model_combine_phases(ph, e, 2, &out, &err), GPUEST_EINVAL);
    ph[0].warp_insts = ph[1].warp_insts = 0;
    assert_int_equal(gpuest_model_combine_phases(ph, e, 2, &out, &err), GPUEST_EINVAL);
}

/* On the fermi model: one phase is the plain solve, bit for bit; a run split into two identical
 * halves is the same run; and two different phases give the harmonic combination of their own
 * solves (a solver that passed the whole-run inputs to every phase, or averaged IPCs, fails). */
static void solve_phases_on_model(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_gpu_model_t *m;
    assert_int_equal(gpuest_gpu_model_create(&cfg, &m, &err), GPUEST_OK);
    gpuest_gpu_params_t p = {0.5, 0.5, 1.0};
    gpuest_model_phase_t ph[2];
    memset(ph, 0, sizeof ph);
    plain_workload(&ph[0].w, 8.0, 0.2);
    ph[0].warp_insts = 500;
    ph[0].line_reqs = 60;
    ph[0].reads = 40;
    gpuest_gpu_estimate_t one, split, a, b, two;
    assert_int_equal(gpuest_gpu_model_solve(m, &ph[0].w, NULL, &p, &one, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve_phases(m, &ph[0].w, ph, 1, NULL, &p, &split, &err), GPUEST_OK);
    assert_true(split.ipc == one.ipc && split.amat == one.amat);
    ph[1] = ph[0];
    assert_int_equal(gpuest_gpu_model_solve_phases(m, &ph[0].w, ph, 2, NULL, &p, &split, &err), GPUEST_OK);
    assert_double_equal(split.ipc, one.ipc, 1e-9 * one.ipc);
    assert_double_equal(split.amat, one.amat, 1e-9 * one.amat);
    /* a phase of 8 instructions a request with L1 hits and a memory-bound one (2, no hits) */
    plain_workload(&ph[1].w, 2.0, 0.0);
    ph[1].warp_insts = 1500;
    assert_int_equal(gpuest_gpu_model_solve(m, &ph[0].w, NULL, &p, &a, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve(m, &ph[1].w, NULL, &p, &b, &err), GPUEST_OK);
    assert_int_equal(gpuest_gpu_model_solve_phases(m, &ph[0].w, ph, 2, NULL, &p, &two, &err), GPUEST_OK);
    assert_true(a.warp_ipc > 1.2 * b.warp_ipc); /* the phases really differ */
    double t = 500 / a.warp_ipc + 1500 / b.warp_ipc;
    assert_double_equal(two.warp_ipc, 2000 / t, 1e-9 * two.warp_ipc);
    assert_double_equal(two.amat, (60 * a.amat + 60 * b.amat) / 120, 1e-9 * two.amat);
    /* the active warps of a phase cut its population: fewer warps with work, lower IPC */
    ph[1].w.active_warps = 2;
    assert_int_equal(gpuest_gpu_model_solve(m, &ph[1].w, NULL, &p, &two, &err), GPUEST_OK);
    assert_true(two.warp_ipc < 0.5 * b.warp_ipc);
    gpuest_gpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(two_phases_by_hand), cmocka_unit_test(solve_phases_on_model)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
