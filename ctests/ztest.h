/* ztest.h -- the tiny test harness of libzarr's C tests (C99, header-only).
 *
 * A test file defines cases with ZTEST(name) { ... }, lists them at the bottom, one per
 * line, as `ZCASE(name),` inside `static const ztest_case ztest_cases[] = { ... };`, and
 * ends with ZTEST_MAIN(). CMake reads the ZCASE lines and registers one ctest test per
 * case; the executable runs the case named by argv[1] (all cases without an argument;
 * `--list` prints the names). A failed assertion prints file:line, the expression, and for
 * status checks the status, its text and zarr_last_error_message(), then ends the case.
 */
#ifndef ZTEST_H
#define ZTEST_H

/* mkdtemp and nftw are POSIX; ask for them before any system header is included. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

typedef struct {
    const char *name;
    void (*fn)(void);
} ztest_case;

static int ztest_failures;

#define ZTEST(name) static void ztest_##name(void)
#define ZCASE(name) { #name, ztest_##name }

#define ZT_FAIL_(...)                                                                      \
    do {                                                                                   \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                    \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, "\n");                                                             \
        ztest_failures++;                                                                  \
        return;                                                                            \
    } while (0)

#define ZT_CHECK(c)                                                                        \
    do {                                                                                   \
        if (!(c)) ZT_FAIL_("check failed: %s", #c);                                        \
    } while (0)

#define ZT_STATUS(call, exp)                                                               \
    do {                                                                                   \
        zarr_status s_ = (call);                                                           \
        if (s_ != (exp))                                                                   \
            ZT_FAIL_("%s returned %d (%s), expected %d (%s); last error: %s", #call,       \
                     (int)s_, zarr_status_str(s_), (int)(exp), zarr_status_str(exp),       \
                     zarr_last_error_message());                                           \
        if (s_ != ZARR_OK && zarr_last_error_message()[0] == '\0')                         \
            ZT_FAIL_("%s failed without an error message", #call);                         \
    } while (0)

#define ZT_OK(call) ZT_STATUS(call, ZARR_OK)

#define ZT_EQ_U64(a, b)                                                                    \
    do {                                                                                   \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
        if (a_ != b_)                                                                      \
            ZT_FAIL_("%s == %s: %llu != %llu", #a, #b, (unsigned long long)a_,             \
                     (unsigned long long)b_);                                              \
    } while (0)

#define ZT_EQ_MEM(a, b, n)                                                                 \
    do {                                                                                   \
        if (memcmp((a), (b), (n)) != 0) ZT_FAIL_("memory differs: %s vs %s", #a, #b);      \
    } while (0)

#define ZT_STR_CONTAINS(h, n)                                                              \
    do {                                                                                   \
        const char *h_ = (h);                                                              \
        if (!h_ || !strstr(h_, (n)))                                                       \
            ZT_FAIL_("'%s' does not contain '%s'", h_ ? h_ : "(null)", (n));               \
    } while (0)

/* ---- files and temporary directories for tests ----------------------------------- */

#define ZTEST_MAX_TMP_DIRS 256
static char *ztest_tmp_dirs[ZTEST_MAX_TMP_DIRS];
static int ztest_tmp_count;

static int ztest_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Remove the directories made by ztest_tmp_dir (kept when ZTEST_KEEP_TMP is set). */
static void ztest_remove_tmp_dirs(void) {
    int i;
    for (i = 0; i < ztest_tmp_count; i++) {
        if (getenv("ZTEST_KEEP_TMP") == NULL)
            nftw(ztest_tmp_dirs[i], ztest_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(ztest_tmp_dirs[i]);
    }
    ztest_tmp_count = 0;
}

/* A fresh empty directory under $TMPDIR (or /tmp), removed when the program exits. */
static inline const char *ztest_tmp_dir(void) {
    char pattern[4096];
    const char *base = getenv("TMPDIR");
    char *dir;
    snprintf(pattern, sizeof pattern, "%s/zarr-ctest-XXXXXX", base && base[0] ? base : "/tmp");
    dir = mkdtemp(pattern);
    if (dir == NULL || ztest_tmp_count == ZTEST_MAX_TMP_DIRS) {
        fprintf(stderr, "cannot create a temporary directory: %s\n", strerror(errno));
        abort();
    }
    if (ztest_tmp_count == 0) atexit(ztest_remove_tmp_dirs);
    ztest_tmp_dirs[ztest_tmp_count] = strdup(dir);
    return ztest_tmp_dirs[ztest_tmp_count++];
}

/* "<dir>/<relative>" in one of eight rotating static buffers (so that a few results can
 * be used in one expression); aborts on a path longer than 4095 bytes. */
static inline const char *ztest_path(const char *dir, const char *relative) {
    static char buffers[8][4096];
    static int next;
    char joined[4096];
    char *out = buffers[next++ % 8];
    int n = snprintf(joined, sizeof joined, "%s/%s", dir, relative);
    if (n < 0 || (size_t)n >= sizeof joined) {
        fprintf(stderr, "ztest_path: path too long\n");
        abort();
    }
    memcpy(out, joined, (size_t)n + 1);
    return out;
}

/* The whole content of a file, NUL-terminated (malloc'ed: free it), its length in *len
 * when len is not NULL; NULL when the file cannot be read. */
static inline void *ztest_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long size;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = (char *)malloc((size_t)size + 1);
        if (data != NULL && fread(data, 1, (size_t)size, f) != (size_t)size) {
            free(data);
            data = NULL;
        }
        if (data != NULL) {
            data[size] = '\0';
            if (len != NULL) *len = (size_t)size;
        }
    }
    fclose(f);
    return data;
}

/* Whether a file or directory exists at path. */
static inline int ztest_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Whether path is a regular file. */
static inline int ztest_is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether path is a directory. */
static inline int ztest_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Entries of a directory other than . and .. (-1 if it cannot be opened). */
static inline int ztest_count_entries(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (d == NULL) return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

/* A copy of JSON text without the white space outside strings (malloc'ed: free it). */
static inline char *ztest_json_compact(const char *text) {
    char *out = (char *)malloc(strlen(text) + 1);
    char *o = out;
    int in_string = 0, escaped = 0;
    for (; *text; text++) {
        char c = *text;
        if (in_string) {
            *o++ = c;
            if (escaped) {
                escaped = 0;
            } else if (c == '\\') {
                escaped = 1;
            } else if (c == '"') {
                in_string = 0;
            }
        } else if (c == '"') {
            in_string = 1;
            *o++ = c;
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            *o++ = c;
        }
    }
    *o = '\0';
    return out;
}

/* Replace a file's content; 0 on success. */
static inline int ztest_write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (f == NULL) return -1;
    ok = fwrite(data, 1, len, f) == len;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

#define ZTEST_MAIN()                                                                       \
    int main(int argc, char **argv) {                                                      \
        size_t n = sizeof ztest_cases / sizeof ztest_cases[0];                             \
        size_t i;                                                                          \
        int ran = 0;                                                                       \
        if (argc > 1 && strcmp(argv[1], "--list") == 0) {                                  \
            for (i = 0; i < n; i++) printf("%s\n", ztest_cases[i].name);                   \
            return 0;                                                                      \
        }                                                                                  \
        for (i = 0; i < n; i++) {                                                          \
            int before = ztest_failures;                                                   \
            if (argc > 1 && strcmp(argv[1], ztest_cases[i].name) != 0) continue;           \
            ztest_cases[i].fn();                                                           \
            ran++;                                                                         \
            printf("%s %s\n", ztest_failures == before ? "PASS" : "FAIL",                  \
                   ztest_cases[i].name);                                                   \
        }                                                                                  \
        if (!ran) {                                                                        \
            fprintf(stderr, "no case named '%s'\n", argc > 1 ? argv[1] : "");              \
            return 2;                                                                      \
        }                                                                                  \
        return ztest_failures ? 1 : 0;                                                     \
    }

#endif /* ZTEST_H */
