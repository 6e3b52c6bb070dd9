/* describe.c -- see describe.h. */
#define _XOPEN_SOURCE 700
#include "describe.h"

#include <stdlib.h>
#include <string.h>

const char *node_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
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

/* The codec's name ("name" in v3, "id" in v2, a URI under "codec" or "type" in the 2022
 * draft). */
const char *codec_name(const json_value *c) {
    static char draft[128];
    const char *n = json_string(json_get(c, "name"));
    if (!n) n = json_string(json_get(c, "id"));
    if (!n && json_string(json_get(c, "codec"))) n = draft_codec_name(json_string(json_get(c, "codec")), draft, sizeof draft);
    if (!n && json_string(json_get(c, "type"))) n = draft_codec_name(json_string(json_get(c, "type")), draft, sizeof draft);
    if (!n && c && c->type == JSON_STRING) n = c->text;
    return n ? n : "?";
}

/* The codec's settings object (v3 and the draft: "configuration"; v2: the codec object
 * itself, minus "id"). */
const json_value *codec_config(const json_value *c) {
    if (json_get(c, "name") || json_get(c, "codec") || json_get(c, "type")) return json_get(c, "configuration");
    return c;
}

const json_value *v3_codecs(const json_value *meta, int *one) {
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

static int is_sharded(const json_value *meta) {
    const json_value *codecs = json_get(meta, "codecs");
    size_t i;
    if (!codecs || codecs->type != JSON_ARRAY) return 0;
    for (i = 0; i < codecs->count; i++)
        if (!strcmp(codec_name(&codecs->items[i]), "sharding_indexed")) return 1;
    return 0;
}

int array_describe(const char *cmd, const zarr_store *store, const char *path, const zarr_array *array,
                   array_desc *d) {
    zarr_array *opened = NULL;
    int rc = 0;
    memset(d, 0, sizeof *d);
    d->path = dup_str(path);
    if (!array) {
        if (array_try_open(store, path, &opened, &d->why) != ZARR_OK) {
            /* The library has no way yet to hand out the metadata document of an array it
             * cannot open, so all that is known is the path and the reason. */
            return 0;
        }
        array = opened;
    }
    d->decodable = 1;
    if (zarr_array_ndim(array, &d->ndim) != ZARR_OK) {
        report_zarr(cmd, "%s: cannot read the rank", path);
        rc = 1;
    } else if (d->ndim > MAX_NDIM) {
        report(cmd, "%s: the array has %lu dimensions (limit %d)", path, (unsigned long)d->ndim, MAX_NDIM);
        rc = 1;
    } else if (zarr_array_shape(array, d->ndim, d->shape) != ZARR_OK ||
               zarr_array_chunk_shape(array, d->ndim, d->chunks) != ZARR_OK ||
               zarr_array_inner_chunk_shape(array, d->ndim, d->inner) != ZARR_OK ||
               zarr_array_data_type(array, &d->dt) != ZARR_OK || zarr_array_element_size(array, &d->esize) != ZARR_OK) {
        report_zarr(cmd, "%s: cannot read the array's properties", path);
        rc = 1;
    } else if (!(d->meta = array_metadata(cmd, array))) {
        rc = 1;
    } else {
        char tmp[32];
        snprintf(d->dtname, sizeof d->dtname, "%s", dtype_name(d->dt, d->esize, tmp, sizeof tmp));
        d->format = metadata_format(d->meta);
        d->sharded = is_sharded(d->meta);
        d->attrs = array_attributes(array);
        d->has_dims = array_dimension_names(d->meta, d->attrs, d->ndim, d->dims);
    }
    zarr_array_free(opened);
    return rc;
}

void array_desc_free(array_desc *d) {
    free(d->path);
    free(d->why);
    json_free(d->meta);
    json_free(d->attrs);
    memset(d, 0, sizeof *d);
}

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
        uint64_t n = d->chunks[i] ? d->shape[i] / d->chunks[i] + (d->shape[i] % d->chunks[i] != 0) : 0;
        if (n && total > UINT64_MAX / n) *overflow = 1;
        total *= n;
    }
    return total;
}

uint64_t array_nbytes(const array_desc *d) {
    uint64_t total = d->esize;
    size_t i;
    for (i = 0; i < d->ndim; i++) {
        if (d->shape[i] && total > UINT64_MAX / d->shape[i]) return UINT64_MAX;
        total *= d->shape[i];
    }
    return total;
}
