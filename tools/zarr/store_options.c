/* store_options.c -- see store_options.h. */
#define _XOPEN_SOURCE 700
#include "store_options.h"

#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* Every key of zarr_store_open_url and the schemes it applies to (options.rs, KEYS; the
 * test cli.option_table_in_sync compares the two). */
#define SCHEME_OBJECT_STORES (SCHEME_S3 | SCHEME_GCS | SCHEME_AZURE)
#define SCHEME_ICECHUNK (SCHEME_ICECHUNK_FILE | SCHEME_ICECHUNK_S3 | SCHEME_ICECHUNK_GCS | SCHEME_ICECHUNK_AZURE)
#define SCHEME_ICECHUNK_REMOTE (SCHEME_ICECHUNK_S3 | SCHEME_ICECHUNK_GCS | SCHEME_ICECHUNK_AZURE)
/* A reference set's options apply to reading it and to its targets of the same kind. */
#define SCHEME_S3_AND_REFERENCES (SCHEME_S3 | SCHEME_REFERENCE_S3)
#define SCHEME_OBJECT_STORES_AND_REFERENCES (SCHEME_S3 | SCHEME_GCS | SCHEME_AZURE | SCHEME_REFERENCE_S3)
#define SCHEME_REMOTE_AND_REFERENCES \
    (SCHEME_S3 | SCHEME_GCS | SCHEME_AZURE | SCHEME_HTTP | SCHEME_REFERENCE_S3 | SCHEME_REFERENCE_HTTP)
#define SCHEME_REFERENCES (SCHEME_REFERENCE_FILE | SCHEME_REFERENCE_S3 | SCHEME_REFERENCE_HTTP)

static const struct {
    const char *key;
    unsigned schemes;
} option_table[] = {
    {"endpoint", SCHEME_OBJECT_STORES_AND_REFERENCES | SCHEME_ICECHUNK_REMOTE},
    {"region", SCHEME_S3_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"anonymous", SCHEME_OBJECT_STORES_AND_REFERENCES | SCHEME_ICECHUNK_REMOTE},
    {"access_key_id", SCHEME_S3_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"secret_access_key", SCHEME_S3_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"session_token", SCHEME_S3_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"profile", SCHEME_S3_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"force_path_style", SCHEME_S3_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"service_account_path", SCHEME_GCS | SCHEME_ICECHUNK_GCS},
    {"token", SCHEME_GCS | SCHEME_ICECHUNK_GCS},
    {"account_name", SCHEME_AZURE | SCHEME_ICECHUNK_AZURE},
    {"account_key", SCHEME_AZURE | SCHEME_ICECHUNK_AZURE},
    {"sas_token", SCHEME_AZURE | SCHEME_ICECHUNK_AZURE},
    {"max_concurrency", SCHEME_REMOTE_AND_REFERENCES},
    {"timeout_ms", SCHEME_REMOTE_AND_REFERENCES | SCHEME_ICECHUNK_S3},
    {"max_retries", SCHEME_REMOTE_AND_REFERENCES},
    {"read_only", SCHEME_OBJECT_STORES | SCHEME_HTTP | SCHEME_FILE | SCHEME_REFERENCES | SCHEME_ICECHUNK},
    {"create", SCHEME_S3 | SCHEME_FILE | SCHEME_ICECHUNK},
    {"fsync", SCHEME_FILE},
    {"follow_symlinks", SCHEME_FILE},
    {"locking", SCHEME_FILE},
    {"conditional_writes", SCHEME_OBJECT_STORES},
    {"update_attempts", SCHEME_OBJECT_STORES},
    {"branch", SCHEME_ICECHUNK},
    {"tag", SCHEME_ICECHUNK},
    {"snapshot", SCHEME_ICECHUNK},
    {"virtual_chunk_prefixes", SCHEME_ICECHUNK},
};

#define OPTION_COUNT (sizeof option_table / sizeof option_table[0])

unsigned store_option_schemes(const char *key) {
    size_t i;
    for (i = 0; i < OPTION_COUNT; i++)
        if (!strcmp(option_table[i].key, key)) return option_table[i].schemes;
    return 0;
}

unsigned store_location_scheme(const char *location) {
    if (!strncmp(location, "icechunk+", 9)) {
        /* The underlying URL's scheme, as its Icechunk form. */
        switch (store_location_scheme(location + 9)) {
        case SCHEME_FILE: return SCHEME_ICECHUNK_FILE;
        case SCHEME_S3: return SCHEME_ICECHUNK_S3;
        case SCHEME_GCS: return SCHEME_ICECHUNK_GCS;
        case SCHEME_AZURE: return SCHEME_ICECHUNK_AZURE;
        default: return 0;
        }
    }
    if (!strncmp(location, "reference+", 10)) {
        unsigned inner = store_location_scheme(location + 10);
        if (inner == SCHEME_FILE) return SCHEME_REFERENCE_FILE;
        if (inner == SCHEME_S3) return SCHEME_REFERENCE_S3;
        if (inner == SCHEME_HTTP) return SCHEME_REFERENCE_HTTP;
        return 0;
    }
    if (!strncmp(location, "s3://", 5)) return SCHEME_S3;
    if (!strncmp(location, "http://", 7) || !strncmp(location, "https://", 8)) return SCHEME_HTTP;
    if (!strncmp(location, "file://", 7)) return SCHEME_FILE;
    if (!strncmp(location, "gs://", 5) || !strncmp(location, "gcs://", 6)) return SCHEME_GCS;
    if (!strncmp(location, "az://", 5) || !strncmp(location, "abfs://", 7) || !strncmp(location, "abfss://", 8))
        return SCHEME_AZURE;
    return 0;
}

static const char *scheme_name(unsigned scheme) {
    switch (scheme) {
    case SCHEME_S3: return "s3:// URLs";
    case SCHEME_HTTP: return "http(s):// URLs";
    case SCHEME_GCS: return "gs:// URLs";
    case SCHEME_AZURE: return "az:// and abfs:// URLs";
    case SCHEME_ICECHUNK_FILE: return "icechunk+file:// URLs";
    case SCHEME_ICECHUNK_S3: return "icechunk+s3:// URLs";
    case SCHEME_ICECHUNK_GCS: return "icechunk+gs:// URLs";
    case SCHEME_ICECHUNK_AZURE: return "icechunk+az:// URLs";
    case SCHEME_REFERENCE_FILE: return "reference+file:// URLs";
    case SCHEME_REFERENCE_S3: return "reference+s3:// URLs";
    case SCHEME_REFERENCE_HTTP: return "reference+http(s):// URLs";
    default: return "file:// URLs";
    }
}

static int debug_enabled(void) {
    const char *v = getenv("ZARR_DEBUG");
    return v && *v && strcmp(v, "0") != 0;
}

int store_options_from_env(const char *cmd, const char *location, const char *env_json, char **out) {
    char err[160];
    json_value *obj;
    unsigned scheme = store_location_scheme(location);
    size_t i, kept = 0;
    char *text = NULL;
    size_t text_len = 0;
    FILE *mem;
    *out = NULL;
    if (!env_json) return EXIT_OK;
    obj = json_parse(env_json, strlen(env_json), err, sizeof err);
    if (!obj || obj->type != JSON_OBJECT) {
        report(cmd, "$ZARR_STORE_OPTIONS is not a JSON object%s%s", obj ? "" : ": ", obj ? "" : err);
        json_free(obj);
        return EXIT_RUNTIME;
    }
    for (i = 0; i < obj->count; i++) {
        if (!store_option_schemes(obj->keys[i])) {
            size_t k;
            fprintf(stderr, "zarr: %s: $ZARR_STORE_OPTIONS: unknown option '%s' (known options: ", cmd, obj->keys[i]);
            for (k = 0; k < OPTION_COUNT; k++) fprintf(stderr, "%s%s", k ? ", " : "", option_table[k].key);
            fputs(")\n", stderr);
            json_free(obj);
            return EXIT_RUNTIME;
        }
    }
    if (!is_url(location)) { /* a local directory or a zip file: no options are passed */
        json_free(obj);
        return EXIT_OK;
    }
    if (!scheme) { /* a scheme the library does not know: its own message says so */
        json_free(obj);
        *out = dup_str(env_json);
        return EXIT_OK;
    }
    mem = open_memstream(&text, &text_len);
    if (!mem) {
        json_free(obj);
        report(cmd, "out of memory");
        return EXIT_RUNTIME;
    }
    fputc('{', mem);
    for (i = 0; i < obj->count; i++) {
        if (!(store_option_schemes(obj->keys[i]) & scheme)) {
            if (debug_enabled())
                fprintf(stderr, "zarr: %s: debug: $ZARR_STORE_OPTIONS: '%s' dropped for %s (it does not apply to %s)\n",
                        cmd, obj->keys[i], location, scheme_name(scheme));
            continue;
        }
        if (kept++) fputc(',', mem);
        json_put_string(mem, obj->keys[i]);
        fputc(':', mem);
        json_print(&obj->items[i], mem);
    }
    fputc('}', mem);
    json_free(obj);
    if (fclose(mem) != 0 || !text) {
        free(text);
        report(cmd, "out of memory");
        return EXIT_RUNTIME;
    }
    *out = text;
    return EXIT_OK;
}
