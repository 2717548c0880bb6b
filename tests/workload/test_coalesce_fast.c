/* test_coalesce_fast.c: gpuest_coalesce's one-line fast path (src/workload/coalesce.c, seventh
 * session) gives the requests of the lane loop it short-cuts (gpuest_coalesce_slow), field for field,
 * on seeded instructions of every kind the generators make: broadcasts, contiguous rows, strided and
 * scattered lanes, lanes straddling two lines or two sectors, sparse active masks, sizes 1 to 16. A
 * fast path that took a two-line warp for one line, dropped the second sector of a lane that spans
 * two (checked: that mutant fails), or reported only the lanes it visited differs here. */
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
    int pattern = (int)gpuest_rng_below(rng, 7);
    for (int l = 0; l < GPUEST_WARP_SIZE; l++) {
        uint64_t a;
        switch (pattern) {
        case 0: a = base; break;                                             /* broadcast */
        case 1: a = base + (uint64_t)l * in->size; break;                     /* contiguous */
        case 2: a = base + (uint64_t)l * 4 * in->size; break;                 /* strided */
        case 3: a = (base & ~127ull) + gpuest_rng_below(rng, 128 / in->size) * in->size; break; /* one line, any order */
        case 4: a = base + gpuest_rng_below(rng, 1 << 14) * in->size; break; /* scattered */
        case 5: a = (base & ~127ull) + 126 + (uint64_t)(l % 2) * 64; break;  /* lanes straddling a line */
        default: a = (base & ~127ull) + gpuest_rng_below(rng, 129 - in->size); break; /* one line, unaligned:
                                                                                       * a lane may span two sectors */
        }
        in->addr[l] = a;
    }
}

static void fast_equals_slow(void **state)
{
    (void)state;
    gpuest_rng_t *rng = NULL;
    assert_int_equal(gpuest_rng_create(17, &rng), GPUEST_OK);
    int one_line = 0, several = 0;
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
    }
    /* both paths were exercised */
    assert_true(one_line > 2000);
    assert_true(several > 2000);
    gpuest_rng_destroy(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_equals_slow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
