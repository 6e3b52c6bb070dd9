/* test_gcs.c -- the Google Cloud Storage store (gs://bucket[/prefix]) against
 * gcp-storage-emulator: round trips of plain and sharded arrays, partial reads, listings
 * longer than one page, erasing, resumable uploads of large values, conditional updates
 * by many writers, the credentials (STORAGE_EMULATOR_HOST alone, a service-account key
 * file and its token endpoint, a bearer token, anonymous), the errors (options that do
 * not apply, a missing bucket, 401/403, read-only stores), and faults, retries and
 * timeouts through a fault-injecting proxy.
 *
 * The servers (tests/servers/servers.py) run on 127.0.0.1 for the whole ctest run
 * (fixture `url_servers`); their addresses come from the file named by
 * ZARR_TEST_SERVERS_ENV:
 *   GCS_URL            the emulator (made to page listings, honour ifGenerationMatch
 *                            and suffix ranges as GCS does: tests/servers/gcs_emulator.py)
 *   GCS_COUNTING_URL   a proxy in front of it that logs every request with the
 *                            credential it carried (logs/gcs_counting.log)
 *   GCS_FAULTY_URL     the same, injecting 500/503 and connection resets, and the
 *                            faults of marked paths (always503, always412, reset-put)
 *   GCS_AUTH_URL       the same, refusing (401) requests without a bearer token that
 *                            the token endpoint issued (or GCS_TOKEN), and 403
 *                            for objects under a segment `forbidden`
 *   GCS_SERVICE_ACCOUNT(_UNTRUSTED)  key files whose token_uri is the token
 *                            endpoint (logs/gcs_token.log), the second signed by a key the
 *                            endpoint does not trust
 * Every case works under a prefix of its own, so cases may run in parallel and repeatedly
 * against the same servers.
 */
#include "ztest.h"

#include "contention.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- the servers ---------------------------------------------------------------- */

#define MAX_SERVER_VALUES 48
static char server_names[MAX_SERVER_VALUES][64];
static char server_values[MAX_SERVER_VALUES][1024];
static int server_count = -1;

/* A value of servers.env (NULL when absent). */
static const char *server(const char *name) {
    int i;
    if (server_count < 0) {
        const char *file = getenv("ZARR_TEST_SERVERS_ENV");
        char *text = file ? (char *)ztest_read_file(file, NULL) : NULL;
        char *line, *save = NULL;
        server_count = 0;
        for (line = text ? strtok_r(text, "\n", &save) : NULL;
             line != NULL && server_count < MAX_SERVER_VALUES;
             line = strtok_r(NULL, "\n", &save)) {
            char *eq = strchr(line, '=');
            if (eq == NULL) continue;
            *eq = '\0';
            snprintf(server_names[server_count], sizeof server_names[0], "%s", line);
            snprintf(server_values[server_count], sizeof server_values[0], "%s", eq + 1);
            server_count++;
        }
        free(text);
    }
    for (i = 0; i < server_count; i++)
        if (strcmp(server_names[i], name) == 0) return server_values[i];
    return NULL;
}

#define SERVER(var, name)                                                                  \
    const char *var = server(name);                                                        \
    if (var == NULL)                                                                       \
    ZT_FAIL_("%s is not in ZARR_TEST_SERVERS_ENV: run through ctest (fixture url_servers)", \
             name)

/* A prefix no other case or run uses: "<case>-<pid>-<seconds>". */
static const char *unique(const char *name) {
    static char buffers[4][256];
    static int next;
    char *out = buffers[next++ % 4];
    snprintf(out, sizeof buffers[0], "%s-%ld-%ld", name, (long)getpid(), (long)time(NULL));
    return out;
}

/* A string built with printf formatting, in one of eight rotating buffers. */
static const char *fmt(const char *format, ...) {
    static char buffers[8][2048];
    static int next;
    char *out = buffers[next++ % 8];
    va_list args;
    va_start(args, format);
    vsnprintf(out, sizeof buffers[0], format, args);
    va_end(args);
    return out;
}

/* Options naming `endpoint`, plus `extra` JSON members. */
static const char *gcs_options(const char *endpoint, const char *extra) {
    return fmt("{\"endpoint\": \"%s\"%s%s}", endpoint, extra[0] ? ", " : "", extra);
}

/* Lines of a server's request log (logs/<log>.log) that contain every one of the given
 * substrings (NULL-terminated list). */
static long count_requests(const char *log, const char *first, ...) {
    const char *logs = server("ZARR_TEST_LOGS");
    char *text, *line, *save = NULL;
    long n = 0;
    if (logs == NULL) return -1;
    text = (char *)ztest_read_file(ztest_path(logs, fmt("%s.log", log)), NULL);
    if (text == NULL) return 0;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        va_list args;
        const char *needle = first;
        int all = 1;
        va_start(args, first);
        while (needle != NULL) {
            if (strstr(line, needle) == NULL) all = 0;
            needle = va_arg(args, const char *);
        }
        va_end(args);
        n += all;
    }
    free(text);
    return n;
}

/* Occurrences of `needle` in `text`. */
static long occurrences(const char *text, const char *needle) {
    long n = 0;
    const char *at = text;
    while (at && (at = strstr(at, needle)) != NULL) {
        n++;
        at += strlen(needle);
    }
    return n;
}

static double now_seconds(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* A TCP socket listening on 127.0.0.1 that never accepts: connections complete in the
 * kernel's backlog, and requests sent on them are never answered. */
static int silent_listener(int *port) {
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(fd, 16) != 0 || getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
        perror("silent_listener");
        abort();
    }
    *port = ntohs(address.sin_port);
    return fd;
}

/* Remove every Google setting from the environment, so that only what a case sets
 * counts (and no case ever reaches for real credentials). */
static void clean_gcs_environment(void) {
    const char *dir = ztest_tmp_dir();
    unsetenv("STORAGE_EMULATOR_HOST");
    unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
    unsetenv("GOOGLE_CLOUD_PROJECT");
    setenv("CLOUDSDK_CONFIG", ztest_path(dir, "no-gcloud-config"), 1);
    setenv("HOME", dir, 1);
    /* Never probe the real metadata server from a test. */
    setenv("GCE_METADATA_HOST", "127.0.0.1:9", 1);
    setenv("NO_GCE_CHECK", "True", 1);
}

/* A copy of the test service account's key file whose client_email is
 * "<name>@zarr-test.iam.gserviceaccount.com", so that the token endpoint's log tells
 * this case's token requests from the others'; its path (NULL on failure). */
static const char *service_account_copy(const char *source, const char *name) {
    static char path[4][1024];
    static int next;
    const char *old_email = "\"zarr-test@zarr-test.iam.gserviceaccount.com\"";
    char *out = path[next++ % 4];
    char *text = (char *)ztest_read_file(source, NULL);
    char *at, *copy;
    size_t length;
    if (text == NULL || (at = strstr(text, old_email)) == NULL) {
        free(text);
        return NULL;
    }
    *at = '\0';
    copy = (char *)malloc(strlen(text) + strlen(name) + strlen(at + strlen(old_email)) + 64);
    length = (size_t)sprintf(copy, "%s\"%s@zarr-test.iam.gserviceaccount.com\"%s", text, name,
                             at + strlen(old_email));
    snprintf(out, sizeof path[0], "%s", ztest_path(ztest_tmp_dir(), "service-account.json"));
    if (ztest_write_file(out, copy, length) != 0) out = NULL;
    free(copy);
    free(text);
    return out;
}

/* ---- the data the cases write and read --------------------------------------------- */

#define A_ROWS 20
#define A_COLS 30
#define S_SIDE 16

static const char *A_METADATA =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [20, 30], \"data_type\": "
    "\"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": "
    "[8, 8]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": -1.0, "
    "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
    "{\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";

static const char *S_METADATA =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [16, 16], \"data_type\": "
    "\"int32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": "
    "[8, 8]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0, "
    "\"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4, 4], "
    "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
    "\"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
    "{\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]}";

static const char *const BIG_CHUNK_METADATA =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5242880], \"data_type\": "
    "\"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
    "{\"chunk_shape\": [5242880]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
    "\"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
    "{\"endian\": \"little\"}}]}";

static float a_value(int i, int j) { return (float)(i * 100 + j) + 0.25f; }
static int32_t s_value(int i, int j) { return i * 16 + j - 7; }

/* Write the group /, /a (zstd, 8 x 8 chunks, rows 16-19 unwritten) and /s (sharded), and
 * consolidate. 0 on success; prints the failure otherwise. */
static int write_hierarchy(zarr_store *store) {
    static float a[A_ROWS * A_COLS];
    static int32_t s[S_SIDE * S_SIDE];
    uint64_t a_start[2] = {0, 0}, a_count[2] = {16, A_COLS};
    uint64_t s_start[2] = {0, 0}, s_count[2] = {S_SIDE, S_SIDE};
    zarr_group *group = NULL;
    zarr_array *array = NULL;
    zarr_status status;
    int i, j;
    for (i = 0; i < A_ROWS; i++)
        for (j = 0; j < A_COLS; j++) a[i * A_COLS + j] = a_value(i, j);
    for (i = 0; i < S_SIDE; i++)
        for (j = 0; j < S_SIDE; j++) s[i * S_SIDE + j] = s_value(i, j);
#define STEP(call)                                                                         \
    if ((status = (call)) != ZARR_OK) {                                                    \
        fprintf(stderr, "%s: %s: %s\n", #call, zarr_status_str(status),                    \
                zarr_last_error_message());                                                \
        zarr_group_free(group);                                                            \
        zarr_array_free(array);                                                            \
        return -1;                                                                         \
    }
    STEP(zarr_group_create(store, "/", "{\"title\": \"gcs test\"}", &group));
    STEP(zarr_array_create(store, "/a", A_METADATA, &array));
    STEP(zarr_array_write(array, 2, a_start, a_count, a, 16 * A_COLS * sizeof(float)));
    zarr_array_free(array);
    array = NULL;
    STEP(zarr_array_create(store, "/s", S_METADATA, &array));
    STEP(zarr_array_write(array, 2, s_start, s_count, s, sizeof s));
    STEP(zarr_group_consolidate(group));
#undef STEP
    zarr_array_free(array);
    zarr_group_free(group);
    return 0;
}

/* Read /a and /s whole and compare with what write_hierarchy wrote (rows 16-19 of /a
 * were never written: the fill value -1). 0 when equal. */
static int check_hierarchy(const zarr_store *store) {
    static float a[A_ROWS * A_COLS];
    static int32_t s[S_SIDE * S_SIDE];
    uint64_t start[2] = {0, 0}, a_count[2] = {A_ROWS, A_COLS}, s_count[2] = {S_SIDE, S_SIDE};
    zarr_array *array = NULL;
    zarr_status status;
    int i, j;
    if ((status = zarr_array_open(store, "/a", &array)) != ZARR_OK ||
        (status = zarr_array_read(array, 2, start, a_count, a, sizeof a)) != ZARR_OK) {
        fprintf(stderr, "reading /a: %s: %s\n", zarr_status_str(status),
                zarr_last_error_message());
        zarr_array_free(array);
        return -1;
    }
    zarr_array_free(array);
    array = NULL;
    for (i = 0; i < A_ROWS; i++)
        for (j = 0; j < A_COLS; j++)
            if (a[i * A_COLS + j] != (i < 16 ? a_value(i, j) : -1.0f)) {
                fprintf(stderr, "/a[%d][%d] = %g\n", i, j, a[i * A_COLS + j]);
                return -1;
            }
    if ((status = zarr_array_open(store, "/s", &array)) != ZARR_OK ||
        (status = zarr_array_read(array, 2, start, s_count, s, sizeof s)) != ZARR_OK) {
        fprintf(stderr, "reading /s: %s: %s\n", zarr_status_str(status),
                zarr_last_error_message());
        zarr_array_free(array);
        return -1;
    }
    zarr_array_free(array);
    for (i = 0; i < S_SIDE; i++)
        for (j = 0; j < S_SIDE; j++)
            if (s[i * S_SIDE + j] != s_value(i, j)) {
                fprintf(stderr, "/s[%d][%d] = %d\n", i, j, (int)s[i * S_SIDE + j]);
                return -1;
            }
    return 0;
}

/* ---- round trips, partial reads, listings, erasing --------------------------------- */

ZTEST(gcs_roundtrip) {
    /* Plain (zstd) and sharded arrays written and read back, by the same store and by a
     * new one; the consolidated metadata lists both. */
    const char *url = fmt("gs://zarr-test/%s", unique("roundtrip"));
    zarr_store *store = NULL, *consolidated = NULL;
    zarr_group *group = NULL;
    char *json = NULL;
    size_t size = 0;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, ""), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, ""), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_OK(zarr_group_open(store, "/", &group));
    ZT_OK(zarr_group_children_json(group, &json));
    ZT_STR_CONTAINS(json, "\"a\"");
    ZT_STR_CONTAINS(json, "\"s\"");
    zarr_string_free(json);
    zarr_group_free(group);
    /* The metadata documents are where a GCS reader expects them. */
    ZT_OK(zarr_store_get(store, "zarr.json", NULL, 0, &size));
    ZT_CHECK(size > 0);
    ZT_OK(zarr_store_get(store, "s/c/0/0", NULL, 0, &size));
    ZT_CHECK(size > 8 * 8 * sizeof(int32_t));
    ZT_STATUS(zarr_store_get(store, "a/c/2/0", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_store_open_consolidated(store, &consolidated));
    ZT_CHECK(check_hierarchy(consolidated) == 0);
    zarr_store_free(consolidated);
    zarr_store_free(store);
}

ZTEST(gcs_partial_reads) {
    /* One inner chunk of a shard, and a few elements of a chunk, are read with ranged
     * GETs (206), never by downloading the whole shard. */
    const char *prefix = unique("partial");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int32_t inner[4 * 4];
    uint64_t start[2] = {4, 8}, count[2] = {4, 4};
    int i, j;
    SERVER(gcs, "GCS_URL");
    SERVER(counting, "GCS_COUNTING_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix), gcs_options(gcs, ""), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix), gcs_options(counting, ""),
                              &store));
    ZT_OK(zarr_array_open(store, "/s", &array));
    ZT_OK(zarr_array_read(array, 2, start, count, inner, sizeof inner));
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++)
            if (inner[i * 4 + j] != s_value(4 + i, 8 + j))
                ZT_FAIL_("/s[%d][%d] = %d", 4 + i, 8 + j, (int)inner[i * 4 + j]);
    zarr_array_free(array);
    zarr_store_free(store);
    /* The shard s/c/0/1 was read in ranges: the index, then the inner chunk. */
    ZT_CHECK(count_requests("gcs_counting", prefix, "GET ", "s%2Fc%2F0%2F1", " 206 ", NULL) >=
             1);
    ZT_EQ_U64(count_requests("gcs_counting", prefix, "GET ", "s%2Fc%2F0%2F1", " 200 ", NULL),
              0);
}

ZTEST(gcs_listing_longer_than_a_page) {
    /* 1005 child groups: the listing (one page holds 1000 entries) takes two pages. */
    const char *prefix = unique("listing");
    const char *group_doc = "{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": {}}";
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    char *json = NULL;
    uint64_t children = 0;
    int i;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix), gcs_options(gcs, ""), &store));
    ZT_OK(zarr_store_set(store, "zarr.json", group_doc, strlen(group_doc)));
    ZT_OK(zarr_store_set(store, "g/zarr.json", group_doc, strlen(group_doc)));
    for (i = 0; i < 1005; i++)
        ZT_OK(zarr_store_set(store, fmt("g/c%04d/zarr.json", i), group_doc, strlen(group_doc)));
    ZT_OK(zarr_store_list_json(store, "g/", &json));
    ZT_EQ_U64(occurrences(json, "\"c"), 1005);
    ZT_STR_CONTAINS(json, "\"c0000\"");
    ZT_STR_CONTAINS(json, "\"c1004\"");
    ZT_STR_CONTAINS(json, "\"zarr.json\"");
    zarr_string_free(json);
    ZT_OK(zarr_group_open(store, "/g", &group));
    ZT_OK(zarr_group_child_count(group, &children));
    ZT_EQ_U64(children, 1005);
    zarr_group_free(group);
    zarr_store_free(store);
    /* The second page was asked for. */
    ZT_CHECK(count_requests("gcs", prefix, "GET /storage/v1/b/zarr-test/o?", "pageToken=",
                            NULL) >= 1);
}

ZTEST(gcs_erase) {
    const char *prefix = unique("erase");
    const char *url = fmt("gs://zarr-test/%s", prefix);
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t chunk[2] = {0, 0}, start[2] = {0, 0}, count[2] = {1, 1};
    char value[16];
    float first = 0;
    size_t size = 0;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, ""), &store));
    ZT_OK(zarr_store_set(store, "x/y", "hello", 5));
    ZT_OK(zarr_store_get(store, "x/y", value, sizeof value, &size));
    ZT_EQ_U64(size, 5);
    ZT_EQ_MEM(value, "hello", 5);
    ZT_OK(zarr_store_erase(store, "x/y"));
    ZT_STATUS(zarr_store_get(store, "x/y", value, sizeof value, &size), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_store_erase(store, "x/y")); /* erasing what is absent is no error */
    /* A chunk, then a whole node. */
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_OK(zarr_array_erase_chunk(array, 2, chunk));
    ZT_OK(zarr_array_read(array, 2, start, count, &first, sizeof first));
    ZT_CHECK(first == -1.0f);
    zarr_array_free(array);
    array = NULL;
    ZT_STATUS(zarr_store_get(store, "a/c/0/0", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_store_delete_node(store, "/s"));
    ZT_STATUS(zarr_array_open(store, "/s", &array), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_store_get(store, "s/c/0/0", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    zarr_store_free(store);
    ZT_CHECK(count_requests("gcs", prefix, "DELETE ", NULL) >= 3);
}

ZTEST(gcs_resumable_upload_of_a_large_value) {
    /* A 20 MiB chunk (above 16 MiB) goes up as a resumable upload and reads back; then a
     * partial update of it is uploaded again, conditionally on the generation read. */
    const char *prefix = unique("resumable");
    size_t n = 5242880, i;
    float *values = (float *)malloc(n * sizeof(float));
    float *back = (float *)malloc(n * sizeof(float));
    float patch[2] = {-1.0f, -2.0f};
    uint64_t origin[1] = {0}, all[1] = {5242880}, at[1] = {1000}, two[1] = {2};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(counting, "GCS_COUNTING_URL");
    clean_gcs_environment();
    ZT_CHECK(values != NULL && back != NULL);
    for (i = 0; i < n; i++) values[i] = (float)i * 0.5f;
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix), gcs_options(counting, ""),
                              &store));
    ZT_OK(zarr_array_create(store, "/big", BIG_CHUNK_METADATA, &array));
    ZT_OK(zarr_array_write(array, 1, origin, all, values, n * sizeof(float)));
    ZT_CHECK(count_requests("gcs_counting", prefix, "POST ", "uploadType=resumable", NULL) >= 1);
    ZT_EQ_U64(count_requests("gcs_counting", prefix, "POST ", "uploadType=media",
                             "big%2Fc%2F0", NULL),
              0);
    ZT_OK(zarr_array_write(array, 1, at, two, patch, sizeof patch));
    values[1000] = -1.0f;
    values[1001] = -2.0f;
    memset(back, 0, n * sizeof(float));
    ZT_OK(zarr_array_read(array, 1, origin, all, back, n * sizeof(float)));
    ZT_EQ_MEM(values, back, n * sizeof(float));
    /* The update's upload carried the generation it replaced. */
    ZT_CHECK(count_requests("gcs_counting", prefix, "uploadType=resumable", "ifGenerationMatch=",
                            NULL) >= 1);
    zarr_array_free(array);
    zarr_store_free(store);
    free(values);
    free(back);
}

/* ---- conditional writes ------------------------------------------------------------ */

ZTEST(gcs_processes_contending_for_a_chunk_lose_nothing) {
    /* Four processes update one chunk element by element at once: every update is a
     * read-modify-write with ifGenerationMatch, which the emulator enforces here. */
    const char *layouts[3];
    const char *names[3] = {"v3", "sharded", "v2"};
    int i;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    layouts[0] = CONTENTION_V3;
    layouts[1] = CONTENTION_SHARDED;
    layouts[2] = CONTENTION_V2;
    for (i = 0; i < 3; i++)
        contention_run(fmt("gs://zarr-test/%s", unique(fmt("contention-%s", names[i]))),
                       gcs_options(gcs, ""), layouts[i]);
}

ZTEST(gcs_write_protection) {
    const char *url = fmt("gs://zarr-test/%s", unique("protection"));
    zarr_store *store = NULL;
    zarr_write_protection protection = -1;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, ""), &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, "\"conditional_writes\": false"), &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_NONE);
    zarr_store_free(store);
}

ZTEST(gcs_conflict_after_every_attempt) {
    /* A proxy answers every conditional upload under always412/ with 412: the update
     * gives up after update_attempts tries with ZARR_ERROR_CONFLICT and writes nothing. */
    const char *prefix = unique("conflict");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int32_t whole[24 * 4], one = 5, back[24 * 4];
    uint64_t origin[2] = {0, 0}, all[2] = {24, 4}, at[2] = {3, 1}, single[2] = {1, 1};
    uint64_t chunk[2] = {0, 0};
    int i;
    SERVER(faulty, "GCS_FAULTY_URL");
    clean_gcs_environment();
    for (i = 0; i < 24 * 4; i++) whole[i] = i + 1;
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s/always412", prefix),
                              gcs_options(faulty, "\"update_attempts\": 3"), &store));
    ZT_OK(zarr_array_create(store, "/a", CONTENTION_V3, &array));
    ZT_OK(zarr_array_write_chunk(array, 2, chunk, whole, sizeof whole));
    ZT_STATUS(zarr_array_write(array, 2, at, single, &one, sizeof one), ZARR_ERROR_CONFLICT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "3 attempts");
    /* The object is named, as a key or as the JSON API's percent-encoded URL. */
    if (strstr(zarr_last_error_message(), "always412/a/c/0/0") == NULL)
        ZT_STR_CONTAINS(zarr_last_error_message(), "always412%2Fa%2Fc%2F0%2F0");
    ZT_OK(zarr_array_read(array, 2, origin, all, back, sizeof back));
    ZT_EQ_MEM(back, whole, sizeof whole);
    ZT_EQ_U64(count_requests("gcs_faulty", prefix, "POST ", "ifGenerationMatch=", " 412 ", NULL),
              3);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* ---- credentials ------------------------------------------------------------------- */

ZTEST(gcs_emulator_host_alone) {
    /* STORAGE_EMULATOR_HOST, with or without "http://", and no options at all: the
     * requests go there, unauthenticated. */
    const char *hosts[2];
    int i;
    SERVER(counting, "GCS_COUNTING_URL");
    clean_gcs_environment();
    hosts[0] = counting + strlen("http://");
    hosts[1] = counting;
    for (i = 0; i < 2; i++) {
        const char *prefix = unique(fmt("emulator-host-%d", i));
        zarr_store *store = NULL;
        setenv("STORAGE_EMULATOR_HOST", hosts[i], 1);
        ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix), NULL, &store));
        ZT_CHECK(write_hierarchy(store) == 0);
        ZT_CHECK(check_hierarchy(store) == 0);
        zarr_store_free(store);
        ZT_CHECK(count_requests("gcs_counting", prefix, NULL) >= 5);
        ZT_EQ_U64(count_requests("gcs_counting", prefix, " bearer:", NULL), 0);
    }
    unsetenv("STORAGE_EMULATOR_HOST");
}

ZTEST(gcs_service_account_token_fetched_once) {
    /* A key file: the store signs a JWT, trades it at the key's token_uri for a bearer
     * token, and uses that one token for every request of the store. */
    const char *prefix = unique("service-account");
    const char *email = fmt("sa-%s", prefix);
    const char *key_file;
    zarr_store *store = NULL;
    SERVER(auth, "GCS_AUTH_URL");
    SERVER(key, "GCS_SERVICE_ACCOUNT");
    clean_gcs_environment();
    key_file = service_account_copy(key, email);
    ZT_CHECK(key_file != NULL);
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix),
                              gcs_options(auth, fmt("\"service_account_path\": \"%s\"", key_file)),
                              &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* One token request, accepted; every request to the bucket carried an issued token. */
    ZT_EQ_U64(count_requests("gcs_token", fmt("iss=%s@", email), NULL), 1);
    ZT_EQ_U64(count_requests("gcs_token", fmt("iss=%s@", email), "POST /token 200 ", NULL), 1);
    ZT_CHECK(count_requests("gcs_auth", prefix, " bearer:zarr-test-token-", NULL) >= 10);
    ZT_EQ_U64(count_requests("gcs_auth", prefix, " refused", NULL), 0);
}

ZTEST(gcs_service_account_from_environment) {
    /* GOOGLE_APPLICATION_CREDENTIALS names the key file when the options do not. */
    const char *prefix = unique("adc");
    const char *email = fmt("env-%s", prefix);
    const char *key_file;
    zarr_store *store = NULL;
    SERVER(auth, "GCS_AUTH_URL");
    SERVER(key, "GCS_SERVICE_ACCOUNT");
    clean_gcs_environment();
    key_file = service_account_copy(key, email);
    ZT_CHECK(key_file != NULL);
    setenv("GOOGLE_APPLICATION_CREDENTIALS", key_file, 1);
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix), gcs_options(auth, ""), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
    ZT_EQ_U64(count_requests("gcs_token", fmt("iss=%s@", email), "POST /token 200 ", NULL), 1);
    ZT_EQ_U64(count_requests("gcs_auth", prefix, " refused", NULL), 0);
}

ZTEST(gcs_untrusted_service_account_is_access_denied) {
    /* A key the token endpoint does not trust: 401 invalid_client, which is
     * ZARR_ERROR_ACCESS_DENIED naming the key file. */
    const char *prefix = unique("untrusted");
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    zarr_status status;
    SERVER(auth, "GCS_AUTH_URL");
    SERVER(key, "GCS_SERVICE_ACCOUNT_UNTRUSTED");
    clean_gcs_environment();
    status = zarr_store_open_url(fmt("gs://zarr-test/%s", prefix),
                                 gcs_options(auth, fmt("\"service_account_path\": \"%s\"", key)),
                                 &store);
    if (status == ZARR_OK) {
        status = zarr_group_create(store, "/", "{}", &group);
        zarr_group_free(group);
        zarr_store_free(store);
    } else {
        ZT_CHECK(store == NULL);
    }
    ZT_STATUS(status, ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "service-account-untrusted.json");
    ZT_EQ_U64(count_requests("gcs_auth", prefix, NULL), 0); /* no request went out */
}

ZTEST(gcs_token_option) {
    /* A bearer token given in the options is sent as it is; a wrong one is refused at
     * open with ZARR_ERROR_ACCESS_DENIED naming the token option. */
    const char *prefix = unique("token");
    zarr_store *store = NULL;
    SERVER(auth, "GCS_AUTH_URL");
    SERVER(token, "GCS_TOKEN");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix),
                              gcs_options(auth, fmt("\"token\": \"%s\"", token)), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    ZT_CHECK(count_requests("gcs_auth", prefix, fmt(" bearer:%s", token), NULL) >= 5);
    ZT_EQ_U64(count_requests("gcs_auth", prefix, " refused", NULL), 0);
    ZT_STATUS(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix),
                                  gcs_options(auth, "\"token\": \"not-a-token\""), &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "token");
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr-test");
}

ZTEST(gcs_anonymous) {
    /* anonymous: true reads and writes the emulator without credentials (and without
     * looking for any); where the server wants a token it is ACCESS_DENIED naming the
     * anonymous access. */
    const char *prefix = unique("anonymous");
    const char *key_file;
    zarr_store *store = NULL;
    SERVER(counting, "GCS_COUNTING_URL");
    SERVER(auth, "GCS_AUTH_URL");
    SERVER(key, "GCS_SERVICE_ACCOUNT");
    clean_gcs_environment();
    /* A key file in the environment must not be used. */
    key_file = service_account_copy(key, fmt("anon-%s", prefix));
    ZT_CHECK(key_file != NULL);
    setenv("GOOGLE_APPLICATION_CREDENTIALS", key_file, 1);
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix),
                              gcs_options(counting, "\"anonymous\": true"), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    ZT_CHECK(count_requests("gcs_counting", prefix, " anonymous", NULL) >= 5);
    ZT_EQ_U64(count_requests("gcs_counting", prefix, " bearer:", NULL), 0);
    ZT_EQ_U64(count_requests("gcs_token", fmt("iss=anon-%s@", prefix), NULL), 0);
    ZT_STATUS(zarr_store_open_url(fmt("gs://zarr-test/%s", prefix),
                                  gcs_options(auth, "\"anonymous\": true"), &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "anonymous");
    unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
}

ZTEST(gcs_403_is_access_denied) {
    /* A valid token without access to the objects under forbidden/: 403 on the first
     * read is ZARR_ERROR_ACCESS_DENIED (not NOT_FOUND). */
    const char *prefix = unique("forbidden");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(auth, "GCS_AUTH_URL");
    SERVER(token, "GCS_TOKEN");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-test/%s/forbidden", prefix),
                              gcs_options(auth, fmt("\"token\": \"%s\"", token)), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "403");
    ZT_STR_CONTAINS(zarr_last_error_message(), "token");
    zarr_store_free(store);
}

/* ---- options and errors ------------------------------------------------------------ */

ZTEST(gcs_options_that_do_not_apply) {
    const char *not_gcs[] = {"\"region\": \"us-east-1\"", "\"account_key\": \"a2V5\"",
                             "\"access_key_id\": \"AKIA\"", "\"account_name\": \"x\""};
    const char *names[] = {"region", "account_key", "access_key_id", "account_name"};
    size_t i;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    for (i = 0; i < sizeof not_gcs / sizeof not_gcs[0]; i++) {
        zarr_store *store = (zarr_store *)0x1;
        ZT_STATUS(zarr_store_open_url("gs://zarr-test/options", gcs_options(gcs, not_gcs[i]),
                                      &store),
                  ZARR_ERROR_INVALID_ARGUMENT);
        ZT_CHECK(store == NULL);
        ZT_STR_CONTAINS(zarr_last_error_message(), names[i]);
    }
    /* Every option of the GCS store is accepted. */
    {
        zarr_store *store = NULL;
        ZT_OK(zarr_store_open_url(
            fmt("gs://zarr-test/%s", unique("every-option")),
            gcs_options(gcs, "\"anonymous\": true, \"max_concurrency\": 4, \"timeout_ms\": "
                             "20000, \"max_retries\": 2, \"read_only\": false, "
                             "\"conditional_writes\": true, \"update_attempts\": 5"),
            &store));
        ZT_CHECK(write_hierarchy(store) == 0);
        zarr_store_free(store);
    }
}

ZTEST(gcs_missing_bucket) {
    zarr_store *store = (zarr_store *)0x1;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_STATUS(zarr_store_open_url("gs://no-such-bucket-zarr/x", gcs_options(gcs, ""), &store),
              ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "no-such-bucket-zarr");
    ZT_CHECK(count_requests("gcs", "GET /storage/v1/b/no-such-bucket-zarr", " 404 ", NULL) >= 1);
}

ZTEST(gcs_read_only) {
    const char *prefix = unique("read-only");
    const char *url = fmt("gs://zarr-test/%s", prefix);
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    zarr_array *array = NULL;
    uint64_t chunk[2] = {0, 0};
    float zeros[64];
    long writes;
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    memset(zeros, 0, sizeof zeros);
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, ""), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    writes = count_requests("gcs", prefix, "\"POST ", NULL) +
             count_requests("gcs", prefix, "\"DELETE ", NULL);
    ZT_CHECK(writes > 0);
    ZT_OK(zarr_store_open_url(url, gcs_options(gcs, "\"read_only\": true"), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_STATUS(zarr_group_create(store, "/g", "{}", &group), ZARR_ERROR_READ_ONLY);
    ZT_OK(zarr_array_open(store, "/a", &array));
    ZT_STATUS(zarr_array_write_chunk(array, 2, chunk, zeros, sizeof zeros), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_set(store, "k", "v", 1), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_erase(store, "a/c/0/0"), ZARR_ERROR_READ_ONLY);
    zarr_array_free(array);
    zarr_store_free(store);
    /* Nothing but reads was sent. */
    ZT_EQ_U64(count_requests("gcs", prefix, "\"POST ", NULL) +
                  count_requests("gcs", prefix, "\"DELETE ", NULL),
              writes);
}

/* ---- faults, retries, timeouts ----------------------------------------------------- */

ZTEST(gcs_faults_are_retried) {
    /* Through a proxy that answers 500/503 to 20% of the requests and resets 10% of the
     * connections (before forwarding or halfway through the response). */
    const char *prefix = unique("faults");
    zarr_store *store = NULL;
    SERVER(faulty, "GCS_FAULTY_URL");
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s", prefix),
                              gcs_options(faulty, "\"max_retries\": 12"), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s", prefix), gcs_options(gcs, ""), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_CHECK(count_requests("gcs_faulty", prefix, " injected", NULL) > 0);
    ZT_CHECK(count_requests("gcs_faulty", prefix, " reset", NULL) > 0);
}

ZTEST(gcs_max_retries) {
    const char *prefix = unique("retries");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    double start;
    SERVER(faulty, "GCS_FAULTY_URL");
    clean_gcs_environment();
    /* No retry: one request, and HTTP 503 is the error. */
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s/always503", prefix),
                              gcs_options(faulty, "\"max_retries\": 0, \"timeout_ms\": 5000"),
                              &store));
    start = now_seconds();
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_REMOTE);
    ZT_CHECK(now_seconds() - start < 5.0);
    ZT_STR_CONTAINS(zarr_last_error_message(), "503");
    zarr_store_free(store);
    ZT_EQ_U64(count_requests("gcs_faulty", prefix, "always503", NULL), 1);
    /* Two retries: three requests. */
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s/always503", prefix),
                              gcs_options(faulty, "\"max_retries\": 2"), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_REMOTE);
    ZT_STR_CONTAINS(zarr_last_error_message(), "after 3 attempts");
    zarr_store_free(store);
    ZT_EQ_U64(count_requests("gcs_faulty", prefix, "always503", NULL), 4);
}

ZTEST(gcs_timeout) {
    /* A server that never answers: with max_retries 0 and timeout_ms 300 the open (or the
     * first read) gives up within seconds with ZARR_ERROR_TIMEOUT, not a hang. */
    int port, fd = silent_listener(&port);
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_status status;
    double start, elapsed;
    clean_gcs_environment();
    start = now_seconds();
    status = zarr_store_open_url(
        "gs://zarr-test/slow",
        fmt("{\"endpoint\": \"http://127.0.0.1:%d\", \"timeout_ms\": 300, \"max_retries\": 0}",
            port),
        &store);
    if (status == ZARR_OK) {
        status = zarr_array_open(store, "/a", &array);
        zarr_store_free(store);
    }
    elapsed = now_seconds() - start;
    close(fd);
    ZT_STATUS(status, ZARR_ERROR_TIMEOUT);
    ZT_CHECK(elapsed >= 0.25 && elapsed < 10.0);
    ZT_STR_CONTAINS(zarr_last_error_message(), "timed out");
}

ZTEST(gcs_interrupted_upload_leaves_nothing) {
    /* Every upload under reset-put/ is cut off halfway through its body: the write fails
     * with ZARR_ERROR_NETWORK and no object appears. */
    const char *prefix = unique("interrupted");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(faulty, "GCS_FAULTY_URL");
    SERVER(gcs, "GCS_URL");
    clean_gcs_environment();
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s/reset-put", prefix),
                              gcs_options(faulty, "\"max_retries\": 1"), &store));
    ZT_STATUS(zarr_array_create(store, "/a", A_METADATA, &array), ZARR_ERROR_NETWORK);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("gs://zarr-faults/%s/reset-put", prefix), gcs_options(gcs, ""),
                              &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_NOT_FOUND);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(gcs_roundtrip),
    ZCASE(gcs_partial_reads),
    ZCASE(gcs_listing_longer_than_a_page),
    ZCASE(gcs_erase),
    ZCASE(gcs_resumable_upload_of_a_large_value),
    ZCASE(gcs_processes_contending_for_a_chunk_lose_nothing),
    ZCASE(gcs_write_protection),
    ZCASE(gcs_conflict_after_every_attempt),
    ZCASE(gcs_emulator_host_alone),
    ZCASE(gcs_service_account_token_fetched_once),
    ZCASE(gcs_service_account_from_environment),
    ZCASE(gcs_untrusted_service_account_is_access_denied),
    ZCASE(gcs_token_option),
    ZCASE(gcs_anonymous),
    ZCASE(gcs_403_is_access_denied),
    ZCASE(gcs_options_that_do_not_apply),
    ZCASE(gcs_missing_bucket),
    ZCASE(gcs_read_only),
    ZCASE(gcs_faults_are_retried),
    ZCASE(gcs_max_retries),
    ZCASE(gcs_timeout),
    ZCASE(gcs_interrupted_upload_leaves_nothing),
};

ZTEST_MAIN()
