/* test_gen_srad.c: SRAD v2 generator: halo, border-override and centre loads by hand; two real diffusion steps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"

/* Tiny: 32x32 image, 2x2 CTAs of 16x16. srad_cuda_1, CTA (1,1), warp 0 (ty 0, 1):
 * base = 32*16*1 + 16*1 = 528. */
static void test_srad_k1_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("srad", GPUEST_SCALE_TINY, 1);
    uint64_t J = gt_base(wl, "J_cuda"), C = gt_base(wl, "C_cuda");
    gt_warp_t w;
    gt_capture(wl, 0, 3, 0, 16, &w);
    assert_string_equal(w.launch.name, "srad_cuda_1");
    assert_int_equal(w.n, 12);
    /* north row: J[528 - 32 + tx] for both half-warps */
    assert_int_equal(w.mem[0].addr[0], J + 496 * 4);
    assert_int_equal(w.mem[0].addr[16], J + 496 * 4);
    /* south: J[528 + 512 + tx] (past the image: the kernel reads it, then overrides) */
    assert_int_equal(w.mem[1].addr[1], J + 1041 * 4);
    /* by == last: south override J[512 + 16 + 480 + tx] */
    assert_int_equal(w.mem[2].addr[0], J + 1008 * 4);
    /* west J[528 + 32*ty - 1]: one address per half-warp */
    assert_int_equal(w.mem[3].addr[5], J + 527 * 4);
    assert_int_equal(w.mem[3].addr[20], J + 559 * 4);
    /* east J[528 + 32*ty + 16], then the bx == last override J[... + 15] */
    assert_int_equal(w.mem[4].addr[0], J + 544 * 4);
    assert_int_equal(w.mem[5].addr[31], J + 575 * 4);
    /* centre J[528 + 32*ty + tx] */
    assert_int_equal(w.mem[6].addr[17], J + 561 * 4);
    assert_int_equal(w.mem[7].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[7].addr[0], C + 528 * 4);
    gpuest_line_req_t req[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&w.mem[0], req), 1);
    assert_int_equal(req[0].line, J + 1920);
    assert_int_equal(req[0].sectors, 0xC);
    assert_int_equal(gpuest_coalesce(&w.mem[3], req), 2);
    assert_int_equal(req[0].line, J + 2048);
    assert_int_equal(req[0].sectors, 0x2);
    assert_int_equal(req[1].line, J + 2176);
    assert_int_equal(req[1].sectors, 0x2);
    assert_int_equal(gpuest_coalesce(&w.mem[5], req), 2);
    assert_int_equal(req[0].sectors, 0x8);
    assert_int_equal(gpuest_coalesce(&w.mem[6], req), 2);
    assert_int_equal(req[0].line, J + 2048);
    assert_int_equal(req[0].sectors, 0xC);
    for (int i = 0; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    gpuest_workload_destroy(wl);
}

/* CTA (0,0): the by == 0 and bx == 0 overrides read row 0 and column 0. */
static void test_srad_k1_corner(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("srad", GPUEST_SCALE_TINY, 1);
    uint64_t J = gt_base(wl, "J_cuda");
    gt_warp_t w;
    gt_capture(wl, 0, 0, 1, 16, &w);   /* warp 1: ty 2, 3 */
    assert_int_equal(w.mem[0].addr[0], J - 32 * 4);        /* index_n = tx - cols */
    assert_int_equal(w.mem[2].addr[3], J + 3 * 4);         /* north override J[tx] */
    assert_int_equal(w.mem[3].addr[0], J + (64 - 1) * 4);  /* west J[32*2 - 1] */
    assert_int_equal(w.mem[5].addr[16], J + 96 * 4);       /* west override J[32*3] */
    gpuest_workload_destroy(wl);
}

/* srad_cuda_2, CTA (0,1) = linear 2, warp 7 (ty 14, 15): J, south C (with the
 * by == last override), east C, centre C, N/S/W/E, store J. */
static void test_srad_k2_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("srad", GPUEST_SCALE_TINY, 1);
    uint64_t J = gt_base(wl, "J_cuda"), C = gt_base(wl, "C_cuda"), N = gt_base(wl, "N_C");
    gt_warp_t w;
    gt_capture(wl, 1, 2, 7, 16, &w);
    assert_string_equal(w.launch.name, "srad_cuda_2");
    assert_int_equal(w.n, 10);
    /* base = 32*16*1 + 0 = 512 */
    assert_int_equal(w.mem[0].addr[0], J + (512 + 32 * 14) * 4);
    assert_int_equal(w.mem[1].addr[2], C + (512 + 512 + 2) * 4);
    assert_int_equal(w.mem[2].addr[2], C + (512 + 480 + 2) * 4);
    assert_int_equal(w.mem[3].addr[16], C + (512 + 32 * 15 + 16) * 4);
    assert_int_equal(w.mem[4].addr[1], C + (512 + 32 * 14 + 1) * 4);
    assert_int_equal(w.mem[5].addr[1], N + (512 + 32 * 14 + 1) * 4);
    assert_int_equal(w.mem[9].op, GPUEST_MEM_STORE);
    assert_int_equal(w.mem[9].addr[31], J + (512 + 32 * 15 + 15) * 4);
    gpuest_workload_destroy(wl);
}

/* Two iterations of the diffusion, recomputed here in double precision. */
static double px(const double *a, int r, int c)
{
    r = r < 0 ? 0 : r > 31 ? 31 : r;
    c = c < 0 ? 0 : c > 31 ? 31 : c;
    return a[r * 32 + c];
}

static void test_srad_values(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("srad", GPUEST_SCALE_TINY, 9);
    const float *Jf = gt_data(wl, "J_cuda");
    double J[1024], C[1024], dN[1024], dS[1024], dW[1024], dE[1024];
    for (int i = 0; i < 1024; i++) {
        J[i] = Jf[i];
        assert_true(J[i] >= 1.0 && J[i] <= 2.72);   /* exp of an image in [0,1] */
    }
    /* spatial correlation: neighbours are much closer than the value range */
    assert_true(fabs(J[0] - J[1]) < 0.2);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.launches, 4);
    for (int it = 0; it < 2; it++) {
        double sum = 0, sum2 = 0;
        for (int i = 0; i < 1024; i++)
            sum += J[i], sum2 += J[i] * J[i];
        double mean = sum / 1024, q0 = (sum2 / 1024 - mean * mean) / (mean * mean);
        for (int y = 0; y < 32; y++)
            for (int x = 0; x < 32; x++) {
                int i = y * 32 + x;
                double jc = J[i];
                dN[i] = px(J, y - 1, x) - jc, dS[i] = px(J, y + 1, x) - jc;
                dW[i] = px(J, y, x - 1) - jc, dE[i] = px(J, y, x + 1) - jc;
                double g2 = (dN[i] * dN[i] + dS[i] * dS[i] + dW[i] * dW[i] + dE[i] * dE[i]) / (jc * jc);
                double l = (dN[i] + dS[i] + dW[i] + dE[i]) / jc;
                double num = 0.5 * g2 - l * l / 16.0, den = 1 + 0.25 * l;
                double q = num / (den * den);
                double c = 1.0 / (1.0 + (q - q0) / (q0 * (1 + q0)));
                C[i] = c < 0 ? 0 : c > 1 ? 1 : c;
            }
        for (int y = 0; y < 32; y++)
            for (int x = 0; x < 32; x++) {
                int i = y * 32 + x;
                double d = C[i] * dN[i] + px(C, y + 1, x) * dS[i] + C[i] * dW[i] + px(C, y, x + 1) * dE[i];
                J[i] += 0.25 * 0.5 * d;
            }
    }
    double worst = 0;
    for (int i = 0; i < 1024; i++)
        worst = fmax(worst, fabs(J[i] - Jf[i]));
    assert_true(worst < 1e-3);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srad_k1_addresses),
        cmocka_unit_test(test_srad_k1_corner),
        cmocka_unit_test(test_srad_k2_addresses),
        cmocka_unit_test(test_srad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
