/* open_store.h -- how the interop programs open DATA_DIR's store: the directory
 * DATA_DIR/store, or, when DATA_DIR/store.url exists, the URL it holds (an s3:// store on
 * the loopback test server) with the JSON options of DATA_DIR/store.options, if any,
 * through zarr_store_open_url. Prints the failure and returns non-zero on error. */
#ifndef INTEROP_OPEN_STORE_H
#define INTEROP_OPEN_STORE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

/* The first line of a file (malloc'ed), or NULL. */
static char *interop_first_line(const char *name) {
    char line[8192];
    FILE *f = fopen(name, "r");
    char *copy;
    if (f == NULL) return NULL;
    if (fgets(line, sizeof line, f) == NULL) line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    copy = (char *)malloc(strlen(line) + 1);
    if (copy) strcpy(copy, line);
    return copy;
}

static int interop_open_store(const char *dir, zarr_store **store) {
    char name[8400];
    char *url, *options;
    zarr_status status;
    snprintf(name, sizeof name, "%s/store.url", dir);
    url = interop_first_line(name);
    if (url == NULL) {
        snprintf(name, sizeof name, "%s/store", dir);
        status = zarr_store_open_filesystem(name, store);
    } else {
        snprintf(name, sizeof name, "%s/store.options", dir);
        options = interop_first_line(name);
        status = zarr_store_open_url(url, options, store);
        snprintf(name, sizeof name, "%s", url);
        free(url);
        free(options);
    }
    if (status != ZARR_OK) {
        fprintf(stderr, "cannot open %s: %s: %s\n", name, zarr_status_str(status),
                zarr_last_error_message());
        return 1;
    }
    return 0;
}

#endif
