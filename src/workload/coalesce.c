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
