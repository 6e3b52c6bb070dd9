/* bench_zarr.c -- libzarr's side of the benchmark (see bench/README.md).
 *
 * Usage: bench_zarr OP STORE NX NY NZ [RAW]
 *   OP: write (from the float32 file RAW, C order), read (the whole array),
 *       read_inner (inner chunk / chunk (1,1,1)), read_element (element (NX/2, NY/3, NZ/5)).
 * Prints one JSON line: {"impl", "op", "seconds", "peak_rss_mib", "checksum"}. Only the
 * operation is timed; each run is a fresh process so the peak RSS belongs to one operation.
 * For `write` the array must already exist (created by peers.py with the layout's metadata).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "zarr.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sum of the buffer as wrapping uint64 words (and trailing bytes): every implementation
 * computes the same, so results can be checked against each other. */
static uint64_t checksum(const unsigned char *data, size_t len) {
    uint64_t sum = 0, word;
    size_t i;
    for (i = 0; i + 8 <= len; i += 8) {
        memcpy(&word, data + i, 8);
        sum += word;
    }
    for (; i < len; i++) sum += data[i];
    return sum;
}

static void die(const char *what) {
    fprintf(stderr, "bench_zarr: %s: %s\n", what, zarr_last_error_message());
    exit(1);
}

int main(int argc, char **argv) {
    const char *op, *store_path;
    uint64_t shape[3], start[3] = {0, 0, 0}, inner[3] = {1, 1, 1}, one[3] = {1, 1, 1};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    unsigned char *buf = NULL;
    size_t nbytes = 0;
    double t0, seconds;
    uint64_t sum = 0;
    struct rusage usage;

    if (argc < 6) {
        fprintf(stderr, "usage: bench_zarr OP STORE NX NY NZ [RAW]\n");
        return 2;
    }
    op = argv[1];
    store_path = argv[2];
    shape[0] = strtoull(argv[3], NULL, 10);
    shape[1] = strtoull(argv[4], NULL, 10);
    shape[2] = strtoull(argv[5], NULL, 10);
    if (zarr_store_open_filesystem(store_path, &store) != ZARR_OK) die("open store");
    if (zarr_array_open(store, "/", &array) != ZARR_OK) die("open array");

    if (strcmp(op, "write") == 0) {
        FILE *f;
        if (argc < 7) die("write needs RAW");
        nbytes = (size_t)(shape[0] * shape[1] * shape[2] * 4);
        buf = malloc(nbytes);
        f = fopen(argv[6], "rb");
        if (!buf || !f || fread(buf, 1, nbytes, f) != nbytes) die("read RAW");
        fclose(f);
        t0 = now();
        if (zarr_array_write(array, 3, start, shape, buf, nbytes) != ZARR_OK) die("write");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read") == 0) {
        nbytes = (size_t)(shape[0] * shape[1] * shape[2] * 4);
        buf = malloc(nbytes);
        t0 = now();
        if (zarr_array_read(array, 3, start, shape, buf, nbytes) != ZARR_OK) die("read");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read_inner") == 0) {
        uint64_t inner_shape[3];
        if (zarr_array_inner_chunk_shape(array, 3, inner_shape) != ZARR_OK) die("inner shape");
        nbytes = (size_t)(inner_shape[0] * inner_shape[1] * inner_shape[2] * 4);
        buf = malloc(nbytes);
        t0 = now();
        if (zarr_array_read_inner_chunk(array, 3, inner, buf, nbytes) != ZARR_OK) die("read_inner");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read_element") == 0) {
        uint64_t at[3] = {shape[0] / 2, shape[1] / 3, shape[2] / 5};
        nbytes = 4;
        buf = malloc(nbytes);
        t0 = now();
        if (zarr_array_read(array, 3, at, one, buf, nbytes) != ZARR_OK) die("read_element");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else {
        fprintf(stderr, "unknown op %s\n", op);
        return 2;
    }
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"impl\": \"libzarr\", \"op\": \"%s\", \"seconds\": %.6f, \"peak_rss_mib\": %.1f, "
           "\"checksum\": \"%llu\"}\n",
           op, seconds, (double)usage.ru_maxrss / 1024.0, (unsigned long long)sum);
    free(buf);
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}
