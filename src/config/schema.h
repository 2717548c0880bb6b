/* schema.h: the table of every configuration key (private to the config module). */
#ifndef GPUEST_CONFIG_SCHEMA_H
#define GPUEST_CONFIG_SCHEMA_H

#include <stddef.h>

#include "config.h"

typedef enum { KEY_INT, KEY_DOUBLE, KEY_ENUM, KEY_NAME, KEY_INT_LIST } key_type;

/* One configuration key: where it lives in gpuest_config_t and what it accepts. */
typedef struct {
    const char *section;
    const char *key;
    key_type type;
    size_t offset;            /* into gpuest_config_t */
    double min, max;          /* inclusive range for KEY_INT / KEY_DOUBLE / list items */
    const char *const *names; /* KEY_ENUM: value names by index; KEY_NAME: allowed names */
    const char *help;
    const char *const *(*names_fn)(void); /* KEY_NAME: allowed names from another module's registry */
} config_key;

/* Allowed names of a KEY_ENUM / KEY_NAME key. */
static inline const char *const *config_key_names(const config_key *k)
{
    return k->names_fn ? k->names_fn() : k->names;
}

extern const config_key config_keys[];
extern const size_t config_key_count;
extern const char *const config_sections[];

const config_key *config_find_key(const char *section, const char *key);

#endif
