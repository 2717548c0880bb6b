/* test_sim_sample_tail.c: the drain stratum of sampled simulation (gpuest_sample_opts_t.tail_stratum,
 * src/sim/sample_tail.c), on hand-worked cases: the CTAs resident on the GPU at once, the tail
 * census's clamps, and the counting pass's tail = the last R CTAs' warp instructions on a scripted
 * kernel whose CTAs run different numbers of instructions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "script_source.h"
#include "sim/sample_tail.h"

/* A sampled run of one scripted kernel of 200 CTAs made of the n program steps p, with short units
 * and the given tail stratum. */
static void sample_script(const gpuest_config_t *cfg, int n, const script_inst_t *p, int tail,
                          gpuest_sample_result_t *r)
{
    script_t s, c;
    memset(&s, 0, sizeof s);
    script_kernel(&s, 0, NULL, 200, n, p);
    c = s;
    gpuest_sim_source_t src, csrc;
    script_source(&src, &s);
    script_source(&csrc, &c);
    gpuest_sample_opts_t o;
    gpuest_sample_opts_default(&o);
    o.units = 4;
    o.unit_insts = 30;
    o.warm_cycles = 20;
    o.tail_stratum = tail;
    gpuest_error_t err;
    if (gpuest_sim_sample(cfg, &src, &csrc, &o, r, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
}

/* fermi: 15 SMs, 8 CTA slots, 48 warps, 1536 threads, 32768 registers, 48 KiB shared memory each */
static void resident_ctas_by_hand(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    gpuest_launch_t l;
    memset(&l, 0, sizeof l);
    l.num_ctas = 1000;
    l.warps_per_cta = 8;
    l.threads_per_cta = 256;
    l.regs_per_cta = 256 * 20; /* 5120: 6 fit in 32768 */
    /* warps 48/8 = 6, threads 1536/256 = 6, registers 6, slots 8: 6 a SM, 90 on the GPU */
    assert_int_equal(gpuest_tail_resident_ctas(&cfg.core, cfg.core.num_sms, &l), 90);
    l.regs_per_cta = 256 * 32; /* 8192: registers allow 4 */
    assert_int_equal(gpuest_tail_resident_ctas(&cfg.core, cfg.core.num_sms, &l), 60);
    l.regs_per_cta = 256 * 20;
    l.shmem_bytes = 20000; /* 49152 / 20000: 2 */
    assert_int_equal(gpuest_tail_resident_ctas(&cfg.core, cfg.core.num_sms, &l), 30);
    l.shmem_bytes = 0;
    l.num_ctas = 50; /* fewer CTAs than room: all of them */
    assert_int_equal(gpuest_tail_resident_ctas(&cfg.core, cfg.core.num_sms, &l), 50);
}

static void census_len_clamps(void **state)
{
    (void)state;
    assert_int_equal(gpuest_tail_census_len(1000000, 30000, 15000), 30000); /* the last wave */
    assert_int_equal(gpuest_tail_census_len(1000000, 5000, 15000), 15000);  /* at least one unit */
    assert_int_equal(gpuest_tail_census_len(1000000, 200000, 15000), 100000); /* at most a tenth */
    assert_int_equal(gpuest_tail_census_len(100000, 200000, 15000), 15000);   /* a tenth below a unit */
}

/* 200 one-warp CTAs of 20 instructions each; CTA 79 (the last before the last wave) runs 300 more
 * and CTA 199 (the last) 1000 more. Fermi holds 8 one-warp CTAs an SM (CTA slots; 512 registers
 * each), 120 on the GPU, so the last wave is CTAs 80-199: 120 x 20 + 1000 = 3400 warp instructions. */
static void tail_is_last_wave(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    script_inst_t p[3];
    memset(p, 0, sizeof p);
    p[0] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 20, .only_cta = -1};
    p[1] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 300, .only_cta = 79};
    p[2] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 1000, .only_cta = 199};
    gpuest_sample_result_t r;
    sample_script(&cfg, 3, p, 1, &r);
    assert_int_equal(r.num_kernels, 1);
    assert_int_equal(r.kernel_warp_insts[0], 200 * 20 + 300 + 1000);
    assert_non_null(r.kernel_tail_warp_insts);
    assert_int_equal(r.kernel_tail_warp_insts[0], 120 * 20 + 1000);
    /* the tail census: min(3400, 5300 / 10) = 530 instructions, to the launch's end */
    const gpuest_sample_unit_t *last = &r.units[r.num_units - 1];
    assert_true(last->census);
    assert_true(last->warp_insts > 530 - 30 && last->warp_insts < 530 + 30);
    gpuest_sample_result_free(&r);
}

/* --tail-stratum-sm: the tail is the launch's last nsm CTAs (fermi: 15, CTAs 185-199). CTA 185 runs 300
 * more instructions and CTA 184 (outside) 700 more, so the count is 15 x 20 + 300 + 1000 = 1,600: 2,320
 * if the boundary takes one CTA too many, 1,280 if one too few, and 4,400 (120 x 20 + 300 + 700 + 1000)
 * if it takes the last wave as mode 1 does. */
static void tail_is_last_cta_of_each_sm(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(&cfg, "fermi", &err), GPUEST_OK);
    assert_int_equal(gpuest_tail_ctas(&cfg.core, 15, &(gpuest_launch_t){.num_ctas = 200}, 2), 15);
    assert_int_equal(gpuest_tail_ctas(&cfg.core, 15, &(gpuest_launch_t){.num_ctas = 9}, 2), 9);
    assert_int_equal(gpuest_tail_ctas(&cfg.core, 15, &(gpuest_launch_t){.num_ctas = 200}, 0), 0);
    script_inst_t p[4];
    memset(p, 0, sizeof p);
    p[0] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 20, .only_cta = -1};
    p[1] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 300, .only_cta = 185};
    p[2] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 700, .only_cta = 184};
    p[3] = (script_inst_t){.kind = GPUEST_INST_COMPUTE, .lat = GPUEST_LAT_ALU, .repeat = 1000, .only_cta = 199};
    gpuest_sample_result_t r;
    sample_script(&cfg, 4, p, 2, &r);
    assert_int_equal(r.kernel_warp_insts[0], 200 * 20 + 300 + 700 + 1000);
    assert_non_null(r.kernel_tail_warp_insts);
    assert_int_equal(r.kernel_tail_warp_insts[0], 15 * 20 + 300 + 1000);
    /* the tail census: min(1600, 6000 / 10) = 600 instructions, to the launch's end */
    const gpuest_sample_unit_t *last = &r.units[r.num_units - 1];
    assert_true(last->census);
    assert_true(last->warp_insts > 600 - 30 && last->warp_insts < 600 + 30);
    gpuest_sample_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(resident_ctas_by_hand), cmocka_unit_test(census_len_clamps),
                                       cmocka_unit_test(tail_is_last_wave), cmocka_unit_test(tail_is_last_cta_of_each_sm)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
