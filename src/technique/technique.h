/* technique.h: the traffic-reduction techniques: a registry of entries that own their
 * configuration keys, check them against the mode a command runs in, install the
 * simulator's hooks and report their own per-run statistics. */
#ifndef GPUEST_TECHNIQUE_H
#define GPUEST_TECHNIQUE_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"     /* gpuest_config_t */
#include "core/core.h"         /* gpuest_err, gpuest_error_t */
#include "model/model.h"       /* gpuest_model_transform_t */
#include "sim/sim.h"           /* gpuest_sim_hooks_t */
#include "workload/workload.h" /* gpuest_memimg_t */

#ifdef __cplusplus
extern "C" {
#endif

/* What a command is about to run with the configuration (bit mask). A technique
 * that is switched on but does not support every part of the mode is an error
 * naming its key (exit code 2), never silently ignored. */
enum {
    GPUEST_TECH_MODE_CHECK = 0,    /* only the values are checked (config show / check) */
    GPUEST_TECH_MODE_SIM = 1,      /* the detailed simulator */
    GPUEST_TECH_MODE_MODEL = 2,    /* the analytical estimator */
    GPUEST_TECH_MODE_NOC = 4,      /* the standalone network with synthetic traffic */
};

/* What a technique sees of the run when it is created. */
typedef struct {
    const gpuest_config_t *cfg;
    gpuest_memimg_t *image;   /* the workload's memory image: allocations, types, values */
    const char *workload;     /* generator name ("lud"), or NULL for a trace */
    const char *model_dir;    /* folder of models/approx-<app>.net (NULL: "models") */
    uint64_t seed;            /* the run's seed (datasets the technique builds) */
    /* Model transforms only: a fresh workload whose launches a transform may walk (without
     * simulating; the walk runs its kernels' writes into its image); NULL: image as generated. */
    gpuest_workload_t *launches;
    /* Model transforms only: the L1 read misses the measured baseline holds in flight (Little's
     * law over its calibration run: gpuest_study_misses_in_flight); 0: not known. */
    double misses_in_flight;
    /* Model transforms only: the L1 reads one SM of the measured baseline makes in one read miss
     * latency (its reads per cycle x its miss latency: gpuest_study_l1_reads_per_miss_latency); the
     * compressed-L1 walk holds a miss's reservation that long (l1c_filltime.c). 0: not known. */
    double l1_reads_per_miss_latency;
    /* Model transforms only: 1 when the estimate applies WarpPool's relief of the L1's set
     * reservations (--pool-setres on); 0: the WarpPool transform skips that replay (its result
     * would be dropped). */
    int pool_setres;
} gpuest_technique_env_t;

/* One named number a technique reports for a run. */
#define GPUEST_TECH_STAT_NAME 40
typedef struct {
    char name[GPUEST_TECH_STAT_NAME]; /* "<technique>.<what>" */
    double value;
} gpuest_technique_stat_t;

#define GPUEST_TECH_MAX_STATS 64

/* A registry entry (one file per technique under src/technique/). */
typedef struct gpuest_technique_s {
    const char *name;          /* "compression" */
    const char *desc;
    const char *const *keys;   /* its keys in [technique], NULL-terminated */
    unsigned modes;            /* GPUEST_TECH_MODE_* it supports when on */
    /* 1 when the configuration switches the technique on */
    int (*active)(const gpuest_config_t *cfg);
    /* Cross-key checks of its own keys (messages name the key and where it was set). */
    gpuest_err (*validate)(const gpuest_config_t *cfg, gpuest_error_t *err);
    /* Builds the per-run state (the technique is active). */
    gpuest_err (*create)(const gpuest_technique_env_t *env, void **state, gpuest_error_t *err);
    /* Fills its hooks (hooks->ctx is set to state by the caller). */
    void (*install)(void *state, gpuest_sim_hooks_t *hooks);
    /* Appends its statistics to out (at most max); returns how many. */
    size_t (*stats)(void *state, gpuest_technique_stat_t *out, size_t max);
    void (*destroy)(void *state);
    /* The analytical estimator's view of the technique: fills *out (which starts as the
     * identity) from what can be measured without the simulator (env->image as the workload
     * generated it). NULL: the technique has no model transform (GPUEST_TECH_MODE_MODEL off). */
    gpuest_err (*transform)(const gpuest_technique_env_t *env, gpuest_model_transform_t *out, gpuest_error_t *err);
    /* The modes the configuration's values support, where they depend on the values (checked in
     * place of `modes` before any work); NULL: `modes`. */
    unsigned (*modes_of)(const gpuest_config_t *cfg);
} gpuest_technique_t;

extern const gpuest_technique_t *const gpuest_techniques[]; /* NULL-terminated */
/* "compression, ...", made from the registry. */
const char *gpuest_technique_names(void);

/* Checks every technique's keys, and that every active technique supports all of
 * `modes`; errors name the key (GPUEST_EUNSUPPORTED / GPUEST_EINVAL: exit code 2). */
gpuest_err gpuest_technique_validate(const gpuest_config_t *cfg, unsigned modes, gpuest_error_t *err);

/* The model transform of every active technique (identity when none is active). An active
 * technique without a transform is GPUEST_EUNSUPPORTED naming its key. At most one active
 * technique may transform the model for now. */
gpuest_err gpuest_technique_model_transform(const gpuest_technique_env_t *env, gpuest_model_transform_t *out,
                                            gpuest_error_t *err);

/* The active techniques of one run. */
typedef struct gpuest_technique_set_s gpuest_technique_set_t;

/* Creates every active technique and installs its hooks into *hooks (which
 * must start without hooks). At most one active technique may hook the
 * simulator for now. Free with gpuest_technique_set_destroy (NULL-safe), also after
 * an error. */
gpuest_err gpuest_technique_set_create(const gpuest_technique_env_t *env, gpuest_sim_hooks_t *hooks,
                                       gpuest_technique_set_t **out, gpuest_error_t *err);
void gpuest_technique_set_destroy(gpuest_technique_set_t *set);
/* Statistics of every active technique, in registry order; returns how many. */
size_t gpuest_technique_set_stats(gpuest_technique_set_t *set, gpuest_technique_stat_t *out, size_t max);

/* ---------------------------------------------------------------- LATTE-CC's FANN mode selector
 * (technique.l1_compression = fann, docs/latte-cc.md). At the end of every EP of every SM the
 * compressed L1 policy computes the features below from what the SM observes; the fann policy
 * feeds them to models/latte-fann.net (outputs: none, BDI, SC; the largest wins). */
#define GPUEST_L1C_FANN_FEATURES 24 /* 18 observed + 3 AMAT_GPU estimates + the rule's choice (one-hot) */
#define GPUEST_L1C_FANN_OUTPUTS 3   /* none, BDI, SC */
extern const char *const gpuest_l1c_fann_feature_names[GPUEST_L1C_FANN_FEATURES];

/* The fann policy's decision from the network's outputs y (none, BDI, SC) and the output index
 * `rule` of LATTE-CC's own choice at this EP end. A model trained on targets relative to the rule
 * (span > 0) has output k read 0.5 + s_k / (2 span), s_k the share of cycles mode k saves against
 * the rule's mode, so it predicts s_k = (y[k] - y[rule]) 2 span: the policy leaves the rule only
 * for its largest output and only when that predicted saving exceeds `margin` (a share). With
 * span <= 0 (targets not relative to the rule) the largest output wins, ties to the lower index.
 * Returns an output index. */
int gpuest_l1c_fann_decide(const double y[GPUEST_L1C_FANN_OUTPUTS], int rule, double span, double margin);
/* 1 when every feature of x lies inside the range the network saw in training, else 0. A model
 * with the metadata 'range_guard' = 1 decides only there; outside it the rule's choice runs (a
 * network extrapolating to decompression queues deeper than any it was trained on is no guide). */
struct gpuest_learn_net_s;
int gpuest_l1c_fann_in_range(const struct gpuest_learn_net_s *net, const double x[GPUEST_L1C_FANN_FEATURES]);

/* Sixth round (docs/latte-cc.md, "Sixth round: decisions held for a period"): a model with the
 * metadata 'period' = 1 decides once per period of each SM, at the end of the period's EP
 * GPUEST_L1C_PERIOD_DECISION_EP (when LATTE-CC's counting windows close), whether the SM holds
 * one mode for the period's remaining EPs or leaves every EP to the rule. Its output k reads
 * 0.5 + s_k / (2 span), s_k the share of the period's cycles holding mode k saves against the
 * rule: the largest predicted saving (y_k - 0.5) 2 span wins when it exceeds margin. Returns the
 * output index to hold, or -1 for the rule. */
#define GPUEST_L1C_PERIOD_DECISION_EP 1
#define GPUEST_L1C_EPS_PER_PERIOD 10
int gpuest_l1c_fann_decide_period(const double y[GPUEST_L1C_FANN_OUTPUTS], double span, double margin);

/* One EP end as an observer sees it. */
typedef struct {
    int sm;
    uint64_t ep;         /* EPs of this SM ended before this one */
    uint64_t core_cycle; /* the access that ended the EP */
    int mode;            /* the mode of the EP that ended */
    int choice;          /* the policy's mode for the next EP */
    double x[GPUEST_L1C_FANN_FEATURES];
} gpuest_l1c_ep_t;

/* Called at every EP end of the compressed L1's adaptive policies; returns the mode of the SM's
 * next EP (GPUEST_L1C_*), or -1 to keep the policy's choice. Process-wide, one at a time, for
 * the label collection of 'gpuest simulate --l1c-oracle' (the simulator is single-threaded;
 * passing it through every layer that creates techniques would touch them all for one tool).
 * NULL removes it. */
typedef int (*gpuest_l1c_ep_fn)(void *ctx, const gpuest_l1c_ep_t *ep);
void gpuest_l1c_set_ep_observer(gpuest_l1c_ep_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
/* Kernel-OPT (technique.l1_compression = kernel_opt): the mode (GPUEST_L1C_NONE, _BDI or _SC) every
 * SM's L1D stores its lines in from now on, set by the caller before a launch. GPUEST_EINVAL when
 * the set has no kernel_opt policy or the mode is not one of its three. */
gpuest_err gpuest_technique_set_l1c_mode(gpuest_technique_set_t *set, int mode, gpuest_error_t *err);
/* Process-wide, like the EP observer: 1 when the caller of gpuest_technique_set_create will set the
 * compressed L1's mode before every launch. kernel_opt's create refuses without it, since a path
 * that simulates each launch once (sweep, sample, study runs) would silently run it all in none.
 * (A switch rather than a field of gpuest_technique_env_t: every caller fills that struct in
 * order, and only 'gpuest simulate' turns this on.) */
void gpuest_l1c_set_launch_driver(int on);

#endif
