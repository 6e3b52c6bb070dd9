/* The worker pool size: zarr_thread_pool_set_size, zarr_thread_pool_size, ZARR_NUM_THREADS; and
 * region reads giving the same result with one worker and with several. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

ZTEST(set_and_query) {
    size_t n = 0;
    ZT_OK(zarr_thread_pool_set_size(1));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, 1);
    ZT_OK(zarr_thread_pool_set_size(3));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, 3);
}

ZTEST(zero_restores_the_environment_default) {
    size_t n = 0;
    ZT_CHECK(setenv("ZARR_NUM_THREADS", "2", 1) == 0);
    ZT_OK(zarr_thread_pool_set_size(5));
    ZT_OK(zarr_thread_pool_set_size(0));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, 2);
    /* A value that is not a positive integer is ignored: the CPU count applies. */
    ZT_CHECK(setenv("ZARR_NUM_THREADS", "lots", 1) == 0);
    ZT_OK(zarr_thread_pool_set_size(0));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_CHECK(n >= 1);
}

/* Absurd counts are refused before any thread starts (they used to start up to 65,535
 * threads, for minutes) and leave the pool as it was. */
ZTEST(absurd_counts_are_refused) {
    static const size_t absurd[] = {ZARR_MAX_NUM_THREADS + 1, 1000000, SIZE_MAX};
    size_t n = 0, i;
    ZT_CHECK(ZARR_MAX_NUM_THREADS == 1024);
    ZT_OK(zarr_thread_pool_set_size(2));
    for (i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        ZT_STATUS(zarr_thread_pool_set_size(absurd[i]), ZARR_ERROR_INVALID_ARGUMENT);
        ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_thread_pool_set_size");
        ZT_STR_CONTAINS(zarr_last_error_message(), "the maximum is 1024");
    }
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, 2);
    ZT_OK(zarr_thread_pool_set_size(0));
}

/* The environment variable cannot report an error: a value above the maximum is clamped
 * to it (ZARR_MAX_NUM_THREADS workers, not a million). */
ZTEST(environment_count_is_clamped) {
    size_t n = 0;
    ZT_CHECK(setenv("ZARR_NUM_THREADS", "1000000", 1) == 0);
    ZT_OK(zarr_thread_pool_set_size(0));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, ZARR_MAX_NUM_THREADS);
    /* Too large even for size_t: still clamped, not ignored. */
    ZT_CHECK(setenv("ZARR_NUM_THREADS", "99999999999999999999999", 1) == 0);
    ZT_OK(zarr_thread_pool_set_size(0));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, ZARR_MAX_NUM_THREADS);
    ZT_CHECK(setenv("ZARR_NUM_THREADS", "1", 1) == 0);
    ZT_OK(zarr_thread_pool_set_size(0));
    ZT_OK(zarr_thread_pool_size(&n));
    ZT_EQ_U64(n, 1);
}

/* When the system refuses to start the threads, the status says so: RESOURCE, not
 * OUT_OF_MEMORY. The child process gets a thread limit it has already reached (for root,
 * after giving up root, since root ignores the limit). */
ZTEST(refused_threads_are_a_resource_error) {
    pid_t pid;
    int wstatus = 0;
    fflush(NULL);
    pid = fork();
    ZT_CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit one = {1, 1};
        zarr_status s;
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
        if (setrlimit(RLIMIT_NPROC, &one) != 0) _exit(11);
        s = zarr_thread_pool_set_size(8);
        if (s != ZARR_ERROR_RESOURCE) {
            fprintf(stderr, "status %d: %s\n", (int)s, zarr_last_error_message());
            _exit(12);
        }
        if (strstr(zarr_last_error_message(), "cannot start 8 worker threads") == NULL) {
            fprintf(stderr, "message: %s\n", zarr_last_error_message());
            _exit(13);
        }
        _exit(0);
    }
    ZT_CHECK(waitpid(pid, &wstatus, 0) == pid);
    ZT_CHECK(WIFEXITED(wstatus));
    ZT_EQ_U64(WEXITSTATUS(wstatus), 0);
}

ZTEST(null_output) {
    ZT_STATUS(zarr_thread_pool_size(NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "size_out");
}

ZTEST(same_result_with_one_or_many_workers) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    static uint16_t data[64 * 64], one[64 * 64], many[64 * 64];
    uint64_t start[2] = {0, 0}, count[2] = {64, 64};
    int i;
    for (i = 0; i < 64 * 64; i++) data[i] = (uint16_t)(i * 7);
    ZT_OK(zarr_store_open_filesystem(ztest_tmp_dir(), &store));
    ZT_OK(zarr_array_create(store, "/a",
                            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [64, 64],"
                            " \"data_type\": \"uint16\", \"chunk_grid\": {\"name\": \"regular\","
                            " \"configuration\": {\"chunk_shape\": [8, 8]}},"
                            " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                            " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}},"
                            " {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}]}",
                            &array));
    ZT_OK(zarr_thread_pool_set_size(4));
    ZT_OK(zarr_array_write(array, 2, start, count, data, sizeof data));
    ZT_OK(zarr_array_read(array, 2, start, count, many, sizeof many));
    ZT_OK(zarr_thread_pool_set_size(1));
    ZT_OK(zarr_array_read(array, 2, start, count, one, sizeof one));
    ZT_EQ_MEM(many, data, sizeof data);
    ZT_EQ_MEM(one, data, sizeof data);
    ZT_OK(zarr_thread_pool_set_size(0));
    zarr_array_free(array);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(set_and_query),
    ZCASE(zero_restores_the_environment_default),
    ZCASE(absurd_counts_are_refused),
    ZCASE(environment_count_is_clamped),
    ZCASE(refused_threads_are_a_resource_error),
    ZCASE(null_output),
    ZCASE(same_result_with_one_or_many_workers),
};

ZTEST_MAIN()
