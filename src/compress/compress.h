/* compress.h: line compression algorithms on real bytes (encode, decode, sizes, flits, latencies). */
#ifndef GPUEST_COMPRESS_H
#define GPUEST_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The truncation rule shared with the approximation applications (src/approx):
 * zero the n lowest mantissa bits of an IEEE-754 value. n is clamped to the
 * mantissa width (23 for float, 52 for double); sign and exponent are kept. */
uint32_t gpuest_truncate_f32_bits(uint32_t bits, int n);
uint64_t gpuest_truncate_f64_bits(uint64_t bits, int n);
float gpuest_truncate_f32(float v, int n);
double gpuest_truncate_f64(double v, int n);

/* ---------------------------------------------------------------- limits
 * Lines are 32, 64 or 128 bytes. Every encoder's output fits in
 * GPUEST_COMPRESS_MAX_STREAM_BYTES (the worst case is SC2: 32 escapes of
 * at most 16 + 32 bits); pass at least that much to be safe. */
#define GPUEST_COMPRESS_MAX_LINE 128
#define GPUEST_COMPRESS_MAX_STREAM_BYTES 256

/* ---------------------------------------------------------------- bit streams
 * MSB-first bit streams over caller memory with an explicit capacity. Writing
 * past the capacity or reading past the stream length sets `overflow` and is
 * reported by finish / the decoders as an error; nothing is touched outside
 * the buffer. */
typedef struct {
    uint8_t *buf;   /* caller memory */
    size_t cap;     /* bytes available in buf */
    size_t pos;     /* whole bytes written */
    uint64_t acc;   /* pending bits (low nacc bits) */
    unsigned nacc;  /* < 64 */
    int overflow;   /* a write did not fit */
    uint32_t limit; /* encoders may stop once they reach this many bits (0: no limit) */
    int gave_up;    /* an encoder stopped: its full output would be >= limit bits */
} gpuest_bitwriter_t;

typedef struct {
    const uint8_t *buf;
    uint32_t nbits; /* stream length in bits */
    uint32_t pos;   /* next bit to read */
    int overflow;   /* a read went past nbits */
} gpuest_bitreader_t;

void gpuest_bitwriter_init(gpuest_bitwriter_t *w, uint8_t *buf, size_t cap);
/* Appends the low n bits of v (n <= 32), most significant first. */
void gpuest_bitwriter_put(gpuest_bitwriter_t *w, uint32_t v, unsigned n);
uint32_t gpuest_bitwriter_bits(const gpuest_bitwriter_t *w);
/* Flushes the last partial byte (zero padded); GPUEST_ERANGE if anything did not fit. */
gpuest_err gpuest_bitwriter_finish(gpuest_bitwriter_t *w, uint32_t *nbits, gpuest_error_t *err);

void gpuest_bitreader_init(gpuest_bitreader_t *r, const uint8_t *buf, uint32_t nbits);
/* Reads n bits (n <= 32); past the end it returns 0 and sets overflow. */
uint32_t gpuest_bitreader_get(gpuest_bitreader_t *r, unsigned n);

/* ---------------------------------------------------------------- approximation map
 * DSM+APPROX (packet compression thesis 5.1, 5.3.2): up to 8 approximable
 * address ranges [start, end), each with the number of fp32 mantissa bits to
 * zero. A 4-byte word is approximated only when it lies wholly inside a range. */
#define GPUEST_COMPRESS_AMAP_MAX 8

typedef struct {
    uint64_t start, end; /* [start, end), bytes */
    int bits;            /* mantissa bits zeroed, 1..23 */
} gpuest_compress_arange_t;

typedef struct {
    size_t count;
    gpuest_compress_arange_t range[GPUEST_COMPRESS_AMAP_MAX];
} gpuest_compress_amap_t;

void gpuest_compress_amap_init(gpuest_compress_amap_t *m);
/* Adds a range; EINVAL for start >= end, bits outside 1..23, overlap; ERANGE when full. */
gpuest_err gpuest_compress_amap_add(gpuest_compress_amap_t *m, uint64_t start, uint64_t end, int bits,
                                    gpuest_error_t *err);
/* Bits to zero for the word at addr (0 = not approximable). */
int gpuest_compress_amap_bits(const gpuest_compress_amap_t *m, uint64_t addr);
/* out = in with every approximable fp32 word of the line at addr truncated
 * (words little-endian). in and out may be the same buffer. */
void gpuest_compress_amap_apply(const gpuest_compress_amap_t *m, uint64_t addr, const uint8_t *in, uint8_t *out,
                                size_t bytes);

/* ---------------------------------------------------------------- SC2 code book
 * Statistical compression (Arelakis & Stenstrom; LATTE-CC IV-C): a value
 * frequency table (VFT: 1024 entries, 12-bit saturating counters) samples the
 * 32-bit words of lines; a canonical Huffman code book (max code length 16,
 * plus an escape symbol followed by 32 raw bits for words not in the book) is
 * built from it. Encoder and decoder share one book; rebuild it each period. */
#define GPUEST_SC2_VFT_ENTRIES 1024
#define GPUEST_SC2_COUNTER_MAX 4095
#define GPUEST_SC2_MAX_CODE_LEN 16

typedef struct gpuest_sc2_vft_s gpuest_sc2_vft_t;
typedef struct gpuest_sc2_book_s gpuest_sc2_book_t;

gpuest_err gpuest_sc2_vft_create(gpuest_sc2_vft_t **out, gpuest_error_t *err);
void gpuest_sc2_vft_destroy(gpuest_sc2_vft_t *v);
void gpuest_sc2_vft_reset(gpuest_sc2_vft_t *v);
/* Counts every 32-bit little-endian word of a line of `bytes` bytes (multiple of 4). */
void gpuest_sc2_vft_sample(gpuest_sc2_vft_t *v, const uint8_t *line, size_t bytes);
size_t gpuest_sc2_vft_size(const gpuest_sc2_vft_t *v); /* values held */
/* Count of value (0 when absent) and of sampled words that found no free entry. */
uint32_t gpuest_sc2_vft_count(const gpuest_sc2_vft_t *v, uint32_t value);
uint32_t gpuest_sc2_vft_misses(const gpuest_sc2_vft_t *v);

gpuest_err gpuest_sc2_book_create(gpuest_sc2_book_t **out, gpuest_error_t *err);
void gpuest_sc2_book_destroy(gpuest_sc2_book_t *b);
/* (Re)builds the book from explicit frequencies (values distinct, freqs >= 1,
 * n <= 1024) and the escape frequency (>= 1). */
gpuest_err gpuest_sc2_book_build(gpuest_sc2_book_t *b, const uint32_t *values, const uint32_t *freqs, size_t n,
                                 uint32_t escape_freq, gpuest_error_t *err);
/* (Re)builds the book from a VFT: its values and counts, escape frequency = max(1, misses). */
gpuest_err gpuest_sc2_book_build_from_vft(gpuest_sc2_book_t *b, const gpuest_sc2_vft_t *v, gpuest_error_t *err);
/* Code length of value in bits (escape + 32 when not in the book). */
unsigned gpuest_sc2_book_word_bits(const gpuest_sc2_book_t *b, uint32_t value);
unsigned gpuest_sc2_book_escape_len(const gpuest_sc2_book_t *b);

/* ---------------------------------------------------------------- algorithms
 * Every algorithm is a static const vtable in a NULL-terminated registry.
 * Sizes include the algorithm's own metadata. Line-level policy: algorithms
 * without their own compression flag (bdi, fpc, cpack, bpc, sc2) fall back to
 * the raw line when their encoding is not smaller (size = 8 * line bytes); a
 * stream of exactly 8 * line bits is therefore the raw line, and that one
 * "compressed?" bit travels in the packet header. DPC and DSM carry their own
 * flag bit in the stream, as the documents define them. */
typedef struct gpuest_codec_s gpuest_codec_t;

enum {
    GPUEST_COMPRESS_LOSSY = 1u << 0,      /* may change data (dsm_approx) */
    GPUEST_COMPRESS_SELF_FLAG = 1u << 1,  /* stream carries its own compressed flag */
    GPUEST_COMPRESS_NEEDS_BOOK = 1u << 2, /* needs an SC2 code book */
};

typedef struct gpuest_compress_algo_s {
    const char *name; /* registry key: none, bdi, fpc, ... */
    const char *desc;
    int compress_latency; /* default cycles (documents' tables; see docs/compress.md) */
    int decompress_latency;
    unsigned flags; /* GPUEST_COMPRESS_* */
    /* Writes the encoding of one line (codec->line_bytes bytes) to w. */
    void (*encode)(const gpuest_codec_t *c, const uint8_t *line, gpuest_bitwriter_t *w);
    /* Reads one encoded line from r into line; ECORRUPT (with message) on a bad stream. */
    gpuest_err (*decode)(const gpuest_codec_t *c, gpuest_bitreader_t *r, uint8_t *line, gpuest_error_t *err);
} gpuest_compress_algo_t;

extern const gpuest_compress_algo_t *const gpuest_compress_algos[]; /* NULL-terminated */

/* Finds an algorithm by name; ENOKEY listing the valid names otherwise. */
gpuest_err gpuest_compress_lookup(const char *name, const gpuest_compress_algo_t **out, gpuest_error_t *err);
/* "none, bdi, fpc, ...", made from the registry. */
const char *gpuest_compress_names(void);
/* The registry's names as a NULL-terminated array (for option tables). */
const char *const *gpuest_compress_name_list(void);

/* Effective latencies: override >= 0 wins (technique.compress_latency /
 * technique.decompress_latency), -1 gives the algorithm's default. */
int gpuest_compress_latency(const gpuest_compress_algo_t *a, int override);
int gpuest_decompress_latency(const gpuest_compress_algo_t *a, int override);

/* Packet sizes: gpuest_packet_flits (core.h) of gpuest_codec_payload_bits. */

/* ---------------------------------------------------------------- codec
 * An algorithm bound to a line size and its context; lives in caller memory,
 * holds no allocation; the book and map are borrowed and must outlive it. */
typedef struct {
    size_t line_bytes;                  /* 32, 64 or 128 */
    const gpuest_sc2_book_t *sc2_book;  /* required by sc2 */
    const gpuest_compress_amap_t *amap; /* dsm_approx: approximable ranges (NULL: none) */
} gpuest_codec_opts_t;

struct gpuest_codec_s {
    const gpuest_compress_algo_t *algo;
    size_t line_bytes;
    const gpuest_sc2_book_t *sc2_book;
    const gpuest_compress_amap_t *amap;
};

gpuest_err gpuest_codec_init(gpuest_codec_t *c, const gpuest_compress_algo_t *a, const gpuest_codec_opts_t *opts,
                             gpuest_error_t *err);
/* Compresses the line at address addr into out (cap bytes); *nbits is the
 * stream length. ERANGE when cap is too small. */
gpuest_err gpuest_codec_compress(const gpuest_codec_t *c, uint64_t addr, const uint8_t *line, uint8_t *out, size_t cap,
                                 uint32_t *nbits, gpuest_error_t *err);
/* Decodes nbits of in into line (line_bytes). ECORRUPT on a malformed stream
 * (including trailing bits). */
gpuest_err gpuest_codec_decompress(const gpuest_codec_t *c, const uint8_t *in, uint32_t nbits, uint8_t *line,
                                   gpuest_error_t *err);
/* Fast path for the simulator: the compressed size in bits, from the real
 * encoder run into a scratch buffer (never an estimate). */
uint32_t gpuest_codec_size_bits(const gpuest_codec_t *c, uint64_t addr, const uint8_t *line);
/* True when a stream of nbits is smaller than the raw line. */
int gpuest_codec_is_compressed(const gpuest_codec_t *c, uint32_t nbits);
/* The flag rule, one for every algorithm: whether a line travels compressed is
 * one bit of the packet header, whatever the algorithm. The packet's payload is
 * therefore the stream without its leading line-level flag (DPC's C bit, the C
 * bit of DSM's first unit; the other algorithms have none in the stream), or
 * the raw line when that is not smaller. So DSM and DPC pay for their flag
 * exactly as BDI or FPC do, never a flit more. */
uint32_t gpuest_codec_payload_bits(const gpuest_codec_t *c, uint32_t nbits);

/* ---------------------------------------------------------------- C-Pack with a persistent dictionary
 * Packet C-Pack as the packet compression thesis runs it (6.2): the MC's
 * compressor keeps one dictionary (16 entries, FIFO, the same patterns and
 * insertion rules as the cpack codec) across every packet it sends, and each
 * receiver keeps a copy that must equal the sender's before it decodes. The
 * stream is CPACK+Z over the whole line (1 zero-line bit, then one code per
 * 32-bit word). The caller keeps the raw fallback: a line sent raw must leave
 * the dictionary as it was before the encode. */
#define GPUEST_CPACK_DICT_ENTRIES 16
typedef struct {
    uint32_t e[GPUEST_CPACK_DICT_ENTRIES];
    unsigned n, next; /* entries filled, FIFO slot written next */
} gpuest_cpack_dict_t;

void gpuest_cpack_dict_init(gpuest_cpack_dict_t *d);
/* Encodes a line of `bytes` (multiple of 8) against d, updating d. */
void gpuest_cpack_dict_encode(gpuest_cpack_dict_t *d, const uint8_t *line, size_t bytes, gpuest_bitwriter_t *w);
/* Decodes one line against d, updating d; ECORRUPT on a bad stream. */
gpuest_err gpuest_cpack_dict_decode(gpuest_cpack_dict_t *d, gpuest_bitreader_t *r, uint8_t *line, size_t bytes,
                                    gpuest_error_t *err);
/* Entries of b that a lacks or holds differently: the (index, word) pairs a
 * synchronisation message must carry to turn a into b. */
unsigned gpuest_cpack_dict_diff(const gpuest_cpack_dict_t *a, const gpuest_cpack_dict_t *b);

/* ---------------------------------------------------------------- DPC with data filtering
 * Data-filtering thesis 3.4.1.3 on a 128-byte line with a 4-bit sector mask
 * (bit s = 32-byte sector s is critical; 1..15).
 * DF-TRUC: only the critical sectors are remapped and encoded (8 words each);
 * the decoder needs the mask (it travels in the reply) and returns zeros in
 * the non-critical sectors.
 * DF-MAN: the non-critical sectors are zero-filled and whichever of the
 * original and the manipulated line DPC-encodes smaller is sent (ties keep the
 * original); its stream is plain DPC. */
typedef enum { GPUEST_DF_TRUC = 0, GPUEST_DF_MAN = 1 } gpuest_df_mode;

gpuest_err gpuest_dpc_df_compress(gpuest_df_mode mode, unsigned mask, const uint8_t line[128], uint8_t *out, size_t cap,
                                  uint32_t *nbits, gpuest_error_t *err);
gpuest_err gpuest_dpc_df_decompress(gpuest_df_mode mode, unsigned mask, const uint8_t *in, uint32_t nbits,
                                    uint8_t line[128], gpuest_error_t *err);

/* ---------------------------------------------------------------- synthetic data
 * Line generators for tests and benchmarks (all from the seeded generator). */
typedef enum {
    GPUEST_DATA_RANDOM = 0,
    GPUEST_DATA_ZERO,
    GPUEST_DATA_REPEATED, /* one 4- or 8-byte value repeated */
    GPUEST_DATA_NARROW,   /* small signed integers */
    GPUEST_DATA_POINTER,  /* 8-byte pointers with small deltas from a base */
    GPUEST_DATA_FLOAT,    /* fp32 values of similar magnitude */
    GPUEST_DATA_TEXT,     /* ASCII text */
    GPUEST_DATA_KINDS
} gpuest_data_kind;

const char *gpuest_data_kind_name(gpuest_data_kind k);
void gpuest_data_fill(gpuest_rng_t *rng, gpuest_data_kind kind, uint8_t *line, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
