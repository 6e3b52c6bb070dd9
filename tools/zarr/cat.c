/* cat.c -- `zarr cat`: an array's values as text. */
#define _XOPEN_SOURCE 700
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"
#include "describe.h"

#define CAT_LIMIT 10000000ULL          /* elements printed without --all */
#define CAT_BLOCK_BYTES block_bytes /* bytes read per call: 8 MiB, or $ZARR_CAT_BLOCK_BYTES */

static const char *cat_help =
    "usage: zarr cat PATH [--region start:stop,start:stop,...] [--decode] [--all]\n"
    "\n"
    "Print the values of the array at PATH (see `zarr --help` for PATH) as text, in C order,\n"
    "one row of the last dimension per line, values separated by one space (a 0-d array\n"
    "prints one value). Arrays of three and more dimensions print as 2-D slices of the last\n"
    "two dimensions, each after a label such as `[time=3, :, :]` (dimension names when the\n"
    "array has them, absolute indices) and separated by an empty line.\n"
    "\n"
    "  --region R   print only the hyper-rectangle R: one `start:stop` per dimension,\n"
    "               separated by commas, stop excluded. `i` means i:i+1, `a:` means a to\n"
    "               the end, `:b` means 0:b, `:` or an empty field the whole dimension.\n"
    "  --decode     apply the CF conventions as xarray does: values equal to _FillValue or\n"
    "               missing_value print as nan, then value * scale_factor + add_offset (in\n"
    "               float64). In Zarr v2 the array's fill_value is its _FillValue (xarray's\n"
    "               reading); in Zarr v3 only the _FillValue attribute counts.\n"
    "  --all        print even more than 10000000 elements (refused by default).\n"
    "\n"
    "Numbers are printed exactly and briefly: integers in decimal, float32 and float64 as the\n"
    "shortest decimal that reads back as the same value (0.1, not 0.10000000000000001),\n"
    "float16 with %.5g, not-a-number and infinities as nan, inf, -inf; complex numbers as\n"
    "a+bj; bool as true/false; r<N> raw values as 0x followed by their bytes in hex.\n"
    "Values are read in blocks of at most 8 MiB ($ZARR_CAT_BLOCK_BYTES overrides).\n"
    "Exit status: 0 ok, 1 runtime error (for example a region outside the array, too many\n"
    "elements, or an array this build of libzarr cannot decode), 2 usage error (for example a\n"
    "malformed --region).\n";

typedef struct {
    int n;
    int has_start[MAX_NDIM], has_stop[MAX_NDIM];
    uint64_t start[MAX_NDIM], stop[MAX_NDIM];
} region_spec;

static int parse_index(const char **s, uint64_t *out) {
    char *end;
    if (**s < '0' || **s > '9') return 0;
    *out = strtoull(*s, &end, 10);
    if (*out == ~0ULL) return 0;
    *s = end;
    return 1;
}

/* Returns 0 on success, -1 on a syntax error. */
static int parse_region(const char *s, region_spec *r) {
    memset(r, 0, sizeof *r);
    for (;;) {
        int i = r->n;
        if (i == MAX_NDIM) return -1;
        r->n++;
        if (*s >= '0' && *s <= '9') {
            if (!parse_index(&s, &r->start[i])) return -1;
            r->has_start[i] = 1;
            if (*s != ':') { /* a single index */
                r->stop[i] = r->start[i] + 1;
                r->has_stop[i] = 1;
            }
        }
        if (*s == ':') {
            s++;
            if (*s >= '0' && *s <= '9') {
                if (!parse_index(&s, &r->stop[i])) return -1;
                r->has_stop[i] = 1;
            }
        }
        if (r->has_start[i] && r->has_stop[i] && r->stop[i] < r->start[i]) return -1;
        if (*s == '\0') return 0;
        if (*s != ',') return -1;
        s++;
    }
}

static double half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1F;
    double m = (double)(h & 0x3FF), v;
    if (e == 0) v = ldexp(m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp(m + 1024.0, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* digits: 5 for float16 (%.5g); 9 for float32 and 17 for float64 mean the shortest text that
 * reads back as the same float32 or float64. */
static void put_float(FILE *out, double x, int digits, int plus) {
    char buf[40];
    if (isnan(x)) fputs(plus ? "+nan" : "nan", out);
    else if (isinf(x)) fputs(x < 0 ? "-inf" : (plus ? "+inf" : "inf"), out);
    else if (digits == 5) fprintf(out, plus && !signbit(x) ? "+%.*g" : "%.*g", digits, x);
    else fprintf(out, plus && !signbit(x) ? "+%s" : "%s", shortest_double(x, digits == 9, buf, sizeof buf));
}

/* An element of a real type (integer or floating point) as a double; 0 for other types. */
static int element_real(zarr_data_type dt, const unsigned char *p, double *x) {
    switch (dt) {
    case ZARR_DATA_TYPE_INT8: { int8_t v; memcpy(&v, p, 1); *x = v; return 1; }
    case ZARR_DATA_TYPE_INT16: { int16_t v; memcpy(&v, p, 2); *x = v; return 1; }
    case ZARR_DATA_TYPE_INT32: { int32_t v; memcpy(&v, p, 4); *x = v; return 1; }
    case ZARR_DATA_TYPE_INT64: { int64_t v; memcpy(&v, p, 8); *x = (double)v; return 1; }
    case ZARR_DATA_TYPE_UINT8: *x = p[0]; return 1;
    case ZARR_DATA_TYPE_UINT16: { uint16_t v; memcpy(&v, p, 2); *x = v; return 1; }
    case ZARR_DATA_TYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); *x = v; return 1; }
    case ZARR_DATA_TYPE_UINT64: { uint64_t v; memcpy(&v, p, 8); *x = (double)v; return 1; }
    case ZARR_DATA_TYPE_FLOAT16: { uint16_t v; memcpy(&v, p, 2); *x = half_to_double(v); return 1; }
    case ZARR_DATA_TYPE_FLOAT32: { float v; memcpy(&v, p, 4); *x = v; return 1; }
    case ZARR_DATA_TYPE_FLOAT64: { double v; memcpy(&v, p, 8); *x = v; return 1; }
    default: return 0;
    }
}

/* The value rounded to the element's precision, so that a missing value given as a double
 * compares equal to the stored float32 or float16. */
static double to_element_precision(zarr_data_type dt, double x) {
    if (dt == ZARR_DATA_TYPE_FLOAT32 || dt == ZARR_DATA_TYPE_FLOAT16) return (double)(float)x;
    return x;
}

/* An element decoded with the CF attributes: missing as nan; scaled when there is a
 * scale_factor or add_offset; otherwise printed as stored. */
static void put_decoded(FILE *out, zarr_data_type dt, size_t esize, const unsigned char *p, const cf_decoding *cf);

static void put_element(FILE *out, zarr_data_type dt, size_t esize, const unsigned char *p) {
    switch (dt) {
    case ZARR_DATA_TYPE_BOOL: fputs(p[0] ? "true" : "false", out); break;
    case ZARR_DATA_TYPE_INT8: { int8_t v; memcpy(&v, p, 1); fprintf(out, "%d", (int)v); break; }
    case ZARR_DATA_TYPE_INT16: { int16_t v; memcpy(&v, p, 2); fprintf(out, "%d", (int)v); break; }
    case ZARR_DATA_TYPE_INT32: { int32_t v; memcpy(&v, p, 4); fprintf(out, "%" PRId32, v); break; }
    case ZARR_DATA_TYPE_INT64: { int64_t v; memcpy(&v, p, 8); fprintf(out, "%" PRId64, v); break; }
    case ZARR_DATA_TYPE_UINT8: fprintf(out, "%u", (unsigned)p[0]); break;
    case ZARR_DATA_TYPE_UINT16: { uint16_t v; memcpy(&v, p, 2); fprintf(out, "%u", (unsigned)v); break; }
    case ZARR_DATA_TYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); fprintf(out, "%" PRIu32, v); break; }
    case ZARR_DATA_TYPE_UINT64: { uint64_t v; memcpy(&v, p, 8); fprintf(out, "%" PRIu64, v); break; }
    case ZARR_DATA_TYPE_FLOAT16: { uint16_t v; memcpy(&v, p, 2); put_float(out, half_to_double(v), 5, 0); break; }
    case ZARR_DATA_TYPE_FLOAT32: { float v; memcpy(&v, p, 4); put_float(out, v, 9, 0); break; }
    case ZARR_DATA_TYPE_FLOAT64: { double v; memcpy(&v, p, 8); put_float(out, v, 17, 0); break; }
    case ZARR_DATA_TYPE_COMPLEX64: {
        float v[2];
        memcpy(v, p, 8);
        put_float(out, v[0], 9, 0);
        put_float(out, v[1], 9, 1);
        fputc('j', out);
        break;
    }
    case ZARR_DATA_TYPE_COMPLEX128: {
        double v[2];
        memcpy(v, p, 16);
        put_float(out, v[0], 17, 0);
        put_float(out, v[1], 17, 1);
        fputc('j', out);
        break;
    }
    default: {
        size_t i;
        fputs("0x", out);
        for (i = 0; i < esize; i++) fprintf(out, "%02x", p[i]);
    }
    }
}

static void put_decoded(FILE *out, zarr_data_type dt, size_t esize, const unsigned char *p, const cf_decoding *cf) {
    double x;
    size_t i;
    if (!element_real(dt, p, &x)) {
        put_element(out, dt, esize, p);
        return;
    }
    for (i = 0; i < cf->nmissing; i++) {
        if (x == to_element_precision(dt, cf->missing[i]) || (isnan(x) && isnan(cf->missing[i]))) {
            fputs("nan", out);
            return;
        }
    }
    if (!cf->has_scale && !cf->has_offset) {
        put_element(out, dt, esize, p);
        return;
    }
    put_float(out, x * cf->scale + cf->offset, 17, 0);
}

/* "[time=3, 0, :, :]": the label of the 2-D slice number `slice` (C order over the
 * dimensions before the last two) of the selection start/count. */
static void put_slice_label(FILE *out, size_t ndim, const uint64_t *start, const uint64_t *count, uint64_t slice,
                            const char *const *dims) {
    uint64_t idx[MAX_NDIM];
    size_t i;
    for (i = ndim - 2; i > 0; i--) {
        idx[i - 1] = slice % count[i - 1];
        slice /= count[i - 1];
    }
    fputc('[', out);
    for (i = 0; i + 2 < ndim; i++) {
        if (dims[i]) fprintf(out, "%s=", dims[i]);
        fprintf(out, "%llu, ", (unsigned long long)(start[i] + idx[i]));
    }
    fputs(":, :]\n", out);
}

static int print_values(const char *cmd, const char *arg, const zarr_array *a, int all, const region_spec *rs,
                        const char *const *dims, const cf_decoding *cf) {
    size_t ndim, esize, i, k;
    uint64_t shape[MAX_NDIM], start[MAX_NDIM], count[MAX_NDIM], bshape[MAX_NDIM], idx[MAX_NDIM];
    uint64_t bstart[MAX_NDIM], bcount[MAX_NDIM], total = 1, inner, column = 0, row = 0;
    zarr_data_type dt;
    size_t nbytes;
    unsigned char *buf;
    int overflow = 0;
    uint64_t block_bytes = env_bytes("ZARR_CAT_BLOCK_BYTES", (uint64_t)8 << 20);
    if (zarr_array_ndim(a, &ndim) != ZARR_OK || ndim > MAX_NDIM || zarr_array_shape(a, ndim, shape) != ZARR_OK ||
        zarr_array_data_type(a, &dt) != ZARR_OK || zarr_array_element_size(a, &esize) != ZARR_OK) {
        report_zarr(cmd, "%s: cannot read array properties", arg);
        return EXIT_RUNTIME;
    }
    if (rs->n && (size_t)rs->n != ndim) {
        report(cmd, "%s: --region has %d dimensions, the array has %lu", arg, rs->n, (unsigned long)ndim);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < ndim; i++) {
        uint64_t stop = rs->n && rs->has_stop[i] ? rs->stop[i] : shape[i];
        start[i] = rs->n && rs->has_start[i] ? rs->start[i] : 0;
        if (stop < start[i]) {
            report(cmd, "%s: --region starts at %llu in dimension %lu, past its extent %llu", arg,
                   (unsigned long long)start[i], (unsigned long)i, (unsigned long long)shape[i]);
            return EXIT_RUNTIME;
        }
        count[i] = stop - start[i];
    }
    if (zarr_array_selection_nbytes(a, ndim, start, count, &nbytes) != ZARR_OK) {
        fprintf(stderr, "zarr: %s: %s: region ", cmd, arg);
        for (i = 0; i < ndim; i++)
            fprintf(stderr, "%s%llu:%llu", i ? "," : "", (unsigned long long)start[i], (unsigned long long)(start[i] + count[i]));
        fprintf(stderr, " is outside the array of shape ");
        print_dims(stderr, ndim, shape);
        fprintf(stderr, ": %s\n", zarr_last_error_message());
        return EXIT_RUNTIME;
    }
    for (i = 0; i < ndim; i++) {
        if (count[i] && total > ~0ULL / count[i]) overflow = 1;
        total *= count[i];
    }
    if ((overflow || total > CAT_LIMIT) && !all) {
        report(cmd, "%s: the selection has %s%llu elements, more than the limit of %llu: choose a part with "
               "--region start:stop,... or pass --all", arg, overflow ? "over " : "",
               (unsigned long long)(overflow ? ~0ULL : total), CAT_LIMIT);
        return EXIT_RUNTIME;
    }
    if (total == 0) return EXIT_OK;
    /* Block shape: 1 in dimensions before k, a run of indices in k, whole in the ones after,
     * so that blocks come in C order and each holds at most CAT_BLOCK_BYTES. */
    inner = esize;
    for (k = ndim; k > 0; k--) {
        if (count[k - 1] > CAT_BLOCK_BYTES / inner) break;
        inner *= count[k - 1];
    }
    /* dimensions k..ndim-1 fit whole; dimension k-1 (if any) is split */
    for (i = 0; i < ndim; i++) {
        if (i + 1 < k) bshape[i] = 1;
        else if (i + 1 == k) bshape[i] = CAT_BLOCK_BYTES / inner ? CAT_BLOCK_BYTES / inner : 1; /* < count[i] */
        else bshape[i] = count[i];
        idx[i] = 0;
    }
    buf = malloc(ndim ? (size_t)(inner * (k ? bshape[k - 1] : 1)) : esize);
    if (!buf) {
        report(cmd, "out of memory");
        return EXIT_RUNTIME;
    }
    for (;;) {
        size_t n = 1, e, bbytes;
        for (i = 0; i < ndim; i++) {
            bstart[i] = start[i] + idx[i];
            bcount[i] = count[i] - idx[i] < bshape[i] ? count[i] - idx[i] : bshape[i];
            n *= (size_t)bcount[i];
        }
        bbytes = n * esize;
        if (zarr_array_read(a, ndim, bstart, bcount, buf, bbytes) != ZARR_OK) {
            report_zarr(cmd, "%s: cannot read", arg);
            free(buf);
            return EXIT_RUNTIME;
        }
        for (e = 0; e < n; e++) {
            if (column) {
                fputc(' ', stdout);
            } else if (ndim >= 3 && row % count[ndim - 2] == 0) { /* a new 2-D slice */
                if (row) fputc('\n', stdout);
                put_slice_label(stdout, ndim, start, count, row / count[ndim - 2], dims);
            }
            if (cf_decoding_active(cf)) put_decoded(stdout, dt, esize, buf + e * esize, cf);
            else put_element(stdout, dt, esize, buf + e * esize);
            if (ndim == 0 || ++column == count[ndim - 1]) {
                fputc('\n', stdout);
                column = 0;
                row++;
            }
        }
        /* next block, C order */
        for (i = ndim; i > 0; i--) {
            idx[i - 1] += bshape[i - 1];
            if (idx[i - 1] < count[i - 1]) break;
            idx[i - 1] = 0;
        }
        if (i == 0) break;
    }
    free(buf);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        report(cmd, "cannot write to standard output");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

static int print_region(const char *cmd, const char *arg, const zarr_array *a, int all, int decode,
                        const region_spec *rs) {
    const char *dims[MAX_NDIM];
    json_value *meta, *attrs;
    cf_decoding cf;
    size_t ndim;
    int rc;
    if (zarr_array_ndim(a, &ndim) != ZARR_OK || ndim > MAX_NDIM) {
        report_zarr(cmd, "%s: cannot read array properties", arg);
        return EXIT_RUNTIME;
    }
    if (!(meta = array_metadata(cmd, a))) return EXIT_RUNTIME;
    attrs = array_attributes(a);
    array_dimension_names(meta, attrs, ndim, dims);
    memset(&cf, 0, sizeof cf);
    if (decode) cf_decoding_read(meta, attrs, metadata_format(meta), &cf);
    rc = print_values(cmd, arg, a, all, rs, dims, &cf);
    json_free(meta);
    json_free(attrs);
    return rc;
}

int cmd_cat(int argc, char **argv) {
    const char *path = NULL, *region = NULL;
    region_spec rs;
    node_ref ref;
    int all = 0, decode = 0, i, rc;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(cat_help, stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--all")) {
            all = 1;
        } else if (!strcmp(argv[i], "--decode")) {
            decode = 1;
        } else if (!strcmp(argv[i], "--region")) {
            if (++i == argc) {
                report("cat", "--region needs a value (see zarr cat --help)");
                return EXIT_USAGE;
            }
            region = argv[i];
        } else if (!strncmp(argv[i], "--region=", 9)) {
            region = argv[i] + 9;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            report("cat", "unknown option '%s' (see zarr cat --help)", argv[i]);
            return EXIT_USAGE;
        } else if (path) {
            report("cat", "one PATH expected (see zarr cat --help)");
            return EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        report("cat", "PATH expected (see zarr cat --help)");
        return EXIT_USAGE;
    }
    memset(&rs, 0, sizeof rs);
    if (region && parse_region(region, &rs) != 0) {
        report("cat", "malformed --region '%s': expected start:stop,start:stop,... (non-negative integers, "
               "start <= stop)", region);
        return EXIT_USAGE;
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if ((rc = resolve_path("cat", path, &ref)) != EXIT_OK) return rc;
    if ((rc = node_open("cat", &ref)) == EXIT_OK) {
        if (ref.undecodable) {
            report("cat", "%s: this build of libzarr cannot decode the array: %s", path, ref.why);
            rc = EXIT_RUNTIME;
        } else if (!ref.array) {
            report("cat", "%s is a group; cat prints arrays (try zarr tree)", path);
            rc = EXIT_RUNTIME;
        } else {
            rc = print_region("cat", path, ref.array, all, decode, &rs);
        }
    }
    node_close(&ref);
    return rc;
}
