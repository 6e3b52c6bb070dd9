/* Deleting nodes (every layout, consolidated metadata kept true, symbolic links never
 * followed out of the store), erasing chunks and asking whether a chunk is stored. */
#include "ztest.h"

#include <unistd.h>

static const char *const v3_u8 =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4,4],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2,2]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":9,"
    "\"codecs\":[{\"name\":\"bytes\"}]}";

static const char *const v2_u8 =
    "{\"zarr_format\":2,\"shape\":[4,4],\"chunks\":[2,2],\"dtype\":\"|u1\","
    "\"compressor\":null,\"fill_value\":9,\"filters\":null,\"order\":\"C\"}";

static const char *const v3_sharded =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[8],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
    "\"codecs\":[{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":[2],"
    "\"codecs\":[{\"name\":\"bytes\"}],\"index_codecs\":[{\"name\":\"bytes\","
    "\"configuration\":{\"endian\":\"little\"}},{\"name\":\"crc32c\"}],"
    "\"index_location\":\"end\"}}]}";

/* Create an array at path with every element set to `value`. */
static int filled_array(zarr_store *store, const char *path, const char *doc, uint8_t value) {
    zarr_array *a = NULL;
    uint8_t data[16];
    uint64_t start[2] = {0, 0}, count[2] = {4, 4};
    int ok;
    memset(data, value, sizeof data);
    if (zarr_array_create(store, path, doc, &a) != ZARR_OK) return 0;
    ok = zarr_array_write(a, 2, start, count, data, sizeof data) == ZARR_OK;
    zarr_array_free(a);
    return ok;
}

/* The hierarchy /g/a, /g/sub/b, /keep, /gx (a name sharing the prefix "g") in `format`,
 * consolidated at the root. */
static int hierarchy(zarr_store *store, uint32_t format) {
    const char *doc = format == 2 ? v2_u8 : v3_u8;
    zarr_group *root = NULL;
    int ok;
    if (zarr_group_create_with_format(store, "/", NULL, format, &root) != ZARR_OK) return 0;
    ok = filled_array(store, "/g/a", doc, 1) && filled_array(store, "/g/sub/b", doc, 2) &&
         filled_array(store, "/keep", doc, 3) && filled_array(store, "/gx", doc, 4) &&
         zarr_group_consolidate(root) == ZARR_OK;
    zarr_group_free(root);
    return ok;
}

/* Whether opening `path` as a node of either kind gives NOT_FOUND. */
static int gone(zarr_store *store, const char *path) {
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    return zarr_array_open(store, path, &a) == ZARR_ERROR_NOT_FOUND &&
           zarr_group_open(store, path, &g) == ZARR_ERROR_NOT_FOUND;
}

static void delete_in_format(uint32_t format) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL, *view = NULL, *fresh = NULL;
    zarr_array *keep = NULL;
    zarr_group *root = NULL;
    size_t n = 0;
    char *consolidated;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_CHECK(hierarchy(store, format));
    ZT_OK(zarr_store_delete_node(store, "/g"));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "g")));
    ZT_CHECK(ztest_exists(ztest_path(dir, "gx")));
    ZT_CHECK(gone(store, "/g") && gone(store, "/g/a") && gone(store, "/g/sub/b"));
    /* Consolidated metadata no longer lists the subtree. */
    consolidated = (char *)ztest_read_file(
        ztest_path(dir, format == 2 ? ".zmetadata" : "zarr.json"), NULL);
    ZT_CHECK(consolidated != NULL && strstr(consolidated, "\"g/") == NULL &&
             strstr(consolidated, "\"g\"") == NULL && strstr(consolidated, "\"gx") != NULL);
    free(consolidated);
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_CHECK(gone(view, "/g") && gone(view, "/g/a"));
    ZT_OK(zarr_array_open(view, "/keep", &keep));
    zarr_array_free(keep);
    /* Deleting through the consolidated view: the view forgets the node too. */
    ZT_OK(zarr_store_delete_node(view, "/keep"));
    ZT_CHECK(gone(view, "/keep") && gone(store, "/keep"));
    ZT_OK(zarr_store_open_consolidated(store, &fresh));
    ZT_CHECK(gone(fresh, "/keep"));
    ZT_OK(zarr_group_open(store, "/", &root));
    ZT_OK(zarr_group_child_count(root, &n));
    ZT_EQ_U64(n, 1);
    ZT_STATUS(zarr_store_delete_node(store, "/keep"), ZARR_ERROR_NOT_FOUND);
    zarr_group_free(root);
    zarr_store_free(fresh);
    zarr_store_free(view);
    zarr_store_free(store);
}

ZTEST(delete_v3_subtree_and_array) { delete_in_format(3); }
ZTEST(delete_v2_subtree_and_array) { delete_in_format(2); }

/* mkdir -p for test fixtures; 0 on success. */
static int make_dirs(const char *path) {
    char buf[4096];
    size_t i, n = strlen(path);
    if (n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
            buf[i] = c;
        }
    }
    return 0;
}

/* Write `text` at dir/relative, creating directories. */
static int put(const char *dir, const char *relative, const char *text) {
    char parent[4096];
    const char *path = ztest_path(dir, relative);
    const char *slash = strrchr(path, '/');
    snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
    return make_dirs(parent) == 0 && ztest_write_file(path, text, strlen(text)) == 0;
}

ZTEST(delete_draft_layout) {
    const char *dir = ztest_tmp_dir();
    const char *array_doc =
        "{\"shape\": [2], \"data_type\": \"u1\", \"chunk_grid\": {\"type\": \"regular\","
        " \"chunk_shape\": [2], \"separator\": \"/\"}, \"chunk_memory_layout\": \"C\","
        " \"fill_value\": 0, \"extensions\": [], \"attributes\": {}}";
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_CHECK(put(dir, "zarr.json",
                 "{\"zarr_format\": \"https://purl.org/zarr/spec/protocol/core/3.0\","
                 " \"metadata_encoding\": \"https://purl.org/zarr/spec/protocol/core/3.0\","
                 " \"metadata_key_suffix\": \".json\", \"extensions\": []}"));
    ZT_CHECK(put(dir, "meta/root/g.group.json", "{\"attributes\": {}}"));
    ZT_CHECK(put(dir, "meta/root/g/x.array.json", array_doc));
    ZT_CHECK(put(dir, "data/root/g/x/c0", "ab"));
    ZT_CHECK(put(dir, "meta/root/keep.array.json", array_doc));
    ZT_CHECK(put(dir, "data/root/keep/c0", "cd"));
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_array_open(store, "/g/x", &a));
    zarr_array_free(a);
    ZT_OK(zarr_store_delete_node(store, "/g"));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "meta/root/g.group.json")));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "meta/root/g")));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "data/root/g")));
    ZT_CHECK(gone(store, "/g/x"));
    ZT_OK(zarr_array_open(store, "/keep", &a));
    zarr_array_free(a);
    ZT_OK(zarr_store_delete_node(store, "/keep"));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "data/root/keep")));
    ZT_CHECK(ztest_exists(ztest_path(dir, "zarr.json")));
    zarr_store_free(store);
}

ZTEST(delete_errors) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_CHECK(hierarchy(store, 3));
    ZT_STATUS(zarr_store_delete_node(store, "/"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "root");
    ZT_STATUS(zarr_store_delete_node(store, "g"), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_store_delete_node(store, "/g/../keep"), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_store_delete_node(store, "/nothing"), ZARR_ERROR_NOT_FOUND);
    /* A chunk directory inside an array is not a node: nothing is erased. */
    ZT_STATUS(zarr_store_delete_node(store, "/keep/c"), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_array_open(store, "/keep", &a));
    {
        bool stored = false;
        uint64_t nbytes = 0, chunk[2] = {0, 0};
        ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, chunk, &stored, &nbytes));
        ZT_CHECK(stored && nbytes == 4);
    }
    zarr_array_free(a);
    ZT_STATUS(zarr_store_delete_node(NULL, "/g"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_delete_node(store, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_delete_node(store, "/\xff"), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_store_free(store);
}

/* Malformed consolidated metadata of an ancestor: the deletion stops before erasing. */
ZTEST(delete_malformed_consolidated_metadata) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_CHECK(hierarchy(store, 2));
    ZT_CHECK(ztest_write_file(ztest_path(dir, ".zmetadata"), "{not json", 9) == 0);
    ZT_STATUS(zarr_store_delete_node(store, "/keep"), ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(ztest_exists(ztest_path(dir, "keep/.zarray")));
    zarr_store_free(store);
}

ZTEST(delete_read_only_store) {
    /* A zip store is read-only; the fixture lives beside the sources. */
    char zip[4096];
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    zarr_store *store = NULL;
    snprintf(zip, sizeof zip, "%.*s/../tests/data/zip/data.zipped_from_within.zarr.zip",
             slash ? (int)(slash - file) : 1, slash ? file : ".");
    if (!ztest_exists(zip)) {
        ZT_CHECK(ztest_exists(zip));
        return;
    }
    ZT_OK(zarr_store_open_zip(zip, &store));
    ZT_STATUS(zarr_store_delete_node(store, "/3d.chunked.i2"), ZARR_ERROR_READ_ONLY);
    zarr_store_free(store);
}

/* An interrupted deletion (the node's document gone, its chunks left) is finished by the
 * next call, and a node later created at the same path sees none of the old chunks. */
ZTEST(delete_finishes_an_interrupted_delete) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t out[16];
    uint64_t start[2] = {0, 0}, count[2] = {4, 4};
    int i;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_CHECK(filled_array(store, "/a", v3_u8, 5));
    ZT_CHECK(remove(ztest_path(dir, "a/zarr.json")) == 0);
    ZT_CHECK(ztest_exists(ztest_path(dir, "a/c/0/0")));
    ZT_OK(zarr_store_delete_node(store, "/a"));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "a")));
    ZT_STATUS(zarr_store_delete_node(store, "/a"), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_array_create(store, "/a", v3_u8, &a));
    ZT_OK(zarr_array_read(a, 2, start, count, out, sizeof out));
    for (i = 0; i < 16; i++) ZT_EQ_U64(out[i], 9);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(delete_never_follows_links_out_of_the_store) {
    const char *base = ztest_tmp_dir();
    char root[4096], outside[4096], link[4096], target[4096];
    zarr_store *store = NULL;
    snprintf(root, sizeof root, "%s", ztest_path(base, "store"));
    snprintf(outside, sizeof outside, "%s", ztest_path(base, "outside"));
    ZT_CHECK(put(base, "outside/precious/zarr.json", "{\"zarr_format\":3,\"node_type\":\"group\"}"));
    ZT_CHECK(put(base, "outside/file", "keep me"));
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_CHECK(hierarchy(store, 3));
    /* A link inside the deleted group to the outside directory. */
    snprintf(link, sizeof link, "%s", ztest_path(root, "g/sub/escape"));
    ZT_CHECK(symlink(outside, link) == 0);
    ZT_OK(zarr_store_delete_node(store, "/g"));
    ZT_CHECK(!ztest_exists(ztest_path(root, "g")));
    ZT_CHECK(ztest_is_file(ztest_path(base, "outside/file")));
    ZT_CHECK(ztest_is_file(ztest_path(base, "outside/precious/zarr.json")));
    /* A node that is itself a link to a group outside: the store does not follow links
     * below its root, so there is no such node to delete; the target stays. */
    snprintf(target, sizeof target, "%s", ztest_path(base, "outside/precious"));
    ZT_CHECK(symlink(target, ztest_path(root, "linked")) == 0);
    ZT_STATUS(zarr_store_delete_node(store, "/linked"), ZARR_ERROR_INVALID_PATH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "symbolic link");
    ZT_CHECK(ztest_is_file(ztest_path(base, "outside/precious/zarr.json")));
    zarr_store_free(store);
}

ZTEST(erase_chunk_and_stored_nbytes) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *s = NULL;
    bool stored = true;
    uint64_t nbytes = 77, c00[2] = {0, 0}, c11[2] = {1, 1}, bad[2] = {2, 0}, shard[1] = {1};
    uint8_t out[16], data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t start[2] = {0, 0}, count[2] = {4, 4}, s0[1] = {0}, s8[1] = {8};
    int i;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_CHECK(filled_array(store, "/a", v3_u8, 1));
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, c11, &stored, &nbytes));
    ZT_CHECK(stored);
    ZT_EQ_U64(nbytes, 4);
    ZT_OK(zarr_array_erase_chunk(a, 2, c11));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "a/c/1/1")));
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, c11, &stored, &nbytes));
    ZT_CHECK(!stored);
    ZT_EQ_U64(nbytes, 0);
    ZT_OK(zarr_array_erase_chunk(a, 2, c11)); /* not stored: no error */
    ZT_OK(zarr_array_read(a, 2, start, count, out, sizeof out));
    for (i = 0; i < 16; i++) ZT_EQ_U64(out[i], (i / 4 >= 2 && i % 4 >= 2) ? 9 : 1);
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, c00, &stored, &nbytes));
    ZT_CHECK(stored);
    /* Errors write nothing. */
    stored = true;
    nbytes = 77;
    ZT_STATUS(zarr_array_chunk_stored_nbytes(a, 2, bad, &stored, &nbytes), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_chunk_stored_nbytes(a, 1, c00, &stored, &nbytes),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(stored && nbytes == 77);
    ZT_STATUS(zarr_array_chunk_stored_nbytes(NULL, 2, c00, &stored, &nbytes),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_stored_nbytes(a, 2, NULL, &stored, &nbytes),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_stored_nbytes(a, 2, c00, NULL, &nbytes), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_stored_nbytes(a, 2, c00, &stored, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_erase_chunk(a, 2, bad), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_erase_chunk(a, 3, c00), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_erase_chunk(NULL, 2, c00), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_erase_chunk(a, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(ztest_exists(ztest_path(dir, "a/c/0/0")));
    /* Sharded: the chunk is a whole shard. */
    ZT_OK(zarr_array_create(store, "/s", v3_sharded, &s));
    ZT_OK(zarr_array_write(s, 1, s0, s8, data, sizeof data));
    ZT_OK(zarr_array_chunk_stored_nbytes(s, 1, shard, &stored, &nbytes));
    ZT_CHECK(stored);
    ZT_EQ_U64(nbytes, 4 + 2 * 16 + 4); /* two inner chunks, the index, its checksum */
    ZT_OK(zarr_array_erase_chunk(s, 1, shard));
    ZT_OK(zarr_array_chunk_stored_nbytes(s, 1, shard, &stored, &nbytes));
    ZT_CHECK(!stored);
    ZT_OK(zarr_array_read(s, 1, s0, s8, data, sizeof data));
    ZT_CHECK(data[3] == 4 && data[4] == 0 && data[7] == 0);
    zarr_array_free(a);
    zarr_array_free(s);
    zarr_store_free(store);
}

ZTEST(erase_chunk_read_only_store) {
    char zip[4096];
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    zarr_store *store = NULL;
    zarr_group *g = NULL;
    size_t n = 0;
    snprintf(zip, sizeof zip, "%.*s/../tests/data/zip/data.zipped_from_within.zarr.zip",
             slash ? (int)(slash - file) : 1, slash ? file : ".");
    ZT_OK(zarr_store_open_zip(zip, &store));
    ZT_OK(zarr_group_open(store, "/", &g));
    ZT_OK(zarr_group_child_count(g, &n));
    ZT_CHECK(n > 0);
    {
        /* The first array child: erasing its chunk is refused. */
        size_t i;
        for (i = 0; i < n; i++) {
            zarr_node_type t = 0;
            char *name = NULL, path[256];
            zarr_array *a = NULL;
            size_t ndim = 0;
            uint64_t zero[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            ZT_OK(zarr_group_child_node_type(g, i, &t));
            if (t != ZARR_NODE_TYPE_ARRAY) continue;
            ZT_OK(zarr_group_child_name(g, i, &name));
            snprintf(path, sizeof path, "/%s", name);
            zarr_string_free(name);
            ZT_OK(zarr_array_open(store, path, &a));
            ZT_OK(zarr_array_ndim(a, &ndim));
            ZT_CHECK(ndim <= 8);
            ZT_STATUS(zarr_array_erase_chunk(a, ndim, zero), ZARR_ERROR_READ_ONLY);
            zarr_array_free(a);
            break;
        }
        ZT_CHECK(i < n);
    }
    zarr_group_free(g);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(delete_v3_subtree_and_array),
    ZCASE(delete_v2_subtree_and_array),
    ZCASE(delete_draft_layout),
    ZCASE(delete_errors),
    ZCASE(delete_malformed_consolidated_metadata),
    ZCASE(delete_read_only_store),
    ZCASE(delete_finishes_an_interrupted_delete),
    ZCASE(delete_never_follows_links_out_of_the_store),
    ZCASE(erase_chunk_and_stored_nbytes),
    ZCASE(erase_chunk_read_only_store),
};

ZTEST_MAIN()
