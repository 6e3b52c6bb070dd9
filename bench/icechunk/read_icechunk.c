/* read_icechunk.c -- time libzarr reading one array of an Icechunk repository (the
 * Icechunk benchmark, bench/icechunk/run.sh).
 *
 * Usage: read_icechunk URL ARRAY_PATH {whole|chunk} REPS [OPTIONS_JSON]
 *
 * Opens the repository (zarr_store_open_url: branch main unless OPTIONS_JSON says
 * otherwise) and the array once, not timed, and prints `opened`. Then reads the whole
 * array, or the chunk (1, 1, 1) of a 3-d array with 64^3 (inner) chunks, REPS times, each
 * repetition through a fresh zarr_array_read, and prints one line per repetition: the
 * seconds it took. The buffer is allocated and touched once before the first repetition,
 * so page faults are not timed. The sum of the values read is printed last, so that the
 * peer's can be compared with it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zarr.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t shape[8], start[8], count[8];
    size_t ndim = 0, nbytes = 0, i;
    int reps, r, whole;
    float *buf;
    double sum = 0;
    if (argc < 5) {
        fprintf(stderr, "usage: read_icechunk URL ARRAY_PATH {whole|chunk} REPS [OPTIONS_JSON]\n");
        return 2;
    }
    whole = strcmp(argv[3], "whole") == 0;
    reps = atoi(argv[4]);
    if (zarr_store_open_url(argv[1], argc > 5 ? argv[5] : NULL, &store) != ZARR_OK ||
        zarr_array_open(store, argv[2], &array) != ZARR_OK ||
        zarr_array_ndim(array, &ndim) != ZARR_OK || ndim > 8 ||
        zarr_array_shape(array, ndim, shape) != ZARR_OK) {
        fprintf(stderr, "%s\n", zarr_last_error_message());
        return 1;
    }
    for (i = 0; i < ndim; i++) {
        start[i] = whole ? 0 : 64;
        count[i] = whole ? shape[i] : 64;
    }
    if (zarr_array_selection_nbytes(array, ndim, start, count, &nbytes) != ZARR_OK) {
        fprintf(stderr, "%s\n", zarr_last_error_message());
        return 1;
    }
    buf = malloc(nbytes);
    if (buf == NULL) return 1;
    memset(buf, 1, nbytes);
    printf("opened\n");
    fflush(stdout);
    for (r = 0; r < reps; r++) {
        double t0 = now();
        if (zarr_array_read(array, ndim, start, count, buf, nbytes) != ZARR_OK) {
            fprintf(stderr, "%s\n", zarr_last_error_message());
            return 1;
        }
        printf("%.6f\n", now() - t0);
        fflush(stdout);
    }
    for (i = 0; i < nbytes / sizeof(float); i++) sum += buf[i];
    printf("sum %.6e\n", sum);
    free(buf);
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}
