/* write_c_v2.c -- write Zarr v2 arrays through the C API for zarr-python to read
 * (interop, v2, direction 2).
 *
 * Usage: write_c_v2 OUT_DIR
 *
 * Writes OUT_DIR/store: a v2 hierarchy (root group with attributes, a "sub" group) with
 * arrays covering every numeric dtype in both byte orders, C and F order, both dimension
 * separators, NaN and null fill values, unwritten chunks, each numcodecs compressor and the
 * filters delta, shuffle, fixedscaleoffset, quantize, bitround and astype; then consolidates
 * the metadata. For each array the expectation (OUT_DIR/expected/<n>.bin, listed in
 * OUT_DIR/manifest.txt as `<path> <v3 data type> <bin>`) is what libzarr reads back; for
 * lossless codecs that must also equal what was written, which this program checks itself.
 * OUT_DIR/attributes.json and OUT_DIR/members.txt say what python_read.py expects of the
 * root group.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zarr.h"

static const char *out_dir;
static FILE *manifest;
static int n_arrays;
static int failures;

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fail(const char *what, const char *path, zarr_status status) {
    fprintf(stderr, "FAIL %s %s: %s: %s\n", path, what, zarr_status_str(status), zarr_last_error_message());
    failures++;
}

/* Element values: arbitrary bit patterns for lossless cases (bools 0/1), or smooth finite
 * floats (for the lossy filters, whose result on NaN or huge values depends on the
 * platform's float-to-integer conversions). */
static void make_values(const char *v3_type, size_t size, int smooth, unsigned char *out, size_t n) {
    size_t i, b;
    for (i = 0; i < n; i++)
        for (b = 0; b < size; b++) out[i * size + b] = (unsigned char)(next_random() >> 24);
    if (strcmp(v3_type, "bool") == 0)
        for (i = 0; i < n; i++) out[i] &= 1;
    if (smooth && strcmp(v3_type, "float32") == 0)
        for (i = 0; i < n; i++) {
            float v = (float)(sin((double)i * 0.37) * 90.0 + 100.0);
            memcpy(out + i * 4, &v, 4);
        }
    if (smooth && strcmp(v3_type, "float64") == 0)
        for (i = 0; i < n; i++) {
            double v = sin((double)i * 0.37) * 90.0 + 100.0;
            memcpy(out + i * 8, &v, 8);
        }
}

typedef struct {
    const char *path;
    const char *v3_type; /* for the manifest */
    size_t size;
    const char *dtype; /* v2 dtype string */
    size_t ndim;
    uint64_t shape[3], chunks[3];
    const char *fill;       /* fill_value JSON */
    const char *compressor; /* JSON object or null */
    const char *filters;    /* JSON list or null */
    const char *order;
    const char *separator;
    int lossy;     /* the codecs change values: skip the written == read check */
    int partial;   /* write only the first half of the first dimension */
} v2_case;

static void add(zarr_store *store, const v2_case *c) {
    char metadata[4096], shape_json[96] = "[", chunks_json[96] = "[", bin[256], file[4096];
    uint64_t start[3] = {0, 0, 0}, count[3];
    size_t total = 1, written = 1, d, nbytes = 0;
    zarr_array *array = NULL;
    zarr_status s;
    for (d = 0; d < c->ndim; d++) {
        char part[48];
        snprintf(part, sizeof part, "%s%llu", d ? "," : "", (unsigned long long)c->shape[d]);
        strcat(shape_json, part);
        snprintf(part, sizeof part, "%s%llu", d ? "," : "", (unsigned long long)c->chunks[d]);
        strcat(chunks_json, part);
        count[d] = c->shape[d];
        if (d == 0 && c->partial) count[d] = (c->shape[d] + 1) / 2;
        total *= (size_t)c->shape[d];
        written *= (size_t)count[d];
    }
    strcat(shape_json, "]");
    strcat(chunks_json, "]");
    snprintf(metadata, sizeof metadata,
             "{\"zarr_format\": 2, \"shape\": %s, \"chunks\": %s, \"dtype\": \"%s\", \"fill_value\": %s,"
             " \"compressor\": %s, \"filters\": %s, \"order\": \"%s\", \"dimension_separator\": \"%s\"}",
             shape_json, chunks_json, c->dtype, c->fill, c->compressor, c->filters, c->order, c->separator);
    if ((s = zarr_array_create(store, c->path, metadata, &array)) != ZARR_OK) {
        fail("create", c->path, s);
        return;
    }
    unsigned char *values = malloc(written * c->size + 1);
    unsigned char *back = malloc(total * c->size + 1);
    make_values(c->v3_type, c->size, c->lossy, values, written);
    if ((s = zarr_array_write(array, c->ndim, start, count, values, written * c->size)) != ZARR_OK)
        fail("write", c->path, s);
    if ((s = zarr_array_selection_nbytes(array, c->ndim, start, c->shape, &nbytes)) != ZARR_OK ||
        nbytes != total * c->size)
        fail("selection_nbytes", c->path, s);
    if ((s = zarr_array_read(array, c->ndim, start, c->shape, back, total * c->size)) != ZARR_OK)
        fail("read back", c->path, s);
    /* The written region is a prefix of the C-order array (it spans whole trailing rows). */
    if (!c->lossy && memcmp(values, back, written * c->size) != 0) {
        fprintf(stderr, "FAIL %s: read back differs from what was written\n", c->path);
        failures++;
    }
    snprintf(bin, sizeof bin, "expected/%d.bin", n_arrays++);
    snprintf(file, sizeof file, "%s/%s", out_dir, bin);
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(back, 1, total * c->size, f) != total * c->size) {
        fprintf(stderr, "FAIL cannot write %s\n", file);
        failures++;
    }
    if (f) fclose(f);
    fprintf(manifest, "%s %s %s\n", c->path, c->v3_type, bin);
    free(values);
    free(back);
    zarr_array_free(array);
}

int main(int argc, char **argv) {
    static const struct {
        const char *code, *v3_type;
        size_t size;
        const char *fill;
    } types[] = {
        {"b1", "bool", 1, "false"},      {"i1", "int8", 1, "-3"},         {"i2", "int16", 2, "7"},
        {"i4", "int32", 4, "-70000"},    {"i8", "int64", 8, "5"},         {"u1", "uint8", 1, "200"},
        {"u2", "uint16", 2, "60000"},    {"u4", "uint32", 4, "4000000000"}, {"u8", "uint64", 8, "1"},
        {"f2", "float16", 2, "0.5"},     {"f4", "float32", 4, "\"NaN\""}, {"f8", "float64", 8, "-0.25"},
        {"c8", "complex64", 8, "[1.5, -2.0]"}, {"c16", "complex128", 16, "[0.0, 1.0]"},
    };
    static const char *compressors[][2] = {
        {"zlib", "{\"id\": \"zlib\", \"level\": 5}"},
        {"gzip", "{\"id\": \"gzip\", \"level\": 5}"},
        {"blosc_lz4", "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}"},
        {"blosc_zstd_bit", "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": 2, \"blocksize\": 0}"},
        {"zstd", "{\"id\": \"zstd\", \"level\": 3}"},
        {"lz4", "{\"id\": \"lz4\", \"acceleration\": 1}"},
        {"bz2", "{\"id\": \"bz2\", \"level\": 5}"},
        {"lzma", "{\"id\": \"lzma\", \"format\": 1, \"check\": -1, \"preset\": 1, \"filters\": null}"},
    };
    char path[4096], dtype[16], name[128];
    zarr_store *store = NULL;
    zarr_group *root = NULL, *sub = NULL;
    zarr_status s;
    size_t i;
    int order;

    if (argc != 2) {
        fprintf(stderr, "usage: write_c_v2 OUT_DIR\n");
        return 2;
    }
    out_dir = argv[1];
    snprintf(path, sizeof path, "%s/expected", out_dir);
    if (mkdir(path, 0755) != 0) {
        perror(path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/manifest.txt", out_dir);
    manifest = fopen(path, "w");
    snprintf(path, sizeof path, "%s/store", out_dir);
    if (!manifest || zarr_store_open_filesystem(path, &store) != ZARR_OK) return 1;
    if ((s = zarr_group_create_with_format(store, "/", "{\"title\": \"written by libzarr\", \"n\": [1, 2, 3]}", 2, &root)) !=
            ZARR_OK ||
        (s = zarr_group_create_with_format(store, "/sub", "{\"level\": 1}", 2, &sub)) != ZARR_OK) {
        fail("groups", "/", s);
        return 1;
    }

    /* Every dtype, both byte orders, C and F order alternating, edge chunks, unwritten half. */
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        for (order = 0; order < 2; order++) {
            const char *endian = order ? ">" : "<";
            if (types[i].size == 1 && order) continue;
            snprintf(dtype, sizeof dtype, "%s%s", types[i].size == 1 ? "|" : endian, types[i].code);
            snprintf(name, sizeof name, "/dtypes/%s_%s", types[i].code, order ? "big_f" : "little_c");
            v2_case c = {name, types[i].v3_type, types[i].size, dtype, 2, {7, 9, 0}, {3, 4, 0},
                         types[i].fill, "null", "null", order ? "F" : "C", order ? "/" : ".", 0, 1};
            add(store, &c);
        }
    }
    /* Compressors, 3-D, F order for some. */
    for (i = 0; i < sizeof compressors / sizeof compressors[0]; i++) {
        snprintf(name, sizeof name, "/compressors/%s", compressors[i][0]);
        v2_case c = {name, "int32", 4, "<i4", 3, {20, 9, 11}, {8, 4, 5}, "0", compressors[i][1], "null",
                     i % 2 ? "F" : "C", ".", 0, 1};
        add(store, &c);
    }
    /* Fill values. */
    {
        v2_case nan = {"/fill/nan", "float32", 4, "<f4", 2, {6, 5, 0}, {4, 4, 0}, "\"NaN\"", "null", "null", "C",
                       ".", 0, 1};
        v2_case null_fill = {"/fill/null", "float64", 8, ">f8", 2, {6, 5, 0}, {4, 4, 0}, "null", "null", "null",
                             "C", ".", 0, 1};
        add(store, &nan);
        add(store, &null_fill);
    }
    /* Filters. */
    {
        v2_case cases[] = {
            {"/filters/delta", "int32", 4, "<i4", 1, {100}, {30}, "0", "{\"id\": \"zlib\", \"level\": 1}",
             "[{\"id\": \"delta\", \"dtype\": \"<i4\"}]", "C", ".", 0, 0},
            {"/filters/shuffle", "float64", 8, "<f8", 1, {64}, {16}, "0.0", "{\"id\": \"zlib\", \"level\": 1}",
             "[{\"id\": \"shuffle\", \"elementsize\": 8}]", "C", ".", 0, 0},
            {"/filters/fixedscaleoffset", "float64", 8, "<f8", 1, {40}, {16}, "0.0", "null",
             "[{\"id\": \"fixedscaleoffset\", \"offset\": 100, \"scale\": 10, \"dtype\": \"<f8\", \"astype\": \"<i2\"}]",
             "C", ".", 1, 0},
            {"/filters/quantize", "float32", 4, "<f4", 1, {40}, {16}, "0.0", "null",
             "[{\"id\": \"quantize\", \"digits\": 2, \"dtype\": \"<f4\"}]", "C", ".", 1, 0},
            {"/filters/bitround", "float32", 4, "<f4", 1, {40}, {16}, "0.0", "null",
             "[{\"id\": \"bitround\", \"keepbits\": 6}]", "C", ".", 1, 0},
            {"/filters/astype", "float64", 8, "<f8", 1, {40}, {16}, "0.0", "null",
             "[{\"id\": \"astype\", \"encode_dtype\": \"<f4\", \"decode_dtype\": \"<f8\"}]", "C", ".", 1, 0},
            {"/filters/chain_big_f", "int16", 2, ">i2", 2, {6, 10}, {4, 4}, "0",
             "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 1, \"shuffle\": 0, \"blocksize\": 0}",
             "[{\"id\": \"delta\", \"dtype\": \">i2\"}, {\"id\": \"shuffle\", \"elementsize\": 2}]", "F", ".", 0,
             0},
        };
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) add(store, &cases[i]);
    }

    if ((s = zarr_group_consolidate(root)) != ZARR_OK) fail("consolidate", "/", s);
    zarr_group_free(sub);
    zarr_group_free(root);
    zarr_store_free(store);
    fclose(manifest);

    snprintf(path, sizeof path, "%s/attributes.json", out_dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("{\"title\": \"written by libzarr\", \"n\": [1, 2, 3]}", f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/members.txt", out_dir);
    f = fopen(path, "w");
    if (f) {
        fputs("compressors\ndtypes\nfill\nfilters\nsub\n", f);
        fclose(f);
    }
    printf("write_c_v2: %d arrays, %d failures\n", n_arrays, failures);
    return failures ? 1 : 0;
}
