/* probe_predictor.c: the 2-bit PC-based sharing predictor of remote-L1 probing (remote-core paper
 * III-E, Fig. 11). Choices the paper leaves open (docs/probing.md): the 64 entries are direct
 * mapped by pc / 8 (instructions are 8 bytes apart), and a PC that takes an entry held by another
 * PC starts afresh in strong shared; a window is judged when the first miss after it arrives, so
 * the replies of the window's last probes have had time to come back. */
#include <string.h>

#include "probing_int.h"

int probe_pred_window(int state) { return 32 << state; }
int probe_pred_shared(int state) { return probe_pred_window(state) >> (2 * state); }
int probe_pred_threshold(int state) { return (probe_pred_shared(state) + 7) / 8; }

void probe_pred_init(probe_pred_t *p) { memset(p, 0, sizeof *p); }

static probe_pred_entry_t *entry(probe_pred_t *p, uint32_t pc)
{
    return &p->e[(pc / 8) % PROBE_PRED_PCS];
}

int probe_pred_predict(probe_pred_t *p, uint32_t pc)
{
    probe_pred_entry_t *e = entry(p, pc);
    if (!e->valid || e->pc != pc)
        *e = (probe_pred_entry_t){.pc = pc, .valid = 1, .state = 0};
    if (e->n >= probe_pred_window(e->state)) { /* judge the window just over */
        if (e->r >= probe_pred_threshold(e->state))
            e->state = e->state > 0 ? (uint8_t)(e->state - 1) : 0;
        else
            e->state = e->state < PROBE_PRED_STATES - 1 ? (uint8_t)(e->state + 1) : PROBE_PRED_STATES - 1;
        e->n = 0;
        e->r = 0;
    }
    int stride = probe_pred_window(e->state) / probe_pred_shared(e->state);
    int shared = e->n % stride == 0;
    e->n++;
    return shared;
}

void probe_pred_reply(probe_pred_t *p, uint32_t pc)
{
    probe_pred_entry_t *e = entry(p, pc);
    if (e->valid && e->pc == pc && e->r < UINT16_MAX)
        e->r++;
}

int probe_pred_state(const probe_pred_t *p, uint32_t pc)
{
    const probe_pred_entry_t *e = &p->e[(pc / 8) % PROBE_PRED_PCS];
    return e->valid && e->pc == pc ? e->state : -1;
}
