/* The worker pool size: zarr_thread_pool_set_size, zarr_thread_pool_size, ZARR_NUM_THREADS; and
 * region reads giving the same result with one worker and with several. */
#include "ztest.h"

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

ZTEST(null_output) {
    ZT_STATUS(zarr_thread_pool_size(NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "num_threads_out");
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
    ZCASE(null_output),
    ZCASE(same_result_with_one_or_many_workers),
};

ZTEST_MAIN()
