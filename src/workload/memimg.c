/* memimg.c: the memory image: named, typed allocations placed like cudaMalloc, read by line. */
#include <stdlib.h>
#include <string.h>

#include "workload_int.h"

struct gpuest_memimg_s {
    gpuest_alloc_t **allocs;   /* allocation order */
    gpuest_alloc_t **sorted;   /* by base address */
    size_t count, cap;
    uint64_t next_base;        /* where gpuest_memimg_alloc places the next one */
    uint64_t bytes;            /* sum of the allocations' sizes */
    int has_values;
};

static const char *const dtype_names[] = {"int32", "uint32", "fp32", "fp64", "bytes"};

const char *gpuest_dtype_name(gpuest_dtype_t t)
{
    return (unsigned)t < 5 ? dtype_names[t] : "?";
}

gpuest_err gpuest_dtype_parse(const char *s, gpuest_dtype_t *out)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(s, dtype_names[i]) == 0) {
            *out = (gpuest_dtype_t)i;
            return GPUEST_OK;
        }
    return GPUEST_EPARSE;
}

size_t gpuest_dtype_size(gpuest_dtype_t t)
{
    return t == GPUEST_DT_FP64 ? 8 : t == GPUEST_DT_BYTES ? 1 : 4;
}

gpuest_err gpuest_memimg_create(gpuest_memimg_t **out, gpuest_error_t *err)
{
    gpuest_memimg_t *img = calloc(1, sizeof *img);
    if (!img)
        return gpuest_fail(err, GPUEST_ENOMEM, "memory image: out of memory");
    img->next_base = GPUEST_MEMIMG_BASE;
    img->has_values = 1;
    *out = img;
    return GPUEST_OK;
}

void gpuest_memimg_destroy(gpuest_memimg_t *img)
{
    if (!img)
        return;
    for (size_t i = 0; i < img->count; i++) {
        free(img->allocs[i]->data);
        free(img->allocs[i]);
    }
    free(img->allocs);
    free(img->sorted);
    free(img);
}

/* Index of the first sorted allocation whose end is above addr. */
static size_t lower_index(const gpuest_memimg_t *img, uint64_t addr)
{
    size_t lo = 0, hi = img->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gpuest_alloc_t *a = img->sorted[mid];
        if (a->base + a->size <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

gpuest_err gpuest_memimg_alloc_at(gpuest_memimg_t *img, const char *name, gpuest_dtype_t type, uint64_t base,
                                  uint64_t size, gpuest_alloc_t **out, gpuest_error_t *err)
{
    if (size == 0 || base + size < base)
        return gpuest_fail(err, GPUEST_EINVAL, "allocation '%s': size must be positive and fit the address space",
                           name);
    uint64_t limit = gpuest_workload_memory_limit();
    if (size > limit || img->bytes > limit - size)
        return gpuest_fail(err, GPUEST_ERANGE,
                           "allocation '%s' of %llu bytes: the image would hold %llu bytes, more than the memory limit "
                           "of %llu bytes",
                           name, (unsigned long long)size, (unsigned long long)(img->bytes + size),
                           (unsigned long long)limit);
    if (strlen(name) >= GPUEST_WL_NAME_MAX)
        return gpuest_fail(err, GPUEST_EINVAL, "allocation name '%s' longer than %d characters", name,
                           GPUEST_WL_NAME_MAX - 1);
    if (gpuest_memimg_find_name(img, name))
        return gpuest_fail(err, GPUEST_EINVAL, "allocation '%s' declared twice", name);
    size_t pos = lower_index(img, base);
    if (pos < img->count && img->sorted[pos]->base < base + size)
        return gpuest_fail(err, GPUEST_EINVAL, "allocation '%s' [0x%llx, +%llu) overlaps '%s'", name,
                           (unsigned long long)base, (unsigned long long)size, img->sorted[pos]->name);
    if (img->count == img->cap) {
        size_t cap = img->cap ? img->cap * 2 : 8;
        gpuest_alloc_t **a = realloc(img->allocs, cap * sizeof *a);
        if (!a)
            return gpuest_fail(err, GPUEST_ENOMEM, "memory image: out of memory");
        img->allocs = a;
        gpuest_alloc_t **s = realloc(img->sorted, cap * sizeof *s);
        if (!s)
            return gpuest_fail(err, GPUEST_ENOMEM, "memory image: out of memory");
        img->sorted = s;
        img->cap = cap;
    }
    gpuest_alloc_t *a = calloc(1, sizeof *a);
    unsigned char *data = a ? calloc(1, (size_t)size) : NULL;
    if (!data) {
        free(a);
        return gpuest_fail(err, GPUEST_ENOMEM, "allocation '%s' of %llu bytes: out of memory", name,
                           (unsigned long long)size);
    }
    strcpy(a->name, name);
    a->base = base;
    a->size = size;
    a->type = type;
    a->data = data;
    img->allocs[img->count] = a;
    memmove(&img->sorted[pos + 1], &img->sorted[pos], (img->count - pos) * sizeof *img->sorted);
    img->sorted[pos] = a;
    img->count++;
    img->bytes += size;
    uint64_t end = (base + size + GPUEST_MEMIMG_ALIGN - 1) & ~(uint64_t)(GPUEST_MEMIMG_ALIGN - 1);
    if (end > img->next_base)
        img->next_base = end;
    if (out)
        *out = a;
    return GPUEST_OK;
}

gpuest_err gpuest_memimg_alloc(gpuest_memimg_t *img, const char *name, gpuest_dtype_t type, uint64_t size,
                               gpuest_alloc_t **out, gpuest_error_t *err)
{
    return gpuest_memimg_alloc_at(img, name, type, img->next_base, size, out, err);
}

void gpuest_memimg_set_approx(gpuest_alloc_t *a, int bits)
{
    a->approximable = bits > 0;
    a->approx_bits = bits > 0 ? bits : 0;
}

size_t gpuest_memimg_count(const gpuest_memimg_t *img) { return img->count; }

gpuest_alloc_t *gpuest_memimg_get(const gpuest_memimg_t *img, size_t index)
{
    return index < img->count ? img->allocs[index] : NULL;
}

gpuest_alloc_t *gpuest_memimg_find_name(const gpuest_memimg_t *img, const char *name)
{
    for (size_t i = 0; i < img->count; i++)
        if (strcmp(img->allocs[i]->name, name) == 0)
            return img->allocs[i];
    return NULL;
}

gpuest_alloc_t *gpuest_memimg_find(const gpuest_memimg_t *img, uint64_t addr)
{
    size_t i = lower_index(img, addr);
    if (i < img->count && img->sorted[i]->base <= addr)
        return img->sorted[i];
    return NULL;
}

void gpuest_memimg_read(const gpuest_memimg_t *img, uint64_t addr, void *dst, size_t n)
{
    unsigned char *out = dst;
    memset(out, 0, n);
    uint64_t end = addr + n;
    for (size_t i = lower_index(img, addr); i < img->count; i++) {
        const gpuest_alloc_t *a = img->sorted[i];
        if (a->base >= end)
            break;
        uint64_t lo = a->base > addr ? a->base : addr;
        uint64_t hi = a->base + a->size < end ? a->base + a->size : end;
        memcpy(out + (lo - addr), a->data + (lo - a->base), (size_t)(hi - lo));
    }
}

const gpuest_alloc_t *gpuest_memimg_read_line(const gpuest_memimg_t *img, uint64_t addr,
                                              unsigned char out[GPUEST_LINE_BYTES])
{
    uint64_t line = addr & ~(uint64_t)(GPUEST_LINE_BYTES - 1);
    gpuest_memimg_read(img, line, out, GPUEST_LINE_BYTES);
    size_t i = lower_index(img, line);
    if (i < img->count && img->sorted[i]->base < line + GPUEST_LINE_BYTES)
        return img->sorted[i];
    return NULL;
}

gpuest_err gpuest_memimg_write(gpuest_memimg_t *img, uint64_t addr, const void *src, size_t n, gpuest_error_t *err)
{
    const unsigned char *in = src;
    while (n > 0) {
        gpuest_alloc_t *a = gpuest_memimg_find(img, addr);
        if (!a)
            return gpuest_fail(err, GPUEST_ERANGE, "write to 0x%llx: address is in no allocation",
                               (unsigned long long)addr);
        uint64_t room = a->base + a->size - addr;
        size_t k = room < n ? (size_t)room : n;
        memcpy(a->data + (addr - a->base), in, k);
        addr += k, in += k, n -= k;
    }
    return GPUEST_OK;
}

int gpuest_memimg_has_values(const gpuest_memimg_t *img) { return img->has_values; }
void gpuest_memimg_set_has_values(gpuest_memimg_t *img, int has_values) { img->has_values = has_values; }
