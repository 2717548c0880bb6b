/* points.c: a spec expanded into its design points, each with its resolved machine, the sorted
 * text of every key, and the hashes that identify it across runs and modes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"
#include "technique/technique.h"
#include "workload/workload.h"

/* ------------------------------------------------------------ config as sorted lines */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* cfg written as INI, turned into "section.key=value" lines sorted by name (comments dropped). */
static gpuest_err config_lines(const gpuest_config_t *cfg, char **out, gpuest_error_t *err)
{
    char *ini = NULL;
    size_t ini_len = 0;
    FILE *f = open_memstream(&ini, &ini_len);
    if (!f)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    gpuest_err rc = gpuest_config_write_ini(cfg, f);
    fclose(f);
    if (rc != GPUEST_OK) {
        free(ini);
        return gpuest_fail(err, rc, "cannot print the configuration");
    }
    char section[64] = "";
    char **lines = NULL;
    size_t n = 0, total = 1;
    for (char *save = NULL, *l = strtok_r(ini, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        while (*l == ' ' || *l == '\t')
            l++;
        if (*l == ';' || *l == '#' || *l == '\0')
            continue;
        if (*l == '[') {
            char *end = strchr(l, ']');
            snprintf(section, sizeof section, "%.*s", end ? (int)(end - l - 1) : 0, l + 1);
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq)
            continue;
        char *kend = eq;
        while (kend > l && (kend[-1] == ' ' || kend[-1] == '\t'))
            kend--;
        char *v = eq + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        char *vend = v + strlen(v);
        while (vend > v && (vend[-1] == ' ' || vend[-1] == '\r'))
            vend--;
        char **grown = realloc(lines, (n + 1) * sizeof *grown);
        size_t cap = strlen(section) + (size_t)(kend - l) + (size_t)(vend - v) + 3;
        char *line = malloc(cap);
        if (!grown || !line) {
            free(line);
            lines = grown ? grown : lines;
            for (size_t i = 0; i < n; i++)
                free(lines[i]);
            free(lines);
            free(ini);
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        }
        lines = grown;
        snprintf(line, cap, "%s.%.*s=%.*s", section, (int)(kend - l), l, (int)(vend - v), v);
        lines[n++] = line;
        total += cap;
    }
    free(ini);
    qsort(lines, n, sizeof *lines, cmp_str);
    char *text = malloc(total);
    if (text) {
        size_t off = 0;
        for (size_t i = 0; i < n; i++)
            off += (size_t)sprintf(text + off, "%s\n", lines[i]);
        text[off] = '\0';
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    if (!text)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    *out = text;
    return GPUEST_OK;
}

/* "technique.*" lines of text that base_text does not hold, as "key=value,key=value"; "none". */
static void technique_text(const char *text, const char *base_text, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (const char *l = strstr(text, "technique."); l; l = strstr(l + 1, "\ntechnique.")) {
        if (*l == '\n')
            l++;
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        char line[256];
        snprintf(line, sizeof line, "%.*s\n", (int)len, l);
        if (strstr(base_text, line) && (strstr(base_text, line) == base_text || strstr(base_text, line)[-1] == '\n'))
            continue;
        off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%.*s", off ? "," : "", (int)len - 10, l + 10);
        if (off >= cap)
            break;
    }
    if (buf[0] == '\0')
        snprintf(buf, cap, "none");
}

/* ------------------------------------------------------------ expansion */

typedef struct {
    const gpuest_sweep_spec_t *spec;
    gpuest_sweep_mode_t mode;
    gpuest_config_t base;
    char *base_text; /* the base machine's lines: techniques are named by what differs */
} expand_ctx;

static int is_traffic_key(const char *key)
{
    return strncmp(key, "traffic.", 8) == 0;
}

static gpuest_err base_machine(expand_ctx *x, gpuest_error_t *err)
{
    const gpuest_sweep_spec_t *s = x->spec;
    gpuest_error_t inner;
    gpuest_error_clear(&inner);
    if (s->preset[0] && gpuest_config_preset(&x->base, s->preset, &inner) != GPUEST_OK)
        return gpuest_fail(err, inner.code, "%s: %s", s->origin, inner.msg);
    if (!s->preset[0])
        GPUEST_TRY(gpuest_config_preset(&x->base, "mesh56", err));
    if (s->config_file[0])
        GPUEST_TRY(gpuest_config_load_file(&x->base, s->config_file, err));
    GPUEST_TRY(config_lines(&x->base, &x->base_text, err));
    for (int i = 0; i < s->sets.n; i++) {
        char *eq = strchr(s->sets.items[i], '=');
        char key[GPUEST_SWEEP_KEY_MAX + 1];
        snprintf(key, sizeof key, "%.*s", (int)(eq - s->sets.items[i]), s->sets.items[i]);
        char *dot = strchr(key, '.');
        *dot = '\0';
        GPUEST_TRY(gpuest_config_set_key(&x->base, key, dot + 1, eq + 1, s->origin, s->set_lines[i], err));
    }
    return GPUEST_OK;
}

static gpuest_err set_key(gpuest_config_t *cfg, const char *key, const char *value, const char *origin, int line,
                          gpuest_error_t *err)
{
    char sec[GPUEST_SWEEP_KEY_MAX];
    snprintf(sec, sizeof sec, "%s", key);
    char *dot = strchr(sec, '.');
    if (!dot)
        return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: '%s': expected SECTION.KEY", origin, line, key);
    *dot = '\0';
    return gpuest_config_set_key(cfg, sec, dot + 1, value, origin, line, err);
}

/* technique entry "compression=bdi+coalescing=pcu" (or "none") applied to cfg. */
static gpuest_err apply_technique(gpuest_config_t *cfg, const char *entry, const char *origin, int line,
                                  gpuest_error_t *err)
{
    if (strcmp(entry, "none") == 0)
        return GPUEST_OK;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", entry);
    for (char *save = NULL, *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: technique '%s': expected KEY=VALUE joined by '+', or none",
                               origin, line, t);
        *eq = '\0';
        GPUEST_TRY(gpuest_config_set_key(cfg, "technique", t, eq + 1, origin, line, err));
    }
    return GPUEST_OK;
}

static unsigned technique_modes(gpuest_sweep_mode_t m)
{
    return m == GPUEST_SWEEP_ESTIMATE ? GPUEST_TECH_MODE_MODEL
           : m == GPUEST_SWEEP_NOC    ? GPUEST_TECH_MODE_NOC
                                      : GPUEST_TECH_MODE_SIM;
}

/* Fills one point from its axis values (vals), technique, workload, scale and seed. */
static gpuest_err make_point(expand_ctx *x, char **vals, int tech, int wl, int sc, int sd, gpuest_sweep_point_t *p,
                             gpuest_error_t *err)
{
    const gpuest_sweep_spec_t *s = x->spec;
    p->cfg = x->base;
    p->mode = x->mode;
    snprintf(p->preset, sizeof p->preset, "%s", x->base.name);
    GPUEST_TRY(apply_technique(&p->cfg, s->techniques.items[tech], s->origin, s->techniques.line, err));
    p->rate = s->rate;
    p->packet_flits = s->packet_flits;
    p->axis_values = calloc((size_t)s->naxes + 1, sizeof *p->axis_values); /* NULL-terminated */
    if (!p->axis_values)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (int a = 0; a < s->naxes; a++) {
        const gpuest_sweep_axis_t *ax = &s->axes[a];
        if (!(p->axis_values[a] = gpuest_strdup(vals[a])))
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        if (is_traffic_key(ax->key)) {
            if (x->mode != GPUEST_SWEEP_NOC)
                return gpuest_fail(err, GPUEST_EINVAL, "%s:%d: axis '%s' applies to the noc mode only", s->origin,
                                   ax->line, ax->key);
            double v;
            int ok = gpuest_parse_double(vals[a], &v) == GPUEST_OK;
            if (strcmp(ax->key, "traffic.rate") == 0 && ok && v > 0 && v <= 1)
                p->rate = v;
            else if (strcmp(ax->key, "traffic.packet_flits") == 0 && ok && v >= 1 && v <= 1000 && v == floor(v))
                p->packet_flits = (int)v;
            else
                return gpuest_fail(err, GPUEST_EINVAL,
                                   "%s:%d: '%s = %s' (expected traffic.rate in (0, 1] or traffic.packet_flits in "
                                   "1..1000)",
                                   s->origin, ax->line, ax->key, vals[a]);
            continue;
        }
        GPUEST_TRY(set_key(&p->cfg, ax->key, vals[a], s->origin, ax->line, err));
    }
    gpuest_error_t inner;
    gpuest_error_clear(&inner);
    if (gpuest_config_validate(&p->cfg, &inner) != GPUEST_OK ||
        gpuest_technique_validate(&p->cfg, technique_modes(x->mode), &inner) != GPUEST_OK) {
        int line = s->naxes ? s->axes[0].line : s->techniques.line;
        return gpuest_fail(err, GPUEST_EINVAL, "%s:%d: design point %ld is not a valid machine: %s", s->origin, line,
                           p->id, inner.msg);
    }
    gpuest_scale_t scale;
    if (gpuest_scale_parse(s->scales.items[sc], &scale) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_EINVAL, "%s:%d: scale '%s' (expected tiny, small or default)", s->origin,
                           s->scales.line, s->scales.items[sc]);
    snprintf(p->scale, sizeof p->scale, "%s", s->scales.items[sc]);
    if (x->mode == GPUEST_SWEEP_NOC)
        snprintf(p->workload, sizeof p->workload, "%s", s->traffic);
    else if (strlen(s->workloads.items[wl]) >= sizeof p->workload)
        return gpuest_fail(err, GPUEST_EINVAL, "%s:%d: workload name '%s' too long", s->origin, s->workloads.line,
                           s->workloads.items[wl]);
    else
        snprintf(p->workload, sizeof p->workload, "%s", s->workloads.items[wl]);
    if (gpuest_parse_u64(s->seeds.items[sd], &p->seed) != GPUEST_OK)
        return gpuest_fail(err, GPUEST_EINVAL, "%s:%d: seed '%s'", s->origin, s->seeds.line, s->seeds.items[sd]);
    GPUEST_TRY(config_lines(&p->cfg, &p->config, err));
    technique_text(p->config, x->base_text, p->technique, sizeof p->technique);
    /* identity: every key, the workload, its scale and seed (noc: the traffic), then the mode */
    size_t cap = strlen(p->config) + 256;
    char *id = malloc(cap);
    if (!id)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    int len = snprintf(id, cap, "%sworkload=%s\nscale=%s\nseed=%llu\n", p->config, p->workload, p->scale,
                       (unsigned long long)p->seed);
    if (x->mode == GPUEST_SWEEP_NOC)
        len += snprintf(id + len, cap - (size_t)len, "rate=%.17g\npacket_flits=%d\n", p->rate, p->packet_flits);
    gpuest_sweep_hash_hex(id, p->design_hash);
    snprintf(id + len, cap - (size_t)len, "mode=%s\n", gpuest_sweep_mode_name(x->mode));
    gpuest_sweep_hash_hex(id, p->hash);
    free(id);
    return GPUEST_OK;
}

/* Axis values of every design row: rows x naxes strings (grid: the product, last axis fastest). */
static gpuest_err design_rows(const gpuest_sweep_spec_t *s, char ***out, long *nrows, gpuest_error_t *err)
{
    long rows = 1;
    int dims = s->naxes;
    if (s->design == GPUEST_SWEEP_GRID) {
        for (int a = 0; a < dims; a++) {
            rows *= s->axes[a].nvalues;
            if (rows > 10000000)
                return gpuest_fail(err, GPUEST_ERANGE, "%s: the grid has more than 10 million rows", s->origin);
        }
    } else if (dims > 0) {
        rows = s->points;
    }
    if (rows < 1 || rows > 10000000)
        return gpuest_fail(err, GPUEST_ERANGE, "%s: %ld design rows (expected 1..10 million)", s->origin, rows);
    size_t cells = (size_t)rows * (size_t)(dims > 0 ? dims : 1);
    char **vals = calloc(cells, sizeof *vals);
    double *unit = dims && s->design != GPUEST_SWEEP_GRID ? malloc(cells * sizeof *unit) : NULL;
    if (!vals || (dims && s->design != GPUEST_SWEEP_GRID && !unit)) {
        free(vals);
        free(unit);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    gpuest_err rc = GPUEST_OK;
    if (unit)
        rc = gpuest_sweep_design_unit(s->design, rows, dims, s->design_seed, unit, err);
    for (long r = 0; r < rows && rc == GPUEST_OK; r++) {
        long rest = r;
        for (int a = dims - 1; a >= 0; a--) {
            char buf[GPUEST_SWEEP_VALUE_MAX];
            if (unit) {
                gpuest_sweep_axis_value(&s->axes[a], unit[r * dims + a], buf, sizeof buf);
            } else {
                snprintf(buf, sizeof buf, "%s", s->axes[a].values[rest % s->axes[a].nvalues]);
                rest /= s->axes[a].nvalues;
            }
            if (!(vals[r * dims + a] = gpuest_strdup(buf)))
                rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        }
    }
    free(unit);
    *out = vals;
    *nrows = rows;
    return rc;
}

static int cmp_point_hash(const void *a, const void *b)
{
    return strcmp((*(const gpuest_sweep_point_t *const *)a)->hash, (*(const gpuest_sweep_point_t *const *)b)->hash);
}

/* Two points with the same identity would be one row: a spec that repeats a value, or a sampling
 * design that draws the same list values twice, is refused. */
static gpuest_err check_unique(const gpuest_sweep_spec_t *spec, gpuest_sweep_point_t *pts, size_t n,
                               gpuest_error_t *err)
{
    const gpuest_sweep_point_t **by = malloc((n ? n : 1) * sizeof *by);
    if (!by)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        by[i] = &pts[i];
    qsort(by, n, sizeof *by, cmp_point_hash);
    gpuest_err rc = GPUEST_OK;
    for (size_t i = 1; i < n && rc == GPUEST_OK; i++)
        if (strcmp(by[i - 1]->hash, by[i]->hash) == 0)
            rc = gpuest_fail(err, GPUEST_EINVAL,
                             "%s: design points %ld and %ld are the same machine and workload (a repeated value, or a "
                             "sampling design that drew the same list values twice: change its seed, use fewer "
                             "points, ranges, or a grid)",
                             spec->origin, by[i - 1]->id < by[i]->id ? by[i - 1]->id : by[i]->id,
                             by[i - 1]->id < by[i]->id ? by[i]->id : by[i - 1]->id);
    free(by);
    return rc;
}

gpuest_err gpuest_sweep_points(const gpuest_sweep_spec_t *spec, gpuest_sweep_mode_t mode, gpuest_sweep_point_t **out,
                               size_t *n, gpuest_error_t *err)
{
    *out = NULL;
    *n = 0;
    expand_ctx x = {.spec = spec, .mode = mode};
    gpuest_err rc = base_machine(&x, err);
    char **vals = NULL;
    long rows = 0;
    if (rc == GPUEST_OK)
        rc = design_rows(spec, &vals, &rows, err);
    int nw = mode == GPUEST_SWEEP_NOC ? 1 : spec->workloads.n;
    int nsc = mode == GPUEST_SWEEP_NOC ? 1 : spec->scales.n;
    size_t total = (size_t)rows * (size_t)spec->techniques.n * (size_t)nw * (size_t)nsc * (size_t)spec->seeds.n;
    gpuest_sweep_point_t *pts = NULL;
    if (rc == GPUEST_OK && total > GPUEST_SWEEP_MAX_POINTS)
        rc = gpuest_fail(err, GPUEST_ERANGE, "%s: %zu points (at most %d in one sweep: split the spec)", spec->origin,
                         total, GPUEST_SWEEP_MAX_POINTS);
    if (rc == GPUEST_OK && !(pts = calloc(total ? total : 1, sizeof *pts)))
        rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    size_t k = 0;
    for (long r = 0; r < rows && rc == GPUEST_OK; r++)
        for (int t = 0; t < spec->techniques.n && rc == GPUEST_OK; t++)
            for (int w = 0; w < nw && rc == GPUEST_OK; w++)
                for (int sc = 0; sc < nsc && rc == GPUEST_OK; sc++)
                    for (int sd = 0; sd < spec->seeds.n && rc == GPUEST_OK; sd++, k++) {
                        pts[k].id = (long)k;
                        rc = make_point(&x, vals + r * spec->naxes, t, w, sc, sd, &pts[k], err);
                    }
    if (rc == GPUEST_OK)
        rc = check_unique(spec, pts, k, err);
    if (vals)
        for (long i = 0; i < rows * (spec->naxes ? spec->naxes : 1); i++)
            free(vals[i]);
    free(vals);
    free(x.base_text);
    if (rc != GPUEST_OK) {
        gpuest_sweep_points_free(pts, k);
        return rc;
    }
    *out = pts;
    *n = total;
    return GPUEST_OK;
}

void gpuest_sweep_points_free(gpuest_sweep_point_t *p, size_t n)
{
    if (!p)
        return;
    for (size_t i = 0; i < n; i++) {
        if (p[i].axis_values) {
            for (int a = 0; a < GPUEST_SWEEP_MAX_AXES && p[i].axis_values[a]; a++)
                free(p[i].axis_values[a]);
        }
        free(p[i].axis_values);
        free(p[i].config);
    }
    free(p);
}
