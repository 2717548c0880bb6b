/* filtering_model.c: the analytical estimator's view of data filtering (technique.filtering =
 * df_truc | df_man): the read replies' flit histogram from the sector masks the coalescer makes.
 *
 * Measured without the simulator by the characterization walk (src/workload/charact.c) of the
 * launches on the machine's SMs and L1 size. A read line request asking for s of the 4 sectors is
 * a partial read (PDR) when s < 4; the filtered reply carries those s sectors and the 4-bit sector
 * map; a full read (FDR) carries the whole line. The request controller (technique.filter_rc = 1)
 * fetches whole lines for inconsistent patterns and for FDR-heavy phases; at the launch level we
 * take its decisions as: every read of the launch whole when the launch's FDR share exceeds
 * filter_fdr_threshold; else the launch's inconsistent share of L1 line generations (of 64 B or
 * more used) of its PDRs whole, when that share exceeds filter_ica_threshold.
 * Short (docs/estimator.md): the payloads are raw sector bytes, not DPC-encoded (the real bytes'
 * compression is left out, so the saving is a lower bound on compressible data); the extra
 * requests of HI misses (a sector missing from a present line) and the SM-side MSHR merging are
 * not modelled; the latencies are DPC's (2 L2 cycles, 1 core cycle), plus DF-MAN's compare. */
#include <string.h>

#include "technique_int.h"

typedef struct {
    const gpuest_config_t *cfg;
    double count[5]; /* read replies by sectors carried, weighted */
} flt_walk_t;

static gpuest_err on_launch(void *ctx, const gpuest_charact_t *s, gpuest_error_t *err)
{
    (void)err;
    flt_walk_t *w = ctx;
    const gpuest_config_t *c = w->cfg;
    uint64_t reads = s->pdr + s->fdr;
    if (reads == 0)
        return GPUEST_OK;
    int rc = c->technique.filter_rc;
    if (rc && 100.0 * (double)s->fdr / (double)reads > c->technique.filter_fdr_threshold) {
        w->count[4] += (double)reads;
        return GPUEST_OK;
    }
    double ica = 0, gens = 0;
    for (int k = 1; k < 4; k++) {
        ica += (double)s->gen_ica[k];
        gens += (double)s->gen_ica[k] + (double)s->gen_ca[k];
    }
    double whole = rc && gens > 0 && 100.0 * ica / gens > c->technique.filter_ica_threshold ? ica / gens : 0.0;
    w->count[4] += (double)s->fdr;
    for (int k = 1; k <= 3; k++) {
        double n = (double)s->read_by_sectors[k - 1];
        w->count[k] += n * (1 - whole);
        w->count[4] += n * whole;
    }
    return GPUEST_OK;
}

gpuest_err tech_flt_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err)
{
    const gpuest_config_t *cfg = env->cfg;
    gpuest_model_transform_identity(out);
    if (!env->launches)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.filtering: the estimate needs the workload's launches to measure the sector "
                           "masks of its reads (a generated workload or a trace)");
    gpuest_charact_opts_t o;
    tech_walk_opts(cfg, &o);
    flt_walk_t w;
    memset(&w, 0, sizeof w);
    w.cfg = cfg;
    GPUEST_TRY(gpuest_workload_characterize(env->launches, &o, on_launch, NULL, &w, NULL, err));
    double total = w.count[1] + w.count[2] + w.count[3] + w.count[4];
    if (!(total > 0))
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "technique.filtering: the workload reads no line, so there are no sector masks to "
                           "measure the reply sizes on");
    for (int k = 1; k <= 4; k++) {
        unsigned bits = k == 4 ? 8u * GPUEST_LINE_BYTES : (unsigned)(k * 8 * GPUEST_SECTOR_BYTES + 4);
        int f = gpuest_packet_flits(bits, cfg->noc.flit_bytes, cfg->noc.header_bytes);
        if (f > GPUEST_MODEL_MAX_FLITS)
            f = GPUEST_MODEL_MAX_FLITS;
        out->reply_flit_hist[f] += w.count[k] / total;
    }
    out->compress_latency = cfg->technique.filtering == GPUEST_FILTER_DF_MAN ? 3.0 : 2.0;
    out->decompress_latency = 1.0;
    return GPUEST_OK;
}
