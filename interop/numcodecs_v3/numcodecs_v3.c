/* numcodecs_v3.c -- the numcodecs.* v3 codecs between zarr-python 3.4 and libzarr (and, with
 * interop/reshape, the reshape codec between zarrs and libzarr).
 *
 * Usage: numcodecs_v3 read DATA_DIR | numcodecs_v3 write DATA_DIR
 *
 * DATA_DIR is what python_write.py (or interop/reshape/zarrs_reshape.py) made: py/<name>
 * (2-d arrays the peer wrote, rows 0..15),
 * expected/<name>.bin (their values, C order, native byte order) and manifest.txt (lines
 * `<name> <data type> <codec name> <same>`).
 *
 * read:  opens each py/<name> array, reads it whole and a region, compares them byte for
 *        byte with the expectation, and checks that the metadata libzarr gives back still
 *        names the codec (`numcodecs.<x>`, `reshape`).
 * write: creates c/<name> from the peer's own zarr.json text (same codecs, same
 *        configurations), writes the rows the peer wrote (0..15; the rest stays fill
 *        value, unstored), reads it back whole and a region, and checks that the metadata
 *        still names the codec. python_read.py (zarrs_reshape.py read) then reads c/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

#define FAIL_PREFIX() fprintf(stderr, "FAIL %s: ", name)
#include "../interop_check.h"

/* Whether the JSON text names the codec (as `"name":"<codec>"`, with or without spaces). */
static int names_codec(const char *json, const char *codec) {
    char compact[256], spaced[256];
    snprintf(compact, sizeof compact, "\"name\":\"%s\"", codec);
    snprintf(spaced, sizeof spaced, "\"name\": \"%s\"", codec);
    return strstr(json, compact) != NULL || strstr(json, spaced) != NULL;
}

/* Open (or create from `metadata`) the array `name` in `store`, check its values against
 * `expected`, and that its metadata names `codec`. */
static void check(zarr_store *store, const char *name, const char *codec,
                  const unsigned char *expected, size_t expected_len, const char *metadata) {
    char path[512];
    zarr_array *array = NULL;
    size_t ndim = 0, nbytes = 0, elem = 0, sub_bytes = 0, i;
    uint64_t shape[8], zero[8] = {0}, start[8], count[8];
    unsigned char *got = NULL, *sub = NULL;
    char *json = NULL;

    snprintf(path, sizeof path, "/%s", name);
    if (metadata) {
        /* The rows the peer wrote: 0..15 (the values come from the expectation). */
        CALL(zarr_array_create(store, path, metadata, &array));
        CALL(zarr_array_ndim(array, &ndim));
        CALL(zarr_array_shape(array, ndim, shape));
        CALL(zarr_array_element_size(array, &elem));
        if (ndim != 2 || shape[0] < 16) FAIL("not a 2-d array of at least 16 rows");
        count[0] = 16;
        count[1] = shape[1];
        CALL(zarr_array_write(array, 2, zero, count, expected,
                              (size_t)(16 * shape[1]) * elem));
        zarr_array_free(array);
        array = NULL;
    }
    CALL(zarr_array_open(store, path, &array));
    CALL(zarr_array_ndim(array, &ndim));
    CALL(zarr_array_shape(array, ndim, shape));
    CALL(zarr_array_element_size(array, &elem));
    CALL(zarr_array_selection_nbytes(array, ndim, zero, shape, &nbytes));
    if (nbytes != expected_len) FAIL("%zu bytes, expected %zu", nbytes, expected_len);
    got = malloc(nbytes);
    CALL(zarr_array_read(array, ndim, zero, shape, got, nbytes));
    if (memcmp(got, expected, nbytes) != 0) FAIL("whole array differs from zarr-python's values");
    /* Rows 5..17, columns 9..29: across chunk edges and into the unwritten rows. */
    start[0] = 5;
    start[1] = 9;
    count[0] = 13;
    count[1] = shape[1] - 9;
    sub_bytes = (size_t)(count[0] * count[1]) * elem;
    sub = malloc(sub_bytes);
    CALL(zarr_array_read(array, 2, start, count, sub, sub_bytes));
    for (i = 0; i < count[0]; i++) {
        const unsigned char *want = expected + ((start[0] + i) * shape[1] + start[1]) * elem;
        if (memcmp(sub + i * count[1] * elem, want, (size_t)count[1] * elem) != 0)
            FAIL("region row %zu differs", (size_t)(start[0] + i));
    }
    CALL(zarr_array_metadata_json(array, &json));
    if (!names_codec(json, codec)) FAIL("metadata lost the codec name %s: %s", codec, json);
    passes++;
    printf("ok   %s (%s)\n", name, codec);
done:
    free(got);
    free(sub);
    zarr_string_free(json);
    zarr_array_free(array);
}

int main(int argc, char **argv) {
    char line[1024], file[8400];
    const char *dir;
    int writing;
    FILE *manifest;
    zarr_store *py = NULL, *c = NULL;

    if (argc != 3 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "write") != 0)) {
        fprintf(stderr, "usage: %s read|write DATA_DIR\n", argv[0]);
        return 2;
    }
    writing = strcmp(argv[1], "write") == 0;
    dir = argv[2];
    snprintf(file, sizeof file, "%s/py", dir);
    if (zarr_store_open_filesystem(file, &py) != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s\n", file, zarr_last_error_message());
        return 1;
    }
    snprintf(file, sizeof file, "%s/c", dir);
    if (writing && zarr_store_open_filesystem(file, &c) != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s\n", file, zarr_last_error_message());
        return 1;
    }
    snprintf(file, sizeof file, "%s/manifest.txt", dir);
    manifest = fopen(file, "r");
    if (!manifest) {
        fprintf(stderr, "cannot read %s\n", file);
        return 1;
    }
    while (fgets(line, sizeof line, manifest)) {
        char name[256], dtype[64], codec[128];
        int same = 0;
        size_t expected_len = 0, metadata_len = 0;
        unsigned char *expected, *metadata = NULL;
        if (sscanf(line, "%255s %63s %127s %d", name, dtype, codec, &same) != 4) continue;
        snprintf(file, sizeof file, "%s/expected/%s.bin", dir, name);
        expected = read_file(file, &expected_len);
        if (!expected) {
            fprintf(stderr, "FAIL %s: cannot read %s\n", name, file);
            failures++;
            continue;
        }
        if (writing) {
            snprintf(file, sizeof file, "%s/py/%s/zarr.json", dir, name);
            metadata = read_file(file, &metadata_len);
            if (!metadata) {
                fprintf(stderr, "FAIL %s: cannot read %s\n", name, file);
                failures++;
                free(expected);
                continue;
            }
            check(c, name, codec, expected, expected_len, (const char *)metadata);
        } else {
            check(py, name, codec, expected, expected_len, NULL);
        }
        free(expected);
        free(metadata);
    }
    fclose(manifest);
    zarr_store_free(py);
    zarr_store_free(c);
    printf("%d passed, %d failed\n", passes, failures);
    return failures == 0 && passes > 0 ? 0 : 1;
}
