/* The file system store under stress and attack: many handles writing one directory,
 * temporary files left by killed processes, symbolic links, FIFOs and devices, running
 * out of file descriptors. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 1-d uint8 array of 32 * 4 chunks of 64 bytes, stored uncompressed. */
#define CHUNK 64
#define THREADS 32
#define CHUNKS_PER_THREAD 4
#define ROUNDS 10
#define NCHUNKS (THREADS * CHUNKS_PER_THREAD)

static const char *const big_array =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[8192],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[64]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
    "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}";

static const char *const small_array =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
    "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}";

/* The bytes of chunk `chunk` written in round `round`: distinct for every pair. */
static void chunk_bytes(int chunk, int round, uint8_t *out) {
    int i;
    for (i = 0; i < CHUNK; i++) out[i] = (uint8_t)(chunk * 7 + round * 3 + i);
}

struct writer {
    const char *root;
    int thread;
    int failures;
    char message[512];
};

/* Each thread opens its own store and array handles on the shared directory and
 * rewrites its own chunks again and again. */
static void *write_own_chunks(void *arg) {
    struct writer *w = (struct writer *)arg;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t data[CHUNK];
    int round, k;
    if (zarr_store_open_filesystem(w->root, &store) != ZARR_OK ||
        zarr_array_open(store, "/a", &array) != ZARR_OK) {
        w->failures++;
        snprintf(w->message, sizeof w->message, "%s", zarr_last_error_message());
        zarr_store_free(store);
        return NULL;
    }
    for (round = 0; round < ROUNDS; round++) {
        for (k = 0; k < CHUNKS_PER_THREAD; k++) {
            int chunk = w->thread * CHUNKS_PER_THREAD + k;
            uint64_t index = (uint64_t)chunk;
            chunk_bytes(chunk, round, data);
            if (zarr_array_write_chunk(array, 1, &index, data, sizeof data) != ZARR_OK) {
                if (w->failures++ == 0)
                    snprintf(w->message, sizeof w->message, "%s", zarr_last_error_message());
            }
        }
    }
    zarr_array_free(array);
    zarr_store_free(store);
    return NULL;
}

/* Distinct handles are independent: 32 threads, each with its own store handle on one
 * directory, write disjoint chunks; no write fails and every chunk holds its own bytes. */
ZTEST(many_handles_write_disjoint_chunks) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    pthread_t threads[THREADS];
    static struct writer writers[THREADS];
    uint8_t expected[CHUNK], back[CHUNK];
    int t, chunk, failures = 0;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", big_array, &array));
    for (t = 0; t < THREADS; t++) {
        memset(&writers[t], 0, sizeof writers[t]);
        writers[t].root = root;
        writers[t].thread = t;
        ZT_CHECK(pthread_create(&threads[t], NULL, write_own_chunks, &writers[t]) == 0);
    }
    for (t = 0; t < THREADS; t++) {
        ZT_CHECK(pthread_join(threads[t], NULL) == 0);
        if (writers[t].failures) {
            fprintf(stderr, "thread %d: %d failed writes, first: %s\n", t, writers[t].failures,
                    writers[t].message);
            failures += writers[t].failures;
        }
    }
    ZT_EQ_U64(failures, 0);
    for (chunk = 0; chunk < NCHUNKS; chunk++) {
        uint64_t index = (uint64_t)chunk;
        chunk_bytes(chunk, ROUNDS - 1, expected);
        ZT_OK(zarr_array_read_chunk(array, 1, &index, back, sizeof back));
        if (memcmp(back, expected, CHUNK) != 0) {
            fprintf(stderr, "chunk %d holds other bytes\n", chunk);
            ZT_CHECK(0);
        }
    }
    /* Nothing left behind: the NCHUNKS chunk files only. */
    ZT_EQ_U64(ztest_count_entries(ztest_path(root, "a/c")), NCHUNKS);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* A process killed while writing leaves its temporary files behind; after a restart the
 * new process may have the same PID (containers always do). Those files must not block
 * writes, must not be listed, and must not be removed by somebody else's write. */
ZTEST(stale_temporary_files_do_not_block_writes) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL, *fresh = NULL;
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    char *children = NULL;
    char name[128];
    uint8_t data[4] = {1, 2, 3, 4}, back[4] = {0};
    uint64_t start = 0, count = 4;
    int n;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", small_array, &array));
    zarr_array_free(array);
    array = NULL;
    ZT_CHECK(mkdir(ztest_path(root, "a/c"), 0777) == 0);
    /* Leftovers of a killed process with our PID, as the old naming spelled them. */
    for (n = 0; n < 64; n++) {
        snprintf(name, sizeof name, "a/c/.libzarr-tmp-%ld-%d", (long)getpid(), n);
        ZT_CHECK(ztest_write_file(ztest_path(root, name), "stale", 5) == 0);
        snprintf(name, sizeof name, "a/.libzarr-tmp-%ld-%d", (long)getpid(), n);
        ZT_CHECK(ztest_write_file(ztest_path(root, name), "stale", 5) == 0);
    }
    /* A fresh handle, as after the restart. */
    ZT_OK(zarr_store_open_filesystem(root, &fresh));
    ZT_OK(zarr_array_open(fresh, "/a", &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_set_attributes_json(array, "{\"after\":\"restart\"}"));
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    /* Listings ignore them. */
    ZT_OK(zarr_group_open(fresh, "/", &group));
    ZT_OK(zarr_group_children_json(group, &children));
    ZT_STR_CONTAINS(children, "\"a\"");
    ZT_CHECK(strstr(children, "libzarr-tmp") == NULL);
    /* Not ours to remove: all 64 are still there, next to chunk 0. */
    ZT_EQ_U64(ztest_count_entries(ztest_path(root, "a/c")), 65);
    ZT_EQ_U64(ztest_count_entries(ztest_path(root, "a")), 66);
    zarr_string_free(children);
    zarr_group_free(group);
    zarr_array_free(array);
    zarr_store_free(fresh);
    zarr_store_free(store);
}

/* A directory next to the store that must never be touched through it. */
static const char *outside_dir(const char *base) {
    const char *outside = ztest_path(base, "outside");
    if (mkdir(outside, 0777) != 0) abort();
    return outside;
}

/* A directory link inside the store leading out of it: creating nodes or writing chunks
 * through it is refused, and nothing appears outside the root. */
ZTEST(directory_link_leaving_the_root_is_refused) {
    const char *base = ztest_tmp_dir();
    const char *outside = outside_dir(base);
    const char *root = ztest_path(base, "store");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    uint8_t data[4] = {9, 9, 9, 9};
    uint64_t start = 0, count = 4;
    ZT_CHECK(mkdir(root, 0777) == 0);
    ZT_CHECK(symlink(outside, ztest_path(root, "escape")) == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_STATUS(zarr_array_create(store, "/escape/a", small_array, &array), ZARR_ERROR_INVALID_PATH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "symbolic link 'escape'");
    ZT_STATUS(zarr_group_create(store, "/escape/g", "{}", &group), ZARR_ERROR_INVALID_PATH);
    /* The chunk directory of an array replaced by a link out of the root. */
    ZT_OK(zarr_array_create(store, "/b", small_array, &array));
    ZT_CHECK(symlink(outside, ztest_path(root, "b/c")) == 0);
    ZT_STATUS(zarr_array_write(array, 1, &start, &count, data, sizeof data), ZARR_ERROR_INVALID_PATH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'b/c'");
    ZT_EQ_U64(ztest_count_entries(outside), 0);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* The file system options of zarr_store_open_url: follow_symlinks follows the link the
 * default refuses; fsync writes as usual (durability itself is the Rust test
 * fsync_option_syncs_files_and_directories); both apply to local paths only. */
ZTEST(store_options_follow_symlinks_and_fsync) {
    const char *base = ztest_tmp_dir();
    const char *outside = outside_dir(base);
    const char *root = ztest_path(base, "store");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t data[4] = {1, 2, 3, 4}, back[4] = {0};
    uint64_t start = 0, count = 4;
    ZT_CHECK(mkdir(root, 0777) == 0);
    ZT_CHECK(symlink(outside, ztest_path(root, "linked")) == 0);
    ZT_OK(zarr_store_open_url(root, "{\"follow_symlinks\": false}", &store));
    ZT_STATUS(zarr_array_create(store, "/linked/a", small_array, &array), ZARR_ERROR_INVALID_PATH);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(root, "{\"follow_symlinks\": true, \"fsync\": true}", &store));
    ZT_OK(zarr_array_create(store, "/linked/a", small_array, &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    ZT_CHECK(ztest_is_file(ztest_path(outside, "a/c/0")));
    zarr_array_free(array);
    zarr_store_free(store);
    /* Wrong types, and the options on a URL they do not apply to. */
    ZT_STATUS(zarr_store_open_url(root, "{\"fsync\": 1}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'fsync' must be true or false");
    ZT_CHECK(store == NULL);
    ZT_STATUS(zarr_store_open_url("http://127.0.0.1:9/x", "{\"follow_symlinks\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'follow_symlinks' does not apply");
    ZT_STATUS(zarr_store_open_url("s3://bucket/x", "{\"fsync\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'fsync' does not apply");
}

/* A chunk that is a link to another file (here one holding valid chunk bytes) is not
 * read: it would serve any readable file of the machine as chunk data. */
ZTEST(chunk_link_is_not_read) {
    const char *base = ztest_tmp_dir();
    const char *outside = outside_dir(base);
    const char *root = ztest_path(base, "store");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t back[4] = {0};
    uint64_t start = 0, count = 4, chunk = 0;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", small_array, &array));
    ZT_CHECK(ztest_write_file(ztest_path(outside, "secret"), "KEYS", 4) == 0);
    ZT_CHECK(mkdir(ztest_path(root, "a/c"), 0777) == 0);
    ZT_CHECK(symlink(ztest_path(outside, "secret"), ztest_path(root, "a/c/0")) == 0);
    ZT_STATUS(zarr_array_read(array, 1, &start, &count, back, sizeof back), ZARR_ERROR_INVALID_PATH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "symbolic link 'a/c/0'");
    ZT_STATUS(zarr_array_read_chunk(array, 1, &chunk, back, sizeof back), ZARR_ERROR_INVALID_PATH);
    ZT_CHECK(memcmp(back, "KEYS", 4) != 0);
    /* A link that stays inside the root is not followed either (the documented policy). */
    ZT_CHECK(unlink(ztest_path(root, "a/c/0")) == 0);
    ZT_CHECK(ztest_write_file(ztest_path(root, "a/c/real"), "KEYS", 4) == 0);
    ZT_CHECK(symlink("real", ztest_path(root, "a/c/0")) == 0);
    ZT_STATUS(zarr_array_read(array, 1, &start, &count, back, sizeof back), ZARR_ERROR_INVALID_PATH);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Under AddressSanitizer (asan.filesystem) no address-space limit: ASan has reserved
 * terabytes of shadow memory, so the child's first mapping for ASan itself (its stack
 * depot) would fail and the case with it, depending on how much ASan mapped before. */
#if defined(__SANITIZE_ADDRESS__)
#define ZT_UNDER_ASAN 1
#else
#define ZT_UNDER_ASAN 0
#endif

/* Fails the case if the call takes longer than `seconds`; run it in a child process so
 * that a hang or a memory blow-up cannot take the test runner with it (the memory limit
 * applies outside ASan). */
#define ZT_IN_CHILD_WITHIN(seconds, body)                                                  \
    do {                                                                                   \
        int wstatus_ = 0;                                                                  \
        pid_t pid_;                                                                        \
        fflush(NULL);                                                                      \
        pid_ = fork();                                                                     \
        ZT_CHECK(pid_ >= 0);                                                               \
        if (pid_ == 0) {                                                                   \
            struct rlimit memory_ = {(rlim_t)2 << 30, (rlim_t)2 << 30};                    \
            if (!ZT_UNDER_ASAN) setrlimit(RLIMIT_AS, &memory_);                            \
            alarm(seconds);                                                                \
            body;                                                                          \
            _exit(ztest_failures ? 1 : 0);                                                 \
        }                                                                                  \
        ZT_CHECK(waitpid(pid_, &wstatus_, 0) == pid_);                                     \
        if (!WIFEXITED(wstatus_) || WEXITSTATUS(wstatus_) != 0)                            \
            ZT_FAIL_("child %s with %d", WIFEXITED(wstatus_) ? "exited" : "was killed",    \
                     WIFEXITED(wstatus_) ? WEXITSTATUS(wstatus_) : WTERMSIG(wstatus_));    \
    } while (0)

static void read_dev_zero_chunk_and_metadata(const char *root) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t back[4] = {0};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", small_array, &array));
    ZT_CHECK(mkdir(ztest_path(root, "a/c"), 0777) == 0);
    ZT_CHECK(symlink("/dev/zero", ztest_path(root, "a/c/0")) == 0);
    ZT_STATUS(zarr_array_read(array, 1, &start, &count, back, sizeof back), ZARR_ERROR_INVALID_PATH);
    zarr_array_free(array);
    array = NULL;
    ZT_CHECK(mkdir(ztest_path(root, "z"), 0777) == 0);
    ZT_CHECK(symlink("/dev/zero", ztest_path(root, "z/zarr.json")) == 0);
    ZT_STATUS(zarr_array_open(store, "/z", &array), ZARR_ERROR_INVALID_PATH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "z/zarr.json");
    zarr_store_free(store);
}

/* A chunk or zarr.json linked to /dev/zero: refused at once, not read until memory runs
 * out. */
ZTEST(dev_zero_link_is_refused) {
    const char *root = ztest_tmp_dir();
    ZT_IN_CHILD_WITHIN(60, read_dev_zero_chunk_and_metadata(root));
}

static void read_fifo_chunk_and_metadata(const char *root) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    char *children = NULL;
    uint8_t back[4] = {0};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", small_array, &array));
    ZT_CHECK(mkdir(ztest_path(root, "a/c"), 0777) == 0);
    ZT_CHECK(mkfifo(ztest_path(root, "a/c/0"), 0644) == 0);
    ZT_STATUS(zarr_array_read(array, 1, &start, &count, back, sizeof back), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "FIFO");
    ZT_STR_CONTAINS(zarr_last_error_message(), "not a regular file");
    zarr_array_free(array);
    array = NULL;
    ZT_CHECK(mkdir(ztest_path(root, "f"), 0777) == 0);
    ZT_CHECK(mkfifo(ztest_path(root, "f/zarr.json"), 0644) == 0);
    ZT_STATUS(zarr_array_open(store, "/f", &array), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "f/zarr.json");
    /* Listing the hierarchy reads each child's metadata: the same error, not a hang. */
    ZT_OK(zarr_group_open(store, "/", &group));
    ZT_STATUS(zarr_group_children_json(group, &children), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'f/zarr.json' is a FIFO");
    ZT_CHECK(children == NULL);
    zarr_group_free(group);
    zarr_store_free(store);
}

/* A FIFO named as a chunk or as zarr.json: an error at once, not a read blocked forever. */
ZTEST(fifo_is_refused_without_blocking) {
    const char *root = ztest_tmp_dir();
    ZT_IN_CHILD_WITHIN(60, read_fifo_chunk_and_metadata(root));
}

static void list_self_referencing_links(const char *root) {
    zarr_store *store = NULL;
    zarr_group *group = NULL, *sub = NULL;
    char *all = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_group_create(store, "/", "{}", &group));
    ZT_OK(zarr_group_create(store, "/g", "{}", &sub));
    ZT_CHECK(symlink(".", ztest_path(root, "g/x")) == 0);
    ZT_CHECK(symlink(".", ztest_path(root, "g/y")) == 0);
    ZT_CHECK(symlink("..", ztest_path(root, "g/up")) == 0);
    ZT_OK(zarr_group_descendants_json(group, &all));
    ZT_STR_CONTAINS(all, "\"/g\"");
    ZT_CHECK(strstr(all, "/g/x") == NULL);
    ZT_CHECK(strstr(all, "/g/up") == NULL);
    zarr_string_free(all);
    zarr_group_free(sub);
    zarr_group_free(group);
    zarr_store_free(store);
}

/* Two links to their own directory made listing a hierarchy exponential (and a loop
 * unending): listings do not follow links. */
ZTEST(self_referencing_links_do_not_make_listing_loop) {
    const char *root = ztest_tmp_dir();
    ZT_IN_CHILD_WITHIN(60, list_self_referencing_links(root));
}

/* The root itself may be a link (users keep data elsewhere and link it in). */
ZTEST(root_may_be_a_link) {
    const char *base = ztest_tmp_dir();
    const char *real = ztest_path(base, "real");
    const char *link = ztest_path(base, "link.zarr");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t data[4] = {4, 3, 2, 1}, back[4] = {0};
    uint64_t start = 0, count = 4;
    ZT_CHECK(mkdir(real, 0777) == 0);
    ZT_CHECK(symlink(real, link) == 0);
    ZT_OK(zarr_store_open_filesystem(link, &store));
    ZT_OK(zarr_array_create(store, "/a", small_array, &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    ZT_CHECK(ztest_is_file(ztest_path(real, "a/c/0")));
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Running out of file descriptors is the operating system refusing a resource, not an
 * I/O error of the store. */
ZTEST(out_of_file_descriptors_is_resource) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t data[4] = {1, 2, 3, 4}, back[4] = {0};
    uint64_t start = 0, count = 4;
    struct rlimit saved, tight;
    int lowest_free;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", small_array, &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    ZT_CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    lowest_free = dup(0);
    ZT_CHECK(lowest_free >= 0);
    close(lowest_free);
    /* Every descriptor below the limit is taken: the next open fails with EMFILE. */
    tight = saved;
    tight.rlim_cur = (rlim_t)lowest_free;
    ZT_CHECK(setrlimit(RLIMIT_NOFILE, &tight) == 0);
    {
        zarr_status s = zarr_array_read(array, 1, &start, &count, back, sizeof back);
        ZT_CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
        ZT_STATUS(s, ZARR_ERROR_RESOURCE);
    }
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_RESOURCE), "file descriptors");
    /* With descriptors back, the same read works. */
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    zarr_array_free(array);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(many_handles_write_disjoint_chunks),
    ZCASE(stale_temporary_files_do_not_block_writes),
    ZCASE(directory_link_leaving_the_root_is_refused),
    ZCASE(store_options_follow_symlinks_and_fsync),
    ZCASE(chunk_link_is_not_read),
    ZCASE(dev_zero_link_is_refused),
    ZCASE(fifo_is_refused_without_blocking),
    ZCASE(self_referencing_links_do_not_make_listing_loop),
    ZCASE(root_may_be_a_link),
    ZCASE(out_of_file_descriptors_is_resource),
};

ZTEST_MAIN()
