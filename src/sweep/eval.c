/* eval.c: one design point evaluated in its mode (estimate, sample, simulate, noc), reduced to
 * named statistics with their intervals. docs/sweep.md lists the statistics of each mode. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "noc/noc.h"
#include "study/study.h"
#include "sweep/sweep.h"
#include "technique/technique.h"
#include "workload/workload.h"

#define MAX_CAL 64 /* calibrations a worker keeps (one per preset, workload and scale) */

typedef struct {
    char path[1024];
    gpuest_calibration_t *cal; /* NULL: reading it failed (msg says why) */
    char msg[GPUEST_ERROR_MSG_MAX];
    int stale;
    /* this calibration's estimates share networks and the anchor solve (bit-identical to single
     * estimates; made on first use) */
    gpuest_study_batch_t *batch;
} cal_entry;

struct gpuest_sweep_evaluator_s {
    const gpuest_sweep_spec_t *spec;
    char model_dir[512];
    cal_entry cals[MAX_CAL];
    int ncals;
};

gpuest_err gpuest_sweep_evaluator_create(const gpuest_sweep_spec_t *spec, const char *model_dir,
                                         gpuest_sweep_evaluator_t **out, gpuest_error_t *err)
{
    gpuest_sweep_evaluator_t *ev = calloc(1, sizeof *ev);
    if (!ev)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    ev->spec = spec;
    snprintf(ev->model_dir, sizeof ev->model_dir, "%s", model_dir ? model_dir : "models");
    *out = ev;
    return GPUEST_OK;
}

void gpuest_sweep_evaluator_destroy(gpuest_sweep_evaluator_t *ev)
{
    if (!ev)
        return;
    for (int i = 0; i < ev->ncals; i++) {
        free(ev->cals[i].cal);
        gpuest_study_batch_destroy(ev->cals[i].batch);
    }
    free(ev);
}

/* ------------------------------------------------------------ results */

static void add_stat(gpuest_sweep_result_t *r, const char *name, double v, double lo, double hi)
{
    if (r->nstats >= GPUEST_SWEEP_MAX_STATS)
        return;
    gpuest_sweep_stat_t *s = &r->stats[r->nstats++];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof s->name; i++)
        s->name[i] = (char)tolower((unsigned char)name[i]);
    s->name[i] = '\0';
    s->value = v;
    s->lo = lo;
    s->hi = hi;
}

static void add_value(gpuest_sweep_result_t *r, const char *name, double v)
{
    add_stat(r, name, v, NAN, NAN);
}

static void add_interval(gpuest_sweep_result_t *r, const char *name, const gpuest_interval_t *i)
{
    add_stat(r, name, i->v, i->lo, i->hi);
}

static void now_iso(char *buf, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%.19s.%03dZ", base, (int)(ts.tv_nsec / 1000000) % 1000);
}

/* ------------------------------------------------------------ estimate */

static cal_entry *calibration(gpuest_sweep_evaluator_t *ev, const gpuest_sweep_point_t *p, gpuest_scale_t scale)
{
    char path[1024];
    const char *dir = ev->spec->calibrations[0] ? ev->spec->calibrations : "models/calibrations";
    gpuest_calibration_path(dir, p->preset, p->workload, scale, path, sizeof path);
    for (int i = 0; i < ev->ncals; i++)
        if (strcmp(ev->cals[i].path, path) == 0)
            return &ev->cals[i];
    cal_entry *e = &ev->cals[ev->ncals < MAX_CAL ? ev->ncals++ : MAX_CAL - 1];
    free(e->cal);
    gpuest_study_batch_destroy(e->batch);
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    gpuest_error_t err;
    gpuest_error_clear(&err);
    e->cal = malloc(sizeof *e->cal);
    if (!e->cal) {
        snprintf(e->msg, sizeof e->msg, "out of memory");
    } else if (gpuest_calibration_read(path, e->cal, &err) != GPUEST_OK) {
        free(e->cal);
        e->cal = NULL;
        snprintf(e->msg, sizeof e->msg, "%.700s (make it with 'gpuest calibrate --preset %s --workload %s --scale %s')",
                 err.msg, p->preset, p->workload, p->scale);
    } else {
        char why[256];
        e->stale = gpuest_calibration_stale(e->cal, why, sizeof why);
    }
    return e;
}

static gpuest_err eval_estimate(gpuest_sweep_evaluator_t *ev, const gpuest_sweep_point_t *p, gpuest_scale_t scale,
                                gpuest_sweep_result_t *r, gpuest_error_t *err)
{
    cal_entry *c = calibration(ev, p, scale);
    if (!c->cal)
        return gpuest_fail(err, GPUEST_EIO, "%s", c->msg);
    gpuest_model_transform_t tr;
    const gpuest_model_transform_t *use = NULL;
    GPUEST_TRY(gpuest_study_technique_transform(&p->cfg, p->workload, scale, p->seed, ev->model_dir, &tr, &use, err));
    gpuest_study_estimate_t e;
    if (!c->batch)
        GPUEST_TRY(gpuest_study_batch_create(&c->batch, err));
    GPUEST_TRY(gpuest_study_estimate_in(c->batch, c->cal, &p->cfg, use, ev->spec->confidence, &e, err));
    add_interval(r, "ipc", &e.ipc);
    add_interval(r, "amat", &e.amat);
    add_interval(r, "req", &e.req);
    add_interval(r, "mem", &e.mem);
    add_interval(r, "reply", &e.reply);
    add_interval(r, "mc_stall", &e.mc_stall);
    add_interval(r, "link_util", &e.link_util);
    add_value(r, "extrapolated", e.extrapolated);
    add_value(r, "stale_calibration", c->stale);
    return GPUEST_OK;
}

/* ------------------------------------------------------------ detailed and sampled */

static void add_sim_stats(gpuest_sweep_result_t *r, const gpuest_sim_stats_t *s)
{
    add_value(r, "ipc", s->ipc);
    add_value(r, "amat", s->amat);
    add_value(r, "req", s->req_latency);
    add_value(r, "mem", s->mem_latency);
    add_value(r, "reply", s->reply_latency);
    add_value(r, "miss_latency", s->miss_latency);
    add_value(r, "mc_stall", s->mc_stall_ratio);
    add_value(r, "link_util", s->link_util_max);
    add_value(r, "link_util_mean", s->link_util_mean);
    add_value(r, "l1_miss_rate", s->l1_miss_rate);
    add_value(r, "cycles", (double)s->cycles);
    add_value(r, "warp_instructions", (double)s->warp_instructions);
    add_value(r, "request_packets", (double)s->packets[0]);
    add_value(r, "reply_packets", (double)s->packets[1]);
    add_value(r, "request_flits", (double)s->flits[0]);
    add_value(r, "reply_flits", (double)s->flits[1]);
    add_value(r, "l2_hits", (double)s->l2_hits);
    add_value(r, "l2_misses", (double)s->l2_misses);
    add_value(r, "dram_reads", (double)s->dram_reads);
    add_value(r, "intercore_locality_960", s->intercore_locality[3]);
    add_value(r, "latency_tolerance", s->latency_tolerance);
}

static void add_technique_stats(gpuest_sweep_result_t *r, gpuest_technique_set_t *techs)
{
    gpuest_technique_stat_t st[GPUEST_TECH_MAX_STATS];
    size_t n = gpuest_technique_set_stats(techs, st, GPUEST_TECH_MAX_STATS);
    for (size_t i = 0; i < n; i++)
        add_value(r, st[i].name, st[i].value);
}

static gpuest_err eval_sim(gpuest_sweep_evaluator_t *ev, const gpuest_sweep_point_t *p, gpuest_scale_t scale,
                           int sampled, gpuest_sweep_result_t *r, gpuest_error_t *err)
{
    gpuest_workload_t *wl = NULL;
    GPUEST_TRY(gpuest_workload_create(p->workload, scale, p->seed, &wl, err));
    const gpuest_generator_t *gen = gpuest_workload_generator(wl);
    gpuest_technique_env_t env = {&p->cfg, gpuest_workload_image(wl), gen ? gen->name : p->workload, ev->model_dir,
                                  p->seed, NULL, 0.0, 0.0, 0};
    gpuest_sim_hooks_t hooks;
    memset(&hooks, 0, sizeof hooks);
    gpuest_technique_set_t *techs = NULL;
    gpuest_err rc = gpuest_technique_set_create(&env, &hooks, &techs, err);
    if (rc == GPUEST_OK && !sampled) {
        gpuest_sim_source_t src;
        gpuest_sim_source_workload(&src, wl);
        gpuest_sim_opts_t so;
        gpuest_sim_opts_default(&so);
        so.hooks = hooks;
        gpuest_sim_result_t res;
        rc = gpuest_sim_run(&p->cfg, &src, &so, &res, err);
        if (rc == GPUEST_OK) {
            add_sim_stats(r, &res.total);
            add_technique_stats(r, techs);
            gpuest_sim_result_free(&res);
        }
    } else if (rc == GPUEST_OK) {
        gpuest_sample_opts_t so;
        gpuest_sample_opts_default(&so);
        so.seed = p->seed;
        so.hooks = hooks;
        gpuest_study_sampled_t s;
        rc = gpuest_study_sample(&p->cfg, p->workload, scale, p->seed, &so, ev->spec->confidence, 0, &s, err);
        if (rc == GPUEST_OK) {
            add_stat(r, "ipc", s.ipc.value, s.ipc.lo, s.ipc.hi);
            add_stat(r, "amat", s.amat.value, s.amat.lo, s.amat.hi);
            add_stat(r, "miss_latency", s.miss_latency.value, s.miss_latency.lo, s.miss_latency.hi);
            add_stat(r, "mc_stall", s.mc_stall.value, s.mc_stall.lo, s.mc_stall.hi);
            add_value(r, "cov", s.cov);
            add_value(r, "units", s.units);
            add_value(r, "detailed_fraction", s.detailed_fraction);
            add_technique_stats(r, techs);
            gpuest_study_sampled_free(&s);
        }
    }
    gpuest_technique_set_destroy(techs);
    gpuest_workload_destroy(wl);
    return rc;
}

/* ------------------------------------------------------------ noc */

static gpuest_err eval_noc(gpuest_sweep_evaluator_t *ev, const gpuest_sweep_point_t *p, gpuest_sweep_result_t *r,
                           gpuest_error_t *err)
{
    const gpuest_config_t *cfg = &p->cfg;
    gpuest_noc_opts_t opts;
    gpuest_noc_opts_from_cfg(&cfg->noc, &opts);
    opts.num_classes = 1;
    opts.num_nodes = cfg->core.num_sms + cfg->mc.num_mcs; /* crossbar endpoints */
    gpuest_noc_traffic_t tr;
    gpuest_noc_traffic_default(&tr);
    GPUEST_TRY(gpuest_noc_pattern_parse(ev->spec->traffic, &tr.pattern, err));
    tr.rate = p->rate;
    tr.seed = p->seed;
    tr.packet_flits = p->packet_flits > 0 ? p->packet_flits : 1;
    if (tr.pattern == GPUEST_NOC_TRAFFIC_GPU) {
        opts.num_classes = 2;
        tr.num_mcs = cfg->mc.num_mcs;
        GPUEST_TRY(gpuest_config_mc_nodes(cfg, tr.mc_nodes, err));
        if (p->packet_flits <= 0) {
            int request_flits;
            gpuest_model_gpu_packet_flits(cfg, &request_flits, &tr.packet_flits);
        }
    } else if (tr.pattern == GPUEST_NOC_TRAFFIC_HOTSPOT) {
        tr.num_hot = 1;
        tr.hot_nodes[0] = 0;
    }
    gpuest_noc_measure_cfg_t m;
    gpuest_noc_measure_default(&m);
    m.sample_period = ev->spec->sample_period;
    gpuest_noc_result_t res;
    GPUEST_TRY(gpuest_noc_measure(&cfg->noc, &opts, &tr, &m, NULL, &res, err));
    add_value(r, "offered", res.offered_rate);
    add_value(r, "latency", res.avg_packet_latency);
    add_value(r, "network_latency", res.avg_network_latency);
    add_value(r, "accepted", res.accepted_rate);
    add_value(r, "hops", res.avg_hops);
    add_value(r, "saturated", res.saturated);
    add_value(r, "packets", (double)res.packets);
    return GPUEST_OK;
}

void gpuest_sweep_evaluate(gpuest_sweep_evaluator_t *ev, const gpuest_sweep_point_t *p, gpuest_sweep_result_t *out)
{
    memset(out, 0, sizeof *out);
    out->point = p->id;
    now_iso(out->start, sizeof out->start);
    if (gethostname(out->host, sizeof out->host) != 0)
        snprintf(out->host, sizeof out->host, "?");
    out->host[sizeof out->host - 1] = '\0';
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_scale_t scale = GPUEST_SCALE_SMALL;
    gpuest_err rc = GPUEST_OK;
    if (p->mode != GPUEST_SWEEP_NOC && gpuest_scale_parse(p->scale, &scale) != GPUEST_OK)
        rc = gpuest_fail(&err, GPUEST_EINVAL, "scale '%s'", p->scale);
    else if (p->mode == GPUEST_SWEEP_ESTIMATE)
        rc = eval_estimate(ev, p, scale, out, &err);
    else if (p->mode == GPUEST_SWEEP_NOC)
        rc = eval_noc(ev, p, out, &err);
    else
        rc = eval_sim(ev, p, scale, p->mode == GPUEST_SWEEP_SAMPLE, out, &err);
    out->ok = rc == GPUEST_OK;
    if (!out->ok) {
        out->nstats = 0; /* a failed point stores no partial statistics */
        snprintf(out->error, sizeof out->error, "%s: %.480s", gpuest_errname(rc), err.msg);
    }
    now_iso(out->end, sizeof out->end);
}

/* ------------------------------------------------------------ wire format
 * "point N\nok 0|1\nstart S\nend S\nhost H\nerror E\nstats K\n" then K lines "name v lo hi",
 * doubles in %a (exact), "-" for a missing bound. */

char *gpuest_sweep_result_encode(const gpuest_sweep_result_t *r, size_t *len)
{
    size_t cap = 1024 + GPUEST_SWEEP_ERROR_MAX + (size_t)r->nstats * (GPUEST_SWEEP_STAT_NAME + 100);
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    char error[GPUEST_SWEEP_ERROR_MAX];
    snprintf(error, sizeof error, "%s", r->error);
    for (char *c = error; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    int n = snprintf(buf, cap, "point %ld\nok %d\nstart %s\nend %s\nhost %s\nerror %s\nstats %d\n", r->point, r->ok,
                     r->start, r->end, r->host, error, r->nstats);
    for (int i = 0; i < r->nstats; i++) {
        const gpuest_sweep_stat_t *s = &r->stats[i];
        n += snprintf(buf + n, cap - (size_t)n, "%s %a", s->name, s->value);
        n += isnan(s->lo) ? snprintf(buf + n, cap - (size_t)n, " -") : snprintf(buf + n, cap - (size_t)n, " %a", s->lo);
        n += isnan(s->hi) ? snprintf(buf + n, cap - (size_t)n, " -\n")
                          : snprintf(buf + n, cap - (size_t)n, " %a\n", s->hi);
    }
    *len = (size_t)n;
    return buf;
}

/* Next line of [*p, end) into line (cap bytes) without its newline; 0 at the end. */
static int next_line(const char **p, const char *end, char *line, size_t cap)
{
    if (*p >= end)
        return 0;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    snprintf(line, cap, "%.*s", (int)(len < cap ? len : cap - 1), *p);
    *p += len + (nl != NULL);
    return 1;
}

static int field(const char *line, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(line, name, n) != 0 || (line[n] != ' ' && line[n] != '\0'))
        return 0;
    *value = line[n] ? line + n + 1 : line + n;
    return 1;
}

static int parse_bound(const char *s, double *out)
{
    if (strcmp(s, "-") == 0) {
        *out = NAN;
        return 1;
    }
    return gpuest_parse_double(s, out) == GPUEST_OK;
}

gpuest_err gpuest_sweep_result_decode(const char *buf, size_t len, gpuest_sweep_result_t *r, gpuest_error_t *err)
{
    memset(r, 0, sizeof *r);
    const char *p = buf, *end = buf + len;
    char line[GPUEST_SWEEP_ERROR_MAX + 64];
    const char *v;
    int64_t i64;
    static const char *const names[] = {"point", "ok", "start", "end", "host", "error", "stats"};
    for (int k = 0; k < 7; k++) {
        if (!next_line(&p, end, line, sizeof line) || !field(line, names[k], &v))
            return gpuest_fail(err, GPUEST_ECORRUPT, "worker message: expected '%s' on line %d", names[k], k + 1);
        if (k == 0 || k == 1 || k == 6) {
            if (gpuest_parse_i64(v, &i64) != GPUEST_OK || i64 < 0 ||
                (k == 6 && i64 > GPUEST_SWEEP_MAX_STATS) || (k == 1 && i64 > 1))
                return gpuest_fail(err, GPUEST_ECORRUPT, "worker message: bad %s '%s'", names[k], v);
            if (k == 0)
                r->point = (long)i64;
            else if (k == 1)
                r->ok = (int)i64;
            else
                r->nstats = (int)i64;
        } else {
            char *dst = k == 2 ? r->start : k == 3 ? r->end : k == 4 ? r->host : r->error;
            size_t cap = k == 2 ? sizeof r->start : k == 3 ? sizeof r->end : k == 4 ? sizeof r->host : sizeof r->error;
            snprintf(dst, cap, "%s", v);
        }
    }
    for (int i = 0; i < r->nstats; i++) {
        char name[GPUEST_SWEEP_STAT_NAME + 8], a[64], b[64], c[64];
        gpuest_sweep_stat_t *s = &r->stats[i];
        if (!next_line(&p, end, line, sizeof line) || sscanf(line, "%55s %63s %63s %63s", name, a, b, c) != 4 ||
            strlen(name) >= sizeof s->name || gpuest_parse_double(a, &s->value) != GPUEST_OK || !parse_bound(b, &s->lo) ||
            !parse_bound(c, &s->hi))
            return gpuest_fail(err, GPUEST_ECORRUPT, "worker message: bad statistic line %d", 8 + i);
        memcpy(s->name, name, strlen(name) + 1);
    }
    if (p != end)
        return gpuest_fail(err, GPUEST_ECORRUPT, "worker message: extra text after %d statistics", r->nstats);
    return GPUEST_OK;
}
