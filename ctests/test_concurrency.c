/* Concurrent writers: threads and processes writing disjoint regions that share chunks or
 * shards lose nothing; every value is checked afterwards. */
#define _GNU_SOURCE /* F_OFD_SETLKW, to hold a chunk's lock as a writer does */
#include "ztest.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contention.h"

#define SIDE 64
#define THREADS 8
#define ROUNDS 4

static const char *sharded_meta =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [64, 64],"
    " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\","
    " \"configuration\": {\"chunk_shape\": [64, 64]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    "   \"chunk_shape\": [8, 8],"
    "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "                {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
    "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}]}";

static const char *plain_meta =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [64, 64],"
    " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\","
    " \"configuration\": {\"chunk_shape\": [64, 64]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}]}";

/* The value thread `t` writes at (r, c) in round `round`. */
static int32_t value_at(int round, uint64_t r, uint64_t c) {
    return (int32_t)(round * 100000 + (int)r * SIDE + (int)c + 1);
}

struct writer {
    zarr_array *array;
    int thread;
    int round;
    int rows_per_write; /* rows of the thread's band written per call */
    zarr_status status;
};

/* Thread t owns rows 8t .. 8t + 8 (one row of inner chunks of the shard, or eight rows of
 * the one plain chunk) and writes them `rows_per_write` rows at a time. */
static void *write_band(void *arg) {
    struct writer *w = arg;
    int32_t buf[8 * SIDE];
    uint64_t row;
    w->status = ZARR_OK;
    for (row = 0; row < 8 && w->status == ZARR_OK; row += (uint64_t)w->rows_per_write) {
        uint64_t start[2] = {(uint64_t)w->thread * 8 + row, 0};
        uint64_t count[2] = {(uint64_t)w->rows_per_write, SIDE};
        uint64_t r, c;
        for (r = 0; r < count[0]; r++)
            for (c = 0; c < SIDE; c++) buf[r * SIDE + c] = value_at(w->round, start[0] + r, c);
        w->status = zarr_array_write(w->array, 2, start, count, buf,
                                     (size_t)(count[0] * SIDE) * sizeof(int32_t));
    }
    return NULL;
}

static void threads_lose_nothing(const char *meta, int rows_per_write) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    static int32_t back[SIDE * SIDE];
    uint64_t start[2] = {0, 0}, count[2] = {SIDE, SIDE}, r, c;
    int round, t;
    ZT_OK(zarr_store_open_filesystem(ztest_tmp_dir(), &store));
    ZT_OK(zarr_array_create(store, "/a", meta, &array));
    for (round = 1; round <= ROUNDS; round++) {
        pthread_t threads[THREADS];
        struct writer writers[THREADS];
        for (t = 0; t < THREADS; t++) {
            writers[t].array = array;
            writers[t].thread = t;
            writers[t].round = round;
            writers[t].rows_per_write = rows_per_write;
            ZT_CHECK(pthread_create(&threads[t], NULL, write_band, &writers[t]) == 0);
        }
        for (t = 0; t < THREADS; t++) ZT_CHECK(pthread_join(threads[t], NULL) == 0);
        for (t = 0; t < THREADS; t++) ZT_OK(writers[t].status);
        ZT_OK(zarr_array_read(array, 2, start, count, back, sizeof back));
        for (r = 0; r < SIDE; r++)
            for (c = 0; c < SIDE; c++)
                if (back[r * SIDE + c] != value_at(round, r, c))
                    ZT_FAIL_("round %d: (%d, %d) holds %d, expected %d", round, (int)r, (int)c,
                             (int)back[r * SIDE + c], (int)value_at(round, r, c));
    }
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Eight threads, each its own row of inner chunks of one shard, through one handle. */
ZTEST(threads_sharing_a_shard_lose_nothing) { threads_lose_nothing(sharded_meta, 8); }

/* Eight threads, each its own rows of one plain chunk, a row at a time. */
ZTEST(threads_sharing_a_chunk_lose_nothing) { threads_lose_nothing(plain_meta, 1); }

/* Four processes, each with its own store handle on one directory, each writing its own
 * shards (disjoint shard-aligned regions: what the header says is safe across processes). */
ZTEST(processes_on_disjoint_shards_lose_nothing) {
    const char *root = ztest_tmp_dir();
    const char *meta =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [64, 64],"
        " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\","
        " \"configuration\": {\"chunk_shape\": [16, 64]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
        " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
        "   \"chunk_shape\": [4, 16],"
        "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
        "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}]}";
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    static int32_t back[SIDE * SIDE];
    uint64_t start[2] = {0, 0}, count[2] = {SIDE, SIDE}, r, c;
    pid_t children[4];
    size_t workers = 0;
    int p;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta, &array));
    /* The parent's worker pool is running when it forks: each child must build its own
     * (a child inherits the pool's bookkeeping but none of its threads). */
    ZT_OK(zarr_thread_pool_size(&workers));
    ZT_OK(zarr_array_read(array, 2, start, count, back, sizeof back));
    zarr_array_free(array);
    array = NULL;
    for (p = 0; p < 4; p++) {
        children[p] = fork();
        ZT_CHECK(children[p] >= 0);
        if (children[p] == 0) {
            /* Process p owns shard p (rows 16p .. 16p + 16), written row by row. */
            zarr_store *s = NULL;
            zarr_array *a = NULL;
            int32_t row[SIDE];
            uint64_t rr;
            int ok;
            alarm(120); /* a child that deadlocks dies of SIGALRM: a failure, not a hang */
            ok = zarr_store_open_filesystem(root, &s) == ZARR_OK &&
                     zarr_array_open(s, "/a", &a) == ZARR_OK;
            for (rr = 0; ok && rr < 16; rr++) {
                uint64_t at[2] = {(uint64_t)p * 16 + rr, 0}, n[2] = {1, SIDE}, cc;
                for (cc = 0; cc < SIDE; cc++) row[cc] = value_at(p + 1, at[0], cc);
                ok = zarr_array_write(a, 2, at, n, row, sizeof row) == ZARR_OK;
            }
            zarr_array_free(a);
            zarr_store_free(s);
            _exit(ok ? 0 : 1);
        }
    }
    for (p = 0; p < 4; p++) {
        int status = 0;
        ZT_CHECK(waitpid(children[p], &status, 0) == children[p]);
        ZT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_OK(zarr_array_read(array, 2, start, count, back, sizeof back));
    for (r = 0; r < SIDE; r++)
        for (c = 0; c < SIDE; c++)
            if (back[r * SIDE + c] != value_at((int)(r / 16) + 1, r, c))
                ZT_FAIL_("(%d, %d) holds %d", (int)r, (int)c, (int)back[r * SIDE + c]);
    zarr_array_free(array);
    zarr_store_free(store);
}


/* Four processes, each with its own store handle, write their own column of one chunk an
 * element at a time, all at once: each write is a read-merge-write of the same chunk,
 * which holds the chunk's lock across processes. Nothing is lost. */
ZTEST(processes_contending_for_a_chunk_lose_nothing) {
    contention_run(ztest_tmp_dir(), NULL, CONTENTION_V3);
}

/* The same with the chunk a shard of inner chunks (a partial shard update). */
ZTEST(processes_contending_for_a_shard_lose_nothing) {
    contention_run(ztest_tmp_dir(), NULL, CONTENTION_SHARDED);
}

/* The same in a Zarr v2 array. */
ZTEST(processes_contending_for_a_v2_chunk_lose_nothing) {
    contention_run(ztest_tmp_dir(), NULL, CONTENTION_V2);
}

/* Hold the lock of the chunk at `dir`/`name` as a writer does (an open file description
 * lock on `.libzarr-lock-<name>` beside it, see zarr_store_open_filesystem); 0 on success. */
static int hold_chunk_lock(const char *dir, const char *name) {
    char lock_path[4096];
    struct flock lock;
    int fd;
    snprintf(lock_path, sizeof lock_path, "%s/.libzarr-lock-%s", dir, name);
    fd = open(lock_path, O_RDWR | O_CREAT, 0666);
    if (fd < 0) return -1;
    memset(&lock, 0, sizeof lock);
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    return fcntl(fd, F_OFD_SETLKW, &lock) == 0 ? 0 : -1;
}

static void sleep_ms(long ms) {
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* A process that dies holding a chunk's lock (SIGKILL, in the middle of an update) blocks
 * the other writers only until it is gone: the kernel drops its lock, the next writer
 * takes over its lock file, and nothing is lost. */
ZTEST(a_killed_lock_holder_blocks_no_one) {
    const char *root = ztest_tmp_dir();
    const char *chunk_dir = ztest_path(root, "contended/c/0");
    pid_t holder, writers[CONTENTION_WRITERS];
    int ready[2], w, status = 0;
    char byte = 0;
    ZT_CHECK(pipe(ready) == 0);
    fflush(NULL);
    holder = fork();
    ZT_CHECK(holder >= 0);
    if (holder == 0) {
        char command[4200];
        close(ready[0]);
        snprintf(command, sizeof command, "mkdir -p '%s'", chunk_dir);
        if (system(command) != 0 || hold_chunk_lock(chunk_dir, "0") != 0) _exit(1);
        if (write(ready[1], &byte, 1) != 1) _exit(1);
        for (;;) pause(); /* until killed, holding the lock */
    }
    close(ready[1]);
    ZT_CHECK(read(ready[0], &byte, 1) == 1);
    close(ready[0]);
    ZT_CHECK(contention_start(root, NULL, CONTENTION_V3, writers) == 0);
    /* The writers wait for the lock: none finishes while its holder lives. */
    sleep_ms(500);
    for (w = 0; w < CONTENTION_WRITERS; w++)
        ZT_CHECK(waitpid(writers[w], &status, WNOHANG) == 0);
    ZT_CHECK(kill(holder, SIGKILL) == 0);
    ZT_CHECK(waitpid(holder, &status, 0) == holder);
    contention_finish(root, NULL, writers);
    /* The dead holder's lock file was taken over and removed by the next update. */
    ZT_CHECK(!ztest_exists(ztest_path(chunk_dir, ".libzarr-lock-0")));
}

/* zarr_store_write_protection says how each store protects partial chunk updates. */
ZTEST(write_protection_of_each_store) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL, *view = NULL;
    zarr_group *group = NULL;
    zarr_write_protection protection = -1;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_LOCKING);
    /* A consolidated view protects as its store does. */
    ZT_OK(zarr_group_create(store, "/", "{}", &group));
    ZT_OK(zarr_group_consolidate(group));
    ZT_OK(zarr_store_open_consolidated(store, &view));
    protection = -1;
    ZT_OK(zarr_store_write_protection(view, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_LOCKING);
    zarr_store_free(view);
    zarr_group_free(group);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(root, "{\"locking\": true}", &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_LOCKING);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(root, "{\"locking\": false}", &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_NONE);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_NONE);
    /* NULL arguments, and the output untouched on failure. */
    protection = 7;
    ZT_STATUS(zarr_store_write_protection(NULL, &protection), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "store");
    ZT_EQ_U64(protection, 7);
    ZT_STATUS(zarr_store_write_protection(store, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "out");
    zarr_store_free(store);
    ZT_CHECK(ZARR_WRITE_PROTECTION_NONE == 0 && ZARR_WRITE_PROTECTION_LOCKING == 1 &&
             ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES == 2);
}

/* The options that turn the protection off are checked like every other option. */
ZTEST(protection_options_are_checked) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    ZT_STATUS(zarr_store_open_url(root, "{\"locking\": 0}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "locking");
    ZT_CHECK(store == NULL);
    ZT_STATUS(zarr_store_open_url(root, "{\"conditional_writes\": false}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "conditional_writes");
}

/* Keys named like the store's lock files are refused, so no write can clobber a lock. */
ZTEST(lock_file_names_are_reserved) {
    zarr_store *store = NULL;
    ZT_OK(zarr_store_open_filesystem(ztest_tmp_dir(), &store));
    ZT_STATUS(zarr_store_set(store, "a/.libzarr-lock-0", "x", 1), ZARR_ERROR_INVALID_PATH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "reserved");
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(threads_sharing_a_shard_lose_nothing),
    ZCASE(threads_sharing_a_chunk_lose_nothing),
    ZCASE(processes_on_disjoint_shards_lose_nothing),
    ZCASE(processes_contending_for_a_chunk_lose_nothing),
    ZCASE(processes_contending_for_a_shard_lose_nothing),
    ZCASE(processes_contending_for_a_v2_chunk_lose_nothing),
    ZCASE(a_killed_lock_holder_blocks_no_one),
    ZCASE(write_protection_of_each_store),
    ZCASE(protection_options_are_checked),
    ZCASE(lock_file_names_are_reserved),
};

ZTEST_MAIN()
