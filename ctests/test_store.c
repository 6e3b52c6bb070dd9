/* Stores: file system and memory, argument checks, handle lifetimes. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary directories and paths: ztest_tmp_dir() and ztest_path() from ztest.h. */

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    size_t written;
    if (f == NULL) {
        return -1;
    }
    written = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && written == len) ? 0 : -1;
}

/* Number of entries in a directory (not counting . and ..) whose name starts with prefix. */
static int count_entries(const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (d == NULL) {
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            n++;
        }
    }
    closedir(d);
    return n;
}

static const char *const u8_array =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[6],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
    "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}";

/* ---- file system store ---- */

ZTEST(filesystem_dir_created_on_first_write) {
    const char *root = ztest_path(ztest_tmp_dir(), "new.zarr");
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    ZT_CHECK(!ztest_exists(root));
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_CHECK(store != NULL);
    /* Opening alone creates nothing. */
    ZT_CHECK(!ztest_exists(root));
    ZT_OK(zarr_group_create(store, "/", NULL, &group));
    ZT_CHECK(ztest_is_dir(root));
    ZT_CHECK(ztest_exists(ztest_path(root, "zarr.json")));
    zarr_group_free(group);
    zarr_store_free(store);
}

ZTEST(filesystem_missing_ancestors_created_on_write) {
    const char *root = ztest_path(ztest_tmp_dir(), "x/y/z/data.zarr");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const uint8_t data[6] = {1, 2, 3, 4, 5, 6};
    uint64_t start = 0, count = 6;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", u8_array, &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    ZT_CHECK(ztest_exists(ztest_path(root, "a/zarr.json")));
    ZT_CHECK(ztest_exists(ztest_path(root, "a/c/0")));
    ZT_CHECK(ztest_exists(ztest_path(root, "a/c/1")));
    /* The parent group of /a was written too. */
    ZT_CHECK(ztest_exists(ztest_path(root, "zarr.json")));
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(filesystem_existing_dir) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_group_create(store, "/g", "{\"k\":1}", &group));
    ZT_CHECK(ztest_exists(ztest_path(root, "g/zarr.json")));
    zarr_group_free(group);
    zarr_store_free(store);
}

ZTEST(filesystem_trailing_slash) {
    char root[4096];
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    snprintf(root, sizeof root, "%s/", ztest_tmp_dir());
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_group_create(store, "/", NULL, &group));
    ZT_CHECK(ztest_exists(ztest_path(root, "zarr.json")));
    zarr_group_free(group);
    zarr_store_free(store);
}

ZTEST(filesystem_regular_file_is_io_error) {
    const char *path = ztest_path(ztest_tmp_dir(), "plain-file");
    zarr_store *store = (zarr_store *)1;
    ZT_CHECK(write_file(path, "hello", 5) == 0);
    ZT_STATUS(zarr_store_open_filesystem(path, &store), ZARR_ERROR_IO);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_filesystem");
    ZT_STR_CONTAINS(zarr_last_error_message(), "plain-file");
}

/* A root below a regular file can be opened (it does not exist) but not written. */
ZTEST(filesystem_root_below_regular_file_fails_on_write) {
    const char *file = ztest_path(ztest_tmp_dir(), "plain-file");
    const char *root = ztest_path(file, "sub.zarr");
    zarr_store *store = NULL;
    zarr_group *group = (zarr_group *)1;
    zarr_status s;
    ZT_CHECK(write_file(file, "x", 1) == 0);
    s = zarr_store_open_filesystem(root, &store);
    if (s == ZARR_OK) {
        ZT_STATUS(zarr_group_create(store, "/", NULL, &group), ZARR_ERROR_IO);
        ZT_CHECK(group == NULL);
        ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_group_create");
        zarr_store_free(store);
    } else {
        ZT_STATUS(s, ZARR_ERROR_IO);
        ZT_CHECK(store == NULL);
    }
}

ZTEST(filesystem_empty_path_is_invalid_argument) {
    zarr_store *store = (zarr_store *)1;
    ZT_STATUS(zarr_store_open_filesystem("", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_filesystem");
    ZT_STR_CONTAINS(zarr_last_error_message(), "path");
}

ZTEST(filesystem_non_utf8_path_is_invalid_argument) {
    char path[4096];
    zarr_store *store = (zarr_store *)1;
    snprintf(path, sizeof path, "%s/\xff\xfe-bad", ztest_tmp_dir());
    ZT_STATUS(zarr_store_open_filesystem(path, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "UTF-8");
}

ZTEST(filesystem_null_path) {
    zarr_store *store = (zarr_store *)1;
    ZT_STATUS(zarr_store_open_filesystem(NULL, &store), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_filesystem");
    ZT_STR_CONTAINS(zarr_last_error_message(), "'path'");
}

ZTEST(filesystem_null_out) {
    ZT_STATUS(zarr_store_open_filesystem(ztest_tmp_dir(), NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
}

/* A relative path is resolved against the working directory at open time. */
ZTEST(filesystem_relative_path_resolved_at_open) {
    const char *base = ztest_tmp_dir();
    const char *elsewhere = ztest_tmp_dir();
    char cwd[4096];
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    ZT_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    ZT_CHECK(chdir(base) == 0);
    ZT_OK(zarr_store_open_filesystem("rel.zarr", &store));
    ZT_CHECK(chdir(elsewhere) == 0);
    ZT_OK(zarr_group_create(store, "/", NULL, &group));
    ZT_CHECK(chdir(cwd) == 0);
    ZT_CHECK(ztest_exists(ztest_path(base, "rel.zarr/zarr.json")));
    ZT_CHECK(!ztest_exists(ztest_path(elsewhere, "rel.zarr")));
    zarr_group_free(group);
    zarr_store_free(store);
}

ZTEST(filesystem_reopen_sees_data) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const uint8_t data[6] = {9, 8, 7, 6, 5, 4};
    uint8_t back[6] = {0};
    uint64_t start = 0, count = 6;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", u8_array, &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    zarr_array_free(array);
    zarr_store_free(store);
    store = NULL;
    array = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Two store handles on one directory see each other's writes. */
ZTEST(filesystem_two_handles_share_data) {
    const char *root = ztest_tmp_dir();
    zarr_store *s1 = NULL, *s2 = NULL;
    zarr_array *a1 = NULL, *a2 = NULL;
    const uint8_t data[6] = {1, 1, 2, 3, 5, 8};
    uint8_t back[6] = {0};
    uint64_t start = 0, count = 6;
    ZT_OK(zarr_store_open_filesystem(root, &s1));
    ZT_OK(zarr_store_open_filesystem(root, &s2));
    ZT_CHECK(s1 != s2);
    ZT_OK(zarr_array_create(s1, "/a", u8_array, &a1));
    ZT_OK(zarr_array_open(s2, "/a", &a2));
    ZT_OK(zarr_array_write(a1, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read(a2, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    zarr_array_free(a1);
    zarr_array_free(a2);
    zarr_store_free(s1);
    zarr_store_free(s2);
}

/* Atomic writes go through temporary files that never stay behind. */
ZTEST(filesystem_leaves_no_temporary_files) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t data[6] = {1, 2, 3, 4, 5, 6};
    uint64_t start = 0, count = 6;
    int round;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", u8_array, &array));
    for (round = 0; round < 5; round++) {
        data[0] = (uint8_t)(round + 1);
        ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
        ZT_OK(zarr_array_set_attributes_json(array, "{\"round\":1}"));
    }
    /* Only the expected entries, nothing hidden. */
    ZT_EQ_U64(count_entries(root, ""), 2); /* zarr.json, a */
    ZT_EQ_U64(count_entries(ztest_path(root, "a"), ""), 2); /* zarr.json, c */
    ZT_EQ_U64(count_entries(ztest_path(root, "a/c"), ""), 2); /* 0, 1 */
    ZT_EQ_U64(count_entries(ztest_path(root, "a/c"), "."), 0);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* ---- memory store ---- */

ZTEST(memory_open_and_use) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const uint8_t data[6] = {10, 20, 30, 40, 50, 60};
    uint8_t back[6] = {0};
    uint64_t start = 0, count = 6;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_create(store, "/m/a", u8_array, &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    zarr_array_free(array);
    array = NULL;
    ZT_OK(zarr_array_open(store, "/m/a", &array));
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(memory_null_out) {
    ZT_STATUS(zarr_store_open_memory(NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_memory");
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
}

ZTEST(memory_stores_are_independent) {
    zarr_store *s1 = NULL, *s2 = NULL;
    zarr_group *g = NULL;
    ZT_OK(zarr_store_open_memory(&s1));
    ZT_OK(zarr_store_open_memory(&s2));
    ZT_CHECK(s1 != s2);
    ZT_OK(zarr_group_create(s1, "/only_in_one", NULL, &g));
    zarr_group_free(g);
    g = (zarr_group *)1;
    ZT_STATUS(zarr_group_open(s2, "/only_in_one", &g), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(g == NULL);
    ZT_OK(zarr_group_open(s1, "/only_in_one", &g));
    zarr_group_free(g);
    zarr_store_free(s1);
    zarr_store_free(s2);
}

ZTEST(free_accepts_null) {
    zarr_store_free(NULL);
    ZT_CHECK(1);
}

/* ---- handle lifetimes: any order of frees ---- */

static void use_array_after_store_freed(const char *root) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_array *array2 = NULL;
    const uint8_t data[6] = {3, 1, 4, 1, 5, 9};
    uint8_t back[6] = {0};
    uint64_t start = 0, count = 6;
    char *attrs = NULL;
    if (root != NULL) {
        ZT_OK(zarr_store_open_filesystem(root, &store));
    } else {
        ZT_OK(zarr_store_open_memory(&store));
    }
    ZT_OK(zarr_array_create(store, "/a", u8_array, &array));
    ZT_OK(zarr_array_open(store, "/a", &array2));
    zarr_store_free(store);
    /* Both arrays keep the store alive. */
    ZT_OK(zarr_array_write(array, 1, &start, &count, data, sizeof data));
    zarr_array_free(array);
    ZT_OK(zarr_array_read(array2, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    ZT_OK(zarr_array_set_attributes_json(array2, "{\"after\":true}"));
    ZT_OK(zarr_array_attributes_json(array2, &attrs));
    ZT_STR_CONTAINS(attrs, "\"after\"");
    zarr_string_free(attrs);
    zarr_array_free(array2);
}

ZTEST(store_freed_before_array_memory) {
    use_array_after_store_freed(NULL);
}

ZTEST(store_freed_before_array_filesystem) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint8_t back[6] = {0};
    const uint8_t expected[6] = {3, 1, 4, 1, 5, 9};
    uint64_t start = 0, count = 6;
    use_array_after_store_freed(root);
    /* The writes really reached the directory. */
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, expected, sizeof expected);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(store_freed_before_group) {
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    zarr_group *child = NULL;
    char *json = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_group_create(store, "/", NULL, &group));
    ZT_OK(zarr_group_create(store, "/kid", NULL, &child));
    zarr_store_free(store);
    ZT_OK(zarr_group_set_attributes_json(group, "{\"x\":[1,2]}"));
    ZT_OK(zarr_group_attributes_json(group, &json));
    ZT_STR_CONTAINS(json, "\"x\"");
    zarr_string_free(json);
    ZT_OK(zarr_group_children_json(group, &json));
    ZT_STR_CONTAINS(json, "\"kid\"");
    zarr_string_free(json);
    zarr_group_free(group);
    ZT_OK(zarr_group_attributes_json(child, &json));
    ZT_CHECK(strcmp(json, "{}") == 0);
    zarr_string_free(json);
    zarr_group_free(child);
}

/* Arrays and groups from one store, freed interleaved. */
ZTEST(handles_freed_in_any_order) {
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    zarr_array *array = NULL;
    size_t ndim = 0;
    char *json = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_group_create(store, "/g", NULL, &group));
    ZT_OK(zarr_array_create(store, "/g/a", u8_array, &array));
    zarr_group_free(group);
    zarr_store_free(store);
    ZT_OK(zarr_array_ndim(array, &ndim));
    ZT_EQ_U64(ndim, 1);
    ZT_OK(zarr_array_metadata_json(array, &json));
    zarr_array_free(array);
    /* Strings outlive every handle. */
    ZT_STR_CONTAINS(json, "\"uint8\"");
    zarr_string_free(json);
}

static const ztest_case ztest_cases[] = {
    ZCASE(filesystem_dir_created_on_first_write),
    ZCASE(filesystem_missing_ancestors_created_on_write),
    ZCASE(filesystem_existing_dir),
    ZCASE(filesystem_trailing_slash),
    ZCASE(filesystem_regular_file_is_io_error),
    ZCASE(filesystem_root_below_regular_file_fails_on_write),
    ZCASE(filesystem_empty_path_is_invalid_argument),
    ZCASE(filesystem_non_utf8_path_is_invalid_argument),
    ZCASE(filesystem_null_path),
    ZCASE(filesystem_null_out),
    ZCASE(filesystem_relative_path_resolved_at_open),
    ZCASE(filesystem_reopen_sees_data),
    ZCASE(filesystem_two_handles_share_data),
    ZCASE(filesystem_leaves_no_temporary_files),
    ZCASE(memory_open_and_use),
    ZCASE(memory_null_out),
    ZCASE(memory_stores_are_independent),
    ZCASE(free_accepts_null),
    ZCASE(store_freed_before_array_memory),
    ZCASE(store_freed_before_array_filesystem),
    ZCASE(store_freed_before_group),
    ZCASE(handles_freed_in_any_order),
};

ZTEST_MAIN()
