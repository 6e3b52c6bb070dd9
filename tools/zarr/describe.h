/* describe.h -- what the tool knows of an array: shape, chunks, data type, codecs, dimension
 * names, attributes, its stored size; for an array this build of libzarr cannot decode, the
 * same read from its metadata document, with the reason. Shared by info, tree and cp. */
#ifndef ZARR_TOOL_DESCRIBE_H
#define ZARR_TOOL_DESCRIBE_H

#include "dtype.h"
#include "tool.h"

/* A codec of a Zarr v3 (or 2022 draft) array: its name and configuration (NULL: none). */
typedef struct {
    char *name;
    json_value *config;
} codec_info;

typedef struct {
    char *path;                /* node path (malloc'ed) */
    int decodable;             /* 1: `array` is open; 0: described from its metadata document */
    char *why;                 /* why not decodable (malloc'ed), else NULL */
    int described;             /* the fields below are known (an undecodable array's document may
                                  be unreadable too: then only path and why are set) */
    zarr_array *array;         /* the open array (owned) when decodable */
    int format;                /* 2 or 3 (3 for the 2022 draft too) */
    int draft;                 /* the 2022 draft layout */
    size_t ndim;
    int grid_known;            /* chunks[] is known (a regular chunk grid) */
    uint64_t shape[MAX_NDIM];
    uint64_t chunks[MAX_NDIM]; /* chunk (shard) shape; a rectilinear grid's longest chunks */
    uint64_t grid[MAX_NDIM];   /* chunks along each dimension (when grid_known) */
    int rectilinear;           /* a rectilinear chunk grid: chunks differ in shape */
    uint64_t inner[MAX_NDIM];  /* inner chunk shape (= chunks unless sharded) */
    int sharded;
    dtype type;
    json_value *meta;          /* the metadata document */
    json_value *attrs;         /* the attributes as JSON (an object, maybe empty) */
    char *dims[MAX_NDIM];      /* dimension names (malloc'ed), NULL when unnamed */
    int has_dims;
    int dims_attribute;        /* the names are xarray's _ARRAY_DIMENSIONS attribute (Zarr v2) */
    codec_info *codecs;        /* Zarr v3 and the draft: the codecs in order */
    size_t ncodecs;
} array_desc;

/* Describe the array at `path` of `store`. An array the library cannot open is described
 * from zarr_store_node_metadata_json, with decodable = 0 and why set; returns 0 then too.
 * Other failures (metadata unreadable through the open array) report and return 1. */
int array_describe(const char *cmd, const zarr_store *store, const char *path, array_desc *d);
void array_desc_free(array_desc *d);

/* The name of a node: its last path segment ("/" for the root). */
const char *node_name(const char *path);
/* "parent/name" for a child of the group at `parent` (malloc'ed). */
char *child_path(const char *parent, const char *name);

/* Number of chunks (shards) in the grid; sets *overflow when it passes 2^64. */
uint64_t array_nchunks(const array_desc *d, int *overflow);
/* Reads the block start/count of a variable-length array (zarr_array_read_vlen): `n + 1`
 * offsets, n the block's elements, and their bytes into *data, which grows as needed (*cap
 * bytes; NULL and 0 at first; free it). Returns the status. */
zarr_status read_vlen_block(const zarr_array *a, size_t ndim, const uint64_t *start, const uint64_t *count,
                            uint64_t *offsets, size_t n, unsigned char **data, size_t *cap);
/* Bytes of the whole array decoded (saturates at UINT64_MAX; 0 when the element size is
 * not known). */
uint64_t array_nbytes(const array_desc *d);

/* The dimension names as JSON: ["time","lat",null], or null when none is named. */
void json_put_dimension_names(FILE *out, const array_desc *d);

/* Codec names and settings (the JSON of a codec object: v3, v2 or the draft). */
const char *codec_name(const json_value *c);
const json_value *codec_config(const json_value *c);
int is_codec_list(const json_value *v);

/* The attribute shown as dimension names instead (`_ARRAY_DIMENSIONS`), else NULL. */
const char *dims_attribute_name(const array_desc *d);

/* Attributes of an open array, an open group, or a JSON object (exactly one non-NULL):
 * their number and each as "key = value" lines, ncdump style, read with the typed
 * accessors where they suffice (strings, numbers, lists of numbers). With the array's data
 * type `type` (NULL: none, or print values as stored), values xarray writes as base64
 * (a float _FillValue) are shown decoded (cf_attr_put_decoded). */
size_t attributes_count(const zarr_array *a, const zarr_group *g, const json_value *json, const char *hide);
void attributes_print(FILE *out, const zarr_array *a, const zarr_group *g, const json_value *json, int indent,
                      const char *hide, const dtype *type);
/* The attributes of an open array or group parsed (for --json and cp), or an empty object. */
json_value *attributes_json(const zarr_array *a, const zarr_group *g);

/* What an array occupies in its store. */
typedef struct {
    int known;            /* 0: not worked out (see why) */
    const char *method;   /* "every chunk of the grid" or "the store listing" */
    uint64_t chunks;      /* chunks (shards) stored */
    int bytes_known;      /* 0: only the count is known (an undecodable array) */
    uint64_t bytes;       /* their stored bytes (extrapolated when sampled) */
    uint64_t sampled;     /* 0: every stored chunk's size was asked; else how many */
    uint64_t decoded;     /* rectilinear grids: the stored chunks' decoded bytes (their shapes
                             differ), else 0 (the chunk size times the count) */
    char why[160];
} stored_info;

/* Work out the stored size of an array: for grids of at most $ZARR_INFO_GRID_LIMIT chunks
 * (100000), zarr_array_chunk_stored_nbytes for each chunk of the grid; for larger grids the
 * store's listing of the array's keys, then the stored size of each chunk found (on a remote
 * store of only $ZARR_INFO_SAMPLE = 1000 of them, evenly spread, extrapolated). `kind` is
 * the store's (STORE_LOCAL...): an HTTP store cannot list chunk keys. */
void array_stored(const zarr_store *store, const array_desc *d, int kind, stored_info *st);

/* The store keys below the node at `path`, recursively ("" for the root); each key in
 * full. Returns 0, or the failing status (the library's message is in place). */
typedef struct {
    char **keys;
    size_t count, cap;
} key_list;
zarr_status store_list_below(const zarr_store *store, const char *path, key_list *out);
void key_list_free(key_list *l);
/* The store key prefix of a node: "" for "/", "a/b/" for "/a/b". */
char *node_prefix(const char *path);

#endif
