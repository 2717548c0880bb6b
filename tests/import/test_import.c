/* test_import.c: 'gpuest config import' of a GTX480-style GPGPU-Sim configuration, key by key, and its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "import/import.h"
#include "run_program.h"

#define GTX480_DIR GPUEST_SOURCE_DIR "/tests/import/gtx480"
#define GTX480_CONFIG GTX480_DIR "/gpgpusim.config"
#define GTX480_ICNT GTX480_DIR "/config_fermi_islip.icnt"

static char out[1 << 16];

/* Every key the GTX480 files set, its value and the line of the option it comes from
 * (values from GPGPU-Sim's GTX480 configuration; L2 = 64 sets x 128 B x 8 ways per
 * sub-partition x 2 sub-partitions; min DRAM latency = rop 120 + dram 100). */
static const struct {
    const char *key, *value;
    int line;
    int icnt; /* 1: from the interconnect file */
} gtx480_keys[] = {
    {"core.num_sms", "15", 10, 0},
    {"mc.num_mcs", "6", 12, 0},
    {"mc.sub_partitions", "2", 13, 0},
    {"l2.banks_per_mc", "2", 13, 0},
    {"core.clock_mhz", "700", 16, 0},
    {"noc.clock_mhz", "700", 16, 0},
    {"l2.clock_mhz", "700", 16, 0},
    {"dram.clock_mhz", "924", 16, 0},
    {"core.registers_per_sm", "32768", 19, 0},
    {"core.threads_per_sm", "1536", 20, 0},
    {"core.warp_size", "32", 20, 0},
    {"core.warps_per_sm", "48", 20, 0},
    {"core.ctas_per_sm", "8", 21, 0},
    {"core.alu_latency", "4", 28, 0},
    {"l1.size_bytes", "16384", 32, 0},
    {"l1.line_bytes", "128", 32, 0},
    {"l1.assoc", "4", 32, 0},
    {"l1.mshrs", "32", 32, 0},
    {"l1.mshr_merge", "8", 32, 0},
    {"l1.miss_queue", "8", 32, 0},
    {"core.shmem_per_sm", "49152", 33, 0},
    {"l2.size_per_mc_bytes", "131072", 34, 0},
    {"l2.line_bytes", "128", 34, 0},
    {"l2.assoc", "8", 34, 0},
    {"l2.mshrs", "32", 34, 0},
    {"l2.mshr_merge", "4", 34, 0},
    {"core.l1i_size_bytes", "2048", 36, 0},
    {"core.l1i_line_bytes", "128", 36, 0},
    {"core.l1i_assoc", "4", 36, 0},
    {"core.l1c_size_bytes", "8192", 38, 0},
    {"core.l1c_line_bytes", "64", 38, 0},
    {"core.l1c_assoc", "2", 38, 0},
    {"l2.hit_latency", "120", 53, 0},
    {"dram.latency", "100", 54, 0},
    {"dram.min_latency", "220", 54, 0},
    {"dram.scheduler", "frfcfs", 57, 0},
    {"dram.queue_size", "16", 58, 0},
    {"mc.request_queue", "8", 60, 0},
    {"mc.reply_queue", "8", 60, 0},
    {"dram.chips_per_channel", "2", 61, 0},
    {"dram.chip_bytes", "4", 62, 0},
    {"dram.burst_length", "8", 63, 0},
    {"dram.data_rate", "4", 64, 0},
    {"mc.interleave_bytes", "256", 66, 0},
    {"dram.banks", "16", 69, 0},
    {"dram.tCCD", "2", 69, 0},
    {"dram.tRRD", "6", 69, 0},
    {"dram.tRCD", "12", 69, 0},
    {"dram.tRAS", "28", 69, 0},
    {"dram.tRP", "12", 69, 0},
    {"dram.tRC", "40", 69, 0},
    {"dram.tCL", "12", 69, 0},
    {"dram.WL", "4", 69, 0},
    {"dram.tCDLR", "5", 69, 0},
    {"dram.tWR", "12", 69, 0},
    {"dram.bank_groups", "4", 69, 0},
    {"dram.tCCDL", "3", 69, 0},
    {"dram.tRTPL", "2", 69, 0},
    {"core.schedulers_per_sm", "2", 72, 0},
    {"core.scheduler", "gto", 73, 0},
    {"noc.flit_bytes", "32", 4, 1},
    {"noc.topology", "crossbar", 8, 1},
    {"noc.k", "0", 8, 1},
    {"noc.vcs", "1", 14, 1},
    {"noc.buffer_flits", "8", 15, 1},
    {"noc.inject_queue_flits", "256", 16, 1},
    {"noc.eject_queue_flits", "24", 17, 1},
    {"noc.wait_for_tail_credit", "0", 19, 1},
    {"noc.vc_allocator", "islip", 22, 1},
    {"noc.sw_allocator", "islip", 23, 1},
    {"noc.alloc_iters", "1", 24, 1},
    {"noc.credit_delay", "0", 25, 1},
    {"noc.routing_delay", "0", 26, 1},
    {"noc.vc_alloc_delay", "1", 27, 1},
    {"noc.sw_alloc_delay", "1", 28, 1},
    {"noc.class_split", "physical", 39, 1},
};

static const gpuest_import_mapped_t *find_mapped(const gpuest_import_t *imp, const char *key)
{
    for (size_t i = 0; i < gpuest_import_num_mapped(imp); i++)
        if (strcmp(gpuest_import_mapped(imp, i)->key, key) == 0)
            return gpuest_import_mapped(imp, i);
    return NULL;
}

static int is_ignored(const gpuest_import_t *imp, const char *option)
{
    for (size_t i = 0; i < gpuest_import_num_ignored(imp); i++)
        if (strcmp(gpuest_import_ignored(imp, i)->option, option) == 0)
            return 1;
    return 0;
}

/* Each key: the value and the file:line it came from, with the mesh56 base (whose
 * values differ from the GTX480's in num_sms, clocks, topology, flits, L2 size, ...). */
static void test_gtx480_key_by_key(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_import_t *imp = NULL;
    gpuest_err rc = gpuest_import_gpgpusim(GTX480_CONFIG, NULL, "mesh56", &imp, &err);
    if (rc != GPUEST_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(gpuest_import_icnt_path(imp), GTX480_ICNT); /* found beside the config */
    for (size_t i = 0; i < sizeof gtx480_keys / sizeof gtx480_keys[0]; i++) {
        const gpuest_import_mapped_t *m = find_mapped(imp, gtx480_keys[i].key);
        if (!m)
            fail_msg("%s was not mapped", gtx480_keys[i].key);
        if (strcmp(m->value, gtx480_keys[i].value) != 0)
            fail_msg("%s = %s, expected %s", gtx480_keys[i].key, m->value, gtx480_keys[i].value);
        char from[300];
        snprintf(from, sizeof from, "%s:%d ", gtx480_keys[i].icnt ? GTX480_ICNT : GTX480_CONFIG, gtx480_keys[i].line);
        if (strncmp(m->from, from, strlen(from)) != 0)
            fail_msg("%s from '%s', expected '%s...'", gtx480_keys[i].key, m->from, from);
    }
    assert_int_equal(gpuest_import_num_mapped(imp), sizeof gtx480_keys / sizeof gtx480_keys[0]);
    /* the configuration itself, not only the report */
    const gpuest_config_t *c = gpuest_import_config(imp);
    assert_int_equal(c->core.num_sms, 15);
    assert_true(c->core.clock_mhz == 700.0 && c->dram.clock_mhz == 924.0);
    assert_int_equal(c->noc.topology, GPUEST_TOPO_CROSSBAR);
    assert_int_equal(c->noc.class_split, GPUEST_SPLIT_PHYSICAL);
    assert_int_equal(c->l2.size_per_mc_bytes, 131072);
    assert_int_equal(c->dram.tRAS, 28);
    assert_int_equal(c->dram.scheduler, GPUEST_DSCHED_FRFCFS);
    /* what is read but not modelled is listed */
    assert_true(is_ignored(imp, "-gpgpu_tex_cache:l1"));
    assert_true(is_ignored(imp, "-power_simulation_enabled"));
    assert_true(is_ignored(imp, "internal_speedup"));
    assert_true(is_ignored(imp, "-gpgpu_cache:dl1 policies L:L:m:N:H")); /* write policy L is not write-evict */
    assert_false(is_ignored(imp, "-gpgpu_n_mem"));
    assert_false(is_ignored(imp, "-inter_config_file"));
    gpuest_import_free(imp);
}

/* The INI the command writes loads back to the imported configuration. */
static void test_cli_writes_loadable_ini(void **state)
{
    (void)state;
    char path[256], args[1024];
    snprintf(path, sizeof path, "%s/import_gtx480_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "config import %s %s --out %s", GTX480_CONFIG, GTX480_ICNT, path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "76 keys mapped"));
    assert_non_null(strstr(out, "-gpgpu_tex_cache:l1"));
    gpuest_error_t err;
    gpuest_import_t *imp = NULL;
    assert_int_equal(gpuest_import_gpgpusim(GTX480_CONFIG, GTX480_ICNT, "fermi", &imp, &err), GPUEST_OK);
    gpuest_config_t loaded;
    assert_int_equal(gpuest_config_preset(&loaded, "mesh56", &err), GPUEST_OK);
    if (gpuest_config_load_file(&loaded, path, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    assert_true(gpuest_config_equal(&loaded, gpuest_import_config(imp)));
    snprintf(args, sizeof args, "config check %s", path);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    gpuest_import_free(imp);
    unlink(path);
}

/* Writes a config (and optionally an icnt file) and expects exit 2 with `expect`
 * (which names file:line) and no output file. */
static void expect_failure(const char *config_text, const char *icnt_text, const char *expect)
{
    char dir[256], cfg[300], icnt[300], ini[300], args[1200];
    snprintf(dir, sizeof dir, "%s/import_bad_%d", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "mkdir -p %s", dir);
    assert_int_equal(system(args), 0);
    snprintf(cfg, sizeof cfg, "%s/bad.config", dir);
    snprintf(icnt, sizeof icnt, "%s/bad.icnt", dir);
    snprintf(ini, sizeof ini, "%s/out.ini", dir);
    unlink(ini);
    test_write_text(cfg, config_text);
    if (icnt_text)
        test_write_text(icnt, icnt_text);
    snprintf(args, sizeof args, "config import %s %s --out %s", cfg, icnt_text ? icnt : "", ini);
    int rc = run_gpuest(args, out, sizeof out);
    if (rc != 2 || !strstr(out, expect))
        fail_msg("exit %d, output '%s', expected exit 2 and '%s'", rc, out, expect);
    assert_int_equal(access(ini, F_OK), -1); /* nothing half written */
}

static void test_malformed_options_name_file_and_line(void **state)
{
    (void)state;
    expect_failure("-gpgpu_n_mem 6\n\n-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,A:32\n", NULL,
                   "bad.config:3: -gpgpu_cache:dl1 '32:128:4,L:L:m:N:H,A:32': malformed cache string");
    expect_failure("-gpgpu_cache:dl1 32:128:4,Q:L:m:N:H,A:32:8,8\n", NULL, "bad.config:1: -gpgpu_cache:dl1");
    expect_failure("-gpgpu_cache:dl2 64:100:8,L:B:m:W:L,A:32:4,4\n", NULL, "line size 100 is not a power of two");
    expect_failure("# comment\n-gpgpu_n_mem\n-gpgpu_n_clusters 15\n", NULL,
                   "bad.config:2: option -gpgpu_n_mem has no value");
    expect_failure("-gpgpu_n_mem 6 7\n", NULL, "bad.config:1: expected an option '-name value', found '7'");
    expect_failure("-gpgpu_n_mem 6\n-gpgpu_dram_timing_opt \"nbk=16:CCD=2:\n  RRD=6\n", NULL,
                   "bad.config:2: quoted value is never closed");
    expect_failure("-gpgpu_n_mem 6\n-gpgpu_dram_timing_opt \"nbk=16:\n   XYZ=3\"\n", NULL,
                   "bad.config:2: -gpgpu_dram_timing_opt: malformed field 'XYZ=3'");
    expect_failure("-gpgpu_clock_domains 700.0:700.0:924.0\n", NULL, "bad.config:1: -gpgpu_clock_domains");
    expect_failure("-gpgpu_n_clusters 15\n-gpgpu_n_mem 0\n", NULL, "bad.config:2:");
    expect_failure("-gpgpu_scheduler two_level_active:6:0:1\n", NULL, "bad.config:1: -gpgpu_scheduler");
    expect_failure("-gpgpu_n_mem 6\n", "topology = fly;\nk = 27;\nn = 1;\nnum_vcs = 1\n",
                   "bad.icnt:4: statement does not end in ';'");
    expect_failure("-gpgpu_n_mem 6\n", "// torus\ntopology = torus;\nk = 8;\nn = 2;\n",
                   "bad.icnt:2: topology = torus is not modelled");
    expect_failure("-gpgpu_n_mem 6\n", "topology = fly;\nn = 1;\nvc_buf_size = zero;\n",
                   "bad.icnt:3: vc_buf_size = zero: expected an integer");
}

/* Accel-Sim style: sector prefix, extra cache fields, the local crossbar of -network_mode 2. */
static void test_accelsim_style(void **state)
{
    (void)state;
    char dir[256], cfg[300], args[600];
    snprintf(dir, sizeof dir, "%s/import_accel_%d", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(args, sizeof args, "mkdir -p %s", dir);
    assert_int_equal(system(args), 0);
    snprintf(cfg, sizeof cfg, "%s/gpgpusim.config", dir);
    test_write_text(cfg, "-gpgpu_n_clusters 40\n-gpgpu_n_cores_per_cluster 2\n-gpgpu_n_mem 16\n"
                         "-gpgpu_cache:dl1 S:1:128:256,L:T:m:L:L,A:512:8,16:0,32\n"
                         "-gpgpu_l1_latency 20\n-gpgpu_l2_rop_latency 160\n-dram_latency 100\n"
                         "-network_mode 2\n-icnt_flit_size 40\n-icnt_subnets 2\n");
    gpuest_error_t err;
    gpuest_import_t *imp = NULL;
    if (gpuest_import_gpgpusim(cfg, NULL, "fermi", &imp, &err) != GPUEST_OK)
        fail_msg("%s", err.msg);
    const gpuest_config_t *c = gpuest_import_config(imp);
    assert_int_equal(c->core.num_sms, 80);
    assert_int_equal(c->mc.sub_partitions, 1); /* no option: GPGPU-Sim's default, not fermi's 2 */
    assert_int_equal(c->mc.num_mcs, 16);
    assert_int_equal(c->l1.size_bytes, 1 * 128 * 256); /* Volta's 256-way L1: capacity kept */
    assert_int_equal(c->l1.assoc, 64);
    assert_true(is_ignored(imp, "-gpgpu_cache:dl1 (associativity)"));
    assert_int_equal(c->l1.mshrs, 512);
    assert_int_equal(c->l1.miss_queue, 16);
    assert_int_equal(c->l1.hit_latency, 20);
    assert_int_equal(c->l2.hit_latency, 160);
    assert_int_equal(c->dram.min_latency, 260);
    assert_int_equal(c->noc.flit_bytes, 40);
    assert_int_equal(c->noc.topology, GPUEST_TOPO_CROSSBAR);
    assert_true(is_ignored(imp, "-gpgpu_cache:dl1 (fields after the miss queue)"));
    gpuest_import_free(imp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gtx480_key_by_key),
        cmocka_unit_test(test_cli_writes_loadable_ini),
        cmocka_unit_test(test_malformed_options_name_file_and_line),
        cmocka_unit_test(test_accelsim_style),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
