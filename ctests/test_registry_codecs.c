/* The zarr-extensions registry's reshape, n5_default and conditional codecs, and the
 * numcodecs.* names in their short string form: round trips through the array API, the
 * stored bytes (N5 block headers, conditional's bit mask), chunks written by other
 * writers (truncated N5 edge blocks, a conditional chunk with its codec applied), corrupt
 * chunks (CORRUPT_DATA naming the chunk) and malformed configurations (INVALID_METADATA
 * naming the rule). */
#include "ztest.h"

#define META(dtype, shape, chunks, fill, key_encoding, codecs)                              \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": " shape ","                 \
    " \"data_type\": \"" dtype "\", \"chunk_grid\": {\"name\": \"regular\","               \
    " \"configuration\": {\"chunk_shape\": " chunks "}}, \"chunk_key_encoding\": "          \
    key_encoding ", \"fill_value\": " fill ", \"codecs\": " codecs "}"

#define DEFAULT_KEYS "{\"name\": \"default\"}"
#define V2_KEYS "{\"name\": \"v2\", \"configuration\": {\"separator\": \"/\"}}"
#define LE "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}"
#define T10 "{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}"
#define BE "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}}"

static zarr_array *create(zarr_store **store, const char *meta) {
    zarr_array *array = NULL;
    *store = NULL;
    if (zarr_store_open_memory(store) != ZARR_OK) return NULL;
    if (zarr_array_create(*store, "/a", meta, &array) != ZARR_OK) {
        fprintf(stderr, "create: %s\n", zarr_last_error_message());
        return NULL;
    }
    return array;
}

/* The status of creating an array from `meta` in a fresh memory store; the message is
 * left in zarr_last_error_message. */
static zarr_status create_status(const char *meta) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    zarr_status s;
    if (zarr_store_open_memory(&store) != ZARR_OK) return ZARR_ERROR_IO;
    s = zarr_array_create(store, "/a", meta, &array);
    zarr_array_free(array);
    zarr_store_free(store);
    return s;
}

/* ---- reshape ------------------------------------------------------------------------ */

ZTEST(reshape_round_trips_and_stores_c_order) {
    zarr_store *store = NULL;
    /* Chunks [2, 3, 4] reshaped to [6, 4], then transposed: the stored chunk is the
     * chunk's elements in F order over [6, 4]. */
    zarr_array *a = create(&store, META("int16", "[4, 3, 4]", "[2, 3, 4]", "-1", DEFAULT_KEYS,
        "[{\"name\": \"reshape\", \"configuration\": {\"shape\": [[0, 1], -1]}}, " T10 ", " LE "]"));
    int16_t all[48], back[48], region[2 * 2 * 3], stored[24];
    uint64_t zero[3] = {0, 0, 0}, shape[3] = {4, 3, 4}, start[3] = {1, 1, 1},
             count[3] = {2, 2, 3};
    size_t size = 0, i;
    char *json = NULL;
    ZT_CHECK(a != NULL);
    for (i = 0; i < 48; i++) all[i] = (int16_t)(i * 3 - 20);
    ZT_OK(zarr_array_write(a, 3, zero, shape, all, sizeof all));
    ZT_OK(zarr_array_read(a, 3, zero, shape, back, sizeof back));
    ZT_EQ_MEM(back, all, sizeof all);
    /* A region across both chunks (decoded whole, then cut). */
    ZT_OK(zarr_array_read(a, 3, start, count, region, sizeof region));
    ZT_CHECK(region[0] == all[1 * 12 + 1 * 4 + 1]);
    ZT_CHECK(region[11] == all[2 * 12 + 2 * 4 + 3]);
    ZT_OK(zarr_store_get(store, "a/c/0/0/0", stored, sizeof stored, &size));
    ZT_EQ_U64(size, sizeof stored);
    /* Stored element k of the [4, 6] transpose is chunk element (k % 6) * 4 + k / 6. */
    for (i = 0; i < 24; i++) ZT_CHECK(stored[i] == all[(i % 6) * 4 + i / 6]);
    /* The configuration is written back as given. */
    ZT_OK(zarr_array_metadata_json(a, &json));
    ZT_STR_CONTAINS(json, "{\"name\":\"reshape\",\"configuration\":{\"shape\":[[0,1],-1]}}");
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(reshape_registry_example_opens) {
    /* The README's example chain (reshape, then bytes; zstd after it). */
    zarr_store *store = NULL;
    zarr_array *a = create(&store, META("uint8", "[200, 50, 64, 3]", "[100, 50, 64, 3]", "0",
        DEFAULT_KEYS,
        "[{\"name\": \"reshape\", \"configuration\": {\"shape\": [[0, 1], [2], 3]}},"
        " {\"name\": \"bytes\"},"
        " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": true}}]"));
    uint64_t start[4] = {99, 49, 63, 0}, count[4] = {2, 1, 1, 3};
    uint8_t in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0};
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_write(a, 4, start, count, in, sizeof in));
    ZT_OK(zarr_array_read(a, 4, start, count, out, sizeof out));
    ZT_EQ_MEM(out, in, sizeof in);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(reshape_malformed_configurations_are_invalid_metadata) {
    static const struct {
        const char *shape;
        const char *message;
    } cases[] = {
        {"[7]", "has 7 elements but the chunk [2, 3] has 6"},
        {"[4, -1]", "no size for the -1"},
        {"[-1, -1]", "-1 more than once"},
        {"[0, 6]", "positive integer or -1"},
        {"[[1], [0]]", "strictly increasing"},
        {"[[0, 2]]", "input dimension 2"},
        {"[3, [0]]", "merges input dimensions [0]"},
        {"[]", "empty"},
        {"[\"6\"]", "expected an integer or a list"},
    };
    size_t i;
    char meta[1024];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(meta, sizeof meta,
                 META("int8", "[4, 6]", "[2, 3]", "0", DEFAULT_KEYS,
                      "[{\"name\": \"reshape\", \"configuration\": {\"shape\": %s}},"
                      " {\"name\": \"bytes\"}]"),
                 cases[i].shape);
        ZT_STATUS(create_status(meta), ZARR_ERROR_INVALID_METADATA);
        ZT_STR_CONTAINS(zarr_last_error_message(), cases[i].message);
    }
    ZT_STATUS(create_status(META("int8", "[4]", "[2]", "0", DEFAULT_KEYS,
                                 "[{\"name\": \"reshape\"}, {\"name\": \"bytes\"}]")),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "missing configuration");
}

/* ---- n5_default --------------------------------------------------------------------- */

#define N5_PLAIN "[{\"name\": \"n5_default\", \"configuration\": {\"codecs\": [" T10 ", " BE "]}}]"

ZTEST(n5_default_registry_example_writes_n5_blocks) {
    /* codecs/n5_default/examples/zstd_array/zarr.json, whole. */
    static const char *example =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [256, 128],"
        " \"data_type\": \"float32\", \"chunk_grid\": {\"name\": \"regular\","
        " \"configuration\": {\"chunk_shape\": [256, 128]}},"
        " \"chunk_key_encoding\": {\"name\": \"v2\", \"configuration\": {\"separator\": \"/\"}},"
        " \"fill_value\": 0, \"codecs\": [{\"name\": \"n5_default\", \"configuration\":"
        " {\"codecs\": [{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}},"
        " {\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}},"
        " {\"name\": \"zstd\", \"configuration\": {\"level\": 0, \"checksum\": false}}]}}]}";
    static const unsigned char header[12] = {0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0x80};
    static float all[256 * 128], back[256 * 128];
    unsigned char stored[16];
    zarr_store *store = NULL;
    zarr_array *a = create(&store, example);
    uint64_t zero[2] = {0, 0}, shape[2] = {256, 128};
    size_t size = 0, i;
    char *json = NULL;
    ZT_CHECK(a != NULL);
    for (i = 0; i < 256 * 128; i++) all[i] = (float)i / 7.0f;
    ZT_OK(zarr_array_write(a, 2, zero, shape, all, sizeof all));
    ZT_OK(zarr_array_read(a, 2, zero, shape, back, sizeof back));
    ZT_EQ_MEM(back, all, sizeof all);
    /* The block at key 0/0 starts with the N5 header: mode 0, 2 dimensions, 256, 128. */
    ZT_STATUS(zarr_store_get(store, "a/0/0", stored, sizeof stored, &size),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_CHECK(size > sizeof header);
    {
        unsigned char *block = malloc(size);
        ZT_CHECK(block != NULL);
        ZT_OK(zarr_store_get(store, "a/0/0", block, size, &size));
        ZT_EQ_MEM(block, header, sizeof header);
        free(block);
    }
    ZT_OK(zarr_array_metadata_json(a, &json));
    ZT_STR_CONTAINS(json, "{\"name\":\"zstd\",\"configuration\":{\"level\":0,\"checksum\":false}}");
    ZT_STR_CONTAINS(json, "\"name\":\"n5_default\"");
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(n5_default_blocks_from_other_writers) {
    /* A 5 x 3 uint16 array in blocks of 4 x 2 with fill value 9. A padded block as
     * zarr-python 2 writes it, and a truncated edge block (1 x 1) as the Java library does;
     * both are F order, big-endian. */
    zarr_store *store = NULL;
    zarr_array *a =
        create(&store, META("uint16", "[5, 3]", "[4, 2]", "9", V2_KEYS, N5_PLAIN));
    /* Block (0, 0): elements (r, c) = 10 r + c, listed with r fastest. */
    static const unsigned char padded[12 + 16] = {
        0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 2,
        0, 0, 0, 10, 0, 20, 0, 30, 0, 1, 0, 11, 0, 21, 0, 31};
    static const unsigned char truncated[12 + 2] = {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 42};
    uint16_t all[15];
    uint64_t zero[2] = {0, 0}, shape[2] = {5, 3};
    size_t r, c;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_store_set(store, "a/0/0", padded, sizeof padded));
    ZT_OK(zarr_store_set(store, "a/1/1", truncated, sizeof truncated));
    ZT_OK(zarr_array_read(a, 2, zero, shape, all, sizeof all));
    for (r = 0; r < 5; r++) {
        for (c = 0; c < 3; c++) {
            uint16_t want = 9;
            if (r < 4 && c < 2) want = (uint16_t)(10 * r + c);
            if (r == 4 && c == 2) want = 42;
            ZT_EQ_U64(all[r * 3 + c], want);
        }
    }
    /* What libzarr writes for block (0, 0) is the padded block byte for byte. */
    {
        unsigned char stored[sizeof padded + 1];
        size_t size = 0;
        uint16_t block[8];
        uint64_t count[2] = {4, 2};
        for (r = 0; r < 8; r++) block[r] = (uint16_t)(10 * (r / 2) + r % 2);
        ZT_OK(zarr_array_write(a, 2, zero, count, block, sizeof block));
        ZT_OK(zarr_store_get(store, "a/0/0", stored, sizeof stored, &size));
        ZT_EQ_U64(size, sizeof padded);
        ZT_EQ_MEM(stored, padded, sizeof padded);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(n5_default_corrupt_blocks) {
    static const struct {
        unsigned char bytes[16];
        size_t len;
        zarr_status status;
        const char *message;
    } cases[] = {
        {{0, 0}, 2, ZARR_ERROR_CORRUPT_DATA, "shorter than an N5 block header"},
        {{0, 0, 0, 2, 0, 0, 0, 4}, 8, ZARR_ERROR_CORRUPT_DATA, "shorter than the 12-byte header"},
        {{0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1}, 16, ZARR_ERROR_CORRUPT_DATA,
         "3 dimensions"},
        {{0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 2}, 12, ZARR_ERROR_CORRUPT_DATA, "larger than the chunk"},
        {{0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 2, 0, 1}, 14, ZARR_ERROR_CORRUPT_DATA, "bytes"},
        {{0, 9, 0, 2, 0, 0, 0, 4, 0, 0, 0, 2}, 12, ZARR_ERROR_CORRUPT_DATA, "unknown N5 block mode 9"},
        {{0, 1, 0, 2, 0, 0, 0, 4, 0, 0, 0, 2}, 12, ZARR_ERROR_CORRUPT_DATA, "mode 1 (varlength)"},
    };
    zarr_store *store = NULL;
    zarr_array *a =
        create(&store, META("uint16", "[5, 3]", "[4, 2]", "9", V2_KEYS, N5_PLAIN));
    uint16_t all[15];
    uint64_t zero[2] = {0, 0}, shape[2] = {5, 3};
    size_t i;
    ZT_CHECK(a != NULL);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ZT_OK(zarr_store_set(store, "a/0/1", cases[i].bytes, cases[i].len));
        ZT_STATUS(zarr_array_read(a, 2, zero, shape, all, sizeof all), cases[i].status);
        ZT_STR_CONTAINS(zarr_last_error_message(), cases[i].message);
        /* The message names the chunk. */
        ZT_STR_CONTAINS(zarr_last_error_message(), "0/1");
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(n5_default_configurations_that_are_not_n5) {
    ZT_STATUS(create_status(META("uint16", "[4, 4]", "[2, 2]", "0", V2_KEYS,
        "[{\"name\": \"n5_default\", \"configuration\": {\"codecs\": [" BE ", " T10 "]}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "the first inner codec must be transpose");
    ZT_STATUS(create_status(META("uint16", "[4, 4]", "[2, 2]", "0", V2_KEYS,
        "[{\"name\": \"n5_default\", \"configuration\": {\"codecs\": ["
        "{\"name\": \"transpose\", \"configuration\": {\"order\": [0, 1]}}, " BE "]}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "reverse the dimensions");
    ZT_STATUS(create_status(META("uint16", "[4, 4]", "[2, 2]", "0", V2_KEYS,
        "[{\"name\": \"n5_default\", \"configuration\": {\"codecs\": [" T10 ", " LE "]}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "big-endian");
    ZT_STATUS(create_status(META("uint16", "[4, 4]", "[2, 2]", "0", V2_KEYS,
        "[{\"name\": \"n5_default\", \"configuration\": {\"codecs\": [" T10 ", " BE ","
        " {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}, {\"name\": \"crc32c\"}]}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "at most one bytes->bytes codec");
    ZT_STATUS(create_status(META("uint16", "[4, 4]", "[2, 2]", "0", V2_KEYS,
        "[{\"name\": \"n5_default\"}]")), ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "missing configuration");
    /* A type N5 does not have. */
    ZT_STATUS(create_status(META("complex64", "[4, 4]", "[2, 2]", "[0, 0]", V2_KEYS, N5_PLAIN)),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "complex64");
}

/* ---- conditional -------------------------------------------------------------------- */

static uint32_t crc32c(const unsigned char *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

#define COND(extra)                                                                        \
    "[{\"name\": \"bytes\"}, {\"name\": \"conditional\", \"configuration\": {\"codecs\": ["  \
    "{\"name\": \"crc32c\"}, {\"name\": \"zstd\", \"configuration\": {\"level\": 3,"        \
    " \"checksum\": false}}]" extra "}}]"

ZTEST(conditional_writes_the_mask_and_reads_any_mask) {
    zarr_store *store = NULL;
    zarr_array *a = create(&store, META("uint8", "[8]", "[4]", "0", DEFAULT_KEYS,
                                         COND(", \"header_bits\": 16")));
    uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    unsigned char stored[16], chunk[2 + 4 + 4];
    uint64_t zero[1] = {0}, all[1] = {8};
    size_t size = 0;
    uint32_t crc;
    char *json = NULL;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_write(a, 1, zero, all, in, sizeof in));
    ZT_OK(zarr_array_read(a, 1, zero, all, out, sizeof out));
    ZT_EQ_MEM(out, in, sizeof in);
    /* libzarr has no decision function: every codec is skipped, the mask is zero. */
    ZT_OK(zarr_store_get(store, "a/c/0", stored, sizeof stored, &size));
    ZT_EQ_U64(size, 2 + 4);
    ZT_CHECK(stored[0] == 0 && stored[1] == 0);
    ZT_EQ_MEM(stored + 2, in, 4);
    /* Another writer applied crc32c (bit 0) to chunk 1. */
    chunk[0] = 1;
    chunk[1] = 0;
    memcpy(chunk + 2, "\x09\x0a\x0b\x0c", 4);
    crc = crc32c(chunk + 2, 4);
    chunk[6] = (unsigned char)crc;
    chunk[7] = (unsigned char)(crc >> 8);
    chunk[8] = (unsigned char)(crc >> 16);
    chunk[9] = (unsigned char)(crc >> 24);
    ZT_OK(zarr_store_set(store, "a/c/1", chunk, sizeof chunk));
    ZT_OK(zarr_array_read(a, 1, zero, all, out, sizeof out));
    ZT_CHECK(out[3] == 4 && out[4] == 9 && out[7] == 12);
    /* A wrong checksum, a reserved bit, a chunk shorter than its header: corrupt. */
    chunk[9] ^= 0xFF;
    ZT_OK(zarr_store_set(store, "a/c/1", chunk, sizeof chunk));
    ZT_STATUS(zarr_array_read(a, 1, zero, all, out, sizeof out), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "a/c/1");
    ZT_OK(zarr_store_set(store, "a/c/1", "\x00\x02\x09\x0a\x0b\x0c", 6));
    ZT_STATUS(zarr_array_read(a, 1, zero, all, out, sizeof out), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "header bit 9 is set");
    ZT_OK(zarr_store_set(store, "a/c/1", "\x00", 1));
    ZT_STATUS(zarr_array_read(a, 1, zero, all, out, sizeof out), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "shorter than the 2-byte header");
    ZT_OK(zarr_array_metadata_json(a, &json));
    ZT_STR_CONTAINS(json, "\"header_bits\":16");
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(conditional_malformed_configurations_are_invalid_metadata) {
    ZT_STATUS(create_status(META("uint8", "[8]", "[4]", "0", DEFAULT_KEYS,
                                 COND(", \"header_bits\": 12"))),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "multiple of 8");
    ZT_STATUS(create_status(META("uint8", "[8]", "[4]", "0", DEFAULT_KEYS,
                                 COND(", \"header_bits\": 0"))),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "fewer than the 2 codecs");
    ZT_STATUS(create_status(META("uint8", "[8]", "[4]", "0", DEFAULT_KEYS,
        "[{\"name\": \"bytes\"}, {\"name\": \"conditional\", \"configuration\": {\"codecs\":"
        " [{\"name\": \"transpose\", \"configuration\": {\"order\": [0]}}]}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "not a bytes->bytes codec");
    ZT_STATUS(create_status(META("uint8", "[8]", "[4]", "0", DEFAULT_KEYS,
        "[{\"name\": \"bytes\"}, {\"name\": \"conditional\", \"configuration\": {}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "missing \"codecs\"");
}

/* ---- numcodecs.* names --------------------------------------------------------------- */

ZTEST(numcodecs_names_in_string_form_and_kept_when_written_back) {
    /* The registry's schemas allow a bare name for codecs whose configuration is optional. */
    zarr_store *store = NULL;
    zarr_array *a = create(&store, META("int32", "[10]", "[4]", "3", DEFAULT_KEYS,
        "[\"numcodecs.delta\", " LE ", \"numcodecs.shuffle\", \"numcodecs.zlib\","
        " \"numcodecs.fletcher32\"]"));
    int32_t in[10] = {5, 7, 9, -4, 100000, 3, 3, 3, 0, -1}, out[10];
    uint64_t zero[1] = {0}, all[1] = {10};
    char *json = NULL;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_write(a, 1, zero, all, in, sizeof in));
    ZT_OK(zarr_array_read(a, 1, zero, all, out, sizeof out));
    ZT_EQ_MEM(out, in, sizeof in);
    ZT_OK(zarr_array_metadata_json(a, &json));
    ZT_STR_CONTAINS(json, "\"name\":\"numcodecs.delta\"");
    ZT_STR_CONTAINS(json, "{\"name\":\"numcodecs.shuffle\",\"configuration\":{\"elementsize\":4}}");
    ZT_STR_CONTAINS(json, "{\"name\":\"numcodecs.zlib\",\"configuration\":{\"level\":1}}");
    ZT_STR_CONTAINS(json, "\"name\":\"numcodecs.fletcher32\"");
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
    /* numcodecs.packbits: bools eight to a byte after a byte of padding bits. */
    {
        uint8_t bits[10] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, back[10];
        unsigned char stored[8];
        size_t size = 0;
        uint64_t ten[1] = {10};
        a = create(&store, META("bool", "[10]", "[10]", "false", DEFAULT_KEYS,
                                "[\"numcodecs.packbits\", \"bytes\"]"));
        ZT_CHECK(a != NULL);
        ZT_OK(zarr_array_write(a, 1, zero, ten, bits, sizeof bits));
        ZT_OK(zarr_array_read(a, 1, zero, ten, back, sizeof back));
        ZT_EQ_MEM(back, bits, sizeof bits);
        ZT_OK(zarr_store_get(store, "a/c/0", stored, sizeof stored, &size));
        ZT_EQ_U64(size, 3);
        ZT_CHECK(stored[0] == 6 && stored[1] == 0x92 && stored[2] == 0x40);
        zarr_array_free(a);
        zarr_store_free(store);
    }
    ZT_STATUS(create_status(META("int8", "[10]", "[4]", "0", DEFAULT_KEYS,
                                 "[\"numcodecs.packbits\", \"bytes\"]")),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "packs bool arrays only");
    /* A key the registry's schema does not list is refused, naming it. */
    ZT_STATUS(create_status(META("int32", "[10]", "[4]", "3", DEFAULT_KEYS,
        "[" LE ", {\"name\": \"numcodecs.zlib\", \"configuration\": {\"lvl\": 1}}]")),
        ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "lvl");
}

static const ztest_case ztest_cases[] = {
    ZCASE(reshape_round_trips_and_stores_c_order),
    ZCASE(reshape_registry_example_opens),
    ZCASE(reshape_malformed_configurations_are_invalid_metadata),
    ZCASE(n5_default_registry_example_writes_n5_blocks),
    ZCASE(n5_default_blocks_from_other_writers),
    ZCASE(n5_default_corrupt_blocks),
    ZCASE(n5_default_configurations_that_are_not_n5),
    ZCASE(conditional_writes_the_mask_and_reads_any_mask),
    ZCASE(conditional_malformed_configurations_are_invalid_metadata),
    ZCASE(numcodecs_names_in_string_form_and_kept_when_written_back),
};

ZTEST_MAIN()
