/* cat.c -- `zarr cat`: an array's values as text. */
#define _XOPEN_SOURCE 700
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf.h"
#include "cftime.h"
#include "describe.h"

#define CAT_LIMIT 10000000ULL          /* elements printed without --all */
#define CAT_BLOCK_BYTES block_bytes /* bytes read per call: 8 MiB, or $ZARR_CAT_BLOCK_BYTES */

static const char *cat_help =
    "usage: zarr cat PATH [--region start:stop,start:stop,...] [--decode] [--all]\n"
    "                     [--store-options JSON]\n"
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
    "               A time axis (numbers whose `units` is \"<unit> since <date>\") prints\n"
    "               as dates, ISO 8601 always with the time of day: 2000-01-01T00:00:00,\n"
    "               then .fff or .ffffff for a fraction of a second (to the microsecond);\n"
    "               missing values as NaT. Units: weeks, days (day, d), hours (hour, hr,\n"
    "               h), minutes (minute, min), seconds (second, sec, s), milliseconds (ms),\n"
    "               microseconds (us); the date Y-M-D [H:M[:S]] with an optional time\n"
    "               zone (Z, UTC, +01:00). The `calendar` attribute: standard or\n"
    "               gregorian (the default: Julian up to 1582-10-04, Gregorian from\n"
    "               1582-10-15, as CF defines it), proleptic_gregorian, julian,\n"
    "               noleap or 365_day, all_leap or 366_day, 360_day. Years are\n"
    "               astronomical (0 is 1 BC). Another calendar, months or years since,\n"
    "               or a malformed date: a warning on stderr, the numbers undecoded.\n"
    "  --all        print even more than 10000000 elements (refused by default).\n"
    "\n"
    "Values are printed exactly and briefly:\n"
    "  integers      in decimal; bool as true/false\n"
    "  floats        float32, float64, bfloat16 and the float8 formats as the shortest\n"
    "                decimal that reads back as the same value of their type (0.1, not\n"
    "                0.10000000000000001); float16 with %.5g; nan, inf, -inf\n"
    "  complex       a+bj\n"
    "  datetime64    ISO 8601 at the precision of the unit, as numpy prints them:\n"
    "                2005-02-03 (D, W), 2005-02-03T04:05:06 (s), 2005-02-03T04:05:06.780 (ms,\n"
    "                us, ns... more digits), 2005 (Y), 2005-02 (M); NaT for not-a-time\n"
    "  timedelta64   the count in the base unit followed by the unit: 90s, 31536000000ms\n"
    "                (a scale factor multiplied in); NaT\n"
    "  strings       fixed_length_utf32 (v2 U) quoted, in UTF-8: \"abc\", with the escapes\n"
    "                \\\" \\\\ \\n \\t \\r and \\uNNNN for other control characters;\n"
    "                null_terminated_bytes (v2 S) as b\"abc\", \\xNN for bytes outside\n"
    "                printable ASCII; the zero padding at the end is not printed;\n"
    "                variable-length string and bytes (v2 object arrays) the same way,\n"
    "                every byte kept\n"
    "  structs       as records, {a: 1, b: 2.5, c: b\"xyz\"}, nested structs and v2\n"
    "                sub-arrays ([1, 2]) inside\n"
    "  raw bytes     r<N>, raw_bytes, v2 V: 0x followed by the bytes in hex\n"
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

/* The value rounded to the element's precision, so that a missing value given as a double
 * compares equal to the stored float32 or float16. */
static double to_element_precision(const dtype *t, double x) {
    if (t->kind == DT_FLOAT && t->size <= 4) return (double)(float)x;
    return x;
}

/* An element decoded with the CF attributes: missing as nan; scaled when there is a
 * scale_factor or add_offset; otherwise printed as stored. */
static void put_decoded(FILE *out, const dtype *t, const unsigned char *p, const cf_decoding *cf,
                        const cf_time *time) {
    double x;
    size_t i;
    char buf[64];
    if (!value_real(t, p, &x)) {
        value_put(out, t, p);
        return;
    }
    for (i = 0; i < cf->nmissing; i++) {
        if (x == to_element_precision(t, cf->missing[i]) || (isnan(x) && isnan(cf->missing[i]))) {
            fputs(time ? "NaT" : "nan", out);
            return;
        }
    }
    if (time) {
        /* a time axis: unpacked first, as xarray does */
        if (cf->has_scale || cf->has_offset) x = x * cf->scale + cf->offset;
        if (isnan(x)) fputs("NaT", out);
        else if (cftime_format(time, x, buf, sizeof buf)) fputs(buf, out);
        else put_float(out, x, 17, 0); /* beyond any calendar's range: the number */
        return;
    }
    if (!cf->has_scale && !cf->has_offset) {
        value_put(out, t, p);
        return;
    }
    put_float(out, x * cf->scale + cf->offset, 17, 0);
}

/* "[time=3, 0, :, :]": the label of the 2-D slice number `slice` (C order over the
 * dimensions before the last two) of the selection start/count. */
static void put_slice_label(FILE *out, size_t ndim, const uint64_t *start, const uint64_t *count, uint64_t slice,
                            char *const *dims) {
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

static int print_values(const char *cmd, const char *arg, const array_desc *d, int all, const region_spec *rs,
                        const cf_decoding *cf, const cf_time *time) {
    const zarr_array *a = d->array;
    const dtype *t = &d->type;
    char *const *dims = d->dims;
    size_t ndim, esize, unit, i, k;
    uint64_t shape[MAX_NDIM], start[MAX_NDIM], count[MAX_NDIM], bshape[MAX_NDIM], idx[MAX_NDIM];
    uint64_t bstart[MAX_NDIM], bcount[MAX_NDIM], total = 1, inner, column = 0, row = 0;
    size_t nbytes;
    unsigned char *buf, *vdata = NULL;
    uint64_t *offsets = NULL;
    size_t vcap = 0;
    int overflow = 0, vlen = t->kind == DT_VLEN;
    uint64_t block_bytes = env_bytes("ZARR_CAT_BLOCK_BYTES", (uint64_t)8 << 20);
    if (zarr_array_ndim(a, &ndim) != ZARR_OK || ndim > MAX_NDIM || zarr_array_shape(a, ndim, shape) != ZARR_OK ||
        zarr_array_element_size(a, &esize) != ZARR_OK) {
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
    if (vlen) {
        /* zarr_array_selection_nbytes has no answer for variable-length elements. */
        for (i = 0; i < ndim; i++)
            if (start[i] + count[i] > shape[i]) break;
    }
    if (vlen ? i < ndim : zarr_array_selection_nbytes(a, ndim, start, count, &nbytes) != ZARR_OK) {
        fprintf(stderr, "zarr: %s: %s: region ", cmd, arg);
        for (i = 0; i < ndim; i++)
            fprintf(stderr, "%s%llu:%llu", i ? "," : "", (unsigned long long)start[i], (unsigned long long)(start[i] + count[i]));
        fprintf(stderr, " is outside the array of shape ");
        print_dims(stderr, ndim, shape);
        fprintf(stderr, ": %s\n", vlen ? "out of bounds" : zarr_last_error_message());
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
    /* Variable-length elements: blocks of at most CAT_BLOCK_BYTES / 16 elements, their bytes
     * in a buffer that grows to what the block holds. */
    unit = vlen ? 16 : esize;
    inner = unit;
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
    buf = malloc(ndim ? (size_t)(inner * (k ? bshape[k - 1] : 1)) : unit);
    if (vlen) offsets = malloc((ndim ? (size_t)(inner * (k ? bshape[k - 1] : 1)) / unit + 1 : 2) * sizeof *offsets);
    if (!buf || (vlen && !offsets)) {
        free(buf);
        free(offsets);
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
        if (vlen ? read_vlen_block(a, ndim, bstart, bcount, offsets, n, &vdata, &vcap) != ZARR_OK
                 : zarr_array_read(a, ndim, bstart, bcount, buf, bbytes) != ZARR_OK) {
            report_zarr(cmd, "%s: cannot read", arg);
            free(buf);
            free(offsets);
            free(vdata);
            return EXIT_RUNTIME;
        }
        for (e = 0; e < n; e++) {
            if (column) {
                fputc(' ', stdout);
            } else if (ndim >= 3 && row % count[ndim - 2] == 0) { /* a new 2-D slice */
                if (row) fputc('\n', stdout);
                put_slice_label(stdout, ndim, start, count, row / count[ndim - 2], dims);
            }
            if (vlen) vlen_put(stdout, t, vdata + offsets[e], (size_t)(offsets[e + 1] - offsets[e]));
            else if (time || cf_decoding_active(cf)) put_decoded(stdout, t, buf + e * esize, cf, time);
            else value_put(stdout, t, buf + e * esize);
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
    free(offsets);
    free(vdata);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        report(cmd, "cannot write to standard output");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* Whether the array is a CF time axis cat --decode turns into dates: numbers with `units`
 * "<unit> since <date>" (and `calendar`). One that cannot be decoded (an unknown calendar,
 * months since...) is said on stderr, and its values print as numbers. */
static int read_time_axis(const char *cmd, const char *arg, const array_desc *d, cf_time *time) {
    char *units = NULL, *calendar = NULL, why[160];
    int r = CFTIME_NOT_TIME;
    if (d->type.kind != DT_INT && d->type.kind != DT_UINT && d->type.kind != DT_FLOAT) return 0;
    if (zarr_array_attribute_string(d->array, "units", &units) != ZARR_OK) return 0;
    if (zarr_array_attribute_string(d->array, "calendar", &calendar) != ZARR_OK) calendar = NULL;
    r = cftime_parse(units, calendar, time, why, sizeof why);
    if (r == CFTIME_UNSUPPORTED)
        fprintf(stderr, "zarr: %s: warning: %s: units \"%s\": %s; values printed undecoded\n", cmd, arg, units, why);
    zarr_string_free(units);
    zarr_string_free(calendar);
    return r == CFTIME_OK;
}

static int print_region(const char *cmd, const char *arg, const node_ref *ref, int all, int decode,
                        const region_spec *rs) {
    array_desc d;
    cf_decoding cf;
    cf_time time;
    int rc, has_time = 0;
    if (array_describe(cmd, ref->store, ref->node_path, &d) || !d.decodable) {
        if (!d.decodable && d.why) report(cmd, "%s: this build of libzarr cannot decode the array: %s", arg, d.why);
        array_desc_free(&d);
        return EXIT_RUNTIME;
    }
    memset(&cf, 0, sizeof cf);
    if (decode) {
        const json_value *fill = json_get(d.meta, "fill_value");
        cf_decoding_read(d.array, &d.type, d.format, !fill || fill->type == JSON_NULL, &cf);
        has_time = read_time_axis(cmd, arg, &d, &time);
    }
    rc = print_values(cmd, arg, &d, all, rs, &cf, has_time ? &time : NULL);
    array_desc_free(&d);
    return rc;
}

int cmd_cat(int argc, char **argv) {
    const char *path = NULL, *region = NULL, *options = NULL, *v; /* NULL: $ZARR_STORE_OPTIONS */
    region_spec rs;
    node_ref ref;
    int all = 0, decode = 0, i, rc, missing = 0;
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
        } else if ((v = option_value(argc, argv, &i, "--store-options", &missing))) {
            if (missing) {
                report("cat", "--store-options needs a JSON object (see zarr --help)");
                return EXIT_USAGE;
            }
            options = v;
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
    ref.options = options;
    if ((rc = node_open("cat", &ref)) == EXIT_OK) {
        if (ref.undecodable) {
            report("cat", "%s: this build of libzarr cannot decode the array: %s", path, ref.why);
            rc = EXIT_RUNTIME;
        } else if (!ref.array) {
            report("cat", "%s is a group; cat prints arrays (try zarr tree)", path);
            rc = EXIT_RUNTIME;
        } else {
            rc = print_region("cat", path, &ref, all, decode, &rs);
        }
    }
    node_close(&ref);
    return rc;
}
