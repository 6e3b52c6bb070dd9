/* vlen.c -- variable-length strings and bytes between libzarr and zarr-python.
 *
 * Usage: interop_vlen read DATA_DIR     (check what python_write_vlen.py wrote)
 *        interop_vlen write DATA_DIR    (write arrays for python_read_vlen.py)
 *
 * Both sides exchange expectations as .arrow files: u64le n, then n + 1 u64le offsets, then
 * the elements' bytes (element i is data[offsets[i] .. offsets[i + 1]), C order), and a
 * manifest.txt of lines `<node path> <string|bytes> <file>`.
 *
 * read: for each array, the data type, the whole array (size query, then the read) and an
 * interior sub-region, each compared element by element with the expectation.
 * write: v3 `string` (vlen-utf8 + zstd, a non-empty fill value, 2-d with edge chunks), v3
 * `bytes` (vlen-bytes), both also in `sharding_indexed` shards (index with crc32c at the
 * end as zarr-python writes it; at the start), v2 `|O` with vlen-utf8 and with vlen-bytes;
 * regions written with
 * zarr_array_write_vlen, some chunks never written, one element overwritten by a second
 * partial write; the expectation is the intended content (fill value where not written).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "open_store.h"
#include "zarr.h"

/* ---- elements in Arrow form ---------------------------------------------------------- */

typedef struct {
    size_t n;
    uint64_t *offsets; /* n + 1 */
    unsigned char *data;
} elements;

static void elements_free(elements *e) {
    free(e->offsets);
    free(e->data);
    e->offsets = NULL;
    e->data = NULL;
}

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void put_le64(unsigned char *p, uint64_t v) {
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Load an .arrow file; 0 on success. */
static int load_arrow(const char *name, elements *out) {
    FILE *f = fopen(name, "rb");
    unsigned char head[8];
    size_t i, bytes;
    long size;
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 16 || fread(head, 1, 8, f) != 8) goto bad;
    out->n = (size_t)le64(head);
    if (out->n > (size_t)size / 8) goto bad;
    out->offsets = malloc((out->n + 1) * sizeof(uint64_t));
    if (!out->offsets) goto bad;
    for (i = 0; i <= out->n; i++) {
        if (fread(head, 1, 8, f) != 8) goto bad;
        out->offsets[i] = le64(head);
    }
    bytes = (size_t)out->offsets[out->n];
    out->data = malloc(bytes ? bytes : 1);
    if (!out->data || fread(out->data, 1, bytes, f) != bytes) goto bad;
    fclose(f);
    return 0;
bad:
    fclose(f);
    elements_free(out);
    return -1;
}

static int save_arrow(const char *name, const elements *e) {
    FILE *f = fopen(name, "wb");
    unsigned char word[8];
    size_t i;
    int ok;
    if (!f) return -1;
    put_le64(word, e->n);
    ok = fwrite(word, 1, 8, f) == 8;
    for (i = 0; ok && i <= e->n; i++) {
        put_le64(word, e->offsets[i]);
        ok = fwrite(word, 1, 8, f) == 8;
    }
    if (ok && e->offsets[e->n] > 0)
        ok = fwrite(e->data, 1, (size_t)e->offsets[e->n], f) == (size_t)e->offsets[e->n];
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* Read the selection with the size query first, as a user would. */
static zarr_status read_elements(const zarr_array *a, size_t ndim, const uint64_t *start,
                                 const uint64_t *count, elements *out) {
    size_t n = 1, size = 0, d;
    zarr_status s;
    for (d = 0; d < ndim; d++) n *= (size_t)count[d];
    out->n = n;
    out->offsets = malloc((n + 1) * sizeof(uint64_t));
    out->data = NULL;
    if (!out->offsets) return ZARR_ERROR_OUT_OF_MEMORY;
    s = zarr_array_read_vlen(a, ndim, start, count, out->offsets, n + 1, NULL, 0, &size);
    if (s != ZARR_OK) return s;
    out->data = malloc(size ? size : 1);
    if (!out->data) return ZARR_ERROR_OUT_OF_MEMORY;
    return zarr_array_read_vlen(a, ndim, start, count, out->offsets, n + 1, out->data, size,
                                &size);
}

/* Whether element `i` of `got` equals element `j` of `want`; prints the first difference. */
static int same_element(const char *path, const elements *got, size_t i, const elements *want,
                        size_t j) {
    size_t a = (size_t)(got->offsets[i + 1] - got->offsets[i]);
    size_t b = (size_t)(want->offsets[j + 1] - want->offsets[j]);
    if (a == b && memcmp(got->data + got->offsets[i], want->data + want->offsets[j], a) == 0)
        return 1;
    fprintf(stderr, "FAIL %s: element %zu: got %zu bytes '%.*s', expected %zu bytes '%.*s'\n",
            path, j, a, (int)(a > 60 ? 60 : a), (const char *)got->data + got->offsets[i], b,
            (int)(b > 60 ? 60 : b), (const char *)want->data + want->offsets[j]);
    return 0;
}

/* ---- read: what zarr-python wrote ------------------------------------------------------ */

static int check_array(zarr_store *store, const char *path, const char *kind,
                       const elements *want) {
    zarr_array *a = NULL;
    zarr_data_type type = 0;
    uint64_t shape[8], start[8], count[8], zero[8] = {0};
    size_t ndim = 0, i, d;
    elements got = {0, NULL, NULL}, part = {0, NULL, NULL};
    zarr_status s;
    int ok = 0;
    if ((s = zarr_array_open(store, path, &a)) != ZARR_OK ||
        (s = zarr_array_data_type(a, &type)) != ZARR_OK ||
        (s = zarr_array_ndim(a, &ndim)) != ZARR_OK || ndim > 8 ||
        (s = zarr_array_shape(a, ndim, shape)) != ZARR_OK) {
        fprintf(stderr, "FAIL %s: open: %s\n", path, zarr_last_error_message());
        goto done;
    }
    if (type != (strcmp(kind, "string") == 0 ? ZARR_DATA_TYPE_STRING : ZARR_DATA_TYPE_BYTES)) {
        fprintf(stderr, "FAIL %s: data type code %d for %s\n", path, (int)type, kind);
        goto done;
    }
    if ((s = read_elements(a, ndim, zero, shape, &got)) != ZARR_OK) {
        fprintf(stderr, "FAIL %s: whole read: %s\n", path, zarr_last_error_message());
        goto done;
    }
    if (got.n != want->n) {
        fprintf(stderr, "FAIL %s: %zu elements, expected %zu\n", path, got.n, want->n);
        goto done;
    }
    for (i = 0; i < got.n; i++)
        if (!same_element(path, &got, i, want, i)) goto done;
    /* The interior sub-region from shape / 3 to the end. */
    for (d = 0; d < ndim; d++) {
        start[d] = shape[d] / 3;
        count[d] = shape[d] - start[d];
    }
    if ((s = read_elements(a, ndim, start, count, &part)) != ZARR_OK) {
        fprintf(stderr, "FAIL %s: sub-region read: %s\n", path, zarr_last_error_message());
        goto done;
    }
    for (i = 0; i < part.n; i++) {
        size_t rem = i, flat = 0, pos[8];
        for (d = ndim; d-- > 0;) {
            pos[d] = (size_t)(start[d] + rem % count[d]);
            rem /= (size_t)count[d];
        }
        for (d = 0; d < ndim; d++) flat = flat * (size_t)shape[d] + pos[d];
        if (!same_element(path, &part, i, want, flat)) goto done;
    }
    ok = 1;
done:
    elements_free(&got);
    elements_free(&part);
    zarr_array_free(a);
    return ok;
}

static int run_read(const char *dir) {
    char name[8400], line[1024], path[512], kind[32], file[256];
    zarr_store *store = NULL;
    FILE *manifest;
    int checked = 0, failed = 0;
    if (interop_open_store(dir, &store) != 0) return 1;
    snprintf(name, sizeof name, "%s/manifest.txt", dir);
    manifest = fopen(name, "r");
    if (!manifest) {
        fprintf(stderr, "cannot open %s\n", name);
        zarr_store_free(store);
        return 1;
    }
    while (fgets(line, sizeof line, manifest)) {
        elements want = {0, NULL, NULL};
        if (sscanf(line, "%511s %31s %255s", path, kind, file) != 3) continue;
        snprintf(name, sizeof name, "%s/%s", dir, file);
        if (load_arrow(name, &want) != 0) {
            fprintf(stderr, "FAIL %s: cannot load %s\n", path, name);
            failed++;
            continue;
        }
        if (check_array(store, path, kind, &want)) {
            printf("ok   %s (%s, %zu elements)\n", path, kind, want.n);
        } else {
            failed++;
        }
        checked++;
        elements_free(&want);
    }
    fclose(manifest);
    zarr_store_free(store);
    printf("%d arrays checked, %d failed\n", checked, failed);
    return (failed == 0 && checked > 0) ? 0 : 1;
}

/* ---- write: arrays for zarr-python -------------------------------------------------- */

static const char *const WORDS[] = {"", "b", "libzarr", "\xc3\xa9t\xc3\xa9",
                                    "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80 grin",
                                    "quote \" and \\ backslash", "line\nbreak",
                                    "a much longer element than the other ones, to vary sizes"};
#define NWORDS (sizeof WORDS / sizeof WORDS[0])

/* The element the writer puts at flat index `i` (bytes arrays get non-UTF-8 bytes too). */
static size_t element_at(size_t i, int is_bytes, unsigned char *out) {
    if (is_bytes) {
        size_t len = (i * 7) % 23, k;
        for (k = 0; k < len; k++) out[k] = (unsigned char)(i * 31 + k * 17);
        return len;
    } else {
        const char *w = WORDS[(i * 5 + 3) % NWORDS];
        memcpy(out, w, strlen(w));
        return strlen(w);
    }
}

static int inside(const uint64_t *pos, const uint64_t *start, const uint64_t *count,
                  size_t ndim) {
    size_t d;
    for (d = 0; d < ndim; d++)
        if (pos[d] < start[d] || pos[d] >= start[d] + count[d]) return 0;
    return 1;
}

typedef struct {
    const char *path;
    const char *meta;
    size_t ndim;
    uint64_t shape[2];
    uint64_t start[2], count[2]; /* the region written */
    const char *fill;
    int is_bytes;
} array_spec;

static const array_spec SPECS[] = {
    {"/v3/strings",
     "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [7, 5], \"data_type\": \"string\","
     " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [3, 2]}},"
     " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
     " \"codecs\": [{\"name\": \"vlen-utf8\"}, {\"name\": \"zstd\", \"configuration\":"
     " {\"level\": 3, \"checksum\": true}}]}",
     2, {7, 5}, {1, 0}, {5, 4}, "", 0},
    {"/v3/strings_fill",
     "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [6], \"data_type\": \"string\","
     " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4]}},"
     " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"n/a\","
     " \"codecs\": [{\"name\": \"vlen-utf8\"}]}",
     1, {6, 0}, {1, 0}, {2, 0}, "n/a", 0},
    {"/v3/bytes",
     "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [9], \"data_type\": \"bytes\","
     " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4]}},"
     " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
     " \"codecs\": [{\"name\": \"vlen-bytes\"}, {\"name\": \"gzip\", \"configuration\":"
     " {\"level\": 1}}]}",
     1, {9, 0}, {0, 0}, {6, 0}, "", 1},
    {"/v3/strings_sharded",
     "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [7, 5], \"data_type\": \"string\","
     " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 4]}},"
     " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
     " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2],"
     " \"codecs\": [{\"name\": \"vlen-utf8\"}, {\"name\": \"zstd\", \"configuration\":"
     " {\"level\": 3, \"checksum\": false}}], \"index_codecs\": [{\"name\": \"bytes\","
     " \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}],"
     " \"index_location\": \"end\"}}]}",
     2, {7, 5}, {1, 0}, {5, 4}, "", 0},
    {"/v3/strings_sharded_start",
     "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [6, 7], \"data_type\": \"string\","
     " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 6]}},"
     " \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \".\"}},"
     " \"fill_value\": \"-\", \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\":"
     " {\"chunk_shape\": [2, 3], \"codecs\": [{\"name\": \"vlen-utf8\"}],"
     " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
     " {\"name\": \"crc32c\"}], \"index_location\": \"start\"}}]}",
     2, {6, 7}, {2, 1}, {4, 5}, "-", 0},
    {"/v3/bytes_sharded",
     "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [9], \"data_type\": \"bytes\","
     " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4]}},"
     " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
     " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2],"
     " \"codecs\": [{\"name\": \"vlen-bytes\"}, {\"name\": \"gzip\", \"configuration\":"
     " {\"level\": 1}}], \"index_codecs\": [{\"name\": \"bytes\", \"configuration\":"
     " {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]}",
     1, {9, 0}, {1, 0}, {5, 0}, "", 1},
    {"/v2/strings",
     "{\"zarr_format\": 2, \"shape\": [6, 3], \"chunks\": [4, 2], \"dtype\": \"|O\","
     " \"compressor\": {\"id\": \"zstd\", \"level\": 1}, \"fill_value\": \"\", \"order\": \"C\","
     " \"filters\": [{\"id\": \"vlen-utf8\"}]}",
     2, {6, 3}, {0, 0}, {4, 3}, "", 0},
    {"/v2/strings_fill_0",
     "{\"zarr_format\": 2, \"shape\": [5], \"chunks\": [2], \"dtype\": \"|O\","
     " \"compressor\": null, \"fill_value\": 0, \"order\": \"C\","
     " \"filters\": [{\"id\": \"vlen-utf8\"}]}",
     1, {5, 0}, {0, 0}, {3, 0}, "", 0},
    {"/v2/bytes",
     "{\"zarr_format\": 2, \"shape\": [7], \"chunks\": [3], \"dtype\": \"|O\","
     " \"compressor\": null, \"fill_value\": \"\", \"order\": \"C\","
     " \"filters\": [{\"id\": \"vlen-bytes\"}]}",
     1, {7, 0}, {0, 0}, {5, 0}, "", 1},
};

static int write_array(zarr_store *store, const char *dir, const array_spec *spec, int index,
                       FILE *manifest) {
    zarr_array *a = NULL;
    size_t n_region = 1, n_all = 1, d, i, k = 0;
    uint64_t *offsets = NULL;
    unsigned char *data = NULL, element[64];
    elements want = {0, NULL, NULL};
    uint64_t pos[2];
    char name[8400];
    int ok = 0;
    zarr_status s;
    for (d = 0; d < spec->ndim; d++) {
        n_region *= (size_t)spec->count[d];
        n_all *= (size_t)spec->shape[d];
    }
    offsets = malloc((n_region + 1) * sizeof(uint64_t));
    data = malloc(n_region * 64);
    want.n = n_all;
    want.offsets = malloc((n_all + 1) * sizeof(uint64_t));
    want.data = malloc(n_all * 64 + 1);
    if (!offsets || !data || !want.offsets || !want.data) goto done;
    /* The region's elements, from the element of each flat array index. */
    offsets[0] = 0;
    for (i = 0; i < n_region; i++) {
        size_t rem = i, flat = 0, len;
        for (d = spec->ndim; d-- > 0;) {
            pos[d] = spec->start[d] + rem % spec->count[d];
            rem /= (size_t)spec->count[d];
        }
        for (d = 0; d < spec->ndim; d++) flat = flat * (size_t)spec->shape[d] + (size_t)pos[d];
        len = element_at(flat, spec->is_bytes, data + offsets[i]);
        offsets[i + 1] = offsets[i] + len;
    }
    if ((s = zarr_array_create(store, spec->path, spec->meta, &a)) != ZARR_OK ||
        (s = zarr_array_write_vlen(a, spec->ndim, spec->start, spec->count, offsets,
                                   n_region + 1, data, (size_t)offsets[n_region])) != ZARR_OK) {
        fprintf(stderr, "FAIL %s: %s\n", spec->path, zarr_last_error_message());
        goto done;
    }
    /* A second, partial write of one element (a read-merge-write of its chunk). */
    {
        uint64_t one[2] = {1, 1}, two[2] = {0, 5};
        const char *text = spec->is_bytes ? "\x01\x02\x03\x04\x05" : "again";
        if ((s = zarr_array_write_vlen(a, spec->ndim, spec->start, one, two, 2, text, 5)) !=
            ZARR_OK) {
            fprintf(stderr, "FAIL %s: second write: %s\n", spec->path,
                    zarr_last_error_message());
            goto done;
        }
    }
    /* The expectation: written elements, the overwritten one, the fill value elsewhere. */
    want.offsets[0] = 0;
    for (i = 0; i < n_all; i++) {
        size_t rem = i, len;
        for (d = spec->ndim; d-- > 0;) {
            pos[d] = rem % spec->shape[d];
            rem /= (size_t)spec->shape[d];
        }
        if (i == (spec->ndim == 2 ? (size_t)(spec->start[0] * spec->shape[1] + spec->start[1])
                                  : (size_t)spec->start[0])) {
            len = 5;
            memcpy(element, spec->is_bytes ? "\x01\x02\x03\x04\x05" : "again", 5);
        } else if (inside(pos, spec->start, spec->count, spec->ndim)) {
            len = element_at(i, spec->is_bytes, element);
        } else {
            len = strlen(spec->fill);
            memcpy(element, spec->fill, len);
        }
        memcpy(want.data + k, element, len);
        k += len;
        want.offsets[i + 1] = k;
    }
    snprintf(name, sizeof name, "%s/expected/%d.arrow", dir, index);
    if (save_arrow(name, &want) != 0) {
        fprintf(stderr, "cannot write %s\n", name);
        goto done;
    }
    fprintf(manifest, "%s %s expected/%d.arrow\n", spec->path,
            spec->is_bytes ? "bytes" : "string", index);
    ok = 1;
done:
    zarr_array_free(a);
    free(offsets);
    free(data);
    elements_free(&want);
    return ok;
}

static int run_write(const char *dir) {
    char name[8400];
    zarr_store *store = NULL;
    FILE *manifest;
    size_t i;
    int failed = 0;
    snprintf(name, sizeof name, "%s/expected", dir);
    mkdir(dir, 0777);
    mkdir(name, 0777); /* (errors show when the files are written) */
    if (interop_open_store(dir, &store) != 0) return 1;
    snprintf(name, sizeof name, "%s/manifest.txt", dir);
    manifest = fopen(name, "w");
    if (!manifest) {
        zarr_store_free(store);
        return 1;
    }
    for (i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)
        if (!write_array(store, dir, &SPECS[i], (int)i, manifest)) failed++;
    fclose(manifest);
    zarr_store_free(store);
    printf("wrote %zu arrays, %d failed\n", sizeof SPECS / sizeof SPECS[0], failed);
    return failed == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "read") == 0) return run_read(argv[2]);
    if (argc == 3 && strcmp(argv[1], "write") == 0) return run_write(argv[2]);
    fprintf(stderr, "usage: interop_vlen read|write DATA_DIR\n");
    return 2;
}
