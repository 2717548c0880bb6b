/* learn_int.h: the network object shared by the learn module's files. */
#ifndef GPUEST_LEARN_INT_H
#define GPUEST_LEARN_INT_H

#include <doublefann.h>

#include "learn/learn.h"

/* A FANN network plus the min-max scaling of its inputs (raw -> [-1, 1]) and metadata.
 * Invariant: min[i] <= max[i]; an input with min == max is fed as 0. */
struct gpuest_learn_net_s {
    struct fann *ann;
    size_t n_in, n_out;
    double *min, *max;                           /* n_in each */
    size_t nmeta;
    char meta_name[GPUEST_LEARN_META_MAX][32];
    double meta_value[GPUEST_LEARN_META_MAX];
};

/* Allocates an empty net object (no FANN network yet). */
gpuest_learn_net_t *learn_net_alloc(size_t n_in, size_t n_out);
/* Raw inputs -> scaled inputs (n_in values). */
void learn_scale(const gpuest_learn_net_t *net, const double *x, fann_type *out);
/* FANN keeps its error messages off stderr (library code never prints). */
void learn_silence_fann(void);

/* Checks the sizes, neuron inputs and connection targets of a FANN 2.1 network file (text,
 * NUL-terminated) before FANN reads it; ECORRUPT naming path:line otherwise (fann_check.c). */
gpuest_err learn_check_fann_text(const char *text, const char *path, gpuest_error_t *err);

#endif
