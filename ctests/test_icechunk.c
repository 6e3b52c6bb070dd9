/* test_icechunk.c -- Icechunk repositories through the C API: icechunk+file:// URLs on
 * repositories libzarr creates itself (option create), arrays written and committed with
 * zarr_store_commit, read back from a new handle, from a tag-less snapshot, and described
 * by zarr_store_versions_json; and each documented error of the two functions and of the
 * version options. (Repositories written by Icechunk's Python library are the interop
 * tests' business.)
 */
#include "ztest.h"

#include <pthread.h>
#include <stdarg.h>

/* A 4-element uint8 array in chunks of 2. */
static const char *const array_json =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
    "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}";

/* printf into one of four rotating static buffers. */
static const char *fmt(const char *format, ...) {
    static char buffers[4][4096];
    static int next;
    char *buf = buffers[next++ % 4];
    va_list args;
    va_start(args, format);
    vsnprintf(buf, sizeof buffers[0], format, args);
    va_end(args);
    return buf;
}

/* The URL of a new (not yet existing) repository in a fresh temporary directory (in a
 * buffer of its own: fmt's are reused). */
static const char *new_repository_url(void) {
    static char url[4096];
    snprintf(url, sizeof url, "icechunk+file://%s", ztest_path(ztest_tmp_dir(), "repo"));
    return url;
}

/* Open `url` with `options` (NULL: none). */
static zarr_status open_repo(const char *url, const char *options, zarr_store **out) {
    return zarr_store_open_url(url, options, out);
}

/* Create a repository at `url` holding the array /a = {1, 2, 3, 4}, committed; the
 * snapshot id in `id` (owned by the caller). 0 on success. */
static int make_repository(const char *url, char **id) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const uint8_t data[4] = {1, 2, 3, 4};
    uint64_t start = 0, count = 4;
    int ok = open_repo(url, "{\"create\": true}", &store) == ZARR_OK &&
             zarr_array_create(store, "/a", array_json, &array) == ZARR_OK &&
             zarr_array_write(array, 1, &start, &count, data, 4) == ZARR_OK &&
             zarr_store_commit(store, "first", id) == ZARR_OK;
    if (!ok) fprintf(stderr, "make_repository: %s\n", zarr_last_error_message());
    zarr_array_free(array);
    zarr_store_free(store);
    return ok ? 0 : -1;
}

/* Read /a of `store` into `out` (4 bytes). */
static zarr_status read_a(const zarr_store *store, uint8_t out[4]) {
    zarr_array *array = NULL;
    uint64_t start = 0, count = 4;
    zarr_status s = zarr_array_open(store, "/a", &array);
    if (s == ZARR_OK) s = zarr_array_read(array, 1, &start, &count, out, 4);
    zarr_array_free(array);
    return s;
}

ZTEST(write_commit_reopen_read) {
    const char *url = new_repository_url();
    const uint8_t expected[4] = {1, 2, 3, 4};
    uint8_t got[4] = {0};
    char *id = NULL;
    zarr_store *store = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_CHECK(id != NULL && strlen(id) > 0);
    ZT_OK(open_repo(url, NULL, &store));
    ZT_OK(read_a(store, got));
    ZT_EQ_MEM(got, expected, 4);
    zarr_store_free(store);
    zarr_string_free(id);
}

ZTEST(writes_are_invisible_until_commit) {
    const char *url = new_repository_url();
    const uint8_t first[4] = {1, 2, 3, 4};
    const uint8_t part[2] = {7, 8};
    const uint8_t second[4] = {1, 7, 8, 4};
    uint8_t got[4] = {0};
    uint64_t start = 1, count = 2;
    char *id = NULL, *id2 = NULL;
    zarr_store *writer = NULL, *reader = NULL, *later = NULL;
    zarr_array *array = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, NULL, &writer));
    ZT_OK(open_repo(url, NULL, &reader));
    ZT_OK(zarr_array_open(writer, "/a", &array));
    /* Part of both chunks: read, merge, write within the session. */
    ZT_OK(zarr_array_write(array, 1, &start, &count, part, 2));
    ZT_OK(read_a(writer, got));
    ZT_EQ_MEM(got, second, 4);
    ZT_OK(read_a(reader, got));
    ZT_EQ_MEM(got, first, 4);
    ZT_OK(zarr_store_commit(writer, "second", &id2));
    ZT_CHECK(strcmp(id, id2) != 0);
    /* A handle opened after the commit sees it; the old reader keeps its version. */
    ZT_OK(open_repo(url, NULL, &later));
    ZT_OK(read_a(later, got));
    ZT_EQ_MEM(got, second, 4);
    ZT_OK(read_a(reader, got));
    ZT_EQ_MEM(got, first, 4);
    zarr_array_free(array);
    zarr_store_free(writer);
    zarr_store_free(reader);
    zarr_store_free(later);
    zarr_string_free(id);
    zarr_string_free(id2);
}

ZTEST(snapshot_opens_the_old_version_read_only) {
    const char *url = new_repository_url();
    const uint8_t first[4] = {1, 2, 3, 4};
    const uint8_t zeros[4] = {0};
    uint8_t got[4] = {0};
    uint64_t start = 0, count = 4;
    char *id = NULL, *id2 = NULL, *none = (char *)1;
    zarr_store *store = NULL, *old = NULL;
    zarr_array *array = NULL, *old_array = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, NULL, &store));
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_OK(zarr_array_write(array, 1, &start, &count, zeros, 4));
    ZT_OK(zarr_store_commit(store, "zeros", &id2));
    ZT_OK(open_repo(url, fmt("{\"snapshot\": \"%s\"}", id), &old));
    ZT_OK(read_a(old, got));
    ZT_EQ_MEM(got, first, 4);
    ZT_OK(zarr_array_open(old, "/a", &old_array));
    ZT_STATUS(zarr_array_write(old_array, 1, &start, &count, zeros, 4), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_commit(old, "no", &none), ZARR_ERROR_READ_ONLY);
    ZT_CHECK(none == NULL);
    zarr_array_free(array);
    zarr_array_free(old_array);
    zarr_store_free(store);
    zarr_store_free(old);
    zarr_string_free(id);
    zarr_string_free(id2);
}

ZTEST(versions_json_describes_the_repository) {
    const char *url = new_repository_url();
    char *id = NULL, *json = NULL;
    zarr_store *store = NULL, *old = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, NULL, &store));
    ZT_OK(zarr_store_versions_json(store, &json));
    ZT_STR_CONTAINS(json, "\"format\":\"icechunk\"");
    ZT_STR_CONTAINS(json, "\"spec_version\":2");
    ZT_STR_CONTAINS(json, "\"opened\":{\"branch\":\"main\"}");
    ZT_STR_CONTAINS(json, fmt("\"snapshot\":\"%s\"", id));
    ZT_STR_CONTAINS(json, fmt("\"branches\":{\"main\":\"%s\"}", id));
    ZT_STR_CONTAINS(json, "\"tags\":{}");
    ZT_STR_CONTAINS(json, fmt("\"history\":[{\"id\":\"%s\",\"message\":\"first\"", id));
    ZT_STR_CONTAINS(json, "\"written_at\":\"20");
    zarr_string_free(json);
    json = NULL;
    ZT_OK(open_repo(url, fmt("{\"snapshot\": \"%s\"}", id), &old));
    ZT_OK(zarr_store_versions_json(old, &json));
    ZT_STR_CONTAINS(json, fmt("\"opened\":{\"snapshot\":\"%s\"}", id));
    zarr_string_free(json);
    zarr_store_free(store);
    zarr_store_free(old);
    zarr_string_free(id);
}

ZTEST(commit_errors) {
    const char *url = new_repository_url();
    char *id = NULL, *out = (char *)1;
    zarr_store *store = NULL, *plain = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, NULL, &store));
    ZT_STATUS(zarr_store_commit(NULL, "m", &out), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(out == NULL);
    ZT_STATUS(zarr_store_commit(store, NULL, &out), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "message");
    ZT_STATUS(zarr_store_commit(store, "m", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "snapshot_id");
    /* Nothing written since the open. */
    out = (char *)1;
    ZT_STATUS(zarr_store_commit(store, "m", &out), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "nothing to commit");
    ZT_CHECK(out == NULL);
    /* A store that keeps no versions. */
    ZT_OK(zarr_store_open_filesystem(ztest_path(ztest_tmp_dir(), "plain"), &plain));
    ZT_STATUS(zarr_store_commit(plain, "m", &out), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "not an Icechunk repository");
    zarr_store_free(store);
    zarr_store_free(plain);
    zarr_string_free(id);
}

ZTEST(versions_json_errors) {
    const char *url = new_repository_url();
    char *id = NULL, *json = (char *)1;
    zarr_store *store = NULL, *plain = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, NULL, &store));
    ZT_STATUS(zarr_store_versions_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(json == NULL);
    ZT_STATUS(zarr_store_versions_json(store, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_store_open_filesystem(ztest_path(ztest_tmp_dir(), "plain"), &plain));
    ZT_STATUS(zarr_store_versions_json(plain, &json), ZARR_ERROR_UNSUPPORTED);
    zarr_store_free(store);
    zarr_store_free(plain);
    zarr_string_free(id);
}

ZTEST(commit_conflict_between_two_handles) {
    const char *url = new_repository_url();
    const uint8_t one[2] = {10, 11}, two[2] = {20, 21};
    const uint8_t expected[4] = {10, 11, 3, 4};
    uint8_t got[4] = {0};
    uint64_t first_chunk = 0, second_chunk = 2, count = 2;
    char *id = NULL, *id_a = NULL, *id_b = (char *)1;
    zarr_store *a = NULL, *b = NULL, *reader = NULL;
    zarr_array *array_a = NULL, *array_b = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, NULL, &a));
    ZT_OK(open_repo(url, NULL, &b));
    ZT_OK(zarr_array_open(a, "/a", &array_a));
    ZT_OK(zarr_array_open(b, "/a", &array_b));
    /* Disjoint chunks: still a conflict, since commits never rebase. */
    ZT_OK(zarr_array_write(array_a, 1, &first_chunk, &count, one, 2));
    ZT_OK(zarr_array_write(array_b, 1, &second_chunk, &count, two, 2));
    ZT_OK(zarr_store_commit(a, "a", &id_a));
    ZT_STATUS(zarr_store_commit(b, "b", &id_b), ZARR_ERROR_CONFLICT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "reopen the store and write again");
    ZT_CHECK(id_b == NULL);
    /* Nothing of b's was committed. */
    ZT_OK(open_repo(url, NULL, &reader));
    ZT_OK(read_a(reader, got));
    ZT_EQ_MEM(got, expected, 4);
    zarr_array_free(array_a);
    zarr_array_free(array_b);
    zarr_store_free(a);
    zarr_store_free(b);
    zarr_store_free(reader);
    zarr_string_free(id);
    zarr_string_free(id_a);
}

ZTEST(bad_version_options) {
    const char *url = new_repository_url();
    char *id = NULL;
    zarr_store *store = (zarr_store *)1;
    ZT_STATUS(open_repo(url, NULL, &store), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "\"create\": true");
    ZT_CHECK(store == NULL);
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_STATUS(open_repo(url, "{\"branch\": \"main\", \"tag\": \"v1\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'tag'");
    ZT_STATUS(open_repo(url, fmt("{\"tag\": \"v1\", \"snapshot\": \"%s\"}", id), &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(open_repo(url, "{\"branch\": \"nope\"}", &store), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "branch nope");
    ZT_STATUS(open_repo(url, "{\"tag\": \"v9\"}", &store), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "tag v9");
    /* A well-formed id of no snapshot here: the real one with its first digit changed. */
    {
        char other[64];
        snprintf(other, sizeof other, "%s", id);
        other[0] = other[0] == '5' ? '6' : '5';
        ZT_STATUS(open_repo(url, fmt("{\"snapshot\": \"%s\"}", other), &store),
                  ZARR_ERROR_NOT_FOUND);
        ZT_STR_CONTAINS(zarr_last_error_message(), other);
    }
    ZT_STATUS(open_repo(url, "{\"snapshot\": \"not an id\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(open_repo(url, "{\"fsync\": true}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'fsync' does not apply to icechunk+file://");
    ZT_STATUS(open_repo("icechunk+https://host/repo", NULL, &store), ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(store == NULL);
    zarr_string_free(id);
}

ZTEST(read_only_branch) {
    const char *url = new_repository_url();
    const uint8_t zeros[4] = {0};
    uint64_t start = 0, count = 4;
    char *id = NULL, *out = (char *)1;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    ZT_CHECK(make_repository(url, &id) == 0);
    ZT_OK(open_repo(url, "{\"read_only\": true}", &store));
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_STATUS(zarr_array_write(array, 1, &start, &count, zeros, 4), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_commit(store, "m", &out), ZARR_ERROR_READ_ONLY);
    zarr_array_free(array);
    zarr_store_free(store);
    zarr_string_free(id);
}

/* One element of /b (64 elements, one chunk) written by one thread. */
typedef struct {
    zarr_array *array;
    uint64_t index;
    zarr_status status;
} element_write;

static void *write_element(void *arg) {
    element_write *w = arg;
    uint8_t value = (uint8_t)(w->index + 1);
    uint64_t count = 1;
    w->status = zarr_array_write(w->array, 1, &w->index, &count, &value, 1);
    return NULL;
}

ZTEST(threads_writing_parts_of_one_chunk_lose_nothing) {
    const char *url = new_repository_url();
    enum { N = 64 };
    element_write writes[N];
    pthread_t threads[N];
    uint8_t got[N], expected[N];
    uint64_t start = 0, count = N;
    char *id = NULL;
    zarr_store *store = NULL, *reader = NULL;
    zarr_array *array = NULL, *read_back = NULL;
    int i;
    ZT_OK(open_repo(url, "{\"create\": true}", &store));
    ZT_OK(zarr_array_create(store, "/b",
                            "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[64],"
                            "\"data_type\":\"uint8\",\"chunk_grid\":{\"name\":\"regular\","
                            "\"configuration\":{\"chunk_shape\":[64]}},\"chunk_key_encoding\":"
                            "{\"name\":\"default\"},\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}",
                            &array));
    for (i = 0; i < N; i++) {
        writes[i].array = array;
        writes[i].index = (uint64_t)i;
        writes[i].status = -1;
        expected[i] = (uint8_t)(i + 1);
        ZT_CHECK(pthread_create(&threads[i], NULL, write_element, &writes[i]) == 0);
    }
    for (i = 0; i < N; i++) pthread_join(threads[i], NULL);
    for (i = 0; i < N; i++) ZT_OK(writes[i].status);
    ZT_OK(zarr_store_commit(store, "threads", &id));
    ZT_OK(open_repo(url, NULL, &reader));
    ZT_OK(zarr_array_open(reader, "/b", &read_back));
    ZT_OK(zarr_array_read(read_back, 1, &start, &count, got, N));
    ZT_EQ_MEM(got, expected, N);
    zarr_array_free(array);
    zarr_array_free(read_back);
    zarr_store_free(store);
    zarr_store_free(reader);
    zarr_string_free(id);
}

static const ztest_case ztest_cases[] = {
    ZCASE(threads_writing_parts_of_one_chunk_lose_nothing),
    ZCASE(write_commit_reopen_read),
    ZCASE(writes_are_invisible_until_commit),
    ZCASE(snapshot_opens_the_old_version_read_only),
    ZCASE(versions_json_describes_the_repository),
    ZCASE(commit_errors),
    ZCASE(versions_json_errors),
    ZCASE(commit_conflict_between_two_handles),
    ZCASE(bad_version_options),
    ZCASE(read_only_branch),
};

ZTEST_MAIN()
