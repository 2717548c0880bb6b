/* test_registers.c: the default register pattern of generated instructions, checked on real generator streams
 * (docs/workload.md, "Registers of generated instructions"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "wl_testutil.h"

static int reads(const gpuest_inst_t *in, int r)
{
    for (int k = 0; k < in->nsrc; k++)
        if (in->src[k] == r)
            return 1;
    return 0;
}

static int loadlike(const gpuest_inst_t *in)
{
    return (in->kind == GPUEST_INST_MEM && in->op != GPUEST_MEM_STORE) ||
           (in->kind == GPUEST_INST_COMPUTE && in->lat == GPUEST_LAT_CONST);
}

/* Per-warp replay of the rules, counting violations. */
typedef struct {
    uint32_t cta, warp;
    int started;
    int last_alu;      /* latest ALU destination, -1 none */
    int last_load;     /* latest load destination, -1 none */
    int prev_load;     /* the one before */
    int loads;         /* loads seen in this warp */
    int unread;        /* latest load's value not yet read by an ALU instruction */
    gpuest_inst_t prev;
    int errors, chases, uses, checked_loads;
    uint32_t want_pc, want_back; /* a pointer chase to check: pc of the load, loads back */
    uint32_t want_pc2, want_back2;
} rp_t;

static void err_at(rp_t *r, const gpuest_inst_t *in, int line)
{
    if (r->errors++ < 5)
        fprintf(stderr, "# rule at line %d: pc 0x%x kind %d lat %d ndst %d nsrc %d src %d %d %d last_alu %d last_load %d prev %d\n",
                line, in->pc, in->kind, in->lat, in->ndst, in->nsrc, in->src[0], in->src[1], in->src[2], r->last_alu,
                r->last_load, r->prev_load);
}
#define ERR() err_at(r, in, __LINE__) /* counts the violation, shows the first five */

static int on_inst(void *ctx, const gpuest_launch_t *l, uint32_t cta, uint32_t warp, const gpuest_inst_t *in)
{
    (void)l;
    rp_t *r = ctx;
    if (!r->started || r->cta != cta || r->warp != warp) {
        r->started = 1, r->cta = cta, r->warp = warp;
        r->last_alu = r->last_load = r->prev_load = -1;
        r->loads = r->unread = 0;
    }
    for (int k = 0; k < in->nsrc; k++)
        if (in->src[k] == GPUEST_REG_ZERO)
            ERR();
    if (loadlike(in)) {
        /* destinations rotate through R8..R15; the address comes from the latest ALU result */
        if (in->ndst != 1 || in->dst[0] != 8 + r->loads % 8)
            ERR();
        if (r->last_alu >= 0 && !reads(in, r->last_alu))
            ERR();
        uint32_t back = in->pc == r->want_pc ? r->want_back : in->pc == r->want_pc2 ? r->want_back2 : 0;
        if (back) {
            int src = back == 1 ? r->last_load : r->prev_load;
            if (src >= 0) {
                r->chases++;
                if (!reads(in, src))
                    ERR();
            }
        }
        r->checked_loads++;
        r->prev_load = r->last_load;
        r->last_load = in->dst[0];
        r->loads++;
        r->unread = 1;
    } else if (in->kind == GPUEST_INST_COMPUTE && in->lat != GPUEST_LAT_BRANCH) {
        /* the next arithmetic instruction reads the value just loaded */
        if (r->unread) {
            r->uses++;
            if (!reads(in, r->last_load))
                ERR();
        }
        r->unread = 0;
        if (in->ndst != 1 || in->dst[0] < 1 || in->dst[0] > 4)
            ERR();
        r->last_alu = in->dst[0];
    } else if (in->kind == GPUEST_INST_MEM || in->lat == GPUEST_LAT_BRANCH) {
        /* stores and branches read the values not yet read, and write nothing */
        if (r->unread && !reads(in, r->last_load))
            ERR();
        if (in->ndst)
            ERR();
        r->unread = 0;
    } else if (in->kind == GPUEST_INST_BARRIER) {
        if (in->ndst || in->nsrc)
            ERR();
    }
    return 0;
}

static void check(const char *name, uint32_t pc, uint32_t back, uint32_t pc2, uint32_t back2)
{
    gpuest_workload_t *wl = wlt_create(name, 5);
    rp_t r;
    memset(&r, 0, sizeof r);
    r.want_pc = pc, r.want_back = back, r.want_pc2 = pc2, r.want_back2 = back2;
    assert_true(wlt_run(wl, NULL, on_inst, &r) > 0);
    printf("# %s: %d loads, %d loaded values used by the next ALU instruction, %d pointer chases, %d errors\n", name,
           r.checked_loads, r.uses, r.chases, r.errors);
    assert_int_equal(r.errors, 0);
    assert_true(r.checked_loads > 0);
    assert_true(r.uses > 0);
    if (pc)
        assert_true(r.chases > 0);
    gpuest_workload_destroy(wl);
}

/* BFS: visited[edges[i]] reads the edges load's destination (pc 0x48, one load back). */
static void test_bfs(void **st)
{
    (void)st;
    check("bfs", 0x48, 1, 0, 0);
}

/* SpMV: x[cols[j]] reads the cols load, two loads back (val[j] in between). */
static void test_spmv(void **st)
{
    (void)st;
    check("spmv", 0x48, 2, 0, 0);
}

/* Coloring: color[nb] and value[nb] with nb = col[j]. */
static void test_color(void **st)
{
    (void)st;
    check("color", 0x50, 1, 0x60, 2);
}

/* Kernels without pointer chasing follow the same rules. */
static void test_others(void **st)
{
    (void)st;
    const char *names[] = {"gemm", "hotspot", "kmeans", "2dconv", "srad", "backprop", "pvc"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check(names[i], 0, 0, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bfs), cmocka_unit_test(test_spmv),
                                       cmocka_unit_test(test_color), cmocka_unit_test(test_others)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
