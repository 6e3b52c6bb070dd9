/* describe.h -- what the tool knows of an array: shape, chunks, data type, dimension names,
 * attributes, metadata, or why the library cannot decode it. Shared by info, tree and cp. */
#ifndef ZARR_TOOL_DESCRIBE_H
#define ZARR_TOOL_DESCRIBE_H

#include "tool.h"

typedef struct {
    char *path;              /* node path (malloc'ed) */
    int decodable;           /* 0: the library cannot open the array; only path and why are set */
    char *why;               /* the library's message when not decodable (malloc'ed) */
    int format;              /* 2 or 3 */
    size_t ndim;
    uint64_t shape[MAX_NDIM];
    uint64_t chunks[MAX_NDIM]; /* chunk (shard) shape */
    uint64_t inner[MAX_NDIM];  /* inner chunk shape (= chunks unless sharded) */
    int sharded;
    zarr_data_type dt;
    size_t esize;
    char dtname[32];
    json_value *meta;          /* the metadata document */
    json_value *attrs;         /* the attributes (an object, maybe empty) */
    const char *dims[MAX_NDIM]; /* dimension names (into meta or attrs), NULL when unnamed */
    int has_dims;
} array_desc;

/* Describe the array at `path` of `store`, using `array` when it is already open (else it
 * is opened and closed here). An array the library cannot open gives ZARR_OK with
 * decodable = 0 and why set; other failures (metadata unreadable) report and return 1. */
int array_describe(const char *cmd, const zarr_store *store, const char *path, const zarr_array *array,
                   array_desc *d);
void array_desc_free(array_desc *d);

/* The name of a node: its last path segment ("/" for the root). */
const char *node_name(const char *path);

/* Number of chunks (shards) in the grid; sets *overflow when it passes 2^64. */
uint64_t array_nchunks(const array_desc *d, int *overflow);
/* Bytes of the whole array decoded (saturates at UINT64_MAX). */
uint64_t array_nbytes(const array_desc *d);

/* The dimension names as JSON: ["time","lat",null], or null when none is named. */
void json_put_dimension_names(FILE *out, const array_desc *d);

/* Codec names and settings, as info and tree print them. */
const char *codec_name(const json_value *c);
const json_value *codec_config(const json_value *c);
int is_codec_list(const json_value *v);
/* The codec list of a v3 document, or of a 2022 draft document ("codecs", else its single
 * "compressor" object); NULL when there is none. Sets *one when it is a single object. */
const json_value *v3_codecs(const json_value *meta, int *one);

#endif
