/* cp.c -- `zarr cp`: copy an array or a group hierarchy, converting and rechunking. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf.h"
#include "cp_undo.h"
#include "describe.h"
#include "progress.h"

#define CP_BLOCK_BYTES block_bytes /* target bytes per block: 64 MiB, or $ZARR_CP_BLOCK_BYTES */

static const char *cp_help =
    "usage: zarr cp SRC DST [--format 2|3] [--chunks C] [--shards S]\n"
    "                       [--codec none|gzip[:level]|zstd[:level]|blosc]\n"
    "                       [--vars NAME,...] [--consolidate | --no-consolidate] [--strict]\n"
    "                       [--keep-partial] [--store-options JSON] [--dst-store-options JSON]\n"
    "\n"
    "Copy the array at SRC to a new array at DST, or, when SRC is a group, the whole\n"
    "hierarchy below it (groups, arrays, attributes). SRC is a PATH as in `zarr --help`\n"
    "(a directory, a .zip file, or STORE::/node). DST does not exist yet: STORE::/node names\n"
    "a node explicitly; otherwise DST is a directory path whose parent directory must exist.\n"
    "When that parent holds node metadata DST becomes a node of the store found as for PATH\n"
    "(the top-most directory of the unbroken chain of directories with node metadata);\n"
    "otherwise DST is the root of a new store. Zip stores are read-only: DST is a directory.\n"
    "\n"
    "  --format 2|3     Zarr format of the new arrays and groups (default: the source's).\n"
    "  --chunks C       chunk shape (inner chunk shape when sharded), either by dimension\n"
    "                   name, as nccopy -c takes it: `time/73,lat/45` (dimensions not named\n"
    "                   keep the source's chunk length; the names are the arrays' dimension\n"
    "                   names), or one value per dimension: `73,45,90` (then every array\n"
    "                   copied must have that many dimensions). Default: the source's inner\n"
    "                   chunk shape.\n"
    "  --shards S       v3 only, with --chunks: shard shape, by name or one value per\n"
    "                   dimension as for --chunks, each a multiple of the chunk length\n"
    "                   (dimensions not named: one chunk). Shards get a crc32c-checked index\n"
    "                   at their end. Without --shards the copy is sharded like the source\n"
    "                   when the source is sharded and --chunks is not given, else not.\n"
    "  --codec K        compression: none, gzip[:level] (default 5), zstd[:level] (default 3),\n"
    "                   blosc (lz4, clevel 5, byte shuffle). Default: the source's gzip, zstd\n"
    "                   or blosc compressor with its settings, else none.\n"
    "  --vars V         copy only these arrays of the SRC group (names or paths below it,\n"
    "                   separated by commas; a group name takes everything below it), with\n"
    "                   their coordinate variables (the arrays beside them named after their\n"
    "                   dimensions, as ncks does) and the groups that hold them.\n"
    "  --consolidate    write consolidated metadata for the copied group (the default when\n"
    "                   the source store has consolidated metadata); --no-consolidate: never.\n"
    "  --strict         exit with status 1 when an array was skipped (see below).\n"
    "  --store-options JSON      options of URL stores (see `zarr --help`), for the source\n"
    "                   and, without --dst-store-options, the destination.\n"
    "  --dst-store-options JSON  options of a URL destination. Without either option each\n"
    "                   store gets the keys of $ZARR_STORE_OPTIONS that apply to it.\n"
    "\n"
    "The new arrays are little-endian, C order (no transpose), with the source's data type,\n"
    "fill value (a v2 null fill value becomes 0, or \"\" for strings, in v3) and attributes;\n"
    "v2 filters are not\n"
    "carried over. Chunk keys use '/' (v3) or '.' (v2). Dimension names follow the format,\n"
    "as xarray reads them: Zarr v3 `dimension_names` become the `_ARRAY_DIMENSIONS`\n"
    "attribute in v2 and back. For such arrays the CF missing value moves too: the v2\n"
    "fill_value (xarray's _FillValue in v2) becomes a `_FillValue` attribute in v3 (a float\n"
    "as xarray writes it: base64 of a little-endian float64) and a v3 `_FillValue`\n"
    "attribute becomes the v2 fill_value (without one: null, or NaN for a NaN fill value,\n"
    "or a string array's own fill value). Otherwise fill values are copied exactly: NaN,\n"
    "Infinity, -Infinity, float32 values in their shortest text (1e+20), 64-bit integers\n"
    "at their extremes, booleans, a v2 string array's null.\n"
    "\n"
    "An array this build of libzarr cannot decode (a data type or codec it lacks) is skipped\n"
    "with a line on stderr, the copy carries on, and the arrays skipped are listed at the end.\n"
    "\n"
    "Data are copied in blocks aligned to the destination's chunks (shards when sharded) of\n"
    "at most 64 MiB ($ZARR_CP_BLOCK_BYTES overrides) or one chunk (shard), whichever is\n"
    "larger, so memory stays bounded. When stderr is a terminal, a progress line shows the\n"
    "current array with its bytes, the progress of the whole copy, the rate and the time\n"
    "left, and a summary line closes the copy.\n"
    "\n"
    "A copy that fails (a corrupt chunk, a full disk, a lost connection) removes what it\n"
    "wrote, and only that: the new store directory, or inside an existing store the new\n"
    "node and the groups made to hold it; files and nodes that were there before stay.\n"
    "  --keep-partial   leave a failed copy's partial output in place instead.\n"
    "\n"
    "Exit status: 0 ok, 1 runtime error (or a skipped array with --strict), 2 usage error.\n";

enum { COMP_NONE, COMP_GZIP, COMP_ZSTD, COMP_BLOSC };

typedef struct {
    int kind, level;      /* gzip/zstd level, blosc clevel */
    int checksum;         /* zstd */
    char cname[16];       /* blosc */
    int shuffle;          /* blosc: 0 none, 1 byte, 2 bit */
    long long blocksize;  /* blosc */
} compressor;

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

/* A compressor this tool writes: gzip, zstd, blosc (also under numcodecs' names, as libzarr
 * names the codecs of Zarr v2 and 2022-draft arrays). */
static const char *known_compressor(const char *name) {
    if (!strncmp(name, "numcodecs.", 10)) name += 10;
    return !strcmp(name, "gzip") || !strcmp(name, "zstd") || !strcmp(name, "blosc") ? name : NULL;
}

/* Codecs that only lay bytes out or check them (and the object codecs of variable-length
 * elements): not compressors. */
static int is_layout_codec(const char *name) {
    return !strcmp(name, "bytes") || !strcmp(name, "transpose") || !strcmp(name, "crc32c") ||
           !strcmp(name, "vlen-utf8") || !strcmp(name, "vlen-bytes") || !strcmp(name, "json2");
}

/* The first compressor of a codec list (JSON, as in a sharding configuration), inside
 * nested sharding codecs too; NULL when there is none. */
static const json_value *first_compressor(const json_value *list, int depth) {
    size_t i;
    for (i = 0; list && list->type == JSON_ARRAY && i < list->count && depth < 16; i++) {
        const json_value *c = &list->items[i], *inner;
        if (!strcmp(codec_name(c), "sharding_indexed")) {
            if ((inner = first_compressor(json_get(codec_config(c), "codecs"), depth + 1))) return inner;
        } else if (!is_layout_codec(codec_name(c))) {
            return c;
        }
    }
    return NULL;
}

/* The source's compressor: v2, the document's `compressor`; v3 and the draft, the first
 * bytes-to-bytes codec the library lists (inside sharding too). */
static void source_compressor(const array_desc *d, compressor *c) {
    const json_value *cfg = NULL, *found;
    const char *name = NULL;
    size_t i;
    memset(c, 0, sizeof *c);
    if (d->format == 2) {
        cfg = json_get(d->meta, "compressor");
        name = json_string(json_get(cfg, "id"));
        if (name && is_layout_codec(name)) name = NULL; /* an object codec in the compressor's place */
    } else {
        for (i = 0; i < d->ncodecs && !name; i++) {
            const char *n = d->codecs[i].name;
            if (!strcmp(n, "sharding_indexed")) {
                if ((found = first_compressor(json_get(d->codecs[i].config, "codecs"), 0))) {
                    name = codec_name(found);
                    cfg = codec_config(found);
                }
            } else if (!is_layout_codec(n)) {
                name = n;
                cfg = d->codecs[i].config;
            }
        }
    }
    if (name && known_compressor(name)) name = known_compressor(name);
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

/* The element at p (of type t) in little-endian order, in place: each number, each part of
 * a complex number, each UTF-32 code unit, each field of a struct. */
static void to_little_endian(const dtype *t, unsigned char *p) {
    size_t unit = 1, i, k;
    if (host_is_little_endian()) return;
    if (t->kind == DT_STRUCT) {
        for (i = 0; i < t->nfields; i++)
            for (k = 0; k < t->fields[i].count; k++)
                to_little_endian(&t->fields[i].type, p + t->fields[i].offset + k * t->fields[i].type.size);
        return;
    }
    if (t->kind == DT_COMPLEX) unit = t->size / 2;
    else if (t->kind == DT_UTF32) unit = 4;
    else if (t->kind != DT_BYTES && t->kind != DT_RAW) unit = t->size;
    for (i = 0; unit > 1 && i + unit <= t->size; i += unit)
        for (k = 0; k < unit / 2; k++) {
            unsigned char b = p[i + k];
            p[i + k] = p[i + unit - 1 - k];
            p[i + unit - 1 - k] = b;
        }
}

/* The fill value of the data types that came with docs/data-types.md, from the element's
 * bytes, in the spelling both formats read: datetimes as their integer, strings as JSON
 * text, byte strings, raw bytes and structs as base64 (structs little-endian, as the v2
 * fields are written), bfloat16 and float8 as "0x" bit patterns. */
static int put_fill_from_bytes(FILE *f, const array_desc *d) {
    const dtype *t = &d->type;
    unsigned char *b = malloc(t->size ? t->size : 1);
    size_t i, n;
    if (!b || zarr_array_fill_value(d->array, b, t->size) != ZARR_OK) {
        report_zarr("cp", "%s: cannot read the fill value", d->path);
        free(b);
        return -1;
    }
    switch (t->kind) {
    case DT_DATETIME:
    case DT_TIMEDELTA: {
        int64_t v;
        memcpy(&v, b, 8);
        fprintf(f, "%lld", (long long)v);
        break;
    }
    case DT_UTF32: {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        uint32_t c;
        int ok = m != NULL;
        for (n = t->size / 4; n > 0; n--) { /* without the zero padding */
            memcpy(&c, b + 4 * (n - 1), 4);
            if (c) break;
        }
        for (i = 0; ok && i < n; i++) {
            memcpy(&c, b + 4 * i, 4);
            if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c < 0xE000)) ok = 0;
            else if (c < 0x80) fputc((int)c, m);
            else if (c < 0x800) fprintf(m, "%c%c", 0xC0 | (c >> 6), 0x80 | (c & 0x3F));
            else if (c < 0x10000) fprintf(m, "%c%c%c", 0xE0 | (c >> 12), 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F));
            else fprintf(m, "%c%c%c%c", 0xF0 | (c >> 18), 0x80 | ((c >> 12) & 0x3F), 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F));
        }
        if (m && fclose(m) != 0) ok = 0;
        if (ok) json_put_string(f, text);
        free(text);
        if (!ok) {
            report("cp", "%s: the fill value is not text JSON can hold", d->path);
            free(b);
            return -1;
        }
        break;
    }
    case DT_BFLOAT16:
    case DT_FLOAT8: {
        fputs("\"0x", f);
        for (i = t->size; i > 0; i--) fprintf(f, "%02x", host_is_little_endian() ? b[i - 1] : b[t->size - i]);
        fputc('"', f);
        break;
    }
    default: /* byte strings, raw bytes, structs */
        to_little_endian(t, b);
        fputc('"', f);
        base64_put(f, b, t->size);
        fputc('"', f);
    }
    free(b);
    return 0;
}

/* Write the destination fill value; returns 0, or -1 (reported) when it cannot be expressed.
 * `override` (JSON text), when not NULL, is written instead (see convert_attributes). */
static int put_fill(FILE *f, const array_desc *d, int dst_format, const char *override) {
    const json_value *fill = json_get(d->meta, "fill_value");
    const dtype *t = &d->type;
    size_t i;
    if (override) {
        fputs(override, f);
        return 0;
    }
    if ((!fill || fill->type == JSON_NULL) && dst_format == 2) {
        fputs("null", f); /* Zarr v2 null (no fill value) */
        return 0;
    }
    if (t->kind == DT_FLOAT && t->size == 4 && fill && fill->type == JSON_NUMBER) {
        /* The metadata read back spells a float32 fill value as the float64 of its value
         * (1e20 comes back as 1.0000000200408773e+20): the shortest text of the same
         * float32 is what the source said. */
        char buf[40];
        fputs(shortest_double(fill->number, 1, buf, sizeof buf), f);
        return 0;
    }
    if (fill && fill->type != JSON_NULL && d->format == dst_format) {
        json_print(fill, f);
        return 0;
    }
    switch (t->kind) {
    case DT_DATETIME:
    case DT_TIMEDELTA:
    case DT_UTF32:
    case DT_BYTES:
    case DT_STRUCT:
    case DT_BFLOAT16:
    case DT_FLOAT8: return put_fill_from_bytes(f, d);
    case DT_RAW:
        if (t->raw_bytes) return put_fill_from_bytes(f, d);
        break;
    case DT_VLEN:
        /* Old v2 object arrays say 0 or null and mean the empty element; text is copied
         * (bytes are base64 in both formats). */
        if (fill && fill->type == JSON_STRING) json_print(fill, f);
        else fputs("\"\"", f);
        return 0;
    default: break;
    }
    if (!fill || fill->type == JSON_NULL) {
        /* Zarr v2 null (no fill value): v3 needs one, so zero */
        if (t->kind == DT_BOOL) fputs("false", f);
        else if (t->kind == DT_COMPLEX) fputs("[0,0]", f);
        else if (t->kind == DT_RAW) {
            fputc('[', f);
            for (i = 0; i < t->size; i++) fputs(i ? ",0" : "0", f);
            fputc(']', f);
        } else fputs("0", f);
        return 0;
    }
    if (dst_format == 2 && t->kind == DT_RAW && fill->type == JSON_ARRAY && fill->count == t->size) {
        unsigned char bytes[64];
        for (i = 0; i < t->size && i < sizeof bytes; i++) bytes[i] = (unsigned char)fill->items[i].number;
        fputc('"', f);
        base64_put(f, bytes, t->size < sizeof bytes ? t->size : sizeof bytes);
        fputc('"', f);
        return 0;
    }
    if (fill->type == JSON_STRING && strncmp(fill->text, "0x", 2) == 0) {
        report("cp", "fill value \"%s\" (a bit pattern) cannot be written in Zarr v%d", fill->text, dst_format);
        return -1;
    }
    if (t->kind == DT_RAW) {
        report("cp", "the fill value of a raw-bytes array cannot be converted to Zarr v%d", dst_format);
        return -1;
    }
    json_print(fill, f); /* numbers, true/false, "NaN", "Infinity", "-Infinity", [re, im] */
    return 0;
}

/* A chunk or shard shape from the command line: by dimension name ("time/73,lat/45") or
 * one value per dimension ("73,45,90"). */
typedef struct {
    int n;                   /* values given; -1: the option was not given */
    int named;
    uint64_t values[MAX_NDIM];
    char *names[MAX_NDIM];   /* when named (malloc'ed) */
    int used[MAX_NDIM];      /* a copied array has the name */
} dim_spec;

typedef struct {
    int format;               /* 0: same as source */
    dim_spec chunks, shards;
    int have_codec;
    compressor codec;
    const char *vars;         /* --vars, or NULL */
    int consolidate;          /* -1: when the source is consolidated */
    int strict;
} cp_options;

static void dim_spec_free(dim_spec *s) {
    int i;
    for (i = 0; s->named && i < s->n; i++) free(s->names[i]);
    s->n = -1;
}

/* Parse a --chunks or --shards value; returns 0, or -1 on a syntax error. */
static int parse_dim_spec(const char *text, dim_spec *s) {
    const char *p = text;
    memset(s, 0, sizeof *s);
    s->n = -1;
    if (!*text) return -1;
    s->named = strchr(text, '/') != NULL;
    s->n = 0;
    for (;;) {
        const char *end = p + strcspn(p, ",");
        const char *num = p;
        char *stop;
        unsigned long long v;
        if (s->n == MAX_NDIM) return -1;
        if (s->named) {
            const char *slash = memchr(p, '/', (size_t)(end - p));
            size_t len;
            if (!slash || slash == p) return -1;
            len = (size_t)(slash - p);
            if (!(s->names[s->n] = malloc(len + 1))) return -1;
            memcpy(s->names[s->n], p, len);
            s->names[s->n][len] = '\0';
            num = slash + 1;
            s->n++; /* counted now so that dim_spec_free frees the name */
        }
        if (*num < '1' || *num > '9') return -1;
        errno = 0;
        v = strtoull(num, &stop, 10);
        if (errno || stop != end || v == 0) return -1;
        if (s->named) s->values[s->n - 1] = v;
        else s->values[s->n++] = v;
        if (!*end) return 0;
        p = end + 1;
    }
}

/* Apply a spec to an array with dimension names `dims`: out[i] = the value for dimension
 * i, or dflt[i] when the spec does not name it. Returns 0, or -1 (reported) when a
 * positional spec does not fit the array's rank. */
static int apply_dim_spec(dim_spec *s, const char *option, const array_desc *d, const uint64_t *dflt, uint64_t *out) {
    size_t i;
    int k;
    for (i = 0; i < d->ndim; i++) out[i] = dflt[i];
    if (s->n < 0) return 0;
    if (!s->named) {
        if ((size_t)s->n != d->ndim) {
            report("cp", "%s: --%s has %d values but the array has %lu dimensions%s", d->path, option, s->n,
                   (unsigned long)d->ndim, d->has_dims ? " (name the dimensions instead: --chunks name/length,...)" : "");
            return -1;
        }
        for (i = 0; i < d->ndim; i++) out[i] = s->values[i];
        return 0;
    }
    for (i = 0; i < d->ndim; i++)
        for (k = 0; k < s->n; k++)
            if (d->dims[i] && !strcmp(d->dims[i], s->names[k])) {
                out[i] = s->values[k];
                s->used[k] = 1;
            }
    return 0;
}

/* One node to copy. */
typedef struct {
    int is_group;
    int selected;          /* with --vars: copied */
    char *src_path, *rel;  /* rel: the path below SRC, "" for SRC itself (malloc'ed) */
    char *dst_path;        /* (malloc'ed) */
    array_desc desc;       /* arrays */
    int raw;               /* not decodable here: copied as stored */
    char *doc;             /* the new array's metadata document (malloc'ed) */
    char *attrs;           /* the new array's attributes, JSON text (malloc'ed) */
    uint64_t nbytes;       /* decoded bytes */
} cp_item;

typedef struct {
    cp_item *items;
    size_t count;
} cp_plan;

static void plan_free(cp_plan *plan) {
    size_t i;
    for (i = 0; i < plan->count; i++) {
        free(plan->items[i].src_path);
        free(plan->items[i].rel);
        free(plan->items[i].dst_path);
        free(plan->items[i].doc);
        free(plan->items[i].attrs);
        array_desc_free(&plan->items[i].desc);
    }
    free(plan->items);
    memset(plan, 0, sizeof *plan);
}

static char *join_path(const char *base, const char *rel) {
    size_t n = strlen(base) + strlen(rel) + 2;
    char *p = malloc(n);
    if (!p) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    if (!*rel) snprintf(p, n, "%s", base);
    else snprintf(p, n, "%s/%s", strcmp(base, "/") ? base : "", rel);
    return p;
}

/* ---- xarray's conventions across formats ------------------------------------------------ */

static int is_float_type(const dtype *t) { return t->kind == DT_FLOAT; }

static int is_int_type(const dtype *t) { return t->kind == DT_INT || t->kind == DT_UINT; }

/* xarray's v3 _FillValue attribute for a v2 fill value (JSON text, malloc'ed): integers
 * as numbers, floats as the base64 text of a little-endian float64, bool as true/false;
 * NULL when it has no such form. */
static char *xarray_fill_attr(const json_value *fill, const dtype *dt) {
    char *text = NULL;
    size_t len = 0;
    double x;
    int ok = 1;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    if ((is_int_type(dt) && fill->type == JSON_NUMBER) || (dt->kind == DT_BOOL && fill->type == JSON_BOOL)) {
        json_print(fill, f);
    } else if (is_float_type(dt) && cf_number(fill, 0, &x)) {
        unsigned char b[8];
        uint64_t bits;
        int i;
        memcpy(&bits, &x, sizeof bits);
        for (i = 0; i < 8; i++) b[i] = (unsigned char)(bits >> (8 * i));
        fputc('"', f);
        base64_put(f, b, 8);
        fputc('"', f);
    } else {
        ok = 0;
    }
    if (fclose(f) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* xarray's v2 fill_value for a v3 _FillValue attribute (JSON text, malloc'ed), or NULL when
 * the attribute has no form that fits the data type. */
static char *xarray_fill_from_attr(const json_value *attr, const dtype *dt) {
    char buf[64], *text = NULL;
    size_t len = 0;
    double x;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    if ((is_int_type(dt) || dt->kind == DT_BOOL) && (attr->type == JSON_NUMBER || attr->type == JSON_BOOL)) {
        json_print(attr, f);
    } else if (is_float_type(dt) && cf_number(attr, 1, &x)) {
        if (isnan(x)) fputs("\"NaN\"", f);
        else if (isinf(x)) fputs(x < 0 ? "\"-Infinity\"" : "\"Infinity\"", f);
        else fputs(shortest_double(x, 0, buf, sizeof buf), f);
    } else {
        fclose(f);
        free(text);
        return NULL;
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The new array's attributes (JSON text, malloc'ed) and, when it changes, its fill value
 * (*fill_text, JSON text, malloc'ed, else NULL). Between formats, xarray's conventions
 * carry over: v2 `_ARRAY_DIMENSIONS` <-> v3 `dimension_names` (written by build_doc), and
 * the CF missing value, which xarray keeps in the v2 fill_value and in the v3 `_FillValue`
 * attribute. */
static char *convert_attributes(const array_desc *d, int fmt, char **fill_text) {
    const json_value *fill = json_get(d->meta, "fill_value"), *names = json_get(d->meta, "dimension_names");
    const json_value *fv_attr = json_get(d->attrs, "_FillValue");
    int v2_to_v3 = d->format == 2 && fmt == 3 && json_get(d->attrs, "_ARRAY_DIMENSIONS") && d->has_dims;
    int v3_to_v2 = d->format == 3 && fmt == 2 && names && names->type == JSON_ARRAY && d->has_dims;
    char *text = NULL, *v2_fill = NULL, *v3_fill_attr = NULL;
    double nan_check;
    size_t len = 0, i, n = 0;
    FILE *f;
    *fill_text = NULL;
    if (v2_to_v3 && fill && fill->type != JSON_NULL) v3_fill_attr = xarray_fill_attr(fill, &d->type);
    for (i = 0; v3_to_v2 && i < d->ndim; i++)
        if (!d->dims[i]) v3_to_v2 = 0; /* xarray names every dimension */
    if (v3_to_v2 && fv_attr && !(v2_fill = xarray_fill_from_attr(fv_attr, &d->type)))
        fv_attr = NULL; /* kept as an ordinary attribute */
    if (!(f = open_memstream(&text, &len))) {
        free(v2_fill);
        free(v3_fill_attr);
        return NULL;
    }
    fputc('{', f);
    for (i = 0; i < d->attrs->count; i++) {
        const char *k = d->attrs->keys[i];
        if ((v2_to_v3 || v3_to_v2) && !strcmp(k, "_ARRAY_DIMENSIONS")) continue;
        if (v2_to_v3 && !strcmp(k, "_FillValue") && v3_fill_attr) continue;
        if (v3_to_v2 && !strcmp(k, "_FillValue") && fv_attr) continue;
        fputs(n++ ? "," : "", f);
        json_put_string(f, k);
        fputc(':', f);
        json_print(&d->attrs->items[i], f);
    }
    if (v3_to_v2) {
        fputs(n++ ? "," : "", f);
        fputs("\"_ARRAY_DIMENSIONS\":[", f);
        for (i = 0; i < d->ndim; i++) {
            if (i) fputc(',', f);
            json_put_string(f, d->dims[i]);
        }
        fputc(']', f);
        /* No _FillValue: xarray masks nothing in v3, so the v2 fill_value (which xarray masks
         * with) is null; NaN masks nothing that is not NaN already, so it stays. */
        /* String arrays keep their own fill value (the documented choice of `cp --help`). */
        if (v2_fill) *fill_text = v2_fill;
        else if (!(fill && is_float_type(&d->type) && cf_number(fill, 0, &nan_check) && isnan(nan_check)) &&
                 d->type.kind != DT_VLEN)
            *fill_text = dup_str("null");
    }
    if (v3_fill_attr) {
        fprintf(f, "%s\"_FillValue\":%s", n ? "," : "", v3_fill_attr);
        free(v3_fill_attr);
    }
    fputc('}', f);
    if (fclose(f) != 0) {
        free(text);
        free(*fill_text);
        *fill_text = NULL;
        return NULL;
    }
    return text;
}

/* Build the destination document. Returns malloc'ed text, or NULL (reported). */
static char *build_doc(int fmt, const array_desc *d, const uint64_t *chunks, const uint64_t *shards, int sharded,
                       const compressor *c, const char *fill_override) {
    char *text = NULL;
    size_t len = 0;
    const json_value *same = d->format == fmt && !d->draft ? json_get(d->meta, fmt == 2 ? "dtype" : "data_type") : NULL;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        report("cp", "out of memory");
        return NULL;
    }
    if (fmt == 2) {
        fputs("{\"zarr_format\":2,\"shape\":", f);
        json_put_u64_list(f, d->ndim, d->shape);
        fputs(",\"chunks\":", f);
        json_put_u64_list(f, d->ndim, chunks);
        fputs(",\"dtype\":", f);
        if (same) json_print(same, f);
        else if (dtype_put_v2(f, &d->type)) goto no_type;
        fputs(",\"compressor\":", f);
        if (c->kind == COMP_GZIP) fprintf(f, "{\"id\":\"gzip\",\"level\":%d}", c->level);
        else if (c->kind == COMP_ZSTD) fprintf(f, "{\"id\":\"zstd\",\"level\":%d}", c->level);
        else if (c->kind == COMP_BLOSC)
            fprintf(f, "{\"id\":\"blosc\",\"cname\":\"%s\",\"clevel\":%d,\"shuffle\":%d,\"blocksize\":%lld}", c->cname,
                    c->level, c->shuffle, c->blocksize);
        else fputs("null", f);
        if (d->type.kind == DT_VLEN)
            fprintf(f, ",\"filters\":[{\"id\":\"%s\"}]", d->type.vlen_text ? "vlen-utf8" : "vlen-bytes");
        else fputs(",\"filters\":null", f);
        fputs(",\"fill_value\":", f);
        if (put_fill(f, d, 2, fill_override)) goto fail;
        fputs(",\"order\":\"C\",\"dimension_separator\":\".\"}", f);
    } else {
        fputs("{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":", f);
        json_put_u64_list(f, d->ndim, d->shape);
        fputs(",\"data_type\":", f);
        if (same) json_print(same, f);
        else if (dtype_put_v3(f, &d->type)) goto no_type;
        fputs(",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":", f);
        json_put_u64_list(f, d->ndim, sharded ? shards : chunks);
        fputs("}},\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
              "\"fill_value\":", f);
        if (put_fill(f, d, 3, fill_override)) goto fail;
        fputs(",\"codecs\":[", f);
        if (sharded) {
            fputs("{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":", f);
            json_put_u64_list(f, d->ndim, chunks);
            fputs(",\"codecs\":[", f);
        }
        if (d->type.kind == DT_VLEN) fprintf(f, "{\"name\":\"%s\"}", d->type.vlen_text ? "vlen-utf8" : "vlen-bytes");
        else fputs("{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}", f);
        put_v3_compressor(f, c, d->type.size ? d->type.size : 1);
        if (sharded)
            fputs("],\"index_codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
                  "{\"name\":\"crc32c\"}],\"index_location\":\"end\"}}", f);
        fputc(']', f);
        if (d->has_dims) {
            fputs(",\"dimension_names\":", f);
            json_put_dimension_names(f, d);
        }
        fputc('}', f);
    }
    if (fclose(f) != 0) {
        free(text);
        report("cp", "out of memory");
        return NULL;
    }
    return text;
no_type:
    report("cp", "%s: Zarr v%d has no spelling for the data type %s", d->path, fmt, d->type.name);
fail:
    fclose(f);
    free(text);
    return NULL;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

/* Copy the data of src into dst, in blocks aligned to dst's chunk grid. */
static int copy_data(const zarr_array *src, zarr_array *dst, const char *dst_path, size_t ndim, const uint64_t *shape,
                     size_t element_size, int vlen, progress *prog) {
    uint64_t grid[MAX_NDIM], block[MAX_NDIM], nb[MAX_NDIM], idx[MAX_NDIM], start[MAX_NDIM], count[MAX_NDIM];
    uint64_t bytes;
    size_t i, cap, vcap = 0;
    unsigned char *buf, *vdata = NULL;
    uint64_t *offsets = NULL;
    /* Variable-length elements: blocks sized as if each took 16 bytes; their bytes go to a
     * buffer that grows to what a block holds. */
    size_t esize = vlen ? 16 : element_size;
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
        idx[i] = 0;
        if (block[i] && bytes > (uint64_t)SIZE_MAX / block[i]) {
            report("cp", "%s: one chunk does not fit in memory", dst_path);
            return EXIT_RUNTIME;
        }
        bytes *= block[i];
    }
    cap = (size_t)bytes;
    if (vlen && !(offsets = malloc((cap / esize + 1) * sizeof *offsets))) {
        report("cp", "%s: cannot allocate the offsets of one block", dst_path);
        return EXIT_RUNTIME;
    }
    if (!(buf = malloc(cap ? cap : 1))) {
        free(offsets);
        report("cp", "%s: cannot allocate %llu bytes for one block", dst_path, (unsigned long long)bytes);
        return EXIT_RUNTIME;
    }
    for (;;) {
        size_t n = esize;
        for (i = 0; i < ndim; i++) {
            start[i] = idx[i] * block[i];
            count[i] = shape[i] - start[i] < block[i] ? shape[i] - start[i] : block[i];
            n *= (size_t)count[i];
        }
        if (vlen ? read_vlen_block(src, ndim, start, count, offsets, n / esize, &vdata, &vcap) != ZARR_OK
                 : zarr_array_read(src, ndim, start, count, buf, n) != ZARR_OK) {
            progress_clear(prog);
            report_zarr("cp", "%s: cannot read the source", dst_path);
            free(buf);
            free(offsets);
            free(vdata);
            return EXIT_RUNTIME;
        }
        if (vlen ? zarr_array_write_vlen(dst, ndim, start, count, offsets, n / esize + 1, vdata,
                                         (size_t)offsets[n / esize]) != ZARR_OK
                 : zarr_array_write(dst, ndim, start, count, buf, n) != ZARR_OK) {
            progress_clear(prog);
            report_zarr("cp", "%s: cannot write", dst_path);
            free(buf);
            free(offsets);
            free(vdata);
            return EXIT_RUNTIME;
        }
        progress_add(prog, vlen ? offsets[n / esize] : n);
        for (i = ndim; i > 0; i--) {
            if (++idx[i - 1] < nb[i - 1]) break;
            idx[i - 1] = 0;
        }
        if (i == 0) break;
    }
    free(buf);
    free(offsets);
    free(vdata);
    return EXIT_OK;
}

/* Whether dst is src or a node below it, in the same store directory. */
static int inside(const node_ref *src, const node_ref *dst) {
    char a[PATH_MAX], b[PATH_MAX];
    size_t n = strlen(src->node_path);
    if (is_url(src->store_loc) || is_url(dst->store_loc)) {
        if (strcmp(src->store_loc, dst->store_loc) != 0) return 0;
    } else if (!realpath(src->store_loc, a) || !realpath(dst->store_loc, b) || strcmp(a, b) != 0) {
        return 0;
    }
    if (!strcmp(src->node_path, "/")) return 1;
    return !strncmp(dst->node_path, src->node_path, n) && (dst->node_path[n] == '\0' || dst->node_path[n] == '/');
}

/* ---- the plan: every node to copy, checked before anything is written ------------------- */

static void plan_add(cp_plan *plan, size_t *cap, int is_group, const char *src_path, const char *rel,
                     const char *dst_root) {
    cp_item *it;
    if (plan->count == *cap) {
        size_t n = *cap ? 2 * *cap : 16;
        cp_item *items = realloc(plan->items, n * sizeof *items);
        if (!items) {
            fputs("zarr: out of memory\n", stderr);
            exit(EXIT_RUNTIME);
        }
        plan->items = items;
        *cap = n;
    }
    it = &plan->items[plan->count++];
    memset(it, 0, sizeof *it);
    it->is_group = is_group;
    it->selected = 1;
    it->src_path = dup_str(src_path);
    it->rel = dup_str(rel);
    it->dst_path = join_path(dst_root, rel);
}

/* The nodes below the group `g` at `path` (zarr_group_child_*), depth first, groups
 * before their contents, siblings by name. `prefix` is the length of SRC's path. */
static int plan_walk(const zarr_store *store, const zarr_group *g, const char *path, size_t prefix,
                     const char *dst_root, cp_plan *plan, size_t *cap, int depth) {
    size_t i, n = 0;
    int rc = EXIT_OK;
    if (depth > 256) {
        report("cp", "hierarchy deeper than 256 levels below %s", path);
        return EXIT_RUNTIME;
    }
    if (zarr_group_child_count(g, &n) != ZARR_OK) {
        report_zarr("cp", "cannot list the nodes below %s", path);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < n && rc == EXIT_OK; i++) {
        char *name = NULL, *child;
        zarr_node_type type = 0;
        if (zarr_group_child_name(g, i, &name) != ZARR_OK || zarr_group_child_node_type(g, i, &type) != ZARR_OK) {
            zarr_string_free(name);
            report_zarr("cp", "cannot list the nodes below %s", path);
            return EXIT_RUNTIME;
        }
        child = child_path(path, name);
        zarr_string_free(name);
        plan_add(plan, cap, type == ZARR_NODE_TYPE_GROUP, child, child + prefix + 1, dst_root);
        if (type == ZARR_NODE_TYPE_GROUP) {
            zarr_group *sub = NULL;
            if (zarr_group_open(store, child, &sub) != ZARR_OK) {
                report_zarr("cp", "cannot open group %s", child);
                rc = EXIT_RUNTIME;
            } else {
                rc = plan_walk(store, sub, child, prefix, dst_root, plan, cap, depth + 1);
            }
            zarr_group_free(sub);
        }
        free(child);
    }
    return rc;
}

static int plan_list(const zarr_store *store, const zarr_group *g, const char *src_path, const char *dst_root,
                     cp_plan *plan, size_t *cap) {
    plan_add(plan, cap, 1, src_path, "", dst_root);
    return plan_walk(store, g, src_path, strcmp(src_path, "/") ? strlen(src_path) : 0, dst_root, plan, cap, 0);
}

static cp_item *plan_find(cp_plan *plan, const char *rel) {
    size_t i;
    for (i = 0; i < plan->count; i++)
        if (!strcmp(plan->items[i].rel, rel)) return &plan->items[i];
    return NULL;
}

/* Whether `rel` lies below the group `group_rel` ("" is the top). */
static int below(const char *rel, const char *group_rel) {
    size_t n = strlen(group_rel);
    return n == 0 ? *rel != '\0' : !strncmp(rel, group_rel, n) && rel[n] == '/';
}

/* --vars: keep the named arrays (or everything below a named group), their coordinate
 * variables, and the groups that hold them. Arrays must be described already. */
static int plan_select(cp_plan *plan, const char *vars) {
    char *list = dup_str(vars), *tok, *save = NULL;
    size_t i, j, k;
    int rc = EXIT_OK;
    for (i = 0; i < plan->count; i++) plan->items[i].selected = 0;
    plan->items[0].selected = 1; /* the top group */
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        cp_item *it;
        size_t n;
        while (*tok == '/') tok++;
        n = strlen(tok);
        while (n && tok[n - 1] == '/') tok[--n] = '\0';
        if (!(it = plan_find(plan, tok)) || !*tok) {
            report("cp", "--vars: no array or group named '%s' below the source", tok);
            rc = EXIT_RUNTIME;
            continue;
        }
        it->selected = 1;
        for (i = 0; it->is_group && i < plan->count; i++)
            if (below(plan->items[i].rel, it->rel)) plan->items[i].selected = 1;
    }
    free(list);
    /* coordinate variables: arrays beside a selected array, named after its dimensions */
    for (i = 0; i < plan->count; i++) {
        const cp_item *it = &plan->items[i];
        const char *slash;
        if (it->is_group || !it->selected || !it->desc.described) continue;
        slash = strrchr(it->rel, '/');
        for (j = 0; j < it->desc.ndim; j++) {
            char *rel;
            cp_item *coord;
            size_t dir = slash ? (size_t)(slash - it->rel) + 1 : 0;
            if (!it->desc.dims[j]) continue;
            if (!(rel = malloc(dir + strlen(it->desc.dims[j]) + 1))) continue;
            memcpy(rel, it->rel, dir);
            strcpy(rel + dir, it->desc.dims[j]);
            if ((coord = plan_find(plan, rel)) && !coord->is_group) coord->selected = 1;
            free(rel);
        }
    }
    /* the groups that hold what is selected */
    for (i = 0; i < plan->count; i++)
        for (k = 0; plan->items[i].is_group && k < plan->count; k++)
            if (plan->items[k].selected && below(plan->items[k].rel, plan->items[i].rel)) plan->items[i].selected = 1;
    return rc;
}

/* Work out the new array's document and attributes. Returns 0, or an exit code (reported). */
static int prepare_array(cp_options *o, cp_item *it) {
    array_desc *d = &it->desc;
    uint64_t dchunks[MAX_NDIM], dshards[MAX_NDIM];
    compressor comp;
    char *fill_text = NULL;
    size_t i;
    int fmt = o->format ? o->format : d->format, sharded = 0;
    if (apply_dim_spec(&o->chunks, "chunks", d, d->inner, dchunks)) return EXIT_RUNTIME;
    if (apply_dim_spec(&o->shards, "shards", d, o->shards.n >= 0 ? dchunks : d->chunks, dshards)) return EXIT_RUNTIME;
    if (o->shards.n >= 0) sharded = 1;
    else if (o->chunks.n < 0 && fmt == 3 && d->format == 3) sharded = d->sharded;
    if (fmt == 2) sharded = 0; /* a sharded v3 source becomes plain v2 chunks */
    if (d->rectilinear && o->chunks.n < 0)
        fprintf(stderr, "zarr: cp: note: %s: the rectilinear chunk grid becomes a regular one of its longest chunks; "
                        "choose others with --chunks\n", d->path);
    for (i = 0; sharded && i < d->ndim; i++) {
        if (dshards[i] % dchunks[i] != 0) {
            report("cp", "%s: shard shape must be a multiple of the chunk shape (dimension %lu: %llu vs %llu)",
                   d->path, (unsigned long)i, (unsigned long long)dshards[i], (unsigned long long)dchunks[i]);
            return EXIT_RUNTIME;
        }
    }
    if (o->have_codec) comp = o->codec;
    else source_compressor(d, &comp);
    if (!(it->attrs = convert_attributes(d, fmt, &fill_text))) {
        report("cp", "out of memory");
        return EXIT_RUNTIME;
    }
    it->doc = build_doc(fmt, d, dchunks, dshards, sharded, &comp, fill_text);
    free(fill_text);
    if (!it->doc) return EXIT_RUNTIME;
    it->nbytes = array_nbytes(d);
    return EXIT_OK;
}

/* ---- copying ------------------------------------------------------------------------------ */

static int copy_array(const cp_item *it, zarr_store *store, progress *prog) {
    zarr_array *dst = NULL;
    int rc = EXIT_OK;
    if (zarr_array_create(store, it->dst_path, it->doc, &dst) != ZARR_OK) {
        progress_clear(prog);
        report_zarr("cp", "cannot create array %s", it->dst_path);
        return EXIT_RUNTIME;
    }
    if (strcmp(it->attrs, "{}") != 0 && zarr_array_set_attributes_json(dst, it->attrs) != ZARR_OK) {
        progress_clear(prog);
        report_zarr("cp", "%s: cannot write attributes", it->dst_path);
        rc = EXIT_RUNTIME;
    }
    if (rc == EXIT_OK)
        rc = copy_data(it->desc.array, dst, it->dst_path, it->desc.ndim, it->desc.shape, it->desc.type.size,
                       it->desc.type.kind == DT_VLEN, prog);
    zarr_array_free(dst);
    return rc;
}

/* The parent group of a node about to be written as raw keys: created (with its missing
 * ancestors) when absent, as zarr_array_create would. */
static int ensure_parent(zarr_store *store, const char *path, int format) {
    char *parent = dup_str(path), *slash = strrchr(parent, '/');
    zarr_group *g = NULL;
    zarr_status s;
    int rc = EXIT_OK;
    if (!slash || !strcmp(path, "/")) {
        free(parent);
        return EXIT_OK;
    }
    if (slash == parent) slash[1] = '\0';
    else *slash = '\0';
    s = zarr_group_open(store, parent, &g);
    if (s == ZARR_ERROR_NOT_FOUND) s = zarr_group_create_with_format(store, parent, NULL, (uint32_t)format, &g);
    if (s != ZARR_OK) {
        report_zarr("cp", "cannot make the group %s to hold %s", parent, path);
        rc = EXIT_RUNTIME;
    }
    zarr_group_free(g);
    free(parent);
    return rc;
}

/* Copy an array this build cannot decode as it is stored: every key below its prefix
 * (metadata documents and chunks), byte for byte, the metadata last, so that an
 * interrupted copy leaves no array that reads its missing chunks as fill values. */
static int copy_raw(const zarr_store *src_store, const cp_item *it, zarr_store *store, progress *prog) {
    key_list keys = {0};
    char *src_prefix = node_prefix(it->src_path), *dst_prefix = node_prefix(it->dst_path), *text = NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, i, pass;
    zarr_status s;
    int rc = EXIT_OK;
    s = zarr_store_node_metadata_json(store, it->dst_path, &text);
    zarr_string_free(text);
    if (s != ZARR_ERROR_NOT_FOUND) {
        progress_clear(prog);
        if (s == ZARR_OK) report("cp", "cannot copy %s: a node exists at %s", it->src_path, it->dst_path);
        else report_zarr("cp", "cannot copy %s to %s", it->src_path, it->dst_path);
        rc = EXIT_RUNTIME;
    }
    if (rc == EXIT_OK) rc = ensure_parent(store, it->dst_path, it->desc.format);
    if (rc == EXIT_OK && !(buf = malloc(cap = (size_t)1 << 20))) {
        report("cp", "out of memory");
        rc = EXIT_RUNTIME;
    }
    if (rc == EXIT_OK && (s = store_list_below(src_store, it->src_path, &keys)) != ZARR_OK) {
        progress_clear(prog);
        report_zarr("cp", "cannot list the keys of %s", it->src_path);
        rc = EXIT_RUNTIME;
    }
    for (pass = 0; pass < 2 && rc == EXIT_OK; pass++) {
        for (i = 0; i < keys.count && rc == EXIT_OK; i++) {
            const char *rel = keys.keys[i] + strlen(src_prefix);
            int metadata = !strcmp(rel, "zarr.json") || !strcmp(rel, ".zarray") || !strcmp(rel, ".zattrs");
            size_t size = 0;
            char *dst_key;
            if (metadata != (int)pass) continue; /* chunks first */
            s = zarr_store_get(src_store, keys.keys[i], buf, cap, &size);
            if (s == ZARR_ERROR_BUFFER_TOO_SMALL) {
                unsigned char *bigger = realloc(buf, size ? size : 1);
                if (!bigger) {
                    progress_clear(prog);
                    report("cp", "%s: cannot allocate %lu bytes for the value of %s", it->src_path,
                           (unsigned long)size, keys.keys[i]);
                    rc = EXIT_RUNTIME;
                    break;
                }
                buf = bigger;
                cap = size ? size : 1;
                s = zarr_store_get(src_store, keys.keys[i], buf, cap, &size);
            }
            if (s != ZARR_OK) {
                progress_clear(prog);
                report_zarr("cp", "cannot read %s", keys.keys[i]);
                rc = EXIT_RUNTIME;
                break;
            }
            dst_key = malloc(strlen(dst_prefix) + strlen(rel) + 1);
            if (!dst_key) exit(EXIT_RUNTIME);
            sprintf(dst_key, "%s%s", dst_prefix, rel);
            if (zarr_store_set(store, dst_key, buf, size) != ZARR_OK) {
                progress_clear(prog);
                report_zarr("cp", "cannot write %s", dst_key);
                rc = EXIT_RUNTIME;
            }
            free(dst_key);
            progress_add(prog, size);
        }
    }
    free(buf);
    free(src_prefix);
    free(dst_prefix);
    key_list_free(&keys);
    return rc;
}

static int copy_group(const zarr_store *src_store, const cp_item *it, int format, zarr_store *store) {
    char *text = NULL;
    zarr_group *src = NULL, *dst = NULL;
    uint32_t fmt = (uint32_t)format;
    int rc = EXIT_OK;
    if (zarr_group_open(src_store, it->src_path, &src) != ZARR_OK) {
        report_zarr("cp", "cannot open source group %s", it->src_path);
        return EXIT_RUNTIME;
    }
    if (zarr_group_attributes_json(src, &text) != ZARR_OK) {
        report_zarr("cp", "%s: cannot read the source's attributes", it->src_path);
        rc = EXIT_RUNTIME;
    } else {
        if (!fmt && zarr_group_format(src, &fmt) != ZARR_OK) fmt = 3;
        if (zarr_group_create_with_format(store, it->dst_path, text, fmt, &dst) != ZARR_OK) {
            report_zarr("cp", "cannot create group %s", it->dst_path);
            rc = EXIT_RUNTIME;
        }
    }
    zarr_string_free(text);
    zarr_group_free(dst);
    zarr_group_free(src);
    return rc;
}

static int consolidate(zarr_store *store, const char *path) {
    zarr_group *g = NULL;
    int rc = EXIT_OK;
    if (zarr_group_open(store, path, &g) != ZARR_OK || zarr_group_consolidate(g) != ZARR_OK) {
        report_zarr("cp", "cannot write consolidated metadata for %s", path);
        rc = EXIT_RUNTIME;
    }
    zarr_group_free(g);
    return rc;
}

/* Names given to --chunks or --shards that no copied array has: a typo, most likely. */
static int check_names_used(const dim_spec *s, const char *option) {
    int k, rc = EXIT_OK;
    for (k = 0; s->named && k < s->n; k++) {
        if (!s->used[k]) {
            report("cp", "--%s names dimension '%s', which no array copied has", option, s->names[k]);
            rc = EXIT_RUNTIME;
        }
    }
    return rc;
}

/* Why an array this build cannot decode cannot be copied as stored with these options, or
 * NULL when it can. */
static const char *raw_refusal(const cp_options *o, const array_desc *d, char *buf, size_t len) {
    if (!d->described) return "its metadata is not one this tool can describe either";
    if (d->draft) return "it is in the 2022 draft layout, which this tool only reads";
    if (o->format && o->format != d->format) {
        snprintf(buf, len, "--format %d asks for a conversion", o->format);
        return buf;
    }
    if (o->chunks.n >= 0) return "--chunks asks to rechunk it";
    if (o->shards.n >= 0) return "--shards asks to shard it";
    if (o->have_codec) return "--codec asks to recompress it";
    return NULL;
}

static void list_arrays(const cp_plan *plan, int raw) {
    size_t i;
    for (i = 0; i < plan->count; i++) {
        const cp_item *it = &plan->items[i];
        if (it->selected && !it->is_group && !it->desc.decodable && it->raw == raw) fprintf(stderr, " %s", it->src_path);
    }
    fputc('\n', stderr);
}

static int run_copy(cp_options *o, node_ref *src, node_ref *dst) {
    cp_plan plan = {0};
    progress prog;
    size_t i, cap = 0, narrays = 0, ncopied = 0, nraw = 0, ngroups = 0, nskipped = 0;
    uint64_t total = 0;
    int rc = EXIT_OK, consolidated_src = 0;
    char why[64];
    if (src->group) {
        if ((rc = plan_list(src->store, src->group, src->node_path, dst->node_path, &plan, &cap)) != EXIT_OK) goto done;
    } else {
        plan_add(&plan, &cap, 0, src->node_path, "", dst->node_path);
    }
    for (i = 0; i < plan.count; i++) {
        cp_item *it = &plan.items[i];
        if (it->is_group) continue;
        if (array_describe("cp", src->store, it->src_path, &it->desc)) {
            rc = EXIT_RUNTIME;
            goto done;
        }
    }
    if (o->vars && (rc = plan_select(&plan, o->vars)) != EXIT_OK) goto done;
    for (i = 0; i < plan.count; i++) {
        cp_item *it = &plan.items[i];
        if (it->is_group || !it->selected) continue;
        if (!it->desc.decodable) {
            it->raw = raw_refusal(o, &it->desc, why, sizeof why) == NULL;
            narrays += it->raw;
            continue;
        }
        if (prepare_array(o, it) != EXIT_OK) rc = EXIT_RUNTIME;
        narrays++;
        total += it->nbytes;
    }
    if (rc == EXIT_OK) rc = check_names_used(&o->chunks, "chunks");
    if (rc == EXIT_OK) rc = check_names_used(&o->shards, "shards");
    if (rc != EXIT_OK) goto done; /* nothing written yet */

    if (o->consolidate < 0 && src->group) {
        zarr_store *view = NULL;
        consolidated_src = zarr_store_open_consolidated(src->store, &view) == ZARR_OK;
        zarr_store_free(view);
    }
    progress_start(&prog, narrays, total);
    for (i = 0; rc == EXIT_OK && i < plan.count; i++) {
        cp_item *it = &plan.items[i];
        if (!it->selected) continue;
        if (it->is_group) {
            rc = copy_group(src->store, it, o->format, dst->store);
            ngroups += rc == EXIT_OK;
        } else if (it->raw) {
            progress_array(&prog, it->dst_path, 0);
            rc = copy_raw(src->store, it, dst->store, &prog);
            nraw += rc == EXIT_OK;
        } else if (!it->desc.decodable) {
            const char *refusal = raw_refusal(o, &it->desc, why, sizeof why);
            progress_clear(&prog);
            fprintf(stderr, "zarr: cp: skipped %s: not decodable here (%s), and %s%s\n", it->src_path,
                    it->desc.why ? it->desc.why : "unknown reason", refusal,
                    refusal[0] == '-' ? " (a copy as stored needs the same format and no --chunks, --shards or "
                                        "--codec)"
                                      : "");
            nskipped++;
        } else {
            progress_array(&prog, it->dst_path, it->nbytes);
            rc = copy_array(it, dst->store, &prog);
            ncopied += rc == EXIT_OK;
        }
    }
    progress_clear(&prog);
    if (rc == EXIT_OK && src->group && (o->consolidate > 0 || (o->consolidate < 0 && consolidated_src)))
        rc = consolidate(dst->store, dst->node_path);
    if (rc == EXIT_OK) progress_finish(&prog, ncopied + nraw, ngroups, nskipped);
    if (nraw) {
        fprintf(stderr, "zarr: cp: note: %lu array%s not decodable here, copied as stored (metadata and chunk bytes "
                        "unchanged):", (unsigned long)nraw, nraw == 1 ? "" : "s");
        list_arrays(&plan, 1);
    }
    if (nskipped) {
        fprintf(stderr, "zarr: cp: %lu array%s not copied (not decodable here):", (unsigned long)nskipped,
                nskipped == 1 ? "" : "s");
        list_arrays(&plan, 0);
        if (rc == EXIT_OK && o->strict) rc = EXIT_RUNTIME;
    }
done:
    plan_free(&plan);
    return rc;
}

/* Open the destination's store for writing, noting first what exists there so that a
 * failed copy can remove what it wrote (cp_undo.h). This is the one place that opens a
 * destination: were the library to open a local directory that does not exist only with
 * "create": true in its options, that option belongs in the store_open call here. */
static int open_destination(node_ref *dst, cp_undo *undo) {
    int rc;
    if (cp_undo_begin_local(undo, dst) != 0) return EXIT_RUNTIME;
    if ((rc = store_open("cp", dst->store_loc, dst->options, 1, &dst->store)) != EXIT_OK) return rc;
    return cp_undo_begin_store(undo, dst) == 0 ? EXIT_OK : EXIT_RUNTIME;
}

int cmd_cp(int argc, char **argv) {
    cp_options o;
    const char *paths[2] = {NULL, NULL}, *v, *options = NULL, *dst_options = NULL;
    int npaths = 0, i, rc = EXIT_OK, missing = 0, keep_partial = 0;
    node_ref src, dst;
    cp_undo undo;
    memset(&o, 0, sizeof o);
    o.chunks.n = o.shards.n = -1;
    o.consolidate = -1;
    for (i = 1; i < argc && rc == EXIT_OK; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(cp_help, stdout);
            dim_spec_free(&o.chunks);
            dim_spec_free(&o.shards);
            return EXIT_OK;
        } else if ((v = option_value(argc, argv, &i, "--format", &missing))) {
            if (missing || (strcmp(v, "2") && strcmp(v, "3"))) {
                report("cp", "--format must be 2 or 3");
                rc = EXIT_USAGE;
            }
            o.format = v[0] - '0';
        } else if ((v = option_value(argc, argv, &i, "--chunks", &missing))) {
            dim_spec_free(&o.chunks);
            if (missing || parse_dim_spec(v, &o.chunks) != 0) {
                report("cp", "malformed --chunks '%s': expected positive integers separated by commas, or "
                       "name/length pairs (time/73,lat/45)", v);
                rc = EXIT_USAGE;
            }
        } else if ((v = option_value(argc, argv, &i, "--shards", &missing))) {
            dim_spec_free(&o.shards);
            if (missing || parse_dim_spec(v, &o.shards) != 0) {
                report("cp", "malformed --shards '%s': expected positive integers separated by commas, or "
                       "name/length pairs", v);
                rc = EXIT_USAGE;
            }
        } else if ((v = option_value(argc, argv, &i, "--codec", &missing))) {
            if (missing || parse_codec(v, &o.codec) != 0) {
                report("cp", "malformed --codec '%s': expected none, gzip[:0-9], zstd[:level] or blosc", v);
                rc = EXIT_USAGE;
            }
            o.have_codec = 1;
        } else if ((v = option_value(argc, argv, &i, "--vars", &missing))) {
            if (missing || !*v) {
                report("cp", "--vars needs a list of array names");
                rc = EXIT_USAGE;
            }
            o.vars = v;
        } else if ((v = option_value(argc, argv, &i, "--store-options", &missing))) {
            if (missing) {
                report("cp", "--store-options needs a JSON object (see zarr --help)");
                rc = EXIT_USAGE;
            }
            options = v;
        } else if ((v = option_value(argc, argv, &i, "--dst-store-options", &missing))) {
            if (missing) {
                report("cp", "--dst-store-options needs a JSON object");
                rc = EXIT_USAGE;
            }
            dst_options = v;
        } else if (!strcmp(argv[i], "--consolidate")) {
            o.consolidate = 1;
        } else if (!strcmp(argv[i], "--no-consolidate")) {
            o.consolidate = 0;
        } else if (!strcmp(argv[i], "--strict")) {
            o.strict = 1;
        } else if (!strcmp(argv[i], "--keep-partial")) {
            keep_partial = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            report("cp", "unknown option '%s' (see zarr cp --help)", argv[i]);
            rc = EXIT_USAGE;
        } else if (npaths == 2) {
            report("cp", "SRC and DST expected (see zarr cp --help)");
            rc = EXIT_USAGE;
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (rc == EXIT_OK && npaths != 2) {
        report("cp", "SRC and DST expected (see zarr cp --help)");
        rc = EXIT_USAGE;
    } else if (rc == EXIT_OK && o.format == 2 && o.shards.n >= 0) {
        report("cp", "--shards needs Zarr v3 (--format 3)");
        rc = EXIT_USAGE;
    } else if (rc == EXIT_OK && o.shards.n >= 0 && o.chunks.n < 0) {
        report("cp", "--shards needs --chunks (the inner chunk shape)");
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_OK) {
        dim_spec_free(&o.chunks);
        dim_spec_free(&o.shards);
        return rc;
    }
    memset(&dst, 0, sizeof dst);
    memset(&undo, 0, sizeof undo);
    if ((rc = resolve_path("cp", paths[0], &src)) != EXIT_OK) goto out;
    src.options = options;
    if ((rc = node_open("cp", &src)) != EXIT_OK) goto out;
    if (o.vars && !src.group) {
        report("cp", "--vars selects arrays of a group, but %s is an array", paths[0]);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = resolve_dest("cp", paths[1], &dst)) != EXIT_OK) goto out;
    dst.options = dst_options ? dst_options : options;
    if (src.group && inside(&src, &dst)) {
        report("cp", "cannot copy the group %s into itself (%s)", paths[0], paths[1]);
        rc = EXIT_RUNTIME;
        goto out;
    }
    if ((rc = open_destination(&dst, &undo)) != EXIT_OK) goto out;
    rc = run_copy(&o, &src, &dst);
    if (rc != EXIT_OK && undo.active) {
        int removed;
        if (keep_partial) {
            fprintf(stderr, "zarr: cp: the partial copy at %s is left in place (--keep-partial)\n", paths[1]);
        } else if ((removed = cp_undo_run(&undo, &dst)) > 0) {
            fprintf(stderr, "zarr: cp: removed the partial copy at %s (--keep-partial keeps it)\n", paths[1]);
        } else if (removed < 0) {
            fprintf(stderr, "zarr: cp: the partial copy at %s could not be removed entirely\n", paths[1]);
        }
    }
out:
    cp_undo_free(&undo);
    node_close(&dst);
    node_close(&src);
    dim_spec_free(&o.chunks);
    dim_spec_free(&o.shards);
    return rc;
}
