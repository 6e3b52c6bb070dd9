/* cf.h -- the netCDF Climate and Forecast (CF) conventions as xarray stores them in Zarr:
 * packed values (scale_factor, add_offset), missing values (_FillValue, missing_value), and
 * base64, which xarray uses for floating-point _FillValue attributes in Zarr v3. */
#ifndef ZARR_TOOL_CF_H
#define ZARR_TOOL_CF_H

#include <stddef.h>
#include <stdio.h>

#include "dtype.h"
#include "json.h"
#include "zarr.h"

/* Standard base64 (RFC 4648, padded) of n bytes, without quotes. */
void base64_put(FILE *out, const unsigned char *p, size_t n);
/* Decode standard base64 into out (cap bytes). Returns the byte count, or -1 when s is not
 * base64 or does not fit. */
long base64_decode(const char *s, unsigned char *out, size_t cap);

/* A number as Zarr and xarray spell them: a JSON number, "NaN", "Infinity", "-Infinity",
 * or (when `base64_ok`) the base64 text of a little-endian float64, which xarray writes
 * for floating-point _FillValue attributes in Zarr v3. Returns 1 and sets *out, else 0. */
int cf_number(const json_value *v, int base64_ok, double *out);

/* xarray writes some attribute values of Zarr v3 arrays as base64 of little-endian bytes
 * (its FillValueCoder): a floating-point _FillValue as the 8 bytes of a float64 whatever
 * the array's float type, a complex one as a list of two such strings, a byte string's as
 * its bytes. When `key` is _FillValue or missing_value and `v` is such a value for the data
 * type `t` (valid base64 decoding to 8 bytes or to the type's size for floats, two such
 * strings for complex, 1 to the type's size for byte strings), prints the value as `zarr
 * cat` prints elements, then ` (base64 "...")`, and returns 1; otherwise prints nothing
 * and returns 0 (the caller prints the attribute as it is). */
int cf_attr_put_decoded(FILE *out, const char *key, const json_value *v, const dtype *t);

#define CF_MAX_MISSING 8

/* How to decode an array's stored values the way xarray does by default. */
typedef struct {
    int has_scale, has_offset;
    double scale, offset;
    size_t nmissing;                 /* stored values that mean "missing" */
    double missing[CF_MAX_MISSING];
} cf_decoding;

/* Read scale_factor, add_offset, _FillValue and missing_value of an open array through the
 * typed attribute accessors. As in xarray: a Zarr v2 array's fill_value is its _FillValue
 * (when not null: `v2_fill_null` says it is); in Zarr v3 only the _FillValue attribute counts
 * (a number, "NaN"..., or base64 of a little-endian float64). */
void cf_decoding_read(const zarr_array *a, const dtype *t, int format, int v2_fill_null, cf_decoding *cf);

/* Whether decoding changes anything. */
int cf_decoding_active(const cf_decoding *cf);

#endif
