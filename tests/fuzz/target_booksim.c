/* target_booksim.c: BookSim 2 configuration files (src/noc/booksim.c), as `gpuest noc --booksim FILE`
 * reads them. */
#include <stdlib.h>

#include "fuzz.h"
#include "noc/noc.h"

int gpuest_fuzz_booksim(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write(0, "net.cfg", data, size);
    const char *names[] = {path, NULL};
    gpuest_noc_booksim_t b;
    gpuest_error_t err;
    gpuest_err rc = gpuest_noc_booksim_load(path, &b, &err);
    fuzz_check_error("booksim", rc, &err, names);
    return 0;
}
