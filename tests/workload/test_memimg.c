/* test_memimg.c: allocations placed like cudaMalloc, line reads across and outside allocations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "workload/workload.h"

static void test_alloc_and_lines(void **state)
{
    (void)state;
    gpuest_memimg_t *img;
    gpuest_error_t err;
    assert_int_equal(gpuest_memimg_create(&img, &err), GPUEST_OK);
    gpuest_alloc_t *a, *b;
    assert_int_equal(gpuest_memimg_alloc(img, "a", GPUEST_DT_INT32, 400, &a, &err), GPUEST_OK);
    assert_int_equal(gpuest_memimg_alloc(img, "b", GPUEST_DT_FP32, 100, &b, &err), GPUEST_OK);
    assert_int_equal(a->base, GPUEST_MEMIMG_BASE);
    assert_int_equal(b->base, GPUEST_MEMIMG_BASE + 512);   /* 400 bytes rounded up to 512 */
    for (int i = 0; i < 100; i++)
        ((int32_t *)(void *)a->data)[i] = i;
    ((float *)(void *)b->data)[0] = 1.5f;
    unsigned char line[128];
    /* line 3 of a: elements 96..99 then zeros (bytes 400..511 are unbacked) */
    const gpuest_alloc_t *owner = gpuest_memimg_read_line(img, a->base + 3 * 128 + 5, line);
    assert_ptr_equal(owner, a);
    int32_t v[32];
    memcpy(v, line, 128);
    assert_int_equal(v[0], 96);
    assert_int_equal(v[3], 99);
    assert_int_equal(v[4], 0);
    assert_ptr_equal(gpuest_memimg_read_line(img, a->base + 4 * 128, line), b);   /* a ends at 400, b starts at 512 */
    assert_null(gpuest_memimg_read_line(img, b->base + 128, line));
    assert_ptr_equal(gpuest_memimg_find(img, b->base + 99), b);
    assert_null(gpuest_memimg_find(img, b->base + 100));
    assert_ptr_equal(gpuest_memimg_find_name(img, "b"), b);
    float f = 0;
    gpuest_memimg_read(img, b->base, &f, 4);
    assert_true(f == 1.5f);
    int32_t w = 77;
    assert_int_equal(gpuest_memimg_write(img, a->base + 8, &w, 4, &err), GPUEST_OK);
    assert_int_equal(((int32_t *)(void *)a->data)[2], 77);
    assert_int_equal(gpuest_memimg_write(img, a->base + 400, &w, 4, &err), GPUEST_ERANGE);
    /* duplicate names and overlaps are refused */
    assert_int_equal(gpuest_memimg_alloc(img, "a", GPUEST_DT_INT32, 4, NULL, &err), GPUEST_EINVAL);
    assert_int_equal(gpuest_memimg_alloc_at(img, "c", GPUEST_DT_BYTES, a->base + 396, 8, NULL, &err), GPUEST_EINVAL);
    assert_int_equal(gpuest_memimg_alloc_at(img, "c", GPUEST_DT_BYTES, a->base + 400, 8, NULL, &err), GPUEST_OK);
    gpuest_memimg_set_approx(b, 12);
    assert_int_equal(b->approximable, 1);
    assert_int_equal(b->approx_bits, 12);
    gpuest_memimg_set_approx(b, 0);
    assert_int_equal(b->approximable, 0);
    assert_int_equal(gpuest_memimg_count(img), 3);
    gpuest_dtype_t t;
    assert_int_equal(gpuest_dtype_parse("fp64", &t), GPUEST_OK);
    assert_int_equal(t, GPUEST_DT_FP64);
    assert_int_equal(gpuest_dtype_size(t), 8);
    assert_string_equal(gpuest_dtype_name(GPUEST_DT_UINT32), "uint32");
    gpuest_memimg_destroy(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_and_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
