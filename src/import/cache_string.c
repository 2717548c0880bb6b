/* cache_string.c: GPGPU-Sim cache description strings, e.g. "32:128:4,L:L:m:N:H,A:32:8,8".
 *
 * Fields (GPGPU-Sim 3.x cache_config, Accel-Sim adds the optional "S:"/"N:"
 * sector prefix and trailing fields):
 *   <sets>:<line bytes>:<ways>, <replacement>:<write>:<allocate>:<write allocate>[:<set index>],
 *   <MSHR type>:<entries>:<max merged>, <miss queue>[:<fifo entries>] [, extra...]
 * Each policy letter is checked against the letters GPGPU-Sim accepts. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

/* Parses a positive decimal at *s, advancing; 0 on failure. */
static int read_uint(const char **s, int *out)
{
    if (!isdigit((unsigned char)**s))
        return 0;
    char *e;
    long v = strtol(*s, &e, 10);
    if (v <= 0 || v > 1 << 30)
        return 0;
    *out = (int)v;
    *s = e;
    return 1;
}

static int read_char(const char **s, const char *allowed, char *out)
{
    if (!**s || !strchr(allowed, **s))
        return 0;
    *out = **s;
    (*s)++;
    return 1;
}

static int expect(const char **s, char c)
{
    if (**s != c)
        return 0;
    (*s)++;
    return 1;
}

/* GPGPU-Sim's letters: replacement L(RU) F(IFO); write R(ead-only) B(ack) T(hrough)
 * E(vict) L(ocal back, global through); allocate m(iss) f(ill) s(treaming);
 * write allocate N(o) W(rite, fetch on write) F(etch on write) L(azy fetch on read);
 * set index L(inear) H(ash, Fermi) P(olynomial) X(or) C(ustom) B(itwise xor);
 * MSHR A(ssociative) F(ifo, texture) T(exture) S(ector). */
gpuest_err imp_cache_parse(const char *str, const char *what, imp_cache_t *out, gpuest_error_t *err)
{
    memset(out, 0, sizeof *out);
    const char *s = str;
    const char *stage = "<sets>:<line bytes>:<ways>";
    if ((s[0] == 'S' || s[0] == 'N') && s[1] == ':') {
        out->sectored = s[0] == 'S';
        s += 2;
    }
    int ok = read_uint(&s, &out->sets) && expect(&s, ':') && read_uint(&s, &out->line_bytes) && expect(&s, ':') &&
             read_uint(&s, &out->assoc) && expect(&s, ',');
    if (ok) {
        stage = "<replacement L|F>:<write R|B|T|E|L>:<allocate m|f|s>:<write allocate N|W|F|L>[:<index L|H|P|X|C|B>]";
        ok = read_char(&s, "LF", &out->rep) && expect(&s, ':') && read_char(&s, "RBTEL", &out->wr) && expect(&s, ':') &&
             read_char(&s, "mfs", &out->alloc) && expect(&s, ':') && read_char(&s, "NWFL", &out->wr_alloc);
        if (ok && *s == ':')
            ok = expect(&s, ':') && read_char(&s, "LHPXCB", &out->index);
        ok = ok && expect(&s, ',');
    }
    if (ok) {
        stage = "<MSHR A|F|T|S>:<entries>:<max merged>";
        ok = read_char(&s, "AFTS", &out->mshr_type) && expect(&s, ':') && read_uint(&s, &out->mshr_entries) &&
             expect(&s, ':') && read_uint(&s, &out->mshr_merge) && expect(&s, ',');
    }
    if (ok) {
        stage = "<miss queue>[:<entries>]";
        ok = read_uint(&s, &out->miss_queue);
        if (ok && *s == ':') { /* texture fifo entries or Accel-Sim's result fifo: a count, may be 0 */
            s++;
            ok = isdigit((unsigned char)*s);
            while (isdigit((unsigned char)*s))
                s++;
        }
    }
    if (ok && *s == ',') { /* Accel-Sim: data port width and the like */
        for (const char *q = s; *q; q++)
            out->extra_fields += *q == ',';
        s += strlen(s);
    }
    if (ok && *s)
        ok = 0;
    if (!ok)
        return gpuest_fail(err, GPUEST_EPARSE,
                           "%s '%s': malformed cache string at '%s' (expected %s; the whole form is "
                           "<sets>:<line>:<ways>,<rep>:<wr>:<alloc>:<wr_alloc>[:<index>],<mshr>:<n>:<merge>,<mq>)",
                           what, str, *s ? s : "the end", stage);
    if (out->line_bytes & (out->line_bytes - 1))
        return gpuest_fail(err, GPUEST_EPARSE, "%s '%s': line size %d is not a power of two", what, str,
                           out->line_bytes);
    return GPUEST_OK;
}
