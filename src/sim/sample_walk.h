/* sample_walk.h: the untimed walk of a two-speed fast-forward (gpuest_sample_opts_t.ff_walk;
 * docs/estimator.md, "Sampled simulation: an untimed walk before a timed window (ninth session)").
 *
 * Fast-forward's timed schedule (sample.c: virtual clocks, GTO picks, wake-up heaps, the LD/ST
 * unit's back-pressure holds) exists so that warps stand where a detailed run would have them
 * when the next unit's detailed warming starts; it is most of a sampled run's CPU. Only its last
 * part can matter for where the warps stand. With the option a gap of G warp instructions runs
 * its first G - min(G, window) instructions as an untimed functional walk (the SMs advance
 * together, each SM in turn stepping each of its active warps once a round, with the same
 * functional warming, barriers, retirements and CTA assignments as fast-forward) and only the
 * last `window` instructions on the timed schedule, which starts from the drained state the walk
 * leaves (a walked load completes at once, so nothing is pending). */
#ifndef GPUEST_SIM_SAMPLE_WALK_H
#define GPUEST_SIM_SAMPLE_WALK_H

#include <stdint.h>

#include "sim_int.h"

/* One functional step of warp slot `slot` of SM `sm` (sample.c's ff_step with warming as the run
 * asks): *advanced 1 if the warp moved (an instruction, or its retirement at its END). */
typedef gpuest_err (*sim_walk_step_fn)(void *ctx, sim_gpu_t *g, sim_sm_t *sm, int slot, int *advanced,
                                        gpuest_error_t *err);

/* The window in warp instructions: `units` unit lengths (a fraction allowed), 0 for none. */
uint64_t sim_walk_window(double units, uint64_t unit_insts);

/* Of a gap of `gap` warp instructions, how many the walk takes before a timed window of `window`. */
uint64_t sim_walk_untimed_part(uint64_t gap, uint64_t window);

/* Walks up to `budget` warp instructions (END retirements not counted, as fast-forward counts)
 * or to the end of the launch, in rounds: SM 0's active warps in slot order, one step each, then
 * SM 1's, and so on. A retired warp may free its CTA; new CTAs are assigned at once
 * (sim_gpu_assign_ctas), as fast-forward does. Stops early if a whole round moves no warp (every
 * warp waits on something the stopped clock cannot deliver: cannot happen after a drain). The
 * caller sets the functional run controls around it. *done: the instructions walked. */
gpuest_err sim_walk_untimed(sim_gpu_t *g, uint64_t budget, sim_walk_step_fn step, void *ctx, uint64_t *done,
                            gpuest_error_t *err);

#endif
