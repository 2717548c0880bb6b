/* truncate.c: mantissa truncation, the lossy step of DSM+APPROX and of the approximation apps. */
#include <string.h>

#include "compress.h"

uint32_t gpuest_truncate_f32_bits(uint32_t bits, int n)
{
    if (n <= 0)
        return bits;
    if (n > 23)
        n = 23;
    return bits & ~((UINT32_C(1) << n) - 1u);
}

uint64_t gpuest_truncate_f64_bits(uint64_t bits, int n)
{
    if (n <= 0)
        return bits;
    if (n > 52)
        n = 52;
    return bits & ~((UINT64_C(1) << n) - 1u);
}

float gpuest_truncate_f32(float v, int n)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    b = gpuest_truncate_f32_bits(b, n);
    memcpy(&v, &b, sizeof v);
    return v;
}

double gpuest_truncate_f64(double v, int n)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    b = gpuest_truncate_f64_bits(b, n);
    memcpy(&v, &b, sizeof v);
    return v;
}
