/* test_sim_backpressure.c: the MC's back-pressure chain (GPGPU-Sim 3.x memory sub-partition): a full reply
 * queue stops the L2, the icnt->L2 queue fills behind it and then no request is accepted from the network.
 *
 * Set-up (fermi): kernel 0 warms the L2 with 64 lines of one MC (SM 0 reads wave 1, SM 1 reads wave 2, 32
 * lines each). In kernel 1 every reply is held in the MC reply queue forever (mc_reply hook); SM 0 sends
 * wave 1 (32 L2 hits) at once, SM 1 sends wave 2 about 400 cycles later, when every wave-1 request has left
 * the ROP delay line. Worked out by hand from the structure:
 *   - the L2 answers exactly mc.reply_queue hits, then stops (the reply queue is full);
 *   - the next mc.request_queue wave-1 requests fill the icnt->L2 queue; the rest of wave 1 waits in the
 *     ROP delay line (already accepted);
 *   - if reply_queue + request_queue <= 32, the icnt->L2 queue is full when wave 2 arrives: not one wave-2
 *     request is accepted (kernel 1 accepts exactly 32);
 *   - if the queues hold more than wave 1, wave 2 is accepted, all of it: its 32 requests arrive within
 *     about 40 cycles, before the first of them leaves the delay line, and the delay line does not count
 *     against acceptance (GPGPU-Sim's memory_sub_partition::full() looks at m_icnt_L2_queue only).
 * The run then ends in GPUEST_EDEADLOCK (the replies never leave). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "script_source.h"

#define A GPUEST_MEMIMG_BASE
#define WAVE 32 /* lanes of one warp load: one line each */

typedef struct {
    long accepted[2]; /* read requests accepted by the MC, per kernel */
    long replies[2];  /* replies made (entering the reply queue), per kernel */
    long warm;        /* requests of kernel 0 */
} count_t;

static int kernel_of(const count_t *c, long accepted_before) { return accepted_before >= c->warm ? 1 : 0; }

static void on_accept(void *ctx, const gpuest_sim_req_info_t *q, uint64_t l2_cycle)
{
    (void)q;
    (void)l2_cycle;
    count_t *c = ctx;
    c->accepted[kernel_of(c, c->accepted[0] + c->accepted[1])]++;
}

static void on_reply(void *ctx, const gpuest_sim_req_info_t *q, const uint8_t *data, gpuest_sim_reply_t *r)
{
    (void)q;
    (void)data;
    count_t *c = ctx;
    /* kernel 0 ends only when all its replies are back, so a reply made after all
     * its requests were accepted and answered belongs to kernel 1: hold it forever */
    int k = c->replies[0] >= c->warm ? 1 : 0;
    c->replies[k]++;
    if (k == 1)
        r->inject_delay = 1000000000;
}

static script_inst_t load(uint64_t addr, uint32_t stride, int cta)
{
    return (script_inst_t){GPUEST_INST_MEM, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, addr, stride, 4, 1, cta, 0, 0, 0};
}

static script_inst_t compute(uint32_t repeat, int cta)
{
    return (script_inst_t){GPUEST_INST_COMPUTE, GPUEST_MEM_LOAD, GPUEST_LAT_ALU, 0, 0, 0, repeat, cta, 0, 0, 0};
}

static void two_cta_kernel(script_kernel_t *k, int n, const script_inst_t *insts)
{
    memset(k, 0, sizeof *k);
    k->ctas = 2; /* CTA 0 on SM 0, CTA 1 on SM 1 */
    k->warps_per_cta = 1;
    k->regs_per_thread = 16;
    k->ninsts = n;
    memcpy(k->insts, insts, (size_t)n * sizeof *insts);
}

/* Runs the scenario with the given MC queue sizes; returns the counts of kernel 1. */
static count_t run_waves(int reply_queue, int request_queue)
{
    gpuest_config_t c;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_preset(&c, "fermi", &e), GPUEST_OK);
    c.core.perfect_inst_const_cache = 1; /* only the scripted loads reach the MC */
    c.mc.reply_queue = reply_queue;
    c.mc.request_queue = request_queue;
    /* lanes one interleave period apart: 32 distinct lines, all on the MC of A */
    uint32_t stride = (uint32_t)(c.mc.interleave_bytes * c.mc.num_mcs);
    uint64_t w1 = A, w2 = A + (uint64_t)WAVE * stride;
    assert_int_equal(gpuest_config_mc_of_address(&c, w1), gpuest_config_mc_of_address(&c, w2 + stride));

    script_t s = {0};
    s.nkernels = 2;
    script_inst_t warm[] = {load(w1, stride, 0), load(w2, stride, 1)};
    two_cta_kernel(&s.kernels[0], 2, warm);
    script_inst_t waves[] = {load(w1, stride, 0), compute(400, 1), load(w2, stride, 1)};
    two_cta_kernel(&s.kernels[1], 3, waves);

    count_t n = {{0, 0}, {0, 0}, 2 * WAVE};
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    o.watchdog_cycles = 3000;
    o.hooks.ctx = &n;
    o.hooks.mc_accept = on_accept;
    o.hooks.mc_reply = on_reply;
    gpuest_sim_source_t src;
    script_source(&src, &s);
    gpuest_sim_result_t r;
    assert_int_equal(gpuest_sim_run(&c, &src, &o, &r, &e), GPUEST_EDEADLOCK);
    gpuest_sim_result_free(&r);
    assert_int_equal(n.accepted[0], 2 * WAVE);
    assert_int_equal(n.replies[0], 2 * WAVE);
    printf("# reply_queue %d request_queue %d: kernel 1 accepted %ld, replies made %ld\n", reply_queue,
           request_queue, n.accepted[1], n.replies[1]);
    return n;
}

/* Queues that hold exactly wave 1 (16 + 16 = 32, the presets' sizes before they became GPGPU-Sim's
 * 8 + 8): wave 2 is refused. */
static void test_full_reply_queue_stops_acceptance(void **st)
{
    (void)st;
    count_t n = run_waves(16, 16);
    assert_int_equal(n.replies[1], 16);
    assert_int_equal(n.accepted[1], WAVE);
}

/* fermi's own queues (8 + 8, GPGPU-Sim's -gpgpu_dram_partition_queues 8:8:8:8): the L2 stops after 8
 * replies; wave 1's last 16 requests wait in the ROP delay line, accepted; wave 2 is still refused. */
static void test_small_queues(void **st)
{
    (void)st;
    count_t n = run_waves(8, 8);
    assert_int_equal(n.replies[1], 8);
    assert_int_equal(n.accepted[1], WAVE);
}

/* Room left in the icnt->L2 queue (16 + 24 > 32): wave 2 is accepted whole, since
 * the delay line in front of the queue does not count against acceptance. */
static void test_rop_not_counted(void **st)
{
    (void)st;
    count_t n = run_waves(16, 24);
    assert_int_equal(n.replies[1], 16);
    assert_int_equal(n.accepted[1], 2 * WAVE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_reply_queue_stops_acceptance),
        cmocka_unit_test(test_small_queues),
        cmocka_unit_test(test_rop_not_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
