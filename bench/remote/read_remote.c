/* read_remote.c -- time libzarr reading one array over a URL (the remote benchmark).
 *
 * Usage: read_remote URL ARRAY_PATH {whole|inner} REPS [OPTIONS_JSON]
 *
 * Opens the store (OPTIONS_JSON: zarr_store_open_url's options, e.g. the endpoint of an
 * emulator and credentials) and the array once (not timed) and prints `opened`, so that
 * the benchmark can leave the opening's requests out of its counts. Then reads the whole
 * array, or the inner chunk (1, 1, 1) of a 3-d array with 32^3 inner chunks, REPS times,
 * and prints one line per repetition: the seconds it took. The buffer is allocated and
 * touched once before the first repetition, so page faults are not timed.
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
    unsigned char *buf;
    if (argc < 5) {
        fprintf(stderr, "usage: read_remote URL ARRAY_PATH {whole|inner} REPS [OPTIONS_JSON]\n");
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
        start[i] = whole ? 0 : 32;
        count[i] = whole ? shape[i] : 32;
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
    free(buf);
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}
