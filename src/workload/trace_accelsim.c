/* trace_accelsim.c: reader of Accel-Sim / NVBit traces (kernelslist.g + kernel-N.traceg, address modes 0/1/2). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>

#include "workload_int.h"

#define AS_MAX_TOKENS 160
/* Longest line accepted (an instruction line with 32 addresses is under 1 KiB): a longer one is
 * reported before it is buffered, so a damaged file cannot make the reader allocate without bound. */
#define AS_MAX_LINE 65536
/* Memory the xz decoder may use (xz -9 needs 65 MiB); a stream asking for more is rejected. */
#define AS_XZ_MEMLIMIT (UINT64_C(256) << 20)
#define AS_CHUNK 16384

/* A trace file read line by line, plain or xz-compressed (decoded in process with liblzma, so a
 * truncated or damaged .xz is an error, never a silently shorter trace). */
typedef struct {
    const char *path;
    size_t line;
    FILE *fp;
    int xz;               /* decoding through liblzma */
    lzma_stream zs;
    int in_eof, zs_end;
    unsigned char in[AS_CHUNK];   /* compressed input */
    unsigned char blk[AS_CHUNK];  /* decoded bytes not yet split into lines */
    size_t blk_pos, blk_len;
    char *buf;                    /* the current line */
    size_t cap;
    gpuest_err status;            /* a read or decode error ends the file early; as_getline returns NULL */
    gpuest_error_t *err;
} as_file_t;

static gpuest_err as_open(as_file_t **out, const char *path, gpuest_error_t *err)
{
    as_file_t *f = calloc(1, sizeof *f);
    if (!f)
        return gpuest_fail(err, GPUEST_ENOMEM, "%s: out of memory", path);
    f->path = path;
    f->err = err;
    size_t n = strlen(path);
    f->fp = fopen(path, "rb");
    if (!f->fp) {
        free(f);
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    if (n > 3 && strcmp(path + n - 3, ".xz") == 0) {
        lzma_stream init = LZMA_STREAM_INIT;
        f->zs = init;
        if (lzma_stream_decoder(&f->zs, AS_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
            fclose(f->fp);
            free(f);
            return gpuest_fail(err, GPUEST_ENOMEM, "%s: cannot start the xz decoder", path);
        }
        f->xz = 1;
    }
    *out = f;
    return GPUEST_OK;
}

static void as_close(as_file_t *f)
{
    if (!f)
        return;
    if (f->xz)
        lzma_end(&f->zs);
    fclose(f->fp);
    free(f->buf);
    free(f);
}

static const char *xz_problem(lzma_ret r)
{
    switch (r) {
    case LZMA_FORMAT_ERROR:
        return "not an xz file";
    case LZMA_MEMLIMIT_ERROR:
    case LZMA_MEM_ERROR:
        return "the stream needs more than the decoder's 256 MiB";
    case LZMA_OPTIONS_ERROR:
        return "unsupported xz options";
    case LZMA_BUF_ERROR:
        return "the compressed data ends early (truncated file)";
    default:
        return "the compressed data is corrupt";
    }
}

/* Refills f->blk; 0 at the end of the data or on an error (f->status set). */
static size_t as_fill(as_file_t *f)
{
    f->blk_pos = f->blk_len = 0;
    if (f->status != GPUEST_OK)
        return 0;
    if (!f->xz) {
        f->blk_len = fread(f->blk, 1, sizeof f->blk, f->fp);
        if (f->blk_len == 0 && ferror(f->fp))
            f->status = gpuest_fail(f->err, GPUEST_EIO, "%s:%zu: read error", f->path, f->line);
        return f->blk_len;
    }
    while (!f->zs_end) {
        if (f->zs.avail_in == 0 && !f->in_eof) {
            f->zs.next_in = f->in;
            f->zs.avail_in = fread(f->in, 1, sizeof f->in, f->fp);
            if (f->zs.avail_in == 0) {
                if (ferror(f->fp)) {
                    f->status = gpuest_fail(f->err, GPUEST_EIO, "%s:%zu: read error", f->path, f->line);
                    return 0;
                }
                f->in_eof = 1;
            }
        }
        f->zs.next_out = f->blk;
        f->zs.avail_out = sizeof f->blk;
        lzma_ret r = lzma_code(&f->zs, f->in_eof ? LZMA_FINISH : LZMA_RUN);
        f->blk_len = sizeof f->blk - f->zs.avail_out;
        if (r == LZMA_STREAM_END) {
            f->zs_end = 1;
        } else if (r != LZMA_OK) {
            f->status = gpuest_fail(f->err, GPUEST_ECORRUPT, "%s:%zu: xz: %s (while reading this line)", f->path,
                                    f->line + 1, xz_problem(r));
            return 0;
        }
        if (f->blk_len > 0)
            return f->blk_len;
    }
    return 0;
}

/* Next line without its newline and surrounding blanks; NULL at the end or on an error (then
 * f->status says which). */
static char *as_getline(as_file_t *f)
{
    size_t n = 0;
    int any = 0;
    for (;;) {
        if (f->blk_pos == f->blk_len && as_fill(f) == 0)
            break;
        any = 1;
        unsigned char *start = f->blk + f->blk_pos;
        size_t avail = f->blk_len - f->blk_pos;
        unsigned char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) + 1 : avail;
        if (n + take > AS_MAX_LINE) {
            f->status = gpuest_fail(f->err, GPUEST_ERANGE, "%s:%zu: line longer than the limit of %d bytes",
                                    f->path, f->line + 1, AS_MAX_LINE);
            return NULL;
        }
        if (n + take + 1 > f->cap) {
            size_t cap = f->cap ? f->cap : 256;
            while (cap < n + take + 1)
                cap *= 2;
            char *grown = realloc(f->buf, cap);
            if (!grown) {
                f->status = gpuest_fail(f->err, GPUEST_ENOMEM, "%s:%zu: out of memory", f->path, f->line + 1);
                return NULL;
            }
            f->buf = grown;
            f->cap = cap;
        }
        memcpy(f->buf + n, start, take);
        n += take;
        f->blk_pos += take;
        if (nl)
            break;
    }
    if (f->status != GPUEST_OK || !any || n == 0)
        return NULL;
    f->buf[n] = '\0';
    f->line++;
    char *s = f->buf;
    if (strlen(s) != n) { /* the line's text would end there silently */
        f->status = gpuest_fail(f->err, GPUEST_EPARSE, "%s:%zu: binary data (a NUL byte) in a trace line", f->path,
                                f->line);
        return NULL;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

static gpuest_err as_bad(const as_file_t *f, gpuest_error_t *err, const char *field, const char *expect,
                         const char *got)
{
    return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: field '%s': expected %s, got '%s'", f->path, f->line, field,
                       expect, got ? got : "(end of line)");
}

/* Prefixes an error from a lower layer (trace store, memory image) with path:line. */
static gpuest_err as_rewrap(const as_file_t *f, gpuest_err rc, gpuest_error_t *err)
{
    char msg[GPUEST_ERROR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
    return gpuest_fail(err, rc, "%s:%zu: %s", f->path, f->line, msg);
}

static int parse_dec(const char *s, int64_t *out)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno)
        return 0;
    *out = v;
    return 1;
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Maps an SASS opcode to an instruction kind (and latency class / memory op). */
static void classify(const char *op, int mem_width, gpuest_inst_t *in)
{
    in->kind = GPUEST_INST_COMPUTE;
    in->lat = GPUEST_LAT_ALU;
    in->op = GPUEST_MEM_LOAD;
    in->size = 0;
    if (mem_width > 0) {
        if (starts(op, "LDS") || starts(op, "STS") || starts(op, "ATOMS")) {
            in->lat = GPUEST_LAT_SHMEM;
        } else if (starts(op, "LDC") || starts(op, "ULDC")) {
            in->lat = GPUEST_LAT_CONST;
        } else if (starts(op, "LDL") || starts(op, "STL")) {
            in->lat = GPUEST_LAT_ALU;   /* local memory: addresses are window offsets, not modelled */
        } else {
            in->kind = GPUEST_INST_MEM;
            in->size = (uint32_t)mem_width;
            in->op = (starts(op, "ST") || starts(op, "UST")) ? GPUEST_MEM_STORE
                     : (starts(op, "ATOM") || starts(op, "RED")) ? GPUEST_MEM_ATOMIC
                                                                  : GPUEST_MEM_LOAD;
        }
        return;
    }
    if (starts(op, "BAR"))
        in->kind = GPUEST_INST_BARRIER;
    else if (starts(op, "MUFU") || starts(op, "DADD") || starts(op, "DMUL") || starts(op, "DFMA"))
        in->lat = GPUEST_LAT_SFU;
    else if (starts(op, "BRA") || starts(op, "EXIT") || starts(op, "SSY") || starts(op, "SYNC") ||
             starts(op, "BSSY") || starts(op, "BSYNC") || starts(op, "RET") || starts(op, "CAL") ||
             starts(op, "JMP") || starts(op, "PBK") || starts(op, "BRK"))
        in->lat = GPUEST_LAT_BRANCH;
}

/* General-purpose registers of an operand list: "R<n>" with n < 255 (RZ,
 * predicates, uniform registers and special registers carry no scoreboard
 * dependence here). At most max are kept, in trace order: a 128-bit load
 * names its first register only, as NVBit writes it. */
static gpuest_err take_regs(const as_file_t *f, char **tok, int n, uint8_t *regs, uint8_t *count, int max,
                            gpuest_error_t *err)
{
    *count = 0;
    for (int k = 0; k < n; k++) {
        const char *t = tok[k];
        if (t[0] != 'R' || !isdigit((unsigned char)t[1]))
            continue;
        int64_t r;
        if (!parse_dec(t + 1, &r) || r > 255)
            return as_bad(f, err, "register", "R0..R255", t);
        if (r != GPUEST_REG_ZERO && *count < max)
            regs[(*count)++] = (uint8_t)r;
    }
    return GPUEST_OK;
}

typedef struct {
    int version;          /* accelsim tracer version */
    int lineinfo;
} as_hdr_t;

/* Parses one instruction line into in. */
static gpuest_err parse_inst(const as_file_t *f, char *s, const as_hdr_t *h, gpuest_inst_t *in, gpuest_error_t *err)
{
    char *tok[AS_MAX_TOKENS];
    int nt = 0;
    for (char *p = strtok(s, " \t"); p; p = strtok(NULL, " \t")) {
        if (nt == AS_MAX_TOKENS)
            return gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: more than %d fields", f->path, f->line, AS_MAX_TOKENS);
        tok[nt++] = p;
    }
    int i = 0;
    if (h->version < 3)
        i += 4;           /* tbx tby tbz warpid */
    if (h->lineinfo)
        i += 1;           /* line_num */
    uint64_t pc, mask;
    int64_t nd, ns, width;
    if (i >= nt || !tr_parse_hex(tok[i], &pc))
        return as_bad(f, err, "PC", "a hex program counter", i < nt ? tok[i] : NULL);
    i++;
    if (i >= nt || !tr_parse_hex(tok[i], &mask) || mask > 0xffffffffu)
        return as_bad(f, err, "mask", "a 32-bit hex active mask", i < nt ? tok[i] : NULL);
    i++;
    if (i >= nt || !parse_dec(tok[i], &nd) || nd < 0 || nd > 8)
        return as_bad(f, err, "dest_num", "a register count 0..8", i < nt ? tok[i] : NULL);
    int dst_at = i + 1;
    i += 1 + (int)nd;
    if (i >= nt)
        return as_bad(f, err, "opcode", "an opcode", NULL);
    const char *opcode = tok[i++];
    if (i >= nt || !parse_dec(tok[i], &ns) || ns < 0 || ns > 16)
        return as_bad(f, err, "src_num", "a register count 0..16", i < nt ? tok[i] : NULL);
    int src_at = i + 1;
    i += 1 + (int)ns;
    if (i > nt)
        return as_bad(f, err, "reg_srcs", "src_num register names", NULL);
    if (i >= nt || !parse_dec(tok[i], &width) || width < 0 || width > 16)
        return as_bad(f, err, "mem_width", "bytes per thread 0..16", i < nt ? tok[i] : NULL);
    i++;
    memset(in, 0, sizeof *in);
    in->pc = (uint32_t)pc;
    in->active_mask = (uint32_t)mask;
    classify(opcode, (int)width, in);
    GPUEST_TRY(take_regs(f, tok + dst_at, (int)nd, in->dst, &in->ndst, GPUEST_INST_MAX_DST, err));
    GPUEST_TRY(take_regs(f, tok + src_at, (int)ns, in->src, &in->nsrc, GPUEST_INST_MAX_SRC, err));
    if (width == 0)
        return GPUEST_OK;
    if (in->kind == GPUEST_INST_COMPUTE && in->lat == GPUEST_LAT_CONST)
        in->size = (uint32_t)width; /* addressed constant read (LDC): offsets below */
    int64_t mode;
    if (i >= nt || !parse_dec(tok[i], &mode) || mode < 0 || mode > 2)
        return as_bad(f, err, "address mode", "0 (list), 1 (base+stride) or 2 (base+deltas)", i < nt ? tok[i] : NULL);
    i++;
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)
        return as_bad(f, err, "mem_width", "1, 2, 4, 8 or 16", tok[i - 2]);
    uint64_t addr[GPUEST_WARP_SIZE];
    int nact = 0;
    for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++)
        nact += (int)(mask >> lane & 1);
    if (nact > 0) {
        uint64_t base;
        if (i >= nt || !tr_parse_hex(tok[i], &base))
            return as_bad(f, err, "address", "a hex address", i < nt ? tok[i] : NULL);
        i++;
        addr[0] = base;
        if (mode == 0) {
            for (int k = 1; k < nact; k++, i++)
                if (i >= nt || !tr_parse_hex(tok[i], &addr[k]))
                    return as_bad(f, err, "address", "one hex address per active lane", i < nt ? tok[i] : NULL);
        } else if (mode == 1) {
            int64_t stride;
            if (i >= nt || !parse_dec(tok[i], &stride))
                return as_bad(f, err, "stride", "a decimal stride", i < nt ? tok[i] : NULL);
            i++;
            for (int k = 1; k < nact; k++)
                addr[k] = base + (uint64_t)((int64_t)k * stride);
        } else {
            for (int k = 1; k < nact; k++, i++) {
                int64_t d;
                if (i >= nt || !parse_dec(tok[i], &d))
                    return as_bad(f, err, "delta", "one decimal delta per further active lane", i < nt ? tok[i] : NULL);
                addr[k] = addr[k - 1] + (uint64_t)d;
            }
        }
    }
    /* what may follow: the immediate (tracer version >= 5) */
    if (nt - i > 1)
        return as_bad(f, err, "end of line", "at most an immediate after the addresses", tok[i + 1]);
    if (gpuest_inst_has_addr(in)) {
        /* constant reads: the offset inside the 64 KB constant bank */
        uint64_t keep = in->kind == GPUEST_INST_MEM ? UINT64_MAX : UINT64_C(0xFFFF);
        int k = 0;
        for (int lane = 0; lane < GPUEST_WARP_SIZE; lane++)
            in->addr[lane] = (mask >> lane & 1) ? addr[k++] & keep : 0;
    }
    return GPUEST_OK;
}

static int header_int(const char *s, const char *key, int64_t *out)
{
    size_t n = strlen(key);
    if (strncmp(s, key, n) != 0)
        return 0;
    s += n;
    while (*s == ' ')
        s++;
    if (*s != '=')
        return 0;
    s++;
    while (*s == ' ')
        s++;
    return parse_dec(s, out);
}

static int header_dim3(const char *s, const char *key, uint32_t out[3])
{
    size_t n = strlen(key);
    if (strncmp(s, key, n) != 0)
        return 0;
    int a, b, c;
    if (sscanf(s + n, " = (%d,%d,%d)", &a, &b, &c) != 3 || a <= 0 || b <= 0 || c <= 0)
        return -1;
    out[0] = (uint32_t)a, out[1] = (uint32_t)b, out[2] = (uint32_t)c;
    return 1;
}

/* Reads one kernel-N.traceg into t. */
static gpuest_err read_kernel(tr_trace_t *t, const char *path, gpuest_error_t *err)
{
    as_file_t *f = NULL;
    GPUEST_TRY(as_open(&f, path, err));
    gpuest_launch_t l;
    memset(&l, 0, sizeof l);
    as_hdr_t h = {5, 0};
    int have_grid = 0, have_block = 0;
    char *s;
    gpuest_err rc = GPUEST_OK;
    /* header: "-key = value" lines until the first '#' line */
    while ((s = as_getline(f)) != NULL) {
        if (s[0] == '#')
            break;
        if (s[0] != '-')
            continue;
        int64_t v;
        int d;
        if (strncmp(s, "-kernel name = ", 15) == 0) {
            strncpy(l.name, s + 15, sizeof l.name - 1);
        } else if ((d = header_dim3(s, "-grid dim", l.grid)) != 0) {
            if (d < 0) { rc = as_bad(f, err, "grid dim", "(x,y,z) with positive sizes", s); break; }
            have_grid = 1;
        } else if ((d = header_dim3(s, "-block dim", l.block)) != 0) {
            if (d < 0) { rc = as_bad(f, err, "block dim", "(x,y,z) with positive sizes", s); break; }
            have_block = 1;
        } else if (header_int(s, "-shmem", &v)) {
            l.shmem_bytes = (uint32_t)v;
        } else if (header_int(s, "-nregs", &v)) {
            l.regs_per_thread = (uint32_t)v;
        } else if (header_int(s, "-accelsim tracer version", &v)) {
            h.version = (int)v;
        } else if (header_int(s, "-enable lineinfo", &v)) {
            h.lineinfo = v != 0;
        }
    }
    if (rc == GPUEST_OK)
        rc = f->status;
    if (rc == GPUEST_OK && (!have_grid || !have_block))
        rc = gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: header lacks '-grid dim' or '-block dim'", path, f->line);
    tr_kernel_t *k = NULL;
    if (rc == GPUEST_OK && (rc = tr_add_kernel(t, &l, &k, err)) != GPUEST_OK)
        rc = as_rewrap(f, rc, err);
    uint32_t cta = 0;
    int64_t warp = -1, left = 0;
    int in_tb = 0;
    while (rc == GPUEST_OK && (s = as_getline(f)) != NULL) {
        if (!*s)
            continue;
        if (strcmp(s, "#BEGIN_TB") == 0) {
            in_tb = 1;
            warp = -1;
            continue;
        }
        if (strcmp(s, "#END_TB") == 0) {
            if (left != 0) {
                rc = as_bad(f, err, "insts", "as many instruction lines as 'insts =' announced", s);
                break;
            }
            in_tb = 0;
            continue;
        }
        if (s[0] == '#' || starts(s, "cluster"))
            continue;
        if (!in_tb) {
            rc = as_bad(f, err, "line", "#BEGIN_TB", s);
            break;
        }
        int x, y, z;
        if (starts(s, "thread block")) {
            if (sscanf(s, "thread block = %d,%d,%d", &x, &y, &z) != 3 || x < 0 || y < 0 || z < 0 ||
                (uint32_t)x >= k->l.grid[0] || (uint32_t)y >= k->l.grid[1] || (uint32_t)z >= k->l.grid[2]) {
                rc = as_bad(f, err, "thread block", "x,y,z inside the grid", s);
                break;
            }
            cta = (uint32_t)x + k->l.grid[0] * ((uint32_t)y + k->l.grid[1] * (uint32_t)z);
            continue;
        }
        int64_t v;
        if (header_int(s, "warp", &v)) {
            if (left != 0) {
                rc = as_bad(f, err, "insts", "as many instruction lines as 'insts =' announced", s);
                break;
            }
            if (v < 0 || v >= (int64_t)k->l.warps_per_cta) {
                rc = as_bad(f, err, "warp", "a warp index inside the block", s);
                break;
            }
            warp = v;
            continue;
        }
        if (header_int(s, "insts", &v)) {
            if (warp < 0 || v < 0) {
                rc = as_bad(f, err, "insts", "a count after 'warp = w'", s);
                break;
            }
            if ((rc = tr_check_insts(t, (uint64_t)v, err)) != GPUEST_OK) {
                rc = as_rewrap(f, rc, err);
                break;
            }
            left = v;
            continue;
        }
        if (warp < 0 || left <= 0) {
            rc = as_bad(f, err, "instruction", "no more instructions for this warp", s);
            break;
        }
        gpuest_inst_t in;
        rc = parse_inst(f, s, &h, &in, err);
        if (rc == GPUEST_OK && (rc = tr_add_inst(t, k, cta, (uint32_t)warp, &in, err)) != GPUEST_OK)
            rc = as_rewrap(f, rc, err);
        left--;
    }
    if (rc == GPUEST_OK)
        rc = f->status;
    if (rc == GPUEST_OK && (in_tb || left != 0))
        rc = gpuest_fail(err, GPUEST_EPARSE, "%s:%zu: file ends inside a thread block", path, f->line);
    as_close(f);
    return rc;
}

gpuest_err gpuest_workload_open_accelsim(const char *dir, gpuest_workload_t **out, gpuest_error_t *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    as_file_t *f = NULL;
    GPUEST_TRY(as_open(&f, path, err));
    gpuest_memimg_t *img = NULL;
    tr_trace_t *t = tr_new();
    gpuest_err rc = t ? gpuest_memimg_create(&img, err) : gpuest_fail(err, GPUEST_ENOMEM, "trace: out of memory");
    char *s;
    int copies = 0;
    while (rc == GPUEST_OK && (s = as_getline(f)) != NULL) {
        if (!*s)
            continue;
        if (starts(s, "MemcpyHtoD,")) {
            char hex[64];
            unsigned long long bytes;
            uint64_t base;
            if (sscanf(s, "MemcpyHtoD,%63[^,],%llu", hex, &bytes) != 2 || !tr_parse_hex(hex, &base) || bytes == 0) {
                rc = as_bad(f, err, "MemcpyHtoD", "MemcpyHtoD,0x<address>,<bytes>", s);
                break;
            }
            /* A copy into an existing buffer is not a new allocation. */
            if (gpuest_memimg_find(img, base) || gpuest_memimg_find(img, base + bytes - 1))
                continue;
            char name[32];
            snprintf(name, sizeof name, "memcpy%d", copies++);
            rc = gpuest_memimg_alloc_at(img, name, GPUEST_DT_BYTES, base, bytes, NULL, err);
            if (rc != GPUEST_OK)
                rc = as_rewrap(f, rc, err);
        } else if (starts(s, "kernel-")) {
            char kpath[8192];
            snprintf(kpath, sizeof kpath, "%s/%s", dir, s);
            if (access(kpath, R_OK) != 0)
                rc = gpuest_fail(err, GPUEST_EINVAL, "%s:%zu: names %s, which cannot be opened: %s", path, f->line,
                                 kpath, strerror(errno));
            else
                rc = read_kernel(t, kpath, err);
        }
        /* any other command (cudaMalloc, MemcpyDtoH, ...) is ignored, as Accel-Sim does */
    }
    if (rc == GPUEST_OK)
        rc = f->status;
    as_close(f);
    if (rc == GPUEST_OK && t->nk == 0)
        rc = gpuest_fail(err, GPUEST_EPARSE, "%s: names no kernel-N.traceg file", path);
    if (rc != GPUEST_OK) {
        tr_free(t);
        gpuest_memimg_destroy(img);
        return rc;
    }
    gpuest_memimg_set_has_values(img, 0);
    const char *slash = strrchr(dir, '/');
    rc = wl_create_from_ops(slash && slash[1] ? slash + 1 : dir, NULL, &gpuest_trace_ops, img, t, out, err);
    if (rc == GPUEST_OK)
        wl_set_warning(*out, "the trace carries no data values: every line reads as zero, so compression figures "
                             "are meaningless");
    return rc;
}
