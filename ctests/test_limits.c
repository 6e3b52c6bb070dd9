/* Sizes at the limits: allocations that cannot succeed fail with a status instead of
 * aborting, corrupt data declaring huge sizes costs no memory, and coordinates up to the
 * end of uint64_t do not wrap. Cases that must fail an allocation run in a child process
 * whose address space is limited, so that the outcome does not depend on the machine. */
#include "ztest.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
/* Under AddressSanitizer (asan.limits) an address-space limit cannot work: ASan reserves
 * terabytes of shadow memory up front, so every allocation would fail. Its own cap on a
 * single allocation stands in for the limit instead: larger requests return NULL, as
 * malloc does when the address space is exhausted. */
#define ZTEST_UNDER_ASAN 1
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
    return "max_allocation_size_mb=4096:allocator_may_return_null=1";
}
#else
#define ZTEST_UNDER_ASAN 0
#endif

/* Run `body` in a child process with at most `limit` bytes of address space (under ASan:
 * no allocation above 4 GiB); the child's exit status is body's return value (0: as
 * expected). */
static int in_limited_child(rlim_t limit, int (*body)(const char *), const char *root) {
    pid_t pid = fork();
    int status = 0;
    if (pid == 0) {
        struct rlimit rl;
        rl.rlim_cur = limit;
        rl.rlim_max = limit;
        if (!ZTEST_UNDER_ASAN && setrlimit(RLIMIT_AS, &rl) != 0) _exit(90);
        _exit(body(root));
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    if (!WIFEXITED(status)) {
        fprintf(stderr, "child ended by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return -1;
    }
    return WEXITSTATUS(status);
}

/* A shard of 2^31 one-byte inner chunks: its index alone is 32 GiB. Writing into it must
 * report OUT_OF_MEMORY (it used to abort the process); reading it, absent, is fill. */
static int write_huge_shard(const char *root) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t start = 5, count = 1;
    uint8_t one = 7, back = 1;
    zarr_status s;
    if (zarr_store_open_filesystem(root, &store) != ZARR_OK) return 2;
    if (zarr_array_create(
            store, "/s",
            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2147483648],"
            " \"data_type\": \"uint8\", \"chunk_grid\": {\"name\": \"regular\","
            " \"configuration\": {\"chunk_shape\": [2147483648]}},"
            " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
            " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
            "   \"chunk_shape\": [1], \"codecs\": [{\"name\": \"bytes\"}],"
            "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}]}",
            &array) != ZARR_OK) {
        fprintf(stderr, "create: %s\n", zarr_last_error_message());
        return 3;
    }
    s = zarr_array_write(array, 1, &start, &count, &one, 1);
    if (s != ZARR_ERROR_OUT_OF_MEMORY) {
        fprintf(stderr, "write gave %d: %s\n", (int)s, zarr_last_error_message());
        return 4;
    }
    if (zarr_array_read(array, 1, &start, &count, &back, 1) != ZARR_OK || back != 0) return 5;
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}

ZTEST(shard_index_too_large_for_memory_is_a_status) {
    int rc = in_limited_child((rlim_t)4 << 30, write_huge_shard, ztest_tmp_dir());
    if (rc != 0) ZT_FAIL_("child returned %d", rc);
}

/* An array declaring 4 GiB chunks whose one stored chunk is 11 bytes of corrupt gzip:
 * reading one element reports CORRUPT_DATA without touching gigabytes of memory (it used
 * to allocate and zero the declared size first). */
static int read_corrupt_huge_chunk(const char *root) {
    static const unsigned char corrupt[11] = {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xff};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t start = 3, count = 1;
    uint8_t out = 0;
    struct rusage usage;
    FILE *f;
    zarr_status s;
    if (zarr_store_open_filesystem(root, &store) != ZARR_OK) return 2;
    if (zarr_array_create(
            store, "/g",
            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4294967296],"
            " \"data_type\": \"uint8\", \"chunk_grid\": {\"name\": \"regular\","
            " \"configuration\": {\"chunk_shape\": [4294967296]}},"
            " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
            " \"codecs\": [{\"name\": \"bytes\"}, {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}]}",
            &array) != ZARR_OK)
        return 3;
    if (mkdir(ztest_path(root, "g/c"), 0755) != 0) return 8;
    f = fopen(ztest_path(root, "g/c/0"), "wb");
    if (f == NULL || fwrite(corrupt, 1, sizeof corrupt, f) != sizeof corrupt || fclose(f) != 0)
        return 4;
    s = zarr_array_read(array, 1, &start, &count, &out, 1);
    if (s != ZARR_ERROR_CORRUPT_DATA) {
        fprintf(stderr, "read gave %d: %s\n", (int)s, zarr_last_error_message());
        return 5;
    }
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 6;
    /* ru_maxrss is in KiB: far below the declared 4 GiB. */
    if (usage.ru_maxrss > 512 * 1024) {
        fprintf(stderr, "peak resident memory %ld KiB\n", (long)usage.ru_maxrss);
        return 7;
    }
    zarr_array_free(array);
    zarr_store_free(store);
    return 0;
}

ZTEST(corrupt_chunk_declaring_gigabytes_costs_no_memory) {
    int rc = in_limited_child(RLIM_INFINITY, read_corrupt_huge_chunk, ztest_tmp_dir());
    if (rc != 0) ZT_FAIL_("child returned %d", rc);
}

/* An extent of 2^64 - 1 in chunks of 4 (and in shards of 8 of inner chunks of 4): the last
 * chunk reaches past 2^64. Reading and writing its elements neither wraps nor loops. */
ZTEST(extent_up_to_the_end_of_uint64) {
    static const char *const codecs[] = {
        "[{\"name\": \"bytes\"}]",
        "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4],"
        " \"codecs\": [{\"name\": \"bytes\"}], \"index_codecs\": [{\"name\": \"bytes\","
        " \"configuration\": {\"endian\": \"little\"}}]}}]",
    };
    size_t i;
    for (i = 0; i < 2; i++) {
        char meta[1024];
        zarr_store *store = NULL;
        zarr_array *array = NULL;
        uint64_t start = UINT64_MAX - 4, count = 3, last = UINT64_MAX - 1, one = 1;
        uint8_t in[3] = {1, 2, 3}, out[3] = {0}, nine = 9, got = 0;
        snprintf(meta, sizeof meta,
                 "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [18446744073709551615],"
                 " \"data_type\": \"uint8\", \"chunk_grid\": {\"name\": \"regular\","
                 " \"configuration\": {\"chunk_shape\": [%d]}},"
                 " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                 " \"codecs\": %s}",
                 i == 0 ? 4 : 8, codecs[i]);
        ZT_OK(zarr_store_open_memory(&store));
        ZT_OK(zarr_array_create(store, "/a", meta, &array));
        ZT_OK(zarr_array_write(array, 1, &start, &count, in, sizeof in));
        ZT_OK(zarr_array_read(array, 1, &start, &count, out, sizeof out));
        ZT_EQ_MEM(out, in, sizeof in);
        ZT_OK(zarr_array_write(array, 1, &last, &one, &nine, 1));
        ZT_OK(zarr_array_read(array, 1, &last, &one, &got, 1));
        ZT_CHECK(got == 9);
        /* One past the end is out of bounds, not a wrap to 0. */
        start = UINT64_MAX - 1;
        count = 2;
        ZT_STATUS(zarr_array_read(array, 1, &start, &count, out, sizeof out),
                  ZARR_ERROR_OUT_OF_BOUNDS);
        zarr_array_free(array);
        zarr_store_free(store);
    }
}

static const ztest_case ztest_cases[] = {
    ZCASE(shard_index_too_large_for_memory_is_a_status),
    ZCASE(corrupt_chunk_declaring_gigabytes_costs_no_memory),
    ZCASE(extent_up_to_the_end_of_uint64),
};

ZTEST_MAIN()
