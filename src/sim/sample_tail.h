/* sample_tail.h: the drain stratum of a sampled kernel (gpuest_sample_opts_t.tail_stratum;
 * docs/estimator.md, "Sampled simulation: a drain stratum (seventh session)").
 *
 * A big kernel's last wave of CTAs drains for longer than the one-unit tail census covers: the
 * SMs run out of CTAs one by one, and a unit that lands in the drain costs several times the
 * middle's cycles per instruction. With the option the tail census grows to the last wave's
 * instructions, taken from the counting pass (the warp instructions of the launch's last R CTAs,
 * R the CTAs resident on the whole GPU at once), so the drain is measured whole in every run and
 * the middle's periods no longer reach into it. */
#ifndef GPUEST_SIM_SAMPLE_TAIL_H
#define GPUEST_SIM_SAMPLE_TAIL_H

#include <stdint.h>

#include "config/config.h"
#include "workload/workload.h"

/* CTAs of launch l resident on the GPU at once: what sim_sm_fits admits on an empty SM (CTA slots,
 * warps, threads, registers, shared memory) times nsm, at most the launch's CTAs; 0 if none fits. */
uint32_t gpuest_tail_resident_ctas(const gpuest_core_cfg_t *c, int nsm, const gpuest_launch_t *l);

/* The CTAs whose warp instructions make the tail census (the launch's last ones, in issue order):
 * mode 1 (gpuest_sample_opts_t.tail_stratum = 1) the last wave, gpuest_tail_resident_ctas; mode 2
 * the last nsm CTAs, one an SM: the stretch where the SMs run out of CTAs one by one, a fraction of
 * a wave (docs/estimator.md, "Sampled simulation: gemm's bias (seventh session, second round)":
 * on gemm/fermi the drain's extra cycles lie in its last ~1 % of instructions, the last wave is
 * 8.8 %); at most the launch's CTAs; 0 for mode 0. */
uint32_t gpuest_tail_ctas(const gpuest_core_cfg_t *c, int nsm, const gpuest_launch_t *l, int mode);

/* The tail census's length in warp instructions: the last wave's `tail_insts`, at least one `unit`
 * and at most a tenth of the kernel's `kinsts` (a kernel of few waves would otherwise run nearly
 * whole in detail; the cap was fixed before any measurement). */
uint64_t gpuest_tail_census_len(uint64_t kinsts, uint64_t tail_insts, uint64_t unit);

#endif
