// zarr.hpp must compile on its own as C++17 with -Wall -Wextra -Werror -pedantic (and
// -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast), every template instantiated.
#include "zarr.hpp"

#include <complex>

template <typename T> static void instantiate(zarr::Array &a) {
    std::vector<T> v = a.template read<T>({0}, {1});
    a.read({0}, {1}, v);
    a.write({0}, {1}, v);
    v = a.template read_chunk<T>({0});
    a.write_chunk({0}, v);
    v = a.template read_inner_chunk<T>({0});
    T fill = a.template fill_value<T>();
    zarr::ArrayBuilder(ZARR_DATA_TYPE_FLOAT32, {1}).fill_value(fill);
    // The collective members, compiled but not run (an empty communicator).
    zarr::Comm comm;
    if (comm) {
        v = a.template read_collective<T>(comm, {0}, {1});
        a.write_collective(comm, {0}, {1}, v);
        a.append_collective(comm, 0, 1, {0}, {1}, v);
        comm.agree_on([&] { v.resize(1); });
    }
}

int main() {
    try {
        zarr::Store store = zarr::Store::memory();
        zarr::Array a = zarr::Array::create(
            store, "/a",
            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [1],"
            " \"data_type\": \"float32\", \"chunk_grid\": {\"name\": \"regular\","
            " \"configuration\": {\"chunk_shape\": [1]}}, \"chunk_key_encoding\":"
            " {\"name\": \"default\"}, \"fill_value\": 0.0,"
            " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}");
        instantiate<float>(a);
        instantiate<int32_t>(a);
        instantiate<uint32_t>(a);
        return 0;
    } catch (const zarr::Error &e) {
        return e.status() == ZARR_OK ? 2 : 1;
    }
}
