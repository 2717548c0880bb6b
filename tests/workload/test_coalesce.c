/* test_coalesce.c: the coalescer's line requests and sector masks for standard patterns, worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "workload/workload.h"

static gpuest_inst_t mem_inst(uint32_t size, uint32_t mask)
{
    gpuest_inst_t in;
    memset(&in, 0, sizeof in);
    in.kind = GPUEST_INST_MEM;
    in.op = GPUEST_MEM_LOAD;
    in.size = size;
    in.active_mask = mask;
    return in;
}

/* 32 lanes x 4 bytes from an aligned base: one line, all four sectors. */
static void test_unit_stride(void **state)
{
    (void)state;
    gpuest_inst_t in = mem_inst(4, 0xffffffffu);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x1000 + 4u * k;
    gpuest_line_req_t r[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&in, r), 1);
    assert_int_equal(r[0].line, 0x1000);
    assert_int_equal(r[0].sectors, 0xF);
    assert_int_equal(r[0].lanes, 0xffffffffu);
    /* shifted by 4 bytes: lanes 0..30 in line 0x1000 (bytes 4..127), lane 31 in 0x1080 sector 0 */
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x1004 + 4u * k;
    assert_int_equal(gpuest_coalesce(&in, r), 2);
    assert_int_equal(r[0].line, 0x1000);
    assert_int_equal(r[0].sectors, 0xF);
    assert_int_equal(r[0].lanes, 0x7fffffffu);
    assert_int_equal(r[1].line, 0x1080);
    assert_int_equal(r[1].sectors, 0x1);
    assert_int_equal(r[1].lanes, 0x80000000u);
    /* half the lanes active (0..7): bytes 0..31 -> one sector */
    in = mem_inst(4, 0xffu);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x2000 + 4u * k;
    assert_int_equal(gpuest_coalesce(&in, r), 1);
    assert_int_equal(r[0].sectors, 0x1);
}

/* Stride 2 words: lanes cover 256 bytes -> two lines, every sector touched. */
static void test_stride_two(void **state)
{
    (void)state;
    gpuest_inst_t in = mem_inst(4, 0xffffffffu);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x4000 + 8u * k;
    gpuest_line_req_t r[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&in, r), 2);
    assert_int_equal(r[0].line, 0x4000);
    assert_int_equal(r[0].lanes, 0x0000ffffu);
    assert_int_equal(r[0].sectors, 0xF);
    assert_int_equal(r[1].line, 0x4080);
    assert_int_equal(r[1].lanes, 0xffff0000u);
    /* stride 32 bytes with 1-byte accesses: 4 lanes per line, one byte per sector */
    in = mem_inst(1, 0xffffffffu);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x8000 + 32u * k;
    assert_int_equal(gpuest_coalesce(&in, r), 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(r[i].line, 0x8000 + 128u * i);
        assert_int_equal(r[i].sectors, 0xF);
        assert_int_equal(r[i].lanes, 0xFu << (4 * i));
    }
    /* stride 128 (a column walk): one request per lane, a single sector each */
    in = mem_inst(4, 0xffffffffu);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x10000 + 128u * k + 36;
    assert_int_equal(gpuest_coalesce(&in, r), 32);
    assert_int_equal(r[5].line, 0x10000 + 128u * 5);
    assert_int_equal(r[5].sectors, 0x2);
}

/* Scattered lanes, repeats merged, order of first touch kept, straddling access split. */
static void test_scattered(void **state)
{
    (void)state;
    gpuest_inst_t in = mem_inst(4, 0);
    const uint64_t a[6] = {0x9064, 0x100, 0x9000, 0x17c, 0x500fe, 0x100};
    for (int k = 0; k < 6; k++) {
        in.addr[k * 3] = a[k];
        in.active_mask |= 1u << (k * 3);
    }
    gpuest_line_req_t r[GPUEST_COALESCE_MAX];
    size_t n = gpuest_coalesce(&in, r);
    assert_int_equal(n, 4);
    assert_int_equal(r[0].line, 0x9000);   /* 0x9064: byte 100 -> sector 3; 0x9000 -> sector 0 */
    assert_int_equal(r[0].sectors, 0x9);
    assert_int_equal(r[0].lanes, (1u << 0) | (1u << 6));
    assert_int_equal(r[1].line, 0x100);    /* bytes 0..3 (sector 0) and 124..127 (sector 3) */
    assert_int_equal(r[1].sectors, 0x9);
    assert_int_equal(r[1].lanes, (1u << 3) | (1u << 9) | (1u << 15));
    assert_int_equal(r[2].line, 0x50080);  /* 0x500fe..0x50101 straddles: bytes 126,127 here ... */
    assert_int_equal(r[2].sectors, 0x8);
    assert_int_equal(r[3].line, 0x50100);  /* ... and bytes 0,1 of the next line */
    assert_int_equal(r[3].sectors, 0x1);
    /* inactive lanes are ignored even if their address is set; empty mask gives nothing */
    in.active_mask = 0;
    assert_int_equal(gpuest_coalesce(&in, r), 0);
    in.kind = GPUEST_INST_COMPUTE;
    in.active_mask = 1;
    assert_int_equal(gpuest_coalesce(&in, r), 0);
}

/* 8-byte accesses are coalesced per half-warp: a line both halves touch is requested twice. */
static void test_subwarps(void **state)
{
    (void)state;
    gpuest_inst_t in = mem_inst(8, 0xffffffffu);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x2000 + 8u * k;   /* 256 contiguous bytes: half 0 -> line 0x2000, half 1 -> 0x2080 */
    gpuest_line_req_t r[GPUEST_COALESCE_MAX];
    assert_int_equal(gpuest_coalesce(&in, r), 2);
    assert_int_equal(r[0].line, 0x2000);
    assert_int_equal(r[1].line, 0x2080);
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x3000;            /* broadcast: each half-warp asks once */
    assert_int_equal(gpuest_coalesce(&in, r), 2);
    assert_int_equal(r[0].lanes, 0x0000ffffu);
    assert_int_equal(r[1].lanes, 0xffff0000u);
    assert_int_equal(r[0].sectors, 0x1);
    in = mem_inst(16, 0xffffffffu);    /* 16 bytes: quarter-warps of 8 lanes = 128 bytes each */
    for (int k = 0; k < 32; k++)
        in.addr[k] = 0x4000 + 16u * k;
    assert_int_equal(gpuest_coalesce(&in, r), 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(r[i].line, 0x4000 + 128u * i);
        assert_int_equal(r[i].sectors, 0xF);
    }
    assert_int_equal(gpuest_sector_count(0xB), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_stride),
        cmocka_unit_test(test_stride_two),
        cmocka_unit_test(test_scattered),
        cmocka_unit_test(test_subwarps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
