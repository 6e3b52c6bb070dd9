/* quickstart.c: open a dataset, list it, read a variable, write a new one. */
#include <stdio.h>
#include <stdlib.h>
#include <zarr.h>

static void check(zarr_status status) {
    if (status != ZARR_OK) {
        fprintf(stderr, "%s: %s\n", zarr_status_str(status), zarr_last_error_message());
        exit(1);
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "climate.zarr";
    zarr_store *store;
    zarr_group *root;
    zarr_array *tas, *celsius;
    char *json, metadata[1024];
    uint64_t shape[3], start[3] = {0, 0, 0};
    size_t ndim, nbytes, i;
    float *values;

    /* Open the dataset and list what is in it. */
    check(zarr_store_open_filesystem(path, &store));
    check(zarr_group_open(store, "/", &root));
    check(zarr_group_children_json(root, &json));
    printf("variables: %s\n", json); /* [{"name": "lat", "path": "/lat", ...}, ...] */
    zarr_string_free(json);

    /* Read the variable tas(time, lat, lon), float32, whole. */
    check(zarr_array_open(store, "/tas", &tas));
    check(zarr_array_ndim(tas, &ndim));
    if (ndim != 3) return 1;
    check(zarr_array_shape(tas, 3, shape));
    check(zarr_array_attributes_json(tas, &json));
    printf("tas: %llu x %llu x %llu, attributes %s\n", (unsigned long long)shape[0],
           (unsigned long long)shape[1], (unsigned long long)shape[2], json);
    zarr_string_free(json);
    check(zarr_array_selection_nbytes(tas, 3, start, shape, &nbytes));
    values = malloc(nbytes);
    if (!values) return 1;
    check(zarr_array_read(tas, 3, start, shape, values, nbytes));
    printf("tas[0, 0, 0] = %.2f K\n", values[0]);

    /* Write a new variable beside it: tas in degrees Celsius, same shape and dimensions. */
    for (i = 0; i < nbytes / sizeof(float); i++) values[i] -= 273.15f;
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
    check(zarr_array_write(celsius, 3, start, shape, values, nbytes));
    printf("wrote /tas_celsius\n");

    free(values);
    zarr_array_free(celsius);
    zarr_array_free(tas);
    zarr_group_free(root);
    zarr_store_free(store);
    return 0;
}
