/* script_source.h: a hand-written instruction source for simulator tests (kernels as small instruction lists). */
#ifndef GPUEST_TEST_SCRIPT_SOURCE_H
#define GPUEST_TEST_SCRIPT_SOURCE_H

#include <stdint.h>

#include "sim/sim.h"

/* One scripted instruction, repeated `repeat` times (0 counts as 1). Lanes of a
 * memory instruction access addr + lane * stride (size bytes each). */
typedef struct {
    gpuest_inst_kind_t kind;
    gpuest_mem_op_t op;
    gpuest_lat_class_t lat;
    uint64_t addr;
    uint32_t stride, size, repeat;
    int only_cta; /* -1: every CTA runs it; else only this CTA */
    /* register operands, each register number + 1 (0: none) */
    uint8_t dst, src, src2;
} script_inst_t;

#define SCRIPT_MAX_INSTS 32
#define SCRIPT_MAX_KERNELS 8

typedef struct {
    const char *name; /* NULL: "script<k>" (kernels of one name share their code) */
    uint32_t ctas, warps_per_cta, shmem_bytes, regs_per_thread;
    int ninsts;
    script_inst_t insts[SCRIPT_MAX_INSTS];
} script_kernel_t;

typedef struct {
    int nkernels, current, open_warps;
    script_kernel_t kernels[SCRIPT_MAX_KERNELS];
} script_t;

void script_source(gpuest_sim_source_t *src, script_t *s);

/* Runs s on machine c with options o and checks the drained end (every request answered, none
 * outstanding); a failed run fails the calling test with the simulator's message. */
void script_run_drained(const gpuest_config_t *c, script_t *s, const gpuest_sim_opts_t *o, gpuest_sim_result_t *r);

/* Sets kernel k of s: ctas CTAs of one warp (16 registers a thread) running the n instructions
 * insts; name may be NULL (see script_kernel_t). */
void script_kernel(script_t *s, int k, const char *name, uint32_t ctas, int n, const script_inst_t *insts);

/* The first SCRIPT_MAX_LOADS completed loads of a run, recorded by script_on_load (install it as
 * hooks.load_done with a script_loads_t as hooks.ctx). */
#define SCRIPT_MAX_LOADS 16
typedef struct {
    int n;
    uint64_t issue[SCRIPT_MAX_LOADS], done[SCRIPT_MAX_LOADS];
    int hits[SCRIPT_MAX_LOADS], misses[SCRIPT_MAX_LOADS];
} script_loads_t;
void script_on_load(void *ctx, int sm, int slot, uint64_t issue, uint64_t done, int hits, int misses);

#endif
