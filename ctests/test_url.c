/* test_url.c -- zarr_store_open_url: every scheme and option, credentials from the
 * options, the environment and profile files, anonymous access and the instance-metadata
 * probe, 403 against 404, timeouts, retries and injected faults, TLS through
 * SSL_CERT_FILE, and request counts.
 *
 * The servers (tests/servers/servers.py: HTTP with and without Range support, HTTPS,
 * moto's S3, s3s-fs which checks signatures, and fault-injecting and counting proxies)
 * run on 127.0.0.1 for the whole ctest run (fixture `url_servers`); their addresses
 * come from the file named by ZARR_TEST_SERVERS_ENV. Every case works under a prefix of
 * its own, so cases may run in parallel and repeatedly against the same servers.
 */
#include "ztest.h"

#include "contention.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- the servers ---------------------------------------------------------------- */

#define MAX_SERVER_VALUES 64
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

/* Options for moto (which accepts any key) at `endpoint`, plus `extra` JSON members. */
static const char *moto_options(const char *endpoint, const char *extra) {
    return fmt("{\"endpoint\": \"%s\", \"access_key_id\": \"test\", \"secret_access_key\": "
               "\"test\", \"region\": \"us-east-1\"%s%s}",
               endpoint, extra[0] ? ", " : "", extra);
}

/* Options for s3s-fs at `endpoint` with its access key and the given secret (NULL: the
 * right one). */
static const char *s3s_options(const char *secret) {
    return fmt("{\"endpoint\": \"%s\", \"access_key_id\": \"%s\", \"secret_access_key\": \"%s\"}",
               server("ZARR_TEST_S3S"), server("ZARR_TEST_S3S_ACCESS_KEY"),
               secret ? secret : server("ZARR_TEST_S3S_SECRET_KEY"));
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

/* A port on 127.0.0.1 where nothing listens (connections are refused). */
static int closed_port(void) {
    int port;
    int fd = silent_listener(&port);
    close(fd);
    return port;
}

/* Whether a connection waits in the listener's backlog. */
static int has_pending_connection(int fd) {
    struct pollfd p;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) > 0;
}

/* Remove every AWS setting from the environment, and point the profile files at files
 * that do not exist, so that only what a case sets counts. */
static void clean_aws_environment(void) {
    const char *names[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                           "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                           "AWS_ENDPOINT_URL_S3", "AWS_PROFILE",
                           "AWS_EC2_METADATA_SERVICE_ENDPOINT"};
    size_t i;
    const char *dir = ztest_tmp_dir();
    for (i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
    setenv("AWS_SHARED_CREDENTIALS_FILE", ztest_path(dir, "no-credentials"), 1);
    setenv("AWS_CONFIG_FILE", ztest_path(dir, "no-config"), 1);
    /* Never probe the real instance-metadata address from a test. */
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
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

/* Write the group /, /a (zstd, 4 x 4 chunks, the last row of chunks unwritten) and /s
 * (sharded), and consolidate. 0 on success; prints the failure otherwise. */
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
    STEP(zarr_group_create(store, "/", "{\"title\": \"url test\"}", &group));
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

/* Write the hierarchy with the file system store into the HTTP servers' root, under a
 * new directory; its name in *name. 0 on success. */
static int publish_hierarchy(const char *case_name, const char **name) {
    const char *root = server("ZARR_TEST_HTTP_ROOT");
    zarr_store *store = NULL;
    int result;
    if (root == NULL) return -1;
    *name = unique(case_name);
    if (zarr_store_open_filesystem(ztest_path(root, *name), &store) != ZARR_OK) return -1;
    result = write_hierarchy(store);
    zarr_store_free(store);
    return result;
}

/* ---- arguments, URLs and options --------------------------------------------------- */

ZTEST(null_arguments) {
    zarr_store *store = (zarr_store *)0x1;
    ZT_STATUS(zarr_store_open_url(NULL, NULL, &store), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'url'");
    ZT_STATUS(zarr_store_open_url("s3://bucket", NULL, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
}

ZTEST(malformed_urls) {
    const char *bad[] = {"",           "s3://",         "s3:///prefix", "s3://bucket?x=1",
                         "s3://b/../c", "s3://bu cket", "http://",      "http://[::1/x",
                         "https://h/x?q=1", "file://otherhost/x", "://x", "1x://y"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_store *store = (zarr_store *)0x1;
        ZT_STATUS(zarr_store_open_url(bad[i], NULL, &store), ZARR_ERROR_INVALID_ARGUMENT);
        ZT_CHECK(store == NULL);
        if (bad[i][0]) ZT_STR_CONTAINS(zarr_last_error_message(), "malformed URL");
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_url: ");
}

ZTEST(unsupported_schemes) {
    zarr_store *store = NULL;
    ZT_STATUS(zarr_store_open_url("adl://store/data.zarr", NULL, &store), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "scheme 'adl'");
    ZT_STATUS(zarr_store_open_url("ftp://host/data.zarr", NULL, &store), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "scheme 'ftp'");
    ZT_STR_CONTAINS(zarr_last_error_message(), "gs://, az://");
    ZT_CHECK(store == NULL);
}

/* Options of one object store do not apply to another; malformed gs:// and az:// URLs.
 * (No request is sent: every case fails before the store is made.) */
ZTEST(cloud_option_and_url_errors) {
    static const struct {
        const char *url, *options, *message;
    } cases[] = {
        {"gs://bucket/x", "{\"region\": \"eu\"}", "option 'region' does not apply to gs:// URLs"},
        {"gs://bucket/x", "{\"account_key\": \"k\"}", "option 'account_key' does not apply to gs://"},
        {"gs://bucket/x", "{\"token\": \"t\", \"service_account_path\": \"/k.json\"}",
         "'service_account_path' and 'token' contradict"},
        {"gs://bucket/x", "{\"anonymous\": true, \"token\": \"t\"}", "contradict"},
        {"gs://bucket/x", "{\"endpoint\": \"ftp://h\"}", "option 'endpoint' 'ftp://h' is not an http"},
        {"gs://bucket/x", "{\"service_account_path\": \"/nonexistent/key.json\"}",
         "cannot read the credentials file '/nonexistent/key.json'"},
        {"az://container/x", "{\"token\": \"t\"}", "option 'token' does not apply to az:// and abfs://"},
        {"abfs://container/x", "{\"profile\": \"p\"}", "option 'profile' does not apply to az://"},
        {"az://container/x", "{\"account_key\": \"k\", \"sas_token\": \"s\"}",
         "'account_key' and 'sas_token' contradict"},
        {"http://127.0.0.1:1/x", "{\"sas_token\": \"s\"}", "'sas_token' does not apply to http(s)://"},
        {"gs://", NULL, "expected gs://bucket[/prefix]"},
        {"gs://b/../x", NULL, "bad key prefix"},
        {"az://c?sv=1", NULL, "take no query"},
        {"abfs://c@/x", NULL, "container@account"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zarr_store *store = (zarr_store *)0x1;
        ZT_STATUS(zarr_store_open_url(cases[i].url, cases[i].options, &store),
                  ZARR_ERROR_INVALID_ARGUMENT);
        ZT_CHECK(store == NULL);
        ZT_STR_CONTAINS(zarr_last_error_message(), cases[i].message);
    }
}

ZTEST(unknown_option) {
    zarr_store *store = NULL;
    ZT_STATUS(zarr_store_open_url("s3://bucket", "{\"regoin\": \"x\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "unknown option 'regoin'");
    ZT_STATUS(zarr_store_open_url("/tmp", "{\"verbose\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'verbose'");
    ZT_CHECK(store == NULL);
}

ZTEST(option_types) {
    /* Every key with a value of the wrong JSON type, or out of range. */
    const char *cases[][2] = {
        {"{\"endpoint\": 5}", "'endpoint' must be a string"},
        {"{\"region\": true}", "'region' must be a string"},
        {"{\"anonymous\": \"yes\"}", "'anonymous' must be true or false"},
        {"{\"access_key_id\": 1, \"secret_access_key\": \"s\"}", "'access_key_id' must be a"},
        {"{\"access_key_id\": \"a\", \"secret_access_key\": []}", "'secret_access_key' must"},
        {"{\"access_key_id\": \"a\", \"secret_access_key\": \"s\", \"session_token\": {}}",
         "'session_token' must be a string"},
        {"{\"profile\": null}", "'profile' must be a string, not null"},
        {"{\"force_path_style\": 1}", "'force_path_style' must be true or false"},
        {"{\"max_concurrency\": \"8\"}", "'max_concurrency' must be an integer"},
        {"{\"max_concurrency\": 0}", "'max_concurrency' must be an integer from 1 to 1024"},
        {"{\"max_concurrency\": 1e9}", "'max_concurrency' must be"},
        {"{\"timeout_ms\": -5}", "'timeout_ms' must be an integer"},
        {"{\"timeout_ms\": 1.5}", "'timeout_ms' must be"},
        {"{\"max_retries\": 101}", "'max_retries' must be an integer from 0 to 100"},
        {"{\"read_only\": \"true\"}", "'read_only' must be true or false"},
        {"{\"access_key_id\": \"a\"}", "'access_key_id' and 'secret_access_key'"},
        {"{\"session_token\": \"t\"}", "'session_token' needs"},
        {"{\"anonymous\": true, \"access_key_id\": \"a\", \"secret_access_key\": \"s\"}",
         "contradict"},
        {"[]", "must be a JSON object"},
        {"{\"region\": ", "not valid JSON"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zarr_store *store = (zarr_store *)0x1;
        ZT_STATUS(zarr_store_open_url("s3://bucket/p", cases[i][0], &store),
                  ZARR_ERROR_INVALID_ARGUMENT);
        ZT_STR_CONTAINS(zarr_last_error_message(), cases[i][1]);
        ZT_CHECK(store == NULL);
    }
}

ZTEST(options_not_for_scheme) {
    zarr_store *store = NULL;
    ZT_STATUS(zarr_store_open_url("http://127.0.0.1:9/x", "{\"region\": \"eu\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "option 'region' does not apply to http(s)://");
    ZT_STATUS(zarr_store_open_url("https://127.0.0.1:9/x", "{\"anonymous\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'anonymous' does not apply");
    ZT_STATUS(zarr_store_open_url("http://127.0.0.1:9/x", "{\"read_only\": false}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP stores are read-only");
    ZT_STATUS(zarr_store_open_url(ztest_tmp_dir(), "{\"timeout_ms\": 10}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "does not apply to local paths");
    ZT_STATUS(zarr_store_open_url("file:///tmp", "{\"endpoint\": \"http://x\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(store == NULL);
}

ZTEST(malformed_endpoint) {
    zarr_store *store = NULL;
    clean_aws_environment();
    ZT_STATUS(zarr_store_open_url("s3://bucket", "{\"endpoint\": \"localhost:9000\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'localhost:9000' is not an http");
    setenv("AWS_ENDPOINT_URL", "ftp://127.0.0.1", 1);
    ZT_STATUS(zarr_store_open_url("s3://bucket", NULL, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "ftp://127.0.0.1");
    ZT_CHECK(store == NULL);
}

ZTEST(new_status_codes) {
    ZT_EQ_U64(ZARR_ERROR_NETWORK, (uint64_t)(int64_t)-20);
    ZT_EQ_U64(ZARR_ERROR_ACCESS_DENIED, (uint64_t)(int64_t)-21);
    ZT_EQ_U64(ZARR_ERROR_TIMEOUT, (uint64_t)(int64_t)-22);
    ZT_EQ_U64(ZARR_ERROR_REMOTE, (uint64_t)(int64_t)-23);
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_NETWORK), "network failure");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_ACCESS_DENIED), "access denied");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_TIMEOUT), "timed out");
    ZT_STR_CONTAINS(zarr_status_str(ZARR_ERROR_REMOTE), "HTTP error");
    ZT_STR_CONTAINS(zarr_status_str(-26), "unknown status");
}

/* ---- local paths ------------------------------------------------------------------- */

ZTEST(file_path_and_url) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    ZT_OK(zarr_store_open_url(ztest_path(dir, "plain.zarr"), "{\"create\": true}", &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("file://%s", ztest_path(dir, "plain.zarr")), NULL, &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* A file URL percent-decodes its path. */
    ZT_OK(zarr_store_open_url(fmt("file://%s", ztest_path(dir, "with%20space.zarr")),
                              "{\"read_only\": false, \"create\": true}", &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_CHECK(ztest_is_file(ztest_path(dir, "with space.zarr/zarr.json")));
    /* read_only refuses writes and still reads. */
    ZT_OK(zarr_store_open_url(ztest_path(dir, "plain.zarr"), "{\"read_only\": true}", &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_STATUS(zarr_array_create(store, "/b", A_METADATA, &array), ZARR_ERROR_READ_ONLY);
    zarr_store_free(store);
    /* A path that is a file. */
    ZT_STATUS(zarr_store_open_url(ztest_path(dir, "plain.zarr/zarr.json"), NULL, &store),
              ZARR_ERROR_IO);
}

/* A local directory must exist unless "create" is true; every "not found" on the way
 * names the directory and where it looked. */
ZTEST(file_directory_must_exist) {
    const char *dir = ztest_tmp_dir();
    const char *missing = ztest_path(dir, "no/such.zarr");
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    ZT_STATUS(zarr_store_open_url(missing, NULL, &store), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("the directory '%s' does not exist", missing));
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("nor does '%s'", ztest_path(dir, "no")));
    ZT_STR_CONTAINS(zarr_last_error_message(), "the option \"create\": true creates it");
    ZT_CHECK(!ztest_exists(ztest_path(dir, "no")));
    ZT_STATUS(zarr_store_open_url(fmt("file://%s", missing), NULL, &store), ZARR_ERROR_NOT_FOUND);
    /* Read-only: nothing to offer. */
    ZT_STATUS(zarr_store_open_url(missing, "{\"read_only\": true}", &store), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "a read-only store cannot create it");
    ZT_STATUS(zarr_store_open_url(missing, "{\"create\": true, \"read_only\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "contradict");
    ZT_STATUS(zarr_store_open_url(missing, "{\"create\": 1}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'create' must be true or false");
    ZT_STATUS(zarr_store_open_url("http://127.0.0.1:9/x", "{\"create\": true}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'create' does not apply to http(s)://");
    /* "create" makes it, parents included; on an existing directory it changes nothing. */
    ZT_OK(zarr_store_open_url(missing, "{\"create\": true}", &store));
    ZT_CHECK(ztest_is_dir(missing));
    /* An empty directory has no root node: the message says where it looked. */
    ZT_STATUS(zarr_group_open(store, "/", &group), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no node at '/' in the directory '%s': no zarr.json, .zarray or .zgroup "
                        "in '%s/'", missing, missing));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(missing, "{\"create\": true}", &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("file://%s", missing), "{\"read_only\": true}", &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
}

/* zarr_store_open_filesystem still takes a directory that the first write makes; a
 * read before that says the directory does not exist, and where. */
ZTEST(file_not_found_messages) {
    const char *dir = ztest_tmp_dir();
    const char *missing = ztest_path(dir, "later.zarr");
    zarr_store *store = NULL, *view = NULL;
    zarr_group *group = NULL;
    zarr_array *array = NULL;
    uint8_t bytes[64];
    size_t size = 0;
    ZT_OK(zarr_store_open_filesystem(missing, &store));
    ZT_STATUS(zarr_group_open(store, "/", &group), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("zarr_group_open: no node at '/' in the directory '%s'", missing));
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("(the directory '%s' does not exist)", missing));
    ZT_STATUS(zarr_store_get(store, "x/zarr.json", bytes, sizeof bytes, &size), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no value at key 'x/zarr.json' in the directory '%s'", missing));
    /* No consolidated metadata: nothing there at all. */
    ZT_STATUS(zarr_store_open_consolidated(store, &view), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no consolidated metadata in the directory '%s': neither a root zarr.json "
                        "with consolidated_metadata nor .zmetadata (the directory '%s' does not "
                        "exist)", missing, missing));
    ZT_CHECK(write_hierarchy(store) == 0);
    /* A path below an array, and below a file. */
    ZT_STATUS(zarr_array_open(store, "/nothing/here", &array), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no node at '/nothing/here' in the directory '%s': no zarr.json, .zarray "
                        "or .zgroup in '%s/nothing/here/' (the directory '%s/nothing' does not "
                        "exist)", missing, missing, missing));
    ZT_CHECK(ztest_write_file(ztest_path(missing, "blob"), "x", 1) == 0);
    ZT_STATUS(zarr_group_open(store, "/blob/g", &group), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("('%s/blob' is not a directory)", missing));
    /* Consolidated metadata (write_hierarchy consolidates): a node it does not list. */
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_STATUS(zarr_array_open(view, "/nothing", &array), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no node at '/nothing' in the directory '%s' (through its consolidated "
                        "metadata): no zarr.json, .zarray or .zgroup in '%s/nothing/' (the "
                        "consolidated metadata lists no such document)", missing, missing));
    zarr_store_free(view);
    zarr_store_free(store);
}

/* ---- HTTP -------------------------------------------------------------------------- */

/* A wrong path on a web server: the message names the URL and the server's 404. */
ZTEST(http_not_found_names_the_url) {
    const char *name;
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    uint8_t bytes[64];
    size_t size = 0;
    SERVER(http, "ZARR_TEST_HTTP");
    ZT_CHECK(publish_hierarchy("http_404", &name) == 0);
    ZT_OK(zarr_store_open_url(fmt("%s/%s-typo", http, name), NULL, &store));
    ZT_STATUS(zarr_group_open(store, "/", &group), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no node at '/' in %s/%s-typo/: no zarr.json, .zarray or .zgroup in "
                        "'%s/%s-typo/' (the server answered HTTP 404 Not Found)",
                        http, name, http, name));
    ZT_STATUS(zarr_store_get(store, "a/zarr.json", bytes, sizeof bytes, &size), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no value at key 'a/zarr.json' in %s/%s-typo/ (the server answered HTTP "
                        "404 Not Found)", http, name));
    zarr_store_free(store);
}

ZTEST(http_reads) {
    const char *name;
    zarr_store *store = NULL, *view = NULL;
    SERVER(http, "ZARR_TEST_HTTP");
    ZT_CHECK(publish_hierarchy("http_reads", &name) == 0);
    ZT_OK(zarr_store_open_url(fmt("%s/%s", http, name), NULL, &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_CHECK(check_hierarchy(view) == 0);
    zarr_store_free(view);
    zarr_store_free(store);
    /* Every option that applies to HTTP. */
    ZT_OK(zarr_store_open_url(fmt("%s/%s/", http, name),
                              "{\"max_concurrency\": 3, \"timeout_ms\": 5000, "
                              "\"max_retries\": 1, \"read_only\": true}",
                              &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
}

ZTEST(http_server_without_range) {
    /* The server ignores Range and sends whole files with 200: the bytes are still right,
     * including the sharded array's index (a suffix range) and inner chunks. */
    const char *name;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int32_t one = 0;
    uint64_t at[2] = {9, 13}, count[2] = {1, 1};
    SERVER(http, "ZARR_TEST_HTTP_NORANGE");
    ZT_CHECK(publish_hierarchy("http_norange", &name) == 0);
    ZT_OK(zarr_store_open_url(fmt("%s/%s", http, name), NULL, &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_OK(zarr_array_open(store, "/s", &array));
    ZT_OK(zarr_array_read(array, 2, at, count, &one, sizeof one));
    ZT_EQ_U64(one, s_value(9, 13));
    zarr_array_free(array);
    zarr_store_free(store);
    ZT_CHECK(count_requests("http_norange", name, " 200 ", NULL) > 0);
    ZT_EQ_U64(count_requests("http_norange", name, " 206 ", NULL), 0);
}

ZTEST(http_read_only) {
    const char *name;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    SERVER(http, "ZARR_TEST_HTTP");
    ZT_CHECK(publish_hierarchy("http_read_only", &name) == 0);
    ZT_OK(zarr_store_open_url(fmt("%s/%s", http, name), NULL, &store));
    ZT_STATUS(zarr_array_create(store, "/new", A_METADATA, &array), ZARR_ERROR_READ_ONLY);
    ZT_OK(zarr_group_open(store, "/", &group));
    ZT_STATUS(zarr_group_set_attributes_json(group, "{\"x\": 1}"), ZARR_ERROR_READ_ONLY);
    zarr_group_free(group);
    zarr_store_free(store);
}

ZTEST(http_listing_unsupported) {
    const char *name;
    zarr_store *store = NULL, *view = NULL;
    zarr_group *group = NULL;
    char *json = NULL;
    SERVER(http, "ZARR_TEST_HTTP");
    ZT_CHECK(publish_hierarchy("http_listing", &name) == 0);
    ZT_OK(zarr_store_open_url(fmt("%s/%s", http, name), NULL, &store));
    ZT_OK(zarr_group_open(store, "/", &group));
    ZT_STATUS(zarr_group_children_json(group, &json), ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(json == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "no listing");
    ZT_STR_CONTAINS(zarr_last_error_message(), "consolidated metadata");
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_consolidated");
    zarr_group_free(group);
    /* Known paths open without listing; the consolidated view lists. */
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_CHECK(check_hierarchy(view) == 0);
    zarr_store_free(view);
    zarr_store_free(store);
}

ZTEST(http_403_and_404) {
    const char *name;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(http, "ZARR_TEST_HTTP");
    ZT_CHECK(publish_hierarchy("http_403", &name) == 0);
    ZT_OK(zarr_store_open_url(fmt("%s/%s", http, name), NULL, &store));
    ZT_STATUS(zarr_array_open(store, "/missing", &array), ZARR_ERROR_NOT_FOUND);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("%s/%s/forbidden", http, name), NULL, &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP 403 Forbidden: access denied");
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("GET %s/%s/forbidden/", http, name));
    ZT_CHECK(array == NULL);
    zarr_store_free(store);
}

ZTEST(http_connection_refused) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    double start;
    const char *url = fmt("http://127.0.0.1:%d/data.zarr", closed_port());
    ZT_OK(zarr_store_open_url(url, NULL, &store));
    start = now_seconds();
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_NETWORK);
    ZT_CHECK(now_seconds() - start < 2.0);
    ZT_STR_CONTAINS(zarr_last_error_message(), "connection refused");
    ZT_STR_CONTAINS(zarr_last_error_message(), url);
    zarr_store_free(store);
}

ZTEST(http_timeout) {
    /* A server that accepts connections and never answers: each attempt gives up after
     * timeout_ms, and the call after its retries. */
    int port, fd = silent_listener(&port);
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    double start, elapsed;
    ZT_OK(zarr_store_open_url(fmt("http://127.0.0.1:%d/slow.zarr", port),
                              "{\"timeout_ms\": 300, \"max_retries\": 1}", &store));
    start = now_seconds();
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_TIMEOUT);
    elapsed = now_seconds() - start;
    ZT_CHECK(elapsed >= 0.5 && elapsed < 10.0); /* gave up: 2 x 300 ms, not waited forever */
    ZT_STR_CONTAINS(zarr_last_error_message(), "timed out");
    ZT_STR_CONTAINS(zarr_last_error_message(), "after 2 attempts");
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("127.0.0.1:%d/slow.zarr/", port));
    zarr_store_free(store);
    close(fd);
}

ZTEST(https_trusts_ssl_cert_file) {
    const char *name;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_status status;
    SERVER(https, "ZARR_TEST_HTTPS");
    SERVER(ca, "ZARR_TEST_CA_FILE");
    ZT_CHECK(publish_hierarchy("https", &name) == 0);
    /* The system store does not trust the test CA. */
    unsetenv("SSL_CERT_FILE");
    unsetenv("SSL_CERT_DIR");
    status = zarr_store_open_url(fmt("%s/%s", https, name), NULL, &store);
    if (status == ZARR_OK) {
        ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_NETWORK);
        ZT_STR_CONTAINS(zarr_last_error_message(), "certificate");
        zarr_store_free(store);
        store = NULL;
    } else {
        ZT_STATUS(status, ZARR_ERROR_NETWORK);
    }
    /* SSL_CERT_FILE names the certificates to trust. */
    setenv("SSL_CERT_FILE", ca, 1);
    ZT_OK(zarr_store_open_url(fmt("%s/%s", https, name), NULL, &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
}

/* ---- S3 ---------------------------------------------------------------------------- */

ZTEST(s3_roundtrip_moto) {
    const char *prefix = unique("roundtrip");
    const char *url;
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    char *json = NULL;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    url = fmt("s3://zarr-test/%s/data.zarr", prefix);
    ZT_OK(zarr_store_open_url(url, moto_options(moto, "\"max_concurrency\": 8"), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    /* Listing (ListObjectsV2 with a delimiter). */
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
    /* Another store reads it back. */
    ZT_OK(zarr_store_open_url(url, moto_options(moto, ""), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* Unsigned requests for private objects are denied. */
    ZT_OK(zarr_store_open_url(url, fmt("{\"endpoint\": \"%s\", \"anonymous\": true}", moto),
                              &store));
    {
        zarr_array *array = NULL;
        ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
        ZT_STR_CONTAINS(zarr_last_error_message(), "credentials from none (unsigned requests)");
    }
    zarr_store_free(store);
}

ZTEST(s3_every_option) {
    const char *prefix = unique("options");
    zarr_store *store = NULL;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(
        fmt("s3://zarr-test/%s", prefix),
        fmt("{\"endpoint\": \"%s\", \"region\": \"eu-west-1\", \"anonymous\": false, "
            "\"access_key_id\": \"AK\", \"secret_access_key\": \"SK\", \"session_token\": \"T\", "
            "\"force_path_style\": true, \"max_concurrency\": 2, \"timeout_ms\": 10000, "
            "\"max_retries\": 3, \"read_only\": false}",
            moto),
        &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
}

ZTEST(s3_read_only) {
    const char *prefix = unique("readonly");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), moto_options(moto, ""),
                              &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix),
                              moto_options(moto, "\"read_only\": true"), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    ZT_STATUS(zarr_array_create(store, "/b", A_METADATA, &array), ZARR_ERROR_READ_ONLY);
    zarr_store_free(store);
}

ZTEST(s3_signatures_checked) {
    /* s3s-fs verifies SigV4: the right secret works, a wrong one is denied (403). */
    const char *prefix = unique("signed");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(s3s, "ZARR_TEST_S3S");
    SERVER(key, "ZARR_TEST_S3S_ACCESS_KEY");
    SERVER(secret, "ZARR_TEST_S3S_SECRET_KEY");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(
        fmt("s3://zarr-test/%s", prefix),
        s3s_options(NULL),
        &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(
        fmt("s3://zarr-test/%s", prefix),
        s3s_options("wrong"),
        &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP 403 Forbidden: access denied");
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("%s/zarr-test/%s/", s3s, prefix));
    ZT_STR_CONTAINS(zarr_last_error_message(), "credentials from the options");
    ZT_STATUS(zarr_array_create(store, "/b", A_METADATA, &array), ZARR_ERROR_ACCESS_DENIED);
    zarr_store_free(store);
    /* Anonymous requests are denied too. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix),
                              fmt("{\"endpoint\": \"%s\", \"anonymous\": true}", s3s), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "credentials from none");
    zarr_store_free(store);
}

ZTEST(s3_403_and_404) {
    const char *prefix = unique("notfound");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(s3s, "ZARR_TEST_S3S");
    SERVER(key, "ZARR_TEST_S3S_ACCESS_KEY");
    SERVER(secret, "ZARR_TEST_S3S_SECRET_KEY");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(
        fmt("s3://zarr-test/%s", prefix),
        s3s_options(NULL),
        &store));
    ZT_STATUS(zarr_array_open(store, "/missing", &array), ZARR_ERROR_NOT_FOUND);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(
        fmt("s3://zarr-test/%s", prefix),
        fmt("{\"endpoint\": \"%s\", \"access_key_id\": \"nobody\", \"secret_access_key\": \"%s\"}",
            s3s, secret),
        &store));
    ZT_STATUS(zarr_array_open(store, "/missing", &array), ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "403");
    zarr_store_free(store);
}

ZTEST(s3_credentials_from_environment) {
    const char *prefix = unique("envcreds");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(s3s, "ZARR_TEST_S3S");
    SERVER(key, "ZARR_TEST_S3S_ACCESS_KEY");
    SERVER(secret, "ZARR_TEST_S3S_SECRET_KEY");
    clean_aws_environment();
    setenv("AWS_ACCESS_KEY_ID", key, 1);
    setenv("AWS_SECRET_ACCESS_KEY", secret, 1);
    setenv("AWS_ENDPOINT_URL_S3", s3s, 1);
    setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1", 1); /* the S3-specific one wins */
    setenv("AWS_DEFAULT_REGION", "us-east-1", 1);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), NULL, &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* Options come first: a wrong secret in the options beats the right one in the
     * environment. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix),
                              "{\"access_key_id\": \"x\", \"secret_access_key\": \"y\"}", &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
    zarr_store_free(store);
    /* A wrong secret in the environment is denied. */
    setenv("AWS_SECRET_ACCESS_KEY", "wrong", 1);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), NULL, &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "credentials from the environment");
    zarr_store_free(store);
}

ZTEST(s3_credentials_from_profile) {
    const char *prefix = unique("profile");
    const char *dir = ztest_tmp_dir();
    const char *credentials = ztest_path(dir, "credentials");
    const char *config = ztest_path(dir, "config");
    char credentials_path[4096], config_path[4096];
    FILE *f;
    zarr_store *store = NULL;
    SERVER(s3s, "ZARR_TEST_S3S");
    SERVER(key, "ZARR_TEST_S3S_ACCESS_KEY");
    SERVER(secret, "ZARR_TEST_S3S_SECRET_KEY");
    clean_aws_environment();
    snprintf(credentials_path, sizeof credentials_path, "%s", credentials);
    snprintf(config_path, sizeof config_path, "%s", config);
    f = fopen(credentials_path, "w");
    ZT_CHECK(f != NULL);
    fprintf(f, "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n"
               "[zarrtest]\naws_access_key_id = %s\naws_secret_access_key = %s\n",
            key, secret);
    fclose(f);
    f = fopen(config_path, "w");
    ZT_CHECK(f != NULL);
    fprintf(f, "[default]\nregion = us-east-1\n[profile zarrtest]\nregion = us-east-1\n"
               "s3 =\n  endpoint_url = %s\n",
            s3s);
    fclose(f);
    setenv("AWS_SHARED_CREDENTIALS_FILE", credentials_path, 1);
    setenv("AWS_CONFIG_FILE", config_path, 1);
    /* The profile option: its keys, and its endpoint from the config file. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), "{\"profile\": \"zarrtest\"}",
                              &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    /* AWS_PROFILE names it too. */
    setenv("AWS_PROFILE", "zarrtest", 1);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), NULL, &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* A profile that is not there. */
    ZT_STATUS(zarr_store_open_url("s3://zarr-test/x", "{\"profile\": \"nope\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "profile 'nope'");
    ZT_STR_CONTAINS(zarr_last_error_message(), credentials_path);
    setenv("AWS_PROFILE", "nope", 1);
    ZT_STATUS(zarr_store_open_url("s3://zarr-test/x", NULL, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "AWS_PROFILE");
    ZT_CHECK(store == NULL);
}

ZTEST(s3_anonymous_makes_no_probe) {
    /* With nothing else giving credentials, the instance-metadata service is probed,
     * unless anonymous is set. The "service" here is a listener that never answers. */
    int port, fd = silent_listener(&port);
    zarr_store *store = NULL;
    double start, elapsed;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    unsetenv("AWS_EC2_METADATA_DISABLED");
    setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", fmt("http://127.0.0.1:%d", port), 1);
    ZT_OK(zarr_store_open_url("s3://zarr-test/x",
                              fmt("{\"endpoint\": \"%s\", \"anonymous\": true}", moto), &store));
    zarr_store_free(store);
    ZT_CHECK(!has_pending_connection(fd));
    /* Credentials from the options: no probe either. */
    ZT_OK(zarr_store_open_url("s3://zarr-test/x", moto_options(moto, ""), &store));
    zarr_store_free(store);
    ZT_CHECK(!has_pending_connection(fd));
    /* Nothing: the probe connects, gets no answer, and gives up within its 1 s. */
    start = now_seconds();
    ZT_OK(zarr_store_open_url("s3://zarr-test/x", fmt("{\"endpoint\": \"%s\"}", moto), &store));
    elapsed = now_seconds() - start;
    zarr_store_free(store);
    ZT_CHECK(has_pending_connection(fd));
    ZT_CHECK(elapsed >= 0.8 && elapsed < 10.0); /* waited for the probe, then gave up */
    /* The failure is remembered: the next store does not wait again. */
    start = now_seconds();
    ZT_OK(zarr_store_open_url("s3://zarr-test/x", fmt("{\"endpoint\": \"%s\"}", moto), &store));
    ZT_CHECK(now_seconds() - start < 0.5);
    zarr_store_free(store);
    close(fd);
}

ZTEST(s3_probe_of_unreachable_address) {
    /* A refused connection ends the probe at once; AWS_EC2_METADATA_DISABLED skips it. */
    zarr_store *store = NULL;
    double start;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    unsetenv("AWS_EC2_METADATA_DISABLED");
    setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", fmt("http://127.0.0.1:%d", closed_port()), 1);
    start = now_seconds();
    ZT_OK(zarr_store_open_url("s3://zarr-test/x", fmt("{\"endpoint\": \"%s\"}", moto), &store));
    ZT_CHECK(now_seconds() - start < 1.0);
    zarr_store_free(store);
}

/* A bucket must exist unless "create" is true: the open fails with what the service
 * said, naming bucket and endpoint. */
ZTEST(s3_bucket_must_exist) {
    const char *bucket = unique("nobucket");
    char url[512]; /* fmt's buffers rotate: this one is used throughout */
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    snprintf(url, sizeof url, "s3://%s/data.zarr", bucket);
    ZT_STATUS(zarr_store_open_url(url, moto_options(moto, ""), &store), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), fmt("cannot open '%s': no bucket '%s' at %s", url,
                                                   bucket, moto));
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP 404: NoSuchBucket");
    ZT_STR_CONTAINS(zarr_last_error_message(), "the option \"create\": true creates it");
    ZT_STATUS(zarr_store_open_url(url, moto_options(moto, "\"read_only\": true"), &store),
              ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "a read-only store cannot create it");
    /* An anonymous store cannot create one. */
    ZT_STATUS(zarr_store_open_url(url, fmt("{\"endpoint\": \"%s\", \"anonymous\": true, "
                                           "\"create\": true}", moto), &store),
              ZARR_ERROR_ACCESS_DENIED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "creating a bucket needs credentials");
    /* "create" makes it; then it opens without, and "create" again is fine. */
    ZT_OK(zarr_store_open_url(url, moto_options(moto, "\"create\": true"), &store));
    ZT_STATUS(zarr_group_open(store, "/", &group), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(),
                    fmt("no node at '/' in s3://%s/data.zarr/ at %s", bucket, moto));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, moto_options(moto, ""), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, moto_options(moto, "\"create\": true"), &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* An endpoint where nothing listens fails the open. */
    ZT_STATUS(zarr_store_open_url(url, fmt("{\"endpoint\": \"http://127.0.0.1:%d\", "
                                           "\"anonymous\": true, \"max_retries\": 0}",
                                           closed_port()), &store),
              ZARR_ERROR_NETWORK);
    ZT_STR_CONTAINS(zarr_last_error_message(), "connection refused");
}

/* One 20 MiB float32 chunk: its writes are multipart uploads. */
static const char *const BIG_CHUNK_METADATA =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5242880], \"data_type\": "
    "\"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
    "{\"chunk_shape\": [5242880]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
    "\"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
    "{\"endian\": \"little\"}}]}";

ZTEST(s3_multipart_upload) {
    /* A 20 MiB chunk goes up in parts (on s3s-fs, which checks every part's signature). */
    const char *prefix = unique("multipart");
    size_t n = 5242880, i;
    float *values = (float *)malloc(n * sizeof(float));
    float *back = (float *)malloc(n * sizeof(float));
    uint64_t chunk[1] = {0};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(s3s, "ZARR_TEST_S3S");
    SERVER(key, "ZARR_TEST_S3S_ACCESS_KEY");
    SERVER(secret, "ZARR_TEST_S3S_SECRET_KEY");
    clean_aws_environment();
    for (i = 0; i < n; i++) values[i] = (float)i * 0.5f;
    ZT_OK(zarr_store_open_url(
        fmt("s3://zarr-test/%s", prefix),
        s3s_options(NULL),
        &store));
    ZT_OK(zarr_array_create(store, "/big", BIG_CHUNK_METADATA, &array));
    ZT_OK(zarr_array_write_chunk(array, 1, chunk, values, n * sizeof(float)));
    memset(back, 0, n * sizeof(float));
    ZT_OK(zarr_array_read_chunk(array, 1, chunk, back, n * sizeof(float)));
    ZT_EQ_MEM(values, back, n * sizeof(float));
    zarr_array_free(array);
    zarr_store_free(store);
    free(values);
    free(back);
}

/* ---- faults ------------------------------------------------------------------------ */

ZTEST(s3_faults_are_retried) {
    /* Through a proxy that answers 500/503 to 20% of requests and resets 10% of the
     * connections (before forwarding, or halfway through the response body). */
    const char *prefix = unique("faults");
    zarr_store *store = NULL;
    SERVER(faulty, "ZARR_TEST_FAULTY_S3");
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s", prefix),
                              moto_options(faulty, "\"max_retries\": 12"), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s", prefix), moto_options(moto, ""),
                              &store));
    ZT_CHECK(check_hierarchy(store) == 0);
    zarr_store_free(store);
    /* Faults were injected and retried. */
    ZT_CHECK(count_requests("faulty", prefix, " injected", NULL) > 0);
    ZT_CHECK(count_requests("faulty", prefix, " reset", NULL) > 0);
}

ZTEST(s3_max_retries) {
    const char *prefix = unique("retries");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(faulty, "ZARR_TEST_FAULTY_S3");
    clean_aws_environment();
    /* No retry: one request, then HTTP 503 is the error. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s/always503", prefix),
                              moto_options(faulty, "\"max_retries\": 0"), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_REMOTE);
    ZT_STR_CONTAINS(zarr_last_error_message(), "HTTP 503");
    ZT_STR_CONTAINS(zarr_last_error_message(), "SlowDown");
    zarr_store_free(store);
    ZT_EQ_U64(count_requests("faulty", prefix, "always503", NULL), 1);
    /* Two retries: three requests. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s/always503", prefix),
                              moto_options(faulty, "\"max_retries\": 2"), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_REMOTE);
    ZT_STR_CONTAINS(zarr_last_error_message(), "after 3 attempts");
    zarr_store_free(store);
    ZT_EQ_U64(count_requests("faulty", prefix, "always503", NULL), 4);
}

ZTEST(s3_interrupted_put_leaves_nothing) {
    /* Every PUT under reset-put/ is cut off halfway through its body: the write fails
     * and no object appears. */
    const char *prefix = unique("interrupted");
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(faulty, "ZARR_TEST_FAULTY_S3");
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s/reset-put", prefix),
                              moto_options(faulty, "\"max_retries\": 1"), &store));
    ZT_STATUS(zarr_array_create(store, "/a", A_METADATA, &array), ZARR_ERROR_NETWORK);
    ZT_STR_CONTAINS(zarr_last_error_message(), "PUT ");
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s/reset-put", prefix),
                              moto_options(moto, ""), &store));
    ZT_STATUS(zarr_array_open(store, "/a", &array), ZARR_ERROR_NOT_FOUND);
    zarr_store_free(store);
}

ZTEST(s3_interrupted_multipart_is_aborted) {
    /* Part 2 of every multipart upload under reset-part2/ is cut off: the upload is
     * aborted and the chunk stays absent (it reads as the fill value). */
    const char *prefix = unique("aborted");
    const char *metadata =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5242880], \"data_type\": "
        "\"float32\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
        "{\"chunk_shape\": [5242880]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
        "\"fill_value\": 7, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
        "{\"endian\": \"little\"}}]}";
    size_t n = 5242880, i;
    float *values = (float *)malloc(n * sizeof(float));
    uint64_t chunk[1] = {0}, start[1] = {12345}, one[1] = {1};
    float back = 0;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(faulty, "ZARR_TEST_FAULTY_S3");
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    for (i = 0; i < n; i++) values[i] = 1.0f;
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s/reset-part2", prefix),
                              moto_options(faulty, "\"max_retries\": 12"), &store));
    ZT_OK(zarr_array_create(store, "/big", metadata, &array));
    ZT_STATUS(zarr_array_write_chunk(array, 1, chunk, values, n * sizeof(float)),
              ZARR_ERROR_NETWORK);
    zarr_array_free(array);
    zarr_store_free(store);
    free(values);
    ZT_CHECK(count_requests("faulty", prefix, "DELETE ", "uploadId=", " 204 ", NULL) >= 1);
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-faults/%s/reset-part2", prefix),
                              moto_options(moto, ""), &store));
    ZT_OK(zarr_array_open(store, "/big", &array));
    ZT_OK(zarr_array_read(array, 1, start, one, &back, sizeof back));
    ZT_CHECK(back == 7.0f);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* ---- request counts ---------------------------------------------------------------- */

/* Open the consolidated hierarchy at `url`, open /s, and read one element: the number of
 * requests each step costs is checked against `log`. */
static void check_counts(const char *url, const char *options, const char *log,
                         const char *name) {
    zarr_store *store = NULL, *view = NULL;
    zarr_array *array = NULL;
    int32_t one = 0;
    uint64_t at[2] = {13, 2}, count[2] = {1, 1};
    ZT_OK(zarr_store_open_url(url, options, &store));
    ZT_EQ_U64(count_requests(log, name, NULL), 0);
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_EQ_U64(count_requests(log, name, NULL), 1); /* GET zarr.json */
    ZT_EQ_U64(count_requests(log, name, "GET ", "/zarr.json", NULL), 1);
    ZT_OK(zarr_array_open(view, "/s", &array));
    ZT_EQ_U64(count_requests(log, name, NULL), 1); /* opening costs nothing more */
    ZT_OK(zarr_array_read(array, 2, at, count, &one, sizeof one));
    ZT_EQ_U64(one, s_value(13, 2));
    /* The shard index (a suffix range) and one inner chunk (one range). */
    ZT_EQ_U64(count_requests(log, name, NULL), 3);
    ZT_EQ_U64(count_requests(log, name, "GET ", "/s/c/1/0", NULL), 2);
    zarr_array_free(array);
    zarr_store_free(view);
    zarr_store_free(store);
}

ZTEST(http_request_counts) {
    const char *name;
    SERVER(http, "ZARR_TEST_HTTP");
    ZT_CHECK(publish_hierarchy("counts", &name) == 0);
    check_counts(fmt("%s/%s", http, name), NULL, "http", name);
    /* The ranges were answered with 206. */
    ZT_EQ_U64(count_requests("http", name, " 206 ", NULL), 2);
}

ZTEST(s3_request_counts) {
    const char *prefix = unique("counts");
    zarr_store *store = NULL;
    SERVER(counting, "ZARR_TEST_COUNTING_S3");
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    /* Written directly, counted through the proxy. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), moto_options(moto, ""), &store));
    ZT_CHECK(write_hierarchy(store) == 0);
    zarr_store_free(store);
    check_counts(fmt("s3://zarr-test/%s", prefix), moto_options(counting, ""), "counting",
                 prefix);
}

/* ---- updates of part of a chunk from several processes ----------------------------- */

/* Four processes write their own column of one chunk (one shard, one v2 chunk) of an
 * array in moto, an element at a time, all at once: conditional writes, merged again
 * after each conflict, lose nothing. */
ZTEST(s3_processes_contending_for_a_chunk_lose_nothing) {
    const char *layouts[3];
    const char *names[3] = {"chunk", "shard", "v2"};
    int i;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    layouts[0] = CONTENTION_V3;
    layouts[1] = CONTENTION_SHARDED;
    layouts[2] = CONTENTION_V2;
    for (i = 0; i < 3; i++)
        contention_run(fmt("s3://zarr-test/%s", unique(fmt("contention-%s", names[i]))),
                       moto_options(moto, ""), layouts[i]);
}

/* S3 stores write conditionally unless told not to. */
ZTEST(s3_write_protection) {
    const char *url = fmt("s3://zarr-test/%s", unique("protection"));
    zarr_store *store = NULL;
    zarr_write_protection protection = -1;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    ZT_OK(zarr_store_open_url(url, moto_options(moto, ""), &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, moto_options(moto, "\"conditional_writes\": false"), &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_NONE);
    zarr_store_free(store);
    ZT_OK(zarr_store_open_url(url, moto_options(moto, "\"read_only\": true"), &store));
    ZT_OK(zarr_store_write_protection(store, &protection));
    ZT_EQ_U64(protection, ZARR_WRITE_PROTECTION_NONE);
    zarr_store_free(store);
    store = NULL;
    /* Options that do not fit. */
    ZT_STATUS(zarr_store_open_url(url, moto_options(moto, "\"locking\": false"), &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "locking");
    ZT_STATUS(zarr_store_open_url(
                  url, moto_options(moto, "\"conditional_writes\": false, \"update_attempts\": 3"),
                  &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "update_attempts");
    ZT_STATUS(zarr_store_open_url(url, moto_options(moto, "\"update_attempts\": 0"), &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "update_attempts");
    ZT_CHECK(store == NULL);
}

/* When other writers win every attempt (a proxy answers every conditional write with 412),
 * the update gives up after `update_attempts` tries with ZARR_ERROR_CONFLICT and writes
 * nothing; whole-chunk writes, which are unconditional, still go through. */
ZTEST(s3_conflict_after_every_attempt) {
    const char *prefix = unique("conflict");
    const char *url;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int32_t whole[24 * 4], one = 5, back[24 * 4];
    uint64_t origin[2] = {0, 0}, all[2] = {24, 4}, at[2] = {3, 1}, single[2] = {1, 1};
    uint64_t chunk[2] = {0, 0};
    int i;
    SERVER(counting, "ZARR_TEST_COUNTING_S3");
    clean_aws_environment();
    url = fmt("s3://zarr-test/%s/always412", prefix);
    for (i = 0; i < 24 * 4; i++) whole[i] = i + 1;
    ZT_OK(zarr_store_open_url(url, moto_options(counting, "\"update_attempts\": 3"), &store));
    ZT_OK(zarr_array_create(store, "/a", CONTENTION_V3, &array));
    ZT_OK(zarr_array_write_chunk(array, 2, chunk, whole, sizeof whole));
    ZT_STATUS(zarr_array_write(array, 2, at, single, &one, sizeof one), ZARR_ERROR_CONFLICT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "3 attempts");
    ZT_STR_CONTAINS(zarr_last_error_message(), "always412/a/c/0/0");
    ZT_OK(zarr_array_read(array, 2, origin, all, back, sizeof back));
    ZT_EQ_MEM(back, whole, sizeof whole);
    /* Three conditional PUTs were refused. */
    ZT_EQ_U64(count_requests("counting", prefix, "PUT ", " 412 ", NULL), 3);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* A partial update of a chunk larger than the multipart threshold (16 MiB) completes its
 * upload conditionally. */
ZTEST(s3_partial_update_of_a_large_chunk) {
    const char *prefix = unique("large-update");
    size_t n = 5242880, i;
    float *values = (float *)malloc(n * sizeof(float));
    float *back = (float *)malloc(n * sizeof(float));
    float patch[2] = {-1.0f, -2.0f};
    uint64_t origin[1] = {0}, all[1] = {5242880}, at[1] = {1000}, two[1] = {2};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    SERVER(counting, "ZARR_TEST_COUNTING_S3");
    clean_aws_environment();
    ZT_CHECK(values != NULL && back != NULL);
    for (i = 0; i < n; i++) values[i] = (float)i;
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), moto_options(counting, ""),
                              &store));
    ZT_OK(zarr_array_create(store, "/big", BIG_CHUNK_METADATA, &array));
    ZT_OK(zarr_array_write(array, 1, origin, all, values, n * sizeof(float)));
    ZT_OK(zarr_array_write(array, 1, at, two, patch, sizeof patch));
    values[1000] = -1.0f;
    values[1001] = -2.0f;
    ZT_OK(zarr_array_read(array, 1, origin, all, back, n * sizeof(float)));
    ZT_EQ_MEM(values, back, n * sizeof(float));
    /* Two multipart uploads were completed (POST ...uploadId=), the second conditionally. */
    ZT_EQ_U64(count_requests("counting", prefix, "POST ", "uploadId=", " 200 ", NULL), 2);
    zarr_array_free(array);
    zarr_store_free(store);
    free(values);
    free(back);
}

static const ztest_case ztest_cases[] = {
    ZCASE(null_arguments),
    ZCASE(malformed_urls),
    ZCASE(unsupported_schemes),
    ZCASE(cloud_option_and_url_errors),
    ZCASE(unknown_option),
    ZCASE(option_types),
    ZCASE(options_not_for_scheme),
    ZCASE(malformed_endpoint),
    ZCASE(new_status_codes),
    ZCASE(file_path_and_url),
    ZCASE(file_directory_must_exist),
    ZCASE(file_not_found_messages),
    ZCASE(http_not_found_names_the_url),
    ZCASE(http_reads),
    ZCASE(http_server_without_range),
    ZCASE(http_read_only),
    ZCASE(http_listing_unsupported),
    ZCASE(http_403_and_404),
    ZCASE(http_connection_refused),
    ZCASE(http_timeout),
    ZCASE(https_trusts_ssl_cert_file),
    ZCASE(s3_roundtrip_moto),
    ZCASE(s3_every_option),
    ZCASE(s3_read_only),
    ZCASE(s3_signatures_checked),
    ZCASE(s3_403_and_404),
    ZCASE(s3_credentials_from_environment),
    ZCASE(s3_credentials_from_profile),
    ZCASE(s3_anonymous_makes_no_probe),
    ZCASE(s3_probe_of_unreachable_address),
    ZCASE(s3_bucket_must_exist),
    ZCASE(s3_multipart_upload),
    ZCASE(s3_faults_are_retried),
    ZCASE(s3_max_retries),
    ZCASE(s3_interrupted_put_leaves_nothing),
    ZCASE(s3_interrupted_multipart_is_aborted),
    ZCASE(http_request_counts),
    ZCASE(s3_request_counts),
    ZCASE(s3_processes_contending_for_a_chunk_lose_nothing),
    ZCASE(s3_write_protection),
    ZCASE(s3_conflict_after_every_attempt),
    ZCASE(s3_partial_update_of_a_large_chunk),
};

ZTEST_MAIN()
