/* compress.h: line compression algorithms on real bytes (encode, decode, sizes, flits, latencies). */
#ifndef GPUEST_COMPRESS_H
#define GPUEST_COMPRESS_H

#include <stdint.h>

#include "core/core.h"

/* The truncation rule shared with the approximation applications (src/approx):
 * zero the n lowest mantissa bits of an IEEE-754 value. n is clamped to the
 * mantissa width (23 for float, 52 for double); sign and exponent are kept. */
uint32_t gpuest_truncate_f32_bits(uint32_t bits, int n);
uint64_t gpuest_truncate_f64_bits(uint64_t bits, int n);
float gpuest_truncate_f32(float v, int n);
double gpuest_truncate_f64(double v, int n);

#endif
