/* Codecs: every data type through bytes (little and big endian, checked on disk),
 * transpose, gzip, zstd, blosc, crc32c and chains of them, through the file system store. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary directories and paths: ztest_tmp_dir() and ztest_path() from ztest.h. */

/* ---- helpers ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fill_random(unsigned char *buf, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        buf[i] = (unsigned char)(next_random() >> 24);
    }
}

static int host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* CRC-32C (Castagnoli), reflected, as the crc32c codec appends it. */
static uint32_t crc32c(const unsigned char *data, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        crc ^= data[i];
        for (k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
        }
    }
    return crc ^ 0xFFFFFFFFu;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* A v3 array document with the given codecs list. */
static const char *meta(const char *shape, const char *chunks, const char *dtype, const char *fill,
                        const char *codecs) {
    static char buffers[4][8192];
    static int next;
    char *out = buffers[next++ % 4];
    snprintf(out, 8192,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":%s,\"data_type\":\"%s\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":%s}},"
             "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
             "\"fill_value\":%s,\"codecs\":%s}",
             shape, dtype, chunks, fill, codecs);
    return out;
}

#define BYTES_LE "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}"
#define BYTES_BE "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}"

/*
 * Create `path` in a new file system store with `metadata`, write `n` bytes of `data` over
 * the whole array (`ndim`, `shape`), read them back through the same handle and through a
 * handle from a second store on the same directory, and compare bitwise. `root_out`
 * receives the store directory. Returns 1 on success (failures are reported).
 */
static int round_trip_ok;

static void round_trip(const char *metadata, size_t ndim, const uint64_t *shape,
                       const void *data, size_t n, const char **root_out) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL, *store2 = NULL;
    zarr_array *a = NULL, *b = NULL;
    uint64_t start[8] = {0};
    unsigned char *back = (unsigned char *)malloc(n + 1);
    round_trip_ok = 0;
    if (root_out != NULL) {
        *root_out = root;
    }
    ZT_CHECK(back != NULL);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/arr", metadata, &a));
    ZT_OK(zarr_array_write(a, ndim, start, shape, data, n));
    memset(back, 0xA5, n);
    ZT_OK(zarr_array_read(a, ndim, start, shape, back, n));
    ZT_EQ_MEM(back, data, n);
    ZT_OK(zarr_store_open_filesystem(root, &store2));
    ZT_OK(zarr_array_open(store2, "/arr", &b));
    memset(back, 0x5A, n);
    ZT_OK(zarr_array_read(b, ndim, start, shape, back, n));
    ZT_EQ_MEM(back, data, n);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
    zarr_store_free(store2);
    free(back);
    round_trip_ok = 1;
}

/* ---- data types through the bytes codec ---- */

struct dtype_info {
    const char *name;
    const char *fill;
    size_t size;
    size_t endian_unit; /* the unit whose bytes the bytes codec orders */
    int is_bool;
};

static const struct dtype_info dtypes[] = {
    {"bool", "false", 1, 1, 1},
    {"int8", "0", 1, 1, 0},
    {"int16", "0", 2, 2, 0},
    {"int32", "0", 4, 4, 0},
    {"int64", "0", 8, 8, 0},
    {"uint8", "0", 1, 1, 0},
    {"uint16", "0", 2, 2, 0},
    {"uint32", "0", 4, 4, 0},
    {"uint64", "0", 8, 8, 0},
    {"float16", "0.0", 2, 2, 0},
    {"float32", "0.0", 4, 4, 0},
    {"float64", "0.0", 8, 8, 0},
    {"complex64", "[0.0,0.0]", 8, 4, 0},
    {"complex128", "[0.0,0.0]", 16, 8, 0},
    {"r8", "[0]", 1, 1, 0},
    {"r16", "[0,0]", 2, 1, 0},
    {"r24", "[0,0,0]", 3, 1, 0},
};
#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

static const struct dtype_info *find_dtype(const char *name) {
    size_t i;
    for (i = 0; i < N_DTYPES; i++) {
        if (strcmp(dtypes[i].name, name) == 0) {
            return &dtypes[i];
        }
    }
    return NULL;
}

/* Shape [5,3], chunks [2,2]: chunk (0,0) holds elements 0, 1, 3, 4 of the C-order data. */
static void bytes_round_trip(const char *dtype_name, int big) {
    const struct dtype_info *t = find_dtype(dtype_name);
    const uint64_t shape[2] = {5, 3};
    unsigned char data[5 * 3 * 16], expected_chunk[4 * 16];
    static const int chunk_elems[4] = {0, 1, 3, 4};
    const char *root = NULL;
    unsigned char *disk;
    size_t len = 0, i, u, k;
    char codecs[256];
    size_t n;
    ZT_CHECK(t != NULL);
    n = 15 * t->size;
    fill_random(data, n);
    if (t->is_bool) {
        for (i = 0; i < n; i++) {
            data[i] &= 1;
        }
    }
    data[0] = 1; /* chunk (0,0) is never all fill */
    snprintf(codecs, sizeof codecs, "[%s]", big ? BYTES_BE : BYTES_LE);
    round_trip(meta("[5,3]", "[2,2]", t->name, t->fill, codecs), 2, shape, data, n, &root);
    ZT_CHECK(round_trip_ok);
    /* The stored chunk holds the elements in C order, each unit in the configured order. */
    for (k = 0; k < 4; k++) {
        memcpy(expected_chunk + k * t->size, data + (size_t)chunk_elems[k] * t->size, t->size);
    }
    if (big == host_is_little_endian() && t->endian_unit > 1) {
        for (i = 0; i < 4 * t->size; i += t->endian_unit) {
            for (u = 0; u < t->endian_unit / 2; u++) {
                unsigned char tmp = expected_chunk[i + u];
                expected_chunk[i + u] = expected_chunk[i + t->endian_unit - 1 - u];
                expected_chunk[i + t->endian_unit - 1 - u] = tmp;
            }
        }
    }
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL);
    ZT_EQ_U64(len, 4 * t->size);
    ZT_EQ_MEM(disk, expected_chunk, 4 * t->size);
    free(disk);
}

#define DTYPE_CASES(X)                                                                          \
    X(bool) X(int8) X(int16) X(int32) X(int64) X(uint8) X(uint16) X(uint32) X(uint64)            \
    X(float16) X(float32) X(float64) X(complex64) X(complex128) X(r8) X(r16) X(r24)

#define DEFINE_BYTES_CASES(T)                                                                   \
    ZTEST(bytes_little_##T) { bytes_round_trip(#T, 0); }                                        \
    ZTEST(bytes_big_##T) { bytes_round_trip(#T, 1); }
DTYPE_CASES(DEFINE_BYTES_CASES)

/* Known values, spelled out: a big-endian chunk on disk holds big-endian values. */
ZTEST(bytes_big_endian_layout_on_disk) {
    const uint32_t u32[4] = {0x01020304u, 0xA0B0C0D0u, 1u, 0xFFFFFF00u};
    const unsigned char u32_be[16] = {1, 2, 3, 4, 0xA0, 0xB0, 0xC0, 0xD0,
                                      0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0x00};
    const double f64[2] = {1.0, -2.5};
    const unsigned char f64_be[16] = {0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xC0, 0x04, 0, 0, 0, 0, 0, 0};
    const float c64[2] = {1.0f, -2.0f}; /* one complex64 element */
    const unsigned char c64_be[8] = {0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0};
    const uint16_t f16[2] = {0x3C00u, 0xC000u}; /* 1.0, -2.0 */
    const unsigned char f16_be[4] = {0x3C, 0x00, 0xC0, 0x00};
    const char *root = NULL;
    unsigned char *disk;
    size_t len;
    uint64_t shape[1];

    shape[0] = 4;
    round_trip(meta("[4]", "[4]", "uint32", "0", "[" BYTES_BE "]"), 1, shape, u32, sizeof u32, &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0"), &len);
    ZT_CHECK(disk != NULL && len == 16);
    ZT_EQ_MEM(disk, u32_be, 16);
    free(disk);

    shape[0] = 2;
    round_trip(meta("[2]", "[2]", "float64", "0.0", "[" BYTES_BE "]"), 1, shape, f64, sizeof f64, &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0"), &len);
    ZT_CHECK(disk != NULL && len == 16);
    ZT_EQ_MEM(disk, f64_be, 16);
    free(disk);

    shape[0] = 1;
    round_trip(meta("[1]", "[1]", "complex64", "[0.0,0.0]", "[" BYTES_BE "]"), 1, shape, c64, sizeof c64,
               &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0"), &len);
    ZT_CHECK(disk != NULL && len == 8);
    ZT_EQ_MEM(disk, c64_be, 8);
    free(disk);

    shape[0] = 2;
    round_trip(meta("[2]", "[2]", "float16", "0.0", "[" BYTES_BE "]"), 1, shape, f16, sizeof f16, &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0"), &len);
    ZT_CHECK(disk != NULL && len == 4);
    ZT_EQ_MEM(disk, f16_be, 4);
    free(disk);
}

ZTEST(bytes_little_endian_layout_on_disk) {
    const int32_t v[3] = {0x01020304, -2, 0x7F000000};
    const unsigned char le[12] = {4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x7F};
    const char *root = NULL;
    unsigned char *disk;
    size_t len;
    uint64_t shape[1] = {3};
    round_trip(meta("[3]", "[3]", "int32", "0", "[" BYTES_LE "]"), 1, shape, v, sizeof v, &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0"), &len);
    ZT_CHECK(disk != NULL && len == 12);
    ZT_EQ_MEM(disk, le, 12);
    free(disk);
}

/* ---- transpose ---- */

ZTEST(transpose_2d_layout_on_disk) {
    const uint8_t data[6] = {0, 1, 2, 3, 4, 5}; /* shape [2,3] */
    const uint8_t transposed[6] = {0, 3, 1, 4, 2, 5};
    const uint64_t shape[2] = {2, 3};
    const char *root = NULL;
    unsigned char *disk;
    size_t len;
    round_trip(meta("[2,3]", "[2,3]", "uint8", "0",
                    "[{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}},{\"name\":\"bytes\"}]"),
               2, shape, data, sizeof data, &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL && len == 6);
    ZT_EQ_MEM(disk, transposed, 6);
    free(disk);
}

ZTEST(transpose_2d_edge_chunks_big_endian) {
    int32_t data[5 * 7];
    const uint64_t shape[2] = {5, 7};
    size_t i;
    for (i = 0; i < 35; i++) {
        data[i] = (int32_t)(i * 1001) - 7;
    }
    round_trip(meta("[5,7]", "[2,3]", "int32", "-1",
                    "[{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}}," BYTES_BE "]"),
               2, shape, data, sizeof data, NULL);
    ZT_CHECK(round_trip_ok);
}

/* All six orders of a 3-D chunk, checked element by element on disk. */
ZTEST(transpose_3d_all_orders) {
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const uint64_t shape[3] = {2, 3, 4};
    uint16_t data[24];
    int o;
    size_t i;
    for (i = 0; i < 24; i++) {
        data[i] = (uint16_t)(0x100 * i + 7);
    }
    for (o = 0; o < 6; o++) {
        char codecs[256];
        const char *root = NULL;
        unsigned char *disk;
        size_t len;
        uint64_t enc_shape[3];
        uint64_t j0, j1, j2;
        int d;
        snprintf(codecs, sizeof codecs,
                 "[{\"name\":\"transpose\",\"configuration\":{\"order\":[%d,%d,%d]}}," BYTES_LE "]",
                 orders[o][0], orders[o][1], orders[o][2]);
        round_trip(meta("[2,3,4]", "[2,3,4]", "uint16", "0", codecs), 3, shape, data, sizeof data, &root);
        ZT_CHECK(round_trip_ok);
        disk = ztest_read_file(ztest_path(root, "arr/c/0/0/0"), &len);
        ZT_CHECK(disk != NULL && len == sizeof data);
        for (d = 0; d < 3; d++) {
            enc_shape[d] = shape[orders[o][d]];
        }
        /* Encoded element j holds the decoded element a with a[order[i]] = j[i]. */
        for (j0 = 0; j0 < enc_shape[0]; j0++) {
            for (j1 = 0; j1 < enc_shape[1]; j1++) {
                for (j2 = 0; j2 < enc_shape[2]; j2++) {
                    uint64_t a[3], j[3] = {j0, j1, j2};
                    size_t enc_index = (size_t)((j0 * enc_shape[1] + j1) * enc_shape[2] + j2);
                    size_t dec_index;
                    uint16_t want;
                    for (d = 0; d < 3; d++) {
                        a[orders[o][d]] = j[d];
                    }
                    dec_index = (size_t)((a[0] * 3 + a[1]) * 4 + a[2]);
                    want = data[dec_index];
                    if (disk[2 * enc_index] != (want & 0xFF) || disk[2 * enc_index + 1] != (want >> 8)) {
                        fprintf(stderr, "order [%d,%d,%d]: encoded element %u is wrong\n", orders[o][0],
                                orders[o][1], orders[o][2], (unsigned)enc_index);
                        ZT_CHECK(0);
                    }
                }
            }
        }
        free(disk);
    }
}

/* Two transposes in a row compose. */
ZTEST(transpose_twice_with_edges) {
    float data[3 * 5 * 4];
    const uint64_t shape[3] = {3, 5, 4};
    size_t i;
    for (i = 0; i < 60; i++) {
        data[i] = (float)i * 0.5f - 3.0f;
    }
    round_trip(meta("[3,5,4]", "[2,2,3]", "float32", "0.0",
                    "[{\"name\":\"transpose\",\"configuration\":{\"order\":[2,0,1]}},"
                    "{\"name\":\"transpose\",\"configuration\":{\"order\":[1,2,0]}}," BYTES_BE "]"),
               3, shape, data, sizeof data, NULL);
    ZT_CHECK(round_trip_ok);
}

ZTEST(transpose_invalid_order) {
    static const char *const bad[] = {"[0,0]", "[0]", "[0,1,2]", "[1,2]", "[-1,0]", "\"X\""};
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char codecs[256];
        zarr_array *a = (zarr_array *)1;
        zarr_status s;
        snprintf(codecs, sizeof codecs,
                 "[{\"name\":\"transpose\",\"configuration\":{\"order\":%s}},{\"name\":\"bytes\"}]", bad[i]);
        s = zarr_array_create(store, "/a", meta("[4,4]", "[2,2]", "uint8", "0", codecs), &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "order %s: %d: %s\n", bad[i], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "transpose");
    zarr_store_free(store);
}

/* ---- compressible test data ---- */

/* int32 [64,64] in chunks of [32,24] (edge chunks included), smooth enough to compress. */
#define CN 64
static int32_t smooth[CN * CN];

static void make_smooth(void) {
    size_t i;
    for (i = 0; i < CN * CN; i++) {
        smooth[i] = (int32_t)((i / 7) % 1000) - 500;
    }
}

static const uint64_t smooth_shape[2] = {CN, CN};

/* Round trip of the smooth data through a codec chain; returns the store root. */
static const char *smooth_round_trip(const char *codecs) {
    const char *root = NULL;
    make_smooth();
    round_trip(meta("[64,64]", "[32,24]", "int32", "0", codecs), 2, smooth_shape, smooth, sizeof smooth,
               &root);
    return root;
}

/* Partial writes through a compressing chain merge with the decoded chunk. */
static void partial_write_through(const char *codecs) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t patch[10 * 10], back[CN * CN];
    uint64_t start[2] = {0, 0}, count[2] = {CN, CN};
    size_t r, c;
    make_smooth();
    for (r = 0; r < 100; r++) {
        patch[r] = (int32_t)(-7 * r);
    }
    ZT_OK(zarr_store_open_filesystem(ztest_tmp_dir(), &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[64,64]", "[32,24]", "int32", "0", codecs), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, smooth, sizeof smooth));
    start[0] = 27;
    start[1] = 20;
    count[0] = count[1] = 10;
    ZT_OK(zarr_array_write(a, 2, start, count, patch, sizeof patch));
    start[0] = start[1] = 0;
    count[0] = count[1] = CN;
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    for (r = 0; r < CN; r++) {
        for (c = 0; c < CN; c++) {
            int32_t want = (r >= 27 && r < 37 && c >= 20 && c < 30) ? patch[(r - 27) * 10 + (c - 20)]
                                                                    : smooth[r * CN + c];
            if (back[r * CN + c] != want) {
                fprintf(stderr, "(%u,%u): %d != %d\n", (unsigned)r, (unsigned)c, (int)back[r * CN + c],
                        (int)want);
                ZT_CHECK(0);
            }
        }
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* The canonical metadata stored for a chain, compacted (caller frees). */
static char *stored_codecs(const char *codecs) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL, *c = NULL;
    if (zarr_store_open_memory(&store) != ZARR_OK) {
        return NULL;
    }
    if (zarr_array_create(store, "/a", meta("[8]", "[4]", "int32", "0", codecs), &a) == ZARR_OK &&
        zarr_array_metadata_json(a, &json) == ZARR_OK) {
        c = ztest_json_compact(json);
        zarr_string_free(json);
    } else {
        fprintf(stderr, "create failed: %s\n", zarr_last_error_message());
    }
    zarr_array_free(a);
    zarr_store_free(store);
    return c;
}

/* ---- gzip ---- */

ZTEST(gzip_levels_round_trip) {
    static const int levels[] = {0, 1, 5, 9};
    size_t i;
    for (i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        char codecs[256];
        const char *root;
        unsigned char *disk;
        size_t len;
        snprintf(codecs, sizeof codecs, "[" BYTES_LE ",{\"name\":\"gzip\",\"configuration\":{\"level\":%d}}]",
                 levels[i]);
        root = smooth_round_trip(codecs);
        ZT_CHECK(round_trip_ok);
        disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
        ZT_CHECK(disk != NULL && len > 18);
        /* RFC 1952 member header: magic, deflate. */
        ZT_CHECK(disk[0] == 0x1f && disk[1] == 0x8b && disk[2] == 8);
        /* The trailer holds the input size (mod 2^32), little-endian. */
        ZT_EQ_U64(le32(disk + len - 4), 32 * 24 * 4);
        if (levels[i] > 0) {
            ZT_CHECK(len < 32 * 24 * 4);
        }
        free(disk);
    }
}

ZTEST(gzip_partial_writes) {
    partial_write_through("[" BYTES_LE ",{\"name\":\"gzip\",\"configuration\":{\"level\":6}}]");
}

ZTEST(gzip_metadata) {
    char *c = stored_codecs("[" BYTES_LE ",{\"name\":\"gzip\",\"configuration\":{\"level\":3}}]");
    ZT_CHECK(c != NULL);
    ZT_STR_CONTAINS(c, "{\"name\":\"gzip\",\"configuration\":{\"level\":3}}");
    free(c);
}

ZTEST(gzip_invalid_configuration) {
    static const char *const bad[] = {"{\"level\":10}", "{\"level\":-1}", "{\"level\":\"fast\"}",
                                      "{\"level\":1,\"extra\":2}"};
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char codecs[256];
        zarr_array *a = (zarr_array *)1;
        zarr_status s;
        snprintf(codecs, sizeof codecs, "[" BYTES_LE ",{\"name\":\"gzip\",\"configuration\":%s}]", bad[i]);
        s = zarr_array_create(store, "/a", meta("[8]", "[4]", "int32", "0", codecs), &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "gzip %s: %d: %s\n", bad[i], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "gzip");
    zarr_store_free(store);
}

/* ---- zstd ---- */

static void zstd_case(int level, int checksum) {
    char codecs[256];
    const char *root;
    unsigned char *disk;
    size_t len;
    snprintf(codecs, sizeof codecs,
             "[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":%d,\"checksum\":%s}}]", level,
             checksum ? "true" : "false");
    root = smooth_round_trip(codecs);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/1/2"), &len);
    ZT_CHECK(disk != NULL && len > 6);
    /* RFC 8878 frame: magic number, then the frame header descriptor whose bit 2 is the
     * content checksum flag. */
    ZT_CHECK(disk[0] == 0x28 && disk[1] == 0xB5 && disk[2] == 0x2F && disk[3] == 0xFD);
    ZT_EQ_U64((disk[4] >> 2) & 1, checksum ? 1 : 0);
    ZT_CHECK(len < 32 * 24 * 4);
    free(disk);
}

ZTEST(zstd_checksum_true) {
    zstd_case(3, 1);
}

ZTEST(zstd_checksum_false) {
    zstd_case(3, 0);
}

ZTEST(zstd_levels) {
    zstd_case(0, 0);
    zstd_case(1, 1);
    zstd_case(19, 0);
    zstd_case(-5, 0);
}

ZTEST(zstd_partial_writes) {
    partial_write_through("[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":true}}]");
}

ZTEST(zstd_metadata) {
    char *c = stored_codecs("[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":7,\"checksum\":true}}]");
    ZT_CHECK(c != NULL);
    ZT_STR_CONTAINS(c, "\"name\":\"zstd\"");
    ZT_STR_CONTAINS(c, "\"level\":7");
    ZT_STR_CONTAINS(c, "\"checksum\":true");
    free(c);
    /* checksum is written explicitly even when false. */
    c = stored_codecs("[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":false}}]");
    ZT_CHECK(c != NULL);
    ZT_STR_CONTAINS(c, "\"checksum\":false");
    free(c);
}

ZTEST(zstd_invalid_configuration) {
    static const char *const bad[] = {"{\"level\":23,\"checksum\":false}", "{\"level\":\"max\",\"checksum\":false}",
                                      "{\"level\":1,\"checksum\":\"yes\"}", "{\"level\":1,\"checksum\":false,\"x\":1}"};
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char codecs[256];
        zarr_array *a = (zarr_array *)1;
        zarr_status s;
        snprintf(codecs, sizeof codecs, "[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":%s}]", bad[i]);
        s = zarr_array_create(store, "/a", meta("[8]", "[4]", "int32", "0", codecs), &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "zstd %s: %d: %s\n", bad[i], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    zarr_store_free(store);
}

/* ---- blosc ---- */

/* blosc1 frame header: version, versionlz, flags, typesize, nbytes, blocksize, cbytes. */
static void blosc_case(const char *cname, const char *shuffle, int compcode) {
    char codecs[512];
    const char *root;
    unsigned char *disk;
    size_t len;
    snprintf(codecs, sizeof codecs,
             "[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"%s\",\"clevel\":5,"
             "\"shuffle\":\"%s\",\"typesize\":4,\"blocksize\":0}}]",
             cname, shuffle);
    root = smooth_round_trip(codecs);
    if (!round_trip_ok) {
        fprintf(stderr, "blosc %s/%s failed\n", cname, shuffle);
    }
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL && len >= 16);
    ZT_EQ_U64(disk[0], 2);                    /* format version */
    ZT_EQ_U64(disk[3], 4);                    /* typesize */
    ZT_EQ_U64(le32(disk + 4), 32 * 24 * 4);   /* uncompressed size */
    ZT_EQ_U64(le32(disk + 12), len);          /* compressed size: the whole frame */
    ZT_CHECK(len < 32 * 24 * 4);              /* it did compress */
    ZT_EQ_U64(disk[2] & 0x02, 0);             /* not stored as a plain copy */
    ZT_EQ_U64(disk[2] >> 5, compcode);        /* compressor format code */
    if (strcmp(shuffle, "shuffle") == 0) {
        ZT_EQ_U64(disk[2] & 0x05, 0x01);
    } else if (strcmp(shuffle, "bitshuffle") == 0) {
        ZT_EQ_U64(disk[2] & 0x04, 0x04);
    } else {
        ZT_EQ_U64(disk[2] & 0x05, 0);
    }
    free(disk);
}

#define BLOSC_CASES(X)                                                                          \
    X(lz4, 1) X(lz4hc, 1) X(blosclz, 0) X(zstd, 4) X(zlib, 3)

#define DEFINE_BLOSC_CASES(C, CODE)                                                             \
    ZTEST(blosc_##C##_noshuffle) { blosc_case(#C, "noshuffle", CODE); }                         \
    ZTEST(blosc_##C##_shuffle) { blosc_case(#C, "shuffle", CODE); }                             \
    ZTEST(blosc_##C##_bitshuffle) { blosc_case(#C, "bitshuffle", CODE); }
BLOSC_CASES(DEFINE_BLOSC_CASES)

ZTEST(blosc_partial_writes) {
    partial_write_through("[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"zstd\","
                          "\"clevel\":3,\"shuffle\":\"bitshuffle\",\"typesize\":4,\"blocksize\":0}}]");
}

/* clevel 0 stores the data uncompressed inside the frame. */
ZTEST(blosc_clevel_zero) {
    const char *root = smooth_round_trip(
        "[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":0,"
        "\"shuffle\":\"noshuffle\",\"typesize\":4,\"blocksize\":0}}]");
    unsigned char *disk;
    size_t len;
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL && len >= 16 + 32 * 24 * 4);
    ZT_EQ_U64(le32(disk + 4), 32 * 24 * 4);
    free(disk);
}

/* Every data type through blosc with shuffle (typesize from the element size). */
ZTEST(blosc_every_data_type) {
    size_t i;
    for (i = 0; i < N_DTYPES; i++) {
        const struct dtype_info *t = &dtypes[i];
        unsigned char data[9 * 7 * 16];
        const uint64_t shape[2] = {9, 7};
        char codecs[512];
        size_t n = 63 * t->size, k;
        fill_random(data, n);
        if (t->is_bool) {
            for (k = 0; k < n; k++) {
                data[k] &= 1;
            }
        }
        snprintf(codecs, sizeof codecs,
                 "[" BYTES_BE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,"
                 "\"shuffle\":\"shuffle\",\"typesize\":%u,\"blocksize\":0}}]",
                 (unsigned)t->size);
        round_trip(meta("[9,7]", "[4,4]", t->name, t->fill, codecs), 2, shape, data, n, NULL);
        if (!round_trip_ok) {
            fprintf(stderr, "data type %s failed\n", t->name);
        }
        ZT_CHECK(round_trip_ok);
    }
}

ZTEST(blosc_metadata) {
    char *c = stored_codecs("[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"zstd\",\"clevel\":4,"
                            "\"shuffle\":\"bitshuffle\",\"typesize\":4,\"blocksize\":0}}]");
    ZT_CHECK(c != NULL);
    ZT_STR_CONTAINS(c, "\"name\":\"blosc\"");
    ZT_STR_CONTAINS(c, "\"cname\":\"zstd\"");
    ZT_STR_CONTAINS(c, "\"clevel\":4");
    ZT_STR_CONTAINS(c, "\"shuffle\":\"bitshuffle\"");
    ZT_STR_CONTAINS(c, "\"typesize\":4");
    ZT_STR_CONTAINS(c, "\"blocksize\":0");
    free(c);
}

/* snappy is a valid blosc compressor name, but it is not compiled in. */
ZTEST(blosc_snappy_unsupported) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta("[8]", "[4]", "int32", "0",
                                     "[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"snappy\","
                                     "\"clevel\":5,\"shuffle\":\"shuffle\",\"typesize\":4,\"blocksize\":0}}]"),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "snappy");
    zarr_store_free(store);
}

ZTEST(blosc_invalid_configuration) {
    static const char *const bad[] = {
        "{\"cname\":\"lzma\",\"clevel\":5,\"shuffle\":\"shuffle\",\"typesize\":4,\"blocksize\":0}",
        "{\"cname\":\"lz4\",\"clevel\":10,\"shuffle\":\"shuffle\",\"typesize\":4,\"blocksize\":0}",
        "{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"sideways\",\"typesize\":4,\"blocksize\":0}",
        "{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"shuffle\",\"typesize\":0,\"blocksize\":0}",
        "{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"shuffle\",\"typesize\":4,\"blocksize\":0,\"x\":1}",
        "{\"cname\":5,\"clevel\":5,\"shuffle\":\"shuffle\",\"typesize\":4,\"blocksize\":0}",
    };
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char codecs[512];
        zarr_array *a = (zarr_array *)1;
        zarr_status s;
        snprintf(codecs, sizeof codecs, "[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":%s}]", bad[i]);
        s = zarr_array_create(store, "/a", meta("[8]", "[4]", "int32", "0", codecs), &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "blosc %s: %d: %s\n", bad[i], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    zarr_store_free(store);
}

/* ---- crc32c ---- */

ZTEST(crc32c_appends_checksum) {
    uint8_t data[8 * 8];
    const uint64_t shape[2] = {8, 8};
    const char *root = NULL;
    unsigned char *disk;
    size_t len, i;
    for (i = 0; i < sizeof data; i++) {
        data[i] = (uint8_t)(i * 37 + 1);
    }
    round_trip(meta("[8,8]", "[8,8]", "uint8", "0", "[{\"name\":\"bytes\"},{\"name\":\"crc32c\"}]"), 2, shape,
               data, sizeof data, &root);
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL && len == sizeof data + 4);
    ZT_EQ_MEM(disk, data, sizeof data);
    ZT_EQ_U64(le32(disk + sizeof data), crc32c(data, sizeof data));
    free(disk);
}

/* The standard check value of CRC-32C, to make sure the helper above is right. */
ZTEST(crc32c_reference_value) {
    ZT_EQ_U64(crc32c((const unsigned char *)"123456789", 9), 0xE3069283u);
}

ZTEST(crc32c_with_empty_configuration) {
    uint8_t data[16];
    const uint64_t shape[1] = {16};
    size_t i;
    for (i = 0; i < 16; i++) {
        data[i] = (uint8_t)(i + 100);
    }
    round_trip(meta("[16]", "[5]", "uint8", "0", "[{\"name\":\"bytes\"},{\"name\":\"crc32c\",\"configuration\":{}}]"),
               1, shape, data, sizeof data, NULL);
    ZT_CHECK(round_trip_ok);
}

ZTEST(crc32c_partial_writes) {
    partial_write_through("[" BYTES_BE ",{\"name\":\"crc32c\"}]");
}

/* ---- chains ---- */

ZTEST(chain_transpose_big_blosc_crc32c) {
    const char *root = smooth_round_trip(
        "[{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}}," BYTES_BE ","
        "{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"shuffle\","
        "\"typesize\":4,\"blocksize\":0}},{\"name\":\"crc32c\"}]");
    unsigned char *disk;
    size_t len;
    ZT_CHECK(round_trip_ok);
    /* An edge chunk: checksum over the blosc frame, which holds the full chunk size. */
    disk = ztest_read_file(ztest_path(root, "arr/c/1/2"), &len);
    ZT_CHECK(disk != NULL && len > 20);
    ZT_EQ_U64(le32(disk + len - 4), crc32c(disk, len - 4));
    ZT_EQ_U64(disk[0], 2);
    ZT_EQ_U64(le32(disk + 4), 32 * 24 * 4);
    ZT_EQ_U64(le32(disk + 12), len - 4);
    free(disk);
    partial_write_through(
        "[{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}}," BYTES_BE ","
        "{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"shuffle\","
        "\"typesize\":4,\"blocksize\":0}},{\"name\":\"crc32c\"}]");
}

ZTEST(chain_gzip_crc32c) {
    const char *root = smooth_round_trip("[" BYTES_LE ",{\"name\":\"gzip\",\"configuration\":{\"level\":1}},"
                                         "{\"name\":\"crc32c\"}]");
    unsigned char *disk;
    size_t len;
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL && len > 22);
    ZT_CHECK(disk[0] == 0x1f && disk[1] == 0x8b);
    ZT_EQ_U64(le32(disk + len - 4), crc32c(disk, len - 4));
    free(disk);
}

ZTEST(chain_crc32c_then_zstd) {
    const char *root = smooth_round_trip("[" BYTES_LE ",{\"name\":\"crc32c\"},"
                                         "{\"name\":\"zstd\",\"configuration\":{\"level\":5,\"checksum\":false}}]");
    unsigned char *disk;
    size_t len;
    ZT_CHECK(round_trip_ok);
    disk = ztest_read_file(ztest_path(root, "arr/c/0/0"), &len);
    ZT_CHECK(disk != NULL && len > 4);
    ZT_CHECK(disk[0] == 0x28 && disk[1] == 0xB5 && disk[2] == 0x2F && disk[3] == 0xFD);
    free(disk);
}

ZTEST(chain_transpose_zstd_gzip_crc32c_3d) {
    double data[4 * 5 * 6];
    const uint64_t shape[3] = {4, 5, 6};
    size_t i;
    for (i = 0; i < 120; i++) {
        data[i] = (double)(i % 13) * 0.25;
    }
    data[0] = 1.0;
    round_trip(meta("[4,5,6]", "[3,2,4]", "float64", "\"NaN\"",
                    "[{\"name\":\"transpose\",\"configuration\":{\"order\":[2,0,1]}}," BYTES_BE ","
                    "{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"checksum\":true}},"
                    "{\"name\":\"gzip\",\"configuration\":{\"level\":2}},{\"name\":\"crc32c\"}]"),
               3, shape, data, sizeof data, NULL);
    ZT_CHECK(round_trip_ok);
}

/* Chunks equal to the fill value are not stored, whatever the codecs. */
ZTEST(chain_fill_chunks_not_stored) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t sevens[8] = {7, 7, 7, 7, 7, 7, 7, 7}, back[8];
    uint64_t start = 0, count = 8;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a",
                            meta("[8]", "[4]", "int32", "7",
                                 "[" BYTES_BE ",{\"name\":\"gzip\",\"configuration\":{\"level\":1}},{\"name\":\"crc32c\"}]"),
                            &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, sevens, sizeof sevens));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/0")));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/1")));
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, sevens, sizeof sevens);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Codec order rules: bytes->bytes codecs after the array->bytes codec, transpose before. */
ZTEST(chain_order_rules) {
    static const char *const bad[] = {
        "[{\"name\":\"gzip\",\"configuration\":{\"level\":1}}," BYTES_LE "]",
        "[{\"name\":\"crc32c\"}]",
        "[" BYTES_LE ",{\"name\":\"transpose\",\"configuration\":{\"order\":[0]}}]",
        "[" BYTES_LE "," BYTES_BE "]",
    };
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_array *a = (zarr_array *)1;
        zarr_status s = zarr_array_create(store, "/a", meta("[8]", "[4]", "int32", "0", bad[i]), &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "chain %s: %d: %s\n", bad[i], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    zarr_store_free(store);
}


static const ztest_case ztest_cases[] = {
    ZCASE(bytes_little_bool),
    ZCASE(bytes_big_bool),
    ZCASE(bytes_little_int8),
    ZCASE(bytes_big_int8),
    ZCASE(bytes_little_int16),
    ZCASE(bytes_big_int16),
    ZCASE(bytes_little_int32),
    ZCASE(bytes_big_int32),
    ZCASE(bytes_little_int64),
    ZCASE(bytes_big_int64),
    ZCASE(bytes_little_uint8),
    ZCASE(bytes_big_uint8),
    ZCASE(bytes_little_uint16),
    ZCASE(bytes_big_uint16),
    ZCASE(bytes_little_uint32),
    ZCASE(bytes_big_uint32),
    ZCASE(bytes_little_uint64),
    ZCASE(bytes_big_uint64),
    ZCASE(bytes_little_float16),
    ZCASE(bytes_big_float16),
    ZCASE(bytes_little_float32),
    ZCASE(bytes_big_float32),
    ZCASE(bytes_little_float64),
    ZCASE(bytes_big_float64),
    ZCASE(bytes_little_complex64),
    ZCASE(bytes_big_complex64),
    ZCASE(bytes_little_complex128),
    ZCASE(bytes_big_complex128),
    ZCASE(bytes_little_r8),
    ZCASE(bytes_big_r8),
    ZCASE(bytes_little_r16),
    ZCASE(bytes_big_r16),
    ZCASE(bytes_little_r24),
    ZCASE(bytes_big_r24),
    ZCASE(bytes_big_endian_layout_on_disk),
    ZCASE(bytes_little_endian_layout_on_disk),
    ZCASE(transpose_2d_layout_on_disk),
    ZCASE(transpose_2d_edge_chunks_big_endian),
    ZCASE(transpose_3d_all_orders),
    ZCASE(transpose_twice_with_edges),
    ZCASE(transpose_invalid_order),
    ZCASE(gzip_levels_round_trip),
    ZCASE(gzip_partial_writes),
    ZCASE(gzip_metadata),
    ZCASE(gzip_invalid_configuration),
    ZCASE(zstd_checksum_true),
    ZCASE(zstd_checksum_false),
    ZCASE(zstd_levels),
    ZCASE(zstd_partial_writes),
    ZCASE(zstd_metadata),
    ZCASE(zstd_invalid_configuration),
    ZCASE(blosc_lz4_noshuffle),
    ZCASE(blosc_lz4_shuffle),
    ZCASE(blosc_lz4_bitshuffle),
    ZCASE(blosc_lz4hc_noshuffle),
    ZCASE(blosc_lz4hc_shuffle),
    ZCASE(blosc_lz4hc_bitshuffle),
    ZCASE(blosc_blosclz_noshuffle),
    ZCASE(blosc_blosclz_shuffle),
    ZCASE(blosc_blosclz_bitshuffle),
    ZCASE(blosc_zstd_noshuffle),
    ZCASE(blosc_zstd_shuffle),
    ZCASE(blosc_zstd_bitshuffle),
    ZCASE(blosc_zlib_noshuffle),
    ZCASE(blosc_zlib_shuffle),
    ZCASE(blosc_zlib_bitshuffle),
    ZCASE(blosc_partial_writes),
    ZCASE(blosc_clevel_zero),
    ZCASE(blosc_every_data_type),
    ZCASE(blosc_metadata),
    ZCASE(blosc_snappy_unsupported),
    ZCASE(blosc_invalid_configuration),
    ZCASE(crc32c_appends_checksum),
    ZCASE(crc32c_reference_value),
    ZCASE(crc32c_with_empty_configuration),
    ZCASE(crc32c_partial_writes),
    ZCASE(chain_transpose_big_blosc_crc32c),
    ZCASE(chain_gzip_crc32c),
    ZCASE(chain_crc32c_then_zstd),
    ZCASE(chain_transpose_zstd_gzip_crc32c_3d),
    ZCASE(chain_fill_chunks_not_stored),
    ZCASE(chain_order_rules),
};

ZTEST_MAIN()
