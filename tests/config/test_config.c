/* test_config.c: presets, INI round trip, overrides and every class of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"

static void load_preset(gpuest_config_t *cfg, const char *name)
{
    gpuest_error_t err;
    assert_int_equal(gpuest_config_preset(cfg, name, &err), GPUEST_OK);
}

static void test_every_preset_validates(void **state)
{
    (void)state;
    for (size_t i = 0; gpuest_preset_names[i]; i++) {
        gpuest_config_t cfg;
        gpuest_error_t err = {0};
        load_preset(&cfg, gpuest_preset_names[i]);
        gpuest_err rc = gpuest_config_validate(&cfg, &err);
        if (rc != GPUEST_OK)
            fail_msg("preset %s: %s", gpuest_preset_names[i], err.msg);
        assert_string_equal(cfg.name, gpuest_preset_names[i]);
    }
}

/* Values straight from the documents' tables. */
static void test_preset_values_match_documents(void **state)
{
    (void)state;
    gpuest_config_t c;
    load_preset(&c, "mesh56");
    assert_int_equal(c.core.num_sms, 56);
    assert_int_equal(c.mc.num_mcs, 8);
    assert_int_equal(c.noc.k, 8);
    assert_int_equal(c.noc.vcs, 4);
    assert_int_equal(c.noc.buffer_flits, 8);
    assert_int_equal(c.noc.flit_bytes, 16); /* 128-bit channels */
    assert_true(c.core.clock_mhz == 1400.0);
    assert_int_equal(c.l2.hit_latency, 120);
    assert_int_equal(c.dram.min_latency, 220);
    load_preset(&c, "fermi");
    assert_int_equal(c.core.num_sms, 15);
    assert_int_equal(c.mc.num_mcs, 6);
    assert_int_equal(c.noc.topology, GPUEST_TOPO_CROSSBAR);
    assert_int_equal(c.l1.size_bytes / (c.l1.line_bytes * c.l1.assoc), 32); /* "32 sets, 4-way" */
    assert_true(c.core.clock_mhz == 700.0);
    assert_true(c.dram.clock_mhz == 924.0);
    load_preset(&c, "mesh28");
    assert_int_equal(c.core.num_sms, 28);
    assert_int_equal(c.noc.k, 6);
    assert_int_equal(c.noc.vcs, 1);
    assert_int_equal(c.noc.flit_bytes, 32);
    assert_int_equal(c.dram.tRC, 40);
    assert_int_equal(c.dram.tRRD, 6);
    assert_int_equal(c.mc.interleave_bytes, 256);
    load_preset(&c, "latte15");
    assert_int_equal(c.l2.size_per_mc_bytes * c.mc.num_mcs, 768 * 1024);
    assert_int_equal(c.l2.banks_per_mc * c.mc.num_mcs, 12);
    assert_int_equal(c.core.registers_per_sm, 32768);
}

static void round_trip(const gpuest_config_t *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(gpuest_config_write_ini(cfg, out), GPUEST_OK);
    fclose(out);
    gpuest_config_t back;
    gpuest_error_t err = {0};
    load_preset(&back, strcmp(cfg->name, "fermi") == 0 ? "mesh28" : "fermi"); /* start elsewhere on purpose */
    gpuest_err rc = gpuest_config_load_string(&back, text, "roundtrip.ini", &err);
    if (rc != GPUEST_OK)
        fail_msg("%s", err.msg);
    assert_true(gpuest_config_equal(cfg, &back));
    free(text);
}

static void test_show_round_trips(void **state)
{
    (void)state;
    for (size_t i = 0; gpuest_preset_names[i]; i++) {
        gpuest_config_t cfg;
        load_preset(&cfg, gpuest_preset_names[i]);
        round_trip(&cfg);
    }
    /* A modified machine with an explicit placement and awkward doubles. */
    gpuest_config_t cfg;
    gpuest_error_t err = {0};
    load_preset(&cfg, "mesh56");
    assert_int_equal(gpuest_config_set(&cfg, "noc.mc_placement=list", NULL, &err), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "noc.mc_nodes=3,15,17,29,36,47,49,61", NULL, &err), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "core.clock_mhz=1400.1", NULL, &err), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "technique.compression=dsm_approx", NULL, &err), GPUEST_OK);
    assert_int_equal(gpuest_config_set(&cfg, "technique.approx_bits=12", NULL, &err), GPUEST_OK);
    assert_int_equal(gpuest_config_validate(&cfg, &err), GPUEST_OK);
    round_trip(&cfg);
}

static void test_set_overrides(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err = {0};
    load_preset(&cfg, "mesh56");
    assert_int_equal(gpuest_config_set(&cfg, "noc.routing_reply=yx", "--set", &err), GPUEST_OK);
    assert_int_equal(cfg.noc.routing_reply, GPUEST_ROUTE_YX);
    assert_int_equal(gpuest_config_set(&cfg, "l1.size_bytes=32768", "--set", &err), GPUEST_OK);
    assert_int_equal(cfg.l1.size_bytes, 32768);
    const char *ini = "[preset]\nname = mesh28\n[noc]\nvcs = 2\n";
    assert_int_equal(gpuest_config_load_string(&cfg, ini, "x.ini", &err), GPUEST_OK);
    assert_int_equal(cfg.core.num_sms, 28);
    assert_int_equal(cfg.noc.vcs, 2);
    assert_int_equal(cfg.l1.size_bytes, 16384); /* the preset replaced the earlier override */
}

/* Node maps: bottom row of an 8x8 mesh, GPGPU-Sim's list, SMs fill the rest. */
static void test_node_maps(void **state)
{
    (void)state;
    gpuest_config_t cfg;
    gpuest_error_t err = {0};
    int mcs[GPUEST_MAX_MCS], sms[1024];
    load_preset(&cfg, "mesh56");
    assert_int_equal(gpuest_config_mc_nodes(&cfg, mcs, &err), GPUEST_OK);
    for (int i = 0; i < 8; i++)
        assert_int_equal(mcs[i], 56 + i);
    assert_int_equal(gpuest_config_sm_nodes(&cfg, sms, &err), GPUEST_OK);
    for (int i = 0; i < 56; i++)
        assert_int_equal(sms[i], i);
    load_preset(&cfg, "mesh28"); /* top_bottom: 4 MCs on each of rows 0 and 5 of a 6x6 mesh */
    assert_int_equal(gpuest_config_mc_nodes(&cfg, mcs, &err), GPUEST_OK);
    int expect28[] = {0, 2, 3, 5, 30, 32, 33, 35}; /* floor((i + 0.5) * 6 / 4) = 0, 2, 3, 5 */
    for (int i = 0; i < 8; i++)
        assert_int_equal(mcs[i], expect28[i]);
    assert_int_equal(gpuest_config_sm_nodes(&cfg, sms, &err), GPUEST_OK);
    assert_int_equal(sms[0], 1);
    assert_int_equal(sms[27], 34);
    /* Interleaving: 256-byte chunks round robin over the MCs. */
    assert_int_equal(gpuest_config_mc_of_address(&cfg, 0), 0);
    assert_int_equal(gpuest_config_mc_of_address(&cfg, 255), 0);
    assert_int_equal(gpuest_config_mc_of_address(&cfg, 256), 1);
    assert_int_equal(gpuest_config_mc_of_address(&cfg, 256 * 8 + 5), 0);
    for (const char *p = "edge"; p; p = strcmp(p, "edge") == 0 ? "diamond" : NULL) {
        char set[64];
        snprintf(set, sizeof set, "noc.mc_placement=%s", p);
        load_preset(&cfg, "mesh56");
        assert_int_equal(gpuest_config_set(&cfg, set, NULL, &err), GPUEST_OK);
        if (gpuest_config_validate(&cfg, &err) != GPUEST_OK)
            fail_msg("%s: %s", p, err.msg);
    }
    /* Diamond on 8x8: every MC on the ring |r-3.5|+|c-3.5| in [3, 4]. */
    assert_int_equal(gpuest_config_mc_nodes(&cfg, mcs, &err), GPUEST_OK);
    for (int i = 0; i < 8; i++) {
        double r = mcs[i] / 8, c = mcs[i] % 8;
        double d = (r > 3.5 ? r - 3.5 : 3.5 - r) + (c > 3.5 ? c - 3.5 : 3.5 - c);
        assert_true(d >= 3.0 && d <= 4.0);
    }
}

/* One bad input: INI text (or an override), expected status, message fragments. */
typedef struct {
    const char *ini;
    const char *set;
    gpuest_err code;
    const char *fragment1;
    const char *fragment2;
} bad_case;

static const bad_case bad_cases[] = {
    {"[l1]\nsize_byte = 1024\n", NULL, GPUEST_ENOKEY, "bad.ini:2", "did you mean 'l1.size_bytes'"},
    {"[cache]\nassoc = 4\n", NULL, GPUEST_ENOKEY, "unknown section [cache]", "bad.ini:1"},
    {"[l1]\nassoc = four\n", NULL, GPUEST_EINVAL, "bad.ini:2", "not an integer"},
    {"[l1]\nassoc = 0\n", NULL, GPUEST_ERANGE, "bad.ini:2", "allowed 1..64"},
    {"[core]\nclock_mhz = fast\n", NULL, GPUEST_EINVAL, "bad.ini:2", "not a number"},
    {"[noc]\ntopology = torus\n", NULL, GPUEST_EINVAL, "bad.ini:2", "expected one of: mesh, crossbar"},
    {"[noc]\nvcs\n", NULL, GPUEST_EPARSE, "bad.ini:2", "malformed line"},
    {"[preset]\nname = kepler\n", NULL, GPUEST_ENOKEY, "bad.ini:2", "valid presets"},
    {"[noc]\nk = 4\n[preset]\nname = mesh56\n", NULL, GPUEST_EINVAL, "bad.ini:4", "must come before"},
    {"; comment\n[l1]\nsize_bytes = 10000\n", NULL, GPUEST_EINVAL, "bad.ini:3", "not divisible"},
    {"[mc]\nnum_mcs = 40\n", NULL, GPUEST_ERANGE, "bad.ini:2", "exceeds the 64 nodes"},
    {"[noc]\nk = 4\n", NULL, GPUEST_ERANGE, "bad.ini:2", "exceeds the 16 nodes"},
    {"[noc]\nmc_placement = list\nmc_nodes = 1,2,3\n", NULL, GPUEST_EINVAL, "bad.ini:2", "lists 3 nodes"},
    {"[noc]\nmc_placement = list\nmc_nodes = 1,2,3,4,5,6,7,7\n", NULL, GPUEST_EINVAL, "bad.ini:3", "listed twice"},
    {"[noc]\nvcs = 1\n", NULL, GPUEST_EINVAL, "bad.ini:2", "at least 2 VCs"},
    {"[dram]\ntRC = 30\n", NULL, GPUEST_EINVAL, "bad.ini:2", "at least tRAS + tRP = 40"},
    {"[technique]\ncompression = zstd\n", NULL, GPUEST_EINVAL, "bad.ini:2", "bdi"},
    {NULL, "l1.assoc", GPUEST_EINVAL, "--set", "section.key=value"},
    {NULL, "l1.ways=2", GPUEST_ENOKEY, "--set", "did you mean 'l1.assoc'"},
    {NULL, "noc.buffer_flits=0", GPUEST_ERANGE, "--set", "allowed 1..1024"},
    {NULL, "l1.assoc=3", GPUEST_EINVAL, "--set: l1.size_bytes = 16384", "l1.assoc = 128 x 3"},
    {NULL, "l2.banks_per_mc=3", GPUEST_EINVAL, "--set: l2.size_per_mc_bytes", "multiples of 3072"},
    {NULL, "technique.approx_bits=8", GPUEST_EINVAL, "--set", "only to compression = dsm_approx"},
};

static void test_bad_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *bc = &bad_cases[i];
        gpuest_config_t cfg;
        gpuest_error_t err = {0};
        load_preset(&cfg, "mesh56");
        gpuest_err rc = bc->ini ? gpuest_config_load_string(&cfg, bc->ini, "bad.ini", &err)
                                : gpuest_config_set(&cfg, bc->set, "--set", &err);
        if (rc == GPUEST_OK)
            rc = gpuest_config_validate(&cfg, &err);
        if (rc != bc->code || !strstr(err.msg, bc->fragment1) || !strstr(err.msg, bc->fragment2))
            fail_msg("case %zu: got %s '%s', want %s with '%s' and '%s'", i, gpuest_errname(rc), err.msg,
                     gpuest_errname(bc->code), bc->fragment1, bc->fragment2);
        assert_int_equal(gpuest_exit_code(rc), 2); /* every bad input exits 2 */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_preset_validates), cmocka_unit_test(test_preset_values_match_documents),
        cmocka_unit_test(test_show_round_trips),       cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_node_maps),              cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
