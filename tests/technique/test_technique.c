/* test_technique.c: the technique registry, its key and mode checks, and reply compression in the
 * simulator: the hook changes what travels, C-Pack's sync and SC2's book packets are the packets
 * the network carried, DSM+APPROX takes its regions and bits from the workload and the predictor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compress/compress.h"
#include "technique/technique.h"

static void preset(gpuest_config_t *c, const char *name)
{
    assert_int_equal(gpuest_config_preset(c, name, NULL), GPUEST_OK);
}

static void set(gpuest_config_t *c, const char *kv)
{
    gpuest_error_t e = {0};
    if (gpuest_config_set(c, kv, "--set", &e) != GPUEST_OK)
        fail_msg("%s: %s", kv, e.msg);
}

static double stat_of(const gpuest_technique_stat_t *st, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, name) == 0)
            return st[i].value;
    fail_msg("statistic %s missing", name);
    return 0;
}

/* ------------------------------------------------------------ registry and checks */
static void test_names_come_from_the_registries(void **state)
{
    (void)state;
    assert_non_null(strstr(gpuest_technique_names(), "compression"));
    /* every compression algorithm of the compress registry is a valid key value, and no other */
    const char *const *names = gpuest_compress_name_list();
    size_t n = 0;
    for (; names[n]; n++) {
        gpuest_config_t c;
        preset(&c, "fermi");
        char kv[64];
        snprintf(kv, sizeof kv, "technique.compression=%s", names[n]);
        set(&c, kv);
        assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_CHECK, NULL), GPUEST_OK);
    }
    for (size_t i = 0; gpuest_compress_algos[i]; i++)
        assert_string_equal(names[i], gpuest_compress_algos[i]->name);
    assert_null(gpuest_compress_algos[n]);
    gpuest_config_t c;
    preset(&c, "fermi");
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_config_set(&c, "technique.compression=lz4", "--set", &e), GPUEST_EINVAL);
    assert_non_null(strstr(e.msg, gpuest_compress_names())); /* the message lists the registry */
}

static void test_unsupported_mode_names_the_key(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=bdi");
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM, &e), GPUEST_OK);
    /* compression has a model transform; the standalone network has no use for it */
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_SIM | GPUEST_TECH_MODE_MODEL, &e), GPUEST_OK);
    gpuest_err rc = gpuest_technique_validate(&c, GPUEST_TECH_MODE_NOC, &e);
    assert_int_equal(rc, GPUEST_EUNSUPPORTED);
    assert_int_equal(gpuest_exit_code(rc), 2);
    assert_non_null(strstr(e.msg, "technique.compression"));
    assert_non_null(strstr(e.msg, "--set"));
    /* a scenario the model transform cannot take (remote-L1 probing's RP predictor): the estimator
     * refuses it, naming the key */
    set(&c, "technique.compression=none");
    set(&c, "technique.probing=rp");
    set(&c, "technique.probe_cores=14");
    gpuest_technique_env_t env = {&c, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    rc = gpuest_technique_model_transform(&env, &t, &e);
    assert_int_equal(rc, GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "technique.probing"));
    set(&c, "technique.probing=none");
    /* off: every mode is fine */
    set(&c, "technique.compression=none");
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_MODEL | GPUEST_TECH_MODE_NOC, &e), GPUEST_OK);
    /* a cross-key check of the technique's own keys */
    set(&c, "technique.sc2_sample_lines=5000");
    set(&c, "technique.sc2_period_lines=4000");
    assert_int_equal(gpuest_technique_validate(&c, GPUEST_TECH_MODE_CHECK, &e), GPUEST_EINVAL);
    assert_non_null(strstr(e.msg, "technique.sc2_sample_lines"));
}

/* ------------------------------------------------------------ in the simulator */
typedef struct {
    gpuest_sim_result_t r;
    gpuest_technique_stat_t st[GPUEST_TECH_MAX_STATS];
    size_t nst;
} run_t;

static void simulate(const gpuest_config_t *c, const char *workload, run_t *out)
{
    gpuest_error_t e = {0};
    gpuest_workload_t *wl = NULL;
    assert_int_equal(gpuest_workload_create(workload, GPUEST_SCALE_TINY, 1, &wl, &e), GPUEST_OK);
    gpuest_sim_source_t src;
    gpuest_sim_source_workload(&src, wl);
    gpuest_sim_opts_t o;
    gpuest_sim_opts_default(&o);
    gpuest_technique_env_t env = {c, gpuest_workload_image(wl), workload, GPUEST_SOURCE_DIR "/models", 1, NULL, 0.0, 0.0, 0};
    gpuest_technique_set_t *set = NULL;
    if (gpuest_technique_set_create(&env, &o.hooks, &set, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    if (gpuest_sim_run(c, &src, &o, &out->r, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    out->nst = gpuest_technique_set_stats(set, out->st, GPUEST_TECH_MAX_STATS);
    gpuest_technique_set_destroy(set);
    gpuest_workload_destroy(wl);
}

/* Fails when the technique does not install its hook: bfs's reply lines hold small integers and
 * zeros, which BDI compresses, so fewer reply flits must travel than without it. */
static void test_bdi_changes_what_travels(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    run_t base, bdi;
    simulate(&c, "bfs", &base);
    assert_int_equal(base.nst, 0);
    set(&c, "technique.compression=bdi");
    simulate(&c, "bfs", &bdi);
    assert_true(bdi.r.total.flits[1] < base.r.total.flits[1]);
    double replies = stat_of(bdi.st, bdi.nst, "compression.replies");
    double sent = stat_of(bdi.st, bdi.nst, "compression.flits_sent");
    assert_true(replies > 0 && stat_of(bdi.st, bdi.nst, "compression.rate") > 0.1);
    /* every reply flit the network carried is a read reply as the technique sized it, a reply it
     * had no data for (instruction fetches, left as they were), or an ack (one flit) */
    uint64_t acks = bdi.r.total.write_requests;
    double passed = stat_of(bdi.st, bdi.nst, "compression.flits_without_data");
    assert_int_equal(bdi.r.total.flits[1], (uint64_t)(sent + passed) + acks);
    assert_int_equal(bdi.r.total.ctrl_packets, 0);
    gpuest_sim_result_free(&base.r);
    gpuest_sim_result_free(&bdi.r);
}

static void test_cpack_sync_packets_travel(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=cpack");
    run_t x;
    simulate(&c, "btree", &x); /* keys and pointers enter the dictionaries (bfs's small integers do not) */
    double sync = stat_of(x.st, x.nst, "compression.sync_packets");
    assert_true(sync > 0);
    assert_int_equal(x.r.total.ctrl_packets, (uint64_t)sync);
    assert_int_equal(x.r.total.ctrl_flits, (uint64_t)stat_of(x.st, x.nst, "compression.sync_flits"));
    double sent = stat_of(x.st, x.nst, "compression.flits_sent");
    double passed = stat_of(x.st, x.nst, "compression.flits_without_data");
    assert_int_equal(x.r.total.flits[1], (uint64_t)(sent + passed) + x.r.total.write_requests + x.r.total.ctrl_flits);
    gpuest_sim_result_free(&x.r);
}

static void test_sc2_books_come_from_a_sample(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=sc2");
    set(&c, "technique.sc2_sample_lines=64");
    set(&c, "technique.sc2_period_lines=100000000");
    run_t x;
    simulate(&c, "bfs", &x);
    double books = stat_of(x.st, x.nst, "compression.books_built");
    assert_true(books >= 1 && books <= c.mc.num_mcs); /* one per MC that got past its sample */
    assert_int_equal(stat_of(x.st, x.nst, "compression.book_packets"), books * c.core.num_sms);
    assert_int_equal(x.r.total.ctrl_packets, (uint64_t)(books * c.core.num_sms));
    /* the sampled replies travel raw: no book compresses the data it was built from */
    double replies = stat_of(x.st, x.nst, "compression.replies");
    assert_true(stat_of(x.st, x.nst, "compression.lines_compressed") <= replies - 64.0 * books);
    gpuest_sim_result_free(&x.r);
}

static void test_dsm_approx_regions_and_bits(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=dsm_approx");
    set(&c, "technique.approx_bits=12");
    run_t fixed, pred, dsm;
    simulate(&c, "2dconv", &fixed);
    assert_int_equal(stat_of(fixed.st, fixed.nst, "compression.approx_bits"), 12);
    assert_int_equal(stat_of(fixed.st, fixed.nst, "compression.approx_ranges"), 2); /* A and B */
    assert_int_equal(stat_of(fixed.st, fixed.nst, "compression.approx_from_predictor"), 0);
    assert_true(stat_of(fixed.st, fixed.nst, "compression.app_error") >= 0); /* 2dconv is one of the nine */
    set(&c, "technique.approx_bits=0");
    set(&c, "technique.approx_max_error=0.05");
    simulate(&c, "2dconv", &pred);
    assert_int_equal(stat_of(pred.st, pred.nst, "compression.approx_from_predictor"), 1);
    double bits = stat_of(pred.st, pred.nst, "compression.approx_bits");
    assert_true(bits >= 0 && bits <= 20 && (int)bits % 4 == 0); /* one of the predictor's levels */
    /* truncation only adds compressible segments: DSM+APPROX never sends more than DSM */
    set(&c, "technique.compression=dsm");
    set(&c, "technique.approx_max_error=0.05");
    simulate(&c, "2dconv", &dsm);
    assert_true(stat_of(fixed.st, fixed.nst, "compression.flits_sent") <
                stat_of(dsm.st, dsm.nst, "compression.flits_sent"));
    gpuest_sim_result_free(&fixed.r);
    gpuest_sim_result_free(&pred.r);
    gpuest_sim_result_free(&dsm.r);
}

/* ------------------------------------------------------------ model transform */
/* A tiny image worked by hand on fermi (32-byte flits, header in a head flit of its own: a packet
 * is 1 + ceil(payload bits / 256) flits; a raw 128-byte line is 5 flits). Allocation "a" holds
 * 3 lines: zeros (BDI's zero encoding and its flag bit, well under 256 bits: 2 flits), then two
 * lines of pseudo-random bytes (no BDI base/delta fits: sent raw, 5 flits). Allocation "out" is
 * all zeros (an output the kernels have not written) and must be left out. So the histogram is
 * 1/3 at 2 flits and 2/3 at 5 flits (mean 4), the compressor latency BDI's 2 L2 cycles (Table 6.5)
 * and the decompressor's 1 core cycle paid by the compressed third only. */
static void test_transform_histogram_by_hand(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=bdi");
    assert_int_equal(gpuest_packet_flits(1024, c.noc.flit_bytes, c.noc.header_bytes), 5);
    gpuest_memimg_t *img = NULL;
    gpuest_error_t e = {0};
    gpuest_alloc_t *a = NULL, *o = NULL;
    assert_int_equal(gpuest_memimg_create(&img, &e), GPUEST_OK);
    assert_int_equal(gpuest_memimg_alloc(img, "out", GPUEST_DT_UINT32, 128, &o, &e), GPUEST_OK);
    assert_int_equal(gpuest_memimg_alloc(img, "a", GPUEST_DT_UINT32, 384, &a, &e), GPUEST_OK);
    gpuest_memimg_set_has_values(img, 1);
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int i = 128; i < 384; i++) { /* xorshift64 bytes */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a->data[i] = (unsigned char)(x >> 24);
    }
    gpuest_technique_env_t env = {&c, img, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_model_transform_t t;
    assert_int_equal(gpuest_technique_model_transform(&env, &t, &e), GPUEST_OK);
    for (int f = 1; f <= GPUEST_MODEL_MAX_FLITS; f++) {
        double want = f == 2 ? 1.0 / 3.0 : f == 5 ? 2.0 / 3.0 : 0.0;
        if (t.reply_flit_hist[f] != want)
            fail_msg("hist[%d] = %g, expected %g", f, t.reply_flit_hist[f], want);
    }
    assert_float_equal(gpuest_model_reply_flits(&t, 5), 4.0, 1e-12);
    assert_float_equal(t.compress_latency, 2.0, 0.0);
    assert_float_equal(t.decompress_latency, 1.0 / 3.0, 1e-12);
    /* off: the identity */
    set(&c, "technique.compression=none");
    assert_int_equal(gpuest_technique_model_transform(&env, &t, &e), GPUEST_OK);
    assert_float_equal(gpuest_model_reply_flits(&t, 5), 5.0, 0.0);
    assert_float_equal(t.compress_latency + t.decompress_latency, 0.0, 0.0);
    gpuest_memimg_destroy(img);
}

static void test_no_values_is_an_error(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=fpc");
    gpuest_memimg_t *img = NULL;
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_memimg_create(&img, &e), GPUEST_OK);
    gpuest_memimg_set_has_values(img, 0);
    gpuest_technique_env_t env = {&c, img, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    gpuest_sim_hooks_t h;
    memset(&h, 0, sizeof h);
    gpuest_technique_set_t *set = NULL;
    gpuest_err rc = gpuest_technique_set_create(&env, &h, &set, &e);
    assert_int_equal(rc, GPUEST_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "technique.compression"));
    gpuest_technique_set_destroy(set);
    gpuest_memimg_destroy(img);
}

/* The technique's hooks on an empty image with values, for calling them by hand. */
static gpuest_technique_set_t *hooks_of(const gpuest_config_t *c, gpuest_memimg_t **img, gpuest_sim_hooks_t *h)
{
    gpuest_error_t e = {0};
    assert_int_equal(gpuest_memimg_create(img, &e), GPUEST_OK);
    gpuest_memimg_set_has_values(*img, 1);
    gpuest_technique_env_t env = {c, *img, NULL, NULL, 1, NULL, 0.0, 0.0, 0};
    memset(h, 0, sizeof *h);
    gpuest_technique_set_t *set = NULL;
    if (gpuest_technique_set_create(&env, h, &set, &e) != GPUEST_OK)
        fail_msg("%s", e.msg);
    return set;
}

/* A sampled run's fast-forward warms C-Pack through mc_reply_warm: a line of 16 random words, each
 * twice, compresses cold with 16 dictionary misses; after one warm reply of it (the MC's dictionary
 * and SM 0's copy now hold its 16 words) the same line's reply is all matches, so it travels in
 * fewer flits, and the warm reply is not counted as a reply. BDI installs no warm hook. Fails when
 * the warm hook is missing, leaves a dictionary unchanged, or counts what it warms. */
static void test_cpack_warm_reply_fills_the_dictionaries(void **state)
{
    (void)state;
    gpuest_config_t c;
    preset(&c, "fermi");
    set(&c, "technique.compression=cpack");
    uint8_t line[GPUEST_LINE_BYTES];
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int w = 0; w < 16; w++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t v = (uint32_t)(x >> 16) | 0x01010101u; /* no zero byte: no zero-word pattern */
        memcpy(line + 4 * w, &v, 4);
        memcpy(line + 64 + 4 * w, &v, 4);
    }
    gpuest_sim_req_info_t req = {0x40000, 0xF, GPUEST_MEM_LOAD, 0, 0, 7, 0};
    int flits[2];
    for (int warm = 0; warm <= 1; warm++) {
        gpuest_memimg_t *img = NULL;
        gpuest_sim_hooks_t h;
        gpuest_technique_set_t *set = hooks_of(&c, &img, &h);
        assert_non_null(h.mc_reply_warm);
        if (warm)
            h.mc_reply_warm(h.ctx, &req, line);
        gpuest_sim_reply_t r = {.flits = 5};
        h.mc_reply(h.ctx, &req, line, &r);
        flits[warm] = r.flits;
        gpuest_technique_stat_t st[GPUEST_TECH_MAX_STATS];
        size_t n = gpuest_technique_set_stats(set, st, GPUEST_TECH_MAX_STATS);
        assert_true(stat_of(st, n, "compression.replies") == 1.0);
        assert_true(stat_of(st, n, "compression.sync_packets") == 0.0);
        gpuest_technique_set_destroy(set);
        gpuest_memimg_destroy(img);
    }
    assert_true(flits[1] < flits[0]);
    set(&c, "technique.compression=bdi");
    gpuest_memimg_t *img = NULL;
    gpuest_sim_hooks_t h;
    gpuest_technique_set_t *set = hooks_of(&c, &img, &h);
    assert_non_null(h.mc_reply);
    assert_null(h.mc_reply_warm);
    gpuest_technique_set_destroy(set);
    gpuest_memimg_destroy(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_come_from_the_registries),
        cmocka_unit_test(test_unsupported_mode_names_the_key),
        cmocka_unit_test(test_bdi_changes_what_travels),
        cmocka_unit_test(test_cpack_sync_packets_travel),
        cmocka_unit_test(test_cpack_warm_reply_fills_the_dictionaries),
        cmocka_unit_test(test_sc2_books_come_from_a_sample),
        cmocka_unit_test(test_dsm_approx_regions_and_bits),
        cmocka_unit_test(test_no_values_is_an_error),
        cmocka_unit_test(test_transform_histogram_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
