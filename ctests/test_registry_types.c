/* The zarr-extensions registry's sub-byte and complex data types: int2, int4, uint2,
 * uint4, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn and the complex_* types. For each,
 * an array is created, written, read back (written elements and fill values), its code,
 * name and element size checked; then the bytes on disk (bytes and packbits codecs), fill
 * value spellings, the refusal of host bytes with bits above the code, and the int8
 * conversion functions. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A v3 array document: shape [n], chunks [c]. */
static const char *doc(const char *data_type, int n, int c, const char *fill, const char *codecs) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%d],\"data_type\":\"%s\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[%d]}},"
             "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
             "\"fill_value\":%s,\"codecs\":%s}",
             n, data_type, c, fill, codecs);
    return buf;
}

#define LITTLE "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"
#define BIG "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}]"
#define PLAIN "[{\"name\":\"bytes\"}]"
#define PACKBITS "[{\"name\":\"packbits\"}]"

/* The array's metadata JSON, compacted (caller frees). */
static char *metadata(const zarr_array *a) {
    char *json = NULL;
    if (zarr_array_metadata_json(a, &json) != ZARR_OK) return NULL;
    char *compact = ztest_json_compact(json);
    zarr_string_free(json);
    return compact;
}

/* One registry type: its code, name, element size, a fill value spelling with the host
 * bytes it means and its canonical spelling, and two elements to write. */
typedef struct {
    zarr_data_type code;
    const char *name;
    size_t size;
    const char *fill;
    uint8_t fill_bytes[16];
    const char *fill_canonical;
    uint8_t values[2][16];
} registry_type;

/* Host bytes of a little-endian-host element are written out byte by byte below; the
 * multi-byte ones (bfloat16, float16, float32, float64 components) are built at run time. */
static const registry_type TYPES[] = {
    {ZARR_DATA_TYPE_INT2, "int2", 1, "-2", {0x02}, "-2", {{0x03}, {0x01}}},
    {ZARR_DATA_TYPE_INT4, "int4", 1, "-1", {0x0f}, "-1", {{0x08}, {0x07}}},
    {ZARR_DATA_TYPE_UINT2, "uint2", 1, "3", {0x03}, "3", {{0x02}, {0x01}}},
    {ZARR_DATA_TYPE_UINT4, "uint4", 1, "15", {0x0f}, "15", {{0x0e}, {0x01}}},
    /* 1.5 is 0b0011; -6 is 0b1111. */
    {ZARR_DATA_TYPE_FLOAT4_E2M1FN, "float4_e2m1fn", 1, "1.5", {0x03}, "1.5", {{0x0f}, {0x08}}},
    /* "0x1f" is 7.5, the largest. */
    {ZARR_DATA_TYPE_FLOAT6_E2M3FN, "float6_e2m3fn", 1, "\"0x1f\"", {0x1f}, "7.5", {{0x3f}, {0x01}}},
    /* 100 saturates to 28 (0x1f), as ml_dtypes does. */
    {ZARR_DATA_TYPE_FLOAT6_E3M2FN, "float6_e3m2fn", 1, "100", {0x1f}, "28.0", {{0x20}, {0x3f}}},
    {ZARR_DATA_TYPE_COMPLEX_BFLOAT16, "complex_bfloat16", 4, "[1.0,-2.0]", {0}, "[1.0,-2.0]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT16, "complex_float16", 4, "[1.0,\"0x7e00\"]", {0}, "[1.0,\"NaN\"]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT32, "complex_float32", 8, "[0.5,\"Infinity\"]", {0}, "[0.5,\"Infinity\"]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT64, "complex_float64", 16, "[-0.25,3]", {0}, "[-0.25,3.0]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN, "complex_float4_e2m1fn", 2, "[-0.5,\"0x07\"]", {0x09, 0x07}, "[-0.5,6.0]", {{0x0f, 0x00}, {0x01, 0x0e}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT6_E2M3FN, "complex_float6_e2m3fn", 2, "[1.0,0.125]", {0x08, 0x01}, "[1.0,0.125]", {{0x3f, 0x00}, {0x20, 0x1f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT6_E3M2FN, "complex_float6_e3m2fn", 2, "[28,-0.0625]", {0x1f, 0x21}, "[28.0,-0.0625]", {{0x3f, 0x01}, {0x00, 0x20}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E3M4, "complex_float8_e3m4", 2, "[1.0,\"NaN\"]", {0x30, 0x78}, "[1.0,\"NaN\"]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3, "complex_float8_e4m3", 2, "[1.0,\"-Infinity\"]", {0x38, 0xf8}, "[1.0,\"-Infinity\"]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3B11FNUZ, "complex_float8_e4m3b11fnuz", 2, "[1.0,0]", {0x58, 0x00}, "[1.0,0.0]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3FNUZ, "complex_float8_e4m3fnuz", 2, "[1.0,\"NaN\"]", {0x40, 0x80}, "[1.0,\"NaN\"]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2, "complex_float8_e5m2", 2, "[\"0x3c\",2.0]", {0x3c, 0x40}, "[1.0,2.0]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2FNUZ, "complex_float8_e5m2fnuz", 2, "[1.0,-1.0]", {0x40, 0xc0}, "[1.0,-1.0]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU, "complex_float8_e8m0fnu", 2, "[1.0,0.5]", {0x7f, 0x7e}, "[1.0,0.5]", {{0x01, 0xff}, {0x80, 0x7f}}},
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

/* The host bytes of the fill value and two elements of the complex types with 2-, 4- and
 * 8-byte components (host byte order, so built here rather than written out). */
static void host_bytes(const registry_type *t, uint8_t fill[16], uint8_t values[2][16]) {
    memcpy(fill, t->fill_bytes, 16);
    memcpy(values, t->values, sizeof t->values);
    if (t->code == ZARR_DATA_TYPE_COMPLEX_BFLOAT16) {
        uint16_t f[2] = {0x3f80, 0xc000}, v[2][2] = {{0x4049, 0x7fc0}, {0x0001, 0xff80}};
        memcpy(fill, f, 4);
        memcpy(values[0], v[0], 4);
        memcpy(values[1], v[1], 4);
    } else if (t->code == ZARR_DATA_TYPE_COMPLEX_FLOAT16) {
        uint16_t f[2] = {0x3c00, 0x7e00}, v[2][2] = {{0x4248, 0xfc00}, {0x0001, 0x8000}};
        memcpy(fill, f, 4);
        memcpy(values[0], v[0], 4);
        memcpy(values[1], v[1], 4);
    } else if (t->code == ZARR_DATA_TYPE_COMPLEX_FLOAT32) {
        float f[2] = {0.5f, INFINITY}, v[2][2] = {{3.25f, -1e30f}, {0.0f, -0.0f}};
        memcpy(fill, f, 8);
        memcpy(values[0], v[0], 8);
        memcpy(values[1], v[1], 8);
    } else if (t->code == ZARR_DATA_TYPE_COMPLEX_FLOAT64) {
        double f[2] = {-0.25, 3.0}, v[2][2] = {{1e300, -2.5}, {0.1, 7.0}};
        memcpy(fill, f, 16);
        memcpy(values[0], v[0], 16);
        memcpy(values[1], v[1], 16);
    }
}

/* Every type: code, name, element size, the fill value (read from an unwritten chunk and
 * written back canonically), and written elements read back (through a reopened handle). */
ZTEST(every_type_round_trips) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    for (size_t i = 0; i < NTYPES; i++) {
        const registry_type *t = &TYPES[i];
        uint8_t fill[16], values[2][16], buf[4 * 16];
        char path[64];
        host_bytes(t, fill, values);
        snprintf(path, sizeof path, "/%s", t->name);
        /* The complex types of 2-, 4- and 8-byte components need an endian. */
        zarr_array *a = NULL;
        ZT_OK(zarr_array_create(store, path, doc(t->name, 4, 2, t->fill, LITTLE), &a));
        zarr_data_type code = 0;
        size_t size = 0;
        ZT_OK(zarr_array_data_type(a, &code));
        ZT_OK(zarr_array_element_size(a, &size));
        if (code != t->code || size != t->size)
            fprintf(stderr, "%s: code %d size %zu\n", t->name, (int)code, size);
        ZT_CHECK(code == t->code);
        ZT_CHECK(size == t->size);
        ZT_CHECK(strcmp(zarr_data_type_str(code), t->name) == 0);
        uint8_t got_fill[16];
        ZT_OK(zarr_array_fill_value(a, got_fill, t->size));
        ZT_EQ_MEM(got_fill, fill, t->size);
        char *json = metadata(a);
        char expect[256];
        snprintf(expect, sizeof expect, "\"data_type\":\"%s\"", t->name);
        ZT_STR_CONTAINS(json, expect);
        snprintf(expect, sizeof expect, "\"fill_value\":%s", t->fill_canonical);
        ZT_STR_CONTAINS(json, expect);
        free(json);
        uint64_t start[1] = {1}, count[1] = {2};
        memcpy(buf, values[0], t->size);
        memcpy(buf + t->size, values[1], t->size);
        ZT_OK(zarr_array_write(a, 1, start, count, buf, 2 * t->size));
        zarr_array_free(a);
        a = NULL;
        ZT_OK(zarr_array_open(store, path, &a));
        uint64_t all_start[1] = {0}, all[1] = {4};
        memset(buf, 0xaa, sizeof buf);
        ZT_OK(zarr_array_read(a, 1, all_start, all, buf, 4 * t->size));
        ZT_EQ_MEM(buf, fill, t->size);
        ZT_EQ_MEM(buf + t->size, values[0], t->size);
        ZT_EQ_MEM(buf + 2 * t->size, values[1], t->size);
        ZT_EQ_MEM(buf + 3 * t->size, fill, t->size);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

/* int4 as tensorstore stores it: one byte per element, the code with the upper bits zero;
 * a chunk whose bytes are sign-extended (another writer's choice: "upper bits ignored")
 * reads as the masked codes; endian may be omitted. */
ZTEST(int4_bytes_on_disk) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", doc("int4", 4, 4, "0", PLAIN), &a));
    const uint8_t codes[4] = {0x0f, 0x07, 0x08, 0x00}; /* -1, 7, -8, 0 */
    uint64_t start[1] = {0}, count[1] = {4};
    ZT_OK(zarr_array_write(a, 1, start, count, codes, 4));
    size_t len = 0;
    uint8_t *stored = ztest_read_file(ztest_path(root, "a/c/0"), &len);
    ZT_CHECK(stored != NULL && len == 4);
    ZT_EQ_MEM(stored, codes, 4);
    free(stored);
    const uint8_t extended[4] = {0xff, 0x17, 0xf8, 0xf0};
    ZT_CHECK(ztest_write_file(ztest_path(root, "a/c/0"), extended, 4) == 0);
    uint8_t got[4];
    ZT_OK(zarr_array_read(a, 1, start, count, got, 4));
    ZT_EQ_MEM(got, codes, 4);
    double d[4];
    ZT_OK(zarr_array_read_double(a, 1, start, count, d, 4));
    ZT_CHECK(d[0] == -1.0 && d[1] == 7.0 && d[2] == -8.0 && d[3] == 0.0);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* complex_bfloat16 with a big-endian bytes codec swaps each component, not the pair. */
ZTEST(complex_bfloat16_big_endian) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/c", doc("complex_bfloat16", 1, 1, "[0,0]", BIG), &a));
    uint16_t v[2] = {0x3f80, 0xc040}; /* 1 - 3i */
    uint64_t start[1] = {0}, count[1] = {1};
    ZT_OK(zarr_array_write(a, 1, start, count, v, 4));
    size_t len = 0;
    uint8_t *stored = ztest_read_file(ztest_path(root, "c/c/0"), &len);
    const uint8_t expect[4] = {0x3f, 0x80, 0xc0, 0x40};
    ZT_CHECK(stored != NULL && len == 4);
    ZT_EQ_MEM(stored, expect, 4);
    free(stored);
    uint16_t back[2];
    ZT_OK(zarr_array_read(a, 1, start, count, back, 4));
    ZT_EQ_MEM(back, v, 4);
    /* Complex numbers are not real numbers. */
    double d;
    ZT_STATUS(zarr_array_read_double(a, 1, start, count, &d, 1), ZARR_ERROR_TYPE_MISMATCH);
    zarr_array_free(a);
    /* The 2-byte components need an endian; one-byte components do not. */
    ZT_STATUS(zarr_array_create(store, "/d", doc("complex_bfloat16", 1, 1, "[0,0]", PLAIN), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_OK(zarr_array_create(store, "/e", doc("complex_float8_e4m3", 1, 1, "[0,0]", PLAIN), &a));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Fill value spellings: what each format has, and a precise error naming the type for
 * what it has not. */
ZTEST(fill_value_spellings) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    static const struct {
        const char *type, *fill, *message;
    } bad[] = {
        {"float4_e2m1fn", "\"NaN\"", "float4_e2m1fn has no NaN and no infinities"},
        {"float6_e2m3fn", "\"Infinity\"", "float6_e2m3fn has no NaN and no infinities"},
        {"float6_e3m2fn", "\"-Infinity\"", "float6_e3m2fn has no NaN and no infinities"},
        {"float4_e2m1fn", "\"0x10\"", "float4_e2m1fn"},
        {"float6_e3m2fn", "\"0x40\"", "float6_e3m2fn"},
        {"int4", "8", "from -8 to 7"},
        {"int2", "-3", "from -2 to 1"},
        {"uint2", "4", "from 0 to 3"},
        {"uint4", "-1", "from 0 to 15"},
        {"complex_float4_e2m1fn", "1.0", "expected [real, imaginary]"},
        {"complex_float6_e2m3fn", "[1.0,\"NaN\"]", "imaginary part"},
        {"complex_float32", "[1.0]", "expected [real, imaginary]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ZT_STATUS(zarr_array_create(store, "/x", doc(bad[i].type, 2, 2, bad[i].fill, LITTLE), &a),
                  ZARR_ERROR_INVALID_METADATA);
        ZT_STR_CONTAINS(zarr_last_error_message(), bad[i].message);
        ZT_CHECK(a == NULL);
    }
    /* Numbers round to nearest, ties to even: 5 lies between 4 (0x6) and 6 (0x7). */
    ZT_OK(zarr_array_create(store, "/r", doc("float4_e2m1fn", 2, 2, "5", LITTLE), &a));
    uint8_t f = 0;
    ZT_OK(zarr_array_fill_value(a, &f, 1));
    ZT_CHECK(f == 0x06);
    double d = 0;
    ZT_OK(zarr_array_fill_value_double(a, &d));
    ZT_CHECK(d == 4.0);
    zarr_array_free(a);
    /* An unknown complex component is unsupported, not malformed. */
    ZT_STATUS(zarr_array_create(store, "/u", doc("complex_float8_e4m3fn", 2, 2, "[0,0]", LITTLE), &a),
              ZARR_ERROR_UNSUPPORTED);
    zarr_store_free(store);
}

ZTEST(codes_and_names) {
    for (size_t i = 0; i < NTYPES; i++) ZT_CHECK(strcmp(zarr_data_type_str(TYPES[i].code), TYPES[i].name) == 0);
    ZT_CHECK(ZARR_DATA_TYPE_INT2 == 33 && ZARR_DATA_TYPE_FLOAT6_E3M2FN == 39);
    ZT_CHECK(ZARR_DATA_TYPE_COMPLEX_BFLOAT16 == 40 && ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU == 53);
    ZT_CHECK(strcmp(zarr_data_type_str(54), "unknown data type") == 0);
}

static const ztest_case ztest_cases[] = {
    ZCASE(every_type_round_trips),
    ZCASE(int4_bytes_on_disk),
    ZCASE(complex_bfloat16_big_endian),
    ZCASE(fill_value_spellings),
    ZCASE(codes_and_names),
};

ZTEST_MAIN()
