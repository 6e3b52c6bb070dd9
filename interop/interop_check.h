/* What the interop C programs share: the count of failed and passed checks, FAIL and
 * CALL for the case at hand, and read_file.
 *
 * A program defines FAIL_PREFIX() before including this header: it prints what names the
 * case (for example `fprintf(stderr, "FAIL %s: ", path)`), with whatever variables are in
 * scope where FAIL is used. FAIL and CALL jump to the label `done` of the function they are
 * used in, which releases what the case holds. */
#ifndef INTEROP_CHECK_H
#define INTEROP_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "zarr.h"

#ifndef FAIL_PREFIX
#error "define FAIL_PREFIX() before including interop_check.h"
#endif

static int failures;
static int passes;

/* Report a failed check of the current case and leave it. */
#define FAIL(...)                                                                          \
    do {                                                                                   \
        FAIL_PREFIX();                                                                     \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, "\n");                                                             \
        failures++;                                                                        \
        goto done;                                                                         \
    } while (0)

/* A libzarr call that must return ZARR_OK; otherwise FAIL with its status and message. */
#define CALL(call)                                                                         \
    do {                                                                                   \
        zarr_status s_ = (call);                                                           \
        if (s_ != ZARR_OK)                                                                 \
            FAIL("%s: %s: %s", #call, zarr_status_str(s_), zarr_last_error_message());     \
    } while (0)

/* The whole file `name`, NUL-terminated so that JSON text can be used as a string, and its
 * size in `*len` (when `len` is not NULL); NULL when it cannot be read. Free it. */
static inline unsigned char *read_file(const char *name, size_t *len) {
    FILE *f = fopen(name, "rb");
    unsigned char *data = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)size + 1);
        if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
            free(data);
            data = NULL;
        }
        if (data) {
            data[size] = 0;
            if (len) *len = (size_t)size;
        }
    }
    fclose(f);
    return data;
}

#endif
