/* import.c: gpuest_import_gpgpusim: reads the files, maps them, lists what is ignored, writes INI. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

/* "file:line -option", or "file (default)" for a value the file leaves to GPGPU-Sim's default (line 0). */
static void format_from(char *buf, size_t cap, const char *origin, int line, const char *option)
{
    if (line > 0)
        snprintf(buf, cap, "%s:%d %s", origin, line, option);
    else
        snprintf(buf, cap, "%s %s", origin, option);
}

gpuest_err imp_set(gpuest_import_t *imp, const char *section, const char *key, const char *value, const char *origin,
                   int line, const char *option, gpuest_error_t *err)
{
    GPUEST_TRY(gpuest_config_set_key(&imp->cfg, section, key, value, origin, line, err));
    char full[64];
    snprintf(full, sizeof full, "%s.%s", section, key);
    for (size_t i = 0; i < imp->num_mapped; i++) /* a key set twice keeps its last origin */
        if (strcmp(imp->mapped[i].key, full) == 0) {
            snprintf(imp->mapped[i].value, sizeof imp->mapped[i].value, "%s", value);
            format_from(imp->mapped[i].from, sizeof imp->mapped[i].from, origin, line, option);
            return GPUEST_OK;
        }
    if (imp->num_mapped == imp->cap_mapped) {
        size_t cap = imp->cap_mapped ? 2 * imp->cap_mapped : 64;
        gpuest_import_mapped_t *v = realloc(imp->mapped, cap * sizeof *v);
        if (!v)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
        imp->mapped = v;
        imp->cap_mapped = cap;
    }
    gpuest_import_mapped_t *e = &imp->mapped[imp->num_mapped++];
    snprintf(e->key, sizeof e->key, "%s", full);
    snprintf(e->value, sizeof e->value, "%s", value);
    format_from(e->from, sizeof e->from, origin, line, option);
    return GPUEST_OK;
}

gpuest_err imp_set_int(gpuest_import_t *imp, const char *section, const char *key, long value, const char *origin,
                       int line, const char *option, gpuest_error_t *err)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", value);
    return imp_set(imp, section, key, buf, origin, line, option, err);
}

gpuest_err imp_ignore(gpuest_import_t *imp, const char *option, const char *origin, int line, const char *why)
{
    if (imp->num_ignored == imp->cap_ignored) {
        size_t cap = imp->cap_ignored ? 2 * imp->cap_ignored : 64;
        gpuest_import_ignored_t *v = realloc(imp->ignored, cap * sizeof *v);
        if (!v)
            return GPUEST_ENOMEM;
        imp->ignored = v;
        imp->cap_ignored = cap;
    }
    gpuest_import_ignored_t *e = &imp->ignored[imp->num_ignored++];
    snprintf(e->option, sizeof e->option, "%s", option);
    snprintf(e->from, sizeof e->from, "%s:%d", origin, line);
    snprintf(e->why, sizeof e->why, "%s", why ? why : "");
    return GPUEST_OK;
}

/* Why a GPGPU-Sim option that nothing consumed is not modelled, by name prefix. */
static const char *ignored_reason(const char *name)
{
    static const struct {
        const char *prefix, *why;
    } table[] = {
        {"ptx_opcode_initiation", "initiation intervals: gpuest's functional units are fully pipelined"},
        {"ptx", "PTX functional simulation: gpuest runs its own kernels and traces"},
        {"gpgpu_ptx", "PTX functional simulation: gpuest runs its own kernels and traces"},
        {"power", "power model"},
        {"gpuwattch", "power model"},
        {"visualizer", "statistics output"},
        {"gpgpu_memlatency_stat", "statistics output"},
        {"gpgpu_runtime_stat", "statistics output"},
        {"enable_ptx_file_line_stats", "statistics output"},
        {"trace", "tracing output"},
        {"gpgpu_operand_collector", "operand collector: gpuest's SM issues without register-file conflicts"},
        {"gpgpu_num_reg_banks", "operand collector: gpuest's SM issues without register-file conflicts"},
        {"gpgpu_pipeline_widths", "pipeline widths: gpuest issues one instruction per scheduler per cycle"},
        {"gpgpu_num_sp_units", "functional units: gpuest uses one latency per instruction class"},
        {"gpgpu_num_sfu_units", "functional units: gpuest uses one latency per instruction class"},
        {"gpgpu_shmem", "shared-memory banks: gpuest uses one shared-memory latency"},
        {"gpgpu_tex_cache", "texture cache: gpuest's kernels do not read textures"},
        {"gpgpu_dram_return_queue_size", "DRAM return queue: gpuest bounds the MC by dram.queue_size"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strncmp(name, table[i].prefix, strlen(table[i].prefix)) == 0)
            return table[i].why;
    return NULL;
}

static gpuest_err list_unused(gpuest_import_t *imp, const imp_options_t *o, const char *origin, const char *dash,
                              gpuest_error_t *err)
{
    for (size_t i = 0; i < o->n; i++) {
        if (o->v[i].used)
            continue;
        char option[96];
        snprintf(option, sizeof option, "%s%s", dash, o->v[i].name);
        if (imp_ignore(imp, option, origin, o->v[i].line, *dash ? ignored_reason(o->v[i].name) : NULL) != GPUEST_OK)
            return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    return GPUEST_OK;
}

/* The interconnect file named by -inter_config_file, relative to the config's folder. */
static void icnt_beside(const char *config_path, const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(config_path, '/');
    if (name[0] == '/' || !slash)
        snprintf(out, cap, "%s", name);
    else
        snprintf(out, cap, "%.*s/%s", (int)(slash - config_path), config_path, name);
}

/* -network_mode 2 (GPGPU-Sim 4 / Accel-Sim local crossbar): -icnt_flit_size, -icnt_subnets. */
static gpuest_err map_local_xbar(gpuest_import_t *imp, imp_options_t *o, const char *origin, gpuest_error_t *err)
{
    imp_option_t *mode = imp_options_find(o, "network_mode");
    GPUEST_TRY(imp_set(imp, "noc", "topology", "crossbar", origin, mode->line, "-network_mode 2", err));
    GPUEST_TRY(imp_set(imp, "noc", "k", "0", origin, mode->line, "-network_mode 2", err));
    imp_option_t *f = imp_options_find(o, "icnt_flit_size"), *s = imp_options_find(o, "icnt_subnets");
    if (f) {
        f->used = 1;
        GPUEST_TRY(imp_set(imp, "noc", "flit_bytes", f->value, origin, f->line, "-icnt_flit_size", err));
    }
    if (s) {
        s->used = 1;
        if (strcmp(s->value, "1") != 0 && strcmp(s->value, "2") != 0)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%d: -icnt_subnets '%s': expected 1 or 2", origin, s->line,
                               s->value);
        GPUEST_TRY(imp_set(imp, "noc", "class_split", s->value[0] == '2' ? "physical" : "virtual", origin, s->line,
                           "-icnt_subnets", err));
    }
    return GPUEST_OK;
}

static gpuest_err import_icnt(gpuest_import_t *imp, imp_options_t *gopts, const char *config_path,
                              const char *icnt_path, gpuest_error_t *err)
{
    imp_option_t *mode = imp_options_find(gopts, "network_mode");
    imp_option_t *named = imp_options_find(gopts, "inter_config_file");
    if (mode)
        mode->used = 1;
    if (named)
        named->used = 1;
    if (mode && strcmp(mode->value, "2") == 0 && !icnt_path)
        return map_local_xbar(imp, gopts, config_path, err);
    if (mode && strcmp(mode->value, "1") != 0 && strcmp(mode->value, "2") != 0)
        return gpuest_fail(err, GPUEST_EUNSUPPORTED,
                           "%s:%d: -network_mode %s is not modelled (supported: 1 BookSim, 2 local crossbar)",
                           config_path, mode->line, mode->value);
    if (icnt_path)
        snprintf(imp->icnt_path, sizeof imp->icnt_path, "%s", icnt_path);
    else if (named)
        icnt_beside(config_path, named->value, imp->icnt_path, sizeof imp->icnt_path);
    else
        return GPUEST_OK; /* no interconnect described: the base preset's stays */
    char *text = NULL;
    GPUEST_TRY(gpuest_read_config_text(imp->icnt_path, &text, err));
    imp_options_t io;
    gpuest_err rc = imp_booksim_parse(text, imp->icnt_path, &io, err);
    free(text);
    if (rc != GPUEST_OK)
        return rc;
    rc = imp_map_icnt(imp, &io, imp->icnt_path, err);
    if (rc == GPUEST_OK)
        rc = list_unused(imp, &io, imp->icnt_path, "", err);
    imp_options_free(&io);
    return rc;
}

static gpuest_err import_all(gpuest_import_t *imp, const char *config_path, const char *icnt_path, gpuest_error_t *err)
{
    char *text = NULL;
    GPUEST_TRY(gpuest_read_config_text(config_path, &text, err));
    imp_options_t gopts;
    gpuest_err rc = imp_gpgpusim_parse(text, config_path, &gopts, err);
    free(text);
    if (rc != GPUEST_OK)
        return rc;
    rc = imp_map_gpgpusim(imp, &gopts, config_path, err);
    if (rc == GPUEST_OK)
        rc = import_icnt(imp, &gopts, config_path, icnt_path, err);
    if (rc == GPUEST_OK)
        rc = list_unused(imp, &gopts, config_path, "-", err);
    imp_options_free(&gopts);
    if (rc == GPUEST_OK) {
        gpuest_error_t inner;
        gpuest_error_clear(&inner);
        if (gpuest_config_validate(&imp->cfg, &inner) != GPUEST_OK) /* blame the file imported */
            rc = gpuest_fail(err, inner.code, "%s: the imported machine is not valid: %s", config_path, inner.msg);
    }
    return rc;
}

gpuest_err gpuest_import_gpgpusim(const char *config_path, const char *icnt_path, const char *base_preset,
                                  gpuest_import_t **out, gpuest_error_t *err)
{
    *out = NULL;
    gpuest_import_t *imp = calloc(1, sizeof *imp);
    if (!imp)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    snprintf(imp->config_path, sizeof imp->config_path, "%s", config_path);
    gpuest_err rc = gpuest_config_preset(&imp->cfg, base_preset, err);
    if (rc == GPUEST_OK)
        rc = import_all(imp, config_path, icnt_path, err);
    if (rc != GPUEST_OK) {
        gpuest_import_free(imp);
        return rc;
    }
    *out = imp;
    return GPUEST_OK;
}

void gpuest_import_free(gpuest_import_t *imp)
{
    if (!imp)
        return;
    free(imp->mapped);
    free(imp->ignored);
    free(imp);
}

const gpuest_config_t *gpuest_import_config(const gpuest_import_t *imp)
{
    return &imp->cfg;
}
size_t gpuest_import_num_mapped(const gpuest_import_t *imp)
{
    return imp->num_mapped;
}
const gpuest_import_mapped_t *gpuest_import_mapped(const gpuest_import_t *imp, size_t i)
{
    return &imp->mapped[i];
}
size_t gpuest_import_num_ignored(const gpuest_import_t *imp)
{
    return imp->num_ignored;
}
const gpuest_import_ignored_t *gpuest_import_ignored(const gpuest_import_t *imp, size_t i)
{
    return &imp->ignored[i];
}
const char *gpuest_import_icnt_path(const gpuest_import_t *imp)
{
    return imp->icnt_path;
}

gpuest_err gpuest_import_write_ini(const gpuest_import_t *imp, FILE *out)
{
    fprintf(out, "; imported from GPGPU-Sim configuration %s", imp->config_path);
    if (imp->icnt_path[0])
        fprintf(out, " and interconnect %s", imp->icnt_path);
    fprintf(out, "\n; base preset %s fills what those files do not describe\n;\n; mapped keys:\n", imp->cfg.name);
    for (size_t i = 0; i < imp->num_mapped; i++)
        fprintf(out, ";   %-28s = %-10s <- %s\n", imp->mapped[i].key, imp->mapped[i].value, imp->mapped[i].from);
    fprintf(out, ";\n; ignored (not modelled by gpuest):\n");
    for (size_t i = 0; i < imp->num_ignored; i++)
        fprintf(out, ";   %s (%s)%s%s\n", imp->ignored[i].option, imp->ignored[i].from,
                imp->ignored[i].why[0] ? ": " : "", imp->ignored[i].why);
    fprintf(out, ";\n");
    return gpuest_config_write_ini(&imp->cfg, out);
}
