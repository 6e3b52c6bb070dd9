/* describe.c -- see describe.h. */
#define _XOPEN_SOURCE 700
#include "describe.h"
#include "cf.h"

#include <stdlib.h>
#include <string.h>

const char *node_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

char *child_path(const char *parent, const char *name) {
    size_t n = strlen(parent) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    snprintf(p, n, "%s/%s", strcmp(parent, "/") ? parent : "", name);
    return p;
}

char *node_prefix(const char *path) {
    size_t n;
    char *p;
    while (*path == '/') path++;
    n = strlen(path);
    p = malloc(n + 2);
    if (!p) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    memcpy(p, path, n);
    if (n) p[n++] = '/';
    p[n] = '\0';
    return p;
}

int is_codec_list(const json_value *v) {
    size_t i;
    if (!v || v->type != JSON_ARRAY || v->count == 0) return 0;
    for (i = 0; i < v->count; i++)
        if (v->items[i].type != JSON_OBJECT || (!json_get(&v->items[i], "name") && !json_get(&v->items[i], "id")))
            return 0;
    return 1;
}

/* The 2022 draft names codecs by URI (".../codec/gzip/1.0"): the name is the segment
 * before the version. */
static const char *draft_codec_name(const char *uri, char *buf, size_t buf_len) {
    const char *end = uri + strlen(uri), *start;
    while (end > uri && end[-1] == '/') end--;
    start = end;
    while (start > uri && start[-1] != '/') start--;
    if (start > uri && *start >= '0' && *start <= '9') { /* a version: take the one before */
        end = start - 1;
        start = end;
        while (start > uri && start[-1] != '/') start--;
    }
    snprintf(buf, buf_len, "%.*s", (int)(end - start), start);
    return buf;
}

/* The codec's name ("name" in v3, "id" in v2, a URI under "codec" in the 2022 draft). */
const char *codec_name(const json_value *c) {
    static char draft[128];
    const char *n = json_string(json_get(c, "name"));
    if (!n) n = json_string(json_get(c, "id"));
    if (!n && json_string(json_get(c, "codec"))) n = draft_codec_name(json_string(json_get(c, "codec")), draft, sizeof draft);
    return n ? n : "?";
}

/* The codec's settings (v3 and the draft: "configuration"; v2: the object itself). */
const json_value *codec_config(const json_value *c) {
    if (json_get(c, "name") || json_get(c, "codec")) return json_get(c, "configuration");
    return c;
}

static json_value *parse_object(const char *text) {
    json_value *v = text ? json_parse(text, strlen(text), NULL, 0) : NULL;
    if (v && v->type != JSON_OBJECT) {
        json_free(v);
        v = NULL;
    }
    return v;
}

json_value *attributes_json(const zarr_array *a, const zarr_group *g) {
    char *text = NULL;
    json_value *v = NULL;
    if ((a ? zarr_array_attributes_json(a, &text) : zarr_group_attributes_json(g, &text)) == ZARR_OK)
        v = parse_object(text);
    zarr_string_free(text);
    return v ? v : json_parse("{}", 2, NULL, 0);
}

/* ---- attributes through the typed accessors ----------------------------------------------- */

static zarr_status attr_count(const zarr_array *a, const zarr_group *g, size_t *n) {
    return a ? zarr_array_attribute_count(a, n) : zarr_group_attribute_count(g, n);
}
static zarr_status attr_name(const zarr_array *a, const zarr_group *g, size_t i, char **name) {
    return a ? zarr_array_attribute_name(a, i, name) : zarr_group_attribute_name(g, i, name);
}
static zarr_status attr_string(const zarr_array *a, const zarr_group *g, const char *k, char **v) {
    return a ? zarr_array_attribute_string(a, k, v) : zarr_group_attribute_string(g, k, v);
}
static zarr_status attr_int64(const zarr_array *a, const zarr_group *g, const char *k, int64_t *v) {
    return a ? zarr_array_attribute_int64(a, k, v) : zarr_group_attribute_int64(g, k, v);
}
static zarr_status attr_double(const zarr_array *a, const zarr_group *g, const char *k, double *v) {
    return a ? zarr_array_attribute_double(a, k, v) : zarr_group_attribute_double(g, k, v);
}
static zarr_status attr_int64s(const zarr_array *a, const zarr_group *g, const char *k, int64_t *v, size_t cap,
                               size_t *n) {
    return a ? zarr_array_attribute_int64_array(a, k, v, cap, n) : zarr_group_attribute_int64_array(g, k, v, cap, n);
}
static zarr_status attr_doubles(const zarr_array *a, const zarr_group *g, const char *k, double *v, size_t cap,
                                size_t *n) {
    return a ? zarr_array_attribute_double_array(a, k, v, cap, n)
             : zarr_group_attribute_double_array(g, k, v, cap, n);
}

/* An attribute value as ncdump shows one, from JSON: strings quoted, lists of scalars as
 * `a, b, c`, anything else as compact JSON. */
static void print_json_attr_value(FILE *out, const json_value *v) {
    size_t i;
    int scalars = v->type == JSON_ARRAY && v->count > 0;
    for (i = 0; scalars && i < v->count; i++)
        if (v->items[i].type == JSON_ARRAY || v->items[i].type == JSON_OBJECT) scalars = 0;
    if (scalars) {
        for (i = 0; i < v->count; i++) {
            if (i) fputs(", ", out);
            json_print(&v->items[i], out);
        }
    } else {
        json_print(v, out);
    }
}

/* A list of numbers of an attribute as "1, 2, 3"; returns 0 when it is not one. */
static int print_number_list(FILE *out, const zarr_array *a, const zarr_group *g, const char *key) {
    size_t n = 0, i;
    char buf[40];
    if (attr_int64s(a, g, key, NULL, 0, &n) == ZARR_OK && n > 0) {
        int64_t *v = malloc(n * sizeof *v);
        if (v && attr_int64s(a, g, key, v, n, &n) == ZARR_OK) {
            for (i = 0; i < n; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)v[i]);
            free(v);
            return 1;
        }
        free(v);
    }
    if (attr_doubles(a, g, key, NULL, 0, &n) == ZARR_OK && n > 0) {
        double *v = malloc(n * sizeof *v);
        if (v && attr_doubles(a, g, key, v, n, &n) == ZARR_OK) {
            for (i = 0; i < n; i++) fprintf(out, "%s%s", i ? ", " : "", shortest_double(v[i], 0, buf, sizeof buf));
            free(v);
            return 1;
        }
        free(v);
    }
    return 0;
}

size_t attributes_count(const zarr_array *a, const zarr_group *g, const json_value *json, const char *hide) {
    size_t n = 0, i;
    if (!a && !g) {
        if (!json || json->type != JSON_OBJECT) return 0;
        return json->count - (hide && json_get(json, hide) ? 1 : 0);
    }
    if (attr_count(a, g, &n) != ZARR_OK) return 0;
    for (i = 0; hide && i < n; i++) {
        char *name = NULL;
        int hidden = attr_name(a, g, i, &name) == ZARR_OK && !strcmp(name, hide);
        zarr_string_free(name);
        if (hidden) return n - 1;
    }
    return n;
}

void attributes_print(FILE *out, const zarr_array *a, const zarr_group *g, const json_value *json, int indent,
                      const char *hide, const dtype *type) {
    json_value *parsed = NULL; /* the JSON of the attributes, for values no accessor reads */
    size_t n = 0, i;
    if (!a && !g) {
        for (i = 0; json && json->type == JSON_OBJECT && i < json->count; i++) {
            if (hide && !strcmp(json->keys[i], hide)) continue;
            fprintf(out, "%*s%s = ", indent, "", json->keys[i]);
            if (!cf_attr_put_decoded(out, json->keys[i], &json->items[i], type))
                print_json_attr_value(out, &json->items[i]);
            fputc('\n', out);
        }
        return;
    }
    if (attr_count(a, g, &n) != ZARR_OK) return;
    for (i = 0; i < n; i++) {
        char *key = NULL, *s = NULL, buf[40];
        int64_t iv;
        double dv;
        if (attr_name(a, g, i, &key) != ZARR_OK) continue;
        if (hide && !strcmp(key, hide)) {
            zarr_string_free(key);
            continue;
        }
        fprintf(out, "%*s%s = ", indent, "", key);
        if (attr_string(a, g, key, &s) == ZARR_OK) {
            json_value sv;
            memset(&sv, 0, sizeof sv);
            sv.type = JSON_STRING;
            sv.text = s;
            sv.text_len = strlen(s);
            if (!cf_attr_put_decoded(out, key, &sv, type)) json_put_string(out, s);
            zarr_string_free(s);
        } else if (attr_int64(a, g, key, &iv) == ZARR_OK) {
            fprintf(out, "%lld", (long long)iv);
        } else if (attr_double(a, g, key, &dv) == ZARR_OK) {
            fputs(shortest_double(dv, 0, buf, sizeof buf), out);
        } else if (!print_number_list(out, a, g, key)) {
            /* booleans, null, lists of strings, objects: no accessor reads them */
            const json_value *v;
            if (!parsed) parsed = attributes_json(a, g);
            v = json_get(parsed, key);
            if (!v) fputs("?", out);
            else if (!cf_attr_put_decoded(out, key, v, type)) print_json_attr_value(out, v);
        }
        fputc('\n', out);
        zarr_string_free(key);
    }
    json_free(parsed);
}

/* ---- arrays ------------------------------------------------------------------------------ */

/* "[1, 2]" into v (at most MAX_NDIM); returns the count, or -1. */
static int u64_list(const json_value *v, uint64_t *out) {
    size_t i;
    unsigned long long x;
    if (!v || v->type != JSON_ARRAY || v->count > MAX_NDIM) return -1;
    for (i = 0; i < v->count; i++) {
        if (!json_u64(&v->items[i], &x)) return -1;
        out[i] = x;
    }
    return (int)v->count;
}

static void add_codec(array_desc *d, const char *name, json_value *config) {
    codec_info *c = realloc(d->codecs, (d->ncodecs + 1) * sizeof *c);
    if (!c) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    d->codecs = c;
    c[d->ncodecs].name = dup_str(name);
    c[d->ncodecs].config = config;
    d->ncodecs++;
}

/* A copy of a JSON value (through its text). */
static json_value *json_copy(const json_value *v) {
    char *text = NULL;
    size_t len = 0;
    json_value *copy = NULL;
    FILE *f;
    if (!v) return NULL;
    if (!(f = open_memstream(&text, &len))) return NULL;
    json_print(v, f);
    if (fclose(f) == 0) copy = json_parse(text, len, NULL, 0);
    free(text);
    return copy;
}

static void set_dims_from(array_desc *d, const json_value *names) {
    size_t i;
    if (!names || names->type != JSON_ARRAY || names->count != d->ndim) return;
    for (i = 0; i < d->ndim; i++) {
        const char *s = json_string(&names->items[i]);
        if (s) {
            d->dims[i] = dup_str(s);
            d->has_dims = 1;
        }
    }
}

/* The sharding codec's inner chunk shape (the array's chunks when not sharded). */
static void find_sharding(array_desc *d) {
    size_t i;
    for (i = 0; i < d->ndim; i++) d->inner[i] = d->chunks[i];
    for (i = 0; i < d->ncodecs; i++) {
        if (!strcmp(d->codecs[i].name, "sharding_indexed")) {
            uint64_t inner[MAX_NDIM];
            d->sharded = 1;
            if (u64_list(json_get(d->codecs[i].config, "chunk_shape"), inner) == (int)d->ndim)
                memcpy(d->inner, inner, d->ndim * sizeof *inner);
        }
    }
}

/* Fill in an undecodable array's description from its metadata document. */
static void describe_from_document(const zarr_store *store, array_desc *d) {
    char *text = NULL;
    const json_value *m, *fmt, *grid, *list;
    int n;
    size_t i;
    if (zarr_store_node_metadata_json(store, d->path, &text) != ZARR_OK) return; /* path and reason only */
    d->meta = parse_object(text);
    zarr_string_free(text);
    if (!(m = d->meta)) return;
    fmt = json_get(m, "zarr_format");
    d->format = fmt && fmt->type == JSON_NUMBER && fmt->number == 2 ? 2 : 3;
    d->draft = json_string(fmt) != NULL; /* "2022-draft" */
    if ((n = u64_list(json_get(m, "shape"), d->shape)) < 0) return;
    d->ndim = (size_t)n;
    if (d->format == 2) grid = json_get(m, "chunks");
    else if (d->draft) grid = json_get(json_get(m, "chunk_grid"), "chunk_shape");
    else grid = json_get(json_get(json_get(m, "chunk_grid"), "configuration"), "chunk_shape");
    d->grid_known = u64_list(grid, d->chunks) == n;
    for (i = 0; d->grid_known && i < d->ndim; i++)
        d->grid[i] = d->chunks[i] ? d->shape[i] / d->chunks[i] + (d->shape[i] % d->chunks[i] != 0) : 0;
    dtype_parse(json_get(m, d->format == 2 ? "dtype" : "data_type"), d->format, &d->type);
    d->attrs = json_copy(json_get(m, "attributes"));
    if (!d->attrs || d->attrs->type != JSON_OBJECT) {
        json_free(d->attrs);
        d->attrs = json_parse("{}", 2, NULL, 0);
    }
    set_dims_from(d, json_get(m, "dimension_names"));
    if (!d->has_dims && (d->format == 2 || d->draft)) {
        set_dims_from(d, json_get(d->attrs, "_ARRAY_DIMENSIONS"));
        d->dims_attribute = d->has_dims;
    }
    if (d->format == 3) {
        list = json_get(m, "codecs");
        for (i = 0; list && list->type == JSON_ARRAY && i < list->count; i++)
            add_codec(d, codec_name(&list->items[i]), json_copy(codec_config(&list->items[i])));
        if (d->draft && (list = json_get(m, "compressor")) && list->type == JSON_OBJECT)
            add_codec(d, codec_name(list), json_copy(codec_config(list)));
        find_sharding(d);
    } else {
        find_sharding(d);
    }
    d->described = 1;
}

static int describe_open(const char *cmd, array_desc *d) {
    zarr_array *a = d->array;
    char *text = NULL;
    size_t n, i;
    uint32_t fmt = 3;
    if (zarr_array_ndim(a, &d->ndim) != ZARR_OK) {
        report_zarr(cmd, "%s: cannot read the rank", d->path);
        return 1;
    }
    if (d->ndim > MAX_NDIM) {
        report(cmd, "%s: the array has %lu dimensions (limit %d)", d->path, (unsigned long)d->ndim, MAX_NDIM);
        return 1;
    }
    if (zarr_array_shape(a, d->ndim, d->shape) != ZARR_OK || zarr_array_chunk_shape(a, d->ndim, d->chunks) != ZARR_OK ||
        zarr_array_inner_chunk_shape(a, d->ndim, d->inner) != ZARR_OK || zarr_array_format(a, &fmt) != ZARR_OK ||
        zarr_array_codec_count(a, &n) != ZARR_OK) {
        report_zarr(cmd, "%s: cannot read the array's properties", d->path);
        return 1;
    }
    /* The library knows the grid, regular or rectilinear (where chunk_shape gave the longest
     * chunks and only it can say how many there are). */
    if (zarr_array_chunk_grid_shape(a, d->ndim, d->grid) != ZARR_OK) {
        report_zarr(cmd, "%s: cannot read the array's chunk grid", d->path);
        return 1;
    }
    d->grid_known = 1;
    d->format = (int)fmt;
    if (zarr_array_metadata_json(a, &text) != ZARR_OK || !(d->meta = parse_object(text))) {
        zarr_string_free(text);
        report(cmd, "%s: cannot read the array's metadata document", d->path);
        return 1;
    }
    zarr_string_free(text);
    d->draft = d->format == 3 && !json_get(d->meta, "zarr_format");
    {
        const char *grid_name = json_string(json_get(json_get(d->meta, "chunk_grid"), "name"));
        d->rectilinear = grid_name && !strcmp(grid_name, "rectilinear");
    }
    for (i = 0; i < n; i++) {
        char *name = NULL, *config = NULL;
        if (zarr_array_codec_name(a, i, &name) != ZARR_OK || zarr_array_codec_configuration_json(a, i, &config) != ZARR_OK) {
            zarr_string_free(name);
            report_zarr(cmd, "%s: cannot read codec %lu", d->path, (unsigned long)i);
            return 1;
        }
        add_codec(d, name, parse_object(config));
        zarr_string_free(name);
        zarr_string_free(config);
    }
    d->sharded = memcmp(d->inner, d->chunks, d->ndim * sizeof *d->chunks) != 0;
    for (i = 0; i < d->ncodecs; i++)
        if (!strcmp(d->codecs[i].name, "sharding_indexed")) d->sharded = 1;
    {
        /* The data type: its details from the document; the library's size decides. */
        zarr_data_type code = 0;
        size_t esize = 0;
        if (zarr_array_data_type(a, &code) != ZARR_OK || zarr_array_element_size(a, &esize) != ZARR_OK) {
            report_zarr(cmd, "%s: cannot read the data type", d->path);
            return 1;
        }
        dtype_parse(json_get(d->meta, d->format == 2 ? "dtype" : "data_type"), d->format, &d->type);
        if (d->type.kind == DT_VLEN && esize == 0) {
            /* Variable-length: the code says whether the elements are text (a v2 |O may be
             * either, by its object codec). */
            d->type.vlen_text = code == ZARR_DATA_TYPE_STRING;
        } else if (d->type.size != esize || !dtype_printable(&d->type)) {
            dtype_free(&d->type);
            dtype_from_code(code, esize, &d->type);
        }
    }
    for (i = 0; i < d->ndim; i++) {
        char *name = NULL;
        if (zarr_array_dimension_name(a, i, &name) == ZARR_OK && name) {
            d->dims[i] = dup_str(name);
            d->has_dims = 1;
        }
        zarr_string_free(name);
    }
    d->dims_attribute = d->has_dims && !json_get(d->meta, "dimension_names");
    d->attrs = attributes_json(a, NULL);
    d->described = 1;
    return 0;
}

int array_describe(const char *cmd, const zarr_store *store, const char *path, array_desc *d) {
    memset(d, 0, sizeof *d);
    d->path = dup_str(path);
    if (array_try_open(store, path, &d->array, &d->why) != ZARR_OK) {
        describe_from_document(store, d);
        return 0;
    }
    d->decodable = 1;
    return describe_open(cmd, d);
}

void array_desc_free(array_desc *d) {
    size_t i;
    zarr_array_free(d->array);
    free(d->path);
    free(d->why);
    json_free(d->meta);
    json_free(d->attrs);
    dtype_free(&d->type);
    for (i = 0; i < MAX_NDIM; i++) free(d->dims[i]);
    for (i = 0; i < d->ncodecs; i++) {
        free(d->codecs[i].name);
        json_free(d->codecs[i].config);
    }
    free(d->codecs);
    memset(d, 0, sizeof *d);
}

const char *dims_attribute_name(const array_desc *d) { return d->dims_attribute ? "_ARRAY_DIMENSIONS" : NULL; }

void json_put_dimension_names(FILE *out, const array_desc *d) {
    size_t i;
    if (!d->has_dims) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (i = 0; i < d->ndim; i++) {
        if (i) fputc(',', out);
        if (d->dims[i]) json_put_string(out, d->dims[i]);
        else fputs("null", out);
    }
    fputc(']', out);
}

uint64_t array_nchunks(const array_desc *d, int *overflow) {
    uint64_t total = 1;
    size_t i;
    *overflow = 0;
    for (i = 0; i < d->ndim; i++) {
        uint64_t n = d->grid[i];
        if (n && total > UINT64_MAX / n) *overflow = 1;
        total *= n;
    }
    return total;
}

/* Reads the block bstart/bcount of a variable-length array: offsets (n + 1 entries) and
 * the elements' bytes into *data, grown as needed (*cap bytes). Returns the status. */
zarr_status read_vlen_block(const zarr_array *a, size_t ndim, const uint64_t *bstart, const uint64_t *bcount,
                                   uint64_t *offsets, size_t n, unsigned char **data, size_t *cap) {
    if (!*data) { /* with data NULL the call would only measure */
        *data = malloc(64 << 10);
        if (!*data) return ZARR_ERROR_OUT_OF_MEMORY;
        *cap = 64 << 10;
    }
    for (;;) {
        size_t need = 0;
        unsigned char *grown;
        zarr_status s = zarr_array_read_vlen(a, ndim, bstart, bcount, offsets, n + 1, *data, *cap, &need);
        if (s != ZARR_ERROR_BUFFER_TOO_SMALL || need <= *cap) return s;
        /* Another writer may grow the elements between calls: try again with the new size. */
        grown = realloc(*data, need);
        if (!grown) return ZARR_ERROR_OUT_OF_MEMORY;
        *data = grown;
        *cap = need;
    }
}

uint64_t array_nbytes(const array_desc *d) {
    uint64_t total = d->type.size;
    size_t i;
    for (i = 0; i < d->ndim; i++) {
        if (d->shape[i] && total > UINT64_MAX / d->shape[i]) return UINT64_MAX;
        total *= d->shape[i];
    }
    return total;
}

/* ---- stored size ---------------------------------------------------------------------------- */

static void key_add(key_list *l, const char *key) {
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **k = realloc(l->keys, cap * sizeof *k);
        if (!k) {
            fputs("zarr: out of memory\n", stderr);
            exit(EXIT_RUNTIME);
        }
        l->keys = k;
        l->cap = cap;
    }
    l->keys[l->count++] = dup_str(key);
}

void key_list_free(key_list *l) {
    size_t i;
    for (i = 0; i < l->count; i++) free(l->keys[i]);
    free(l->keys);
    memset(l, 0, sizeof *l);
}

/* Every key under `prefix` ("" or ending in '/'), depth first. */
static zarr_status list_prefix(const zarr_store *store, const char *prefix, key_list *out, int depth) {
    char *text = NULL;
    json_value *v;
    const json_value *keys, *prefixes;
    size_t i;
    zarr_status s;
    if (depth > MAX_NDIM + 4) return ZARR_OK; /* no chunk key is nested deeper */
    if ((s = zarr_store_list_json(store, prefix, &text)) != ZARR_OK) return s;
    v = parse_object(text);
    zarr_string_free(text);
    keys = json_get(v, "keys");
    prefixes = json_get(v, "prefixes");
    for (i = 0; keys && keys->type == JSON_ARRAY && i < keys->count; i++) {
        const char *k = json_string(&keys->items[i]);
        char *full;
        if (!k) continue;
        full = malloc(strlen(prefix) + strlen(k) + 1);
        if (!full) exit(EXIT_RUNTIME);
        sprintf(full, "%s%s", prefix, k);
        key_add(out, full);
        free(full);
    }
    for (i = 0; prefixes && prefixes->type == JSON_ARRAY && i < prefixes->count && s == ZARR_OK; i++) {
        const char *p = json_string(&prefixes->items[i]);
        char *sub;
        if (!p) continue;
        sub = malloc(strlen(prefix) + strlen(p) + 2);
        if (!sub) exit(EXIT_RUNTIME);
        sprintf(sub, "%s%s/", prefix, p);
        s = list_prefix(store, sub, out, depth + 1);
        free(sub);
    }
    json_free(v);
    return s;
}

zarr_status store_list_below(const zarr_store *store, const char *path, key_list *out) {
    char *prefix = node_prefix(path);
    zarr_status s = list_prefix(store, prefix, out, 0);
    free(prefix);
    return s;
}

/* The chunk indices a store key (below the array's prefix) names, checked against
 * zarr_array_chunk_key; 0 when it is no chunk key of the array (metadata, a stray file). */
static int key_chunk_indices(const zarr_array *a, size_t ndim, const char *prefix, const char *rel, uint64_t *idx) {
    const char *p = rel;
    char *key = NULL;
    size_t n = 0;
    int ok;
    if (ndim == 0) {
        if (strcmp(rel, "c") != 0 && strcmp(rel, "0") != 0) return 0; /* v3 "c", v2 "0" */
    } else {
        if (p[0] == 'c' && (p[1] == '/' || p[1] == '.')) p += 2;        /* v3's default encoding */
        else if (p[0] == 'c' && p[1] >= '0' && p[1] <= '9') p += 1;   /* the 2022 draft's */
        while (*p) {
            char *end;
            if (*p < '0' || *p > '9' || n == ndim) return 0;
            idx[n++] = strtoull(p, &end, 10);
            p = end;
            if ((*p == '/' || *p == '.') && p[1]) p++;
            else if (*p) return 0;
        }
        if (n != ndim) return 0;
    }
    if (zarr_array_chunk_key(a, ndim, idx, &key) != ZARR_OK) return 0;
    ok = strlen(key) == strlen(prefix) + strlen(rel) && !strncmp(key, prefix, strlen(prefix)) &&
         !strcmp(key + strlen(prefix), rel);
    zarr_string_free(key);
    return ok;
}

static int is_metadata_key(const char *rel) {
    return !strcmp(rel, "zarr.json") || !strcmp(rel, ".zarray") || !strcmp(rel, ".zattrs") ||
           !strcmp(rel, ".zgroup") || !strcmp(rel, ".zmetadata");
}

#define STORED_SAMPLE 1000

/* Where an array's chunks are: below its node's prefix, or for the 2022 draft layout below
 * "data/root/<path>/". */
static char *data_prefix(const array_desc *d) {
    char *node = node_prefix(d->path), *p;
    if (!d->draft) return node;
    p = malloc(strlen(node) + 12);
    if (!p) exit(EXIT_RUNTIME);
    sprintf(p, "data/root/%s", node);
    free(node);
    return p;
}

void array_stored(const zarr_store *store, const array_desc *d, int kind, stored_info *st) {
    uint64_t limit = env_bytes("ZARR_INFO_GRID_LIMIT", 100000), nchunks, idx[MAX_NDIM], grid[MAX_NDIM];
    int overflow;
    size_t i;
    memset(st, 0, sizeof *st);
    if (!d->described || !d->grid_known) {
        snprintf(st->why, sizeof st->why, "the chunk grid is not known");
        return;
    }
    nchunks = array_nchunks(d, &overflow);
    if (d->decodable && !overflow && nchunks <= limit) {
        /* every chunk of the grid, in C order */
        for (i = 0; i < d->ndim; i++) {
            idx[i] = 0;
            grid[i] = d->grid[i];
        }
        st->method = "every chunk of the grid";
        st->bytes_known = 1;
        while (nchunks > 0) {
            bool stored = false;
            uint64_t n = 0;
            if (zarr_array_chunk_stored_nbytes(d->array, d->ndim, idx, &stored, &n) != ZARR_OK) {
                snprintf(st->why, sizeof st->why, "%s", zarr_last_error_message());
                st->method = NULL;
                return;
            }
            if (stored) {
                st->chunks++;
                st->bytes += n;
                if (d->rectilinear) {
                    uint64_t origin[MAX_NDIM], extent[MAX_NDIM], size = d->type.size;
                    if (zarr_array_chunk_region(d->array, d->ndim, idx, origin, extent) == ZARR_OK)
                        for (i = 0; i < d->ndim; i++) size *= extent[i];
                    st->decoded += size;
                }
            }
            for (i = d->ndim; i > 0; i--) {
                if (++idx[i - 1] < grid[i - 1]) break;
                idx[i - 1] = 0;
            }
            if (i == 0) break;
        }
        st->known = 1;
        return;
    }
    if (kind == STORE_HTTP) {
        snprintf(st->why, sizeof st->why, "an HTTP server cannot list the %s%llu chunks of the grid, and asking each "
                 "is too slow", overflow ? "more than " : "", (unsigned long long)nchunks);
        return;
    }
    {
        key_list keys = {0};
        char *prefix = data_prefix(d);
        size_t *found = NULL, nfound = 0, step, k, sample;
        zarr_status s = list_prefix(store, prefix, &keys, 0);
        if (s != ZARR_OK) {
            snprintf(st->why, sizeof st->why, "the store cannot list the array's keys (%s)", zarr_status_str(s));
            free(prefix);
            key_list_free(&keys);
            return;
        }
        st->method = "the store listing";
        if (!d->decodable) {
            /* Without the array's chunk key encoding, every key but the metadata counts. */
            for (i = 0; i < keys.count; i++)
                if (!is_metadata_key(keys.keys[i] + strlen(prefix))) st->chunks++;
            st->known = 1;
            free(prefix);
            key_list_free(&keys);
            return;
        }
        found = malloc((keys.count ? keys.count : 1) * sizeof *found);
        if (!found) exit(EXIT_RUNTIME);
        for (i = 0; i < keys.count; i++)
            if (key_chunk_indices(d->array, d->ndim, prefix, keys.keys[i] + strlen(prefix), idx)) found[nfound++] = i;
        st->chunks = nfound;
        sample = env_bytes("ZARR_INFO_SAMPLE", STORED_SAMPLE);
        step = kind == STORE_REMOTE && nfound > sample ? nfound / sample : 1;
        st->bytes_known = 1;
        for (k = 0; k < nfound; k += step) {
            bool stored = false;
            uint64_t n = 0;
            key_chunk_indices(d->array, d->ndim, prefix, keys.keys[found[k]] + strlen(prefix), idx);
            if (zarr_array_chunk_stored_nbytes(d->array, d->ndim, idx, &stored, &n) != ZARR_OK) {
                snprintf(st->why, sizeof st->why, "%s", zarr_last_error_message());
                st->method = NULL;
                break;
            }
            st->bytes += n;
            if (step > 1) st->sampled++;
        }
        if (st->method) {
            if (st->sampled) st->bytes = (uint64_t)((double)st->bytes / (double)st->sampled * (double)nfound);
            st->known = 1;
        }
        free(found);
        free(prefix);
        key_list_free(&keys);
    }
}
