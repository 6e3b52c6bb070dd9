/* contention.h -- processes contending for one chunk (test_concurrency.c, test_url.c).
 *
 * contention_run(url, options, metadata) creates the array /contended (int32, one chunk
 * of CONTENTION_ROWS x CONTENTION_WRITERS, or that shape as one shard, from `metadata`)
 * in the store at `url`, then forks CONTENTION_WRITERS processes. Each opens the store
 * with zarr_store_open_url and the array with zarr_array_open, waits at a start gate (a
 * pipe the parent closes once all are forked), then writes its own column of the chunk
 * one element at a time: every write is a read-merge-write of the same chunk, so the
 * writers contend for it all along. Afterwards every element must hold its writer's
 * value: an update lost to another writer shows as a fill value (0). */
#ifndef CONTENTION_H
#define CONTENTION_H

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ztest.h"

#define CONTENTION_WRITERS 4
#define CONTENTION_ROWS 24

/* The contended array in each layout: one chunk, one shard of inner chunks [8, 2], one v2
 * chunk. */
static const char *const CONTENTION_V3 =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [24, 4],"
    " \"data_type\": \"int32\", \"fill_value\": 0,"
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [24, 4]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";
static const char *const CONTENTION_SHARDED =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [24, 4],"
    " \"data_type\": \"int32\", \"fill_value\": 0,"
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [24, 4]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    "   \"chunk_shape\": [8, 2],"
    "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
    "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "                    {\"name\": \"crc32c\"}]}}]}";
static const char *const CONTENTION_V2 =
    "{\"zarr_format\": 2, \"shape\": [24, 4], \"chunks\": [24, 4], \"dtype\": \"<i4\","
    " \"compressor\": {\"id\": \"zlib\", \"level\": 1}, \"fill_value\": 0,"
    " \"filters\": null, \"order\": \"C\"}";

static int32_t contention_value(uint64_t row, uint64_t column) {
    return (int32_t)(row * 100 + column + 1);
}

/* One writer's process: returns its exit status (0: every write returned ZARR_OK). */
static int contention_writer(const char *url, const char *options, int column, int gate) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t row;
    char go;
    alarm(240); /* a writer that hangs dies of SIGALRM: a failure, not a stuck test */
    if (zarr_store_open_url(url, options, &store) != ZARR_OK ||
        zarr_array_open(store, "/contended", &array) != ZARR_OK)
        return 2;
    if (read(gate, &go, 1) != 0) return 3; /* 0 once the parent closes the gate */
    for (row = 0; row < CONTENTION_ROWS; row++) {
        uint64_t start[2] = {row, (uint64_t)column}, count[2] = {1, 1};
        int32_t value = contention_value(row, (uint64_t)column);
        zarr_status status = zarr_array_write(array, 2, start, count, &value, sizeof value);
        if (status != ZARR_OK) {
            fprintf(stderr, "writer %d, row %d: %s: %s\n", column, (int)row,
                    zarr_status_str(status), zarr_last_error_message());
            return 1;
        }
    }
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}

/* Create the array and start the writers (see the file comment); 0 on success. */
static int contention_start(const char *url, const char *options, const char *metadata,
                            pid_t writers[CONTENTION_WRITERS]) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int gate[2], w;
    if (zarr_store_open_url(url, options, &store) != ZARR_OK ||
        zarr_array_create(store, "/contended", metadata, &array) != ZARR_OK) {
        fprintf(stderr, "contention_start: %s\n", zarr_last_error_message());
        zarr_store_free(store);
        return -1;
    }
    zarr_array_free(array);
    zarr_store_free(store);
    if (pipe(gate) != 0) return -1;
    fflush(NULL);
    for (w = 0; w < CONTENTION_WRITERS; w++) {
        writers[w] = fork();
        if (writers[w] < 0) return -1;
        if (writers[w] == 0) {
            close(gate[1]);
            _exit(contention_writer(url, options, w, gate[0]));
        }
    }
    close(gate[0]);
    close(gate[1]); /* the writers that reached the gate go; the others pass it at once */
    return 0;
}

/* Wait for the writers, then check that every element holds its writer's value. */
static void contention_finish(const char *url, const char *options,
                              const pid_t writers[CONTENTION_WRITERS]) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int32_t back[CONTENTION_ROWS * CONTENTION_WRITERS];
    uint64_t start[2] = {0, 0}, count[2] = {CONTENTION_ROWS, CONTENTION_WRITERS}, r, c;
    int w;
    for (w = 0; w < CONTENTION_WRITERS; w++) {
        int status = 0;
        ZT_CHECK(waitpid(writers[w], &status, 0) == writers[w]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            ZT_FAIL_("writer %d ended with status %d", w, status);
    }
    ZT_OK(zarr_store_open_url(url, options, &store));
    ZT_OK(zarr_array_open(store, "/contended", &array));
    ZT_OK(zarr_array_read(array, 2, start, count, back, sizeof back));
    for (r = 0; r < CONTENTION_ROWS; r++)
        for (c = 0; c < CONTENTION_WRITERS; c++)
            if (back[r * CONTENTION_WRITERS + c] != contention_value(r, c))
                ZT_FAIL_("(%d, %d) holds %d: an update was lost", (int)r, (int)c,
                         (int)back[r * CONTENTION_WRITERS + c]);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* The whole contention; fails the calling test case on any loss. */
static void contention_run(const char *url, const char *options, const char *metadata) {
    pid_t writers[CONTENTION_WRITERS];
    ZT_CHECK(contention_start(url, options, metadata, writers) == 0);
    contention_finish(url, options, writers);
}

#endif
