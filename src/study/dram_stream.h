/* dram_stream.h: the DRAM side of the estimate's functional L2 walk (dram_stream.c).
 *
 * The L2 walk (l2_walk.c) sends what its L2 slices miss and write back to a DRAM stream; the
 * stream replays it, in walk order and without timing, through the machine's real address map
 * (channel = (address / interleave) mod channels; inside a channel bank = (local / row_bytes) mod
 * banks, row = local / (row_bytes x banks), as src/sim/dram.c) and counts:
 *   - accesses and writes (write-backs and the data of write misses);
 *   - turnarounds: accesses of a channel in the other direction than its previous one;
 *   - row hits of an open-row-per-bank replay (a bank keeps its last row open, as the simulator's
 *     open-page FR-FCFS channel does);
 *   - the channel concentration: over consecutive windows of `window` accesses, the busiest
 *     channel's count over the even share (window / channels); 1 for a stream spread evenly,
 *     `channels` for one that falls on one channel. */
#ifndef GPUEST_STUDY_DRAM_STREAM_H
#define GPUEST_STUDY_DRAM_STREAM_H

#include <stdint.h>

#include "config/config.h"
#include "core/core.h"
#include "model/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int channels, banks, window;
    uint64_t interleave, row_bytes;
    int64_t *open_row;   /* channels x banks: the row each bank holds open, -1: none yet */
    uint32_t *in_window; /* per channel: accesses of the window being filled */
    uint8_t *last_dir;   /* per channel: direction of its last access (0 none, 1 read, 2 write) */
    int filled;          /* accesses in that window */
    uint64_t accesses, writes, row_hits, turns, windows;
    double concentration_sum; /* over complete windows */
    /* The same windows with every interleave unit on a hashed channel (dram_stream_hash_channel):
     * the concentration a random placement has by chance, which the model's uniform visits to
     * the channels already carry (docs/estimator.md, "Power-of-two channel counts in the
     * estimate (fifth session)"). */
    uint32_t *in_window_ref;
    double reference_sum;
} gpuest_study_dram_stream_t;

/* A stream over cfg's channels (mc.num_mcs, mc.interleave_bytes) and DRAM (dram.banks,
 * dram.row_bytes), windows of `window` accesses (>= 1). */
gpuest_err gpuest_study_dram_stream_init(gpuest_study_dram_stream_t *s, const gpuest_config_t *cfg, int window,
                                         gpuest_error_t *err);
void gpuest_study_dram_stream_free(gpuest_study_dram_stream_t *s);
/* One DRAM access to the line at byte address line (write: 1 for a write). */
void gpuest_study_dram_stream_push(gpuest_study_dram_stream_t *s, uint64_t line, int write);
/* Row hits and turnarounds per access, and the mean concentration over complete windows (0 when none). */
double gpuest_study_dram_stream_row_hit_rate(const gpuest_study_dram_stream_t *s);
double gpuest_study_dram_stream_turn_rate(const gpuest_study_dram_stream_t *s);
double gpuest_study_dram_stream_concentration(const gpuest_study_dram_stream_t *s);

/* The reference placement: interleave unit `unit` on channel splitmix64(unit) mod channels
 * (Steele, Lea and Flood's 64-bit finaliser, the generator's, applied to the unit index). */
int gpuest_study_dram_stream_hash_channel(uint64_t unit, int channels);
/* The mean concentration of the reference placement over the same windows (0 when none), and the
 * stream's excess over it: concentration / reference (1 when there is no complete window), the
 * part of the channel concentration a random placement would not have. */
double gpuest_study_dram_stream_reference(const gpuest_study_dram_stream_t *s);
double gpuest_study_dram_stream_excess(const gpuest_study_dram_stream_t *s);

/* The window the estimate uses for a machine: the DRAM requests its channels hold at once
 * (channels x dram.queue_size; l2.c admits a miss only while its channel has room). */
int gpuest_study_dram_stream_window(const gpuest_config_t *cfg);

/* A calibration's measured DRAM figures carried to another channel count by the walk's ratios
 * (the anchoring of the rest of the estimate): the row-hit rate x row_ratio (clipped to [0, 1]), the
 * turnarounds per access x turn_ratio, DRAM accesses per request x demand_ratio. */
void gpuest_study_dram_apply(gpuest_model_workload_t *w, double row_ratio, double demand_ratio, double turn_ratio);

#ifdef __cplusplus
}
#endif

#endif
