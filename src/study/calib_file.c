/* calib_file.c: calibration files (models/calibrations/NAME.cal): writer and strict parser.
 *
 * One record per line, fields separated by blanks, '#' starts a comment line:
 *   format 1 | preset P | workload W | scale S | seed N
 *   param NAME VALUE (alpha, eta, kappa; each once) | covar 9 values (row-major)
 *   chi2 V | dof N | iterations N | rms V | cv_ipc V | cv_amat V | util_range LO HI | calib_seconds V
 *   run LABEL SETS(';'-joined, '-' = none) then RUN_FIELDS numbers (measured outputs and inputs)
 *   optional: simulator N | machine HEX | warp_profile 4 numbers | phase NAME 21 numbers (up to 8; 20 in files written before the write size)
 *             | anchor IPC AMAT RAW_CV_IPC RAW_CV_AMAT (0/1 flags; absent: not anchored)
 *             | scoreboard_form 16 numbers (token-form files only: the scoreboard fit not kept)
 * Every record except run appears exactly once; unknown records, missing or extra fields and
 * malformed numbers are errors naming file:line. The runs are the data the fit was made from. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/study.h"

#define RUN_NUMS 22     /* written; the last four (LD/ST blocking, write size, DRAM turnarounds) are optional when read */
#define RUN_NUMS_OLD 18 /* files written before the LD/ST blocking was measured */
#define RUN_NUMS_NOWB 20 /* files written before the write size was measured (full lines assumed) */
#define RUN_NUMS_NODW 21 /* files written before the DRAM turnarounds were measured (none) */

void gpuest_calibration_path(const char *dir, const char *preset, const char *workload, gpuest_scale_t scale,
                             char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s-%s-%s.cal", dir, preset, workload, gpuest_scale_name(scale));
}

static void run_nums(const gpuest_study_run_t *r, double *v)
{
    const gpuest_model_workload_t *w = &r->in;
    double t[RUN_NUMS] = {r->ipc, r->amat, r->mc_stall, r->link_util_max, r->ipc_cv, r->amat_cv, (double)r->cycles,
                          r->sim_seconds, w->insts_per_request, w->hits_per_request, w->l1_hit_rate, w->l2_hit_rate,
                          w->dram_per_request, w->row_hit_rate, w->write_fraction, w->threads_per_warp_inst,
                          w->avail_warps, w->cycles_per_schedule, w->ldst_block_per_read, w->block_miss_latency,
                          w->write_bytes, w->dram_turns_per_access};
    memcpy(v, t, sizeof t);
}

/* Optional record (files written before the kernel phases lack it; they estimate the run as one
 * phase): phase NAME then PHASE_NUMS numbers, at most GPUEST_MODEL_MAX_PHASES, in order. */
#define PHASE_NUMS 22
#define PHASE_NUMS_NOWB 20 /* files written before the write size: full lines assumed */
#define PHASE_NUMS_NODW 21 /* files written before the DRAM turnarounds: none */

static void phase_nums(const gpuest_model_phase_t *p, double *v)
{
    const gpuest_model_workload_t *w = &p->w;
    double t[PHASE_NUMS] = {p->warp_insts, p->line_reqs, p->reads, w->insts_per_request, w->hits_per_request,
                            w->l1_hit_rate, w->l2_hit_rate, w->dram_per_request, w->row_hit_rate, w->write_fraction,
                            w->threads_per_warp_inst, w->avail_warps, w->cycles_per_schedule, w->ldst_block_per_read,
                            w->block_miss_latency, w->resident_warps, w->insts_per_epoch, w->lines_per_epoch,
                            w->dep_per_epoch, w->active_warps, w->write_bytes, w->dram_turns_per_access};
    memcpy(v, t, sizeof t);
}

static void phase_from_nums(gpuest_model_phase_t *p, const double *v)
{
    memset(p, 0, sizeof *p);
    gpuest_model_workload_t *w = &p->w;
    double *dst[PHASE_NUMS] = {&p->warp_insts, &p->line_reqs, &p->reads, &w->insts_per_request,
                               &w->hits_per_request, &w->l1_hit_rate, &w->l2_hit_rate, &w->dram_per_request,
                               &w->row_hit_rate, &w->write_fraction, &w->threads_per_warp_inst, &w->avail_warps,
                               &w->cycles_per_schedule, &w->ldst_block_per_read, &w->block_miss_latency,
                               &w->resident_warps, &w->insts_per_epoch, &w->lines_per_epoch, &w->dep_per_epoch,
                               &w->active_warps, &w->write_bytes, &w->dram_turns_per_access};
    for (int k = 0; k < PHASE_NUMS; k++)
        *dst[k] = v[k];
}

static void run_from_nums(gpuest_study_run_t *r, const double *v)
{
    gpuest_model_workload_t *w = &r->in;
    r->ipc = v[0];
    r->amat = v[1];
    r->mc_stall = v[2];
    r->link_util_max = v[3];
    r->ipc_cv = v[4];
    r->amat_cv = v[5];
    r->cycles = (uint64_t)llround(v[6]);
    r->sim_seconds = v[7];
    w->insts_per_request = v[8];
    w->hits_per_request = v[9];
    w->l1_hit_rate = v[10];
    w->l2_hit_rate = v[11];
    w->dram_per_request = v[12];
    w->row_hit_rate = v[13];
    w->write_fraction = v[14];
    w->threads_per_warp_inst = v[15];
    w->avail_warps = v[16];
    w->cycles_per_schedule = v[17];
    w->ldst_block_per_read = v[18];
    w->block_miss_latency = v[19];
    w->write_bytes = v[20];
    w->dram_turns_per_access = v[21];
}

gpuest_err gpuest_calibration_write(const gpuest_calibration_t *c, const char *path, gpuest_error_t *err)
{
    gpuest_outfile_t f;
    GPUEST_TRY(gpuest_outfile_open(&f, path, 0, err));
    FILE *o = f.fp;
    fprintf(o, "# gpuest calibration: closed GPU model parameters fitted to simulated runs (docs/estimator.md)\n");
    fprintf(o, "format 1\npreset %s\nworkload %s\nscale %s\nseed %llu\n", c->preset, c->workload,
            gpuest_scale_name(c->scale), (unsigned long long)c->seed);
    double th[GPUEST_GPU_PARAMS];
    gpuest_gpu_params_to_vec(&c->fit.params, th);
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        fprintf(o, "param %s %.17g\n", gpuest_gpu_param_names[j], th[j]);
    fprintf(o, "covar");
    for (int a = 0; a < GPUEST_GPU_PARAMS; a++)
        for (int b = 0; b < GPUEST_GPU_PARAMS; b++)
            fprintf(o, " %.17g", c->fit.covar[a][b]);
    fprintf(o, "\nchi2 %.17g\ndof %d\niterations %d\nrms %.17g\ncv_ipc %.17g\ncv_amat %.17g\n", c->fit.chi2,
            c->fit.dof, c->fit.iterations, c->fit.rms_rel_error, c->cv_ipc, c->cv_amat);
    fprintf(o, "util_range %.17g %.17g\ncalib_seconds %.17g\n", c->util_lo, c->util_hi, c->calib_seconds);
    fprintf(o, "# anchor ipc amat raw_cv_ipc raw_cv_amat (1: estimated relative to the measured baseline)\n"
               "anchor %d %d %.17g %.17g\n",
            c->anchor_ipc, c->anchor_amat, c->raw_cv_ipc, c->raw_cv_amat);
    if (c->sim_generation > 0)
        fprintf(o, "simulator %d\n", c->sim_generation);
    if (c->machine_hash)
        fprintf(o, "machine %016llx\n", (unsigned long long)c->machine_hash);
    const gpuest_model_workload_t *pw = &c->runs[0].in;
    if (c->nruns > 0 && pw->insts_per_epoch > 0)
        fprintf(o, "# warp_profile resident_warps insts_per_epoch lines_per_epoch dep_per_epoch\n"
                   "warp_profile %.17g %.17g %.17g %.17g\n",
                pw->resident_warps, pw->insts_per_epoch, pw->lines_per_epoch, pw->dep_per_epoch);
    if (c->sb_kept && !(c->nruns > 0 && pw->insts_per_epoch > 0)) { /* the token form kept: the other fit too */
        double th[GPUEST_GPU_PARAMS];
        gpuest_gpu_params_to_vec(&c->sb_params, th);
        fprintf(o, "# scoreboard_form alpha eta kappa covar(9, row-major) resident_warps insts_per_epoch "
                   "lines_per_epoch dep_per_epoch (the fit not kept; WarpPool's effect, pool_form.c)\nscoreboard_form");
        for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
            fprintf(o, " %.17g", th[j]);
        for (int a = 0; a < GPUEST_GPU_PARAMS; a++)
            for (int b = 0; b < GPUEST_GPU_PARAMS; b++)
                fprintf(o, " %.17g", c->sb_covar[a][b]);
        for (int k = 0; k < 4; k++)
            fprintf(o, " %.17g", c->sb_profile[k]);
        fprintf(o, "\n");
    }
    if (c->nphases > 0)
        fprintf(o, "# phase name warp_insts line_reqs reads insts_per_request hits_per_request l1_hit_rate "
                   "l2_hit_rate dram_per_request row_hit_rate write_fraction threads_per_warp_inst avail_warps "
                   "cycles_per_schedule ldst_block_per_read block_miss_latency resident_warps insts_per_epoch "
                   "lines_per_epoch dep_per_epoch active_warps write_bytes dram_turns_per_access\n");
    for (int i = 0; i < c->nphases; i++) {
        double v[PHASE_NUMS];
        phase_nums(&c->phases[i], v);
        fprintf(o, "phase %s", c->phase_names[i]);
        for (int k = 0; k < PHASE_NUMS; k++)
            fprintf(o, " %.17g", v[k]);
        fprintf(o, "\n");
    }
    fprintf(o, "# run label sets ipc amat mc_stall link_util_max ipc_cv amat_cv cycles sim_seconds insts_per_request "
               "hits_per_request l1_hit_rate l2_hit_rate dram_per_request row_hit_rate write_fraction "
               "threads_per_warp_inst avail_warps cycles_per_schedule ldst_block_per_read block_miss_latency "
               "write_bytes dram_turns_per_access\n");
    for (int i = 0; i < c->nruns; i++) {
        double v[RUN_NUMS];
        run_nums(&c->runs[i], v);
        fprintf(o, "run %s %s", c->runs[i].label, c->runs[i].sets[0] ? c->runs[i].sets : "-");
        for (int k = 0; k < RUN_NUMS; k++)
            fprintf(o, " %.17g", v[k]);
        fprintf(o, "\n");
    }
    if (ferror(o)) {
        gpuest_outfile_abort(&f);
        return gpuest_fail(err, GPUEST_EIO, "%s: write error", path);
    }
    return gpuest_outfile_commit(&f, err);
}

/* ---------------------------------------------------------------- parser */
#define MAX_TOK 32
typedef struct {
    const char *origin;
    int line;
    gpuest_error_t *err;
} pctx_t;

static gpuest_err perr(const pctx_t *p, const char *fmt, const char *a, const char *b)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    return gpuest_fail(p->err, GPUEST_EPARSE, "%s:%d: %s", p->origin, p->line, msg);
}

/* The largest magnitude a number of a calibration file may have. Measured figures (cycles, seconds,
 * latencies, rates) and the fit's statistics stay many orders below it (the committed files: at
 * most 2.5e7); a hand-damaged 1e300 used to pass, and the model's products of such inputs
 * overflowed into a NaN that AMVA reported without the file or the line. */
#define CALIB_NUM_MAX 1e18

static gpuest_err num(const pctx_t *p, const char *tok, const char *what, double *out)
{
    if (gpuest_parse_double(tok, out) != GPUEST_OK || !isfinite(*out))
        return perr(p, "%s: expected a finite number, got '%s'", what, tok);
    if (fabs(*out) > CALIB_NUM_MAX)
        return perr(p, "%s: expected a number of magnitude at most 1e18, got '%s'", what, tok);
    return GPUEST_OK;
}

static gpuest_err want(const pctx_t *p, int ntok, int expected, const char *rec)
{
    if (ntok != expected) {
        char e[16];
        snprintf(e, sizeof e, "%d", expected - 1);
        return perr(p, "record '%s' takes %s value(s)", rec, e);
    }
    return GPUEST_OK;
}

enum { F_FORMAT, F_PRESET, F_WORKLOAD, F_SCALE, F_SEED, F_COVAR, F_CHI2, F_DOF, F_ITER, F_RMS, F_CVI, F_CVA,
       F_UTIL, F_SECS, F_P0, F_COUNT = F_P0 + GPUEST_GPU_PARAMS };
static const char *const field_names[F_COUNT] = {"format", "preset", "workload", "scale", "seed", "covar",
                                                  "chi2", "dof", "iterations", "rms", "cv_ipc", "cv_amat",
                                                  "util_range", "calib_seconds", "param alpha", "param eta",
                                                  "param kappa"};

/* Optional record warp_profile RESIDENT INSTS LINES DEP (the scoreboard walk of the workload,
 * warp_profile.c; files of the token model lack it): one per file, applied to every run. */
static int parse_profile(pctx_t *p, char **tok, int nt, gpuest_calibration_t *c, int *seen, gpuest_err *rc)
{
    if (strcmp(tok[0], "warp_profile") != 0)
        return 0;
    *rc = want(p, nt, 5, tok[0]);
    if (*rc != GPUEST_OK)
        return 1;
    if (*seen) {
        *rc = perr(p, "record '%s' appears twice%s", tok[0], "");
        return 1;
    }
    *seen = p->line;
    for (int k = 0; k < 4; k++) {
        *rc = num(p, tok[1 + k], "warp_profile", &c->warp_profile[k]);
        if (*rc != GPUEST_OK)
            return 1;
        if (c->warp_profile[k] < 0 || (k < 2 && !(c->warp_profile[k] > 0))) {
            *rc = perr(p, "warp_profile: resident warps and instructions per epoch must be > 0, the others >= 0 "
                          "(got '%s')%s", tok[1 + k], "");
            return 1;
        }
    }
    return 1;
}

static int parse_phase(pctx_t *p, char **tok, int nt, gpuest_calibration_t *c, gpuest_err *rc)
{
    if (strcmp(tok[0], "phase") != 0)
        return 0;
    if (nt != 2 + PHASE_NUMS_NOWB && nt != 2 + PHASE_NUMS_NODW) {
        *rc = want(p, nt, 2 + PHASE_NUMS, tok[0]);
        if (*rc != GPUEST_OK)
            return 1;
    }
    if (c->nphases >= GPUEST_MODEL_MAX_PHASES) {
        *rc = perr(p, "more than the %s phases a calibration holds%s", "8", "");
        return 1;
    }
    if (strlen(tok[1]) >= sizeof c->phase_names[0]) {
        *rc = perr(p, "phase name '%s' too long%s", tok[1], "");
        return 1;
    }
    double v[PHASE_NUMS] = {0}; /* a file without the write size: 0, a full line; without the turnarounds: 0 */
    for (int k = 0; k < nt - 2; k++) {
        *rc = num(p, tok[2 + k], "phase field", &v[k]);
        if (*rc != GPUEST_OK)
            return 1;
        if (v[k] < 0) {
            *rc = perr(p, "phase %s: every field must be >= 0 (got '%s')", tok[1], tok[2 + k]);
            return 1;
        }
    }
    if (!(v[0] > 0) || !(v[3] > 0)) {
        *rc = perr(p, "phase %s: warp instructions and instructions per request must be > 0%s", tok[1], "");
        return 1;
    }
    snprintf(c->phase_names[c->nphases], sizeof c->phase_names[0], "%s", tok[1]);
    phase_from_nums(&c->phases[c->nphases++], v);
    return 1;
}

/* Optional record anchor IPC AMAT RAW_CV_IPC RAW_CV_AMAT (files written before the baseline
 * anchoring lack it and estimate as the plain model): one per file. */
static int parse_anchor(pctx_t *p, char **tok, int nt, gpuest_calibration_t *c, int *seen, gpuest_err *rc)
{
    if (strcmp(tok[0], "anchor") != 0)
        return 0;
    *rc = want(p, nt, 5, tok[0]);
    if (*rc != GPUEST_OK)
        return 1;
    if (*seen) {
        *rc = perr(p, "record '%s' appears twice%s", tok[0], "");
        return 1;
    }
    *seen = p->line;
    int *flag[2] = {&c->anchor_ipc, &c->anchor_amat};
    for (int k = 0; k < 2; k++) {
        if (strcmp(tok[1 + k], "0") != 0 && strcmp(tok[1 + k], "1") != 0) {
            *rc = perr(p, "anchor: expected 0 or 1 for the %s flag, got '%s'", k ? "AMAT" : "IPC", tok[1 + k]);
            return 1;
        }
        *flag[k] = tok[1 + k][0] == '1';
    }
    double *cv[2] = {&c->raw_cv_ipc, &c->raw_cv_amat};
    for (int k = 0; k < 2; k++) {
        *rc = num(p, tok[3 + k], "anchor", cv[k]);
        if (*rc != GPUEST_OK)
            return 1;
        if (*cv[k] < 0) {
            *rc = perr(p, "anchor: leave-one-out errors must be >= 0, got '%s'%s", tok[3 + k], "");
            return 1;
        }
    }
    return 1;
}

/* Optional record scoreboard_form ALPHA ETA KAPPA, 9 covariances (row-major), RESIDENT INSTS LINES
 * DEP: the scoreboard fit a token-form calibration did not keep (pool_form.c); one per file, and
 * only in a file without a warp_profile record (checked after the last line). Files written before
 * it lack it: their pools are estimated by the token form, as they were. */
#define SB_NUMS (GPUEST_GPU_PARAMS + GPUEST_GPU_PARAMS * GPUEST_GPU_PARAMS + 4)
static int parse_sb_form(pctx_t *p, char **tok, int nt, gpuest_calibration_t *c, int *seen, gpuest_err *rc)
{
    if (strcmp(tok[0], "scoreboard_form") != 0)
        return 0;
    *rc = want(p, nt, 1 + SB_NUMS, tok[0]);
    if (*rc != GPUEST_OK)
        return 1;
    if (*seen) {
        *rc = perr(p, "record '%s' appears twice%s", tok[0], "");
        return 1;
    }
    *seen = p->line;
    double v[SB_NUMS];
    for (int k = 0; k < SB_NUMS; k++) {
        *rc = num(p, tok[1 + k], "scoreboard_form", &v[k]);
        if (*rc != GPUEST_OK)
            return 1;
    }
    for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
        if (v[j] < gpuest_gpu_param_lo[j] || v[j] > gpuest_gpu_param_hi[j]) {
            *rc = perr(p, "scoreboard_form: parameter %s = %s outside its bounds", gpuest_gpu_param_names[j], tok[1 + j]);
            return 1;
        }
    const double *cv = v + GPUEST_GPU_PARAMS, *prof = cv + GPUEST_GPU_PARAMS * GPUEST_GPU_PARAMS;
    for (int a = 0; a < GPUEST_GPU_PARAMS; a++)
        if (cv[a * GPUEST_GPU_PARAMS + a] < 0) {
            *rc = perr(p, "scoreboard_form: negative variance%s%s", "", "");
            return 1;
        }
    if (!(prof[0] > 0) || !(prof[1] > 0) || prof[2] < 0 || prof[3] < 0) {
        *rc = perr(p, "scoreboard_form: resident warps and instructions per epoch must be > 0, the others >= 0%s%s",
                   "", "");
        return 1;
    }
    gpuest_gpu_params_from_vec(&c->sb_params, v);
    memcpy(c->sb_covar, cv, sizeof c->sb_covar);
    memcpy(c->sb_profile, prof, sizeof c->sb_profile);
    c->sb_kept = 1;
    return 1;
}

/* Optional records (files written before the v2 simulator lack them): simulator N, machine HEX. */
static int parse_optional(pctx_t *p, char **tok, int nt, gpuest_calibration_t *c, int *seen_opt, gpuest_err *rc)
{
    if (parse_phase(p, tok, nt, c, rc))
        return 1;
    if (parse_anchor(p, tok, nt, c, seen_opt + 3, rc))
        return 1;
    if (parse_profile(p, tok, nt, c, seen_opt + 2, rc))
        return 1;
    if (parse_sb_form(p, tok, nt, c, seen_opt + 4, rc))
        return 1;
    int k = strcmp(tok[0], "simulator") == 0 ? 0 : (strcmp(tok[0], "machine") == 0 ? 1 : -1);
    if (k < 0)
        return 0;
    *rc = want(p, nt, 2, tok[0]);
    if (*rc != GPUEST_OK)
        return 1;
    if (seen_opt[k]) {
        *rc = perr(p, "record '%s' appears twice%s", tok[0], "");
        return 1;
    }
    seen_opt[k] = p->line;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(tok[1], &end, k == 0 ? 10 : 16);
    if (errno || !end || *end || tok[1][0] == '-' || tok[1][0] == '+' || v == 0 || (k == 0 && v > 1000000))
        *rc = perr(p, k == 0 ? "simulator '%s': expected a generation number >= 1%s"
                             : "machine '%s': expected a non-zero hexadecimal hash%s",
                   tok[1], "");
    else if (k == 0)
        c->sim_generation = (int)v;
    else
        c->machine_hash = (uint64_t)v;
    return 1;
}

static gpuest_err parse_line(pctx_t *p, char **tok, int nt, gpuest_calibration_t *c, int *seen)
{
    const char *rec = tok[0];
    int f = -1;
    double v;
    gpuest_err orc = GPUEST_OK;
    if (parse_optional(p, tok, nt, c, seen + F_COUNT, &orc))
        return orc;
    if (strcmp(rec, "run") == 0) {
        if (nt != 3 + RUN_NUMS && nt != 3 + RUN_NUMS_NODW && nt != 3 + RUN_NUMS_NOWB && nt != 3 + RUN_NUMS_OLD)
            return want(p, nt, 3 + RUN_NUMS, rec);
        if (c->nruns >= GPUEST_STUDY_MAX_RUNS)
            return perr(p, "more than the %s runs a calibration holds%s", "8", "");
        gpuest_study_run_t *r = &c->runs[c->nruns];
        memset(r, 0, sizeof *r);
        if (strlen(tok[1]) >= sizeof r->label || strlen(tok[2]) >= sizeof r->sets)
            return perr(p, "run label or assignments too long%s%s", "", "");
        snprintf(r->label, sizeof r->label, "%s", tok[1]);
        if (strcmp(tok[2], "-") != 0)
            snprintf(r->sets, sizeof r->sets, "%s", tok[2]);
        double vals[RUN_NUMS] = {0};
        for (int k = 0; k < nt - 3; k++)
            GPUEST_TRY(num(p, tok[3 + k], "run field", &vals[k]));
        if (vals[18] < 0 || vals[19] < 0 || vals[20] < 0 || vals[21] < 0)
            return perr(p, "run %s: LD/ST blocking, its miss latency, the write size and the DRAM turnarounds must "
                        "be >= 0%s", tok[1], "");
        /* every measured figure is >= 0; shares are at most 1; a warp has 32 threads; cycles are whole
         * (a negative or fractional count went through llround into a uint64_t) */
        for (int k = 0; k < nt - 3; k++)
            if (vals[k] < 0)
                return perr(p, "run %s: expected every value >= 0, got '%s'", tok[1], tok[3 + k]);
        static const int shares[] = {2, 10, 11, 13, 14}; /* MC stall, L1 / L2 / row hit rates, write fraction */
        for (size_t k = 0; k < sizeof shares / sizeof shares[0]; k++)
            if (vals[shares[k]] > 1)
                return perr(p, "run %s: expected the MC stall ratio, hit rates and write fraction in 0..1, got '%s'",
                            tok[1], tok[3 + shares[k]]);
        if (vals[15] > 32)
            return perr(p, "run %s: expected threads per warp instruction in 0..32, got '%s'", tok[1], tok[3 + 15]);
        if (vals[6] != floor(vals[6]))
            return perr(p, "run %s: expected a whole number of cycles, got '%s'", tok[1], tok[3 + 6]);
        if (!(vals[0] > 0) || !(vals[1] > 0) || !(vals[8] > 0))
            return perr(p, "run %s: IPC, AMAT and instructions per request must be > 0%s", tok[1], "");
        run_from_nums(r, vals);
        c->nruns++;
        return GPUEST_OK;
    }
    if (strcmp(rec, "param") == 0) {
        GPUEST_TRY(want(p, nt, 3, rec));
        for (int j = 0; j < GPUEST_GPU_PARAMS; j++)
            if (strcmp(tok[1], gpuest_gpu_param_names[j]) == 0)
                f = F_P0 + j;
        if (f < 0)
            return perr(p, "unknown parameter '%s' (expected alpha, eta or kappa)%s", tok[1], "");
        GPUEST_TRY(num(p, tok[2], "param", &v));
        if (v < gpuest_gpu_param_lo[f - F_P0] || v > gpuest_gpu_param_hi[f - F_P0])
            return perr(p, "parameter %s = %s outside its bounds", tok[1], tok[2]);
        double th[GPUEST_GPU_PARAMS];
        gpuest_gpu_params_to_vec(&c->fit.params, th);
        th[f - F_P0] = v;
        gpuest_gpu_params_from_vec(&c->fit.params, th);
    } else {
        for (int k = 0; k < F_P0; k++)
            if (strcmp(rec, field_names[k]) == 0)
                f = k;
        if (f < 0)
            return perr(p, "unknown record '%s'%s", rec, "");
        switch (f) {
        case F_FORMAT:
            GPUEST_TRY(want(p, nt, 2, rec));
            if (strcmp(tok[1], "1") != 0)
                return perr(p, "format %s: this version reads format 1%s", tok[1], "");
            break;
        case F_PRESET:
        case F_WORKLOAD:
            GPUEST_TRY(want(p, nt, 2, rec));
            if (strlen(tok[1]) >= GPUEST_NAME_MAX)
                return perr(p, "%s name too long%s", rec, "");
            snprintf(f == F_PRESET ? c->preset : c->workload, GPUEST_NAME_MAX, "%s", tok[1]);
            break;
        case F_SCALE:
            GPUEST_TRY(want(p, nt, 2, rec));
            if (gpuest_scale_parse(tok[1], &c->scale) != GPUEST_OK)
                return perr(p, "scale '%s': expected tiny, small or default%s", tok[1], "");
            break;
        case F_SEED: {
            GPUEST_TRY(want(p, nt, 2, rec));
            uint64_t s;
            if (gpuest_parse_u64(tok[1], &s) != GPUEST_OK)
                return perr(p, "seed '%s': expected an unsigned integer%s", tok[1], "");
            c->seed = s;
            break;
        }
        case F_COVAR:
            GPUEST_TRY(want(p, nt, 1 + GPUEST_GPU_PARAMS * GPUEST_GPU_PARAMS, rec));
            for (int a = 0; a < GPUEST_GPU_PARAMS; a++)
                for (int b = 0; b < GPUEST_GPU_PARAMS; b++)
                    GPUEST_TRY(num(p, tok[1 + a * GPUEST_GPU_PARAMS + b], "covar", &c->fit.covar[a][b]));
            for (int a = 0; a < GPUEST_GPU_PARAMS; a++)
                if (c->fit.covar[a][a] < 0)
                    return perr(p, "covar: negative variance%s%s", "", "");
            break;
        case F_UTIL:
            GPUEST_TRY(want(p, nt, 3, rec));
            GPUEST_TRY(num(p, tok[1], rec, &c->util_lo));
            GPUEST_TRY(num(p, tok[2], rec, &c->util_hi));
            if (c->util_lo > c->util_hi)
                return perr(p, "util_range: low above high%s%s", "", "");
            break;
        default:
            GPUEST_TRY(want(p, nt, 2, rec));
            GPUEST_TRY(num(p, tok[1], rec, &v));
            if (v < 0)
                return perr(p, "%s: expected a value >= 0, got '%s'", rec, tok[1]);
            /* counts are stored as int: a fraction or a value past INT_MAX is a damaged file */
            if ((f == F_DOF || f == F_ITER) && (v > INT_MAX || v != floor(v)))
                return perr(p, "%s: expected a whole number 0..2147483647, got '%s'", rec, tok[1]);
            if (f == F_CHI2) c->fit.chi2 = v;
            else if (f == F_DOF) c->fit.dof = (int)v;
            else if (f == F_ITER) c->fit.iterations = (int)v;
            else if (f == F_RMS) c->fit.rms_rel_error = v;
            else if (f == F_CVI) c->cv_ipc = v;
            else if (f == F_CVA) c->cv_amat = v;
            else c->calib_seconds = v;
        }
    }
    if (seen[f])
        return perr(p, "record '%s' appears twice%s", field_names[f], "");
    seen[f] = p->line;
    return GPUEST_OK;
}

gpuest_err gpuest_calibration_parse(const char *text, const char *origin, gpuest_calibration_t *c,
                                    gpuest_error_t *err)
{
    memset(c, 0, sizeof *c);
    gpuest_gpu_params_default(&c->fit.params);
    pctx_t p = {origin, 0, err};
    int seen[F_COUNT + 5] = {0}; /* + the optional simulator, machine, warp_profile, anchor, scoreboard_form */
    const char *s = text;
    char line[4096];
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        p.line++;
        if (len >= sizeof line)
            return perr(&p, "line too long%s%s", "", "");
        memcpy(line, s, len);
        line[len] = '\0';
        s += len + (e ? 1 : 0);
        char *tok[MAX_TOK];
        int nt = 0;
        for (char *t = strtok(line, " \t\r"); t; t = strtok(NULL, " \t\r")) {
            if (nt == MAX_TOK)
                return perr(&p, "too many fields%s%s", "", "");
            tok[nt++] = t;
        }
        if (nt == 0 || tok[0][0] == '#')
            continue;
        GPUEST_TRY(parse_line(&p, tok, nt, c, seen));
    }
    p.line++;
    for (int f = 0; f < F_COUNT; f++)
        if (!seen[f])
            return perr(&p, "missing record '%s'%s", field_names[f], "");
    if (c->nruns < 1)
        return perr(&p, "no run records (the data the calibration was made from)%s%s", "", "");
    if (c->runs[0].sets[0])
        return perr(&p, "the first run must be the baseline (assignments '-')%s%s", "", "");
    if (seen[F_COUNT + 2] && seen[F_COUNT + 4]) {
        p.line = seen[F_COUNT + 4];
        return perr(&p, "scoreboard_form goes with the token form, but the file also has a warp_profile%s%s", "", "");
    }
    if (seen[F_COUNT + 2])
        gpuest_calibration_set_profile(c, c->warp_profile);
    if (!seen[F_COUNT + 3]) { /* not anchored: the stored errors are the plain model's */
        c->raw_cv_ipc = c->cv_ipc;
        c->raw_cv_amat = c->cv_amat;
    }
    return GPUEST_OK;
}

gpuest_err gpuest_calibration_read(const char *path, gpuest_calibration_t *c, gpuest_error_t *err)
{
    unsigned char *data = NULL;
    size_t size = 0;
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    if (memchr(data, '\0', size)) {
        free(data);
        return gpuest_fail(err, GPUEST_EPARSE, "%s: binary data in a calibration file", path);
    }
    gpuest_err rc = gpuest_calibration_parse((const char *)data, path, c, err);
    free(data);
    return rc;
}

void gpuest_calibration_set_profile(gpuest_calibration_t *c, const double profile[4])
{
    double v[4] = {profile[0], profile[1], profile[2], profile[3]};
    memcpy(c->warp_profile, v, sizeof v);
    for (int i = 0; i < c->nruns; i++) {
        gpuest_model_workload_t *w = &c->runs[i].in;
        w->resident_warps = v[0];
        w->insts_per_epoch = v[1];
        w->lines_per_epoch = v[2];
        w->dep_per_epoch = v[3];
    }
}

/* ---------------------------------------------------------------- staleness */
gpuest_err gpuest_study_machine_hash(const gpuest_config_t *cfg, uint64_t *out, gpuest_error_t *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return gpuest_fail(err, GPUEST_ENOMEM, "machine hash: out of memory");
    gpuest_err rc = gpuest_config_write_ini(cfg, m);
    fclose(m);
    if (rc != GPUEST_OK) {
        free(buf);
        return gpuest_fail(err, rc, "machine hash: cannot write the configuration");
    }
    /* The [technique] section is left out: a calibration describes the baseline machine, and a
     * technique key added at its default (off) must not make every calibration stale. */
    uint64_t h = 14695981039346656037ULL;
    int comment = 0, bol = 1, technique = 0;
    for (size_t i = 0; i < len; i++) {
        if (bol) {
            comment = buf[i] == ';';
            if (buf[i] == '[')
                technique = strncmp(buf + i, "[technique]", 11) == 0;
        }
        bol = buf[i] == '\n';
        if (comment || technique)
            continue;
        h ^= (unsigned char)buf[i];
        h *= 1099511628211ULL;
    }
    free(buf);
    *out = h ? h : 1; /* 0 means "not recorded" */
    return GPUEST_OK;
}

int gpuest_calibration_stale(const gpuest_calibration_t *c, char *msg, size_t cap)
{
    if (c->sim_generation != GPUEST_STUDY_SIM_GENERATION) {
        if (c->sim_generation == 0)
            snprintf(msg, cap, "the calibration records no simulator generation: it was fitted on the pre-v2 simulator "
                               "(this build simulates generation %d)",
                     GPUEST_STUDY_SIM_GENERATION);
        else
            snprintf(msg, cap, "the calibration was fitted on simulator generation %d, this build simulates %d",
                     c->sim_generation, GPUEST_STUDY_SIM_GENERATION);
        return 1;
    }
    gpuest_config_t cfg;
    gpuest_error_t e;
    gpuest_error_clear(&e);
    uint64_t h = 0;
    if (gpuest_config_preset(&cfg, c->preset, &e) != GPUEST_OK || gpuest_study_machine_hash(&cfg, &h, &e) != GPUEST_OK) {
        snprintf(msg, cap, "preset '%s' of the calibration is not known to this build", c->preset);
        return 1;
    }
    if (c->machine_hash != h) {
        snprintf(msg, cap, "the machine the calibration was fitted on (%016llx) differs from preset '%s' as this build "
                           "defines it (%016llx)",
                 (unsigned long long)c->machine_hash, c->preset, (unsigned long long)h);
        return 1;
    }
    return 0;
}
