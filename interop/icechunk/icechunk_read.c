/* icechunk_read.c -- libzarr reads every version of an Icechunk repository that
 * icechunk-python wrote (icechunk_write.py), by branch, by tag and by snapshot id, and
 * compares each node with what icechunk-python read back at that version.
 *
 * Usage: icechunk_read DATA_DIR [--extra-options FILE] [--expect-refused] [--versions-out FILE]
 *
 * The store is DATA_DIR/store.url opened with zarr_store_open_url and the options of
 * DATA_DIR/store.options, plus those of FILE (a JSON object, such as the
 * virtual_chunk_prefixes of allow.options), plus the version's "branch", "tag" or
 * "snapshot". DATA_DIR/checks.txt, written by icechunk_write.py, holds blocks of lines:
 *   version <branch|tag|snapshot> <name or id>
 *   group <path> <n> <name>:<a|g> ...    the group opens and lists exactly these children
 *   attr <path> <key> <int|float|str> <value>   a group attribute (str: rest of the line)
 *   array <path> <dtype> <file>          whole array byte-exact, a sub-region, chunk 0,
 *                                        for a sharded array one inner chunk and a small
 *                                        region inside one inner chunk (partial reads)
 *   varray <path> <dtype> <file>         the same, its chunks virtual references; with
 *                                        --expect-refused every read must fail instead
 *                                        (an error status and message, no crash)
 *   strings <path> <file>                variable-length strings, whole and a sub-range
 *   absent <path>                        zarr_array_open gives ZARR_ERROR_NOT_FOUND
 *   end
 * Tag and snapshot opens must be read-only: a write and a commit give ZARR_ERROR_READ_ONLY.
 * Opening with two of branch/tag/snapshot is ZARR_ERROR_INVALID_ARGUMENT; an unknown
 * branch, tag or snapshot is ZARR_ERROR_NOT_FOUND. With --versions-out the
 * zarr_store_versions_json of the main branch is written to FILE (icechunk_check.py
 * versions compares it with icechunk-python's view of the repository).
 * Prints one line per check; exits 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

static int expect_refused;
static const char *where = "";

#define FAIL_PREFIX() fprintf(stderr, "FAIL [%s] %s: ", where, path)
#include "../interop_check.h"

/* Text of a file with its trailing white space removed, or NULL. */
static char *read_text(const char *name) {
    char *text = (char *)read_file(name, NULL);
    size_t n;
    if (!text) return NULL;
    n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) n--;
    text[n] = '\0';
    return text;
}

/* Append the members of JSON object `extra` (text "{...}") to the object `base`: both
 * are small documents written by the test scripts, so textual merging is enough. */
static char *merge_objects(const char *base, const char *extra) {
    size_t nb = strlen(base), ne = strlen(extra);
    char *out = malloc(nb + ne + 4);
    const char *inner = extra + 1;
    size_t ni = ne - 2; /* without the braces */
    int base_empty;
    if (nb < 2 || ne < 2 || base[nb - 1] != '}' || extra[0] != '{') {
        fprintf(stderr, "not JSON objects: %s / %s\n", base, extra);
        exit(2);
    }
    memcpy(out, base, nb - 1);
    out[nb - 1] = '\0';
    base_empty = strspn(base + 1, " \t\n") == nb - 2;
    if (strspn(inner, " \t\n") < ni) {
        if (!base_empty) strcat(out, ",");
        strncat(out, inner, ni);
    }
    strcat(out, "}");
    return out;
}

static const char *data_type_name(zarr_data_type t) {
    switch (t) {
    case ZARR_DATA_TYPE_INT32: return "int32";
    case ZARR_DATA_TYPE_INT64: return "int64";
    case ZARR_DATA_TYPE_UINT8: return "uint8";
    case ZARR_DATA_TYPE_FLOAT32: return "float32";
    case ZARR_DATA_TYPE_FLOAT64: return "float64";
    default: return zarr_data_type_str(t);
    }
}

/* Copy the block `start`, `count` of a C-order array of `shape` into `out`. */
static void slice_expected(const unsigned char *full, const uint64_t *shape, size_t ndim,
                           const uint64_t *start, const uint64_t *count, size_t elem,
                           unsigned char *out) {
    uint64_t index[32] = {0};
    size_t total = 1, k, d;
    for (d = 0; d < ndim; d++) total *= (size_t)count[d];
    for (k = 0; k < total; k++) {
        size_t offset = 0;
        for (d = 0; d < ndim; d++) offset = offset * (size_t)shape[d] + (size_t)(start[d] + index[d]);
        memcpy(out + k * elem, full + offset * elem, elem);
        for (d = ndim; d-- > 0;) {
            if (++index[d] < count[d]) break;
            index[d] = 0;
        }
    }
}

/* Read start/count and compare with the same block of `expected`. */
static int region_matches(const zarr_array *array, const unsigned char *expected,
                          const uint64_t *shape, size_t ndim, const uint64_t *start,
                          const uint64_t *count, size_t elem, const char *path, const char *what) {
    size_t n = elem, d;
    unsigned char *got, *want;
    zarr_status s;
    int ok;
    for (d = 0; d < ndim; d++) n *= (size_t)count[d];
    got = malloc(n + 1);
    want = malloc(n + 1);
    s = zarr_array_read(array, ndim, start, count, got, n);
    if (s != ZARR_OK) {
        fprintf(stderr, "FAIL [%s] %s: %s read: %s: %s\n", where, path, what, zarr_status_str(s),
                zarr_last_error_message());
        ok = 0;
    } else {
        slice_expected(expected, shape, ndim, start, count, elem, want);
        ok = memcmp(got, want, n) == 0;
        if (!ok) fprintf(stderr, "FAIL [%s] %s: %s differs\n", where, path, what);
    }
    free(got);
    free(want);
    return ok;
}

static void check_array(const zarr_store *store, const char *dir, const char *path,
                        const char *dtype, const char *file, int is_virtual) {
    char name[8400];
    zarr_array *array = NULL;
    size_t ndim = 0, elem = 0, nbytes = 0, expected_len = 0, d;
    uint64_t shape[32], chunk[32], inner[32], start[32], count[32], zero[32] = {0};
    zarr_data_type type = 0;
    unsigned char *expected = NULL, *got = NULL;
    int sharded = 0;

    snprintf(name, sizeof name, "%s/%s", dir, file);
    expected = read_file(name, &expected_len);
    if (!expected) FAIL("cannot read %s", name);
    CALL(zarr_array_open(store, path, &array));
    CALL(zarr_array_ndim(array, &ndim));
    CALL(zarr_array_shape(array, ndim, shape));
    CALL(zarr_array_chunk_shape(array, ndim, chunk));
    CALL(zarr_array_inner_chunk_shape(array, ndim, inner));
    CALL(zarr_array_data_type(array, &type));
    CALL(zarr_array_element_size(array, &elem));
    if (strcmp(data_type_name(type), dtype) != 0)
        FAIL("data type %s, expected %s", data_type_name(type), dtype);
    CALL(zarr_array_selection_nbytes(array, ndim, zero, shape, &nbytes));
    if (nbytes != expected_len) FAIL("%zu bytes, expected %zu", nbytes, expected_len);
    got = malloc(nbytes + 1);
    if (is_virtual && expect_refused) {
        /* Reading a virtual chunk whose location the caller did not allow must fail with
         * a status and a message, and leave the process standing. */
        zarr_status s = zarr_array_read(array, ndim, zero, shape, got, nbytes);
        if (s == ZARR_OK) FAIL("read virtual chunks that no allowed prefix covers");
        if (zarr_last_error_message()[0] == '\0') FAIL("%s without a message", zarr_status_str(s));
        passes++;
        printf("ok   [%s] %s refused: %s: %s\n", where, path, zarr_status_str(s),
               zarr_last_error_message());
        goto done;
    }
    CALL(zarr_array_read(array, ndim, zero, shape, got, nbytes));
    if (memcmp(got, expected, nbytes) != 0) FAIL("full read differs from icechunk-python's");

    for (d = 0; d < ndim; d++) {
        start[d] = shape[d] / 3;
        count[d] = shape[d] - start[d];
        if (inner[d] != chunk[d]) sharded = 1;
    }
    if (!region_matches(array, expected, shape, ndim, start, count, elem, path, "sub-region"))
        goto fail;
    if (sharded) {
        /* One inner chunk in the middle of the second shard, read alone: only the shard
         * index and that inner chunk's bytes are fetched. */
        uint64_t idx[32], ichunk_bytes = elem;
        unsigned char *buf, *want;
        for (d = 0; d < ndim; d++) {
            idx[d] = (chunk[d] / inner[d]) * (shape[d] > chunk[d] ? 1 : 0) + 1;
            if ((idx[d] + 1) * inner[d] > shape[d]) idx[d] = 0;
            start[d] = idx[d] * inner[d];
            count[d] = inner[d];
            ichunk_bytes *= inner[d];
        }
        buf = malloc(ichunk_bytes);
        want = malloc(ichunk_bytes);
        {
            zarr_status s = zarr_array_read_inner_chunk(array, ndim, idx, buf, ichunk_bytes);
            int same;
            slice_expected(expected, shape, ndim, start, count, elem, want);
            same = s == ZARR_OK && memcmp(buf, want, ichunk_bytes) == 0;
            free(buf);
            free(want);
            if (s != ZARR_OK)
                FAIL("zarr_array_read_inner_chunk: %s: %s", zarr_status_str(s),
                     zarr_last_error_message());
            if (!same) FAIL("inner chunk differs");
        }
        /* A region strictly inside one inner chunk, and one across four inner chunks of
         * two shards. */
        for (d = 0; d < ndim; d++) {
            start[d] = idx[d] * inner[d] + 1;
            count[d] = inner[d] > 2 ? inner[d] - 2 : 1;
        }
        if (!region_matches(array, expected, shape, ndim, start, count, elem, path,
                            "region inside an inner chunk"))
            goto fail;
        for (d = 0; d < ndim; d++) {
            start[d] = chunk[d] < shape[d] ? chunk[d] - 2 : 0;
            count[d] = chunk[d] < shape[d] ? 4 : shape[d];
        }
        if (!region_matches(array, expected, shape, ndim, start, count, elem, path,
                            "region across shards"))
            goto fail;
    }
    passes++;
    printf("ok   [%s] %s (%s%s)\n", where, path, dtype, sharded ? ", sharded, partial reads" : "");
    goto done;
fail:
    failures++;
done:
    free(expected);
    free(got);
    zarr_array_free(array);
}

static void check_strings(const zarr_store *store, const char *dir, const char *path,
                          const char *file) {
    char name[8400];
    zarr_array *array = NULL;
    size_t len = 0, data_size = 0;
    unsigned char *expected = NULL, *data = NULL;
    uint64_t n, *want_offsets, *offsets = NULL, start[1], count[1], k;
    const unsigned char *want_data;

    snprintf(name, sizeof name, "%s/%s", dir, file);
    expected = read_file(name, &len);
    if (!expected || len < 8) FAIL("cannot read %s", name);
    memcpy(&n, expected, 8);
    want_offsets = malloc((size_t)(n + 1) * 8);
    memcpy(want_offsets, expected + 8, (size_t)(n + 1) * 8);
    want_data = expected + 8 + (n + 1) * 8;
    CALL(zarr_array_open(store, path, &array));
    offsets = malloc((size_t)(n + 1) * 8);
    start[0] = 0;
    count[0] = n;
    CALL(zarr_array_read_vlen(array, 1, start, count, offsets, (size_t)n + 1, NULL, 0, &data_size));
    data = malloc(data_size + 1);
    CALL(zarr_array_read_vlen(array, 1, start, count, offsets, (size_t)n + 1, data, data_size,
                              &data_size));
    for (k = 0; k < n; k++) {
        uint64_t gl = offsets[k + 1] - offsets[k], wl = want_offsets[k + 1] - want_offsets[k];
        if (gl != wl || memcmp(data + offsets[k] - offsets[0], want_data + want_offsets[k], gl) != 0)
            FAIL("string %llu differs (length %llu, expected %llu)", (unsigned long long)k,
                 (unsigned long long)gl, (unsigned long long)wl);
    }
    /* A sub-range that starts inside the first chunk and ends inside the last. */
    if (n >= 6) {
        start[0] = 2;
        count[0] = n - 3;
        free(data);
        data = malloc(len + 1);
        CALL(zarr_array_read_vlen(array, 1, start, count, offsets, (size_t)n + 1, data, len,
                                  &data_size));
        for (k = 0; k < count[0]; k++) {
            uint64_t gl = offsets[k + 1] - offsets[k];
            uint64_t wl = want_offsets[k + 3] - want_offsets[k + 2];
            if (gl != wl ||
                memcmp(data + offsets[k] - offsets[0], want_data + want_offsets[k + 2], gl) != 0)
                FAIL("string %llu of the sub-range differs", (unsigned long long)(k + 2));
        }
    }
    passes++;
    printf("ok   [%s] %s (%llu strings)\n", where, path, (unsigned long long)n);
done:
    free(expected);
    free(data);
    free(offsets);
    zarr_array_free(array);
}

static void check_group(const zarr_store *store, const char *path, char *rest) {
    zarr_group *group = NULL;
    size_t want = 0, count = 0, i;
    char *tok, *save = NULL;
    int found;

    want = (size_t)strtoul(strtok_r(rest, " ", &save), NULL, 10);
    CALL(zarr_group_open(store, path, &group));
    CALL(zarr_group_child_count(group, &count));
    if (count != want) FAIL("%zu children, expected %zu", count, want);
    while ((tok = strtok_r(NULL, " ", &save)) != NULL) {
        char *colon = strrchr(tok, ':');
        zarr_node_type kind = colon[1] == 'a' ? ZARR_NODE_TYPE_ARRAY : ZARR_NODE_TYPE_GROUP;
        *colon = '\0';
        found = 0;
        for (i = 0; i < count && !found; i++) {
            char *name = NULL;
            zarr_node_type t = 0;
            CALL(zarr_group_child_name(group, i, &name));
            CALL(zarr_group_child_node_type(group, i, &t));
            found = strcmp(name, tok) == 0 && t == kind;
            zarr_string_free(name);
        }
        if (!found) FAIL("no child %s of type %c", tok, colon[1]);
    }
    passes++;
    printf("ok   [%s] group %s (%zu children)\n", where, path, count);
done:
    zarr_group_free(group);
}

static void check_attr(const zarr_store *store, const char *path, const char *key,
                       const char *kind, const char *value) {
    zarr_group *group = NULL;
    char *s = NULL;
    CALL(zarr_group_open(store, path, &group));
    if (strcmp(kind, "int") == 0) {
        int64_t v = 0;
        CALL(zarr_group_attribute_int64(group, key, &v));
        if (v != strtoll(value, NULL, 10))
            FAIL("attribute %s = %lld, expected %s",
                 key, (long long)v, value);
    } else if (strcmp(kind, "float") == 0) {
        double v = 0;
        CALL(zarr_group_attribute_double(group, key, &v));
        if (v != strtod(value, NULL)) FAIL("attribute %s = %.17g, expected %s", key, v, value);
    } else {
        CALL(zarr_group_attribute_string(group, key, &s));
        if (strcmp(s, value) != 0) FAIL("attribute %s = '%s', expected '%s'", key, s, value);
    }
    passes++;
    printf("ok   [%s] attribute %s %s\n", where, path, key);
done:
    zarr_string_free(s);
    zarr_group_free(group);
}

static void check_absent(const zarr_store *store, const char *path) {
    zarr_array *array = NULL;
    zarr_status s = zarr_array_open(store, path, &array);
    if (s != ZARR_ERROR_NOT_FOUND)
        FAIL("zarr_array_open: %s, expected NOT_FOUND",
             zarr_status_str(s));
    passes++;
    printf("ok   [%s] %s absent\n", where, path);
done:
    zarr_array_free(array);
}

/* A tag or snapshot handle refuses writes and commits with ZARR_ERROR_READ_ONLY. */
static void check_read_only(zarr_store *store, const char *path) {
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    char *id = NULL;
    zarr_status s;
    uint64_t zero[32] = {0}, one[32];
    size_t ndim = 0, elem = 0, d;
    unsigned char value[16] = {0};
    CALL(zarr_array_open(store, path, &array));
    CALL(zarr_array_ndim(array, &ndim));
    CALL(zarr_array_element_size(array, &elem));
    for (d = 0; d < ndim; d++) one[d] = 1;
    s = zarr_array_write(array, ndim, zero, one, value, elem);
    if (s != ZARR_ERROR_READ_ONLY)
        FAIL("zarr_array_write: %s, expected READ_ONLY",
             zarr_status_str(s));
    CALL(zarr_group_open(store, "/", &group));
    s = zarr_group_set_attributes_json(group, "{\"x\":1}");
    if (s != ZARR_ERROR_READ_ONLY)
        FAIL("zarr_group_set_attributes_json: %s, expected READ_ONLY", zarr_status_str(s));
    s = zarr_store_commit(store, "must not happen", &id);
    if (s != ZARR_ERROR_READ_ONLY)
        FAIL("zarr_store_commit: %s, expected READ_ONLY",
             zarr_status_str(s));
    if (id != NULL) FAIL("zarr_store_commit failed but returned an id");
    passes++;
    printf("ok   [%s] read-only: write, attributes and commit refused\n", where);
done:
    zarr_string_free(id);
    zarr_group_free(group);
    zarr_array_free(array);
}

static zarr_status open_ref(const char *url, const char *options, const char *kind,
                            const char *ref, zarr_store **store) {
    char member[1024];
    char *merged;
    zarr_status s;
    snprintf(member, sizeof member, "{\"%s\":\"%s\"}", kind, ref);
    merged = merge_objects(options, member);
    s = zarr_store_open_url(url, merged, store);
    free(merged);
    return s;
}

/* Bad references: two at once, and names or ids that do not exist. */
static void check_bad_refs(const char *url, const char *options) {
    const char *path = "open";
    zarr_store *store = NULL;
    zarr_status s;
    char *merged = merge_objects(options, "{\"branch\":\"main\",\"tag\":\"v1\"}");
    s = zarr_store_open_url(url, merged, &store);
    free(merged);
    if (s != ZARR_ERROR_INVALID_ARGUMENT)
        FAIL("branch and tag at once: %s, expected INVALID_ARGUMENT: %s", zarr_status_str(s),
             zarr_last_error_message());
    if (store != NULL) FAIL("a failed open returned a store");
    s = open_ref(url, options, "branch", "no-such-branch", &store);
    if (s != ZARR_ERROR_NOT_FOUND)
        FAIL("unknown branch: %s, expected NOT_FOUND: %s",
             zarr_status_str(s), zarr_last_error_message());
    s = open_ref(url, options, "tag", "no-such-tag", &store);
    if (s != ZARR_ERROR_NOT_FOUND)
        FAIL("unknown tag: %s, expected NOT_FOUND: %s",
             zarr_status_str(s), zarr_last_error_message());
    /* A well-formed snapshot id (20 Crockford base32 characters) that is not in the repository. */
    s = open_ref(url, options, "snapshot", "0000000000000000000Z", &store);
    if (s != ZARR_ERROR_NOT_FOUND)
        FAIL("unknown snapshot: %s, expected NOT_FOUND: %s",
             zarr_status_str(s), zarr_last_error_message());
    s = open_ref(url, options, "snapshot", "not an id", &store);
    if (s != ZARR_ERROR_INVALID_ARGUMENT)
        FAIL("malformed snapshot id: %s, expected INVALID_ARGUMENT: %s", zarr_status_str(s),
             zarr_last_error_message());
    passes++;
    printf("ok   bad references refused\n");
done:
    zarr_store_free(store);
}

int main(int argc, char **argv) {
    char name[8400], line[16384], label[1100], first_array[1024] = "";
    const char *dir, *extra_file = NULL, *versions_out = NULL;
    char *url, *options;
    zarr_store *store = NULL;
    FILE *checks;
    int i, read_only = 0, versions = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [--extra-options FILE] [--expect-refused] "
                        "[--versions-out FILE]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--extra-options") == 0 && i + 1 < argc) extra_file = argv[++i];
        else if (strcmp(argv[i], "--expect-refused") == 0) expect_refused = 1;
        else if (strcmp(argv[i], "--versions-out") == 0 && i + 1 < argc) versions_out = argv[++i];
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    snprintf(name, sizeof name, "%s/store.url", dir);
    url = read_text(name);
    snprintf(name, sizeof name, "%s/store.options", dir);
    options = read_text(name);
    if (!url || !options) {
        fprintf(stderr, "no store.url / store.options in %s\n", dir);
        return 2;
    }
    if (extra_file) {
        char *extra = read_text(extra_file), *merged;
        if (!extra) {
            fprintf(stderr, "cannot read %s\n", extra_file);
            return 2;
        }
        merged = merge_objects(options, extra);
        free(options);
        free(extra);
        options = merged;
    }
    check_bad_refs(url, options);

    snprintf(name, sizeof name, "%s/checks.txt", dir);
    checks = fopen(name, "r");
    if (!checks) {
        fprintf(stderr, "cannot open %s\n", name);
        return 2;
    }
    while (fgets(line, sizeof line, checks)) {
        char *save = NULL, *kind, *a, *b, *c;
        line[strcspn(line, "\n")] = '\0';
        kind = strtok_r(line, " ", &save);
        if (!kind) continue;
        if (strcmp(kind, "version") == 0) {
            zarr_status s;
            a = strtok_r(NULL, " ", &save);
            b = strtok_r(NULL, " ", &save);
            snprintf(label, sizeof label, "%s %s", a, b);
            where = label;
            read_only = strcmp(a, "branch") != 0;
            first_array[0] = '\0';
            versions++;
            s = open_ref(url, options, a, b, &store);
            if (s != ZARR_OK) {
                fprintf(stderr, "FAIL cannot open %s at %s %s: %s: %s\n", url, a, b,
                        zarr_status_str(s), zarr_last_error_message());
                failures++;
                /* skip the block */
                while (fgets(line, sizeof line, checks) && strncmp(line, "end", 3) != 0) {}
                continue;
            }
            if (versions_out && strcmp(a, "branch") == 0 && strcmp(b, "main") == 0) {
                char *json = NULL;
                FILE *out;
                s = zarr_store_versions_json(store, &json);
                if (s != ZARR_OK) {
                    fprintf(stderr, "FAIL zarr_store_versions_json: %s: %s\n", zarr_status_str(s),
                            zarr_last_error_message());
                    failures++;
                } else if ((out = fopen(versions_out, "w")) != NULL) {
                    fputs(json, out);
                    fclose(out);
                }
                zarr_string_free(json);
            }
        } else if (strcmp(kind, "end") == 0) {
            if (store && read_only && first_array[0]) check_read_only(store, first_array);
            zarr_store_free(store);
            store = NULL;
        } else if (!store) {
            continue;
        } else if (strcmp(kind, "group") == 0) {
            a = strtok_r(NULL, " ", &save);
            check_group(store, a, save);
        } else if (strcmp(kind, "attr") == 0) {
            a = strtok_r(NULL, " ", &save);
            b = strtok_r(NULL, " ", &save);
            c = strtok_r(NULL, " ", &save);
            check_attr(store, a, b, c, save ? save : "");
        } else if (strcmp(kind, "array") == 0 || strcmp(kind, "varray") == 0) {
            a = strtok_r(NULL, " ", &save);
            b = strtok_r(NULL, " ", &save);
            c = strtok_r(NULL, " ", &save);
            if (!first_array[0] && kind[0] == 'a') snprintf(first_array, sizeof first_array, "%s", a);
            check_array(store, dir, a, b, c, kind[0] == 'v');
        } else if (strcmp(kind, "strings") == 0) {
            a = strtok_r(NULL, " ", &save);
            b = strtok_r(NULL, " ", &save);
            check_strings(store, dir, a, b);
        } else if (strcmp(kind, "absent") == 0) {
            check_absent(store, strtok_r(NULL, " ", &save));
        }
    }
    fclose(checks);
    zarr_store_free(store);
    free(url);
    free(options);
    printf("%d versions, %d checks passed, %d failed\n", versions, passes, failures);
    if (versions == 0) return 1;
    return failures ? 1 : 0;
}
