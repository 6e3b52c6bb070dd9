/* write_c_dtypes.c -- libzarr writes arrays of the fixed-size non-numeric data types and
 * the zfpy/pcodec codecs for zarr-python to read (interop, direction 2, data types; see
 * python_read_dtypes.py).
 *
 * Usage: write_c_dtypes OUT_DIR
 *
 * Every array is one-dimensional, shape 7, chunks 3: elements 0..3 are written, so the
 * chunk holding 6 stays unwritten and reads as the fill value. OUT_DIR gets store/,
 * expected/<n>.bin (the array as a reader must see it: host byte order, C order) and
 * manifest.jsonl, one JSON object per array: {"path", "dtype" (numpy's description),
 * "bin", "bytecheck" (true when the stored first chunk must equal numcodecs' encoding of
 * its values byte for byte)}.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zarr.h"

#define N 7
#define WRITTEN 4

typedef struct {
    const char *path;
    const char *metadata; /* zarr.json or .zarray; %s-free */
    const char *numpy;    /* numpy's dtype description for the manifest (JSON) */
    size_t size;          /* element size */
    unsigned char fill[32];
    int bytecheck;
    /* element i's host-order bytes */
    void (*element)(size_t i, unsigned char *out);
} case_t;

static void utf32_text(size_t i, unsigned char *out, size_t units) {
    uint32_t u[8] = {0};
    const char *words[] = {"a", "bc", "def", "z", "", "xy", "q"};
    const char *w = words[i % 7];
    for (size_t k = 0; k < units && w[k]; k++) u[k] = (uint32_t)(unsigned char)w[k];
    if (i == 2 && units > 0) u[0] = 0x1F600; /* outside the BMP */
    memcpy(out, u, units * 4);
}
static void u3(size_t i, unsigned char *out) { utf32_text(i, out, 3); }
static void u4(size_t i, unsigned char *out) { utf32_text(i, out, 4); }
static void u2(size_t i, unsigned char *out) { utf32_text(i, out, 2); }
static void s5(size_t i, unsigned char *out) {
    memset(out, 0, 5);
    memcpy(out, "abcde", i % 6);
}
static void s3(size_t i, unsigned char *out) {
    memset(out, 0, 3);
    memcpy(out, "\x01\xff\x80", i % 4);
}
static void i64(size_t i, unsigned char *out) {
    int64_t v = i == 1 ? INT64_MIN : (int64_t)(i * 1000003) - 2000000;
    memcpy(out, &v, 8);
}
static void f64(size_t i, unsigned char *out) {
    double v = (double)i * 1.25 - 3.0;
    memcpy(out, &v, 8);
}
static void f32(size_t i, unsigned char *out) {
    float v = (float)i * 0.5f + 100.0f;
    memcpy(out, &v, 4);
}
static void i32(size_t i, unsigned char *out) {
    int32_t v = (int32_t)(i * i) - 5;
    memcpy(out, &v, 4);
}
/* [("x", ">u2"), ("y", "<f4"), ("z", "|S2")]: 8 bytes, fields in host order */
static void rec(size_t i, unsigned char *out) {
    uint16_t x = (uint16_t)(0x0102 + i);
    float y = (float)i - 0.5f;
    memcpy(out, &x, 2);
    memcpy(out + 2, &y, 4);
    out[6] = (unsigned char)('a' + i);
    out[7] = 0;
}

/* 4 raw bytes, distinct per element */
static void raw4(size_t i, unsigned char *out) {
    out[0] = (unsigned char)i;
    out[1] = 0xFF;
    out[2] = (unsigned char)(0x80 + i);
    out[3] = 0;
}

#define V3(dt, fill, codecs)                                                                \
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[7],\"data_type\":" dt ","          \
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[3]}},"          \
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"   \
    "\"fill_value\":" fill ",\"codecs\":" codecs "}"
#define V2(dt, fill, compressor)                                                            \
    "{\"zarr_format\":2,\"shape\":[7],\"chunks\":[3],\"dtype\":" dt ",\"compressor\":"        \
    compressor ",\"fill_value\":" fill ",\"order\":\"C\",\"filters\":null}"
#define LE "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"
#define BE "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}]"

static const case_t cases[] = {
    {"/v3/utf32_le", V3("{\"name\":\"fixed_length_utf32\",\"configuration\":{\"length_bytes\":12}}",
                        "\"\\u00e9\"", LE),
     "\"<U3\"", 12, {0xE9}, 0, u3},
    {"/v3/utf32_be", V3("{\"name\":\"fixed_length_utf32\",\"configuration\":{\"length_bytes\":16}}",
                        "\"\"", BE),
     "\"<U4\"", 16, {0}, 0, u4},
    {"/v3/bytes", V3("{\"name\":\"null_terminated_bytes\",\"configuration\":{\"length_bytes\":5}}",
                     "\"aGk=\"", "[{\"name\":\"bytes\"}]"),
     "\"|S5\"", 5, {'h', 'i'}, 0, s5},
    {"/v3/datetime", V3("{\"name\":\"numpy.datetime64\",\"configuration\":{\"unit\":\"ms\",\"scale_factor\":10}}",
                        "-9223372036854775808", BE),
     "\"<M8[10ms]\"", 8, {0, 0, 0, 0, 0, 0, 0, 0x80}, 0, i64},
    {"/v3/timedelta", V3("{\"name\":\"numpy.timedelta64\",\"configuration\":{\"unit\":\"us\",\"scale_factor\":1}}",
                         "7", LE),
     "\"<m8[us]\"", 8, {7}, 0, i64},
    {"/v3/raw_bytes", V3("{\"name\":\"raw_bytes\",\"configuration\":{\"length_bytes\":4}}",
                         "\"AQIDBA==\"", "[{\"name\":\"bytes\"}]"),
     "\"|V4\"", 4, {1, 2, 3, 4}, 0, raw4},
    {"/v3/zfpy", V3("\"float64\"", "0.0",
                    "[{\"name\":\"numcodecs.zfpy\",\"configuration\":{\"mode\":4,\"tolerance\":-1}}]"),
     "\"<f8\"", 8, {0}, 1, f64},
    {"/v3/pcodec", V3("\"float32\"", "0.0",
                      "[{\"name\":\"numcodecs.pcodec\",\"configuration\":{\"level\":8}}]"),
     "\"<f4\"", 4, {0}, 1, f32},
    {"/v2/utf32_le", V2("\"<U4\"", "\"xy\"", "null"), "\"<U4\"", 16, {'x', 0, 0, 0, 'y'}, 0, u4},
    {"/v2/utf32_be", V2("\">U2\"", "\"\"", "null"), "\">U2\"", 8, {0}, 0, u2},
    {"/v2/bytes", V2("\"|S3\"", "\"eg==\"", "{\"id\":\"zstd\",\"level\":1}"), "\"|S3\"", 3, {'z'}, 0, s3},
    {"/v2/datetime", V2("\"<M8[ms]\"", "-9223372036854775808", "null"), "\"<M8[ms]\"", 8,
     {0, 0, 0, 0, 0, 0, 0, 0x80}, 0, i64},
    {"/v2/timedelta", V2("\">m8[10s]\"", "3", "null"), "\">m8[10s]\"", 8, {3}, 0, i64},
    {"/v2/structured", V2("[[\"x\",\">u2\"],[\"y\",\"<f4\"],[\"z\",\"|S2\"]]", "\"AQIAAIA/YQA=\"", "null"),
     "[[\"x\",\">u2\"],[\"y\",\"<f4\"],[\"z\",\"|S2\"]]", 8, {2, 1, 0, 0, 0x80, 0x3F, 'a', 0}, 0, rec},
    {"/v2/void", V2("\"|V4\"", "\"AQIDBA==\"", "{\"id\":\"zlib\",\"level\":1}"), "\"|V4\"", 4,
     {1, 2, 3, 4}, 0, raw4},
    {"/v2/zfpy", V2("\"<f8\"", "0.0", "{\"id\":\"zfpy\",\"mode\":4,\"tolerance\":-1,\"rate\":-1,\"precision\":-1}"),
     "\"<f8\"", 8, {0}, 1, f64},
    {"/v2/pcodec", V2("\"<i4\"", "0", "{\"id\":\"pcodec\",\"level\":8}"), "\"<i4\"", 4, {0}, 1, i32},
};

int main(int argc, char **argv) {
    char name[4096];
    zarr_store *store = NULL;
    FILE *manifest;
    int failures = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: write_c_dtypes OUT_DIR\n");
        return 2;
    }
    snprintf(name, sizeof name, "%s/expected", argv[1]);
    mkdir(argv[1], 0755);
    mkdir(name, 0755);
    snprintf(name, sizeof name, "%s/store", argv[1]);
    if (zarr_store_open_filesystem(name, &store) != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s\n", name, zarr_last_error_message());
        return 1;
    }
    snprintf(name, sizeof name, "%s/manifest.jsonl", argv[1]);
    manifest = fopen(name, "w");
    if (!manifest) return 1;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const case_t *t = &cases[c];
        zarr_array *array = NULL;
        unsigned char data[N * 32], expected[N * 32];
        uint64_t start = 0, count = WRITTEN;
        size_t i;
        for (i = 0; i < N; i++) {
            t->element(i, data + i * t->size);
            memcpy(expected + i * t->size, i < WRITTEN ? data + i * t->size : t->fill, t->size);
        }
        if (zarr_array_create(store, t->path, t->metadata, &array) != ZARR_OK ||
            zarr_array_write(array, 1, &start, &count, data, WRITTEN * t->size) != ZARR_OK) {
            fprintf(stderr, "FAIL %s: %s\n", t->path, zarr_last_error_message());
            failures++;
            zarr_array_free(array);
            continue;
        }
        /* The unwritten chunk must read as the fill value here too. */
        {
            unsigned char back[N * 32];
            uint64_t all = N;
            if (zarr_array_read(array, 1, &start, &all, back, N * t->size) != ZARR_OK ||
                memcmp(back, expected, N * t->size) != 0) {
                fprintf(stderr, "FAIL %s: read back differs\n", t->path);
                failures++;
            }
        }
        zarr_array_free(array);
        snprintf(name, sizeof name, "%s/expected/%zu.bin", argv[1], c);
        FILE *bin = fopen(name, "wb");
        if (!bin || fwrite(expected, 1, N * t->size, bin) != N * t->size) failures++;
        if (bin) fclose(bin);
        fprintf(manifest, "{\"path\": \"%s\", \"dtype\": %s, \"bin\": \"expected/%zu.bin\", \"bytecheck\": %s}\n",
                t->path, t->numpy, c, t->bytecheck ? "true" : "false");
        printf("wrote %s\n", t->path);
    }
    fclose(manifest);
    zarr_store_free(store);
    return failures == 0 ? 0 : 1;
}
