// quickstart.cpp: open a dataset, list it, read a variable as numbers, write a new one.
#include <cmath>
#include <cstdio>
#include <vector>
#include <zarr.hpp>

// The number attribute `key` of `a`, or `otherwise` if there is none (see quickstart.c).
static double attribute(const zarr::Array &a, const char *key, double otherwise) {
    try {
        return a.attribute_double(key);
    } catch (const zarr::Error &) {
        return otherwise;
    }
}

int main(int argc, char **argv) try {
    zarr::Store store = zarr::Store::filesystem(argc > 1 ? argv[1] : "climate.zarr");

    // Open the dataset and list what is in it.
    zarr::Group root = zarr::Group::open(store, "/");
    std::printf("variables: %s\n", root.children_json().c_str());

    // The variable tas(time, lat, lon): its data type and shape.
    zarr::Array tas = zarr::Array::open(store, "/tas");
    std::vector<uint64_t> shape = tas.shape();
    std::printf("tas: %s, %llu x %llu x %llu\n", zarr_data_type_str(tas.data_type()),
                (unsigned long long)shape[0], (unsigned long long)shape[1],
                (unsigned long long)shape[2]);

    // Read it whole as doubles, whatever its data type (int16 when packed, float32...).
    std::vector<double> values = tas.read_double({0, 0, 0}, shape);

    // Unpack it as CF says: raw * scale_factor + add_offset; _FillValue or missing_value
    // marks a missing value. Xarray keeps _FillValue as an attribute in Zarr v3, as the
    // array's fill value in Zarr v2.
    double scale = attribute(tas, "scale_factor", 1.0), offset = attribute(tas, "add_offset", 0.0);
    double missing = attribute(tas, "missing_value", NAN), fill = NAN;
    try {
        fill = tas.format() == 3 ? tas.attribute_double("_FillValue") : tas.fill_value_double();
    } catch (const zarr::Error &) { // none (or a float's in base64: its NaNs are NaN anyway)
    }
    for (double &v : values) v = v == fill || v == missing ? NAN : v * scale + offset;
    std::printf("tas[0, 0, 0:3] = %.2f %.2f %.2f K\n", values[0], values[1], values[2]);

    // Write tas in degrees Celsius beside it, as float32, replacing an earlier run's.
    std::vector<float> celsius_values;
    for (double v : values) celsius_values.push_back(static_cast<float>(v - 273.15));
    try {
        store.delete_node("/tas_celsius_cpp");
    } catch (const zarr::Error &e) {
        if (e.status() != ZARR_ERROR_NOT_FOUND) throw;
    }
    std::string dims = std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + ", " +
                       std::to_string(shape[2]);
    zarr::Array celsius = zarr::Array::create(store, "/tas_celsius_cpp",
        R"({"zarr_format": 3, "node_type": "array", "shape": [)" + dims + R"(],
            "data_type": "float32", "fill_value": "NaN",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [)" + dims + R"(]}},
            "chunk_key_encoding": {"name": "default"},
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "zstd", "configuration": {"level": 3}}],
            "dimension_names": ["time", "lat", "lon"], "attributes": {"units": "degC"}})");
    celsius.write<float>({0, 0, 0}, shape, celsius_values);
    std::printf("wrote /tas_celsius_cpp\n");
    return 0;
} catch (const zarr::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
