/* ts_types.c -- libzarr's side of the tensorstore interop tests for the sub-byte, 8-bit
 * float, bfloat16 and complex data types (interop.tensorstore_types.*; see ts_write.py,
 * which writes TS_DIR, and ts_read.py, which reads what `write` makes).
 *
 * Usage: ts_types read TS_DIR
 *        ts_types write TS_DIR OUT_DIR
 *
 * read:  opens every array of TS_DIR/manifest.txt in TS_DIR/store (written by
 *        tensorstore) and checks its data type name and code, element size, shape and fill
 *        value, then reads the whole array and a selection across chunk and shard
 *        boundaries, byte for byte against TS_DIR/expected/<name>.bin (tensorstore's own
 *        read). For int2/int4 also zarr_sub_byte_to_int8 of what was read against
 *        expected/<name>.int8.bin.
 * write: creates every array again in OUT_DIR/store from tensorstore's zarr.json (which
 *        libzarr stores in its own canonical spelling: fill value included) and writes the
 *        region tensorstore wrote, from the expected bytes (int2/int4: from the int8
 *        values through zarr_int8_to_sub_byte, which must give the expected codes). Then
 *        OUT_DIR/manifest.txt is TS_DIR's, for ts_read.py. In a scratch store it checks
 *        that a byte with bits above the type's width is refused without writing.
 *
 * Every failure prints the array, what differs (first differing byte: index, expected,
 * got) and libzarr's status and message, and the program exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

#define MAX_ARRAYS 64

typedef struct {
    char name[64];
    char dtype[32];
    size_t size;           /* element size in host buffers */
    uint64_t shape[2];
    uint64_t start[2];     /* the region tensorstore wrote */
    uint64_t count[2];
} entry_t;

static int failures = 0;

#define FAIL(...)                                                                         \
    do {                                                                                  \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                   \
        fprintf(stderr, __VA_ARGS__);                                                     \
        fprintf(stderr, "\n");                                                            \
        failures++;                                                                       \
    } while (0)

/* Evaluates a libzarr call; on failure reports it with its status and message and runs
 * `on_error` (usually `continue` or `goto`). */
#define CALL(expr, on_error)                                                              \
    do {                                                                                  \
        zarr_status status_ = (expr);                                                     \
        if (status_ != ZARR_OK) {                                                         \
            FAIL("%s: %s: %s", #expr, zarr_status_str(status_), zarr_last_error_message()); \
            on_error;                                                                     \
        }                                                                                 \
    } while (0)

static int is_sub_byte_int(const char *dtype) {
    return strcmp(dtype, "int2") == 0 || strcmp(dtype, "int4") == 0;
}

/* Reads a whole file into a new buffer (NUL-terminated, so that JSON text can be used as
 * a string); NULL when it cannot. */
static unsigned char *slurp(const char *path, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        FAIL("cannot open %s", path);
        return NULL;
    }
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            unsigned char *bigger = realloc(buf, cap);
            if (!bigger) {
                free(buf);
                fclose(f);
                FAIL("out of memory reading %s", path);
                return NULL;
            }
            buf = bigger;
        }
        size_t n = fread(buf + len, 1, 4096, f);
        len += n;
        if (n < 4096) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        FAIL("cannot read %s", path);
        return NULL;
    }
    buf[len] = 0;
    *len_out = len;
    return buf;
}

static unsigned char *slurp_expected(const char *dir, const char *name, const char *suffix,
                                     size_t want, const char *what) {
    char path[1024];
    snprintf(path, sizeof path, "%s/expected/%s%s", dir, name, suffix);
    size_t len = 0;
    unsigned char *buf = slurp(path, &len);
    if (buf && len != want) {
        FAIL("%s: %s has %zu bytes, expected %zu (%s)", name, path, len, want, what);
        free(buf);
        return NULL;
    }
    return buf;
}

static size_t read_manifest(const char *dir, entry_t *entries) {
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        FAIL("cannot open %s", path);
        return 0;
    }
    size_t n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (n == MAX_ARRAYS) {
            FAIL("%s: more than %d arrays", path, MAX_ARRAYS);
            break;
        }
        entry_t *e = &entries[n];
        unsigned long long v[6];
        if (sscanf(line, "%63s %31s %zu %llu %llu %llu %llu %llu %llu", e->name, e->dtype,
                   &e->size, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 9) {
            FAIL("%s: malformed line: %s", path, line);
            continue;
        }
        for (int d = 0; d < 2; d++) {
            e->shape[d] = v[d];
            e->start[d] = v[2 + d];
            e->count[d] = v[4 + d];
        }
        n++;
    }
    fclose(f);
    if (n == 0) FAIL("%s lists no arrays", path);
    return n;
}

/* Compares n bytes; reports the first difference (as element and byte within it). */
static int same_bytes(const char *name, const char *what, const unsigned char *want,
                      const unsigned char *got, size_t n, size_t element_size) {
    for (size_t i = 0; i < n; i++) {
        if (want[i] != got[i]) {
            FAIL("%s: %s: byte %zu (element %zu) is 0x%02x, tensorstore's is 0x%02x", name,
                 what, i, i / element_size, got[i], want[i]);
            return 0;
        }
    }
    return 1;
}

/* Copies the 2-d selection start/count of the dense C-order array `full` (columns `cols`)
 * into the dense buffer `out`. */
static void copy_region(const unsigned char *full, uint64_t cols, const uint64_t *start,
                        const uint64_t *count, size_t size, unsigned char *out) {
    for (uint64_t r = 0; r < count[0]; r++) {
        memcpy(out + r * count[1] * size, full + ((start[0] + r) * cols + start[1]) * size,
               count[1] * size);
    }
}

static void check_read(const char *dir, zarr_store *store, const entry_t *e) {
    char path[80];
    snprintf(path, sizeof path, "/%s", e->name);
    zarr_array *a = NULL;
    unsigned char *expected = NULL, *fill = NULL, *got = NULL, *part = NULL, *want = NULL;
    int8_t *ints = NULL, *want_ints = NULL;
    CALL(zarr_array_open(store, path, &a), return);

    zarr_data_type code = 0;
    size_t size = 0, ndim = 0;
    uint64_t shape[2] = {0, 0};
    CALL(zarr_array_data_type(a, &code), goto done);
    CALL(zarr_array_element_size(a, &size), goto done);
    CALL(zarr_array_ndim(a, &ndim), goto done);
    if (strcmp(zarr_data_type_str(code), e->dtype) != 0) {
        FAIL("%s: data type code %d is \"%s\", expected \"%s\"", e->name, (int)code,
             zarr_data_type_str(code), e->dtype);
    }
    if (size != e->size || ndim != 2) {
        FAIL("%s: element size %zu and rank %zu, expected %zu and 2", e->name, size, ndim,
             e->size);
        goto done;
    }
    CALL(zarr_array_shape(a, 2, shape), goto done);
    if (shape[0] != e->shape[0] || shape[1] != e->shape[1]) {
        FAIL("%s: shape %llux%llu, expected %llux%llu", e->name, (unsigned long long)shape[0],
             (unsigned long long)shape[1], (unsigned long long)e->shape[0],
             (unsigned long long)e->shape[1]);
        goto done;
    }

    /* The fill value, as one host element. */
    fill = slurp_expected(dir, e->name, ".fill.bin", size, "fill value");
    if (!fill) goto done;
    unsigned char fill_got[16];
    CALL(zarr_array_fill_value(a, fill_got, sizeof fill_got), goto done);
    same_bytes(e->name, "fill value", fill, fill_got, size, size);

    /* The whole array: written elements, elements of partly written chunks that read as
     * the fill value, and chunks (shards, inner chunks) never written. */
    size_t nbytes = (size_t)(shape[0] * shape[1]) * size;
    expected = slurp_expected(dir, e->name, ".bin", nbytes, "whole array");
    got = malloc(nbytes);
    if (!expected || !got) goto done;
    memset(got, 0xA5, nbytes);
    uint64_t zero[2] = {0, 0};
    CALL(zarr_array_read(a, 2, zero, shape, got, nbytes), goto done);
    same_bytes(e->name, "whole array", expected, got, nbytes, size);

    /* A selection that starts and ends inside chunks, shards and inner chunks. */
    uint64_t start[2] = {5, 7}, count[2] = {14, 16};
    size_t part_len = (size_t)(count[0] * count[1]) * size;
    part = malloc(part_len);
    want = malloc(part_len);
    if (!part || !want) goto done;
    copy_region(expected, shape[1], start, count, size, want);
    CALL(zarr_array_read(a, 2, start, count, part, part_len), goto done);
    same_bytes(e->name, "selection [5:19, 7:23]", want, part, part_len, size);

    /* int2/int4 as int8 values: libzarr's conversion against ml_dtypes'. */
    if (is_sub_byte_int(e->dtype)) {
        size_t n = (size_t)(shape[0] * shape[1]);
        want_ints = (int8_t *)slurp_expected(dir, e->name, ".int8.bin", n, "int8 values");
        ints = malloc(n);
        if (!want_ints || !ints) goto done;
        CALL(zarr_sub_byte_to_int8(code, got, ints, n), goto done);
        same_bytes(e->name, "zarr_sub_byte_to_int8", (const unsigned char *)want_ints,
                   (const unsigned char *)ints, n, 1);
    }

done:
    free(expected);
    free(fill);
    free(got);
    free(part);
    free(want);
    free(ints);
    free(want_ints);
    zarr_array_free(a);
}

static void write_one(const char *ts_dir, zarr_store *out, const entry_t *e) {
    char path[1024];
    snprintf(path, sizeof path, "%s/store/%s/zarr.json", ts_dir, e->name);
    size_t json_len = 0;
    unsigned char *json = slurp(path, &json_len);
    size_t n_all = (size_t)(e->shape[0] * e->shape[1]);
    size_t n_region = (size_t)(e->count[0] * e->count[1]);
    unsigned char *expected = slurp_expected(ts_dir, e->name, ".bin", n_all * e->size, "whole array");
    unsigned char *region = malloc(n_region * e->size);
    int8_t *ints_all = NULL, *ints = NULL;
    unsigned char *codes = NULL;
    zarr_array *a = NULL;
    if (!json || !expected || !region) goto done;
    copy_region(expected, e->shape[1], e->start, e->count, e->size, region);

    snprintf(path, sizeof path, "/%s", e->name);
    CALL(zarr_array_create(out, path, (const char *)json, &a), goto done);

    const unsigned char *data = region;
    if (is_sub_byte_int(e->dtype)) {
        /* What a C program holding int8 values does: convert them to the host layout. */
        zarr_data_type code = 0;
        CALL(zarr_array_data_type(a, &code), goto done);
        ints_all = (int8_t *)slurp_expected(ts_dir, e->name, ".int8.bin", n_all, "int8 values");
        ints = malloc(n_region);
        codes = malloc(n_region);
        if (!ints_all || !ints || !codes) goto done;
        copy_region((const unsigned char *)ints_all, e->shape[1], e->start, e->count, 1,
                    (unsigned char *)ints);
        CALL(zarr_int8_to_sub_byte(code, ints, codes, n_region), goto done);
        if (!same_bytes(e->name, "zarr_int8_to_sub_byte", region, codes, n_region, 1)) goto done;
        data = codes;
    }
    CALL(zarr_array_write(a, 2, e->start, e->count, data, n_region * e->size), goto done);

done:
    free(json);
    free(expected);
    free(region);
    free(ints_all);
    free(ints);
    free(codes);
    zarr_array_free(a);
}

/* A byte with bits above int4's width is refused, naming the element, and nothing is
 * written (the chunk still reads as the fill value). */
static void check_refused_bits(zarr_store *scratch) {
    const char *meta =
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"int4\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":-1,"
        "\"codecs\":[{\"name\":\"bytes\"}]}";
    zarr_array *a = NULL;
    CALL(zarr_array_create(scratch, "/int4", meta, &a), return);
    uint64_t start[1] = {0}, count[1] = {4};
    const unsigned char bad[4] = {0x01, 0x02, 0x1f, 0x03};
    zarr_status s = zarr_array_write(a, 1, start, count, bad, sizeof bad);
    if (s != ZARR_ERROR_INVALID_ARGUMENT) {
        FAIL("int4 byte 0x1f: %s (%s), expected ZARR_ERROR_INVALID_ARGUMENT", zarr_status_str(s),
             zarr_last_error_message());
    } else if (!strstr(zarr_last_error_message(), "[2]")) {
        FAIL("int4 byte 0x1f: the message does not name element 2: %s", zarr_last_error_message());
    }
    unsigned char got[4] = {0};
    CALL(zarr_array_read(a, 1, start, count, got, sizeof got), goto done);
    for (int i = 0; i < 4; i++) {
        if (got[i] != 0x0f) {
            FAIL("int4 after a refused write: element %d is 0x%02x, expected the fill 0x0f", i, got[i]);
            break;
        }
    }
done:
    zarr_array_free(a);
}

int main(int argc, char **argv) {
    int reading = argc == 3 && strcmp(argv[1], "read") == 0;
    int writing = argc == 4 && strcmp(argv[1], "write") == 0;
    if (!reading && !writing) {
        fprintf(stderr, "usage: %s read TS_DIR | write TS_DIR OUT_DIR\n", argv[0]);
        return 2;
    }
    static entry_t entries[MAX_ARRAYS];
    size_t n = read_manifest(argv[2], entries);
    char path[1024];
    zarr_store *store = NULL;
    snprintf(path, sizeof path, "%s/store", reading ? argv[2] : argv[3]);
    CALL(zarr_store_open_filesystem(path, &store), return 1);
    for (size_t i = 0; i < n; i++) {
        if (reading) {
            check_read(argv[2], store, &entries[i]);
        } else {
            write_one(argv[2], store, &entries[i]);
        }
    }
    zarr_store_free(store);
    if (writing) {
        zarr_store *scratch = NULL;
        snprintf(path, sizeof path, "%s/scratch", argv[3]);
        CALL(zarr_store_open_filesystem(path, &scratch), return 1);
        check_refused_bits(scratch);
        zarr_store_free(scratch);
        /* ts_read.py reads the same arrays: copy the manifest. */
        size_t len = 0;
        snprintf(path, sizeof path, "%s/manifest.txt", argv[2]);
        unsigned char *manifest = slurp(path, &len);
        snprintf(path, sizeof path, "%s/manifest.txt", argv[3]);
        FILE *f = manifest ? fopen(path, "wb") : NULL;
        if (f) {
            int bad = fwrite(manifest, 1, len, f) != len;
            if (fclose(f) != 0 || bad) FAIL("cannot write %s", path);
        } else if (manifest) {
            FAIL("cannot create %s", path);
        }
        free(manifest);
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("libzarr %s %zu arrays of tensorstore's\n", reading ? "read" : "wrote", n);
    return 0;
}
