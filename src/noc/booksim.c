/* booksim.c: reads BookSim 2 configuration files ("key = value;") into a network, traffic and measurement setup. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noc_int.h"

/* BookSim 2's defaults (booksim_config.cpp) for the keys the model uses. */
static void booksim_defaults(gpuest_noc_booksim_t *b)
{
    memset(b, 0, sizeof *b);
    gpuest_noc_cfg_t *c = &b->cfg;
    c->topology = GPUEST_TOPO_MESH; /* BookSim's default is torus: a file must name its topology (checked below) */
    c->k = 8;
    c->vcs = 16;
    c->buffer_flits = 8;
    c->flit_bytes = 16;
    c->routing_delay = 1;
    c->vc_alloc_delay = 1;
    c->sw_alloc_delay = 1;
    c->st_prepare_delay = 0;
    c->st_final_delay = 1;
    c->credit_delay = 0;
    c->output_delay = 0;
    c->link_latency = 1;
    c->routing_request = c->routing_reply = GPUEST_ROUTE_XY;
    c->class_split = GPUEST_SPLIT_VIRTUAL;
    c->xbar_port_flits = 1;
    c->inject_queue = 16;
    c->eject_queue = 16;
    gpuest_noc_opts_default(&b->opts);
    b->opts.num_classes = 1;
    gpuest_noc_traffic_default(&b->traffic);
    b->traffic.rate = 0.1;
    b->traffic.seed = 0;
    gpuest_noc_measure_default(&b->measure);
    b->measure.sample_period = 1000;
    snprintf(b->routing_function, sizeof b->routing_function, "none");
}

/* Keys BookSim knows that do not change this model's results when left at the
 * values the reference runs use; they are read and reported as ignored. */
static void note_ignored(gpuest_noc_booksim_t *b, const char *key)
{
    if (b->num_ignored >= GPUEST_NOC_BOOKSIM_MAX_IGNORED)
        return;
    snprintf(b->ignored[b->num_ignored++], GPUEST_NAME_MAX, "%s", key);
}

typedef struct {
    const char *origin;
    int line;
    gpuest_error_t *err;
} ctx_t;

static gpuest_err want_int(const ctx_t *x, const char *key, const char *v, long lo, long hi, int *out)
{
    int64_t n;
    if (gpuest_parse_i64(v, &n) != GPUEST_OK || n < lo || n > hi)
        return gpuest_fail(x->err, GPUEST_EPARSE, "%s:%d: %s = '%s': expected an integer in %ld..%ld", x->origin,
                           x->line, key, v, lo, hi);
    *out = (int)n;
    return GPUEST_OK;
}

static gpuest_err want_double(const ctx_t *x, const char *key, const char *v, double lo, double hi, double *out)
{
    double d;
    if (gpuest_parse_double(v, &d) != GPUEST_OK || !(d >= lo && d <= hi)) /* NaN fails too */
        return gpuest_fail(x->err, GPUEST_EPARSE, "%s:%d: %s = '%s': expected a number in %g..%g", x->origin, x->line,
                           key, v, lo, hi);
    *out = d;
    return GPUEST_OK;
}

static gpuest_err unsupported(const ctx_t *x, const char *key, const char *v, const char *supported)
{
    return gpuest_fail(x->err, GPUEST_EUNSUPPORTED, "%s:%d: %s = %s is not modelled (supported: %s)", x->origin,
                       x->line, key, v, supported);
}

/* Parses "{a,b,c}" (spaces allowed) into ints or doubles; returns the count or -1. */
static int parse_list(const char *s, const char **end, double *out, int cap)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '{')
        return -1;
    s++;
    int n = 0;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '}') {
            *end = s + 1;
            return n;
        }
        char *e;
        double d = strtod(s, &e);
        if (e == s || n >= cap)
            return -1;
        out[n++] = d;
        s = e;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == ',')
            s++;
        else if (*s != '}')
            return -1;
    }
}

/* traffic = uniform | transpose | hotspot({{nodes},{rates}}) */
static gpuest_err parse_traffic(const ctx_t *x, gpuest_noc_booksim_t *b, const char *v)
{
    gpuest_noc_traffic_t *t = &b->traffic;
    if (strcmp(v, "uniform") == 0) {
        t->pattern = GPUEST_NOC_TRAFFIC_UNIFORM;
        return GPUEST_OK;
    }
    if (strcmp(v, "transpose") == 0) {
        t->pattern = GPUEST_NOC_TRAFFIC_TRANSPOSE;
        return GPUEST_OK;
    }
    if (strncmp(v, "hotspot", 7) == 0) {
        const char *s = v + 7;
        while (isspace((unsigned char)*s))
            s++;
        double nodes[GPUEST_NOC_MAX_HOT], rates[GPUEST_NOC_MAX_HOT];
        int nn = -1, nr = 0;
        if (*s == '(') {
            s++;
            while (isspace((unsigned char)*s))
                s++;
            if (*s == '{') {
                s++;
                nn = parse_list(s, &s, nodes, GPUEST_NOC_MAX_HOT);
                while (nn >= 0 && isspace((unsigned char)*s))
                    s++;
                if (nn >= 0 && *s == ',') {
                    nr = parse_list(s + 1, &s, rates, GPUEST_NOC_MAX_HOT);
                    while (nr >= 0 && isspace((unsigned char)*s))
                        s++;
                }
                if (nn >= 0 && nr >= 0 && *s == '}')
                    s++;
                else
                    nn = -1;
            }
            while (nn >= 0 && isspace((unsigned char)*s))
                s++;
            if (nn >= 0 && *s != ')')
                nn = -1;
        }
        if (nn < 1 || (nr > 0 && nr != nn && nr != 1))
            return gpuest_fail(x->err, GPUEST_EPARSE,
                               "%s:%d: traffic = %s: expected hotspot({{n0,n1,...},{r0,r1,...}})", x->origin,
                               x->line, v);
        /* nodes are mesh node numbers (k <= 32), weights non-negative: checked before any conversion */
        for (int i = 0; i < nn; i++)
            if (!(nodes[i] >= 0 && nodes[i] < 32 * 32) || nodes[i] != (double)(int)nodes[i])
                return gpuest_fail(x->err, GPUEST_EPARSE,
                                   "%s:%d: traffic = %s: hot node %g is not a node number 0..1023", x->origin, x->line,
                                   v, nodes[i]);
        for (int i = 0; i < nr; i++)
            if (!(rates[i] >= 0 && rates[i] <= 1e9))
                return gpuest_fail(x->err, GPUEST_EPARSE, "%s:%d: traffic = %s: hot weight %g is not in 0..1e9",
                                   x->origin, x->line, v, rates[i]);
        t->pattern = GPUEST_NOC_TRAFFIC_HOTSPOT;
        t->num_hot = nn;
        for (int i = 0; i < nn; i++) {
            t->hot_nodes[i] = (int)nodes[i];
            t->hot_weights[i] = nr == 0 ? 1.0 : rates[nr == 1 ? 0 : i];
        }
        return GPUEST_OK;
    }
    return unsupported(x, "traffic", v, "uniform, transpose, hotspot({{nodes},{rates}})");
}

static gpuest_err apply(const ctx_t *x, gpuest_noc_booksim_t *b, const char *key, const char *v, int *uses_flits,
                        int *have_topology, int *have_routing)
{
    gpuest_noc_cfg_t *c = &b->cfg;
    if (strcmp(key, "topology") == 0) {
        if (strcmp(v, "mesh") != 0)
            return unsupported(x, key, v, "mesh");
        *have_topology = 1;
        return GPUEST_OK;
    }
    if (strcmp(key, "k") == 0)
        return want_int(x, key, v, 1, 32, &c->k);
    if (strcmp(key, "n") == 0) {
        int n = 0;
        GPUEST_TRY(want_int(x, key, v, 1, 8, &n));
        return n == 2 ? GPUEST_OK : unsupported(x, key, v, "2 (2D mesh)");
    }
    if (strcmp(key, "num_vcs") == 0)
        return want_int(x, key, v, 1, NOC_MAX_VCS, &c->vcs);
    if (strcmp(key, "vc_buf_size") == 0)
        return want_int(x, key, v, 1, 4096, &c->buffer_flits);
    if (strcmp(key, "routing_function") == 0) {
        snprintf(b->routing_function, sizeof b->routing_function, "%s", v);
        /* BookSim's names (the "_mesh" suffix is added by BookSim) and ours in the routing registry;
         * BookSim's xy_yx_mesh is O1TURN: XY or YX per packet, one VC half each. */
        static const char *const names[][2] = {{"dor", "xy"}, {"dim_order", "xy"}, {"xy_yx", "o1turn"}};
        size_t i = 0;
        while (i < sizeof names / sizeof names[0] && strcmp(v, names[i][0]) != 0)
            i++;
        if (i == sizeof names / sizeof names[0])
            return unsupported(x, key, v, "dor, dim_order, xy_yx");
        GPUEST_TRY(gpuest_net_routing_find(names[i][1], &c->routing_request, x->err));
        c->routing_reply = c->routing_request;
        *have_routing = 1;
        return GPUEST_OK;
    }
    if (strcmp(key, "traffic") == 0)
        return parse_traffic(x, b, v);
    if (strcmp(key, "injection_process") == 0)
        return strcmp(v, "bernoulli") == 0 ? GPUEST_OK : unsupported(x, key, v, "bernoulli");
    if (strcmp(key, "injection_rate") == 0)
        return want_double(x, key, v, 0.0, 64.0, &b->traffic.rate);
    if (strcmp(key, "injection_rate_uses_flits") == 0)
        return want_int(x, key, v, 0, 1, uses_flits);
    if (strcmp(key, "packet_size") == 0)
        return want_int(x, key, v, 1, 65535, &b->traffic.packet_flits);
    if (strcmp(key, "routing_delay") == 0)
        return want_int(x, key, v, 0, 64, &c->routing_delay);
    if (strcmp(key, "vc_alloc_delay") == 0)
        return want_int(x, key, v, 1, 64, &c->vc_alloc_delay);
    if (strcmp(key, "sw_alloc_delay") == 0)
        return want_int(x, key, v, 1, 64, &c->sw_alloc_delay);
    if (strcmp(key, "st_prepare_delay") == 0)
        return want_int(x, key, v, 0, 64, &c->st_prepare_delay);
    if (strcmp(key, "st_final_delay") == 0)
        return want_int(x, key, v, 0, 64, &c->st_final_delay);
    if (strcmp(key, "credit_delay") == 0)
        return want_int(x, key, v, 0, 64, &c->credit_delay);
    if (strcmp(key, "output_delay") == 0)
        return want_int(x, key, v, 0, 64, &c->output_delay);
    if (strcmp(key, "router") == 0)
        return strcmp(v, "iq") == 0 ? GPUEST_OK : unsupported(x, key, v, "iq");
    if (strcmp(key, "vc_allocator") == 0 || strcmp(key, "sw_allocator") == 0) {
        gpuest_noc_alloc_t a;
        if (strcmp(v, "islip") == 0)
            a = GPUEST_NOC_ALLOC_ISLIP;
        else if (strcmp(v, "separable_input_first") == 0)
            a = GPUEST_NOC_ALLOC_SEPARABLE_IF;
        else
            return unsupported(x, key, v, "islip, separable_input_first");
        if (key[0] == 'v')
            b->opts.vc_allocator = a;
        else
            b->opts.sw_allocator = a;
        return GPUEST_OK;
    }
    if (strcmp(key, "alloc_iters") == 0)
        return want_int(x, key, v, 1, 16, &b->opts.alloc_iters);
    if (strcmp(key, "wait_for_tail_credit") == 0)
        return want_int(x, key, v, 0, 1, &b->opts.wait_for_tail_credit);
    if (strcmp(key, "sim_type") == 0)
        return strcmp(v, "latency") == 0 ? GPUEST_OK : unsupported(x, key, v, "latency");
    if (strcmp(key, "warmup_periods") == 0)
        return want_int(x, key, v, 0, 1000, &b->measure.warmup_periods);
    if (strcmp(key, "sample_period") == 0)
        return want_int(x, key, v, 1, 100000000, &b->measure.sample_period);
    if (strcmp(key, "max_samples") == 0)
        return want_int(x, key, v, 1, 100000, &b->measure.max_samples);
    if (strcmp(key, "latency_thres") == 0)
        return want_double(x, key, v, -1.0, 1e12, &b->measure.latency_thres);
    if (strcmp(key, "warmup_thres") == 0)
        return want_double(x, key, v, -1.0, 1e6, &b->measure.warmup_thres);
    if (strcmp(key, "acc_warmup_thres") == 0)
        return want_double(x, key, v, -1.0, 1e6, &b->measure.acc_thres);
    if (strcmp(key, "seed") == 0) {
        int64_t s;
        if (gpuest_parse_i64(v, &s) != GPUEST_OK || s < 0)
            return unsupported(x, key, v, "a non-negative integer (\"time\" would not be reproducible)");
        b->traffic.seed = (uint64_t)s;
        return GPUEST_OK;
    }
    if (strcmp(key, "include_queuing") == 0)
        return strcmp(v, "1") == 0 ? GPUEST_OK : unsupported(x, key, v, "1 (source queueing counted)");
    if (strcmp(key, "speculative") == 0 || strcmp(key, "input_speedup") == 0 ||
        strcmp(key, "output_speedup") == 0) { /* the model is the non-speculative, speedup-1 router */
        const char *only = key[0] == 's' ? "0" : "1";
        return strcmp(v, only) == 0 ? GPUEST_OK : unsupported(x, key, v, only);
    }
    if (strcmp(key, "internal_speedup") == 0) {
        double d = 0;
        GPUEST_TRY(want_double(x, key, v, 0.0, 64.0, &d));
        return d == 1.0 ? GPUEST_OK : unsupported(x, key, v, "1.0");
    }
    note_ignored(b, key); /* stopping thresholds, watch lists, statistics outputs, ... */
    return GPUEST_OK;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

gpuest_err gpuest_noc_booksim_parse(const char *text, const char *origin, gpuest_noc_booksim_t *out,
                                    gpuest_error_t *err)
{
    booksim_defaults(out);
    int uses_flits = 0, have_topology = 0, have_routing = 0;
    ctx_t x = {.origin = origin, .line = 0, .err = err};
    const char *p = text;
    char buf[1024];
    while (*p) {
        x.line++;
        if (gpuest_next_line_uncommented(&p, buf, sizeof buf) != 0)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: line longer than %zu characters", origin, x.line,
                               sizeof buf - 1);
        char *line = trim(buf);
        if (!*line)
            continue;
        char *eq = strchr(line, '=');
        char *semi = strrchr(line, ';');
        if (!eq || !semi || semi < eq)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: expected 'key = value;'", origin, x.line);
        *eq = '\0';
        *semi = '\0';
        char *key = trim(line), *val = trim(eq + 1);
        if (!*key || !*val)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: expected 'key = value;'", origin, x.line);
        GPUEST_TRY(apply(&x, out, key, val, &uses_flits, &have_topology, &have_routing));
    }
    if (!have_topology)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: no 'topology' key: BookSim's default (torus) is not modelled; add topology = mesh;",
                           origin);
    if (!have_routing)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s: no 'routing_function' key (BookSim's default 'none' routes nothing); use dor", origin);
    /* our rates are in flits per node per cycle */
    if (!uses_flits)
        out->traffic.rate *= out->traffic.packet_flits;
    out->traffic.request_flits = 1;
    return GPUEST_OK;
}

gpuest_err gpuest_noc_booksim_load(const char *path, gpuest_noc_booksim_t *out, gpuest_error_t *err)
{
    unsigned char *data = NULL;
    size_t size = 0;
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    const unsigned char *nul = memchr(data, '\0', size);
    if (nul) { /* the text would end there silently */
        int line = 1;
        for (const unsigned char *p = data; p < nul; p++)
            line += *p == '\n';
        free(data);
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: binary data (a NUL byte) in a BookSim file", path, line);
    }
    gpuest_err rc = gpuest_noc_booksim_parse((const char *)data, path, out, err);
    free(data);
    return rc;
}
