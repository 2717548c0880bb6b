/* model_test_util.h: shared helpers for the model tests (BookSim-like network configurations). */
#ifndef MODEL_TEST_UTIL_H
#define MODEL_TEST_UTIL_H

#include <math.h>
#include <string.h>

#include "config/config.h"
#include "model/model.h"

/* Older cmocka lacks assert_double_equal: a tolerance check that prints both values. */
#ifndef assert_double_equal
#define assert_double_equal(a, b, eps)                                                                   \
    do {                                                                                                 \
        double a_ = (a), b_ = (b);                                                                       \
        if (!(fabs(a_ - b_) <= (eps))) {                                                                 \
            print_error("%.17g != %.17g (tolerance %g)\n", a_, b_, (double)(eps));                        \
            fail();                                                                                      \
        }                                                                                                \
    } while (0)
#endif

/* A k x k mesh with BookSim's iq-router defaults (the settings of data/reference/booksim). */
static inline void booksim_mesh(gpuest_config_t *cfg, int k, int vcs, int buf)
{
    gpuest_config_preset(cfg, "mesh56", NULL);
    gpuest_noc_cfg_t *n = &cfg->noc;
    n->topology = GPUEST_TOPO_MESH;
    n->k = k;
    n->vcs = vcs;
    n->buffer_flits = buf;
    n->routing_delay = 1;
    n->vc_alloc_delay = 1;
    n->sw_alloc_delay = 1;
    n->st_prepare_delay = 0;
    n->st_final_delay = 1;
    n->credit_delay = 0;
    n->output_delay = 0;
    n->link_latency = 1;
    n->routing_request = GPUEST_ROUTE_XY;
    n->routing_reply = GPUEST_ROUTE_XY;
    n->class_split = GPUEST_SPLIT_VIRTUAL;
}

#endif
