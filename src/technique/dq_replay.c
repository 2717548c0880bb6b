/* dq_replay.c: the compressed L1's decompression queue (LATTE-CC eq. 3, src/sim/l1_compressed.c)
 * replayed on the characterization walk's access order, at several time scales.
 *
 * The walk has no clock. The queue's wait depends on how close together the compressed hits come,
 * which is the walk's order (which instructions hit compressed lines, how they cluster in a kernel
 * or a phase) times the SM's pace, which only the model knows (its throughput). So the queue is
 * replayed once per pace: at spacing g core cycles per read line request of the SM (g = 1, 2, 4,
 * ..., 128), a memory instruction whose first read is the SM's k-th starts at k x g, and its line
 * requests follow one a cycle (the LD/ST unit takes one line request a cycle, src/sim/sm.c). A hit
 * on a compressed line at time t finds p decompressions still running (finished ones leave first)
 * and waits lat x (p + 1); it joins the queue when fewer than 256 are in it (a full queue charges
 * its last place), exactly as the simulator's sim_dq_enter. The model reads the mean wait at its
 * own spacing, interpolated in log2 g (src/model/l1c_queue.c). */
#include <stdlib.h>

#include "technique_int.h"

#define DQ_CAP 256

typedef struct {
    uint64_t done[DQ_CAP];
    int head, len;
} dq_ring_t;

struct tech_dq_replay_s {
    int sms, lat;
    uint64_t *lines;      /* per SM: read line requests so far */
    uint64_t *inst_start; /* per SM: read line requests before its current instruction */
    int *idx;             /* per SM: read line requests of its current instruction so far */
    dq_ring_t *q;         /* per SM and spacing */
    double sum[GPUEST_MODEL_DQ_SPACINGS];
    uint64_t hits;
};

gpuest_err tech_dq_replay_create(int sms, int lat, tech_dq_replay_t **out, gpuest_error_t *err)
{
    *out = NULL;
    if (sms < 1 || lat < 0)
        return gpuest_fail(err, GPUEST_EINVAL, "decompression queue replay: SMs must be >= 1, latency >= 0");
    tech_dq_replay_t *r = calloc(1, sizeof *r);
    if (r) {
        r->lines = calloc((size_t)sms, sizeof *r->lines);
        r->inst_start = calloc((size_t)sms, sizeof *r->inst_start);
        r->idx = calloc((size_t)sms, sizeof *r->idx);
        r->q = calloc((size_t)sms * GPUEST_MODEL_DQ_SPACINGS, sizeof *r->q);
    }
    if (!r || !r->lines || !r->inst_start || !r->idx || !r->q) {
        tech_dq_replay_destroy(r);
        return gpuest_fail(err, GPUEST_ENOMEM, "decompression queue replay: out of memory");
    }
    r->sms = sms;
    r->lat = lat;
    *out = r;
    return GPUEST_OK;
}

void tech_dq_replay_destroy(tech_dq_replay_t *r)
{
    if (!r)
        return;
    free(r->lines);
    free(r->inst_start);
    free(r->idx);
    free(r->q);
    free(r);
}

void tech_dq_replay_inst(tech_dq_replay_t *r, int sm)
{
    r->inst_start[sm] = r->lines[sm];
    r->idx[sm] = 0;
}

/* eq. 3 at time now: the wait of a hit entering q */
static uint64_t enter(dq_ring_t *q, uint64_t now, int lat)
{
    while (q->len > 0 && q->done[q->head] <= now) {
        q->head = (q->head + 1) % DQ_CAP;
        q->len--;
    }
    uint64_t cycles = (uint64_t)lat * (uint64_t)(q->len + 1);
    if (q->len < DQ_CAP) {
        q->done[(q->head + q->len) % DQ_CAP] = now + cycles;
        q->len++;
    }
    return cycles;
}

void tech_dq_replay_read(tech_dq_replay_t *r, int sm, int compressed_hit)
{
    if (compressed_hit && r->lat > 0) {
        for (int j = 0; j < GPUEST_MODEL_DQ_SPACINGS; j++) {
            uint64_t now = (r->inst_start[sm] << j) + (uint64_t)r->idx[sm];
            r->sum[j] += (double)enter(&r->q[(size_t)sm * GPUEST_MODEL_DQ_SPACINGS + (size_t)j], now, r->lat);
        }
        r->hits++;
    }
    r->lines[sm]++;
    r->idx[sm]++;
}

void tech_dq_replay_flush(tech_dq_replay_t *r)
{
    for (size_t i = 0; i < (size_t)r->sms * GPUEST_MODEL_DQ_SPACINGS; i++)
        r->q[i].len = 0;
}

void tech_dq_replay_waits(const tech_dq_replay_t *r, double wait[GPUEST_MODEL_DQ_SPACINGS])
{
    for (int j = 0; j < GPUEST_MODEL_DQ_SPACINGS; j++)
        wait[j] = r->hits ? r->sum[j] / (double)r->hits : 0.0;
}
