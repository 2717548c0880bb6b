/* test_gemm_result.c: gemm's result at the end of its launch (src/workload/gen_gemm.c, whose loop
 * order was changed for speed in the seventh session) is bit for bit the one the kernel's own loop
 * gives: C[i][j] = BETA C[i][j] then + (ALPHA A[i][k]) B[k][j] for k = 0, 1, ... in float, worked here
 * from PolyBench's initial arrays. A reassociated sum (a partial sum per block of k, a different k
 * order) or a dropped BETA moves low bits of some element, which memcmp sees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workload/workload.h"

static void gemm_tiny_result(void **state)
{
    (void)state;
    gpuest_error_t err;
    gpuest_workload_t *wl = NULL;
    assert_int_equal(gpuest_workload_create("gemm", GPUEST_SCALE_TINY, 3, &wl, &err), GPUEST_OK);
    gpuest_launch_t l;
    int done = 0;
    assert_int_equal(gpuest_workload_next_launch(wl, &l, &done, &err), GPUEST_OK);
    assert_int_equal(done, 0);
    assert_int_equal(gpuest_workload_end_launch(wl, &err), GPUEST_OK);
    gpuest_alloc_t *c = gpuest_memimg_find_name(gpuest_workload_image(wl), "c");
    assert_non_null(c);
    const int64_t n = 64; /* tiny: 64 x 64 x 64 */
    assert_int_equal(c->size, (uint64_t)(n * n) * 4);
    float *want = malloc((size_t)(n * n) * sizeof *want);
    assert_non_null(want);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            float s = (float)(i * j) / (float)n * 2123.0f;
            for (int64_t k = 0; k < n; k++)
                s += 32412.0f * ((float)(i * k) / (float)n) * ((float)(k * j) / (float)n);
            want[i * n + j] = s;
        }
    assert_memory_equal(c->data, want, (size_t)(n * n) * sizeof *want);
    free(want);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_tiny_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
