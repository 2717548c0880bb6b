/* test_gen_pvc.c: Page View Count generator: byte-serial log reads by hand; distinct views per URL recomputed from the text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gt_util.h"

#define ENTRIES 64

static uint32_t fnv(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Splits the log into lines; returns the count. */
static int lines_of(const char *log, size_t size, const char **line, size_t *len)
{
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i < size; i++)
        if (log[i] == '\n') {
            line[n] = log + start, len[n] = i - start, n++;
            start = i + 1;
        }
    return n;
}

static void test_pvc_counts(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pvc", GPUEST_SCALE_TINY, 1);
    gpuest_alloc_t *la = gpuest_memimg_find_name(gpuest_workload_image(wl), "d_log");
    const char *log = (const char *)la->data;
    const char *line[ENTRIES];
    size_t len[ENTRIES];
    assert_int_equal(lines_of(log, la->size, line, len), ENTRIES);
    /* distinct entries, then distinct views per URL, straight from the text */
    int uniq = 0, nurl = 0, first[ENTRIES], views[ENTRIES];
    uint32_t url[ENTRIES];
    for (int e = 0; e < ENTRIES; e++) {
        assert_true(strncmp(line[e], "http://www.site", 15) == 0);
        int dup = 0;
        for (int f = 0; f < uniq && !dup; f++)
            dup = len[first[f]] == len[e] && memcmp(line[first[f]], line[e], len[e]) == 0;
        if (dup)
            continue;
        first[uniq++] = e;
        size_t ul = (size_t)(strchr(line[e], ' ') - line[e]);
        uint32_t h = fnv(line[e], ul);
        int u;
        for (u = 0; u < nurl && url[u] != h; u++)
            ;
        if (u == nurl)
            url[nurl] = h, views[nurl++] = 0;
        views[u]++;
    }
    assert_true(uniq < ENTRIES);   /* the log has repeated entries */
    assert_true(nurl > 1);
    gt_run_t r;
    gt_run_all(wl, NULL, NULL, &r);
    assert_int_equal(r.nnames, 5);
    assert_string_equal(r.names[0], "MapperCount");
    assert_string_equal(r.names[4], "Reducer");
    assert_int_equal(r.per_name[0], 2);
    assert_int_equal(r.per_name[4], 2);
    int s2 = 1, lg = 0;
    while (s2 < uniq)
        s2 *= 2, lg++;
    assert_int_equal(r.per_name[3], 21 + lg * (lg + 1) / 2);
    assert_int_equal(r.outside, 0);
    const uint32_t *ok = gt_data(wl, "d_outputKeys");
    const int32_t *ov = gt_data(wl, "d_outputVals");
    for (int u = 0; u < nurl; u++) {
        assert_int_equal(ok[u] != 0, 1);
        int found = 0;
        for (int v = 0; v < nurl; v++)
            if (url[v] == ok[u]) {
                assert_int_equal(ov[u], views[v]);
                found = 1;
            }
        assert_true(found);
    }
    gpuest_workload_destroy(wl);
}

/* Pass-1 Mapper, warp 1 (entries 32..63): the psc slot, the int4 record, then
 * one byte per lane per step from each entry's start. */
static void test_pvc_map_addresses(void **state)
{
    (void)state;
    gpuest_workload_t *wl = gt_create("pvc", GPUEST_SCALE_TINY, 1);
    uint64_t logb = gt_base(wl, "d_log"), in = gt_base(wl, "d_inputOffsetSizes");
    const int32_t *rec = gt_data(wl, "d_inputOffsetSizes");
    gt_warp_t w;
    gt_capture(wl, 2, 0, 1, 8, &w);
    assert_string_equal(w.launch.name, "Mapper");
    assert_int_equal(w.mem[1].size, 16);
    assert_int_equal(w.mem[1].addr[0], in + 32 * 16);
    for (int k = 0; k < 32; k++) {
        assert_int_equal(w.mem[2].addr[k], logb + (uint64_t)rec[4 * (32 + k)]);
        assert_int_equal(w.mem[3].addr[k], logb + (uint64_t)rec[4 * (32 + k)] + 1);
    }
    assert_int_equal(w.mem[2].size, 1);
    for (int i = 2; i < w.n; i++)
        gt_check_coalesce(&w.mem[i]);
    /* entry 32 starts where entry 31 ended, plus its newline */
    assert_int_equal(rec[4 * 32], rec[4 * 31] + rec[4 * 31 + 1] + 1);
    gpuest_workload_destroy(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pvc_counts),
        cmocka_unit_test(test_pvc_map_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
