/* tool.h -- shared declarations of the zarr command-line tool (C99, public C API only). */
#ifndef ZARR_TOOL_H
#define ZARR_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "zarr.h"

/* Exit codes (documented in `zarr --help`). */
#define EXIT_OK 0
#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

#define MAX_NDIM 64

/* A node named on the command line: the store it lives in and its path inside. */
typedef struct {
    char *store_dir;  /* the store root directory (malloc'ed) */
    char *node_path;  /* absolute node path, "/" or "/a/b" (malloc'ed) */
    zarr_store *store;
    zarr_array *array; /* exactly one of array/group is set after node_open */
    zarr_group *group;
} node_ref;

/* "zarr: <cmd>: <what>: <last error>" on stderr. */
void report(const char *cmd, const char *fmt, ...);
/* The same, with the library's last error message appended. */
void report_zarr(const char *cmd, const char *fmt, ...);

/* Split PATH (or STORE::/node) into store directory and node path (see `zarr --help`).
 * Returns 0 on success, else reports and returns EXIT_RUNTIME. */
int resolve_path(const char *cmd, const char *arg, node_ref *ref);
/* Resolve a destination (may not exist yet). */
int resolve_dest(const char *cmd, const char *arg, node_ref *ref);
/* Open the store and the node (array or group). Reports errors; returns an exit code. */
int node_open(const char *cmd, node_ref *ref);
void node_close(node_ref *ref);

/* Array metadata parsed from zarr_array_metadata_json (NULL and reported on failure). */
json_value *array_metadata(const char *cmd, const zarr_array *a);
/* Metadata format of an array document: 2 or 3. */
int metadata_format(const json_value *meta);

/* Name of a ZARR_DATA_TYPE_* code ("float32", "r16"...). */
const char *dtype_name(zarr_data_type dt, size_t element_size, char *buf, size_t buf_len);

/* Print "[a, b, c]". */
void print_dims(FILE *out, size_t n, const uint64_t *v);

/* Parse "a,b,c" into v (max MAX_NDIM). Returns count, -1 on syntax error. */
int parse_u64_list(const char *s, uint64_t *v);

/* The positive integer in environment variable `name`, else `dflt` (block-size knobs
 * that let the tests exercise many small blocks). */
uint64_t env_bytes(const char *name, uint64_t dflt);

/* Commands: each returns an exit code. */
int cmd_info(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_cp(int argc, char **argv);

#endif
