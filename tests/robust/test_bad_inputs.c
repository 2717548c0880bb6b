/* test_bad_inputs.c: bad input of every kind, given to the gpuest program as a user would: each case
 * must exit with status 2 and name the file and the line that is wrong (and what was expected), and
 * limits must be reported before anything is allocated. Also: a failing command leaves no output
 * file behind. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <lzma.h>

#include "run_program.h"

static char out[1 << 16];
static char g_root[512];

/* ------------------------------------------------------------ input files */

/* A small valid Accel-Sim kernel trace; line numbers are used by the cases below:
 * 1 name, 2 grid, 3 block, 4 nregs, 5 version, 6 blank, 7 #traces, 8 #BEGIN_TB, 9 thread block,
 * 10 warp, 11 insts, 12-14 instructions, 15 #END_TB. */
#define K_HEAD(grid, block)                                                                                            \
    "-kernel name = k\n-grid dim = " grid "\n-block dim = " block "\n-nregs = 8\n-accelsim tracer version = 4\n\n"     \
    "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [addresses]\n"
#define K_TB(insts) "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = " insts "\n"
#define K_INSTS "0008 ffffffff 1 R1 MOV 0 0\n0020 ffffffff 0 LDG.E 1 R2 4 1 0x1000 4\n0030 ffffffff 0 EXIT 0 0\n"
#define K_VALID K_HEAD("(1,1,1)", "(32,1,1)") K_TB("3") K_INSTS "#END_TB\n"
#define K_LIST "MemcpyHtoD,0x1000,256\nkernel-1.traceg\n"

/* A small valid native CSV trace: 1 header, 2 alloc, 3 kernel, 4 inst. */
#define C_HEAD "gpuest_trace,1\nalloc,A,0x1000,256,fp32,0\n"
#define C_KERNEL "kernel,0,k,1,1,1,32,1,1,0,8\n"
#define C_VALID C_HEAD C_KERNEL "inst,0,0,0,8,alu,0,ffffffff,\n"

/* A valid BookSim file starts with these two lines. */
#define B_HEAD "topology = mesh;\nrouting_function = dor;\n"

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0777); /* one level of sub-folder (tr/, m/) */
    *slash = '/';
    test_write_bytes(path, data, n);
}

static char *read_source(const char *rel, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GPUEST_SOURCE_DIR, rel);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *n = fread(buf, 1, (1 << 20) - 1, fp);
    buf[*n] = '\0';
    fclose(fp);
    return buf;
}

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Replaces the first occurrence of from by to in a malloc'd text (fails the test when absent). */
static char *replace(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t a = (size_t)(at - text), f = strlen(from), t = strlen(to), n = strlen(text);
    char *r = malloc(n - f + t + 1);
    assert_non_null(r);
    memcpy(r, text, a);
    memcpy(r + a, to, t);
    memcpy(r + a + t, at + f, n - a - f + 1);
    free(text);
    return r;
}

/* Writes m/approx-atax.{net,scale.csv} from the shipped model after the given edits (from -> to,
 * NULL: none) and with the scaling file's checksum recomputed for the network, so the damage
 * reaches the reader of that part. */
static void write_model(const char *dir, const char *net_from, const char *net_to, const char *scale_from,
                        const char *scale_to)
{
    size_t n;
    char *net = read_source("models/approx-atax.net", &n);
    char *scale = read_source("models/approx-atax.scale.csv", &n);
    if (net_from)
        net = replace(net, net_from, net_to);
    if (scale_from)
        scale = replace(scale, scale_from, scale_to);
    char *sum = strstr(scale, "fnv1a64,");
    if (sum) {
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a(net, strlen(net)));
        memcpy(sum + 8, hex, 16);
    }
    write_file(dir, "m/approx-atax.net", net, strlen(net));
    write_file(dir, "m/approx-atax.scale.csv", scale, strlen(scale));
    free(net);
    free(scale);
}

/* ------------------------------------------------------------ inputs made by code */

static void make_long_ini_line(const char *dir)
{
    char text[512];
    memset(text, 'x', sizeof text);
    memcpy(text, "[core]\n; ", 9);
    memcpy(text + 500, "\nnum_sms=2\n", 11);
    write_file(dir, "bad.ini", text, 511);
}

static void make_nul_ini(const char *dir)
{
    write_file(dir, "bad.ini", "[core]\nnum_\0sms = 2\n", 20);
}

static void make_nul_booksim(const char *dir)
{
    static const char text[] = B_HEAD "k = 4;\0 k = 40;\n";
    write_file(dir, "net.cfg", text, sizeof text - 1);
}

static void make_nul_trace(const char *dir)
{
    static const char text[] = K_HEAD("(1,1,1)", "(32,1,1)") K_TB("1") "0008 ffffffff 1 R1 MOV 0 0\0 junk\n#END_TB\n";
    write_file(dir, "tr/kernelslist.g", K_LIST, strlen(K_LIST));
    write_file(dir, "tr/kernel-1.traceg", text, sizeof text - 1);
}

static void make_nul_csv(const char *dir)
{
    static const char text[] = C_HEAD C_KERNEL "inst,0,0,0,8,alu\0x,0,ffffffff,\n";
    write_file(dir, "t.csv", text, sizeof text - 1);
}

static void make_long_booksim_line(const char *dir)
{
    char text[3000];
    memset(text, ' ', sizeof text);
    memcpy(text, B_HEAD "k = 8;", sizeof B_HEAD + 5);
    text[sizeof text - 1] = '\n';
    write_file(dir, "net.cfg", text, sizeof text);
}

/* An instruction line with 200 fields (the reader takes at most 160). */
static void make_many_fields_trace(const char *dir)
{
    char text[4096] = K_HEAD("(1,1,1)", "(32,1,1)") K_TB("1") "0008 ffffffff 1 R1 MOV 190";
    for (int i = 0; i < 195; i++)
        strcat(text, " R1");
    strcat(text, " 0\n#END_TB\n");
    write_file(dir, "tr/kernelslist.g", K_LIST, strlen(K_LIST));
    write_file(dir, "tr/kernel-1.traceg", text, strlen(text));
}

/* An instruction line of a million fields (3 MB; lines are limited to 65536 bytes). */
static void make_huge_line_trace(const char *dir)
{
    static const char head[] = K_HEAD("(1,1,1)", "(32,1,1)") K_TB("1") "0008 ffffffff 1 R1 MOV 999999";
    size_t cap = sizeof head + 3000000 + 32;
    char *text = malloc(cap);
    assert_non_null(text);
    memcpy(text, head, sizeof head - 1);
    char *p = text + sizeof head - 1;
    for (int i = 0; i < 999999; i++, p += 3)
        memcpy(p, " R1", 3);
    strcpy(p, " 0\n#END_TB\n");
    write_file(dir, "tr/kernelslist.g", K_LIST, strlen(K_LIST));
    write_file(dir, "tr/kernel-1.traceg", text, strlen(text));
    free(text);
}

static size_t xz_encode(const char *text, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    assert_int_equal(
        lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, strlen(text), buf, &n, cap), LZMA_OK);
    return n;
}

static void write_xz_trace(const char *dir, const uint8_t *data, size_t n)
{
    static const char list[] = "kernel-1.traceg.xz\n";
    write_file(dir, "tr/kernelslist.g", list, strlen(list));
    write_file(dir, "tr/kernel-1.traceg.xz", data, n);
}

static void make_truncated_xz(const char *dir)
{
    uint8_t buf[4096];
    size_t n = xz_encode(K_VALID, buf, sizeof buf);
    write_xz_trace(dir, buf, n - 20); /* cut inside the stream's index and footer */
}

static void make_corrupt_xz(const char *dir)
{
    uint8_t buf[4096];
    size_t n = xz_encode(K_VALID, buf, sizeof buf);
    buf[n / 2] ^= 0x55; /* damaged compressed data: the checksum or the decoder notices */
    write_xz_trace(dir, buf, n);
}

static void make_not_xz(const char *dir)
{
    write_xz_trace(dir, (const uint8_t *)K_VALID, strlen(K_VALID));
}

static void make_xz_with_bad_line(const char *dir)
{
    uint8_t buf[4096];
    size_t n = xz_encode(K_HEAD("(1,1,1)", "(32,1,1)") K_TB("3") "0008 zzzz 1 R1 MOV 0 0\n", buf, sizeof buf);
    write_xz_trace(dir, buf, n);
}

/* An inst record of a million fields (2 MB; the CSV reader stores at most 4096 of a record). */
static void make_many_fields_csv(const char *dir)
{
    static const char head[] = C_HEAD C_KERNEL "inst";
    size_t cap = sizeof head + 2000000 + 8;
    char *text = malloc(cap);
    assert_non_null(text);
    memcpy(text, head, sizeof head - 1);
    char *p = text + sizeof head - 1;
    for (int i = 0; i < 999999; i++, p += 2)
        memcpy(p, ",0", 2);
    strcpy(p, "\n");
    write_file(dir, "t.csv", text, strlen(text));
    free(text);
}

static void make_model_bad_layers(const char *dir)
{
    write_model(dir, "num_layers=3", "num_layers=300", NULL, NULL);
}
static void make_model_bad_connection(const char *dir)
{
    write_model(dir, "connections (connected_to_neuron, weight)=(0,",
                "connections (connected_to_neuron, weight)=(99999,", NULL, NULL);
}
static void make_model_bad_activation(const char *dir)
{
    write_model(dir, "(5, 5, ", "(5, 77, ", NULL, NULL);
}
static void make_model_bad_sizes(const char *dir)
{
    write_model(dir, "layer_sizes=5 33 6", "layer_sizes=5 99999 6", NULL, NULL);
}
static void make_model_too_many_inputs(const char *dir)
{
    write_model(dir, "(5, 5, ", "(40, 5, ", NULL, NULL);
}
static void make_scale_bad_shape(const char *dir)
{
    write_model(dir, NULL, NULL, "shape,,4,5", "shape,,4,6");
}
static void make_scale_bad_header(const char *dir)
{
    write_model(dir, NULL, NULL, "kind,name,a,b", "kind,name,a");
}
static void make_scale_bad_range(const char *dir)
{
    write_model(dir, NULL, NULL, "input,1,0,0", "input,1,1,0");
}
static void make_scale_bad_row(const char *dir)
{
    write_model(dir, NULL, NULL, "meta,margin,1,", "metadata,margin,1,");
}

/* ------------------------------------------------------------ the cases */

typedef void (*make_fn)(const char *dir);

typedef struct {
    const char *file1, *text1; /* input files (relative to the case folder) */
    const char *file2, *text2;
    make_fn make;      /* or inputs made by code */
    const char *args;  /* gpuest arguments; '@' stands for the case folder */
    const char *where; /* "file:line" the message must contain ('*' after the colon: any line) */
    const char *what;  /* and the explanation */
} bad_case;

#define PREDICT "approx predict --app atax --size 256 --max-error 0.1 --model-dir @/m"
#define CHECK_INI "config check @/bad.ini"
#define NOC "noc --booksim @/net.cfg"
#define TRACE "characterize --trace @/tr"
#define CSVT "characterize --csv-trace @/t.csv"

static const bad_case cases[] = {
    /* INI configuration */
    {"bad.ini", "[cache]\nassoc = 4\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:1:", "unknown section [cache]"},
    {"bad.ini", "; machine\n\n[l1]\nassoc = 4\n[bogus]\n", NULL, NULL, NULL, CHECK_INI,
     "bad.ini:5:", "unknown section [bogus]"},
    {"bad.ini", "[l1]\nsize_byte = 1024\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:2:", "did you mean 'l1.size_bytes'"},
    {"bad.ini", "[core]\nnum_sms = 1000000000\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:2:", "allowed 1..1024"},
    {"bad.ini", "[l1]\nassoc = four\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:2:", "not an integer"},
    {"bad.ini", "[noc]\n\nvcs\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:3:", "malformed line"},
    {"bad.ini", "[core\nnum_sms = 2\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:1:", "malformed line"},
    {"bad.ini", "[core]\nclock_mhz = nan\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:2:", "not a number"},
    {NULL, NULL, NULL, NULL, make_long_ini_line, CHECK_INI, "bad.ini:2:", "line longer than"},
    {NULL, NULL, NULL, NULL, make_nul_ini, CHECK_INI, "bad.ini:2:", "NUL byte"},
    {"bad.ini", "[noc]\nk = 4\n[preset]\nname = mesh56\n", NULL, NULL, NULL, CHECK_INI,
     "bad.ini:4:", "must come before"},
    {"bad.ini", "[preset]\nname = kepler\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:2:", "valid presets"},
    /* cross-field checks name the line that changed either side */
    {"bad.ini", "; wider lines\n[l1]\nline_bytes = 512\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:3:", "must divide"},
    {"bad.ini", "[dram]\ntRAS = 200\n", NULL, NULL, NULL, CHECK_INI, "bad.ini:2:", "at least tRAS + tRP"},
    /* BookSim configuration */
    {"net.cfg", "topology = mesh;\nk = 8\n", NULL, NULL, NULL, NOC, "net.cfg:2:", "expected 'key = value;'"},
    {"net.cfg", "// ring\ntopology = torus;\n", NULL, NULL, NULL, NOC, "net.cfg:2:", "supported: mesh"},
    {"net.cfg", B_HEAD "k = 100;\n", NULL, NULL, NULL, NOC, "net.cfg:3:", "1..32"},
    {"net.cfg", B_HEAD "traffic = hotspot({{1e300},{1}});\n", NULL, NULL, NULL, NOC, "net.cfg:3:", "hot node"},
    {"net.cfg", B_HEAD "traffic = hotspot({{1,2},{1,nan}});\n", NULL, NULL, NULL, NOC, "net.cfg:3:", "hot weight"},
    {"net.cfg", B_HEAD "injection_rate = nan;\n", NULL, NULL, NULL, NOC, "net.cfg:3:", "expected a number"},
    {"net.cfg", B_HEAD "n = 3;\n", NULL, NULL, NULL, NOC, "net.cfg:3:", "2 (2D mesh)"},
    {NULL, NULL, NULL, NULL, make_long_booksim_line, NOC, "net.cfg:3:", "line longer than"},
    {NULL, NULL, NULL, NULL, make_nul_booksim, NOC, "net.cfg:3:", "NUL byte"},
    /* Accel-Sim traces */
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg", K_HEAD("(1,1,1)", "(32,1,1)") K_TB("1000000000000") K_INSTS,
     NULL, TRACE, "kernel-1.traceg:11:", "memory limit"},
    {"tr/kernelslist.g", "MemcpyHtoD,0x1000,100000000000000000\nkernel-1.traceg\n", "tr/kernel-1.traceg", K_VALID, NULL,
     TRACE, "kernelslist.g:1:", "memory limit"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg", K_HEAD("(100000,100000,1)", "(32,1,1)") K_TB("3") K_INSTS, NULL,
     TRACE, "kernel-1.traceg:7:", "grid of 10000000000 CTAs"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg", K_HEAD("(1,1,1)", "(2048,1,1)") K_TB("3") K_INSTS, NULL, TRACE,
     "kernel-1.traceg:7:", "block of 2048 threads"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg", "-kernel name = k\n-block dim = (32,1,1)\n\n#BEGIN_TB\n", NULL,
     TRACE, "kernel-1.traceg:4:", "lacks '-grid dim'"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg",
     K_HEAD("(1,1,1)", "(32,1,1)") K_TB("2") "0008 zzzz 1 R1 MOV 0 0\n", NULL, TRACE,
     "kernel-1.traceg:12:", "field 'mask'"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg",
     K_HEAD("(1,1,1)", "(32,1,1)") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 5\n", NULL, TRACE,
     "kernel-1.traceg:10:", "warp index inside the block"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg",
     K_HEAD("(1,1,1)", "(32,1,1)") "#BEGIN_TB\nthread block = 2,0,0\n", NULL, TRACE,
     "kernel-1.traceg:9:", "inside the grid"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg", K_HEAD("(1,1,1)", "(32,1,1)") K_TB("3") K_INSTS, NULL, TRACE,
     "kernel-1.traceg:14:", "ends inside a thread block"},
    {"tr/kernelslist.g", K_LIST, "tr/kernel-1.traceg",
     K_HEAD("(1,1,1)", "(32,1,1)") K_TB("1") "0020 ffffffff 0 LDG.E 1 R2 3 1 0x1000 4\n#END_TB\n", NULL, TRACE,
     "kernel-1.traceg:12:", "1, 2, 4, 8 or 16"},
    {"tr/kernelslist.g", "kernel-1.traceg\nkernel-2.traceg\n", "tr/kernel-1.traceg", K_VALID, NULL, TRACE,
     "kernelslist.g:2:", "cannot be opened"},
    {NULL, NULL, NULL, NULL, make_many_fields_trace, TRACE, "kernel-1.traceg:12:", "more than 160 fields"},
    {NULL, NULL, NULL, NULL, make_huge_line_trace, TRACE, "kernel-1.traceg:12:", "limit of 65536 bytes"},
    {NULL, NULL, NULL, NULL, make_nul_trace, TRACE, "kernel-1.traceg:12:", "NUL byte"},
    /* Accel-Sim traces compressed with xz */
    {NULL, NULL, NULL, NULL, make_truncated_xz, TRACE, "kernel-1.traceg.xz:*", "truncated"},
    {NULL, NULL, NULL, NULL, make_corrupt_xz, TRACE, "kernel-1.traceg.xz:*", "xz:"},
    {NULL, NULL, NULL, NULL, make_not_xz, TRACE, "kernel-1.traceg.xz:1:", "not an xz file"},
    {NULL, NULL, NULL, NULL, make_xz_with_bad_line, TRACE, "kernel-1.traceg.xz:12:", "field 'mask'"},
    /* native CSV traces */
    {"t.csv", "gpuest_trace,3\n", NULL, NULL, NULL, CSVT, "t.csv:1:", "gpuest_trace,2"},
    {"t.csv", "gpuest_trace,1\nalloc,A,0x1000,1000000000000,fp32,0\n" C_KERNEL, NULL, NULL, NULL, CSVT,
     "t.csv:2:", "memory limit"},
    {"t.csv", C_HEAD "kernel,0,k,1,1,1,64,32,1,0,8\n", NULL, NULL, NULL, CSVT, "t.csv:3:", "at most 1024 threads"},
    {"t.csv", C_HEAD "alloc,B,0x1080,16,fp32,0\n", NULL, NULL, NULL, CSVT, "t.csv:3:", "overlaps"},
    {"t.csv", C_HEAD "kernel,1,k,1,1,1,32,1,1,0,8\n", NULL, NULL, NULL, CSVT, "t.csv:3:", "the next launch number"},
    {"t.csv", C_HEAD C_KERNEL "inst,0,1,0,8,alu,0,ffffffff,\n", NULL, NULL, NULL, CSVT, "t.csv:4:", "field 'cta'"},
    {"t.csv", C_HEAD C_KERNEL "inst,0,0,0,8,multiply,0,ffffffff,\n", NULL, NULL, NULL, CSVT,
     "t.csv:4:", "field 'kind'"},
    {"t.csv", C_HEAD C_KERNEL "inst,0,0,0,8,load,4,00000003,0x1000\n", NULL, NULL, NULL, CSVT,
     "t.csv:4:", "one hex address per active lane"},
    {"t.csv", C_HEAD C_KERNEL "inst,0,0,0,8,\"alu\"x,0,ffffffff,\n", NULL, NULL, NULL, CSVT,
     "t.csv:4:", "malformed CSV"},
    {NULL, NULL, NULL, NULL, make_many_fields_csv, CSVT, "t.csv:4:", "limit of 4096 fields"},
    {NULL, NULL, NULL, NULL, make_nul_csv, CSVT, "t.csv:4:", "NUL byte"},
    {"t.csv", C_VALID, "t.img", "0123456789", NULL, CSVT " --image @/t.img",
     "t.img:", "the trace's allocations need 256"},
    /* FANN models and their scaling files */
    {NULL, NULL, NULL, NULL, make_model_bad_layers, PREDICT, "approx-atax.net:2:", "num_layers="},
    {NULL, NULL, NULL, NULL, make_model_bad_sizes, PREDICT, "approx-atax.net:33:", "one size 1..4096 per layer"},
    {NULL, NULL, NULL, NULL, make_model_bad_connection, PREDICT, "approx-atax.net:36:", "naming a neuron"},
    {NULL, NULL, NULL, NULL, make_model_bad_activation, PREDICT, "approx-atax.net:35:", "unknown activation"},
    {NULL, NULL, NULL, NULL, make_model_too_many_inputs, PREDICT, "approx-atax.net:35:", "more inputs"},
    {NULL, NULL, NULL, NULL, make_scale_bad_header, PREDICT, "approx-atax.scale.csv:1:", "4 columns"},
    {NULL, NULL, NULL, NULL, make_scale_bad_shape, PREDICT, "approx-atax.scale.csv:3:", "network shape 4 x 6"},
    {NULL, NULL, NULL, NULL, make_scale_bad_range, PREDICT, "approx-atax.scale.csv:5:", "<min> <max>"},
    {NULL, NULL, NULL, NULL, make_scale_bad_row, PREDICT, "approx-atax.scale.csv:9:", "unknown row kind"},
};

/* Does msg contain "<file>:<digits>:" for a pattern "file:*", or the pattern itself? */
static int names_place(const char *msg, const char *where)
{
    size_t n = strlen(where);
    if (n < 2 || strcmp(where + n - 2, ":*") != 0)
        return strstr(msg, where) != NULL;
    char file[256];
    snprintf(file, sizeof file, "%.*s:", (int)(n - 2), where);
    for (const char *p = strstr(msg, file); p; p = strstr(p + 1, file)) {
        const char *d = p + strlen(file);
        size_t digits = strspn(d, "0123456789");
        if (digits > 0 && d[digits] == ':')
            return 1;
    }
    return 0;
}

static void expand_args(const char *args, const char *dir, char *buf, size_t cap)
{
    size_t used = 0;
    for (const char *p = args; *p && used + 1 < cap; p++) {
        if (*p == '@')
            used += (size_t)snprintf(buf + used, cap - used, "%s", dir);
        else
            buf[used++] = *p;
    }
    buf[used < cap ? used : cap - 1] = '\0';
}

static void test_every_bad_input(void **state)
{
    (void)state;
    size_t count = sizeof cases / sizeof cases[0];
    assert_true(count >= 40);
    for (size_t i = 0; i < count; i++) {
        const bad_case *c = &cases[i];
        char dir[600], args[2048];
        snprintf(dir, sizeof dir, "%s/case%02zu", g_root, i);
        mkdir(dir, 0777);
        if (c->file1)
            write_file(dir, c->file1, c->text1, strlen(c->text1));
        if (c->file2)
            write_file(dir, c->file2, c->text2, strlen(c->text2));
        if (c->make)
            c->make(dir);
        expand_args(c->args, dir, args, sizeof args);
        int status = run_gpuest(args, out, sizeof out);
        if (status != 2 || !names_place(out, c->where) || !strstr(out, c->what))
            fail_msg("case %zu (gpuest %s): exit %d, expected 2 with '%s' and '%s'; got:\n%s", i, c->args, status,
                     c->where, c->what, out);
    }
}

/* ------------------------------------------------------------ no partial output */

/* No file (final or temporary) whose name starts with prefix is left in dir. */
static void assert_no_file(const char *dir, const char *name)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c '^%s' || true", dir, name);
    assert_int_equal(test_run_program(cmd, "", out, sizeof out), 0);
    if (atoi(out) != 0)
        fail_msg("%s/%s* left behind by a failed command", dir, name);
}

static void test_failed_commands_leave_no_output(void **state)
{
    (void)state;
    char dir[600], args[2048];
    snprintf(dir, sizeof dir, "%s/outputs", g_root);
    mkdir(dir, 0777);
    /* characterize with a bad trace and --csv */
    write_file(dir, "t.csv", "gpuest_trace,1\nbogus\n", 21);
    snprintf(args, sizeof args, "characterize --csv-trace %s/t.csv --csv %s/table.csv", dir, dir);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_no_file(dir, "table.csv");
    /* noc with a bad BookSim file and --csv */
    write_file(dir, "net.cfg", "topology = ring;\n", 17);
    snprintf(args, sizeof args, "noc --booksim %s/net.cfg --csv %s/noc.csv", dir, dir);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_no_file(dir, "noc.csv");
    /* workload export whose trace cannot be written: the image is not left behind either */
    snprintf(args, sizeof args, "workload export atax --scale tiny --out %s/missing/t.csv --image %s/t.img", dir, dir);
    assert_int_not_equal(run_gpuest(args, out, sizeof out), 0);
    assert_no_file(dir, "t.img");
    /* approx train on a damaged data set: no model file, final or temporary */
    char data[700], models[700];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(models, sizeof models, "%s/models", dir);
    mkdir(data, 0777);
    mkdir(models, 0777);
    write_file(data, "atax.csv", "dataset,seed\n1,2,3\n", 19);
    snprintf(args, sizeof args, "approx train --app atax --data-dir %s --model-dir %s", data, models);
    assert_int_equal(run_gpuest(args, out, sizeof out), 2);
    assert_no_file(models, "approx-atax");
}

static int setup(void **state)
{
    (void)state;
    test_scratch_make(g_root, sizeof g_root, GPUEST_BINARY_DIR, "bad_inputs");
    /* FANN keeps the message of a file it cannot read in a buffer it never frees. */
    setenv("LSAN_OPTIONS", "suppressions=" GPUEST_SOURCE_DIR "/tests/fuzz/lsan.supp", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return test_scratch_remove(g_root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_bad_input),
        cmocka_unit_test(test_failed_commands_leave_no_output),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
