/* io.c: saving and loading a network with its scaling file, with clear errors for damage. */
#include <errno.h>
#include <math.h>
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
            gpuest_parse_double(f[2], &lo) != GPUEST_OK || gpuest_parse_double(f[3], &hi) != GPUEST_OK || !(lo <= hi) ||
            !isfinite(lo) || !isfinite(hi)) /* an infinite range scales every input to NaN */
            return scale_bad(err, c->path, line, "expected input <index> <min> <max> in order after the shape");
        c->net->min[u] = lo;
        c->net->max[u] = hi;
        c->inputs_seen++;
    } else if (strcmp(f[0], "meta") == 0) {
        /* a NaN margin or guard made every comparison false: the model's decisions changed silently
         * (an infinity stays: a trainer may store one, e.g. the smallest error of no set) */
        if (gpuest_parse_double(f[2], &lo) != GPUEST_OK || isnan(lo) ||
            gpuest_learn_net_set_meta(c->net, f[1], lo) != GPUEST_OK)
            return scale_bad(err, c->path, line, "expected meta <name> <number, not NaN>");
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
        rc = learn_check_fann_text((const char *)data, net_path, err);
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
