/* progress.c: a one-line progress bar with rate, drawn only on terminals. */
#include "core.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct gpuest_progress_s {
    FILE *stream;
    char label[48];
    char unit[24];
    char aux_unit[24];
    uint64_t aux;
    uint64_t total;
    double start_s;
    double last_draw_s;
    int show_count; /* 1: "done/total" after the percentage */
};

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

gpuest_progress_t *gpuest_progress_create_forced(FILE *stream, const char *label, uint64_t total)
{
    gpuest_progress_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->stream = stream;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    p->total = total;
    p->start_s = monotonic_seconds();
    p->last_draw_s = -1.0;
    return p;
}

gpuest_progress_t *gpuest_progress_create(FILE *stream, const char *label, uint64_t total)
{
    if (!stream || !isatty(fileno(stream)))
        return NULL;
    return gpuest_progress_create_forced(stream, label, total);
}

void gpuest_progress_set_unit(gpuest_progress_t *p, const char *unit)
{
    if (p)
        snprintf(p->unit, sizeof p->unit, "%s", unit ? unit : "");
}

static void draw(gpuest_progress_t *p, uint64_t done, double now)
{
    enum { WIDTH = 30 };
    double frac = p->total ? (double)done / (double)p->total : 0.0;
    if (frac > 1.0)
        frac = 1.0;
    int filled = (int)(frac * WIDTH);
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    double elapsed = now - p->start_s;
    double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
    fprintf(p->stream, "\r%s [%s] %5.1f%%", p->label, bar, frac * 100.0);
    if (p->show_count)
        fprintf(p->stream, "  %llu/%llu", (unsigned long long)done, (unsigned long long)p->total);
    if (p->unit[0])
        fprintf(p->stream, "  %.0f %s/s", rate, p->unit);
    if (p->aux_unit[0])
        fprintf(p->stream, "  %.0f %s/s", elapsed > 0 ? (double)p->aux / elapsed : 0.0, p->aux_unit);
    if (p->total && done > 0 && done < p->total && elapsed > 0) {
        double eta = elapsed * (double)(p->total - done) / (double)done;
        fprintf(p->stream, "  ETA %02d:%02d:%02d", (int)(eta / 3600), (int)(eta / 60) % 60, (int)eta % 60);
    }
    fputs("   ", p->stream); /* wipes the tail of a longer previous line */
    fflush(p->stream);
}

void gpuest_progress_set_aux_unit(gpuest_progress_t *p, const char *unit)
{
    if (p)
        snprintf(p->aux_unit, sizeof p->aux_unit, "%s", unit ? unit : "");
}

void gpuest_progress_update_aux(gpuest_progress_t *p, uint64_t done, uint64_t aux)
{
    if (!p)
        return;
    p->aux = aux;
    gpuest_progress_update(p, done);
}

void gpuest_progress_update(gpuest_progress_t *p, uint64_t done)
{
    if (!p)
        return;
    double now = monotonic_seconds();
    if (p->last_draw_s >= 0 && now - p->last_draw_s < 0.1)
        return; /* redraw at most 10 times a second */
    p->last_draw_s = now;
    draw(p, done, now);
}

void gpuest_progress_finish(gpuest_progress_t *p)
{
    if (!p)
        return;
    draw(p, p->total, monotonic_seconds());
    fputc('\n', p->stream);
    fflush(p->stream);
    free(p);
}

void gpuest_progress_show_count(gpuest_progress_t *p)
{
    if (p)
        p->show_count = 1;
}
