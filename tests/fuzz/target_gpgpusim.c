/* target_gpgpusim.c: GPGPU-Sim option files and their interconnect file (src/import), as
 * `gpuest config import` reads them. The input is the gpgpusim.config text, then a NUL and the
 * interconnect file (an empty one when there is no NUL: the target never follows a file the
 * input names). */
#include <stdlib.h>

#include "fuzz.h"
#include "import/import.h"

int gpuest_fuzz_gpgpusim(const uint8_t *data, size_t size)
{
    size_t first = 0, rest_len = 0;
    const uint8_t *rest = NULL;
    if (!fuzz_split(data, size, &first, &rest, &rest_len)) {
        first = size;
        rest_len = 0;
    }
    const char *config = fuzz_write(0, "gpgpusim.config", data, first);
    const char *icnt = fuzz_write(1, "net.icnt", rest, rest_len);
    const char *names[] = {config, icnt, NULL};
    gpuest_import_t *imp = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_import_gpgpusim(config, icnt, "fermi", &imp, &err);
    fuzz_check_error("gpgpusim", rc, &err, names);
    gpuest_import_free(imp);
    return 0;
}
