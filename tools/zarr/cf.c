/* cf.c -- see cf.h. */
#include "cf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_put(FILE *out, const unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(b64[v >> 18], out);
        fputc(b64[(v >> 12) & 63], out);
        fputc(i + 1 < n ? b64[(v >> 6) & 63] : '=', out);
        fputc(i + 2 < n ? b64[v & 63] : '=', out);
    }
}

long base64_decode(const char *s, unsigned char *out, size_t cap) {
    size_t len = strlen(s), i, n = 0;
    if (len % 4 != 0) return -1;
    for (i = 0; i < len; i += 4) {
        unsigned v = 0;
        int k, pad = 0;
        for (k = 0; k < 4; k++) {
            const char *c = strchr(b64, s[i + k]);
            if (s[i + k] == '=' && i + 4 == len && k >= 2) {
                pad++;
                v <<= 6;
                continue;
            }
            if (!s[i + k] || !c || pad) return -1;
            v = v << 6 | (unsigned)(c - b64);
        }
        for (k = 0; k < 3 - pad; k++) {
            if (n == cap) return -1;
            out[n++] = (unsigned char)(v >> (16 - 8 * k));
        }
    }
    return (long)n;
}

int cf_number(const json_value *v, int base64_ok, double *out) {
    const char *s;
    if (!v) return 0;
    if (v->type == JSON_NUMBER) {
        *out = v->number;
        return 1;
    }
    if (!(s = json_string(v))) return 0;
    if (!strcmp(s, "NaN")) *out = NAN;
    else if (!strcmp(s, "Infinity")) *out = INFINITY;
    else if (!strcmp(s, "-Infinity")) *out = -INFINITY;
    else {
        unsigned char b[8];
        uint64_t bits = 0;
        int i;
        if (!base64_ok || base64_decode(s, b, sizeof b) != 8) return 0;
        for (i = 7; i >= 0; i--) bits = bits << 8 | b[i];
        memcpy(out, &bits, sizeof *out);
    }
    return 1;
}

/* The float64 of 8 little-endian bytes. */
static double le_double(const unsigned char *b) {
    uint64_t bits = 0;
    double x;
    int i;
    for (i = 7; i >= 0; i--) bits = bits << 8 | b[i];
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* base64 text decoding to exactly `want` bytes (or to at most `want`, at least one, when
 * `up_to`): returns the byte count, else -1. */
static long base64_of(const json_value *v, unsigned char *out, size_t want, int up_to) {
    const char *s = json_string(v);
    long n;
    if (!s || strlen(s) != v->text_len || !*s) return -1; /* no NUL inside, not empty */
    n = base64_decode(s, out, want);
    if (n < 0 || (up_to ? n < 1 : (size_t)n != want)) return -1;
    return n;
}

int cf_attr_put_decoded(FILE *out, const char *key, const json_value *v, const dtype *t) {
    unsigned char b[64], host[64];
    size_t i;
    long n;
    if (!v || !t || (strcmp(key, "_FillValue") != 0 && strcmp(key, "missing_value") != 0)) return 0;
    if (t->kind == DT_FLOAT && v->type == JSON_STRING) {
        if (base64_of(v, b, 8, 0) == 8) {
            put_float(out, le_double(b), 17, 0);
        } else if (t->size != 8 && t->size <= sizeof b && base64_of(v, b, t->size, 0) == (long)t->size) {
            for (i = 0; i < t->size; i++) host[i] = b[host_is_little_endian() ? i : t->size - 1 - i];
            value_put(out, t, host);
        } else {
            return 0;
        }
    } else if (t->kind == DT_COMPLEX && v->type == JSON_ARRAY && v->count == 2) {
        unsigned char im[8];
        if (base64_of(&v->items[0], b, 8, 0) != 8 || base64_of(&v->items[1], im, 8, 0) != 8) return 0;
        put_float(out, le_double(b), 17, 0);
        put_float(out, le_double(im), 17, 1);
        fputc('j', out);
    } else if (t->kind == DT_BYTES && v->type == JSON_STRING && t->size <= sizeof b &&
               (n = base64_of(v, b, t->size, 1)) > 0) {
        memset(b + n, 0, t->size - (size_t)n); /* numpy pads byte strings with zeros */
        value_put(out, t, b);
    } else {
        return 0;
    }
    fputs(" (base64 ", out);
    json_print(v, out);
    fputc(')', out);
    return 1;
}

static void add_missing(cf_decoding *cf, double x) {
    if (cf->nmissing < CF_MAX_MISSING) cf->missing[cf->nmissing++] = x;
}

void cf_decoding_read(const zarr_array *a, const dtype *t, int format, int v2_fill_null, cf_decoding *cf) {
    double x, list[CF_MAX_MISSING];
    size_t i, n = 0;
    char *s = NULL;
    memset(cf, 0, sizeof *cf);
    cf->scale = 1.0;
    if (zarr_array_attribute_double(a, "scale_factor", &cf->scale) == ZARR_OK) cf->has_scale = 1;
    else cf->scale = 1.0;
    if (zarr_array_attribute_double(a, "add_offset", &cf->offset) == ZARR_OK) cf->has_offset = 1;
    else cf->offset = 0.0;
    if (format == 2) {
        /* xarray's reading of Zarr v2: the fill_value is the _FillValue */
        unsigned char fill[16];
        if (!v2_fill_null && t->size <= sizeof fill && zarr_array_fill_value(a, fill, sizeof fill) == ZARR_OK &&
            value_real(t, fill, &x))
            add_missing(cf, x);
    } else if (zarr_array_attribute_double(a, "_FillValue", &x) == ZARR_OK) {
        add_missing(cf, x);
    } else if (zarr_array_attribute_string(a, "_FillValue", &s) == ZARR_OK) {
        json_value v;
        memset(&v, 0, sizeof v);
        v.type = JSON_STRING;
        v.text = s;
        v.text_len = strlen(s);
        if (cf_number(&v, 1, &x)) add_missing(cf, x); /* base64, as xarray writes floats */
    }
    zarr_string_free(s);
    if (zarr_array_attribute_double_array(a, "missing_value", list, CF_MAX_MISSING, &n) == ZARR_OK)
        for (i = 0; i < n; i++) add_missing(cf, list[i]);
}

int cf_decoding_active(const cf_decoding *cf) { return cf->has_scale || cf->has_offset || cf->nmissing; }
