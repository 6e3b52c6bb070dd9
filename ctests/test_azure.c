/* test_azure.c -- zarr_store_open_url with az:// and abfs:// URLs: Azure Blob Storage
 * through Azurite (Microsoft's emulator), on 127.0.0.1 for the whole ctest run (fixture
 * `url_servers`, tests/servers/servers.py). Shared Key, container SAS tokens (with and
 * without '?'), a connection string in the environment, anonymous access, a wrong key
 * (denied at open), a missing container, read-only stores, listing and erasing, a value
 * above the block-upload threshold, processes contending for one chunk, and injected
 * faults, retries and timeouts through tests/servers/fault_proxy.py. Every case works under
 * a prefix of its own.
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

/* Remove every Azure setting from the environment, so that only what a case sets counts. */
static void clean_azure_environment(void) {
    unsetenv("AZURE_STORAGE_CONNECTION_STRING");
    unsetenv("AZURE_STORAGE_ACCOUNT_NAME");
    unsetenv("AZURE_STORAGE_ACCOUNT_KEY");
    unsetenv("AZURE_STORAGE_SAS_TOKEN");
}

/* Options for Azurite at `endpoint` with the account's Shared Key, plus `extra` members. */
static const char *key_options(const char *endpoint, const char *extra) {
    return fmt("{\"endpoint\": \"%s\", \"account_key\": \"%s\"%s%s}", endpoint,
               server("ZARR_TEST_AZURE_KEY"), extra[0] ? ", " : "", extra);
}

/* Lines of a server's request log that contain every one of the given substrings
 * (NULL-terminated list). */
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

/* ---- the data every case writes and reads ------------------------------------------ */

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
    STEP(zarr_group_create(store, "/", "{\"title\": \"azure test\"}", &group));
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

/* Read /a and /s whole, and a part of each, and compare with what write_hierarchy wrote
 * (rows 16-19 of /a were never written: the fill value -1). 0 when equal. */
static int check_hierarchy(const zarr_store *store) {
    static float a[A_ROWS * A_COLS];
    static int32_t s[S_SIDE * S_SIDE];
    uint64_t start[2] = {0, 0}, a_count[2] = {A_ROWS, A_COLS}, s_count[2] = {S_SIDE, S_SIDE};
    uint64_t part_start[2] = {5, 7}, part_count[2] = {3, 9};
    float a_part[27];
    int32_t s_part[27];
    zarr_array *array = NULL;
    zarr_status status;
    int i, j;
    if ((status = zarr_array_open(store, "/a", &array)) != ZARR_OK ||
        (status = zarr_array_read(array, 2, start, a_count, a, sizeof a)) != ZARR_OK ||
        (status = zarr_array_read(array, 2, part_start, part_count, a_part, sizeof a_part)) !=
            ZARR_OK) {
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
    for (i = 0; i < 3; i++)
        for (j = 0; j < 9; j++)
            if (a_part[i * 9 + j] != a_value(5 + i, 7 + j)) {
                fprintf(stderr, "/a part [%d][%d] = %g\n", i, j, a_part[i * 9 + j]);
                return -1;
            }
    if ((status = zarr_array_open(store, "/s", &array)) != ZARR_OK ||
        (status = zarr_array_read(array, 2, start, s_count, s, sizeof s)) != ZARR_OK ||
        (status = zarr_array_read(array, 2, part_start, part_count, s_part, sizeof s_part)) !=
            ZARR_OK) {
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
    for (i = 0; i < 3; i++)
        for (j = 0; j < 9; j++)
            if (s_part[i * 9 + j] != s_value(5 + i, 7 + j)) {
                fprintf(stderr, "/s part [%d][%d] = %d\n", i, j, (int)s_part[i * 9 + j]);
                return -1;
            }
    return 0;
}

/* ---- cases ------------------------------------------------------------------------- */

ZTEST(azure_roundtrip_shared_key) {
    const char *url = fmt("az://zarr-test/%s/data.zarr", unique("roundtrip"));
    zarr_store *store = NULL, *view = NULL;
    zarr_group *group = NULL;
    char *json = NULL;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    ZT_OK(zarr_store_open_url(url, key_options(azure, "\"max_concurrency\": 8"), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    /* Listing (List Blobs with a delimiter). */
    ZT_OK(zarr_group_open(store, "/", &group));
    ZT_OK(zarr_group_children_json(group, &json));
    {
        char *compact = ztest_json_compact(json);
        ZT_STR_CONTAINS(compact, "\"a\"");
        ZT_STR_CONTAINS(compact, "\"s\"");
        free(compact);
    }
    zarr_string_free(json);
    zarr_group_free(group);
    zarr_store_free(store);
    /* Another store, through the abfs:// synonym and the consolidated metadata. */
    ZT_OK(zarr_store_open_url(fmt("abfs://%s", url + strlen("az://")), key_options(azure, ""),
                              &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_CHECK(check_hierarchy(view) == 0);
    zarr_store_free(view);
    zarr_store_free(store);
}

ZTEST(azure_erase_and_listing_of_many_chunks) {
    /* 260 chunks: erasing the array lists them all (and a new array of the same shape
     * reads as fill values, so every one of them is gone). */
    const char *meta =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [260], \"data_type\": "
        "\"int16\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
        "{\"chunk_shape\": [1]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
        "\"fill_value\": 5, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
        "{\"endian\": \"little\"}}]}";
    const char *url = fmt("az://zarr-test/%s", unique("erase"));
    int16_t values[260], back[260];
    uint64_t start[1] = {0}, count[1] = {260}, chunk[1] = {3};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    char *json = NULL;
    int i;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    for (i = 0; i < 260; i++) values[i] = (int16_t)(i * 3);
    ZT_OK(zarr_store_open_url(url, key_options(azure, ""), &store));
    ZT_OK(zarr_group_create(store, "/", NULL, &group));
    zarr_group_free(group);
    ZT_OK(zarr_array_create(store, "/many", meta, &array));
    ZT_OK(zarr_array_write(array, 1, start, count, values, sizeof values));
    /* One chunk erased: it reads as the fill value. */
    ZT_OK(zarr_array_erase_chunk(array, 1, chunk));
    ZT_OK(zarr_array_read(array, 1, start, count, back, sizeof back));
    values[3] = 5;
    ZT_EQ_MEM(back, values, sizeof back);
    zarr_array_free(array);
    ZT_OK(zarr_group_open(store, "/", &group));
    ZT_OK(zarr_group_children_json(group, &json));
    ZT_STR_CONTAINS(json, "many");
    zarr_string_free(json);
    zarr_group_free(group);
    /* The whole array. */
    ZT_OK(zarr_store_delete_node(store, "/many"));
    ZT_STATUS(zarr_array_open(store, "/many", &array), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_array_create(store, "/many", meta, &array));
    ZT_OK(zarr_array_read(array, 1, start, count, back, sizeof back));
    for (i = 0; i < 260; i++) ZT_EQ_U64(back[i], 5);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(azure_wrong_key_is_denied_at_open) {
    const char *url = fmt("az://zarr-test/%s", unique("wrongkey"));
    zarr_store *store = NULL;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    ZT_STATUS(zarr_store_open_url(
                  url,
                  fmt("{\"endpoint\": \"%s\", \"account_key\": \"d3Jvbmcga2V5IHdyb25nIGtleQ==\"}",
                      azure),
                  &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    "Shared Key of account 'devstoreaccount1' from option 'account_key'");
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP 403");
    ZT_CHECK(store == NULL);
    /* The same key from the environment is named as such. */
    setenv("AZURE_STORAGE_ACCOUNT_KEY", "d3Jvbmcga2V5IHdyb25nIGtleQ==", 1);
    ZT_STATUS(zarr_store_open_url(url, fmt("{\"endpoint\": \"%s\"}", azure), &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "from AZURE_STORAGE_ACCOUNT_KEY");
    clean_azure_environment();
}

ZTEST(azure_anonymous_is_denied_on_a_private_container) {
    zarr_store *store = NULL;
    zarr_status status;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    status = zarr_store_open_url(fmt("az://zarr-test/%s", unique("anonymous")),
                                 fmt("{\"endpoint\": \"%s\"}", azure), &store);
    /* Azurite answers 403 (Azure itself may answer 404 ResourceNotFound to hide the
     * container; the message then says it may not be public). */
    ZT_EQ_U64(status, ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "anonymous (no credential given)");
    ZT_CHECK(store == NULL);
}

ZTEST(azure_container_sas) {
    const char *prefix = unique("sas");
    zarr_store *store = NULL;
    SERVER(azure, "ZARR_TEST_AZURE");
    SERVER(sas, "ZARR_TEST_AZURE_SAS");
    clean_azure_environment();
    /* Without '?': write; with '?': read back. */
    ZT_OK(zarr_store_open_url(fmt("az://zarr-test/%s", prefix),
                              fmt("{\"endpoint\": \"%s\", \"sas_token\": \"%s\"}", azure, sas),
                              &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("az://zarr-test/%s", prefix),
                              fmt("{\"endpoint\": \"%s\", \"sas_token\": \"?%s\"}", azure, sas),
                              &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* From the environment. */
    setenv("AZURE_STORAGE_SAS_TOKEN", sas, 1);
    ZT_OK(zarr_store_open_url(fmt("az://zarr-test/%s", prefix),
                              fmt("{\"endpoint\": \"%s\"}", azure), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    /* The container's SAS does not reach another container. */
    ZT_STATUS(zarr_store_open_url(fmt("az://zarr-interop/%s", prefix),
                                  fmt("{\"endpoint\": \"%s\"}", azure), &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "SAS token from AZURE_STORAGE_SAS_TOKEN");
    clean_azure_environment();
}

ZTEST(azure_connection_string_alone) {
    const char *prefix = unique("connection");
    char *base = NULL;
    zarr_store *store = NULL;
    SERVER(azure, "ZARR_TEST_AZURE");
    SERVER(key, "ZARR_TEST_AZURE_KEY");
    clean_azure_environment();
    setenv("AZURE_STORAGE_CONNECTION_STRING",
           fmt("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;"
               "BlobEndpoint=%s;",
               key, azure),
           1);
    (void)base;
    ZT_OK(zarr_store_open_url(fmt("az://zarr-test/%s/x", prefix), NULL, &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    store = NULL;
    /* A wrong key in it is named. */
    setenv("AZURE_STORAGE_CONNECTION_STRING",
           fmt("AccountName=devstoreaccount1;AccountKey=d3Jvbmc=;BlobEndpoint=%s", azure), 1);
    ZT_STATUS(zarr_store_open_url(fmt("az://zarr-test/%s/x", prefix), NULL, &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "from AZURE_STORAGE_CONNECTION_STRING");
    clean_azure_environment();
}

ZTEST(azure_options_that_do_not_apply) {
    zarr_store *store = NULL;
    ZT_STATUS(zarr_store_open_url("az://zarr-test/x", "{\"region\": \"x\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'region' does not apply to az://");
    ZT_STATUS(zarr_store_open_url("az://zarr-test/x", "{\"create\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'create'");
    ZT_STATUS(zarr_store_open_url("az://zarr-test/x",
                                  "{\"account_key\": \"a\", \"sas_token\": \"b\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "contradict");
    /* No account anywhere (options, URL, environment). */
    clean_azure_environment();
    ZT_STATUS(zarr_store_open_url("az://zarr-test/x", NULL, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "no storage account");
    ZT_STR_CONTAINS(zarr_last_error_message(), "AZURE_STORAGE_CONNECTION_STRING");
    /* A malformed connection string names itself. */
    setenv("AZURE_STORAGE_CONNECTION_STRING", "AccountName", 1);
    ZT_STATUS(zarr_store_open_url("az://zarr-test/x", NULL, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "AZURE_STORAGE_CONNECTION_STRING");
    clean_azure_environment();
    ZT_CHECK(store == NULL);
}

ZTEST(azure_missing_container) {
    zarr_store *store = NULL;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    ZT_STATUS(zarr_store_open_url("az://no-such-container/x", key_options(azure, ""), &store),
              ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "no container 'no-such-container' at ");
    ZT_STR_CONTAINS(zarr_last_error_message(), azure);
    ZT_CHECK(store == NULL);
}

ZTEST(azure_read_only) {
    const char *url = fmt("az://zarr-test/%s", unique("readonly"));
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_write_protection protection = -1;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    ZT_OK(zarr_store_open_url(url, key_options(azure, ""), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, key_options(azure, "\"conditional_writes\": false"), &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_NONE);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, key_options(azure, "\"read_only\": true"), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_STATUS(zarr_array_create(store, "/b", A_METADATA, &array), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_delete_node(store, "/a"), ZARR_ERROR_READ_ONLY);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
}

static const char *const BIG_CHUNK_METADATA =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5242880], \"data_type\": "
    "\"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
    "{\"chunk_shape\": [5242880]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
    "\"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
    "{\"endian\": \"little\"}}]}";

/* A 20 MiB chunk goes up in blocks (Put Block, Put Block List); a partial update of it
 * is one conditional Put Blob. */
ZTEST(azure_large_chunk) {
    size_t n = 5242880, i;
    float *values = (float *)malloc(n * sizeof(float));
    float *back = (float *)malloc(n * sizeof(float));
    float patch[2] = {-1.0f, -2.0f};
    uint64_t origin[1] = {0}, all[1] = {5242880}, at[1] = {1000}, two[1] = {2};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    const char *prefix = unique("large");
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    ZT_CHECK(values != NULL && back != NULL);
    for (i = 0; i < n; i++) values[i] = (float)i;
    ZT_OK(zarr_store_open_url(fmt("az://zarr-test/%s", prefix), key_options(azure, ""),
                              &store));
    ZT_OK(zarr_array_create(store, "/big", BIG_CHUNK_METADATA, &array));
    ZT_OK(zarr_array_write(array, 1, origin, all, values, n * sizeof(float)));
    ZT_OK(zarr_array_write(array, 1, at, two, patch, sizeof patch));
    values[1000] = -1.0f;
    values[1001] = -2.0f;
    ZT_OK(zarr_array_read(array, 1, origin, all, back, n * sizeof(float)));
    ZT_EQ_MEM(values, back, n * sizeof(float));
    /* Blocks were put (comp=block) and committed (comp=blocklist). */
    ZT_CHECK(count_requests("azurite", prefix, "comp=blocklist", NULL) >= 1);
    zarr_array_free(array);
    zarr_store_free(store);
    free(values);
    free(back);
}

ZTEST(azure_processes_contending_for_a_chunk_lose_nothing) {
    const char *layouts[3];
    const char *names[3] = {"chunk", "shard", "v2"};
    int i;
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    layouts[0] = CONTENTION_V3;
    layouts[1] = CONTENTION_SHARDED;
    layouts[2] = CONTENTION_V2;
    for (i = 0; i < 3; i++)
        contention_run(fmt("az://zarr-test/%s", unique(fmt("contention-%s", names[i]))),
                       key_options(azure, ""), layouts[i]);
}

/* ---- faults ------------------------------------------------------------------------ */

ZTEST(azure_faults_are_retried) {
    /* Through a proxy that answers 500/503 to 20% of requests and resets 10% of the
     * connections (before forwarding, or halfway through the response body). */
    const char *prefix = unique("faults");
    zarr_store *store = NULL;
    SERVER(faulty, "ZARR_TEST_AZURE_FAULTY");
    SERVER(azure, "ZARR_TEST_AZURE");
    clean_azure_environment();
    ZT_OK(zarr_store_open_url(fmt("az://zarr-faults/%s", prefix),
                              key_options(faulty, "\"max_retries\": 12"), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("az://zarr-faults/%s", prefix), key_options(azure, ""),
                              &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* Faults were injected and retried. */
    ZT_CHECK(count_requests("azure_faulty", prefix, " injected", NULL) > 0);
    ZT_CHECK(count_requests("azure_faulty", prefix, " reset", NULL) > 0);
}

ZTEST(azure_max_retries) {
    const char *prefix = unique("retries");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(faulty, "ZARR_TEST_AZURE_FAULTY");
    clean_azure_environment();
    /* No retry: one request, then HTTP 503 is the error. */
    ZT_OK(zarr_store_open_url(fmt("az://zarr-faults/%s/always503", prefix),
                              key_options(faulty, "\"max_retries\": 0"), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_REMOTE);
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP 503");
    zarr_store_free(store);
    ZT_EQ_U64(count_requests("azure_faulty", prefix, "always503", "injected", NULL), 1);
    /* Two retries: three requests. */
    ZT_OK(zarr_store_open_url(fmt("az://zarr-faults/%s/always503", prefix),
                              key_options(faulty, "\"max_retries\": 2"), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_REMOTE);
    zarr_store_free(store);
    ZT_EQ_U64(count_requests("azure_faulty", prefix, "always503", "injected", NULL), 4);
}

ZTEST(azure_timeout_without_retries) {
    /* A server that accepts connections and never answers: with no retry the open
     * fails with ZARR_ERROR_TIMEOUT after about timeout_ms, never hangs. */
    int port;
    int fd = silent_listener(&port);
    zarr_store *store = NULL;
    double started = now_seconds(), took;
    clean_azure_environment();
    ZT_STATUS(zarr_store_open_url(
                  "az://zarr-test/x",
                  fmt("{\"endpoint\": \"http://127.0.0.1:%d/devstoreaccount1\", \"account_key\": "
                      "\"a2V5\", \"max_retries\": 0, \"timeout_ms\": 400}",
                      port),
                  &store),
              ZARR_ERROR_TIMEOUT);
    took = now_seconds() - started;
    close(fd);
    ZT_CHECK(took < 10.0);
    ZT_CHECK(store == NULL);
}

static const ztest_case ztest_cases[] = {
    ZCASE(azure_roundtrip_shared_key),
    ZCASE(azure_erase_and_listing_of_many_chunks),
    ZCASE(azure_wrong_key_is_denied_at_open),
    ZCASE(azure_anonymous_is_denied_on_a_private_container),
    ZCASE(azure_container_sas),
    ZCASE(azure_connection_string_alone),
    ZCASE(azure_options_that_do_not_apply),
    ZCASE(azure_missing_container),
    ZCASE(azure_read_only),
    ZCASE(azure_large_chunk),
    ZCASE(azure_processes_contending_for_a_chunk_lose_nothing),
    ZCASE(azure_faults_are_retried),
    ZCASE(azure_max_retries),
    ZCASE(azure_timeout_without_retries),
};

ZTEST_MAIN()
