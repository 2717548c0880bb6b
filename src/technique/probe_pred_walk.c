/* probe_pred_walk.c: the PC sharing predictor of RP and CCN run over the characterization walk's
 * read misses, as the simulator runs it (probe_predictor.c, one predictor per SM, every PC
 * starting in strong shared), in place of the predictor's stationary law.
 *
 * Why (docs/estimator.md, "Remote-L1 probing in the estimate, fifth session"): a predictor entry
 * leaves strong shared only after a whole window of 32 misses of its PC on its SM, and the next
 * states watch 64, 128 and 256. A workload at scale small has a few hundred misses per SM spread
 * over several load PCs, so most entries spend most or all of the run in their first windows,
 * probing every miss; the stationary law (tech_probe_pred_rate) has them probe 4 in 256 when
 * sharing is rare. Measured on mesh56 backprop under RP: the simulator probed 10646 of 11275 read
 * misses (0.94), the stationary law 0.016.
 *
 * A probed miss brings its line back from a remote L1 with probability f(k) (the C cores searched
 * include one of its k holders, times P when a single probe is sent with probability P); the
 * replies are dealt deterministically per SM by error diffusion (a reply whenever the SM's
 * accumulated probability reaches one), so the walk needs no random numbers. */
#include <stdlib.h>

#include "probing_int.h"
#include "technique_int.h"

struct tech_ppw_s {
    probe_pred_t *pred; /* per SM */
    double *acc;        /* per SM: expected replies not yet dealt */
    int sms, others, cores;
    double send; /* probability a predicted miss sends its probe(s) */
    uint64_t misses;
    uint64_t probed[GPUEST_CHARACT_MAX_HOLDERS + 1]; /* probed misses by other holders k */
};

gpuest_err tech_ppw_create(int sms, int others, int cores, double send, tech_ppw_t **out, gpuest_error_t *err)
{
    *out = NULL;
    tech_ppw_t *w = calloc(1, sizeof *w);
    if (!w || sms < 1 || !(w->pred = calloc((size_t)sms, sizeof *w->pred)) ||
        !(w->acc = calloc((size_t)sms, sizeof *w->acc))) {
        tech_ppw_destroy(w);
        return gpuest_fail(err, sms < 1 ? GPUEST_EINVAL : GPUEST_ENOMEM, "RP/CCN model: %s",
                           sms < 1 ? "no SM" : "out of memory");
    }
    for (int s = 0; s < sms; s++)
        probe_pred_init(&w->pred[s]);
    w->sms = sms;
    w->others = others;
    w->cores = cores;
    w->send = send;
    *out = w;
    return GPUEST_OK;
}

void tech_ppw_destroy(tech_ppw_t *w)
{
    if (!w)
        return;
    free(w->pred);
    free(w->acc);
    free(w);
}

int tech_ppw_miss(tech_ppw_t *w, int sm, uint32_t pc, int k)
{
    if (sm < 0 || sm >= w->sms)
        return 0;
    k = k < 0 ? 0 : (k > GPUEST_CHARACT_MAX_HOLDERS ? GPUEST_CHARACT_MAX_HOLDERS : k);
    w->misses++;
    if (!probe_pred_predict(&w->pred[sm], pc))
        return 0;
    w->probed[k]++;
    w->acc[sm] += w->send * tech_probe_find_prob(w->others, w->cores, k);
    if (w->acc[sm] >= 1.0 - 1e-12) {
        w->acc[sm] -= 1.0;
        probe_pred_reply(&w->pred[sm], pc);
    }
    return 1;
}

uint64_t tech_ppw_misses(const tech_ppw_t *w) { return w->misses; }

const uint64_t *tech_ppw_probed(const tech_ppw_t *w) { return w->probed; }
