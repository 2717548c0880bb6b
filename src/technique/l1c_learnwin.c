/* l1c_learnwin.c: what the adaptive compressed-L1 policies' learning windows see, counted on the
 * estimate's walk (docs/estimator.md, "Compressed-L1 policies' modes in the estimate").
 *
 * The simulator's policies (tech_l1compression.c) decide per SM at the end of every EP (256 L1
 * accesses of that SM; the SM's counters go on across launches) from the counts of their dedicated
 * sets: with stride = sets / 4, set s samples candidate s mod stride when that is below the number
 * of candidates; hits are counted in EPs 0 and 1 of each 10-EP period. When no candidate's
 * dedicated sets saw a single hit, every candidate's AMAT_GPU is the miss latency (and every miss
 * ratio 1, every Adaptive-CMP counter 0): the counts carry no evidence for any mode, and the rule's
 * tie goes to the lower latency mode, none, the followers' initial mode. When no SM finishes the
 * learning EP, no decision is ever made and the followers stay in none.
 *
 * This component replays that bookkeeping on the walk's reads: per SM an access counter that
 * places each read in its EP and period, and per candidate the hits of its dedicated sets in the
 * counting window (the plain L1's for candidate 0, none; the candidate's compressed L1's for the
 * others), committed only when the EP that holds them ends, as a decision only sees the hits of
 * EPs that ended. */
#include <stdlib.h>

#include "technique_int.h"

#define LW_EP 256       /* L1 accesses of an EP */
#define LW_PERIOD 10    /* EPs of a period */
#define LW_DEDICATED 4  /* dedicated sets per candidate */
#define LW_MAX_CAND 4

typedef struct {
    uint64_t acc;                     /* reads in the current EP */
    int ep;                           /* EP index in the period */
    uint64_t pending[LW_MAX_CAND];    /* window hits of the current EP, not yet seen by a decision */
} lw_sm_t;

struct tech_l1c_learn_s {
    int sms, sets, ncand;
    lw_sm_t *sm;
    uint64_t hits[LW_MAX_CAND]; /* window hits of EPs that ended, per candidate */
    uint64_t learn_eps;         /* learning EPs (EP 0 of a period) that ended, over all SMs */
};

gpuest_err tech_l1c_learn_create(int sms, int sets, int ncand, tech_l1c_learn_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1 || sets < 1 || ncand < 1 || ncand > LW_MAX_CAND)
        return gpuest_fail(err, GPUEST_EINVAL, "compressed L1 learning windows: SMs and sets >= 1, 1..%d candidates",
                           LW_MAX_CAND);
    tech_l1c_learn_t *t = calloc(1, sizeof *t);
    if (t)
        t->sm = calloc((size_t)sms, sizeof *t->sm);
    if (!t || !t->sm) {
        free(t);
        return gpuest_fail(err, GPUEST_ENOMEM, "compressed L1 learning windows: out of memory");
    }
    t->sms = sms;
    t->sets = sets;
    t->ncand = ncand;
    *out = t;
    return GPUEST_OK;
}

void tech_l1c_learn_destroy(tech_l1c_learn_t *t)
{
    if (t)
        free(t->sm);
    free(t);
}

int tech_l1c_learn_group(const tech_l1c_learn_t *t, int set)
{
    int stride = t->sets / LW_DEDICATED;
    if (stride < 1 || set < 0 || set >= t->sets)
        return -1; /* fewer than 4 sets: the simulator has no dedicated sets to speak of */
    int k = set % stride;
    return k < t->ncand && set / stride < LW_DEDICATED ? k : -1;
}

void tech_l1c_learn_read(tech_l1c_learn_t *t, int sm, uint64_t line, int plain_hit, int comp_hit, int cand)
{
    if (sm < 0 || sm >= t->sms)
        return;
    lw_sm_t *s = &t->sm[sm];
    int g = tech_l1c_learn_group(t, (int)((line / GPUEST_LINE_BYTES) % (uint64_t)t->sets));
    if (s->ep <= 1 && g >= 0) {
        /* none's dedicated sets store raw lines (the plain L1); candidate cand's store in its mode */
        if (g == 0 && plain_hit)
            s->pending[0]++;
        else if (g > 0 && g == cand && comp_hit)
            s->pending[g]++;
    }
    if (++s->acc < LW_EP)
        return;
    /* the EP ends: its decision sees the window's hits */
    for (int k = 0; k < LW_MAX_CAND; k++) {
        t->hits[k] += s->pending[k];
        s->pending[k] = 0;
    }
    t->learn_eps += s->ep == 0;
    s->acc = 0;
    s->ep = (s->ep + 1) % LW_PERIOD;
}

uint64_t tech_l1c_learn_hits(const tech_l1c_learn_t *t, int k)
{
    return k >= 0 && k < LW_MAX_CAND ? t->hits[k] : 0;
}

uint64_t tech_l1c_learn_eps(const tech_l1c_learn_t *t) { return t->learn_eps; }

int tech_l1c_learn_has_evidence(const tech_l1c_learn_t *t)
{
    uint64_t h = 0;
    for (int k = 0; k < t->ncand; k++)
        h += t->hits[k];
    return t->learn_eps > 0 && h > 0;
}
