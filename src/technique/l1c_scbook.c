/* l1c_scbook.c: the SC (statistical compression) code book of the estimator's L1 walk, per SM,
 * following the simulator's period rule (src/technique/tech_l1compression.c, docs/latte-cc.md
 * "The organization").
 *
 * An SM's L1 reads are cut into EPs of 256 reads, 10 EPs a period. A value frequency table samples
 * the words of every line filled during the first EP of the first period and during the last EP
 * (EP 9) of every period. At the end of the first EP the first book is built (lines filled before
 * it are stored raw); at the end of every EP 9 a new book is built from that EP's fills, takes over
 * at once, and every line stored with the old book (an SC line) is invalidated. The table is
 * emptied after each build. The counters run over the whole run (an SM's EPs go on across
 * launches, as the simulator's policy state does).
 *
 * The walk has no clock, so a fill is placed at its miss (the simulator's comes a miss latency
 * later): the fill of the read that ends an EP is made after that EP's book change, as the
 * simulator's is (the caller calls tech_scbook_read before sizing a missing line). */
#include <stdlib.h>

#include "compress/compress.h"
#include "technique_int.h"

#define SCB_EP 256    /* L1 reads of an EP */
#define SCB_PERIOD 10 /* EPs of a period */

typedef struct {
    gpuest_sc2_vft_t *vft;
    gpuest_sc2_book_t *book;
    gpuest_codec_t codec; /* bound to book */
    int ready;            /* a book exists */
    int ep_reads, ep;     /* reads in the current EP; EP index in the period */
    uint64_t period;      /* periods started before the current one */
} scb_sm_t;

struct tech_scbook_s {
    int sms;
    scb_sm_t *sm;
    uint64_t books;
};

gpuest_err tech_scbook_create(int sms, tech_scbook_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "SC code book: SMs must be >= 1");
    const gpuest_compress_algo_t *a;
    GPUEST_TRY(gpuest_compress_lookup("sc2", &a, err));
    tech_scbook_t *b = calloc(1, sizeof *b);
    if (b)
        b->sm = calloc((size_t)sms, sizeof *b->sm);
    if (!b || !b->sm) {
        free(b);
        return gpuest_fail(err, GPUEST_ENOMEM, "SC code book: out of memory");
    }
    b->sms = sms;
    for (int i = 0; i < sms; i++) {
        scb_sm_t *s = &b->sm[i];
        gpuest_err rc = gpuest_sc2_vft_create(&s->vft, err);
        if (rc == GPUEST_OK)
            rc = gpuest_sc2_book_create(&s->book, err);
        gpuest_codec_opts_t o = {.line_bytes = GPUEST_LINE_BYTES, .sc2_book = s->book};
        if (rc == GPUEST_OK)
            rc = gpuest_codec_init(&s->codec, a, &o, err);
        if (rc != GPUEST_OK) {
            tech_scbook_destroy(b);
            return rc;
        }
    }
    *out = b;
    return GPUEST_OK;
}

void tech_scbook_destroy(tech_scbook_t *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->sms; i++) {
        gpuest_sc2_vft_destroy(b->sm[i].vft);
        gpuest_sc2_book_destroy(b->sm[i].book);
    }
    free(b->sm);
    free(b);
}

static int samples(const scb_sm_t *s) { return (s->period == 0 && s->ep == 0) || s->ep == SCB_PERIOD - 1; }

int tech_scbook_fill(tech_scbook_t *b, int sm, uint64_t line, const uint8_t *data)
{
    scb_sm_t *s = &b->sm[sm];
    if (samples(s))
        gpuest_sc2_vft_sample(s->vft, data, GPUEST_LINE_BYTES);
    if (!s->ready)
        return GPUEST_LINE_BYTES;
    uint32_t bits = gpuest_codec_size_bits(&s->codec, line, data);
    return gpuest_codec_is_compressed(&s->codec, bits) ? (int)((bits + 7) / 8) : GPUEST_LINE_BYTES;
}

gpuest_err tech_scbook_read(tech_scbook_t *b, int sm, int *invalidate, gpuest_error_t *err)
{
    scb_sm_t *s = &b->sm[sm];
    *invalidate = 0;
    if (++s->ep_reads < SCB_EP)
        return GPUEST_OK;
    s->ep_reads = 0;
    int first = s->period == 0 && s->ep == 0, last = s->ep == SCB_PERIOD - 1;
    if (first || last) {
        gpuest_err rc = gpuest_sc2_book_build_from_vft(s->book, s->vft, err);
        gpuest_sc2_vft_reset(s->vft);
        if (rc != GPUEST_OK)
            return rc;
        s->ready = 1;
        b->books++;
        *invalidate = last; /* the first book replaces none: the lines before it are raw */
    }
    if (++s->ep == SCB_PERIOD) {
        s->ep = 0;
        s->period++;
    }
    return GPUEST_OK;
}

uint64_t tech_scbook_books(const tech_scbook_t *b) { return b->books; }
