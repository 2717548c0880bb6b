/* html.c: the self-contained HTML report of a results database (inline SVG, sortable tables). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_int.h"

/* Clicking a column header sorts the rows by that column (numbers numerically,
 * by the cell's data-v when it has one, empty cells last); clicking again reverses. A link ending
 * in #sort=COLUMN opens the page sorted by that column. */
static const char sort_script[] =
    "<script>\n"
    "function gpuestSort(th){const table=th.closest('table'),tbody=table.tBodies[0];\n"
    " const col=Array.prototype.indexOf.call(th.parentNode.children,th);\n"
    " const dir=th.dataset.dir==='asc'?-1:1;th.dataset.dir=dir===1?'asc':'desc';\n"
    " const val=r=>{const c=r.children[col];const v=c.dataset.v!==undefined?c.dataset.v:c.textContent.trim();\n"
    "  const n=parseFloat(v);return isNaN(n)||!/^[-+0-9.eE]+$/.test(v)?v:n;};\n"
    " const rows=Array.from(tbody.rows);rows.sort((a,b)=>{const x=val(a),y=val(b);\n"
    "  if(x===''||y==='')return (x==='')-(y==='');\n"
    "  if(typeof x==='number'&&typeof y==='number')return dir*(x-y);return dir*String(x).localeCompare(String(y));});\n"
    " rows.forEach(r=>tbody.appendChild(r));}\n"
    "document.querySelectorAll('table.sortable th').forEach(th=>th.addEventListener('click',()=>gpuestSort(th)));\n"
    "const m=location.hash.match(/^#sort=(.+)$/);if(m){const name=decodeURIComponent(m[1]);\n"
    " document.querySelectorAll('table.sortable th').forEach(th=>{if(th.textContent===name)gpuestSort(th);});}\n"
    "</script>\n";

static const char style[] = "<style>\n"
                            "body{font-family:sans-serif;margin:2em;max-width:1400px}\n"
                            "table{border-collapse:collapse;font-size:13px}\n"
                            "th,td{border:1px solid #bbb;padding:2px 6px;text-align:right}\n"
                            "th{background:#eee;cursor:pointer;position:sticky;top:0}\n"
                            "td.t{text-align:left}\n"
                            "figure{margin:1em 0}\n"
                            "pre{background:#f6f6f6;padding:0.5em;overflow-x:auto;font-size:12px}\n"
                            ".note{color:#a40}\n"
                            "</style>\n";

/* ------------------------------------------------------------ figures */
/* Keeps the <svg ...>...</svg> element of gnuplot's file (drops the XML prolog). */
static gpuest_err inline_svg(const char *path, rbuf_t *html, gpuest_error_t *err)
{
    unsigned char *data = NULL;
    size_t size = 0;
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    const char *s = strstr((const char *)data, "<svg");
    if (!s) {
        free(data);
        return gpuest_fail(err, GPUEST_ECORRUPT, "%s: no <svg> element", path);
    }
    rbuf_puts(html, s);
    free(data);
    return GPUEST_OK;
}

typedef struct {
    const gpuest_rdb_t *db;
    const char *out_dir;
    rbuf_t *html;
    gpuest_report_info_t *info;
    int index;
    gpuest_error_t *err;
} fig_ctx;

/* Draws one figure into the page; a figure the data has nothing for is skipped. */
static gpuest_err add_figure(fig_ctx *x, const gpuest_figure_spec_t *spec)
{
    gpuest_error_t e;
    gpuest_figure_t fig;
    gpuest_err rc = gpuest_figure_build(x->db, spec, &fig, &e);
    if (rc == GPUEST_EINVAL) {
        x->info->skipped++;
        return GPUEST_OK;
    }
    if (rc != GPUEST_OK)
        return gpuest_fail(x->err, rc, "%s", e.msg);
    if (!x->info->have_gnuplot) {
        x->info->skipped++;
        rbuf_printf(x->html,
                    "<p class=\"note\">figure '%s' not drawn: gnuplot is not installed "
                    "(apt-get install gnuplot-nox)</p>\n",
                    gpuest_figure_names[spec->kind]);
        gpuest_figure_free(&fig);
        return GPUEST_OK;
    }
    char svg[4200];
    snprintf(svg, sizeof svg, "%s/.figure-%d.svg", x->out_dir, x->index++);
    rc = gpuest_figure_render(&fig, svg, NULL, &e);
    if (rc == GPUEST_OK) {
        rbuf_printf(x->html, "<figure class=\"figure\" data-figure=\"%s\">\n", gpuest_figure_names[spec->kind]);
        rc = inline_svg(svg, x->html, &e);
        rbuf_puts(x->html, "<figcaption>");
        rbuf_html(x->html, fig.title);
        rbuf_printf(x->html, " (%zu data rows). Drawn with: <code>gpuest plot DB --figure %s", fig.rows,
                    gpuest_figure_names[spec->kind]);
        if (spec->stat && spec->kind != GPUEST_FIG_IPC_BARS) {
            rbuf_puts(x->html, " --stat ");
            rbuf_html(x->html, spec->stat);
        }
        if (spec->key) {
            rbuf_puts(x->html, " --key ");
            rbuf_html(x->html, spec->key);
        }
        rbuf_puts(x->html, " --out FILE.svg</code></figcaption>\n</figure>\n");
        x->info->figures++;
    }
    unlink(svg);
    gpuest_figure_free(&fig);
    return rc == GPUEST_OK ? GPUEST_OK : gpuest_fail(x->err, rc, "%s", e.msg);
}

/* Swept keys (sorted, distinct) over all points. */
static size_t swept_keys(const gpuest_rdb_t *db, const char **keys, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < gpuest_rdb_num_points(db); i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        for (size_t k = 0; k < p->num_keys; k++) {
            size_t j = 0;
            while (j < n && strcmp(keys[j], p->keys[k].key) != 0)
                j++;
            if (j == n && n < cap)
                keys[n++] = p->keys[k].key;
        }
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful of keys */
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    return n;
}

/* Distinct statistics (sorted). */
static size_t stat_names(const gpuest_rdb_t *db, const char **stats, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < gpuest_rdb_num_points(db); i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        for (size_t k = 0; k < p->num_results; k++) {
            size_t j = 0;
            while (j < n && strcmp(stats[j], p->results[k].stat) != 0)
                j++;
            if (j == n && n < cap)
                stats[n++] = p->results[k].stat;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(stats[j - 1], stats[j]) > 0; j--) {
            const char *t = stats[j];
            stats[j] = stats[j - 1];
            stats[j - 1] = t;
        }
    return n;
}

#define REP_MAX_COLUMNS 64

/* The statistic drawn against a swept key: latency for a key of noc points, else IPC. */
static const char *key_stat(const gpuest_rdb_t *db, const char *key)
{
    for (size_t i = 0; i < gpuest_rdb_num_points(db); i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        for (size_t k = 0; k < p->num_keys; k++)
            if (strcmp(p->keys[k].key, key) == 0)
                return strcmp(p->mode, "noc") == 0 ? "latency" : "ipc";
    }
    return "ipc";
}
#define REP_MAX_KEY_FIGURES 4 /* choice: one figure per swept key, the first four (by name) */

static gpuest_err add_figures(fig_ctx *x)
{
    rbuf_puts(x->html, "<h2 id=\"figures\">Figures</h2>\n");
    gpuest_figure_spec_t s = {.kind = GPUEST_FIG_IPC_BARS};
    GPUEST_TRY(add_figure(x, &s));
    s = (gpuest_figure_spec_t){.kind = GPUEST_FIG_LATENCY_INJECTION};
    GPUEST_TRY(add_figure(x, &s));
    s = (gpuest_figure_spec_t){.kind = GPUEST_FIG_EST_VS_SIM, .stat = "ipc"};
    GPUEST_TRY(add_figure(x, &s));
    const char *keys[REP_MAX_COLUMNS];
    size_t nk = swept_keys(x->db, keys, REP_MAX_COLUMNS);
    for (size_t k = 0, drawn = 0; k < nk && drawn < REP_MAX_KEY_FIGURES; k++) {
        if (rep_is_rate_key(keys[k]))
            continue; /* drawn as latency-injection */
        s = (gpuest_figure_spec_t){.kind = GPUEST_FIG_STAT_VS_KEY, .stat = key_stat(x->db, keys[k]), .key = keys[k]};
        size_t before = x->info->figures;
        GPUEST_TRY(add_figure(x, &s));
        drawn += x->info->figures > before;
    }
    if (x->info->figures == 0)
        rbuf_puts(x->html, "<p class=\"note\">No figure: the database has no points these figures can show.</p>\n");
    return GPUEST_OK;
}

/* ------------------------------------------------------------ tables */
/* "point-ID", or "db<N>-point-ID" for a point of the N-th merged database (ids repeat across files). */
static void point_name(const gpuest_rdb_point_t *p, char *buf, size_t cap)
{
    if (p->source)
        snprintf(buf, cap, "point-%lld (db%d)", (long long)p->id, p->source);
    else
        snprintf(buf, cap, "point-%lld", (long long)p->id);
}

/* The file name a point's configuration is saved under. */
static void point_file(const gpuest_rdb_point_t *p, char *buf, size_t cap)
{
    if (p->source)
        snprintf(buf, cap, "db%d-point-%lld.ini", p->source, (long long)p->id);
    else
        snprintf(buf, cap, "point-%lld.ini", (long long)p->id);
}

static void cell_text(rbuf_t *h, const char *s)
{
    rbuf_puts(h, "<td class=\"t\">");
    rbuf_html(h, s);
    rbuf_puts(h, "</td>");
}

static void results_table(const gpuest_rdb_t *db, rbuf_t *h, gpuest_report_info_t *info)
{
    const char *keys[REP_MAX_COLUMNS], *stats[REP_MAX_COLUMNS];
    size_t nk = swept_keys(db, keys, REP_MAX_COLUMNS), ns = stat_names(db, stats, REP_MAX_COLUMNS);
    rbuf_puts(h, "<h2 id=\"points\">Points</h2>\n<p>Click a column header to sort. Intervals are shown as "
                 "[lo, hi]. The id links to the point's configuration and the command that reproduces it.</p>\n"
                 "<table class=\"sortable\" id=\"results\">\n<thead><tr><th>id</th><th>mode</th><th>preset</th>"
                 "<th>workload</th><th>scale</th><th>technique</th><th>seed</th>");
    for (size_t k = 0; k < nk; k++) {
        rbuf_puts(h, "<th>");
        rbuf_html(h, keys[k]);
        rbuf_puts(h, "</th>");
    }
    for (size_t s = 0; s < ns; s++) {
        rbuf_puts(h, "<th>");
        rbuf_html(h, stats[s]);
        rbuf_puts(h, "</th>");
    }
    rbuf_puts(h, "<th>status</th></tr></thead>\n<tbody>\n");
    char buf[64];
    for (size_t i = 0; i < gpuest_rdb_num_points(db); i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        char name[64];
        point_name(p, name, sizeof name);
        rbuf_printf(h, "<tr class=\"point\" data-id=\"%lld\"><td data-v=\"%lld\"><a href=\"#p%zu\">%s</a></td>",
                    (long long)p->id, (long long)(p->source * 1000000000LL + p->id), i, name + 6);
        cell_text(h, p->mode);
        cell_text(h, p->preset);
        cell_text(h, p->workload);
        cell_text(h, p->scale);
        cell_text(h, p->technique);
        rbuf_printf(h, "<td>%lld</td>", (long long)p->seed);
        for (size_t k = 0; k < nk; k++) {
            const char *v = gpuest_rdb_key_value(p, keys[k], buf, sizeof buf);
            rbuf_puts(h, "<td>");
            rbuf_html(h, v ? v : "");
            rbuf_puts(h, "</td>");
        }
        for (size_t s = 0; s < ns; s++) {
            const gpuest_rdb_result_t *r = gpuest_rdb_result(p, stats[s]);
            if (!r) {
                rbuf_puts(h, "<td></td>");
                continue;
            }
            char v[32], lo[32], hi[32];
            rep_fmt(v, sizeof v, r->value);
            rbuf_printf(h, "<td data-v=\"%s\">", v);
            snprintf(v, sizeof v, "%.4g", r->value);
            rbuf_puts(h, v);
            if (r->has_interval) {
                snprintf(lo, sizeof lo, "%.4g", r->lo);
                snprintf(hi, sizeof hi, "%.4g", r->hi);
                rbuf_printf(h, " [%s, %s]", lo, hi);
            }
            rbuf_puts(h, "</td>");
        }
        cell_text(h, p->status[0] ? p->status : "no run");
        rbuf_puts(h, "</tr>\n");
        info->rows++;
    }
    rbuf_puts(h, "</tbody>\n</table>\n");
}

/* The lines of one section ("section." prefix) as INI. */
static void section_as_ini(const char *config, const char *only, int skip, rbuf_t *h, int *first)
{
    char section[64] = "";
    for (const char *line = config; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *dot = memchr(line, '.', len), *eq = memchr(line, '=', len);
        size_t sl = dot ? (size_t)(dot - line) : 0;
        int is_only = dot && strlen(only) == sl && strncmp(line, only, sl) == 0;
        if (dot && eq && dot < eq && is_only != skip) {
            if (strlen(section) != sl || strncmp(section, line, sl) != 0) {
                rbuf_puts(h, *first ? "[" : "\n[");
                *first = 0;
                snprintf(section, sizeof section, "%.*s", (int)sl, line);
                rbuf_html(h, section);
                rbuf_puts(h, "]\n");
            }
            char kv[1024];
            snprintf(kv, sizeof kv, "%.*s = %.*s\n", (int)(eq - dot - 1), dot + 1, (int)(line + len - eq - 1), eq + 1);
            rbuf_html(h, kv);
        }
        line += len + (nl ? 1 : 0);
    }
}

/* The point's sorted "section.key=value" lines as an INI file that `--config` loads:
 * the [preset] section first (the loader wants it before any other key), then the rest. */
static void config_as_ini(const gpuest_rdb_point_t *p, rbuf_t *h)
{
    int first = 1;
    section_as_ini(p->config, "preset", 0, h, &first);
    section_as_ini(p->config, "preset", 1, h, &first);
}

/* The command that reruns one point with its saved configuration. */
static void reproduce_command(const gpuest_rdb_point_t *p, rbuf_t *h)
{
    rbuf_t c = {0};
    char buf[64], file[64];
    point_file(p, file, sizeof file);
    if (strcmp(p->mode, "noc") == 0) {
        rbuf_printf(&c, "gpuest noc --config %s", file);
        if (p->workload[0])
            rbuf_printf(&c, " --traffic %s", p->workload);
        for (size_t k = 0; k < p->num_keys; k++) {
            const char *v = gpuest_rdb_key_value(p, p->keys[k].key, buf, sizeof buf);
            if (rep_is_rate_key(p->keys[k].key))
                rbuf_printf(&c, " --rate %s", v);
            else if (strcmp(p->keys[k].key, "traffic.packet_flits") == 0)
                rbuf_printf(&c, " --packet-flits %s", v);
        }
        rbuf_printf(&c, " --seed %lld", (long long)p->seed);
    } else {
        rbuf_printf(&c, "gpuest %s --config %s --workload %s --scale %s --seed %lld", p->mode, file, p->workload,
                    p->scale, (long long)p->seed);
    }
    rbuf_html(h, c.s ? c.s : "");
    rbuf_free(&c);
}

static void point_details(const gpuest_rdb_t *db, rbuf_t *h)
{
    rbuf_puts(h, "<h2 id=\"configurations\">Configurations</h2>\n<p>Each point: save the configuration as "
                 "<code>point-ID.ini</code> and run the command under it.</p>\n");
    for (size_t i = 0; i < gpuest_rdb_num_points(db); i++) {
        const gpuest_rdb_point_t *p = gpuest_rdb_point(db, i);
        char name[64], file[64];
        point_name(p, name, sizeof name);
        point_file(p, file, sizeof file);
        rbuf_printf(h, "<details class=\"config\" id=\"p%zu\"><summary>%s: ", i, name);
        rbuf_html(h, p->mode);
        rbuf_puts(h, " ");
        rbuf_html(h, p->workload);
        rbuf_puts(h, " ");
        rbuf_html(h, p->technique);
        rbuf_printf(h, " seed %lld (hash ", (long long)p->seed);
        rbuf_html(h, p->hash);
        rbuf_puts(h, ")</summary>\n<p>gpuest ");
        rbuf_html(h, p->version);
        if (p->host[0]) {
            rbuf_puts(h, ", run on ");
            rbuf_html(h, p->host);
            rbuf_puts(h, " from ");
            rbuf_html(h, p->start);
            rbuf_puts(h, " to ");
            rbuf_html(h, p->end);
        }
        if (p->error[0]) {
            rbuf_puts(h, ", error: ");
            rbuf_html(h, p->error);
        }
        rbuf_puts(h, "</p>\n<pre class=\"reproduce\">");
        reproduce_command(p, h);
        rbuf_printf(h, "</pre>\n<pre class=\"ini\">; %s\n", file);
        config_as_ini(p, h);
        rbuf_puts(h, "</pre>\n</details>\n");
    }
}

static void header(const gpuest_rdb_t *db, const char *const *db_paths, rbuf_t *h)
{
    const char *db_path = db_paths[0];
    rbuf_puts(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gpuest report: ");
    rbuf_html(h, db_path);
    rbuf_printf(h, "</title>\n%s</head>\n<body>\n<h1>gpuest sweep report</h1>\n<p>Database <code>", style);
    rbuf_html(h, db_path);
    rbuf_puts(h, "</code>");
    for (int i = 1; db_paths[i]; i++) {
        rbuf_printf(h, " with db%d <code>", i);
        rbuf_html(h, db_paths[i]);
        rbuf_puts(h, "</code>");
    }
    rbuf_printf(h, ": %zu points", gpuest_rdb_num_points(db));
    static const char *const meta[][2] = {
        {"version", "gpuest version"}, {"created", "created"}, {"spec_hash", "spec hash"}};
    for (int i = 0; i < 3; i++) {
        const char *v = gpuest_rdb_meta(db, meta[i][0]);
        if (v) {
            rbuf_printf(h, ", %s ", meta[i][1]);
            rbuf_html(h, v);
        }
    }
    rbuf_puts(h, ".</p>\n<p><a href=\"#figures\">Figures</a> &middot; <a href=\"#points\">Points</a> &middot; "
                 "<a href=\"#configurations\">Configurations</a> &middot; <a href=\"#reproduce\">Reproduce</a></p>\n");
}

static void reproduce_sweep(const gpuest_rdb_t *db, const char *const *db_paths, rbuf_t *h)
{
    const char *db_path = db_paths[0];
    rbuf_puts(h, "<h2 id=\"reproduce\">Reproduce</h2>\n");
    const char *spec = gpuest_rdb_meta(db, "spec");
    if (spec) {
        rbuf_puts(h, "<p>The whole sweep: save the specification below as <code>spec.ini</code> and run</p>\n"
                     "<pre class=\"reproduce\">gpuest sweep spec.ini --db ");
        rbuf_html(h, db_path);
        rbuf_puts(h, "\ngpuest report ");
        rbuf_html(h, db_path);
        rbuf_puts(h, " --out DIR</pre>\n");
        if (db_paths[1])
            rbuf_puts(h, "<p>The points marked db1, db2, ... come from the other databases named above; each "
                         "holds its own specification (meta 'spec').</p>\n");
        rbuf_puts(h, "<pre class=\"spec\">");
        rbuf_html(h, spec);
        rbuf_puts(h, "</pre>\n");
    } else {
        rbuf_puts(h, "<p>The database holds no sweep specification (meta 'spec'); each point's command is "
                     "given with its configuration.</p>\n");
    }
}

static gpuest_err write_page(const char *out_dir, const char *text, gpuest_error_t *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", out_dir);
    gpuest_outfile_t f;
    GPUEST_TRY(gpuest_outfile_open(&f, path, 0, err));
    size_t n = strlen(text);
    if (fwrite(text, 1, n, f.fp) != n) {
        gpuest_outfile_abort(&f);
        return gpuest_fail(err, GPUEST_EIO, "%s: write failed", path);
    }
    return gpuest_outfile_commit(&f, err);
}

gpuest_err gpuest_report_write(const gpuest_rdb_t *db, const char *const *db_paths, const char *out_dir,
                               gpuest_report_info_t *info, gpuest_error_t *err)
{
    memset(info, 0, sizeof *info);
    info->have_gnuplot = gpuest_gnuplot_available();
    if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot create: %s", out_dir, strerror(errno));
    rbuf_t h = {0};
    header(db, db_paths, &h);
    fig_ctx x = {.db = db, .out_dir = out_dir, .html = &h, .info = info, .err = err};
    gpuest_err rc = add_figures(&x);
    if (rc == GPUEST_OK) {
        results_table(db, &h, info);
        point_details(db, &h);
        reproduce_sweep(db, db_paths, &h);
        rbuf_puts(&h, sort_script);
        rbuf_puts(&h, "</body>\n</html>\n");
        rc = h.oom ? gpuest_fail(err, GPUEST_ENOMEM, "out of memory") : write_page(out_dir, h.s, err);
    }
    rbuf_free(&h);
    return rc;
}
