/* cli_results.c: opening results databases for 'gpuest plot' and 'gpuest report'. */
#include "cli_results.h"

#include "cli.h"

int cli_results_open(const char *cmd, const char *const *paths, gpuest_rdb_t **out)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_rdb_t *db = NULL;
    gpuest_err rc = gpuest_rdb_open(paths[0], &db, &err);
    for (int i = 1; rc == GPUEST_OK && paths[i]; i++) {
        gpuest_rdb_t *other = NULL;
        rc = gpuest_rdb_open(paths[i], &other, &err);
        if (rc == GPUEST_OK)
            rc = gpuest_rdb_merge(db, other, &err);
    }
    if (rc != GPUEST_OK) {
        gpuest_rdb_close(db);
        return cli_report(cmd, rc, &err);
    }
    *out = db;
    return 0;
}
