/* cp.c -- `zarr cp`: copy an array or a group hierarchy, converting and rechunking. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#define CP_BLOCK_BYTES block_bytes /* target bytes per block: 64 MiB, or $ZARR_CP_BLOCK_BYTES */

static const char *cp_help =
    "usage: zarr cp SRC DST [--format 2|3] [--chunks c0,c1,...] [--shards s0,s1,...]\n"
    "                       [--codec none|gzip[:level]|zstd[:level]|blosc]\n"
    "\n"
    "Copy the array at SRC to a new array at DST, or, when SRC is a group, the whole\n"
    "hierarchy below it (groups, arrays, attributes). SRC is a PATH as in `zarr --help`.\n"
    "DST does not exist yet: STORE::/node names a node explicitly; otherwise DST is a\n"
    "directory path whose parent directory must exist. When that parent holds node metadata\n"
    "DST becomes a node of the store found as for PATH (the top-most directory of the\n"
    "unbroken chain of directories with node metadata); otherwise DST is the root of a new\n"
    "store.\n"
    "\n"
    "  --format 2|3     Zarr format of the new arrays and groups (default: the source's).\n"
    "  --chunks C       chunk shape (inner chunk shape when sharded), one value per\n"
    "                   dimension (default: the source's inner chunk shape). When SRC is\n"
    "                   a group, every array below it must have that many dimensions.\n"
    "  --shards S       v3 only, with --chunks: shard shape, one multiple of the chunk\n"
    "                   shape per dimension; shards get a crc32c-checked index at their end.\n"
    "                   Without --shards the copy is sharded like the source when the source\n"
    "                   is sharded and --chunks is not given, else not sharded.\n"
    "  --codec K        compression: none, gzip[:level] (default 5), zstd[:level] (default 3),\n"
    "                   blosc (lz4, clevel 5, byte shuffle). Default: the source's gzip, zstd\n"
    "                   or blosc compressor with its settings, else none.\n"
    "\n"
    "The new arrays are little-endian, C order (no transpose), with the source's data type,\n"
    "fill value (a v2 null fill value becomes 0 in v3) and attributes; dimension names are\n"
    "kept in v3 and not written to v2; v2 filters are not carried over. Chunk keys use '/'\n"
    "(v3) or '.' (v2). Data are copied in blocks aligned to the destination's chunks (shards\n"
    "when sharded) of at most 64 MiB ($ZARR_CP_BLOCK_BYTES overrides) or one chunk (shard),\n"
    "whichever is larger, so memory stays bounded. A progress bar is drawn on stderr when\n"
    "stderr is a terminal and the copy takes more than one block. A copy that fails midway\n"
    "leaves what it wrote in place. Exit status: 0 ok, 1 runtime error, 2 usage error.\n";

enum { COMP_NONE, COMP_GZIP, COMP_ZSTD, COMP_BLOSC };

typedef struct {
    int kind, level;      /* gzip/zstd level, blosc clevel */
    int checksum;         /* zstd */
    char cname[16];       /* blosc */
    int shuffle;          /* blosc: 0 none, 1 byte, 2 bit */
    long long blocksize;  /* blosc */
} compressor;

typedef struct {
    int format;           /* 0: same as source */
    int nchunks, nshards; /* -1: not given */
    uint64_t chunks[MAX_NDIM], shards[MAX_NDIM];
    int have_codec;
    compressor codec;
} cp_options;

static int parse_codec(const char *s, compressor *c) {
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    memset(c, 0, sizeof *c);
    if (n == 4 && !strncmp(s, "none", 4)) c->kind = COMP_NONE;
    else if (n == 4 && !strncmp(s, "gzip", 4)) { c->kind = COMP_GZIP; c->level = 5; }
    else if (n == 4 && !strncmp(s, "zstd", 4)) { c->kind = COMP_ZSTD; c->level = 3; }
    else if (n == 5 && !strncmp(s, "blosc", 5)) {
        c->kind = COMP_BLOSC; c->level = 5; c->shuffle = 1; strcpy(c->cname, "lz4");
    } else return -1;
    if (colon) {
        char *end;
        long v;
        if (c->kind != COMP_GZIP && c->kind != COMP_ZSTD) return -1;
        errno = 0;
        v = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || *end) return -1;
        if (c->kind == COMP_GZIP && (v < 0 || v > 9)) return -1;
        if (c->kind == COMP_ZSTD && (v < -131072 || v > 22)) return -1;
        c->level = (int)v;
    }
    return 0;
}

/* The source's compressor (v3: the first gzip/zstd/blosc codec, inside sharding too). */
static void source_compressor(const json_value *meta, compressor *c) {
    const json_value *list = json_get(meta, "codecs"), *cfg;
    const char *name = NULL;
    size_t i;
    memset(c, 0, sizeof *c);
    if (metadata_format(meta) == 2) {
        cfg = json_get(meta, "compressor");
        name = json_string(json_get(cfg, "id"));
    } else {
        cfg = NULL;
        for (i = 0; list && list->type == JSON_ARRAY && i < list->count; i++) {
            const char *n = json_string(json_get(&list->items[i], "name"));
            const json_value *conf = json_get(&list->items[i], "configuration");
            if (n && !strcmp(n, "sharding_indexed")) {
                list = json_get(conf, "codecs");
                i = (size_t)-1;
                continue;
            }
            if (n && (!strcmp(n, "gzip") || !strcmp(n, "zstd") || !strcmp(n, "blosc"))) {
                name = n;
                cfg = conf;
                break;
            }
        }
    }
    if (!name) return;
    if (!strcmp(name, "gzip")) { c->kind = COMP_GZIP; c->level = 5; }
    else if (!strcmp(name, "zstd")) { c->kind = COMP_ZSTD; c->level = 3; }
    else if (!strcmp(name, "blosc")) { c->kind = COMP_BLOSC; c->level = 5; c->shuffle = 1; strcpy(c->cname, "lz4"); }
    else {
        fprintf(stderr, "zarr: cp: note: compressor '%s' has no counterpart here; writing uncompressed "
                        "(choose one with --codec)\n", name);
        return;
    }
    {
        const json_value *v;
        const char *sh;
        if ((v = json_get(cfg, "level")) && v->type == JSON_NUMBER) c->level = (int)v->number;
        if ((v = json_get(cfg, "clevel")) && v->type == JSON_NUMBER) c->level = (int)v->number;
        if ((v = json_get(cfg, "checksum")) && v->type == JSON_BOOL) c->checksum = v->boolean;
        if ((sh = json_string(json_get(cfg, "cname"))) && strlen(sh) < sizeof c->cname) strcpy(c->cname, sh);
        if ((v = json_get(cfg, "blocksize")) && v->type == JSON_NUMBER) c->blocksize = (long long)v->number;
        v = json_get(cfg, "shuffle");
        if (v && v->type == JSON_NUMBER) c->shuffle = (int)v->number; /* v2: 0, 1, 2 (-1 auto: byte) */
        if (c->shuffle < 0 || c->shuffle > 2) c->shuffle = 1;
        if ((sh = json_string(v))) c->shuffle = !strcmp(sh, "noshuffle") ? 0 : !strcmp(sh, "bitshuffle") ? 2 : 1;
    }
}

static void put_list(FILE *f, size_t n, const uint64_t *v) {
    size_t i;
    fputc('[', f);
    for (i = 0; i < n; i++) fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
    fputc(']', f);
}

static void put_v3_compressor(FILE *f, const compressor *c, size_t esize) {
    static const char *shuffles[] = {"noshuffle", "shuffle", "bitshuffle"};
    if (c->kind == COMP_GZIP) fprintf(f, ",{\"name\":\"gzip\",\"configuration\":{\"level\":%d}}", c->level);
    else if (c->kind == COMP_ZSTD)
        fprintf(f, ",{\"name\":\"zstd\",\"configuration\":{\"level\":%d,\"checksum\":%s}}", c->level,
                c->checksum ? "true" : "false");
    else if (c->kind == COMP_BLOSC)
        fprintf(f, ",{\"name\":\"blosc\",\"configuration\":{\"cname\":\"%s\",\"clevel\":%d,\"shuffle\":\"%s\","
                   "\"typesize\":%lu,\"blocksize\":%lld}}", c->cname, c->level, shuffles[c->shuffle],
                (unsigned long)esize, c->blocksize);
}

static const char *v2_dtype(zarr_data_type dt, size_t esize, char *buf, size_t len) {
    static const char *names[] = {"?", "|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
                                  "<f2", "<f4", "<f8", "<c8", "<c16"};
    if (dt >= 1 && dt <= 14) return names[dt];
    snprintf(buf, len, "|V%lu", (unsigned long)esize);
    return buf;
}

static void put_base64(FILE *f, const unsigned char *p, size_t n) {
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i;
    fputc('"', f);
    for (i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(tbl[v >> 18], f);
        fputc(tbl[(v >> 12) & 63], f);
        fputc(i + 1 < n ? tbl[(v >> 6) & 63] : '=', f);
        fputc(i + 2 < n ? tbl[v & 63] : '=', f);
    }
    fputc('"', f);
}

/* Write the destination fill value; returns 0, or -1 (reported) when it cannot be expressed. */
static int put_fill(FILE *f, const json_value *fill, int src_format, int dst_format, zarr_data_type dt, size_t esize) {
    size_t i;
    if (!fill || fill->type == JSON_NULL) {
        /* Zarr v2 null (no fill value): v2 keeps it, v3 needs one, so zero */
        if (dst_format == 2) fputs("null", f);
        else if (dt == ZARR_DATA_TYPE_BOOL) fputs("false", f);
        else if (dt == ZARR_DATA_TYPE_COMPLEX64 || dt == ZARR_DATA_TYPE_COMPLEX128) fputs("[0,0]", f);
        else if (dt == ZARR_DATA_TYPE_RAW) {
            fputc('[', f);
            for (i = 0; i < esize; i++) fputs(i ? ",0" : "0", f);
            fputc(']', f);
        } else fputs("0", f);
        return 0;
    }
    if (src_format == dst_format) {
        json_print(fill, f);
        return 0;
    }
    if (dst_format == 2 && dt == ZARR_DATA_TYPE_RAW && fill->type == JSON_ARRAY && fill->count == esize) {
        unsigned char bytes[64];
        for (i = 0; i < esize && i < sizeof bytes; i++) bytes[i] = (unsigned char)fill->items[i].number;
        put_base64(f, bytes, esize < sizeof bytes ? esize : sizeof bytes);
        return 0;
    }
    if (fill->type == JSON_STRING && strncmp(fill->text, "0x", 2) == 0) {
        report("cp", "fill value \"%s\" (a bit pattern) cannot be written in Zarr v%d", fill->text, dst_format);
        return -1;
    }
    if (dt == ZARR_DATA_TYPE_RAW) {
        report("cp", "the fill value of a raw-bytes array cannot be converted to Zarr v%d", dst_format);
        return -1;
    }
    json_print(fill, f); /* numbers, true/false, "NaN", "Infinity", "-Infinity", [re, im] */
    return 0;
}

/* Build the destination document. Returns malloc'ed text, or NULL (reported). */
static char *build_doc(const cp_options *o, int fmt, const json_value *meta, size_t ndim, const uint64_t *shape,
                       const uint64_t *chunks, const uint64_t *shards, int sharded, zarr_data_type dt, size_t esize,
                       const compressor *c) {
    char *text = NULL, name[32];
    size_t len = 0;
    const json_value *dims;
    FILE *f = open_memstream(&text, &len);
    (void)o;
    if (!f) {
        report("cp", "out of memory");
        return NULL;
    }
    if (fmt == 2) {
        fputs("{\"zarr_format\":2,\"shape\":", f);
        put_list(f, ndim, shape);
        fputs(",\"chunks\":", f);
        put_list(f, ndim, chunks);
        fprintf(f, ",\"dtype\":\"%s\",\"compressor\":", v2_dtype(dt, esize, name, sizeof name));
        if (c->kind == COMP_GZIP) fprintf(f, "{\"id\":\"gzip\",\"level\":%d}", c->level);
        else if (c->kind == COMP_ZSTD) fprintf(f, "{\"id\":\"zstd\",\"level\":%d}", c->level);
        else if (c->kind == COMP_BLOSC)
            fprintf(f, "{\"id\":\"blosc\",\"cname\":\"%s\",\"clevel\":%d,\"shuffle\":%d,\"blocksize\":%lld}", c->cname,
                    c->level, c->shuffle, c->blocksize);
        else fputs("null", f);
        fputs(",\"filters\":null,\"fill_value\":", f);
        if (put_fill(f, json_get(meta, "fill_value"), metadata_format(meta), 2, dt, esize)) goto fail;
        fputs(",\"order\":\"C\",\"dimension_separator\":\".\"}", f);
    } else {
        fputs("{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":", f);
        put_list(f, ndim, shape);
        fprintf(f, ",\"data_type\":\"%s\",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":",
                dtype_name(dt, esize, name, sizeof name));
        put_list(f, ndim, sharded ? shards : chunks);
        fputs("}},\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
              "\"fill_value\":", f);
        if (put_fill(f, json_get(meta, "fill_value"), metadata_format(meta), 3, dt, esize)) goto fail;
        fputs(",\"codecs\":[", f);
        if (sharded) {
            fputs("{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":", f);
            put_list(f, ndim, chunks);
            fputs(",\"codecs\":[", f);
        }
        fputs("{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}", f);
        put_v3_compressor(f, c, esize);
        if (sharded)
            fputs("],\"index_codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
                  "{\"name\":\"crc32c\"}],\"index_location\":\"end\"}}", f);
        fputc(']', f);
        dims = json_get(meta, "dimension_names");
        if (dims && dims->type == JSON_ARRAY) {
            fputs(",\"dimension_names\":", f);
            json_print(dims, f);
        }
        fputc('}', f);
    }
    if (fclose(f) != 0) {
        free(text);
        report("cp", "out of memory");
        return NULL;
    }
    return text;
fail:
    fclose(f);
    free(text);
    return NULL;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

static void progress(const char *path, uint64_t done, uint64_t total) {
    int width = 30, filled = (int)(done * (uint64_t)width / total), i;
    fprintf(stderr, "\rzarr cp %s [", path);
    for (i = 0; i < width; i++) fputc(i < filled ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%% %llu/%llu blocks", (int)(done * 100 / total), (unsigned long long)done,
            (unsigned long long)total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* Copy the data of src into dst, in blocks aligned to dst's chunk grid. */
static int copy_data(const zarr_array *src, zarr_array *dst, const char *dst_path, size_t ndim, const uint64_t *shape,
                     size_t esize) {
    uint64_t grid[MAX_NDIM], block[MAX_NDIM], nb[MAX_NDIM], idx[MAX_NDIM], start[MAX_NDIM], count[MAX_NDIM];
    uint64_t total = 1, done = 0, bytes;
    size_t i, cap;
    unsigned char *buf;
    int show;
    uint64_t block_bytes = env_bytes("ZARR_CP_BLOCK_BYTES", (uint64_t)64 << 20);
    if (zarr_array_chunk_shape(dst, ndim, grid) != ZARR_OK) {
        report_zarr("cp", "%s: chunk shape", dst_path);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < ndim; i++) {
        if (shape[i] == 0) return EXIT_OK; /* nothing to copy */
        block[i] = grid[i] < shape[i] ? grid[i] : shape[i];
    }
    /* Grow the block, last dimension first, by whole chunks up to CP_BLOCK_BYTES. */
    for (i = ndim; i > 0; i--) {
        size_t d = i - 1, e;
        uint64_t others = esize, one, m, nchunks = shape[d] / grid[d] + (shape[d] % grid[d] != 0);
        for (e = 0; e < ndim; e++)
            if (e != d) others = sat_mul(others, block[e]);
        one = sat_mul(others, grid[d]); /* bytes of the block with one chunk along d */
        m = one >= CP_BLOCK_BYTES ? 1 : CP_BLOCK_BYTES / one;
        if (m > nchunks) m = nchunks;
        block[d] = grid[d] * m < shape[d] ? grid[d] * m : shape[d];
    }
    bytes = esize;
    for (i = 0; i < ndim; i++) {
        nb[i] = shape[i] / block[i] + (shape[i] % block[i] != 0);
        total *= nb[i];
        idx[i] = 0;
        if (block[i] && bytes > (uint64_t)SIZE_MAX / block[i]) {
            report("cp", "%s: one chunk does not fit in memory", dst_path);
            return EXIT_RUNTIME;
        }
        bytes *= block[i];
    }
    cap = (size_t)bytes;
    if (!(buf = malloc(cap ? cap : 1))) {
        report("cp", "%s: cannot allocate %llu bytes for one block", dst_path, (unsigned long long)bytes);
        return EXIT_RUNTIME;
    }
    show = total > 1 && isatty(2);
    for (;;) {
        size_t n = esize;
        for (i = 0; i < ndim; i++) {
            start[i] = idx[i] * block[i];
            count[i] = shape[i] - start[i] < block[i] ? shape[i] - start[i] : block[i];
            n *= (size_t)count[i];
        }
        if (zarr_array_read(src, ndim, start, count, buf, n) != ZARR_OK) {
            if (show) fputc('\n', stderr);
            report_zarr("cp", "%s: cannot read the source", dst_path);
            free(buf);
            return EXIT_RUNTIME;
        }
        if (zarr_array_write(dst, ndim, start, count, buf, n) != ZARR_OK) {
            if (show) fputc('\n', stderr);
            report_zarr("cp", "%s: cannot write", dst_path);
            free(buf);
            return EXIT_RUNTIME;
        }
        done++;
        if (show) progress(dst_path, done, total);
        for (i = ndim; i > 0; i--) {
            if (++idx[i - 1] < nb[i - 1]) break;
            idx[i - 1] = 0;
        }
        if (i == 0) break;
    }
    free(buf);
    return EXIT_OK;
}

static int copy_attributes_array(const zarr_array *src, zarr_array *dst, const char *dst_path) {
    char *text = NULL;
    int rc = EXIT_OK;
    if (zarr_array_attributes_json(src, &text) != ZARR_OK) {
        report_zarr("cp", "%s: cannot read the source's attributes", dst_path);
        return EXIT_RUNTIME;
    }
    if (strcmp(text, "{}") != 0 && zarr_array_set_attributes_json(dst, text) != ZARR_OK) {
        report_zarr("cp", "%s: cannot write attributes", dst_path);
        rc = EXIT_RUNTIME;
    }
    zarr_string_free(text);
    return rc;
}

static int copy_array(const cp_options *o, const zarr_array *src, zarr_store *store, const char *dst_path) {
    size_t ndim, esize, i;
    uint64_t shape[MAX_NDIM], chunks[MAX_NDIM], inner[MAX_NDIM], dchunks[MAX_NDIM], dshards[MAX_NDIM];
    zarr_data_type dt;
    json_value *meta;
    compressor comp;
    int fmt, sharded = 0, rc;
    char *doc;
    zarr_array *dst = NULL;
    if (zarr_array_ndim(src, &ndim) != ZARR_OK || ndim > MAX_NDIM || zarr_array_shape(src, ndim, shape) != ZARR_OK ||
        zarr_array_chunk_shape(src, ndim, chunks) != ZARR_OK || zarr_array_inner_chunk_shape(src, ndim, inner) != ZARR_OK ||
        zarr_array_data_type(src, &dt) != ZARR_OK || zarr_array_element_size(src, &esize) != ZARR_OK) {
        report_zarr("cp", "%s: cannot read the source's properties", dst_path);
        return EXIT_RUNTIME;
    }
    if (!(meta = array_metadata("cp", src))) return EXIT_RUNTIME;
    fmt = o->format ? o->format : metadata_format(meta);
    if ((o->nchunks >= 0 && (size_t)o->nchunks != ndim) || (o->nshards >= 0 && (size_t)o->nshards != ndim)) {
        report("cp", "%s: --%s has %d values but the array has %lu dimensions", dst_path,
               o->nchunks >= 0 && (size_t)o->nchunks != ndim ? "chunks" : "shards",
               o->nchunks >= 0 && (size_t)o->nchunks != ndim ? o->nchunks : o->nshards, (unsigned long)ndim);
        json_free(meta);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < ndim; i++) {
        dchunks[i] = o->nchunks >= 0 ? o->chunks[i] : inner[i];
        if (o->nshards >= 0) dshards[i] = o->shards[i];
        else dshards[i] = chunks[i];
    }
    if (o->nshards >= 0) sharded = 1;
    else if (o->nchunks < 0 && fmt == 3 && metadata_format(meta) == 3) {
        const json_value *codecs = json_get(meta, "codecs");
        for (i = 0; codecs && codecs->type == JSON_ARRAY && i < codecs->count; i++)
            if (json_string(json_get(&codecs->items[i], "name")) &&
                !strcmp(json_string(json_get(&codecs->items[i], "name")), "sharding_indexed"))
                sharded = 1;
    }
    if (fmt == 2 && sharded && o->nshards >= 0) {
        report("cp", "%s: --shards needs --format 3", dst_path);
        json_free(meta);
        return EXIT_USAGE;
    }
    if (fmt == 2) sharded = 0; /* a sharded v3 source becomes plain v2 chunks */
    for (i = 0; sharded && i < ndim; i++) {
        if (dshards[i] % dchunks[i] != 0) {
            report("cp", "%s: shard shape must be a multiple of the chunk shape (dimension %lu: %llu vs %llu)",
                   dst_path, (unsigned long)i, (unsigned long long)dshards[i], (unsigned long long)dchunks[i]);
            json_free(meta);
            return EXIT_RUNTIME;
        }
    }
    if (o->have_codec) comp = o->codec;
    else source_compressor(meta, &comp);
    doc = build_doc(o, fmt, meta, ndim, shape, dchunks, dshards, sharded, dt, esize, &comp);
    json_free(meta);
    if (!doc) return EXIT_RUNTIME;
    if (zarr_array_create(store, dst_path, doc, &dst) != ZARR_OK) {
        report_zarr("cp", "cannot create array %s", dst_path);
        free(doc);
        return EXIT_RUNTIME;
    }
    free(doc);
    rc = copy_attributes_array(src, dst, dst_path);
    if (rc == EXIT_OK) rc = copy_data(src, dst, dst_path, ndim, shape, esize);
    zarr_array_free(dst);
    return rc;
}

static int copy_group(const cp_options *o, const zarr_store *src_store, const zarr_group *src, zarr_store *store,
                      const char *dst_path, int depth) {
    char *text = NULL, err[128];
    json_value *children;
    zarr_group *dst = NULL;
    size_t i;
    int rc = EXIT_OK;
    if (depth > 256) {
        report("cp", "hierarchy deeper than 256 levels");
        return EXIT_RUNTIME;
    }
    if (zarr_group_attributes_json(src, &text) != ZARR_OK) {
        report_zarr("cp", "%s: cannot read the source's attributes", dst_path);
        return EXIT_RUNTIME;
    }
    uint32_t format = (uint32_t)o->format;
    if (!format && zarr_group_zarr_format(src, &format) != ZARR_OK) format = 3;
    if ((format == 2 ? zarr_group_create_v2(store, dst_path, text, &dst)
                     : zarr_group_create(store, dst_path, text, &dst)) != ZARR_OK) {
        report_zarr("cp", "cannot create group %s", dst_path);
        zarr_string_free(text);
        return EXIT_RUNTIME;
    }
    zarr_string_free(text);
    zarr_group_free(dst);
    if (zarr_group_children_json(src, &text) != ZARR_OK) {
        report_zarr("cp", "cannot list the children of the group copied to %s", dst_path);
        return EXIT_RUNTIME;
    }
    children = json_parse(text, strlen(text), err, sizeof err);
    zarr_string_free(text);
    if (!children || children->type != JSON_ARRAY) {
        report("cp", "children list is not a JSON array (%s)", children ? "wrong type" : err);
        json_free(children);
        return EXIT_RUNTIME;
    }
    for (i = 0; rc == EXIT_OK && i < children->count; i++) {
        const json_value *c = &children->items[i];
        const char *name = json_string(json_get(c, "name")), *path = json_string(json_get(c, "path"));
        const char *type = json_string(json_get(c, "node_type"));
        size_t len;
        char *child_dst;
        if (!name || !path || !type) continue;
        len = strlen(dst_path) + strlen(name) + 2;
        if (!(child_dst = malloc(len))) {
            report("cp", "out of memory");
            rc = EXIT_RUNTIME;
            break;
        }
        snprintf(child_dst, len, "%s/%s", strcmp(dst_path, "/") ? dst_path : "", name);
        if (!strcmp(type, "group")) {
            zarr_group *g = NULL;
            if (zarr_group_open(src_store, path, &g) != ZARR_OK) {
                report_zarr("cp", "cannot open source group %s", path);
                rc = EXIT_RUNTIME;
            } else {
                rc = copy_group(o, src_store, g, store, child_dst, depth + 1);
            }
            zarr_group_free(g);
        } else {
            zarr_array *a = NULL;
            if (zarr_array_open(src_store, path, &a) != ZARR_OK) {
                report_zarr("cp", "cannot open source array %s", path);
                rc = EXIT_RUNTIME;
            } else {
                rc = copy_array(o, a, store, child_dst);
            }
            zarr_array_free(a);
        }
        free(child_dst);
    }
    json_free(children);
    return rc;
}

/* Whether dst is src or a node below it, in the same store directory. */
static int inside(const node_ref *src, const node_ref *dst) {
    char a[PATH_MAX], b[PATH_MAX];
    size_t n = strlen(src->node_path);
    if (!realpath(src->store_dir, a) || !realpath(dst->store_dir, b) || strcmp(a, b) != 0) return 0;
    if (!strcmp(src->node_path, "/")) return 1;
    return !strncmp(dst->node_path, src->node_path, n) && (dst->node_path[n] == '\0' || dst->node_path[n] == '/');
}

/* The value of an option given as `--name value` or `--name=value`; NULL if argv[*i] is
 * not that option. Sets *missing when the value is absent. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return "";
    }
    return argv[++*i];
}

int cmd_cp(int argc, char **argv) {
    cp_options o;
    const char *paths[2] = {NULL, NULL}, *v;
    int npaths = 0, i, rc, missing = 0;
    node_ref src, dst;
    memset(&o, 0, sizeof o);
    o.nchunks = o.nshards = -1;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(cp_help, stdout);
            return EXIT_OK;
        } else if ((v = option_value(argc, argv, &i, "--format", &missing))) {
            if (missing || (strcmp(v, "2") && strcmp(v, "3"))) {
                report("cp", "--format must be 2 or 3");
                return EXIT_USAGE;
            }
            o.format = v[0] - '0';
        } else if ((v = option_value(argc, argv, &i, "--chunks", &missing))) {
            int k;
            o.nchunks = missing ? -1 : parse_u64_list(v, o.chunks);
            for (k = 0; k < o.nchunks; k++)
                if (o.chunks[k] == 0) o.nchunks = -1;
            if (o.nchunks < 0) {
                report("cp", "malformed --chunks '%s': expected positive integers separated by commas", v);
                return EXIT_USAGE;
            }
        } else if ((v = option_value(argc, argv, &i, "--shards", &missing))) {
            int k;
            o.nshards = missing ? -1 : parse_u64_list(v, o.shards);
            for (k = 0; k < o.nshards; k++)
                if (o.shards[k] == 0) o.nshards = -1;
            if (o.nshards < 0) {
                report("cp", "malformed --shards '%s': expected positive integers separated by commas", v);
                return EXIT_USAGE;
            }
        } else if ((v = option_value(argc, argv, &i, "--codec", &missing))) {
            if (missing || parse_codec(v, &o.codec) != 0) {
                report("cp", "malformed --codec '%s': expected none, gzip[:0-9], zstd[:level] or blosc", v);
                return EXIT_USAGE;
            }
            o.have_codec = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            report("cp", "unknown option '%s' (see zarr cp --help)", argv[i]);
            return EXIT_USAGE;
        } else if (npaths == 2) {
            report("cp", "SRC and DST expected (see zarr cp --help)");
            return EXIT_USAGE;
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (npaths != 2) {
        report("cp", "SRC and DST expected (see zarr cp --help)");
        return EXIT_USAGE;
    }
    if (o.format == 2 && o.nshards >= 0) {
        report("cp", "--shards needs Zarr v3 (--format 3)");
        return EXIT_USAGE;
    }
    if (o.nshards >= 0 && o.nchunks < 0) {
        report("cp", "--shards needs --chunks (the inner chunk shape)");
        return EXIT_USAGE;
    }
    if ((rc = resolve_path("cp", paths[0], &src)) != EXIT_OK) return rc;
    if ((rc = node_open("cp", &src)) != EXIT_OK) {
        node_close(&src);
        return rc;
    }
    if ((rc = resolve_dest("cp", paths[1], &dst)) != EXIT_OK) {
        node_close(&src);
        return rc;
    }
    if (zarr_store_open_filesystem(dst.store_dir, &dst.store) != ZARR_OK) {
        report_zarr("cp", "cannot open destination store %s", dst.store_dir);
        rc = EXIT_RUNTIME;
    } else if (src.array) {
        rc = copy_array(&o, src.array, dst.store, dst.node_path);
    } else if (inside(&src, &dst)) {
        report("cp", "cannot copy the group %s into itself (%s)", paths[0], paths[1]);
        rc = EXIT_RUNTIME;
    } else {
        rc = copy_group(&o, src.store, src.group, dst.store, dst.node_path, 0);
    }
    node_close(&dst);
    node_close(&src);
    return rc;
}
