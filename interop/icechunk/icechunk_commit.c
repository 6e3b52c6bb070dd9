/* icechunk_commit.c -- libzarr writes to an Icechunk repository and commits (interop,
 * libzarr -> icechunk-python; icechunk_check.py commit reads the result).
 *
 * Usage: icechunk_commit DATA_DIR
 *
 * DATA_DIR was prepared by `icechunk_check.py init` (a repository with one commit holding
 * /race and /race_retry, int32 4x4). On branch main this program:
 *   - creates the group /from_c (attributes writer = "libzarr") and the array
 *     /from_c/values (int32 6x10 in 4x4 chunks, zstd), writes every element, and writes
 *     a 2x2 block of the existing /race array;
 *   - checks that a second handle opened on main before, and a third opened after the
 *     writes, do not see them before the commit (writes are private to their handle);
 *   - commits with a known message, gets a snapshot id, then writes a region of
 *     /from_c/values again on the same handle and commits a second time;
 *   - checks that a handle opened afterwards sees the second commit as main's head
 *     (zarr_store_versions_json: the snapshot and the newest history messages) and the data;
 *   - checks the documented errors: NULL arguments, a commit on a filesystem store
 *     (ZARR_ERROR_UNSUPPORTED).
 * It writes DATA_DIR/c_commit.txt (lines: `commit <id> <message>`, oldest first) and
 * DATA_DIR/c_values.bin (the values /from_c/values must hold, int32 C order).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

#define MSG1 "libzarr commit: from_c and a block of race"
#define MSG2 "libzarr second commit: a region of from_c/values"

static int failures;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            failures++;                                                                    \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

#define CALL(call)                                                                         \
    do {                                                                                   \
        zarr_status s_ = (call);                                                           \
        CHECK(s_ == ZARR_OK, "%s: %s: %s", #call, zarr_status_str(s_),                     \
              zarr_last_error_message());                                                  \
    } while (0)

static char *read_text(const char *name) {
    static char buf[8192];
    FILE *f = fopen(name, "r");
    size_t n;
    if (!f) return NULL;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) n--;
    buf[n] = '\0';
    return strdup(buf);
}

/* store.options with "branch":"main" added (the options are a small object). */
static zarr_status open_main(const char *dir, zarr_store **store) {
    char name[4200], options[9000];
    char *url, *base;
    zarr_status s;
    snprintf(name, sizeof name, "%s/store.url", dir);
    url = read_text(name);
    snprintf(name, sizeof name, "%s/store.options", dir);
    base = read_text(name);
    if (!url || !base) {
        fprintf(stderr, "no store.url / store.options in %s\n", dir);
        exit(2);
    }
    base[strlen(base) - 1] = '\0'; /* drop the closing brace */
    snprintf(options, sizeof options, "%s%s\"branch\":\"main\"}", base,
             strcmp(base, "{") == 0 ? "" : ",");
    s = zarr_store_open_url(url, options, store);
    if (s != ZARR_OK)
        fprintf(stderr, "cannot open %s with %s: %s: %s\n", url, options, zarr_status_str(s),
                zarr_last_error_message());
    free(url);
    free(base);
    return s;
}

int main(int argc, char **argv) {
    char name[4200];
    zarr_store *writer = NULL, *before = NULL, *during = NULL, *after = NULL, *fs = NULL;
    zarr_group *group = NULL;
    zarr_array *values = NULL, *race = NULL, *peek = NULL;
    zarr_array_builder *builder = NULL;
    char *id1 = NULL, *id2 = NULL, *json = NULL, *attr = NULL;
    int32_t expected[60], got[60], block[4] = {-1, -2, -3, -4}, race_now[16];
    uint64_t shape[2] = {6, 10}, chunks[2] = {4, 4}, zero[2] = {0, 0}, start[2], count[2];
    size_t i;
    zarr_status s;
    FILE *out;
    const char *dir;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    for (i = 0; i < 60; i++) expected[i] = (int32_t)i * 3 - 7;

    if (open_main(dir, &before) != ZARR_OK) return 1;
    if (open_main(dir, &writer) != ZARR_OK) return 1;

    CALL(zarr_group_create(writer, "/from_c", "{\"writer\":\"libzarr\"}", &group));
    CALL(zarr_array_builder_new(ZARR_DATA_TYPE_INT32, 2, shape, &builder));
    CALL(zarr_array_builder_set_chunk_shape(builder, 2, chunks));
    CALL(zarr_array_builder_add_codec(builder, "zstd", "{\"level\":3}"));
    CALL(zarr_array_builder_create(builder, writer, "/from_c/values", &values));
    CALL(zarr_array_write(values, 2, zero, shape, expected, sizeof expected));
    CALL(zarr_array_open(writer, "/race", &race));
    start[0] = 1; start[1] = 1; count[0] = 2; count[1] = 2;
    CALL(zarr_array_write(race, 2, start, count, block, sizeof block));

    /* Not yet committed: other handles, opened before or after the writes, see nothing. */
    s = zarr_array_open(before, "/from_c/values", &peek);
    CHECK(s == ZARR_ERROR_NOT_FOUND, "uncommitted array visible to an older handle: %s",
          zarr_status_str(s));
    if (open_main(dir, &during) != ZARR_OK) return 1;
    s = zarr_array_open(during, "/from_c/values", &peek);
    CHECK(s == ZARR_ERROR_NOT_FOUND, "uncommitted array visible to a new handle: %s",
          zarr_status_str(s));
    zarr_array_free(race);
    race = NULL;
    CALL(zarr_array_open(during, "/race", &race));
    CALL(zarr_array_read(race, 2, zero, (uint64_t[]){4, 4}, race_now, sizeof race_now));
    CHECK(race_now[5] != -1, "uncommitted write to /race visible to a new handle");
    /* The writer itself reads its own writes. */
    CALL(zarr_array_read(values, 2, zero, shape, got, sizeof got));
    CHECK(memcmp(got, expected, sizeof got) == 0, "the writer does not read its own writes");

    /* Argument errors, before the real commit. */
    s = zarr_store_commit(NULL, "x", &id1);
    CHECK(s == ZARR_ERROR_NULL_ARGUMENT, "commit(NULL store): %s", zarr_status_str(s));
    s = zarr_store_commit(writer, NULL, &id1);
    CHECK(s == ZARR_ERROR_NULL_ARGUMENT, "commit(NULL message): %s", zarr_status_str(s));
    s = zarr_store_commit(writer, "x", NULL);
    CHECK(s == ZARR_ERROR_NULL_ARGUMENT, "commit(NULL id out): %s", zarr_status_str(s));

    CALL(zarr_store_commit(writer, MSG1, &id1));
    CHECK(id1 != NULL && strlen(id1) > 0, "empty snapshot id");
    printf("ok   first commit %s\n", id1);

    /* The same handle goes on writing and commits again. */
    {
        int32_t region[6] = {1000, 1001, 1002, 1003, 1004, 1005};
        uint64_t rs[2] = {4, 7}, rc[2] = {2, 3};
        size_t r, c;
        CALL(zarr_array_write(values, 2, rs, rc, region, sizeof region));
        for (r = 0; r < 2; r++)
            for (c = 0; c < 3; c++) expected[(4 + r) * 10 + 7 + c] = region[r * 3 + c];
    }
    CALL(zarr_store_commit(writer, MSG2, &id2));
    CHECK(id2 != NULL && strcmp(id1, id2) != 0, "second commit gave the same id");
    printf("ok   second commit %s\n", id2);

    /* A new handle sees the head: the data and the history. */
    if (open_main(dir, &after) != ZARR_OK) return 1;
    zarr_array_free(peek);
    peek = NULL;
    CALL(zarr_array_open(after, "/from_c/values", &peek));
    CALL(zarr_array_read(peek, 2, zero, shape, got, sizeof got));
    CHECK(memcmp(got, expected, sizeof got) == 0, "committed values differ");
    zarr_group_free(group);
    group = NULL;
    CALL(zarr_group_open(after, "/from_c", &group));
    CALL(zarr_group_attribute_string(group, "writer", &attr));
    CHECK(strcmp(attr, "libzarr") == 0, "attribute writer = %s", attr);
    CALL(zarr_store_versions_json(after, &json));
    {
        /* The head and the two newest messages, in that order (history is newest first). */
        char want[256];
        const char *h = strstr(json, "\"history\""), *m2, *m1;
        snprintf(want, sizeof want, "\"snapshot\":\"%s\"", id2);
        CHECK(strstr(json, want) != NULL, "versions_json has no %s: %s", want, json);
        CHECK(h != NULL, "versions_json has no history: %s", json);
        m2 = strstr(h, MSG2);
        m1 = strstr(h, MSG1);
        CHECK(m2 != NULL && m1 != NULL && m2 < m1, "history lacks the commits newest first: %s", h);
    }
    printf("ok   a new handle sees both commits\n");

    /* Other stores have no commits. */
    CALL(zarr_store_open_filesystem(dir, &fs));
    {
        char *none = NULL;
        s = zarr_store_commit(fs, "x", &none);
        CHECK(s == ZARR_ERROR_UNSUPPORTED, "commit on a filesystem store: %s", zarr_status_str(s));
        CHECK(none == NULL, "failed commit returned an id");
    }
    printf("ok   commit on a filesystem store is UNSUPPORTED\n");

    snprintf(name, sizeof name, "%s/c_commit.txt", dir);
    out = fopen(name, "w");
    CHECK(out != NULL, "cannot write %s", name);
    fprintf(out, "commit %s %s\ncommit %s %s\n", id1, MSG1, id2, MSG2);
    fclose(out);
    snprintf(name, sizeof name, "%s/c_values.bin", dir);
    out = fopen(name, "wb");
    CHECK(out != NULL, "cannot write %s", name);
    fwrite(expected, sizeof expected, 1, out);
    fclose(out);

done:
    zarr_string_free(id1);
    zarr_string_free(id2);
    zarr_string_free(json);
    zarr_string_free(attr);
    zarr_array_builder_free(builder);
    zarr_array_free(values);
    zarr_array_free(race);
    zarr_array_free(peek);
    zarr_group_free(group);
    zarr_store_free(writer);
    zarr_store_free(before);
    zarr_store_free(during);
    zarr_store_free(after);
    zarr_store_free(fs);
    printf("%s\n", failures ? "FAILED" : "all commit checks passed");
    return failures ? 1 : 0;
}
