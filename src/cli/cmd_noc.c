/* cmd_noc.c: the 'noc' subcommand: synthetic traffic on the cycle-level network (or a BookSim 2 config), latency / throughput curves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "model/model.h"
#include "noc/noc.h"

#define CMD "noc"
#define MAX_ROWS 256

/* Columns of data/reference/booksim/results.csv (without its bookkeeping columns). */
static const char *const csv_header[] = {
    "topology", "k", "vcs", "buffer_flits", "routing", "traffic", "packet_flits", "injection_rate",
    "avg_packet_latency", "avg_network_latency", "accepted_rate", "saturated",
};
#define CSV_COLUMNS (sizeof csv_header / sizeof csv_header[0])

static const char *const text_header[] = {
    "model", "rate", "packet_lat", "network_lat", "accepted", "hops", "saturated", "cycles",
};
#define TEXT_COLUMNS (sizeof text_header / sizeof text_header[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpuest noc [machine options] [network options] [traffic options]\n"
            "       gpuest noc --booksim FILE [--sweep] [--csv FILE]\n"
            "Runs synthetic traffic on the cycle-level NoC and reports average packet latency\n"
            "(creation to tail arrival, source queueing included), network latency (head\n"
            "injection to tail arrival) and accepted throughput, measured as BookSim 2's\n"
            "latency mode does (warm-up, sample periods, saturation when the average latency\n"
            "passes the threshold). Rates are flits per node per cycle; latencies in\n"
            "interconnect cycles.\n"
            "Machine (default preset mesh56):\n" CLI_CONFIG_HELP
            "Network (shorthands for --set noc.KEY=V):\n"
            "  --topology mesh|crossbar  --k N  --vcs N  --buffer FLITS\n"
            "  --routing F[-G]      routing function of requests [-replies]: xy, yx, o1turn\n"
            "                       (e.g. xy-yx: XY requests, YX replies)\n"
            "  --split virtual|physical  message classes on VC partitions or separate networks\n"
            "  --placement bottom|top-bottom|edge|diamond  MC placement (gpu traffic)\n"
            "Traffic:\n"
            "  --traffic uniform|transpose|hotspot|gpu  (default uniform)\n"
            "      gpu: SMs send 1-flit requests to random MCs, MCs answer each with a\n"
            "      --packet-flits reply; --rate is request flits per SM per cycle\n"
            "  --rate R             offered flits per node per cycle (default 0.1)\n"
            "  --packet-flits N     packet size (default 1)\n"
            "  --hot N0,N1,...[:W0,W1,...]  hotspot nodes and weights (default: node 0)\n"
            "  --multicast F        uniform: share F of the packets go to a destination set,\n"
            "                       replicated in the routers (DOR multicast tree)\n"
            "  --mcast-size N|A-B   set size: N, or uniform in A..B (default 2-4); members\n"
            "                       uniform over all nodes; each member counts as a packet\n"
            "  --seed S             random seed (default 1)\n"
            "Measurement:\n"
            "  --sample-period N    cycles per sample period (default 10000)\n"
            "  --warmup-periods N   (default 3)   --max-samples N (default 10)\n"
            "  --latency-thres X    saturation threshold in cycles (default 500)\n"
            "  --sweep              rates step, 2 step, ... to saturation, then bisect the knee\n"
            "  --step S --max-rate M --refine N  sweep controls (0.05, 1.0, 3)\n"
            "  --booksim FILE       take network, traffic and measurement from a BookSim 2 config\n"
            "  --model sim|analytic the cycle-level simulator (default) or the analytical\n"
            "                       queueing model (docs/model.md): same traffic, same columns\n"
            "  --compare            run both and print them side by side with the model's error\n"
            "                       (with --sweep: at every rate of the simulated sweep); the CSV\n"
            "                       then has one row per model and rate and a last column 'model'\n"
            "  --csv FILE           write rows with the reference CSV columns\n");
}

/* Parsed command line. */
typedef struct {
    cli_config_t cc;
    const char *csv, *booksim, *model;
    const char *topology, *routing, *split, *placement, *traffic, *hot;
    double mcast_fraction;
    long mcast_min, mcast_max;
    long k, vcs, buffer, packet_flits, sample_period, warmup_periods, max_samples, refine;
    double rate, step, max_rate, latency_thres;
    unsigned long long seed;
    int sweep, compare, have_rate, have_seed, have_pf, have_sp, have_wp, have_ms, have_lt;
} noc_opts_t;

/* One result row (one model at one rate), as printed and written to CSV. */
typedef struct {
    const char *model;
    gpuest_noc_result_t r;
} noc_row_t;

/* Everything a run needs, resolved from the options. */
typedef struct {
    gpuest_noc_cfg_t cfg;
    gpuest_noc_opts_t nopts;
    gpuest_noc_traffic_t traffic;
    gpuest_noc_measure_cfg_t measure;
    char routing_name[GPUEST_NAME_MAX];
} noc_setup_t;

/* "N" or "A-B": a multicast set-size range, 2 <= A <= B <= 64. */
static int parse_range(const char *v, long *lo, long *hi)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", v);
    char *dash = strchr(buf, '-');
    if (dash)
        *dash++ = '\0';
    if (cli_parse_int(CMD, "mcast-size", buf, 2, 64, lo) || cli_parse_int(CMD, "mcast-size", dash ? dash : buf, 2, 64, hi))
        return 2;
    if (*hi < *lo)
        return cli_usage_error(CMD, "--mcast-size %s: expected N or A-B with A <= B", v);
    return 0;
}

static int parse_opts(int argc, char **argv, noc_opts_t *o)
{
    memset(o, 0, sizeof *o);
    cli_config_init(&o->cc, "mesh56");
    o->model = "sim";
    o->rate = 0.1;
    o->packet_flits = 1;
    o->seed = 1;
    o->step = 0.05;
    o->max_rate = 1.0;
    o->refine = 3;
    o->sample_period = 10000;
    o->warmup_periods = 3;
    o->max_samples = 10;
    o->latency_thres = 500;
    o->k = o->vcs = o->buffer = -1;
    o->mcast_min = 2;
    o->mcast_max = 4;
    cli_args_t a;
    cli_args_init(&a, argc, argv, CMD);
    while (cli_args_next(&a)) {
        const char *v;
        int rc;
        if (!a.name)
            return cli_usage_error(CMD, "unexpected argument '%s'", a.value);
        if (cli_args_is(&a, "help") || cli_args_is(&a, "h")) {
            usage(stdout);
            return -1;
        }
        if (cli_args_is(&a, "sweep")) {
            o->sweep = 1;
            continue;
        }
        if (cli_args_is(&a, "compare")) {
            o->compare = 1;
            continue;
        }
        if ((rc = cli_config_option(&o->cc, &a)) != 0) {
            if (rc < 0)
                return 2;
            continue;
        }
        if (!(v = cli_args_value(&a)))
            return 2;
        if (cli_args_is(&a, "csv"))
            o->csv = v;
        else if (cli_args_is(&a, "booksim"))
            o->booksim = v;
        else if (cli_args_is(&a, "model"))
            o->model = v;
        else if (cli_args_is(&a, "topology"))
            o->topology = v;
        else if (cli_args_is(&a, "routing"))
            o->routing = v;
        else if (cli_args_is(&a, "split"))
            o->split = v;
        else if (cli_args_is(&a, "placement"))
            o->placement = v;
        else if (cli_args_is(&a, "traffic"))
            o->traffic = v;
        else if (cli_args_is(&a, "hot"))
            o->hot = v;
        else if (cli_args_is(&a, "k")) {
            if (cli_parse_int(CMD, "k", v, 1, 32, &o->k))
                return 2;
        } else if (cli_args_is(&a, "vcs")) {
            if (cli_parse_int(CMD, "vcs", v, 1, 64, &o->vcs))
                return 2;
        } else if (cli_args_is(&a, "buffer")) {
            if (cli_parse_int(CMD, "buffer", v, 1, 4096, &o->buffer))
                return 2;
        } else if (cli_args_is(&a, "packet-flits")) {
            if (cli_parse_int(CMD, "packet-flits", v, 1, 65535, &o->packet_flits))
                return 2;
            o->have_pf = 1;
        } else if (cli_args_is(&a, "rate")) {
            if (cli_parse_double(CMD, "rate", v, 0.0, 64.0, &o->rate))
                return 2;
            o->have_rate = 1;
        } else if (cli_args_is(&a, "multicast")) {
            if (cli_parse_double(CMD, "multicast", v, 0.0, 1.0, &o->mcast_fraction))
                return 2;
        } else if (cli_args_is(&a, "mcast-size")) {
            if (parse_range(v, &o->mcast_min, &o->mcast_max))
                return 2;
        } else if (cli_args_is(&a, "seed")) {
            if (cli_parse_u64(CMD, "seed", v, &o->seed))
                return 2;
            o->have_seed = 1;
        } else if (cli_args_is(&a, "step")) {
            if (cli_parse_double(CMD, "step", v, 1e-6, 64.0, &o->step))
                return 2;
        } else if (cli_args_is(&a, "max-rate")) {
            if (cli_parse_double(CMD, "max-rate", v, 1e-6, 64.0, &o->max_rate))
                return 2;
        } else if (cli_args_is(&a, "refine")) {
            if (cli_parse_int(CMD, "refine", v, 0, 20, &o->refine))
                return 2;
        } else if (cli_args_is(&a, "sample-period")) {
            if (cli_parse_int(CMD, "sample-period", v, 1, 100000000, &o->sample_period))
                return 2;
            o->have_sp = 1;
        } else if (cli_args_is(&a, "warmup-periods")) {
            if (cli_parse_int(CMD, "warmup-periods", v, 0, 1000, &o->warmup_periods))
                return 2;
            o->have_wp = 1;
        } else if (cli_args_is(&a, "max-samples")) {
            if (cli_parse_int(CMD, "max-samples", v, 1, 100000, &o->max_samples))
                return 2;
            o->have_ms = 1;
        } else if (cli_args_is(&a, "latency-thres")) {
            if (cli_parse_double(CMD, "latency-thres", v, 1.0, 1e12, &o->latency_thres))
                return 2;
            o->have_lt = 1;
        } else {
            return cli_usage_error(CMD, "unknown option --%s (see gpuest noc --help)", a.name);
        }
    }
    if (strcmp(o->model, "sim") != 0 && strcmp(o->model, "analytic") != 0)
        return cli_usage_error(CMD, "--model %s: expected sim or analytic", o->model);
    return 0;
}

/* --routing F or F-G: routing function of requests (and of replies when G is given), any name of the
 * routing registry (src/net). The CSV name keeps BookSim's "dor" for XY everywhere. */
static int parse_routing(const char *s, gpuest_noc_cfg_t *c, char *name, size_t cap)
{
    if (s) {
        char req[GPUEST_NAME_MAX], *rep;
        snprintf(req, sizeof req, "%s", strcmp(s, "dor") == 0 ? "xy" : s);
        rep = strchr(req, '-');
        if (rep)
            *rep++ = '\0';
        gpuest_error_t err;
        gpuest_error_clear(&err);
        gpuest_routing_t a, b;
        if (gpuest_net_routing_find(req, &a, &err) != GPUEST_OK ||
            gpuest_net_routing_find(rep ? rep : req, &b, &err) != GPUEST_OK)
            return cli_usage_error(CMD, "--routing %s: %s", s, err.msg);
        c->routing_request = a;
        c->routing_reply = b;
    }
    const char *rq = gpuest_net_routing_name(c->routing_request), *rp = gpuest_net_routing_name(c->routing_reply);
    if (c->routing_request == c->routing_reply)
        snprintf(name, cap, "%s", c->routing_request == GPUEST_ROUTE_XY ? "dor" : rq);
    else if (c->routing_request == GPUEST_ROUTE_XY && c->routing_reply == GPUEST_ROUTE_YX)
        snprintf(name, cap, "xy_yx"); /* the name earlier CSV files used for XY requests, YX replies */
    else
        snprintf(name, cap, "%s_%s", rq, rp);
    return 0;
}

/* "0,7,9:2,1,1" -> hot nodes and weights */
static int parse_hot(const char *s, gpuest_noc_traffic_t *t)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    char *w = strchr(buf, ':');
    if (w)
        *w++ = '\0';
    t->num_hot = 0;
    for (char *p = strtok(buf, ","); p; p = strtok(NULL, ",")) {
        int64_t n;
        if (t->num_hot >= GPUEST_NOC_MAX_HOT || gpuest_parse_i64(p, &n) != GPUEST_OK || n < 0)
            return cli_usage_error(CMD, "--hot %s: expected node ids N0,N1,...[:W0,W1,...]", s);
        t->hot_nodes[t->num_hot++] = (int)n;
    }
    int nw = 0;
    for (char *p = w ? strtok(w, ",") : NULL; p; p = strtok(NULL, ",")) {
        double d;
        if (nw >= t->num_hot || gpuest_parse_double(p, &d) != GPUEST_OK || d <= 0)
            return cli_usage_error(CMD, "--hot %s: expected one positive weight per node", s);
        t->hot_weights[nw++] = d;
    }
    if (t->num_hot == 0 || (w && nw != t->num_hot))
        return cli_usage_error(CMD, "--hot %s: expected node ids N0,N1,...[:W0,W1,...]", s);
    return 0;
}

static int setup_from_booksim(const noc_opts_t *o, noc_setup_t *s)
{
    gpuest_noc_booksim_t b;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_noc_booksim_load(o->booksim, &b, &err);
    if (rc != GPUEST_OK)
        return cli_report(CMD, rc, &err);
    if (b.num_ignored > 0) {
        fprintf(stderr, "gpuest noc: %s: ignored BookSim keys (not modelled):", o->booksim);
        for (int i = 0; i < b.num_ignored; i++)
            fprintf(stderr, "%s %s", i ? "," : "", b.ignored[i]);
        fputc('\n', stderr);
    }
    s->cfg = b.cfg;
    s->nopts = b.opts;
    s->traffic = b.traffic;
    s->measure = b.measure;
    snprintf(s->routing_name, sizeof s->routing_name, "%s", b.routing_function);
    if (o->have_rate)
        s->traffic.rate = o->rate;
    if (o->have_seed)
        s->traffic.seed = o->seed;
    return 0;
}

static int set_key(cli_config_t *cc, const char *key, const char *val)
{
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_err rc = gpuest_config_set_key(&cc->cfg, "noc", key, val, "command line", 0, &err);
    return rc == GPUEST_OK ? 0 : cli_report(CMD, rc, &err);
}

static int setup_from_machine(noc_opts_t *o, noc_setup_t *s)
{
    char num[32];
    int rc = 0;
    if (!rc && o->topology)
        rc = set_key(&o->cc, "topology", o->topology);
    if (!rc && o->split)
        rc = set_key(&o->cc, "class_split", o->split);
    if (!rc && o->placement)
        rc = set_key(&o->cc, "mc_placement", o->placement);
    if (!rc && o->k > 0 && snprintf(num, sizeof num, "%ld", o->k) > 0)
        rc = set_key(&o->cc, "k", num);
    if (!rc && o->vcs > 0 && snprintf(num, sizeof num, "%ld", o->vcs) > 0)
        rc = set_key(&o->cc, "vcs", num);
    if (!rc && o->buffer > 0 && snprintf(num, sizeof num, "%ld", o->buffer) > 0)
        rc = set_key(&o->cc, "buffer_flits", num);
    if (rc)
        return rc;
    /* The whole machine (SM and MC counts against the mesh) matters only for gpu
     * traffic; the other patterns use the network section alone, which
     * gpuest_noc_create checks, so --k can shrink a preset's mesh freely. */
    int gpu = o->traffic && strcmp(o->traffic, "gpu") == 0;
    if (gpu && (rc = cli_config_finish(&o->cc, CMD)) != 0)
        return rc;
    gpuest_config_t *cfg = &o->cc.cfg;
    s->cfg = cfg->noc;
    if ((rc = parse_routing(o->routing, &s->cfg, s->routing_name, sizeof s->routing_name)) != 0)
        return rc;
    gpuest_noc_opts_from_cfg(&s->cfg, &s->nopts);
    s->nopts.num_classes = 1;
    s->nopts.num_nodes = cfg->core.num_sms + cfg->mc.num_mcs; /* crossbar endpoints */
    gpuest_noc_traffic_default(&s->traffic);
    s->traffic.rate = o->rate;
    s->traffic.packet_flits = (int)o->packet_flits;
    s->traffic.seed = o->seed;
    s->traffic.mcast_fraction = o->mcast_fraction;
    s->traffic.mcast_min = (int)o->mcast_min;
    s->traffic.mcast_max = (int)o->mcast_max;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    if (o->traffic) {
        gpuest_err e = gpuest_noc_pattern_parse(o->traffic, &s->traffic.pattern, &err);
        if (e != GPUEST_OK)
            return cli_report(CMD, e, &err);
    }
    if (s->traffic.pattern == GPUEST_NOC_TRAFFIC_GPU) {
        s->nopts.num_classes = 2;
        s->traffic.num_mcs = cfg->mc.num_mcs;
        gpuest_err e = gpuest_config_mc_nodes(cfg, s->traffic.mc_nodes, &err);
        if (e != GPUEST_OK)
            return cli_report(CMD, e, &err);
        if (!o->have_pf) { /* a read reply: header + one 128-byte line, as the full-system simulator sends */
            int request_flits;
            gpuest_model_gpu_packet_flits(cfg, &request_flits, &s->traffic.packet_flits);
        }
    }
    if (s->traffic.pattern == GPUEST_NOC_TRAFFIC_HOTSPOT) {
        if (o->hot) {
            if ((rc = parse_hot(o->hot, &s->traffic)) != 0)
                return rc;
        } else {
            s->traffic.num_hot = 1;
            s->traffic.hot_nodes[0] = 0;
        }
    }
    gpuest_noc_measure_default(&s->measure);
    return 0;
}

/* Measurement options given on the command line override a BookSim file's values. */
static void apply_measure_opts(const noc_opts_t *o, noc_setup_t *s)
{
    if (!o->booksim || o->have_sp)
        s->measure.sample_period = (int)o->sample_period;
    if (!o->booksim || o->have_wp)
        s->measure.warmup_periods = (int)o->warmup_periods;
    if (!o->booksim || o->have_ms)
        s->measure.max_samples = (int)o->max_samples;
    if (!o->booksim || o->have_lt)
        s->measure.latency_thres = o->latency_thres;
}

static void fmt_or_empty(char *buf, size_t cap, double v, int empty)
{
    if (empty)
        buf[0] = '\0';
    else
        snprintf(buf, cap, "%.4f", v);
}

static const char *const compare_header[] = {
    "rate", "sim_latency", "model_latency", "error", "sim_accepted", "model_accepted", "sim_sat", "model_sat",
};
#define COMPARE_COLUMNS (sizeof compare_header / sizeof compare_header[0])

/* Side-by-side table of rows ordered (sim, analytic) per rate. */
static void print_compare(const noc_row_t *rows, int n)
{
    cli_table_t t;
    cli_table_init(&t, compare_header, COMPARE_COLUMNS);
    for (int i = 0; i + 1 < n; i += 2) {
        const gpuest_noc_result_t *sim = &rows[i].r, *mod = &rows[i + 1].r;
        char sl[32], ml[32], e[32];
        fmt_or_empty(sl, sizeof sl, sim->avg_packet_latency, sim->saturated);
        fmt_or_empty(ml, sizeof ml, mod->avg_packet_latency, mod->saturated);
        if (sim->saturated || mod->saturated || sim->avg_packet_latency <= 0)
            snprintf(e, sizeof e, "-");
        else
            snprintf(e, sizeof e, "%+.1f%%", 100.0 * (mod->avg_packet_latency / sim->avg_packet_latency - 1.0));
        cli_table_addf(&t, "%.5g\t%s\t%s\t%s\t%.4f\t%.4f\t%d\t%d", sim->offered_rate, sim->saturated ? "-" : sl,
                       mod->saturated ? "-" : ml, e, sim->accepted_rate, mod->accepted_rate, sim->saturated,
                       mod->saturated);
    }
    cli_table_print(&t, stdout);
    cli_table_free(&t);
}

static int emit(const noc_opts_t *o, const noc_setup_t *s, const noc_row_t *rows, int n)
{
    cli_table_t text, csv;
    const char *header[CSV_COLUMNS + 1];
    memcpy(header, csv_header, sizeof csv_header);
    header[CSV_COLUMNS] = "model";
    cli_table_init(&text, text_header, TEXT_COLUMNS);
    cli_table_init(&csv, header, CSV_COLUMNS + (o->compare ? 1 : 0));
    for (int i = 0; i < n; i++) {
        const gpuest_noc_result_t *r = &rows[i].r;
        char lat[32], nlat[32];
        fmt_or_empty(lat, sizeof lat, r->avg_packet_latency, r->saturated);
        fmt_or_empty(nlat, sizeof nlat, r->avg_network_latency, r->saturated);
        cli_table_addf(&text, "%s\t%.5g\t%s\t%s\t%.4f\t%.3f\t%d\t%lld", rows[i].model, r->offered_rate,
                       r->saturated ? "-" : lat, r->saturated ? "-" : nlat, r->accepted_rate, r->avg_hops,
                       r->saturated, (long long)r->sim_cycles);
        cli_table_addf(&csv, "%s\t%d\t%d\t%d\t%s\t%s\t%d\t%.6g\t%s\t%s\t%.6g\t%d\t%s",
                       gpuest_topology_name(s->cfg.topology), s->cfg.k, s->cfg.vcs, s->cfg.buffer_flits,
                       s->routing_name, gpuest_noc_pattern_name(s->traffic.pattern), s->traffic.packet_flits,
                       r->offered_rate, lat, nlat, r->accepted_rate, r->saturated, rows[i].model);
    }
    if (o->compare)
        print_compare(rows, n);
    else
        cli_table_print(&text, stdout);
    int rc = 0;
    if (o->csv)
        rc = cli_table_write_csv(&csv, o->csv, CMD);
    cli_table_free(&text);
    cli_table_free(&csv);
    return rc;
}

/* ------------------------------------------------------------ analytical model */

/* Evaluates the model at one rate into a simulator-shaped result row. */
static gpuest_err model_row(const gpuest_config_t *cfg, const gpuest_model_pattern_t *p, double rate,
                            gpuest_noc_result_t *out, gpuest_error_t *err)
{
    gpuest_model_result_t m;
    GPUEST_TRY(gpuest_model_noc_point(cfg, p, rate, NULL, &m, err));
    memset(out, 0, sizeof *out);
    out->offered_rate = rate;
    out->saturated = m.saturated;
    out->avg_packet_latency = m.saturated ? 0.0 : m.avg_packet_latency;
    out->avg_network_latency = m.saturated ? 0.0 : m.avg_network_latency;
    out->accepted_rate = m.accepted_rate;
    double packets = 0.0, hops = 0.0;
    for (int c = 0; c < m.num_classes && c < GPUEST_NOC_MAX_CLASSES; c++) {
        packets += m.cls[c].packets;
        hops += m.cls[c].packets * m.cls[c].avg_hops;
        out->cls_packet_latency[c] = m.cls[c].avg_latency;
        out->cls_network_latency[c] = m.cls[c].avg_network_latency;
    }
    out->avg_hops = packets > 0 ? hops / packets : 0.0;
    return GPUEST_OK;
}

/* The machine the model sees: the command's configuration with the network that
 * was actually set up (which a BookSim file may have replaced). */
static void model_config(const noc_opts_t *o, const noc_setup_t *s, gpuest_config_t *cfg)
{
    *cfg = o->cc.cfg;
    cfg->noc = s->cfg;
    if (s->traffic.pattern != GPUEST_NOC_TRAFFIC_GPU && s->cfg.topology == GPUEST_TOPO_CROSSBAR &&
        s->nopts.num_nodes > 0) {
        cfg->mc.num_mcs = 1; /* a crossbar's endpoints: all but one counted as SMs */
        cfg->core.num_sms = s->nopts.num_nodes - 1;
    }
}

/* Rates of an analytic-only sweep: step, 2 step, ... up to the first saturated point. */
static gpuest_err model_sweep(const noc_opts_t *o, const gpuest_config_t *cfg, const gpuest_model_pattern_t *p,
                              noc_row_t *rows, int *n, gpuest_error_t *err)
{
    *n = 0;
    for (double rate = o->step; rate <= o->max_rate * (1 + 1e-9) && *n < MAX_ROWS; rate += o->step) {
        rows[*n].model = "analytic";
        GPUEST_TRY(model_row(cfg, p, rate, &rows[*n].r, err));
        if (rows[(*n)++].r.saturated)
            break;
    }
    return GPUEST_OK;
}

/* Adds, after every simulated row, the model at the same rate (rows has room for 2n). */
static gpuest_err interleave_model(const gpuest_config_t *cfg, const gpuest_model_pattern_t *p, noc_row_t *rows,
                                   int *n, gpuest_error_t *err)
{
    for (int i = *n - 1; i >= 0; i--) {
        rows[2 * i] = rows[i];
        rows[2 * i + 1].model = "analytic";
        GPUEST_TRY(model_row(cfg, p, rows[i].r.offered_rate, &rows[2 * i + 1].r, err));
    }
    *n *= 2;
    return GPUEST_OK;
}

static gpuest_err run_simulation(const noc_opts_t *o, const noc_setup_t *s, noc_row_t *rows, int *n,
                                 gpuest_error_t *err)
{
    gpuest_err e;
    if (o->sweep) {
        gpuest_noc_result_t *res = calloc(MAX_ROWS, sizeof *res);
        gpuest_progress_t *pr = cli_progress("noc sweep", (unsigned long long)(o->max_rate / o->step) + o->refine);
        e = res ? gpuest_noc_sweep(&s->cfg, &s->nopts, &s->traffic, &s->measure, o->step, o->max_rate, (int)o->refine,
                                   res, MAX_ROWS / 2, n, pr, err)
                : GPUEST_ENOMEM;
        gpuest_progress_finish(pr);
        for (int i = 0; i < *n; i++)
            rows[i] = (noc_row_t){.model = "sim", .r = res[i]};
        free(res);
    } else {
        gpuest_progress_t *pr = cli_progress("noc", (unsigned long long)s->measure.max_samples);
        e = gpuest_noc_measure(&s->cfg, &s->nopts, &s->traffic, &s->measure, pr, &rows[0].r, err);
        gpuest_progress_finish(pr);
        rows[0].model = "sim";
        *n = 1;
    }
    return e;
}

int cli_cmd_noc(int argc, char **argv)
{
    noc_opts_t o;
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    noc_setup_t s;
    memset(&s, 0, sizeof s);
    rc = o.booksim ? setup_from_booksim(&o, &s) : setup_from_machine(&o, &s);
    if (rc)
        return rc;
    apply_measure_opts(&o, &s);
    noc_row_t *rows = calloc(MAX_ROWS, sizeof *rows);
    if (!rows)
        return cli_report(CMD, GPUEST_ENOMEM, NULL);
    int n = 0;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    gpuest_config_t mcfg;
    gpuest_model_pattern_t pattern;
    model_config(&o, &s, &mcfg);
    int analytic_only = strcmp(o.model, "analytic") == 0 && !o.compare;
    gpuest_err e = gpuest_model_pattern_from_traffic(&pattern, &s.traffic, &err);
    if (e == GPUEST_OK && analytic_only) {
        if (o.sweep) {
            e = model_sweep(&o, &mcfg, &pattern, rows, &n, &err);
        } else {
            rows[0].model = "analytic";
            e = model_row(&mcfg, &pattern, s.traffic.rate, &rows[0].r, &err);
            n = 1;
        }
    } else if (e == GPUEST_OK) {
        e = run_simulation(&o, &s, rows, &n, &err);
        if (e == GPUEST_OK && o.compare)
            e = interleave_model(&mcfg, &pattern, rows, &n, &err);
    }
    if (e != GPUEST_OK) {
        free(rows);
        return cli_report(CMD, e, &err);
    }
    rc = emit(&o, &s, rows, n);
    free(rows);
    return rc;
}
