/* noc_fixture.c: see noc_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "noc_fixture.h"

gpuest_noc_cfg_t noc_fixture_mesh(int k, int vcs)
{
    gpuest_noc_cfg_t c;
    memset(&c, 0, sizeof c);
    c.topology = GPUEST_TOPO_MESH;
    c.k = k;
    c.vcs = vcs;
    c.buffer_flits = 8;
    c.routing_delay = 1;
    c.vc_alloc_delay = 1;
    c.sw_alloc_delay = 1;
    c.st_prepare_delay = 0;
    c.st_final_delay = 1;
    c.credit_delay = 0;
    c.output_delay = 0;
    c.link_latency = 1;
    c.routing_request = GPUEST_ROUTE_XY;
    c.routing_reply = GPUEST_ROUTE_XY;
    c.class_split = GPUEST_SPLIT_VIRTUAL;
    c.xbar_port_flits = 1;
    c.inject_queue = 16;
    c.eject_queue = 16;
    return c;
}

gpuest_noc_t *noc_fixture_make(const gpuest_noc_cfg_t *c, int classes, int nodes)
{
    gpuest_noc_opts_t o;
    gpuest_noc_opts_default(&o);
    o.num_classes = classes;
    o.num_nodes = nodes;
    gpuest_noc_t *noc = NULL;
    gpuest_error_t e = {0};
    if (gpuest_noc_create(c, &o, &noc, &e) != GPUEST_OK)
        fail_msg("create: %s", e.msg);
    return noc;
}
