/* Delete nodes with libzarr from the hierarchies zarr-python wrote (python_write_delete.py):
 * /g (a group subtree) and /lone (an array) from DATA_DIR/v2 and DATA_DIR/v3. Their
 * consolidated metadata is kept true; python_check_delete.py then checks with zarr-python. */
#include <stdio.h>

#include "zarr.h"

static int delete_from(const char *data_dir, const char *name) {
    char path[4096];
    zarr_store *store = NULL;
    const char *nodes[2] = {"/g", "/lone"};
    int i, failures = 0;
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    if (zarr_store_open_filesystem(path, &store) != ZARR_OK) {
        fprintf(stderr, "%s: %s\n", path, zarr_last_error_message());
        return 1;
    }
    for (i = 0; i < 2; i++) {
        zarr_status s = zarr_store_delete_node(store, nodes[i]);
        if (s != ZARR_OK) {
            fprintf(stderr, "FAIL %s %s: %s\n", name, nodes[i], zarr_last_error_message());
            failures++;
        } else {
            printf("ok   deleted %s from %s\n", nodes[i], name);
        }
    }
    zarr_store_free(store);
    return failures;
}

int main(int argc, char **argv) {
    int failures;
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
        return 2;
    }
    failures = delete_from(argv[1], "v2") + delete_from(argv[1], "v3");
    printf("%d passed, %d failed\n", 4 - failures, failures);
    return failures ? 1 : 0;
}
