/* algo_sc2.c: SC2 statistical compression: value frequency table, canonical Huffman code book, codec.
 *
 * Choices (spec section 5 leaves them open): symbols are 32-bit words; the VFT
 * holds 1024 values with 12-bit saturating counters; when a counter saturates
 * every counter is halved and values whose count drops to 0 leave the table
 * (so the table follows phase changes); a word that finds the table full is a
 * miss. The book gives every table value a Huffman code and adds an escape
 * symbol whose frequency is the miss count (at least 1); an escaped word is
 * the escape code + 32 raw bits. Codes are canonical and at most 16 bits
 * (frequencies are halved until the longest code fits). */
#include <stdlib.h>

#include "../compress_int.h"

#define SC2_HASH 2048 /* open addressing, power of two >= 2 * entries */
#define SC2_EMPTY 0xFFFFu

static inline unsigned sc2_hash(uint32_t v)
{
    return (unsigned)((v * 0x9E3779B1u) >> 21); /* 11 bits */
}

/* ------------------------------------------------------------ VFT */
struct gpuest_sc2_vft_s {
    uint32_t value[GPUEST_SC2_VFT_ENTRIES];
    uint16_t count[GPUEST_SC2_VFT_ENTRIES];
    uint16_t slot[SC2_HASH]; /* entry index or SC2_EMPTY */
    size_t n;
    uint32_t misses; /* 12-bit saturating like the counters */
};

static void vft_rehash(gpuest_sc2_vft_t *v)
{
    for (size_t i = 0; i < SC2_HASH; i++)
        v->slot[i] = SC2_EMPTY;
    for (size_t e = 0; e < v->n; e++) {
        unsigned h = sc2_hash(v->value[e]);
        while (v->slot[h] != SC2_EMPTY)
            h = (h + 1u) & (SC2_HASH - 1u);
        v->slot[h] = (uint16_t)e;
    }
}

void gpuest_sc2_vft_reset(gpuest_sc2_vft_t *v)
{
    v->n = 0;
    v->misses = 0;
    vft_rehash(v);
}

gpuest_err gpuest_sc2_vft_create(gpuest_sc2_vft_t **out, gpuest_error_t *err)
{
    gpuest_sc2_vft_t *v = malloc(sizeof *v);
    if (!v)
        return gpuest_fail(err, GPUEST_ENOMEM, "sc2: cannot allocate the value frequency table");
    gpuest_sc2_vft_reset(v);
    *out = v;
    return GPUEST_OK;
}

void gpuest_sc2_vft_destroy(gpuest_sc2_vft_t *v)
{
    free(v);
}

/* Halves every counter and drops values that reach zero (order kept). */
static void vft_age(gpuest_sc2_vft_t *v)
{
    size_t m = 0;
    for (size_t e = 0; e < v->n; e++) {
        uint16_t c = (uint16_t)(v->count[e] >> 1);
        if (c) {
            v->value[m] = v->value[e];
            v->count[m] = c;
            m++;
        }
    }
    v->n = m;
    v->misses >>= 1;
    vft_rehash(v);
}

static int vft_find(const gpuest_sc2_vft_t *v, uint32_t value)
{
    unsigned h = sc2_hash(value);
    while (v->slot[h] != SC2_EMPTY) {
        if (v->value[v->slot[h]] == value)
            return v->slot[h];
        h = (h + 1u) & (SC2_HASH - 1u);
    }
    return -1;
}

static void vft_add(gpuest_sc2_vft_t *v, uint32_t value)
{
    int e = vft_find(v, value);
    if (e < 0) {
        if (v->n == GPUEST_SC2_VFT_ENTRIES) {
            if (++v->misses >= GPUEST_SC2_COUNTER_MAX)
                vft_age(v);
            return;
        }
        e = (int)v->n++;
        v->value[e] = value;
        v->count[e] = 0;
        unsigned h = sc2_hash(value);
        while (v->slot[h] != SC2_EMPTY)
            h = (h + 1u) & (SC2_HASH - 1u);
        v->slot[h] = (uint16_t)e;
    }
    if (++v->count[e] >= GPUEST_SC2_COUNTER_MAX)
        vft_age(v);
}

void gpuest_sc2_vft_sample(gpuest_sc2_vft_t *v, const uint8_t *line, size_t bytes)
{
    for (size_t i = 0; i + 4 <= bytes; i += 4)
        vft_add(v, cz_load32(line + i));
}

size_t gpuest_sc2_vft_size(const gpuest_sc2_vft_t *v)
{
    return v->n;
}

uint32_t gpuest_sc2_vft_count(const gpuest_sc2_vft_t *v, uint32_t value)
{
    int e = vft_find(v, value);
    return e < 0 ? 0u : v->count[e];
}

uint32_t gpuest_sc2_vft_misses(const gpuest_sc2_vft_t *v)
{
    return v->misses;
}

/* ------------------------------------------------------------ code book */
#define SC2_SYMS (GPUEST_SC2_VFT_ENTRIES + 1) /* symbol 0 = escape */

struct gpuest_sc2_book_s {
    /* encoder: value -> code via open addressing */
    uint32_t hval[SC2_HASH];
    uint32_t hcode[SC2_HASH];
    uint8_t hlen[SC2_HASH]; /* 0 = empty slot */
    uint32_t esc_code;
    unsigned esc_len;
    /* decoder: canonical tables */
    uint32_t first[GPUEST_SC2_MAX_CODE_LEN + 2]; /* first code of each length */
    uint32_t cnt[GPUEST_SC2_MAX_CODE_LEN + 2];   /* codes of each length */
    uint32_t off[GPUEST_SC2_MAX_CODE_LEN + 2];   /* index of the first symbol of each length in sorted */
    uint32_t sorted[SC2_SYMS];                   /* symbol values in canonical order; escape marked below */
    uint32_t esc_index;                          /* position of the escape in sorted */
    size_t nsym;
    int built;
};

gpuest_err gpuest_sc2_book_create(gpuest_sc2_book_t **out, gpuest_error_t *err)
{
    gpuest_sc2_book_t *b = calloc(1, sizeof *b);
    if (!b)
        return gpuest_fail(err, GPUEST_ENOMEM, "sc2: cannot allocate a code book");
    *out = b;
    /* an empty book: only the escape (1 bit) */
    return gpuest_sc2_book_build(b, NULL, NULL, 0, 1, err);
}

void gpuest_sc2_book_destroy(gpuest_sc2_book_t *b)
{
    free(b);
}

typedef struct {
    uint64_t freq;
    uint32_t sym; /* index into the caller's arrays; 0 = escape, i + 1 = values[i] */
} sc2_leaf_t;

static int leaf_cmp(const void *a, const void *b)
{
    const sc2_leaf_t *x = a, *y = b;
    if (x->freq != y->freq)
        return x->freq < y->freq ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* Huffman code lengths with the two-queue method over leaves sorted by
 * frequency (deterministic). len[] is indexed like leaves. Returns max length. */
static unsigned huff_lengths(const sc2_leaf_t *leaves, size_t n, uint8_t *len)
{
    if (n == 1) {
        len[0] = 1;
        return 1;
    }
    size_t nodes = 2 * n - 1;
    uint64_t *w = malloc(nodes * sizeof *w);
    size_t *parent = malloc(nodes * sizeof *parent);
    if (!w || !parent) {
        free(w);
        free(parent);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        w[i] = leaves[i].freq;
    size_t li = 0, qi = n, qe = n; /* leaf cursor, internal queue [qi, qe) */
    for (size_t k = 0; k < n - 1; k++) {
        size_t pick[2];
        for (int t = 0; t < 2; t++) {
            if (li < n && (qi >= qe || w[li] <= w[qi]))
                pick[t] = li++;
            else
                pick[t] = qi++;
        }
        w[qe] = w[pick[0]] + w[pick[1]];
        parent[pick[0]] = parent[pick[1]] = qe;
        qe++;
    }
    /* depths: the root is the last node; parents come after children */
    uint8_t *depth = calloc(nodes, 1);
    unsigned maxl = 0;
    if (depth) {
        for (size_t i = nodes - 1; i-- > 0;)
            depth[i] = (uint8_t)(depth[parent[i]] + 1u > 255u ? 255u : depth[parent[i]] + 1u);
        for (size_t i = 0; i < n; i++) {
            len[i] = depth[i];
            if (depth[i] > maxl)
                maxl = depth[i];
        }
    }
    free(depth);
    free(w);
    free(parent);
    return maxl;
}

typedef struct {
    uint8_t len;
    uint32_t sym;
} sc2_code_t;

static int code_cmp(const void *a, const void *b)
{
    const sc2_code_t *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int has_duplicate(const uint32_t *values, size_t n)
{
    if (n < 2)
        return 0;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return 0;
    memcpy(tmp, values, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, u32_cmp);
    int dup = 0;
    for (size_t i = 1; i < n && !dup; i++)
        dup = tmp[i] == tmp[i - 1];
    free(tmp);
    return dup;
}

gpuest_err gpuest_sc2_book_build(gpuest_sc2_book_t *b, const uint32_t *values, const uint32_t *freqs, size_t n,
                                 uint32_t escape_freq, gpuest_error_t *err)
{
    if (n > GPUEST_SC2_VFT_ENTRIES)
        return gpuest_fail(err, GPUEST_ERANGE, "sc2 book: %zu values, at most %d", n, GPUEST_SC2_VFT_ENTRIES);
    if (escape_freq == 0)
        return gpuest_fail(err, GPUEST_EINVAL, "sc2 book: escape frequency must be >= 1");
    size_t ns = n + 1;
    sc2_leaf_t *leaves = malloc(ns * sizeof *leaves);
    uint8_t *len = malloc(ns);
    sc2_code_t *codes = malloc(ns * sizeof *codes);
    gpuest_err rc = GPUEST_OK;
    if (!leaves || !len || !codes) {
        rc = gpuest_fail(err, GPUEST_ENOMEM, "sc2 book: out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (freqs[i] == 0) {
            rc = gpuest_fail(err, GPUEST_EINVAL, "sc2 book: value 0x%08x has frequency 0, expected >= 1",
                             (unsigned)values[i]);
            goto out;
        }
        leaves[i + 1] = (sc2_leaf_t){freqs[i], (uint32_t)(i + 1)};
    }
    leaves[0] = (sc2_leaf_t){escape_freq, 0};
    if (has_duplicate(values, n)) {
        rc = gpuest_fail(err, GPUEST_EINVAL, "sc2 book: a value is listed twice; values must be distinct");
        goto out;
    }
    for (;;) {
        qsort(leaves, ns, sizeof *leaves, leaf_cmp);
        unsigned maxl = huff_lengths(leaves, ns, len);
        if (maxl == 0) {
            rc = gpuest_fail(err, GPUEST_ENOMEM, "sc2 book: out of memory");
            goto out;
        }
        if (maxl <= GPUEST_SC2_MAX_CODE_LEN)
            break;
        for (size_t i = 0; i < ns; i++) /* flatten and retry */
            leaves[i].freq = (leaves[i].freq >> 1) | 1u;
    }
    /* canonical order: by (length, symbol) with symbol 0 = escape, then value order */
    for (size_t i = 0; i < ns; i++)
        codes[i] = (sc2_code_t){len[i], leaves[i].sym};
    qsort(codes, ns, sizeof *codes, code_cmp);
    memset(b, 0, sizeof *b);
    uint32_t code = 0;
    unsigned cur = codes[0].len;
    for (size_t i = 0; i < ns; i++) {
        while (cur < codes[i].len) {
            code <<= 1;
            cur++;
        }
        if (b->cnt[cur] == 0) {
            b->first[cur] = code;
            b->off[cur] = (uint32_t)i;
        }
        b->cnt[cur]++;
        uint32_t sym = codes[i].sym;
        if (sym == 0) {
            b->esc_code = code;
            b->esc_len = cur;
            b->esc_index = (uint32_t)i;
            b->sorted[i] = 0;
        } else {
            uint32_t v = values[sym - 1];
            b->sorted[i] = v;
            unsigned h = sc2_hash(v);
            while (b->hlen[h]) {
                h = (h + 1u) & (SC2_HASH - 1u);
            }
            b->hval[h] = v;
            b->hcode[h] = code;
            b->hlen[h] = (uint8_t)cur;
        }
        code++;
    }
    b->nsym = ns;
    b->built = 1;
out:
    free(leaves);
    free(len);
    free(codes);
    return rc;
}

gpuest_err gpuest_sc2_book_build_from_vft(gpuest_sc2_book_t *b, const gpuest_sc2_vft_t *v, gpuest_error_t *err)
{
    uint32_t freqs[GPUEST_SC2_VFT_ENTRIES];
    for (size_t i = 0; i < v->n; i++)
        freqs[i] = v->count[i];
    return gpuest_sc2_book_build(b, v->value, freqs, v->n, v->misses ? v->misses : 1u, err);
}

CZ_HOT int book_find(const gpuest_sc2_book_t *b, uint32_t v)
{
    unsigned h = sc2_hash(v);
    while (b->hlen[h]) {
        if (b->hval[h] == v)
            return (int)h;
        h = (h + 1u) & (SC2_HASH - 1u);
    }
    return -1;
}

unsigned gpuest_sc2_book_word_bits(const gpuest_sc2_book_t *b, uint32_t value)
{
    int h = book_find(b, value);
    return h < 0 ? b->esc_len + 32u : b->hlen[h];
}

unsigned gpuest_sc2_book_escape_len(const gpuest_sc2_book_t *b)
{
    return b->esc_len;
}

CZ_HOT void sc2_word(const gpuest_sc2_book_t *b, uint32_t v, gpuest_bitwriter_t *w)
{
    int h = book_find(b, v);
    if (h >= 0) {
        cz_put(w, b->hcode[h], b->hlen[h]);
    } else {
        cz_put(w, b->esc_code, b->esc_len);
        cz_put(w, v, 32);
    }
}

int cz_sc2_decode_word(const gpuest_sc2_book_t *b, gpuest_bitreader_t *r, uint32_t *v)
{
    uint32_t peek = cz_peek(r, GPUEST_SC2_MAX_CODE_LEN);
    for (unsigned l = 1; l <= GPUEST_SC2_MAX_CODE_LEN; l++) {
        uint32_t code = peek >> (GPUEST_SC2_MAX_CODE_LEN - l);
        if (b->cnt[l] && code - b->first[l] < b->cnt[l]) {
            uint32_t i = b->off[l] + (code - b->first[l]);
            cz_get(r, l);
            if (i == b->esc_index)
                *v = cz_get(r, 32);
            else
                *v = b->sorted[i];
            return !r->overflow;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ codec */
CZ_HOT void sc2_encode_body(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    for (size_t i = 0; i < c->line_bytes && !cz_at_limit(w); i += 4)
        sc2_word(c->sc2_book, cz_load32(line + i), w);
}

static void sc2_encode(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w)
{
    CZ_LOCAL_WRITER(lw, w);
    sc2_encode_body(c, line, &lw);
    CZ_LOCAL_DONE(lw, w);
}

static gpuest_err sc2_decode(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err)
{
    for (size_t i = 0; i < c->line_bytes; i += 4) {
        uint32_t v;
        if (!cz_sc2_decode_word(c->sc2_book, r, &v))
            return cz_corrupt(err, c, "no SC2 code matches, or stream truncated");
        cz_store32(line + i, v);
    }
    return GPUEST_OK;
}

const gpuest_compress_algo_t gpuest_algo_sc2 = {
    .name = "sc2",
    .desc = "SC2 statistical compression (canonical Huffman over a sampled value table)",
    .compress_latency = 6,    /* LATTE-CC IV-C: SC 6 cycles compression */
    .decompress_latency = 14, /* LATTE-CC Table I / IV-C */
    .flags = GPUEST_COMPRESS_NEEDS_BOOK,
    .encode = sc2_encode,
    .decode = sc2_decode,
};
