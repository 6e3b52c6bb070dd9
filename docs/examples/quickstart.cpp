// quickstart.cpp: open a dataset, list it, read a variable, write a new one.
#include <cstdio>
#include <vector>
#include <zarr.hpp>

int main(int argc, char **argv) try {
    zarr::Store store = zarr::Store::filesystem(argc > 1 ? argv[1] : "climate.zarr");

    // Open the dataset and list what is in it.
    zarr::Group root = zarr::Group::open(store, "/");
    std::printf("variables: %s\n", root.children_json().c_str());

    // Read the variable tas(time, lat, lon), float32, whole.
    zarr::Array tas = zarr::Array::open(store, "/tas");
    std::vector<uint64_t> shape = tas.shape();
    std::vector<float> values = tas.read<float>({0, 0, 0}, shape);
    std::printf("tas: attributes %s\n", tas.attributes().c_str());
    std::printf("tas[0, 0, 0] = %.2f K\n", static_cast<double>(values[0]));

    // Write a new variable beside it: tas in degrees Celsius, same shape and dimensions.
    for (float &v : values) v -= 273.15f;
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
    celsius.write<float>({0, 0, 0}, shape, values);
    std::printf("wrote /tas_celsius_cpp\n");
    return 0;
} catch (const zarr::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
