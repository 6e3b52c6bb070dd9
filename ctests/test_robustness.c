/* Robustness: damaged chunks and hand-written metadata give status codes, never a crash,
 * and a failed read never writes the part of the caller's buffer that belongs to a damaged
 * chunk (nor anything past the selection). */
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

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    size_t written;
    if (f == NULL) {
        return -1;
    }
    written = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && written == len) ? 0 : -1;
}

static int write_text(const char *path, const char *text) {
    return write_file(path, text, strlen(text));
}

static int make_dir(const char *path) {
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* ---- damaged chunks ---- */

#define BYTES_LE "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}"
#define N 64
#define CHUNK 32

static const char *array_meta(const char *codecs) {
    static char buffer[4096];
    snprintf(buffer, sizeof buffer,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%d],\"data_type\":\"int32\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[%d]}},"
             "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
             "\"fill_value\":0,\"codecs\":%s}",
             N, CHUNK, codecs);
    return buffer;
}

static void values(int32_t *out, int32_t seed) {
    int i;
    for (i = 0; i < N; i++) {
        out[i] = (i % 5) + seed;
    }
}

/* How the stored chunk a/c/1 is damaged. */
enum damage { TRUNCATE_HALF, TRUNCATE_TO, APPEND, FLIP_AT, FLIP_FROM_END, GARBAGE, REPLACE };

struct damage_spec {
    enum damage kind;
    size_t arg;                 /* length for TRUNCATE_TO, GARBAGE; offset for FLIP_* */
    const unsigned char *bytes; /* REPLACE */
    size_t n_bytes;
};

static int apply_damage(const char *path, const struct damage_spec *d) {
    size_t len = 0, i;
    unsigned char *data = ztest_read_file(path, &len);
    unsigned char *out;
    size_t out_len;
    int rc;
    if (data == NULL) {
        return -1;
    }
    out = (unsigned char *)malloc(len + d->arg + d->n_bytes + 16);
    memcpy(out, data, len);
    out_len = len;
    switch (d->kind) {
    case TRUNCATE_HALF:
        out_len = len / 2;
        break;
    case TRUNCATE_TO:
        out_len = d->arg < len ? d->arg : len;
        break;
    case APPEND:
        out[len] = 0x42;
        out_len = len + 1;
        break;
    case FLIP_AT:
        out[d->arg % len] ^= 0x5A;
        break;
    case FLIP_FROM_END:
        out[len - 1 - d->arg % len] ^= 0x5A;
        break;
    case GARBAGE: {
        uint32_t x = 0x12345678u;
        for (i = 0; i < d->arg; i++) {
            x = x * 1664525u + 1013904223u;
            out[i] = (unsigned char)(x >> 24);
        }
        out_len = d->arg;
        break;
    }
    case REPLACE:
        memcpy(out, d->bytes, d->n_bytes);
        out_len = d->n_bytes;
        break;
    }
    rc = write_file(path, out, out_len);
    free(out);
    free(data);
    return rc;
}

/*
 * Write the whole array through `codecs`, damage chunk 1 on disk, then check that every
 * operation needing that chunk fails with ZARR_ERROR_CORRUPT_DATA and names the chunk,
 * never writing a byte of the caller's buffer past the selection (the selection's own
 * bytes are unspecified after a failed read: chunks decode straight into them, see
 * zarr_array_read), while chunk 0 stays readable and a full overwrite of chunk 1
 * repairs it.
 */
static void expect_corrupt(const char *codecs, const struct damage_spec *d) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    /* Four spare elements past the selection of N, which no read may touch. */
    int32_t data[N], buf[N + 4], sentinel[N + 4], fresh[N];
    uint64_t start = 0, count = N, idx = 1;
    size_t len_before = 0, len_after = 0;
    unsigned char *before, *after;
    zarr_status s;
    values(data, 1);
    memset(buf, 0xC3, sizeof buf);
    memcpy(sentinel, buf, sizeof buf);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", array_meta(codecs), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_CHECK(apply_damage(ztest_path(root, "a/c/1"), d) == 0);

    /* Region read across both chunks. */
    s = zarr_array_read(a, 1, &start, &count, buf, sizeof buf);
    if (s != ZARR_ERROR_CORRUPT_DATA) {
        fprintf(stderr, "codecs %s, damage %d/%u: read gave %d (%s): %s\n", codecs, (int)d->kind,
                (unsigned)d->arg, (int)s, zarr_status_str(s), zarr_last_error_message());
    }
    ZT_STATUS(s, ZARR_ERROR_CORRUPT_DATA);
    ZT_EQ_MEM(buf + N, sentinel + N, 4 * sizeof(int32_t));
    memcpy(buf, sentinel, sizeof buf);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read");
    ZT_STR_CONTAINS(zarr_last_error_message(), "a/c/1");

    /* Only the damaged part. */
    start = CHUNK + 3;
    count = 2;
    ZT_STATUS(zarr_array_read(a, 1, &start, &count, buf, sizeof buf), ZARR_ERROR_CORRUPT_DATA);
    ZT_EQ_MEM(buf, sentinel, sizeof buf);

    /* The chunk through read_chunk: decoded straight into buf, so the chunk's bytes may be
     * partly written, but nothing past them. */
    ZT_STATUS(zarr_array_read_chunk(a, 1, &idx, buf, sizeof buf), ZARR_ERROR_CORRUPT_DATA);
    ZT_EQ_MEM(buf + CHUNK, sentinel + CHUNK, (N - CHUNK) * sizeof(int32_t));
    ZT_STR_CONTAINS(zarr_last_error_message(), "a/c/1");
    memcpy(buf, sentinel, sizeof buf);

    /* A partial write needs the damaged chunk: refused, nothing written anywhere. */
    before = ztest_read_file(ztest_path(root, "a/c/1"), &len_before);
    start = CHUNK - 2;
    count = 4;
    ZT_STATUS(zarr_array_write(a, 1, &start, &count, data, 4 * sizeof(int32_t)), ZARR_ERROR_CORRUPT_DATA);
    after = ztest_read_file(ztest_path(root, "a/c/1"), &len_after);
    ZT_CHECK(before != NULL && after != NULL && len_before == len_after &&
             memcmp(before, after, len_before) == 0);
    free(before);
    free(after);

    /* The intact chunk still reads. */
    start = 0;
    count = CHUNK;
    ZT_OK(zarr_array_read(a, 1, &start, &count, buf, CHUNK * sizeof(int32_t)));
    ZT_EQ_MEM(buf, data, CHUNK * sizeof(int32_t));

    /* A fresh handle sees the same damage. */
    {
        zarr_array *b = NULL;
        start = 0;
        count = N;
        memcpy(buf, sentinel, sizeof buf);
        ZT_OK(zarr_array_open(store, "/a", &b));
        ZT_STATUS(zarr_array_read(b, 1, &start, &count, buf, sizeof buf), ZARR_ERROR_CORRUPT_DATA);
        ZT_EQ_MEM(buf + N, sentinel + N, 4 * sizeof(int32_t));
        memcpy(buf, sentinel, sizeof buf);
        zarr_array_free(b);
    }

    /* Overwriting the whole chunk does not need the old contents and repairs it. */
    values(fresh, 100);
    ZT_OK(zarr_array_write_chunk(a, 1, &idx, fresh, CHUNK * sizeof(int32_t)));
    start = 0;
    count = N;
    ZT_OK(zarr_array_read(a, 1, &start, &count, buf, sizeof buf));
    ZT_EQ_MEM(buf + CHUNK, fresh, CHUNK * sizeof(int32_t));
    zarr_array_free(a);
    zarr_store_free(store);
}

static const char *const plain = "[" BYTES_LE "]";
static const char *const with_crc = "[" BYTES_LE ",{\"name\":\"crc32c\"}]";
static const char *const with_gzip = "[" BYTES_LE ",{\"name\":\"gzip\",\"configuration\":{\"level\":5}}]";
static const char *const with_zstd =
    "[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"checksum\":false}}]";
static const char *const with_zstd_checksum =
    "[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"checksum\":true}}]";
static const char *const with_blosc =
    "[" BYTES_LE ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,"
    "\"shuffle\":\"shuffle\",\"typesize\":4,\"blocksize\":0}}]";

ZTEST(truncated_chunk_uncompressed) {
    struct damage_spec d = {TRUNCATE_TO, CHUNK * 4 - 1, NULL, 0};
    expect_corrupt(plain, &d);
}

ZTEST(empty_chunk_uncompressed) {
    struct damage_spec d = {TRUNCATE_TO, 0, NULL, 0};
    expect_corrupt(plain, &d);
}

ZTEST(chunk_with_extra_bytes) {
    struct damage_spec d = {APPEND, 0, NULL, 0};
    expect_corrupt(plain, &d);
}

ZTEST(bad_crc32c_payload) {
    struct damage_spec d = {FLIP_AT, 5, NULL, 0};
    expect_corrupt(with_crc, &d);
}

ZTEST(bad_crc32c_checksum) {
    struct damage_spec d = {FLIP_FROM_END, 0, NULL, 0};
    expect_corrupt(with_crc, &d);
}

ZTEST(crc32c_chunk_shorter_than_checksum) {
    struct damage_spec d = {TRUNCATE_TO, 3, NULL, 0};
    expect_corrupt(with_crc, &d);
}

ZTEST(crc32c_chunk_truncated) {
    struct damage_spec d = {TRUNCATE_HALF, 0, NULL, 0};
    expect_corrupt(with_crc, &d);
}

ZTEST(garbage_gzip) {
    struct damage_spec d = {GARBAGE, 100, NULL, 0};
    expect_corrupt(with_gzip, &d);
}

ZTEST(truncated_gzip) {
    struct damage_spec d = {TRUNCATE_HALF, 0, NULL, 0};
    expect_corrupt(with_gzip, &d);
}

ZTEST(gzip_bad_trailer) {
    /* The CRC-32 in the gzip trailer no longer matches. */
    struct damage_spec d = {FLIP_FROM_END, 6, NULL, 0};
    expect_corrupt(with_gzip, &d);
}

ZTEST(empty_gzip) {
    struct damage_spec d = {TRUNCATE_TO, 0, NULL, 0};
    expect_corrupt(with_gzip, &d);
}

ZTEST(garbage_zstd) {
    struct damage_spec d = {GARBAGE, 100, NULL, 0};
    expect_corrupt(with_zstd, &d);
}

ZTEST(truncated_zstd) {
    struct damage_spec d = {TRUNCATE_HALF, 0, NULL, 0};
    expect_corrupt(with_zstd, &d);
}

ZTEST(zstd_bad_checksum) {
    struct damage_spec d = {FLIP_FROM_END, 1, NULL, 0};
    expect_corrupt(with_zstd_checksum, &d);
}

/* A valid zstd frame (raw block) that decodes to 3 bytes instead of a chunk's 128. */
static const unsigned char zstd_small_frame[] = {
    0x28, 0xB5, 0x2F, 0xFD, /* magic */
    0x20, 0x03,             /* single segment, content size 3 */
    0x19, 0x00, 0x00,       /* last block, raw, 3 bytes */
    1, 2, 3,
};

ZTEST(zstd_wrong_decoded_size) {
    struct damage_spec d = {REPLACE, 0, zstd_small_frame, sizeof zstd_small_frame};
    expect_corrupt(with_zstd, &d);
}

/* A zstd frame header claiming 2^60 bytes of content, followed by 3 bytes. */
static const unsigned char zstd_huge_frame[] = {
    0x28, 0xB5, 0x2F, 0xFD,                         /* magic */
    0xE0,                                           /* 8-byte content size, single segment */
    0, 0, 0, 0, 0, 0, 0, 0x10,                      /* 2^60 */
    0x19, 0x00, 0x00, 1, 2, 3,                      /* last block, raw, 3 bytes */
};

ZTEST(zstd_header_claiming_huge_size) {
    struct damage_spec d = {REPLACE, 0, zstd_huge_frame, sizeof zstd_huge_frame};
    expect_corrupt(with_zstd, &d);
}

/* A zstd frame from an array with bigger chunks: valid, but the wrong size. */
ZTEST(zstd_frame_of_other_chunk_size) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *big = NULL;
    int32_t data[2 * CHUNK];
    uint64_t start = 0, count = 2 * CHUNK;
    unsigned char *frame;
    size_t len = 0;
    struct damage_spec d;
    int i;
    for (i = 0; i < 2 * CHUNK; i++) {
        data[i] = i + 1;
    }
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/big",
                            "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[64],\"data_type\":\"int32\","
                            "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[64]}},"
                            "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
                            "\"codecs\":[" BYTES_LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"checksum\":false}}]}",
                            &big));
    ZT_OK(zarr_array_write(big, 1, &start, &count, data, sizeof data));
    frame = ztest_read_file(ztest_path(root, "big/c/0"), &len);
    ZT_CHECK(frame != NULL && len > 0);
    d.kind = REPLACE;
    d.arg = 0;
    d.bytes = frame;
    d.n_bytes = len;
    expect_corrupt(with_zstd, &d);
    free(frame);
    zarr_array_free(big);
    zarr_store_free(store);
}

ZTEST(garbage_blosc) {
    struct damage_spec d = {GARBAGE, 100, NULL, 0};
    expect_corrupt(with_blosc, &d);
}

ZTEST(truncated_blosc) {
    struct damage_spec d = {TRUNCATE_HALF, 0, NULL, 0};
    expect_corrupt(with_blosc, &d);
}

ZTEST(blosc_shorter_than_header) {
    struct damage_spec d = {TRUNCATE_TO, 10, NULL, 0};
    expect_corrupt(with_blosc, &d);
}

/* A blosc header that claims a huge decompressed size, with a matching compressed size. */
static const unsigned char blosc_huge[32] = {
    2, 1, 0x01, 4,            /* version, versionlz, flags (shuffle), typesize */
    0xF0, 0xFF, 0xFF, 0x7F,   /* nbytes: ~2 GiB */
    0x00, 0x00, 0x01, 0x00,   /* blocksize */
    32, 0, 0, 0,              /* cbytes: the whole frame */
    9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
};

ZTEST(blosc_header_claiming_huge_size) {
    struct damage_spec d = {REPLACE, 0, blosc_huge, sizeof blosc_huge};
    expect_corrupt(with_blosc, &d);
}

/* The same with nbytes = 4 GiB - 1 and cbytes larger than the data present. */
static const unsigned char blosc_lying[24] = {
    2, 1, 0x01, 4,
    0xFF, 0xFF, 0xFF, 0xFF,
    0x00, 0x00, 0x00, 0x01,
    0xFF, 0xFF, 0xFF, 0x7F,
    1, 2, 3, 4, 5, 6, 7, 8,
};

ZTEST(blosc_header_with_lying_sizes) {
    struct damage_spec d = {REPLACE, 0, blosc_lying, sizeof blosc_lying};
    expect_corrupt(with_blosc, &d);
}

/* A valid blosc frame whose header sizes were edited. */
ZTEST(blosc_valid_frame_wrong_nbytes) {
    /* nbytes (offset 4) halved: the frame now decodes to the wrong size or fails */
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t data[N];
    uint64_t start = 0, count = N;
    unsigned char *frame;
    size_t len = 0;
    struct damage_spec d;
    values(data, 7);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/src", array_meta(with_blosc), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    frame = ztest_read_file(ztest_path(root, "src/c/1"), &len);
    ZT_CHECK(frame != NULL && len >= 16);
    frame[4] = (unsigned char)((CHUNK * 4 / 2) & 0xFF);
    frame[5] = (unsigned char)((CHUNK * 4 / 2) >> 8);
    d.kind = REPLACE;
    d.arg = 0;
    d.bytes = frame;
    d.n_bytes = len;
    expect_corrupt(with_blosc, &d);
    free(frame);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- absurd chunk shapes ---- */

static const char *huge_chunk_meta(const char *chunks, const char *dtype, const char *codecs) {
    static char buffer[2048];
    snprintf(buffer, sizeof buffer,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4,4],\"data_type\":\"%s\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":%s}},"
             "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,\"codecs\":%s}",
             dtype, chunks, codecs);
    return buffer;
}

/* A chunk of 2^64 elements: refused as metadata, not an allocation attempt. */
ZTEST(huge_chunk_shape_in_zarr_json) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_CHECK(make_dir(ztest_path(root, "a")) == 0);
    ZT_CHECK(write_text(ztest_path(root, "a/zarr.json"),
                        huge_chunk_meta("[4294967296,4294967296]", "uint8", "[{\"name\":\"bytes\"}]")) == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_STATUS(zarr_array_open(store, "/a", &a), ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "a/zarr.json");
    /* 2^62 elements of 8 bytes overflow the byte count. */
    ZT_CHECK(write_text(ztest_path(root, "a/zarr.json"),
                        huge_chunk_meta("[2147483648,2147483648]", "int64", "[" BYTES_LE "]")) == 0);
    ZT_STATUS(zarr_array_open(store, "/a", &a), ZARR_ERROR_INVALID_METADATA);
    zarr_store_free(store);
}

/* A chunk of 2^62 bytes is describable but cannot be allocated: an error, never a crash. */
ZTEST(huge_chunk_shape_cannot_be_allocated) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t nbytes = 0;
    uint8_t v = 9, back = 1, buf[16];
    uint64_t start[2] = {1, 1}, count[2] = {1, 1}, idx[2] = {0, 0};
    zarr_status s;
    ZT_CHECK(make_dir(ztest_path(root, "a")) == 0);
    ZT_CHECK(write_text(ztest_path(root, "a/zarr.json"),
                        huge_chunk_meta("[4294967296,1073741824]", "uint8", "[{\"name\":\"bytes\"}]")) == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    s = zarr_array_open(store, "/a", &a);
    if (s != ZARR_OK) {
        /* Refusing such metadata outright is acceptable too. */
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        zarr_store_free(store);
        return;
    }
    ZT_OK(zarr_array_chunk_nbytes(a, &nbytes));
    ZT_EQ_U64(nbytes, (uint64_t)1 << 62);
    /* Reading from a missing chunk needs no chunk-sized buffer. */
    ZT_OK(zarr_array_read(a, 2, start, count, &back, 1));
    ZT_EQ_U64(back, 0);
    /* A partial write must build the whole chunk: out of memory. */
    ZT_STATUS(zarr_array_write(a, 2, start, count, &v, 1), ZARR_ERROR_OUT_OF_MEMORY);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write");
    /* read_chunk cannot be given a buffer that large. */
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, buf, sizeof buf), ZARR_ERROR_BUFFER_TOO_SMALL);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A tiny stored chunk for an array with huge chunks, through each compressor: decoding must
 * fail cleanly (corrupt data, or out of memory if the decoder sizes its output first). */
static void huge_chunk_with_small_stream(const char *codecs, const unsigned char *stream, size_t n) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t buf[4] = {7, 7, 7, 7};
    uint64_t start[2] = {0, 0}, count[2] = {2, 2};
    zarr_status s;
    ZT_CHECK(make_dir(ztest_path(root, "a")) == 0);
    ZT_CHECK(make_dir(ztest_path(root, "a/c")) == 0);
    ZT_CHECK(make_dir(ztest_path(root, "a/c/0")) == 0);
    ZT_CHECK(write_text(ztest_path(root, "a/zarr.json"), huge_chunk_meta("[4294967296,1073741824]", "uint8", codecs)) == 0);
    ZT_CHECK(write_file(ztest_path(root, "a/c/0/0"), stream, n) == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    s = zarr_array_open(store, "/a", &a);
    if (s != ZARR_OK) {
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        zarr_store_free(store);
        return;
    }
    s = zarr_array_read(a, 2, start, count, buf, sizeof buf);
    if (s != ZARR_ERROR_CORRUPT_DATA && s != ZARR_ERROR_OUT_OF_MEMORY) {
        fprintf(stderr, "codecs %s: %d (%s): %s\n", codecs, (int)s, zarr_status_str(s),
                zarr_last_error_message());
        ZT_CHECK(0);
    }
    ZT_CHECK(buf[0] == 7 && buf[3] == 7);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(huge_chunk_with_small_gzip_stream) {
    /* gzip of "abc" */
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                       0x4b, 0x4c, 0x4a, 0x06, 0x00, 0xc2, 0x41, 0x24, 0x35, 0x03,
                                       0x00, 0x00, 0x00};
    huge_chunk_with_small_stream("[{\"name\":\"bytes\"},{\"name\":\"gzip\",\"configuration\":{\"level\":1}}]", gz,
                                 sizeof gz);
}

ZTEST(huge_chunk_with_small_zstd_stream) {
    huge_chunk_with_small_stream(
        "[{\"name\":\"bytes\"},{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":false}}]",
        zstd_small_frame, sizeof zstd_small_frame);
}

ZTEST(huge_chunk_with_small_blosc_stream) {
    huge_chunk_with_small_stream(
        "[{\"name\":\"bytes\"},{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,"
        "\"shuffle\":\"noshuffle\",\"typesize\":1,\"blocksize\":0}}]",
        blosc_huge, sizeof blosc_huge);
}

ZTEST(huge_chunk_with_crc32c) {
    static const unsigned char four[8] = {1, 2, 3, 4, 0, 0, 0, 0};
    huge_chunk_with_small_stream("[{\"name\":\"bytes\"},{\"name\":\"crc32c\"}]", four, sizeof four);
}

/* ---- malformed zarr.json written by hand ---- */

/* The message of the last array open in open_statuses. */
static char array_message[1024];

/* Write `text` as a/zarr.json and return the status of opening /a as an array and as a group. */
static void open_statuses(const char *text, zarr_status *as_array, zarr_status *as_group) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    zarr_group *g = (zarr_group *)1;
    *as_array = *as_group = 12345;
    if (make_dir(ztest_path(root, "a")) != 0 || write_text(ztest_path(root, "a/zarr.json"), text) != 0 ||
        zarr_store_open_filesystem(root, &store) != ZARR_OK) {
        return;
    }
    *as_array = zarr_array_open(store, "/a", &a);
    snprintf(array_message, sizeof array_message, "%s", zarr_last_error_message());
    if (*as_array != ZARR_OK && a != NULL) {
        *as_array = 54321; /* out not cleared: also a failure */
    }
    zarr_array_free(*as_array == ZARR_OK ? a : NULL);
    *as_group = zarr_group_open(store, "/a", &g);
    if (*as_group != ZARR_OK && g != NULL) {
        *as_group = 54321;
    }
    zarr_group_free(*as_group == ZARR_OK ? g : NULL);
    zarr_store_free(store);
}

static void expect_open_fails(const char *text, zarr_status expected) {
    zarr_status sa, sg;
    open_statuses(text, &sa, &sg);
    if (sa != expected || sg != expected) {
        fprintf(stderr, "zarr.json %.80s: array %d (%s), group %d (%s), expected %d\n", text, (int)sa,
                array_message, (int)sg, zarr_last_error_message(), (int)expected);
    }
    ZT_EQ_U64((uint64_t)(int64_t)sa, (uint64_t)(int64_t)expected);
    ZT_EQ_U64((uint64_t)(int64_t)sg, (uint64_t)(int64_t)expected);
}

#define GOOD_ARRAY_REST                                                                            \
    "\"shape\":[4],\"data_type\":\"uint8\","                                                       \
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"                \
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]"

ZTEST(zarr_json_not_json) {
    expect_open_fails("this is not json", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("{\"zarr_format\": 3, \"node_type\": \"array\"", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("{\"zarr_format\":3,\"node_type\":\"group\"} trailing", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("\xff\xfe{}", ZARR_ERROR_INVALID_METADATA);
}

ZTEST(zarr_json_not_an_object) {
    expect_open_fails("[1, 2, 3]", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("\"group\"", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("null", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("3", ZARR_ERROR_INVALID_METADATA);
}

ZTEST(zarr_json_wrong_zarr_format) {
    expect_open_fails("{\"zarr_format\":4,\"node_type\":\"array\"," GOOD_ARRAY_REST "}", ZARR_ERROR_UNSUPPORTED);
    expect_open_fails("{\"zarr_format\":4,\"node_type\":\"group\"}", ZARR_ERROR_UNSUPPORTED);
    expect_open_fails("{\"node_type\":\"group\"}", ZARR_ERROR_INVALID_METADATA);
}

/* A Zarr v2 .zarray document stored under the v3 name. */
ZTEST(zarr_json_holding_v2_document) {
    expect_open_fails("{\"zarr_format\":2,\"shape\":[4],\"chunks\":[2],\"dtype\":\"<U4\",\"compressor\":null,"
                      "\"fill_value\":0,\"order\":\"C\",\"filters\":null}",
                      ZARR_ERROR_UNSUPPORTED);
}

ZTEST(zarr_json_bad_node_type) {
    zarr_status sa, sg;
    open_statuses("{\"zarr_format\":3,\"node_type\":\"banana\"," GOOD_ARRAY_REST "}", &sa, &sg);
    ZT_STATUS(sa, ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(sg, ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "banana");
    expect_open_fails("{\"zarr_format\":3,\"node_type\":7}", ZARR_ERROR_INVALID_METADATA);
    expect_open_fails("{\"zarr_format\":3}", ZARR_ERROR_INVALID_METADATA);
}

ZTEST(zarr_json_array_field_errors) {
    zarr_status sa, sg;
    static const char *const bad[] = {
        "{\"zarr_format\":3,\"node_type\":\"array\"}",
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[-4],\"data_type\":\"uint8\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}",
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":-1,\"codecs\":[{\"name\":\"bytes\"}]}",
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
        "\"codecs\":[{\"name\":\"bytes\"},{\"name\":\"gzip\",\"configuration\":{\"level\":\"x\"}}]}",
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[9223372036854775808,4],\"data_type\":\"uint8\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[1,1]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\"}]}",
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        open_statuses(bad[i], &sa, &sg);
        if (sa != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "document %u: %d: %s\n", (unsigned)i, (int)sa, array_message);
        }
        ZT_STATUS(sa, ZARR_ERROR_INVALID_METADATA);
        /* As a group it is the other node type. */
        ZT_STATUS(sg, ZARR_ERROR_NODE_TYPE_MISMATCH);
    }
}

ZTEST(zarr_json_unknown_codec_and_extension) {
    zarr_status sa, sg;
    open_statuses("{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
                  "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
                  "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
                  "\"codecs\":[{\"name\":\"bytes\"},{\"name\":\"frobnicator\"}]}",
                  &sa, &sg);
    ZT_STATUS(sa, ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(sg, ZARR_ERROR_NODE_TYPE_MISMATCH);
    /* The message names the codec. */
    {
        const char *root = ztest_tmp_dir();
        zarr_store *store = NULL;
        zarr_array *a = NULL;
        ZT_CHECK(make_dir(ztest_path(root, "a")) == 0);
        ZT_CHECK(write_text(ztest_path(root, "a/zarr.json"),
                            "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
                            "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
                            "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
                            "\"codecs\":[{\"name\":\"bytes\"},{\"name\":\"frobnicator\"}]}") == 0);
        ZT_OK(zarr_store_open_filesystem(root, &store));
        ZT_STATUS(zarr_array_open(store, "/a", &a), ZARR_ERROR_UNSUPPORTED);
        ZT_STR_CONTAINS(zarr_last_error_message(), "frobnicator");
        zarr_store_free(store);
    }
    /* Unknown fields in a group document: the group cannot be opened (and it is no array). */
    open_statuses("{\"zarr_format\":3,\"node_type\":\"group\",\"extra\":{\"x\":1}}", &sa, &sg);
    ZT_STATUS(sg, ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "extra");
    ZT_STATUS(sa, ZARR_ERROR_NODE_TYPE_MISMATCH);
    open_statuses("{\"zarr_format\":3,\"node_type\":\"group\",\"extra\":{\"must_understand\":true}}", &sa, &sg);
    ZT_STATUS(sg, ZARR_ERROR_UNSUPPORTED);
    open_statuses("{\"zarr_format\":3,\"node_type\":\"group\",\"flag\":true}", &sa, &sg);
    ZT_STATUS(sg, ZARR_ERROR_UNSUPPORTED);
}

/* Extensions marked must_understand: false, and zarr-python's consolidated_metadata: null. */
ZTEST(zarr_json_ignorable_extensions_open) {
    zarr_status sa, sg;
    open_statuses("{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{},"
                  "\"consolidated_metadata\":null}",
                  &sa, &sg);
    ZT_STATUS(sg, ZARR_OK);
    ZT_STATUS(sa, ZARR_ERROR_NODE_TYPE_MISMATCH);
    open_statuses("{\"zarr_format\":3,\"node_type\":\"group\","
                  "\"consolidated_metadata\":{\"must_understand\":false,\"kind\":\"inline\",\"metadata\":{}}}",
                  &sa, &sg);
    ZT_STATUS(sg, ZARR_OK);
    open_statuses("{\"zarr_format\":3,\"node_type\":\"array\"," GOOD_ARRAY_REST
                  ",\"x_ext\":{\"must_understand\":false,\"v\":[1,2]}}",
                  &sa, &sg);
    ZT_STATUS(sa, ZARR_OK);
}

/* zarr-python writes bare NaN / Infinity tokens into attributes. */
ZTEST(zarr_json_bare_nan_in_attributes) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    char *json = NULL;
    ZT_CHECK(make_dir(ztest_path(root, "arr")) == 0);
    ZT_CHECK(make_dir(ztest_path(root, "grp")) == 0);
    ZT_CHECK(write_text(ztest_path(root, "arr/zarr.json"),
                        "{\n  \"zarr_format\": 3,\n  \"node_type\": \"array\",\n  \"shape\": [4],\n"
                        "  \"data_type\": \"float64\",\n"
                        "  \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}},\n"
                        "  \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}},\n"
                        "  \"fill_value\": \"NaN\",\n"
                        "  \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],\n"
                        "  \"attributes\": {\"missing\": NaN, \"range\": [-Infinity, Infinity], \"s\": \"NaN in text\"}\n}\n") == 0);
    ZT_CHECK(write_text(ztest_path(root, "grp/zarr.json"),
                        "{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": {\"v\": NaN}}") == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_open(store, "/arr", &a));
    ZT_OK(zarr_array_attributes_json(a, &json));
    ZT_CHECK(strcmp(json, "{\"missing\":\"NaN\",\"range\":[\"-Infinity\",\"Infinity\"],\"s\":\"NaN in text\"}") == 0);
    if (strcmp(json, "{\"missing\":\"NaN\",\"range\":[\"-Infinity\",\"Infinity\"],\"s\":\"NaN in text\"}") != 0) {
        fprintf(stderr, "attributes: %s\n", json);
    }
    zarr_string_free(json);
    /* The data is still usable: missing chunks read as the NaN fill. */
    {
        uint64_t start = 0, count = 4, bits[4];
        int i;
        ZT_OK(zarr_array_read(a, 1, &start, &count, bits, sizeof bits));
        for (i = 0; i < 4; i++) {
            ZT_EQ_U64(bits[i], UINT64_C(0x7ff8000000000000));
        }
    }
    ZT_OK(zarr_group_open(store, "/grp", &g));
    ZT_OK(zarr_group_attributes_json(g, &json));
    ZT_CHECK(strcmp(json, "{\"v\":\"NaN\"}") == 0);
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_group_free(g);
    zarr_store_free(store);
}

/* Deeply nested JSON is refused, not a stack overflow. */
ZTEST(zarr_json_deeply_nested) {
    size_t depth = 100000, i;
    char *text = (char *)malloc(2 * depth + 200);
    size_t len;
    ZT_CHECK(text != NULL);
    len = (size_t)sprintf(text, "{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{\"deep\":");
    for (i = 0; i < depth; i++) {
        text[len++] = '[';
    }
    for (i = 0; i < depth; i++) {
        text[len++] = ']';
    }
    strcpy(text + len, "}}");
    expect_open_fails(text, ZARR_ERROR_INVALID_METADATA);
    free(text);
}

/* The same nesting passed as attributes by the caller. */
ZTEST(deeply_nested_attributes_argument) {
    size_t depth = 100000, i, len = 0;
    char *text = (char *)malloc(2 * depth + 16);
    zarr_store *store = NULL;
    zarr_group *g = (zarr_group *)1;
    ZT_CHECK(text != NULL);
    len += (size_t)sprintf(text, "{\"d\":");
    for (i = 0; i < depth; i++) {
        text[len++] = '[';
    }
    for (i = 0; i < depth; i++) {
        text[len++] = ']';
    }
    strcpy(text + len, "}");
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_group_create(store, "/", text, &g), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(g == NULL);
    free(text);
    zarr_store_free(store);
}

/* A Zarr v2 object array without an object codec (no implementation can read it) is
 * invalid metadata; with an object codec this build lacks (pickle), unsupported: reported,
 * never misread as fixed-size elements. */
ZTEST(zarr_v2_object_arrays_without_a_readable_codec_are_refused) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_CHECK(make_dir(ztest_path(root, "v2")) == 0);
    ZT_CHECK(write_text(ztest_path(root, "v2/.zarray"),
                        "{\"zarr_format\":2,\"shape\":[4],\"chunks\":[2],\"dtype\":\"|O\",\"compressor\":null,"
                        "\"fill_value\":0,\"order\":\"C\",\"filters\":null}") == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_STATUS(zarr_array_open(store, "/v2", &a), ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    ZT_CHECK(write_text(ztest_path(root, "v2/.zarray"),
                        "{\"zarr_format\":2,\"shape\":[4],\"chunks\":[2],\"dtype\":\"|O\",\"compressor\":null,"
                        "\"fill_value\":0,\"order\":\"C\",\"filters\":[{\"id\":\"pickle\"}]}") == 0);
    ZT_STATUS(zarr_array_open(store, "/v2", &a), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "pickle");
    ZT_CHECK(a == NULL);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(truncated_chunk_uncompressed),
    ZCASE(empty_chunk_uncompressed),
    ZCASE(chunk_with_extra_bytes),
    ZCASE(bad_crc32c_payload),
    ZCASE(bad_crc32c_checksum),
    ZCASE(crc32c_chunk_shorter_than_checksum),
    ZCASE(crc32c_chunk_truncated),
    ZCASE(garbage_gzip),
    ZCASE(truncated_gzip),
    ZCASE(gzip_bad_trailer),
    ZCASE(empty_gzip),
    ZCASE(garbage_zstd),
    ZCASE(truncated_zstd),
    ZCASE(zstd_bad_checksum),
    ZCASE(zstd_wrong_decoded_size),
    ZCASE(zstd_header_claiming_huge_size),
    ZCASE(zstd_frame_of_other_chunk_size),
    ZCASE(garbage_blosc),
    ZCASE(truncated_blosc),
    ZCASE(blosc_shorter_than_header),
    ZCASE(blosc_header_claiming_huge_size),
    ZCASE(blosc_header_with_lying_sizes),
    ZCASE(blosc_valid_frame_wrong_nbytes),
    ZCASE(huge_chunk_shape_in_zarr_json),
    ZCASE(huge_chunk_shape_cannot_be_allocated),
    ZCASE(huge_chunk_with_small_gzip_stream),
    ZCASE(huge_chunk_with_small_zstd_stream),
    ZCASE(huge_chunk_with_small_blosc_stream),
    ZCASE(huge_chunk_with_crc32c),
    ZCASE(zarr_json_not_json),
    ZCASE(zarr_json_not_an_object),
    ZCASE(zarr_json_wrong_zarr_format),
    ZCASE(zarr_json_holding_v2_document),
    ZCASE(zarr_json_bad_node_type),
    ZCASE(zarr_json_array_field_errors),
    ZCASE(zarr_json_unknown_codec_and_extension),
    ZCASE(zarr_json_ignorable_extensions_open),
    ZCASE(zarr_json_bare_nan_in_attributes),
    ZCASE(zarr_json_deeply_nested),
    ZCASE(deeply_nested_attributes_argument),
    ZCASE(zarr_v2_object_arrays_without_a_readable_codec_are_refused),
};

ZTEST_MAIN()
