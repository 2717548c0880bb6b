/* test_traces.c: Accel-Sim reader on the real vectoradd trace and hand-written lines, native CSV format, malformed input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run_program.h"
#include "wl_testutil.h"

#define TMP GPUEST_BINARY_DIR "/workload_test_tmp"

/* ------------------------------------------------------------ vectoradd facts (data/reference/traces/README.md) */

typedef struct {
    int insts[32];
    int mem[32];
    int fadd[32]; /* FADD R0 <- R2, R4: the loaded values */
    int errors;
} va_t;

/* Registers as the trace names them: LDG R4 <- [R4], LDG R2 <- [R2], STG [R6] <- R0. */
static int va_regs_ok(const gpuest_inst_t *in, int k)
{
    static const int nd[3] = {1, 1, 0}, d[3] = {4, 2, 0}, ns[3] = {1, 1, 2}, s0[3] = {4, 2, 6}, s1[3] = {0, 0, 0};
    return in->ndst == nd[k] && (nd[k] == 0 || in->dst[0] == d[k]) && in->nsrc == ns[k] && in->src[0] == s0[k] &&
           (ns[k] < 2 || in->src[1] == s1[k]);
}

static int va_inst(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp, const gpuest_inst_t *in)
{
    (void)l, (void)cta;
    va_t *v = ctx;
    v->insts[warp]++;
    if (in->kind == GPUEST_INST_COMPUTE && in->ndst == 1 && in->dst[0] == 0 && in->nsrc == 2 && in->src[0] == 2 &&
        in->src[1] == 4)
        v->fadd[warp]++;
    if (in->kind == GPUEST_INST_COMPUTE && in->nsrc > 0 && in->src[in->nsrc - 1] == GPUEST_REG_ZERO)
        v->errors++; /* RZ carries no dependence */
    if (in->kind != GPUEST_INST_MEM)
        return 0;
    /* two LDG.E.CG and one STG.E, 4 bytes per lane, at base + 0x80 w (+0x200, +0x400) */
    static const uint64_t off[3] = {0, 0x200, 0x400};
    static const gpuest_mem_op_t op[3] = {GPUEST_MEM_LOAD, GPUEST_MEM_LOAD, GPUEST_MEM_STORE};
    int k = v->mem[warp]++;
    if (k >= 3 || in->size != 4 || in->op != op[k] || !va_regs_ok(in, k)) {
        v->errors++;
        return 0;
    }
    uint32_t mask = warp == 3 ? 0xfu : 0xffffffffu;
    if (in->active_mask != mask)
        v->errors++;
    gpuest_line_req_t r[GPUEST_COALESCE_MAX];
    size_t n = gpuest_coalesce(in, r);
    if (n != 1 || r[0].line != 0x7fd165500000ull + 0x80u * warp + off[k] || r[0].sectors != (warp == 3 ? 0x1 : 0xF))
        v->errors++;
    for (int lane = 0; lane < 32; lane++)
        if ((mask >> lane & 1) && in->addr[lane] != 0x7fd165500000ull + 0x80u * warp + off[k] + 4u * lane)
            v->errors++;
    return 0;
}

static void test_vectoradd(void **state)
{
    (void)state;
    gpuest_workload_t *wl;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_accelsim(GPUEST_SOURCE_DIR "/data/reference/traces/vectoradd", &wl, &err);
    if (rc != GPUEST_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, GPUEST_OK);
    assert_non_null(gpuest_workload_warning(wl));
    gpuest_memimg_t *img = gpuest_workload_image(wl);
    assert_int_equal(gpuest_memimg_count(img), 3);
    assert_int_equal(gpuest_memimg_get(img, 1)->base, 0x7fd165500200ull);
    assert_int_equal(gpuest_memimg_get(img, 1)->size, 400);
    assert_int_equal(gpuest_memimg_has_values(img), 0);
    va_t v;
    memset(&v, 0, sizeof v);
    gpuest_launch_t l;
    int done;
    assert_int_equal(gpuest_workload_next_launch(wl, &l, &done, &err), GPUEST_OK);
    assert_int_equal(l.num_ctas, 1);
    assert_int_equal(l.warps_per_cta, 32);
    assert_int_equal(l.regs_per_thread, 8);
    assert_string_equal(l.name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_int_equal(gpuest_workload_end_launch(wl, &err), GPUEST_OK);
    gpuest_workload_destroy(wl);
    assert_int_equal(gpuest_workload_open_accelsim(GPUEST_SOURCE_DIR "/data/reference/traces/vectoradd", &wl, &err),
                     GPUEST_OK);
    assert_int_equal(wlt_run(wl, NULL, va_inst, &v), 1);
    assert_int_equal(v.errors, 0);
    int with23 = 0, with9 = 0;
    for (int w = 0; w < 32; w++) {
        with23 += v.insts[w] == 23;
        with9 += v.insts[w] == 9;
        assert_int_equal(v.mem[w], w < 4 ? 3 : 0);
        assert_int_equal(v.fadd[w], w < 4 ? 1 : 0);
    }
    assert_int_equal(with23, 4);
    assert_int_equal(with9, 28);
    gpuest_workload_destroy(wl);
}

/* ------------------------------------------------------------ address modes 0/1/2 */

static const char *kernel_hdr = "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"
                                "-shmem = 0\n-nregs = 10\n-accelsim tracer version = 5\n\n#traces format = x\n\n";

static int modes_inst(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp, const gpuest_inst_t *in)
{
    (void)l;
    gpuest_inst_t *out = ctx;
    if (cta == 1 && warp == 1 && in->kind == GPUEST_INST_MEM)
        out[out[3].pc++] = *in;
    return 0;
}

static void test_address_modes(void **state)
{
    (void)state;
    mkdir(TMP, 0755);
    mkdir(TMP "/modes", 0755);
    test_write_text(TMP "/modes/kernelslist.g", "cudaMalloc,whatever\nMemcpyHtoD,0x0000000500000000,4096\n\nkernel-1.traceg\n");
    char body[4096];
    snprintf(body, sizeof body,
             "%s#BEGIN_TB\nthread block = 1,0,0\ncluster id = 0,0,0\nwarp = 1\ninsts = 4\n"
             "0010 00000005 1 R4 LDG.E.64 1 R2 8 0 0x0000000500000100 0x0000000500000400 \n"
             "0018 000000f0 0 STG.E 2 R6 R0 4 1 0x500000200 -4 7\n"
             "0020 00000013 1 R1 ATOMG.E.ADD 2 R2 R3 4 2 0x500000000 128 -64\n"
             "0028 ffffffff 0 BAR.SYNC 0 0\n#END_TB\n",
             kernel_hdr);
    test_write_text(TMP "/modes/kernel-1.traceg", body);
    gpuest_workload_t *wl;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_accelsim(TMP "/modes", &wl, &err);
    if (rc != GPUEST_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, GPUEST_OK);
    gpuest_inst_t got[4];
    memset(got, 0, sizeof got);
    assert_int_equal(wlt_run(wl, NULL, modes_inst, got), 1);
    assert_int_equal(got[3].pc, 3);
    /* mode 0: lanes 0 and 2 listed */
    assert_int_equal(got[0].size, 8);
    assert_int_equal(got[0].addr[0], 0x500000100ull);
    assert_int_equal(got[0].addr[2], 0x500000400ull);
    assert_int_equal(got[0].addr[1], 0);
    /* mode 1: lanes 4..7 = base - 4k (trailing immediate ignored) */
    assert_int_equal(got[1].op, GPUEST_MEM_STORE);
    for (int k = 0; k < 4; k++)
        assert_int_equal(got[1].addr[4 + k], 0x500000200ull - 4u * k);
    /* mode 2: lanes 0, 1, 4 = base, +128, -64 from the previous */
    assert_int_equal(got[2].op, GPUEST_MEM_ATOMIC);
    assert_int_equal(got[2].addr[0], 0x500000000ull);
    assert_int_equal(got[2].addr[1], 0x500000080ull);
    assert_int_equal(got[2].addr[4], 0x500000040ull);
    gpuest_workload_destroy(wl);
}

/* ------------------------------------------------------------ malformed Accel-Sim input */

static void expect_bad_trace(const char *line, const char *field)
{
    char body[4096];
    snprintf(body, sizeof body, "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
             "0008 ffffffff 1 R1 MOV 0 0\n%s\n#END_TB\n", kernel_hdr, line);
    test_write_text(TMP "/bad/kernel-1.traceg", body);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_accelsim(TMP "/bad", &wl, &err);
    assert_int_equal(rc, GPUEST_EPARSE);
    assert_null(wl);
    /* names the file, the line (the bad line is line 16) and the field */
    assert_non_null(strstr(err.msg, "kernel-1.traceg:16"));
    if (!strstr(err.msg, field))
        fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, field);
    assert_non_null(strstr(err.msg, field));
}

static void test_malformed_accelsim(void **state)
{
    (void)state;
    mkdir(TMP, 0755);
    mkdir(TMP "/bad", 0755);
    test_write_text(TMP "/bad/kernelslist.g", "kernel-1.traceg\n");
    expect_bad_trace("00zz ffffffff 0 EXIT 0 0", "'PC'");
    expect_bad_trace("0010 fffffffff0 0 EXIT 0 0", "'mask'");
    expect_bad_trace("0010 ffffffff 1 R4 LDG.E 1 R2 4 3 0x10 4", "'address mode'");
    expect_bad_trace("0010 00000007 1 R4 LDG.E 1 R2 4 0 0x10 0x20", "'address'");
    expect_bad_trace("0010 00000007 1 R4 LDG.E 1 R2 4 2 0x10 4 x", "'delta'");
    expect_bad_trace("0010 00000007 1 R4 LDG.E 1 R2 4 1 0x10", "'stride'");
    expect_bad_trace("0010 00000007 1 R4 LDG.E 1 R2 12 1 0x10 4", "'mem_width'");
    expect_bad_trace("warp = 1", "'insts'");   /* warp 0 announced 2 instructions, has 1 */
}


/* Every truncation of the real trace either loads or fails with EPARSE naming the file; nothing
 * crashes and nothing partial is returned. */
static void test_truncated_traces(void **state)
{
    (void)state;
    unsigned char *data;
    size_t size;
    gpuest_error_t err;
    assert_int_equal(gpuest_read_file(GPUEST_SOURCE_DIR "/data/reference/traces/vectoradd/kernel-1.traceg", &data,
                                      &size, &err),
                     GPUEST_OK);
    mkdir(TMP, 0755);
    mkdir(TMP "/trunc", 0755);
    test_write_text(TMP "/trunc/kernelslist.g", "MemcpyHtoD,0x00007fd165500000,400\nkernel-1.traceg\n");
    int ok = 0, bad = 0;
    for (size_t cut = 0; cut <= size; cut += 7) {
        FILE *f = fopen(TMP "/trunc/kernel-1.traceg", "wb");
        assert_non_null(f);
        fwrite(data, 1, cut, f);
        fclose(f);
        gpuest_workload_t *wl = NULL;
        gpuest_err rc = gpuest_workload_open_accelsim(TMP "/trunc", &wl, &err);
        if (rc == GPUEST_OK) {
            ok++;
            gpuest_workload_destroy(wl);
        } else {
            bad++;
            assert_int_equal(rc, GPUEST_EPARSE);
            assert_null(wl);
            assert_non_null(strstr(err.msg, "kernel-1.traceg"));
        }
    }
    assert_true(bad > 0);
    free(data);
}

/* ------------------------------------------------------------ native CSV: round trip and malformed rows */

static void test_csv_round_trip(void **state)
{
    (void)state;
    mkdir(TMP, 0755);
    const char *names[] = {"hotspot", "bfs", "btree"};
    for (int i = 0; i < 3; i++) {
        gpuest_error_t err;
        gpuest_workload_t *src = wlt_create(names[i], 3), *ref = wlt_create(names[i], 3);
        assert_int_equal(gpuest_workload_write_csv(src, TMP "/rt.csv", TMP "/rt.img", &err), GPUEST_OK);
        gpuest_workload_t *back;
        gpuest_err rc = gpuest_workload_open_csv(TMP "/rt.csv", TMP "/rt.img", &back, &err);
        if (rc != GPUEST_OK)
            fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, GPUEST_OK);
        assert_null(gpuest_workload_warning(back));
        /* same allocations and initial contents */
        gpuest_memimg_t *a = gpuest_workload_image(ref), *b = gpuest_workload_image(back);
        assert_int_equal(gpuest_memimg_count(a), gpuest_memimg_count(b));
        for (size_t k = 0; k < gpuest_memimg_count(a); k++) {
            const gpuest_alloc_t *x = gpuest_memimg_get(a, k), *y = gpuest_memimg_get(b, k);
            assert_string_equal(x->name, y->name);
            assert_int_equal(x->base, y->base);
            assert_int_equal(x->size, y->size);
            assert_int_equal(x->type, y->type);
            assert_int_equal(x->approx_bits, y->approx_bits);
            assert_memory_equal(x->data, y->data, x->size);
        }
        /* same instruction stream, bit for bit */
        wlt_hash_t h1 = {1, 0}, h2 = {1, 0};
        int n1 = wlt_run(ref, NULL, wlt_hash_inst, &h1), n2 = wlt_run(back, NULL, wlt_hash_inst, &h2);
        assert_true(n1 > 0);
        assert_int_equal(n1, n2);
        assert_int_equal(h1.count, h2.count);
        assert_true(h1.hash == h2.hash);
        gpuest_workload_destroy(src);
        gpuest_workload_destroy(ref);
        gpuest_workload_destroy(back);
    }
}

static void expect_bad_csv(const char *row, int line, const char *field)
{
    char body[2048];
    snprintf(body, sizeof body, "gpuest_trace,1\nalloc,x,0x1000,256,fp32,0\nkernel,0,k,2,1,1,64,1,1,0,8\n"
                                "inst,0,1,1,4,load,4,00000003,0x1000 0x1004\n%s\n", row);
    test_write_text(TMP "/bad.csv", body);
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_csv(TMP "/bad.csv", NULL, &wl, &err);
    assert_int_not_equal(rc, GPUEST_OK);
    assert_null(wl);
    char where[64];
    snprintf(where, sizeof where, "bad.csv:%d", line);
    if (!strstr(err.msg, where) || !strstr(err.msg, field))
        fprintf(stderr, "message '%s' lacks '%s' or '%s'\n", err.msg, where, field);
    assert_non_null(strstr(err.msg, where));
    assert_non_null(strstr(err.msg, field));
}

static void test_malformed_csv(void **state)
{
    (void)state;
    mkdir(TMP, 0755);
    /* the good prefix alone loads, without values: a warning */
    test_write_text(TMP "/good.csv", "gpuest_trace,1\nkernel,0,k,1,1,1,32,1,1,0,8\ninst,0,0,0,4,alu,0,ffffffff,\n");
    gpuest_workload_t *wl;
    gpuest_error_t err;
    assert_int_equal(gpuest_workload_open_csv(TMP "/good.csv", NULL, &wl, &err), GPUEST_OK);
    assert_non_null(gpuest_workload_warning(wl));
    gpuest_workload_destroy(wl);
    expect_bad_csv("inst,0,2,0,4,load,4,1,0x10", 5, "'cta'");
    expect_bad_csv("inst,0,1,2,4,load,4,1,0x10", 5, "'warp'");
    expect_bad_csv("inst,0,1,1,4,lod,4,1,0x10", 5, "'kind'");
    expect_bad_csv("inst,0,1,1,4,load,3,1,0x10", 5, "'size'");
    expect_bad_csv("inst,0,1,1,4,load,4,3,0x10", 5, "'addresses'");
    expect_bad_csv("inst,0,1,1,4,load,4,1,0x10 0x20", 5, "'addresses'");
    expect_bad_csv("inst,1,0,0,4,load,4,1,0x10", 5, "'launch'");
    expect_bad_csv("kernel,2,k,1,1,1,32,1,1,0,8", 5, "'launch'");
    expect_bad_csv("kernel,1,k,1,0,1,32,1,1,0,8", 5, "'grid_y'");
    expect_bad_csv("alloc,y,0x1080,16,fp32,0", 5, "overlaps");
    expect_bad_csv("alloc,y,0x2000,16,float,0", 5, "'type'");
    expect_bad_csv("frob,1", 5, "'record'");
    /* an image file of the wrong size is refused */
    test_write_text(TMP "/short.img", "abc");
    test_write_text(TMP "/img.csv", "gpuest_trace,1\nalloc,x,0x1000,256,fp32,0\nkernel,0,k,1,1,1,32,1,1,0,8\n");
    assert_int_equal(gpuest_workload_open_csv(TMP "/img.csv", TMP "/short.img", &wl, &err), GPUEST_EPARSE);
    assert_non_null(strstr(err.msg, "short.img"));
}

/* Version 2 rows carry registers (and constant reads their offsets); bad ones name the field. */
static int v2_inst(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp, const gpuest_inst_t *in)
{
    (void)l, (void)cta, (void)warp;
    gpuest_inst_t *out = ctx;
    if (out[2].pc < 2)
        out[out[2].pc++] = *in;
    return 0;
}

static void test_csv_v2(void **state)
{
    (void)state;
    mkdir(TMP, 0755);
    test_write_text(TMP "/v2.csv", "gpuest_trace,2\nkernel,0,k,1,1,1,32,1,1,0,8\n"
                                   "inst,0,0,0,8,const,4,00000003,0x40 0x40,7,\n"
                                   "inst,0,0,0,16,alu,0,ffffffff,,3,7 1\n");
    gpuest_workload_t *wl;
    gpuest_error_t err;
    assert_int_equal(gpuest_workload_open_csv(TMP "/v2.csv", NULL, &wl, &err), GPUEST_OK);
    gpuest_inst_t got[3];
    memset(got, 0, sizeof got);
    assert_int_equal(wlt_run(wl, NULL, v2_inst, got), 1); /* launches */
    assert_int_equal(got[2].pc, 2);
    assert_int_equal(got[0].lat, GPUEST_LAT_CONST);
    assert_int_equal(got[0].size, 4);
    assert_true(gpuest_inst_has_addr(&got[0]));
    assert_int_equal(got[0].addr[1], 0x40);
    assert_int_equal(got[0].ndst, 1);
    assert_int_equal(got[0].dst[0], 7);
    assert_int_equal(got[0].nsrc, 0);
    assert_int_equal(got[1].ndst, 1);
    assert_int_equal(got[1].dst[0], 3);
    assert_int_equal(got[1].nsrc, 2);
    assert_int_equal(got[1].src[0], 7);
    assert_int_equal(got[1].src[1], 1);
    gpuest_workload_destroy(wl);
    const char *bad[][2] = {{"inst,0,0,0,8,alu,0,ffffffff,,256,", "'dst'"},
                            {"inst,0,0,0,8,alu,0,ffffffff,,1 2 3,", "'dst'"},
                            {"inst,0,0,0,8,alu,0,ffffffff,,,1 2 3 4 5", "'src'"},
                            {"inst,0,0,0,8,alu,0,ffffffff,", "'record'"},
                            {"inst,0,0,0,8,const,3,00000001,0x40,,", "'size'"}};
    for (int i = 0; i < 5; i++) {
        char body[512];
        snprintf(body, sizeof body, "gpuest_trace,2\nkernel,0,k,1,1,1,32,1,1,0,8\n%s\n", bad[i][0]);
        test_write_text(TMP "/v2bad.csv", body);
        wl = NULL;
        assert_int_equal(gpuest_workload_open_csv(TMP "/v2bad.csv", NULL, &wl, &err), GPUEST_EPARSE);
        assert_null(wl);
        if (!strstr(err.msg, bad[i][1]) || !strstr(err.msg, "v2bad.csv:3"))
            fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, bad[i][1]);
        assert_non_null(strstr(err.msg, bad[i][1]));
        assert_non_null(strstr(err.msg, "v2bad.csv:3"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectoradd),
        cmocka_unit_test(test_address_modes),
        cmocka_unit_test(test_malformed_accelsim),
        cmocka_unit_test(test_truncated_traces),
        cmocka_unit_test(test_csv_round_trip),
        cmocka_unit_test(test_malformed_csv),
        cmocka_unit_test(test_csv_v2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
