/* coalesce.c: turns one warp memory instruction into 128-byte line requests with 32-byte sector masks. */
#include "workload_int.h"

int gpuest_sector_count(uint8_t sectors)
{
    static const int bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    return bits[sectors & 15];
}

/* Sectors of one line covered by bytes [lo, hi] (offsets inside the line, inclusive). */
static uint8_t sector_span(uint32_t lo, uint32_t hi)
{
    uint32_t s0 = lo / GPUEST_SECTOR_BYTES, s1 = hi / GPUEST_SECTOR_BYTES;
    return (uint8_t)(((1u << (s1 + 1)) - 1u) & ~((1u << s0) - 1u));
}

/* Adds (line, sectors, lane) to the requests of the current sub-warp, which
 * start at out[first]; returns the new count. */
static size_t add_line(gpuest_line_req_t *out, size_t first, size_t n, uint64_t line, uint8_t sectors, int lane)
{
    /* Scan backwards: the line just added is the likeliest match. */
    for (size_t i = n; i > first; i--) {
        gpuest_line_req_t *r = &out[i - 1];
        if (r->line == line) {
            r->sectors |= sectors;
            r->lanes |= 1u << lane;
            return n;
        }
    }
    out[n].line = line;
    out[n].sectors = sectors;
    out[n].lanes = 1u << lane;
    return n + 1;
}

size_t gpuest_coalesce_slow(const gpuest_inst_t *inst, gpuest_line_req_t out[GPUEST_COALESCE_MAX])
{
    if (inst->kind != GPUEST_INST_MEM || inst->active_mask == 0 || inst->size == 0)
        return 0;
    const uint64_t line_mask = ~(uint64_t)(GPUEST_LINE_BYTES - 1);
    int sub = inst->size <= 4 ? 32 : inst->size == 8 ? 16 : 8;
    size_t n = 0;
    for (int start = 0; start < GPUEST_WARP_SIZE; start += sub) {
        size_t first = n;
        for (int lane = start; lane < start + sub; lane++) {
            if (!(inst->active_mask & (1u << lane)))
                continue;
            uint64_t a = inst->addr[lane], last = a + inst->size - 1;
            uint64_t l0 = a & line_mask, l1 = last & line_mask;
            if (l0 == l1 && n > first && out[n - 1].line == l0) { /* add_line's first probe, inline: the
                                                                 * common case of a lane in the last line */
                out[n - 1].sectors |= sector_span((uint32_t)(a - l0), (uint32_t)(last - l0));
                out[n - 1].lanes |= 1u << lane;
            } else if (l0 == l1) {
                n = add_line(out, first, n, l0, sector_span((uint32_t)(a - l0), (uint32_t)(last - l0)), lane);
            } else { /* misaligned access straddling two lines */
                n = add_line(out, first, n, l0, sector_span((uint32_t)(a - l0), GPUEST_LINE_BYTES - 1), lane);
                n = add_line(out, first, n, l1, sector_span(0, (uint32_t)(last - l1)), lane);
            }
        }
    }
    return n;
}

/* A warp of one sub-warp (lanes of at most 4 bytes), every lane active, whose lanes all read lane
 * 0's address (a broadcast) or lane 0's address plus lane x size (a row), inside one line: the one
 * request the lane loop makes, with the sectors of the bytes covered, found from two deviations
 * that take a few operations a lane (no per-lane sector bits). The lane loop marks the sectors
 * of each lane's first and last byte; a lane of at most 4 bytes spans at most two adjacent
 * sectors, which are those, so for a broadcast the sectors are those of [a, a + size) and for a
 * row (its lanes back to back) every sector of [a, a + 32 x size). Returns 0 for any other shape.
 * gemm's loads and stores are all one or the other; the general one-line path below cost about
 * 0.7 s of gemm/fermi/default's 4.3 s of fast-forward. */
static size_t coalesce_shape(const gpuest_inst_t *inst, gpuest_line_req_t out[GPUEST_COALESCE_MAX])
{
    const uint64_t line_mask = ~(uint64_t)(GPUEST_LINE_BYTES - 1);
    uint64_t a0 = inst->addr[0], sz = inst->size, bcast = 0, row = 0;
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++) {
        bcast |= inst->addr[lane] ^ a0;
        row |= inst->addr[lane] ^ (a0 + (uint64_t)lane * sz);
    }
    uint64_t last;
    if (bcast == 0)
        last = a0 + sz - 1;
    else if (row == 0)
        last = a0 + GPUEST_WARP_SIZE * sz - 1;
    else
        return 0;
    if ((a0 & line_mask) != (last & line_mask) || last < a0)
        return 0; /* leaves the line: the general paths */
    out[0].line = a0 & line_mask;
    out[0].sectors = sector_span((uint32_t)(a0 % GPUEST_LINE_BYTES), (uint32_t)(last % GPUEST_LINE_BYTES));
    out[0].lanes = inst->active_mask;
    return 1;
}

size_t gpuest_coalesce(const gpuest_inst_t *inst, gpuest_line_req_t out[GPUEST_COALESCE_MAX])
{
    if (inst->kind != GPUEST_INST_MEM || inst->active_mask == 0 || inst->size == 0)
        return 0;
    const uint64_t line_mask = ~(uint64_t)(GPUEST_LINE_BYTES - 1);
    int sub = inst->size <= 4 ? 32 : inst->size == 8 ? 16 : 8;
    if (sub == GPUEST_WARP_SIZE) { /* one sub-warp: when every active lane stays in the first lane's line
                                    * (a broadcast, a contiguous row) the lane loop makes one request of
                                    * that line with every active lane and the OR of their sectors */
        uint32_t mask = inst->active_mask;
        if (mask == 0xFFFFFFFFu) { /* a broadcast or a row: two shapes named outright (eighth session) */
            size_t n = coalesce_shape(inst, out);
            if (n)
                return n;
        }
        uint64_t l0 = inst->addr[__builtin_ctz(mask)] & line_mask, off = 0, sz1 = inst->size - 1;
        uint32_t sectors = 0;
        /* 8 lanes at a time without branches (an inactive lane's address is masked out); a lane of
         * at most 4 bytes covers the sectors of its first and last byte (sector_span of [lo, hi]) */
        for (int b = 0; b < GPUEST_WARP_SIZE && !(off & line_mask); b += 8)
            for (int lane = b; lane < b + 8; lane++) {
                uint64_t on = 0 - (uint64_t)(mask >> lane & 1);
                uint64_t a = inst->addr[lane], last = a + sz1;
                off |= ((a ^ l0) | (last ^ l0)) & on;
                sectors |= ((1u << (a % GPUEST_LINE_BYTES / GPUEST_SECTOR_BYTES)) | (1u << (last % GPUEST_LINE_BYTES / GPUEST_SECTOR_BYTES))) &
                           (uint32_t)on;
            }
        if (!(off & line_mask)) {
            out[0].line = l0;
            out[0].sectors = (uint8_t)sectors;
            out[0].lanes = mask;
            return 1;
        }
    }
    return gpuest_coalesce_slow(inst, out);
}
