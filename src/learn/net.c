/* net.c: training and running FANN networks with scaled inputs, deterministic from a seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learn_int.h"

void learn_silence_fann(void)
{
    fann_set_error_log(NULL, NULL);
}

/* ------------------------------------------------------------ data sets */

void gpuest_learn_data_init(gpuest_learn_data_t *d, size_t n_in, size_t n_out)
{
    memset(d, 0, sizeof *d);
    d->n_in = n_in;
    d->n_out = n_out;
}

gpuest_err gpuest_learn_data_add(gpuest_learn_data_t *d, const double *x, const double *y, uint32_t group)
{
    if (d->rows == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        double *nx = realloc(d->x, cap * d->n_in * sizeof *nx);
        if (nx)
            d->x = nx;
        double *ny = realloc(d->y, cap * d->n_out * sizeof *ny);
        if (ny)
            d->y = ny;
        uint32_t *ng = realloc(d->group, cap * sizeof *ng);
        if (ng)
            d->group = ng;
        if (!nx || !ny || !ng)
            return GPUEST_ENOMEM;
        d->cap = cap;
    }
    memcpy(d->x + d->rows * d->n_in, x, d->n_in * sizeof *x);
    memcpy(d->y + d->rows * d->n_out, y, d->n_out * sizeof *y);
    d->group[d->rows++] = group;
    return GPUEST_OK;
}

void gpuest_learn_data_free(gpuest_learn_data_t *d)
{
    free(d->x);
    free(d->y);
    free(d->group);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------ network object */

const char *gpuest_learn_algo_name(gpuest_learn_algo_t a)
{
    return a == GPUEST_LEARN_RPROP ? "rprop" : "incremental";
}

void gpuest_learn_train_defaults(gpuest_learn_train_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->algo = GPUEST_LEARN_RPROP;
    o->hidden = 16;
    o->epochs = 2000;
    o->learning_rate = 0.01;
    o->target_mse = 1e-5;
    o->seed = 1;
}

gpuest_learn_net_t *learn_net_alloc(size_t n_in, size_t n_out)
{
    gpuest_learn_net_t *net = calloc(1, sizeof *net);
    if (!net)
        return NULL;
    net->n_in = n_in;
    net->n_out = n_out;
    net->min = calloc(n_in ? n_in : 1, sizeof *net->min);
    net->max = calloc(n_in ? n_in : 1, sizeof *net->max);
    if (!net->min || !net->max) {
        gpuest_learn_net_destroy(net);
        return NULL;
    }
    return net;
}

void gpuest_learn_net_destroy(gpuest_learn_net_t *net)
{
    if (!net)
        return;
    if (net->ann)
        fann_destroy(net->ann);
    free(net->min);
    free(net->max);
    free(net);
}

size_t gpuest_learn_net_inputs(const gpuest_learn_net_t *net)
{
    return net->n_in;
}

size_t gpuest_learn_net_outputs(const gpuest_learn_net_t *net)
{
    return net->n_out;
}

void gpuest_learn_net_input_range(const gpuest_learn_net_t *net, size_t i, double *min, double *max)
{
    *min = net->min[i];
    *max = net->max[i];
}

void learn_scale(const gpuest_learn_net_t *net, const double *x, fann_type *out)
{
    for (size_t i = 0; i < net->n_in; i++) {
        double span = net->max[i] - net->min[i];
        out[i] = span > 0.0 ? (fann_type)(2.0 * (x[i] - net->min[i]) / span - 1.0) : 0.0;
    }
}

void gpuest_learn_net_run(const gpuest_learn_net_t *net, const double *x, double *y)
{
    fann_type in[64];
    learn_scale(net, x, in);
    fann_type *o = fann_run(net->ann, in);
    for (size_t i = 0; i < net->n_out; i++)
        y[i] = o[i];
}

double gpuest_learn_net_mse(const gpuest_learn_net_t *net, const gpuest_learn_data_t *d)
{
    if (d->rows == 0)
        return 0.0;
    double sum = 0.0, y[64];
    for (size_t r = 0; r < d->rows; r++) {
        gpuest_learn_net_run(net, d->x + r * d->n_in, y);
        for (size_t j = 0; j < d->n_out; j++) {
            double e = y[j] - d->y[r * d->n_out + j];
            sum += e * e;
        }
    }
    return sum / (double)(d->rows * d->n_out);
}

gpuest_err gpuest_learn_net_set_meta(gpuest_learn_net_t *net, const char *name, double value)
{
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof net->meta_name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
        return GPUEST_EINVAL;
    for (size_t i = 0; i < net->nmeta; i++)
        if (strcmp(net->meta_name[i], name) == 0) {
            net->meta_value[i] = value;
            return GPUEST_OK;
        }
    if (net->nmeta == GPUEST_LEARN_META_MAX)
        return GPUEST_ERANGE;
    memcpy(net->meta_name[net->nmeta], name, len + 1);
    net->meta_value[net->nmeta++] = value;
    return GPUEST_OK;
}

int gpuest_learn_net_get_meta(const gpuest_learn_net_t *net, const char *name, double *value)
{
    for (size_t i = 0; i < net->nmeta; i++)
        if (strcmp(net->meta_name[i], name) == 0) {
            *value = net->meta_value[i];
            return 1;
        }
    return 0;
}

/* ------------------------------------------------------------ training */

/* Initial weights uniform in [-0.1, 0.1] from our generator: FANN's own initialisation
 * seeds rand() from the clock, which would break same-seed-same-network. */
static gpuest_err init_weights(struct fann *ann, gpuest_rng_t *rng)
{
    unsigned n = fann_get_total_connections(ann);
    struct fann_connection *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return GPUEST_ENOMEM;
    fann_get_connection_array(ann, c);
    for (unsigned i = 0; i < n; i++)
        c[i].weight = (fann_type)(0.2 * gpuest_rng_uniform(rng) - 0.1);
    fann_set_weight_array(ann, c, n);
    free(c);
    return GPUEST_OK;
}

static struct fann_train_data *make_train_data(const gpuest_learn_net_t *net, const gpuest_learn_data_t *d)
{
    struct fann_train_data *t = fann_create_train((unsigned)d->rows, (unsigned)d->n_in, (unsigned)d->n_out);
    if (!t)
        return NULL;
    for (size_t r = 0; r < d->rows; r++) {
        learn_scale(net, d->x + r * d->n_in, t->input[r]);
        for (size_t j = 0; j < d->n_out; j++)
            t->output[r][j] = d->y[r * d->n_out + j];
    }
    return t;
}

/* Fisher-Yates over FANN's row pointers (incremental training sees rows in a new order
 * every epoch; fann_shuffle_train_data would use rand()). */
static void shuffle_rows(struct fann_train_data *t, gpuest_rng_t *rng)
{
    for (unsigned i = t->num_data; i > 1; i--) {
        unsigned j = (unsigned)gpuest_rng_below(rng, i);
        fann_type *xi = t->input[i - 1], *yi = t->output[i - 1];
        t->input[i - 1] = t->input[j];
        t->output[i - 1] = t->output[j];
        t->input[j] = xi;
        t->output[j] = yi;
    }
}

static void fit_scaling(gpuest_learn_net_t *net, const gpuest_learn_data_t *d)
{
    for (size_t i = 0; i < d->n_in; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t r = 0; r < d->rows; r++) {
            double v = d->x[r * d->n_in + i];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        net->min[i] = lo;
        net->max[i] = hi;
    }
}

gpuest_err gpuest_learn_train(const gpuest_learn_data_t *d, const gpuest_learn_train_opts_t *o,
                              gpuest_learn_net_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (d->rows == 0 || d->n_in == 0 || d->n_out == 0 || d->n_in > 64 || d->n_out > 64)
        return gpuest_fail(err, GPUEST_EINVAL, "training needs rows, 1-64 inputs and 1-64 outputs");
    if (o->hidden == 0 || o->epochs == 0 || !(o->learning_rate > 0.0))
        return gpuest_fail(err, GPUEST_EINVAL, "training needs hidden > 0, epochs > 0 and a positive learning rate");
    learn_silence_fann();
    gpuest_learn_net_t *net = learn_net_alloc(d->n_in, d->n_out);
    gpuest_rng_t *rng = NULL;
    if (!net || gpuest_rng_create(o->seed, &rng) != GPUEST_OK) {
        gpuest_learn_net_destroy(net);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory creating a network");
    }
    fit_scaling(net, d);
    net->ann = fann_create_standard(3, (unsigned)d->n_in, o->hidden, (unsigned)d->n_out);
    struct fann_train_data *t = net->ann ? make_train_data(net, d) : NULL;
    gpuest_err rc = (!net->ann || !t) ? GPUEST_ENOMEM : init_weights(net->ann, rng);
    /* fann_destroy_train frees the row block through input[0] / output[0]: remember them,
     * since shuffling permutes the row pointers. */
    fann_type *block_in = t ? t->input[0] : NULL, *block_out = t ? t->output[0] : NULL;
    if (rc == GPUEST_OK) {
        fann_set_activation_function_hidden(net->ann, FANN_SIGMOID_SYMMETRIC);
        fann_set_activation_function_output(net->ann, FANN_SIGMOID);
        fann_set_train_error_function(net->ann, FANN_ERRORFUNC_LINEAR);
        fann_set_training_algorithm(net->ann, o->algo == GPUEST_LEARN_RPROP ? FANN_TRAIN_RPROP : FANN_TRAIN_INCREMENTAL);
        fann_set_learning_rate(net->ann, (float)o->learning_rate);
        for (unsigned e = 0; e < o->epochs; e++) {
            if (o->algo == GPUEST_LEARN_INCREMENTAL)
                shuffle_rows(t, rng);
            double mse = fann_train_epoch(net->ann, t);
            if (mse < o->target_mse)
                break;
        }
    }
    if (t) {
        t->input[0] = block_in;
        t->output[0] = block_out;
        fann_destroy_train(t);
    }
    gpuest_rng_destroy(rng);
    if (rc != GPUEST_OK) {
        gpuest_learn_net_destroy(net);
        return gpuest_fail(err, rc, "out of memory training a network");
    }
    *out = net;
    return GPUEST_OK;
}

/* ------------------------------------------------------------ k-fold by group */

gpuest_err gpuest_learn_kfold(const gpuest_learn_data_t *d, unsigned k, uint64_t seed, unsigned *fold_of_row,
                              gpuest_error_t *err)
{
    /* Distinct groups in order of first appearance. */
    uint32_t *groups = malloc((d->rows ? d->rows : 1) * sizeof *groups);
    unsigned *fold = malloc((d->rows ? d->rows : 1) * sizeof *fold);
    if (!groups || !fold) {
        free(groups), free(fold);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    size_t ng = 0;
    for (size_t r = 0; r < d->rows; r++) {
        size_t g = 0;
        while (g < ng && groups[g] != d->group[r])
            g++;
        if (g == ng)
            groups[ng++] = d->group[r];
    }
    if (k < 2 || k > ng) {
        free(groups), free(fold);
        return gpuest_fail(err, GPUEST_ERANGE, "k-fold needs 2 <= k <= number of datasets (%zu), got %u", ng, k);
    }
    gpuest_rng_t *rng = NULL;
    if (gpuest_rng_create(seed, &rng) != GPUEST_OK) {
        free(groups), free(fold);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    for (size_t i = ng; i > 1; i--) {
        size_t j = (size_t)gpuest_rng_below(rng, i);
        uint32_t tmp = groups[i - 1];
        groups[i - 1] = groups[j];
        groups[j] = tmp;
    }
    gpuest_rng_destroy(rng);
    for (size_t g = 0; g < ng; g++)
        fold[g] = (unsigned)(g % k);
    for (size_t r = 0; r < d->rows; r++) {
        size_t g = 0;
        while (groups[g] != d->group[r])
            g++;
        fold_of_row[r] = fold[g];
    }
    free(groups), free(fold);
    return GPUEST_OK;
}
