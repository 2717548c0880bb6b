/* import.h: configurations of other simulators turned into gpuest configurations.
 *
 * gpuest_import_gpgpusim reads a GPGPU-Sim 3.x / Accel-Sim option file
 * (gpgpusim.config: "-option value" pairs, '#' comments, quoted values that may
 * span lines) and the BookSim interconnect file it names, and maps every option
 * gpuest models onto a gpuest configuration that starts from a base preset.
 * Options it does not model are listed, each with the reason; malformed values
 * fail naming file:line. */
#ifndef GPUEST_IMPORT_H
#define GPUEST_IMPORT_H

#include <stdio.h>

#include "config/config.h"
#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One gpuest key set from the imported files. */
typedef struct {
    char key[64];   /* "section.key" */
    char value[64]; /* as written to the INI */
    char from[256]; /* "file:line -option" the value came from */
} gpuest_import_mapped_t;

/* One option (or part of one) that the import read but gpuest does not model. */
typedef struct {
    char option[96]; /* "-gpgpu_tex_cache:l1" or "icnt: internal_speedup" */
    char from[192];  /* file:line */
    char why[192];   /* empty: gpuest has no such mechanism */
} gpuest_import_ignored_t;

typedef struct gpuest_import_s gpuest_import_t;

/* Reads config_path and the interconnect file: icnt_path, or when NULL the file
 * named by -inter_config_file (relative to config_path's folder; none named and
 * -network_mode 2: the local crossbar options). base_preset fills what the files
 * do not describe. On success *out owns the result (gpuest_import_free). */
gpuest_err gpuest_import_gpgpusim(const char *config_path, const char *icnt_path, const char *base_preset,
                                  gpuest_import_t **out, gpuest_error_t *err);
void gpuest_import_free(gpuest_import_t *imp);

const gpuest_config_t *gpuest_import_config(const gpuest_import_t *imp);
size_t gpuest_import_num_mapped(const gpuest_import_t *imp);
const gpuest_import_mapped_t *gpuest_import_mapped(const gpuest_import_t *imp, size_t i);
size_t gpuest_import_num_ignored(const gpuest_import_t *imp);
const gpuest_import_ignored_t *gpuest_import_ignored(const gpuest_import_t *imp, size_t i);
/* The interconnect file that was read ("" when none). */
const char *gpuest_import_icnt_path(const gpuest_import_t *imp);

/* Writes the whole configuration as gpuest INI (it loads back to the same
 * configuration), headed by comments naming the sources, every mapped key with
 * its origin, and every ignored option. */
gpuest_err gpuest_import_write_ini(const gpuest_import_t *imp, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
