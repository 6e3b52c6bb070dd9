/* quickstart.c: open a dataset, list it, read a variable as numbers, write a new one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <zarr.h>

static void check(zarr_status status) {
    if (status != ZARR_OK) {
        fprintf(stderr, "%s: %s\n", zarr_status_str(status), zarr_last_error_message());
        exit(1);
    }
}

/* The number attribute `key` of `array`, or `otherwise` if there is none. (xarray stores
 * a float variable's _FillValue as base64 text: skipped here, its NaNs are NaN already.) */
static double attribute(const zarr_array *array, const char *key, double otherwise) {
    double value;
    return zarr_array_attribute_double(array, key, &value) == ZARR_OK ? value : otherwise;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "climate.zarr";
    zarr_store *store;
    zarr_group *root;
    zarr_array *tas, *celsius;
    zarr_data_type type;
    zarr_status status;
    char *json, metadata[1024];
    uint64_t shape[3], start[3] = {0, 0, 0};
    uint32_t format;
    size_t ndim, n, i;
    double *values, scale, offset, fill, missing;
    float *out;

    /* Open the dataset and list what is in it. */
    check(zarr_store_open_filesystem(path, &store));
    check(zarr_group_open(store, "/", &root));
    check(zarr_group_children_json(root, &json));
    printf("variables: %s\n", json); /* [{"name": "lat", "path": "/lat", ...}, ...] */
    zarr_string_free(json);

    /* The variable tas(time, lat, lon): its data type and shape. */
    check(zarr_array_open(store, "/tas", &tas));
    check(zarr_array_data_type(tas, &type));
    check(zarr_array_ndim(tas, &ndim));
    if (ndim != 3) return 1;
    check(zarr_array_shape(tas, 3, shape));
    printf("tas: %s, %llu x %llu x %llu\n", zarr_data_type_str(type),
           (unsigned long long)shape[0], (unsigned long long)shape[1],
           (unsigned long long)shape[2]);

    /* Read it whole as doubles, whatever its data type (int16 when packed, float32...). */
    n = (size_t)(shape[0] * shape[1] * shape[2]);
    values = malloc(n * sizeof *values);
    out = malloc(n * sizeof *out);
    if (!values || !out) return 1;
    check(zarr_array_read_double(tas, 3, start, shape, values, n));

    /* Unpack it as CF says: raw * scale_factor + add_offset; _FillValue or missing_value
     * marks a missing value. Xarray keeps _FillValue as an attribute in Zarr v3, as the
     * array's fill value in Zarr v2. */
    scale = attribute(tas, "scale_factor", 1.0);
    offset = attribute(tas, "add_offset", 0.0);
    missing = attribute(tas, "missing_value", NAN);
    check(zarr_array_format(tas, &format));
    if (format == 3) fill = attribute(tas, "_FillValue", NAN);
    else if (zarr_array_fill_value_double(tas, &fill) != ZARR_OK) fill = NAN;
    for (i = 0; i < n; i++)
        values[i] = values[i] == fill || values[i] == missing ? NAN : values[i] * scale + offset;
    printf("tas[0, 0, 0:3] = %.2f %.2f %.2f K\n", values[0], values[1], values[2]);

    /* Write tas in degrees Celsius beside it, as float32, replacing an earlier run's. */
    for (i = 0; i < n; i++) out[i] = (float)(values[i] - 273.15);
    status = zarr_store_delete_node(store, "/tas_celsius");
    if (status != ZARR_ERROR_NOT_FOUND) check(status);
    snprintf(metadata, sizeof metadata,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [%llu, %llu, %llu],"
             " \"data_type\": \"float32\", \"fill_value\": \"NaN\","
             " \"chunk_grid\": {\"name\": \"regular\","
             "                  \"configuration\": {\"chunk_shape\": [1, %llu, %llu]}},"
             " \"chunk_key_encoding\": {\"name\": \"default\"},"
             " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
             "              {\"name\": \"zstd\", \"configuration\": {\"level\": 3}}],"
             " \"dimension_names\": [\"time\", \"lat\", \"lon\"],"
             " \"attributes\": {\"units\": \"degC\"}}",
             (unsigned long long)shape[0], (unsigned long long)shape[1],
             (unsigned long long)shape[2], (unsigned long long)shape[1],
             (unsigned long long)shape[2]);
    check(zarr_array_create(store, "/tas_celsius", metadata, &celsius));
    check(zarr_array_write(celsius, 3, start, shape, out, n * sizeof *out));
    printf("wrote /tas_celsius\n");

    free(out);
    free(values);
    zarr_array_free(celsius);
    zarr_array_free(tas);
    zarr_group_free(root);
    zarr_store_free(store);
    return 0;
}
