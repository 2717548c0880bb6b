/* fuzz_libfuzzer.c: libFuzzer entry point for one target, chosen at build time with
 * -DGPUEST_FUZZ_FN=gpuest_fuzz_<name> (see tests/fuzz/CMakeLists.txt and scripts/fuzz.sh). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return GPUEST_FUZZ_FN(data, size);
}
