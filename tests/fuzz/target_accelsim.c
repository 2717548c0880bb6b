/* target_accelsim.c: Accel-Sim / NVBit trace folders (src/workload/trace_accelsim.c).
 * Input: kernelslist.g, a NUL byte, then kernel-1.traceg (no NUL: the whole input is the kernel
 * file and kernelslist.g names it). A trace that loads is walked to its last instruction. */
#include <string.h>

#include "fuzz.h"
#include "workload/workload.h"

int gpuest_fuzz_accelsim(const uint8_t *data, size_t size)
{
    static const char default_list[] = "kernel-1.traceg\n";
    gpuest_workload_set_memory_limit(FUZZ_MEMORY_LIMIT);
    size_t list_len, kernel_len;
    const uint8_t *kernel;
    const char *list_path, *kernel_path;
    if (fuzz_split(data, size, &list_len, &kernel, &kernel_len)) {
        list_path = fuzz_write(0, "kernelslist.g", data, list_len);
        kernel_path = fuzz_write(1, "kernel-1.traceg", kernel, kernel_len);
    } else {
        list_path = fuzz_write(0, "kernelslist.g", default_list, strlen(default_list));
        kernel_path = fuzz_write(1, "kernel-1.traceg", data, size);
    }
    const char *names[] = {list_path, kernel_path, NULL};
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_accelsim(fuzz_dir(), &wl, &err);
    fuzz_check_error("accelsim", rc, &err, names);
    if (rc == GPUEST_OK) {
        fuzz_walk_workload("accelsim", wl);
        gpuest_workload_destroy(wl);
    }
    return 0;
}
