/* remote_fixture.h -- what the remote-store tests (test_url.c, test_gcs.c, test_azure.c)
 * share: the values of the loopback servers' environment file (ZARR_TEST_SERVERS_ENV,
 * written by tests/servers/servers.py), unique prefixes, formatted strings, request counts
 * from the servers' logs, a listener that never answers, and the small hierarchy every
 * store writes and reads back. Include it once, after ztest.h; every function is static,
 * and a file that does not use one is not warned about it. */
#ifndef ZARR_REMOTE_FIXTURE_H
#define ZARR_REMOTE_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
#define REMOTE_FIXTURE_FN static __attribute__((unused))
#else
#define REMOTE_FIXTURE_FN static
#endif

/* ---- the servers ---------------------------------------------------------------- */

#define MAX_SERVER_VALUES 64
static char server_names[MAX_SERVER_VALUES][64];
static char server_values[MAX_SERVER_VALUES][1024];
static int server_count = -1;

/* A value of servers.env (NULL when absent). */
REMOTE_FIXTURE_FN const char *server(const char *name) {
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
REMOTE_FIXTURE_FN const char *unique(const char *name) {
    static char buffers[4][256];
    static int next;
    char *out = buffers[next++ % 4];
    snprintf(out, sizeof buffers[0], "%s-%ld-%ld", name, (long)getpid(), (long)time(NULL));
    return out;
}

/* A string built with printf formatting, in one of eight rotating buffers. */
REMOTE_FIXTURE_FN const char *fmt(const char *format, ...) {
    static char buffers[8][2048];
    static int next;
    char *out = buffers[next++ % 8];
    va_list args;
    va_start(args, format);
    vsnprintf(out, sizeof buffers[0], format, args);
    va_end(args);
    return out;
}

/* Lines of a server's request log that contain every one of the given substrings
 * (NULL-terminated list). */
REMOTE_FIXTURE_FN long count_requests(const char *log, const char *first, ...) {
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

REMOTE_FIXTURE_FN double now_seconds(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* A TCP socket listening on 127.0.0.1 that never accepts: connections complete in the
 * kernel's backlog, and requests sent on them are never answered. */
REMOTE_FIXTURE_FN int silent_listener(int *port) {
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

REMOTE_FIXTURE_FN float a_value(int i, int j) { return (float)(i * 100 + j) + 0.25f; }
REMOTE_FIXTURE_FN int32_t s_value(int i, int j) { return i * 16 + j - 7; }

/* Write the group /, /a (zstd, 8 x 8 chunks, rows 16-19 unwritten) and /s (sharded), and
 * consolidate. 0 on success; prints the failure otherwise. */
REMOTE_FIXTURE_FN int write_hierarchy(zarr_store *store) {
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
    STEP(zarr_group_create(store, "/", "{\"title\": \"remote store test\"}", &group));
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
REMOTE_FIXTURE_FN int check_hierarchy(const zarr_store *store) {
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

#endif
