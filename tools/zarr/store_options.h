/* store_options.h -- the store options of $ZARR_STORE_OPTIONS, fitted to each store.
 *
 * One environment variable serves every store a command opens, but the library refuses an
 * option that does not apply to a URL's scheme (an S3 `endpoint` for an https:// URL). So
 * the environment's options are filtered per store: the keys that apply to the store's
 * scheme are kept, the keys that apply only to other schemes are dropped (named on stderr
 * when ZARR_DEBUG=1), and a key no scheme knows (a typo) is an error. Options given on the
 * command line (--store-options, --dst-store-options) are not filtered: the library checks
 * them strictly. The table mirrors the one of src/storage/remote/options.rs. */
#ifndef ZARR_TOOL_STORE_OPTIONS_H
#define ZARR_TOOL_STORE_OPTIONS_H

/* The schemes of the library's option table. */
enum {
    SCHEME_S3 = 1,
    SCHEME_HTTP = 2,
    SCHEME_FILE = 4,
    SCHEME_GCS = 8,
    SCHEME_AZURE = 16,
    /* icechunk+<url>: an Icechunk repository where <url> points. */
    SCHEME_ICECHUNK_FILE = 32,
    SCHEME_ICECHUNK_S3 = 64,
    SCHEME_ICECHUNK_GCS = 128,
    SCHEME_ICECHUNK_AZURE = 256,
    SCHEME_REFERENCE_FILE = 512,  /* reference+file:// (a Kerchunk reference set) */
    SCHEME_REFERENCE_S3 = 1024,   /* reference+s3:// */
    SCHEME_REFERENCE_HTTP = 2048  /* reference+http:// and reference+https:// */
};

/* Which of the SCHEME_* bits the option `key` applies to; 0 for a key no scheme knows. */
unsigned store_option_schemes(const char *key);

/* The SCHEME_* bit of a store location: s3:// is SCHEME_S3, http:// and https:// are
 * SCHEME_HTTP, file:// is SCHEME_FILE, gs:// and gcs:// are SCHEME_GCS, az://, abfs:// and
 * abfss:// are SCHEME_AZURE, reference+file://, reference+s3:// and reference+http(s)://
 * are SCHEME_REFERENCE_FILE, _S3 and _HTTP; 0 for anything else (another URL scheme, which the
 * library refuses, a local directory or a zip file, which take no options here). */
unsigned store_location_scheme(const char *location);

/* Filter `env_json` (the text of $ZARR_STORE_OPTIONS, or NULL) for the store at `location`.
 * On success returns 0 and sets *out to a malloc'ed JSON object of the keys that apply to
 * the location's scheme (NULL when env_json is NULL or the location takes no options: a
 * local directory or a zip file; the text unchanged for another URL scheme, which the
 * library reports). Keys that apply only to other schemes are dropped; with ZARR_DEBUG=1
 * in the environment they are named on stderr. Text that is not a JSON object, or a key
 * that applies to no scheme, is reported ("zarr: <cmd>: $ZARR_STORE_OPTIONS: ...") and
 * gives EXIT_RUNTIME. */
int store_options_from_env(const char *cmd, const char *location, const char *env_json, char **out);

#endif
