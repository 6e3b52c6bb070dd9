/* zarr.c -- the zarr command-line tool: entry point, help, paths, shared helpers.
 *
 * Built on the public C API of libzarr only (zarr.h). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_options.h"
#include "tool.h"

static const char *usage_text =
    "usage: zarr <command> [options] PATH...\n"
    "\n"
    "Look at and convert Zarr data from the shell.\n"
    "\n"
    "commands:\n"
    "  info PATH             metadata summary of an array or a group\n"
    "  tree PATH             the hierarchy below a group, one line per node\n"
    "  cat PATH [--region R] [--all]\n"
    "                        the values of an array as text\n"
    "  cp SRC DST [--format 2|3] [--chunks C] [--shards S] [--codec K]\n"
    "                        copy an array or a group hierarchy, converting and rechunking\n"
    "\n"
    "Run `zarr <command> --help` for the options of a command.\n"
    "\n"
    "PATH is either\n"
    "  STORE::/node/path   a store and a node inside it, explicitly (STORE is any of the\n"
    "                      forms below); or\n"
    "  DIR                 a directory on the local file system. DIR is a node (it holds\n"
    "                      zarr.json, .zgroup or .zarray); the store root is found by walking\n"
    "                      up from DIR while the parent directory also holds node metadata:\n"
    "                      the top-most directory of that unbroken chain is the store root,\n"
    "                      and DIR's path below it is the node path. A directory without node\n"
    "                      metadata is opened as a store root (node \"/\"); or\n"
    "  FILE.zip[/node]     a zip archive (read-only), and optionally a node inside it; or\n"
    "  URL                 the root of a remote store: s3://bucket/prefix, gs://bucket/prefix,\n"
    "                      az://container/prefix or abfs://... (read and write),\n"
    "                      http://host/path or https://... (read-only; a hierarchy is read\n"
    "                      through its consolidated metadata when it has some, since HTTP\n"
    "                      cannot list), file:///abs/path. Name a node with URL::/node.\n"
    "\n"
    "  --store-options JSON   options for URL stores (every command takes it): endpoint,\n"
    "                      anonymous, conditional_writes, update_attempts (s3://, gs://,\n"
    "                      az://); region, access_key_id, secret_access_key, session_token,\n"
    "                      profile, force_path_style (s3://); service_account_path, token\n"
    "                      (gs://); account_name, account_key, sas_token (az://);\n"
    "                      max_concurrency, timeout_ms, max_retries (remote stores); fsync,\n"
    "                      follow_symlinks, locking (file://); read_only (all). See\n"
    "                      docs/remote.md. Given here, an option that does not apply to the\n"
    "                      URL is an error. Credentials otherwise come from the AWS, Google\n"
    "                      (GOOGLE_APPLICATION_CREDENTIALS, STORAGE_EMULATOR_HOST) and Azure\n"
    "                      (AZURE_STORAGE_CONNECTION_STRING, ...) environment variables.\n"
    "  $ZARR_STORE_OPTIONS  the default of --store-options, fitted to each store: a key\n"
    "                      that applies only to other schemes is dropped (so S3 options\n"
    "                      set there do not break http:// URLs or local paths; ZARR_DEBUG=1\n"
    "                      names the dropped keys on stderr); a key no scheme knows is an\n"
    "                      error. Local directories and zip files take no options.\n"
    "\n"
    "exit status: 0 success, 1 runtime error (missing node, I/O, bad data, out-of-bounds\n"
    "region), 2 usage error (unknown command or option, malformed argument).\n"
    "\n"
    "options: --help (this text), --version (the libzarr version).\n";

void report(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "zarr: %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void report_zarr(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "zarr: %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": %s\n", zarr_last_error_message());
}

char *dup_str(const char *s) {
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    memcpy(d, s, n + 1);
    return d;
}

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int exists_in(const char *dir, const char *name) {
    char buf[PATH_MAX + 32];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return is_file(buf);
}

static int has_node_metadata(const char *dir) {
    return exists_in(dir, "zarr.json") || exists_in(dir, ".zgroup") || exists_in(dir, ".zarray");
}

/* A URL ("s3://bucket/x.zarr", "https://host/x.zarr"): a scheme of letters, digits, '+',
 * '-' or '.', then "://". */
int is_url(const char *s) {
    const char *p = s;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' ||
           *p == '-' || *p == '.')
        p++;
    return !strncmp(p, "://", 3);
}

static int is_http_url(const char *s) { return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8); }

int store_kind(const char *s) {
    if (!is_url(s) || !strncmp(s, "file://", 7)) return STORE_LOCAL;
    return is_http_url(s) ? STORE_HTTP : STORE_REMOTE;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* OPTIONS (NULL or a JSON object) with "create": true added, in BUF: a destination
 * directory given as a file:// URL is made, as a plain path's is. NULL if it does not fit. */
static const char *with_create(const char *options, char *buf, size_t size) {
    const char *rest;
    int n;
    if (options == NULL) return "{\"create\": true}";
    rest = options;
    while (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r') rest++;
    if (*rest != '{') return options; /* not an object: zarr_store_open_url says so */
    rest++;
    while (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r') rest++;
    n = snprintf(buf, size, "{\"create\": true%s%s", *rest == '}' ? "" : ", ", rest);
    return n >= 0 && (size_t)n < size ? buf : NULL;
}

static int store_open_with(const char *cmd, const char *location, const char *options, int for_writing,
                           zarr_store **out);

int store_open(const char *cmd, const char *location, const char *options, int for_writing, zarr_store **out) {
    char *env_options = NULL;
    int rc;
    *out = NULL;
    if (!options) {
        /* $ZARR_STORE_OPTIONS: only the keys that apply to this store's scheme */
        if ((rc = store_options_from_env(cmd, location, getenv("ZARR_STORE_OPTIONS"), &env_options)) != EXIT_OK)
            return rc;
        options = env_options;
    }
    rc = store_open_with(cmd, location, options, for_writing, out);
    free(env_options);
    return rc;
}

static int store_open_with(const char *cmd, const char *location, const char *options, int for_writing,
                           zarr_store **out) {
    if (is_url(location)) {
        char created[8192];
        if (for_writing && is_http_url(location)) {
            report(cmd, "%s: HTTP stores are read-only; copy to a directory or an s3:// URL instead", location);
            return EXIT_RUNTIME;
        }
        if (for_writing && store_kind(location) == STORE_LOCAL) {
            options = with_create(options, created, sizeof created);
            if (options == NULL) {
                report(cmd, "%s: the store options are too long", location);
                return EXIT_RUNTIME;
            }
        }
        if (zarr_store_open_url(location, options, out) != ZARR_OK) {
            report_zarr(cmd, "cannot open the store %s", location);
            return EXIT_RUNTIME;
        }
        if (is_http_url(location)) {
            /* HTTP cannot list: a hierarchy is known through its consolidated metadata. */
            zarr_store *view = NULL;
            if (zarr_store_open_consolidated(*out, &view) == ZARR_OK) {
                zarr_store_free(*out);
                *out = view;
            }
        }
        return EXIT_OK;
    }
    if (is_file(location) || (for_writing && ends_with(location, ".zip"))) {
        if (for_writing) {
            report(cmd, "%s: zip stores are read-only; copy into a directory instead", location);
            return EXIT_RUNTIME;
        }
        if (zarr_store_open_zip(location, out) != ZARR_OK) {
            report_zarr(cmd, "cannot open the zip store %s", location);
            return EXIT_RUNTIME;
        }
        return EXIT_OK;
    }
    if (zarr_store_open_filesystem(location, out) != ZARR_OK) {
        report_zarr(cmd, "cannot open store %s", location);
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* Split STORE::/node at the last "::" followed by "/" (or by nothing). */
static int split_explicit(const char *arg, node_ref *ref) {
    const char *p = arg, *found = NULL;
    while ((p = strstr(p, "::")) != NULL) {
        if (p[2] == '/' || p[2] == '\0') found = p;
        p += 2;
    }
    if (!found || found == arg) return 0;
    ref->store_loc = dup_str(arg);
    ref->store_loc[found - arg] = '\0';
    ref->node_path = dup_str(found[2] ? found + 2 : "/");
    return 1;
}

/* A node path from the text after a store: "/" + text without surrounding slashes. */
static char *node_path_from(const char *rest) {
    size_t n;
    char *p;
    while (*rest == '/') rest++;
    n = strlen(rest);
    while (n && rest[n - 1] == '/') n--;
    p = malloc(n + 2);
    if (!p) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    p[0] = '/';
    memcpy(p + 1, rest, n);
    p[n + 1] = '\0';
    return p;
}

/* FILE.zip/inner/path where FILE.zip is a regular file: the zip store and the node in it. */
static int split_zip_prefix(const char *arg, node_ref *ref) {
    const char *p = arg;
    while ((p = strstr(p, ".zip/")) != NULL) {
        char *prefix = dup_str(arg);
        prefix[p + 4 - arg] = '\0';
        if (is_file(prefix)) {
            char real[PATH_MAX];
            if (realpath(prefix, real)) {
                free(prefix);
                prefix = dup_str(real);
            }
            ref->store_loc = prefix;
            ref->node_path = node_path_from(p + 5);
            return 1;
        }
        free(prefix);
        p += 5;
    }
    return 0;
}

/* Store root and node path from an absolute, normalised directory `dir`, walking up from
 * `start` (dir itself or its parent) while directories hold node metadata. */
static void split_by_metadata(const char *dir, const char *start, node_ref *ref) {
    char *root = dup_str(start);
    char *parent = dup_str(start);
    size_t rl;
    if (!has_node_metadata(root)) {
        free(root);
        root = dup_str(dir);
    } else {
        for (;;) {
            char *slash = strrchr(parent, '/');
            if (!slash || slash == parent) break; /* never climb to "/" itself */
            *slash = '\0';
            if (!has_node_metadata(parent)) break;
            free(root);
            root = dup_str(parent);
        }
    }
    free(parent);
    rl = strlen(root);
    ref->store_loc = root;
    if (strlen(dir) > rl && dir[rl] == '/') ref->node_path = dup_str(dir + rl);
    else ref->node_path = dup_str("/");
}

int resolve_path(const char *cmd, const char *arg, node_ref *ref) {
    char real[PATH_MAX];
    memset(ref, 0, sizeof *ref);
    if (split_explicit(arg, ref)) return EXIT_OK;
    if (is_url(arg)) {
        ref->store_loc = dup_str(arg);
        ref->node_path = dup_str("/");
        return EXIT_OK;
    }
    if (realpath(arg, real) == NULL) {
        int err = errno;
        if (split_zip_prefix(arg, ref)) return EXIT_OK;
        report(cmd, "%s: %s", arg, strerror(err));
        return EXIT_RUNTIME;
    }
    if (!is_dir(real)) {
        /* A metadata file names its node; any other file is a zip store. */
        char *slash = strrchr(real, '/');
        if (slash && (!strcmp(slash, "/zarr.json") || !strcmp(slash, "/.zarray") ||
                      !strcmp(slash, "/.zgroup")) && slash != real) {
            *slash = '\0';
        } else if (is_file(real)) {
            ref->store_loc = dup_str(real);
            ref->node_path = dup_str("/");
            return EXIT_OK;
        } else {
            report(cmd, "%s: neither a directory nor a zip file", arg);
            return EXIT_RUNTIME;
        }
    }
    split_by_metadata(real, real, ref);
    return EXIT_OK;
}

int resolve_dest(const char *cmd, const char *arg, node_ref *ref) {
    char real[PATH_MAX], parent[PATH_MAX], full[PATH_MAX + 1];
    const char *base;
    char *copy, *slash;
    memset(ref, 0, sizeof *ref);
    if (split_explicit(arg, ref)) return EXIT_OK;
    if (is_url(arg)) {
        ref->store_loc = dup_str(arg);
        ref->node_path = dup_str("/");
        return EXIT_OK;
    }
    copy = dup_str(arg);
    while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/') copy[strlen(copy) - 1] = '\0';
    slash = strrchr(copy, '/');
    if (slash) {
        *slash = '\0';
        base = slash + 1;
        if (realpath(slash == copy ? "/" : copy, parent) == NULL) {
            report(cmd, "%s: parent directory: %s", arg, strerror(errno));
            free(copy);
            return EXIT_RUNTIME;
        }
    } else {
        base = copy;
        if (realpath(".", parent) == NULL) {
            report(cmd, "current directory: %s", strerror(errno));
            free(copy);
            return EXIT_RUNTIME;
        }
    }
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        /* An existing directory named by "." or "..": use it as it is. */
        if (realpath(arg, real) == NULL) {
            report(cmd, "%s: %s", arg, strerror(errno));
            free(copy);
            return EXIT_RUNTIME;
        }
        ref->store_loc = dup_str(real);
        ref->node_path = dup_str("/");
        free(copy);
        return EXIT_OK;
    }
    snprintf(full, sizeof full, "%s/%s", strcmp(parent, "/") ? parent : "", base);
    free(copy);
    if (has_node_metadata(parent)) {
        split_by_metadata(full, parent, ref);
    } else {
        ref->store_loc = dup_str(full);
        ref->node_path = dup_str("/");
    }
    return EXIT_OK;
}

zarr_status array_try_open(const zarr_store *store, const char *path, zarr_array **out, char **why) {
    zarr_status s = zarr_array_open(store, path, out);
    *why = s == ZARR_OK ? NULL : dup_str(zarr_last_error_message());
    return s;
}

int node_open(const char *cmd, node_ref *ref) {
    zarr_status s, g;
    char *why = NULL;
    int rc = store_open(cmd, ref->store_loc, ref->options, 0, &ref->store);
    if (rc != EXIT_OK) return rc;
    ref->remote = store_kind(ref->store_loc);
    s = array_try_open(ref->store, ref->node_path, &ref->array, &why);
    if (s == ZARR_OK) return EXIT_OK;
    g = zarr_group_open(ref->store, ref->node_path, &ref->group);
    if (g == ZARR_OK) {
        free(why);
        return EXIT_OK;
    }
    if (s != ZARR_ERROR_NODE_TYPE_MISMATCH && s != ZARR_ERROR_NOT_FOUND && g == ZARR_ERROR_NODE_TYPE_MISMATCH) {
        /* An array, but not one this build can decode (a data type or codec it lacks). */
        ref->undecodable = 1;
        ref->why = why;
        return EXIT_OK;
    }
    if (s == ZARR_ERROR_NODE_TYPE_MISMATCH) /* the group's own message explains it */
        report_zarr(cmd, "cannot open node %s in store %s", ref->node_path, ref->store_loc);
    else
        report(cmd, "cannot open node %s in store %s: %s", ref->node_path, ref->store_loc, why);
    free(why);
    return EXIT_RUNTIME;
}

void node_close(node_ref *ref) {
    zarr_array_free(ref->array);
    zarr_group_free(ref->group);
    zarr_store_free(ref->store);
    free(ref->store_loc);
    free(ref->node_path);
    free(ref->why);
    memset(ref, 0, sizeof *ref);
}

const char *option_value(int argc, char **argv, int *i, const char *name, int *missing) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return "";
    }
    return argv[++*i];
}

const char *human_bytes(uint64_t n, char *buf, size_t len) {
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = (double)n;
    int u = 0;
    while (x >= 1024.0 && u < 6) {
        x /= 1024.0;
        u++;
    }
    if (u == 0) snprintf(buf, len, "%llu B", (unsigned long long)n);
    else snprintf(buf, len, "%.*f %s", x < 10 ? 2 : x < 100 ? 1 : 0, x, units[u]);
    return buf;
}

const char *shortest_double(double x, int single, char *buf, size_t len) {
    int digits;
    if (isnan(x)) return snprintf(buf, len, "nan"), buf;
    if (isinf(x)) return snprintf(buf, len, x < 0 ? "-inf" : "inf"), buf;
    /* 9 significant digits always read back a float32, 17 a float64. */
    for (digits = single ? 6 : 15; digits < (single ? 9 : 17); digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (single ? strtof(buf, NULL) == (float)x : strtod(buf, NULL) == x) return buf;
    }
    snprintf(buf, len, "%.*g", digits, x);
    return buf;
}

/* "[a<sep>b<sep>c]" */
static void put_u64_list(FILE *out, size_t n, const uint64_t *v, const char *sep) {
    size_t i;
    fputc('[', out);
    for (i = 0; i < n; i++) fprintf(out, "%s%llu", i ? sep : "", (unsigned long long)v[i]);
    fputc(']', out);
}

void json_put_u64_list(FILE *out, size_t n, const uint64_t *v) { put_u64_list(out, n, v, ","); }

void json_put_string(FILE *out, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    for (; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p == '\r') fputs("\\r", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

void print_dims(FILE *out, size_t n, const uint64_t *v) { put_u64_list(out, n, v, ", "); }

int parse_u64_list(const char *s, uint64_t *v) {
    int n = 0;
    if (!*s) return -1;
    for (;;) {
        char *end;
        unsigned long long x;
        if (*s < '0' || *s > '9' || n == MAX_NDIM) return -1;
        errno = 0;
        x = strtoull(s, &end, 10);
        if (errno) return -1;
        v[n++] = x;
        s = end;
        if (!*s) return n;
        if (*s != ',') return -1;
        s++;
    }
}

uint64_t env_bytes(const char *name, uint64_t dflt) {
    const char *v = getenv(name);
    char *end;
    unsigned long long x;
    if (!v || *v < '1' || *v > '9') return dflt;
    errno = 0;
    x = strtoull(v, &end, 10);
    return errno || *end ? dflt : (uint64_t)x;
}

int main(int argc, char **argv) {
    const char *cmd;
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("zarr (libzarr) %s\n", zarr_version_string());
        return EXIT_OK;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "tree")) return cmd_tree(argc - 1, argv + 1);
    if (!strcmp(cmd, "cat")) return cmd_cat(argc - 1, argv + 1);
    if (!strcmp(cmd, "cp")) return cmd_cp(argc - 1, argv + 1);
    fprintf(stderr, "zarr: unknown command '%s' (see zarr --help)\n", cmd);
    return EXIT_USAGE;
}
