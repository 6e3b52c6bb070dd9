/* test_mpi_collective.c -- libzarr's collective calls over MPI (zarr_comm_create_mpi),
 * on every decomposition a model meets, checked element by element.
 *
 *   mpirun -np N test_mpi_collective DATA_DIR [--s3]
 *
 * Stores: DATA_DIR/store_v3 and DATA_DIR/store_v2 (or, with --s3, s3://zarr-test/<a new
 * prefix>/v3 and .../v2 on moto, endpoint $ZARR_TEST_MOTO), each opened by every rank
 * itself with zarr_store_open_url. For each layout -- v3 plain (int32, chunks 8 x 6), v3
 * sharded (float64, shards 16 x 12 of inner chunks 4 x 6) and v2 (int64, chunks 10 x 7)
 * -- five arrays of 37 x 23 elements, none of whose boxes follow the chunks:
 *   slabs   1-D slabs of uneven heights (rank r's weight r + 1)
 *   blocks  2-D blocks of uneven sizes, then zarr_array_resize_collective to 40 x 25 and
 *           slabs of the new rows (some ranks get none)
 *   empty   slabs with one rank's box empty
 *   steps   three collective writes at different times, over different regions with
 *           different decompositions (a corner is never written: the fill value)
 *   series  time x 37 x 23, grown by zarr_array_append_collective four times (1, 2, 1, 3
 *           steps), each rank writing its block of every appended block
 * with groups made by zarr_group_create_collective (v3), attributes set collectively, and
 * zarr_group_consolidate_collective at the end. Every rank keeps a mirror of what every
 * array must hold. After each write every rank reads with zarr_array_read_collective (the
 * box of another rank, then the whole array) and rank 0 reads the whole array serially
 * through a fresh handle; finally rank 0 reads every array through the consolidated
 * metadata. Every element must be exact. Each rank prints zarr_comm_last_write_json after
 * each write.
 *
 * Rank 0 leaves DATA_DIR/manifest.json and DATA_DIR/expected/<n>.bin (each array's final
 * values, host byte order) for check_collective.py (zarr-python, tensorstore). */
#include "mpitest.h"

#include <errno.h>

#include "zarr_mpi.h"

#define ROWS 37
#define COLS 23
#define MAX_STEPS 7     /* the series' length after its appends: 1 + 2 + 1 + 3 */
#define GROWN_ROWS 40   /* blocks, after the resize */
#define GROWN_COLS 25
#define MAX_ELEMENTS ((size_t)MAX_STEPS * ROWS * COLS)

typedef enum { K_I32, K_F64, K_I64 } kind;

typedef struct {
    const char *name;  /* plain, sharded, v2 */
    int store;         /* 0: the v3 store, 1: the v2 store */
    const char *group; /* the arrays' parent */
    kind kind;
    const char *dtype; /* numpy's name */
    int64_t fill;
} layout;

static const layout LAYOUTS[3] = {
    {"plain", 0, "/plain", K_I32, "int32", 0},
    {"sharded", 0, "/sharded", K_F64, "float64", -1},
    {"v2", 1, "/fields", K_I64, "int64", 7},
};
static const char *STORE_NAMES[2] = {"v3", "v2"};

/* An array and the mirror of what it must hold. */
typedef struct {
    const layout *layout;
    zarr_store *store;
    zarr_array *array;
    char path[128];
    size_t ndim;
    uint64_t shape[3];
    int64_t values[MAX_ELEMENTS]; /* C order over `shape` */
    int writes;
} tracked;

typedef struct {
    uint64_t start[3], count[3];
} box;

typedef enum { SLABS, SLABS_EMPTY, BLOCKS } decomposition;

static zarr_comm *comm;
static int rank, size;
static zarr_store *stores[2];
static char manifest[65536];
static size_t manifest_length;
static int arrays_written;
static const char *data_dir;
static char store_urls[2][1024];
static const char *store_options; /* NULL for local paths */

/* ---- values ---------------------------------------------------------------------- */

/* What write number `step` puts at flat index `flat` (exact in int32 and float64). */
static int64_t value_of(uint64_t flat, int step) {
    return (int64_t)step * 1000003 + (int64_t)flat + 1;
}

static size_t element_size(kind k) { return k == K_I32 ? 4 : 8; }

static void put(void *buf, size_t i, kind k, int64_t v) {
    switch (k) {
    case K_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case K_F64: ((double *)buf)[i] = (double)v; break;
    case K_I64: ((int64_t *)buf)[i] = v; break;
    }
}

static int same(const void *buf, size_t i, kind k, int64_t v) {
    switch (k) {
    case K_I32: return ((const int32_t *)buf)[i] == (int32_t)v;
    case K_F64: return ((const double *)buf)[i] == (double)v;
    case K_I64: return ((const int64_t *)buf)[i] == v;
    }
    return 0;
}

static double as_double(const void *buf, size_t i, kind k) {
    switch (k) {
    case K_I32: return ((const int32_t *)buf)[i];
    case K_F64: return ((const double *)buf)[i];
    case K_I64: return (double)((const int64_t *)buf)[i];
    }
    return 0;
}

static uint64_t elements_of(const uint64_t *count, size_t ndim) {
    uint64_t n = 1;
    size_t d;
    for (d = 0; d < ndim; d++) n *= count[d];
    return n;
}

/* Visit the elements of box `b` of `t` in C order: fn(t, position in the box, flat index
 * in the array, arg). */
static void walk(const tracked *t, const box *b, void (*fn)(tracked *, size_t, uint64_t, void *),
                 void *arg) {
    uint64_t s[3] = {0, 0, 0}, c[3] = {1, 1, 1}, shape[3] = {1, 1, 1}, z, y, x;
    size_t pad = 3 - t->ndim, d, i = 0;
    for (d = 0; d < t->ndim; d++) {
        s[pad + d] = b->start[d];
        c[pad + d] = b->count[d];
        shape[pad + d] = t->shape[d];
    }
    if (c[0] == 0 || c[1] == 0 || c[2] == 0) return;
    for (z = s[0]; z < s[0] + c[0]; z++)
        for (y = s[1]; y < s[1] + c[1]; y++)
            for (x = s[2]; x < s[2] + c[2]; x++)
                fn((tracked *)t, i++, (z * shape[1] + y) * shape[2] + x, arg);
}

typedef struct {
    void *buf;
    int step;
} fill_arg;

static void fill_one(tracked *t, size_t i, uint64_t flat, void *arg) {
    fill_arg *a = (fill_arg *)arg;
    put(a->buf, i, t->layout->kind, value_of(flat, a->step));
}

static void mirror_one(tracked *t, size_t i, uint64_t flat, void *arg) {
    (void)i;
    t->values[flat] = value_of(flat, *(int *)arg);
}

typedef struct {
    const void *buf;
    const char *what;
} check_arg;

static void check_one(tracked *t, size_t i, uint64_t flat, void *arg) {
    check_arg *a = (check_arg *)arg;
    if (!same(a->buf, i, t->layout->kind, t->values[flat]))
        mt_fail(__FILE__, __LINE__, "%s %s: element %llu (flat index %llu) is %.17g, expected %lld",
                t->path, a->what, (unsigned long long)i, (unsigned long long)flat,
                as_double(a->buf, i, t->layout->kind), (long long)t->values[flat]);
}

/* A buffer for box `b` of `t` (at least one byte). */
static void *box_buffer(const tracked *t, const box *b, size_t *len) {
    void *buf;
    *len = (size_t)elements_of(b->count, t->ndim) * element_size(t->layout->kind);
    buf = malloc(*len ? *len : 1);
    MT_CHECK(buf != NULL);
    return buf;
}

/* ---- decompositions ---------------------------------------------------------------- */

/* Cut `n` into `parts` consecutive runs with the given weights. */
static void split(uint64_t n, int parts, const int *weights, uint64_t *lo, uint64_t *len) {
    uint64_t total = 0, before = 0;
    int i;
    for (i = 0; i < parts; i++) total += (uint64_t)weights[i];
    for (i = 0; i < parts; i++) {
        uint64_t a = n * before / total, b;
        before += (uint64_t)weights[i];
        b = n * before / total;
        lo[i] = a;
        len[i] = b - a;
    }
}

/* Every rank's box of the rectangle [y0, y0 + ny) x [x0, x0 + nx) of a 2-D array, or of
 * the plane of a 3-D one (its first dimension: [t0, t0 + nt)). */
static void decompose(decomposition d, size_t ndim, uint64_t t0, uint64_t nt, uint64_t y0,
                      uint64_t ny, uint64_t x0, uint64_t nx, box *boxes) {
    int weights[64], py = 1, px, r;
    uint64_t ylo[64], ylen[64], xlo[64], xlen[64];
    MT_CHECK(size <= 64);
    if (d == BLOCKS) {
        /* px x py ranks, px the largest divisor of size not above its square root. */
        for (px = 1, r = 1; r * r <= size; r++)
            if (size % r == 0) px = r;
        py = size / px;
        if (size == 3) { px = 3; py = 1; }
        for (r = 0; r < px; r++) weights[r] = r + 2;
        split(ny, px, weights, ylo, ylen);
        for (r = 0; r < py; r++) weights[r] = r + 1;
        split(nx, py, weights, xlo, xlen);
        for (r = 0; r < size; r++) {
            int i = r / py, j = r % py;
            box *b = &boxes[r];
            size_t k = ndim - 2;
            memset(b, 0, sizeof *b);
            b->start[k] = y0 + ylo[i];
            b->count[k] = ylen[i];
            b->start[k + 1] = x0 + xlo[j];
            b->count[k + 1] = xlen[j];
            if (ndim == 3) {
                b->start[0] = t0;
                b->count[0] = nt;
            }
        }
        return;
    }
    for (r = 0; r < size; r++) weights[r] = r + 1;
    if (d == SLABS_EMPTY) weights[size / 2] = 0;
    split(ny, size, weights, ylo, ylen);
    for (r = 0; r < size; r++) {
        box *b = &boxes[r];
        size_t k = ndim - 2;
        memset(b, 0, sizeof *b);
        b->start[k] = y0 + ylo[r];
        b->count[k] = ylen[r];
        b->start[k + 1] = x0;
        b->count[k + 1] = nx;
        if (ndim == 3) {
            b->start[0] = t0;
            b->count[0] = nt;
        }
    }
}

/* ---- the collective steps, checked --------------------------------------------------- */

static void print_last_write(const tracked *t, const char *what) {
    char *json = NULL;
    char expected[32];
    MT_OK(zarr_comm_last_write_json(comm, &json));
    snprintf(expected, sizeof expected, "\"ranks\":%d", size);
    MT_STR_CONTAINS(json, expected);
    printf("rank %d: %s %s: %s\n", rank, t->path, what, json);
    fflush(stdout);
    zarr_string_free(json);
}

/* Each rank checks its shape, reads the box of the next rank collectively, then the
 * whole array; rank 0 also reads it serially through a new handle. */
static void verify(tracked *t, const box *boxes) {
    uint64_t shape[3], zero[3] = {0, 0, 0};
    const box *other = &boxes[(rank + 1) % size];
    box whole;
    check_arg arg;
    size_t len, d;
    void *buf;
    MT_OK(zarr_array_shape(t->array, t->ndim, shape));
    for (d = 0; d < t->ndim; d++) MT_CHECK(shape[d] == t->shape[d]);

    buf = box_buffer(t, other, &len);
    /* An empty box reads nothing: (NULL, 0) is its buffer. */
    if (elements_of(other->count, t->ndim) == 0) {
        MT_COLLECTIVE_OK(zarr_array_read_collective(comm, t->array, t->ndim, other->start,
                                                    other->count, NULL, 0));
    } else {
        MT_COLLECTIVE_OK(zarr_array_read_collective(comm, t->array, t->ndim, other->start,
                                                    other->count, buf, len));
    }
    arg.buf = buf;
    arg.what = "read collectively (the box of the next rank)";
    walk(t, other, check_one, &arg);
    free(buf);

    memset(&whole, 0, sizeof whole);
    memcpy(whole.count, t->shape, sizeof whole.count);
    buf = box_buffer(t, &whole, &len);
    MT_COLLECTIVE_OK(zarr_array_read_collective(comm, t->array, t->ndim, zero, whole.count,
                                                buf, len));
    arg.buf = buf;
    arg.what = "read whole collectively";
    walk(t, &whole, check_one, &arg);
    if (rank == 0) {
        zarr_array *fresh = NULL;
        memset(buf, 0xA5, len);
        MT_OK(zarr_array_open(t->store, t->path, &fresh));
        MT_OK(zarr_array_shape(fresh, t->ndim, shape));
        for (d = 0; d < t->ndim; d++) MT_CHECK(shape[d] == t->shape[d]);
        MT_OK(zarr_array_read(fresh, t->ndim, zero, whole.count, buf, len));
        arg.what = "read serially by rank 0";
        walk(t, &whole, check_one, &arg);
        zarr_array_free(fresh);
    }
    free(buf);
}

/* Write every rank's box with the values of write number t->writes + 1. */
static void write_boxes(tracked *t, const box *boxes) {
    const box *mine = &boxes[rank];
    fill_arg arg;
    size_t len;
    void *buf = box_buffer(t, mine, &len);
    int step = ++t->writes, r;
    char what[64];
    arg.buf = buf;
    arg.step = step;
    walk(t, mine, fill_one, &arg);
    MT_COLLECTIVE_OK(zarr_array_write_collective(comm, t->array, t->ndim, mine->start,
                                                 mine->count, buf, len));
    free(buf);
    for (r = 0; r < size; r++) walk(t, &boxes[r], mirror_one, &step);
    snprintf(what, sizeof what, "write %d", step);
    print_last_write(t, what);
    verify(t, boxes);
}

/* Append `length` steps to the series `t`; `boxes` are relative to the appended block. */
static void append_boxes(tracked *t, uint64_t length, decomposition d) {
    box boxes[64], absolute[64];
    fill_arg arg;
    size_t len, i;
    void *buf;
    uint64_t old = t->shape[0];
    int step = ++t->writes, r;
    char what[64];
    decompose(d, 3, 0, length, 0, ROWS, 0, COLS, boxes);
    t->shape[0] = old + length;
    for (r = 0; r < size; r++) {
        absolute[r] = boxes[r];
        absolute[r].start[0] += old;
    }
    buf = box_buffer(t, &absolute[rank], &len);
    arg.buf = buf;
    arg.step = step;
    walk(t, &absolute[rank], fill_one, &arg);
    for (i = (size_t)(old * ROWS * COLS); i < (size_t)(t->shape[0] * ROWS * COLS); i++)
        t->values[i] = t->layout->fill;
    MT_COLLECTIVE_OK(zarr_array_append_collective(comm, t->array, 0, length, 3,
                                                  boxes[rank].start, boxes[rank].count,
                                                  buf, len));
    free(buf);
    for (r = 0; r < size; r++) walk(t, &absolute[r], mirror_one, &step);
    snprintf(what, sizeof what, "append of %llu (write %d)", (unsigned long long)length, step);
    print_last_write(t, what);
    verify(t, absolute);
}

/* ---- arrays ------------------------------------------------------------------------- */

static void metadata_of(const layout *l, size_t ndim, const uint64_t *shape, char *out,
                        size_t out_size) {
    char shape_text[96];
    if (ndim == 2)
        snprintf(shape_text, sizeof shape_text, "[%llu, %llu]", (unsigned long long)shape[0],
                 (unsigned long long)shape[1]);
    else
        snprintf(shape_text, sizeof shape_text, "[%llu, %llu, %llu]",
                 (unsigned long long)shape[0], (unsigned long long)shape[1],
                 (unsigned long long)shape[2]);
    if (strcmp(l->name, "plain") == 0) {
        snprintf(out, out_size,
                 "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": %s,"
                 " \"data_type\": \"int32\", \"fill_value\": 0,"
                 " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": %s}},"
                 " \"chunk_key_encoding\": {\"name\": \"default\"},"
                 " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
                 "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
                 " \"dimension_names\": %s, \"attributes\": {\"created\": \"collectively\"}}",
                 shape_text, ndim == 2 ? "[8, 6]" : "[2, 8, 6]",
                 ndim == 2 ? "[\"y\", \"x\"]" : "[\"time\", \"y\", \"x\"]");
    } else if (strcmp(l->name, "sharded") == 0) {
        snprintf(out, out_size,
                 "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": %s,"
                 " \"data_type\": \"float64\", \"fill_value\": -1.0,"
                 " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": %s}},"
                 " \"chunk_key_encoding\": {\"name\": \"default\"},"
                 " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
                 "   \"chunk_shape\": %s,"
                 "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
                 "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
                 "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
                 "                    {\"name\": \"crc32c\"}],"
                 "   \"index_location\": \"end\"}}],"
                 " \"dimension_names\": %s}",
                 shape_text, ndim == 2 ? "[16, 12]" : "[4, 16, 12]",
                 ndim == 2 ? "[4, 6]" : "[1, 4, 6]",
                 ndim == 2 ? "[\"y\", \"x\"]" : "[\"time\", \"y\", \"x\"]");
    } else {
        snprintf(out, out_size,
                 "{\"zarr_format\": 2, \"shape\": %s, \"chunks\": %s, \"dtype\": \"<i8\","
                 " \"compressor\": {\"id\": \"zstd\", \"level\": 1}, \"fill_value\": 7,"
                 " \"filters\": null, \"order\": \"C\"}",
                 shape_text, ndim == 2 ? "[10, 7]" : "[3, 10, 7]");
    }
}

static tracked *create(const layout *l, const char *name, size_t ndim, const uint64_t *shape) {
    tracked *t = (tracked *)calloc(1, sizeof *t);
    char metadata[4096];
    size_t i;
    MT_CHECK(t != NULL);
    t->layout = l;
    t->store = stores[l->store];
    t->ndim = ndim;
    memcpy(t->shape, shape, ndim * sizeof *shape);
    snprintf(t->path, sizeof t->path, "%s/%s", l->group, name);
    for (i = 0; i < MAX_ELEMENTS; i++) t->values[i] = l->fill;
    metadata_of(l, ndim, shape, metadata, sizeof metadata);
    t->array = (zarr_array *)1; /* must become NULL on failure, the handle on success */
    MT_COLLECTIVE_OK(zarr_array_create_collective(comm, t->store, t->path, metadata, &t->array));
    MT_CHECK(t->array != NULL);
    return t;
}

/* Resize a 2-D array collectively; the mirror keeps each element's position. */
static void resize(tracked *t, uint64_t rows, uint64_t cols) {
    static int64_t old[MAX_ELEMENTS];
    uint64_t shape[2] = {rows, cols}, y, x;
    memcpy(old, t->values, sizeof old);
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++)
            t->values[y * cols + x] =
                (y < t->shape[0] && x < t->shape[1]) ? old[y * t->shape[1] + x] : t->layout->fill;
    MT_COLLECTIVE_OK(zarr_array_resize_collective(comm, t->array, 2, shape));
    t->shape[0] = rows;
    t->shape[1] = cols;
}

/* Attributes, collectively, then the same text on every rank's handle. */
static void set_attributes(tracked *t) {
    char json[512], *back = NULL, *first = NULL;
    int length;
    snprintf(json, sizeof json,
             "{\"units\": \"K\", \"layout\": \"%s\", \"writes\": %d, \"ranks\": %d}",
             t->layout->name, t->writes, size);
    MT_COLLECTIVE_OK(zarr_array_set_attributes_json_collective(comm, t->array, json));
    MT_OK(zarr_array_attributes_json(t->array, &back));
    MT_STR_CONTAINS(back, "\"units\"");
    MT_STR_CONTAINS(back, "\"ranks\"");
    /* Every rank's handle holds what rank 0's holds. */
    length = (int)strlen(back) + 1;
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    first = (char *)malloc((size_t)length);
    MT_CHECK(first != NULL);
    if (rank == 0) memcpy(first, back, (size_t)length);
    MPI_Bcast(first, length, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (strcmp(first, back) != 0)
        mt_fail(__FILE__, __LINE__, "%s: attributes differ: rank 0 has %s, this rank %s",
                t->path, first, back);
    free(first);
    zarr_string_free(back);
}

/* Rank 0: the array's final values into DATA_DIR/expected/<n>.bin, and its entry in the
 * manifest. */
static void record(tracked *t) {
    char name[256], file[2048];
    size_t n = (size_t)elements_of(t->shape, t->ndim), i;
    void *buf;
    FILE *f;
    if (rank != 0) return;
    snprintf(name, sizeof name, "expected/%d.bin", arrays_written++);
    snprintf(file, sizeof file, "%s/%s", data_dir, name);
    buf = malloc(n * element_size(t->layout->kind) + 1);
    MT_CHECK(buf != NULL);
    for (i = 0; i < n; i++) put(buf, i, t->layout->kind, t->values[i]);
    f = fopen(file, "wb");
    MT_CHECK(f != NULL);
    MT_CHECK(fwrite(buf, element_size(t->layout->kind), n, f) == n);
    MT_CHECK(fclose(f) == 0);
    free(buf);
    {
        char shape[96];
        if (t->ndim == 2)
            snprintf(shape, sizeof shape, "[%llu, %llu]", (unsigned long long)t->shape[0],
                     (unsigned long long)t->shape[1]);
        else
            snprintf(shape, sizeof shape, "[%llu, %llu, %llu]", (unsigned long long)t->shape[0],
                     (unsigned long long)t->shape[1], (unsigned long long)t->shape[2]);
        manifest_length += (size_t)snprintf(
            manifest + manifest_length, sizeof manifest - manifest_length,
            "%s    {\"store\": \"%s\", \"path\": \"%s\", \"dtype\": \"%s\", \"shape\": %s,"
            " \"fill_value\": %lld, \"expected\": \"%s\", \"attributes\": {\"units\": \"K\","
            " \"layout\": \"%s\", \"writes\": %d, \"ranks\": %d}}",
            arrays_written > 1 ? ",\n" : "", STORE_NAMES[t->layout->store], t->path,
            t->layout->dtype, shape, (long long)t->layout->fill, name, t->layout->name,
            t->writes, size);
    }
    MT_CHECK(manifest_length < sizeof manifest);
}

/* Rank 0: read every element once more through the consolidated metadata. */
static void check_consolidated(tracked **all, int count) {
    zarr_store *consolidated[2] = {NULL, NULL};
    int s, i;
    if (rank != 0) return;
    for (s = 0; s < 2; s++) MT_OK(zarr_store_open_consolidated(stores[s], &consolidated[s]));
    for (i = 0; i < count; i++) {
        tracked *t = all[i];
        zarr_array *array = NULL;
        box whole;
        check_arg arg;
        size_t len;
        uint64_t zero[3] = {0, 0, 0};
        void *buf;
        memset(&whole, 0, sizeof whole);
        memcpy(whole.count, t->shape, sizeof whole.count);
        buf = box_buffer(t, &whole, &len);
        MT_OK(zarr_array_open(consolidated[t->layout->store], t->path, &array));
        MT_OK(zarr_array_read(array, t->ndim, zero, whole.count, buf, len));
        arg.buf = buf;
        arg.what = "read through the consolidated metadata";
        walk(t, &whole, check_one, &arg);
        zarr_array_free(array);
        free(buf);
    }
    zarr_store_free(consolidated[0]);
    zarr_store_free(consolidated[1]);
}

/* ---- the run ---------------------------------------------------------------------- */

static void open_stores(int s3) {
    int s;
    if (s3) {
        char prefix[256];
        mt_unique_prefix("mpi", prefix, sizeof prefix);
        store_options = mt_s3_options(0);
        for (s = 0; s < 2; s++)
            snprintf(store_urls[s], sizeof store_urls[s], "s3://zarr-test/%s-np%d/%s", prefix,
                     size, STORE_NAMES[s]);
    } else {
        for (s = 0; s < 2; s++)
            snprintf(store_urls[s], sizeof store_urls[s], "%s/store_%s", data_dir,
                     STORE_NAMES[s]);
    }
    for (s = 0; s < 2; s++) {
        stores[s] = NULL;
        /* Local directories are new: each rank creates them if no other rank has yet. */
        MT_OK(zarr_store_open_url(store_urls[s], store_options ? store_options : "{\"create\": true}",
                                  &stores[s]));
    }
}

static void write_manifest(void) {
    char file[2048];
    FILE *f;
    if (rank != 0) return;
    snprintf(file, sizeof file, "%s/manifest.json", data_dir);
    f = fopen(file, "w");
    MT_CHECK(f != NULL);
    fprintf(f,
            "{\"ranks\": %d,\n \"stores\": {\"v3\": \"%s\", \"v2\": \"%s\"},\n"
            " \"options\": %s,\n"
            " \"groups\": [{\"store\": \"v3\", \"path\": \"/\", \"attributes\": {\"title\": "
            "\"written collectively\", \"ranks\": %d, \"finished\": true}},\n"
            "            {\"store\": \"v3\", \"path\": \"/plain\", \"attributes\": {\"layout\": \"plain\"}},\n"
            "            {\"store\": \"v3\", \"path\": \"/sharded\", \"attributes\": {\"layout\": \"sharded\"}},\n"
            "            {\"store\": \"v2\", \"path\": \"/\", \"attributes\": {\"title\": "
            "\"written collectively\", \"ranks\": %d, \"finished\": true}}],\n"
            " \"arrays\": [\n%s\n ]}\n",
            size, store_urls[0], store_urls[1], store_options ? store_options : "null", size,
            size, manifest);
    MT_CHECK(fclose(f) == 0);
}

int main(int argc, char **argv) {
    int provided, s3, l, i, count = 0;
    tracked *all[32];
    box boxes[64];
    zarr_group *root = NULL, *sub = NULL, *root_v2 = NULL;
    char attributes[256];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    mt_init();
    if (argc < 2) mt_fail(__FILE__, __LINE__, "usage: test_mpi_collective DATA_DIR [--s3]");
    data_dir = argv[1];
    s3 = argc > 2 && strcmp(argv[2], "--s3") == 0;
    MT_OK(zarr_comm_create_mpi(MPI_COMM_WORLD, &comm));
    {
        size_t r, n;
        MT_OK(zarr_comm_rank(comm, &r));
        MT_OK(zarr_comm_size(comm, &n));
        rank = (int)r;
        size = (int)n;
        MT_CHECK(rank == mt_rank && size == mt_size);
    }
    if (rank == 0) {
        char dir[2048];
        snprintf(dir, sizeof dir, "%s/expected", data_dir);
        if (mkdir(data_dir, 0777) != 0 && errno != EEXIST) mt_fail(__FILE__, __LINE__, "mkdir %s", data_dir);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) mt_fail(__FILE__, __LINE__, "mkdir %s", dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    open_stores(s3);
    if (rank == 0) printf("%d ranks; stores %s and %s\n", size, store_urls[0], store_urls[1]);

    /* The v3 hierarchy: the root and one group per layout, collectively. */
    snprintf(attributes, sizeof attributes, "{\"title\": \"written collectively\", \"ranks\": %d}", size);
    MT_COLLECTIVE_OK(zarr_group_create_collective(comm, stores[0], "/", attributes, &root));
    MT_CHECK(root != NULL);
    MT_COLLECTIVE_OK(zarr_group_create_collective(comm, stores[0], "/plain",
                                                  "{\"layout\": \"plain\"}", &sub));
    zarr_group_free(sub);
    MT_COLLECTIVE_OK(zarr_group_create_collective(comm, stores[0], "/sharded",
                                                  "{\"layout\": \"sharded\"}", &sub));
    zarr_group_free(sub);

    for (l = 0; l < 3; l++) {
        const layout *lay = &LAYOUTS[l];
        uint64_t shape2[2] = {ROWS, COLS}, shape3[3] = {0, ROWS, COLS};
        tracked *t;

        t = create(lay, "slabs", 2, shape2);
        decompose(SLABS, 2, 0, 0, 0, ROWS, 0, COLS, boxes);
        write_boxes(t, boxes);
        all[count++] = t;

        t = create(lay, "blocks", 2, shape2);
        decompose(BLOCKS, 2, 0, 0, 0, ROWS, 0, COLS, boxes);
        write_boxes(t, boxes);
        resize(t, GROWN_ROWS, GROWN_COLS);
        verify(t, boxes);
        decompose(SLABS, 2, 0, 0, ROWS - 2, GROWN_ROWS - (ROWS - 2), 0, GROWN_COLS, boxes);
        write_boxes(t, boxes);
        all[count++] = t;

        t = create(lay, "empty", 2, shape2);
        decompose(SLABS_EMPTY, 2, 0, 0, 0, ROWS, 0, COLS, boxes);
        MT_CHECK(elements_of(boxes[size / 2].count, 2) == 0);
        write_boxes(t, boxes);
        all[count++] = t;

        t = create(lay, "steps", 2, shape2);
        decompose(SLABS, 2, 0, 0, 0, 31, 0, COLS, boxes);
        write_boxes(t, boxes);
        decompose(BLOCKS, 2, 0, 0, 5, 26, 3, 17, boxes);
        write_boxes(t, boxes);
        decompose(SLABS_EMPTY, 2, 0, 0, 10, ROWS - 10, 0, 20, boxes);
        write_boxes(t, boxes);
        all[count++] = t;

        t = create(lay, "series", 3, shape3);
        append_boxes(t, 1, BLOCKS);
        append_boxes(t, 2, SLABS_EMPTY);
        append_boxes(t, 1, SLABS);
        append_boxes(t, 3, BLOCKS);
        MT_CHECK(t->shape[0] == MAX_STEPS);
        all[count++] = t;
    }
    for (i = 0; i < count; i++) set_attributes(all[i]);

    /* The roots' attributes, then the consolidated metadata, collectively. */
    snprintf(attributes, sizeof attributes,
             "{\"title\": \"written collectively\", \"ranks\": %d, \"finished\": true}", size);
    MT_COLLECTIVE_OK(zarr_group_set_attributes_json_collective(comm, root, attributes));
    MT_OK(zarr_group_open(stores[1], "/", &root_v2));
    MT_COLLECTIVE_OK(zarr_group_set_attributes_json_collective(comm, root_v2, attributes));
    MT_COLLECTIVE_OK(zarr_group_consolidate_collective(comm, root));
    MT_COLLECTIVE_OK(zarr_group_consolidate_collective(comm, root_v2));
    check_consolidated(all, count);

    for (i = 0; i < count; i++) record(all[i]);
    write_manifest();

    for (i = 0; i < count; i++) {
        zarr_array_free(all[i]->array);
        free(all[i]);
    }
    zarr_group_free(root);
    zarr_group_free(root_v2);
    zarr_store_free(stores[0]);
    zarr_store_free(stores[1]);
    zarr_comm_free(comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("test_mpi_collective: %d arrays on %d ranks, every element exact\n", count, size);
    MPI_Finalize();
    return 0;
}
