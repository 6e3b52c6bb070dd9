// consumer.cpp -- a C++ program built against an installed libzarr with find_package(zarr)
// and the target zarr::cpp (the header-only zarr.hpp). Writes an int32 array to a memory
// store, reads it back, checks every element and prints the version. ctest builds it against
// a staging install and against a moved one (label `install`).
#include <cstdio>
#include <vector>

#include <zarr.hpp>

int main() {
    try {
        zarr::Store store = zarr::Store::memory();
        zarr::Array array = zarr::Array::create(
            store, "/values",
            R"({"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "int32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 1, "checksum": false}}]})");
        std::vector<int32_t> values(24);
        for (int i = 0; i < 24; i++) values[static_cast<size_t>(i)] = i * 7 - 50;
        array.write<int32_t>({0, 0}, {4, 6}, values);
        if (array.read<int32_t>({0, 0}, {4, 6}) != values) {
            std::fprintf(stderr, "read back differs from what was written\n");
            return 1;
        }
        std::printf("libzarr %s: C++ wrote and read back a 4x6 int32 array\n", zarr::version().c_str());
    } catch (const zarr::Error &e) {
        std::fprintf(stderr, "zarr::Error: %s\n", e.what());
        return 1;
    }
    return 0;
}
