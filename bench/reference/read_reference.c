/* read_reference.c -- time libzarr reading one float32 array of a Kerchunk reference set
 * whole (the reference benchmark, bench/reference/bench.py).
 *
 * Usage: read_reference URL ARRAY_PATH REPS
 *
 * Opens the store and the array once (not timed) and prints `opened`; then reads the whole
 * array REPS times into one buffer (allocated and touched before the first repetition, so
 * page faults are not timed), printing the seconds of each; then `sum S`, the sum of the
 * last read's values in double, which bench.py compares with the peers' sums.
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
    zarr_data_type type;
    uint64_t shape[8], start[8] = {0};
    size_t ndim = 0, nbytes = 0, i;
    int reps, r;
    float *buf;
    double sum = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: read_reference URL ARRAY_PATH REPS\n");
        return 2;
    }
    reps = atoi(argv[3]);
    if (zarr_store_open_url(argv[1], NULL, &store) != ZARR_OK ||
        zarr_array_open(store, argv[2], &array) != ZARR_OK ||
        zarr_array_data_type(array, &type) != ZARR_OK ||
        zarr_array_ndim(array, &ndim) != ZARR_OK || ndim > 8 ||
        zarr_array_shape(array, ndim, shape) != ZARR_OK ||
        zarr_array_selection_nbytes(array, ndim, start, shape, &nbytes) != ZARR_OK) {
        fprintf(stderr, "%s\n", zarr_last_error_message());
        return 1;
    }
    if (type != ZARR_DATA_TYPE_FLOAT32) {
        fprintf(stderr, "%s is %s, not float32\n", argv[2], zarr_data_type_str(type));
        return 1;
    }
    buf = malloc(nbytes);
    if (buf == NULL) return 1;
    memset(buf, 1, nbytes);
    printf("opened\n");
    fflush(stdout);
    for (r = 0; r < reps; r++) {
        double t0 = now();
        if (zarr_array_read(array, ndim, start, shape, buf, nbytes) != ZARR_OK) {
            fprintf(stderr, "%s\n", zarr_last_error_message());
            return 1;
        }
        printf("%.6f\n", now() - t0);
        fflush(stdout);
    }
    for (i = 0; i < nbytes / sizeof(float); i++) sum += buf[i];
    printf("sum %.17g\n", sum);
    free(buf);
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}
