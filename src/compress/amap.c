/* amap.c: the approximation memory map of DSM+APPROX (approximable address ranges and their truncation bits). */
#include "compress_int.h"

void gpuest_compress_amap_init(gpuest_compress_amap_t *m)
{
    memset(m, 0, sizeof *m);
}

gpuest_err gpuest_compress_amap_add(gpuest_compress_amap_t *m, uint64_t start, uint64_t end, int bits,
                                    gpuest_error_t *err)
{
    if (start >= end)
        return gpuest_fail(err, GPUEST_EINVAL, "approximable range [0x%llx, 0x%llx): start must be below end",
                           (unsigned long long)start, (unsigned long long)end);
    if (bits < 1 || bits > 23)
        return gpuest_fail(err, GPUEST_EINVAL, "approximable range: %d mantissa bits, expected 1..23", bits);
    for (size_t i = 0; i < m->count; i++)
        if (start < m->range[i].end && m->range[i].start < end)
            return gpuest_fail(err, GPUEST_EINVAL, "approximable range [0x%llx, 0x%llx) overlaps range %zu",
                               (unsigned long long)start, (unsigned long long)end, i);
    if (m->count == GPUEST_COMPRESS_AMAP_MAX)
        return gpuest_fail(err, GPUEST_ERANGE, "approximation map is full (%d entries)", GPUEST_COMPRESS_AMAP_MAX);
    m->range[m->count++] = (gpuest_compress_arange_t){start, end, bits};
    return GPUEST_OK;
}

int gpuest_compress_amap_bits(const gpuest_compress_amap_t *m, uint64_t addr)
{
    for (size_t i = 0; i < m->count; i++)
        if (addr >= m->range[i].start && addr < m->range[i].end && m->range[i].end - addr >= 4)
            return m->range[i].bits;
    return 0;
}

void gpuest_compress_amap_apply(const gpuest_compress_amap_t *m, uint64_t addr, const uint8_t *in, uint8_t *out,
                                size_t bytes)
{
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        uint32_t v = cz_load32(in + i);
        int n = gpuest_compress_amap_bits(m, addr + i);
        cz_store32(out + i, n ? gpuest_truncate_f32_bits(v, n) : v);
    }
}
