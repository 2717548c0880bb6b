/* target_learn_model.c: FANN network files and their scaling files (src/learn/io.c), as
 * `gpuest approx` loads a trained model.
 * Input: the scaling CSV, a NUL byte, then the .net file. The checksum row of the scaling file is
 * rewritten to the network's real checksum (when the row is there), so damaged networks get past
 * the checksum and reach the network reader, as a model edited by hand would. A network that loads
 * is run once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "learn/learn.h"

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int gpuest_fuzz_learn_model(const uint8_t *data, size_t size)
{
    size_t scale_len, net_len;
    const uint8_t *net;
    fuzz_split(data, size, &scale_len, &net, &net_len);
    char *scale = fuzz_text(data, scale_len);
    char *sum = strstr(scale, "fnv1a64,");
    if (sum && strlen(sum + 8) >= 16) {
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a(net, net_len));
        memcpy(sum + 8, hex, 16);
    }
    /* The caller's expected shape: the one the scaling file declares (4 x 5 without one). */
    unsigned n_in = 4, n_out = 5;
    const char *shape = strstr(scale, "shape,,");
    if (!shape || sscanf(shape, "shape,,%u,%u", &n_in, &n_out) != 2 || n_in < 1 || n_in > 64 || n_out < 1 || n_out > 64)
        n_in = 4, n_out = 5;
    const char *scale_path = fuzz_write(0, "model.scale.csv", scale, strlen(scale));
    const char *net_path = fuzz_write(1, "model.net", net, net_len);
    free(scale);
    const char *names[] = {scale_path, net_path, NULL};
    gpuest_learn_net_t *model = NULL;
    gpuest_error_t err;
    gpuest_err rc = gpuest_learn_net_load(net_path, scale_path, n_in, n_out, &model, &err);
    fuzz_check_error("learn_model", rc, &err, names);
    if (rc == GPUEST_OK) {
        double x[64] = {0}, y[64];
        gpuest_learn_net_run(model, x, y);
        gpuest_learn_net_destroy(model);
    }
    return 0;
}
