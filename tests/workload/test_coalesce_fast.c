/* test_coalesce_fast.c: gpuest_coalesce's one-line fast path (src/workload/coalesce.c, seventh
 * session) gives the requests of the lane loop it short-cuts (gpuest_coalesce_slow), field for field,
 * on seeded instructions of every kind the generators make: broadcasts, contiguous rows, strided and
 * scattered lanes, lanes straddling two lines or two sectors, sparse active masks, sizes 1 to 16. A
 * fast path that took a two-line warp for one line, dropped the second sector of a lane that spans
 * two (checked: that mutant fails), or reported only the lanes it visited differs here.
 * Eighth session: a broadcast or a row with every lane active is named outright (coalesce_shape),
 * its sectors those of the bytes covered; a row from a line's start or middle was added to the
 * patterns so 4-byte rows (gemm's) occur. Checked: a row's sectors taken from its first lane
 * only, or a row accepted when it runs into the next line, fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "workload/workload_int.h"

static void make_inst(gpuest_rng_t *rng, gpuest_inst_t *in)
{
    static const uint8_t sizes[] = {1, 2, 4, 4, 4, 8, 16};
    memset(in, 0, sizeof *in);
    in->kind = GPUEST_INST_MEM;
    in->op = GPUEST_MEM_LOAD;
    in->size = sizes[gpuest_rng_below(rng, sizeof sizes)];
    uint64_t m = gpuest_rng_u64(rng);
    in->active_mask = gpuest_rng_below(rng, 3) == 0 ? (uint32_t)m : 0xFFFFFFFFu;
    if (in->active_mask == 0)
        in->active_mask = 1u << gpuest_rng_below(rng, 32);
    uint64_t base = 0x10000 + gpuest_rng_below(rng, 1 << 20) * in->size;
    int pattern = (int)gpuest_rng_below(rng, 8);
    for (int l = 0; l < GPUEST_WARP_SIZE; l++) {
        uint64_t a;
        switch (pattern) {
        case 0: a = base; break;                                             /* broadcast */
        case 1: a = base + (uint64_t)l * in->size; break;                     /* contiguous */
        case 2: a = base + (uint64_t)l * 4 * in->size; break;                 /* strided */
        case 3: a = (base & ~127ull) + gpuest_rng_below(rng, 128 / in->size) * in->size; break; /* one line, any order */
        case 4: a = base + gpuest_rng_below(rng, 1 << 14) * in->size; break; /* scattered */
        case 5: a = (base & ~127ull) + 126 + (uint64_t)(l % 2) * 64; break;  /* lanes straddling a line */
        case 6: a = (base & ~127ull) + gpuest_rng_below(rng, 129 - in->size); break; /* one line, unaligned:
                                                                                       * a lane may span two sectors */
        default: a = (base & ~127ull) + (base & 64) / 2 + (uint64_t)l * in->size; break; /* a row from a line's
                                                                                        * start or its middle */
        }
        in->addr[l] = a;
    }
}

/* 1 when in is one of coalesce_shape's (eighth session): every lane active, at most 4 bytes, lane
 * l at lane 0's address (row 0: a broadcast) or that plus l x size (row 1), all in one line. */
static int is_shape(const gpuest_inst_t *in, int row)
{
    if (in->active_mask != 0xFFFFFFFFu || in->size > 4)
        return 0;
    for (int l = 0; l < GPUEST_WARP_SIZE; l++)
        if (in->addr[l] != in->addr[0] + (row ? (uint64_t)l * in->size : 0))
            return 0;
    uint64_t last = in->addr[0] + (row ? GPUEST_WARP_SIZE * in->size : in->size) - 1;
    return in->addr[0] / GPUEST_LINE_BYTES == last / GPUEST_LINE_BYTES;
}

static void fast_equals_slow(void **state)
{
    (void)state;
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(17, &rng), GPUEST_OK);
    int one_line = 0, several = 0, shapes = 0, rows4 = 0;
    for (int it = 0; it < 20000; it++) {
        gpuest_inst_t in;
        make_inst(rng, &in);
        gpuest_line_req_t f[GPUEST_COALESCE_MAX], s[GPUEST_COALESCE_MAX];
        size_t nf = gpuest_coalesce(&in, f), ns = gpuest_coalesce_slow(&in, s);
        assert_int_equal(nf, ns);
        for (size_t j = 0; j < nf; j++) {
            assert_true(f[j].line == s[j].line);
            assert_int_equal(f[j].sectors, s[j].sectors);
            assert_int_equal(f[j].lanes, s[j].lanes);
        }
        one_line += nf == 1;
        several += nf > 1;
        shapes += is_shape(&in, 0) || is_shape(&in, 1);
        rows4 += in.size == 4 && is_shape(&in, 1);
    }
    /* both paths were exercised, and the named shapes (coalesce_shape) among the one-line ones,
     * 4-byte rows (gemm's) included */
    assert_true(one_line > 2000);
    assert_true(several > 2000);
    assert_true(shapes > 2000);
    assert_true(rows4 > 200);
    gpuest_rng_destroy(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_equals_slow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
