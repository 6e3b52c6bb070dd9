/* dtype.h -- data types as the tool understands them: read from a metadata document
 * (Zarr v3 `data_type`, Zarr v2 `dtype`, the 2022 draft's NumPy-style names), named for
 * display, described in detail for `zarr info`, spelled back in either format for `zarr cp`,
 * and one element of them printed as text (`zarr cat`, fill values).
 *
 * Element bytes are as libzarr hands them out: host byte order, structs packed without
 * padding in field order (see docs/data-types.md). */
#ifndef ZARR_TOOL_DTYPE_H
#define ZARR_TOOL_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

typedef enum {
    DT_UNKNOWN = 0, /* a name this tool does not know (printed as hex when the size is known) */
    DT_BOOL,
    DT_INT,
    DT_UINT,
    DT_FLOAT,     /* float16, float32, float64 */
    DT_COMPLEX,   /* complex64, complex128 */
    DT_BFLOAT16,
    DT_FLOAT8,    /* one of the float8_* formats (dtype.float8) */
    DT_DATETIME,  /* numpy.datetime64: int64 counting scale x unit since 1970, INT64_MIN NaT */
    DT_TIMEDELTA, /* numpy.timedelta64 */
    DT_UTF32,     /* fixed_length_utf32: size / 4 code units, zero-padded */
    DT_BYTES,     /* null_terminated_bytes: zero-padded bytes */
    DT_RAW,       /* r<N> (v2 |V<n>) and raw_bytes: opaque bytes */
    DT_STRUCT,
    DT_VLEN       /* variable-length: string, bytes, v2 |O; not a fixed-size element */
} dtype_kind;

typedef struct dtype_field dtype_field;

typedef struct dtype {
    dtype_kind kind;
    size_t size;        /* bytes per element; 0 when variable or not known */
    int float8;         /* DT_FLOAT8: index into the table of float8 formats */
    int raw_bytes;      /* DT_RAW: zarr-python's raw_bytes (else r<N>) */
    char unit[8];       /* DT_DATETIME, DT_TIMEDELTA: "s", "10ms" is unit "ms" ... */
    uint32_t scale;     /*   ... with scale 10; "generic" with scale 1 */
    char order;         /* Zarr v2 byte order ('<', '>', '|'), 0 when not from a v2 string */
    int legacy;         /* DT_STRUCT: zarr-python's legacy "structured" spelling */
    int vlen_text;      /* DT_VLEN: elements are UTF-8 text (string; v2 |O as text), else bytes */
    size_t nfields;
    dtype_field *fields; /* DT_STRUCT */
    char *name;         /* display name (malloc'ed): "float32", "struct(a:int32,b:float64)",
                           "numpy.datetime64(unit=ms,scale_factor=10)" */
} dtype;

struct dtype_field {
    char *name;
    size_t offset;      /* bytes from the start of the element */
    size_t count;       /* elements (1, or the product of a v2 sub-array shape) */
    size_t ndim;        /* v2 sub-array rank (0: a plain field) */
    uint64_t shape[8];
    dtype type;
};

/* Read a data type: `v` is a v3 `data_type` value (a name or {name, configuration}) when
 * `format` is 3 (NumPy-style strings of the 2022 draft are accepted too), a v2 `dtype`
 * (a NumPy string or a list of fields) when `format` is 2. Never fails: what cannot be
 * read is DT_UNKNOWN (or DT_VLEN) with a name saying what it is. Free with dtype_free. */
void dtype_parse(const json_value *v, int format, dtype *out);
/* A type from a libzarr data type code (when no metadata document is at hand). */
void dtype_from_code(int code, size_t element_size, dtype *out);
void dtype_free(dtype *t);

/* Whether elements of the type can be printed value by value (everything but unknown and
 * variable-length types). */
int dtype_printable(const dtype *t);
/* Print one variable-length element (as zarr_array_read_vlen hands it out: `len` bytes at
 * p) as text: a string quoted and escaped like fixed_length_utf32, bytes as b"..." with
 * every byte kept (no padding to strip). */
void vlen_put(FILE *out, const dtype *t, const unsigned char *p, size_t len);

/* One line of details after the name, or NULL: "datetimes counting 10 ms since
 * 1970-01-01T00:00:00, NaT = -2^63". */
const char *dtype_summary(const dtype *t, char *buf, size_t len);
/* For structs: one line per field, "  name  type  at byte N" indented by `indent`. */
void dtype_print_fields(FILE *out, const dtype *t, int indent);

/* The v3 `data_type` value of the type (JSON), or -1 when Zarr v3 has no spelling for it
 * (a v2 sub-array field). Variable-length types are "string" or "bytes". */
int dtype_put_v3(FILE *out, const dtype *t);
/* The v2 `dtype` value (JSON: a string or a list of fields) with multi-byte units in
 * little-endian order, or -1 when Zarr v2 has none (bfloat16, float8). Variable-length
 * types are "|O" (the object codec goes in `filters`). */
int dtype_put_v2(FILE *out, const dtype *t);

/* Print one element at p (t->size bytes) as text: numbers briefly and exactly, datetimes in
 * ISO 8601, strings quoted; see `zarr cat --help`. */
void value_put(FILE *out, const dtype *t, const unsigned char *p);
/* The element as a double when it is a real number (integers, floats, bfloat16, float8):
 * returns 1 and sets *x, else 0. */
int value_real(const dtype *t, const unsigned char *p, double *x);

/* Floats as the tool prints them: the shortest text that reads back as x in float32
 * (`digits` 9) or float64 (17), %.5g for float16 (5); `plus` forces a sign. */
void put_float(FILE *out, double x, int digits, int plus);
double half_to_double(uint16_t h);

/* Whether the host stores multi-byte numbers little-endian. */
int host_is_little_endian(void);

#endif
