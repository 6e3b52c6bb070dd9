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

static void add_missing(cf_decoding *cf, double x) {
    if (cf->nmissing < CF_MAX_MISSING) cf->missing[cf->nmissing++] = x;
}

void cf_decoding_read(const json_value *meta, const json_value *attrs, int format, cf_decoding *cf) {
    const json_value *v;
    double x;
    size_t i;
    memset(cf, 0, sizeof *cf);
    cf->scale = 1.0;
    if (cf_number(json_get(attrs, "scale_factor"), 0, &cf->scale)) cf->has_scale = 1;
    if (cf_number(json_get(attrs, "add_offset"), 0, &cf->offset)) cf->has_offset = 1;
    v = json_get(attrs, "_FillValue");
    if (format == 2 && json_get(meta, "fill_value") && json_get(meta, "fill_value")->type != JSON_NULL)
        v = json_get(meta, "fill_value"); /* xarray's reading of Zarr v2 */
    if (cf_number(v, format != 2, &x)) add_missing(cf, x);
    v = json_get(attrs, "missing_value");
    if (v && v->type == JSON_ARRAY) {
        for (i = 0; i < v->count; i++)
            if (cf_number(&v->items[i], 0, &x)) add_missing(cf, x);
    } else if (cf_number(v, 0, &x)) {
        add_missing(cf, x);
    }
}

int cf_decoding_active(const cf_decoding *cf) { return cf->has_scale || cf->has_offset || cf->nmissing; }
