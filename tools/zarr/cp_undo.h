/* cp_undo.h -- what `zarr cp` wrote, taken back when the copy fails.
 *
 * Before the copy writes anything, cp_undo_begin_local and cp_undo_begin_store note what exists at the destination:
 * the directories of a local store on the way to the destination node, the files (or, in a
 * remote store, the keys) already below the node, and the metadata documents of its
 * ancestor groups. cp_undo_run then removes only what is new: a directory that did not
 * exist is removed whole; inside one that did, the files and directories that were not
 * there; the metadata documents of ancestor groups the copy had to create. A destination
 * node that existed before is never touched (cp refuses to write into one). */
#ifndef ZARR_TOOL_CP_UNDO_H
#define ZARR_TOOL_CP_UNDO_H

#include <stddef.h>

#include "tool.h"

typedef struct {
    int active;          /* cp_undo_begin succeeded and the node did not exist */
    char *new_dir;       /* local: the top-most directory of the way that did not exist */
    char *node_dir;      /* local: the node's directory, when it existed (then `before` lists it) */
    char **before;       /* local: paths below node_dir; remote: keys below the node (sorted) */
    size_t nbefore, cap;
    char **new_meta;     /* metadata keys of ancestor groups that did not exist */
    size_t nnew_meta, meta_cap;
} cp_undo;

/* Note the local destination's state before its store is opened (which may create the
 * store's directory): the first directory missing on the way to the node's, or the files
 * in the node's directory. dst: store_loc and node_path set. Returns 0, or -1 (reported).
 * Then, once the store is open, cp_undo_begin_store notes whether the node exists (then
 * nothing will be undone), the ancestor groups' metadata documents that are absent, and in
 * a remote store the keys below the node. Returns 0, or -1 (reported): the copy must not
 * start then. */
int cp_undo_begin_local(cp_undo *u, const node_ref *dst);
int cp_undo_begin_store(cp_undo *u, const node_ref *dst);

/* Remove what the copy created. Reports what it cannot remove; returns 1 when it removed
 * something, 0 when there was nothing to remove, -1 on failure. */
int cp_undo_run(cp_undo *u, const node_ref *dst);

void cp_undo_free(cp_undo *u);

#endif
