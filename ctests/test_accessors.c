/* Accessors without JSON: dimension names, fill values, codecs, children by index, typed
 * attributes of arrays and groups; the renamed functions and their deprecated aliases; and
 * the proof for netCDF users: an xarray-written dataset listed with its dimension names and
 * CF units using no JSON text at all. */
#include "ztest.h"

#include <math.h>

static const char *const v3_named =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4,6],\"data_type\":\"float32\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2,3]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":\"NaN\","
    "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
    "{\"name\":\"gzip\",\"configuration\":{\"level\":5}}],"
    "\"dimension_names\":[\"lat\",null],"
    "\"attributes\":{\"units\":\"K\",\"scale\":2.5,\"count\":3,\"count_f\":3.0,\"half\":3.5,"
    "\"huge\":1180591620717411303424,\"range\":[1,2.5,\"NaN\"],\"ints\":[4,-5,6.0],"
    "\"flag\":true,\"nothing\":null,\"obj\":{\"a\":1},\"nan\":\"NaN\",\"bad_ints\":[1,2.5]}}";

static const char *const v2_i16 =
    "{\"zarr_format\":2,\"shape\":[5,4],\"chunks\":[2,2],\"dtype\":\"<i2\","
    "\"compressor\":{\"id\":\"zlib\",\"level\":1},\"fill_value\":-7,\"filters\":null,"
    "\"order\":\"F\"}";

static const char *const v3_sharded =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[8],\"data_type\":\"uint8\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[8]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
    "\"codecs\":[{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":[4],"
    "\"codecs\":[{\"name\":\"bytes\"}],\"index_codecs\":[{\"name\":\"bytes\","
    "\"configuration\":{\"endian\":\"little\"}},{\"name\":\"crc32c\"}],"
    "\"index_location\":\"end\"}}]}";

/* A memory store with the arrays above at /a (v3), /v2/b (v2 inside a v2 group) and /s. */
static zarr_store *fixture(void) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    if (zarr_store_open_memory(&store) != ZARR_OK) return NULL;
    if (zarr_group_create(store, "/", NULL, &g) != ZARR_OK) return NULL;
    zarr_group_free(g);
    if (zarr_array_create(store, "/a", v3_named, &a) != ZARR_OK) return NULL;
    zarr_array_free(a);
    if (zarr_group_create_with_format(store, "/v2", NULL, 2, &g) != ZARR_OK) return NULL;
    zarr_group_free(g);
    if (zarr_array_create(store, "/v2/b", v2_i16, &a) != ZARR_OK) return NULL;
    zarr_array_free(a);
    if (zarr_array_create(store, "/s", v3_sharded, &a) != ZARR_OK) return NULL;
    zarr_array_free(a);
    return store;
}

/* *name == expected (NULL meaning an unnamed dimension), freeing the string. */
static int name_is(char *name, const char *expected) {
    int same = (name == NULL || expected == NULL) ? name == expected : strcmp(name, expected) == 0;
    zarr_string_free(name);
    return same;
}

ZTEST(dimension_names) {
    zarr_store *store = fixture();
    zarr_array *a = NULL, *b = NULL, *s = NULL;
    char *name = (char *)"untouched";
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_dimension_name(a, 0, &name));
    ZT_CHECK(name_is(name, "lat"));
    name = (char *)"untouched";
    ZT_OK(zarr_array_dimension_name(a, 1, &name));
    ZT_CHECK(name_is(name, NULL));
    /* No names at all: NULL for every dimension. */
    ZT_OK(zarr_array_open(store, "/s", &s));
    name = (char *)"untouched";
    ZT_OK(zarr_array_dimension_name(s, 0, &name));
    ZT_CHECK(name_is(name, NULL));
    /* Zarr v2: the _ARRAY_DIMENSIONS attribute. */
    ZT_OK(zarr_array_open(store, "/v2/b", &b));
    ZT_OK(zarr_array_dimension_name(b, 0, &name));
    ZT_CHECK(name_is(name, NULL));
    ZT_OK(zarr_array_set_attributes_json(b, "{\"_ARRAY_DIMENSIONS\": [\"y\", \"x\"]}"));
    ZT_OK(zarr_array_dimension_name(b, 1, &name));
    ZT_CHECK(name_is(name, "x"));
    zarr_array_free(b);
    b = NULL;
    ZT_OK(zarr_array_open(store, "/v2/b", &b));
    ZT_OK(zarr_array_dimension_name(b, 0, &name));
    ZT_CHECK(name_is(name, "y"));
    /* Errors. */
    name = (char *)"untouched";
    ZT_STATUS(zarr_array_dimension_name(a, 2, &name), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(name == NULL);
    ZT_STATUS(zarr_array_dimension_name(a, (size_t)-1, &name), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_dimension_name(NULL, 0, &name), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_dimension_name(a, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_array_set_attributes_json(b, "{\"_ARRAY_DIMENSIONS\": [\"only_one\"]}"));
    ZT_STATUS(zarr_array_dimension_name(b, 0, &name), ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "_ARRAY_DIMENSIONS");
    ZT_OK(zarr_array_set_attributes_json(b, "{\"_ARRAY_DIMENSIONS\": [1, 2]}"));
    ZT_STATUS(zarr_array_dimension_name(b, 0, &name), ZARR_ERROR_INVALID_METADATA);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_array_free(s);
    zarr_store_free(store);
}

ZTEST(fill_value) {
    zarr_store *store = fixture();
    zarr_array *a = NULL, *b = NULL;
    float f = 0;
    unsigned char big[16];
    int16_t i = 0;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_fill_value(a, &f, sizeof f));
    ZT_CHECK(isnan(f));
    /* A larger buffer: only the element is written. */
    memset(big, 0xAB, sizeof big);
    ZT_OK(zarr_array_fill_value(a, big, sizeof big));
    ZT_CHECK(big[4] == 0xAB);
    ZT_OK(zarr_array_open(store, "/v2/b", &b));
    ZT_OK(zarr_array_fill_value(b, &i, sizeof i));
    ZT_EQ_U64(i + 100, 93);
    /* Errors write nothing. */
    i = 5;
    ZT_STATUS(zarr_array_fill_value(b, &i, 1), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_fill_value(b, NULL, 0), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_U64(i, 5);
    ZT_STATUS(zarr_array_fill_value(b, NULL, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_fill_value(NULL, &i, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_fill_value(b, &i, SIZE_MAX), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

/* The fill value as a double: NaN (v3 float32), -7 (v2 int16, where xarray keeps the
 * _FillValue); a v2 fill_value of null is NOT_FOUND; a complex array TYPE_MISMATCH naming
 * the type; errors leave the output as it was. */
ZTEST(fill_value_double) {
    zarr_store *store = fixture();
    zarr_array *a = NULL, *b = NULL, *n = NULL, *c = NULL;
    double v = 0;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_fill_value_double(a, &v));
    ZT_CHECK(isnan(v));
    ZT_OK(zarr_array_open(store, "/v2/b", &b));
    ZT_OK(zarr_array_fill_value_double(b, &v));
    ZT_CHECK(v == -7.0);
    ZT_OK(zarr_array_create(store, "/v2/null",
                            "{\"zarr_format\":2,\"shape\":[3],\"chunks\":[3],\"dtype\":\"<u8\","
                            "\"compressor\":null,\"fill_value\":null,\"filters\":null,\"order\":\"C\"}",
                            &n));
    v = 11.0;
    ZT_STATUS(zarr_array_fill_value_double(n, &v), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "fill_value is null");
    ZT_CHECK(v == 11.0);
    ZT_OK(zarr_array_create(store, "/c",
                            "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[2],"
                            "\"data_type\":\"complex64\",\"chunk_grid\":{\"name\":\"regular\","
                            "\"configuration\":{\"chunk_shape\":[2]}},\"chunk_key_encoding\":"
                            "{\"name\":\"default\"},\"fill_value\":[1.0,2.0],\"codecs\":[{\"name\":\"bytes\","
                            "\"configuration\":{\"endian\":\"little\"}}]}",
                            &c));
    ZT_STATUS(zarr_array_fill_value_double(c, &v), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_fill_value_double");
    ZT_STR_CONTAINS(zarr_last_error_message(), "data type complex64 does not convert to double");
    ZT_CHECK(v == 11.0);
    ZT_STATUS(zarr_array_fill_value_double(NULL, &v), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_fill_value_double(b, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "argument 'value_out' is NULL");
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_array_free(n);
    zarr_array_free(c);
    zarr_store_free(store);
}

/* The name of codec `index`, compared with `expected`. */
static int codec_is(zarr_array *a, size_t index, const char *expected) {
    char *name = NULL;
    int same;
    if (zarr_array_codec_name(a, index, &name) != ZARR_OK) return 0;
    same = strcmp(name, expected) == 0;
    zarr_string_free(name);
    return same;
}

ZTEST(codecs) {
    zarr_store *store = fixture();
    zarr_array *a = NULL, *b = NULL, *s = NULL;
    size_t n = 0;
    char *json = (char *)"untouched", *compact;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_codec_count(a, &n));
    ZT_EQ_U64(n, 2);
    ZT_CHECK(codec_is(a, 0, "bytes"));
    ZT_CHECK(codec_is(a, 1, "gzip"));
    ZT_OK(zarr_array_codec_configuration_json(a, 1, &json));
    compact = ztest_json_compact(json);
    ZT_CHECK(strcmp(compact, "{\"level\":5}") == 0);
    free(compact);
    zarr_string_free(json);
    /* Zarr v2: the v3 equivalent, order F as transpose, zlib as numcodecs.zlib. */
    ZT_OK(zarr_array_open(store, "/v2/b", &b));
    ZT_OK(zarr_array_codec_count(b, &n));
    ZT_EQ_U64(n, 3);
    ZT_CHECK(codec_is(b, 0, "transpose"));
    ZT_CHECK(codec_is(b, 1, "bytes"));
    ZT_CHECK(codec_is(b, 2, "numcodecs.zlib"));
    /* Sharded: one top-level codec, the inner ones in its configuration. */
    ZT_OK(zarr_array_open(store, "/s", &s));
    ZT_OK(zarr_array_codec_count(s, &n));
    ZT_EQ_U64(n, 1);
    ZT_CHECK(codec_is(s, 0, "sharding_indexed"));
    ZT_OK(zarr_array_codec_configuration_json(s, 0, &json));
    ZT_STR_CONTAINS(json, "index_codecs");
    zarr_string_free(json);
    /* Errors. */
    json = (char *)"untouched";
    ZT_STATUS(zarr_array_codec_name(s, 1, &json), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(json == NULL);
    json = (char *)"untouched";
    ZT_STATUS(zarr_array_codec_configuration_json(s, 7, &json), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(json == NULL);
    ZT_STATUS(zarr_array_codec_count(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_codec_count(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_codec_name(NULL, 0, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_codec_name(a, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_codec_configuration_json(NULL, 0, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_codec_configuration_json(a, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_array_free(s);
    zarr_store_free(store);
}

/* Child `index` of g is named `expected` and of node type `type`. */
static int child_is(zarr_group *g, size_t index, const char *expected, zarr_node_type type) {
    char *name = NULL;
    zarr_node_type t = 0;
    int same;
    if (zarr_group_child_name(g, index, &name) != ZARR_OK) return 0;
    if (zarr_group_child_node_type(g, index, &t) != ZARR_OK) return 0;
    same = strcmp(name, expected) == 0 && t == type;
    zarr_string_free(name);
    return same;
}

ZTEST(children_by_index) {
    zarr_store *store = fixture();
    zarr_group *root = NULL, *v2 = NULL, *g = NULL, *lazy = NULL;
    size_t n = 0;
    char *name = (char *)"untouched";
    zarr_node_type t = 99;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_group_open(store, "/", &root));
    ZT_OK(zarr_group_child_count(root, &n));
    ZT_EQ_U64(n, 3);
    ZT_CHECK(child_is(root, 0, "a", ZARR_NODE_TYPE_ARRAY));
    ZT_CHECK(child_is(root, 1, "s", ZARR_NODE_TYPE_ARRAY));
    ZT_CHECK(child_is(root, 2, "v2", ZARR_NODE_TYPE_GROUP));
    ZT_OK(zarr_group_open(store, "/v2", &v2));
    ZT_OK(zarr_group_child_count(v2, &n));
    ZT_EQ_U64(n, 1);
    ZT_CHECK(child_is(v2, 0, "b", ZARR_NODE_TYPE_ARRAY));
    /* The list is a snapshot: a new child appears only after the next count. */
    ZT_OK(zarr_group_create(store, "/0first", NULL, &g));
    ZT_CHECK(child_is(root, 0, "a", ZARR_NODE_TYPE_ARRAY));
    ZT_OK(zarr_group_child_count(root, &n));
    ZT_EQ_U64(n, 4);
    ZT_CHECK(child_is(root, 0, "0first", ZARR_NODE_TYPE_GROUP));
    /* Without a count first, the by-index functions take the list themselves. */
    ZT_OK(zarr_group_open(store, "/", &lazy));
    ZT_CHECK(child_is(lazy, 3, "v2", ZARR_NODE_TYPE_GROUP));
    /* An empty group. */
    ZT_OK(zarr_group_child_count(g, &n));
    ZT_EQ_U64(n, 0);
    /* Errors write nothing. */
    ZT_STATUS(zarr_group_child_name(root, 4, &name), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(name == NULL);
    ZT_STATUS(zarr_group_child_node_type(root, 4, &t), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_EQ_U64(t, 99);
    ZT_STATUS(zarr_group_child_name(g, 0, &name), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_group_child_count(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_child_count(root, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_child_name(NULL, 0, &name), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_child_name(root, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_child_node_type(NULL, 0, &t), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_child_node_type(root, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_group_free(g);
    zarr_group_free(lazy);
    zarr_group_free(v2);
    zarr_group_free(root);
    zarr_store_free(store);
}

ZTEST(children_listing_errors) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_group *root = NULL;
    size_t n = 0;
    char *name = NULL;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_group_create(store, "/", NULL, &root));
    ZT_CHECK(mkdir(ztest_path(dir, "bad"), 0755) == 0);
    ZT_CHECK(ztest_write_file(ztest_path(dir, "bad/zarr.json"), "{not json", 9) == 0);
    ZT_STATUS(zarr_group_child_count(root, &n), ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_group_child_name(root, 0, &name), ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(ztest_write_file(ztest_path(dir, "bad/zarr.json"),
                              "{\"zarr_format\":3,\"node_type\":\"group\"}", 37) == 0);
    ZT_OK(zarr_group_child_count(root, &n));
    ZT_EQ_U64(n, 1);
    zarr_group_free(root);
    zarr_store_free(store);
}

/* Names and values holding a NUL character cannot cross as C strings. */
ZTEST(nul_characters) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    char *text = (char *)"untouched";
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/b", v2_i16, &a));
    ZT_OK(zarr_array_set_attributes_json(
        a, "{\"k\\u0000ey\": 1, \"v\": \"a\\u0000b\", \"_ARRAY_DIMENSIONS\": [\"y\\u0000\", \"x\"]}"));
    ZT_STATUS(zarr_array_attribute_name(a, 0, &text), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(text == NULL);
    ZT_STATUS(zarr_array_attribute_string(a, "v", &text), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_dimension_name(a, 0, &text), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_OK(zarr_array_dimension_name(a, 1, &text));
    zarr_string_free(text);
    ZT_OK(zarr_group_create(store, "/g", "{\"n\\u0000\": 1}", &g));
    ZT_STATUS(zarr_group_attribute_name(g, 0, &text), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_group_free(g);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(type_mismatch_status) {
    ZT_EQ_U64(ZARR_ERROR_TYPE_MISMATCH + 100, 83); /* -17, stable forever */
    ZT_CHECK(strcmp(zarr_status_str(ZARR_ERROR_TYPE_MISMATCH),
                    "the value has another type than the one asked for") == 0);
}

ZTEST(array_attributes_typed) {
    zarr_store *store = fixture();
    zarr_array *a = NULL;
    char *text = (char *)"untouched";
    double d = -1, list[4] = {0, 0, 0, 0};
    int64_t i = -1, ints[3] = {0, 0, 0};
    size_t n = 99;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_attribute_string(a, "units", &text));
    ZT_CHECK(strcmp(text, "K") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_attribute_double(a, "scale", &d));
    ZT_CHECK(d == 2.5);
    ZT_OK(zarr_array_attribute_double(a, "count", &d));
    ZT_CHECK(d == 3.0);
    ZT_OK(zarr_array_attribute_double(a, "nan", &d));
    ZT_CHECK(isnan(d));
    ZT_OK(zarr_array_attribute_int64(a, "count", &i));
    ZT_EQ_U64(i, 3);
    ZT_OK(zarr_array_attribute_int64(a, "count_f", &i));
    ZT_EQ_U64(i, 3);
    /* Arrays: a size query, then the values; a number reads as an array of one. */
    ZT_OK(zarr_array_attribute_double_array(a, "range", NULL, 0, &n));
    ZT_EQ_U64(n, 3);
    ZT_OK(zarr_array_attribute_double_array(a, "range", list, 4, &n));
    ZT_EQ_U64(n, 3);
    ZT_CHECK(list[0] == 1.0 && list[1] == 2.5 && isnan(list[2]) && list[3] == 0);
    ZT_OK(zarr_array_attribute_double_array(a, "scale", list, 4, &n));
    ZT_CHECK(n == 1 && list[0] == 2.5);
    ZT_OK(zarr_array_attribute_int64_array(a, "ints", ints, 3, &n));
    ZT_CHECK(n == 3 && ints[0] == 4 && ints[1] == -5 && ints[2] == 6);

    /* Missing keys and other types, each with nothing written. */
    text = (char *)"untouched";
    ZT_STATUS(zarr_array_attribute_string(a, "missing", &text), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(text == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "missing");
    ZT_STATUS(zarr_array_attribute_string(a, "scale", &text), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_string(a, "nothing", &text), ZARR_ERROR_TYPE_MISMATCH);
    d = -1;
    ZT_STATUS(zarr_array_attribute_double(a, "units", &d), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_double(a, "flag", &d), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_double(a, "range", &d), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_double(a, "missing", &d), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(d == -1);
    i = -1;
    ZT_STATUS(zarr_array_attribute_int64(a, "half", &i), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_int64(a, "huge", &i), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_attribute_int64(a, "nan", &i), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_int64(a, "missing", &i), ZARR_ERROR_NOT_FOUND);
    ZT_EQ_U64(i, (uint64_t)-1);
    n = 99;
    ZT_STATUS(zarr_array_attribute_double_array(a, "range", list, 2, &n),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_U64(n, 99);
    ZT_STATUS(zarr_array_attribute_double_array(a, "range", NULL, 2, &n),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double_array(a, "obj", list, 4, &n), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_attribute_double_array(a, "missing", list, 4, &n),
              ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_array_attribute_double_array(a, "range", list, SIZE_MAX, &n),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64_array(a, "bad_ints", ints, 3, &n),
              ZARR_ERROR_TYPE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "bad_ints[1]");
    ZT_STATUS(zarr_array_attribute_int64_array(a, "huge", ints, 3, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_attribute_int64_array(a, "ints", ints, 1, &n),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_attribute_int64_array(a, "missing", ints, 3, &n), ZARR_ERROR_NOT_FOUND);
    /* NULL arguments. */
    ZT_STATUS(zarr_array_attribute_string(NULL, "units", &text), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_string(a, NULL, &text), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_string(a, "units", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double(NULL, "scale", &d), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double(a, NULL, &d), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double(a, "scale", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64(NULL, "count", &i), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64(a, NULL, &i), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64(a, "count", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double_array(NULL, "range", list, 4, &n),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double_array(a, NULL, list, 4, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double_array(a, "range", list, 4, NULL),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64_array(NULL, "ints", ints, 3, &n),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64_array(a, NULL, ints, 3, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64_array(a, "ints", ints, 3, NULL),
              ZARR_ERROR_NULL_ARGUMENT);
    /* A key that is not UTF-8, for every getter. */
    ZT_STATUS(zarr_array_attribute_string(a, "\xff", &text), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double(a, "\xff", &d), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "UTF-8");
    ZT_STATUS(zarr_array_attribute_int64(a, "\xff", &i), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_double_array(a, "\xc3", list, 4, &n),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_int64_array(a, "\xc3", ints, 3, &n),
              ZARR_ERROR_INVALID_ARGUMENT);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(array_attributes_set_and_names) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *again = NULL, *v2 = NULL;
    const double pair[2] = {-1.5, 1e300};
    const int64_t three[3] = {INT64_MIN, 0, INT64_MAX};
    double d = 0, got[2];
    int64_t i = 0, goti[3];
    size_t n = 0;
    char *text = NULL, *file;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_array_create(store, "/a", v3_named, &a));
    ZT_OK(zarr_array_set_attribute_string(a, "long_name", "air temperature"));
    ZT_OK(zarr_array_set_attribute_string(a, "units", "degC")); /* replaced in place */
    ZT_OK(zarr_array_set_attribute_double(a, "scale", 0.25));
    ZT_OK(zarr_array_set_attribute_double(a, "missing_value", NAN));
    ZT_OK(zarr_array_set_attribute_double(a, "top", -INFINITY));
    ZT_OK(zarr_array_set_attribute_int64(a, "big", INT64_MIN));
    ZT_OK(zarr_array_set_attribute_double_array(a, "pair", pair, 2));
    ZT_OK(zarr_array_set_attribute_int64_array(a, "three", three, 3));
    ZT_OK(zarr_array_set_attribute_double_array(a, "empty", NULL, 0));
    ZT_OK(zarr_array_delete_attribute(a, "obj"));
    /* The stored document holds them: a new handle reads them back. */
    ZT_OK(zarr_array_open(store, "/a", &again));
    ZT_OK(zarr_array_attribute_string(again, "units", &text));
    ZT_CHECK(strcmp(text, "degC") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_attribute_double(again, "missing_value", &d));
    ZT_CHECK(isnan(d));
    ZT_OK(zarr_array_attribute_double(again, "top", &d));
    ZT_CHECK(isinf(d) && d < 0);
    ZT_OK(zarr_array_attribute_int64(again, "big", &i));
    ZT_CHECK(i == INT64_MIN);
    ZT_OK(zarr_array_attribute_double_array(again, "pair", got, 2, &n));
    ZT_CHECK(n == 2 && got[0] == -1.5 && got[1] == 1e300);
    ZT_OK(zarr_array_attribute_int64_array(again, "three", goti, 3, &n));
    ZT_CHECK(n == 3 && goti[0] == INT64_MIN && goti[2] == INT64_MAX);
    ZT_OK(zarr_array_attribute_double_array(again, "empty", NULL, 0, &n));
    ZT_EQ_U64(n, 0);
    ZT_STATUS(zarr_array_attribute_string(again, "obj", &text), ZARR_ERROR_NOT_FOUND);
    file = (char *)ztest_read_file(ztest_path(dir, "a/zarr.json"), NULL);
    ZT_STR_CONTAINS(file, "\"missing_value\": \"NaN\"");
    ZT_STR_CONTAINS(file, "\"top\": \"-Infinity\"");
    free(file);
    /* Names by index, in document order; "units" kept its place when replaced. */
    ZT_OK(zarr_array_attribute_count(again, &n));
    ZT_EQ_U64(n, 19);
    ZT_OK(zarr_array_attribute_name(again, 0, &text));
    ZT_CHECK(strcmp(text, "units") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_attribute_name(again, n - 1, &text));
    ZT_CHECK(strcmp(text, "empty") == 0);
    zarr_string_free(text);
    text = (char *)"untouched";
    ZT_STATUS(zarr_array_attribute_name(again, n, &text), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(text == NULL);
    ZT_STATUS(zarr_array_attribute_name(NULL, 0, &text), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_name(again, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_count(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_attribute_count(again, NULL), ZARR_ERROR_NULL_ARGUMENT);
    /* Zarr v2: .zattrs. */
    ZT_OK(zarr_array_create(store, "/v2", v2_i16, &v2));
    ZT_OK(zarr_array_set_attribute_string(v2, "units", "m"));
    file = (char *)ztest_read_file(ztest_path(dir, "v2/.zattrs"), NULL);
    ZT_STR_CONTAINS(file, "\"units\": \"m\"");
    free(file);
    ZT_OK(zarr_array_delete_attribute(v2, "units"));
    ZT_CHECK(!ztest_exists(ztest_path(dir, "v2/.zattrs")));
    /* Setter errors. */
    ZT_STATUS(zarr_array_delete_attribute(a, "never"), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_array_set_attribute_string(NULL, "k", "v"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_string(a, NULL, "v"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_string(a, "k", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_string(a, "k", "\xc3"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_double(NULL, "k", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_double(a, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_int64(NULL, "k", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_int64(a, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_double_array(NULL, "k", pair, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_double_array(a, NULL, pair, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_double_array(a, "k", NULL, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_double_array(a, "k", pair, SIZE_MAX),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_int64_array(NULL, "k", three, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_int64_array(a, NULL, three, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_int64_array(a, "k", NULL, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attribute_int64_array(a, "k", three, SIZE_MAX),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_delete_attribute(NULL, "k"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_delete_attribute(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    /* Failed setters changed nothing. */
    ZT_STATUS(zarr_array_attribute_string(a, "k", &text), ZARR_ERROR_NOT_FOUND);
    zarr_array_free(a);
    zarr_array_free(again);
    zarr_array_free(v2);
    zarr_store_free(store);
}

ZTEST(group_attributes_typed) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_group *g = NULL, *again = NULL, *v2 = NULL;
    const double vals[3] = {1, 2, 3};
    const int64_t ints[2] = {7, -8};
    double d = 0, got[3];
    int64_t i = 0, goti[2];
    size_t n = 0;
    char *text = NULL, *file;
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_group_create(store, "/", "{\"Conventions\": \"CF-1.8\", \"version\": 2.0}", &g));
    ZT_OK(zarr_group_attribute_string(g, "Conventions", &text));
    ZT_CHECK(strcmp(text, "CF-1.8") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_group_attribute_int64(g, "version", &i));
    ZT_EQ_U64(i, 2);
    ZT_OK(zarr_group_set_attribute_string(g, "title", "run 7"));
    ZT_OK(zarr_group_set_attribute_double(g, "epsilon", 1e-9));
    ZT_OK(zarr_group_set_attribute_int64(g, "seed", 42));
    ZT_OK(zarr_group_set_attribute_double_array(g, "levels", vals, 3));
    ZT_OK(zarr_group_set_attribute_int64_array(g, "pair", ints, 2));
    ZT_OK(zarr_group_delete_attribute(g, "version"));
    ZT_OK(zarr_group_open(store, "/", &again));
    ZT_OK(zarr_group_attribute_count(again, &n));
    ZT_EQ_U64(n, 6);
    ZT_OK(zarr_group_attribute_name(again, 1, &text));
    ZT_CHECK(strcmp(text, "title") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_group_attribute_double(again, "epsilon", &d));
    ZT_CHECK(d == 1e-9);
    ZT_OK(zarr_group_attribute_double(again, "seed", &d));
    ZT_CHECK(d == 42.0);
    ZT_OK(zarr_group_attribute_double_array(again, "levels", got, 3, &n));
    ZT_CHECK(n == 3 && got[2] == 3.0);
    ZT_OK(zarr_group_attribute_int64_array(again, "pair", goti, 2, &n));
    ZT_CHECK(n == 2 && goti[1] == -8);
    /* Errors. */
    ZT_STATUS(zarr_group_attribute_string(again, "version", &text), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_group_attribute_string(again, "seed", &text), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_attribute_double(again, "title", &d), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_attribute_double(again, "nope", &d), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_group_attribute_int64(again, "epsilon", &i), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_attribute_int64(again, "nope", &i), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_group_set_attribute_double(g, "huge", 1e30));
    ZT_STATUS(zarr_group_attribute_int64(g, "huge", &i), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_group_attribute_int64_array(g, "huge", goti, 2, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_group_attribute_double_array(g, "levels", got, 2, &n),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_group_attribute_double_array(g, "title", got, 3, &n), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_attribute_double_array(g, "nope", got, 3, &n), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_group_attribute_int64_array(g, "pair", goti, 1, &n),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_group_attribute_int64_array(g, "title", goti, 2, &n), ZARR_ERROR_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_attribute_int64_array(g, "nope", goti, 2, &n), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_group_attribute_name(g, 99, &text), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_group_delete_attribute(g, "nope"), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_group_attribute_count(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_count(g, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_name(NULL, 0, &text), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_name(g, 0, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_string(NULL, "k", &text), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_string(g, NULL, &text), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_string(g, "k", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_string(g, "\xff", &text), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double(NULL, "k", &d), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double(g, NULL, &d), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double(g, "k", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_int64(NULL, "k", &i), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_int64(g, NULL, &i), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_int64(g, "k", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double_array(NULL, "k", got, 3, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double_array(g, NULL, got, 3, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double_array(g, "levels", NULL, 3, &n),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double_array(g, "levels", got, 3, NULL),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_double_array(g, "levels", got, SIZE_MAX, &n),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_int64_array(NULL, "k", goti, 2, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_int64_array(g, NULL, goti, 2, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_attribute_int64_array(g, "pair", goti, 2, NULL),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_string(NULL, "k", "v"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_string(g, NULL, "v"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_string(g, "k", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_string(g, "\xfe", "v"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_double(NULL, "k", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_double(g, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_int64(NULL, "k", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_int64(g, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_double_array(NULL, "k", vals, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_double_array(g, NULL, vals, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_double_array(g, "k", NULL, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_double_array(g, "k", vals, SIZE_MAX),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_int64_array(NULL, "k", ints, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_int64_array(g, NULL, ints, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_int64_array(g, "k", NULL, 2), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attribute_int64_array(g, "k", ints, SIZE_MAX),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_group_delete_attribute(NULL, "k"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_delete_attribute(g, NULL), ZARR_ERROR_NULL_ARGUMENT);
    /* Zarr v2 groups: .zattrs. */
    ZT_OK(zarr_group_create_with_format(store, "/old", NULL, 2, &v2));
    ZT_OK(zarr_group_set_attribute_int64(v2, "n", 5));
    file = (char *)ztest_read_file(ztest_path(dir, "old/.zattrs"), NULL);
    ZT_STR_CONTAINS(file, "\"n\": 5");
    free(file);
    zarr_group_free(v2);
    zarr_group_free(again);
    zarr_group_free(g);
    zarr_store_free(store);
}

/* Concurrent setters through one handle: every one lands (none is lost). */
#include <pthread.h>

typedef struct {
    zarr_array *array;
    int thread;
    int failures;
} setter_job;

static void *set_many(void *arg) {
    setter_job *job = (setter_job *)arg;
    int k;
    for (k = 0; k < 25; k++) {
        char key[32];
        snprintf(key, sizeof key, "t%d_%d", job->thread, k);
        if (zarr_array_set_attribute_int64(job->array, key, k) != ZARR_OK) job->failures++;
    }
    return NULL;
}

ZTEST(concurrent_attribute_setters) {
    zarr_store *store = fixture();
    zarr_array *a = NULL, *again = NULL;
    pthread_t threads[4];
    setter_job jobs[4];
    size_t n = 0;
    int t;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/s", &a));
    for (t = 0; t < 4; t++) {
        jobs[t].array = a;
        jobs[t].thread = t;
        jobs[t].failures = 0;
        ZT_CHECK(pthread_create(&threads[t], NULL, set_many, &jobs[t]) == 0);
    }
    for (t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        ZT_EQ_U64(jobs[t].failures, 0);
    }
    ZT_OK(zarr_array_open(store, "/s", &again));
    ZT_OK(zarr_array_attribute_count(again, &n));
    ZT_EQ_U64(n, 100);
    zarr_array_free(a);
    zarr_array_free(again);
    zarr_store_free(store);
}

ZTEST(renamed_functions) {
    zarr_store *store = fixture();
    zarr_array *a = NULL, *b = NULL;
    zarr_group *g = NULL;
    uint32_t format = 0;
    size_t threads = 0;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_format(a, &format));
    ZT_EQ_U64(format, 3);
    ZT_OK(zarr_array_open(store, "/v2/b", &b));
    ZT_OK(zarr_array_format(b, &format));
    ZT_EQ_U64(format, 2);
    ZT_OK(zarr_group_create_with_format(store, "/three", "{\"k\": 1}", 3, &g));
    ZT_OK(zarr_group_format(g, &format));
    ZT_EQ_U64(format, 3);
    zarr_group_free(g);
    g = (zarr_group *)1;
    ZT_STATUS(zarr_group_create_with_format(store, "/four", NULL, 4, &g), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(g == NULL);
    ZT_STATUS(zarr_group_create_with_format(store, "/zero", NULL, 0, &g), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, "/three", NULL, 3, &g), ZARR_ERROR_ALREADY_EXISTS);
    ZT_STATUS(zarr_group_create_with_format(store, "/a/x", NULL, 3, &g),
              ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_create_with_format(NULL, "/x", NULL, 3, &g), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, NULL, NULL, 3, &g), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, "/x", NULL, 3, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, "x", NULL, 3, &g), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_group_create_with_format(store, "/x", "[]", 3, &g), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_format(NULL, &format), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_format(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_format(NULL, &format), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_thread_pool_set_size(2));
    ZT_OK(zarr_thread_pool_size(&threads));
    ZT_EQ_U64(threads, 2);
    ZT_OK(zarr_thread_pool_set_size(0));
    ZT_STATUS(zarr_thread_pool_size(NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

/* The old names still work for one release (calling them warns: silenced here). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
ZTEST(deprecated_aliases) {
    zarr_store *store = fixture();
    zarr_array *a = NULL;
    zarr_group *g = NULL, *again = NULL;
    uint32_t format = 0;
    size_t threads = 0;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_array_open(store, "/v2/b", &a));
    ZT_OK(zarr_array_zarr_format(a, &format));
    ZT_EQ_U64(format, 2);
    ZT_STATUS(zarr_array_zarr_format(NULL, &format), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_zarr_format");
    ZT_OK(zarr_group_create_v2(store, "/old", NULL, &g));
    ZT_OK(zarr_group_zarr_format(g, &format));
    ZT_EQ_U64(format, 2);
    ZT_STATUS(zarr_group_zarr_format(g, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_v2(store, "/old", NULL, &again), ZARR_ERROR_ALREADY_EXISTS);
    ZT_CHECK(again == NULL);
    ZT_OK(zarr_set_num_threads(3));
    ZT_OK(zarr_num_threads(&threads));
    ZT_EQ_U64(threads, 3);
    ZT_OK(zarr_set_num_threads(0));
    ZT_STATUS(zarr_num_threads(NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_group_free(g);
    zarr_array_free(a);
    zarr_store_free(store);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- the proof for netCDF users: an xarray dataset, with no JSON text -------------- */

/* tests/data/xarray/<name>, found from this source file's location. */
static const char *xarray_path(const char *name) {
    static char out[4096];
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    int n = slash ? (int)(slash - file) : 1;
    snprintf(out, sizeof out, "%.*s/../tests/data/xarray/%s", n, slash ? file : ".", name);
    return out;
}

/* Find the variable `name` among the root group's children and check its dimension names
 * and its CF `units`, as a netCDF program would with nc_inq_varid / nc_inq_vardimid /
 * nc_get_att_text. Returns 1 when everything matches. */
static int check_variable(zarr_store *store, zarr_group *root, const char *name,
                          const char *dim0, const char *dim1, const char *units) {
    size_t count = 0, i, ndim = 0;
    int found = 0, ok = 1;
    zarr_array *a = NULL;
    char path[256], *text = NULL;
    if (zarr_group_child_count(root, &count) != ZARR_OK) return 0;
    for (i = 0; i < count; i++) {
        char *child = NULL;
        zarr_node_type type = 0;
        if (zarr_group_child_name(root, i, &child) != ZARR_OK) return 0;
        if (zarr_group_child_node_type(root, i, &type) != ZARR_OK) return 0;
        if (strcmp(child, name) == 0 && type == ZARR_NODE_TYPE_ARRAY) found = 1;
        zarr_string_free(child);
    }
    if (!found) {
        fprintf(stderr, "variable %s not listed\n", name);
        return 0;
    }
    snprintf(path, sizeof path, "/%s", name);
    if (zarr_array_open(store, path, &a) != ZARR_OK) {
        fprintf(stderr, "%s: %s\n", path, zarr_last_error_message());
        return 0;
    }
    if (zarr_array_ndim(a, &ndim) != ZARR_OK) ok = 0;
    if (ok && dim0 != NULL) {
        ok = zarr_array_dimension_name(a, 0, &text) == ZARR_OK && text && !strcmp(text, dim0);
        zarr_string_free(text);
        text = NULL;
    }
    if (ok && dim1 != NULL) {
        ok = ndim == 2 && zarr_array_dimension_name(a, 1, &text) == ZARR_OK && text &&
             !strcmp(text, dim1);
        zarr_string_free(text);
        text = NULL;
    }
    if (ok && units != NULL) {
        ok = zarr_array_attribute_string(a, "units", &text) == ZARR_OK && !strcmp(text, units);
        zarr_string_free(text);
    }
    if (!ok) fprintf(stderr, "%s: dimension names or units differ (%s)\n", path, zarr_last_error_message());
    zarr_array_free(a);
    return ok;
}

/* The dataset (see tests/data/xarray/README.md): coordinates lat(lat), lon(lon), a data
 * variable tas(lat, lon) in K with a valid_min, and a string variable station(lat) that
 * this library cannot read but must list. */
static void check_xarray_store(const char *name, int consolidated) {
    zarr_store *store = NULL, *view = NULL;
    zarr_group *root = NULL;
    zarr_array *tas = NULL;
    char *title = NULL, *text = NULL;
    double scale = 0;
    float value = 0;
    uint64_t start[2] = {1, 2}, count[2] = {1, 1};
    size_t n = 0;
    ZT_OK(zarr_store_open_filesystem(xarray_path(name), &store));
    if (consolidated) {
        ZT_OK(zarr_store_open_consolidated(store, &view));
        zarr_store_free(store);
        store = view;
    }
    ZT_OK(zarr_group_open(store, "/", &root));
    ZT_OK(zarr_group_child_count(root, &n));
    ZT_EQ_U64(n, 4); /* lat, lon, station, tas */
    ZT_OK(zarr_group_attribute_string(root, "title", &title));
    ZT_CHECK(strcmp(title, "libzarr test dataset") == 0);
    zarr_string_free(title);
    ZT_CHECK(check_variable(store, root, "tas", "lat", "lon", "K"));
    ZT_CHECK(check_variable(store, root, "lat", "lat", NULL, "degrees_north"));
    ZT_CHECK(check_variable(store, root, "lon", "lon", NULL, "degrees_east"));
    /* A data value and a numeric attribute, still without JSON. */
    ZT_OK(zarr_array_open(store, "/tas", &tas));
    ZT_OK(zarr_array_attribute_double(tas, "valid_min", &scale));
    ZT_CHECK(scale == 180.0);
    ZT_OK(zarr_array_attribute_string(tas, "long_name", &text));
    ZT_CHECK(strcmp(text, "near-surface air temperature") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_read(tas, 2, start, count, &value, sizeof value));
    ZT_CHECK(value == 271.5f);
    zarr_array_free(tas);
    zarr_group_free(root);
    zarr_store_free(store);
}

ZTEST(xarray_v2_consolidated) { check_xarray_store("v2.zarr", 1); }
ZTEST(xarray_v2_plain) { check_xarray_store("v2.zarr", 0); }
ZTEST(xarray_v3) { check_xarray_store("v3.zarr", 0); }

static const ztest_case ztest_cases[] = {
    ZCASE(dimension_names),
    ZCASE(fill_value),
    ZCASE(fill_value_double),
    ZCASE(codecs),
    ZCASE(children_by_index),
    ZCASE(children_listing_errors),
    ZCASE(nul_characters),
    ZCASE(type_mismatch_status),
    ZCASE(array_attributes_typed),
    ZCASE(array_attributes_set_and_names),
    ZCASE(group_attributes_typed),
    ZCASE(concurrent_attribute_setters),
    ZCASE(renamed_functions),
    ZCASE(deprecated_aliases),
    ZCASE(xarray_v2_consolidated),
    ZCASE(xarray_v2_plain),
    ZCASE(xarray_v3),
};

ZTEST_MAIN()
