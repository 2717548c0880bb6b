/* coalescing_model.c: the analytical estimator's view of PCU coalescing (technique.coalescing = pcu).
 *
 * The PCUs answer a group of reads of one block from several SMs with one L2 access and one
 * (multicast) reply, so the MC injects reply packets x (1 - inter-core locality ratio)
 * (ARCHITECTURE.md, techniques table). The ratio is measured without the simulator by the
 * workload module's characterization walk of the launches (src/workload/charact.c): CTAs spread
 * round robin over the machine's SMs, resident warps issuing in turn, each SM with an LRU L1 of
 * the machine's size; over the reads that miss that L1 (the stream that reaches the PCUs), a read
 * is shared when another SM's miss requested the same line within the window.
 *
 * The window is counted in read line requests of the whole GPU. A PCU group stays open until its
 * leader's reply leaves the L2, and a PCU holds at most technique.pcu_rgrs open groups, so at most
 * about (MC ports x pcu_rgrs) reads are in the PCUs at once: we take that as the window (mesh56:
 * 8 x 128 = 1024, the characterization's default). Choice and limits (docs/estimator.md):
 *  - the window is the PCUs' capacity, an upper bound of a group's life (a group closes when its
 *    leader's L2 reply leaves, often well before 128 newer reads arrive), so the ratio is an upper
 *    bound of the simulator's joined share; the walk's L1 has no MSHR merging and no timing;
 *  - the model's MC reply-injection port and the L2 read service take the saving; the SM ejection
 *    port does not (every SM of a group still receives its reply), nor the reply network's link
 *    loads beyond the injection port (the multicast tree's shared first hops are not modelled).
 * WarpPool (warppool, pcu+warppool): warppool_model.c. */
#include <string.h>

#include "technique_int.h"

typedef struct {
    uint64_t reads, shared;
} locality_t;

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    locality_t *l = ctx;
    l->reads += s->miss_reads;
    l->shared += s->shared_misses;
    return GPUEST_OK;
}

/* MC network ports: one per memory sub-partition where the machine has them (as the PCUs). */
static int mc_ports(const gpuest_config_t *cfg)
{
    return cfg->mc.num_mcs * (cfg->mc.sub_partitions > 1 ? cfg->mc.sub_partitions : 1);
}

int tech_coal_window(const gpuest_config_t *cfg) { return mc_ports(cfg) * cfg->technique.pcu_rgrs; }

/* The functional walk the model transforms share: this machine's SM count, residency limits
 * and L1 geometry (whole sets, at least one). */
void tech_walk_opts(const gpuest_config_t *cfg, gpuest_charact_opts_t *o)
{
    gpuest_charact_opts_default(o);
    o->num_sms = cfg->core.num_sms;
    o->ctas_per_sm = cfg->core.ctas_per_sm;
    o->warps_per_sm = cfg->core.warps_per_sm;
    int line = cfg->l1.line_bytes > 0 ? cfg->l1.line_bytes : GPUEST_LINE_BYTES;
    o->l1_assoc = cfg->l1.assoc > 0 ? cfg->l1.assoc : 1;
    o->l1_lines = cfg->l1.size_bytes / line;
    o->l1_lines -= o->l1_lines % o->l1_assoc;
    if (o->l1_lines < o->l1_assoc)
        o->l1_lines = o->l1_assoc;
}

gpuest_err tech_coal_locality(const gpuest_config_t *cfg, gpuest_workload_t *wl, double *ratio, gpuest_error_t *err)
{
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    o.share_window = tech_coal_window(cfg);
    locality_t l = {0, 0};
    GPUEST_TRY(gpuest_workload_characterize(wl, &o, on_launch, NULL, &l, NULL, err));
    if (l.reads == 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.coalescing = pcu: the workload reads no line, so there is no inter-core "
                           "locality to measure");
    *ratio = (double)l.shared / (double)l.reads;
    return GPUEST_OK;
}

gpuest_err tech_coal_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_model_transform_identity(out);
    if (cfg->technique.coalescing != GPUEST_COALESCE_PCU) /* warppool, pcu+warppool */
        return tech_wp_transform(env, out, err);
    if (!env->launches)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.coalescing = pcu: the estimate needs the workload's launches to measure the "
                           "inter-core locality ratio (a generated workload or a trace)");
    double ratio = 0.0;
    GPUEST_TRY(tech_coal_locality(cfg, env->launches, &ratio, err));
    out->reply_packets_saved = ratio;
    return GPUEST_OK;
}
