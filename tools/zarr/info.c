/* info.c -- `zarr info` and `zarr tree`, as text or JSON. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>

#include "describe.h"

/* info --raw: attribute values as stored (no base64 decoding). */
static int info_raw;

/* The data type attributes_print decodes attribute values for (NULL with --raw). */
static const dtype *attr_type(const array_desc *d) { return info_raw || !d->described ? NULL : &d->type; }

static const char *info_help =
    "usage: zarr info PATH [--json] [--raw] [--store-options JSON]\n"
    "\n"
    "Print a metadata summary of the array or group at PATH (see `zarr --help` for PATH,\n"
    "URLs and --store-options).\n"
    "\n"
    "Array: store, path, zarr format, the variable as ncdump declares it\n"
    "(`float32 tas(time, lat, lon)`), shape, dimension names (Zarr v3 dimension_names, or\n"
    "xarray's _ARRAY_DIMENSIONS attribute in Zarr v2), chunk shape (and inner chunk shape\n"
    "when sharded), data type with its details (a datetime's unit, a string's length, a\n"
    "struct's fields and their offsets, a float8 format's layout), fill value (printed as\n"
    "`zarr cat` prints values), codecs with their settings (nested sharding codecs indented;\n"
    "for Zarr v2: order, filters, compressor), every attribute with its value\n"
    "(`units = \"K\"`, lists as `1, 2, 3`, other values as JSON; a _FillValue or\n"
    "missing_value that xarray wrote as base64 of its little-endian bytes is shown decoded\n"
    "for the array's data type: `_FillValue = nan (base64 \"AAAAAAAA+H8=\")`: floats from\n"
    "the 8 bytes of a float64 (as xarray writes them for every float type) or from bytes of\n"
    "the type's size, complex from two such strings, byte strings from up to their length;\n"
    "other strings are shown as they are), the number of chunks in the grid, the size of\n"
    "the decoded data, and what the array occupies in its store: the stored bytes, how many\n"
    "chunks are stored, and the compression ratio (the decoded size of the stored chunks, at\n"
    "their full chunk shape, divided by their stored size).\n"
    "\n"
    "The stored size is the sum of each stored chunk's size, asked of the store without\n"
    "reading the chunk. For a grid of up to 100000 chunks ($ZARR_INFO_GRID_LIMIT) every\n"
    "chunk of the grid is asked for; for larger grids the store lists the array's keys and\n"
    "only the chunks found are asked for (on a remote store only 1000 of them, evenly\n"
    "spread, and the total is extrapolated: shown with `~`).\n"
    "\n"
    "Group: zarr format, whether the store has consolidated metadata (at the root), the\n"
    "dimensions its arrays use (`time = 365, lat = 90`), its attributes, and its direct\n"
    "children: each array on one line (as `zarr tree` shows it) followed by its attributes,\n"
    "like `ncdump -h`.\n"
    "\n"
    "An array this build of libzarr cannot decode (a data type or codec it lacks) is\n"
    "described from its metadata document, marked `not decodable here` with the reason, and\n"
    "a note on stderr lists such arrays; it is not an error.\n"
    "\n"
    "  --raw    attribute values exactly as stored (no base64 decoding).\n"
    "  --json   print one JSON object instead (keys: path, name, node_type, store,\n"
    "           zarr_format; arrays: decodable, error (when not), data_type, shape,\n"
    "           chunk_shape, inner_chunk_shape when sharded, dimension_names, fill_value (as\n"
    "           the metadata spells it), attributes, chunks, nbytes, stored (chunks, nbytes,\n"
    "           method, estimated; null when not worked out), metadata (the whole\n"
    "           document); groups: attributes, consolidated, dimensions, children).\n"
    "\n"
    "An Icechunk repository (an icechunk+... URL) is described first: its format and spec\n"
    "version, its branches and tags with their snapshot ids, and the history of the version\n"
    "opened (each snapshot's id, time and message, newest first).\n"
    "\n"
    "Exit status: 0 ok, 1 runtime error, 2 usage error.\n";

static const char *tree_help =
    "usage: zarr tree PATH [--json] [--store-options JSON]\n"
    "\n"
    "Print the hierarchy below the group at PATH, one node per line, indented by depth\n"
    "(like h5ls -r). Groups end with '/'; arrays show data type, shape, dimension names in\n"
    "parentheses when they have them, chunk shape (and inner chunk shape when sharded) and\n"
    "codecs. An array this build of libzarr cannot decode shows the same, read from its\n"
    "metadata document, followed by `(not decodable here: <reason>)`; the walk carries on,\n"
    "and a note on stderr lists such arrays at the end; it is not an error.\n"
    "\n"
    "  --json   print the hierarchy as one JSON object: a group has path, name, node_type,\n"
    "           zarr_format, attributes and children; an array the keys of `zarr info\n"
    "           --json` except metadata, stored and store.\n"
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
        fprintf(stderr, "zarr: %s: note: %lu array%s not decodable here (described from %s metadata):", cmd,
                (unsigned long)s->count, s->count == 1 ? "" : "s", s->count == 1 ? "its" : "their");
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

/* A codec's settings on the line after its name (" key=value ..."), nested codec lists
 * below it, indented. */
static void print_codec_block(FILE *out, const char *name, const json_value *cfg, int indent) {
    size_t i;
    fprintf(out, "%*s%s", indent, "", name);
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
            for (j = 0; j < cfg->items[i].count; j++) {
                const json_value *c = &cfg->items[i].items[j];
                print_codec_block(out, codec_name(c), codec_config(c), indent + 4);
            }
        }
    }
}

/* The same on one line: name(key=value,...), nested lists in brackets. */
static void print_codec_inline(FILE *out, const char *name, const json_value *cfg) {
    size_t i, j;
    int first = 1;
    fputs(name, out);
    if (!cfg || cfg->type != JSON_OBJECT) return;
    for (i = 0; i < cfg->count; i++) {
        if (!strcmp(cfg->keys[i], "id")) continue;
        fprintf(out, "%s%s=", first ? "(" : ",", cfg->keys[i]);
        first = 0;
        if (is_codec_list(&cfg->items[i])) {
            fputc('[', out);
            for (j = 0; j < cfg->items[i].count; j++) {
                const json_value *c = &cfg->items[i].items[j];
                if (j) fputc(',', out);
                print_codec_inline(out, codec_name(c), codec_config(c));
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

/* "float64 [10, 10] (y, x) chunks [5, 5] codecs bytes(endian=little) gzip(level=1)",
 * then "  (not decodable here: ...)" for an array this build cannot decode. */
static void print_array_line(FILE *out, const array_desc *d) {
    const json_value *v;
    size_t i;
    if (!d->described) {
        fprintf(out, "(not decodable here: %s)\n", d->why ? d->why : "unknown reason");
        return;
    }
    fprintf(out, "%s ", d->type.name);
    print_dims(out, d->ndim, d->shape);
    if (d->has_dims) {
        fputc(' ', out);
        print_dim_names(out, d);
    }
    fprintf(out, " chunks ");
    if (d->rectilinear) fputs("rectilinear, at most ", out);
    if (d->grid_known) print_dims(out, d->ndim, d->chunks);
    else fputs("?", out);
    if (d->sharded) {
        fprintf(out, " inner ");
        print_dims(out, d->ndim, d->inner);
    }
    if (d->format == 2) {
        fprintf(out, " v2");
        v = json_get(d->meta, "filters");
        for (i = 0; is_codec_list(v) && i < v->count; i++) {
            fprintf(out, " filter ");
            print_codec_inline(out, codec_name(&v->items[i]), codec_config(&v->items[i]));
        }
        v = json_get(d->meta, "compressor");
        fprintf(out, " compressor ");
        if (v && v->type == JSON_OBJECT) print_codec_inline(out, codec_name(v), codec_config(v));
        else fprintf(out, "none");
    } else {
        fprintf(out, " codecs");
        for (i = 0; i < d->ncodecs; i++) {
            fputc(' ', out);
            print_codec_inline(out, d->codecs[i].name, d->codecs[i].config);
        }
    }
    if (!d->decodable) fprintf(out, "  (not decodable here: %s)", d->why ? d->why : "unknown reason");
    fputc('\n', out);
}

static void print_fill_value(const array_desc *d) {
    const json_value *fill = json_get(d->meta, "fill_value");
    unsigned char small[64], *buf = small;
    if (d->format == 2 && (!fill || fill->type == JSON_NULL)) {
        printf("null (no fill value: unwritten chunks read as zero bytes)");
        return;
    }
    if (!d->decodable || !dtype_printable(&d->type)) {
        print_value(stdout, fill);
        return;
    }
    if (d->type.size > sizeof small && !(buf = malloc(d->type.size))) {
        print_value(stdout, fill);
        return;
    }
    if (zarr_array_fill_value(d->array, buf, d->type.size) == ZARR_OK) value_put(stdout, &d->type, buf);
    else print_value(stdout, fill);
    if (buf != small) free(buf);
}

static void print_stored(const array_desc *d, const stored_info *st) {
    char size[32];
    int overflow;
    uint64_t nchunks = array_nchunks(d, &overflow), chunk_bytes = d->type.size;
    size_t i;
    printf(KEY, "stored:");
    if (!st->known) {
        printf("not worked out: %s\n", st->why);
        return;
    }
    if (!st->bytes_known) {
        printf("%llu of %s%llu chunks (%s; their sizes are not known without decoding support)\n",
               (unsigned long long)st->chunks, overflow ? "more than " : "", (unsigned long long)nchunks, st->method);
        return;
    }
    printf("%s%llu bytes", st->sampled ? "~" : "", (unsigned long long)st->bytes);
    if (st->bytes >= 1024) printf(" (%s)", human_bytes(st->bytes, size, sizeof size));
    printf(" in %llu of %s%llu chunks", (unsigned long long)st->chunks, overflow ? "more than " : "",
           (unsigned long long)nchunks);
    for (i = 0; i < d->ndim; i++) chunk_bytes = d->chunks[i] && chunk_bytes > UINT64_MAX / d->chunks[i] ? 0 : chunk_bytes * d->chunks[i];
    if (st->bytes > 0 && st->decoded > 0)
        printf(", ratio %.2f", (double)st->decoded / (double)st->bytes);
    else if (st->bytes > 0 && chunk_bytes > 0 && !d->rectilinear)
        printf(", ratio %s%.2f", st->sampled ? "~" : "", (double)chunk_bytes * (double)st->chunks / (double)st->bytes);
    printf(" (%s", st->method);
    if (st->sampled) printf("; sizes of %llu chunks, extrapolated", (unsigned long long)st->sampled);
    printf(")\n");
}

static void print_array_info(const node_ref *ref, const array_desc *d) {
    const json_value *v;
    size_t i;
    int overflow;
    uint64_t nchunks, nbytes;
    char size[32], details[200];
    const char *summary;
    printf(KEY "array\n", "node:");
    printf(KEY "%s\n", "store:", ref->store_loc);
    printf(KEY "%s\n", "path:", d->path);
    if (!d->decodable) printf(KEY "not decodable here: %s\n", "status:", d->why ? d->why : "unknown reason");
    if (!d->described) return;
    printf(KEY "%d%s\n", "zarr_format:", d->format, d->draft ? " (2022 draft layout)" : "");
    if (d->has_dims) {
        printf(KEY "%s %s", "variable:", d->type.name, node_name(d->path));
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
    if (d->grid_known) print_dims(stdout, d->ndim, d->chunks);
    else print_value(stdout, json_get(d->meta, "chunk_grid"));
    if (d->rectilinear) {
        /* The chunks differ: the longest along each dimension above, every length here. */
        printf(" at most\n" KEY, "chunk_grid:");
        printf("rectilinear ");
        print_value(stdout, json_get(json_get(json_get(d->meta, "chunk_grid"), "configuration"), "chunk_shapes"));
    }
    if (d->sharded) {
        printf(" (shards)\n" KEY, "inner_chunk_shape:");
        print_dims(stdout, d->ndim, d->inner);
    }
    printf("\n" KEY "%s", "data_type:", d->type.name);
    if (d->format == 2 && json_string(json_get(d->meta, "dtype"))) printf(" (%s)", json_string(json_get(d->meta, "dtype")));
    if (d->draft && json_string(json_get(d->meta, "data_type"))) printf(" (%s)", json_string(json_get(d->meta, "data_type")));
    fputc('\n', stdout);
    if ((summary = dtype_summary(&d->type, details, sizeof details))) printf("  %s\n", summary);
    dtype_print_fields(stdout, &d->type, 2);
    printf(KEY, "fill_value:");
    print_fill_value(d);
    fputc('\n', stdout);
    if (d->format == 2) {
        printf(KEY, "order:");
        print_value(stdout, json_get(d->meta, "order"));
        v = json_get(d->meta, "filters");
        fputc('\n', stdout);
        if (is_codec_list(v)) printf("filters:\n");
        else printf(KEY "none\n", "filters:");
        for (i = 0; is_codec_list(v) && i < v->count; i++)
            print_codec_block(stdout, codec_name(&v->items[i]), codec_config(&v->items[i]), 2);
        v = json_get(d->meta, "compressor");
        if (v && v->type == JSON_OBJECT) {
            printf("compressor:\n");
            print_codec_block(stdout, codec_name(v), codec_config(v), 2);
        } else {
            printf(KEY "none\n", "compressor:");
        }
        printf(KEY, "dimension_separator:");
        v = json_get(d->meta, "dimension_separator");
        fputs(json_string(v) ? json_string(v) : ".", stdout);
        fputc('\n', stdout);
    } else {
        printf("codecs:\n");
        for (i = 0; i < d->ncodecs; i++) print_codec_block(stdout, d->codecs[i].name, d->codecs[i].config, 2);
    }
    printf(KEY "%lu\n", "attributes:",
           (unsigned long)attributes_count(d->array, NULL, d->decodable ? NULL : d->attrs, dims_attribute_name(d)));
    attributes_print(stdout, d->array, NULL, d->decodable ? NULL : d->attrs, 2, dims_attribute_name(d), attr_type(d));
    printf(KEY, "chunks:");
    if (!d->grid_known) {
        printf("? (the chunk grid is not a regular one this tool reads)\n");
        return;
    }
    nchunks = array_nchunks(d, &overflow);
    if (overflow) printf("more than 2^64");
    else printf("%llu", (unsigned long long)nchunks);
    printf(" (grid ");
    for (i = 0; i < d->ndim; i++) printf("%s%llu", i ? " x " : "", (unsigned long long)d->grid[i]);
    printf("%s)\n", d->ndim ? "" : "scalar");
    nbytes = array_nbytes(d);
    if (d->type.size) {
        printf(KEY "%llu bytes", "size:", (unsigned long long)nbytes);
        if (nbytes >= 1024) printf(" (%s)", human_bytes(nbytes, size, sizeof size));
        printf(" decoded\n");
    }
    {
        stored_info st;
        array_stored(ref->store, d, ref->remote, &st);
        print_stored(d, &st);
    }
}

/* Whether the store has consolidated metadata at its root. */
static int store_is_consolidated(const zarr_store *store) {
    zarr_store *view = NULL;
    int yes = zarr_store_open_consolidated(store, &view) == ZARR_OK;
    zarr_store_free(view);
    return yes;
}

/* The children of a group (zarr_group_child_*), each array described. */
typedef struct {
    size_t count;
    char **names, **paths;
    int *is_group;
    array_desc *descs; /* zeroed for groups */
} child_set;

static void children_free(child_set *cs) {
    size_t i;
    for (i = 0; i < cs->count; i++) {
        if (cs->names) free(cs->names[i]);
        if (cs->paths) free(cs->paths[i]);
        if (cs->descs) array_desc_free(&cs->descs[i]);
    }
    free(cs->names);
    free(cs->paths);
    free(cs->is_group);
    free(cs->descs);
    memset(cs, 0, sizeof *cs);
}

static int children_load(const char *cmd, const zarr_store *store, const zarr_group *g, const char *path,
                         child_set *cs, skipped_list *skipped) {
    size_t i, n = 0;
    memset(cs, 0, sizeof *cs);
    if (zarr_group_child_count(g, &n) != ZARR_OK) {
        report_zarr(cmd, "cannot list the children of %s", path);
        return 1;
    }
    cs->names = calloc(n ? n : 1, sizeof *cs->names);
    cs->paths = calloc(n ? n : 1, sizeof *cs->paths);
    cs->is_group = calloc(n ? n : 1, sizeof *cs->is_group);
    cs->descs = calloc(n ? n : 1, sizeof *cs->descs);
    if (!cs->names || !cs->paths || !cs->is_group || !cs->descs) {
        report(cmd, "out of memory");
        return 1;
    }
    cs->count = n;
    for (i = 0; i < n; i++) {
        char *name = NULL;
        zarr_node_type type = 0;
        if (zarr_group_child_name(g, i, &name) != ZARR_OK || zarr_group_child_node_type(g, i, &type) != ZARR_OK) {
            zarr_string_free(name);
            report_zarr(cmd, "cannot read child %lu of %s", (unsigned long)i, path);
            return 1;
        }
        cs->names[i] = dup_str(name);
        zarr_string_free(name);
        cs->paths[i] = child_path(path, cs->names[i]);
        cs->is_group[i] = type == ZARR_NODE_TYPE_GROUP;
        if (cs->is_group[i]) continue;
        if (array_describe(cmd, store, cs->paths[i], &cs->descs[i])) return 1;
        if (!cs->descs[i].decodable) skipped_add(skipped, cs->paths[i]);
    }
    return 0;
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
    for (i = 0; i < cs->count; i++) {
        const array_desc *d = &cs->descs[i];
        if (cs->is_group[i] || !d->described || !d->has_dims) continue;
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
    child_set cs;
    dim_set ds;
    skipped_list skipped = {0};
    size_t i;
    uint32_t fmt = 0;
    if (children_load(cmd, ref->store, ref->group, ref->node_path, &cs, &skipped)) {
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
    printf(KEY "%lu\n", "attributes:", (unsigned long)attributes_count(NULL, ref->group, NULL, NULL));
    attributes_print(stdout, NULL, ref->group, NULL, 2, NULL, NULL);
    printf(KEY "%lu\n", "children:", (unsigned long)cs.count);
    for (i = 0; i < cs.count; i++) {
        const array_desc *d = &cs.descs[i];
        if (cs.is_group[i]) {
            printf("  %s/\n", cs.names[i]);
        } else {
            printf("  %-17s ", cs.names[i]);
            print_array_line(stdout, d);
            if (d->described)
                attributes_print(stdout, d->array, NULL, d->decodable ? NULL : d->attrs, 6, dims_attribute_name(d),
                                 attr_type(d));
        }
    }
    children_free(&cs);
    skipped_report(cmd, &skipped);
    return EXIT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_stored(FILE *out, const array_desc *d, const zarr_store *store, int remote) {
    stored_info st;
    array_stored(store, d, remote, &st);
    fputs(",\"stored\":", out);
    if (!st.known) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{\"chunks\":%llu,\"nbytes\":", (unsigned long long)st.chunks);
    if (st.bytes_known) fprintf(out, "%llu", (unsigned long long)st.bytes);
    else fputs("null", out);
    fputs(",\"method\":", out);
    json_put_string(out, st.method);
    fprintf(out, ",\"estimated\":%s}", st.sampled ? "true" : "false");
}

/* The members of an array's object, after "{"; no closing brace. */
static void json_array_members(FILE *out, const array_desc *d, int with_metadata) {
    int overflow;
    uint64_t nchunks;
    fputs("\"name\":", out);
    json_put_string(out, node_name(d->path));
    fputs(",\"path\":", out);
    json_put_string(out, d->path);
    fputs(",\"node_type\":\"array\"", out);
    fprintf(out, ",\"decodable\":%s", d->decodable ? "true" : "false");
    if (!d->decodable) {
        fputs(",\"error\":", out);
        json_put_string(out, d->why ? d->why : "");
    }
    if (!d->described) return;
    fprintf(out, ",\"zarr_format\":%d,\"data_type\":", d->format);
    json_put_string(out, d->type.name);
    fputs(",\"shape\":", out);
    json_put_u64_list(out, d->ndim, d->shape);
    fputs(",\"chunk_shape\":", out);
    if (d->grid_known) json_put_u64_list(out, d->ndim, d->chunks);
    else fputs("null", out);
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
    if (overflow || !d->grid_known) fputs(",\"chunks\":null", out);
    else fprintf(out, ",\"chunks\":%llu", (unsigned long long)nchunks);
    if (d->type.size) fprintf(out, ",\"nbytes\":%llu", (unsigned long long)array_nbytes(d));
    else fputs(",\"nbytes\":null", out);
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
    size_t i;
    uint32_t fmt = 0;
    int rc = 0;
    if (level > 256) {
        report(cmd, "hierarchy deeper than 256 levels");
        return 1;
    }
    if (children_load(cmd, store, g, path, &cs, skipped)) {
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
    attrs = attributes_json(NULL, g);
    json_print(attrs, out);
    json_free(attrs);
    dims_collect(&cs, &ds);
    fputs(",\"dimensions\":", out);
    json_dims(out, &ds);
    fputs(",\"children\":[", out);
    for (i = 0; i < cs.count && !rc; i++) {
        if (i) fputc(',', out);
        fputc('{', out);
        if (!cs.is_group[i]) {
            json_array_members(out, &cs.descs[i], 0);
        } else if (depth == 0) {
            fputs("\"name\":", out);
            json_put_string(out, cs.names[i]);
            fputs(",\"path\":", out);
            json_put_string(out, cs.paths[i]);
            fputs(",\"node_type\":\"group\"", out);
        } else {
            zarr_group *sub = NULL;
            if (zarr_group_open(store, cs.paths[i], &sub) != ZARR_OK) {
                report_zarr(cmd, "cannot open group %s", cs.paths[i]);
                rc = 1;
            } else {
                rc = json_group(cmd, out, store, sub, cs.paths[i], depth < 0 ? depth : depth - 1, level + 1, skipped);
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

/* One argument PATH, --json, --store-options, or --help. Returns -1 to go on, else an exit
 * code. */
static int parse_args(const char *cmd, const char *help, int argc, char **argv, const char **path, int *json,
                      const char **options) {
    int i;
    *path = NULL;
    *json = 0;
    *options = NULL; /* store_open falls back on $ZARR_STORE_OPTIONS */
    for (i = 1; i < argc; i++) {
        int missing = 0;
        const char *v;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(help, stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "--json")) {
            *json = 1;
            continue;
        }
        if (!strcmp(argv[i], "--raw") && !strcmp(cmd, "info")) {
            info_raw = 1;
            continue;
        }
        if ((v = option_value(argc, argv, &i, "--store-options", &missing))) {
            if (missing) {
                report(cmd, "--store-options needs a JSON object (see zarr --help)");
                return EXIT_USAGE;
            }
            *options = v;
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
    if (array_describe(cmd, ref->store, ref->node_path, &d)) {
        array_desc_free(&d);
        return EXIT_RUNTIME;
    }
    if (!d.decodable) skipped_add(&skipped, d.path);
    if (json) {
        fputc('{', stdout);
        json_array_members(stdout, &d, !tree);
        if (!tree) {
            json_stored(stdout, &d, ref->store, ref->remote);
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
    return EXIT_OK;
}

/* The versions of a store that keeps them (an Icechunk repository), from
 * zarr_store_versions_json, as lines before the node's summary:
 *   repository: icechunk (spec version 2)
 *   branches:
 *     main  <id>
 *   tags:
 *     v1  <id>
 *   history of <what was opened>:
 *     <id>  <written_at>  <message>
 * Prints nothing for other stores. Returns 0, or -1 after reporting a failure. */
static int print_versions(const char *cmd, const zarr_store *store) {
    char *text = NULL, err[160];
    json_value *doc;
    const json_value *opened, *list;
    unsigned long long spec = 0;
    size_t i;
    zarr_status s = zarr_store_versions_json(store, &text);
    if (s == ZARR_ERROR_UNSUPPORTED) return 0;
    if (s != ZARR_OK) {
        report_zarr(cmd, "cannot read the repository's versions");
        return -1;
    }
    doc = json_parse(text, strlen(text), err, sizeof err);
    zarr_string_free(text);
    if (!doc || doc->type != JSON_OBJECT) {
        report(cmd, "the repository's versions are not a JSON object%s%s", doc ? "" : ": ", doc ? "" : err);
        json_free(doc);
        return -1;
    }
    json_u64(json_get(doc, "spec_version"), &spec);
    printf("repository: %s (spec version %llu)\n", json_string(json_get(doc, "format")), spec);
    list = json_get(doc, "branches");
    fputs("branches:\n", stdout);
    for (i = 0; list && list->type == JSON_OBJECT && i < list->count; i++)
        printf("  %s  %s\n", list->keys[i], json_string(&list->items[i]) ? json_string(&list->items[i]) : "?");
    list = json_get(doc, "tags");
    fputs("tags:\n", stdout);
    for (i = 0; list && list->type == JSON_OBJECT && i < list->count; i++)
        printf("  %s  %s\n", list->keys[i], json_string(&list->items[i]) ? json_string(&list->items[i]) : "?");
    opened = json_get(doc, "opened");
    printf("history of %s:\n",
           opened && opened->type == JSON_OBJECT && opened->count == 1 && json_string(&opened->items[0])
               ? json_string(&opened->items[0])
               : "?");
    list = json_get(doc, "history");
    for (i = 0; list && list->type == JSON_ARRAY && i < list->count; i++) {
        const json_value *entry = &list->items[i];
        const char *id = json_string(json_get(entry, "id"));
        const char *when = json_string(json_get(entry, "written_at"));
        const char *message = json_string(json_get(entry, "message"));
        printf("  %s  %s  %s\n", id ? id : "?", when ? when : "?", message ? message : "");
    }
    json_free(doc);
    return 0;
}

int cmd_info(int argc, char **argv) {
    const char *path, *options;
    node_ref ref;
    int json, rc = parse_args("info", info_help, argc, argv, &path, &json, &options);
    if (rc >= 0) return rc;
    if ((rc = resolve_path("info", path, &ref)) != EXIT_OK) return rc;
    ref.options = options;
    if ((rc = node_open("info", &ref)) == EXIT_OK) {
        if (!json && print_versions("info", ref.store)) {
            rc = EXIT_RUNTIME;
        } else if (!ref.group) {
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

static int tree_walk(const char *cmd, zarr_store *store, const zarr_group *g, const char *path, int depth,
                     skipped_list *skipped) {
    child_set cs;
    size_t i;
    int rc = EXIT_OK;
    if (depth > 256) {
        report(cmd, "hierarchy deeper than 256 levels");
        return EXIT_RUNTIME;
    }
    if (children_load(cmd, store, g, path, &cs, skipped)) {
        children_free(&cs);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < cs.count; i++) {
        if (cs.is_group[i]) {
            zarr_group *sub = NULL;
            printf("%*s%s/\n", 2 * depth, "", cs.names[i]);
            if (zarr_group_open(store, cs.paths[i], &sub) != ZARR_OK) {
                report_zarr(cmd, "cannot open group %s", cs.paths[i]);
                rc = EXIT_RUNTIME;
            } else if (tree_walk(cmd, store, sub, cs.paths[i], depth + 1, skipped) != EXIT_OK) {
                rc = EXIT_RUNTIME;
            }
            zarr_group_free(sub);
        } else {
            printf("%*s%s  ", 2 * depth, "", cs.names[i]);
            print_array_line(stdout, &cs.descs[i]);
        }
    }
    children_free(&cs);
    return rc;
}

int cmd_tree(int argc, char **argv) {
    const char *path, *options;
    node_ref ref;
    int json, rc = parse_args("tree", tree_help, argc, argv, &path, &json, &options);
    if (rc >= 0) return rc;
    if ((rc = resolve_path("tree", path, &ref)) != EXIT_OK) return rc;
    ref.options = options;
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
                rc = tree_walk("tree", ref.store, ref.group, ref.node_path, 1, &skipped);
            }
            skipped_report("tree", &skipped);
        }
    }
    node_close(&ref);
    return finish_stdout("tree", rc);
}
