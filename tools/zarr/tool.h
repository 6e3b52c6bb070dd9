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
    char *store_loc;  /* the store: a directory, a .zip file or a URL (malloc'ed) */
    char *node_path;  /* absolute node path, "/" or "/a/b" (malloc'ed) */
    const char *options; /* --store-options for URL stores, or NULL: $ZARR_STORE_OPTIONS fitted */
    int remote;       /* STORE_LOCAL, STORE_REMOTE (s3://) or STORE_HTTP (http(s)://: no listing) */
    zarr_store *store;
    zarr_array *array; /* after node_open: array or group is set, or neither for an */
    zarr_group *group; /* array the library cannot open (then undecodable is set)   */
    int undecodable;
    char *why;         /* the library's message when undecodable (malloc'ed) */
} node_ref;

/* "zarr: <cmd>: <what>: <last error>" on stderr. */
void report(const char *cmd, const char *fmt, ...);
/* The same, with the library's last error message appended. */
void report_zarr(const char *cmd, const char *fmt, ...);

/* malloc'ed copy of s; exits on out of memory. */
char *dup_str(const char *s);

/* Open the store at `location`: THE one place that turns a location into a store. A URL
 * (s3://, http://, https://, file://) goes to zarr_store_open_url with `options` (JSON, or
 * NULL); an http(s) store is opened through its consolidated metadata when it has some (HTTP
 * cannot list). A regular file is a zip archive (read-only), anything else a directory on
 * the local file system. `for_writing` refuses read-only kinds with a clear message.
 * `options` NULL means the keys of $ZARR_STORE_OPTIONS that apply to the location's scheme
 * (store_options.h); given options go to the library unchanged (it refuses misfits).
 * Reports errors; returns an exit code. */
int store_open(const char *cmd, const char *location, const char *options, int for_writing, zarr_store **out);

/* Whether `s` is a URL ("scheme://..."), and which kind of store it names: STORE_LOCAL
 * (file://, or not a URL), STORE_REMOTE (s3://), STORE_HTTP (http:// and https://, which
 * cannot list keys). */
enum { STORE_LOCAL, STORE_REMOTE, STORE_HTTP };
int is_url(const char *s);
int store_kind(const char *s);

/* Split PATH (or STORE::/node, or a zip file, or FILE.zip/node) into store location and
 * node path (see `zarr --help`). Returns 0 on success, else reports and returns EXIT_RUNTIME. */
int resolve_path(const char *cmd, const char *arg, node_ref *ref);
/* Resolve a destination (may not exist yet). */
int resolve_dest(const char *cmd, const char *arg, node_ref *ref);
/* Open the store and the node: a group, a decodable array, or an array the library cannot
 * decode (undecodable set, neither handle). Reports errors; returns an exit code. */
int node_open(const char *cmd, node_ref *ref);
void node_close(node_ref *ref);

/* Try to open the array at `path`. Returns ZARR_OK, or the status with *why set to a
 * malloc'ed copy of the library's message. */
zarr_status array_try_open(const zarr_store *store, const char *path, zarr_array **out, char **why);

/* Print "[a, b, c]". */
void print_dims(FILE *out, size_t n, const uint64_t *v);

/* Parse "a,b,c" into v (max MAX_NDIM). Returns count, -1 on syntax error. */
int parse_u64_list(const char *s, uint64_t *v);

/* The positive integer in environment variable `name`, else `dflt` (block-size knobs
 * that let the tests exercise many small blocks). */
uint64_t env_bytes(const char *name, uint64_t dflt);

/* "1.5 MiB" style size into buf. */
const char *human_bytes(uint64_t n, char *buf, size_t len);

/* The shortest decimal text that reads back as exactly x (strtod), like repr() in
 * Python: "0.1", "1e+300", "nan", "inf", "-inf". `single` treats x as a float32 value
 * (the shortest text that strtof reads back). buf holds at least 32 bytes. */
const char *shortest_double(double x, int single, char *buf, size_t len);

/* The string s as a JSON string literal (quotes, escapes). */
void json_put_string(FILE *out, const char *s);
/* "[a,b,c]" */
void json_put_u64_list(FILE *out, size_t n, const uint64_t *v);

/* The option's value given as `--name value` or `--name=value`; NULL if argv[*i] is
 * not that option. Sets *missing when the value is absent. */
const char *option_value(int argc, char **argv, int *i, const char *name, int *missing);

/* Commands: each returns an exit code. */
int cmd_info(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_cp(int argc, char **argv);

#endif
