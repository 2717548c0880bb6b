/* test_l1c_scbook.c: the SC code book of the estimator's L1 walk follows the simulator's period
 * rule (EPs of 256 reads, 10 a period; sampled in the first EP and each EP 9; a new book at their
 * ends, the old book's lines invalidated), on a scripted walk of one SM worked by hand; and the
 * walk's cache dropping exactly the compressed lines of one SM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "technique/technique_int.h"

#define EP 256
#define PERIOD (10 * EP)

static uint8_t line_x[GPUEST_LINE_BYTES], line_y[GPUEST_LINE_BYTES], line_z[GPUEST_LINE_BYTES];

/* 32 words of one value. */
static void fill_words(uint8_t *l, uint32_t v)
{
    for (int i = 0; i < GPUEST_LINE_BYTES; i += 4)
        memcpy(l + i, &v, 4);
}

/* n reads of SM 0, each a miss filling `data` (NULL: hits, nothing filled); returns how many of
 * them signalled an invalidation, and *last whether the n-th did. */
static int reads(tech_scbook_t *b, int n, const uint8_t *data, int *last)
{
    int count = 0, inv = 0;
    gpuest_error_t e = {0};
    for (int i = 0; i < n; i++) {
        assert_int_equal(tech_scbook_read(b, 0, &inv, &e), GPUEST_OK);
        if (data)
            tech_scbook_fill(b, 0, 0, data);
        count += inv;
    }
    *last = inv;
    return count;
}

/* A book of one value X (and the escape: frequency 1, no word of the sample missed the table)
 * is two codes of 1 bit: a line of 32 X words is 32 bits = 4 bytes; a line of another value is 32
 * escapes of 1 + 32 bits = 1056 bits, not below the raw 1024: stored raw (128).
 * The script: period 0, EP 0 fills X lines (raw: no book yet); its end builds book {X} and
 * invalidates nothing (the lines before the first book are raw). EPs 1-8 fill Z (not sampled),
 * EP 9 fills Y (sampled, still raw under {X}); its end builds {Y} and invalidates. Period 1: X and Z
 * now raw, Y 4 bytes; its EP 0 end changes nothing; its EP 9 fills Z, and its end builds {Z}.
 * Fails when the book is built once (Y stays raw), rebuilt every EP, sampled in every EP (Z
 * compresses after period 0), the table is not emptied after a build (X still compresses), the
 * first book invalidates, or a period's book does not invalidate. */
static void test_book_per_period(void **state)
{
    (void)state;
    fill_words(line_x, 0x12345678u);
    fill_words(line_y, 0x9abcdef0u);
    fill_words(line_z, 0x0badf00du);
    tech_scbook_t *b = NULL;
    gpuest_error_t e = {0};
    int last;
    assert_int_equal(tech_scbook_create(1, &b, &e), GPUEST_OK);
    /* period 0, EP 0: no book */
    assert_int_equal(reads(b, EP - 1, line_x, &last), 0);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_x), GPUEST_LINE_BYTES);
    assert_int_equal(reads(b, 1, NULL, &last), 0); /* the first book: nothing to invalidate */
    assert_int_equal(tech_scbook_books(b), 1);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_x), 4);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_y), GPUEST_LINE_BYTES);
    /* EPs 1-8: Z lines, not sampled; no book change (a miss counts before its fill: the fill of
     * an EP's last read belongs to the next EP, so that read fills nothing here) */
    assert_int_equal(reads(b, 8 * EP - 1, line_z, &last), 0);
    assert_int_equal(tech_scbook_books(b), 1);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_x), 4); /* (a fill: probes stay out of EP 9) */
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_z), GPUEST_LINE_BYTES);
    assert_int_equal(reads(b, 1, NULL, &last), 0);
    /* EP 9: Y lines sampled, raw under the old book; the period's last read changes the book */
    assert_int_equal(reads(b, EP - 1, line_y, &last), 0);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_y), GPUEST_LINE_BYTES);
    assert_int_equal(reads(b, 1, NULL, &last), 1);
    assert_int_equal(tech_scbook_books(b), 2);
    /* period 1: only Y compresses */
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_y), 4);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_x), GPUEST_LINE_BYTES);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_z), GPUEST_LINE_BYTES);
    assert_int_equal(reads(b, 9 * EP - 1, line_x, &last), 0); /* EPs 0-8 of period 1: no change */
    assert_int_equal(tech_scbook_books(b), 2);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_y), 4);
    assert_int_equal(reads(b, 1, NULL, &last), 0);
    assert_int_equal(reads(b, EP, line_z, &last), 1); /* EP 9 of period 1: Z sampled, new book */
    assert_true(last);
    assert_int_equal(tech_scbook_books(b), 3);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_z), 4);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_y), GPUEST_LINE_BYTES);
    tech_scbook_destroy(b);
}

/* SMs count their own EPs: SM 1's reads do not move SM 0's period. */
static void test_books_per_sm(void **state)
{
    (void)state;
    fill_words(line_x, 0x12345678u);
    tech_scbook_t *b = NULL;
    gpuest_error_t e = {0};
    int inv;
    assert_int_equal(tech_scbook_create(2, &b, &e), GPUEST_OK);
    for (int i = 0; i < EP; i++) {
        assert_int_equal(tech_scbook_read(b, 1, &inv, &e), GPUEST_OK);
        tech_scbook_fill(b, 1, 0, line_x);
    }
    assert_int_equal(tech_scbook_fill(b, 1, 0, line_x), 4);
    assert_int_equal(tech_scbook_fill(b, 0, 0, line_x), GPUEST_LINE_BYTES); /* SM 0: no book yet */
    tech_scbook_destroy(b);
}

/* One SM's lines stored in fewer than 128 bytes go, its raw lines and other SMs' lines stay. Two
 * raw ways a set (8 tags, 8 sub-blocks): A 32 B, B 128 B, C 64 B in SM 0's set 0, D 32 B in SM 1's.
 * Fails when raw lines are dropped, compressed ones kept, or another SM is touched. */
static void test_invalidate_compressed(void **state)
{
    (void)state;
    tech_l1cm_cache_t *c = NULL;
    gpuest_error_t e = {0};
    int hc;
    assert_int_equal(tech_l1cm_create(2, 1, 2, &c, &e), GPUEST_OK);
    assert_int_equal(tech_l1cm_access(c, 0, 0, 32, &hc), 0);
    assert_int_equal(tech_l1cm_access(c, 0, 128, 128, &hc), 0);
    assert_int_equal(tech_l1cm_access(c, 0, 256, 64, &hc), 0);
    assert_int_equal(tech_l1cm_access(c, 1, 0, 32, &hc), 0);
    tech_l1cm_invalidate_compressed(c, 0);
    assert_false(tech_l1cm_holds(c, 0, 0));
    assert_true(tech_l1cm_holds(c, 0, 128));
    assert_false(tech_l1cm_holds(c, 0, 256));
    assert_true(tech_l1cm_holds(c, 1, 0));
    tech_l1cm_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_book_per_period), cmocka_unit_test(test_books_per_sm),
                                       cmocka_unit_test(test_invalidate_compressed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
