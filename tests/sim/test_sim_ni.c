/* test_sim_ni.c: the simulator's network-interface calls: unicast and multicast injection into the NoC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim_int.h"

/* A GPU record with only its network built (the NI calls touch nothing else). */
static sim_gpu_t *gpu_with_noc(const gpuest_config_t *cfg)
{
    sim_gpu_t *g = calloc(1, sizeof *g);
    gpuest_noc_opts_t o;
    gpuest_noc_opts_from_cfg(&cfg->noc, &o);
    o.num_nodes = cfg->core.num_sms + cfg->mc.num_mcs;
    o.num_classes = 2;
    gpuest_error_t e = {0};
    if (gpuest_noc_create(&cfg->noc, &o, &g->noc, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return g;
}

/* mesh56: an MC multicasts a reply to three SMs; each SM ejects one copy carrying the request index. */
static void test_multicast_reply(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    assert_int_equal(gpuest_config_preset(&cfg, "mesh56", NULL), GPUEST_OK);
    sim_gpu_t *g = gpu_with_noc(&cfg);
    int mcs[GPUEST_MAX_MCS], sms[64];
    assert_int_equal(gpuest_config_mc_nodes(&cfg, mcs, NULL), GPUEST_OK);
    assert_int_equal(gpuest_config_sm_nodes(&cfg, sms, NULL), GPUEST_OK);
    int dests[3] = {sms[0], sms[20], sms[55]};
    assert_int_equal(sim_inject_multicast(g, mcs[2], dests, 3, GPUEST_NOC_REPLY, 5, 41), 0);
    assert_int_equal(sim_inject(g, sms[7], mcs[0], GPUEST_NOC_REQUEST, 1, 7), 0);
    int got[64] = {0}, req_seen = 0;
    for (int t = 0; t < 500; t++) {
        gpuest_noc_step(g->noc);
        gpuest_noc_packet_t p;
        for (int n = 0; n < 64; n++)
            while (gpuest_noc_eject(g->noc, n, &p)) {
                if (p.cls == GPUEST_NOC_REQUEST) {
                    assert_int_equal(n, mcs[0]);
                    assert_int_equal((intptr_t)p.payload - 1, 7);
                    req_seen++;
                    continue;
                }
                assert_int_equal((intptr_t)p.payload - 1, 41);
                assert_int_equal(p.src, mcs[2]);
                got[n]++;
            }
    }
    assert_int_equal(req_seen, 1);
    for (int n = 0; n < 64; n++)
        assert_int_equal(got[n], n == dests[0] || n == dests[1] || n == dests[2]);
    /* mesh56's 9-flit data reply is longer than its 8-flit VC buffers: refused (docs/noc.md) */
    assert_int_equal(sim_inject_multicast(g, mcs[2], dests, 3, GPUEST_NOC_REPLY, 9, 42), -1);
    assert_true(g->failed);
    gpuest_noc_destroy(g->noc);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multicast_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
