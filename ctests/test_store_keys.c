/* The store's keys and values (zarr_store_get / set / erase / list_json), node metadata of
 * any node (zarr_store_node_metadata_json), and raw chunks (zarr_array_chunk_key,
 * zarr_array_decode_chunk). */
#include "ztest.h"

static const char *meta =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4, 6],"
    " \"data_type\": \"int16\", \"chunk_grid\": {\"name\": \"regular\","
    " \"configuration\": {\"chunk_shape\": [2, 3]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}},"
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";

ZTEST(get_set_erase) {
    zarr_store *store = NULL;
    char buf[16];
    size_t size = 0;
    ZT_OK(zarr_store_open_filesystem(ztest_tmp_dir(), &store));
    ZT_OK(zarr_store_set(store, "x/y", "hello", 5));
    ZT_OK(zarr_store_get(store, "x/y", NULL, 0, &size));
    ZT_CHECK(size == 5);
    memset(buf, '#', sizeof buf);
    ZT_STATUS(zarr_store_get(store, "x/y", buf, 4, &size), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_CHECK(size == 5 && buf[0] == '#');
    ZT_OK(zarr_store_get(store, "x/y", buf, sizeof buf, &size));
    ZT_CHECK(size == 5 && memcmp(buf, "hello", 5) == 0 && buf[5] == '#');
    /* An empty value is a value. */
    ZT_OK(zarr_store_set(store, "empty", NULL, 0));
    ZT_OK(zarr_store_get(store, "empty", NULL, 0, &size));
    ZT_CHECK(size == 0);
    ZT_OK(zarr_store_erase(store, "x/y"));
    ZT_OK(zarr_store_erase(store, "x/y"));
    ZT_STATUS(zarr_store_get(store, "x/y", buf, sizeof buf, &size), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "x/y");
    /* Hostile and malformed keys. */
    ZT_STATUS(zarr_store_set(store, "../escape", "x", 1), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_store_get(store, "/abs", buf, sizeof buf, &size), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_store_erase(store, "a//b"), ZARR_ERROR_INVALID_PATH);
    /* NULL arguments. */
    ZT_STATUS(zarr_store_get(NULL, "k", buf, sizeof buf, &size), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_get(store, NULL, buf, sizeof buf, &size), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_get(store, "empty", buf, sizeof buf, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_get(store, "empty", NULL, 8, &size), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_set(NULL, "k", "x", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_set(store, NULL, "x", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_set(store, "k", NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_erase(NULL, "k"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_erase(store, NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_store_free(store);
}

ZTEST(read_only_store) {
    zarr_store *store = NULL;
    ZT_OK(zarr_store_open_zip(ZTEST_ZIP_DIR "/data.zipped_from_parent.zarr.zip", &store));
    ZT_STATUS(zarr_store_set(store, "k", "x", 1), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_erase(store, "k"), ZARR_ERROR_READ_ONLY);
    zarr_store_free(store);
}

ZTEST(list_json) {
    zarr_store *store = NULL;
    char *json = NULL, *compact;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_store_set(store, "b", "1", 1));
    ZT_OK(zarr_store_set(store, "a/x", "1", 1));
    ZT_OK(zarr_store_set(store, "a/y/z", "1", 1));
    ZT_OK(zarr_store_list_json(store, "", &json));
    compact = ztest_json_compact(json);
    ZT_CHECK(strcmp(compact, "{\"keys\":[\"b\"],\"prefixes\":[\"a\"]}") == 0);
    free(compact);
    zarr_string_free(json);
    ZT_OK(zarr_store_list_json(store, "a/", &json));
    compact = ztest_json_compact(json);
    ZT_CHECK(strcmp(compact, "{\"keys\":[\"x\"],\"prefixes\":[\"y\"]}") == 0);
    free(compact);
    zarr_string_free(json);
    json = (char *)1;
    ZT_STATUS(zarr_store_list_json(store, "a", &json), ZARR_ERROR_INVALID_PATH);
    ZT_CHECK(json == NULL);
    ZT_STATUS(zarr_store_list_json(NULL, "", &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_list_json(store, NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_list_json(store, "", NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_store_free(store);
}

/* Metadata of an array whose codec this build lacks: shown, though it cannot be opened. */
ZTEST(node_metadata_of_any_node) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    char *json = NULL;
    const char *unknown =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [3],"
        " \"data_type\": \"float32\", \"chunk_grid\": {\"name\": \"regular\","
        " \"configuration\": {\"chunk_shape\": [3]}}, \"chunk_key_encoding\": {\"name\": \"default\"},"
        " \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
        " {\"name\": \"future-codec\"}]}";
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_store_set(store, "u/zarr.json", unknown, strlen(unknown)));
    ZT_STATUS(zarr_array_open(store, "/u", &array), ZARR_ERROR_UNSUPPORTED);
    ZT_OK(zarr_store_node_metadata_json(store, "/u", &json));
    ZT_STR_CONTAINS(json, "future-codec");
    ZT_STR_CONTAINS(json, "\"node_type\":\"array\"");
    zarr_string_free(json);
    /* A v2 group with attributes. */
    ZT_OK(zarr_store_set(store, "g/.zgroup", "{\"zarr_format\": 2}", 18));
    ZT_OK(zarr_store_set(store, "g/.zattrs", "{\"title\": \"t\"}", 14));
    ZT_OK(zarr_store_node_metadata_json(store, "/g", &json));
    ZT_STR_CONTAINS(json, "\"zarr_format\":2");
    ZT_STR_CONTAINS(json, "\"node_type\":\"group\"");
    ZT_STR_CONTAINS(json, "\"title\":\"t\"");
    zarr_string_free(json);
    json = (char *)1;
    ZT_STATUS(zarr_store_node_metadata_json(store, "/missing", &json), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(json == NULL);
    ZT_STATUS(zarr_store_node_metadata_json(store, "/../x", &json), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_store_node_metadata_json(NULL, "/u", &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_node_metadata_json(store, NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_node_metadata_json(store, "/u", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_store_set(store, "bad/zarr.json", "[1]", 3));
    ZT_STATUS(zarr_store_node_metadata_json(store, "/bad", &json), ZARR_ERROR_INVALID_METADATA);
    zarr_store_free(store);
}

/* A chunk fetched by key and decoded apart equals the chunk read through the array. */
ZTEST(raw_chunks) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int16_t data[24], chunk[6], decoded[6];
    unsigned char raw[256];
    uint64_t start[2] = {0, 0}, count[2] = {4, 6}, idx[2] = {1, 1}, far[2] = {2, 0};
    char *key = NULL;
    size_t size = 0;
    int i;
    for (i = 0; i < 24; i++) data[i] = (int16_t)(i * 3 - 20);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/g/a", meta, &array));
    ZT_OK(zarr_array_write(array, 2, start, count, data, sizeof data));
    ZT_OK(zarr_array_chunk_key(array, 2, idx, &key));
    ZT_CHECK(strcmp(key, "g/a/c/1/1") == 0);
    ZT_OK(zarr_store_get(store, key, raw, sizeof raw, &size));
    ZT_OK(zarr_array_decode_chunk(array, raw, size, decoded, sizeof decoded));
    ZT_OK(zarr_array_read_chunk(array, 2, idx, chunk, sizeof chunk));
    ZT_EQ_MEM(decoded, chunk, sizeof chunk);
    /* Corrupt, short buffer, NULLs. */
    raw[size - 1] ^= 0xff;
    ZT_STATUS(zarr_array_decode_chunk(array, raw, size - 3, decoded, sizeof decoded),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STATUS(zarr_array_decode_chunk(array, raw, size, decoded, sizeof decoded - 1),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_decode_chunk(NULL, raw, size, decoded, sizeof decoded),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_decode_chunk(array, NULL, size, decoded, sizeof decoded),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_decode_chunk(array, raw, size, NULL, sizeof decoded),
              ZARR_ERROR_NULL_ARGUMENT);
    zarr_string_free(key);
    key = (char *)1;
    ZT_STATUS(zarr_array_chunk_key(array, 2, far, &key), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(key == NULL);
    ZT_STATUS(zarr_array_chunk_key(array, 1, idx, &key), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_key(array, 2, NULL, &key), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_key(array, 2, idx, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_key(NULL, 2, idx, &key), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(array);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(get_set_erase),
    ZCASE(read_only_store),
    ZCASE(list_json),
    ZCASE(node_metadata_of_any_node),
    ZCASE(raw_chunks),
};

ZTEST_MAIN()
