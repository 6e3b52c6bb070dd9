/* write_c.c -- write Zarr v3 arrays through the C API for zarr-python to read (interop,
 * direction 2).
 *
 * Usage: write_c OUT_DIR
 *
 * Writes OUT_DIR/store (or the store OUT_DIR/store.url names, see open_store.h): a
 * hierarchy covering every core data type and codec, both byte orders, transpose, edge
 * chunks, NaN and other fill values, unwritten chunks, both chunk key encodings, 0-d
 * arrays, sharding, group attributes; and for each array the values a
 * reader must see (full array, C order, native byte order, fill value included) in
 * OUT_DIR/expected/<n>.bin, listed in OUT_DIR/manifest.txt as `<node path> <data type> <bin>`.
 * The expectation is computed here independently of libzarr's read path.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "open_store.h"
#include "zarr.h"

static const char *out_dir;
static FILE *manifest;
static int n_arrays;
static int failures;

typedef struct {
    const char *name;  /* v3 data type */
    size_t size;       /* element size in bytes */
    const char *fill;  /* fill_value JSON */
    unsigned char fill_bytes[16]; /* host-order bytes of the fill value */
} dtype_case;

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Deterministic element values: arbitrary bit patterns (NaNs, infinities and subnormals
 * included for floats: every pattern is some value), bools 0/1, and a few special floats. */
static void make_values(const char *dtype, size_t size, unsigned char *out, size_t n) {
    size_t i, b;
    for (i = 0; i < n; i++)
        for (b = 0; b < size; b++) out[i * size + b] = (unsigned char)(next_random() >> 24);
    if (strcmp(dtype, "bool") == 0)
        for (i = 0; i < n; i++) out[i] &= 1;
    if (strcmp(dtype, "float32") == 0 && n >= 4) {
        float specials[4] = {NAN, INFINITY, -0.0f, 1e-45f};
        memcpy(out, specials, sizeof specials);
    }
    if (strcmp(dtype, "float64") == 0 && n >= 4) {
        double specials[4] = {NAN, -INFINITY, -0.0, 5e-324};
        memcpy(out, specials, sizeof specials);
    }
}

static void fail(const char *what, const char *path, zarr_status status) {
    fprintf(stderr, "FAIL %s %s: %s: %s\n", path, what, zarr_status_str(status),
            zarr_last_error_message());
    failures++;
}

/* Create an array of a 2-D `shape` (or 0-d when ndim is 0), write `region` (start/count),
 * and record the expectation: fill everywhere, the written values in the region. */
static void add(zarr_store *store, const char *path, const dtype_case *t, size_t ndim,
                const uint64_t *shape, const uint64_t *chunks, const char *codecs,
                const char *key_encoding, const uint64_t *start, const uint64_t *count) {
    char metadata[8192], shape_json[128] = "[", chunks_json[128] = "[", bin[256], file[4096];
    size_t total = 1, region_total = 1, d, i;
    unsigned char *expected, *region;
    zarr_array *array = NULL;
    zarr_status s;
    FILE *f;

    for (d = 0; d < ndim; d++) {
        char part[48];
        snprintf(part, sizeof part, "%s%llu", d ? "," : "", (unsigned long long)shape[d]);
        strcat(shape_json, part);
        snprintf(part, sizeof part, "%s%llu", d ? "," : "", (unsigned long long)chunks[d]);
        strcat(chunks_json, part);
        total *= (size_t)shape[d];
        region_total *= (size_t)count[d];
    }
    strcat(shape_json, "]");
    strcat(chunks_json, "]");
    snprintf(metadata, sizeof metadata,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": %s, \"data_type\": \"%s\","
             " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": %s}},"
             " \"chunk_key_encoding\": %s, \"fill_value\": %s, \"codecs\": %s,"
             " \"attributes\": {\"written_by\": \"libzarr\"}}",
             shape_json, t->name, chunks_json, key_encoding, t->fill, codecs);
    if ((s = zarr_array_create(store, path, metadata, &array)) != ZARR_OK) {
        fail("create", path, s);
        return;
    }
    expected = malloc(total * t->size + 1);
    region = malloc(region_total * t->size + 1);
    for (i = 0; i < total; i++) memcpy(expected + i * t->size, t->fill_bytes, t->size);
    make_values(t->name, t->size, region, region_total);
    /* Place the region into the expectation (C order, 2-D or 0-d). */
    if (ndim == 0) {
        memcpy(expected, region, t->size);
    } else {
        size_t r, c;
        for (r = 0; r < count[0]; r++)
            for (c = 0; c < count[1]; c++)
                memcpy(expected + ((start[0] + r) * shape[1] + start[1] + c) * t->size,
                       region + (r * count[1] + c) * t->size, t->size);
    }
    if ((s = zarr_array_write(array, ndim, start, count, region, region_total * t->size)) != ZARR_OK)
        fail("write", path, s);
    snprintf(bin, sizeof bin, "expected/%d.bin", n_arrays++);
    snprintf(file, sizeof file, "%s/%s", out_dir, bin);
    f = fopen(file, "wb");
    if (!f || fwrite(expected, 1, total * t->size, f) != total * t->size) {
        fprintf(stderr, "FAIL cannot write %s\n", file);
        failures++;
    }
    if (f) fclose(f);
    fprintf(manifest, "%s %s %s\n", path, t->name, bin);
    free(expected);
    free(region);
    zarr_array_free(array);
}

/* A data type case with its fill value given both as JSON and as a host-order value. */
static dtype_case make_case(const char *name, size_t size, const char *fill, const void *value) {
    dtype_case t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.size = size;
    t.fill = fill;
    memcpy(t.fill_bytes, value, size);
    return t;
}

static const char *LE = "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}";
static const char *BE = "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}}";
static const char *DEFAULT_KEYS = "{\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}}";

int main(int argc, char **argv) {
    char path[4096], codecs[4096];
    zarr_store *store = NULL;
    zarr_group *root = NULL, *sub = NULL;
    zarr_status s;
    size_t i;
    uint64_t shape[2] = {7, 9}, chunks[2] = {3, 4}, start[2] = {0, 0}, count[2] = {5, 6};
    uint64_t big[2] = {40, 30}, big_chunks[2] = {16, 8}, all[2] = {40, 30};
    uint64_t shard_shape[2] = {20, 30}, shards[2] = {8, 12}, shard_start[2] = {0, 0},
             shard_count[2] = {13, 17};
    unsigned char b1 = 1;
    int8_t i8 = -5;
    int16_t i16 = -300;
    int32_t i32 = -70000, zero32 = 0;
    int64_t i64 = -5000000000LL;
    uint8_t u8 = 200;
    uint16_t u16 = 60000, f16 = 0x3c00;
    uint32_t u32 = 4000000000u;
    uint64_t u64 = 18446744073709551615ull;
    float f32 = 0.5f, f32nan = NAN, c64[2] = {1.5f, -2.0f};
    double f64 = -0.25, c128[2] = {INFINITY, -1.0};
    unsigned char r16[2] = {1, 2};
    dtype_case types[15];
    dtype_case int32_zero, f32_nan;

    if (argc != 2) {
        fprintf(stderr, "usage: write_c OUT_DIR\n");
        return 2;
    }
    out_dir = argv[1];
    snprintf(path, sizeof path, "%s/expected", out_dir);
    mkdir(out_dir, 0755);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/manifest.txt", out_dir);
    manifest = fopen(path, "w");
    if (!manifest) {
        fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (interop_open_store(out_dir, &store) != 0) return 1; /* OUT_DIR/store, or store.url */
    if ((s = zarr_group_create(store, "/", "{\"title\": \"written by libzarr\", \"n\": [1, 2, 3]}",
                               &root)) != ZARR_OK ||
        (s = zarr_group_create(store, "/sub", "{\"level\": 1}", &sub)) != ZARR_OK)
        fail("group create", "/", s);

    types[0] = make_case("bool", 1, "true", &b1);
    types[1] = make_case("int8", 1, "-5", &i8);
    types[2] = make_case("int16", 2, "-300", &i16);
    types[3] = make_case("int32", 4, "-70000", &i32);
    types[4] = make_case("int64", 8, "-5000000000", &i64);
    types[5] = make_case("uint8", 1, "200", &u8);
    types[6] = make_case("uint16", 2, "60000", &u16);
    types[7] = make_case("uint32", 4, "4000000000", &u32);
    types[8] = make_case("uint64", 8, "18446744073709551615", &u64);
    types[9] = make_case("float16", 2, "\"0x3c00\"", &f16);
    types[10] = make_case("float32", 4, "0.5", &f32);
    types[11] = make_case("float64", 8, "-0.25", &f64);
    types[12] = make_case("complex64", 8, "[1.5, -2.0]", c64);
    types[13] = make_case("complex128", 16, "[\"Infinity\", -1.0]", c128);
    types[14] = make_case("r16", 2, "[1, 2]", r16);
    int32_zero = make_case("int32", 4, "0", &zero32);
    f32_nan = make_case("float32", 4, "\"NaN\"", &f32nan);

    /* Every data type in both byte orders, edge chunks, part of the array unwritten. */
    for (i = 0; i < 15; i++) {
        snprintf(path, sizeof path, "/dtypes/%s_little", types[i].name);
        snprintf(codecs, sizeof codecs, "[%s]", LE);
        add(store, path, &types[i], 2, shape, chunks, codecs, DEFAULT_KEYS, start, count);
        snprintf(path, sizeof path, "/dtypes/%s_big", types[i].name);
        snprintf(codecs, sizeof codecs, "[%s]", BE);
        add(store, path, &types[i], 2, shape, chunks, codecs, DEFAULT_KEYS, start, count);
    }
    add(store, "/fill/f32_nan", &f32_nan, 2, shape, chunks, "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]",
        DEFAULT_KEYS, start, count);

    /* Codecs. */
    {
        const char *chains[] = {
            "[%s, {\"name\": \"gzip\", \"configuration\": {\"level\": 6}}]",
            "[%s, {\"name\": \"zstd\", \"configuration\": {\"level\": 5, \"checksum\": true}}]",
            "[%s, {\"name\": \"zstd\", \"configuration\": {\"level\": -3, \"checksum\": false}}]",
            "[%s, {\"name\": \"blosc\", \"configuration\": {\"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": \"shuffle\", \"typesize\": 4, \"blocksize\": 0}}]",
            "[%s, {\"name\": \"blosc\", \"configuration\": {\"cname\": \"lz4hc\", \"clevel\": 9, \"shuffle\": \"bitshuffle\", \"typesize\": 4, \"blocksize\": 0}}]",
            "[%s, {\"name\": \"blosc\", \"configuration\": {\"cname\": \"blosclz\", \"clevel\": 1, \"shuffle\": \"noshuffle\", \"typesize\": 4, \"blocksize\": 0}}]",
            "[%s, {\"name\": \"blosc\", \"configuration\": {\"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": \"shuffle\", \"typesize\": 4, \"blocksize\": 256}}]",
            "[%s, {\"name\": \"blosc\", \"configuration\": {\"cname\": \"zlib\", \"clevel\": 4, \"shuffle\": \"bitshuffle\", \"typesize\": 4, \"blocksize\": 0}}]",
            "[%s, {\"name\": \"crc32c\"}]",
            "[{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, %s]",
            "[{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, %s, {\"name\": \"blosc\", \"configuration\": {\"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": \"shuffle\", \"typesize\": 4, \"blocksize\": 0}}, {\"name\": \"crc32c\"}]",
        };
        const char *names[] = {"gzip", "zstd_checksum", "zstd_negative_level", "blosc_lz4",
                               "blosc_lz4hc_bitshuffle", "blosc_blosclz_noshuffle",
                               "blosc_zstd_blocksize", "blosc_zlib", "crc32c", "transpose",
                               "combined"};
        for (i = 0; i < sizeof chains / sizeof chains[0]; i++) {
            snprintf(codecs, sizeof codecs, chains[i], i % 2 ? BE : LE);
            snprintf(path, sizeof path, "/codecs/%s", names[i]);
            add(store, path, &types[10], 2, big, big_chunks, codecs, DEFAULT_KEYS, start, all);
        }
    }

    /* Chunk key encodings. */
    snprintf(codecs, sizeof codecs, "[%s]", LE);
    add(store, "/keys/default_dot", &int32_zero, 2, shape, chunks, codecs,
        "{\"name\": \"default\", \"configuration\": {\"separator\": \".\"}}", start, count);
    add(store, "/keys/v2_dot", &int32_zero, 2, shape, chunks, codecs,
        "{\"name\": \"v2\", \"configuration\": {\"separator\": \".\"}}", start, count);
    add(store, "/keys/v2_slash", &int32_zero, 2, shape, chunks, codecs,
        "{\"name\": \"v2\", \"configuration\": {\"separator\": \"/\"}}", start, count);

    /* 0-d arrays. */
    add(store, "/scalar/f64", &types[11], 0, NULL, NULL, codecs, DEFAULT_KEYS, NULL, NULL);
    add(store, "/scalar/v2_keys", &types[3], 0, NULL, NULL, codecs,
        "{\"name\": \"v2\", \"configuration\": {\"separator\": \".\"}}", NULL, NULL);

    /* Sharding: index at the start and at the end, crc32c index, edge shards, inner
     * chunks never written; nested sharding. */
    {
        const char *locations[2] = {"start", "end"};
        for (i = 0; i < 2; i++) {
            snprintf(codecs, sizeof codecs,
                     "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4, 6],"
                     " \"codecs\": [%s, {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
                     " \"index_codecs\": [%s, {\"name\": \"crc32c\"}], \"index_location\": \"%s\"}}]",
                     LE, LE, locations[i]);
            snprintf(path, sizeof path, "/sharding/index_%s", locations[i]);
            add(store, path, &types[3], 2, shard_shape, shards, codecs, DEFAULT_KEYS, shard_start,
                shard_count);
        }
        snprintf(codecs, sizeof codecs,
                 "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4, 6],"
                 " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 3],"
                 " \"codecs\": [%s], \"index_codecs\": [%s, {\"name\": \"crc32c\"}], \"index_location\": \"end\"}}],"
                 " \"index_codecs\": [%s, {\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]",
                 BE, LE, LE);
        add(store, "/sharding/nested", &types[6], 2, shard_shape, shards, codecs, DEFAULT_KEYS,
            shard_start, shard_count);
    }

    fclose(manifest);
    zarr_group_free(root);
    zarr_group_free(sub);
    zarr_store_free(store);
    printf("write_c: %d arrays written, %d failures\n", n_arrays, failures);
    return failures == 0 ? 0 : 1;
}
