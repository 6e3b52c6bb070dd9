/* progress.h -- the progress display of `zarr cp` on a terminal: the current array with
 * its bytes, the overall progress across a group, the rate and the time left, and a
 * summary line at the end. Everything goes to stderr, and only when stderr is a terminal. */
#ifndef ZARR_TOOL_PROGRESS_H
#define ZARR_TOOL_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int enabled;              /* stderr is a terminal */
    int drawn;                /* a line is on the screen */
    uint64_t total_bytes;     /* decoded bytes of every array to copy */
    uint64_t done_bytes;      /* of those, copied so far (finished arrays and the current one) */
    size_t narrays, index;    /* arrays to copy; the current one, from 1 */
    const char *current;      /* its path */
    uint64_t cur_total, cur_done;
    double start, last_draw;  /* seconds (monotonic) */
} progress;

/* Start: `narrays` arrays of `total_bytes` decoded bytes in all. */
void progress_start(progress *p, size_t narrays, uint64_t total_bytes);
/* The next array, of `nbytes` decoded bytes. */
void progress_array(progress *p, const char *path, uint64_t nbytes);
/* `nbytes` more of the current array copied; redraws at most ten times a second. */
void progress_add(progress *p, uint64_t nbytes);
/* Clear the line, so that a message can be printed. */
void progress_clear(progress *p);
/* The closing summary: "copied 5 arrays (1.2 MiB) and 2 groups in 0.3 s (4.0 MiB/s)". */
void progress_finish(progress *p, size_t arrays, size_t groups, size_t skipped);

/* Seconds on a monotonic clock. */
double progress_now(void);

#endif
