/* A dataset as xarray writes it (tests/data/xarray/climate_v{2,3}.zarr, see
 * make_climate.py): every variable opens, is listed and reads through the C API: a
 * CF-encoded datetime coordinate, string labels (v2 `|O` + vlen-utf8, v3 `string`), a
 * CF-packed int16 variable and a float32 field; v2 through its consolidated metadata too. */
#include "ztest.h"

static const char *dataset_path(const char *name) {
    static char out[4096];
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    int n = slash ? (int)(slash - file) : 1;
    snprintf(out, sizeof out, "%.*s/../tests/data/xarray/%s", n, slash ? file : ".", name);
    return out;
}

/* Read the strings of a 1-d `string` array of `n` elements and compare with `want`. */
static int strings_equal(zarr_array *a, size_t n, const char *const *want) {
    uint64_t start[1] = {0}, count[1], offsets[16];
    char data[256];
    size_t size = 0, i;
    zarr_data_type type = 0;
    count[0] = n;
    if (n > 15 || zarr_array_data_type(a, &type) != ZARR_OK || type != ZARR_DATA_TYPE_STRING)
        return 0;
    if (zarr_array_read_vlen(a, 1, start, count, offsets, n + 1, NULL, 0, &size) != ZARR_OK ||
        size > sizeof data ||
        zarr_array_read_vlen(a, 1, start, count, offsets, n + 1, data, sizeof data, &size) !=
            ZARR_OK) {
        fprintf(stderr, "read_vlen: %s\n", zarr_last_error_message());
        return 0;
    }
    for (i = 0; i < n; i++) {
        size_t len = (size_t)(offsets[i + 1] - offsets[i]);
        if (len != strlen(want[i]) || memcmp(data + offsets[i], want[i], len) != 0) {
            fprintf(stderr, "element %zu: '%.*s', expected '%s'\n", i, (int)len,
                    data + offsets[i], want[i]);
            return 0;
        }
    }
    return 1;
}

static void check_dataset(const char *name, int consolidated) {
    static const char *const stations[] = {"Z\xc3\xbcrich", "S\xc3\xa3o Paulo",
                                           "\xe6\x9d\xb1\xe4\xba\xac", ""};
    static const char *const labels[] = {"alpine", "coastal", "urban", "none"};
    static const char *const variables[] = {"label", "pr", "station", "tas", "time"};
    zarr_store *store = NULL, *view = NULL;
    zarr_group *root = NULL;
    zarr_array *a = NULL;
    char *text = NULL;
    size_t n = 0, i;
    double scale = 0;
    int64_t fill = 0, days[4];
    int16_t packed[16];
    float tas[16];
    uint64_t s1[1] = {0}, c1[1] = {4}, s2[2] = {0, 0}, c2[2] = {4, 4};
    zarr_data_type type = 0;

    ZT_OK(zarr_store_open_filesystem(dataset_path(name), &store));
    if (consolidated) {
        ZT_OK(zarr_store_open_consolidated(store, &view));
        zarr_store_free(store);
        store = view;
    }
    ZT_OK(zarr_group_open(store, "/", &root));
    ZT_OK(zarr_group_attribute_string(root, "title", &text));
    ZT_CHECK(strcmp(text, "libzarr xarray dataset") == 0);
    zarr_string_free(text);
    /* Listing: the five variables, all arrays, in name order. */
    ZT_OK(zarr_group_child_count(root, &n));
    ZT_EQ_U64(n, 5);
    for (i = 0; i < n; i++) {
        zarr_node_type node = 0;
        ZT_OK(zarr_group_child_name(root, i, &text));
        ZT_CHECK(strcmp(text, variables[i]) == 0);
        zarr_string_free(text);
        ZT_OK(zarr_group_child_node_type(root, i, &node));
        ZT_EQ_U64(node, ZARR_NODE_TYPE_ARRAY);
    }

    /* time: days since 2026-01-01 as int64, CF attributes. */
    ZT_OK(zarr_array_open(store, "/time", &a));
    ZT_OK(zarr_array_data_type(a, &type));
    ZT_EQ_U64(type, ZARR_DATA_TYPE_INT64);
    ZT_OK(zarr_array_attribute_string(a, "units", &text));
    ZT_CHECK(strcmp(text, "days since 2026-01-01") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_read(a, 1, s1, c1, days, sizeof days));
    for (i = 0; i < 4; i++) ZT_EQ_U64(days[i], i);
    zarr_array_free(a);

    /* station (a coordinate of strings) and label (a variable of strings). */
    ZT_OK(zarr_array_open(store, "/station", &a));
    ZT_CHECK(strings_equal(a, 4, stations));
    ZT_OK(zarr_array_dimension_name(a, 0, &text));
    ZT_CHECK(text && strcmp(text, "station") == 0);
    zarr_string_free(text);
    zarr_array_free(a);
    ZT_OK(zarr_array_open(store, "/label", &a));
    ZT_CHECK(strings_equal(a, 4, labels));
    zarr_array_free(a);

    /* pr: CF-packed int16, value = packed * scale_factor, -32768 marks a missing value. */
    ZT_OK(zarr_array_open(store, "/pr", &a));
    ZT_OK(zarr_array_data_type(a, &type));
    ZT_EQ_U64(type, ZARR_DATA_TYPE_INT16);
    ZT_OK(zarr_array_attribute_double(a, "scale_factor", &scale));
    ZT_CHECK(scale == 0.01);
    if (strstr(name, "v2")) {
        /* Zarr v2: xarray makes _FillValue the array's fill value. */
        int16_t fill16 = 0;
        ZT_OK(zarr_array_fill_value(a, &fill16, sizeof fill16));
        fill = fill16;
    } else {
        /* Zarr v3: an attribute (the array's fill value is 0). */
        ZT_OK(zarr_array_attribute_int64(a, "_FillValue", &fill));
    }
    ZT_CHECK(fill == -32768);
    ZT_OK(zarr_array_read(a, 2, s2, c2, packed, sizeof packed));
    ZT_EQ_U64((uint64_t)(int64_t)packed[1], 125);   /* 1.25 mm/day */
    ZT_EQ_U64((uint64_t)(int64_t)packed[3], (uint64_t)(int64_t)-32768); /* missing */
    ZT_EQ_U64((uint64_t)(int64_t)packed[6], 1000);  /* 10.0 mm/day */
    zarr_array_free(a);

    /* tas: float32 (time, station). */
    ZT_OK(zarr_array_open(store, "/tas", &a));
    ZT_OK(zarr_array_dimension_name(a, 1, &text));
    ZT_CHECK(text && strcmp(text, "station") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_read(a, 2, s2, c2, tas, sizeof tas));
    for (i = 0; i < 16; i++) ZT_CHECK(tas[i] == 280.0f + 0.5f * (float)i);
    zarr_array_free(a);

    zarr_group_free(root);
    zarr_store_free(store);
}

ZTEST(v2_consolidated) { check_dataset("climate_v2.zarr", 1); }
ZTEST(v2_plain) { check_dataset("climate_v2.zarr", 0); }
ZTEST(v3) { check_dataset("climate_v3.zarr", 0); }

static const ztest_case ztest_cases[] = {
    ZCASE(v2_consolidated),
    ZCASE(v2_plain),
    ZCASE(v3),
};

ZTEST_MAIN()
