/* json.c -- see json.h. */
#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end, *start;
    char *err;
    size_t err_len;
    int failed;
} parser;

static int fail(parser *ps, const char *what) {
    if (!ps->failed && ps->err && ps->err_len)
        snprintf(ps->err, ps->err_len, "offset %lu: %s", (unsigned long)(ps->p - ps->start), what);
    ps->failed = 1;
    return 0;
}

static void skip_ws(parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int literal(parser *ps, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return fail(ps, "invalid literal");
    ps->p += n;
    return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int parse_number(parser *ps, json_value *v) {
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-') ps->p++;
    if (ps->p >= ps->end || !is_digit(*ps->p)) return fail(ps, "invalid number");
    if (*ps->p == '0') {
        ps->p++;
        if (ps->p < ps->end && is_digit(*ps->p)) return fail(ps, "leading zero in number");
    } else {
        while (ps->p < ps->end && is_digit(*ps->p)) ps->p++;
    }
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p)) return fail(ps, "digit expected after '.'");
        while (ps->p < ps->end && is_digit(*ps->p)) ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p)) return fail(ps, "digit expected in exponent");
        while (ps->p < ps->end && is_digit(*ps->p)) ps->p++;
    }
    v->type = JSON_NUMBER;
    v->text_len = (size_t)(ps->p - s);
    v->text = malloc(v->text_len + 1);
    if (!v->text) return fail(ps, "out of memory");
    memcpy(v->text, s, v->text_len);
    v->text[v->text_len] = '\0';
    v->number = strtod(v->text, NULL); /* the grammar above is a subset of strtod's */
    return 1;
}

static int hex4(parser *ps, unsigned *out) {
    unsigned x = 0;
    int i;
    if (ps->end - ps->p < 4) return fail(ps, "truncated \\u escape");
    for (i = 0; i < 4; i++) {
        char c = ps->p[i];
        x <<= 4;
        if (c >= '0' && c <= '9') x |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') x |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') x |= (unsigned)(c - 'A' + 10);
        else return fail(ps, "invalid hex digit in \\u escape");
    }
    ps->p += 4;
    *out = x;
    return 1;
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of a valid UTF-8 sequence starting at p (0 if invalid or truncated). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned cp;
    size_t n, i;
    if (p[0] < 0x80) return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) { n = 2; cp = p[0] & 0x1Fu; }
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) { n = 3; cp = p[0] & 0x0Fu; }
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) { n = 4; cp = p[0] & 0x07u; }
    else return 0;
    if ((size_t)(end - p) < n) return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

/* Parse a string at ps->p (which is '"') into a malloc'ed buffer. */
static int parse_string(parser *ps, char **out, size_t *out_len) {
    const char *s;
    char *buf, *o;
    ps->p++;
    s = ps->p;
    /* Decoded text is never longer than the source text. */
    while (ps->p < ps->end && *ps->p != '"') ps->p += (*ps->p == '\\' && ps->p + 1 < ps->end) ? 2 : 1;
    if (ps->p >= ps->end) return fail(ps, "unterminated string");
    buf = malloc((size_t)(ps->p - s) + 1);
    if (!buf) return fail(ps, "out of memory");
    ps->p = s;
    o = buf;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) { free(buf); return fail(ps, "control character in string"); }
        if (c == '\\') {
            unsigned cp, lo;
            ps->p++;
            switch (*ps->p++) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '/': *o++ = '/'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u':
                if (!hex4(ps, &cp)) { free(buf); return 0; }
                if (cp >= 0xDC00 && cp <= 0xDFFF) { free(buf); return fail(ps, "lone low surrogate"); }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
                        free(buf);
                        return fail(ps, "high surrogate without low surrogate");
                    }
                    ps->p += 2;
                    if (!hex4(ps, &lo)) { free(buf); return 0; }
                    if (lo < 0xDC00 || lo > 0xDFFF) { free(buf); return fail(ps, "invalid low surrogate"); }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                o += put_utf8(o, cp);
                break;
            default:
                ps->p--;
                free(buf);
                return fail(ps, "invalid escape");
            }
        } else {
            size_t n = utf8_len((const unsigned char *)ps->p, (const unsigned char *)ps->end);
            if (n == 0) { free(buf); return fail(ps, "invalid UTF-8 in string"); }
            memcpy(o, ps->p, n);
            o += n;
            ps->p += n;
        }
    }
    ps->p++;
    *o = '\0';
    *out = buf;
    *out_len = (size_t)(o - buf);
    return 1;
}

static int parse_value(parser *ps, json_value *v, int depth);

static int push(parser *ps, json_value *v, size_t *cap, int with_key) {
    if (v->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        json_value *items = realloc(v->items, ncap * sizeof *items);
        if (!items) return fail(ps, "out of memory");
        v->items = items;
        if (with_key) {
            char **keys = realloc(v->keys, ncap * sizeof *keys);
            if (!keys) return fail(ps, "out of memory");
            v->keys = keys;
        }
        *cap = ncap;
    }
    memset(&v->items[v->count], 0, sizeof v->items[0]);
    if (with_key) v->keys[v->count] = NULL;
    v->count++;
    return 1;
}

static int parse_container(parser *ps, json_value *v, int depth, int is_object) {
    size_t cap = 0;
    char close = is_object ? '}' : ']';
    v->type = is_object ? JSON_OBJECT : JSON_ARRAY;
    if (depth >= JSON_MAX_DEPTH) return fail(ps, "nesting too deep");
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) { ps->p++; return 1; }
    for (;;) {
        if (!push(ps, v, &cap, is_object)) return 0;
        if (is_object) {
            size_t klen;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"') return fail(ps, "object key expected");
            if (!parse_string(ps, &v->keys[v->count - 1], &klen)) return 0;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') return fail(ps, "':' expected");
            ps->p++;
        }
        if (!parse_value(ps, &v->items[v->count - 1], depth + 1)) return 0;
        skip_ws(ps);
        if (ps->p >= ps->end) return fail(ps, "unterminated array or object");
        if (*ps->p == close) { ps->p++; return 1; }
        if (*ps->p != ',') return fail(ps, is_object ? "',' or '}' expected" : "',' or ']' expected");
        ps->p++;
    }
}

static int parse_value(parser *ps, json_value *v, int depth) {
    skip_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "value expected");
    switch (*ps->p) {
    case '{': return parse_container(ps, v, depth, 1);
    case '[': return parse_container(ps, v, depth, 0);
    case '"': v->type = JSON_STRING; return parse_string(ps, &v->text, &v->text_len);
    case 't': v->type = JSON_BOOL; v->boolean = 1; return literal(ps, "true");
    case 'f': v->type = JSON_BOOL; v->boolean = 0; return literal(ps, "false");
    case 'n': v->type = JSON_NULL; return literal(ps, "null");
    default: return parse_number(ps, v);
    }
}

static void free_inner(json_value *v) {
    size_t i;
    for (i = 0; i < v->count; i++) {
        free_inner(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

json_value *json_parse(const char *text, size_t len, char *err, size_t err_len) {
    parser ps;
    json_value *v = calloc(1, sizeof *v);
    if (err && err_len) err[0] = '\0';
    ps.p = ps.start = text;
    ps.end = text + len;
    ps.err = err;
    ps.err_len = err_len;
    ps.failed = 0;
    if (!v) return NULL;
    if (text == NULL) {
        fail(&ps, "no text");
    } else if (parse_value(&ps, v, 0)) {
        skip_ws(&ps);
        if (ps.p != ps.end) fail(&ps, "trailing characters after JSON value");
    }
    if (ps.failed) {
        json_free(v);
        return NULL;
    }
    return v;
}

void json_free(json_value *v) {
    if (!v) return;
    free_inner(v);
    free(v);
}

const json_value *json_get(const json_value *obj, const char *key) {
    size_t i, n;
    const json_value *found = NULL;
    if (!obj || obj->type != JSON_OBJECT || !key) return NULL;
    n = strlen(key);
    for (i = 0; i < obj->count; i++)
        if (strlen(obj->keys[i]) == n && memcmp(obj->keys[i], key, n) == 0) found = &obj->items[i];
    return found;
}

const char *json_string(const json_value *v) { return v && v->type == JSON_STRING ? v->text : NULL; }

int json_u64(const json_value *v, unsigned long long *out) {
    unsigned long long x = 0;
    size_t i;
    if (!v || v->type != JSON_NUMBER || v->text_len == 0 || v->text_len > 20) return 0;
    for (i = 0; i < v->text_len; i++) {
        unsigned d;
        if (!is_digit(v->text[i])) return 0;
        d = (unsigned)(v->text[i] - '0');
        if (x > (~0ULL - d) / 10) return 0;
        x = x * 10 + d;
    }
    *out = x;
    return 1;
}

static void print_string(const char *s, size_t n, FILE *out) {
    size_t i;
    fputc('"', out);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c == '\r') fputs("\\r", out);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

void json_print(const json_value *v, FILE *out) {
    size_t i;
    if (!v) return;
    switch (v->type) {
    case JSON_NULL: fputs("null", out); break;
    case JSON_BOOL: fputs(v->boolean ? "true" : "false", out); break;
    case JSON_NUMBER: fputs(v->text, out); break;
    case JSON_STRING: print_string(v->text, v->text_len, out); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        fputc(v->type == JSON_ARRAY ? '[' : '{', out);
        for (i = 0; i < v->count; i++) {
            if (i) fputc(',', out);
            if (v->type == JSON_OBJECT) {
                print_string(v->keys[i], strlen(v->keys[i]), out);
                fputc(':', out);
            }
            json_print(&v->items[i], out);
        }
        fputc(v->type == JSON_ARRAY ? ']' : '}', out);
        break;
    }
}
