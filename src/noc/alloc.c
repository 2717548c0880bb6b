/* alloc.c: separable round-robin allocators (iSLIP and input-first) over bitset request matrices. */
#include <stdlib.h>
#include <string.h>

#include "noc_int.h"

static int words(int n) { return (n + 63) / 64; }

gpuest_err noc_alloc_init(noc_alloc_t *a, int nin, int nout, gpuest_noc_alloc_t type, int iters)
{
    memset(a, 0, sizeof *a);
    a->nin = nin;
    a->nout = nout;
    a->wi = words(nin);
    a->wo = words(nout);
    a->type = type;
    a->iters = iters < 1 ? 1 : iters;
    a->in_req = calloc((size_t)nin * a->wo, sizeof *a->in_req);
    a->out_req = calloc((size_t)nout * a->wi, sizeof *a->out_req);
    a->in_list = calloc((size_t)nin, sizeof(int));
    a->out_list = calloc((size_t)nout, sizeof(int));
    a->gptr = calloc((size_t)nout, sizeof(int));
    a->aptr = calloc((size_t)nin, sizeof(int));
    a->inmatch = malloc((size_t)nin * sizeof(int));
    a->outmatch = malloc((size_t)nout * sizeof(int));
    a->grant = malloc((size_t)nout * sizeof(int));
    if (!a->in_req || !a->out_req || !a->in_list || !a->out_list || !a->gptr || !a->aptr || !a->inmatch ||
        !a->outmatch || !a->grant)
        return GPUEST_ENOMEM;
    for (int i = 0; i < nin; i++)
        a->inmatch[i] = -1;
    for (int o = 0; o < nout; o++)
        a->outmatch[o] = -1;
    return GPUEST_OK;
}

void noc_alloc_free(noc_alloc_t *a)
{
    free(a->in_req);
    free(a->out_req);
    free(a->in_list);
    free(a->out_list);
    free(a->gptr);
    free(a->aptr);
    free(a->inmatch);
    free(a->outmatch);
    free(a->grant);
    memset(a, 0, sizeof *a);
}

