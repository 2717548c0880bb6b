/* fann_check.c: checks a FANN network file before FANN reads it.
 * FANN trusts its file: the sizes it reads drive its allocations and each connection's neuron number
 * becomes a pointer without a bounds check, and its forward pass reads a fully connected neuron's
 * inputs from the previous layer by count. Before a file reaches FANN, those numbers are read here
 * with the same conversions FANN uses and checked, so a damaged or hostile model is an error naming
 * its line, never a crash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn_int.h"

#define FANN_MAX_LAYERS 16
#define FANN_MAX_LAYER_NEURONS 4096
#define FANN_MAX_CONNECTIONS (1u << 22)
#define FANN_MAX_CASCADE 64
#define FANN_ACTIVATIONS 18 /* FANN 2.2: FANN_LINEAR .. FANN_COS */

typedef struct {
    const char *text, *path;
    gpuest_error_t *err;
} fann_text_t;

static int line_at(const fann_text_t *t, const char *p)
{
    int line = 1;
    for (const char *q = t->text; q < p; q++)
        line += *q == '\n';
    return line;
}

static gpuest_err fann_bad(const fann_text_t *t, const char *at, const char *what)
{
    return gpuest_fail(t->err, GPUEST_ECORRUPT, "%s:%d: %s", t->path, line_at(t, at), what);
}

/* Start of the value of the first line beginning with key, or NULL. */
static const char *fann_find(const fann_text_t *t, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = t->text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, n) == 0)
            return p + n;
    return NULL;
}

/* "key=<unsigned>\n" in lo..hi. */
static gpuest_err fann_uint(const fann_text_t *t, const char *key, unsigned lo, unsigned hi, unsigned *out)
{
    const char *p = fann_find(t, key);
    char msg[160];
    snprintf(msg, sizeof msg, "expected %s<integer %u..%u>", key, lo, hi);
    if (!p)
        return gpuest_fail(t->err, GPUEST_ECORRUPT, "%s: no '%s' line (not a FANN 2.1 network)", t->path, key);
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || errno || (*end != '\n' && *end != '\r') || v < lo || v > hi)
        return fann_bad(t, p, msg);
    *out = (unsigned)v;
    return GPUEST_OK;
}

gpuest_err learn_check_fann_text(const char *text, const char *path, gpuest_error_t *err)
{
    fann_text_t t = {text, path, err};
    if (strncmp(text, "FANN_FLO_2.1\n", 13) != 0)
        return gpuest_fail(err, GPUEST_ECORRUPT,
                           "%s:1: expected the header FANN_FLO_2.1 (a double-precision FANN 2.1 "
                           "network)",
                           path);
    unsigned layers, type, cascade;
    GPUEST_TRY(fann_uint(&t, "num_layers=", 2, FANN_MAX_LAYERS, &layers));
    GPUEST_TRY(fann_uint(&t, "network_type=", 0, 1, &type));
    GPUEST_TRY(fann_uint(&t, "cascade_activation_functions_count=", 0, FANN_MAX_CASCADE, &cascade));
    GPUEST_TRY(fann_uint(&t, "cascade_activation_steepnesses_count=", 0, FANN_MAX_CASCADE, &cascade));
    const char *p = fann_find(&t, "layer_sizes=");
    if (!p)
        return gpuest_fail(err, GPUEST_ECORRUPT, "%s: no 'layer_sizes=' line", path);
    unsigned size[FANN_MAX_LAYERS], neurons = 0;
    for (unsigned l = 0; l < layers; l++) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || v < 1 || v > FANN_MAX_LAYER_NEURONS)
            return fann_bad(&t, p, "expected one size 1..4096 per layer on the layer_sizes line");
        size[l] = (unsigned)v;
        neurons += size[l];
        p = end;
    }
    p = fann_find(&t, "neurons (num_inputs, activation_function, activation_steepness)=");
    if (!p)
        return gpuest_fail(err, GPUEST_ECORRUPT, "%s: no neurons line", path);
    unsigned long connections = 0;
    unsigned layer = 0, first_of_layer = 0;
    for (unsigned i = 0; i < neurons; i++) {
        while (i >= first_of_layer + size[layer])
            first_of_layer += size[layer++];
        unsigned inputs, function;
        double steepness;
        int used = 0;
        if (sscanf(p, "(%u, %u, %le) %n", &inputs, &function, &steepness, &used) != 3 || used == 0)
            return fann_bad(&t, p, "expected one (num_inputs, activation_function, steepness) per neuron");
        /* a fully connected layered network reads a neuron's inputs from the previous layer, a
         * shortcut network from every earlier layer */
        unsigned reachable = layer == 0 ? 0 : type == 0 ? size[layer - 1] : first_of_layer;
        if (inputs > reachable || function >= FANN_ACTIVATIONS)
            return fann_bad(&t, p, "a neuron has more inputs than the layers before it hold, or an unknown activation");
        connections += inputs;
        if (connections > FANN_MAX_CONNECTIONS)
            return fann_bad(&t, p, "more connections than the limit of 4194304");
        p += used;
    }
    p = fann_find(&t, "connections (connected_to_neuron, weight)=");
    if (!p)
        return gpuest_fail(err, GPUEST_ECORRUPT, "%s: no connections line", path);
    for (unsigned long i = 0; i < connections; i++) {
        unsigned from;
        double weight;
        int used = 0;
        if (sscanf(p, "(%u, %le) %n", &from, &weight, &used) != 2 || used == 0 || from >= neurons)
            return fann_bad(&t, p, "expected one (neuron, weight) per connection, naming a neuron of the network");
        p += used;
    }
    return GPUEST_OK;
}
