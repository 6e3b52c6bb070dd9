/* info.c -- `zarr info` and `zarr tree`. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool.h"

static const char *info_help =
    "usage: zarr info PATH\n"
    "\n"
    "Print a metadata summary of the array or group at PATH (see `zarr --help` for PATH).\n"
    "Array: store, path, zarr format, shape, chunk shape (and inner chunk shape when\n"
    "sharded), data type, fill value, codecs with their settings (nested sharding codecs\n"
    "indented; for Zarr v2: order, filters, compressor), dimension names, attributes, and\n"
    "the number of chunks in the grid. Group: its attributes and its direct children.\n"
    "Exit status: 0 ok, 1 runtime error, 2 usage error.\n";

static const char *tree_help =
    "usage: zarr tree PATH\n"
    "\n"
    "Print the hierarchy below the group at PATH, one node per line, indented by depth\n"
    "(like h5ls -r). Groups end with '/'; arrays show data type, shape, chunk shape (and\n"
    "inner chunk shape when sharded) and codecs. Exit status: 0 ok, 1 runtime error,\n"
    "2 usage error.\n";

#define KEY "%-19s "

/* A scalar or small value: strings unquoted, numbers as written, the rest compact JSON. */
static void print_value(FILE *out, const json_value *v) {
    if (!v) fputs("(none)", out);
    else if (v->type == JSON_STRING) fputs(v->text, out);
    else json_print(v, out);
}

static int is_codec_list(const json_value *v) {
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

/* The codec's name ("name" in v3, "id" in v2, a URI under "codec" or "type" in the 2022
 * draft) and its settings object (v3 and the draft: "configuration"; v2: the codec object
 * itself, minus "id"). */
static const char *codec_name(const json_value *c) {
    static char draft[128];
    const char *n = json_string(json_get(c, "name"));
    if (!n) n = json_string(json_get(c, "id"));
    if (!n && json_string(json_get(c, "codec"))) n = draft_codec_name(json_string(json_get(c, "codec")), draft, sizeof draft);
    if (!n && json_string(json_get(c, "type"))) n = draft_codec_name(json_string(json_get(c, "type")), draft, sizeof draft);
    if (!n && c && c->type == JSON_STRING) n = c->text;
    return n ? n : "?";
}

static const json_value *codec_config(const json_value *c) {
    if (json_get(c, "name") || json_get(c, "codec") || json_get(c, "type")) return json_get(c, "configuration");
    return c; /* v2: settings are siblings of "id" */
}

/* The codec list of a v3 document, or of a 2022 draft document ("codecs", else its single
 * "compressor" object); NULL when there is none. Sets *one when it is a single object. */
static const json_value *v3_codecs(const json_value *meta, int *one) {
    const json_value *v = json_get(meta, "codecs");
    *one = 0;
    if (v && v->type == JSON_ARRAY) return v;
    v = json_get(meta, "compressor");
    if (v && v->type == JSON_OBJECT) {
        *one = 1;
        return v;
    }
    return NULL;
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

static int is_sharded(const json_value *meta) {
    const json_value *codecs = json_get(meta, "codecs");
    size_t i;
    if (!codecs || codecs->type != JSON_ARRAY) return 0;
    for (i = 0; i < codecs->count; i++)
        if (!strcmp(codec_name(&codecs->items[i]), "sharding_indexed")) return 1;
    return 0;
}

typedef struct {
    size_t ndim;
    uint64_t shape[MAX_NDIM], chunks[MAX_NDIM], inner[MAX_NDIM];
    zarr_data_type dt;
    size_t esize;
    char dtname[32];
} array_facts;

static int array_get_facts(const char *cmd, const zarr_array *a, array_facts *f) {
    if (zarr_array_ndim(a, &f->ndim) != ZARR_OK) { report_zarr(cmd, "ndim"); return 1; }
    if (f->ndim > MAX_NDIM) { report(cmd, "array has %lu dimensions (limit %d)", (unsigned long)f->ndim, MAX_NDIM); return 1; }
    if (zarr_array_shape(a, f->ndim, f->shape) != ZARR_OK || zarr_array_chunk_shape(a, f->ndim, f->chunks) != ZARR_OK ||
        zarr_array_inner_chunk_shape(a, f->ndim, f->inner) != ZARR_OK || zarr_array_data_type(a, &f->dt) != ZARR_OK ||
        zarr_array_element_size(a, &f->esize) != ZARR_OK) {
        report_zarr(cmd, "cannot read array properties");
        return 1;
    }
    {
        char tmp[32];
        snprintf(f->dtname, sizeof f->dtname, "%s", dtype_name(f->dt, f->esize, tmp, sizeof tmp));
    }
    return 0;
}

static int print_array_info(const char *cmd, node_ref *ref) {
    array_facts f;
    json_value *meta;
    const json_value *v;
    char *attrs_text = NULL;
    json_value *attrs = NULL;
    size_t i;
    unsigned long long nchunks = 1;
    int overflow = 0, format;
    if (array_get_facts(cmd, ref->array, &f)) return EXIT_RUNTIME;
    if (!(meta = array_metadata(cmd, ref->array))) return EXIT_RUNTIME;
    format = metadata_format(meta);
    printf(KEY "array\n", "node:");
    printf(KEY "%s\n", "store:", ref->store_dir);
    printf(KEY "%s\n", "path:", ref->node_path);
    printf(KEY "%d\n", "zarr_format:", format);
    printf(KEY, "shape:");
    print_dims(stdout, f.ndim, f.shape);
    printf("\n" KEY, "chunk_shape:");
    print_dims(stdout, f.ndim, f.chunks);
    if (is_sharded(meta)) {
        printf(" (shards)\n" KEY, "inner_chunk_shape:");
        print_dims(stdout, f.ndim, f.inner);
    }
    printf("\n" KEY "%s", "data_type:", f.dtname);
    if (format == 2 && json_string(json_get(meta, "dtype"))) printf(" (%s)", json_string(json_get(meta, "dtype")));
    printf("\n" KEY, "fill_value:");
    print_value(stdout, json_get(meta, "fill_value"));
    fputc('\n', stdout);
    if (format == 2) {
        printf(KEY, "order:");
        print_value(stdout, json_get(meta, "order"));
        v = json_get(meta, "filters");
        fputc('\n', stdout);
        if (is_codec_list(v)) printf("filters:\n");
        else printf(KEY "none\n", "filters:");
        for (i = 0; is_codec_list(v) && i < v->count; i++) print_codec_block(stdout, &v->items[i], 2);
        v = json_get(meta, "compressor");
        if (v && v->type == JSON_OBJECT) {
            printf("compressor:\n");
            print_codec_block(stdout, v, 2);
        } else {
            printf(KEY "none\n", "compressor:");
        }
        printf(KEY, "dimension_separator:");
        v = json_get(meta, "dimension_separator");
        fputs(json_string(v) ? json_string(v) : ".", stdout);
        fputc('\n', stdout);
    } else {
        int one;
        v = v3_codecs(meta, &one);
        printf("codecs:\n");
        if (one) print_codec_block(stdout, v, 2);
        for (i = 0; !one && v && i < v->count; i++) print_codec_block(stdout, &v->items[i], 2);
        v = json_get(meta, "dimension_names");
        if (v && v->type == JSON_ARRAY) {
            printf(KEY "[", "dimension_names:");
            for (i = 0; i < v->count; i++) {
                if (i) fputs(", ", stdout);
                print_value(stdout, &v->items[i]);
            }
            printf("]\n");
        }
    }
    if (zarr_array_attributes_json(ref->array, &attrs_text) == ZARR_OK)
        attrs = json_parse(attrs_text, strlen(attrs_text), NULL, 0);
    zarr_string_free(attrs_text);
    printf(KEY "%lu", "attributes:", attrs ? (unsigned long)attrs->count : 0UL);
    for (i = 0; attrs && attrs->type == JSON_OBJECT && i < attrs->count; i++) printf("%s%s", i ? ", " : " (", attrs->keys[i]);
    printf("%s\n", attrs && attrs->type == JSON_OBJECT && attrs->count ? ")" : "");
    json_free(attrs);
    for (i = 0; i < f.ndim; i++) {
        unsigned long long n = f.chunks[i] ? f.shape[i] / f.chunks[i] + (f.shape[i] % f.chunks[i] != 0) : 0;
        if (n && nchunks > ~0ULL / n) overflow = 1;
        nchunks *= n;
    }
    printf(KEY, "chunks:");
    if (overflow) printf("more than 2^64");
    else printf("%llu", nchunks);
    printf(" (grid ");
    for (i = 0; i < f.ndim; i++) {
        unsigned long long n = f.chunks[i] ? f.shape[i] / f.chunks[i] + (f.shape[i] % f.chunks[i] != 0) : 0;
        printf("%s%llu", i ? " x " : "", n);
    }
    printf("%s)\n", f.ndim ? "" : "scalar");
    json_free(meta);
    return EXIT_OK;
}

static int group_format(const node_ref *ref) {
    char p[PATH_MAX + 64];
    struct stat st;
    snprintf(p, sizeof p, "%s%s/zarr.json", ref->store_dir, strcmp(ref->node_path, "/") ? ref->node_path : "");
    if (stat(p, &st) == 0) return 3;
    snprintf(p, sizeof p, "%s%s/.zgroup", ref->store_dir, strcmp(ref->node_path, "/") ? ref->node_path : "");
    if (stat(p, &st) == 0) return 2;
    return 0;
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

/* "float64 [10, 10] chunks [5, 5] codecs bytes(endian=little) gzip(level=1)" */
static int print_array_line(const char *cmd, const zarr_array *a) {
    array_facts f;
    json_value *meta;
    const json_value *v;
    size_t i;
    if (array_get_facts(cmd, a, &f)) return 1;
    if (!(meta = array_metadata(cmd, a))) return 1;
    printf("%s ", f.dtname);
    print_dims(stdout, f.ndim, f.shape);
    printf(" chunks ");
    print_dims(stdout, f.ndim, f.chunks);
    if (is_sharded(meta)) {
        printf(" inner ");
        print_dims(stdout, f.ndim, f.inner);
    }
    if (metadata_format(meta) == 2) {
        printf(" v2");
        v = json_get(meta, "filters");
        for (i = 0; is_codec_list(v) && i < v->count; i++) {
            printf(" filter ");
            print_codec_inline(stdout, &v->items[i]);
        }
        v = json_get(meta, "compressor");
        printf(" compressor ");
        if (v && v->type == JSON_OBJECT) print_codec_inline(stdout, v);
        else printf("none");
    } else {
        int one;
        printf(" codecs");
        v = v3_codecs(meta, &one);
        if (one) {
            fputc(' ', stdout);
            print_codec_inline(stdout, v);
        }
        for (i = 0; !one && v && i < v->count; i++) {
            fputc(' ', stdout);
            print_codec_inline(stdout, &v->items[i]);
        }
    }
    fputc('\n', stdout);
    json_free(meta);
    return 0;
}

static int print_group_info(const char *cmd, node_ref *ref) {
    char *attrs_text = NULL;
    json_value *attrs = NULL, *children;
    size_t i;
    int rc = EXIT_OK, fmt = group_format(ref);
    if (zarr_group_attributes_json(ref->group, &attrs_text) != ZARR_OK) {
        report_zarr(cmd, "cannot read group attributes");
        return EXIT_RUNTIME;
    }
    attrs = json_parse(attrs_text, strlen(attrs_text), NULL, 0);
    zarr_string_free(attrs_text);
    if (!(children = group_children(cmd, ref->group))) {
        json_free(attrs);
        return EXIT_RUNTIME;
    }
    printf(KEY "group\n", "node:");
    printf(KEY "%s\n", "store:", ref->store_dir);
    printf(KEY "%s\n", "path:", ref->node_path);
    if (fmt) printf(KEY "%d\n", "zarr_format:", fmt);
    printf(KEY "%lu\n", "attributes:", attrs && attrs->type == JSON_OBJECT ? (unsigned long)attrs->count : 0UL);
    for (i = 0; attrs && attrs->type == JSON_OBJECT && i < attrs->count; i++) {
        printf("  %s: ", attrs->keys[i]);
        json_print(&attrs->items[i], stdout);
        fputc('\n', stdout);
    }
    json_free(attrs);
    printf(KEY "%lu\n", "children:", (unsigned long)children->count);
    for (i = 0; i < children->count; i++) {
        const json_value *c = &children->items[i];
        const char *name = json_string(json_get(c, "name")), *path = json_string(json_get(c, "path"));
        const char *type = json_string(json_get(c, "node_type"));
        if (!name || !path || !type) continue;
        if (!strcmp(type, "group")) {
            printf("  %s/\n", name);
        } else {
            zarr_array *a = NULL;
            printf("  %-17s ", name);
            if (zarr_array_open(ref->store, path, &a) != ZARR_OK) {
                printf("(array: cannot open)\n");
                report_zarr(cmd, "cannot open array %s", path);
                rc = EXIT_RUNTIME;
            } else if (print_array_line(cmd, a)) {
                rc = EXIT_RUNTIME;
            }
            zarr_array_free(a);
        }
    }
    json_free(children);
    return rc;
}

/* One argument PATH, or --help. Returns -1 to go on, else an exit code. */
static int single_path_args(const char *cmd, const char *help, int argc, char **argv, const char **path) {
    int i;
    *path = NULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(help, stdout);
            return EXIT_OK;
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

int cmd_info(int argc, char **argv) {
    const char *path;
    node_ref ref;
    int rc = single_path_args("info", info_help, argc, argv, &path);
    if (rc >= 0) return rc;
    if ((rc = resolve_path("info", path, &ref)) != EXIT_OK) return rc;
    if ((rc = node_open("info", &ref)) == EXIT_OK)
        rc = ref.array ? print_array_info("info", &ref) : print_group_info("info", &ref);
    node_close(&ref);
    return rc;
}

static int tree_walk(const char *cmd, zarr_store *store, const zarr_group *g, int depth) {
    json_value *children;
    size_t i;
    int rc = EXIT_OK;
    if (depth > 256) {
        report(cmd, "hierarchy deeper than 256 levels");
        return EXIT_RUNTIME;
    }
    if (!(children = group_children(cmd, g))) return EXIT_RUNTIME;
    for (i = 0; i < children->count; i++) {
        const json_value *c = &children->items[i];
        const char *name = json_string(json_get(c, "name")), *path = json_string(json_get(c, "path"));
        const char *type = json_string(json_get(c, "node_type"));
        if (!name || !path || !type) continue;
        if (!strcmp(type, "group")) {
            zarr_group *sub = NULL;
            printf("%*s%s/\n", 2 * depth, "", name);
            if (zarr_group_open(store, path, &sub) != ZARR_OK) {
                report_zarr(cmd, "cannot open group %s", path);
                rc = EXIT_RUNTIME;
            } else if (tree_walk(cmd, store, sub, depth + 1) != EXIT_OK) {
                rc = EXIT_RUNTIME;
            }
            zarr_group_free(sub);
        } else {
            zarr_array *a = NULL;
            printf("%*s%s  ", 2 * depth, "", name);
            if (zarr_array_open(store, path, &a) != ZARR_OK) {
                printf("(array: cannot open)\n");
                report_zarr(cmd, "cannot open array %s", path);
                rc = EXIT_RUNTIME;
            } else if (print_array_line(cmd, a)) {
                rc = EXIT_RUNTIME;
            }
            zarr_array_free(a);
        }
    }
    json_free(children);
    return rc;
}

int cmd_tree(int argc, char **argv) {
    const char *path;
    node_ref ref;
    int rc = single_path_args("tree", tree_help, argc, argv, &path);
    if (rc >= 0) return rc;
    if ((rc = resolve_path("tree", path, &ref)) != EXIT_OK) return rc;
    if ((rc = node_open("tree", &ref)) == EXIT_OK) {
        if (ref.array) {
            printf("%s  ", ref.node_path);
            rc = print_array_line("tree", ref.array) ? EXIT_RUNTIME : EXIT_OK;
        } else {
            printf("%s\n", ref.node_path);
            rc = tree_walk("tree", ref.store, ref.group, 1);
        }
    }
    node_close(&ref);
    return rc;
}
