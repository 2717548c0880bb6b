/* probe_traffic.c: remote-L1 probes as a class of the open NoC model's gpu traffic.
 *
 * The probes, their forwards and the NACKs home are one-flit-header request packets from SM to SM
 * (the simulator's probe.c sends them on the request network). Without them, the open model's
 * links carry SM-to-MC requests and MC-to-SM replies only, so a scheme that sends tens of probe
 * packets per miss (CCN: 37-41 measured on mesh56 backprop and 2dconv, against one request) leaves
 * its load off the links it shares with the requests and, on a network whose classes are VC
 * partitions of one set of links (mesh56), with the replies. This class puts it there: it rides
 * the request partition (or plane), is answered by nothing, and goes from each SM to the next in
 * index order (the index selector's chain: CCN, or probe_selector = index) or to every other SM
 * alike (the supplier selector taken as random, as the transform does). */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

gpuest_err gpuest_model_traffic_add_probes(gpuest_model_traffic_t *t, const gpuest_config_t *cfg, double per_sm,
                                           int index_chain, int flits, gpuest_error_t *err)
{
    int n = t->num_nodes, c = t->num_classes, nsm = cfg->core.num_sms;
    if (c >= GPUEST_MODEL_MAX_CLASSES)
        return gpuest_fail(err, GPUEST_EINVAL, "traffic: no class left for the probes (%d in use)", c);
    if (!(per_sm >= 0.0) || nsm < 2 || nsm > n)
        return gpuest_fail(err, GPUEST_ERANGE, "traffic: probe rate %g on %d SMs", per_sm, nsm);
    int *sms = malloc(sizeof(int) * (size_t)nsm);
    double *rate = realloc(t->rate, (size_t)(c + 1) * n * n * sizeof *t->rate);
    if (!sms || !rate) {
        free(sms);
        if (rate)
            t->rate = rate;
        return gpuest_fail(err, GPUEST_ENOMEM, "traffic: out of memory for the probes");
    }
    t->rate = rate;
    memset(rate + (size_t)c * n * n, 0, (size_t)n * n * sizeof *rate);
    gpuest_err rc = gpuest_config_sm_nodes(cfg, sms, err);
    if (rc != GPUEST_OK) {
        free(sms);
        return rc;
    }
    t->num_classes = c + 1;
    t->packet_flits[c] = flits > 0 ? flits : 1;
    t->routing[c] = cfg->noc.routing_request;
    t->reply_class[c] = -1;
    snprintf(t->class_name[c], sizeof t->class_name[c], "probe");
    for (int i = 0; i < nsm; i++) {
        if (index_chain) {
            *gpuest_model_traffic_at(t, c, sms[i], sms[(i + 1) % nsm]) += per_sm;
            continue;
        }
        for (int j = 0; j < nsm; j++)
            if (j != i)
                *gpuest_model_traffic_at(t, c, sms[i], sms[j]) += per_sm / (nsm - 1);
    }
    free(sms);
    return GPUEST_OK;
}
