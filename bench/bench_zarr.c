/* bench_zarr.c -- libzarr's side of the benchmark (see bench/README.md).
 *
 * Usage: bench_zarr OP STORE NX NY NZ [RAW]
 *   OP: write (from the float32 file RAW, C order), write_partial (the same data in slabs
 *       that start half a chunk in, so each chunk is written in two partial updates: see
 *       write_partial below), read (the whole array), read_again
 *       (the whole array again, into the buffer a first, untimed, read filled),
 *       read_inner (inner chunk / chunk (1,1,1)), read_element (element (NX/2, NY/3, NZ/5)),
 *       decode_limit and decode_limit_reused (the decode limit of the store: every stored
 *       chunk is first read into memory, untimed; then the workers of libzarr's pool, as
 *       many threads, decode the units a read decodes (chunks, or a shard's inner chunks)
 *       with zarr_array_decode_chunk, no file system and no scatter: into one fresh
 *       buffer of the array's size, unit after unit, as a read must fill fresh memory
 *       (decode_limit; each worker first faults in its share of the buffer in one madvise
 *       call, as libzarr's reads do), or each worker into one unit's buffer it reuses, so
 *       that no page is ever faulted in (decode_limit_reused)),
 *       bare_read (the work of a whole read done by the simplest program, with nothing of
 *       libzarr but its codecs: as many threads as libzarr's pool, each faults in its share
 *       of a fresh buffer, then takes chunk after chunk: pread the chunk's file into a buffer
 *       it reuses, zarr_array_decode_chunk into another, memcpy each row into place; for
 *       float32 arrays of regular chunks, not shards, whose shape the chunks divide).
 * Prints one JSON line: {"impl", "op", "seconds", "peak_rss_mib", "checksum"}. Only the
 * operation is timed; each run is a fresh process so the peak RSS belongs to one operation.
 * For `write` the array must already exist (created by peers.py with the layout's metadata).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* An array's buffer. By default plain malloc: 4 KiB pages, as a C caller gets them (and
 * peers.py turns numpy's huge-page advice off, so every implementation writes into the same
 * kind of memory). ZARR_BENCH_PAGES=huge gives it what numpy gives its arrays of 4 MiB and
 * more on Linux: transparent huge pages advised for the buffer's whole pages (peers.py then
 * leaves numpy's advice on). */
static void *alloc_array(size_t nbytes) {
    unsigned char *p = malloc(nbytes);
    const char *pages = getenv("ZARR_BENCH_PAGES");
    if (p && nbytes >= ((size_t)1 << 22) && pages && strcmp(pages, "huge") == 0) {
        size_t offset = 4096 - (uintptr_t)p % 4096;
        madvise(p + offset, nbytes - offset, MADV_HUGEPAGE);
    }
    return p;
}

/* A chunk's stored bytes, read into memory for the decode limit. */
struct stored_chunk {
    void *bytes;
    size_t len;
};

/* Linux 5.14; older kernels refuse it (EINVAL) and the pages fault in one by one. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The work that the decode limit's and the bare read's threads share. */
struct decode_job {
    zarr_array *array;
    struct stored_chunk *chunks;
    size_t n_chunks, chunk_nbytes;
    unsigned char *out;  /* fresh: chunk i at i * chunk_nbytes; NULL: each worker reuses one */
    size_t next;         /* the next chunk to take, shared (atomic) */
    size_t next_part, workers; /* shares of `out` to fault in, one per worker */
    int failed;          /* set (atomically) by any worker that failed */
    /* bare_read only: each chunk's file, the largest file's size, the geometry */
    char **paths;
    size_t max_stored;
    uint64_t shape[3], chunk[3], grid[3];
};

/* The number of threads in libzarr's pool (at most 256), which the decode limit and the
 * bare read use as many of. */
static size_t pool_workers(void) {
    size_t workers = 1;
    if (zarr_thread_pool_size(&workers) != ZARR_OK) die("pool size");
    return workers > 256 ? 256 : workers;
}

/* Run `worker` on `job->workers` threads; returns the seconds until all have finished. */
static double run_workers(struct decode_job *job, void *(*worker)(void *)) {
    pthread_t threads[256];
    size_t t;
    double t0 = now();
    for (t = 0; t < job->workers; t++) pthread_create(&threads[t], NULL, worker, job);
    for (t = 0; t < job->workers; t++) pthread_join(threads[t], NULL);
    return now() - t0;
}

/* Fault in one worker's share of the fresh output, whole pages inside it only. */
static void populate_share(struct decode_job *job) {
    size_t total = job->n_chunks * job->chunk_nbytes, page = 4096;
    size_t part = __sync_fetch_and_add(&job->next_part, 1);
    size_t share = (total + job->workers - 1) / job->workers;
    size_t from = part * share, to = (part + 1) * share;
    /* Rounding the share up can carry the last shares past the buffer: clamp them. */
    if (from > total) from = total;
    if (to > total) to = total;
    uintptr_t start = (uintptr_t)job->out + from, end = (uintptr_t)job->out + to;
    start = (start + page - 1) / page * page;
    end = end / page * page;
    if (end > start) madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

static void *decode_worker(void *arg) {
    struct decode_job *job = arg;
    unsigned char *own = job->out ? NULL : malloc(job->chunk_nbytes);
    if (job->out) populate_share(job);
    for (;;) {
        size_t i = __sync_fetch_and_add(&job->next, 1);
        unsigned char *dest;
        if (i >= job->n_chunks) break;
        dest = job->out ? job->out + i * job->chunk_nbytes : own;
        if (zarr_array_decode_chunk(job->array, job->chunks[i].bytes, job->chunks[i].len, dest,
                                    job->chunk_nbytes) != ZARR_OK)
            __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    }
    free(own);
    return NULL;
}

/* One worker of the bare read: its share of the output faulted in, then chunks until none
 * is left, each read, decoded and copied row by row into its place. */
static void *bare_worker(void *arg) {
    struct decode_job *job = arg;
    unsigned char *stored = malloc(job->max_stored ? job->max_stored : 1);
    unsigned char *decoded = malloc(job->chunk_nbytes);
    size_t row = (size_t)job->chunk[2] * 4;
    if (!stored || !decoded) {
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
        free(stored);
        free(decoded);
        return NULL;
    }
    populate_share(job);
    for (;;) {
        size_t i = __sync_fetch_and_add(&job->next, 1), len = 0, z, y;
        uint64_t c0, c1, c2;
        ssize_t got = 0;
        int fd;
        if (i >= job->n_chunks) break;
        /* The whole file: pread until the end (the buffer holds the largest file). */
        fd = open(job->paths[i], O_RDONLY);
        while (fd >= 0 && len < job->max_stored &&
               (got = pread(fd, stored + len, job->max_stored - len, (off_t)len)) > 0)
            len += (size_t)got;
        if (fd >= 0) close(fd);
        if (fd < 0 || got < 0 ||
            zarr_array_decode_chunk(job->array, stored, len, decoded, job->chunk_nbytes) !=
                ZARR_OK) {
            __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
            break;
        }
        c0 = i / (job->grid[1] * job->grid[2]);
        c1 = i / job->grid[2] % job->grid[1];
        c2 = i % job->grid[2];
        for (z = 0; z < job->chunk[0]; z++)
            for (y = 0; y < job->chunk[1]; y++) {
                size_t at = (size_t)(((c0 * job->chunk[0] + z) * job->shape[1] +
                                      c1 * job->chunk[1] + y) * job->shape[2] +
                                     c2 * job->chunk[2]) * 4;
                memcpy(job->out + at, decoded + (z * job->chunk[1] + y) * row, row);
            }
    }
    free(stored);
    free(decoded);
    return NULL;
}

/* The bare read of a 3-D float32 array of regular chunks: chunk paths and sizes gathered
 * (untimed), then the timed part as in bare_worker into a fresh buffer. */
static double bare_read(zarr_array *array, const char *store_path, const uint64_t shape[3],
                        uint64_t *sum, size_t *read_bytes) {
    uint64_t inner[3], idx[3];
    size_t n, i = 0, t;
    struct decode_job job;
    double seconds;
    memset(&job, 0, sizeof job);
    if (zarr_array_chunk_shape(array, 3, job.chunk) != ZARR_OK) die("chunk shape");
    if (zarr_array_inner_chunk_shape(array, 3, inner) != ZARR_OK) die("inner shape");
    if (memcmp(inner, job.chunk, sizeof inner) != 0) {
        fprintf(stderr, "bench_zarr: bare_read: sharded arrays are not supported\n");
        exit(2);
    }
    if (zarr_array_chunk_nbytes(array, &job.chunk_nbytes) != ZARR_OK) die("chunk nbytes");
    for (t = 0; t < 3; t++) {
        if (shape[t] % job.chunk[t] != 0) {
            fprintf(stderr, "bench_zarr: bare_read: the chunks must divide the shape\n");
            exit(2);
        }
        job.shape[t] = shape[t];
        job.grid[t] = shape[t] / job.chunk[t];
    }
    n = (size_t)(job.grid[0] * job.grid[1] * job.grid[2]);
    job.paths = calloc(n, sizeof *job.paths);
    if (!job.paths) die("allocate");
    for (idx[0] = 0; idx[0] < job.grid[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < job.grid[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < job.grid[2]; idx[2]++, i++) {
                char *key = NULL;
                struct stat st;
                size_t len;
                if (zarr_array_chunk_key(array, 3, idx, &key) != ZARR_OK) die("chunk key");
                len = strlen(store_path) + strlen(key) + 2;
                job.paths[i] = malloc(len);
                if (!job.paths[i]) die("allocate");
                snprintf(job.paths[i], len, "%s/%s", store_path, key);
                zarr_string_free(key);
                if (stat(job.paths[i], &st) != 0) {
                    fprintf(stderr, "bench_zarr: bare_read: every chunk must be stored: %s: %s\n",
                            job.paths[i], strerror(errno));
                    exit(1);
                }
                if ((size_t)st.st_size > job.max_stored) job.max_stored = (size_t)st.st_size;
            }
    job.array = array;
    job.n_chunks = n;
    job.workers = pool_workers();
    *read_bytes = n * job.chunk_nbytes;
    job.out = alloc_array(n * job.chunk_nbytes);
    if (!job.out) die("allocate output");
    seconds = run_workers(&job, bare_worker);
    if (job.failed) die("bare_read: read or decode");
    *sum = checksum(job.out, n * job.chunk_nbytes);
    free(job.out);
    for (i = 0; i < n; i++) free(job.paths[i]);
    free(job.paths);
    return seconds;
}

/* The text of the JSON array that follows `"key":` in `json` (brackets matched, strings
 * skipped), as a new string; NULL when the key is absent. Enough for the codec
 * configurations libzarr prints, not a JSON parser. */
static char *json_array_after(const char *json, const char *key) {
    const char *at = strstr(json, key), *p;
    int depth = 0, in_string = 0;
    char *text;
    if (!at || !(at = strchr(at + strlen(key), '['))) return NULL;
    for (p = at; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '[') {
            depth++;
        } else if (*p == ']' && --depth == 0) {
            break;
        }
    }
    if (!*p) return NULL;
    text = malloc((size_t)(p - at) + 2);
    if (!text) die("allocate");
    memcpy(text, at, (size_t)(p - at) + 1);
    text[p - at + 1] = '\0';
    return text;
}

/* The units a whole read decodes. For a sharded array these are the inner chunks, not the
 * shards: decoding a whole shard would add the shard's own scatter (inner chunks into the
 * shard's layout) to the limit, which a read does not do. The inner chunks are decoded by
 * an array of their own in a memory store: the inner chunk shape, the inner codecs. */
struct decode_units {
    zarr_store *inner_store; /* NULL when the array is not sharded */
    zarr_array *decoder;     /* the array whose codecs decode one unit */
    size_t unit_nbytes;
    int index_at_start;      /* the shard index's place ("index_location") */
    size_t inner_per_shard, index_len;
};

static void decode_units_open(zarr_array *array, struct decode_units *units) {
    uint64_t chunk[3], inner[3];
    size_t count = 0;
    char *name = NULL, *config = NULL, *inner_codecs, *index_codecs, meta[4096];
    zarr_data_type type;
    memset(units, 0, sizeof *units);
    units->decoder = array;
    if (zarr_array_chunk_nbytes(array, &units->unit_nbytes) != ZARR_OK) die("chunk nbytes");
    if (zarr_array_codec_count(array, &count) != ZARR_OK || count == 0 ||
        zarr_array_codec_name(array, 0, &name) != ZARR_OK)
        die("codecs");
    if (strcmp(name, "sharding_indexed") != 0) {
        zarr_string_free(name);
        return;
    }
    zarr_string_free(name);
    if (zarr_array_data_type(array, &type) != ZARR_OK) die("data type");
    if (type != ZARR_DATA_TYPE_FLOAT32) {
        fprintf(stderr, "bench_zarr: decode limit: sharded arrays must be float32\n");
        exit(2);
    }
    if (zarr_array_chunk_shape(array, 3, chunk) != ZARR_OK) die("chunk shape");
    if (zarr_array_inner_chunk_shape(array, 3, inner) != ZARR_OK) die("inner shape");
    if (zarr_array_codec_configuration_json(array, 0, &config) != ZARR_OK) die("sharding");
    /* The quote in "\"codecs\"" keeps "index_codecs" from matching; the first match is the
     * sharding codec's own key (nested codecs come later, inside its array). */
    index_codecs = json_array_after(config, "\"index_codecs\"");
    inner_codecs = json_array_after(config, "\"codecs\"");
    if (!inner_codecs || !index_codecs) {
        fprintf(stderr, "bench_zarr: decode limit: cannot read the sharding configuration\n");
        exit(2);
    }
    units->index_at_start = strstr(config, "\"index_location\":\"start\"") != NULL ||
                            strstr(config, "\"index_location\": \"start\"") != NULL;
    units->inner_per_shard =
        (size_t)((chunk[0] / inner[0]) * (chunk[1] / inner[1]) * (chunk[2] / inner[2]));
    /* The index: an offset and a length (two little-endian uint64) per inner chunk, then
     * 4 bytes of crc32c when the index codecs have it. */
    units->index_len = units->inner_per_shard * 16 + (strstr(index_codecs, "crc32c") ? 4 : 0);
    if (snprintf(meta, sizeof meta,
                 "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%llu,%llu,%llu],"
                 "\"data_type\":\"float32\",\"chunk_grid\":{\"name\":\"regular\","
                 "\"configuration\":{\"chunk_shape\":[%llu,%llu,%llu]}},"
                 "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0.0,"
                 "\"codecs\":%s}",
                 (unsigned long long)inner[0], (unsigned long long)inner[1],
                 (unsigned long long)inner[2], (unsigned long long)inner[0],
                 (unsigned long long)inner[1], (unsigned long long)inner[2],
                 inner_codecs) >= (int)sizeof meta)
        die("inner codecs too long");
    if (zarr_store_open_memory(&units->inner_store) != ZARR_OK ||
        zarr_array_create(units->inner_store, "/", meta, &units->decoder) != ZARR_OK)
        die("inner array");
    if (zarr_array_chunk_nbytes(units->decoder, &units->unit_nbytes) != ZARR_OK)
        die("inner nbytes");
    free(inner_codecs);
    free(index_codecs);
    zarr_string_free(config);
}

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Cut a shard's stored bytes into its inner chunks' bytes (pointers into `shard`),
 * appended to `chunks` from `*n`; inner chunks that are not stored are skipped. */
static void cut_shard(const struct decode_units *units, const unsigned char *shard,
                      size_t len, struct stored_chunk *chunks, size_t *n) {
    const unsigned char *index;
    size_t i, body_from, body_to;
    if (len < units->index_len) die("a shard shorter than its index");
    index = units->index_at_start ? shard : shard + len - units->index_len;
    body_from = units->index_at_start ? units->index_len : 0;
    body_to = units->index_at_start ? len : len - units->index_len;
    for (i = 0; i < units->inner_per_shard; i++) {
        uint64_t offset = le64(index + 16 * i), nbytes = le64(index + 16 * i + 8);
        if (offset == UINT64_MAX && nbytes == UINT64_MAX) continue;
        if (offset < body_from || offset > body_to || nbytes > body_to - offset) {
            fprintf(stderr, "bench_zarr: decode limit: a shard index points outside it\n");
            exit(1);
        }
        chunks[*n].bytes = (void *)(shard + offset);
        chunks[*n].len = (size_t)nbytes;
        (*n)++;
    }
}

/* Read every stored chunk of a 3-D array into memory (untimed), then time decoding all the
 * units a whole read decodes (chunks, or a shard's inner chunks) on the pool's number of
 * threads. Returns the seconds; `sum` gets a checksum of the decoded fresh buffer (or of
 * nothing, when reused). */
static double decode_limit(zarr_store *store, zarr_array *array, const uint64_t shape[3],
                           int fresh, uint64_t *sum, size_t *decoded_bytes) {
    uint64_t chunk[3], grid[3], idx[3];
    size_t n_stored, n = 0, i = 0, t;
    void **stored;
    struct stored_chunk *chunks;
    struct decode_units units;
    struct decode_job job;
    double t0, seconds;
    decode_units_open(array, &units);
    if (zarr_array_chunk_shape(array, 3, chunk) != ZARR_OK) die("chunk shape");
    for (t = 0; t < 3; t++) grid[t] = (shape[t] + chunk[t] - 1) / chunk[t];
    n_stored = (size_t)(grid[0] * grid[1] * grid[2]);
    stored = calloc(n_stored, sizeof *stored);
    chunks = calloc(n_stored * (units.inner_store ? units.inner_per_shard : 1), sizeof *chunks);
    if (!stored || !chunks) die("allocate");
    for (idx[0] = 0; idx[0] < grid[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < grid[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < grid[2]; idx[2]++, i++) {
                char *key = NULL;
                size_t len = 0;
                if (zarr_array_chunk_key(array, 3, idx, &key) != ZARR_OK) die("chunk key");
                if (zarr_store_get(store, key, NULL, 0, &len) != ZARR_OK) die("chunk size");
                stored[i] = malloc(len ? len : 1);
                if (!stored[i] || zarr_store_get(store, key, stored[i], len, &len) != ZARR_OK)
                    die("chunk bytes");
                zarr_string_free(key);
                if (units.inner_store) {
                    cut_shard(&units, stored[i], len, chunks, &n);
                } else {
                    chunks[n].bytes = stored[i];
                    chunks[n++].len = len;
                }
            }
    memset(&job, 0, sizeof job);
    job.array = units.decoder;
    job.chunks = chunks;
    job.n_chunks = n;
    job.chunk_nbytes = units.unit_nbytes;
    job.workers = pool_workers();
    *decoded_bytes = n * units.unit_nbytes;
    t0 = now();
    if (fresh) {
        job.out = alloc_array(n * units.unit_nbytes);
        if (!job.out) die("allocate output");
    }
    run_workers(&job, decode_worker);
    seconds = now() - t0; /* the output's allocation included, as it always was */
    if (job.failed) die("decode");
    *sum = fresh ? checksum(job.out, n * units.unit_nbytes) : 0;
    free(job.out);
    for (i = 0; i < n_stored; i++) free(stored[i]);
    free(stored);
    free(chunks);
    if (units.inner_store) {
        zarr_array_free(units.decoder);
        zarr_store_free(units.inner_store);
    }
    return seconds;
}

/* write_partial: the array written in slabs along the first dimension, each as high as a
 * chunk (shard) but starting half a chunk in, so that every chunk is written in two
 * partial updates (read, merge, write back, under the chunk's lock), the first onto
 * whatever the chunk held. One writer: the cost of a partial update and its protection,
 * not of contention. Returns the seconds of the writes. */
static double write_partial(zarr_array *array, const uint64_t shape[3], unsigned char *buf) {
    uint64_t chunk[3], row, step;
    size_t row_bytes = (size_t)(shape[1] * shape[2] * 4);
    double t0;
    if (zarr_array_chunk_shape(array, 3, chunk) != ZARR_OK) die("chunk shape");
    step = chunk[0];
    t0 = now();
    for (row = 0; row < shape[0];) {
        uint64_t height = row == 0 ? step / 2 : step;
        uint64_t at[3] = {row, 0, 0}, count[3] = {height, shape[1], shape[2]};
        if (height == 0) height = count[0] = 1;
        if (row + height > shape[0]) count[0] = height = shape[0] - row;
        if (zarr_array_write(array, 3, at, count, buf + row * row_bytes,
                             (size_t)height * row_bytes) != ZARR_OK)
            die("write_partial");
        row += height;
    }
    return now() - t0;
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

    if (strcmp(op, "write") == 0 || strcmp(op, "write_partial") == 0) {
        FILE *f;
        if (argc < 7) die("write needs RAW");
        nbytes = (size_t)(shape[0] * shape[1] * shape[2] * 4);
        buf = alloc_array(nbytes);
        f = fopen(argv[6], "rb");
        if (!buf || !f || fread(buf, 1, nbytes, f) != nbytes) die("read RAW");
        fclose(f);
        if (strcmp(op, "write") == 0) {
            t0 = now();
            if (zarr_array_write(array, 3, start, shape, buf, nbytes) != ZARR_OK) die("write");
            seconds = now() - t0;
        } else {
            seconds = write_partial(array, shape, buf);
        }
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read") == 0) {
        nbytes = (size_t)(shape[0] * shape[1] * shape[2] * 4);
        buf = alloc_array(nbytes);
        t0 = now();
        if (zarr_array_read(array, 3, start, shape, buf, nbytes) != ZARR_OK) die("read");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read_again") == 0) {
        /* A whole read into a buffer the first (untimed) read already filled. */
        nbytes = (size_t)(shape[0] * shape[1] * shape[2] * 4);
        buf = alloc_array(nbytes);
        if (!buf) die("allocate");
        if (zarr_array_read(array, 3, start, shape, buf, nbytes) != ZARR_OK) die("read");
        t0 = now();
        if (zarr_array_read(array, 3, start, shape, buf, nbytes) != ZARR_OK) die("read_again");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read_inner") == 0) {
        uint64_t inner_shape[3];
        if (zarr_array_inner_chunk_shape(array, 3, inner_shape) != ZARR_OK) die("inner shape");
        nbytes = (size_t)(inner_shape[0] * inner_shape[1] * inner_shape[2] * 4);
        buf = alloc_array(nbytes);
        t0 = now();
        if (zarr_array_read_inner_chunk(array, 3, inner, buf, nbytes) != ZARR_OK) die("read_inner");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "read_element") == 0) {
        uint64_t at[3] = {shape[0] / 2, shape[1] / 3, shape[2] / 5};
        nbytes = 4;
        buf = alloc_array(nbytes);
        t0 = now();
        if (zarr_array_read(array, 3, at, one, buf, nbytes) != ZARR_OK) die("read_element");
        seconds = now() - t0;
        sum = checksum(buf, nbytes);
    } else if (strcmp(op, "decode_limit") == 0 || strcmp(op, "decode_limit_reused") == 0) {
        seconds = decode_limit(store, array, shape, strcmp(op, "decode_limit") == 0, &sum,
                               &nbytes);
    } else if (strcmp(op, "bare_read") == 0) {
        seconds = bare_read(array, store_path, shape, &sum, &nbytes);
    } else {
        fprintf(stderr, "unknown op %s\n", op);
        return 2;
    }
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"impl\": \"libzarr\", \"op\": \"%s\", \"seconds\": %.6f, \"peak_rss_mib\": %.1f, "
           "\"checksum\": \"%llu\", \"bytes\": %zu}\n",
           op, seconds, (double)usage.ru_maxrss / 1024.0, (unsigned long long)sum, nbytes);
    free(buf);
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}
