/* Status codes, error messages, version queries and the string destructor. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const zarr_status all_statuses[] = {
    ZARR_OK,
    ZARR_ERROR_NULL_ARGUMENT,
    ZARR_ERROR_INVALID_ARGUMENT,
    ZARR_ERROR_BUFFER_TOO_SMALL,
    ZARR_ERROR_BUFFER_SIZE_MISMATCH,
    ZARR_ERROR_OUT_OF_BOUNDS,
    ZARR_ERROR_NOT_FOUND,
    ZARR_ERROR_ALREADY_EXISTS,
    ZARR_ERROR_NODE_TYPE_MISMATCH,
    ZARR_ERROR_INVALID_METADATA,
    ZARR_ERROR_UNSUPPORTED,
    ZARR_ERROR_CORRUPT_DATA,
    ZARR_ERROR_IO,
    ZARR_ERROR_INVALID_PATH,
    ZARR_ERROR_OUT_OF_MEMORY,
    ZARR_ERROR_READ_ONLY,
    ZARR_ERROR_TYPE_MISMATCH,
    ZARR_ERROR_PANIC,
};
#define N_STATUSES (sizeof all_statuses / sizeof all_statuses[0])

static const char *const minimal_array =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
    "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}";

/* The status values are part of the ABI: they may never change. */
ZTEST(status_values_are_stable) {
    ZT_EQ_U64(ZARR_OK, 0);
    ZT_CHECK(ZARR_ERROR_NULL_ARGUMENT == -1);
    ZT_CHECK(ZARR_ERROR_INVALID_ARGUMENT == -2);
    ZT_CHECK(ZARR_ERROR_BUFFER_TOO_SMALL == -3);
    ZT_CHECK(ZARR_ERROR_BUFFER_SIZE_MISMATCH == -4);
    ZT_CHECK(ZARR_ERROR_OUT_OF_BOUNDS == -5);
    ZT_CHECK(ZARR_ERROR_NOT_FOUND == -6);
    ZT_CHECK(ZARR_ERROR_ALREADY_EXISTS == -7);
    ZT_CHECK(ZARR_ERROR_NODE_TYPE_MISMATCH == -8);
    ZT_CHECK(ZARR_ERROR_INVALID_METADATA == -9);
    ZT_CHECK(ZARR_ERROR_UNSUPPORTED == -10);
    ZT_CHECK(ZARR_ERROR_CORRUPT_DATA == -11);
    ZT_CHECK(ZARR_ERROR_IO == -12);
    ZT_CHECK(ZARR_ERROR_INVALID_PATH == -13);
    ZT_CHECK(ZARR_ERROR_OUT_OF_MEMORY == -14);
    ZT_CHECK(ZARR_ERROR_READ_ONLY == -15);
    ZT_CHECK(ZARR_ERROR_TYPE_MISMATCH == -17);
    ZT_CHECK(ZARR_ERROR_PANIC == -99);
    ZT_CHECK(sizeof(zarr_status) == 4);
}

ZTEST(status_str_known_codes) {
    size_t i;
    const char *unknown = zarr_status_str(12345);
    ZT_CHECK(unknown != NULL);
    for (i = 0; i < N_STATUSES; i++) {
        const char *text = zarr_status_str(all_statuses[i]);
        ZT_CHECK(text != NULL);
        ZT_CHECK(text[0] != '\0');
        /* A known code never reads as the unknown-status text. */
        ZT_CHECK(strcmp(text, unknown) != 0);
    }
    ZT_STR_CONTAINS(zarr_status_str(ZARR_OK), "success");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_NULL_ARGUMENT), "NULL");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_BUFFER_TOO_SMALL), "too small");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_OUT_OF_BOUNDS), "out of bounds");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_NOT_FOUND), "not found");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_ALREADY_EXISTS), "exists");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_INVALID_METADATA), "metadata");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_UNSUPPORTED), "unsupported");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_CORRUPT_DATA), "corrupt");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_IO), "I/O");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_INVALID_PATH), "path");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_OUT_OF_MEMORY), "memory");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_READ_ONLY), "read-only");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_PANIC), "panic");
}

ZTEST(status_str_texts_are_distinct) {
    size_t i, j;
    for (i = 0; i < N_STATUSES; i++) {
        for (j = i + 1; j < N_STATUSES; j++) {
            if (strcmp(zarr_status_str(all_statuses[i]), zarr_status_str(all_statuses[j])) == 0) {
                fprintf(stderr, "statuses %d and %d share the text '%s'\n", (int)all_statuses[i],
                        (int)all_statuses[j], zarr_status_str(all_statuses[i]));
                ZT_CHECK(0);
            }
        }
    }
}

ZTEST(status_str_unknown_values) {
    static const int32_t unknown[] = {1, 2, 100, -16, -18, -50, -98, -100, -1000,
                                      INT32_MIN, INT32_MAX, INT32_MIN + 1};
    size_t i;
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *text = zarr_status_str(unknown[i]);
        ZT_CHECK(text != NULL);
        ZT_STR_CONTAINS(text, "unknown");
        /* Always the same static text. */
        ZT_CHECK(strcmp(text, zarr_status_str(12345)) == 0);
    }
}

/* The same pointer to static text on every call: the caller never frees it. */
ZTEST(status_str_is_static) {
    const char *a = zarr_status_str(ZARR_ERROR_IO);
    const char *b = zarr_status_str(ZARR_ERROR_IO);
    ZT_CHECK(a == b);
}

struct fresh_message {
    int was_null;
    char text[64];
};

static void *read_fresh_message(void *arg) {
    struct fresh_message *m = (struct fresh_message *)arg;
    const char *text = zarr_last_error_message();
    m->was_null = text == NULL;
    if (text != NULL) {
        snprintf(m->text, sizeof m->text, "%s", text);
    }
    return NULL;
}

/* A thread that never failed sees the empty string, never NULL. */
ZTEST(last_error_empty_before_any_failure) {
    pthread_t thread;
    struct fresh_message m;
    memset(&m, 'x', sizeof m);
    m.was_null = 1;
    ZT_CHECK(pthread_create(&thread, NULL, read_fresh_message, &m) == 0);
    ZT_CHECK(pthread_join(thread, NULL) == 0);
    ZT_CHECK(!m.was_null);
    ZT_CHECK(strcmp(m.text, "") == 0);
    ZT_CHECK(zarr_last_error_message() != NULL);
}

ZTEST(last_error_names_function_and_cause) {
    zarr_store *store = NULL;
    zarr_array *array = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_open(store, "/no_such_array", &array), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(array == NULL);
    ZT_CHECK(zarr_last_error_message() != NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_open");
    ZT_STR_CONTAINS(zarr_last_error_message(), "/no_such_array");
    zarr_store_free(store);
}

ZTEST(last_error_names_null_parameter) {
    zarr_store *store = NULL;
    zarr_array *array = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_open(store, NULL, &array), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(array == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_open");
    ZT_STR_CONTAINS(zarr_last_error_message(), "'path'");
    ZT_STATUS(zarr_array_open(NULL, "/a", &array), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'store'");
    ZT_STATUS(zarr_array_open(store, "/a", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
    zarr_store_free(store);
}

/* The message carries the cause chain: here the codec the library does not know. */
ZTEST(last_error_carries_cause_chain) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const char *meta =
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},"
        "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"},{\"name\":\"frobnicate\"}]}";
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a", meta, &array), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create");
    ZT_STR_CONTAINS(zarr_last_error_message(), "frobnicate");
    ZT_STATUS(zarr_array_create(store, "/b", "{not json", &array), ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create");
    ZT_STR_CONTAINS(zarr_last_error_message(), "metadata_json");
    zarr_store_free(store);
}

/* Successful calls leave the previous message in place. */
ZTEST(last_error_unchanged_by_success) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    char saved[512];
    size_t ndim = 99;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_open(store, "/missing", &array), ZARR_ERROR_NOT_FOUND);
    snprintf(saved, sizeof saved, "%s", zarr_last_error_message());
    ZT_CHECK(saved[0] != '\0');
    ZT_OK(zarr_array_create(store, "/a", minimal_array, &array));
    ZT_OK(zarr_array_ndim(array, &ndim));
    ZT_EQ_U64(ndim, 1);
    ZT_CHECK(strcmp(zarr_last_error_message(), saved) == 0);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Each failure replaces the message of the previous one. */
ZTEST(last_error_replaced_by_next_failure) {
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    zarr_array *array = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_open(store, "/first", &array), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "/first");
    ZT_STATUS(zarr_group_open(store, "/second", &group), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_group_open");
    ZT_STR_CONTAINS(zarr_last_error_message(), "/second");
    ZT_CHECK(strstr(zarr_last_error_message(), "/first") == NULL);
    zarr_store_free(store);
}

struct thread_failure {
    zarr_store *store;
    zarr_status status;
    char message[512];
};

static void *fail_on_other_thread(void *arg) {
    struct thread_failure *t = (struct thread_failure *)arg;
    zarr_group *group = NULL;
    /* The fresh thread starts with an empty message of its own. */
    if (strcmp(zarr_last_error_message(), "") != 0) {
        t->status = 1;
        return NULL;
    }
    t->status = zarr_group_open(t->store, "/thread_side", &group);
    snprintf(t->message, sizeof t->message, "%s", zarr_last_error_message());
    return NULL;
}

ZTEST(last_error_is_thread_local) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    pthread_t thread;
    struct thread_failure t;
    const char *before_ptr;
    char before[512];
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_open(store, "/main_side", &array), ZARR_ERROR_NOT_FOUND);
    before_ptr = zarr_last_error_message();
    snprintf(before, sizeof before, "%s", before_ptr);
    ZT_STR_CONTAINS(before, "/main_side");

    memset(&t, 0, sizeof t);
    t.store = store;
    ZT_CHECK(pthread_create(&thread, NULL, fail_on_other_thread, &t) == 0);
    ZT_CHECK(pthread_join(thread, NULL) == 0);
    ZT_EQ_U64((uint64_t)(int64_t)t.status, (uint64_t)(int64_t)ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(t.message, "zarr_group_open");
    ZT_STR_CONTAINS(t.message, "/thread_side");

    /* The main thread's message is untouched, text and storage alike. */
    ZT_CHECK(strcmp(zarr_last_error_message(), before) == 0);
    ZT_CHECK(zarr_last_error_message() == before_ptr);
    ZT_CHECK(strstr(zarr_last_error_message(), "/thread_side") == NULL);
    zarr_store_free(store);
}

ZTEST(version_string_matches_macro) {
    const char *v = zarr_version_string();
    ZT_CHECK(v != NULL);
    ZT_CHECK(strcmp(v, ZARR_VERSION_STRING) == 0);
    ZT_CHECK(zarr_version_string() == v);
}

ZTEST(version_number_matches_macros) {
    unsigned major = 0, minor = 0, patch = 0;
    char tail = 0;
    ZT_EQ_U64(zarr_version_number(),
              (uint64_t)ZARR_VERSION_MAJOR * 10000u + (uint64_t)ZARR_VERSION_MINOR * 100u +
                  (uint64_t)ZARR_VERSION_PATCH);
    /* The string spells the same three numbers. */
    ZT_CHECK(sscanf(zarr_version_string(), "%u.%u.%u%c", &major, &minor, &patch, &tail) == 3);
    ZT_EQ_U64(major, ZARR_VERSION_MAJOR);
    ZT_EQ_U64(minor, ZARR_VERSION_MINOR);
    ZT_EQ_U64(patch, ZARR_VERSION_PATCH);
#ifdef ZARR_VERSION_NUMBER
    ZT_EQ_U64(zarr_version_number(), ZARR_VERSION_NUMBER);
#endif
}

ZTEST(string_free_accepts_null) {
    zarr_string_free(NULL);
    ZT_CHECK(1);
}

/* Strings handed out by the library are freed with zarr_string_free. */
ZTEST(string_free_frees_returned_strings) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    char *json = NULL;
    char *attrs = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", minimal_array, &array));
    ZT_OK(zarr_array_metadata_json(array, &json));
    ZT_CHECK(json != NULL);
    ZT_STR_CONTAINS(json, "\"zarr_format\"");
    ZT_OK(zarr_array_attributes_json(array, &attrs));
    ZT_CHECK(attrs != NULL);
    ZT_CHECK(json != attrs);
    zarr_string_free(json);
    zarr_string_free(attrs);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Every destructor accepts NULL. */
ZTEST(free_functions_accept_null) {
    zarr_store_free(NULL);
    zarr_array_free(NULL);
    zarr_group_free(NULL);
    zarr_string_free(NULL);
    ZT_CHECK(1);
}

/* A failing call with a JSON output sets it to NULL. */
ZTEST(json_output_cleared_on_failure) {
    char *json = (char *)1;
    ZT_STATUS(zarr_array_metadata_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(json == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_metadata_json");
    ZT_STR_CONTAINS(zarr_last_error_message(), "'array'");
    json = (char *)1;
    ZT_STATUS(zarr_group_children_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(json == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'group'");
}

static const ztest_case ztest_cases[] = {
    ZCASE(status_values_are_stable),
    ZCASE(status_str_known_codes),
    ZCASE(status_str_texts_are_distinct),
    ZCASE(status_str_unknown_values),
    ZCASE(status_str_is_static),
    ZCASE(last_error_empty_before_any_failure),
    ZCASE(last_error_names_function_and_cause),
    ZCASE(last_error_names_null_parameter),
    ZCASE(last_error_carries_cause_chain),
    ZCASE(last_error_unchanged_by_success),
    ZCASE(last_error_replaced_by_next_failure),
    ZCASE(last_error_is_thread_local),
    ZCASE(version_string_matches_macro),
    ZCASE(version_number_matches_macros),
    ZCASE(string_free_accepts_null),
    ZCASE(string_free_frees_returned_strings),
    ZCASE(free_functions_accept_null),
    ZCASE(json_output_cleared_on_failure),
};

ZTEST_MAIN()
