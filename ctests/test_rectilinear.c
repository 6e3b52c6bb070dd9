/* Arrays on a `rectilinear` chunk grid (chunks of different shapes along a dimension):
 * zarr_array_chunk_grid_shape and zarr_array_chunk_region with every documented status,
 * region reads and writes across chunks of different shapes, whole-chunk reads and writes
 * at each chunk's own size, resize, and grids that do not describe the array. */
#include "ztest.h"

/* Rows in chunks of 1, 2, 3, 3 (run-length [3, 2]) and 4 (past the edge at 10); columns
 * regular by 4 (the last chunk past the edge at 6). */
#define RECT_ROWS "[1, 2, [3, 2], 4]"

#define RECT_META(shape, rows, codecs)                                                     \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": " shape ","                 \
    " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"rectilinear\","               \
    " \"configuration\": {\"kind\": \"inline\", \"chunk_shapes\": [" rows ", 4]}},"         \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": -1,"                 \
    " \"codecs\": " codecs "}"

#define PLAIN "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]"
#define ZSTD                                                                               \
    "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"                 \
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]"

static zarr_array *make(zarr_store **store, const char *meta) {
    zarr_array *array = NULL;
    *store = NULL;
    if (zarr_store_open_memory(store) != ZARR_OK) return NULL;
    if (zarr_array_create(*store, "/r", meta, &array) != ZARR_OK) return NULL;
    return array;
}

static int32_t value_at(uint64_t r, uint64_t c) { return (int32_t)(100 * r + c); }

/* Writes every element of a 12 x 6 array as value_at. */
static void fill(zarr_array *a) {
    static int32_t all[12 * 6];
    uint64_t start[2] = {0, 0}, count[2] = {12, 6}, i;
    for (i = 0; i < 12 * 6; i++) all[i] = value_at(i / 6, i % 6);
    ZT_OK(zarr_array_write(a, 2, start, count, all, sizeof all));
}

ZTEST(grid_shape_and_chunk_regions) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, RECT_META("[12, 6]", RECT_ROWS, PLAIN));
    uint64_t grid[2] = {0, 0}, chunk_shape[2] = {0, 0};
    static const uint64_t row_starts[] = {0, 1, 3, 6, 9}, row_lengths[] = {1, 2, 3, 3, 4};
    size_t nbytes = 0, r, c;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_chunk_grid_shape(a, 2, grid));
    ZT_EQ_U64(grid[0], 5);
    ZT_EQ_U64(grid[1], 2);
    /* The chunk shape is the longest chunk along each dimension; chunk_nbytes its size. */
    ZT_OK(zarr_array_chunk_shape(a, 2, chunk_shape));
    ZT_EQ_U64(chunk_shape[0], 4);
    ZT_EQ_U64(chunk_shape[1], 4);
    ZT_OK(zarr_array_chunk_nbytes(a, &nbytes));
    ZT_EQ_U64(nbytes, 4 * 4 * 4);
    for (r = 0; r < 5; r++) {
        for (c = 0; c < 2; c++) {
            uint64_t idx[2] = {r, c}, start[2] = {99, 99}, shape[2] = {99, 99};
            ZT_OK(zarr_array_chunk_region(a, 2, idx, start, shape));
            ZT_EQ_U64(start[0], row_starts[r]);
            ZT_EQ_U64(shape[0], row_lengths[r]);
            ZT_EQ_U64(start[1], 4 * c);
            ZT_EQ_U64(shape[1], 4); /* the full chunk, past the edge at 6 */
        }
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(regular_grids_answer_the_same_functions) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t grid[2], idx[2] = {2, 2}, start[2], len[2];
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/g",
                            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10, 7],"
                            " \"data_type\": \"uint8\", \"chunk_grid\": {\"name\": \"regular\","
                            " \"configuration\": {\"chunk_shape\": [4, 3]}},"
                            " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                            " \"codecs\": " PLAIN "}",
                            &a));
    ZT_OK(zarr_array_chunk_grid_shape(a, 2, grid));
    ZT_EQ_U64(grid[0], 3);
    ZT_EQ_U64(grid[1], 3);
    ZT_OK(zarr_array_chunk_region(a, 2, idx, start, len));
    ZT_EQ_U64(start[0], 8);
    ZT_EQ_U64(start[1], 6);
    ZT_EQ_U64(len[0], 4);
    ZT_EQ_U64(len[1], 3);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(grid_functions_refuse_bad_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, RECT_META("[12, 6]", RECT_ROWS, PLAIN));
    uint64_t grid[3] = {7, 7, 7}, start[2] = {7, 7}, shape[2] = {7, 7};
    uint64_t past_rows[2] = {5, 0}, past_cols[2] = {0, 2}, huge[2] = {UINT64_MAX, 0};
    uint64_t ok[2] = {0, 0};
    ZT_CHECK(a != NULL);
    ZT_STATUS(zarr_array_chunk_grid_shape(NULL, 2, grid), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_grid_shape(a, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_grid_shape(a, 3, grid), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_chunk_grid_shape");
    ZT_STATUS(zarr_array_chunk_grid_shape(a, SIZE_MAX, grid), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_EQ_U64(grid[0], 7); /* untouched on error */

    ZT_STATUS(zarr_array_chunk_region(NULL, 2, ok, start, shape), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_region(a, 2, NULL, start, shape), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_region(a, 2, ok, NULL, shape), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_region(a, 2, ok, start, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_region(a, 1, ok, start, shape), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_region(a, 2, past_rows, start, shape), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_chunk_region");
    ZT_STATUS(zarr_array_chunk_region(a, 2, past_cols, start, shape), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_chunk_region(a, 2, huge, start, shape), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_EQ_U64(start[0], 7);
    ZT_EQ_U64(shape[0], 7);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(regions_cross_chunks_of_different_shapes) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, RECT_META("[12, 6]", RECT_ROWS, ZSTD));
    uint64_t start[2] = {2, 1}, count[2] = {8, 4}, r, c;
    int32_t got[8 * 4], patch[3 * 5];
    uint64_t pstart[2] = {5, 1}, pcount[2] = {3, 5};
    ZT_CHECK(a != NULL);
    fill(a);
    ZT_OK(zarr_array_read(a, 2, start, count, got, sizeof got));
    for (r = 0; r < 8; r++)
        for (c = 0; c < 4; c++) ZT_CHECK(got[r * 4 + c] == value_at(2 + r, 1 + c));
    /* A write straddling the chunks of 3 rows at 3 and 6, then a read of all of it. */
    for (r = 0; r < 15; r++) patch[r] = -(int32_t)r - 10;
    ZT_OK(zarr_array_write(a, 2, pstart, pcount, patch, sizeof patch));
    {
        static int32_t all[12 * 6];
        uint64_t s0[2] = {0, 0}, n0[2] = {12, 6};
        ZT_OK(zarr_array_read(a, 2, s0, n0, all, sizeof all));
        for (r = 0; r < 12; r++) {
            for (c = 0; c < 6; c++) {
                int in_patch = r >= 5 && r < 8 && c >= 1 && c < 6;
                int32_t want = in_patch ? -(int32_t)((r - 5) * 5 + (c - 1)) - 10 : value_at(r, c);
                ZT_CHECK(all[r * 6 + c] == want);
            }
        }
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(whole_chunks_move_at_their_own_shape) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, RECT_META("[12, 6]", RECT_ROWS, PLAIN));
    uint64_t idx[2] = {1, 1}, start[2], shape[2], r, c, big_idx[2] = {4, 0};
    int32_t chunk[2 * 4], back[2 * 4], biggest[4 * 4];
    int32_t sentinel[4 * 4 + 1];
    char *key = NULL;
    ZT_CHECK(a != NULL);
    fill(a);
    ZT_OK(zarr_array_chunk_region(a, 2, idx, start, shape));
    ZT_EQ_U64(shape[0] * shape[1], 8);
    /* Read: this chunk's own 2 x 4 elements, including the 2 columns past the edge. */
    memset(sentinel, 0x5a, sizeof sentinel);
    ZT_OK(zarr_array_read_chunk(a, 2, idx, sentinel, sizeof sentinel));
    for (r = 0; r < 2; r++) {
        for (c = 0; c < 4; c++) {
            int32_t want = 4 + c < 6 ? value_at(1 + r, 4 + c) : -1;
            ZT_CHECK(sentinel[r * 4 + c] == want);
        }
    }
    ZT_CHECK(sentinel[8] == 0x5a5a5a5a); /* nothing past the chunk's own bytes */
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, chunk, sizeof chunk - 1),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    /* Write: exactly this chunk's size; the largest chunk's size is refused for it. */
    for (r = 0; r < 8; r++) chunk[r] = 7000 + (int32_t)r;
    ZT_STATUS(zarr_array_write_chunk(a, 2, idx, biggest, sizeof biggest),
              ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_OK(zarr_array_write_chunk(a, 2, idx, chunk, sizeof chunk));
    ZT_OK(zarr_array_read_chunk(a, 2, idx, back, sizeof back));
    ZT_EQ_MEM(back, chunk, sizeof chunk);
    {
        int32_t v[2];
        uint64_t s[2] = {2, 4}, n[2] = {1, 2};
        ZT_OK(zarr_array_read(a, 2, s, n, v, sizeof v));
        ZT_CHECK(v[0] == 7004 && v[1] == 7005);
    }
    /* The last row of chunks is 4 long: the largest, chunk_nbytes. */
    ZT_OK(zarr_array_read_chunk(a, 2, big_idx, biggest, sizeof biggest));
    ZT_CHECK(biggest[0] == value_at(9, 0));
    ZT_CHECK(biggest[3 * 4] == -1); /* row 12 lies past the edge */
    ZT_OK(zarr_array_chunk_key(a, 2, idx, &key));
    ZT_CHECK(strcmp(key, "r/c/1/1") == 0);
    zarr_string_free(key);
    /* decode_chunk has no chunk position: it cannot know which shape the bytes have. */
    ZT_STATUS(zarr_array_decode_chunk(a, chunk, sizeof chunk, back, sizeof back),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read_chunk");
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(reopened_arrays_keep_the_grid_in_their_metadata) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL;
    uint64_t grid[2];
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_array_create(store, "/r", RECT_META("[12, 6]", RECT_ROWS, ZSTD), &a));
    fill(a);
    zarr_array_free(a);
    a = NULL;
    ZT_OK(zarr_array_open(store, "/r", &a));
    ZT_OK(zarr_array_chunk_grid_shape(a, 2, grid));
    ZT_EQ_U64(grid[0], 5);
    ZT_OK(zarr_array_metadata_json(a, &json));
    ZT_STR_CONTAINS(json, "\"rectilinear\"");
    zarr_string_free(json);
    {
        int32_t v;
        uint64_t s[2] = {11, 5}, n[2] = {1, 1};
        ZT_OK(zarr_array_read(a, 2, s, n, &v, sizeof v));
        ZT_CHECK(v == value_at(11, 5));
    }
    ZT_CHECK(ztest_is_file(ztest_path(dir, "r/c/4/1")));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "r/c/5/0")));
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(resize_extends_the_last_chunk_row) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, RECT_META("[12, 6]", RECT_ROWS, PLAIN));
    uint64_t grown[2] = {16, 6}, small[2] = {4, 6}, grid[2], idx[2] = {5, 0}, start[2], shape[2];
    ZT_CHECK(a != NULL);
    fill(a);
    /* Growing past the chunks' cover adds chunks of the last chunk's length. */
    ZT_OK(zarr_array_resize(a, 2, grown));
    ZT_OK(zarr_array_chunk_grid_shape(a, 2, grid));
    ZT_EQ_U64(grid[0], 6);
    ZT_OK(zarr_array_chunk_region(a, 2, idx, start, shape));
    ZT_EQ_U64(start[0], 13);
    ZT_EQ_U64(shape[0], 4);
    {
        int32_t v[2];
        uint64_t s[2] = {11, 0}, n[2] = {2, 1};
        ZT_OK(zarr_array_read(a, 2, s, n, v, sizeof v));
        ZT_CHECK(v[0] == value_at(11, 0));
        ZT_CHECK(v[1] == -1); /* row 12 was past the old edge: the fill value */
    }
    /* Shrinking drops the chunks past the new edge and keeps the rest. */
    ZT_OK(zarr_array_resize(a, 2, small));
    ZT_OK(zarr_array_chunk_grid_shape(a, 2, grid));
    ZT_EQ_U64(grid[0], 3);
    {
        int32_t v;
        uint64_t s[2] = {3, 2}, n[2] = {1, 1};
        ZT_OK(zarr_array_read(a, 2, s, n, &v, sizeof v));
        ZT_CHECK(v == value_at(3, 2));
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(grids_that_do_not_describe_the_array_are_refused) {
    static const char *const bad[] = {
        /* The chunks cover 9 rows of 12. */
        RECT_META("[12, 6]", "[1, 2, [3, 2]]", PLAIN),
        /* A chunk of length 0; a negative length; a run of zero repeats. */
        RECT_META("[12, 6]", "[0, 12]", PLAIN),
        RECT_META("[12, 6]", "[-1, 13]", PLAIN),
        RECT_META("[12, 6]", "[[3, 0], 12]", PLAIN),
        /* Not a list, a string, a run with three numbers. */
        RECT_META("[12, 6]", "{\"a\": 1}", PLAIN),
        RECT_META("[12, 6]", "\"12\"", PLAIN),
        RECT_META("[12, 6]", "[[3, 2, 1], 12]", PLAIN),
        /* Runs whose total overflows 64 bits. */
        RECT_META("[12, 6]", "[[18446744073709551615, 18446744073709551615]]", PLAIN),
        /* Three dimensions of chunk shapes for a 2-D array. */
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2, 2],"
        " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"rectilinear\","
        " \"configuration\": {\"kind\": \"inline\", \"chunk_shapes\": [1, 1, 1]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
        " \"codecs\": " PLAIN "}",
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_store *store = NULL;
        zarr_array *a = NULL;
        zarr_status s;
        ZT_OK(zarr_store_open_memory(&store));
        s = zarr_array_create(store, "/r", bad[i], &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            ZT_FAIL_("case %zu: status %d (%s), want INVALID_METADATA", i, (int)s,
                     zarr_last_error_message());
        }
        ZT_CHECK(a == NULL);
        /* Stored by another writer, the same document is refused on open. */
        ZT_OK(zarr_store_set(store, "r/zarr.json", bad[i], strlen(bad[i])));
        ZT_STATUS(zarr_array_open(store, "/r", &a), ZARR_ERROR_INVALID_METADATA);
        zarr_store_free(store);
    }
}

ZTEST(grid_kinds_other_than_inline_are_unsupported) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(
                  store, "/r",
                  "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2],"
                  " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"rectilinear\","
                  " \"configuration\": {\"kind\": \"external\", \"chunk_shapes\": [1]}},"
                  " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                  " \"codecs\": " PLAIN "}",
                  &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "external");
    ZT_CHECK(a == NULL);
    zarr_store_free(store);
}

ZTEST(sharding_needs_inner_chunks_that_tile_every_chunk) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    /* Inner chunks of 2 rows cannot tile the chunks of 1 and 3 rows. */
    const char *meta = RECT_META(
        "[12, 6]", RECT_ROWS,
        "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2],"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
        " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}]");
    const char *tiled = RECT_META(
        "[12, 6]", RECT_ROWS,
        "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [1, 2],"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
        " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}]");
    uint64_t s[2] = {8, 3}, n[2] = {2, 2};
    int32_t v[4];
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/bad", meta, &a), ZARR_ERROR_INVALID_METADATA);
    ZT_OK(zarr_array_create(store, "/r", tiled, &a));
    fill(a);
    ZT_OK(zarr_array_read(a, 2, s, n, v, sizeof v));
    ZT_CHECK(v[0] == value_at(8, 3) && v[1] == value_at(8, 4));
    ZT_CHECK(v[2] == value_at(9, 3) && v[3] == value_at(9, 4));
    zarr_array_free(a);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(grid_shape_and_chunk_regions),
    ZCASE(regular_grids_answer_the_same_functions),
    ZCASE(grid_functions_refuse_bad_arguments),
    ZCASE(regions_cross_chunks_of_different_shapes),
    ZCASE(whole_chunks_move_at_their_own_shape),
    ZCASE(reopened_arrays_keep_the_grid_in_their_metadata),
    ZCASE(resize_extends_the_last_chunk_row),
    ZCASE(grids_that_do_not_describe_the_array_are_refused),
    ZCASE(grid_kinds_other_than_inline_are_unsupported),
    ZCASE(sharding_needs_inner_chunks_that_tile_every_chunk),
};

ZTEST_MAIN()
