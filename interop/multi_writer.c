/* multi_writer.c -- four processes write unaligned slabs of one array at the same moment,
 * trial after trial; nothing may be lost (issue: no lost update across processes).
 *
 *   interop_multi_writer DATA_DIR LAYOUT TRIALS [--kill]
 *
 * DATA_DIR names the store as in open_store.h (a directory, or an s3:// URL on the
 * loopback server). LAYOUT is v3 (chunks of 16 rows), sharded (shards of 48 rows, inner
 * chunks of 16 x 32 x 32) or v2 (chunks of 16 rows). Each trial creates the array
 * /LAYOUT_<trial> (int32, 96 x 64 x 64, fill value 0, zstd), forks four writers that each
 * open the store with zarr_store_open_url and the array with zarr_array_open, waits until
 * all four are ready, then lets them go at once (a start gate): writer w writes rows
 * 24w .. 24w + 24 in one zarr_array_write, so every writer shares a chunk (shard) with its
 * neighbours. Element i (C order) is written as i + 1.
 *
 * With --kill, writer 1 is killed with SIGKILL a random moment (0-4 ms) after the gate
 * opens, so that it sometimes dies holding a chunk's lock: the other three must still
 * finish, and its own slab may hold its values or the fill value, nothing else.
 *
 * After each trial the parent reads the array back and counts the elements lost. The
 * arrays are left for interop/python_check_multi_writer.py, with DATA_DIR/LAYOUT.json
 * listing them (and which writer was killed). Exit status 0 when every writer returned
 * ZARR_OK (the killed one aside) and nothing was lost. */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "open_store.h"

#define WRITERS 4
#define ROWS 96
#define SIDE 64
#define SLAB (ROWS / WRITERS)
#define ELEMENTS ((size_t)ROWS * SIDE * SIDE)
#define KILLED_WRITER 1

static const char *V3 =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [96, 64, 64],"
    " \"data_type\": \"int32\", \"fill_value\": 0,"
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [16, 64, 64]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";

static const char *SHARDED =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [96, 64, 64],"
    " \"data_type\": \"int32\", \"fill_value\": 0,"
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [48, 64, 64]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    "   \"chunk_shape\": [16, 32, 32],"
    "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
    "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "                    {\"name\": \"crc32c\"}],"
    "   \"index_location\": \"end\"}}]}";

static const char *V2 =
    "{\"zarr_format\": 2, \"shape\": [96, 64, 64], \"chunks\": [16, 64, 64], \"dtype\": \"<i4\","
    " \"compressor\": {\"id\": \"zstd\", \"level\": 1}, \"fill_value\": 0, \"filters\": null,"
    " \"order\": \"C\"}";

static void sleep_us(long us) {
    struct timespec t;
    t.tv_sec = us / 1000000;
    t.tv_nsec = (us % 1000000) * 1000;
    nanosleep(&t, NULL);
}

static int fail(const char *what, zarr_status status) {
    fprintf(stderr, "multi_writer: %s: %s: %s\n", what, zarr_status_str(status),
            zarr_last_error_message());
    return 1;
}

/* One writer: open the store and the array, wait at the gate, write the slab. Returns the
 * process's exit status. */
static int write_slab(const char *data_dir, const char *path, int writer, int gate) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t start[3] = {(uint64_t)writer * SLAB, 0, 0}, count[3] = {SLAB, SIDE, SIDE};
    size_t n = (size_t)SLAB * SIDE * SIDE, i;
    int32_t *values = malloc(n * sizeof *values);
    char go;
    zarr_status status;
    alarm(300); /* a writer that hangs dies of SIGALRM: a failure, not a stuck test */
    if (values == NULL) return 2;
    for (i = 0; i < n; i++) values[i] = (int32_t)(start[0] * SIDE * SIDE + i + 1);
    if (interop_open_store(data_dir, &store) != 0) return 3;
    status = zarr_array_open(store, path, &array);
    if (status != ZARR_OK) return fail("zarr_array_open", status);
    if (read(gate, &go, 1) != 0) return 4; /* returns 0 when the parent opens the gate */
    status = zarr_array_write(array, 3, start, count, values, n * sizeof *values);
    if (status != ZARR_OK) return fail("zarr_array_write", status);
    zarr_array_free(array);
    zarr_store_free(store);
    free(values);
    return 0;
}

/* Elements of the array at `path` that hold neither their value nor, in the slab of a
 * killed writer, the fill value. */
static long count_lost(zarr_store *store, const char *path, int killed, int32_t *back) {
    zarr_array *array = NULL;
    uint64_t start[3] = {0, 0, 0}, count[3] = {ROWS, SIDE, SIDE};
    long lost = 0;
    size_t i;
    zarr_status status = zarr_array_open(store, path, &array);
    if (status == ZARR_OK)
        status = zarr_array_read(array, 3, start, count, back, ELEMENTS * sizeof *back);
    if (status != ZARR_OK) {
        fail("reading back", status);
        zarr_array_free(array);
        return -1;
    }
    zarr_array_free(array);
    for (i = 0; i < ELEMENTS; i++) {
        int writer = (int)(i / ((size_t)SLAB * SIDE * SIDE));
        int ok = back[i] == (int32_t)(i + 1) || (writer == killed && back[i] == 0);
        if (!ok) lost++;
    }
    return lost;
}

int main(int argc, char **argv) {
    const char *data_dir, *layout, *metadata;
    int trials, kill_mode, trial, failures = 0;
    long total_lost = 0;
    int32_t *back;
    zarr_store *store = NULL;
    char manifest[8400];
    FILE *list;
    if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "--kill") != 0)) {
        fprintf(stderr, "usage: %s DATA_DIR v3|sharded|v2 TRIALS [--kill]\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    layout = argv[2];
    trials = atoi(argv[3]);
    kill_mode = argc == 5;
    metadata = strcmp(layout, "v3") == 0        ? V3
               : strcmp(layout, "sharded") == 0 ? SHARDED
               : strcmp(layout, "v2") == 0      ? V2
                                                : NULL;
    if (metadata == NULL || trials < 1) {
        fprintf(stderr, "multi_writer: unknown layout '%s' or bad trial count\n", layout);
        return 2;
    }
    back = malloc(ELEMENTS * sizeof *back);
    if (back == NULL || interop_open_store(data_dir, &store) != 0) return 1;
    snprintf(manifest, sizeof manifest, "%s/%s%s.json", data_dir, layout, kill_mode ? "_kill" : "");
    list = fopen(manifest, "w");
    if (list == NULL) {
        perror(manifest);
        return 1;
    }
    fprintf(list, "[");
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    for (trial = 0; trial < trials; trial++) {
        char path[64];
        zarr_array *array = NULL;
        pid_t writers[WRITERS];
        int gate[2], w, exit_ok = 1, killed = -1;
        long lost;
        zarr_status status;
        snprintf(path, sizeof path, "/%s%s_%d", layout, kill_mode ? "_kill" : "", trial);
        status = zarr_array_create(store, path, metadata, &array);
        if (status != ZARR_OK) return fail("zarr_array_create", status);
        zarr_array_free(array);
        if (pipe(gate) != 0) return 1;
        fflush(NULL);
        for (w = 0; w < WRITERS; w++) {
            writers[w] = fork();
            if (writers[w] < 0) return 1;
            if (writers[w] == 0) {
                close(gate[1]);
                _exit(write_slab(data_dir, path, w, gate[0]));
            }
        }
        close(gate[0]);
        /* The writers opened what they need while the parent forked; a short pause lets
         * the last one reach the gate, then closing the pipe releases all four at once. */
        sleep_us(20000);
        close(gate[1]);
        if (kill_mode) {
            sleep_us(rand() % 4000);
            kill(writers[KILLED_WRITER], SIGKILL);
            killed = KILLED_WRITER;
        }
        for (w = 0; w < WRITERS; w++) {
            int status = 0;
            waitpid(writers[w], &status, 0);
            if (w == killed) continue;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "multi_writer: %s: writer %d failed (status %d)\n", path, w,
                        status);
                exit_ok = 0;
            }
        }
        lost = count_lost(store, path, killed, back);
        if (!exit_ok || lost != 0) failures++;
        if (lost < 0) fprintf(stderr, "multi_writer: %s: cannot be read back\n", path);
        if (lost > 0) fprintf(stderr, "multi_writer: %s: %ld elements lost\n", path, lost);
        total_lost += lost > 0 ? lost : 0;
        fprintf(list, "%s{\"path\": \"%s\", \"killed\": %d}", trial ? ", " : "", path, killed);
    }
    fprintf(list, "]\n");
    fclose(list);
    printf("multi_writer %s%s: %d trials of %d writers, %ld of %ld elements lost, %d failed "
           "trials\n",
           layout, kill_mode ? " (one writer killed each trial)" : "", trials, WRITERS,
           total_lost, (long)ELEMENTS * trials, failures);
    zarr_store_free(store);
    free(back);
    return failures == 0 ? 0 : 1;
}
