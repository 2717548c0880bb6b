/* trace_csv.c: the native CSV trace format (alloc / kernel / inst records) and its raw memory-image file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

/* Instruction kinds as written in the 'kind' field. */
static const char *const kind_names[] = {"load", "store", "atomic", "alu", "sfu", "shmem", "const", "branch", "barrier"};

static const char *inst_kind_name(const gpuest_inst_t *in)
{
    if (in->kind == GPUEST_INST_MEM)
        return kind_names[in->op];
    if (in->kind == GPUEST_INST_BARRIER)
        return "barrier";
    return kind_names[3 + in->lat];
}

static int inst_kind_parse(const char *s, gpuest_inst_t *in)
{
    for (int i = 0; i < 9; i++) {
        if (strcmp(s, kind_names[i]) != 0)
            continue;
        in->kind = i < 3 ? GPUEST_INST_MEM : i == 8 ? GPUEST_INST_BARRIER : GPUEST_INST_COMPUTE;
        in->op = i < 3 ? (gpuest_mem_op_t)i : GPUEST_MEM_LOAD;
        in->lat = i >= 3 && i < 8 ? (gpuest_lat_class_t)(i - 3) : GPUEST_LAT_ALU;
        return 1;
    }
    return 0;
}

typedef struct {
    const char *path;
    tr_trace_t *t;
    gpuest_memimg_t *img;
    int header_seen;
    int version; /* 1: no register columns; 2: dst and src columns */
} csv_ctx_t;

static gpuest_err bad(const csv_ctx_t *c, size_t line, gpuest_error_t *err, const char *field, const char *expect,
                      const char *got)
{
    return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: field '%s': expected %s, got '%s'", c->path, line, field, expect,
                       got ? got : "");
}

/* Prefixes an error from a lower layer with path:line. */
static gpuest_err rewrap(const csv_ctx_t *c, size_t line, gpuest_err rc, gpuest_error_t *err)
{
    char msg[GPUEST_ERROR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
    return gpuest_fail(err, rc, "%s:%zu: %s", c->path, line, msg);
}

static int dec_u32(const char *s, uint32_t max, uint32_t *out)
{
    uint64_t v;
    if (gpuest_parse_u64(s, &v) != GPUEST_OK || v > max)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

/* Size field: 1..16 (power of two) for memory instructions and addressed
 * constant reads, 0 for the rest (and constant reads without address). */
static int size_ok_for(const char *field, int mem, int is_const, uint32_t *size)
{
    if (!dec_u32(field, 16, size))
        return 0;
    int pow2 = *size == 1 || *size == 2 || *size == 4 || *size == 8 || *size == 16;
    return mem ? pow2 : is_const ? (*size == 0 || pow2) : *size == 0;
}

static gpuest_err on_alloc(csv_ctx_t *c, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    uint64_t base, size;
    gpuest_dtype_t type;
    uint32_t bits;
    if (n != 6)
        return bad(c, line, err, "record", "alloc,name,base,size,type,approx_bits (6 fields)", f[0]);
    if (!f[1][0])
        return bad(c, line, err, "name", "a non-empty name", f[1]);
    if (!tr_parse_hex(f[2], &base))
        return bad(c, line, err, "base", "a hex address", f[2]);
    if (gpuest_parse_u64(f[3], &size) != GPUEST_OK || size == 0)
        return bad(c, line, err, "size", "a positive byte count", f[3]);
    if (gpuest_dtype_parse(f[4], &type) != GPUEST_OK)
        return bad(c, line, err, "type", "int32, uint32, fp32, fp64 or bytes", f[4]);
    if (!dec_u32(f[5], 52, &bits))
        return bad(c, line, err, "approx_bits", "an integer 0..52", f[5]);
    gpuest_alloc_t *a;
    gpuest_err rc = gpuest_memimg_alloc_at(c->img, f[1], type, base, size, &a, err);
    if (rc != GPUEST_OK)
        return rewrap(c, line, rc, err);
    gpuest_memimg_set_approx(a, (int)bits);
    return GPUEST_OK;
}

static gpuest_err on_kernel(csv_ctx_t *c, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    static const char *const names[] = {"launch", "name", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
                                        "block_z", "shmem", "regs"};
    if (n != 11)
        return bad(c, line, err, "record", "kernel,launch,name,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,regs",
                   f[0]);
    uint32_t v[11];
    for (size_t i = 2; i < 11; i++) {
        if (i == 2)
            continue;
        uint32_t max = i <= 5 ? 0x7fffffffu : i <= 8 ? 1024u : 0x7fffffffu;
        if (!dec_u32(f[i], max, &v[i]) || (i <= 8 && v[i] == 0))
            return bad(c, line, err, names[i - 1], i <= 8 ? "a positive size" : "a non-negative integer", f[i]);
    }
    if (!dec_u32(f[1], 0x7fffffffu, &v[1]) || v[1] != c->t->nk)
        return bad(c, line, err, "launch", "the next launch number (launches are numbered 0, 1, ... in order)", f[1]);
    if (v[6] * v[7] * v[8] > 1024)
        return bad(c, line, err, "block_x", "at most 1024 threads per block", f[6]);
    gpuest_launch_t l;
    memset(&l, 0, sizeof l);
    strncpy(l.name, f[2], sizeof l.name - 1);
    l.grid[0] = v[3], l.grid[1] = v[4], l.grid[2] = v[5];
    l.block[0] = v[6], l.block[1] = v[7], l.block[2] = v[8];
    l.shmem_bytes = v[9];
    l.regs_per_thread = v[10];
    tr_kernel_t *k;
    gpuest_err rc = tr_add_kernel(c->t, &l, &k, err);
    if (rc != GPUEST_OK)
        return rewrap(c, line, rc, err);
    return GPUEST_OK;
}

/* A space-separated list of at most max register numbers 0..255. */
static int parse_regs(const char *s, int max, uint8_t *regs, uint8_t *n)
{
    *n = 0;
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        uint32_t r;
        if (*n == max || !dec_u32(tok, GPUEST_REG_COUNT - 1, &r))
            return 0;
        regs[(*n)++] = (uint8_t)r;
    }
    return 1;
}

/* Lane addresses (or constant offsets) of in from a space-separated hex list. */
static gpuest_err parse_addrs(csv_ctx_t *c, size_t line, const char *field, gpuest_inst_t *in, gpuest_error_t *err)
{
    char *copy = strdup(field), *save = NULL;
    if (!copy)
        return gpuest_fail(err, GPUEST_ENOMEM, "%s:%zu: out of memory", c->path, line);
    char *tok = strtok_r(copy, " ", &save);
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++) {
        if (!(in->active_mask >> lane & 1))
            continue;
        if (!tok || !tr_parse_hex(tok, &in->addr[lane])) {
            free(copy);
            return bad(c, line, err, "addresses", "one hex address per active lane, space separated", field);
        }
        tok = strtok_r(NULL, " ", &save);
    }
    int extra = tok != NULL;
    free(copy);
    if (extra)
        return bad(c, line, err, "addresses", "no more addresses than active lanes", field);
    return GPUEST_OK;
}

static gpuest_err on_inst(csv_ctx_t *c, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    if (c->version == 1 && n != 9)
        return bad(c, line, err, "record", "inst,launch,cta,warp,pc,kind,size,mask,addresses (9 fields)", f[0]);
    if (c->version == 2 && n != 11)
        return bad(c, line, err, "record", "inst,launch,cta,warp,pc,kind,size,mask,addresses,dst,src (11 fields)",
                   f[0]);
    uint32_t launch, cta, warp, pc, size;
    uint64_t mask;
    if (!dec_u32(f[1], 0x7fffffffu, &launch) || launch >= c->t->nk)
        return bad(c, line, err, "launch", "the number of a kernel declared above", f[1]);
    tr_kernel_t *k = &c->t->k[launch];
    if (!dec_u32(f[2], k->l.num_ctas - 1, &cta))
        return bad(c, line, err, "cta", "a linear CTA index inside the grid", f[2]);
    if (!dec_u32(f[3], k->l.warps_per_cta - 1, &warp))
        return bad(c, line, err, "warp", "a warp index inside the block", f[3]);
    if (!dec_u32(f[4], 0xffffffffu, &pc))
        return bad(c, line, err, "pc", "a non-negative integer", f[4]);
    gpuest_inst_t in;
    memset(&in, 0, sizeof in);
    if (!inst_kind_parse(f[5], &in))
        return bad(c, line, err, "kind", "load, store, atomic, alu, sfu, shmem, const, branch or barrier", f[5]);
    int is_const = in.kind == GPUEST_INST_COMPUTE && in.lat == GPUEST_LAT_CONST;
    int sized = size_ok_for(f[6], in.kind == GPUEST_INST_MEM, is_const, &size);
    if (!sized)
        return bad(c, line, err, "size", in.kind == GPUEST_INST_MEM ? "1, 2, 4, 8 or 16"
                                         : is_const                 ? "0 (no address) or 1, 2, 4, 8, 16"
                                                                    : "0",
                   f[6]);
    if (!tr_parse_hex(f[7], &mask) || mask > 0xffffffffu)
        return bad(c, line, err, "mask", "a 32-bit hex mask", f[7]);
    in.pc = pc;
    in.size = size;
    in.active_mask = (uint32_t)mask;
    if (gpuest_inst_has_addr(&in)) {
        GPUEST_TRY(parse_addrs(c, line, f[8], &in, err));
    } else if (f[8][0]) {
        return bad(c, line, err, "addresses", "nothing for an instruction without addresses", f[8]);
    }
    if (c->version == 2) {
        if (!parse_regs(f[9], GPUEST_INST_MAX_DST, in.dst, &in.ndst))
            return bad(c, line, err, "dst", "at most 2 register numbers 0..255, space separated", f[9]);
        if (!parse_regs(f[10], GPUEST_INST_MAX_SRC, in.src, &in.nsrc))
            return bad(c, line, err, "src", "at most 4 register numbers 0..255, space separated", f[10]);
    }
    gpuest_err rc = tr_add_inst(c->t, k, cta, warp, &in, err);
    return rc;
}

static gpuest_err on_row(void *ctx, size_t line, const char *const *f, size_t n, gpuest_error_t *err)
{
    csv_ctx_t *c = ctx;
    if (!c->header_seen) {
        if (n != 2 || strcmp(f[0], "gpuest_trace") != 0 || (strcmp(f[1], "1") != 0 && strcmp(f[1], "2") != 0))
            return bad(c, line, err, "header", "gpuest_trace,2 (or gpuest_trace,1: no register columns)", f[0]);
        c->version = f[1][0] - '0';
        c->header_seen = 1;
        return GPUEST_OK;
    }
    if (n == 1 && f[0][0] == '\0')
        return GPUEST_OK;   /* blank line */
    if (strcmp(f[0], "alloc") == 0)
        return on_alloc(c, line, f, n, err);
    if (strcmp(f[0], "kernel") == 0)
        return on_kernel(c, line, f, n, err);
    if (strcmp(f[0], "inst") == 0)
        return on_inst(c, line, f, n, err);
    return bad(c, line, err, "record", "alloc, kernel or inst", f[0]);
}

static gpuest_err load_image(gpuest_memimg_t *img, const char *path, gpuest_error_t *err)
{
    unsigned char *data;
    size_t size;
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    uint64_t need = 0;
    for (size_t i = 0; i < gpuest_memimg_count(img); i++)
        need += gpuest_memimg_get(img, i)->size;
    if (size != need) {
        free(data);
        return gpuest_fail(err, GPUEST_EPARSE, "%s: image holds %zu bytes, the trace's allocations need %llu", path,
                           size, (unsigned long long)need);
    }
    size_t off = 0;
    for (size_t i = 0; i < gpuest_memimg_count(img); i++) {
        gpuest_alloc_t *a = gpuest_memimg_get(img, i);
        memcpy(a->data, data + off, (size_t)a->size);
        off += (size_t)a->size;
    }
    free(data);
    return GPUEST_OK;
}

gpuest_err gpuest_workload_open_csv(const char *path, const char *image_path, gpuest_workload_t **out,
                                    gpuest_error_t *err)
{
    csv_ctx_t c = {path, tr_new(), NULL, 0, 0};
    gpuest_err rc = c.t ? gpuest_memimg_create(&c.img, err) : gpuest_fail(err, GPUEST_ENOMEM, "trace: out of memory");
    if (rc == GPUEST_OK)
        rc = gpuest_csv_read(path, on_row, &c, err);
    if (rc == GPUEST_OK && !c.header_seen)
        rc = gpuest_fail(err, GPUEST_EPARSE, "%s:1: field 'header': expected gpuest_trace,2, got an empty file", path);
    if (rc == GPUEST_OK && c.t->nk == 0)
        rc = gpuest_fail(err, GPUEST_EPARSE, "%s: no kernel record", path);
    if (rc == GPUEST_OK && image_path)
        rc = load_image(c.img, image_path, err);
    if (rc != GPUEST_OK) {
        tr_free(c.t);
        gpuest_memimg_destroy(c.img);
        return rc;
    }
    gpuest_memimg_set_has_values(c.img, image_path != NULL);
    const char *slash = strrchr(path, '/');
    rc = wl_create_from_ops(slash ? slash + 1 : path, NULL, &gpuest_trace_ops, c.img, c.t, out, err);
    if (rc == GPUEST_OK && !image_path)
        wl_set_warning(*out, "no memory-image file: every line reads as zero, so compression figures are "
                             "meaningless");
    return rc;
}

/* ------------------------------------------------------------ writer */

static gpuest_err write_row(gpuest_csv_writer_t *w, const char *const *f, size_t n, gpuest_error_t *err)
{
    /* Records have different lengths: the writer's column count follows each row. */
    w->columns = n;
    return gpuest_csv_write_row(w, f, err);
}

/* Writes the image into f (opened, not committed: the caller commits it with the trace). */
static gpuest_err write_image(gpuest_memimg_t *img, gpuest_outfile_t *f, const char *path, gpuest_error_t *err)
{
    GPUEST_TRY(gpuest_outfile_open(f, path, 1, err));
    for (size_t i = 0; i < gpuest_memimg_count(img); i++) {
        const gpuest_alloc_t *a = gpuest_memimg_get(img, i);
        if (fwrite(a->data, 1, (size_t)a->size, f->fp) != a->size) {
            gpuest_outfile_abort(f);
            return gpuest_fail(err, GPUEST_EIO, "%s: write failed", path);
        }
    }
    return GPUEST_OK;
}

static void write_regs(char out[32], const uint8_t *regs, int n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < n; k++)
        used += (size_t)snprintf(out + used, 32 - used, "%s%u", k ? " " : "", regs[k]);
}

static gpuest_err write_launch(gpuest_workload_t *wl, gpuest_csv_writer_t *w, const gpuest_launch_t *l,
                               gpuest_error_t *err)
{
    char c[11][32];
    const char *f[11];
    snprintf(c[0], 32, "kernel");
    snprintf(c[1], 32, "%u", l->index);
    snprintf(c[3], 32, "%u", l->grid[0]);
    snprintf(c[4], 32, "%u", l->grid[1]);
    snprintf(c[5], 32, "%u", l->grid[2]);
    snprintf(c[6], 32, "%u", l->block[0]);
    snprintf(c[7], 32, "%u", l->block[1]);
    snprintf(c[8], 32, "%u", l->block[2]);
    snprintf(c[9], 32, "%u", l->shmem_bytes);
    snprintf(c[10], 32, "%u", l->regs_per_thread);
    for (int i = 0; i < 11; i++)
        f[i] = c[i];
    f[2] = l->name;
    GPUEST_TRY(write_row(w, f, 11, err));
    char addrs[GPUEST_WARP_SIZE * 19 + 1];
    for (uint32_t cta = 0; cta < l->num_ctas; cta++)
        for (uint32_t wi = 0; wi < l->warps_per_cta; wi++) {
            gpuest_warp_t *warp;
            GPUEST_TRY(gpuest_warp_open(wl, cta, wi, &warp, err));
            gpuest_inst_t in;
            gpuest_err rc;
            while ((rc = gpuest_warp_next(warp, &in, err)) == GPUEST_OK && in.kind != GPUEST_INST_END) {
                snprintf(c[0], 32, "inst");
                snprintf(c[2], 32, "%u", cta);
                snprintf(c[3], 32, "%u", wi);
                snprintf(c[4], 32, "%u", in.pc);
                snprintf(c[5], 32, "%s", inst_kind_name(&in));
                int has_addr = gpuest_inst_has_addr(&in);
                snprintf(c[6], 32, "%u", has_addr ? in.size : 0);
                snprintf(c[7], 32, "%08x", in.active_mask);
                size_t used = 0;
                addrs[0] = '\0';
                for (int lane = 0; has_addr && lane < GPUEST_WARP_SIZE; lane++)
                    if (in.active_mask >> lane & 1)
                        used += (size_t)snprintf(addrs + used, sizeof addrs - used, "%s0x%llx", used ? " " : "",
                                                 (unsigned long long)in.addr[lane]);
                write_regs(c[8], in.dst, in.ndst);
                write_regs(c[9], in.src, in.nsrc);
                for (int i = 0; i < 8; i++)
                    f[i] = c[i];
                f[8] = addrs;
                f[9] = c[8];
                f[10] = c[9];
                rc = write_row(w, f, 11, err);
                if (rc != GPUEST_OK)
                    break;
            }
            gpuest_warp_close(warp);
            GPUEST_TRY(rc);
        }
    return GPUEST_OK;
}

gpuest_err gpuest_workload_write_csv(gpuest_workload_t *wl, const char *path, const char *image_path,
                                     gpuest_error_t *err)
{
    gpuest_memimg_t *img = gpuest_workload_image(wl);
    /* The image as it is before the first launch. Both files are committed only once both are
     * complete, so a failing export leaves neither behind. */
    gpuest_outfile_t image = {0};
    if (image_path)
        GPUEST_TRY(write_image(img, &image, image_path, err));
    gpuest_csv_writer_t w;
    const char *hdr[2] = {"gpuest_trace", "2"};
    gpuest_err opened = gpuest_csv_writer_open(&w, path, hdr, 2, err);
    if (opened != GPUEST_OK) {
        if (image_path)
            gpuest_outfile_abort(&image);
        return opened;
    }
    gpuest_err rc = GPUEST_OK;
    for (size_t i = 0; rc == GPUEST_OK && i < gpuest_memimg_count(img); i++) {
        const gpuest_alloc_t *a = gpuest_memimg_get(img, i);
        char base[32], size[32], bits[16];
        snprintf(base, sizeof base, "0x%llx", (unsigned long long)a->base);
        snprintf(size, sizeof size, "%llu", (unsigned long long)a->size);
        snprintf(bits, sizeof bits, "%d", a->approx_bits);
        const char *f[6] = {"alloc", a->name, base, size, gpuest_dtype_name(a->type), bits};
        rc = write_row(&w, f, 6, err);
    }
    while (rc == GPUEST_OK) {
        gpuest_launch_t l;
        int done = 0;
        rc = gpuest_workload_next_launch(wl, &l, &done, err);
        if (rc != GPUEST_OK || done)
            break;
        rc = write_launch(wl, &w, &l, err);
        if (rc == GPUEST_OK)
            rc = gpuest_workload_end_launch(wl, err);
    }
    if (rc != GPUEST_OK) {
        gpuest_csv_writer_abort(&w);
        if (image_path)
            gpuest_outfile_abort(&image);
        return rc;
    }
    rc = gpuest_csv_writer_commit(&w, err);
    if (image_path) {
        if (rc == GPUEST_OK)
            rc = gpuest_outfile_commit(&image, err);
        else
            gpuest_outfile_abort(&image);
    }
    return rc;
}
