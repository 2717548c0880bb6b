/* target_trace_csv.c: native CSV traces with their memory image (src/workload/trace_csv.c).
 * Input: the CSV trace, then (after a NUL byte, if any) the raw image file. */
#include "fuzz.h"
#include "workload/workload.h"

int gpuest_fuzz_trace_csv(const uint8_t *data, size_t size)
{
    gpuest_workload_set_memory_limit(FUZZ_MEMORY_LIMIT);
    size_t csv_len, image_len;
    const uint8_t *image;
    int has_image = fuzz_split(data, size, &csv_len, &image, &image_len);
    const char *csv_path = fuzz_write(0, "trace.csv", data, csv_len);
    const char *image_path = has_image ? fuzz_write(1, "trace.img", image, image_len) : NULL;
    const char *names[] = {csv_path, has_image ? image_path : NULL, NULL};
    gpuest_workload_t *wl = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_workload_open_csv(csv_path, image_path, &wl, &err);
    fuzz_check_error("trace_csv", rc, &err, names);
    if (rc == GPUEST_OK) {
        fuzz_walk_workload("trace_csv", wl);
        gpuest_workload_destroy(wl);
    }
    return 0;
}
