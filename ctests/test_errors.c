/* Status codes, error messages, version queries and the string destructor. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
    ZARR_ERROR_INTERNAL,
    ZARR_ERROR_TYPE_MISMATCH,
    ZARR_ERROR_RESOURCE,
    ZARR_ERROR_CONFLICT,
    ZARR_ERROR_COMMUNICATION,
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
    ZT_CHECK(ZARR_ERROR_INTERNAL == -16);
    ZT_CHECK(ZARR_ERROR_TYPE_MISMATCH == -17);
    ZT_CHECK(ZARR_ERROR_RESOURCE == -18);
    ZT_CHECK(ZARR_ERROR_CONFLICT == -24);
    ZT_CHECK(ZARR_ERROR_COMMUNICATION == -25);
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
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_CONFLICT), "other writers");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_COMMUNICATION), "collective");
    ZT_CHECK(strcmp(zarr_status_str(ZARR_ERROR_INTERNAL),
                    "an internal invariant was violated: a bug in libzarr, please report it") == 0);
    ZT_CHECK(strcmp(zarr_status_str(ZARR_ERROR_RESOURCE),
                    "the operating system refused a resource: threads, file descriptors") == 0);
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
    static const int32_t unknown[] = {1, 2, 100, -19, -50, -98, -100, -1000,
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

/* ---- failing calls while the process or a thread exits ---------------------------- */

/* 0 when a failing call behaved: the right status and a message that is either the
 * call's own or the documented text for a thread whose message slot is gone. */
static int failing_call_behaves(void) {
    zarr_array *array = (zarr_array *)1;
    const char *message;
    if (zarr_array_open(NULL, "/a", &array) != ZARR_ERROR_NULL_ARGUMENT) return 1;
    if (array != NULL) return 2;
    message = zarr_last_error_message();
    if (message == NULL) return 3;
    if (strstr(message, "zarr_array_open") == NULL &&
        strstr(message, "the calling thread is exiting") == NULL)
        return 4;
    if (zarr_status_str(ZARR_ERROR_NULL_ARGUMENT) == NULL) return 5;
    return 0;
}

static void failing_call_at_exit(void) {
    int result = failing_call_behaves();
    if (result != 0) _exit(20 + result);
}

/* Runs `scenario` in a child process and expects it to exit normally with status 0. */
static int child_exit_status(void (*scenario)(void)) {
    int wstatus = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        scenario();
        exit(0); /* runs atexit handlers and thread-local destructors */
    }
    if (waitpid(pid, &wstatus, 0) != pid) return -2;
    if (WIFSIGNALED(wstatus)) {
        fprintf(stderr, "child killed by signal %d\n", WTERMSIG(wstatus));
        return -3;
    }
    return WEXITSTATUS(wstatus);
}

static void atexit_scenario(void) {
    /* A failure first, so that the thread's message slot exists and is torn down at exit. */
    if (failing_call_behaves() != 0) _exit(10);
    atexit(failing_call_at_exit);
}

/* A failing call from an atexit handler returns its status; the process exits normally
 * (it used to abort: the message slot was used after its destruction). */
ZTEST(failing_call_in_atexit_handler) {
    ZT_EQ_U64(child_exit_status(atexit_scenario), 0);
}

static pthread_key_t exit_key;
static volatile int destructor_result = -1;

static void key_destructor(void *value) {
    (void)value;
    destructor_result = failing_call_behaves();
}

static void *thread_with_key(void *arg) {
    (void)arg;
    if (failing_call_behaves() != 0) return NULL;
    pthread_setspecific(exit_key, (void *)1);
    return NULL;
}

static void key_destructor_scenario(void) {
    pthread_t thread;
    if (pthread_key_create(&exit_key, key_destructor) != 0) _exit(10);
    if (pthread_create(&thread, NULL, thread_with_key, NULL) != 0) _exit(11);
    if (pthread_join(thread, NULL) != 0) _exit(12);
    if (destructor_result != 0) _exit(20 + destructor_result);
}

/* The same from a pthread key destructor, which runs after the thread's Rust
 * thread-locals are gone. */
ZTEST(failing_call_in_thread_key_destructor) {
    ZT_EQ_U64(child_exit_status(key_destructor_scenario), 0);
}

/* ---- fill values outside their type's range ---------------------------------------- */

static zarr_status create_with_fill(zarr_store *store, const char *path, const char *dtype,
                                    const char *fill) {
    char meta[1024];
    zarr_array *array = NULL;
    zarr_status s;
    snprintf(meta, sizeof meta,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"%s\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
             "\"chunk_key_encoding\":{\"name\":\"default\"},"
             "\"fill_value\":%s,\"codecs\":[{\"name\":\"bytes\","
             "\"configuration\":{\"endian\":\"little\"}}]}",
             dtype, fill);
    s = zarr_array_create(store, path, meta, &array);
    zarr_array_free(array);
    return s;
}

/* -2^63 - 1 used to be accepted as -2^63 (JSON parsers give it as the nearest double). */
ZTEST(fill_value_outside_integer_range) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    char *json = NULL;
    int64_t back[4] = {0};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(create_with_fill(store, "/a", "int64", "-9223372036854775809"),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "fill_value");
    ZT_STR_CONTAINS(zarr_last_error_message(), "int64");
    ZT_STATUS(create_with_fill(store, "/b", "int64", "9223372036854775808"),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(create_with_fill(store, "/c", "uint64", "18446744073709551616"),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(create_with_fill(store, "/d", "int32", "2147483648"), ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(create_with_fill(store, "/e", "uint8", "-1"), ZARR_ERROR_INVALID_METADATA);
    /* The extremes themselves are fine, and read back exactly. */
    ZT_OK(create_with_fill(store, "/min", "int64", "-9223372036854775808"));
    ZT_OK(create_with_fill(store, "/max", "uint64", "18446744073709551615"));
    ZT_OK(zarr_array_open(store, "/min", &array));
    ZT_OK(zarr_array_metadata_json(array, &json));
    ZT_STR_CONTAINS(json, "-9223372036854775808");
    ZT_OK(zarr_array_read(array, 1, &start, &count, back, sizeof back));
    ZT_CHECK(back[0] == INT64_MIN && back[3] == INT64_MIN);
    zarr_string_free(json);
    zarr_array_free(array);
    zarr_store_free(store);
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
    ZCASE(failing_call_in_atexit_handler),
    ZCASE(failing_call_in_thread_key_destructor),
    ZCASE(fill_value_outside_integer_range),
};

ZTEST_MAIN()
