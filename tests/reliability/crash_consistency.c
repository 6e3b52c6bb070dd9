/* crash_consistency.c -- kills a libzarr writer with SIGKILL at random moments and checks
 * after every kill that the store on disk is consistent (ctest label `crash`; see
 * docs/reliability.md).
 *
 *   crash_consistency DIR [MAX_KILLS [MAX_SECONDS [SEED]]]   the driver
 *   crash_consistency --write DIR                            the writer (runs until killed)
 *
 * The writer works on a file system store in generations g = 1, 2, 3, ...; in each it
 * writes, in this order ("units"):
 *   1. every chunk of /plain (int32 [8, 8], chunks [2, 4], zstd) with zarr_array_write_chunk;
 *   2. every inner chunk of /sharded (int32 [8, 8], shards [4, 8] of inner chunks [2, 2],
 *      index at the end with crc32c) with a region write, a read-modify-write of its shard;
 *   3. the attributes {"generation": g} of /plain, then of /sharded, then of the root
 *      group (each a rewrite of that node's zarr.json);
 *   4. consolidated metadata of the root group (a rewrite of the root zarr.json).
 * Every chunk (inner chunk) is all one value, g * 1000 + its index + 1, so the value says
 * which generation wrote it; 0 (the fill value) means never written. A restarted writer
 * reads the generation of the first unit and first finishes that generation.
 *
 * After each kill the driver opens the store and checks that every metadata document
 * parses, every chunk and inner chunk decodes to one value of its own index, that the
 * generations of the units in writing order are non-increasing and differ by at most one
 * (each unit holds its old or its new content: nothing torn, nothing lost), that the
 * consolidated view opens, and that the leftover temporary files of killed writes
 * (".libzarr-tmp-*") and the lock files of killed shard updates (".libzarr-lock-*", whose
 * locks the kernel released) appear in no listing and block no later update. It prints
 * the number of kills survived.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zarr.h"

#define PLAIN_CHUNKS 8   /* 4 x 2 chunks of [2, 4] */
#define INNER_CHUNKS 16  /* 4 x 4 inner chunks of [2, 2] */
#define UNITS (PLAIN_CHUNKS + INNER_CHUNKS + 4)

static const char *PLAIN_JSON =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [8, 8], \"data_type\": \"int32\","
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2, 4]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}},"
    " \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";

static const char *SHARDED_JSON =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [8, 8], \"data_type\": \"int32\","
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 8]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}},"
    " \"fill_value\": 0, \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    " \"chunk_shape\": [2, 2], \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    " {\"name\": \"crc32c\"}], \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    " {\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]}";

static void die(const char *what, zarr_status status) {
    fprintf(stderr, "crash_consistency: %s: %s (%s)\n", what, zarr_status_str(status),
            zarr_last_error_message());
    exit(2);
}

static int32_t value_of(long generation, int index) {
    return generation == 0 ? 0 : (int32_t)(generation * 1000 + index + 1);
}

/* The generation of a chunk that is all `v`, or -1 if `v` is not a value of chunk `index`. */
static long generation_of(int32_t v, int index) {
    if (v == 0) return 0;
    if (v < 0 || (v - 1) % 1000 != index) return -1;
    return (v - 1) / 1000;
}

/* The "generation" attribute in a JSON object's text (0 when absent, -1 when garbled). */
static long attribute_generation(const char *json) {
    const char *at = strstr(json, "\"generation\"");
    long g;
    if (at == NULL) return 0;
    at = strchr(at, ':');
    if (at == NULL || sscanf(at + 1, "%ld", &g) != 1) return -1;
    return g;
}

static zarr_status open_or_create_array(zarr_store *store, const char *path, const char *json,
                                        zarr_array **out) {
    zarr_status s = zarr_array_open(store, path, out);
    if (s == ZARR_ERROR_NOT_FOUND) s = zarr_array_create(store, path, json, out);
    return s;
}

/* ---- the writer ---------------------------------------------------------------------- */

/* Writes generation after generation until the parent kills it: it never returns. */
static int run_writer(const char *dir) {
    zarr_store *store = NULL;
    zarr_group *root = NULL;
    zarr_array *plain = NULL, *sharded = NULL;
    zarr_status s;
    int32_t chunk[8], inner[4];
    uint64_t index[2], start[2], count[2] = {2, 2};
    long g;
    int i, j;

    if ((s = zarr_store_open_filesystem(dir, &store)) != ZARR_OK) die("open store", s);
    s = zarr_group_open(store, "/", &root);
    if (s == ZARR_ERROR_NOT_FOUND) s = zarr_group_create(store, "/", NULL, &root);
    if (s != ZARR_OK) die("root group", s);
    if ((s = open_or_create_array(store, "/plain", PLAIN_JSON, &plain)) != ZARR_OK)
        die("/plain", s);
    if ((s = open_or_create_array(store, "/sharded", SHARDED_JSON, &sharded)) != ZARR_OK)
        die("/sharded", s);

    /* Finish the generation the first unit shows (a killed writer's), then go on. */
    index[0] = index[1] = 0;
    if ((s = zarr_array_read_chunk(plain, 2, index, chunk, sizeof chunk)) != ZARR_OK)
        die("read first chunk", s);
    g = generation_of(chunk[0], 0);
    if (g < 1) g = 1;
    for (;; g++) {
        for (i = 0; i < PLAIN_CHUNKS; i++) {
            index[0] = (uint64_t)(i / 2);
            index[1] = (uint64_t)(i % 2);
            for (j = 0; j < 8; j++) chunk[j] = value_of(g, i);
            if ((s = zarr_array_write_chunk(plain, 2, index, chunk, sizeof chunk)) != ZARR_OK)
                die("write chunk", s);
        }
        for (i = 0; i < INNER_CHUNKS; i++) {
            start[0] = (uint64_t)(i / 4) * 2;
            start[1] = (uint64_t)(i % 4) * 2;
            for (j = 0; j < 4; j++) inner[j] = value_of(g, i);
            if ((s = zarr_array_write(sharded, 2, start, count, inner, sizeof inner)) != ZARR_OK)
                die("write inner chunk", s);
        }
        char attributes[64];
        snprintf(attributes, sizeof attributes, "{\"generation\": %ld}", g);
        if ((s = zarr_array_set_attributes_json(plain, attributes)) != ZARR_OK)
            die("attributes of /plain", s);
        if ((s = zarr_array_set_attributes_json(sharded, attributes)) != ZARR_OK)
            die("attributes of /sharded", s);
        if ((s = zarr_group_set_attributes_json(root, attributes)) != ZARR_OK)
            die("attributes of /", s);
        if ((s = zarr_group_consolidate(root)) != ZARR_OK) die("consolidate", s);
    }
    return 0; /* not reached: the loop above ends only when the process is killed */
}

/* ---- the checker --------------------------------------------------------------------- */

static int leftover_temp_files, leftover_lock_files;

static int count_temp(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    if (strncmp(path + ftw->base, ".libzarr-tmp-", 13) == 0) leftover_temp_files++;
    if (strncmp(path + ftw->base, ".libzarr-lock-", 14) == 0) leftover_lock_files++;
    return 0;
}

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "crash_consistency: kill %d: ", kill_number);                      \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, " (last error: %s)\n", zarr_last_error_message());                 \
        return 0;                                                                          \
    } while (0)

/* The generation of each unit of an array's attributes, or -1 after a failure. */
static long array_attribute_generation(zarr_array *array, int kill_number) {
    char *json = NULL;
    long g;
    zarr_status s = zarr_array_attributes_json(array, &json);
    if (s != ZARR_OK) {
        fprintf(stderr, "crash_consistency: kill %d: attributes: %s\n", kill_number,
                zarr_last_error_message());
        return -1;
    }
    g = attribute_generation(json);
    zarr_string_free(json);
    return g;
}

/* Check the store; 1 if consistent. `mixed` is set when the kill fell inside a generation. */
static int check_store(const char *dir, int kill_number, int *mixed) {
    long units[UNITS];
    int n = 0, i, j;
    zarr_store *store = NULL, *view = NULL;
    zarr_group *root = NULL;
    zarr_array *plain = NULL, *sharded = NULL, *via_view = NULL;
    int32_t chunk[8], inner[4], whole[64];
    uint64_t index[2], zero[2] = {0, 0}, all[2] = {8, 8};
    char *json = NULL;
    zarr_status s;
    int ok = 0;

    if ((s = zarr_store_open_filesystem(dir, &store)) != ZARR_OK) FAIL("open store");
    s = zarr_group_open(store, "/", &root);
    if (s == ZARR_ERROR_NOT_FOUND) {
        /* Killed before the root group was written: nothing else may exist. */
        s = zarr_array_open(store, "/plain", &plain);
        zarr_store_free(store);
        if (s != ZARR_ERROR_NOT_FOUND) FAIL("/plain exists without a root group");
        return 1;
    }
    if (s != ZARR_OK) FAIL("root group does not open: %s", zarr_status_str(s));
    if ((s = zarr_group_children_json(root, &json)) != ZARR_OK) FAIL("children of /");
    if (strstr(json, "libzarr-tmp") != NULL) FAIL("a temporary file is listed: %s", json);
    zarr_string_free(json);
    json = NULL;
    /* The directory of the shards, where killed updates leave lock files. */
    if ((s = zarr_store_list_json(store, "sharded/c/0/", &json)) != ZARR_OK) FAIL("list shards");
    if (strstr(json, "libzarr-") != NULL) FAIL("a temporary or lock file is listed: %s", json);
    zarr_string_free(json);
    json = NULL;

    s = zarr_array_open(store, "/plain", &plain);
    if (s == ZARR_OK) s = zarr_array_open(store, "/sharded", &sharded);
    if (s == ZARR_ERROR_NOT_FOUND) {
        /* Killed while creating the arrays: no chunk can have been written yet. */
        ok = 1;
        goto done;
    }
    if (s != ZARR_OK) FAIL("an array does not open: %s", zarr_status_str(s));

    for (i = 0; i < PLAIN_CHUNKS; i++) {
        index[0] = (uint64_t)(i / 2);
        index[1] = (uint64_t)(i % 2);
        if ((s = zarr_array_read_chunk(plain, 2, index, chunk, sizeof chunk)) != ZARR_OK)
            FAIL("chunk %d of /plain does not decode: %s", i, zarr_status_str(s));
        for (j = 1; j < 8; j++)
            if (chunk[j] != chunk[0]) FAIL("chunk %d of /plain is torn", i);
        units[n] = generation_of(chunk[0], i);
        if (units[n++] < 0) FAIL("chunk %d of /plain holds %d", i, (int)chunk[0]);
    }
    for (i = 0; i < INNER_CHUNKS; i++) {
        index[0] = (uint64_t)(i / 4);
        index[1] = (uint64_t)(i % 4);
        if ((s = zarr_array_read_inner_chunk(sharded, 2, index, inner, sizeof inner)) != ZARR_OK)
            FAIL("inner chunk %d of /sharded does not decode: %s", i, zarr_status_str(s));
        for (j = 1; j < 4; j++)
            if (inner[j] != inner[0]) FAIL("inner chunk %d of /sharded is torn", i);
        units[n] = generation_of(inner[0], i);
        if (units[n++] < 0) FAIL("inner chunk %d of /sharded holds %d", i, (int)inner[0]);
    }
    /* Whole reads agree with the chunk reads (the readers see the same, untorn, files). */
    if ((s = zarr_array_read(plain, 2, zero, all, whole, sizeof whole)) != ZARR_OK)
        FAIL("whole read of /plain: %s", zarr_status_str(s));
    if ((s = zarr_array_read(sharded, 2, zero, all, whole, sizeof whole)) != ZARR_OK)
        FAIL("whole read of /sharded: %s", zarr_status_str(s));

    if ((units[n++] = array_attribute_generation(plain, kill_number)) < 0) goto done;
    if ((units[n++] = array_attribute_generation(sharded, kill_number)) < 0) goto done;
    if ((s = zarr_group_attributes_json(root, &json)) != ZARR_OK) FAIL("attributes of /");
    units[n++] = attribute_generation(json);
    zarr_string_free(json);
    json = NULL;

    /* Consolidated metadata: absent before the first consolidation, else it opens and
     * holds the attributes /plain had when it was written. */
    s = zarr_store_open_consolidated(store, &view);
    if (s == ZARR_ERROR_NOT_FOUND) {
        units[n++] = 0;
    } else if (s != ZARR_OK) {
        FAIL("consolidated metadata does not open: %s", zarr_status_str(s));
    } else {
        if ((s = zarr_array_open(view, "/plain", &via_view)) != ZARR_OK)
            FAIL("/plain through the consolidated view: %s", zarr_status_str(s));
        if ((units[n++] = array_attribute_generation(via_view, kill_number)) < 0) goto done;
    }

    for (i = 1; i < n; i++) {
        if (units[i] > units[i - 1] || units[0] - units[i] > 1) {
            fprintf(stderr, "crash_consistency: kill %d: generations out of order:", kill_number);
            for (j = 0; j < n; j++) fprintf(stderr, " %ld", units[j]);
            fprintf(stderr, "\n");
            goto done;
        }
    }
    *mixed = units[n - 1] != units[0];
    ok = 1;
done:
    zarr_array_free(via_view);
    zarr_array_free(plain);
    zarr_array_free(sharded);
    zarr_group_free(root);
    zarr_store_free(view);
    zarr_store_free(store);
    return ok;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *dir;
    int max_kills = 300, kills = 0, mixed_kills = 0;
    double max_seconds = 120, started;
    unsigned seed;

    if (argc == 3 && strcmp(argv[1], "--write") == 0) return run_writer(argv[2]);
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [MAX_KILLS [MAX_SECONDS [SEED]]]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    if (argc > 2) max_kills = atoi(argv[2]);
    if (argc > 3) max_seconds = atof(argv[3]);
    seed = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : (unsigned)time(NULL);
    srand(seed);
    printf("crash_consistency: store %s, seed %u\n", dir, seed);
    fflush(stdout);

    started = now();
    while (kills < max_kills && now() - started < max_seconds) {
        pid_t pid = fork();
        int status, mixed = 0;
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            execl(argv[0], argv[0], "--write", dir, (char *)NULL);
            _exit(127);
        }
        /* Kill after 0 to ~60 ms: early kills land in start-up and creation, later ones
         * anywhere in a generation. */
        usleep((useconds_t)(rand() % 60000));
        kill(pid, SIGKILL);
        if (waitpid(pid, &status, 0) != pid) {
            perror("waitpid");
            return 2;
        }
        if (!WIFSIGNALED(status)) {
            fprintf(stderr, "crash_consistency: the writer exited by itself (status %d)\n",
                    WEXITSTATUS(status));
            return 1;
        }
        kills++;
        if (!check_store(dir, kills, &mixed)) {
            fprintf(stderr, "crash_consistency: FAILED after %d kills (seed %u); store kept in %s\n",
                    kills, seed, dir);
            return 1;
        }
        mixed_kills += mixed;
    }
    leftover_temp_files = leftover_lock_files = 0;
    nftw(dir, count_temp, 16, FTW_PHYS);
    printf("crash_consistency: %d kills survived in %.1f s (%d inside a generation, "
           "%d leftover temporary files and %d lock files ignored by readers and listings)\n",
           kills, now() - started, mixed_kills, leftover_temp_files, leftover_lock_files);
    if (kills < 50) {
        fprintf(stderr, "crash_consistency: too few kills for a meaningful test\n");
        return 1;
    }
    return 0;
}
