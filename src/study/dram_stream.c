/* dram_stream.c: the L2 walk's DRAM stream replayed through the machine's channels and banks
 * (dram_stream.h; docs/estimator.md, "Channel counts in the estimate (fifth session)").
 *
 * Why these three figures. A calibration measures the DRAM row-hit rate and DRAM accesses per
 * request on its own channel count; the estimate used to keep them at every count. With fewer
 * channels each channel holds more of the workload's rows (row hits fall) and the L2 is smaller (more
 * dirty victims per miss), and with a power-of-two count a short stretch of the stream can land on a
 * few channels only. The walk has no timing, so none of the three is taken as a level: the estimate
 * uses the ratio target / calibrated count of each (dram_apply below) on the measured figures. */
#include <stdlib.h>
#include <string.h>

#include "study/dram_stream.h"

gpuest_err gpuest_study_dram_stream_init(gpuest_study_dram_stream_t *s, const gpuest_config_t *cfg, int window,
                                         gpuest_error_t *err)
{
    memset(s, 0, sizeof *s);
    if (cfg->mc.num_mcs < 1 || cfg->mc.interleave_bytes < 1 || cfg->dram.banks < 1 || cfg->dram.row_bytes < 1 ||
        window < 1)
        return gpuest_fail(err, GPUEST_EINVAL, "DRAM stream: needs channels, an interleave, banks, a row size and a "
                           "window >= 1 (got %d, %d, %d, %d, %d)", cfg->mc.num_mcs, cfg->mc.interleave_bytes,
                           cfg->dram.banks, cfg->dram.row_bytes, window);
    s->channels = cfg->mc.num_mcs;
    s->banks = cfg->dram.banks;
    s->window = window;
    s->interleave = (uint64_t)cfg->mc.interleave_bytes;
    s->row_bytes = (uint64_t)cfg->dram.row_bytes;
    size_t nb = (size_t)s->channels * (size_t)s->banks;
    s->open_row = malloc(nb * sizeof *s->open_row);
    s->in_window = calloc((size_t)s->channels, sizeof *s->in_window);
    s->last_dir = calloc((size_t)s->channels, 1);
    s->in_window_ref = calloc((size_t)s->channels, sizeof *s->in_window_ref);
    if (!s->open_row || !s->in_window || !s->last_dir || !s->in_window_ref) {
        gpuest_study_dram_stream_free(s);
        return gpuest_fail(err, GPUEST_ENOMEM, "DRAM stream: out of memory for %d channels", cfg->mc.num_mcs);
    }
    for (size_t i = 0; i < nb; i++)
        s->open_row[i] = -1;
    return GPUEST_OK;
}

void gpuest_study_dram_stream_free(gpuest_study_dram_stream_t *s)
{
    free(s->open_row);
    free(s->in_window);
    free(s->last_dir);
    free(s->in_window_ref);
    s->in_window_ref = NULL;
    s->open_row = NULL;
    s->in_window = NULL;
    s->last_dir = NULL;
}

int gpuest_study_dram_stream_hash_channel(uint64_t unit, int channels)
{
    return (int)(gpuest_mix64(unit) % (uint64_t)(channels > 0 ? channels : 1));
}

/* The busiest channel's count of a window over the even share; clears the counts. */
static double busiest_share(uint32_t *count, int channels, int window)
{
    uint32_t most = 0;
    for (int c = 0; c < channels; c++)
        if (count[c] > most)
            most = count[c];
    memset(count, 0, (size_t)channels * sizeof *count);
    return (double)most * (double)channels / (double)window;
}

/* A complete window: its busiest channel against the even share, for the machine's map and for
 * the hashed reference. */
static void close_window(gpuest_study_dram_stream_t *s)
{
    s->concentration_sum += busiest_share(s->in_window, s->channels, s->window);
    s->reference_sum += busiest_share(s->in_window_ref, s->channels, s->window);
    s->windows++;
    s->filled = 0;
}

void gpuest_study_dram_stream_push(gpuest_study_dram_stream_t *s, uint64_t line, int write)
{
    /* the simulator's map: sim_mc_of / sim_mc_local for the channel, sim_dram_push for bank and row */
    uint64_t chunk = line / s->interleave, nch = (uint64_t)s->channels;
    int chan = (int)(chunk % nch);
    uint64_t local = (chunk / nch) * s->interleave + line % s->interleave;
    int bank = (int)((local / s->row_bytes) % (uint64_t)s->banks);
    int64_t row = (int64_t)(local / (s->row_bytes * (uint64_t)s->banks));
    int64_t *open = &s->open_row[(size_t)chan * (size_t)s->banks + (size_t)bank];
    s->row_hits += (uint64_t)(*open == row);
    *open = row;
    s->accesses++;
    s->writes += (uint64_t)(write != 0);
    uint8_t dir = write ? 2 : 1;
    s->turns += (uint64_t)(s->last_dir[chan] != 0 && s->last_dir[chan] != dir);
    s->last_dir[chan] = dir;
    s->in_window[chan]++;
    s->in_window_ref[gpuest_study_dram_stream_hash_channel(chunk, s->channels)]++;
    if (++s->filled == s->window)
        close_window(s);
}

double gpuest_study_dram_stream_row_hit_rate(const gpuest_study_dram_stream_t *s)
{
    return s->accesses ? (double)s->row_hits / (double)s->accesses : 0.0;
}

double gpuest_study_dram_stream_turn_rate(const gpuest_study_dram_stream_t *s)
{
    return s->accesses ? (double)s->turns / (double)s->accesses : 0.0;
}

double gpuest_study_dram_stream_concentration(const gpuest_study_dram_stream_t *s)
{
    return s->windows ? s->concentration_sum / (double)s->windows : 0.0;
}

double gpuest_study_dram_stream_reference(const gpuest_study_dram_stream_t *s)
{
    return s->windows ? s->reference_sum / (double)s->windows : 0.0;
}

double gpuest_study_dram_stream_excess(const gpuest_study_dram_stream_t *s)
{
    return s->windows && s->reference_sum > 0 ? s->concentration_sum / s->reference_sum : 1.0;
}

int gpuest_study_dram_stream_window(const gpuest_config_t *cfg)
{
    int q = cfg->dram.queue_size > 0 ? cfg->dram.queue_size : 1, m = cfg->mc.num_mcs > 0 ? cfg->mc.num_mcs : 1;
    return m * q;
}

static double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

void gpuest_study_dram_apply(gpuest_model_workload_t *w, double row_ratio, double demand_ratio, double turn_ratio)
{
    w->row_hit_rate = clamp01(w->row_hit_rate * row_ratio);
    w->dram_per_request *= demand_ratio;
    double t = w->dram_turns_per_access * turn_ratio;
    w->dram_turns_per_access = t > 0 ? t : 0; /* a rate, not a share: a line's column commands can turn more than once */
}
