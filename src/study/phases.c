/* phases.c: kernel phases of a calibration: per-launch inputs measured on the baseline run, launches
 * grouped into a few phases, each solved by the closed model with its own inputs (model/phases.c
 * adds their times).
 *
 * Why: one set of whole-run inputs describes no launch of a workload whose launches differ. On bfs
 * (mesh56, small) the levels run at 2.5 to 245 IPC: a level whose frontier is one node keeps one
 * warp busy for 54,000 cycles while the whole-run inputs say 48 warps per SM. A phase gets the warps
 * with work of its launches (the walk's active warps), its own hit rates, traffic and instructions
 * per request.
 *
 * Grouping (the fit solves every phase in each iteration, so their number is bounded): launches that
 * send no memory request join the group before them (the model needs requests); then the two most
 * alike groups are merged until GPUEST_STUDY_PHASES remain. Alike: the distance |ln active ratio| +
 * |ln instructions-per-request ratio| + |L1 hit rate difference| + 1 when the kernel names differ;
 * ties go to the lowest indices (deterministic). Figures only of the model's inputs decide: never a
 * measured time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/study.h"

typedef struct {
    char name[GPUEST_WL_NAME_MAX];
    gpuest_sim_stats_t st;       /* summed counters */
    double avail_cyc, cps_cyc;   /* averages x cycles */
    double miss_reads;           /* miss latency x read requests */
    double epochs, insts, lines, dep, res_insts, act_time; /* walk sums */
    int mixed;                   /* launches of more than one kernel */
} group_t;

static void group_init(group_t *g, const gpuest_sim_stats_t *k, const gpuest_study_launch_profile_t *p)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", k->kernel);
    g->st = *k;
    g->avail_cyc = k->avail_warps * (double)k->cycles;
    g->cps_cyc = k->cycles_per_schedule * (double)k->cycles;
    g->miss_reads = k->miss_latency * (double)k->read_requests;
    g->epochs = p->epochs;
    g->insts = p->insts;
    g->lines = p->lines;
    g->dep = p->dep;
    g->res_insts = p->resident * p->insts;
    g->act_time = p->active > 0 ? p->insts / p->active : 0.0;
}

/* b joins a: counters add, averages keep their weights */
static void group_merge(group_t *a, const group_t *b)
{
    gpuest_sim_stats_t *s = &a->st;
    const gpuest_sim_stats_t *t = &b->st;
    s->cycles += t->cycles;
    s->warp_instructions += t->warp_instructions;
    s->thread_instructions += t->thread_instructions;
    s->l1_accesses += t->l1_accesses;
    s->l1_hits += t->l1_hits;
    s->l1_misses += t->l1_misses;
    s->l1_mshr_stalls += t->l1_mshr_stalls;
    s->l1_missq_stalls += t->l1_missq_stalls;
    s->read_requests += t->read_requests;
    s->write_requests += t->write_requests;
    s->write_bytes += t->write_bytes;
    s->l2_accesses += t->l2_accesses;
    s->l2_hits += t->l2_hits;
    s->dram_reads += t->dram_reads;
    s->dram_writes += t->dram_writes;
    s->dram_row_hits += t->dram_row_hits;
    s->dram_turns += t->dram_turns;
    a->avail_cyc += b->avail_cyc;
    a->cps_cyc += b->cps_cyc;
    a->miss_reads += b->miss_reads;
    a->epochs += b->epochs;
    a->insts += b->insts;
    a->lines += b->lines;
    a->dep += b->dep;
    a->res_insts += b->res_insts;
    a->act_time += b->act_time;
    a->mixed |= b->mixed || strcmp(a->name, b->name) != 0;
}

static uint64_t requests(const group_t *g) { return g->st.read_requests + g->st.write_requests; }

static double active_of(const group_t *g) { return g->act_time > 0 ? g->insts / g->act_time : 0.0; }

static double distance(const group_t *a, const group_t *b)
{
    double aa = active_of(a), ab = active_of(b);
    double d = aa > 0 && ab > 0 ? fabs(log(aa / ab)) : 0.0;
    double ia = (double)a->st.warp_instructions / (double)requests(a);
    double ib = (double)b->st.warp_instructions / (double)requests(b);
    d += fabs(log(ia / ib));
    double ha = a->st.l1_accesses ? (double)a->st.l1_hits / (double)a->st.l1_accesses : 0.0;
    double hb = b->st.l1_accesses ? (double)b->st.l1_hits / (double)b->st.l1_accesses : 0.0;
    d += fabs(ha - hb);
    return d + (strcmp(a->name, b->name) != 0 ? 1.0 : 0.0);
}

static gpuest_err phase_of(const group_t *g, gpuest_model_phase_t *ph, gpuest_error_t *err)
{
    memset(ph, 0, sizeof *ph);
    gpuest_sim_stats_t s = g->st;
    double cyc = (double)s.cycles;
    s.avail_warps = cyc > 0 ? g->avail_cyc / cyc : 0.0;
    s.cycles_per_schedule = cyc > 0 ? g->cps_cyc / cyc : 0.0;
    s.miss_latency = s.read_requests ? g->miss_reads / (double)s.read_requests : 0.0;
    GPUEST_TRY(gpuest_study_inputs_from_stats(&s, &ph->w, err));
    if (g->epochs > 0 && g->insts > 0) {
        ph->w.resident_warps = g->res_insts / g->insts;
        ph->w.insts_per_epoch = g->insts / g->epochs;
        ph->w.lines_per_epoch = g->lines / g->epochs;
        ph->w.dep_per_epoch = g->dep / g->epochs;
    }
    ph->w.active_warps = active_of(g);
    ph->warp_insts = (double)s.warp_instructions;
    ph->line_reqs = (double)s.l1_accesses;
    ph->reads = (double)s.read_requests;
    return GPUEST_OK;
}

gpuest_err gpuest_study_group_phases(const gpuest_sim_stats_t *kernels, const gpuest_study_launch_profile_t *prof,
                                     int n, gpuest_calibration_t *c, gpuest_error_t *err)
{
    c->nphases = 0;
    if (n <= 0)
        return gpuest_fail(err, GPUEST_EINVAL, "no launch to group into phases");
    group_t *g = calloc((size_t)n, sizeof *g);
    if (!g)
        return gpuest_fail(err, GPUEST_ENOMEM, "phases: out of memory");
    int ng = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(kernels[i].kernel, prof[i].name) != 0) {
            free(g);
            return gpuest_fail(err, GPUEST_EINVAL, "launch %d: the run has kernel %s where the walk has %s", i,
                               kernels[i].kernel, prof[i].name);
        }
        group_t one;
        group_init(&one, &kernels[i], &prof[i]);
        if (ng > 0 && (requests(&one) == 0 || requests(&g[ng - 1]) == 0))
            group_merge(&g[ng - 1], &one); /* a launch without requests joins its neighbour */
        else
            g[ng++] = one;
    }
    if (requests(&g[0]) == 0) {
        free(g);
        return gpuest_fail(err, GPUEST_EINVAL, "the run sent no memory request: no phase to model");
    }
    while (ng > GPUEST_STUDY_PHASES) {
        int bi = 0, bj = 1;
        double best = INFINITY;
        for (int i = 0; i < ng; i++)
            for (int j = i + 1; j < ng; j++) {
                double d = distance(&g[i], &g[j]);
                if (d < best) {
                    best = d;
                    bi = i;
                    bj = j;
                }
            }
        group_merge(&g[bi], &g[bj]);
        memmove(&g[bj], &g[bj + 1], (size_t)(ng - bj - 1) * sizeof *g);
        ng--;
    }
    gpuest_err rc = GPUEST_OK;
    for (int i = 0; i < ng && rc == GPUEST_OK; i++) {
        rc = phase_of(&g[i], &c->phases[i], err);
        /* a '+' marks a phase of several kernels (the name is its first launch's) */
        size_t cap = sizeof c->phase_names[i] - 2;
        snprintf(c->phase_names[i], sizeof c->phase_names[i], "%.*s%s", (int)cap, g[i].name, g[i].mixed ? "+" : "");
    }
    if (rc == GPUEST_OK)
        c->nphases = ng;
    free(g);
    return rc;
}

int gpuest_calibration_model_phases(const gpuest_calibration_t *c, gpuest_model_phase_t *out)
{
    int n = c->nphases;
    for (int i = 0; i < n; i++) {
        out[i] = c->phases[i];
        if (!(c->warp_profile[1] > 0)) { /* the token form: read tokens, no scoreboard walk */
            out[i].w.resident_warps = 0;
            out[i].w.insts_per_epoch = 0;
            out[i].w.lines_per_epoch = 0;
            out[i].w.dep_per_epoch = 0;
        }
    }
    return n;
}

gpuest_err gpuest_study_measure_phases(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_study_run_t *run,
                                       gpuest_error_t *err)
{
    gpuest_study_run_t local;
    gpuest_sim_stats_t *k = NULL;
    size_t nk = 0;
    GPUEST_TRY(gpuest_study_run_detailed_kernels(cfg, c->workload, c->scale, c->seed, run ? run : &local, &k, &nk,
                                                 err));
    gpuest_study_launch_profile_t *p = calloc(nk ? nk : 1, sizeof *p);
    gpuest_workload_t *wl = NULL;
    int np = 0;
    gpuest_err rc = p ? GPUEST_OK : gpuest_fail(err, GPUEST_ENOMEM, "phases: out of memory");
    if (rc == GPUEST_OK)
        rc = gpuest_workload_create(c->workload, c->scale, c->seed, &wl, err);
    if (rc == GPUEST_OK)
        rc = gpuest_study_launch_profiles(cfg, wl, p, (int)nk, &np, err);
    if (rc == GPUEST_OK && (size_t)np != nk)
        rc = gpuest_fail(err, GPUEST_EINVAL, "the run has %zu launches, the walk %d", nk, np);
    if (rc == GPUEST_OK)
        rc = gpuest_study_group_phases(k, p, np, c, err);
    /* A file written before the write size was measured (its runs carry 0, a full line) takes the
     * baseline's measured write size for every run: what a write carries depends on the workload's
     * stores, not on the excitation configurations (flit width, L2 latency). */
    const gpuest_study_run_t *measured = run ? run : &local;
    for (int i = 0; rc == GPUEST_OK && i < c->nruns; i++)
        if (!(c->runs[i].in.write_bytes > 0))
            c->runs[i].in.write_bytes = measured->in.write_bytes;
    /* the same for the DRAM turnarounds per access (files before they were measured; the sampled
     * excitation runs do not count them): how reads and write-backs meet in a channel is the
     * workload's on the calibrated L2 and channels, which the excitation runs keep */
    for (int i = 0; rc == GPUEST_OK && i < c->nruns; i++)
        if (!(c->runs[i].in.dram_turns_per_access > 0))
            c->runs[i].in.dram_turns_per_access = measured->in.dram_turns_per_access;
    gpuest_workload_destroy(wl);
    free(p);
    free(k);
    return rc;
}
