/* cp_undo.c -- see cp_undo.h. */
#define _XOPEN_SOURCE 700
#include "cp_undo.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "describe.h"

/* The local directory of a store location (a path, or a file:// URL), or NULL for remote
 * stores. */
static const char *local_dir(const char *store_loc) {
    if (!is_url(store_loc)) return store_loc;
    if (!strncmp(store_loc, "file://", 7)) return store_loc + 7;
    return NULL;
}

static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static void add(char ***list, size_t *n, size_t *cap, const char *s) {
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        char **bigger = realloc(*list, ncap * sizeof *bigger);
        if (!bigger) {
            fputs("zarr: out of memory\n", stderr);
            exit(EXIT_RUNTIME);
        }
        *list = bigger;
        *cap = ncap;
    }
    (*list)[(*n)++] = dup_str(s);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int listed(const cp_undo *u, const char *s) {
    return u->nbefore && bsearch(&s, u->before, u->nbefore, sizeof *u->before, cmp_str) != NULL;
}

/* nftw has no user pointer: the walk in progress. */
static cp_undo *walk_undo;
static int walk_failed;
static size_t walk_removed;

static int note_path(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    if (ftw->level > 0) add(&walk_undo->before, &walk_undo->nbefore, &walk_undo->cap, path);
    return 0;
}

/* Depth first: remove what is not listed in walk_undo (everything when it is NULL). */
static int remove_new(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    if (walk_undo && (ftw->level == 0 || listed(walk_undo, path))) return 0;
    if ((flag == FTW_DP ? rmdir(path) : unlink(path)) == 0) walk_removed++;
    else if (errno != ENOENT) {
        /* a directory that still holds what was there before stays */
        if (!(flag == FTW_DP && (errno == ENOTEMPTY || errno == EEXIST))) {
            fprintf(stderr, "zarr: cp: cannot remove %s: %s\n", path, strerror(errno));
            walk_failed = 1;
        }
    }
    return 0;
}

/* The keys of the metadata documents a group at `path` may have. */
static void meta_keys(const char *path, char keys[3][PATH_MAX + 16]) {
    char *prefix = node_prefix(path);
    snprintf(keys[0], PATH_MAX + 16, "%szarr.json", prefix);
    snprintf(keys[1], PATH_MAX + 16, "%s.zgroup", prefix);
    snprintf(keys[2], PATH_MAX + 16, "%s.zattrs", prefix);
    free(prefix);
}

int cp_undo_begin_local(cp_undo *u, const node_ref *dst) {
    const char *dir = local_dir(dst->store_loc);
    size_t i, n;
    char *path;
    memset(u, 0, sizeof *u);
    if (!dir) return 0;
    /* the way from the store's directory to the node's: the first directory missing */
    n = strlen(dir) + strlen(dst->node_path) + 2;
    path = malloc(n);
    if (!path) exit(EXIT_RUNTIME);
    snprintf(path, n, "%s%s", dir, strcmp(dst->node_path, "/") ? dst->node_path : "");
    for (i = strlen(dir);; i++) {
        if (path[i] == '/' || path[i] == '\0') {
            char c = path[i];
            path[i] = '\0';
            if (!exists(path)) {
                u->new_dir = dup_str(path);
                path[i] = c;
                break;
            }
            path[i] = c;
            if (!c) break;
        }
    }
    if (u->new_dir) {
        free(path);
        return 0;
    }
    u->node_dir = path;
    walk_undo = u;
    i = (size_t)nftw(path, note_path, 16, FTW_PHYS);
    walk_undo = NULL;
    if (i != 0) {
        report("cp", "cannot list %s: %s", path, strerror(errno));
        return -1;
    }
    qsort(u->before, u->nbefore, sizeof *u->before, cmp_str);
    return 0;
}

int cp_undo_begin_store(cp_undo *u, const node_ref *dst) {
    char *text = NULL, *anc;
    zarr_status s;
    size_t i, k;
    s = zarr_store_node_metadata_json(dst->store, dst->node_path, &text);
    zarr_string_free(text);
    if (s == ZARR_OK) return 0; /* cp will refuse to write into it: nothing to undo, ever */
    /* ancestor groups: the metadata documents that are absent now */
    anc = dup_str(dst->node_path);
    for (;;) {
        char *slash = strrchr(anc, '/');
        char keys[3][PATH_MAX + 16];
        if (!slash || !strcmp(anc, "/")) break;
        if (slash == anc) slash[1] = '\0';
        else *slash = '\0';
        meta_keys(anc, keys);
        for (k = 0; k < 3; k++) {
            size_t size = 0;
            s = zarr_store_get(dst->store, keys[k], NULL, 0, &size);
            if (s == ZARR_ERROR_NOT_FOUND) {
                add(&u->new_meta, &u->nnew_meta, &u->meta_cap, keys[k]);
            } else if (s != ZARR_OK && s != ZARR_ERROR_BUFFER_TOO_SMALL) {
                report_zarr("cp", "cannot read %s of the destination", keys[k]);
                free(anc);
                return -1;
            }
        }
    }
    free(anc);
    if (!local_dir(dst->store_loc)) {
        key_list keys = {0};
        if ((s = store_list_below(dst->store, dst->node_path, &keys)) != ZARR_OK) {
            report_zarr("cp", "cannot list the destination %s", dst->node_path);
            key_list_free(&keys);
            return -1;
        }
        for (i = 0; i < keys.count; i++) add(&u->before, &u->nbefore, &u->cap, keys.keys[i]);
        key_list_free(&keys);
        qsort(u->before, u->nbefore, sizeof *u->before, cmp_str);
    }
    u->active = 1;
    return 0;
}

int cp_undo_run(cp_undo *u, const node_ref *dst) {
    size_t i;
    int failed = 0;
    if (!u->active) return 0;
    walk_failed = 0;
    walk_removed = 0;
    if (u->new_dir) {
        walk_undo = NULL;
        if (exists(u->new_dir) && nftw(u->new_dir, remove_new, 16, FTW_DEPTH | FTW_PHYS) != 0) walk_failed = 1;
        if (exists(u->new_dir)) {
            fprintf(stderr, "zarr: cp: cannot remove %s\n", u->new_dir);
            walk_failed = 1;
        }
    } else if (u->node_dir) {
        walk_undo = u;
        if (nftw(u->node_dir, remove_new, 16, FTW_DEPTH | FTW_PHYS) != 0) walk_failed = 1;
        walk_undo = NULL;
    } else {
        key_list keys = {0};
        if (store_list_below(dst->store, dst->node_path, &keys) != ZARR_OK) {
            report_zarr("cp", "cannot list what the copy wrote below %s", dst->node_path);
            failed = 1;
        }
        for (i = 0; i < keys.count; i++) {
            if (listed(u, keys.keys[i])) continue;
            if (zarr_store_erase(dst->store, keys.keys[i]) != ZARR_OK) {
                report_zarr("cp", "cannot remove %s", keys.keys[i]);
                failed = 1;
            } else {
                walk_removed++;
            }
        }
        key_list_free(&keys);
    }
    /* ancestor groups the copy created (in a directory that existed, or remote) */
    for (i = 0; i < u->nnew_meta; i++) {
        size_t size = 0;
        zarr_status s = zarr_store_get(dst->store, u->new_meta[i], NULL, 0, &size);
        if (s == ZARR_ERROR_NOT_FOUND) continue;
        walk_removed++;
        if (zarr_store_erase(dst->store, u->new_meta[i]) != ZARR_OK) {
            report_zarr("cp", "cannot remove %s", u->new_meta[i]);
            failed = 1;
        }
    }
    return failed || walk_failed ? -1 : walk_removed > 0;
}

void cp_undo_free(cp_undo *u) {
    size_t i;
    for (i = 0; i < u->nbefore; i++) free(u->before[i]);
    for (i = 0; i < u->nnew_meta; i++) free(u->new_meta[i]);
    free(u->before);
    free(u->new_meta);
    free(u->new_dir);
    free(u->node_dir);
    memset(u, 0, sizeof *u);
}
