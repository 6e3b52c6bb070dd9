/* dtype.c -- see dtype.h. */
#define _XOPEN_SOURCE 700
#include "dtype.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define MAX_STRUCT_DEPTH 16

/* ---- names ---------------------------------------------------------------------------- */

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *str_printf(const char *fmt, ...) {
    va_list ap;
    char *s;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    s = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (!s) {
        fputs("zarr: out of memory\n", stderr);
        exit(EXIT_RUNTIME);
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* The float8 formats: name, exponent bits, mantissa bits, bias, specials. */
enum { F8_IEEE, F8_FN, F8_FNUZ, F8_E8M0 };
static const struct {
    const char *name;
    int ebits, mbits, bias, specials;
    const char *about;
} float8_formats[] = {
    {"float8_e4m3", 4, 3, 7, F8_IEEE, "4 exponent bits (bias 7), 3 mantissa bits, infinities and NaN as IEEE 754"},
    {"float8_e4m3fn", 4, 3, 7, F8_FN, "4 exponent bits (bias 7), 3 mantissa bits, no infinities, NaN 0x7f/0xff"},
    {"float8_e4m3fnuz", 4, 3, 8, F8_FNUZ, "4 exponent bits (bias 8), 3 mantissa bits, no infinities, no -0, NaN 0x80"},
    {"float8_e4m3b11fnuz", 4, 3, 11, F8_FNUZ,
     "4 exponent bits (bias 11), 3 mantissa bits, no infinities, no -0, NaN 0x80"},
    {"float8_e5m2", 5, 2, 15, F8_IEEE, "5 exponent bits (bias 15), 2 mantissa bits, infinities and NaN as IEEE 754"},
    {"float8_e5m2fnuz", 5, 2, 16, F8_FNUZ, "5 exponent bits (bias 16), 2 mantissa bits, no infinities, no -0, NaN 0x80"},
    {"float8_e3m4", 3, 4, 3, F8_IEEE, "3 exponent bits (bias 3), 4 mantissa bits, infinities and NaN as IEEE 754"},
    {"float8_e8m0fnu", 8, 0, 127, F8_E8M0, "unsigned powers of two 2^(e-127), no zero, NaN 0xff"},
};
#define NFLOAT8 (sizeof float8_formats / sizeof float8_formats[0])

/* The simple v3 names, their kind and size. */
static const struct {
    const char *name;
    dtype_kind kind;
    size_t size;
} simple_types[] = {
    {"bool", DT_BOOL, 1},     {"int8", DT_INT, 1},       {"int16", DT_INT, 2},       {"int32", DT_INT, 4},
    {"int64", DT_INT, 8},     {"uint8", DT_UINT, 1},     {"uint16", DT_UINT, 2},     {"uint32", DT_UINT, 4},
    {"uint64", DT_UINT, 8},   {"float16", DT_FLOAT, 2},  {"float32", DT_FLOAT, 4},   {"float64", DT_FLOAT, 8},
    {"complex64", DT_COMPLEX, 8}, {"complex128", DT_COMPLEX, 16}, {"bfloat16", DT_BFLOAT16, 2},
};
#define NSIMPLE (sizeof simple_types / sizeof simple_types[0])

static const char *time_units[] = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "\xce\xbcs", "ns", "ps", "fs", "as",
                                   "generic"};

static int known_time_unit(const char *u) {
    size_t i;
    for (i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if (!strcmp(u, time_units[i])) return 1;
    return 0;
}

static void set_simple(dtype *t, size_t i) {
    t->kind = simple_types[i].kind;
    t->size = simple_types[i].size;
    t->name = dup_str(simple_types[i].name);
}

/* A simple v3 name (bool ... bfloat16, float8_*, r<N>); 0 when it is none of them. */
static int parse_simple_name(const char *s, dtype *t) {
    size_t i;
    for (i = 0; i < NSIMPLE; i++)
        if (!strcmp(s, simple_types[i].name)) return set_simple(t, i), 1;
    for (i = 0; i < NFLOAT8; i++) {
        if (!strcmp(s, float8_formats[i].name)) {
            t->kind = DT_FLOAT8;
            t->size = 1;
            t->float8 = (int)i;
            t->name = dup_str(s);
            return 1;
        }
    }
    if (s[0] == 'r' && s[1] >= '1' && s[1] <= '9') {
        char *end;
        unsigned long bits = strtoul(s + 1, &end, 10);
        if (!*end && bits % 8 == 0 && bits <= 8u * 1024 * 1024) {
            t->kind = DT_RAW;
            t->size = bits / 8;
            t->name = dup_str(s);
            return 1;
        }
    }
    return 0;
}

static void set_time(dtype *t, dtype_kind kind, const char *unit, uint32_t scale) {
    t->kind = kind;
    t->size = 8;
    snprintf(t->unit, sizeof t->unit, "%s", unit);
    t->scale = scale;
    t->name = str_printf("%s(unit=%s,scale_factor=%lu)", kind == DT_DATETIME ? "numpy.datetime64" : "numpy.timedelta64",
                         unit, (unsigned long)scale);
}

static void set_length(dtype *t, dtype_kind kind, const char *v3name, size_t n) {
    t->kind = kind;
    t->size = n;
    t->name = str_printf("%s(length_bytes=%lu)", v3name, (unsigned long)n);
}

/* NumPy's dtype strings (Zarr v2, the 2022 draft): [<>|=] then b1 i1..i8 u1..u8 f2 f4 f8
 * c8 c16 M8[<k><unit>] m8[...] S<n> U<n> V<n> O. Returns 0 when `s` is none of them. */
static int parse_numpy(const char *s, dtype *t) {
    static const struct {
        const char *code;
        size_t simple;
    } codes[] = {{"b1", 0}, {"i1", 1}, {"i2", 2}, {"i4", 3}, {"i8", 4}, {"u1", 5}, {"u2", 6}, {"u4", 7},
                 {"u8", 8}, {"f2", 9}, {"f4", 10}, {"f8", 11}, {"c8", 12}, {"c16", 13}};
    const char *p = s;
    size_t i;
    char order = 0;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (!strcmp(p, codes[i].code)) {
            set_simple(t, codes[i].simple);
            t->order = order;
            return 1;
        }
    }
    if ((p[0] == 'M' || p[0] == 'm') && p[1] == '8') {
        dtype_kind kind = p[0] == 'M' ? DT_DATETIME : DT_TIMEDELTA;
        const char *q = p + 2;
        unsigned long scale = 1;
        char unit[8];
        size_t n;
        if (!*q) {
            set_time(t, kind, "generic", 1);
        } else {
            if (*q++ != '[') return 0;
            if (*q >= '1' && *q <= '9') {
                char *end;
                scale = strtoul(q, &end, 10);
                q = end;
            }
            n = strcspn(q, "]");
            if (n == 0 || n >= sizeof unit || strcmp(q + n, "]") != 0 || scale == 0 || scale >= 1UL << 31) return 0;
            memcpy(unit, q, n);
            unit[n] = '\0';
            if (!known_time_unit(unit)) return 0;
            set_time(t, kind, unit, (uint32_t)scale);
        }
        t->order = order;
        return 1;
    }
    if ((p[0] == 'S' || p[0] == 'U' || p[0] == 'V') && p[1] >= '1' && p[1] <= '9') {
        char *end;
        unsigned long n = strtoul(p + 1, &end, 10);
        if (*end || n > 16UL * 1024 * 1024) return 0;
        if (p[0] == 'S') set_length(t, DT_BYTES, "null_terminated_bytes", n);
        else if (p[0] == 'U') set_length(t, DT_UTF32, "fixed_length_utf32", 4 * n);
        else {
            t->kind = DT_RAW;
            t->size = n;
            t->name = str_printf("r%lu", 8 * n);
        }
        t->order = order;
        return 1;
    }
    if (!strcmp(p, "O")) {
        t->kind = DT_VLEN;
        t->name = dup_str("object");
        t->order = order;
        return 1;
    }
    return 0;
}

static void parse_depth(const json_value *v, int format, dtype *t, int depth);

/* The display name of a struct from its fields: struct(a:int32,b:float64[2,3]). */
static void struct_name(dtype *t) {
    char *text = NULL;
    size_t len = 0, i, k;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        t->name = dup_str("struct");
        return;
    }
    fputs(t->legacy ? "structured(" : "struct(", f);
    for (i = 0; i < t->nfields; i++) {
        const dtype_field *fd = &t->fields[i];
        fprintf(f, "%s%s:%s", i ? "," : "", fd->name, fd->type.name);
        for (k = 0; k < fd->ndim; k++) fprintf(f, "%s%llu", k ? "," : "[", (unsigned long long)fd->shape[k]);
        if (fd->ndim) fputc(']', f);
    }
    fputc(')', f);
    if (fclose(f) != 0) {
        free(text);
        text = dup_str("struct");
    }
    t->name = text;
}

/* Fields: v3 objects {name, data_type} or [name, type] pairs (legacy "structured"); v2
 * [name, dtype] or [name, dtype, shape]. */
static void parse_fields(const json_value *list, int format, dtype *t, int depth) {
    size_t i, k, offset = 0;
    int ok = 1;
    t->kind = DT_STRUCT;
    if (!list || list->type != JSON_ARRAY || list->count == 0 || depth > MAX_STRUCT_DEPTH) ok = 0;
    if (ok) {
        t->fields = calloc(list->count, sizeof *t->fields);
        if (!t->fields) ok = 0;
    }
    for (i = 0; ok && i < list->count; i++) {
        const json_value *item = &list->items[i], *name, *type, *shape = NULL;
        dtype_field *fd = &t->fields[i];
        if (item->type == JSON_OBJECT) {
            name = json_get(item, "name");
            type = json_get(item, "data_type");
        } else if (item->type == JSON_ARRAY && (item->count == 2 || item->count == 3)) {
            name = &item->items[0];
            type = &item->items[1];
            if (item->count == 3) shape = &item->items[2];
        } else {
            ok = 0;
            break;
        }
        if (!json_string(name) || !type) {
            ok = 0;
            break;
        }
        t->nfields = i + 1;
        fd->name = dup_str(json_string(name));
        fd->count = 1;
        if (shape) {
            unsigned long long n;
            if (shape->type != JSON_ARRAY || shape->count > 8) {
                ok = 0;
                break;
            }
            fd->ndim = shape->count;
            for (k = 0; k < shape->count; k++) {
                if (!json_u64(&shape->items[k], &n) || (n && fd->count > SIZE_MAX / n)) {
                    ok = 0;
                    break;
                }
                fd->shape[k] = n;
                fd->count *= (size_t)n;
            }
        }
        parse_depth(type, format, &fd->type, depth + 1);
        fd->offset = offset;
        if (!ok || fd->type.size == 0 || !dtype_printable(&fd->type) ||
            (fd->count && fd->type.size > SIZE_MAX / fd->count))
            ok = 0;
        else
            offset += fd->type.size * fd->count;
    }
    if (ok) {
        t->size = offset;
        struct_name(t);
    } else {
        /* A struct the tool cannot lay out: keep its name, print nothing of its values. */
        for (i = 0; i < t->nfields; i++) {
            free(t->fields[i].name);
            dtype_free(&t->fields[i].type);
        }
        free(t->fields);
        t->fields = NULL;
        t->nfields = 0;
        t->kind = DT_UNKNOWN;
        t->size = 0;
        t->name = dup_str(t->legacy ? "structured" : "struct");
    }
}

static void parse_depth(const json_value *v, int format, dtype *t, int depth) {
    const char *s = json_string(v);
    memset(t, 0, sizeof *t);
    t->scale = 1;
    if (format == 2) {
        if (s && parse_numpy(s, t)) return;
        if (v && v->type == JSON_ARRAY) {
            parse_fields(v, 2, t, depth);
            return;
        }
    } else if (s) {
        if (parse_simple_name(s, t) || parse_numpy(s, t)) return;
        if (!strcmp(s, "string") || !strcmp(s, "bytes") || !strcmp(s, "variable_length_bytes")) {
            t->kind = DT_VLEN;
            t->name = dup_str(s);
            return;
        }
    } else if (v && v->type == JSON_OBJECT && json_string(json_get(v, "name"))) {
        const char *name = json_string(json_get(v, "name"));
        const json_value *cfg = json_get(v, "configuration");
        unsigned long long n = 0, scale = 0;
        const char *unit = json_string(json_get(cfg, "unit"));
        int has_n = json_u64(json_get(cfg, "length_bytes"), &n) && n > 0 && n <= 16u * 1024 * 1024;
        if (!strcmp(name, "fixed_length_utf32") && has_n && n % 4 == 0) {
            set_length(t, DT_UTF32, name, n);
            return;
        }
        if (!strcmp(name, "null_terminated_bytes") && has_n) {
            set_length(t, DT_BYTES, name, n);
            return;
        }
        if (!strcmp(name, "raw_bytes") && has_n) {
            set_length(t, DT_RAW, name, n);
            t->raw_bytes = 1;
            return;
        }
        if ((!strcmp(name, "numpy.datetime64") || !strcmp(name, "numpy.timedelta64")) && unit &&
            known_time_unit(unit) && json_u64(json_get(cfg, "scale_factor"), &scale) && scale >= 1 &&
            scale < 1ULL << 31) {
            set_time(t, name[6] == 'd' ? DT_DATETIME : DT_TIMEDELTA, unit, (uint32_t)scale);
            return;
        }
        if (!strcmp(name, "struct") || !strcmp(name, "structured")) {
            t->legacy = !strcmp(name, "structured");
            parse_fields(json_get(cfg, "fields"), 3, t, depth);
            return;
        }
        if (!cfg && parse_simple_name(name, t)) return;
        t->kind = DT_UNKNOWN;
        t->name = dup_str(name);
        return;
    }
    t->kind = DT_UNKNOWN;
    if (s) t->name = dup_str(s);
    else if (v) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (f) {
            json_print(v, f);
            if (fclose(f) != 0) {
                free(text);
                text = NULL;
            }
        }
        t->name = text ? text : dup_str("?");
    } else {
        t->name = dup_str("?");
    }
}

void dtype_parse(const json_value *v, int format, dtype *out) { parse_depth(v, format, out, 0); }

void dtype_from_code(int code, size_t element_size, dtype *t) {
    memset(t, 0, sizeof *t);
    t->scale = 1;
    if (code >= ZARR_DATA_TYPE_BOOL && code <= ZARR_DATA_TYPE_COMPLEX128) set_simple(t, (size_t)(code - 1));
    else if (code == ZARR_DATA_TYPE_BFLOAT16) set_simple(t, NSIMPLE - 1);
    else if (code >= ZARR_DATA_TYPE_FLOAT8_E4M3 && code <= ZARR_DATA_TYPE_FLOAT8_E8M0FNU) {
        t->kind = DT_FLOAT8;
        t->size = 1;
        t->float8 = code - ZARR_DATA_TYPE_FLOAT8_E4M3;
        t->name = dup_str(float8_formats[t->float8].name);
    } else if (code == ZARR_DATA_TYPE_STRING || code == ZARR_DATA_TYPE_BYTES) {
        t->kind = DT_VLEN;
        t->vlen_text = code == ZARR_DATA_TYPE_STRING;
        t->name = dup_str(t->vlen_text ? "string" : "bytes");
    } else if (code == ZARR_DATA_TYPE_RAW || code == ZARR_DATA_TYPE_RAW_BYTES) {
        t->kind = DT_RAW;
        t->size = element_size;
        t->raw_bytes = code == ZARR_DATA_TYPE_RAW_BYTES;
        t->name = t->raw_bytes ? str_printf("raw_bytes(length_bytes=%lu)", (unsigned long)element_size)
                               : str_printf("r%lu", (unsigned long)(8 * element_size));
    } else if (code >= ZARR_DATA_TYPE_INT2 && code <= ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU) {
        /* The registry's sub-byte and complex types: named as the library names them; their
         * elements are printed as bytes (the tool has no arithmetic for their codes). */
        t->kind = DT_UNKNOWN;
        t->size = element_size;
        t->name = dup_str(zarr_data_type_str(code));
    } else {
        /* The other codes need their metadata (length, unit, fields): opaque bytes here. */
        t->kind = DT_UNKNOWN;
        t->size = element_size;
        t->name = str_printf("unknown(%d)", code);
    }
}

void dtype_free(dtype *t) {
    size_t i;
    for (i = 0; i < t->nfields; i++) {
        free(t->fields[i].name);
        dtype_free(&t->fields[i].type);
    }
    free(t->fields);
    free(t->name);
    memset(t, 0, sizeof *t);
}

int dtype_printable(const dtype *t) { return t->kind != DT_VLEN && t->kind != DT_UNKNOWN && t->size > 0; }

/* ---- details ---------------------------------------------------------------------------- */

static const char *unit_words(const char *u) {
    static const struct {
        const char *unit, *words;
    } names[] = {{"Y", "years"},          {"M", "months"},       {"W", "weeks"},       {"D", "days"},
                 {"h", "hours"},          {"m", "minutes"},      {"s", "seconds"},     {"ms", "milliseconds"},
                 {"us", "microseconds"},  {"\xce\xbcs", "microseconds"}, {"ns", "nanoseconds"},
                 {"ps", "picoseconds"},   {"fs", "femtoseconds"}, {"as", "attoseconds"}, {"generic", "generic units"}};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(u, names[i].unit)) return names[i].words;
    return u;
}

const char *dtype_summary(const dtype *t, char *buf, size_t len) {
    switch (t->kind) {
    case DT_DATETIME:
    case DT_TIMEDELTA: {
        char scale[16] = "";
        if (t->scale != 1) snprintf(scale, sizeof scale, "%lu ", (unsigned long)t->scale);
        snprintf(buf, len, "int64 counting %s%s%s; NaT = -2^63", scale, unit_words(t->unit),
                 t->kind == DT_DATETIME ? " since 1970-01-01T00:00:00" : "");
        return buf;
    }
    case DT_UTF32:
        snprintf(buf, len, "%lu bytes: up to %lu characters as UTF-32, zero-padded", (unsigned long)t->size,
                 (unsigned long)(t->size / 4));
        return buf;
    case DT_BYTES:
        snprintf(buf, len, "%lu bytes, zero-padded", (unsigned long)t->size);
        return buf;
    case DT_RAW:
        snprintf(buf, len, "%lu opaque bytes", (unsigned long)t->size);
        return buf;
    case DT_STRUCT:
        snprintf(buf, len, "%lu bytes in %lu fields, packed", (unsigned long)t->size, (unsigned long)t->nfields);
        return buf;
    case DT_BFLOAT16: snprintf(buf, len, "8 exponent bits, 7 mantissa bits (the top half of a float32)"); return buf;
    case DT_FLOAT8: snprintf(buf, len, "%s", float8_formats[t->float8].about); return buf;
    case DT_VLEN:
        snprintf(buf, len, "variable-length %s", t->vlen_text ? "UTF-8 strings" : "byte strings");
        return buf;
    default: return NULL;
    }
}

static void print_fields(FILE *out, const dtype *t, int indent, size_t base) {
    size_t i, k;
    for (i = 0; t->kind == DT_STRUCT && i < t->nfields; i++) {
        const dtype_field *fd = &t->fields[i];
        fprintf(out, "%*s%s: %s", indent, "", fd->name, fd->type.name);
        for (k = 0; k < fd->ndim; k++) fprintf(out, "%s%llu", k ? ", " : " [", (unsigned long long)fd->shape[k]);
        fprintf(out, "%s at byte %lu\n", fd->ndim ? "]" : "", (unsigned long)(base + fd->offset));
        if (fd->type.kind == DT_STRUCT && !fd->ndim) print_fields(out, &fd->type, indent + 2, base + fd->offset);
    }
}

void dtype_print_fields(FILE *out, const dtype *t, int indent) { print_fields(out, t, indent, 0); }

/* ---- spellings for new documents ------------------------------------------------------ */

int dtype_put_v3(FILE *out, const dtype *t) {
    size_t i;
    switch (t->kind) {
    case DT_DATETIME:
    case DT_TIMEDELTA:
        fprintf(out, "{\"name\":\"numpy.%s64\",\"configuration\":{\"unit\":", t->kind == DT_DATETIME ? "datetime" : "timedelta");
        json_put_string(out, t->unit);
        fprintf(out, ",\"scale_factor\":%lu}}", (unsigned long)t->scale);
        return 0;
    case DT_UTF32:
    case DT_BYTES:
        fprintf(out, "{\"name\":\"%s\",\"configuration\":{\"length_bytes\":%lu}}",
                t->kind == DT_UTF32 ? "fixed_length_utf32" : "null_terminated_bytes", (unsigned long)t->size);
        return 0;
    case DT_RAW:
        if (t->raw_bytes) fprintf(out, "{\"name\":\"raw_bytes\",\"configuration\":{\"length_bytes\":%lu}}", (unsigned long)t->size);
        else fprintf(out, "\"r%lu\"", (unsigned long)(8 * t->size));
        return 0;
    case DT_STRUCT:
        fputs("{\"name\":\"struct\",\"configuration\":{\"fields\":[", out);
        for (i = 0; i < t->nfields; i++) {
            if (t->fields[i].ndim) return -1; /* v3 fields have no sub-array shapes */
            fputs(i ? ",{\"name\":" : "{\"name\":", out);
            json_put_string(out, t->fields[i].name);
            fputs(",\"data_type\":", out);
            if (dtype_put_v3(out, &t->fields[i].type)) return -1;
            fputc('}', out);
        }
        fputs("]}}", out);
        return 0;
    case DT_VLEN: fputs(t->vlen_text ? "\"string\"" : "\"bytes\"", out); return 0;
    case DT_UNKNOWN: return -1;
    default: fprintf(out, "\"%s\"", t->name); return 0;
    }
}

int dtype_put_v2(FILE *out, const dtype *t) {
    static const char *codes[] = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"};
    size_t i;
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (!strcmp(t->name, simple_types[i].name)) {
            fprintf(out, "\"%c%s\"", t->size == 1 ? '|' : '<', codes[i]);
            return 0;
        }
    }
    switch (t->kind) {
    case DT_DATETIME:
    case DT_TIMEDELTA:
        fprintf(out, "\"<%c8", t->kind == DT_DATETIME ? 'M' : 'm');
        if (strcmp(t->unit, "generic") != 0) {
            fputc('[', out);
            if (t->scale != 1) fprintf(out, "%lu", (unsigned long)t->scale);
            fputs(!strcmp(t->unit, "\xce\xbcs") ? "us" : t->unit, out);
            fputc(']', out);
        }
        fputc('"', out);
        return 0;
    case DT_UTF32: fprintf(out, "\"<U%lu\"", (unsigned long)(t->size / 4)); return 0;
    case DT_BYTES: fprintf(out, "\"|S%lu\"", (unsigned long)t->size); return 0;
    case DT_RAW: fprintf(out, "\"|V%lu\"", (unsigned long)t->size); return 0;
    case DT_VLEN: fputs("\"|O\"", out); return 0; /* with a vlen-utf8 or vlen-bytes filter */
    case DT_STRUCT:
        fputc('[', out);
        for (i = 0; i < t->nfields; i++) {
            fputs(i ? ",[" : "[", out);
            json_put_string(out, t->fields[i].name);
            fputc(',', out);
            if (dtype_put_v2(out, &t->fields[i].type)) return -1;
            if (t->fields[i].ndim) {
                fputc(',', out);
                json_put_u64_list(out, t->fields[i].ndim, t->fields[i].shape);
            }
            fputc(']', out);
        }
        fputc(']', out);
        return 0;
    default: return -1; /* bfloat16, float8, variable-length, unknown */
    }
}

/* ---- values ----------------------------------------------------------------------------- */

int host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

double half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1F;
    double m = (double)(h & 0x3FF), v;
    if (e == 0) v = ldexp(m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp(m + 1024.0, e - 25);
    return (h & 0x8000) ? -v : v;
}

void put_float(FILE *out, double x, int digits, int plus) {
    char buf[40];
    if (isnan(x)) fputs(plus ? "+nan" : "nan", out);
    else if (isinf(x)) fputs(x < 0 ? "-inf" : (plus ? "+inf" : "inf"), out);
    else if (digits == 5) fprintf(out, plus && !signbit(x) ? "+%.*g" : "%.*g", digits, x);
    else fprintf(out, plus && !signbit(x) ? "+%s" : "%s", shortest_double(x, digits == 9, buf, sizeof buf));
}

static double bf16_to_double(uint16_t bits) {
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double float8_to_double(int fmt, uint8_t bits) {
    int e_bits = float8_formats[fmt].ebits, m_bits = float8_formats[fmt].mbits, bias = float8_formats[fmt].bias;
    int specials = float8_formats[fmt].specials, exponent, mantissa, max_exponent = (1 << e_bits) - 1;
    double sign = bits & 0x80 ? -1.0 : 1.0;
    if (specials == F8_E8M0) return bits == 0xff ? NAN : ldexp(1.0, bits - bias);
    exponent = (bits >> m_bits) & max_exponent;
    mantissa = bits & ((1 << m_bits) - 1);
    if (specials == F8_IEEE && exponent == max_exponent) return mantissa ? NAN : sign * INFINITY;
    if (specials == F8_FN && exponent == max_exponent && mantissa == (1 << m_bits) - 1) return NAN;
    if (specials == F8_FNUZ && bits == 0x80) return NAN;
    if (exponent == 0) return sign * ldexp((double)mantissa, 1 - bias - m_bits);
    return sign * ldexp((double)((1 << m_bits) + mantissa), exponent - bias - m_bits);
}

/* The shortest %g text that reads back as x among `n` candidate values (x is one of them):
 * the nearest candidate to the text's value must be x, strictly. An integral x prints as
 * an integer when that is no longer ("448", not "4.5e+02"). */
static void shortest_among(double x, const double *values, size_t n, char *buf, size_t len) {
    int digits;
    size_t i;
    char whole[32];
    if (x == 0) {
        snprintf(buf, len, signbit(x) ? "-0" : "0");
        return;
    }
    for (digits = 1; digits <= 17; digits++) {
        double c, d;
        int unique = 1;
        snprintf(buf, len, "%.*g", digits, x);
        c = strtod(buf, NULL);
        d = fabs(c - x);
        for (i = 0; i < n && unique; i++)
            if (isfinite(values[i]) && values[i] != x && fabs(c - values[i]) <= d) unique = 0;
        if (unique) break;
    }
    if (digits > 17) snprintf(buf, len, "%.17g", x);
    if (x == floor(x) && fabs(x) < 1e17) {
        snprintf(whole, sizeof whole, "%.0f", x);
        if (strlen(whole) <= strlen(buf)) snprintf(buf, len, "%s", whole);
    }
}

/* The printed form of every bit pattern of a float8 format, made on first use. */
static const char *float8_text(int fmt, uint8_t bits) {
    static char table[NFLOAT8][256][32];
    static int made[NFLOAT8];
    if (!made[fmt]) {
        double values[256];
        int i;
        for (i = 0; i < 256; i++) values[i] = float8_to_double(fmt, (uint8_t)i);
        for (i = 0; i < 256; i++) {
            double x = values[i];
            if (isnan(x)) snprintf(table[fmt][i], sizeof table[fmt][i], "nan");
            else if (isinf(x)) snprintf(table[fmt][i], sizeof table[fmt][i], x < 0 ? "-inf" : "inf");
            else shortest_among(x, values, 256, table[fmt][i], sizeof table[fmt][i]);
        }
        made[fmt] = 1;
    }
    return table[fmt][bits];
}

/* bfloat16: the shortest text whose nearest bfloat16 is this one (its neighbours by bit
 * pattern are the only values that could be nearer). */
static void put_bf16(FILE *out, uint16_t bits) {
    double x = bf16_to_double(bits), near[2];
    char buf[40];
    if (isnan(x) || isinf(x) || x == 0) {
        put_float(out, x, 17, 0);
        return;
    }
    near[0] = bf16_to_double((uint16_t)(bits - 1)); /* smaller magnitude (0x0001 - 1 is +0) */
    near[1] = bf16_to_double((uint16_t)(bits + 1)); /* larger magnitude, or infinity (skipped) */
    shortest_among(x, near, 2, buf, sizeof buf);
    fputs(buf, out);
}

/* Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    int64_t era, yoe, doy, mp;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    yoe = z - era * 146097;
    yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
    doy = z - era * 146097 - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

static void put_year(FILE *out, int64_t y) {
    if (y >= 0 && y <= 9999) fprintf(out, "%04" PRId64, y);
    else fprintf(out, "%+05" PRId64, y); /* ISO 8601's expanded years */
}

/* a * b, or 0 (and *ok cleared) when it overflows int64. */
static int64_t mul_checked(int64_t a, int64_t b, int *ok) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *ok = 0;
        return 0;
    }
    return r;
}

/* Dates further than this from 1970 (some 3e12 years) print as counts: civil_from_days
 * would overflow. */
#define DAYS_LIMIT ((int64_t)1 << 50)

/* A datetime64 value in ISO 8601 at its unit's precision, as numpy's datetime_as_string. */
static void put_datetime(FILE *out, const dtype *t, int64_t v) {
    static const struct {
        const char *unit;
        int digits; /* of the fraction of a second */
    } sub[] = {{"ms", 3}, {"us", 6}, {"\xce\xbcs", 6}, {"ns", 9}, {"ps", 12}, {"fs", 15}, {"as", 18}};
    const char *u = t->unit;
    int ok = 1, digits = -1;
    int64_t total = mul_checked(v, (int64_t)t->scale, &ok), days, rest = 0, y;
    unsigned m, d;
    size_t i;
    if (!ok || !strcmp(u, "generic")) {
        fprintf(out, "%" PRId64 "*%lu%s", v, (unsigned long)t->scale, strcmp(u, "generic") ? u : "");
        return;
    }
    if (!strcmp(u, "Y")) {
        if (total > INT64_MAX - 1970) fprintf(out, "%" PRId64 "*%lu%s", v, (unsigned long)t->scale, u);
        else put_year(out, 1970 + total);
        return;
    }
    if (!strcmp(u, "M")) {
        put_year(out, 1970 + floor_div(total, 12));
        fprintf(out, "-%02d", (int)floor_mod(total, 12) + 1);
        return;
    }
    if (!strcmp(u, "W") || !strcmp(u, "D")) {
        days = !strcmp(u, "W") ? mul_checked(total, 7, &ok) : total;
        if (!ok || days > DAYS_LIMIT || days < -DAYS_LIMIT) {
            fprintf(out, "%" PRId64 "*%lu%s", v, (unsigned long)t->scale, u);
            return;
        }
        civil_from_days(days, &y, &m, &d);
        put_year(out, y);
        fprintf(out, "-%02u-%02u", m, d);
        return;
    }
    /* h, m, s and below: days, then the time of day (in the unit), then the fraction */
    {
        int64_t per_day, per_second = 1, sod;
        for (i = 0; i < sizeof sub / sizeof sub[0]; i++)
            if (!strcmp(u, sub[i].unit)) digits = sub[i].digits;
        for (i = 0; (int)i < digits; i++) per_second *= 10;
        per_day = !strcmp(u, "h") ? 24 : !strcmp(u, "m") ? 1440 : 86400;
        if (digits > 0) {
            rest = floor_mod(total, per_second);
            total = floor_div(total, per_second); /* now seconds */
        }
        days = floor_div(total, per_day);
        sod = floor_mod(total, per_day);
        if (days > DAYS_LIMIT || days < -DAYS_LIMIT) {
            fprintf(out, "%" PRId64 "*%lu%s", v, (unsigned long)t->scale, u);
            return;
        }
        civil_from_days(days, &y, &m, &d);
        put_year(out, y);
        fprintf(out, "-%02u-%02uT", m, d);
        if (per_day == 24) fprintf(out, "%02d", (int)sod);
        else if (per_day == 1440) fprintf(out, "%02d:%02d", (int)(sod / 60), (int)(sod % 60));
        else fprintf(out, "%02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
        if (digits > 0) fprintf(out, ".%0*" PRId64, digits, rest);
    }
}

/* A timedelta64 value with its unit: "90s", "31536000000ms". */
static void put_timedelta(FILE *out, const dtype *t, int64_t v) {
    int ok = 1;
    int64_t total = mul_checked(v, (int64_t)t->scale, &ok);
    if (!strcmp(t->unit, "generic")) fprintf(out, "%" PRId64, v);
    else if (ok) fprintf(out, "%" PRId64 "%s", total, t->unit);
    else fprintf(out, "%" PRId64 "*%lu%s", v, (unsigned long)t->scale, t->unit);
}

static void put_utf8(FILE *out, uint32_t c) {
    if (c < 0x80) fputc((int)c, out);
    else if (c < 0x800) fprintf(out, "%c%c", 0xC0 | (c >> 6), 0x80 | (c & 0x3F));
    else if (c < 0x10000) fprintf(out, "%c%c%c", 0xE0 | (c >> 12), 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F));
    else
        fprintf(out, "%c%c%c%c", 0xF0 | (c >> 18), 0x80 | ((c >> 12) & 0x3F), 0x80 | ((c >> 6) & 0x3F),
                0x80 | (c & 0x3F));
}

/* A character of a quoted string: the escapes of C and JSON for quote, backslash and the
 * common controls; \xNN (bytes) or \uNNNN / \UNNNNNNNN (text) for the other controls and
 * for what is not a character (surrogates, values past U+10FFFF). */
static void put_escaped(FILE *out, uint32_t c, int bytes) {
    if (c == '"') fputs("\\\"", out);
    else if (c == '\\') fputs("\\\\", out);
    else if (c == '\n') fputs("\\n", out);
    else if (c == '\t') fputs("\\t", out);
    else if (c == '\r') fputs("\\r", out);
    else if (bytes && (c < 0x20 || c >= 0x7F)) fprintf(out, "\\x%02x", (unsigned)c);
    else if (c < 0x20 || (c >= 0x7F && c < 0xA0) || (c >= 0xD800 && c < 0xE000)) fprintf(out, "\\u%04x", (unsigned)c);
    else if (c > 0x10FFFF) fprintf(out, "\\U%08lx", (unsigned long)c);
    else put_utf8(out, c);
}

static void put_utf32(FILE *out, const unsigned char *p, size_t size) {
    size_t n = size / 4, i;
    uint32_t c;
    while (n > 0) { /* trailing NULs are padding */
        memcpy(&c, p + 4 * (n - 1), 4);
        if (c) break;
        n--;
    }
    fputc('"', out);
    for (i = 0; i < n; i++) {
        memcpy(&c, p + 4 * i, 4);
        put_escaped(out, c, 0);
    }
    fputc('"', out);
}

static void put_bytes(FILE *out, const unsigned char *p, size_t size) {
    size_t i;
    while (size > 0 && p[size - 1] == 0) size--;
    fputs("b\"", out);
    for (i = 0; i < size; i++) put_escaped(out, p[i], 1);
    fputc('"', out);
}

/* The next code point of the UTF-8 text p[*i .. len), advancing *i; U+FFFD for a byte that
 * does not start a valid sequence (libzarr validates text, so this is only a safeguard). */
static uint32_t next_code_point(const unsigned char *p, size_t len, size_t *i) {
    unsigned char b = p[*i];
    size_t need, k;
    uint32_t c;
    if (b < 0x80) {
        (*i)++;
        return b;
    }
    if ((b & 0xE0) == 0xC0) need = 1, c = b & 0x1Fu;
    else if ((b & 0xF0) == 0xE0) need = 2, c = b & 0x0Fu;
    else if ((b & 0xF8) == 0xF0) need = 3, c = b & 0x07u;
    else need = 0, c = 0;
    if (need == 0 || len - *i <= need) { /* not a lead byte, or the sequence is cut */
        (*i)++;
        return 0xFFFD;
    }
    for (k = 1; k <= need; k++) {
        if ((p[*i + k] & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        c = (c << 6) | (uint32_t)(p[*i + k] & 0x3F);
    }
    *i += need + 1;
    return c;
}

void vlen_put(FILE *out, const dtype *t, const unsigned char *p, size_t len) {
    size_t i = 0;
    if (!t->vlen_text) {
        fputs("b\"", out);
        for (i = 0; i < len; i++) put_escaped(out, p[i], 1);
        fputc('"', out);
        return;
    }
    fputc('"', out);
    while (i < len) put_escaped(out, next_code_point(p, len, &i), 0);
    fputc('"', out);
}

/* A field name as it is when it looks like an identifier, else quoted. */
static void put_field_name(FILE *out, const char *name) {
    const char *p = name;
    int plain = *p && !(*p >= '0' && *p <= '9');
    for (; *p && plain; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            plain = 0;
    if (plain) fputs(name, out);
    else json_put_string(out, name);
}

/* The elements of a v2 sub-array field, nested by its shape: [[1, 2], [3, 4]]. */
static void put_subarray(FILE *out, const dtype_field *fd, const unsigned char *p, size_t dim, size_t *index) {
    uint64_t i;
    fputc('[', out);
    for (i = 0; i < fd->shape[dim]; i++) {
        if (i) fputs(", ", out);
        if (dim + 1 < fd->ndim) {
            put_subarray(out, fd, p, dim + 1, index);
        } else {
            value_put(out, &fd->type, p + *index * fd->type.size);
            (*index)++;
        }
    }
    fputc(']', out);
}

void value_put(FILE *out, const dtype *t, const unsigned char *p) {
    size_t i;
    switch (t->kind) {
    case DT_BOOL: fputs(p[0] ? "true" : "false", out); return;
    case DT_INT:
        if (t->size == 1) fprintf(out, "%d", (int)(int8_t)p[0]);
        else if (t->size == 2) { int16_t v; memcpy(&v, p, 2); fprintf(out, "%d", (int)v); }
        else if (t->size == 4) { int32_t v; memcpy(&v, p, 4); fprintf(out, "%" PRId32, v); }
        else { int64_t v; memcpy(&v, p, 8); fprintf(out, "%" PRId64, v); }
        return;
    case DT_UINT:
        if (t->size == 1) fprintf(out, "%u", (unsigned)p[0]);
        else if (t->size == 2) { uint16_t v; memcpy(&v, p, 2); fprintf(out, "%u", (unsigned)v); }
        else if (t->size == 4) { uint32_t v; memcpy(&v, p, 4); fprintf(out, "%" PRIu32, v); }
        else { uint64_t v; memcpy(&v, p, 8); fprintf(out, "%" PRIu64, v); }
        return;
    case DT_FLOAT:
        if (t->size == 2) { uint16_t v; memcpy(&v, p, 2); put_float(out, half_to_double(v), 5, 0); }
        else if (t->size == 4) { float v; memcpy(&v, p, 4); put_float(out, v, 9, 0); }
        else { double v; memcpy(&v, p, 8); put_float(out, v, 17, 0); }
        return;
    case DT_COMPLEX:
        if (t->size == 8) {
            float v[2];
            memcpy(v, p, 8);
            put_float(out, v[0], 9, 0);
            put_float(out, v[1], 9, 1);
        } else {
            double v[2];
            memcpy(v, p, 16);
            put_float(out, v[0], 17, 0);
            put_float(out, v[1], 17, 1);
        }
        fputc('j', out);
        return;
    case DT_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); put_bf16(out, v); return; }
    case DT_FLOAT8: fputs(float8_text(t->float8, p[0]), out); return;
    case DT_DATETIME:
    case DT_TIMEDELTA: {
        int64_t v;
        memcpy(&v, p, 8);
        if (v == INT64_MIN) fputs("NaT", out);
        else if (t->kind == DT_DATETIME) put_datetime(out, t, v);
        else put_timedelta(out, t, v);
        return;
    }
    case DT_UTF32: put_utf32(out, p, t->size); return;
    case DT_BYTES: put_bytes(out, p, t->size); return;
    case DT_STRUCT:
        fputc('{', out);
        for (i = 0; i < t->nfields; i++) {
            const dtype_field *fd = &t->fields[i];
            if (i) fputs(", ", out);
            put_field_name(out, fd->name);
            fputs(": ", out);
            if (fd->ndim) {
                size_t index = 0;
                put_subarray(out, fd, p + fd->offset, 0, &index);
            } else {
                value_put(out, &fd->type, p + fd->offset);
            }
        }
        fputc('}', out);
        return;
    default: /* raw bytes, and anything the tool cannot read: the bytes in hex */
        fputs("0x", out);
        for (i = 0; i < t->size; i++) fprintf(out, "%02x", p[i]);
        return;
    }
}

int value_real(const dtype *t, const unsigned char *p, double *x) {
    switch (t->kind) {
    case DT_INT:
        if (t->size == 1) *x = (int8_t)p[0];
        else if (t->size == 2) { int16_t v; memcpy(&v, p, 2); *x = v; }
        else if (t->size == 4) { int32_t v; memcpy(&v, p, 4); *x = v; }
        else { int64_t v; memcpy(&v, p, 8); *x = (double)v; }
        return 1;
    case DT_UINT:
        if (t->size == 1) *x = p[0];
        else if (t->size == 2) { uint16_t v; memcpy(&v, p, 2); *x = v; }
        else if (t->size == 4) { uint32_t v; memcpy(&v, p, 4); *x = v; }
        else { uint64_t v; memcpy(&v, p, 8); *x = (double)v; }
        return 1;
    case DT_FLOAT:
        if (t->size == 2) { uint16_t v; memcpy(&v, p, 2); *x = half_to_double(v); }
        else if (t->size == 4) { float v; memcpy(&v, p, 4); *x = v; }
        else memcpy(x, p, 8);
        return 1;
    case DT_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); *x = bf16_to_double(v); return 1; }
    case DT_FLOAT8: *x = float8_to_double(t->float8, p[0]); return 1;
    default: return 0;
    }
}
