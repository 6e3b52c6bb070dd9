/* json.h -- a small, strict JSON reader for the zarr command-line tool (C99).
 *
 * json_parse() reads RFC 8259 JSON text into a tree of json_value nodes: objects (keys in
 * document order, duplicates kept), arrays, strings (escapes decoded to UTF-8, \uXXXX
 * surrogate pairs combined; strings may hold NUL bytes, hence the lengths), numbers (the
 * double value and the exact source text), true, false, null. It never reads past the
 * `len` bytes it is given, rejects anything the grammar does not allow (trailing commas,
 * leading zeros, lone surrogates, control characters in strings, bare NaN, trailing
 * garbage) and limits nesting to JSON_MAX_DEPTH. Free the tree with json_free().
 */
#ifndef ZARR_TOOL_JSON_H
#define ZARR_TOOL_JSON_H

#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 128

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
    json_type type;
    int boolean;                /* JSON_BOOL: 0 or 1 */
    double number;              /* JSON_NUMBER: the value (strtod) */
    char *text;                 /* JSON_NUMBER: source text; JSON_STRING: decoded UTF-8 */
    size_t text_len;            /* length of text in bytes (without the final NUL) */
    size_t count;               /* JSON_ARRAY, JSON_OBJECT: number of items */
    struct json_value *items;   /* JSON_ARRAY, JSON_OBJECT: the values */
    char **keys;                /* JSON_OBJECT: the keys, decoded, NUL-terminated */
} json_value;

/* Parse `len` bytes of `text`. Returns a tree to free with json_free, or NULL with a
 * message ("offset N: what") in err (err_len bytes, may be 0) on failure. */
json_value *json_parse(const char *text, size_t len, char *err, size_t err_len);

/* Free a tree from json_parse (NULL is fine). */
void json_free(json_value *v);

/* The value of `key` in an object (the last one when repeated), or NULL when `obj` is NULL,
 * not an object, or has no such key. */
const json_value *json_get(const json_value *obj, const char *key);

/* The string of a JSON_STRING value, or NULL for anything else (including NULL). */
const char *json_string(const json_value *v);

/* Whether v is a number holding an integer in [0, 2^64): stores it in *out. */
int json_u64(const json_value *v, unsigned long long *out);

/* Write v to out as compact JSON text (numbers as in the source, strings re-escaped). */
void json_print(const json_value *v, FILE *out);

#endif
