/* py312_interop.c -- libzarr against zarr-python 3.4: struct, scale_offset, cast_value,
 * rectilinear chunk grids, and variable-length strings and bytes in shards.
 *
 * Usage: py312_interop read DATA_DIR    (check what zarr_python_write.py wrote)
 *        py312_interop write DATA_DIR   (write arrays for zarr_python_read.py)
 *
 * read: DATA_DIR holds store/, manifest.txt (lines `<node path> <data type> <expected>
 * <input> <regions>`), the expected values (what zarr-python reads back, C order): <n>.bin
 * in host byte order for fixed-size elements, <n>.arrow for `string`/`bytes` (u64le n,
 * n + 1 u64le offsets, the bytes), and the input zarr-python wrote to the regions (JSON
 * [[[start, stop], ...per dim], ...]). For each array: the data type's name
 * (zarr_data_type_str), the whole array and an interior sub-region byte for byte, and
 * every chunk of the grid through zarr_array_read_chunk against its region
 * (zarr_array_chunk_region, which is how a rectilinear grid's chunks are found); for
 * variable-length elements the whole array and a sub-region through
 * zarr_array_read_vlen. Then libzarr creates the array again in DATA_DIR/rewrite from
 * zarr-python's zarr.json and writes the same input to the same regions, for
 * zarr_python_read.py --compare-rewrite to compare the stored bytes.
 *
 * write: libzarr creates the same kinds of arrays from its own metadata documents and
 * writes one or two regions of each (the rest stays the fill value, so chunks, shards and
 * inner chunks are left out). DATA_DIR gets store/, input/<n> (the values handed to the
 * writes, whole array, same formats as above), expected/<n> (what a reader must see: the
 * input where written after the codecs' round trip, the fill value elsewhere; computed
 * here from the codecs' definitions, not read back) and manifest.jsonl, one object per
 * array: {"path", "kind", "input", "expected", "fill" (hex of the host fill element, or
 * the fill text), "regions": [[[start, stop], ...per dim], ...]}.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zarr.h"

#define MAXD 4

/* Failures name the array's path in the store. */
#define FAIL_PREFIX() fprintf(stderr, "FAIL %s: ", path)
#include "../interop_check.h"

/* ---- files ----------------------------------------------------------------------------- */

static int spill(const char *name, const void *data, size_t len) {
    FILE *f = fopen(name, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = 0;
    return ok ? 0 : -1;
}

/* ---- Arrow-form elements --------------------------------------------------------------- */

typedef struct {
    size_t n;
    uint64_t *offsets; /* n + 1 */
    unsigned char *data;
} elements;

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void put_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Parse an .arrow blob; 0 on success. The offsets are checked, so a bad file is a
 * failure, not an out-of-bounds read. */
static int parse_arrow(const unsigned char *blob, size_t len, elements *out) {
    size_t i, head;
    if (len < 8) return -1;
    out->n = (size_t)le64(blob);
    if (out->n > len / 8 - 2) return -1;
    head = 8 + (out->n + 1) * 8;
    out->offsets = malloc((out->n + 1) * sizeof(uint64_t));
    if (!out->offsets) return -1;
    for (i = 0; i <= out->n; i++) {
        out->offsets[i] = le64(blob + 8 + 8 * i);
        if ((i > 0 && out->offsets[i] < out->offsets[i - 1]) || out->offsets[i] > len - head)
            return -1;
    }
    out->data = malloc(out->offsets[out->n] + 1);
    if (!out->data) return -1;
    memcpy(out->data, blob + head, out->offsets[out->n]);
    return 0;
}

static void elements_free(elements *e) {
    free(e->offsets);
    free(e->data);
    e->offsets = NULL;
    e->data = NULL;
}

/* Element i of `a` equals element j of `b`. */
static int same_element(const elements *a, size_t i, const elements *b, size_t j) {
    uint64_t la = a->offsets[i + 1] - a->offsets[i], lb = b->offsets[j + 1] - b->offsets[j];
    return la == lb && memcmp(a->data + a->offsets[i], b->data + b->offsets[j], la) == 0;
}

/* ---- C-order helpers ------------------------------------------------------------------- */

static size_t product(const uint64_t *v, size_t ndim) {
    size_t n = 1;
    for (size_t d = 0; d < ndim; d++) n *= (size_t)v[d];
    return n;
}

/* The index in a C-order array of `shape` of element k of the block `start`, `count`. */
static size_t block_index(const uint64_t *shape, size_t ndim, const uint64_t *start,
                          const uint64_t *count, size_t k) {
    uint64_t index[MAXD];
    size_t offset = 0, d;
    for (d = ndim; d-- > 0;) {
        index[d] = k % count[d];
        k /= count[d];
    }
    for (d = 0; d < ndim; d++) offset = offset * (size_t)shape[d] + (size_t)(start[d] + index[d]);
    return offset;
}

/* ---- read: what zarr-python wrote ------------------------------------------------------ */

/* Read the block `start`, `count` with zarr_array_read_vlen and compare it with the
 * matching elements of `want` (the whole array). */
static int check_vlen_block(const zarr_array *array, const char *path, const elements *want,
                            const uint64_t *shape, size_t ndim, const uint64_t *start,
                            const uint64_t *count) {
    size_t n = product(count, ndim), size = 0, k;
    uint64_t *offsets = malloc((n + 1) * sizeof *offsets);
    unsigned char *data = NULL;
    elements got = {0};
    int ok = 0;
    if (!offsets) FAIL("out of memory");
    CALL(zarr_array_read_vlen(array, ndim, start, count, offsets, n + 1, NULL, 0, &size));
    data = malloc(size + 1);
    if (!data) FAIL("out of memory");
    CALL(zarr_array_read_vlen(array, ndim, start, count, offsets, n + 1, data, size, &size));
    got.n = n;
    got.offsets = offsets;
    got.data = data;
    for (k = 0; k < n; k++) {
        size_t at = block_index(shape, ndim, start, count, k);
        if (!same_element(&got, k, want, at))
            FAIL("element %zu (index %zu of the selection) differs", at, k);
    }
    ok = 1;
done:
    free(offsets);
    free(data);
    return ok;
}

static void check_vlen(const zarr_array *array, const char *path, const unsigned char *blob,
                       size_t blob_len, const uint64_t *shape, size_t ndim) {
    elements want = {0};
    uint64_t zero[MAXD] = {0}, start[MAXD], count[MAXD];
    size_t d;
    if (parse_arrow(blob, blob_len, &want) != 0) FAIL("malformed expectation");
    if (want.n != product(shape, ndim)) FAIL("%zu elements expected, shape has %zu", want.n,
                                             product(shape, ndim));
    if (!check_vlen_block(array, path, &want, shape, ndim, zero, shape)) goto done;
    for (d = 0; d < ndim; d++) {
        start[d] = shape[d] / 3;
        count[d] = shape[d] - start[d] - (shape[d] > 2 ? 1 : 0);
    }
    if (!check_vlen_block(array, path, &want, shape, ndim, start, count)) goto done;
    passes++;
    printf("ok   %s (whole array and a sub-region)\n", path);
done:
    elements_free(&want);
}

/* Every chunk of the grid, through zarr_array_read_chunk: the part inside the array must
 * equal the expectation. */
static int check_chunks(const zarr_array *array, const char *path, const unsigned char *want,
                        const uint64_t *shape, size_t ndim, size_t elem) {
    uint64_t grid[MAXD], index[MAXD] = {0}, cstart[MAXD], cshape[MAXD], inside[MAXD];
    uint64_t zero[MAXD] = {0};
    size_t buf_len = 0, nchunks, c, k, d;
    unsigned char *buf = NULL;
    int ok = 0;
    CALL(zarr_array_chunk_grid_shape(array, ndim, grid));
    CALL(zarr_array_chunk_nbytes(array, &buf_len));
    buf = malloc(buf_len + 1);
    if (!buf) FAIL("out of memory");
    nchunks = product(grid, ndim);
    for (c = 0; c < nchunks; c++) {
        size_t rest = c;
        for (d = ndim; d-- > 0;) {
            index[d] = rest % grid[d];
            rest /= grid[d];
        }
        CALL(zarr_array_chunk_region(array, ndim, index, cstart, cshape));
        CALL(zarr_array_read_chunk(array, ndim, index, buf, buf_len));
        for (d = 0; d < ndim; d++)
            inside[d] = cstart[d] + cshape[d] <= shape[d] ? cshape[d] : shape[d] - cstart[d];
        for (k = 0; k < product(inside, ndim); k++) {
            size_t in_chunk = block_index(cshape, ndim, zero, inside, k);
            size_t in_array = block_index(shape, ndim, cstart, inside, k);
            if (memcmp(buf + in_chunk * elem, want + in_array * elem, elem) != 0)
                FAIL("chunk %zu (C order) differs at element %zu", c, in_array);
        }
    }
    ok = 1;
done:
    free(buf);
    return ok;
}

static void check_fixed(const zarr_array *array, const char *path, const unsigned char *want,
                        size_t want_len, const uint64_t *shape, size_t ndim) {
    uint64_t zero[MAXD] = {0}, start[MAXD], count[MAXD];
    size_t elem = 0, nbytes = 0, sub_bytes = 0, k, d;
    unsigned char *got = NULL, *sub = NULL;
    CALL(zarr_array_element_size(array, &elem));
    CALL(zarr_array_selection_nbytes(array, ndim, zero, shape, &nbytes));
    if (nbytes != want_len) FAIL("%zu bytes, expected %zu", nbytes, want_len);
    got = malloc(nbytes + 1);
    if (!got) FAIL("out of memory");
    CALL(zarr_array_read(array, ndim, zero, shape, got, nbytes));
    for (k = 0; k < nbytes / elem; k++)
        if (memcmp(got + k * elem, want + k * elem, elem) != 0)
            FAIL("whole read: element %zu differs from what zarr-python reads", k);
    for (d = 0; d < ndim; d++) {
        start[d] = shape[d] / 3;
        count[d] = shape[d] - start[d] - (shape[d] > 2 ? 1 : 0);
    }
    CALL(zarr_array_selection_nbytes(array, ndim, start, count, &sub_bytes));
    sub = malloc(sub_bytes + 1);
    if (!sub) FAIL("out of memory");
    CALL(zarr_array_read(array, ndim, start, count, sub, sub_bytes));
    for (k = 0; k < product(count, ndim); k++)
        if (memcmp(sub + k * elem, want + block_index(shape, ndim, start, count, k) * elem,
                   elem) != 0)
            FAIL("sub-region read: element %zu of the selection differs", k);
    if (!check_chunks(array, path, want, shape, ndim, elem)) goto done;
    passes++;
    printf("ok   %s (whole array, a sub-region, every chunk)\n", path);
done:
    free(got);
    free(sub);
}

static void check_array(const zarr_store *store, const char *dir, const char *path,
                        const char *dtype, const char *file) {
    char name[8400];
    zarr_array *array = NULL;
    size_t ndim = 0, len = 0;
    uint64_t shape[MAXD];
    zarr_data_type type = 0;
    unsigned char *want = NULL;

    snprintf(name, sizeof name, "%s/%s", dir, file);
    want = read_file(name, &len);
    if (!want) FAIL("cannot read %s", name);
    CALL(zarr_array_open(store, path, &array));
    CALL(zarr_array_ndim(array, &ndim));
    if (ndim == 0 || ndim > MAXD) FAIL("rank %zu", ndim);
    CALL(zarr_array_shape(array, ndim, shape));
    CALL(zarr_array_data_type(array, &type));
    if (strcmp(zarr_data_type_str(type), dtype) != 0)
        FAIL("data type %s, expected %s", zarr_data_type_str(type), dtype);
    if (type == ZARR_DATA_TYPE_STRING || type == ZARR_DATA_TYPE_BYTES)
        check_vlen(array, path, want, len, shape, ndim);
    else
        check_fixed(array, path, want, len, shape, ndim);
done:
    free(want);
    zarr_array_free(array);
}

/* Parse every unsigned integer of `text` into `out` (at most `cap`); the count. */
static size_t parse_ints(const char *text, uint64_t *out, size_t cap) {
    size_t n = 0;
    while (*text) {
        if (*text >= '0' && *text <= '9') {
            uint64_t v = 0;
            while (*text >= '0' && *text <= '9') v = v * 10 + (uint64_t)(*text++ - '0');
            if (n < cap) out[n] = v;
            n++;
        } else {
            text++;
        }
    }
    return n;
}

/* libzarr writes what zarr-python wrote: the array created from zarr-python's own
 * zarr.json in `rewrite`, the input written to the same regions; zarr_python_read.py
 * --compare-rewrite then compares the stored bytes. */
static void rewrite_array(zarr_store *rewrite, const char *dir, const char *path,
                          const char *input_file, const char *regions) {
    char name[8400];
    size_t doc_len = 0, input_len = 0, ndim = 0, elem = 0, nints, r, k, d;
    unsigned char *doc = NULL, *input = NULL, *sub = NULL;
    uint64_t ints[64], shape[MAXD], *offsets = NULL;
    zarr_array *array = NULL;
    zarr_data_type type = 0;
    elements in = {0};
    snprintf(name, sizeof name, "%s/store%s/zarr.json", dir, path);
    doc = read_file(name, &doc_len);
    snprintf(name, sizeof name, "%s/%s", dir, input_file);
    input = read_file(name, &input_len);
    if (!doc || !input) FAIL("cannot read %s or its zarr.json", name);
    doc[doc_len] = 0;
    CALL(zarr_array_create(rewrite, path, (const char *)doc, &array));
    CALL(zarr_array_ndim(array, &ndim));
    CALL(zarr_array_shape(array, ndim, shape));
    CALL(zarr_array_data_type(array, &type));
    nints = parse_ints(regions, ints, 64);
    if (nints == 0 || nints > 64 || nints % (2 * ndim) != 0) FAIL("bad regions %s", regions);
    if (type == ZARR_DATA_TYPE_STRING || type == ZARR_DATA_TYPE_BYTES) {
        if (parse_arrow(input, input_len, &in) != 0 || in.n != product(shape, ndim))
            FAIL("malformed input %s", input_file);
        offsets = malloc((in.n + 1) * sizeof *offsets);
        sub = malloc(in.offsets[in.n] + 1);
    } else {
        CALL(zarr_array_element_size(array, &elem));
        if (input_len != product(shape, ndim) * elem) FAIL("input %s: wrong size", input_file);
        sub = malloc(input_len + 1);
    }
    if (!sub || (in.offsets && !offsets)) FAIL("out of memory");
    for (r = 0; r < nints / (2 * ndim); r++) {
        uint64_t start[MAXD], count[MAXD];
        size_t n, at = 0;
        for (d = 0; d < ndim; d++) {
            start[d] = ints[r * 2 * ndim + 2 * d];
            count[d] = ints[r * 2 * ndim + 2 * d + 1] - start[d];
        }
        n = product(count, ndim);
        if (elem == 0) {
            offsets[0] = 0;
            for (k = 0; k < n; k++) {
                size_t e = block_index(shape, ndim, start, count, k);
                uint64_t len = in.offsets[e + 1] - in.offsets[e];
                memcpy(sub + at, in.data + in.offsets[e], len);
                at += len;
                offsets[k + 1] = at;
            }
            CALL(zarr_array_write_vlen(array, ndim, start, count, offsets, n + 1, sub, at));
        } else {
            for (k = 0; k < n; k++)
                memcpy(sub + k * elem, input + block_index(shape, ndim, start, count, k) * elem,
                       elem);
            CALL(zarr_array_write(array, ndim, start, count, sub, n * elem));
        }
    }
    passes++;
    printf("ok   %s (written again by libzarr from zarr-python's zarr.json)\n", path);
done:
    free(doc);
    free(input);
    free(sub);
    free(offsets);
    elements_free(&in);
    zarr_array_free(array);
}

static int run_read(const char *dir) {
    char name[8400], line[8192];
    zarr_store *store = NULL, *rewrite = NULL;
    FILE *manifest;
    snprintf(name, sizeof name, "%s/store", dir);
    if (zarr_store_open_filesystem(name, &store) != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s\n", name, zarr_last_error_message());
        return 1;
    }
    snprintf(name, sizeof name, "%s/manifest.txt", dir);
    manifest = fopen(name, "r");
    if (!manifest) {
        fprintf(stderr, "cannot read %s\n", name);
        zarr_store_free(store);
        return 1;
    }
    snprintf(name, sizeof name, "%s/rewrite", dir);
    if (zarr_store_open_filesystem(name, &rewrite) != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s\n", name, zarr_last_error_message());
        fclose(manifest);
        zarr_store_free(store);
        return 1;
    }
    while (fgets(line, sizeof line, manifest)) {
        char path[4096], dtype[64], file[4096], input[4096], regions[1024];
        if (sscanf(line, "%4095s %63s %4095s %4095s %1023s", path, dtype, file, input,
                   regions) == 5) {
            check_array(store, dir, path, dtype, file);
            rewrite_array(rewrite, dir, path, input, regions);
        } else if (line[0] != '\n') {
            fprintf(stderr, "FAIL: manifest line %s", line);
            failures++;
        }
    }
    fclose(manifest);
    zarr_store_free(store);
    zarr_store_free(rewrite);
    printf("%d passed, %d failed\n", passes, failures);
    return failures == 0 && passes > 0 ? 0 : 1;
}

/* ---- write: libzarr writes, zarr-python reads ------------------------------------------ */

/* Element i of an array's input, in host order, `size` bytes (fixed-size types), or its
 * text (variable-length types, through `text`). */
typedef void (*fixed_fn)(size_t i, unsigned char *out);
typedef const char *(*text_fn)(size_t i, size_t *len);
/* What a reader sees for an input element after the codecs' round trip. */
typedef void (*expect_fn)(const unsigned char *in, unsigned char *out);

typedef struct {
    const char *path;
    const char *kind; /* "struct", "float64", ..., "string", "bytes" */
    const char *metadata;
    size_t ndim;
    uint64_t shape[2];
    size_t size; /* 0 for variable-length */
    unsigned char fill[16];
    const char *fill_text; /* variable-length fill value (JSON-free text) */
    fixed_fn input;
    text_fn text;
    expect_fn expect; /* NULL: the input itself */
    size_t nregions;
    uint64_t regions[2][2][2]; /* [region][dim][start, count] */
} case_t;

/* struct {a: uint16, b: {x: int8, y: float64}, c: float32}: 15 bytes. */
static void nested(size_t i, unsigned char *out) {
    uint16_t a = (uint16_t)(40000 + 1111 * i);
    int8_t x = (int8_t)(-100 + 37 * (int)i);
    double y = -1.0e300 + (double)i * 1.0e299;
    float c = (float)i / 3.0f;
    memcpy(out, &a, 2);
    memcpy(out + 2, &x, 1);
    memcpy(out + 3, &y, 8);
    memcpy(out + 11, &c, 4);
}
/* struct {i: int32, f: float64, u: uint8}: 13 bytes. */
static void flat(size_t i, unsigned char *out) {
    int32_t v = (int32_t)(i * 2654435761u);
    double f = i == 5 ? INFINITY : (double)i * 0.1;
    uint8_t u = (uint8_t)(i * 13);
    memcpy(out, &v, 4);
    memcpy(out + 4, &f, 8);
    out[12] = u;
}
static void int32_steps(size_t i, unsigned char *out) {
    int32_t v = ((int32_t)i - 20) * 7; /* (v - 100) * 3 fits in int32 */
    memcpy(out, &v, 4);
}
static void float_quarters(size_t i, unsigned char *out) {
    double v = (double)i * 1.75 - 3.0; /* (v - 1000.5) * 0.25 and back are exact */
    memcpy(out, &v, 8);
}
static void temperatures(size_t i, unsigned char *out) {
    double v = 20.0 + (double)((int)(i * 37 % 23) - 11) * 0.37 + (i == 5 ? 400.0 : 0.0);
    memcpy(out, &v, 8);
}
/* scale_offset(offset 20, scale 100) then cast_value int16 (nearest-even, clamp): the
 * stored integer is rint((x - 20) * 100) clamped, read back as q / 100 + 20. */
static void temperatures_back(const unsigned char *in, unsigned char *out) {
    double x, q, back;
    memcpy(&x, in, 8);
    q = rint((x - 20.0) * 100.0);
    if (q > 32767.0) q = 32767.0;
    if (q < -32768.0) q = -32768.0;
    back = q / 100.0 + 20.0;
    memcpy(out, &back, 8);
}
static const float to_uint8[10] = {-5.0f, 0.5f, 1.5f, 2.5f, 254.5f, 255.5f, 300.0f, 17.25f,
                                   -0.5f, 128.0f};
static void float32_in(size_t i, unsigned char *out) { memcpy(out, &to_uint8[i], 4); }
/* float32 -> uint8, nearest-even, clamp. */
static void uint8_back(const unsigned char *in, unsigned char *out) {
    float x, q;
    memcpy(&x, in, 4);
    q = rintf(x);
    /* <= folds rint's -0 (from -0.5) into the +0 that uint8 0 reads back as. */
    q = q <= 0.0f ? 0.0f : q > 255.0f ? 255.0f : q;
    memcpy(out, &q, 4);
}
static void with_nan(size_t i, unsigned char *out) {
    double v = i % 5 == 0 ? NAN : (double)((int)(i * 4099 % 65535) - 32767);
    memcpy(out, &v, 8);
}
static const double wraps[8] = {300.0, -1.0, 256.5, 255.5, -129.0, 1000.25, 0.0, 511.0};
static void wraps_in(size_t i, unsigned char *out) { memcpy(out, &wraps[i], 8); }
/* float64 -> uint8, nearest-even, wrap: modulo 256 of the rounded value. */
static void uint8_wrapped(const unsigned char *in, unsigned char *out) {
    double x, q;
    memcpy(&x, in, 8);
    q = fmod(rint(x), 256.0);
    q = q < 0.0 ? q + 256.0 : q + 0.0;
    memcpy(out, &q, 8);
}
static void int32_spaced(size_t i, unsigned char *out) {
    int32_t v = -300 + 37 * (int32_t)i;
    memcpy(out, &v, 4);
}
/* int32 -> int8, wrap: the low 8 bits as two's complement. */
static void int8_wrapped(const unsigned char *in, unsigned char *out) {
    int32_t v;
    memcpy(&v, in, 4);
    v = (int32_t)(uint32_t)v & 0xFF;
    v = v >= 128 ? v - 256 : v;
    memcpy(out, &v, 4);
}
static const double halves[12] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.25, 1.75, 126.9, -127.9,
                                  300.0, -300.0};
static void halves_in(size_t i, unsigned char *out) { memcpy(out, &halves[i], 8); }
static void clamp_int8(double q, unsigned char *out) {
    q = q < -128.0 ? -128.0 : q > 127.0 ? 127.0 : q;
    q += 0.0; /* -0 (rounding -0.5 up) reads back from int8 0 as +0 */
    memcpy(out, &q, 8);
}
#define ROUNDING(name, op)                                                                 \
    static void name(const unsigned char *in, unsigned char *out) {                        \
        double x;                                                                          \
        memcpy(&x, in, 8);                                                                 \
        clamp_int8(op(x), out);                                                            \
    }
ROUNDING(nearest_even, rint)
ROUNDING(towards_zero, trunc)
ROUNDING(towards_positive, ceil)
ROUNDING(towards_negative, floor)
ROUNDING(nearest_away, round)
static void int16_ramp(size_t i, unsigned char *out) {
    int16_t v = (int16_t)(i * 11);
    memcpy(out, &v, 2);
}
static void float32_ramp(size_t i, unsigned char *out) {
    float v = (float)i * 0.125f - 3.0f;
    memcpy(out, &v, 4);
}
static void uint16_ramp(size_t i, unsigned char *out) {
    uint16_t v = (uint16_t)(65535 - i * 977);
    memcpy(out, &v, 2);
}
static const char *const words[] = {"", "a", "zarr", "\xc3\xa9t\xc3\xa9",
                                    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
                                    "\xf0\x9f\x98\x80 grin", "quote \" and \\ backslash",
                                    "line\nbreak",
                                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
static const char *word(size_t i, size_t *len) {
    const char *w = words[(i * 7 + 3) % (sizeof words / sizeof words[0])];
    *len = strlen(w);
    return w;
}
static const char *blob(size_t i, size_t *len) {
    /* Bytes of every value, NUL included, lengths 0..12. */
    static const char all[] = "\x00\x01\xff\x80zarr\x00\x7f\xfe\x10\x11";
    *len = (i * 5) % 13;
    return all + (12 - *len);
}

#define GRID(shape)                                                                        \
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":" shape "}}"
#define RECT(shapes)                                                                       \
    "\"chunk_grid\":{\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\","       \
    "\"chunk_shapes\":" shapes "}}"
#define DOC(shape, dt, grid, fill, codecs)                                                 \
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":" shape ",\"data_type\":" dt ","   \
    grid ",\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":"    \
    "\"/\"}},\"fill_value\":" fill ",\"codecs\":" codecs ",\"attributes\":{}}"
#define LE "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}"
#define BE "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}"
#define CAST_INT8(mode)                                                                    \
    DOC("[12]", "\"float64\"", GRID("[5]"), "0.0",                                          \
        "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int8\",\"rounding\":\"" \
        mode "\",\"out_of_range\":\"clamp\"}}," LE "]")
#define SHARD(inner, codecs, location)                                                     \
    "[{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":" inner ","          \
    "\"codecs\":" codecs ",\"index_codecs\":[" LE ",{\"name\":\"crc32c\"}],"                  \
    "\"index_location\":\"" location "\"}}]"

/* Host-order fill elements. */
#define NESTED_FILL {0x01, 0x02, 0xFD, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0, 0, 0x80, 0xBE}
#define FLAT_FILL {0xF9, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F, 0xFF}

static const case_t cases[] = {
    {"/struct/nested_be", "struct",
     DOC("[7]",
         "{\"name\":\"struct\",\"configuration\":{\"fields\":[{\"name\":\"a\",\"data_type\":"
         "\"uint16\"},{\"name\":\"b\",\"data_type\":{\"name\":\"struct\",\"configuration\":{"
         "\"fields\":[{\"name\":\"x\",\"data_type\":\"int8\"},{\"name\":\"y\",\"data_type\":"
         "\"float64\"}]}}},{\"name\":\"c\",\"data_type\":\"float32\"}]}}",
         GRID("[3]"), "{\"a\":513,\"b\":{\"x\":-3,\"y\":1.5},\"c\":-0.25}", "[" BE "]"),
     1, {7}, 15, NESTED_FILL, NULL, nested, NULL, NULL, 1, {{{0, 4}}}},
    {"/struct/flat_zstd", "struct",
     DOC("[5,4]",
         "{\"name\":\"struct\",\"configuration\":{\"fields\":[{\"name\":\"i\",\"data_type\":"
         "\"int32\"},{\"name\":\"f\",\"data_type\":\"float64\"},{\"name\":\"u\",\"data_type\":"
         "\"uint8\"}]}}",
         GRID("[2,3]"), "{\"i\":-7,\"f\":\"NaN\",\"u\":255}",
         "[" LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"checksum\":false}}]"),
     2, {5, 4}, 13, FLAT_FILL, NULL, flat, NULL, NULL, 1, {{{0, 4}, {0, 3}}}},
    {"/scale_offset/int32", "int32",
     DOC("[5,9]", "\"int32\"", GRID("[2,4]"), "100",
         "[{\"name\":\"scale_offset\",\"configuration\":{\"offset\":100,\"scale\":3}}," LE "]"),
     2, {5, 9}, 4, {100}, NULL, int32_steps, NULL, NULL, 1, {{{0, 4}, {0, 9}}}},
    {"/scale_offset/float64", "float64",
     DOC("[11]", "\"float64\"", GRID("[4]"), "0.5",
         "[{\"name\":\"scale_offset\",\"configuration\":{\"offset\":1000.5,\"scale\":0.25}},"
         LE "]"),
     1, {11}, 8, {0, 0, 0, 0, 0, 0, 0xE0, 0x3F}, NULL, float_quarters, NULL, NULL, 1,
     {{{0, 8}}}},
    {"/scale_offset/packed_int16", "float64",
     DOC("[4,6]", "\"float64\"", GRID("[2,3]"), "20.0",
         "[{\"name\":\"scale_offset\",\"configuration\":{\"offset\":20,\"scale\":100}},"
         "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int16\","
         "\"out_of_range\":\"clamp\"}}," LE "]"),
     2, {4, 6}, 8, {0, 0, 0, 0, 0, 0, 0x34, 0x40}, NULL, temperatures, NULL, temperatures_back,
     1, {{{0, 3}, {0, 6}}}},
    {"/cast_value/float32_uint8_clamp", "float32",
     DOC("[10]", "\"float32\"", GRID("[4]"), "0.0",
         "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\",\"rounding\":"
         "\"nearest-even\",\"out_of_range\":\"clamp\"}}," LE "]"),
     1, {10}, 4, {0}, NULL, float32_in, NULL, uint8_back, 1, {{{0, 8}}}},
    {"/cast_value/float64_int16_nan", "float64",
     DOC("[3,4]", "\"float64\"", GRID("[2,2]"), "\"NaN\"",
         "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int16\",\"scalar_map\":"
         "{\"encode\":[[\"NaN\",-32768]],\"decode\":[[-32768,\"NaN\"]]}}}," LE "]"),
     2, {3, 4}, 8, {0, 0, 0, 0, 0, 0, 0xF8, 0x7F}, NULL, with_nan, NULL, NULL, 1,
     {{{0, 3}, {0, 3}}}}, /* column 3 and the row past the shape: NaN fill, mapped too */
    {"/cast_value/float64_uint8_wrap", "float64",
     DOC("[8]", "\"float64\"", GRID("[3]"), "0.0",
         "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\","
         "\"out_of_range\":\"wrap\"}}," LE "]"),
     1, {8}, 8, {0}, NULL, wraps_in, NULL, uint8_wrapped, 1, {{{0, 7}}}},
    {"/cast_value/int32_int8_wrap", "int32",
     DOC("[17]", "\"int32\"", GRID("[4]"), "0",
         "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int8\","
         "\"out_of_range\":\"wrap\"}}," LE "]"),
     1, {17}, 4, {0}, NULL, int32_spaced, NULL, int8_wrapped, 1, {{{2, 13}}}},
    {"/cast_value/round_nearest-even", "float64", CAST_INT8("nearest-even"), 1, {12}, 8, {0},
     NULL, halves_in, NULL, nearest_even, 1, {{{0, 10}}}},
    {"/cast_value/round_towards-zero", "float64", CAST_INT8("towards-zero"), 1, {12}, 8, {0},
     NULL, halves_in, NULL, towards_zero, 1, {{{0, 10}}}},
    {"/cast_value/round_towards-positive", "float64", CAST_INT8("towards-positive"), 1, {12},
     8, {0}, NULL, halves_in, NULL, towards_positive, 1, {{{0, 10}}}},
    {"/cast_value/round_towards-negative", "float64", CAST_INT8("towards-negative"), 1, {12},
     8, {0}, NULL, halves_in, NULL, towards_negative, 1, {{{0, 10}}}},
    {"/cast_value/round_nearest-away", "float64", CAST_INT8("nearest-away"), 1, {12}, 8, {0},
     NULL, halves_in, NULL, nearest_away, 1, {{{0, 10}}}},
    /* 3, 3, 3 as a run-length pair, then 5 reaching past the end; chunk 1 never written. */
    {"/rectilinear/1d_pairs", "int16",
     DOC("[10]", "\"int16\"", RECT("[[[3,3],5]]"), "-1", "[" LE "]"), 1, {10}, 2, {0xFF, 0xFF},
     NULL, int16_ramp, NULL, NULL, 2, {{{0, 3}}, {{6, 4}}}},
    {"/rectilinear/2d", "float32",
     DOC("[10,7]", "\"float32\"", RECT("[[[2,3],4],[4,3]]"), "-9.5",
         "[" LE ",{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":false}}]"),
     2, {10, 7}, 4, {0, 0, 0x18, 0xC1}, NULL, float32_ramp, NULL, NULL, 1, {{{0, 5}, {0, 7}}}},
    {"/rectilinear/2d_edges_past", "uint16",
     DOC("[9,6]", "\"uint16\"", RECT("[[1,3,7],4]"), "7", "[" LE "]"), 2, {9, 6}, 2, {7},
     NULL, uint16_ramp, NULL, NULL, 1, {{{2, 7}, {0, 5}}}},
    /* Shards of 4 then 8 rows, inner chunks 2 x 3; the bottom inner chunks stay fill. */
    {"/rectilinear/sharded", "int32",
     DOC("[12,6]", "\"int32\"", RECT("[[4,8],[6]]"), "-1", SHARD("[2,3]", "[" LE "]", "end")),
     2, {12, 6}, 4, {0xFF, 0xFF, 0xFF, 0xFF}, NULL, int32_steps, NULL, NULL, 1,
     {{{1, 8}, {0, 6}}}},
    {"/vlen/strings_sharded", "string",
     DOC("[7,5]", "\"string\"", GRID("[4,4]"), "\"\"",
         SHARD("[2,2]", "[{\"name\":\"vlen-utf8\"}]", "end")),
     2, {7, 5}, 0, {0}, "", NULL, word, NULL, 1, {{{1, 5}, {0, 4}}}},
    {"/vlen/strings_sharded_start_zstd", "string",
     DOC("[9,6]", "\"string\"", GRID("[4,6]"), "\"\xe2\x88\x85\"",
         SHARD("[2,3]",
               "[{\"name\":\"vlen-utf8\"},{\"name\":\"zstd\",\"configuration\":{\"level\":3,"
               "\"checksum\":true}}]",
               "start")),
     2, {9, 6}, 0, {0}, "\xe2\x88\x85", NULL, word, NULL, 1, {{{0, 9}, {3, 3}}}},
    {"/vlen/bytes_sharded", "bytes",
     DOC("[11]", "\"bytes\"", GRID("[4]"), "\"\"",
         SHARD("[2]", "[{\"name\":\"vlen-bytes\"}]", "end")),
     1, {11}, 0, {0}, "", NULL, blob, NULL, 1, {{{1, 6}}}},
};

static int in_region(const case_t *t, size_t r, size_t flat_index) {
    uint64_t index[MAXD];
    size_t d, rest = flat_index;
    for (d = t->ndim; d-- > 0;) {
        index[d] = rest % t->shape[d];
        rest /= t->shape[d];
    }
    for (d = 0; d < t->ndim; d++)
        if (index[d] < t->regions[r][d][0] ||
            index[d] >= t->regions[r][d][0] + t->regions[r][d][1])
            return 0;
    return 1;
}

static int written(const case_t *t, size_t flat_index) {
    for (size_t r = 0; r < t->nregions; r++)
        if (in_region(t, r, flat_index)) return 1;
    return 0;
}

/* Serialize elements (text or fixed) as an .arrow blob. */
static unsigned char *to_arrow(size_t n, const char *const *texts, const size_t *lens,
                               size_t *len) {
    size_t total = 0, i, at;
    unsigned char *out;
    for (i = 0; i < n; i++) total += lens[i];
    *len = 8 + (n + 1) * 8 + total;
    out = malloc(*len);
    if (!out) return NULL;
    put_le64(out, n);
    put_le64(out + 8, 0);
    for (i = 0, at = 0; i < n; i++) {
        memcpy(out + 8 + (n + 1) * 8 + at, texts[i], lens[i]);
        at += lens[i];
        put_le64(out + 16 + 8 * i, at);
    }
    return out;
}

static int write_fixed(zarr_array *array, const case_t *t, const char *dir, size_t c,
                       FILE *manifest) {
    size_t n = product(t->shape, t->ndim), i, r, k, sub_len;
    unsigned char *input = malloc(n * t->size), *expected = malloc(n * t->size);
    unsigned char *sub = malloc(n * t->size), *back = malloc(n * t->size);
    uint64_t zero[MAXD] = {0};
    char name[8400];
    int ok = 0;
    if (!input || !expected || !sub || !back) goto out;
    for (i = 0; i < n; i++) {
        t->input(i, input + i * t->size);
        if (!written(t, i))
            memcpy(expected + i * t->size, t->fill, t->size);
        else if (t->expect)
            t->expect(input + i * t->size, expected + i * t->size);
        else
            memcpy(expected + i * t->size, input + i * t->size, t->size);
    }
    for (r = 0; r < t->nregions; r++) {
        uint64_t start[MAXD], count[MAXD];
        for (size_t d = 0; d < t->ndim; d++) {
            start[d] = t->regions[r][d][0];
            count[d] = t->regions[r][d][1];
        }
        sub_len = product(count, t->ndim);
        for (k = 0; k < sub_len; k++)
            memcpy(sub + k * t->size,
                   input + block_index(t->shape, t->ndim, start, count, k) * t->size, t->size);
        if (zarr_array_write(array, t->ndim, start, count, sub, sub_len * t->size) != ZARR_OK) {
            fprintf(stderr, "FAIL %s: write: %s\n", t->path, zarr_last_error_message());
            goto out;
        }
    }
    /* libzarr must read back what the codecs' definitions say, before zarr-python does. */
    if (zarr_array_read(array, t->ndim, zero, t->shape, back, n * t->size) != ZARR_OK ||
        memcmp(back, expected, n * t->size) != 0) {
        fprintf(stderr, "FAIL %s: libzarr reads back other values: %s\n", t->path,
                zarr_last_error_message());
        goto out;
    }
    snprintf(name, sizeof name, "%s/input/%zu.bin", dir, c);
    if (spill(name, input, n * t->size) != 0) goto out;
    snprintf(name, sizeof name, "%s/expected/%zu.bin", dir, c);
    if (spill(name, expected, n * t->size) != 0) goto out;
    fprintf(manifest, "{\"path\": \"%s\", \"kind\": \"%s\", \"input\": \"input/%zu.bin\", "
                      "\"expected\": \"expected/%zu.bin\", \"fill\": \"",
            t->path, t->kind, c, c);
    for (i = 0; i < t->size; i++) fprintf(manifest, "%02x", t->fill[i]);
    fprintf(manifest, "\"");
    ok = 1;
out:
    free(input);
    free(expected);
    free(sub);
    free(back);
    return ok;
}

static int write_vlen(zarr_array *array, const case_t *t, const char *dir, size_t c,
                      FILE *manifest) {
    size_t n = product(t->shape, t->ndim), i, r, k, blob_len = 0;
    const char **texts = calloc(n, sizeof *texts), **want = calloc(n, sizeof *want);
    size_t *lens = calloc(n, sizeof *lens), *want_lens = calloc(n, sizeof *want_lens);
    uint64_t *offsets = calloc(n + 1, sizeof *offsets), zero[MAXD] = {0};
    unsigned char *data = NULL, *arrow = NULL;
    char name[8400];
    int ok = 0;
    size_t total = 0;
    if (!texts || !want || !lens || !want_lens || !offsets) goto out;
    for (i = 0; i < n; i++) {
        texts[i] = t->text(i, &lens[i]);
        want[i] = written(t, i) ? texts[i] : t->fill_text;
        want_lens[i] = written(t, i) ? lens[i] : strlen(t->fill_text);
        total += lens[i];
    }
    for (r = 0; r < t->nregions; r++) {
        uint64_t start[MAXD], count[MAXD];
        size_t at = 0, sub_n;
        for (size_t d = 0; d < t->ndim; d++) {
            start[d] = t->regions[r][d][0];
            count[d] = t->regions[r][d][1];
        }
        sub_n = product(count, t->ndim);
        free(data);
        data = malloc(total + 1);
        if (!data) goto out;
        offsets[0] = 0;
        for (k = 0; k < sub_n; k++) {
            size_t e = block_index(t->shape, t->ndim, start, count, k);
            memcpy(data + at, texts[e], lens[e]);
            at += lens[e];
            offsets[k + 1] = at;
        }
        if (zarr_array_write_vlen(array, t->ndim, start, count, offsets, sub_n + 1, data, at) !=
            ZARR_OK) {
            fprintf(stderr, "FAIL %s: write: %s\n", t->path, zarr_last_error_message());
            goto out;
        }
    }
    /* Read back through libzarr first: every element as intended. */
    {
        size_t size = 0;
        free(data);
        data = NULL;
        if (zarr_array_read_vlen(array, t->ndim, zero, t->shape, offsets, n + 1, NULL, 0,
                                 &size) != ZARR_OK ||
            !(data = malloc(size + 1)) ||
            zarr_array_read_vlen(array, t->ndim, zero, t->shape, offsets, n + 1, data, size,
                                 &size) != ZARR_OK) {
            fprintf(stderr, "FAIL %s: read back: %s\n", t->path, zarr_last_error_message());
            goto out;
        }
        for (i = 0; i < n; i++)
            if (offsets[i + 1] - offsets[i] != want_lens[i] ||
                memcmp(data + offsets[i], want[i], want_lens[i]) != 0) {
                fprintf(stderr, "FAIL %s: libzarr reads back element %zu differently\n",
                        t->path, i);
                goto out;
            }
    }
    arrow = to_arrow(n, texts, lens, &blob_len);
    snprintf(name, sizeof name, "%s/input/%zu.arrow", dir, c);
    if (!arrow || spill(name, arrow, blob_len) != 0) goto out;
    free(arrow);
    arrow = to_arrow(n, want, want_lens, &blob_len);
    snprintf(name, sizeof name, "%s/expected/%zu.arrow", dir, c);
    if (!arrow || spill(name, arrow, blob_len) != 0) goto out;
    fprintf(manifest, "{\"path\": \"%s\", \"kind\": \"%s\", \"input\": \"input/%zu.arrow\", "
                      "\"expected\": \"expected/%zu.arrow\", \"fill\": \"",
            t->path, t->kind, c, c);
    for (i = 0; t->fill_text[i]; i++) fprintf(manifest, "%02x", (unsigned char)t->fill_text[i]);
    fprintf(manifest, "\"");
    ok = 1;
out:
    free(texts);
    free(want);
    free(lens);
    free(want_lens);
    free(offsets);
    free(data);
    free(arrow);
    return ok;
}

static int run_write(const char *dir) {
    char name[8400];
    zarr_store *store = NULL;
    FILE *manifest;
    snprintf(name, sizeof name, "%s/input", dir);
    mkdir(name, 0755);
    snprintf(name, sizeof name, "%s/expected", dir);
    mkdir(name, 0755);
    snprintf(name, sizeof name, "%s/store", dir);
    if (zarr_store_open_filesystem(name, &store) != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s\n", name, zarr_last_error_message());
        return 1;
    }
    snprintf(name, sizeof name, "%s/manifest.jsonl", dir);
    manifest = fopen(name, "w");
    if (!manifest) {
        zarr_store_free(store);
        return 1;
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const case_t *t = &cases[c];
        zarr_array *array = NULL;
        int ok;
        if (zarr_array_create(store, t->path, t->metadata, &array) != ZARR_OK) {
            fprintf(stderr, "FAIL %s: create: %s\n", t->path, zarr_last_error_message());
            failures++;
            continue;
        }
        ok = t->size ? write_fixed(array, t, dir, c, manifest)
                     : write_vlen(array, t, dir, c, manifest);
        zarr_array_free(array);
        if (!ok) {
            failures++;
            continue;
        }
        fprintf(manifest, ", \"regions\": [");
        for (size_t r = 0; r < t->nregions; r++) {
            fprintf(manifest, "%s[", r ? ", " : "");
            for (size_t d = 0; d < t->ndim; d++)
                fprintf(manifest, "%s[%llu, %llu]", d ? ", " : "",
                        (unsigned long long)t->regions[r][d][0],
                        (unsigned long long)(t->regions[r][d][0] + t->regions[r][d][1]));
            fprintf(manifest, "]");
        }
        fprintf(manifest, "]}\n");
        passes++;
        printf("wrote %s\n", t->path);
    }
    if (fclose(manifest) != 0) failures++;
    zarr_store_free(store);
    printf("%d written, %d failed\n", passes, failures);
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "read") == 0) return run_read(argv[2]);
    if (argc == 3 && strcmp(argv[1], "write") == 0) return run_write(argv[2]);
    fprintf(stderr, "usage: py312_interop read|write DATA_DIR\n");
    return 2;
}
