/* progress.c -- see progress.h. */
#define _XOPEN_SOURCE 700
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

double progress_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_start(progress *p, size_t narrays, uint64_t total_bytes) {
    memset(p, 0, sizeof *p);
    p->enabled = isatty(2);
    p->narrays = narrays;
    p->total_bytes = total_bytes;
    p->start = progress_now();
}

/* "1:05" or "2:03:00" */
static const char *clock_text(double seconds, char *buf, size_t len) {
    unsigned long s = seconds < 0 ? 0 : seconds > 359999999.0 ? 359999999UL : (unsigned long)(seconds + 0.5);
    if (s >= 3600) snprintf(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else snprintf(buf, len, "%lu:%02lu", s / 60, s % 60);
    return buf;
}

/* "0.3 s" below a minute, else as clock_text. */
static const char *duration_text(double seconds, char *buf, size_t len) {
    if (seconds < 59.95) snprintf(buf, len, "%.1f s", seconds < 0 ? 0.0 : seconds);
    else clock_text(seconds, buf, len);
    return buf;
}

static void draw(progress *p, double now) {
    char done[32], total[32], rate[32], left[32];
    double elapsed = now - p->start, speed = elapsed > 0 ? (double)p->done_bytes / elapsed : 0;
    int width = 20, filled = p->cur_total ? (int)((double)p->cur_done / (double)p->cur_total * width) : width, i;
    int pct_all = p->total_bytes && p->done_bytes < p->total_bytes
                      ? (int)((double)p->done_bytes * 100.0 / (double)p->total_bytes)
                      : 100;
    fprintf(stderr, "\r\033[K[%lu/%lu] %s [", (unsigned long)p->index, (unsigned long)p->narrays, p->current);
    for (i = 0; i < width; i++) fputc(i < filled ? '#' : '.', stderr);
    fprintf(stderr, "] %s/%s", human_bytes(p->cur_done, done, sizeof done), human_bytes(p->cur_total, total, sizeof total));
    if (p->narrays > 1)
        fprintf(stderr, "  all %d%% of %s", pct_all, human_bytes(p->total_bytes, total, sizeof total));
    fprintf(stderr, "  %s/s", human_bytes((uint64_t)speed, rate, sizeof rate));
    if (speed > 0 && elapsed >= 1.0 && p->total_bytes > p->done_bytes) /* arrays copied as stored add bytes */
        fprintf(stderr, "  %s left", clock_text((double)(p->total_bytes - p->done_bytes) / speed, left, sizeof left));
    fflush(stderr);
    p->drawn = 1;
    p->last_draw = now;
}

void progress_array(progress *p, const char *path, uint64_t nbytes) {
    p->index++;
    p->current = path;
    p->cur_total = nbytes;
    p->cur_done = 0;
    if (p->enabled) draw(p, progress_now());
}

void progress_add(progress *p, uint64_t nbytes) {
    double now;
    p->cur_done += nbytes;
    p->done_bytes += nbytes;
    if (!p->enabled) return;
    now = progress_now();
    if (now - p->last_draw >= 0.1 || p->cur_done >= p->cur_total) draw(p, now);
}

void progress_clear(progress *p) {
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = 0;
    }
}

void progress_finish(progress *p, size_t arrays, size_t groups, size_t skipped) {
    char bytes[32], rate[32], took[32];
    double elapsed = progress_now() - p->start;
    if (!p->enabled) return;
    progress_clear(p);
    fprintf(stderr, "zarr cp: copied %lu array%s (%s) and %lu group%s in %s (%s/s)", (unsigned long)arrays,
            arrays == 1 ? "" : "s", human_bytes(p->done_bytes, bytes, sizeof bytes), (unsigned long)groups,
            groups == 1 ? "" : "s", duration_text(elapsed, took, sizeof took),
            human_bytes(elapsed > 0 ? (uint64_t)((double)p->done_bytes / elapsed) : p->done_bytes, rate, sizeof rate));
    if (skipped) fprintf(stderr, "; skipped %lu array%s", (unsigned long)skipped, skipped == 1 ? "" : "s");
    fputc('\n', stderr);
    fflush(stderr);
}
