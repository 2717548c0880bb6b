/* noc_fixture.h: networks the NoC tests build (one description, shared by the test programs). */
#ifndef GPUEST_NOC_FIXTURE_H
#define GPUEST_NOC_FIXTURE_H

#include "noc/noc.h"

/* A k x k mesh with BookSim's iq-router defaults (as in data/reference/booksim/configs): vcs VCs
 * of 8 flits, one cycle for routing, VC and switch allocation, switch traversal and links, XY for
 * both classes on VC partitions, 16-packet NI queues. */
gpuest_noc_cfg_t noc_fixture_mesh(int k, int vcs);

/* Creates the network (nodes 0: one per router); fails the running test on an error. */
gpuest_noc_t *noc_fixture_make(const gpuest_noc_cfg_t *c, int classes, int nodes);

#endif
