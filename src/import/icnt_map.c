/* icnt_map.c: GPGPU-Sim's BookSim interconnect file (and -network_mode 2's local
 * crossbar options) -> gpuest noc keys.
 *
 * GPGPU-Sim's Fermi files describe the crossbar as a one-stage butterfly
 * ("topology = fly; n = 1", k ports, dest_tag routing) and separate request and
 * reply traffic with "subnets = 2"; mesh files use "topology = mesh; n = 2". */
#include <stdio.h>
#include <string.h>

#include "import_int.h"

typedef struct {
    gpuest_import_t *imp;
    imp_options_t *opts;
    const char *origin;
    gpuest_error_t *err;
} icnt_ctx;

static imp_option_t *take(icnt_ctx *x, const char *key)
{
    imp_option_t *o = imp_options_find(x->opts, key);
    if (o)
        o->used = 1;
    return o;
}

static gpuest_err want_int(icnt_ctx *x, const imp_option_t *o, long lo, long hi, long *out)
{
    int64_t v;
    if (gpuest_parse_i64(o->value, &v) != GPUEST_OK || v < lo || v > hi)
        return gpuest_fail(x->err, GPUEST_EPARSE, "%s:%d: %s = %s: expected an integer in %ld..%ld", x->origin, o->line,
                           o->name, o->value, lo, hi);
    *out = (long)v;
    return GPUEST_OK;
}

static gpuest_err unsupported(icnt_ctx *x, const imp_option_t *o, const char *supported)
{
    return gpuest_fail(x->err, GPUEST_EUNSUPPORTED, "%s:%d: %s = %s is not modelled (supported: %s)", x->origin,
                       o->line, o->name, o->value, supported);
}

static gpuest_err set_int(icnt_ctx *x, const char *key, long v, const imp_option_t *o)
{
    return imp_set_int(x->imp, "noc", key, v, x->origin, o->line, o->name, x->err);
}

static gpuest_err set_str(icnt_ctx *x, const char *key, const char *v, const imp_option_t *o)
{
    return imp_set(x->imp, "noc", key, v, x->origin, o->line, o->name, x->err);
}

/* topology, n, k and routing_function together decide the network. */
static gpuest_err map_topology(icnt_ctx *x)
{
    imp_option_t *t = take(x, "topology"), *n = take(x, "n"), *k = take(x, "k"), *r = take(x, "routing_function");
    if (!t)
        return gpuest_fail(x->err, GPUEST_EPARSE, "%s: no 'topology' key (expected topology = fly; or mesh;)",
                           x->origin);
    long dims = 0, side = 0;
    if (n)
        GPUEST_TRY(want_int(x, n, 1, 8, &dims));
    if (k)
        GPUEST_TRY(want_int(x, k, 1, 1024, &side));
    if (strcmp(t->value, "fly") == 0) {
        if (n && dims != 1)
            return unsupported(x, n, "1 (a one-stage butterfly: a crossbar)");
        if (r && strcmp(r->value, "dest_tag") != 0)
            return unsupported(x, r, "dest_tag for a fly");
        GPUEST_TRY(set_str(x, "topology", "crossbar", t));
        GPUEST_TRY(set_int(x, "k", 0, t));
        if (k) /* the crossbar has one port per SM and per memory sub-partition */
            GPUEST_TRY(imp_ignore(x->imp, "k", x->origin, k->line,
                                  "crossbar ports follow core.num_sms + mc.num_mcs x mc.sub_partitions"));
        return GPUEST_OK;
    }
    if (strcmp(t->value, "mesh") == 0) {
        if (!n || dims != 2)
            return n ? unsupported(x, n, "2 (a 2D mesh)")
                     : gpuest_fail(x->err, GPUEST_EPARSE, "%s:%d: a mesh needs 'n = 2;'", x->origin, t->line);
        if (!k)
            return gpuest_fail(x->err, GPUEST_EPARSE, "%s:%d: a mesh needs its side 'k = N;'", x->origin, t->line);
        GPUEST_TRY(set_str(x, "topology", "mesh", t));
        GPUEST_TRY(set_int(x, "k", side, k));
        if (r) {
            static const char *const names[][2] = {{"dor", "xy"}, {"dim_order", "xy"}, {"xy_yx", "o1turn"}};
            size_t i = 0;
            while (i < 3 && strcmp(r->value, names[i][0]) != 0)
                i++;
            if (i == 3)
                return unsupported(x, r, "dor, dim_order, xy_yx");
            GPUEST_TRY(set_str(x, "routing_request", names[i][1], r));
            GPUEST_TRY(set_str(x, "routing_reply", names[i][1], r));
        }
        return GPUEST_OK;
    }
    return unsupported(x, t, "fly (crossbar), mesh");
}

static gpuest_err map_plain(icnt_ctx *x)
{
    static const struct {
        const char *key, *ours;
        long lo, hi;
    } table[] = {
        {"num_vcs", "vcs", 1, 64},
        {"vc_buf_size", "buffer_flits", 1, 1024},
        {"flit_size", "flit_bytes", 4, 256},
        {"routing_delay", "routing_delay", 0, 16},
        {"vc_alloc_delay", "vc_alloc_delay", 1, 16},
        {"sw_alloc_delay", "sw_alloc_delay", 1, 16},
        {"st_prepare_delay", "st_prepare_delay", 0, 16},
        {"st_final_delay", "st_final_delay", 1, 16},
        {"credit_delay", "credit_delay", 0, 16},
        {"output_delay", "output_delay", 0, 16},
        {"alloc_iters", "alloc_iters", 1, 16},
        {"wait_for_tail_credit", "wait_for_tail_credit", 0, 1},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        imp_option_t *o = take(x, table[i].key);
        long v = 0;
        if (!o)
            continue;
        GPUEST_TRY(want_int(x, o, table[i].lo, table[i].hi, &v));
        GPUEST_TRY(set_int(x, table[i].ours, v, o));
    }
    static const char *const allocs[] = {"vc_allocator", "sw_allocator"};
    for (size_t i = 0; i < 2; i++) {
        imp_option_t *o = take(x, allocs[i]);
        if (!o)
            continue;
        if (strcmp(o->value, "islip") != 0 && strcmp(o->value, "separable_input_first") != 0)
            return unsupported(x, o, "islip, separable_input_first");
        GPUEST_TRY(set_str(x, allocs[i], o->value, o));
    }
    imp_option_t *o = take(x, "subnets");
    if (o) {
        long v = 0;
        GPUEST_TRY(want_int(x, o, 1, 2, &v));
        GPUEST_TRY(set_str(x, "class_split", v == 2 ? "physical" : "virtual", o));
    }
    return GPUEST_OK;
}

/* GPGPU-Sim's network interface: an injection buffer of input_buffer_size flits
 * (0: GPGPU-Sim's default of 9), and on the ejection side ejection_buffer_size
 * (0: vc_buf_size) plus boundary_buffer_size flits per class. */
static gpuest_err map_ni_buffers(icnt_ctx *x)
{
    imp_option_t *in = take(x, "input_buffer_size"), *ej = take(x, "ejection_buffer_size"),
                 *bd = take(x, "boundary_buffer_size");
    long v = 0;
    if (in) {
        GPUEST_TRY(want_int(x, in, 0, 65536, &v));
        GPUEST_TRY(set_int(x, "inject_queue_flits", v ? v : 9, in));
    }
    if (ej || bd) {
        long e = 0, b = 16, vbuf = x->imp->cfg.noc.buffer_flits;
        if (ej)
            GPUEST_TRY(want_int(x, ej, 0, 32768, &e));
        if (bd)
            GPUEST_TRY(want_int(x, bd, 0, 32768, &b));
        GPUEST_TRY(set_int(x, "eject_queue_flits", (e ? e : vbuf) + b, ej ? ej : bd));
    }
    return GPUEST_OK;
}

gpuest_err imp_map_icnt(gpuest_import_t *imp, imp_options_t *opts, const char *origin, gpuest_error_t *err)
{
    icnt_ctx x = {.imp = imp, .opts = opts, .origin = origin, .err = err};
    GPUEST_TRY(map_topology(&x));
    GPUEST_TRY(map_plain(&x));
    return map_ni_buffers(&x);
}
