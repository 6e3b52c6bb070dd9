/* read_peer.c -- read through the C API what another implementation wrote (zarr-python
 * with python_write.py, python_write_v2.py and python_write_dtypes.py, tensorstore with
 * tensorstore_write.py).
 *
 * Usage: read_peer DATA_DIR [--consolidated]
 *
 * DATA_DIR/store.url, when present, names the store instead (see open_store.h).
 *
 * With --consolidated every node is opened through zarr_store_open_consolidated (the
 * store must hold consolidated metadata: .zmetadata or an inline consolidated_metadata).
 *
 * DATA_DIR holds store/ (the hierarchy), manifest.txt (lines `<node path> <data type>
 * <expected bin>`), the expected values of each array (full array, C order, native byte
 * order) and, when the writer made a root group, attributes.json (its attributes). For each
 * array this checks the data type, the whole array byte for byte, a sub-region, and the
 * first chunk read with zarr_array_read_chunk against the same expectation; then, if there
 * is one, the root group's attributes and children.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "open_store.h"
#include "zarr.h"

#define FAIL_PREFIX() fprintf(stderr, "FAIL %s: ", path)
#include "interop_check.h"

static const char *data_type_name(zarr_data_type t) {
    switch (t) {
    case ZARR_DATA_TYPE_BOOL: return "bool";
    case ZARR_DATA_TYPE_INT8: return "int8";
    case ZARR_DATA_TYPE_INT16: return "int16";
    case ZARR_DATA_TYPE_INT32: return "int32";
    case ZARR_DATA_TYPE_INT64: return "int64";
    case ZARR_DATA_TYPE_UINT8: return "uint8";
    case ZARR_DATA_TYPE_UINT16: return "uint16";
    case ZARR_DATA_TYPE_UINT32: return "uint32";
    case ZARR_DATA_TYPE_UINT64: return "uint64";
    case ZARR_DATA_TYPE_FLOAT16: return "float16";
    case ZARR_DATA_TYPE_FLOAT32: return "float32";
    case ZARR_DATA_TYPE_FLOAT64: return "float64";
    case ZARR_DATA_TYPE_COMPLEX64: return "complex64";
    case ZARR_DATA_TYPE_COMPLEX128: return "complex128";
    case ZARR_DATA_TYPE_BFLOAT16: return "bfloat16";
    case ZARR_DATA_TYPE_FIXED_LENGTH_UTF32: return "fixed_length_utf32";
    case ZARR_DATA_TYPE_NULL_TERMINATED_BYTES: return "null_terminated_bytes";
    case ZARR_DATA_TYPE_RAW_BYTES: return "raw_bytes";
    case ZARR_DATA_TYPE_DATETIME64: return "datetime64";
    case ZARR_DATA_TYPE_TIMEDELTA64: return "timedelta64";
    case ZARR_DATA_TYPE_STRUCT: return "struct";
    default: return "raw";
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

static void check_array(const zarr_store *store, const char *dir, const char *path,
                        const char *dtype, const char *bin) {
    char name[8400];
    zarr_array *array = NULL;
    size_t ndim = 0, elem = 0, nbytes = 0, expected_len = 0, chunk_nbytes = 0, d;
    uint64_t shape[32], chunk[32], start[32], count[32], zero[32] = {0};
    zarr_data_type type = 0;
    unsigned char *expected = NULL, *got = NULL, *sub = NULL, *want = NULL, *chunk_buf = NULL;
    int empty = 0;

    snprintf(name, sizeof name, "%s/%s", dir, bin);
    expected = read_file(name, &expected_len);
    if (!expected) FAIL("cannot read %s", name);
    CALL(zarr_array_open(store, path, &array));
    CALL(zarr_array_ndim(array, &ndim));
    CALL(zarr_array_shape(array, ndim, shape));
    CALL(zarr_array_chunk_shape(array, ndim, chunk));
    CALL(zarr_array_data_type(array, &type));
    CALL(zarr_array_element_size(array, &elem));
    if (strcmp(data_type_name(type), dtype) != 0)
        FAIL("data type %s, expected %s", data_type_name(type), dtype);
    CALL(zarr_array_selection_nbytes(array, ndim, zero, shape, &nbytes));
    if (nbytes != expected_len) FAIL("%zu bytes, expected %zu", nbytes, expected_len);
    got = malloc(nbytes + 1);
    CALL(zarr_array_read(array, ndim, zero, shape, got, nbytes));
    if (memcmp(got, expected, nbytes) != 0) FAIL("full read differs from what the writer reads");

    /* A sub-region from a third of the way in to the end. */
    for (d = 0; d < ndim; d++) {
        start[d] = shape[d] / 3;
        count[d] = shape[d] - start[d];
        if (count[d] == 0) empty = 1;
    }
    if (!empty) {
        size_t sub_bytes = 0;
        CALL(zarr_array_selection_nbytes(array, ndim, start, count, &sub_bytes));
        sub = malloc(sub_bytes + 1);
        want = malloc(sub_bytes + 1);
        CALL(zarr_array_read(array, ndim, start, count, sub, sub_bytes));
        slice_expected(expected, shape, ndim, start, count, elem, want);
        if (memcmp(sub, want, sub_bytes) != 0) FAIL("sub-region read differs");

        /* Chunk (0, ..., 0): its part inside the array must match. */
        CALL(zarr_array_chunk_nbytes(array, &chunk_nbytes));
        chunk_buf = malloc(chunk_nbytes + 1);
        CALL(zarr_array_read_chunk(array, ndim, zero, chunk_buf, chunk_nbytes));
        {
            uint64_t inside[32];
            size_t inside_bytes = elem, k;
            unsigned char *part;
            for (d = 0; d < ndim; d++) {
                inside[d] = chunk[d] < shape[d] ? chunk[d] : shape[d];
                inside_bytes *= (size_t)inside[d];
            }
            part = malloc(inside_bytes + 1);
            free(want);
            want = malloc(inside_bytes + 1);
            slice_expected(chunk_buf, chunk, ndim, zero, inside, elem, part);
            slice_expected(expected, shape, ndim, zero, inside, elem, want);
            k = (size_t)memcmp(part, want, inside_bytes);
            free(part);
            if (k != 0) FAIL("chunk 0 differs");
        }
    }
    passes++;
    printf("ok   %s (%s)\n", path, dtype);
done:
    free(expected);
    free(got);
    free(sub);
    free(want);
    free(chunk_buf);
    zarr_array_free(array);
}

static void check_group(const zarr_store *store, const char *dir) {
    const char *path = "/";
    char name[8400];
    size_t len = 0;
    unsigned char *attributes = NULL;
    char *json = NULL, *children = NULL;
    zarr_group *group = NULL, *sub = NULL;

    snprintf(name, sizeof name, "%s/attributes.json", dir);
    attributes = read_file(name, &len);
    if (!attributes) return; /* this writer made no group */
    CALL(zarr_group_open(store, "/", &group));
    CALL(zarr_group_attributes_json(group, &json));
    if (strcmp(json, (const char *)attributes) != 0)
        FAIL("attributes %s, expected %s", json, (const char *)attributes);
    CALL(zarr_group_children_json(group, &children));
    if (!strstr(children, "{\"name\":\"sub\",\"path\":\"/sub\",\"node_type\":\"group\"}") ||
        !strstr(children, "{\"name\":\"dtypes\",\"path\":\"/dtypes\",\"node_type\":\"group\"}"))
        FAIL("children %s", children);
    CALL(zarr_group_open(store, "/sub", &sub));
    zarr_string_free(json);
    json = NULL;
    CALL(zarr_group_attributes_json(sub, &json));
    if (strcmp(json, "{\"level\":1}") != 0) FAIL("sub attributes %s", json);
    passes++;
    printf("ok   / (group attributes and children)\n");
done:
    free(attributes);
    zarr_string_free(json);
    zarr_string_free(children);
    zarr_group_free(group);
    zarr_group_free(sub);
}

int main(int argc, char **argv) {
    char name[8400], line[8192];
    const char *dir;
    zarr_store *store = NULL;
    FILE *manifest;
    int consolidated = argc == 3 && strcmp(argv[2], "--consolidated") == 0;
    if (argc != 2 && !consolidated) {
        fprintf(stderr, "usage: read_peer DATA_DIR [--consolidated]\n");
        return 2;
    }
    dir = argv[1];
    snprintf(name, sizeof name, "%s/store", dir);
    if (interop_open_store(dir, &store) != 0) return 1;
    if (consolidated) {
        zarr_store *view = NULL;
        if (zarr_store_open_consolidated(store, &view) != ZARR_OK) {
            fprintf(stderr, "no consolidated metadata in %s: %s\n", name, zarr_last_error_message());
            zarr_store_free(store);
            return 1;
        }
        zarr_store_free(store);
        store = view;
    }
    snprintf(name, sizeof name, "%s/manifest.txt", dir);
    manifest = fopen(name, "r");
    if (!manifest) {
        fprintf(stderr, "cannot read %s\n", name);
        return 1;
    }
    while (fgets(line, sizeof line, manifest)) {
        char path[4096], dtype[64], bin[4096];
        if (sscanf(line, "%4095s %63s %4095s", path, dtype, bin) == 3)
            check_array(store, dir, path, dtype, bin);
    }
    fclose(manifest);
    check_group(store, dir);
    zarr_store_free(store);
    printf("%d passed, %d failed\n", passes, failures);
    return failures == 0 && passes > 1 ? 0 : 1;
}
