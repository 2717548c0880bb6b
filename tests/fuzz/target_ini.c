/* target_ini.c: INI configuration files (src/config, inih) as `gpuest --config FILE` reads them.
 * A file that loads must also validate or fail with a message naming the file, and a valid one
 * must print and reload to the same configuration. */
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "fuzz.h"

int gpuest_fuzz_ini(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write(0, "machine.ini", data, size);
    const char *names[] = {path, NULL};
    gpuest_config_t cfg;
    gpuest_error_t err;
    if (gpuest_config_preset(&cfg, "fermi", &err) != GPUEST_OK)
        fuzz_finding("ini", "%s", err.msg);
    gpuest_err rc = gpuest_config_load_file(&cfg, path, &err);
    fuzz_check_error("ini", rc, &err, names);
    if (rc != GPUEST_OK)
        return 0;
    rc = gpuest_config_validate(&cfg, &err);
    if (rc != GPUEST_OK) {
        /* cross-field errors name where the key to blame got its value: this file's line, or the
         * preset the machine started from */
        const char *origins[] = {path, "preset", NULL};
        fuzz_check_error("ini", rc, &err, origins);
        return 0;
    }
    /* print + reload gives the same machine */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem || gpuest_config_write_ini(&cfg, mem) != GPUEST_OK || fclose(mem) != 0)
        fuzz_finding("ini", "cannot print the configuration");
    gpuest_config_t again;
    if (gpuest_config_preset(&again, "fermi", &err) != GPUEST_OK ||
        gpuest_config_load_string(&again, text, "printed", &err) != GPUEST_OK)
        fuzz_finding("ini", "the printed configuration does not load: %s", err.msg);
    if (!gpuest_config_equal(&cfg, &again))
        fuzz_finding("ini", "the printed configuration reloads to a different machine");
    free(text);
    return 0;
}
