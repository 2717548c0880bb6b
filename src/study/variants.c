/* variants.c: the calibration excitation set and the held-out validation set, per topology.
 *
 * Excitation (estimator-method note section 3, "calibration design"): the baseline, reply
 * bandwidth x0.5 and x2 (flit width) and a memory-latency step (L2 hit latency x2): low-load
 * points pin alpha/eta, high-load points pin kappa. Held-out points change what the note's
 * validation names (VCs, MC placement and count, routing, L2 latency, DRAM timing, flit width,
 * buffers) and never reuse an excitation value. */
#include <stdio.h>
#include <string.h>

#include "study/study.h"

static void add5(gpuest_study_variant_t *out, int cap, int *n, const char *label, const char *const *s, int ns)
{
    if (*n >= cap)
        return;
    gpuest_study_variant_t *v = &out[(*n)++];
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", label);
    for (int i = 0; i < ns && i < GPUEST_STUDY_MAX_SETS; i++)
        snprintf(v->sets[v->nsets++], sizeof v->sets[0], "%s", s[i]);
}

static void add(gpuest_study_variant_t *out, int cap, int *n, const char *label, const char *s0, const char *s1,
                const char *s2)
{
    if (*n >= cap)
        return;
    gpuest_study_variant_t *v = &out[(*n)++];
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", label);
    const char *s[3] = {s0, s1, s2};
    for (int i = 0; i < 3; i++)
        if (s[i] && *s[i])
            snprintf(v->sets[v->nsets++], sizeof v->sets[0], "%s", s[i]);
}

int gpuest_study_excitation(const gpuest_config_t *cfg, gpuest_study_variant_t *out, int cap)
{
    char a[80], b[80], c[80];
    int n = 0;
    add(out, cap, &n, "baseline", NULL, NULL, NULL);
    snprintf(a, sizeof a, "noc.flit_bytes=%d", cfg->noc.flit_bytes / 2);
    add(out, cap, &n, "flit_x0.5", a, NULL, NULL);
    snprintf(b, sizeof b, "noc.flit_bytes=%d", cfg->noc.flit_bytes * 2);
    add(out, cap, &n, "flit_x2", b, NULL, NULL);
    snprintf(c, sizeof c, "l2.hit_latency=%d", cfg->l2.hit_latency * 2);
    add(out, cap, &n, "l2lat_x2", c, NULL, NULL);
    return n;
}

/* Every DRAM timing scaled by num/den together, tRC kept >= tRAS + tRP. */
static void add_dram_scaled(gpuest_study_variant_t *out, int cap, int *n, const char *label,
                            const gpuest_dram_cfg_t *d, int num, int den)
{
    char t[5][80];
    int tras = d->tRAS * num / den, trp = d->tRP * num / den, trc = d->tRC * num / den;
    snprintf(t[0], sizeof t[0], "dram.tCL=%d", d->tCL * num / den);
    snprintf(t[1], sizeof t[1], "dram.tRCD=%d", d->tRCD * num / den);
    snprintf(t[2], sizeof t[2], "dram.tRP=%d", trp);
    snprintf(t[3], sizeof t[3], "dram.tRAS=%d", tras);
    snprintf(t[4], sizeof t[4], "dram.tRC=%d", tras + trp > trc ? tras + trp : trc);
    const char *const ts[5] = {t[0], t[1], t[2], t[3], t[4]};
    add5(out, cap, n, label, ts, 5);
}

int gpuest_study_heldout(const gpuest_config_t *cfg, gpuest_study_variant_t *out, int cap)
{
    char a[80];
    int n = 0;
    const gpuest_dram_cfg_t *d = &cfg->dram;
    snprintf(a, sizeof a, "l2.hit_latency=%d", cfg->l2.hit_latency / 2);
    add(out, cap, &n, "l2lat_x0.5", a, NULL, NULL);
    snprintf(a, sizeof a, "noc.flit_bytes=%d", cfg->noc.flit_bytes * 3 / 2);
    add(out, cap, &n, "flit_x1.5", a, NULL, NULL);
    add_dram_scaled(out, cap, &n, "dram_x1.5", &cfg->dram, 3, 2);
    snprintf(a, sizeof a, "l2.hit_latency=%d", cfg->l2.hit_latency * 3 / 2);
    add(out, cap, &n, "l2lat_x1.5", a, NULL, NULL);
    if (cfg->noc.topology == GPUEST_TOPO_MESH) {
        add(out, cap, &n, "vcs_2", "noc.vcs=2", NULL, NULL);
        add(out, cap, &n, "mc_top_bottom", "noc.mc_placement=top_bottom", NULL, NULL);
        add(out, cap, &n, "routing_yx", "noc.routing_request=yx", "noc.routing_reply=yx", NULL);
        add(out, cap, &n, "mc_diamond", "noc.mc_placement=diamond", NULL, NULL);
        add(out, cap, &n, "vcs_8", "noc.vcs=8", NULL, NULL);
        add(out, cap, &n, "buffer_4", "noc.buffer_flits=4", NULL, NULL);
    } else {
        add(out, cap, &n, "xbar_port_x2", cfg->noc.xbar_port_flits > 1 ? "noc.xbar_port_flits=1"
                                                                         : "noc.xbar_port_flits=2",
            NULL, NULL);
        snprintf(a, sizeof a, "mc.num_mcs=%d", cfg->mc.num_mcs * 2 / 3);
        add(out, cap, &n, "mcs_x0.67", a, NULL, NULL);
        snprintf(a, sizeof a, "dram.clock_mhz=%g", d->clock_mhz * 0.75);
        add(out, cap, &n, "dramclk_x0.75", a, NULL, NULL);
        snprintf(a, sizeof a, "mc.reply_queue=%d", cfg->mc.reply_queue > 2 ? cfg->mc.reply_queue / 4 : 1);
        add(out, cap, &n, "replyq_x0.25", a, NULL, NULL);
        snprintf(a, sizeof a, "noc.inject_queue=%d", cfg->noc.inject_queue > 2 ? cfg->noc.inject_queue / 4 : 1);
        add(out, cap, &n, "injq_x0.25", a, NULL, NULL);
        snprintf(a, sizeof a, "mc.num_mcs=%d", cfg->mc.num_mcs * 4 / 3);
        add(out, cap, &n, "mcs_x1.33", a, NULL, NULL);
    }
    /* The second held-out set (points 11-14, `validate --points 14`), added in the fourth session
     * and chosen before any estimate of them was made: no model change, constant or selection
     * rule of the estimator was ever measured on these points (docs/estimator.md, "Baseline
     * anchoring"). Moderate steps between the excitation and the first set's values. */
    snprintf(a, sizeof a, "noc.flit_bytes=%d", cfg->noc.flit_bytes * 5 / 4);
    add(out, cap, &n, "flit_x1.25", a, NULL, NULL);
    snprintf(a, sizeof a, "l2.hit_latency=%d", cfg->l2.hit_latency * 3 / 4);
    add(out, cap, &n, "l2lat_x0.75", a, NULL, NULL);
    add_dram_scaled(out, cap, &n, "dram_x0.75", d, 3, 4);
    if (cfg->noc.topology == GPUEST_TOPO_MESH) {
        snprintf(a, sizeof a, "noc.buffer_flits=%d", cfg->noc.buffer_flits * 3 / 4);
        add(out, cap, &n, "buffer_x0.75", a, NULL, NULL);
    } else {
        snprintf(a, sizeof a, "mc.reply_queue=%d", cfg->mc.reply_queue > 1 ? cfg->mc.reply_queue / 2 : 1);
        add(out, cap, &n, "replyq_x0.5", a, NULL, NULL);
    }
    return n;
}

gpuest_err gpuest_study_apply(const gpuest_config_t *base, const gpuest_study_variant_t *v, gpuest_config_t *out,
                              gpuest_error_t *err)
{
    *out = *base;
    for (int i = 0; i < v->nsets; i++)
        GPUEST_TRY(gpuest_config_set(out, v->sets[i], v->label, err));
    return gpuest_config_validate(out, err);
}
