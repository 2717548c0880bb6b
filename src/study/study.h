/* study.h: orchestration below the CLI: simulator statistics -> model inputs, calibration,
 * estimates with intervals, validation against detailed runs, the NoC-vs-model comparison. */
#ifndef GPUEST_STUDY_H
#define GPUEST_STUDY_H

#include <stdint.h>

#include "config/config.h"     /* gpuest_config_t */
#include "core/core.h"         /* errors, progress */
#include "model/model.h"       /* the closed GPU model and its fit */
#include "sim/sim.h"           /* gpuest_sim_stats_t (plain data) */
#include "workload/workload.h" /* gpuest_scale_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ bridge (bridge.c) */
/* Model inputs measured by a simulation (statistics as plain data). GPUEST_EINVAL when the run
 * sent no memory request (nothing to model). */
gpuest_err gpuest_study_inputs_from_stats(const gpuest_sim_stats_t *s, gpuest_model_workload_t *w,
                                          gpuest_error_t *err);

/* The open NoC model at the load a simulation measured (what `gpuest run` prints). */
typedef struct {
    double rate;     /* request packets x request flits per SM per interconnect cycle */
    double sat_rate; /* the model's saturation rate in the same unit (0 if none found) */
    gpuest_model_result_t model;
    double to_core;  /* core cycles per interconnect cycle */
} gpuest_study_noc_compare_t;
gpuest_err gpuest_study_noc_compare(const gpuest_config_t *cfg, const gpuest_sim_stats_t *s,
                                    gpuest_study_noc_compare_t *out, gpuest_error_t *err);

/* The warp scoreboard profile of a workload (resident warps per SM, instructions, load line
 * requests and own compute-dependence delay per epoch) by a walk of its instruction streams on
 * cfg's core; fills those fields of *w only (warp_profile.c). */
gpuest_err gpuest_study_warp_profile(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                     uint64_t seed, gpuest_model_workload_t *w, gpuest_error_t *err);
/* The same over an open workload (run through all its launches; traces included). */
gpuest_err gpuest_study_warp_profile_of(const gpuest_config_t *cfg, gpuest_workload_t *wl, gpuest_model_workload_t *w,
                                        gpuest_error_t *err);

/* One launch's walk (warp_profile.c, per launch): totals over its warps (walked warps scaled up to
 * the launch), resident warps per SM, and warps per SM with work at a time (active <= resident). */
typedef struct {
    char name[GPUEST_WL_NAME_MAX];
    double epochs, insts, lines, dep;
    double resident, active;
} gpuest_study_launch_profile_t;
gpuest_err gpuest_study_launch_profiles(const gpuest_config_t *cfg, gpuest_workload_t *wl,
                                        gpuest_study_launch_profile_t *out, int cap, int *n, gpuest_error_t *err);

/* ------------------------------------------------------------ configuration variants (variants.c) */
#define GPUEST_STUDY_MAX_SETS 6
typedef struct {
    char label[48];
    int nsets;
    char sets[GPUEST_STUDY_MAX_SETS][80]; /* "section.key=value", applied to the preset */
} gpuest_study_variant_t;

/* Excitation set used for calibration (baseline first), and the held-out validation set, for
 * the topology of cfg. Return the count; *out points to static storage filled from cfg. */
int gpuest_study_excitation(const gpuest_config_t *cfg, gpuest_study_variant_t *out, int cap);
int gpuest_study_heldout(const gpuest_config_t *cfg, gpuest_study_variant_t *out, int cap);
/* cfg + the variant's assignments, validated. */
gpuest_err gpuest_study_apply(const gpuest_config_t *base, const gpuest_study_variant_t *v, gpuest_config_t *out,
                              gpuest_error_t *err);

/* ------------------------------------------------------------ runs (run.c) */
typedef struct {
    char label[48];
    char sets[GPUEST_STUDY_MAX_SETS * 80]; /* assignments separated by ';' ("" for the baseline) */
    gpuest_model_workload_t in;            /* measured model inputs */
    double ipc, amat, mc_stall, link_util_max; /* measured outputs */
    double ipc_cv, amat_cv;                /* relative standard errors (0: full detailed run) */
    uint64_t cycles;
    double sim_seconds;
} gpuest_study_run_t;

/* Full detailed run of workload at scale/seed on cfg. */
gpuest_err gpuest_study_run_detailed(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                     uint64_t seed, gpuest_study_run_t *out, gpuest_error_t *err);

/* The same, also handing over the per-launch statistics (*kernels, malloc'd, the caller frees). */
gpuest_err gpuest_study_run_detailed_kernels(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                             uint64_t seed, gpuest_study_run_t *out, gpuest_sim_stats_t **kernels,
                                             size_t *num_kernels, gpuest_error_t *err);

/* ------------------------------------------------------------ calibration (calib_file.c, calibrate.c) */
#define GPUEST_STUDY_MAX_RUNS 8
/* Generation of the simulator whose runs a calibration is fitted to: 2 = the v2 simulator (warp
 * scoreboard, L1I/L1C front end, memory sub-partitions, DRAM command state machine). Raise it
 * when the simulator's timing changes so that older calibrations are reported as stale. */
#define GPUEST_STUDY_SIM_GENERATION 2
typedef struct {
    char preset[GPUEST_NAME_MAX];
    char workload[GPUEST_NAME_MAX];
    gpuest_scale_t scale;
    uint64_t seed;
    gpuest_fit_result_t fit;
    double cv_ipc, cv_amat;   /* leave-one-config-out RMS relative error */
    double util_lo, util_hi;  /* model bottleneck utilisation over the calibration runs */
    double calib_seconds;     /* wall time of the simulations and the fit */
    int nruns;
    gpuest_study_run_t runs[GPUEST_STUDY_MAX_RUNS]; /* runs[0] is the baseline */
    int sim_generation;    /* GPUEST_STUDY_SIM_GENERATION at calibration; 0: not recorded (pre-v2 files) */
    uint64_t machine_hash; /* gpuest_study_machine_hash of the calibrated machine; 0: not recorded */
    double warp_profile[4]; /* resident warps, insts, lines and dependence delay per epoch; all 0: none */
    /* Kernel phases (phases.c) measured on the baseline run: each launch group's own inputs; the
     * fit and every estimate solve them one by one and add their times. 0: the run as one phase
     * (files written before the phases, which estimate exactly as they did). */
    int nphases;
    char phase_names[GPUEST_MODEL_MAX_PHASES][GPUEST_NAME_MAX];
    gpuest_model_phase_t phases[GPUEST_MODEL_MAX_PHASES];
    /* The form of the model not kept (gpuest_study_fit_runs fits both when there is a warp profile):
     * its fit RMS and leave-one-out errors, for the report; other_form = 0: none fitted. Not stored. */
    int other_form;
    double other_rms, other_cv_ipc, other_cv_amat;
    /* The choice between phases and one phase (gpuest_study_fit_runs, when phases were measured):
     * phase_choice = +n kept n phases, -n kept one phase over n measured, 0 no choice made; the
     * leave-one-out IPC errors of both. Not stored. */
    int phase_choice;
    double phase_cv_ipc, whole_cv_ipc;
    /* Baseline anchoring (estimate.c; docs/estimator.md "Baseline anchoring"): anchor_ipc = 1 when
     * an IPC estimate is the model's IPC at the point over the model's IPC at the calibrated machine,
     * times the measured baseline IPC (runs[0]); anchor_amat the same for AMAT. calibrate sets each
     * when that form's leave-one-configuration-out error is not larger than the plain model's;
     * cv_ipc and cv_amat are then the anchored form's errors, raw_cv_ipc and raw_cv_amat the plain
     * model's. Stored as `anchor I A RAW_CV_IPC RAW_CV_AMAT`; a file without it is not anchored. */
    int anchor_ipc, anchor_amat;
    double raw_cv_ipc, raw_cv_amat;
    /* Errors over the calibrated range (gpuest_study_range_error): of the plain model and of the
     * anchored form, IPC and AMAT, from the leave-one-out refits; the anchoring of each figure, the
     * model's form and its phases are chosen by them (the form and phases by the kept IPC form's).
     * Not stored (a refit computes them again); 0 in a calibration read from a file. */
    double range_raw_ipc, range_raw_amat, range_anch_ipc, range_anch_amat;
    double other_range_ipc; /* the form not kept: its IPC error over the range (what lost the choice) */
    /* A calibration that kept the token form although the workload has a warp profile also keeps
     * the scoreboard form's fit it did not choose (sb_kept = 1): its parameters, their covariance and
     * the profile. Estimates use it only for the part of a technique that acts through the
     * scoreboard form alone (WarpPool; pool_form.c). Stored as the optional `scoreboard_form`
     * record; 0: none (scoreboard-form files, files written before it). */
    int sb_kept;
    gpuest_gpu_params_t sb_params;
    double sb_covar[GPUEST_GPU_PARAMS][GPUEST_GPU_PARAMS];
    double sb_profile[4];
    /* Set by the caller, not stored: 1 estimates a WarpPool point of a token-form calibration with
     * the scoreboard form's effect (pool_form.c; `--pool-form scoreboard`); 0 (the default) by the
     * token form, as before. Off by default: on the development truths it made the estimates worse
     * (docs/estimator.md, "WarpPool on token-form calibrations (seventh session)"). */
    int pool_scoreboard;
    /* Set by the caller, not stored: 1 (`--pool-setres on`) lets a WarpPool point scale the L1's
     * measured set-reservation blocking by the transform's ldst_block_scale (src/technique/wp_setres.c,
     * src/model/setres_relief.c); 0 (the default) leaves it as measured. Off by default: on the
     * development truths it doubled the mean |IPC error| for one sign gained by a cancellation
     * (docs/estimator.md, "L1 set reservations in the estimate (seventh session)"). */
    int pool_setres;
    /* Set by the caller, not stored: 1 (`--l1-fill-timing on`) lands a compressed-L1 walk's fill
     * after the baseline's read miss latency in its SM's reads, or at its warp's next turn if that
     * comes first (src/technique/l1c_filltime.c); 0 (the default) at the warp's next turn only. Off
     * by default: on the 40 development points it got more signs right (27 against 23) but a larger
     * mean effect error (2.68 against 2.21 points), and the rule fixed before measuring asked for
     * both (docs/estimator.md, "Compressed-L1 walk: reservations held for the miss latency"). */
    int l1_fill_timing;
} gpuest_calibration_t;

/* Sets the warp profile of c and copies it into every run's model inputs. */
void gpuest_calibration_set_profile(gpuest_calibration_t *c, const double profile[4]);
/* Walks the workload of c on cfg and sets c's profile (calibrate; --refit of a file without one). */
gpuest_err gpuest_study_profile_calibration(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err);


/* 64-bit FNV-1a over the key = value lines of cfg written as INI (comments left out): equal for
 * equal machines, whatever the version string or the keys' help text. */
gpuest_err gpuest_study_machine_hash(const gpuest_config_t *cfg, uint64_t *out, gpuest_error_t *err);
/* 0 when c was fitted on this simulator generation and on its preset as this build defines it;
 * else 1 and msg (cap bytes) says what differs. Never an error: a stale calibration still loads
 * and estimates, the caller warns. */
int gpuest_calibration_stale(const gpuest_calibration_t *c, char *msg, size_t cap);

/* Runs the excitation set of cfg's topology on workload, fits, cross-validates. progress may be NULL. */
gpuest_err gpuest_study_calibrate(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                  uint64_t seed, gpuest_progress_t *progress, gpuest_calibration_t *out,
                                  gpuest_error_t *err);
/* The same on sampled runs (hybrid.c): each excitation configuration's IPC and AMAT from the
 * sampled simulator with the standard errors of its intervals as fit weights; the model inputs
 * from a detailed run of the first 30 % of the baseline's instructions. */
gpuest_err gpuest_study_calibrate_sampled(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                          uint64_t seed, gpuest_progress_t *progress, gpuest_calibration_t *out,
                                          gpuest_error_t *err);
/* Fit + cross-validation on runs already in c (c->runs, c->nruns); fills fit, cv_*, util_*. */
gpuest_err gpuest_study_fit_runs(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_error_t *err);
/* The steps every calibration shares: begin clears out, fills its header (machine, workload, simulator
 * generation, machine hash) and sets *t0 to the wall clock; run_label names run r after variant v
 * (label and ';'-joined assignments); end profiles, fits and records the wall seconds since t0. */
gpuest_err gpuest_study_calibration_begin(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                          uint64_t seed, gpuest_calibration_t *out, double *t0, gpuest_error_t *err);
void gpuest_study_run_label(gpuest_study_run_t *r, const gpuest_study_variant_t *v);
gpuest_err gpuest_study_calibration_end(const gpuest_config_t *cfg, gpuest_calibration_t *out, double t0,
                                        gpuest_error_t *err);

/* models/calibrations/<preset>-<workload>-<scale>.cal */
void gpuest_calibration_path(const char *dir, const char *preset, const char *workload, gpuest_scale_t scale,
                             char *buf, size_t cap);
/* Text file, written atomically; the parser is strict (file:line errors, every field required once). */
gpuest_err gpuest_calibration_write(const gpuest_calibration_t *c, const char *path, gpuest_error_t *err);
gpuest_err gpuest_calibration_read(const char *path, gpuest_calibration_t *c, gpuest_error_t *err);
gpuest_err gpuest_calibration_parse(const char *text, const char *origin, gpuest_calibration_t *c,
                                    gpuest_error_t *err);

/* ------------------------------------------------------------ kernel phases (phases.c) */
/* Phases a calibration keeps: launches grouped to at most this many (each phase is one more solve
 * of the closed model in every fit iteration and estimate). */
#define GPUEST_STUDY_PHASES 4
/* Detailed run of the baseline machine cfg with its per-launch statistics, then the launches
 * grouped into phases (launches without memory requests join a neighbour; the most alike launches,
 * by kernel name, warps with work, instructions per request and L1 hit rate, are merged until at
 * most GPUEST_STUDY_PHASES remain) with each phase's inputs: the bridge's figures from the summed
 * statistics of its launches and the walk's profile. Fills c->phases (with the walk's scoreboard fields
 * always: gpuest_calibration_model_phases applies the form) and c->nphases; *run (may be NULL) gets the run's totals. */
gpuest_err gpuest_study_measure_phases(const gpuest_config_t *cfg, gpuest_calibration_t *c, gpuest_study_run_t *run,
                                       gpuest_error_t *err);
/* Groups measured launches into phases (used by gpuest_study_measure_phases; exposed for tests):
 * kernels[i] and prof[i] describe launch i (same order), n launches. */
gpuest_err gpuest_study_group_phases(const gpuest_sim_stats_t *kernels, const gpuest_study_launch_profile_t *prof,
                                     int n, gpuest_calibration_t *c, gpuest_error_t *err);
/* The phases as the model reads them: c's phases (which always keep their walk profile) with the
 * scoreboard fields cleared when c's form is the token model (no warp profile). Returns the count. */
int gpuest_calibration_model_phases(const gpuest_calibration_t *c, gpuest_model_phase_t *out);

/* ------------------------------------------------------------ estimate (estimate.c) */
typedef struct {
    double v, lo, hi;
} gpuest_interval_t;

typedef struct {
    gpuest_interval_t ipc, amat, req, mem, reply, mc_stall, link_util;
    int extrapolated;  /* 1: outside the calibrated range (why says how) */
    char why[160];
    gpuest_gpu_estimate_t raw;
} gpuest_study_estimate_t;

/* Estimate for machine cfg (the calibration's preset with changes) under transform t (NULL:
 * identity), at confidence level conf (e.g. 0.95): model + delta-method sd from the parameter
 * covariance + the cross-validated relative error, combined in quadrature. */
gpuest_err gpuest_study_estimate(const gpuest_calibration_t *c, const gpuest_config_t *cfg,
                                 const gpuest_model_transform_t *t, double conf, gpuest_study_estimate_t *out,
                                 gpuest_error_t *err);

/* Batch form: estimates of many design points of one calibration share the network part of the
 * model (open NoC model, saturation points, surrogate curves) between points whose machines differ
 * only in L1, L2, DRAM or technique keys (gpuest_gpu_model_retarget); up to
 * GPUEST_STUDY_BATCH_MODELS networks are kept. Each estimate is bit-identical to
 * gpuest_study_estimate's for the same point: the kept saturation points and curves are the ones a
 * fresh model computes for the same network and kappa. The first kept model is the one the
 * calibration's anchor was solved on (the calibrated machine's network); a batch used with another
 * calibration starts again. */
#define GPUEST_STUDY_BATCH_MODELS 8
typedef struct gpuest_study_batch_s gpuest_study_batch_t;
gpuest_err gpuest_study_batch_create(gpuest_study_batch_t **out, gpuest_error_t *err);
void gpuest_study_batch_destroy(gpuest_study_batch_t *b);
gpuest_err gpuest_study_estimate_in(gpuest_study_batch_t *b, const gpuest_calibration_t *c,
                                    const gpuest_config_t *cfg, const gpuest_model_transform_t *t, double conf,
                                    gpuest_study_estimate_t *out, gpuest_error_t *err);

/* ------------------------------------------------------------ validation (validate.c) */
typedef struct {
    gpuest_study_variant_t variant;
    gpuest_study_run_t truth;
    gpuest_study_estimate_t est;
    double ipc_err, amat_err; /* (estimate - truth) / truth */
    int ipc_covered, amat_covered;
    double est_seconds;       /* wall time of the estimate */
    /* Technique points only (technique = 1): the IPC effect of the technique, (technique -
     * baseline) / baseline, estimated (both estimates with the same calibration) and simulated
     * (both detailed runs), and whether their signs agree (-1, 0 or +1 each). */
    int technique;
    double effect_est, effect_sim;
    int sign_agree;
} gpuest_study_validation_point_t;

/* Estimates and runs in detail the first n held-out variants (n <= the list length). truths, when
 * not NULL, holds detailed runs already made (matched by label; ipc, amat, sim_seconds), which
 * then replace the simulations (re-validating a refitted calibration); a point it lacks is an
 * error unless simulate_missing, which runs that point in detail. */
gpuest_err gpuest_study_validate(const gpuest_calibration_t *c, const gpuest_config_t *cfg, int n, double conf,
                                 const gpuest_study_run_t *truths, int ntruths, int simulate_missing,
                                 gpuest_progress_t *progress,
                                 gpuest_study_validation_point_t *out, int *count, gpuest_error_t *err);


/* The setting of one technique item: a compression algorithm ("bdi": "technique.compression=bdi")
 * or a technique key=value ("coalescing=pcu": "technique.coalescing=pcu"). */
void gpuest_study_technique_setting(const char *item, char *set, size_t size);

/* Technique points: for each of the n items in values (compression algorithms "bdi", or
 * key=value "coalescing=pcu"; labels "compression_bdi", "coalescing_pcu"), the machine
 * cfg with that setting, estimated under the techniques' transform exactly as
 * 'gpuest estimate' builds it (gpuest_study_technique_transform) and run in detail with the
 * techniques' hooks; each point's effect sign is compared against the baseline (cfg itself),
 * which is estimated and run once (a point whose label, "baseline" or "compression_<value>",
 * is in truths uses that stored run instead of simulating). model_dir: folder the techniques read models from (NULL: "models"). */
gpuest_err gpuest_study_validate_techniques(const gpuest_calibration_t *c, const gpuest_config_t *cfg,
                                            const char *const *values, int n, const char *model_dir, double conf,
                                            const gpuest_study_run_t *truths, int ntruths,
                                            gpuest_progress_t *progress, gpuest_study_validation_point_t *out,
                                            int *count, gpuest_error_t *err);

/* ------------------------------------------------------------ technique transform (technique_transform.c) */
/* 1 when any registered technique is on in cfg. */
int gpuest_study_any_technique(const gpuest_config_t *cfg);
/* The techniques' model transform for workload (scale, seed) on cfg into *t, *use = t; *use =
 * NULL when no technique is on (the identity: the estimate needs none). */
gpuest_err gpuest_study_technique_transform(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                            uint64_t seed, const char *model_dir, gpuest_model_transform_t *t,
                                            const gpuest_model_transform_t **use, gpuest_error_t *err);
/* The same with the measured baseline's L1 read misses in flight (in_flight, 0: not known), which
 * remote-L1 probing's walk takes as the window of lines still in flight. */
gpuest_err gpuest_study_technique_transform_in_flight(const gpuest_config_t *cfg, const char *workload,
                                                      gpuest_scale_t scale, uint64_t seed, const char *model_dir,
                                                      double in_flight, gpuest_model_transform_t *t,
                                                      const gpuest_model_transform_t **use, gpuest_error_t *err);
/* The calibration's baseline run's L1 read misses in flight, by Little's law: its read misses a
 * cycle (warp IPC / warp instructions per request x the read share of requests) times their mean
 * latency (AMAT); 0 when the run does not give them. */
double gpuest_study_misses_in_flight(const gpuest_calibration_t *c);
/* One SM's L1 reads in one read miss latency of c's measured baseline (0: not known), and the
 * techniques' transform with both figures of c (what 'estimate' and 'validate' use). */
double gpuest_study_l1_reads_per_miss_latency(const gpuest_calibration_t *c, int sms);
gpuest_err gpuest_study_technique_transform_cal(const gpuest_config_t *cfg, const gpuest_calibration_t *c,
                                                const char *workload, gpuest_scale_t scale, uint64_t seed,
                                                const char *model_dir, gpuest_model_transform_t *t,
                                                const gpuest_model_transform_t **use, gpuest_error_t *err);

/* ------------------------------------------------------------ sampled simulation (sample.c) */
typedef struct {
    double value, lo, hi; /* estimate and confidence interval */
} gpuest_study_ci_t;

typedef struct {
    gpuest_sample_result_t raw;
    gpuest_study_ci_t ipc, amat, miss_latency, mc_stall;
    double cov;             /* coefficient of variation of per-unit CPI */
    int units;              /* measured units, census ones (each kernel's head and tail) included */
    int units_sampled;      /* of which sampled (the kernels' middles) */
    int units_steady;       /* units whose warming reached steady state */
    int units_needed;       /* units for the target half-width at the confidence level */
    double confidence, target;
    double detailed_fraction; /* detailed cycles / estimated cycles of the full run */
    int pilot_units;          /* units of the pilot stage (0: no second stage) */
    double full_seconds_est;  /* CPU seconds a full detailed run would take, at the sampled run's detailed rate */
} gpuest_study_sampled_t;

/* Sampled simulation of workload on cfg with intervals at confidence conf; with target > 0
 * (relative half-width of the IPC interval) a second stage reruns with the sample size the pilot
 * asks for (at most 400 units). */
gpuest_err gpuest_study_sample(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                               uint64_t seed, const gpuest_sample_opts_t *opts, double conf, double target,
                               gpuest_study_sampled_t *out, gpuest_error_t *err);
/* Estimates and intervals from raw units (no simulation): exposed for tests. */
gpuest_err gpuest_study_sample_estimate(const gpuest_sample_result_t *raw, double conf, double target,
                                        gpuest_study_sampled_t *out, gpuest_error_t *err);
void gpuest_study_sampled_free(gpuest_study_sampled_t *s);

/* The method note's warming-bias check: the same sample (same unit positions) with twice the
 * detailed warming (warm_cycles and warm_amats doubled); passed when the IPC moves by less than
 * base's relative half-width. */
typedef struct {
    double ipc;        /* IPC with twice the warming */
    double shift;      /* its relative change from base */
    double half_width; /* base's relative IPC half-width */
    int passed;
    double cpu_seconds;
} gpuest_study_bias_t;
gpuest_err gpuest_study_sample_bias_check(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale,
                                          uint64_t seed, const gpuest_sample_opts_t *opts, double conf,
                                          const gpuest_study_sampled_t *base, gpuest_study_bias_t *out,
                                          gpuest_error_t *err);

/* ------------------------------------------------------------ L2 capacity in the estimate (l2_walk.c) */
/* A functional walk (no timing) of a workload's request stream through each SM's L1 (LRU,
 * write-evict, cold at each launch) and, for its misses, through the L2 slices of cfg's geometry
 * (the simulator's address-to-slice mapping and set index, LRU, allocate on every miss, kept across
 * launches): L2 accesses and hits. */
typedef struct {
    uint64_t accesses, hits;
    /* What the L2 (write-back, as l2.c) sends to DRAM, replayed through cfg's channels and banks
     * (dram_stream.h): accesses (read fills, write-miss data, dirty write-backs), writes among
     * them, the open-row-per-bank row-hit rate and the mean channel concentration over windows of
     * the channels' DRAM queue capacity. */
    uint64_t dram_accesses, dram_writes;
    double dram_row_hit_rate, dram_turn_rate, dram_concentration;
    /* the concentration over that of a hashed placement of the same stream (dram_stream.h) */
    double dram_excess;
    /* the same excess of the L2 access stream (every L1 miss and store, in walk order) over the
     * channels, windows of the same size: how the slices' load concentrates */
    double l2_excess;
} gpuest_study_l2_walk_t;
gpuest_err gpuest_study_l2_walk(const gpuest_config_t *cfg, const char *workload, gpuest_scale_t scale, uint64_t seed,
                                gpuest_study_l2_walk_t *out, gpuest_error_t *err);
gpuest_err gpuest_study_l2_walk_of(const gpuest_config_t *cfg, gpuest_workload_t *wl, gpuest_study_l2_walk_t *out,
                                   gpuest_error_t *err);
/* 1 when a and b have the same L2 geometry (channels, sub-partitions, interleave, size per MC,
 * associativity, line size). */
int gpuest_study_l2_same_geometry(const gpuest_config_t *a, const gpuest_config_t *b);
/* Walks kept for one calibration's workload (a batch of points with the same L2 walks once). */
#define GPUEST_STUDY_L2_CACHE 8
typedef struct gpuest_study_l2_cache_s gpuest_study_l2_cache_t;
gpuest_err gpuest_study_l2_cache_create(gpuest_study_l2_cache_t **out, gpuest_error_t *err);
void gpuest_study_l2_cache_destroy(gpuest_study_l2_cache_t *c);
/* w's L2 hit rate x ratio (clipped to [0, 1]); DRAM accesses per request x the new over the old
 * miss rate (x walk_miss_ratio when the measured hit rate is 1). */
void gpuest_study_l2_apply(gpuest_model_workload_t *w, double ratio, double walk_miss_ratio);
/* When cfg's L2 geometry differs from c's preset: walks cfg and the calibrated L2 (under cfg's cores
 * and L1), both through cache (may be NULL), and applies the walks' hit-rate ratio to w and to each
 * of the nph phases ph; *applied = 1. Same geometry: nothing changes, *applied = 0. */
gpuest_err gpuest_study_l2_adjust(gpuest_study_l2_cache_t *cache, const gpuest_calibration_t *c,
                                  const gpuest_config_t *cfg, gpuest_model_workload_t *w, gpuest_model_phase_t *ph,
                                  int nph, int *applied, gpuest_error_t *err);

/* ------------------------------------------------------------ range error (range_error.c) */
/* An estimate form's RMS relative error over the calibrated range: design points equally likely on
 * each segment from the baseline to a left-out run k, the error linear along it from at_base[k] (the
 * form's error at the baseline; NULL: 0, the anchored form) to at_run[k] (at run k):
 * sqrt(mean_k (b^2 + b r + r^2) / 3). 0 when n <= 0. */
double gpuest_study_range_error(const double *at_base, const double *at_run, int n);

/* ------------------------------------------------------------ WarpPool on token-form calibrations (pool_form.c) */
/* 1 when the point's pool is estimated through the scoreboard form: the caller asked for it
 * (c->pool_scoreboard), c kept the token form and the scoreboard form's fit (c->sb_kept), and t
 * holds a WarpPool (l1_merge_windows > 0). */
int gpuest_study_pool_on_scoreboard(const gpuest_calibration_t *c, const gpuest_model_transform_t *t);
/* The pool's effect at one point, from the scoreboard form at its own fit: that form's estimates
 * with the whole transform (all) and without the pool (rest, gpuest_model_transform_without_pool),
 * the gradients of its IPC and AMAT ratios all / rest over its parameters, and the token form's own
 * IPC and AMAT ratios all / rest (what it says of the pool). */
typedef struct {
    gpuest_gpu_estimate_t sb_all, sb_rest;
    double ipc_ratio, amat_ratio;             /* sb_all / sb_rest */
    double ipc_ratio_grad[GPUEST_GPU_PARAMS], amat_ratio_grad[GPUEST_GPU_PARAMS];
    double ipc_ratio_sd, amat_ratio_sd;       /* delta method over the scoreboard fit's covariance */
    double tok_ipc_ratio, tok_amat_ratio;     /* the token form's all / rest */
} gpuest_study_pool_effect_t;
/* Solves the scoreboard form on m for the token form's inputs w and phases ph (as the estimate has
 * them, the L2 adjusted) with c's warp profile put back, under t and t without its pool (rest), and
 * the token form under t (its own ratio against tok_rest, the token estimate of rest already made). */
gpuest_err gpuest_study_pool_effect(const gpuest_calibration_t *c, gpuest_gpu_model_t *m,
                                    const gpuest_model_workload_t *w, const gpuest_model_phase_t *ph, int nph,
                                    const gpuest_model_transform_t *t, const gpuest_model_transform_t *rest,
                                    const gpuest_gpu_estimate_t *tok_rest, gpuest_study_pool_effect_t *out,
                                    gpuest_error_t *err);
/* The token estimate of rest (e, and its IPC and AMAT gradients gi, ga over the token parameters;
 * either may be NULL) times the pool's effect: IPC, warp IPC, AMAT, the latencies, link and
 * injection utilisations by the scoreboard form's ratios; the MC stall ratio (a share) by its
 * difference, kept in [0, 1]; the pool's own figures (occupancy, merged share, unblocking, LD/ST
 * queue) the scoreboard form's. The bottleneck utilisation stays the token form's (the calibrated
 * range is that form's). */
void gpuest_study_pool_compose(gpuest_gpu_estimate_t *e, double *gi, double *ga, const gpuest_study_pool_effect_t *pe);
/* Relative standard deviations the pool adds to the IPC and AMAT estimates: the scoreboard ratio's
 * parameter uncertainty and the two forms' disagreement on the pool, in quadrature:
 * sqrt((sd_r / r)^2 + ((r - r_tok) / r)^2). */
void gpuest_study_pool_rel_sd(const gpuest_study_pool_effect_t *pe, double *ipc_rel, double *amat_rel);

#ifdef __cplusplus
}
#endif
#endif
