/* info.c -- `zarr info` and `zarr tree`, as text or JSON. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>

#include "describe.h"

static const char *info_help =
    "usage: zarr info PATH [--json]\n"
    "\n"
    "Print a metadata summary of the array or group at PATH (see `zarr --help` for PATH).\n"
    "\n"
    "Array: store, path, zarr format, the variable as ncdump declares it\n"
    "(`float32 tas(time, lat, lon)`), shape, dimension names (Zarr v3 dimension_names, or\n"
    "xarray's _ARRAY_DIMENSIONS attribute in Zarr v2), chunk shape (and inner chunk shape\n"
    "when sharded), data type, fill value, codecs with their settings (nested sharding codecs\n"
    "indented; for Zarr v2: order, filters, compressor), every attribute with its value\n"
    "(`units = \"K\"`, lists as `1, 2, 3`, other values as JSON), the number of chunks in the\n"
    "grid and the size of the decoded data.\n"
    "\n"
    "Group: zarr format, whether the store has consolidated metadata (at the root), the\n"
    "dimensions its arrays use (`time = 365, lat = 90`), its attributes, and its direct\n"
    "children: each array on one line (as `zarr tree` shows it) followed by its attributes,\n"
    "like `ncdump -h`.\n"
    "\n"
    "An array this build of libzarr cannot decode (a data type or codec it lacks) is shown\n"
    "with the reason instead of its details, and a note on stderr lists such arrays; it is\n"
    "not an error.\n"
    "\n"
    "  --json   print one JSON object instead (keys: path, name, node_type, store,\n"
    "           zarr_format; arrays: decodable, data_type, shape, chunk_shape,\n"
    "           inner_chunk_shape when sharded, dimension_names, fill_value, attributes,\n"
    "           chunks, nbytes, metadata (the whole document); an array that cannot be\n"
    "           decoded: decodable false and error; groups: attributes, consolidated,\n"
    "           dimensions, children).\n"
    "\n"
    "Exit status: 0 ok, 1 runtime error, 2 usage error.\n";

static const char *tree_help =
    "usage: zarr tree PATH [--json]\n"
    "\n"
    "Print the hierarchy below the group at PATH, one node per line, indented by depth\n"
    "(like h5ls -r). Groups end with '/'; arrays show data type, shape, dimension names in\n"
    "parentheses when they have them, chunk shape (and inner chunk shape when sharded) and\n"
    "codecs. An array this build of libzarr cannot decode shows the reason instead, the\n"
    "walk carries on, and a note on stderr lists such arrays at the end; it is not an error.\n"
    "\n"
    "  --json   print the hierarchy as one JSON object: a group has path, name, node_type,\n"
    "           zarr_format, attributes and children; an array the keys of `zarr info\n"
    "           --json` except metadata and store.\n"
    "\n"
    "Exit status: 0 ok, 1 runtime error, 2 usage error.\n";

#define KEY "%-19s "

/* Arrays that could not be decoded, for the closing note. */
typedef struct {
    char **paths;
    size_t count, cap;
} skipped_list;

static void skipped_add(skipped_list *s, const char *path) {
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        char **p = realloc(s->paths, cap * sizeof *p);
        if (!p) return; /* the note is best effort */
        s->paths = p;
        s->cap = cap;
    }
    s->paths[s->count++] = dup_str(path);
}

static void skipped_report(const char *cmd, skipped_list *s) {
    size_t i;
    if (s->count) {
        fflush(stdout); /* the note comes after what was printed */
        fprintf(stderr, "zarr: %s: note: %lu array%s this build of libzarr cannot decode, shown without details:",
                cmd, (unsigned long)s->count, s->count == 1 ? "" : "s");
        for (i = 0; i < s->count; i++) fprintf(stderr, " %s", s->paths[i]);
        fputc('\n', stderr);
    }
    for (i = 0; i < s->count; i++) free(s->paths[i]);
    free(s->paths);
    memset(s, 0, sizeof *s);
}

/* ---- text ------------------------------------------------------------------------------ */

/* A scalar or small value: strings unquoted, numbers as written, the rest compact JSON. */
static void print_value(FILE *out, const json_value *v) {
    if (!v) fputs("(none)", out);
    else if (v->type == JSON_STRING) fputs(v->text, out);
    else json_print(v, out);
}

/* An attribute value as ncdump shows one: strings quoted, lists of scalars as `a, b, c`,
 * anything else as compact JSON. */
static void print_attr_value(FILE *out, const json_value *v) {
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

/* `hide` names an attribute shown elsewhere (xarray's _ARRAY_DIMENSIONS, shown as the
 * dimension names), or is NULL. */
static void print_attributes(FILE *out, const json_value *attrs, int indent, const char *hide) {
    size_t i;
    for (i = 0; attrs && attrs->type == JSON_OBJECT && i < attrs->count; i++) {
        if (hide && !strcmp(attrs->keys[i], hide)) continue;
        fprintf(out, "%*s%s = ", indent, "", attrs->keys[i]);
        print_attr_value(out, &attrs->items[i]);
        fputc('\n', out);
    }
}

/* One line "name key=value ..." and, below it, nested codec lists indented. */
static void print_codec_block(FILE *out, const json_value *c, int indent) {
    const json_value *cfg = codec_config(c);
    size_t i;
    fprintf(out, "%*s%s", indent, "", codec_name(c));
    if (cfg && cfg->type == JSON_OBJECT) {
        for (i = 0; i < cfg->count; i++) {
            if (!strcmp(cfg->keys[i], "id") || is_codec_list(&cfg->items[i])) continue;
            fprintf(out, " %s=", cfg->keys[i]);
            print_value(out, &cfg->items[i]);
        }
    }
    fputc('\n', out);
    if (cfg && cfg->type == JSON_OBJECT) {
        for (i = 0; i < cfg->count; i++) {
            size_t j;
            if (!strcmp(cfg->keys[i], "id") || !is_codec_list(&cfg->items[i])) continue;
            fprintf(out, "%*s%s:\n", indent + 2, "", cfg->keys[i]);
            for (j = 0; j < cfg->items[i].count; j++) print_codec_block(out, &cfg->items[i].items[j], indent + 4);
        }
    }
}

/* The same on one line: name(key=value,...), nested lists in brackets. */
static void print_codec_inline(FILE *out, const json_value *c) {
    const json_value *cfg = codec_config(c);
    size_t i, j;
    int first = 1;
    fputs(codec_name(c), out);
    if (!cfg || cfg->type != JSON_OBJECT) return;
    for (i = 0; i < cfg->count; i++) {
        if (!strcmp(cfg->keys[i], "id")) continue;
        fprintf(out, "%s%s=", first ? "(" : ",", cfg->keys[i]);
        first = 0;
        if (is_codec_list(&cfg->items[i])) {
            fputc('[', out);
            for (j = 0; j < cfg->items[i].count; j++) {
                if (j) fputc(',', out);
                print_codec_inline(out, &cfg->items[i].items[j]);
            }
            fputc(']', out);
        } else {
            print_value(out, &cfg->items[i]);
        }
    }
    if (!first) fputc(')', out);
}

/* "(time, lat, lon)"; unnamed dimensions as "-". */
static void print_dim_names(FILE *out, const array_desc *d) {
    size_t i;
    fputc('(', out);
    for (i = 0; i < d->ndim; i++) fprintf(out, "%s%s", i ? ", " : "", d->dims[i] ? d->dims[i] : "-");
    fputc(')', out);
}

/* "float64 [10, 10] (y, x) chunks [5, 5] codecs bytes(endian=little) gzip(level=1)" */
static void print_array_line(FILE *out, const array_desc *d) {
    const json_value *v;
    size_t i;
    if (!d->decodable) {
        fprintf(out, "(not decodable by this build: %s)\n", d->why ? d->why : "unknown reason");
        return;
    }
    fprintf(out, "%s ", d->dtname);
    print_dims(out, d->ndim, d->shape);
    if (d->has_dims) {
        fputc(' ', out);
        print_dim_names(out, d);
    }
    fprintf(out, " chunks ");
    print_dims(out, d->ndim, d->chunks);
    if (d->sharded) {
        fprintf(out, " inner ");
        print_dims(out, d->ndim, d->inner);
    }
    if (d->format == 2) {
        fprintf(out, " v2");
        v = json_get(d->meta, "filters");
        for (i = 0; is_codec_list(v) && i < v->count; i++) {
            fprintf(out, " filter ");
            print_codec_inline(out, &v->items[i]);
        }
        v = json_get(d->meta, "compressor");
        fprintf(out, " compressor ");
        if (v && v->type == JSON_OBJECT) print_codec_inline(out, v);
        else fprintf(out, "none");
    } else {
        int one;
        fprintf(out, " codecs");
        v = v3_codecs(d->meta, &one);
        if (one) {
            fputc(' ', out);
            print_codec_inline(out, v);
        }
        for (i = 0; !one && v && i < v->count; i++) {
            fputc(' ', out);
            print_codec_inline(out, &v->items[i]);
        }
    }
    fputc('\n', out);
}

/* The attribute shown as dimension names (v2 arrays written by xarray), else NULL. */
static const char *dims_attribute(const array_desc *d) {
    return d->has_dims && !json_get(d->meta, "dimension_names") ? "_ARRAY_DIMENSIONS" : NULL;
}

static size_t attribute_count(const json_value *attrs, const char *hide) {
    return attrs->count - (hide && json_get(attrs, hide) ? 1 : 0);
}

static void print_array_info(const node_ref *ref, const array_desc *d) {
    const json_value *v;
    size_t i;
    int overflow;
    uint64_t nchunks, nbytes;
    char size[32];
    printf(KEY "array\n", "node:");
    printf(KEY "%s\n", "store:", ref->store_loc);
    printf(KEY "%s\n", "path:", d->path);
    if (!d->decodable) {
        printf(KEY "not decodable by this build of libzarr\n", "status:");
        printf(KEY "%s\n", "reason:", d->why ? d->why : "unknown");
        return;
    }
    printf(KEY "%d\n", "zarr_format:", d->format);
    if (d->has_dims) {
        printf(KEY "%s %s", "variable:", d->dtname, node_name(d->path));
        print_dim_names(stdout, d);
        fputc('\n', stdout);
    }
    printf(KEY, "shape:");
    print_dims(stdout, d->ndim, d->shape);
    if (d->has_dims) {
        printf("\n" KEY "[", "dimension_names:");
        for (i = 0; i < d->ndim; i++) printf("%s%s", i ? ", " : "", d->dims[i] ? d->dims[i] : "null");
        fputc(']', stdout);
    }
    printf("\n" KEY, "chunk_shape:");
    print_dims(stdout, d->ndim, d->chunks);
    if (d->sharded) {
        printf(" (shards)\n" KEY, "inner_chunk_shape:");
        print_dims(stdout, d->ndim, d->inner);
    }
    printf("\n" KEY "%s", "data_type:", d->dtname);
    if (d->format == 2 && json_string(json_get(d->meta, "dtype"))) printf(" (%s)", json_string(json_get(d->meta, "dtype")));
    printf("\n" KEY, "fill_value:");
    print_value(stdout, json_get(d->meta, "fill_value"));
    fputc('\n', stdout);
    if (d->format == 2) {
        printf(KEY, "order:");
        print_value(stdout, json_get(d->meta, "order"));
        v = json_get(d->meta, "filters");
        fputc('\n', stdout);
        if (is_codec_list(v)) printf("filters:\n");
        else printf(KEY "none\n", "filters:");
        for (i = 0; is_codec_list(v) && i < v->count; i++) print_codec_block(stdout, &v->items[i], 2);
        v = json_get(d->meta, "compressor");
        if (v && v->type == JSON_OBJECT) {
            printf("compressor:\n");
            print_codec_block(stdout, v, 2);
        } else {
            printf(KEY "none\n", "compressor:");
        }
        printf(KEY, "dimension_separator:");
        v = json_get(d->meta, "dimension_separator");
        fputs(json_string(v) ? json_string(v) : ".", stdout);
        fputc('\n', stdout);
    } else {
        int one;
        v = v3_codecs(d->meta, &one);
        printf("codecs:\n");
        if (one) print_codec_block(stdout, v, 2);
        for (i = 0; !one && v && i < v->count; i++) print_codec_block(stdout, &v->items[i], 2);
    }
    printf(KEY "%lu\n", "attributes:", (unsigned long)attribute_count(d->attrs, dims_attribute(d)));
    print_attributes(stdout, d->attrs, 2, dims_attribute(d));
    nchunks = array_nchunks(d, &overflow);
    printf(KEY, "chunks:");
    if (overflow) printf("more than 2^64");
    else printf("%llu", (unsigned long long)nchunks);
    printf(" (grid ");
    for (i = 0; i < d->ndim; i++) {
        uint64_t n = d->chunks[i] ? d->shape[i] / d->chunks[i] + (d->shape[i] % d->chunks[i] != 0) : 0;
        printf("%s%llu", i ? " x " : "", (unsigned long long)n);
    }
    printf("%s)\n", d->ndim ? "" : "scalar");
    nbytes = array_nbytes(d);
    printf(KEY "%llu bytes", "size:", (unsigned long long)nbytes);
    if (nbytes >= 1024) printf(" (%s)", human_bytes(nbytes, size, sizeof size));
    printf(" decoded\n");
}

static json_value *group_children(const char *cmd, const zarr_group *g) {
    char *text = NULL, err[128];
    json_value *v;
    if (zarr_group_children_json(g, &text) != ZARR_OK) {
        report_zarr(cmd, "cannot list the group's children");
        return NULL;
    }
    v = json_parse(text, strlen(text), err, sizeof err);
    zarr_string_free(text);
    if (!v || v->type != JSON_ARRAY) {
        report(cmd, "children list is not a JSON array (%s)", v ? "wrong type" : err);
        json_free(v);
        return NULL;
    }
    return v;
}

static json_value *group_attributes(const char *cmd, const zarr_group *g) {
    char *text = NULL;
    json_value *v;
    if (zarr_group_attributes_json(g, &text) != ZARR_OK) {
        report_zarr(cmd, "cannot read group attributes");
        return NULL;
    }
    v = json_parse(text, strlen(text), NULL, 0);
    zarr_string_free(text);
    if (!v || v->type != JSON_OBJECT) {
        report(cmd, "group attributes are not a JSON object");
        json_free(v);
        return NULL;
    }
    return v;
}

/* Whether the store has consolidated metadata at its root. */
static int store_is_consolidated(const zarr_store *store) {
    zarr_store *view = NULL;
    int yes = zarr_store_open_consolidated(store, &view) == ZARR_OK;
    zarr_store_free(view);
    return yes;
}

/* The children of a group, each array described (a group's entry has no description). */
typedef struct {
    json_value *list;
    array_desc *descs; /* one per child; zeroed for groups */
} child_set;

static int children_load(const char *cmd, const zarr_store *store, const zarr_group *g, child_set *cs,
                         skipped_list *skipped) {
    size_t i;
    memset(cs, 0, sizeof *cs);
    if (!(cs->list = group_children(cmd, g))) return 1;
    cs->descs = calloc(cs->list->count ? cs->list->count : 1, sizeof *cs->descs);
    if (!cs->descs) {
        report(cmd, "out of memory");
        return 1;
    }
    for (i = 0; i < cs->list->count; i++) {
        const json_value *c = &cs->list->items[i];
        const char *path = json_string(json_get(c, "path")), *type = json_string(json_get(c, "node_type"));
        if (!path || !type || strcmp(type, "array")) continue;
        if (array_describe(cmd, store, path, NULL, &cs->descs[i])) return 1;
        if (!cs->descs[i].decodable) skipped_add(skipped, path);
    }
    return 0;
}

static void children_free(child_set *cs) {
    size_t i;
    for (i = 0; cs->list && i < cs->list->count; i++) array_desc_free(&cs->descs[i]);
    free(cs->descs);
    json_free(cs->list);
    memset(cs, 0, sizeof *cs);
}

/* The dimensions the arrays of a group use, in order of first use: names[k], sizes[k]. */
typedef struct {
    const char *names[256];
    uint64_t sizes[256];
    int conflict[256];
    size_t count;
} dim_set;

static void dims_collect(const child_set *cs, dim_set *ds) {
    size_t i, j, k;
    memset(ds, 0, sizeof *ds);
    for (i = 0; cs->list && i < cs->list->count; i++) {
        const array_desc *d = &cs->descs[i];
        if (!d->decodable || !d->has_dims) continue;
        for (j = 0; j < d->ndim; j++) {
            if (!d->dims[j]) continue;
            for (k = 0; k < ds->count && strcmp(ds->names[k], d->dims[j]); k++) {}
            if (k == ds->count) {
                if (ds->count == 256) continue;
                ds->names[k] = d->dims[j];
                ds->sizes[k] = d->shape[j];
                ds->count++;
            } else if (ds->sizes[k] != d->shape[j]) {
                ds->conflict[k] = 1;
            }
        }
    }
}

static int print_group_info(const char *cmd, node_ref *ref) {
    json_value *attrs;
    child_set cs;
    dim_set ds;
    skipped_list skipped = {0};
    size_t i;
    uint32_t fmt = 0;
    if (!(attrs = group_attributes(cmd, ref->group))) return EXIT_RUNTIME;
    if (children_load(cmd, ref->store, ref->group, &cs, &skipped)) {
        json_free(attrs);
        children_free(&cs);
        skipped_report(cmd, &skipped);
        return EXIT_RUNTIME;
    }
    printf(KEY "group\n", "node:");
    printf(KEY "%s\n", "store:", ref->store_loc);
    printf(KEY "%s\n", "path:", ref->node_path);
    if (zarr_group_format(ref->group, &fmt) == ZARR_OK) printf(KEY "%u\n", "zarr_format:", (unsigned)fmt);
    if (!strcmp(ref->node_path, "/"))
        printf(KEY "%s\n", "consolidated:", store_is_consolidated(ref->store) ? "yes" : "no");
    dims_collect(&cs, &ds);
    if (ds.count) {
        printf(KEY, "dimensions:");
        for (i = 0; i < ds.count; i++)
            printf("%s%s = %llu%s", i ? ", " : "", ds.names[i], (unsigned long long)ds.sizes[i],
                   ds.conflict[i] ? " (other sizes too)" : "");
        fputc('\n', stdout);
    }
    printf(KEY "%lu\n", "attributes:", (unsigned long)attrs->count);
    print_attributes(stdout, attrs, 2, NULL);
    json_free(attrs);
    printf(KEY "%lu\n", "children:", (unsigned long)cs.list->count);
    for (i = 0; i < cs.list->count; i++) {
        const json_value *c = &cs.list->items[i];
        const char *name = json_string(json_get(c, "name")), *type = json_string(json_get(c, "node_type"));
        if (!name || !type) continue;
        if (!strcmp(type, "group")) {
            printf("  %s/\n", name);
        } else {
            printf("  %-17s ", name);
            print_array_line(stdout, &cs.descs[i]);
            if (cs.descs[i].decodable) print_attributes(stdout, cs.descs[i].attrs, 6, dims_attribute(&cs.descs[i]));
        }
    }
    children_free(&cs);
    skipped_report(cmd, &skipped);
    return EXIT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* The members of an array's object, after "{"; no closing brace. */
static void json_array_members(FILE *out, const array_desc *d, int with_metadata) {
    int overflow;
    uint64_t nchunks;
    fputs("\"name\":", out);
    json_put_string(out, node_name(d->path));
    fputs(",\"path\":", out);
    json_put_string(out, d->path);
    fputs(",\"node_type\":\"array\"", out);
    if (!d->decodable) {
        fputs(",\"decodable\":false,\"error\":", out);
        json_put_string(out, d->why ? d->why : "");
        return;
    }
    fprintf(out, ",\"zarr_format\":%d,\"decodable\":true,\"data_type\":", d->format);
    json_put_string(out, d->dtname);
    fputs(",\"shape\":", out);
    json_put_u64_list(out, d->ndim, d->shape);
    fputs(",\"chunk_shape\":", out);
    json_put_u64_list(out, d->ndim, d->chunks);
    if (d->sharded) {
        fputs(",\"inner_chunk_shape\":", out);
        json_put_u64_list(out, d->ndim, d->inner);
    }
    fputs(",\"dimension_names\":", out);
    json_put_dimension_names(out, d);
    fputs(",\"fill_value\":", out);
    if (json_get(d->meta, "fill_value")) json_print(json_get(d->meta, "fill_value"), out);
    else fputs("null", out);
    fputs(",\"attributes\":", out);
    json_print(d->attrs, out);
    nchunks = array_nchunks(d, &overflow);
    if (overflow) fputs(",\"chunks\":null", out);
    else fprintf(out, ",\"chunks\":%llu", (unsigned long long)nchunks);
    fprintf(out, ",\"nbytes\":%llu", (unsigned long long)array_nbytes(d));
    if (with_metadata) {
        fputs(",\"metadata\":", out);
        json_print(d->meta, out);
    }
}

static void json_dims(FILE *out, const dim_set *ds) {
    size_t i;
    fputc('{', out);
    for (i = 0; i < ds->count; i++) {
        if (i) fputc(',', out);
        json_put_string(out, ds->names[i]);
        fprintf(out, ":%llu", (unsigned long long)ds->sizes[i]);
    }
    fputc('}', out);
}

/* A group as JSON: with `depth` levels of children (-1: all). */
static int json_group(const char *cmd, FILE *out, const zarr_store *store, const zarr_group *g, const char *path,
                      int depth, int level, skipped_list *skipped) {
    json_value *attrs;
    child_set cs;
    dim_set ds;
    size_t i, written = 0;
    uint32_t fmt = 0;
    int rc = 0;
    if (level > 256) {
        report(cmd, "hierarchy deeper than 256 levels");
        return 1;
    }
    if (!(attrs = group_attributes(cmd, g))) return 1;
    if (children_load(cmd, store, g, &cs, skipped)) {
        json_free(attrs);
        children_free(&cs);
        return 1;
    }
    fputs("\"name\":", out);
    json_put_string(out, node_name(path));
    fputs(",\"path\":", out);
    json_put_string(out, path);
    fputs(",\"node_type\":\"group\"", out);
    if (zarr_group_format(g, &fmt) == ZARR_OK) fprintf(out, ",\"zarr_format\":%u", (unsigned)fmt);
    fputs(",\"attributes\":", out);
    json_print(attrs, out);
    json_free(attrs);
    dims_collect(&cs, &ds);
    fputs(",\"dimensions\":", out);
    json_dims(out, &ds);
    fputs(",\"children\":[", out);
    for (i = 0; i < cs.list->count && !rc; i++) {
        const json_value *c = &cs.list->items[i];
        const char *cpath = json_string(json_get(c, "path")), *type = json_string(json_get(c, "node_type"));
        if (!cpath || !type) continue;
        if (written++) fputc(',', out);
        fputc('{', out);
        if (!strcmp(type, "array")) {
            json_array_members(out, &cs.descs[i], 0);
        } else if (depth == 0) {
            fputs("\"name\":", out);
            json_put_string(out, node_name(cpath));
            fputs(",\"path\":", out);
            json_put_string(out, cpath);
            fputs(",\"node_type\":\"group\"", out);
        } else {
            zarr_group *sub = NULL;
            if (zarr_group_open(store, cpath, &sub) != ZARR_OK) {
                report_zarr(cmd, "cannot open group %s", cpath);
                rc = 1;
            } else {
                rc = json_group(cmd, out, store, sub, cpath, depth < 0 ? depth : depth - 1, level + 1, skipped);
            }
            zarr_group_free(sub);
        }
        fputc('}', out);
    }
    fputc(']', out);
    children_free(&cs);
    return rc;
}

/* ---- commands -------------------------------------------------------------------------- */

/* One argument PATH, --json, or --help. Returns -1 to go on, else an exit code. */
static int parse_args(const char *cmd, const char *help, int argc, char **argv, const char **path, int *json) {
    int i;
    *path = NULL;
    *json = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(help, stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "--json")) {
            *json = 1;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            report(cmd, "unknown option '%s' (see zarr %s --help)", argv[i], cmd);
            return EXIT_USAGE;
        }
        if (*path) {
            report(cmd, "one PATH expected (see zarr %s --help)", cmd);
            return EXIT_USAGE;
        }
        *path = argv[i];
    }
    if (!*path) {
        report(cmd, "PATH expected (see zarr %s --help)", cmd);
        return EXIT_USAGE;
    }
    return -1;
}

/* Write buffered stdout; a failure (a closed pipe, a full disk) is a runtime error. */
static int finish_stdout(const char *cmd, int rc) {
    if (fflush(stdout) != 0 || ferror(stdout)) {
        report(cmd, "cannot write to standard output");
        return EXIT_RUNTIME;
    }
    return rc;
}

static int array_command(const char *cmd, node_ref *ref, int json, int tree) {
    array_desc d;
    skipped_list skipped = {0};
    int rc = EXIT_OK;
    if (ref->undecodable) {
        memset(&d, 0, sizeof d);
        d.path = dup_str(ref->node_path);
        d.why = dup_str(ref->why);
    } else if (array_describe(cmd, ref->store, ref->node_path, ref->array, &d)) {
        array_desc_free(&d);
        return EXIT_RUNTIME;
    }
    if (!d.decodable) skipped_add(&skipped, d.path);
    if (json) {
        fputc('{', stdout);
        json_array_members(stdout, &d, !tree);
        if (!tree) {
            fputs(",\"store\":", stdout);
            json_put_string(stdout, ref->store_loc);
        }
        fputs("}\n", stdout);
    } else if (tree) {
        printf("%s  ", ref->node_path);
        print_array_line(stdout, &d);
    } else {
        print_array_info(ref, &d);
    }
    array_desc_free(&d);
    skipped_report(cmd, &skipped);
    return rc;
}

int cmd_info(int argc, char **argv) {
    const char *path;
    node_ref ref;
    int json, rc = parse_args("info", info_help, argc, argv, &path, &json);
    if (rc >= 0) return rc;
    if ((rc = resolve_path("info", path, &ref)) != EXIT_OK) return rc;
    if ((rc = node_open("info", &ref)) == EXIT_OK) {
        if (!ref.group) {
            rc = array_command("info", &ref, json, 0);
        } else if (!json) {
            rc = print_group_info("info", &ref);
        } else {
            skipped_list skipped = {0};
            fputc('{', stdout);
            rc = json_group("info", stdout, ref.store, ref.group, ref.node_path, 0, 0, &skipped) ? EXIT_RUNTIME : EXIT_OK;
            fputs(",\"store\":", stdout);
            json_put_string(stdout, ref.store_loc);
            if (!strcmp(ref.node_path, "/"))
                printf(",\"consolidated\":%s", store_is_consolidated(ref.store) ? "true" : "false");
            fputs("}\n", stdout);
            skipped_report("info", &skipped);
        }
    }
    node_close(&ref);
    return finish_stdout("info", rc);
}

static int tree_walk(const char *cmd, zarr_store *store, const zarr_group *g, int depth, skipped_list *skipped) {
    child_set cs;
    size_t i;
    int rc = EXIT_OK;
    if (depth > 256) {
        report(cmd, "hierarchy deeper than 256 levels");
        return EXIT_RUNTIME;
    }
    if (children_load(cmd, store, g, &cs, skipped)) {
        children_free(&cs);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < cs.list->count; i++) {
        const json_value *c = &cs.list->items[i];
        const char *name = json_string(json_get(c, "name")), *path = json_string(json_get(c, "path"));
        const char *type = json_string(json_get(c, "node_type"));
        if (!name || !path || !type) continue;
        if (!strcmp(type, "group")) {
            zarr_group *sub = NULL;
            printf("%*s%s/\n", 2 * depth, "", name);
            if (zarr_group_open(store, path, &sub) != ZARR_OK) {
                report_zarr(cmd, "cannot open group %s", path);
                rc = EXIT_RUNTIME;
            } else if (tree_walk(cmd, store, sub, depth + 1, skipped) != EXIT_OK) {
                rc = EXIT_RUNTIME;
            }
            zarr_group_free(sub);
        } else {
            printf("%*s%s  ", 2 * depth, "", name);
            print_array_line(stdout, &cs.descs[i]);
        }
    }
    children_free(&cs);
    return rc;
}

int cmd_tree(int argc, char **argv) {
    const char *path;
    node_ref ref;
    int json, rc = parse_args("tree", tree_help, argc, argv, &path, &json);
    if (rc >= 0) return rc;
    if ((rc = resolve_path("tree", path, &ref)) != EXIT_OK) return rc;
    if ((rc = node_open("tree", &ref)) == EXIT_OK) {
        if (!ref.group) {
            rc = array_command("tree", &ref, json, 1);
        } else {
            skipped_list skipped = {0};
            if (json) {
                fputc('{', stdout);
                rc = json_group("tree", stdout, ref.store, ref.group, ref.node_path, -1, 0, &skipped) ? EXIT_RUNTIME
                                                                                                    : EXIT_OK;
                fputs("}\n", stdout);
            } else {
                printf("%s\n", ref.node_path);
                rc = tree_walk("tree", ref.store, ref.group, 1, &skipped);
            }
            skipped_report("tree", &skipped);
        }
    }
    node_close(&ref);
    return finish_stdout("tree", rc);
}
