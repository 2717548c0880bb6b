/* io.c: saving and loading a network with its scaling file, with clear errors for damage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn_int.h"

#define SCALE_FORMAT "gpuest-learn-scale"
#define SCALE_VERSION 1
static const char *const scale_header[4] = {"kind", "name", "a", "b"};

/* FNV-1a, 64 bits: detects a damaged or swapped network file. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static gpuest_err write_row(gpuest_csv_writer_t *w, const char *kind, const char *name, const char *a, const char *b,
                            gpuest_error_t *err)
{
    const char *f[4] = {kind, name, a, b};
    return gpuest_csv_write_row(w, f, err);
}

/* Writes the scaling file into *wp, left open (uncommitted) on success so the caller can commit it
 * together with the network. */
static gpuest_err write_scale(const gpuest_learn_net_t *net, const char *path, uint64_t sum, gpuest_csv_writer_t *wp,
                              gpuest_error_t *err)
{
    gpuest_csv_writer_t w;
    GPUEST_TRY(gpuest_csv_writer_open(&w, path, scale_header, 4, err));
    char a[48], b[48], name[24];
    snprintf(a, sizeof a, "%d", SCALE_VERSION);
    gpuest_err rc = write_row(&w, "format", SCALE_FORMAT, a, "", err);
    snprintf(a, sizeof a, "%zu", net->n_in);
    snprintf(b, sizeof b, "%zu", net->n_out);
    if (rc == GPUEST_OK)
        rc = write_row(&w, "shape", "", a, b, err);
    for (size_t i = 0; i < net->n_in && rc == GPUEST_OK; i++) {
        snprintf(name, sizeof name, "%zu", i);
        gpuest_fmt_double(a, sizeof a, net->min[i]);
        gpuest_fmt_double(b, sizeof b, net->max[i]);
        rc = write_row(&w, "input", name, a, b, err);
    }
    for (size_t i = 0; i < net->nmeta && rc == GPUEST_OK; i++) {
        gpuest_fmt_double(a, sizeof a, net->meta_value[i]);
        rc = write_row(&w, "meta", net->meta_name[i], a, "", err);
    }
    snprintf(a, sizeof a, "%016" PRIx64, sum);
    if (rc == GPUEST_OK)
        rc = write_row(&w, "checksum", "fnv1a64", a, "", err);
    if (rc == GPUEST_OK) {
        *wp = w;
        return GPUEST_OK;
    }
    gpuest_csv_writer_abort(&w);
    return rc;
}

gpuest_err gpuest_learn_net_save(const gpuest_learn_net_t *net, const char *net_path, const char *scale_path,
                                 gpuest_error_t *err)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", net_path, (long)getpid()) >= (int)sizeof tmp)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: path too long", net_path);
    learn_silence_fann();
    if (fann_save(net->ann, tmp) != 0) {
        remove(tmp);
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot write the network", net_path);
    }
    unsigned char *data = NULL;
    size_t size = 0;
    gpuest_err rc = gpuest_read_file(tmp, &data, &size, err);
    gpuest_csv_writer_t scale;
    /* Both files are complete in their temporary names before either replaces the old one: a
     * failure leaves the previous model (or nothing), never half a file. */
    if (rc == GPUEST_OK)
        rc = write_scale(net, scale_path, fnv1a(data, size), &scale, err);
    free(data);
    if (rc != GPUEST_OK) {
        remove(tmp);
        return rc;
    }
    if (rename(tmp, net_path) != 0) {
        rc = gpuest_fail(err, GPUEST_EIO, "%s: cannot rename from temporary file: %s", net_path, strerror(errno));
        remove(tmp);
        gpuest_csv_writer_abort(&scale);
        return rc;
    }
    return gpuest_csv_writer_commit(&scale, err);
}

/* ------------------------------------------------------------ loading */

typedef struct {
    const char *path;
    gpuest_learn_net_t *net;
    size_t n_in, n_out;
    int have_format, have_shape, have_sum;
    size_t inputs_seen;
    uint64_t sum;
} scale_ctx;

static gpuest_err scale_bad(gpuest_error_t *err, const char *path, size_t line, const char *what)
{
    return gpuest_fail(err, GPUEST_ECORRUPT, "%s:%zu: %s", path, line, what);
}

static gpuest_err on_scale_row(void *p, size_t line, const char *const *f, size_t nf, gpuest_error_t *err)
{
    scale_ctx *c = p;
    if (nf != 4)
        return gpuest_fail(err, GPUEST_ECORRUPT, "%s:%zu: expected 4 columns (kind,name,a,b), found %zu", c->path,
                           line, nf);
    if (line == 1)
        return strcmp(f[0], "kind") == 0 ? GPUEST_OK : scale_bad(err, c->path, line, "expected the header kind,name,a,b");
    uint64_t u, v;
    double lo, hi;
    if (strcmp(f[0], "format") == 0) {
        if (strcmp(f[1], SCALE_FORMAT) != 0 || gpuest_parse_u64(f[2], &u) != GPUEST_OK || u != SCALE_VERSION)
            return scale_bad(err, c->path, line, "expected format " SCALE_FORMAT " version 1");
        c->have_format = 1;
    } else if (strcmp(f[0], "shape") == 0) {
        if (gpuest_parse_u64(f[2], &u) != GPUEST_OK || gpuest_parse_u64(f[3], &v) != GPUEST_OK)
            return scale_bad(err, c->path, line, "expected the shape as two integers");
        if (u != c->n_in || v != c->n_out)
            return gpuest_fail(err, GPUEST_ECORRUPT, "%s:%zu: network shape %llu x %llu, expected %zu x %zu",
                               c->path, line, (unsigned long long)u, (unsigned long long)v, c->n_in, c->n_out);
        c->have_shape = 1;
    } else if (strcmp(f[0], "input") == 0) {
        if (!c->have_shape || gpuest_parse_u64(f[1], &u) != GPUEST_OK || u != c->inputs_seen || u >= c->n_in ||
            gpuest_parse_double(f[2], &lo) != GPUEST_OK || gpuest_parse_double(f[3], &hi) != GPUEST_OK || !(lo <= hi))
            return scale_bad(err, c->path, line, "expected input <index> <min> <max> in order after the shape");
        c->net->min[u] = lo;
        c->net->max[u] = hi;
        c->inputs_seen++;
    } else if (strcmp(f[0], "meta") == 0) {
        if (gpuest_parse_double(f[2], &lo) != GPUEST_OK || gpuest_learn_net_set_meta(c->net, f[1], lo) != GPUEST_OK)
            return scale_bad(err, c->path, line, "expected meta <name> <number>");
    } else if (strcmp(f[0], "checksum") == 0) {
        char *end = NULL;
        errno = 0;
        unsigned long long s = strtoull(f[2], &end, 16);
        if (strcmp(f[1], "fnv1a64") != 0 || errno != 0 || !end || *end != '\0' || strlen(f[2]) != 16)
            return scale_bad(err, c->path, line, "expected checksum fnv1a64 <16 hex digits>");
        c->sum = s;
        c->have_sum = 1;
    } else {
        return scale_bad(err, c->path, line, "unknown row kind (expected format, shape, input, meta or checksum)");
    }
    return GPUEST_OK;
}

/* ------------------------------------------------------------ checking a network file for FANN
 * FANN trusts its file: the sizes it reads drive its allocations and each connection's neuron number
 * becomes a pointer without a bounds check, and its forward pass reads a fully connected neuron's
 * inputs from the previous layer by count. Before a file reaches FANN, those numbers are read here
 * with the same conversions FANN uses and checked, so a damaged or hostile model is an error naming
 * its line, never a crash. */
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

static gpuest_err check_fann_text(const char *text, const char *path, gpuest_error_t *err)
{
    fann_text_t t = {text, path, err};
    if (strncmp(text, "FANN_FLO_2.1\n", 13) != 0)
        return gpuest_fail(err, GPUEST_ECORRUPT, "%s:1: expected the header FANN_FLO_2.1 (a double-precision FANN 2.1 "
                           "network)", path);
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

gpuest_err gpuest_learn_net_load(const char *net_path, const char *scale_path, size_t n_in, size_t n_out,
                                 gpuest_learn_net_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (n_in == 0 || n_in > 64 || n_out == 0 || n_out > 64)
        return gpuest_fail(err, GPUEST_EINVAL, "network shape must be 1-64 inputs and outputs");
    gpuest_learn_net_t *net = learn_net_alloc(n_in, n_out);
    if (!net)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    scale_ctx c = {.path = scale_path, .net = net, .n_in = n_in, .n_out = n_out};
    gpuest_err rc = gpuest_csv_read(scale_path, on_scale_row, &c, err);
    if (rc == GPUEST_EPARSE) {
        rc = GPUEST_ECORRUPT;
        if (err)
            err->code = rc; /* the message names the line; the code says what kind of input failed */
    }
    if (rc == GPUEST_OK && (!c.have_format || !c.have_shape || !c.have_sum || c.inputs_seen != n_in))
        rc = gpuest_fail(err, GPUEST_ECORRUPT, "%s: incomplete scaling file (needs format, shape, %zu inputs and a "
                         "checksum)", scale_path, n_in);
    unsigned char *data = NULL;
    size_t size = 0;
    if (rc == GPUEST_OK)
        rc = gpuest_read_file(net_path, &data, &size, err);
    if (rc == GPUEST_OK && fnv1a(data, size) != c.sum)
        rc = gpuest_fail(err, GPUEST_ECORRUPT, "%s: checksum does not match %s: the network file is damaged or "
                         "belongs to another model (retrain it)", net_path, scale_path);
    if (rc == GPUEST_OK && memchr(data, '\0', size))
        rc = gpuest_fail(err, GPUEST_ECORRUPT, "%s: binary data (a NUL byte) in a network file", net_path);
    if (rc == GPUEST_OK)
        rc = check_fann_text((const char *)data, net_path, err);
    free(data);
    if (rc == GPUEST_OK) {
        learn_silence_fann();
        net->ann = fann_create_from_file(net_path);
        if (!net->ann)
            rc = gpuest_fail(err, GPUEST_ECORRUPT, "%s: FANN could not read the network", net_path);
        else if (fann_get_num_input(net->ann) != n_in || fann_get_num_output(net->ann) != n_out)
            rc = gpuest_fail(err, GPUEST_ECORRUPT, "%s: network has %u inputs and %u outputs, expected %zu and %zu",
                             net_path, fann_get_num_input(net->ann), fann_get_num_output(net->ann), n_in, n_out);
    }
    if (rc != GPUEST_OK) {
        gpuest_learn_net_destroy(net);
        return rc;
    }
    *out = net;
    return GPUEST_OK;
}
