/* zarr_array_read_strided / zarr_array_write_strided: Fortran order, slices of larger
 * buffers, padded rows; the stride rules and every documented error. */
#include "ztest.h"

/* A 6 x 10 float64 array in chunks of 4 x 4 (edge chunks on both dimensions), through
 * `codecs`, holding 100 * r + c. */
static zarr_array *make_array(zarr_store *store, const char *codecs) {
    char meta[1024];
    zarr_array *array = NULL;
    static double data[6 * 10];
    uint64_t start[2] = {0, 0}, count[2] = {6, 10};
    int r, c;
    snprintf(meta, sizeof meta,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [6, 10],"
             " \"data_type\": \"float64\", \"chunk_grid\": {\"name\": \"regular\","
             " \"configuration\": {\"chunk_shape\": [4, 4]}},"
             " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": -1,"
             " \"codecs\": %s}",
             codecs);
    for (r = 0; r < 6; r++)
        for (c = 0; c < 10; c++) data[r * 10 + c] = 100.0 * r + c;
    if (zarr_array_create(store, "/a", meta, &array) != ZARR_OK) return NULL;
    if (zarr_array_write(array, 2, start, count, data, sizeof data) != ZARR_OK) return NULL;
    return array;
}

static const char *const codec_lists[] = {
    "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}}]",
    "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": true}}]",
    "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2],"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
    " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}]",
};

/* A 5 x 7 block at (1, 2), read in Fortran order: element (i, j) at byte 8 * (i + 5 j). */
ZTEST(read_fortran_order) {
    size_t k;
    for (k = 0; k < 3; k++) {
        zarr_store *store = NULL;
        zarr_array *array;
        double f[5 * 7];
        uint64_t start[2] = {1, 2}, count[2] = {5, 7};
        int64_t strides[2] = {8, 5 * 8};
        int i, j;
        ZT_OK(zarr_store_open_memory(&store));
        array = make_array(store, codec_lists[k]);
        ZT_CHECK(array != NULL);
        ZT_OK(zarr_array_read_strided(array, 2, start, count, strides, f, sizeof f));
        for (i = 0; i < 5; i++)
            for (j = 0; j < 7; j++) ZT_CHECK(f[i + 5 * j] == 100.0 * (i + 1) + (j + 2));
        zarr_array_free(array);
        zarr_store_free(store);
    }
}

/* Into a slice of a larger buffer (rows of 16 doubles), leaving the gaps untouched; and
 * written back from a Fortran-ordered buffer. */
ZTEST(slice_of_a_larger_buffer_and_fortran_write) {
    size_t k;
    for (k = 0; k < 3; k++) {
        zarr_store *store = NULL;
        zarr_array *array;
        double big[6 * 16], f[6 * 10], back[6 * 10];
        uint64_t start[2] = {0, 0}, count[2] = {6, 10};
        int64_t rows[2] = {16 * 8, 8}, fortran[2] = {8, 6 * 8};
        int i, j;
        ZT_OK(zarr_store_open_memory(&store));
        array = make_array(store, codec_lists[k]);
        ZT_CHECK(array != NULL);
        for (i = 0; i < 6 * 16; i++) big[i] = -7.0;
        ZT_OK(zarr_array_read_strided(array, 2, start, count, rows, big, sizeof big));
        for (i = 0; i < 6; i++)
            for (j = 0; j < 16; j++)
                ZT_CHECK(big[i * 16 + j] == (j < 10 ? 100.0 * i + j : -7.0));
        /* Write new values given in Fortran order; read back in C order. */
        for (i = 0; i < 6; i++)
            for (j = 0; j < 10; j++) f[i + 6 * j] = 1000.0 + 10 * i + j;
        ZT_OK(zarr_array_write_strided(array, 2, start, count, fortran, f, sizeof f));
        ZT_OK(zarr_array_read(array, 2, start, count, back, sizeof back));
        for (i = 0; i < 6; i++)
            for (j = 0; j < 10; j++) ZT_CHECK(back[i * 10 + j] == 1000.0 + 10 * i + j);
        zarr_array_free(array);
        zarr_store_free(store);
    }
}

/* C strides give the same bytes as zarr_array_read. */
ZTEST(c_strides_equal_the_dense_read) {
    zarr_store *store = NULL;
    zarr_array *array;
    double dense[3 * 9], strided[3 * 9];
    uint64_t start[2] = {2, 1}, count[2] = {3, 9};
    int64_t strides[2] = {9 * 8, 8};
    ZT_OK(zarr_store_open_memory(&store));
    array = make_array(store, codec_lists[1]);
    ZT_CHECK(array != NULL);
    ZT_OK(zarr_array_read(array, 2, start, count, dense, sizeof dense));
    ZT_OK(zarr_array_read_strided(array, 2, start, count, strides, strided, sizeof strided));
    ZT_EQ_MEM(dense, strided, sizeof dense);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(errors) {
    zarr_store *store = NULL;
    zarr_array *array;
    double buf[64], sentinel[64];
    uint64_t start[2] = {0, 0}, count[2] = {2, 3}, far[2] = {5, 0};
    int64_t good[2] = {24, 8}, zero[2] = {24, 0}, negative[2] = {-24, 8}, overlap[2] = {8, 8};
    int i;
    for (i = 0; i < 64; i++) buf[i] = sentinel[i] = -3.0;
    ZT_OK(zarr_store_open_memory(&store));
    array = make_array(store, codec_lists[0]);
    ZT_CHECK(array != NULL);
    ZT_STATUS(zarr_array_read_strided(NULL, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, NULL, buf, sizeof buf),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "byte_strides");
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, good, NULL, sizeof buf),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_strided(array, 1, start, count, good, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, zero, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "stride");
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, negative, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, overlap, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "overlap");
    ZT_STATUS(zarr_array_read_strided(array, 2, far, count, good, buf, sizeof buf),
              ZARR_ERROR_OUT_OF_BOUNDS);
    /* The span of a 2 x 3 block with rows of 24 bytes is 24 + 2 * 8 + 8 = 48. */
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, good, buf, 47),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_MEM(buf, sentinel, sizeof buf);
    ZT_OK(zarr_array_read_strided(array, 2, start, count, good, buf, 48));
    ZT_CHECK(buf[5] == 102.0 && buf[6] == -3.0);
    /* Writes: the same checks, except that elements may share bytes (they are only read). */
    ZT_STATUS(zarr_array_write_strided(NULL, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_strided(array, 2, start, count, good, buf, 47),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_write_strided(array, 2, start, count, zero, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_write_strided(array, 2, far, count, good, buf, sizeof buf),
              ZARR_ERROR_OUT_OF_BOUNDS);
    {
        /* Rows that share bytes: row 1 starts one element after row 0. */
        double values[4] = {7, 8, 9, 10}, back[6];
        int64_t shifted[2] = {8, 8};
        ZT_OK(zarr_array_write_strided(array, 2, start, count, shifted, values, sizeof values));
        ZT_OK(zarr_array_read(array, 2, start, count, back, sizeof back));
        ZT_CHECK(back[0] == 7 && back[2] == 9 && back[3] == 8 && back[5] == 10);
    }
    zarr_array_free(array);
    zarr_store_free(store);
}

/* The statuses that come from the stored data or the store: a corrupt chunk, a value that
 * is not a regular file, a read-only store, variable-length elements, a span that does not
 * fit in memory. */
ZTEST(store_and_data_errors) {
    const char *root = ztest_tmp_dir();
    const char *strings =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"string\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
        " \"codecs\": [{\"name\": \"vlen-utf8\"}]}";
    zarr_store *store = NULL, *read_only = NULL;
    zarr_array *array = NULL, *text = NULL, *ro = NULL;
    double buf[64];
    uint64_t start[2] = {0, 0}, count[2] = {2, 3}, three[2] = {3, 3}, one[1] = {0}, four[1] = {4};
    int64_t good[2] = {24, 8}, huge[2] = {INT64_MAX, 8}, dense[1] = {8};
    static const char junk[] = "not a zstd frame";
    int i;
    for (i = 0; i < 64; i++) buf[i] = (double)i;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    array = make_array(store, codec_lists[1]);
    ZT_CHECK(array != NULL);
    ZT_OK(zarr_array_write_strided(array, 2, start, count, good, buf, sizeof buf));
    /* A span that does not fit in memory: 2 * (2^63 - 1) + 2 * 8 + 8 bytes. */
    ZT_STATUS(zarr_array_read_strided(array, 2, start, three, huge, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "span");
    ZT_STATUS(zarr_array_write_strided(array, 2, start, three, huge, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    /* A corrupt chunk: reading it, and merging a partial write into it. */
    ZT_CHECK(ztest_write_file(ztest_path(root, "a/c/0/0"), junk, sizeof junk) == 0);
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STATUS(zarr_array_write_strided(array, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_CORRUPT_DATA);
    /* A value that is not a regular file: an I/O error, without blocking. */
    ZT_CHECK(remove(ztest_path(root, "a/c/0/0")) == 0);
    ZT_CHECK(mkfifo(ztest_path(root, "a/c/0/0"), 0644) == 0);
    ZT_STATUS(zarr_array_read_strided(array, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_IO);
    ZT_STATUS(zarr_array_write_strided(array, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_IO);
    /* A read-only store reads and refuses writes. */
    ZT_CHECK(remove(ztest_path(root, "a/c/0/0")) == 0);
    ZT_OK(zarr_store_open_url(root, "{\"read_only\": true}", &read_only));
    ZT_OK(zarr_array_open(read_only, "/a", &ro));
    ZT_OK(zarr_array_read_strided(ro, 2, start, count, good, buf, sizeof buf));
    ZT_STATUS(zarr_array_write_strided(ro, 2, start, count, good, buf, sizeof buf),
              ZARR_ERROR_READ_ONLY);
    /* Variable-length elements have their own functions. */
    ZT_OK(zarr_array_create(store, "/s", strings, &text));
    ZT_STATUS(zarr_array_read_strided(text, 1, one, four, dense, buf, sizeof buf),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read_vlen");
    ZT_STATUS(zarr_array_write_strided(text, 1, one, four, dense, buf, sizeof buf),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write_vlen");
    zarr_array_free(ro);
    zarr_array_free(text);
    zarr_array_free(array);
    zarr_store_free(read_only);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(read_fortran_order),
    ZCASE(slice_of_a_larger_buffer_and_fortran_write),
    ZCASE(c_strides_equal_the_dense_read),
    ZCASE(errors),
    ZCASE(store_and_data_errors),
};

ZTEST_MAIN()
