/* reference_read.c -- read a Kerchunk reference set through the C API and compare it with
 * what h5py and scipy read from the original files (make_references.py).
 *
 * Usage: reference_read SET_DIR EXPECTED_DIR
 *
 * SET_DIR/store.url holds the URL (reference+file://..., reference+s3://...,
 * reference+http://...) and SET_DIR/store.options, when present, its JSON options (see
 * ../open_store.h). SET_DIR/manifest.txt lists, one per line:
 *   array PATH DTYPE NDIM DIM... FILE   FILE (under EXPECTED_DIR): C order, little-endian
 *   children PATH NAME,NAME,...         the group's children, sorted
 *   attr PATH NAME string|double|int64 VALUE
 *   corrupt PATH                        reading it whole is ZARR_ERROR_CORRUPT_DATA
 *   fails PATH                          reading it whole fails (any error status)
 *   unsupported PATH                    opening (or else reading) it is ZARR_ERROR_UNSUPPORTED
 * For each array this checks the data type and shape, the whole array byte for byte, and a
 * partial selection (a box from a third of each extent, crossing chunk edges) against the
 * same bytes cut out of the expectation; for each group its children; each attribute's
 * value. Then that the store refuses writes (ZARR_ERROR_READ_ONLY) and that a missing node
 * is ZARR_ERROR_NOT_FOUND. Every failure is printed; the exit status is 1 if any.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "open_store.h"
#include "zarr.h"

#define MAX_DIMS 8

static int failures;
static int checks;

static void fail(const char *what, const char *path, const char *detail) {
    fprintf(stderr, "FAIL %s %s: %s\n", what, path, detail);
    failures++;
}

static void fail_status(const char *what, const char *path, zarr_status s) {
    char detail[4096];
    snprintf(detail, sizeof detail, "%s: %s", zarr_status_str(s), zarr_last_error_message());
    fail(what, path, detail);
}

static unsigned char *read_whole_file(const char *name, size_t *len) {
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
        if (data) *len = (size_t)size;
    }
    fclose(f);
    return data;
}

/* The expectations are little-endian; libzarr returns host order. */
static void to_host_order(unsigned char *data, size_t len, size_t elem) {
    const uint16_t one = 1;
    size_t i, j;
    if (*(const unsigned char *)&one == 1 || elem == 1) return;
    for (i = 0; i + elem <= len; i += elem)
        for (j = 0; j < elem / 2; j++) {
            unsigned char t = data[i + j];
            data[i + j] = data[i + elem - 1 - j];
            data[i + elem - 1 - j] = t;
        }
}

/* Copy the box start..start+count of a C-order array of `shape` into `out` (dense). */
static void cut_box(const unsigned char *full, size_t ndim, const uint64_t *shape,
                    const uint64_t *start, const uint64_t *count, size_t elem,
                    unsigned char *out) {
    uint64_t idx[MAX_DIMS] = {0};
    uint64_t total = 1, n, offset;
    size_t d;
    for (d = 0; d < ndim; d++) total *= count[d];
    for (n = 0; n < total; n++) {
        offset = 0;
        for (d = 0; d < ndim; d++) offset = offset * shape[d] + start[d] + idx[d];
        memcpy(out + n * elem, full + offset * elem, elem);
        for (d = ndim; d-- > 0;) {
            if (++idx[d] < count[d]) break;
            idx[d] = 0;
        }
    }
}

static size_t first_difference(const unsigned char *a, const unsigned char *b, size_t len) {
    size_t i;
    for (i = 0; i < len; i++)
        if (a[i] != b[i]) return i;
    return len;
}

static void check_array(const zarr_store *store, const char *path, const char *dtype,
                        size_t ndim, const uint64_t *want_shape, const char *file) {
    zarr_array *array = NULL;
    zarr_data_type type;
    size_t got_ndim, elem, nbytes, expected_len = 0, at, d;
    uint64_t shape[MAX_DIMS], start[MAX_DIMS], count[MAX_DIMS], zeros[MAX_DIMS] = {0};
    unsigned char *expected = NULL, *got = NULL, *box = NULL;
    char detail[2600];
    zarr_status s;

    checks++;
    if ((s = zarr_array_open(store, path, &array)) != ZARR_OK) {
        fail_status("open array", path, s);
        return;
    }
    if ((s = zarr_array_data_type(array, &type)) != ZARR_OK) {
        fail_status("data type", path, s);
        goto done;
    }
    if (strcmp(zarr_data_type_str(type), dtype) != 0) {
        snprintf(detail, sizeof detail, "data type %s, expected %s", zarr_data_type_str(type),
                 dtype);
        fail("data type", path, detail);
        goto done;
    }
    if ((s = zarr_array_ndim(array, &got_ndim)) != ZARR_OK) {
        fail_status("ndim", path, s);
        goto done;
    }
    if (got_ndim != ndim) {
        snprintf(detail, sizeof detail, "rank %zu, expected %zu", got_ndim, ndim);
        fail("ndim", path, detail);
        goto done;
    }
    if (ndim > 0 && (s = zarr_array_shape(array, ndim, shape)) != ZARR_OK) {
        fail_status("shape", path, s);
        goto done;
    }
    for (d = 0; d < ndim; d++)
        if (shape[d] != want_shape[d]) {
            snprintf(detail, sizeof detail, "extent %llu of dimension %zu, expected %llu",
                     (unsigned long long)shape[d], d, (unsigned long long)want_shape[d]);
            fail("shape", path, detail);
            goto done;
        }
    if ((s = zarr_array_element_size(array, &elem)) != ZARR_OK) {
        fail_status("element size", path, s);
        goto done;
    }
    expected = read_whole_file(file, &expected_len);
    if (expected == NULL) {
        fail("expected values", path, file);
        goto done;
    }
    to_host_order(expected, expected_len, elem);

    /* The whole array. */
    if ((s = zarr_array_selection_nbytes(array, ndim, zeros, shape, &nbytes)) != ZARR_OK) {
        fail_status("selection size", path, s);
        goto done;
    }
    if (nbytes != expected_len) {
        snprintf(detail, sizeof detail, "%zu bytes, expected %zu", nbytes, expected_len);
        fail("size", path, detail);
        goto done;
    }
    got = malloc(nbytes ? nbytes : 1);
    if ((s = zarr_array_read(array, ndim, zeros, shape, got, nbytes)) != ZARR_OK) {
        fail_status("read whole array", path, s);
        goto done;
    }
    if ((at = first_difference(got, expected, nbytes)) != nbytes) {
        snprintf(detail, sizeof detail,
                 "differs from the expectation at byte %zu (element %zu) of %zu", at,
                 at / elem, nbytes);
        fail("read whole array", path, detail);
        goto done;
    }

    /* A partial selection from a third of each extent, at most half of it long: it starts
     * and ends inside chunks wherever an extent spans several. */
    if (ndim > 0) {
        size_t box_bytes = elem;
        for (d = 0; d < ndim; d++) {
            start[d] = shape[d] / 3;
            count[d] = shape[d] / 2 > 0 ? shape[d] / 2 : 1;
            if (start[d] + count[d] > shape[d]) count[d] = shape[d] - start[d];
            box_bytes *= (size_t)count[d];
        }
        box = malloc(box_bytes);
        cut_box(expected, ndim, shape, start, count, elem, box);
        memset(got, 0xA5, box_bytes);
        if ((s = zarr_array_read(array, ndim, start, count, got, box_bytes)) != ZARR_OK) {
            fail_status("read partial selection", path, s);
            goto done;
        }
        if ((at = first_difference(got, box, box_bytes)) != box_bytes) {
            snprintf(detail, sizeof detail, "partial selection differs at byte %zu of %zu",
                     at, box_bytes);
            fail("read partial selection", path, detail);
            goto done;
        }
    }
    printf("ok array %s (%s, %zu bytes)\n", path, dtype, nbytes);
done:
    free(box);
    free(got);
    free(expected);
    zarr_array_free(array);
}

/* The names in zarr_group_children_json's output, in order, joined with commas. */
static void child_names(const char *json, char *out, size_t out_len) {
    const char *p = json;
    size_t used = 0;
    out[0] = '\0';
    while ((p = strstr(p, "\"name\"")) != NULL) {
        const char *end;
        p += 6;
        while (*p == ' ' || *p == ':') p++;
        if (*p != '"') continue;
        end = strchr(++p, '"');
        if (end == NULL) break;
        if (used + (size_t)(end - p) + 2 < out_len) {
            if (used) out[used++] = ',';
            memcpy(out + used, p, (size_t)(end - p));
            used += (size_t)(end - p);
            out[used] = '\0';
        }
        p = end + 1;
    }
}

static void check_children(const zarr_store *store, const char *path, const char *want) {
    zarr_group *group = NULL;
    char *json = NULL;
    char names[4096], detail[8400];
    zarr_status s;
    checks++;
    if ((s = zarr_group_open(store, path, &group)) != ZARR_OK) {
        fail_status("open group", path, s);
        return;
    }
    if ((s = zarr_group_children_json(group, &json)) != ZARR_OK) {
        fail_status("children", path, s);
    } else {
        child_names(json, names, sizeof names);
        if (strcmp(names, want) != 0) {
            snprintf(detail, sizeof detail, "children %s, expected %s", names, want);
            fail("children", path, detail);
        } else {
            printf("ok children %s: %s\n", path, names);
        }
    }
    zarr_string_free(json);
    zarr_group_free(group);
}

static void check_attribute(const zarr_store *store, const char *path, const char *name,
                            const char *kind, const char *want) {
    zarr_array *array = NULL;
    zarr_group *group = NULL;
    char *text = NULL;
    double real = 0;
    int64_t integer = 0;
    char detail[4096];
    zarr_status s;
    int is_array;
    checks++;
    s = zarr_array_open(store, path, &array);
    is_array = s == ZARR_OK;
    if (!is_array && (s = zarr_group_open(store, path, &group)) != ZARR_OK) {
        fail_status("open node", path, s);
        return;
    }
    if (strcmp(kind, "string") == 0) {
        s = is_array ? zarr_array_attribute_string(array, name, &text)
                     : zarr_group_attribute_string(group, name, &text);
        if (s == ZARR_OK && strcmp(text, want) != 0) {
            snprintf(detail, sizeof detail, "%s is \"%s\", expected \"%s\"", name, text, want);
            fail("attribute", path, detail);
        }
    } else if (strcmp(kind, "double") == 0) {
        s = is_array ? zarr_array_attribute_double(array, name, &real)
                     : zarr_group_attribute_double(group, name, &real);
        if (s == ZARR_OK && real != strtod(want, NULL)) {
            snprintf(detail, sizeof detail, "%s is %.17g, expected %s", name, real, want);
            fail("attribute", path, detail);
        }
    } else {
        s = is_array ? zarr_array_attribute_int64(array, name, &integer)
                     : zarr_group_attribute_int64(group, name, &integer);
        if (s == ZARR_OK && integer != strtoll(want, NULL, 10)) {
            snprintf(detail, sizeof detail, "%s is %lld, expected %s", name,
                     (long long)integer, want);
            fail("attribute", path, detail);
        }
    }
    if (s != ZARR_OK) {
        snprintf(detail, sizeof detail, "%s: %s: %s", name, zarr_status_str(s),
                 zarr_last_error_message());
        fail("attribute", path, detail);
    } else {
        printf("ok attribute %s %s\n", path, name);
    }
    zarr_string_free(text);
    zarr_array_free(array);
    zarr_group_free(group);
}

/* An array whose data is damaged (`want` ZARR_ERROR_CORRUPT_DATA), unreachable (`want`
 * ZARR_OK: any error will do) or in a codec this build lacks (`want`
 * ZARR_ERROR_UNSUPPORTED, from the open or else from the read): the whole read must fail. */
static void check_read_fails(const zarr_store *store, const char *path, zarr_status want) {
    zarr_array *array = NULL;
    uint64_t shape[MAX_DIMS], zeros[MAX_DIMS] = {0};
    size_t ndim = 0, nbytes = 0;
    unsigned char *buf = NULL;
    zarr_status s;
    checks++;
    if ((s = zarr_array_open(store, path, &array)) != ZARR_OK) {
        if (want == ZARR_ERROR_UNSUPPORTED && s == want)
            printf("ok refused %s: %s: %s\n", path, zarr_status_str(s), zarr_last_error_message());
        else
            fail_status("open array", path, s);
        return;
    }
    if ((s = zarr_array_ndim(array, &ndim)) != ZARR_OK || ndim > MAX_DIMS ||
        (s = zarr_array_shape(array, ndim, shape)) != ZARR_OK ||
        (s = zarr_array_selection_nbytes(array, ndim, zeros, shape, &nbytes)) != ZARR_OK) {
        fail_status("shape", path, s);
        goto done;
    }
    buf = malloc(nbytes ? nbytes : 1);
    s = zarr_array_read(array, ndim, zeros, shape, buf, nbytes);
    if (s == ZARR_OK)
        fail("read damaged data", path, "succeeded: damaged or missing chunks read as data");
    else if (want != ZARR_OK && s != want)
        fail_status("read damaged data", path, s);
    else
        printf("ok refused %s: %s: %s\n", path, zarr_status_str(s), zarr_last_error_message());
done:
    free(buf);
    zarr_array_free(array);
}

/* A reference set is read-only, and a node it does not describe is not found. */
static void check_store_refusals(zarr_store *store) {
    zarr_array *array = NULL;
    zarr_status s;
    checks++;
    s = zarr_store_set(store, "new/.zattrs", "{}", 2);
    if (s == ZARR_OK) fail("write", "new/.zattrs", "succeeded, expected ZARR_ERROR_READ_ONLY");
    else if (s != ZARR_ERROR_READ_ONLY) fail_status("write refused", "new/.zattrs", s);
    s = zarr_store_erase(store, ".zgroup");
    if (s == ZARR_OK) fail("erase", ".zgroup", "succeeded, expected ZARR_ERROR_READ_ONLY");
    else if (s != ZARR_ERROR_READ_ONLY) fail_status("erase refused", ".zgroup", s);
    s = zarr_array_open(store, "/no_such_array", &array);
    if (s == ZARR_OK) fail("open", "/no_such_array", "succeeded, expected ZARR_ERROR_NOT_FOUND");
    else if (s != ZARR_ERROR_NOT_FOUND) fail_status("missing node", "/no_such_array", s);
    zarr_array_free(array);
}

int main(int argc, char **argv) {
    char name[8400], line[8192];
    zarr_store *store = NULL;
    FILE *manifest;
    if (argc != 3) {
        fprintf(stderr, "usage: reference_read SET_DIR EXPECTED_DIR\n");
        return 2;
    }
    if (interop_open_store(argv[1], &store) != 0) return 1;
    snprintf(name, sizeof name, "%s/manifest.txt", argv[1]);
    manifest = fopen(name, "r");
    if (manifest == NULL) {
        fprintf(stderr, "cannot read %s\n", name);
        zarr_store_free(store);
        return 1;
    }
    while (fgets(line, sizeof line, manifest) != NULL) {
        char kind[16], path[1024], arg[1024], file[16800];
        uint64_t shape[MAX_DIMS];
        size_t ndim, d;
        int used = 0;
        line[strcspn(line, "\r\n")] = '\0';
        if (sscanf(line, "%15s %1023s%n", kind, path, &used) != 2) continue;
        if (strcmp(kind, "array") == 0) {
            char *p = line + used;
            int n = 0;
            if (sscanf(p, "%1023s %zu%n", arg, &ndim, &n) != 2 || ndim > MAX_DIMS) goto bad;
            p += n;
            for (d = 0; d < ndim; d++) {
                unsigned long long extent;
                if (sscanf(p, "%llu%n", &extent, &n) != 1) goto bad;
                shape[d] = extent;
                p += n;
            }
            if (sscanf(p, "%1023s", name) != 1) goto bad;
            snprintf(file, sizeof file, "%s/%s", argv[2], name);
            check_array(store, path, arg, ndim, shape, file);
        } else if (strcmp(kind, "children") == 0) {
            if (sscanf(line + used, "%1023s", arg) != 1) goto bad;
            check_children(store, path, arg);
        } else if (strcmp(kind, "attr") == 0) {
            char attr[256], type[16];
            int n = 0;
            if (sscanf(line + used, "%255s %15s %n", attr, type, &n) != 2 || n == 0) goto bad;
            check_attribute(store, path, attr, type, line + used + n);
        } else if (strcmp(kind, "corrupt") == 0) {
            check_read_fails(store, path, ZARR_ERROR_CORRUPT_DATA);
        } else if (strcmp(kind, "fails") == 0) {
            check_read_fails(store, path, ZARR_OK);
        } else if (strcmp(kind, "unsupported") == 0) {
            check_read_fails(store, path, ZARR_ERROR_UNSUPPORTED);
        } else {
        bad:
            fprintf(stderr, "FAIL manifest: malformed line: %s\n", line);
            failures++;
        }
    }
    fclose(manifest);
    check_store_refusals(store);
    zarr_store_free(store);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
