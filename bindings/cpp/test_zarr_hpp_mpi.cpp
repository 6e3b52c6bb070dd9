// Tests of zarr_mpi.hpp and the collective members of zarr.hpp under MPI. Usage (every
// rank):  mpirun -np 3 test_zarr_hpp_mpi STORE_DIRECTORY   (the directory must not hold
// the nodes yet). Every rank:
// - makes a zarr::Comm from MPI_COMM_WORLD (and checks its rank and size);
// - writes its box of an uneven 2-D decomposition of a 37 x 23 int32 array (element (r, c)
//   = 1000 r + c + 1) with write_collective into a chunked and a sharded array, the boxes
//   cutting chunks, shards and inner chunks, then reads both whole with read_collective and
//   checks every element (and a serial read on each rank too);
// - appends 6 time steps to a float64 series, each rank writing its columns of each step
//   (the last rank none, with 3 or more ranks), and checks every element;
// - checks that a wrong element type (and mismatched start/count lengths) on one rank
//   throws the same status on every rank without a hang, and writes nothing.
// A failed check prints the rank, file:line and the expression; every rank ends with a
// non-zero exit code when any rank failed.

#include "zarr_mpi.hpp"

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int rank = 0, nranks = 1, failures = 0;

void fail(int line, const std::string &what) {
    std::fprintf(stderr, "rank %d: %s:%d: %s\n", rank, __FILE__, line, what.c_str());
    ++failures;
}

#define CHECK(expr)                                                                        \
    do {                                                                                   \
        if (!(expr)) fail(__LINE__, std::string("check failed: ") + #expr);                \
    } while (0)

// Runs a statement that must throw zarr::Error with status `expected` whose message
// contains `needle`.
#define THROWS(stmt, expected, needle)                                                     \
    do {                                                                                   \
        bool thrown_ = false;                                                              \
        try {                                                                              \
            stmt;                                                                          \
        } catch (const zarr::Error &e_) {                                                  \
            thrown_ = true;                                                                \
            if (e_.status() != (expected) ||                                               \
                std::string(e_.what()).find(needle) == std::string::npos)                  \
                fail(__LINE__, std::string(#stmt) + " threw status " +                     \
                                   std::to_string(e_.status()) + ": " + e_.what());        \
        }                                                                                  \
        if (!thrown_) fail(__LINE__, std::string(#stmt) + " did not throw");               \
    } while (0)

const uint64_t ROWS = 37, COLS = 23;

int32_t value_at(uint64_t r, uint64_t c) { return static_cast<int32_t>(1000 * r + c + 1); }

std::string meta(const std::string &codecs, const std::string &chunks) {
    return "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [37, 23],"
           " \"data_type\": \"int32\", \"fill_value\": -1,"
           " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": " +
           chunks + "}}, \"chunk_key_encoding\": {\"name\": \"default\"}, \"codecs\": " + codecs +
           "}";
}

const std::string ZSTD =
    "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]";
const std::string SHARDING =
    "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4, 5],"
    " \"codecs\": " + ZSTD + ", \"index_codecs\": [{\"name\": \"bytes\", \"configuration\":"
    " {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}]}}]";

// Rank r's box: rank 0 the rows 0-8 whole; the other ranks the rows 9-36 split by columns
// unevenly (cut k of p - 1 parts at COLS*k*k/(p-1)^2). One rank has everything.
void box(int r, std::vector<uint64_t> &start, std::vector<uint64_t> &count) {
    if (nranks == 1) {
        start = {0, 0};
        count = {ROWS, COLS};
    } else if (r == 0) {
        start = {0, 0};
        count = {9, COLS};
    } else {
        uint64_t p = static_cast<uint64_t>(nranks - 1), k = static_cast<uint64_t>(r);
        uint64_t c0 = COLS * (k - 1) * (k - 1) / (p * p), c1 = COLS * k * k / (p * p);
        start = {9, c0};
        count = {ROWS - 9, c1 - c0};
    }
}

std::vector<int32_t> box_values(const std::vector<uint64_t> &start,
                                const std::vector<uint64_t> &count) {
    std::vector<int32_t> v;
    for (uint64_t r = 0; r < count[0]; ++r) {
        for (uint64_t c = 0; c < count[1]; ++c) v.push_back(value_at(start[0] + r, start[1] + c));
    }
    return v;
}

void check_every_element(const std::vector<int32_t> &all, const char *what) {
    if (all.size() != ROWS * COLS) {
        fail(__LINE__, std::string(what) + ": wrong size " + std::to_string(all.size()));
        return;
    }
    for (uint64_t r = 0; r < ROWS; ++r) {
        for (uint64_t c = 0; c < COLS; ++c) {
            if (all[r * COLS + c] != value_at(r, c)) {
                fail(__LINE__, std::string(what) + ": (" + std::to_string(r) + ", " +
                                   std::to_string(c) + ") holds " +
                                   std::to_string(all[r * COLS + c]));
                return;
            }
        }
    }
}

void run(const std::string &dir) {
    zarr::Comm comm = zarr::mpi::comm(MPI_COMM_WORLD);
    CHECK(comm.rank() == static_cast<size_t>(rank));
    CHECK(comm.size() == static_cast<size_t>(nranks));
    THROWS(zarr::mpi::comm(MPI_COMM_NULL), ZARR_ERROR_INVALID_ARGUMENT, "MPI_COMM_NULL");

    zarr::Store store = zarr::Store::filesystem(dir);
    zarr::Group root = zarr::Group::create_collective(comm, store, "/", "{\"title\": \"mpi\"}");
    zarr::Array chunked = zarr::Array::create_collective(comm, store, "/chunked", meta(ZSTD, "[6, 4]"));
    zarr::Array sharded =
        zarr::Array::create_collective(comm, store, "/sharded", meta(SHARDING, "[8, 10]"));
    std::vector<uint64_t> start, count;
    box(rank, start, count);
    std::vector<int32_t> mine = box_values(start, count);

    // One rank's mistakes throw on every rank, agreed before the collective call.
    int culprit = nranks > 1 ? 1 : 0;
    if (rank == culprit) {
        std::vector<int64_t> wide(mine.begin(), mine.end());
        THROWS(chunked.write_collective(comm, start, count, wide), ZARR_ERROR_INVALID_ARGUMENT,
               "zarr::Array::write_collective: the element type has 8 bytes");
    } else {
        THROWS(chunked.write_collective(comm, start, count, mine), ZARR_ERROR_INVALID_ARGUMENT,
               "zarr::Array::write_collective: the element type has 8 bytes");
    }
    std::vector<uint64_t> short_start = rank == nranks - 1 ? std::vector<uint64_t>{0} : start;
    THROWS(chunked.write_collective(comm, short_start, count, mine), ZARR_ERROR_INVALID_ARGUMENT,
           "start has 1 values but count has 2");
    std::vector<int32_t> untouched = chunked.read_collective<int32_t>(comm, {0, 0}, {ROWS, COLS});
    CHECK(untouched == std::vector<int32_t>(ROWS * COLS, -1));

    // The uneven decomposition, written collectively into both arrays.
    chunked.write_collective(comm, start, count, mine);
    CHECK(comm.last_write_json().find("\"ranks\"") != std::string::npos);
    sharded.write_collective(comm, start, count, mine.data(), mine.size() * sizeof(int32_t));
    check_every_element(chunked.read_collective<int32_t>(comm, {0, 0}, {ROWS, COLS}), "/chunked");
    check_every_element(sharded.read_collective<int32_t>(comm, {0, 0}, {ROWS, COLS}), "/sharded");
    check_every_element(sharded.read<int32_t>({0, 0}, {ROWS, COLS}), "/sharded read alone");
    // Every rank reads the next rank's box.
    std::vector<uint64_t> next_start, next_count;
    box((rank + 1) % nranks, next_start, next_count);
    CHECK(chunked.read_collective<int32_t>(comm, next_start, next_count) ==
          box_values(next_start, next_count));

    // Time steps: rank r writes columns [first, last) of each step of a (t, 10) series.
    zarr::Array series = zarr::Array::create_collective(
        comm, store, "/series",
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [0, 10],"
        " \"data_type\": \"float64\", \"fill_value\": \"NaN\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 10]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"},"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
        " \"dimension_names\": [\"time\", \"x\"]}");
    uint64_t first = 0, last = 10;
    if (nranks > 1) {
        first = rank == 0 ? 0 : rank == 1 ? 3 : 10;
        last = rank == 0 ? 3 : 10;
    }
    for (uint64_t t = 0; t < 6; ++t) {
        std::vector<double> step;
        for (uint64_t c = first; c < last; ++c) step.push_back(100.0 * static_cast<double>(t) + static_cast<double>(c));
        series.append_collective(comm, 0, 1, {0, first}, {1, last - first}, step);
    }
    CHECK((series.shape() == std::vector<uint64_t>{6, 10}));
    std::vector<double> history = series.read_collective<double>(comm, {0, 0}, {6, 10});
    for (uint64_t t = 0; t < 6; ++t) {
        for (uint64_t c = 0; c < 10; ++c) {
            if (history[t * 10 + c] != 100.0 * static_cast<double>(t) + static_cast<double>(c)) {
                fail(__LINE__, "series (" + std::to_string(t) + ", " + std::to_string(c) + ")");
            }
        }
    }
    // A wrong element type for an append on the last rank: every rank throws, no growth.
    if (rank == nranks - 1) {
        THROWS(series.append_collective(comm, 0, 1, {0, first}, {1, last - first},
                                        std::vector<float>(last - first)),
               ZARR_ERROR_INVALID_ARGUMENT, "zarr::Array::append_collective");
    } else {
        THROWS(series.append_collective(comm, 0, 1, {0, first}, {1, last - first},
                                        std::vector<double>(last - first)),
               ZARR_ERROR_INVALID_ARGUMENT, "zarr::Array::append_collective");
    }
    CHECK((series.shape() == std::vector<uint64_t>{6, 10}));
    series.set_attributes_collective(comm, "{\"units\": \"K\"}");
    root.consolidate_collective(comm);
    // The communicator is destroyed here, before MPI_Finalize.
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        if (rank == 0) std::fprintf(stderr, "usage: mpirun -np N %s STORE_DIRECTORY\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    try {
        run(argv[1]);
    } catch (const zarr::Error &e) {
        // A collective call threw on every rank alike, so every rank gets here.
        fail(__LINE__, std::string("uncaught zarr::Error, status ") + std::to_string(e.status()) +
                           ": " + e.what());
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (total > 0) {
        if (rank == 0) std::fprintf(stderr, "%d check(s) failed\n", total);
        return 1;
    }
    if (rank == 0) std::printf("test_zarr_hpp_mpi: all checks passed on %d ranks\n", nranks);
    return 0;
}
