/* target_accelsim_xz.c: the .xz path of the Accel-Sim reader: the input is the raw bytes of
 * kernel-1.traceg.xz (kernelslist.g names it), so the decoder sees truncated, damaged and foreign
 * streams, and valid ones reach the trace parser. */
#include <string.h>

#include "fuzz.h"
#include "workload/workload.h"

int gpuest_fuzz_accelsim_xz(const uint8_t *data, size_t size)
{
    static const char list[] = "kernel-1.traceg.xz\n";
    gpuest_workload_set_memory_limit(FUZZ_MEMORY_LIMIT);
    const char *list_path = fuzz_write(0, "kernelslist.g", list, strlen(list));
    const char *kernel_path = fuzz_write(1, "kernel-1.traceg.xz", data, size);
    const char *names[] = {list_path, kernel_path, NULL};
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_accelsim(fuzz_dir(), &wl, &err);
    fuzz_check_error("accelsim_xz", rc, &err, names);
    if (rc == GPUEST_OK) {
        fuzz_walk_workload("accelsim_xz", wl);
        gpuest_workload_destroy(wl);
    }
    return 0;
}
