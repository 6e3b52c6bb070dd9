/* zarr_array_resize, zarr_array_append and zarr_array_chunk_aligned. */
#include "ztest.h"

static const char *meta_v3 =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5, 7],"
    " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\","
    " \"configuration\": {\"chunk_shape\": [2, 3]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": -1,"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}";

static const char *meta_v2 =
    "{\"zarr_format\": 2, \"shape\": [5, 7], \"chunks\": [2, 3], \"dtype\": \"<i4\","
    " \"compressor\": null, \"filters\": null, \"fill_value\": -1, \"order\": \"C\"}";

/* Shrink to 3 x 4, then grow to 6 x 8: what the old chunks held past the old edge reads as
 * the fill value; chunks outside the shrunk shape are gone from the directory. */
ZTEST(shrink_then_grow) {
    const char *metas[2] = {meta_v3, meta_v2};
    int k;
    for (k = 0; k < 2; k++) {
        const char *root = ztest_tmp_dir();
        zarr_store *store = NULL;
        zarr_array *array = NULL, *other = NULL;
        int32_t data[35], back[48];
        uint64_t start[2] = {0, 0}, count[2] = {5, 7}, small[2] = {3, 4}, big[2] = {6, 8};
        uint64_t shape[2] = {0, 0};
        int r, c;
        for (r = 0; r < 35; r++) data[r] = r + 1;
        ZT_OK(zarr_store_open_filesystem(root, &store));
        ZT_OK(zarr_array_create(store, "/a", metas[k], &array));
        ZT_OK(zarr_array_write(array, 2, start, count, data, sizeof data));
        ZT_OK(zarr_array_resize(array, 2, small));
        ZT_OK(zarr_array_shape(array, 2, shape));
        ZT_CHECK(shape[0] == 3 && shape[1] == 4);
        ZT_CHECK(!ztest_exists(ztest_path(root, k == 0 ? "a/c/2/0" : "a/2.0")));
        ZT_CHECK(!ztest_exists(ztest_path(root, k == 0 ? "a/c/0/2" : "a/0.2")));
        ZT_CHECK(ztest_exists(ztest_path(root, k == 0 ? "a/c/1/1" : "a/1.1")));
        /* A new handle reads the new shape from the stored document. */
        ZT_OK(zarr_array_open(store, "/a", &other));
        ZT_OK(zarr_array_shape(other, 2, shape));
        ZT_CHECK(shape[0] == 3 && shape[1] == 4);
        zarr_array_free(other);
        ZT_OK(zarr_array_read(array, 2, start, small, back, 12 * sizeof(int32_t)));
        for (r = 0; r < 3; r++)
            for (c = 0; c < 4; c++) ZT_CHECK(back[r * 4 + c] == r * 7 + c + 1);
        ZT_OK(zarr_array_resize(array, 2, big));
        ZT_OK(zarr_array_read(array, 2, start, big, back, sizeof back));
        for (r = 0; r < 6; r++)
            for (c = 0; c < 8; c++)
                ZT_CHECK(back[r * 8 + c] == (r < 3 && c < 4 ? r * 7 + c + 1 : -1));
        zarr_array_free(array);
        zarr_store_free(store);
    }
}

ZTEST(resize_errors) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t shape[2] = {4, 4}, huge[2] = {UINT64_MAX, 2}, now[2] = {0, 0};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta_v3, &array));
    ZT_STATUS(zarr_array_resize(NULL, 2, shape), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_resize(array, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "shape");
    ZT_STATUS(zarr_array_resize(array, 1, shape), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_resize(array, 2, huge), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_OK(zarr_array_shape(array, 2, now));
    ZT_CHECK(now[0] == 5 && now[1] == 7);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* A model run appending time steps: three appends of 2 rows along dimension 0. */
ZTEST(append_time_steps) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const char *meta =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [0, 3],"
        " \"data_type\": \"float32\", \"chunk_grid\": {\"name\": \"regular\","
        " \"configuration\": {\"chunk_shape\": [4, 3]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
        " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";
    float step[6], all[18];
    uint64_t count[2] = {2, 3}, start[2] = {0, 0}, shape[2] = {0, 0}, wrong[2] = {2, 2};
    int t, i;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/t", meta, &array));
    for (t = 0; t < 3; t++) {
        for (i = 0; i < 6; i++) step[i] = (float)(t * 6 + i);
        ZT_OK(zarr_array_append(array, 2, count, 0, step, sizeof step));
    }
    ZT_OK(zarr_array_shape(array, 2, shape));
    ZT_CHECK(shape[0] == 6 && shape[1] == 3);
    ZT_OK(zarr_array_read(array, 2, start, shape, all, sizeof all));
    for (i = 0; i < 18; i++) ZT_CHECK(all[i] == (float)i);
    /* Errors leave the shape alone. */
    ZT_STATUS(zarr_array_append(NULL, 2, count, 0, step, sizeof step), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_append(array, 2, NULL, 0, step, sizeof step), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_append(array, 2, count, 0, NULL, sizeof step), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_append(array, 3, count, 0, step, sizeof step), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_append(array, 2, count, 2, step, sizeof step), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_append(array, 2, wrong, 0, step, 4 * sizeof(float)), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_append(array, 2, count, 0, step, sizeof step - 1),
              ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_OK(zarr_array_shape(array, 2, shape));
    ZT_CHECK(shape[0] == 6 && shape[1] == 3);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(chunk_aligned) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t start[2] = {2, 3}, count[2] = {3, 4}, bad[2] = {1, 3}, far[2] = {5, 0};
    int32_t aligned = -1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta_v3, &array));
    /* Rows 2..5 (5 is the edge), columns 3..7 (7 is the edge). */
    ZT_OK(zarr_array_chunk_aligned(array, 2, start, count, &aligned));
    ZT_CHECK(aligned == 1);
    ZT_OK(zarr_array_chunk_aligned(array, 2, bad, count, &aligned));
    ZT_CHECK(aligned == 0);
    ZT_STATUS(zarr_array_chunk_aligned(array, 2, far, count, &aligned), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_chunk_aligned(array, 1, start, count, &aligned), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_aligned(array, 2, start, count, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_aligned(NULL, 2, start, count, &aligned), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* The statuses that come from the layout, the stored data or the store: the 2022 draft
 * layout, a corrupt edge chunk that a resize must rewrite, a value that is not a regular
 * file, a read-only store, an extent past 2^64 - 1, variable-length elements. Each leaves
 * the shape as it was. */
ZTEST(resize_and_append_store_errors) {
    const char *root = ztest_tmp_dir(), *draft = ztest_tmp_dir();
    const char *strings =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"string\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
        " \"codecs\": [{\"name\": \"vlen-utf8\"}]}";
    const char *near_the_end =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [18446744073709551610],"
        " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\","
        " \"configuration\": {\"chunk_shape\": [4]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}";
    static const char junk[] = "three";
    zarr_store *store = NULL, *read_only = NULL, *draft_store = NULL;
    zarr_array *array = NULL, *ro = NULL, *text = NULL, *edge = NULL, *old = NULL;
    int32_t data[35], rows[14] = {0};
    uint64_t start[2] = {0, 0}, count[2] = {5, 7}, small[2] = {3, 4}, big[2] = {6, 8};
    uint64_t shape[2] = {0, 0}, two_rows[2] = {2, 7}, eight[1] = {8}, one[1] = {1};
    uint64_t d1[1] = {3};
    int i;
    for (i = 0; i < 35; i++) data[i] = i + 1;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta_v3, &array));
    ZT_OK(zarr_array_write(array, 2, start, count, data, sizeof data));
    /* A read-only store: nothing changes. */
    ZT_OK(zarr_store_open_url(root, "{\"read_only\": true}", &read_only));
    ZT_OK(zarr_array_open(read_only, "/a", &ro));
    ZT_STATUS(zarr_array_resize(ro, 2, small), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_array_append(ro, 2, two_rows, 0, rows, sizeof rows), ZARR_ERROR_READ_ONLY);
    ZT_OK(zarr_array_shape(ro, 2, shape));
    ZT_CHECK(shape[0] == 5 && shape[1] == 7);
    /* Shrink, then corrupt the edge chunk that growing must rewrite (chunk (1, 1) holds
     * columns 3 to 5, of which 4 and 5 were cut off). */
    ZT_OK(zarr_array_resize(array, 2, small));
    ZT_CHECK(ztest_write_file(ztest_path(root, "a/c/1/1"), junk, sizeof junk) == 0);
    ZT_STATUS(zarr_array_resize(array, 2, big), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "c/1/1");
    ZT_OK(zarr_array_shape(array, 2, shape));
    ZT_CHECK(shape[0] == 3 && shape[1] == 4);
    /* The same chunk a FIFO: an I/O error, without blocking. */
    ZT_CHECK(remove(ztest_path(root, "a/c/1/1")) == 0);
    ZT_CHECK(mkfifo(ztest_path(root, "a/c/1/1"), 0644) == 0);
    ZT_STATUS(zarr_array_resize(array, 2, big), ZARR_ERROR_IO);
    ZT_CHECK(remove(ztest_path(root, "a/c/1/1")) == 0);
    /* An append whose new extent passes 2^64 - 1. */
    ZT_OK(zarr_array_create(store, "/end", near_the_end, &edge));
    ZT_STATUS(zarr_array_append(edge, 1, eight, 0, rows, 8 * sizeof(int32_t)),
              ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_OK(zarr_array_shape(edge, 1, shape));
    ZT_CHECK(shape[0] == 18446744073709551610u);
    /* Variable-length elements: resizing works, appending fixed-size bytes does not. */
    ZT_OK(zarr_array_create(store, "/s", strings, &text));
    ZT_STATUS(zarr_array_append(text, 1, one, 0, rows, 4), ZARR_ERROR_UNSUPPORTED);
    ZT_OK(zarr_array_resize(text, 1, d1));
    /* The 2022 draft layout is read-only for shapes. */
    {
        static const char entry[] =
            "{\"zarr_format\": \"https://purl.org/zarr/spec/protocol/core/3.0\","
            " \"metadata_encoding\": \"https://purl.org/zarr/spec/protocol/core/3.0\","
            " \"metadata_key_suffix\": \".json\", \"extensions\": []}";
        ZT_CHECK(ztest_write_file(ztest_path(draft, "zarr.json"), entry, sizeof entry - 1) == 0);
    }
    ZT_CHECK(mkdir(ztest_path(draft, "meta"), 0777) == 0);
    ZT_CHECK(mkdir(ztest_path(draft, "meta/root"), 0777) == 0);
    {
        static const char doc[] =
            "{\"shape\": [2], \"data_type\": \"u1\", \"chunk_grid\": {\"type\": \"regular\","
            " \"chunk_shape\": [2], \"separator\": \"/\"}, \"chunk_memory_layout\": \"C\","
            " \"fill_value\": 0, \"extensions\": [], \"attributes\": {}}";
        ZT_CHECK(ztest_write_file(ztest_path(draft, "meta/root/x.array.json"), doc,
                                  sizeof doc - 1) == 0);
    }
    ZT_OK(zarr_store_open_filesystem(draft, &draft_store));
    ZT_OK(zarr_array_open(draft_store, "/x", &old));
    ZT_STATUS(zarr_array_resize(old, 1, d1), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "draft");
    zarr_array_free(old);
    zarr_array_free(text);
    zarr_array_free(edge);
    zarr_array_free(ro);
    zarr_array_free(array);
    zarr_store_free(draft_store);
    zarr_store_free(read_only);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(shrink_then_grow),
    ZCASE(resize_errors),
    ZCASE(resize_and_append_store_errors),
    ZCASE(append_time_steps),
    ZCASE(chunk_aligned),
};

ZTEST_MAIN()
