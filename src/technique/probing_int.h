/* probing_int.h: remote-L1 probing's parts (remote-core paper section III): the PC-based sharing
 * predictor (probe_predictor.c) and the core selectors (probe_selector.c), used by tech_probing.c
 * and by their tests. */
#ifndef GPUEST_PROBING_INT_H
#define GPUEST_PROBING_INT_H

#include <stdint.h>

#include "core/core.h"

/* ---------------------------------------------------------------- PC-based sharing predictor
 * Per SM, 64 PCs, a 2-bit state each: 0 strong shared, 1 weak shared, 2 weak non-shared, 3 strong
 * non-shared; the paper starts every PC in strong shared. In state i a window of W_i = 32 x 2^i
 * read misses of the PC is watched, S_i = W_i / 4^i of them are predicted shared (every 4^i-th
 * miss, so they spread over the window), and when the window is over the core replies R_i its
 * probed misses received are compared with T_i = ceil(S_i / 8): R_i >= T_i moves one state towards
 * strong shared, else one towards strong non-shared. */
#define PROBE_PRED_PCS 64
#define PROBE_PRED_STATES 4
typedef struct {
    uint32_t pc;
    uint8_t valid, state;
    uint16_t n; /* misses seen in the current window */
    uint16_t r; /* core replies counted in the current window */
} probe_pred_entry_t;

typedef struct {
    probe_pred_entry_t e[PROBE_PRED_PCS];
} probe_pred_t;

int probe_pred_window(int state);    /* W_i */
int probe_pred_shared(int state);    /* S_i */
int probe_pred_threshold(int state); /* T_i */
void probe_pred_init(probe_pred_t *p);
/* A read miss of pc: 1 when it is predicted shared (to be probed). */
int probe_pred_predict(probe_pred_t *p, uint32_t pc);
/* A probed miss of pc was answered by a remote core. */
void probe_pred_reply(probe_pred_t *p, uint32_t pc);
int probe_pred_state(const probe_pred_t *p, uint32_t pc); /* -1 when pc has no entry */

/* ---------------------------------------------------------------- core selectors */
#define PROBE_SEL_PERIOD 8192 /* core cycles */
typedef struct {
    int nsm;
    uint64_t period_start;
    uint32_t *cur;  /* nsm x nsm: replies requester r received from core c in this period */
    uint32_t *prev; /* the last complete period's counts: the probabilities in use */
} probe_sel_t;

gpuest_err probe_sel_init(probe_sel_t *s, int nsm, gpuest_error_t *err);
void probe_sel_free(probe_sel_t *s);
/* Ends the period when `cycle` is past it (counts move to prev, cur restarts at zero). */
void probe_sel_tick(probe_sel_t *s, uint64_t cycle);
void probe_sel_reply(probe_sel_t *s, int requester, int supplier, uint64_t cycle);
/* Selection weights of requester self's cores (w[self] = 0): each core's share of the replies of
 * the last period; a core that did not reply gets half the lowest non-zero share; all equal when no
 * core replied. Not normalized. */
void probe_sel_weights(const probe_sel_t *s, int self, double *w);
/* Index based: the c cores after self in ascending index order, wrapping. Returns c. */
int probe_sel_index(int nsm, int self, int c, int16_t *out);
/* Supplier based: c distinct cores drawn without replacement in proportion to the weights; the
 * order drawn is the search order. Returns c. */
int probe_sel_supplier(const probe_sel_t *s, gpuest_rng_t *rng, int self, int c, int16_t *out);

#endif
