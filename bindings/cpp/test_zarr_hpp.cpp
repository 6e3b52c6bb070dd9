// Tests of the C++ binding bindings/cpp/zarr.hpp.
//
// One executable; the case to run is argv[1] (all cases without an argument, `--list`
// prints the names). CMake registers one ctest test per `TCASE(name)` line of the table
// at the bottom. A failed check prints file:line, the expression and, for an exception,
// its status and message, then ends the case.

#include "zarr.hpp"

#include <stdlib.h> // mkdtemp
#include <unistd.h> // getpid

#include <atomic>
#include <cmath>
#include <complex>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// Atomic: the collective cases run their ranks as threads, each of which may fail.
std::atomic<int> failures{0};

// Thrown by a failed check to end the case (after the message has been printed).
struct CaseFailed {};

void fail(const char *file, int line, const std::string &what) {
    std::fprintf(stderr, "%s:%d: %s\n", file, line, what.c_str());
    ++failures;
    throw CaseFailed{};
}

// Checks a condition; an exception escaping the expression is reported with its line.
#define CHECK(expr)                                                                        \
    do {                                                                                   \
        bool ok_ = false;                                                                  \
        try {                                                                              \
            ok_ = static_cast<bool>(expr);                                                 \
        } catch (const zarr::Error &e_) {                                                  \
            fail(__FILE__, __LINE__,                                                       \
                 std::string("check threw: ") + #expr + ": status " +                      \
                     std::to_string(e_.status()) + " (" + e_.status_text() + "): " +       \
                     e_.what());                                                           \
        }                                                                                  \
        if (!ok_) fail(__FILE__, __LINE__, std::string("check failed: ") + #expr);         \
    } while (0)

// Runs a statement that must not throw.
#define NO_THROW(stmt)                                                                     \
    do {                                                                                   \
        try {                                                                              \
            stmt;                                                                          \
        } catch (const zarr::Error &e_) {                                                  \
            fail(__FILE__, __LINE__,                                                       \
                 std::string(#stmt) + " threw status " + std::to_string(e_.status()) +    \
                     " (" + e_.status_text() + "): " + e_.what());                         \
        }                                                                                  \
    } while (0)

// Runs a statement that must throw zarr::Error with the given status and a non-empty
// message containing `needle`.
#define THROWS(stmt, expected, needle)                                                     \
    do {                                                                                   \
        bool thrown_ = false;                                                              \
        try {                                                                              \
            stmt;                                                                          \
        } catch (const zarr::Error &e_) {                                                  \
            thrown_ = true;                                                                \
            if (e_.status() != (expected))                                                 \
                fail(__FILE__, __LINE__,                                                   \
                     std::string(#stmt) + " threw status " + std::to_string(e_.status()) + \
                         " (" + e_.status_text() + "), expected " #expected ": " +         \
                         e_.what());                                                       \
            if (std::string(e_.what()).find(needle) == std::string::npos)                  \
                fail(__FILE__, __LINE__,                                                   \
                     std::string(#stmt) + ": message '" + e_.what() +                      \
                         "' does not contain '" + (needle) + "'");                         \
        }                                                                                  \
        if (!thrown_) fail(__FILE__, __LINE__, std::string(#stmt) + " did not throw");     \
    } while (0)

// A fresh temporary directory, removed when the object is destroyed.
class TempDir {
  public:
    TempDir() {
        const char *base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && base[0] ? base : "/tmp") + "/zarr-cpptest-XXXXXX";
        std::vector<char> buf(pattern.begin(), pattern.end());
        buf.push_back('\0');
        if (mkdtemp(buf.data()) == nullptr) {
            std::perror("mkdtemp");
            std::abort();
        }
        path_ = buf.data();
    }
    ~TempDir() {
        std::error_code ec;
        if (std::getenv("ZTEST_KEEP_TMP") == nullptr) std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

// A v3 array document with the given shape, chunk shape, data type and fill value.
std::string meta(const std::string &shape, const std::string &chunks, const std::string &dtype,
                 const std::string &fill, const std::string &codecs = "") {
    return "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": " + shape +
           ", \"data_type\": \"" + dtype +
           "\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": " +
           chunks +
           "}}, \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": "
           "{\"separator\": \"/\"}}, \"fill_value\": " +
           fill + ", \"codecs\": " +
           (codecs.empty() ? "[{\"name\": \"bytes\", \"configuration\": {\"endian\": "
                             "\"little\"}}, {\"name\": \"zstd\", \"configuration\": "
                             "{\"level\": 1, \"checksum\": false}}]"
                           : codecs) +
           "}";
}

bool contains(const std::string &haystack, const std::string &needle) {
    return haystack.find(needle) != std::string::npos;
}

// Writes a 10 x 7 float array in 4 x 3 chunks, reads it back whole and in parts.
void float_round_trip(zarr::Store &store) {
    std::vector<float> values(70);
    for (size_t i = 0; i < values.size(); i++) values[i] = 0.5f * static_cast<float>(i);
    {
        zarr::Array a = zarr::Array::create(store, "/data/t", meta("[10, 7]", "[4, 3]", "float32", "\"NaN\""));
        CHECK(a.ndim() == 2);
        CHECK((a.shape() == std::vector<uint64_t>{10, 7}));
        CHECK((a.chunk_shape() == std::vector<uint64_t>{4, 3}));
        CHECK((a.inner_chunk_shape() == std::vector<uint64_t>{4, 3}));
        CHECK(a.data_type() == ZARR_DATA_TYPE_FLOAT32);
        CHECK(a.element_size() == 4);
        CHECK(a.chunk_nbytes() == 4 * 3 * 4);
        CHECK(a.inner_chunk_nbytes() == 4 * 3 * 4);
        NO_THROW(a.write({0, 0}, {10, 7}, values));
    }
    // Reopen from the store: the data came through the store, not the handle.
    zarr::Array b = zarr::Array::open(store, "/data/t");
    std::vector<float> all;
    NO_THROW(all = b.read<float>({0, 0}, {10, 7}));
    CHECK(all == values);
    std::vector<float> part;
    NO_THROW(part = b.read<float>({3, 2}, {2, 3}));
    CHECK((part == std::vector<float>{values[23], values[24], values[25], values[30], values[31],
                                      values[32]}));
    // The reuse overload and the raw overload agree.
    std::vector<float> reused(1);
    NO_THROW(b.read({3, 2}, {2, 3}, reused));
    CHECK(reused == part);
    float raw[6] = {0};
    CHECK(b.selection_nbytes({3, 2}, {2, 3}) == sizeof raw);
    NO_THROW(b.read({3, 2}, {2, 3}, raw, sizeof raw));
    CHECK(std::memcmp(raw, part.data(), sizeof raw) == 0);
    // Chunk (1, 2) covers rows 4..7, columns 6..8: column 6 holds data, 7 and 8 fill.
    std::vector<float> chunk;
    NO_THROW(chunk = b.read_chunk<float>({1, 2}));
    CHECK(chunk.size() == 12);
    CHECK(chunk[0] == values[4 * 7 + 6]);
    CHECK(chunk[1] != chunk[1]); // NaN fill past the edge
    std::vector<float> inner;
    NO_THROW(inner = b.read_inner_chunk<float>({1, 2}));
    CHECK(inner.size() == 12 && inner[0] == chunk[0]);
    // write_chunk, then read the region back.
    std::vector<float> ones(12, 1.0f);
    NO_THROW(b.write_chunk({0, 0}, ones));
    NO_THROW(part = b.read<float>({0, 0}, {4, 3}));
    CHECK(part == ones);
    float twos[12];
    for (float &v : twos) v = 2.0f;
    NO_THROW(b.write_chunk({0, 0}, twos, sizeof twos));
    float back[12] = {0};
    NO_THROW(b.read_chunk({0, 0}, back, sizeof back));
    CHECK(std::memcmp(back, twos, sizeof twos) == 0);
    NO_THROW(b.write({0, 0}, {1, 1}, twos, sizeof(float)));
}

void round_trip_filesystem() {
    TempDir dir;
    zarr::Store store = zarr::Store::filesystem(dir.path() + "/fs.zarr");
    CHECK(store);
    float_round_trip(store);
    CHECK(std::filesystem::is_regular_file(dir.path() + "/fs.zarr/data/t/zarr.json"));
    CHECK(std::filesystem::is_regular_file(dir.path() + "/fs.zarr/data/zarr.json"));
}

void round_trip_memory() {
    zarr::Store store = zarr::Store::memory();
    CHECK(store);
    float_round_trip(store);
}

void scalar_and_complex() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array s = zarr::Array::create(store, "/s", meta("[]", "[]", "float64", "1.5"));
    CHECK(s.ndim() == 0 && s.shape().empty());
    std::vector<double> v;
    NO_THROW(v = s.read<double>({}, {}));
    CHECK(v.size() == 1 && v[0] == 1.5);
    NO_THROW(s.write({}, {}, std::vector<double>{-2.0}));
    CHECK(s.read<double>({}, {})[0] == -2.0);

    zarr::Array c = zarr::Array::create(store, "/c", meta("[3]", "[2]", "complex64", "[0.0, 0.0]"));
    std::vector<std::complex<float>> z = {{1, 2}, {3, 4}, {5, 6}};
    NO_THROW(c.write({0}, {3}, z));
    CHECK(c.read<std::complex<float>>({0}, {3}) == z);
}

// The codecs of a 1-byte data type (no `endian`) and zstd.
const char *const ONE_BYTE_ZSTD =
    "[{\"name\": \"bytes\"}, {\"name\": \"zstd\", \"configuration\": {\"level\": 1, "
    "\"checksum\": false}}]";

// int4: codes in, codes out (ml_dtypes' layout: -1 is 0x0f), the conversions to and from
// int8, and a byte with bits above the 4 refused without writing.
void sub_byte_int4() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/q", meta("[2, 8]", "[2, 3]", "int4", "-3",
                                                          ONE_BYTE_ZSTD));
    CHECK(a.data_type() == ZARR_DATA_TYPE_INT4);
    CHECK(a.element_size() == 1);
    CHECK(zarr::data_type_str(a.data_type()) == "int4");
    CHECK(a.fill_value<uint8_t>() == 0x0d); // -3
    std::vector<int8_t> values = {-8, -7, -2, -1, 0, 1, 6, 7, 3, -3, 5, -5, 2, -4, 4, 0};
    std::vector<uint8_t> codes;
    NO_THROW(codes = zarr::int8_to_sub_byte(ZARR_DATA_TYPE_INT4, values));
    CHECK(codes.size() == 16 && codes[0] == 0x08 && codes[3] == 0x0f && codes[7] == 0x07);
    NO_THROW(a.write({0, 0}, {2, 8}, codes));
    std::vector<uint8_t> back;
    NO_THROW(back = a.read<uint8_t>({0, 0}, {2, 8}));
    CHECK(back == codes);
    CHECK(zarr::sub_byte_to_int8(ZARR_DATA_TYPE_INT4, back) == values);
    // A part of a chunk never written reads as the fill value's code.
    zarr::Array b = zarr::Array::create(store, "/b", meta("[4]", "[2]", "int4", "-3", ONE_BYTE_ZSTD));
    NO_THROW(b.write({0}, {1}, std::vector<uint8_t>{0x0f}));
    CHECK((b.read<uint8_t>({0}, {4}) == std::vector<uint8_t>{0x0f, 0x0d, 0x0d, 0x0d}));

    THROWS(zarr::int8_to_sub_byte(ZARR_DATA_TYPE_INT4, std::vector<int8_t>{0, 7, 8}),
           ZARR_ERROR_INVALID_ARGUMENT, "values[2]");
    THROWS(zarr::sub_byte_to_int8(ZARR_DATA_TYPE_FLOAT32, std::vector<uint8_t>{0}),
           ZARR_ERROR_INVALID_ARGUMENT, "float32");
    THROWS(a.write({0, 0}, {1, 2}, std::vector<uint8_t>{0x01, 0x1f}),
           ZARR_ERROR_INVALID_ARGUMENT, "[0, 1]");
    CHECK(a.read<uint8_t>({0, 0}, {2, 8}) == codes);
    // int2 and the unsigned types convert as their ranges say.
    CHECK((zarr::sub_byte_to_int8(ZARR_DATA_TYPE_INT2, {0x00, 0x01, 0x02, 0x03}) ==
           std::vector<int8_t>{0, 1, -2, -1}));
    CHECK((zarr::sub_byte_to_int8(ZARR_DATA_TYPE_UINT4, {0x0f, 0x08}) ==
           std::vector<int8_t>{15, 8}));
    // Bits above the code are ignored when reading codes (the registry's rule for readers).
    CHECK((zarr::sub_byte_to_int8(ZARR_DATA_TYPE_INT4, {0x1f, 0xf8}) ==
           std::vector<int8_t>{-1, -8}));
}

// complex_bfloat16: pairs of bfloat16 bits, fill value [re, im].
void complex_bfloat16_bits() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array c = zarr::Array::create(
        store, "/c", meta("[5]", "[2]", "complex_bfloat16", "[1.0, -2.0]"));
    CHECK(c.data_type() == ZARR_DATA_TYPE_COMPLEX_BFLOAT16);
    CHECK(c.element_size() == 4);
    using CB = zarr::ComplexBits<uint16_t>;
    CHECK((c.fill_value<CB>() == CB{0x3f80, 0xc000}));
    std::vector<CB> z = {{0x4040, 0x0000}, {0x7fc0, 0xff80}, {0x8000, 0x3f00}};
    NO_THROW(c.write({1}, {3}, z));
    std::vector<CB> back;
    NO_THROW(back = c.read<CB>({0}, {5}));
    CHECK(back.size() == 5);
    CHECK((back[0] == CB{0x3f80, 0xc000}) && (back[4] == CB{0x3f80, 0xc000}));
    CHECK(back[1] == z[0] && back[2] == z[1] && back[3] == z[2]);
    // The element type must have the element's 4 bytes.
    THROWS(c.read<std::complex<float>>({0}, {1}), ZARR_ERROR_INVALID_ARGUMENT, "4");
}

void groups_and_attributes() {
    TempDir dir;
    zarr::Store store = zarr::Store::filesystem(dir.path());
    zarr::Group root = zarr::Group::create(store, "/", "{\"title\": \"root\", \"n\": 3}");
    CHECK(contains(root.attributes(), "\"title\":\"root\"") ||
          contains(root.attributes(), "\"title\": \"root\""));
    zarr::Group g = zarr::Group::create(store, "/g");
    CHECK(g.attributes() == "{}");
    NO_THROW(g.set_attributes("{\"units\": \"K\"}"));
    zarr::Group g2 = zarr::Group::open(store, "/g");
    CHECK(contains(g2.attributes(), "units"));
    CHECK(contains(g2.attributes(), "\"K\""));
    THROWS(g2.set_attributes("[1, 2]"), ZARR_ERROR_INVALID_ARGUMENT, "zarr_group_set_attributes_json");
    THROWS(zarr::Group::create(store, "/h", "not json"), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(zarr::Group::create(store, "/g"), ZARR_ERROR_ALREADY_EXISTS, "");
    THROWS(zarr::Group::open(store, "/a/../b"), ZARR_ERROR_INVALID_PATH, "");

    zarr::Array a = zarr::Array::create(store, "/g/a", meta("[4]", "[2]", "int32", "0"));
    CHECK(a.attributes() == "{}");
    NO_THROW(a.set_attributes("{\"scale\": 0.5}"));
    CHECK(contains(zarr::Array::open(store, "/g/a").attributes(), "scale"));
    CHECK(contains(a.metadata(), "\"node_type\""));
    CHECK(contains(a.metadata(), "int32"));
    THROWS(a.set_attributes("3"), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(zarr::Group::open(store, "/g/a"), ZARR_ERROR_NODE_TYPE_MISMATCH, "");
    THROWS(zarr::Array::open(store, "/g"), ZARR_ERROR_NODE_TYPE_MISMATCH, "");
    // A NUL byte inside a std::string is refused instead of silently truncating.
    THROWS(zarr::Group::open(store, std::string("/g\0x", 4)), ZARR_ERROR_INVALID_ARGUMENT, "NUL");
}

void children_listing() {
    zarr::Store store = zarr::Store::memory();
    zarr::Group root = zarr::Group::create(store, "/");
    CHECK(root.children_json() == "[]");
    zarr::Group::create(store, "/b");
    zarr::Array::create(store, "/a", meta("[2]", "[2]", "uint8", "0"));
    zarr::Group::create(store, "/b/deep");
    std::string children = root.children_json();
    size_t pa = children.find("\"/a\""), pb = children.find("\"/b\"");
    CHECK(pa != std::string::npos && pb != std::string::npos && pa < pb);
    CHECK(contains(children, "\"array\"") && contains(children, "\"group\""));
    CHECK(!contains(children, "deep"));
    CHECK(contains(zarr::Group::open(store, "/b").children_json(), "\"/b/deep\""));
}

void v2_consolidated_descendants() {
    zarr::Store store = zarr::Store::memory();
    zarr::Group root = zarr::Group::create_with_format(store, "/", 2, R"({"t": 1})");
    CHECK(root.format() == 2);
    zarr::Array a = zarr::Array::create(
        store, "/g/a",
        R"({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": ">i4",
            "compressor": null, "filters": null, "fill_value": 0, "order": "C"})");
    CHECK(a.format() == 2);
    std::vector<int32_t> values = {1, -2, 3, -4};
    NO_THROW(a.write<int32_t>({0}, {4}, values));
    CHECK(contains(root.descendants_json(), "\"/g/a\""));
    NO_THROW(root.consolidate());
    zarr::Store view = zarr::Store::consolidated(store);
    CHECK(zarr::Array::open(view, "/g/a").read<int32_t>({0}, {4}) == values);
    zarr::Store plain = zarr::Store::memory();
    THROWS(zarr::Store::consolidated(plain), ZARR_ERROR_NOT_FOUND, "consolidated");
}

void zip_store_errors() {
    TempDir dir;
    THROWS(zarr::Store::zip(dir.path() + "/missing.zip"), ZARR_ERROR_NOT_FOUND, "missing.zip");
    std::string not_zip = dir.path() + "/not.zip";
    std::ofstream(not_zip) << "this is not a zip archive";
    THROWS(zarr::Store::zip(not_zip), ZARR_ERROR_CORRUPT_DATA, "zip");
}

void move_semantics() {
    zarr::Store store = zarr::Store::memory();
    zarr_store *raw = store.get();
    zarr::Store moved(std::move(store));
    CHECK(moved.get() == raw);
    CHECK(!store && store.get() == nullptr); // moved-from is empty
    // Calling into a moved-from handle throws the C library's NULL_ARGUMENT, no crash.
    THROWS(zarr::Array::open(store, "/x"), ZARR_ERROR_NULL_ARGUMENT, "store");

    zarr::Array a = zarr::Array::create(moved, "/a", meta("[4]", "[4]", "int16", "7"));
    zarr::Array b;
    CHECK(!b);
    b = std::move(a);
    CHECK(!a && b);
    THROWS(a.ndim(), ZARR_ERROR_NULL_ARGUMENT, "");
    THROWS(a.shape(), ZARR_ERROR_NULL_ARGUMENT, "");
    THROWS(a.metadata(), ZARR_ERROR_NULL_ARGUMENT, "");
    CHECK((b.read<int16_t>({0}, {4}) == std::vector<int16_t>{7, 7, 7, 7}));
    // Move-assigning over a live handle frees the old one (valgrind sees no leak).
    zarr::Array c = zarr::Array::create(moved, "/c", meta("[1]", "[1]", "int16", "0"));
    c = std::move(b);
    CHECK(c.shape() == std::vector<uint64_t>{4});
    zarr::Array &alias = c;
    c = std::move(alias); // self-move leaves it usable
    CHECK(c);

    zarr::Group g = zarr::Group::create(moved, "/g");
    zarr::Group h(std::move(g));
    CHECK(!g && h);
    THROWS(g.attributes(), ZARR_ERROR_NULL_ARGUMENT, "");

    // release() / adopting a raw pointer.
    zarr_array *r = c.release();
    CHECK(!c && r != nullptr);
    zarr::Array adopted(r);
    CHECK(adopted.ndim() == 1);
    adopted.reset();
    CHECK(!adopted);
}

void free_in_any_order() {
    // Store first, then the group, then the array: children keep the store alive.
    zarr::Array *array = nullptr;
    zarr::Group *group = nullptr;
    {
        auto *store = new zarr::Store(zarr::Store::memory());
        group = new zarr::Group(zarr::Group::create(*store, "/g", "{\"k\": 1}"));
        array = new zarr::Array(zarr::Array::create(*store, "/g/a", meta("[3]", "[3]", "uint32", "0")));
        array->write({0}, {3}, std::vector<uint32_t>{1, 2, 3});
        delete store;
    }
    CHECK(contains(group->attributes(), "\"k\""));
    delete group;
    CHECK((array->read<uint32_t>({0}, {3}) == std::vector<uint32_t>{1, 2, 3}));
    delete array;

    // The reverse order.
    auto *store = new zarr::Store(zarr::Store::memory());
    auto *a = new zarr::Array(zarr::Array::create(*store, "/a", meta("[3]", "[3]", "uint32", "0")));
    auto *g = new zarr::Group(zarr::Group::open(*store, "/"));
    delete a;
    delete g;
    CHECK(zarr::Group::open(*store, "/").children_json() != "[]");
    delete store;
}

void error_not_found() {
    TempDir dir;
    zarr::Store store = zarr::Store::filesystem(dir.path());
    THROWS(zarr::Array::open(store, "/missing"), ZARR_ERROR_NOT_FOUND, "zarr_array_open");
    THROWS(zarr::Group::open(store, "/missing"), ZARR_ERROR_NOT_FOUND, "zarr_group_open");
    THROWS(zarr::Array::open(zarr::Store::memory(), "/"), ZARR_ERROR_NOT_FOUND, "");
    // The message is the C library's, captured right away: it matches the C function.
    try {
        zarr::Array::open(store, "/missing");
    } catch (const zarr::Error &e) {
        CHECK(e.status() == ZARR_ERROR_NOT_FOUND);
        CHECK(std::string(e.what()) == zarr::last_error_message());
        CHECK(std::string(e.status_text()) == zarr::status_str(ZARR_ERROR_NOT_FOUND));
    }
}

void error_invalid_metadata() {
    TempDir dir;
    zarr::Store store = zarr::Store::filesystem(dir.path());
    // A caller-given document that is not JSON.
    THROWS(zarr::Array::create(store, "/a", "{\"zarr_format\": 3,"), ZARR_ERROR_INVALID_METADATA,
           "zarr_array_create");
    // A zarr.json on disk that is not a valid document.
    std::filesystem::create_directories(dir.path() + "/bad");
    {
        std::ofstream f(dir.path() + "/bad/zarr.json");
        f << "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": \"oops\"}";
    }
    THROWS(zarr::Array::open(store, "/bad"), ZARR_ERROR_INVALID_METADATA, "zarr_array_open");
    // children_json reports a child's malformed zarr.json.
    {
        std::ofstream f(dir.path() + "/bad/zarr.json");
        f << "not json at all";
    }
    zarr::Group root = zarr::Group::create(store, "/");
    THROWS(root.children_json(), ZARR_ERROR_INVALID_METADATA, "");
}

void error_wrong_element_type() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/a", meta("[4]", "[2]", "float32", "0.0"));
    THROWS(a.read<double>({0}, {4}), ZARR_ERROR_INVALID_ARGUMENT, "4");
    THROWS(a.write({0}, {4}, std::vector<double>(4)), ZARR_ERROR_INVALID_ARGUMENT, "8 bytes");
    THROWS(a.read_chunk<uint8_t>({0}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.write_chunk({0}, std::vector<int16_t>(4)), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.read_inner_chunk<int64_t>({0}), ZARR_ERROR_INVALID_ARGUMENT, "");
    std::vector<double> out;
    THROWS(a.read({0}, {4}, out), ZARR_ERROR_INVALID_ARGUMENT, "");
    // Same size, other type: allowed (the header checks sizes, as the C API does).
    CHECK(a.read<int32_t>({0}, {4}).size() == 4);
    // Wrong rank and mismatched index vectors.
    THROWS(a.read<float>({0, 0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.read<float>({0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT, "start has 1");
    // A wrong-sized typed write reaches the C size check.
    THROWS(a.write({0}, {4}, std::vector<float>(3)), ZARR_ERROR_BUFFER_SIZE_MISMATCH, "");
    float small[2];
    THROWS(a.read({0}, {4}, small, sizeof small), ZARR_ERROR_BUFFER_TOO_SMALL, "");
}

void error_out_of_bounds() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/a", meta("[4, 4]", "[2, 2]", "uint16", "0"));
    THROWS(a.read<uint16_t>({3, 0}, {2, 1}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    THROWS(a.selection_nbytes({0, 0}, {5, 1}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    THROWS(a.write({4, 4}, {1, 1}, std::vector<uint16_t>(1)), ZARR_ERROR_OUT_OF_BOUNDS, "");
    THROWS(a.read_chunk<uint16_t>({2, 0}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    THROWS(a.write_chunk({0, 2}, std::vector<uint16_t>(4)), ZARR_ERROR_OUT_OF_BOUNDS, "");
    THROWS(a.read_inner_chunk<uint16_t>({0, 9}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    // After the failures the array still works.
    CHECK((a.read<uint16_t>({3, 3}, {1, 1}) == std::vector<uint16_t>{0}));
}

// read_double converts int16 (with the fill value of a chunk never written), uint64 and
// float32 to double; complex is TYPE_MISMATCH naming the type, a selection out of the
// array OUT_OF_BOUNDS, an empty one an empty vector; fill_value_double converts too.
void read_double_converts() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array i16 = zarr::Array::create(store, "/i16", meta("[2, 3]", "[1, 3]", "int16", "-32767"));
    i16.write<int16_t>({0, 0}, {1, 3}, {-32768, 0, 32767});
    CHECK((i16.read_double({0, 0}, {2, 3}) ==
           std::vector<double>{-32768.0, 0.0, 32767.0, -32767.0, -32767.0, -32767.0}));
    CHECK((i16.read_double({0, 1}, {1, 2}) == std::vector<double>{0.0, 32767.0}));
    CHECK(i16.read_double({0, 0}, {0, 3}).empty());
    CHECK(i16.fill_value_double() == -32767.0);
    zarr::Array u64 = zarr::Array::create(store, "/u64", meta("[2]", "[2]", "uint64", "0"));
    u64.write<uint64_t>({0}, {2}, {std::numeric_limits<uint64_t>::max(), 5});
    CHECK((u64.read_double({0}, {2}) == std::vector<double>{18446744073709551616.0, 5.0}));
    zarr::Array f32 = zarr::Array::create(store, "/f32", meta("[2]", "[2]", "float32", "\"NaN\""));
    f32.write<float>({0}, {2}, {0.1f, -2.5f});
    CHECK((f32.read_double({0}, {2}) == std::vector<double>{static_cast<double>(0.1f), -2.5}));
    CHECK(std::isnan(f32.fill_value_double()));
    zarr::Array c64 = zarr::Array::create(store, "/c64", meta("[2]", "[2]", "complex64", "[0.0, 0.0]"));
    THROWS(c64.read_double({0}, {2}), ZARR_ERROR_TYPE_MISMATCH, "data type complex64 does not convert");
    THROWS(c64.fill_value_double(), ZARR_ERROR_TYPE_MISMATCH, "complex64");
    THROWS(i16.read_double({1, 0}, {2, 3}), ZARR_ERROR_OUT_OF_BOUNDS, "exceeds extent");
    THROWS(i16.read_double({0}, {2}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(i16.read_double({0, 0}, {std::numeric_limits<uint64_t>::max(), 2}),
           ZARR_ERROR_INVALID_ARGUMENT, "overflows");
}

void sharded_inner_chunks() {
    zarr::Store store = zarr::Store::memory();
    std::string codecs =
        "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2], "
        "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
        "\"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
        "{\"name\": \"crc32c\"}]}}]";
    zarr::Array a = zarr::Array::create(store, "/s", meta("[4, 4]", "[4, 4]", "int64", "0", codecs));
    CHECK((a.inner_chunk_shape() == std::vector<uint64_t>{2, 2}));
    CHECK(a.inner_chunk_nbytes() == 2 * 2 * 8);
    std::vector<int64_t> v(16);
    for (size_t i = 0; i < v.size(); i++) v[i] = static_cast<int64_t>(i);
    NO_THROW(a.write({0, 0}, {4, 4}, v));
    CHECK((a.read_inner_chunk<int64_t>({1, 1}) == std::vector<int64_t>{10, 11, 14, 15}));
}

void threads_and_version() {
    size_t before = zarr::thread_pool_size();
    CHECK(before >= 1);
    NO_THROW(zarr::set_thread_pool_size(2));
    CHECK(zarr::thread_pool_size() == 2);
    NO_THROW(zarr::set_thread_pool_size(0));
    CHECK(zarr::thread_pool_size() >= 1);
    CHECK(zarr::version() == ZARR_VERSION_STRING);
    CHECK(zarr::version_number() ==
          static_cast<uint32_t>(ZARR_VERSION_MAJOR * 10000 + ZARR_VERSION_MINOR * 100 +
                                ZARR_VERSION_PATCH));
    CHECK(std::string(zarr::status_str(12345)) == "unknown status");
}

void accessors_and_attributes() {
    zarr::Store store = zarr::Store::memory();
    zarr::Group root = zarr::Group::create(store, "/");
    zarr::Array a = zarr::Array::create(
        store, "/t",
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4, 6], \"data_type\": "
        "\"float64\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
        "{\"chunk_shape\": [2, 3]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
        "\"fill_value\": -2.5, \"codecs\": [{\"name\": \"bytes\", \"configuration\": "
        "{\"endian\": \"little\"}}, {\"name\": \"gzip\", \"configuration\": {\"level\": 2}}], "
        "\"dimension_names\": [\"lat\", null]}");
    CHECK(a.dimension_name(0) == std::optional<std::string>("lat"));
    CHECK(!a.dimension_name(1).has_value());
    CHECK(a.dimension_names().size() == 2);
    THROWS(a.dimension_name(2), ZARR_ERROR_OUT_OF_BOUNDS, "dimension");
    CHECK(a.fill_value<double>() == -2.5);
    THROWS(a.fill_value<float>(), ZARR_ERROR_INVALID_ARGUMENT, "element");
    CHECK((a.codec_names() == std::vector<std::string>{"bytes", "gzip"}));
    CHECK(a.codec_configuration_json(1).find("\"level\":2") != std::string::npos);
    THROWS(a.codec_configuration_json(2), ZARR_ERROR_OUT_OF_BOUNDS, "codec");
    a.set_attribute_string("units", "K");
    a.set_attribute_double("scale", 0.5);
    a.set_attribute_int64("n", 3);
    a.set_attribute_doubles("range", {1.0, 2.0});
    a.set_attribute_int64s("ids", {7, 8, 9});
    zarr::Array again = zarr::Array::open(store, "/t");
    CHECK(again.attribute_string("units") == "K");
    CHECK(again.attribute_double("scale") == 0.5);
    CHECK(again.attribute_double("n") == 3.0);
    CHECK(again.attribute_int64("n") == 3);
    CHECK((again.attribute_doubles("range") == std::vector<double>{1.0, 2.0}));
    CHECK((again.attribute_int64s("ids") == std::vector<int64_t>{7, 8, 9}));
    CHECK((again.attribute_names() ==
           std::vector<std::string>{"units", "scale", "n", "range", "ids"}));
    THROWS(again.attribute_int64("scale"), ZARR_ERROR_TYPE_MISMATCH, "scale");
    THROWS(again.attribute_string("missing"), ZARR_ERROR_NOT_FOUND, "missing");
    a.delete_attribute("n");
    THROWS(a.delete_attribute("n"), ZARR_ERROR_NOT_FOUND, "n");
    root.set_attribute_string("title", "t");
    CHECK(zarr::Group::open(store, "/").attribute_string("title") == "t");
    std::vector<zarr::Child> children = root.children();
    CHECK(children.size() == 1 && children[0].name == "t" &&
          children[0].node_type == ZARR_NODE_TYPE_ARRAY);
    a.write<double>({0, 0}, {2, 3}, std::vector<double>(6, 1.0));
    CHECK(a.chunk_stored_nbytes({0, 0}).has_value());
    CHECK(!a.chunk_stored_nbytes({1, 1}).has_value());
    a.erase_chunk({0, 0});
    CHECK(!a.chunk_stored_nbytes({0, 0}).has_value());
    THROWS(a.erase_chunk({5, 0}), ZARR_ERROR_OUT_OF_BOUNDS, "chunk");
    store.delete_node("/t");
    CHECK(root.children().empty());
    THROWS(store.delete_node("/"), ZARR_ERROR_INVALID_ARGUMENT, "root");
    THROWS(store.delete_node("/t"), ZARR_ERROR_NOT_FOUND, "/t");
}

void array_builder() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::ArrayBuilder(ZARR_DATA_TYPE_INT32, {8, 8})
                        .chunk_shape({2, 2})
                        .shard_shape({4, 4})
                        .fill_value<int32_t>(-1)
                        .zstd(2)
                        .dimension_name(0, std::string("y"))
                        .dimension_name(1, std::string("x"))
                        .attribute_string("units", "counts")
                        .create(store, "/b");
    CHECK((a.inner_chunk_shape() == std::vector<uint64_t>{2, 2}));
    CHECK((a.chunk_shape() == std::vector<uint64_t>{4, 4}));
    CHECK(a.fill_value<int32_t>() == -1);
    CHECK(a.dimension_name(1) == std::optional<std::string>("x"));
    CHECK(a.attribute_string("units") == "counts");
    CHECK(a.format() == 3);
    zarr::Array v2 = zarr::ArrayBuilder(ZARR_DATA_TYPE_UINT8, {3}).format(2).gzip(1).create(store, "/v2");
    CHECK(v2.format() == 2);
    CHECK((v2.codec_names() == std::vector<std::string>{"bytes", "numcodecs.gzip"}));
    THROWS(zarr::ArrayBuilder(ZARR_DATA_TYPE_RAW, {3}), ZARR_ERROR_INVALID_ARGUMENT, "RAW");
    zarr::ArrayBuilder b(ZARR_DATA_TYPE_UINT8, {3});
    THROWS(b.codec("nope"), ZARR_ERROR_UNSUPPORTED, "nope");
    THROWS(b.gzip(12), ZARR_ERROR_INVALID_ARGUMENT, "gzip");
    THROWS(b.fill_value<uint16_t>(1), ZARR_ERROR_BUFFER_SIZE_MISMATCH, "bytes");
    THROWS(b.create(store, "/b"), ZARR_ERROR_ALREADY_EXISTS, "/b");
}

// A StoreBackend over a std::map, counting calls.
class MapBackend : public zarr::StoreBackend {
  public:
    std::optional<std::vector<uint8_t>> get(const std::string &key) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ++gets;
        if (fail_next) {
            fail_next = false;
            throw zarr::Error(ZARR_ERROR_IO, "backend says: device full");
        }
        auto it = values_.find(key);
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }
    void set(const std::string &key, const uint8_t *data, size_t len) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (throw_std) throw std::runtime_error("std exception in set");
        values_[key] = std::vector<uint8_t>(data, data + len);
    }
    void erase(const std::string &key) override {
        std::lock_guard<std::mutex> lock(mutex_);
        values_.erase(key);
    }
    std::vector<std::string> list(const std::string &prefix) override {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<std::string> keys;
        for (const auto &kv : values_)
            if (kv.first.compare(0, prefix.size(), prefix) == 0) keys.push_back(kv.first);
        return keys;
    }
    size_t gets = 0;
    bool fail_next = false;
    bool throw_std = false;

  private:
    std::mutex mutex_;
    std::map<std::string, std::vector<uint8_t>> values_;
};

void callback_store() {
    auto backend = std::make_shared<MapBackend>();
    {
        zarr::Store store = zarr::Store::callbacks(backend);
        zarr::Array a = zarr::ArrayBuilder(ZARR_DATA_TYPE_UINT16, {16})
                            .chunk_shape({4})
                            .shard_shape({8})
                            .create(store, "/s");
        std::vector<uint16_t> values(16);
        for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint16_t>(i * 11);
        a.write<uint16_t>({0}, {16}, values);
        CHECK(zarr::Array::open(store, "/s").read<uint16_t>({0}, {16}) == values);
        CHECK(a.read<uint16_t>({9}, {1}) == std::vector<uint16_t>{99});
        CHECK(zarr::Group::open(store, "/").children().size() == 1);
        backend->fail_next = true;
        THROWS(zarr::Array::open(store, "/s"), ZARR_ERROR_IO, "device full");
        backend->throw_std = true;
        THROWS(a.write<uint16_t>({0}, {16}, values), ZARR_ERROR_IO, "std exception in set");
        backend->throw_std = false;
        store.delete_node("/s");
        THROWS(zarr::Array::open(store, "/s"), ZARR_ERROR_NOT_FOUND, "/s");
    }
    // The store and its arrays are gone: the library let go of the backend.
    CHECK(backend.use_count() == 1);
    THROWS(zarr::Store::callbacks(nullptr), ZARR_ERROR_NULL_ARGUMENT, "backend");
}

// zarr::Store::url with a file URL and a plain path; its errors.
void store_url_file() {
    TempDir dir;
    {
        THROWS(zarr::Store::url("file://" + dir.path() + "/url.zarr"), ZARR_ERROR_NOT_FOUND,
               "does not exist");
        zarr::Store store = zarr::Store::url("file://" + dir.path() + "/url.zarr", "{\"create\": true}");
        float_round_trip(store);
    }
    zarr::Store again = zarr::Store::url(dir.path() + "/url.zarr", "{\"read_only\": true}");
    zarr::Array a = zarr::Array::open(again, "/data/t");
    CHECK(a.read<float>({9, 6}, {1, 1}) == std::vector<float>{0.5f * 69});
    THROWS(zarr::Array::create(again, "/x", meta("[2]", "[2]", "int8", "0")),
           ZARR_ERROR_READ_ONLY, "read-only");
    THROWS(zarr::Store::url("s3://bucket", "{\"colour\": 1}"), ZARR_ERROR_INVALID_ARGUMENT,
           "unknown option 'colour'");
    THROWS(zarr::Store::url("s3://bucket", "{\"max_retries\": \"3\"}"),
           ZARR_ERROR_INVALID_ARGUMENT, "'max_retries' must be an integer");
    THROWS(zarr::Store::url("ftp://host/x"), ZARR_ERROR_UNSUPPORTED, "scheme 'ftp'");
    THROWS(zarr::Store::url("gs://bucket/x", "{\"region\": \"eu\"}"), ZARR_ERROR_INVALID_ARGUMENT,
           "'region' does not apply to gs:// URLs");
    THROWS(zarr::Store::url("az://container/x", "{\"token\": \"t\"}"), ZARR_ERROR_INVALID_ARGUMENT,
           "'token' does not apply to az://");
    THROWS(zarr::Store::url("http://"), ZARR_ERROR_INVALID_ARGUMENT, "malformed URL");
}

// zarr::Store::url against moto's S3 on 127.0.0.1 (ctest fixture url_servers; the
// endpoint comes as ZARR_TEST_MOTO, set by ctest from the servers' environment file).
void store_url_s3() {
    const char *endpoint = std::getenv("ZARR_TEST_MOTO");
    CHECK(endpoint != nullptr);
    std::string options = std::string("{\"endpoint\": \"") + endpoint +
                          "\", \"access_key_id\": \"test\", \"secret_access_key\": \"test\"}";
    std::string url = "s3://zarr-test/cpp-" + std::to_string(static_cast<long>(getpid())) + "-" +
                      std::to_string(static_cast<long>(std::time(nullptr)));
    {
        zarr::Store store = zarr::Store::url(url, options);
        float_round_trip(store);
    }
    zarr::Store store = zarr::Store::url(url, options);
    zarr::Array a = zarr::Array::open(store, "/data/t");
    CHECK(a.read<float>({9, 6}, {1, 1}) == std::vector<float>{0.5f * 69});
    THROWS(zarr::Array::open(store, "/missing"), ZARR_ERROR_NOT_FOUND, "");
    zarr::Store denied = zarr::Store::url(url, std::string("{\"endpoint\": \"") + endpoint +
                                                   "\", \"anonymous\": true}");
    THROWS(zarr::Array::open(denied, "/data/t"), ZARR_ERROR_ACCESS_DENIED, "HTTP 403");
}

// A 5 x 7 int32 array in 2 x 3 chunks holding 100 * row + column, fill value -9.
zarr::Array grid_5x7(zarr::Store &store, const std::string &path) {
    zarr::Array a = zarr::Array::create(store, path, meta("[5, 7]", "[2, 3]", "int32", "-9"));
    std::vector<int32_t> values(35);
    for (int32_t i = 0; i < 5; ++i)
        for (int32_t j = 0; j < 7; ++j) values[static_cast<size_t>(i * 7 + j)] = 100 * i + j;
    a.write({0, 0}, {5, 7}, values);
    return a;
}

// read_fortran and the strided reads against a plain (C order) read transposed by hand.
void strided_read_fortran() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = grid_5x7(store, "/g");
    std::vector<int32_t> plain = a.read<int32_t>({1, 2}, {3, 4}); // crosses chunk edges
    CHECK(plain.size() == 12 && plain[0] == 102 && plain[11] == 305);
    std::vector<int32_t> transposed(12);
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 4; ++j) transposed[i + 3 * j] = plain[i * 4 + j];
    std::vector<int32_t> f;
    NO_THROW(f = a.read_fortran<int32_t>({1, 2}, {3, 4}));
    CHECK(f == transposed);
    CHECK(f != plain); // the orders differ: the check above can tell them apart
    CHECK(f[1] == 202 && f[3] == 103);
    // Typed strided read into a column-major buffer with leading dimension 5 (rows 3, 4
    // of each column are padding, never written).
    std::vector<int32_t> lead(5 * 4, 77);
    NO_THROW(a.read_strided({1, 2}, {3, 4}, lead.data(), lead.size(), {1, 5}));
    for (size_t i = 0; i < 5; ++i)
        for (size_t j = 0; j < 4; ++j)
            CHECK(lead[i + 5 * j] == (i < 3 ? plain[i * 4 + j] : 77));
    // The raw form with byte strides: C order, so it equals the plain read.
    std::vector<int32_t> raw(12, 0);
    NO_THROW(a.read_strided({1, 2}, {3, 4}, {16, 4}, raw.data(), raw.size() * 4));
    CHECK(raw == plain);
    // 1-d and 3-d: Fortran order of a 1-d selection is the plain order.
    zarr::Array c = zarr::Array::create(store, "/c", meta("[2, 3, 4]", "[1, 2, 3]", "uint16", "0"));
    std::vector<uint16_t> cube(24);
    for (size_t k = 0; k < cube.size(); ++k) cube[k] = static_cast<uint16_t>(k);
    NO_THROW(c.write({0, 0, 0}, {2, 3, 4}, cube));
    std::vector<uint16_t> cf = c.read_fortran<uint16_t>({0, 0, 0}, {2, 3, 4});
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 3; ++j)
            for (size_t k = 0; k < 4; ++k) CHECK(cf[i + 2 * j + 6 * k] == cube[i * 12 + j * 4 + k]);
    // write_fortran is read_fortran's inverse.
    std::vector<uint16_t> back(cf.rbegin(), cf.rend());
    NO_THROW(c.write_fortran({0, 0, 0}, {2, 3, 4}, back));
    CHECK(c.read_fortran<uint16_t>({0, 0, 0}, {2, 3, 4}) == back);
    CHECK(c.read<uint16_t>({1, 2, 3}, {1, 1, 1})[0] == back[1 + 2 * 2 + 6 * 3]);
    THROWS(c.write_fortran({0, 0, 0}, {2, 3, 4}, std::vector<uint16_t>(23)),
           ZARR_ERROR_BUFFER_SIZE_MISMATCH, "23 values");
    // An empty selection reads as an empty vector.
    std::vector<int32_t> none{1};
    NO_THROW(none = a.read_fortran<int32_t>({1, 2}, {0, 4}));
    CHECK(none.empty());
    // Errors: element type, rank, mismatched lengths, overlapping strides, short buffer.
    THROWS(a.read_fortran<int64_t>({0, 0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT, "8 bytes");
    THROWS(a.read_fortran<int32_t>({0}, {1}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.read_fortran<int32_t>({0, 0, 0}, {1, 1, 1}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.read_strided({0, 0}, {2, 2}, lead.data(), lead.size(), {1}),
           ZARR_ERROR_INVALID_ARGUMENT, "strides 1");
    THROWS(a.read_strided({0, 0}, {2, 2}, lead.data(), lead.size(), {1, 1}),
           ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.read_strided({0, 0}, {2, 2}, lead.data(), 3, {1, 2}), ZARR_ERROR_BUFFER_TOO_SMALL, "");
    THROWS(a.read_strided({0, 0}, {2, 2}, lead.data(), lead.size(),
                          {1, std::numeric_limits<int64_t>::max() / 2}),
           ZARR_ERROR_INVALID_ARGUMENT, "overflows in bytes");
    THROWS(a.read_strided({4, 0}, {2, 1}, lead.data(), lead.size(), {1, 2}),
           ZARR_ERROR_OUT_OF_BOUNDS, "");
}

// write_strided from a buffer of padded rows: the padding never reaches the array.
void strided_write_padded() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/p", meta("[4, 6]", "[3, 4]", "int32", "0"));
    // A 3 x 4 block in rows of 6 (2 padding elements each, holding -1).
    std::vector<int32_t> padded(3 * 6, -1);
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 4; ++j) padded[i * 6 + j] = static_cast<int32_t>(10 * i + j + 1);
    // The span is 2 * 6 + 3 + 1 = 16 elements: the last row's padding is not needed.
    NO_THROW(a.write_strided({1, 1}, {3, 4}, padded.data(), 16, {6, 1}));
    std::vector<int32_t> all = a.read<int32_t>({0, 0}, {4, 6});
    for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 6; ++j) {
            bool inside = i >= 1 && j >= 1 && j <= 4;
            int32_t expected = inside ? static_cast<int32_t>(10 * (i - 1) + (j - 1) + 1) : 0;
            CHECK(all[i * 6 + j] == expected);
        }
    // The raw form: a column of the block, from every other int64 of a buffer (byte
    // stride 16), into an int64 array.
    zarr::Array b = zarr::Array::create(store, "/b", meta("[5]", "[2]", "int64", "0"));
    int64_t sparse[10] = {1, -1, 2, -1, 3, -1, 4, -1, 5, -1};
    NO_THROW(b.write_strided({0}, {5}, {16}, sparse, 9 * sizeof(int64_t)));
    CHECK((b.read<int64_t>({0}, {5}) == std::vector<int64_t>{1, 2, 3, 4, 5}));
    // Elements may share bytes when writing: stride 0 is refused, but a broadcast along a
    // dimension of count 1 is fine; a short buffer and a wrong type are refused.
    THROWS(b.write_strided({0}, {5}, {0}, sparse, sizeof sparse), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(b.write_strided({0}, {5}, {16}, sparse, 8 * sizeof(int64_t)),
           ZARR_ERROR_BUFFER_TOO_SMALL, "");
    THROWS(a.write_strided({0, 0}, {1, 1}, sparse, 10, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT,
           "8 bytes");
    THROWS(a.write_strided({0, 0}, {1, 1}, padded.data(), padded.size(), {1, 1, 1}),
           ZARR_ERROR_INVALID_ARGUMENT, "strides 3");
    CHECK((b.read<int64_t>({0}, {5}) == std::vector<int64_t>{1, 2, 3, 4, 5}));
}

// resize: shrink, then grow; elements past the old edge read as the fill value.
void resize_grow_shrink() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/r", meta("[4, 4]", "[3, 3]", "int16", "9"));
    std::vector<int16_t> values(16);
    for (size_t k = 0; k < values.size(); ++k) values[k] = static_cast<int16_t>(k + 1);
    a.write({0, 0}, {4, 4}, values);
    NO_THROW(a.resize({2, 3}));
    CHECK((a.shape() == std::vector<uint64_t>{2, 3}));
    CHECK((a.read<int16_t>({0, 0}, {2, 3}) == std::vector<int16_t>{1, 2, 3, 5, 6, 7}));
    THROWS(a.read<int16_t>({2, 0}, {1, 1}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    CHECK((zarr::Array::open(store, "/r").shape() == std::vector<uint64_t>{2, 3}));
    // Grow past the original shape: rows 2.. and columns 3.. are fill, also inside chunk
    // (0, 0), which held 9 .. 11 in row 2 before the shrink.
    NO_THROW(a.resize({5, 5}));
    CHECK((a.shape() == std::vector<uint64_t>{5, 5}));
    std::vector<int16_t> all = a.read<int16_t>({0, 0}, {5, 5});
    for (size_t i = 0; i < 5; ++i)
        for (size_t j = 0; j < 5; ++j) {
            int16_t expected = i < 2 && j < 3 ? static_cast<int16_t>(i * 4 + j + 1) : int16_t{9};
            CHECK(all[i * 5 + j] == expected);
        }
    zarr::Array again = zarr::Array::open(store, "/r");
    CHECK((again.shape() == std::vector<uint64_t>{5, 5}));
    CHECK(again.read<int16_t>({0, 0}, {5, 5}) == all);
    THROWS(a.resize({5}), ZARR_ERROR_INVALID_ARGUMENT, "");
    CHECK((a.shape() == std::vector<uint64_t>{5, 5}));
}

// append along either dimension; its argument checks.
void append_blocks() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/t", meta("[2, 3]", "[2, 2]", "float64", "0.0"));
    a.write<double>({0, 0}, {2, 3}, {1, 2, 3, 4, 5, 6});
    NO_THROW(a.append<double>({1, 3}, 0, {7, 8, 9}));
    CHECK((a.shape() == std::vector<uint64_t>{3, 3}));
    NO_THROW(a.append<double>({3, 1}, 1, {-1, -2, -3}));
    CHECK((a.shape() == std::vector<uint64_t>{3, 4}));
    CHECK((a.read<double>({0, 0}, {3, 4}) ==
           std::vector<double>{1, 2, 3, -1, 4, 5, 6, -2, 7, 8, 9, -3}));
    double raw[4] = {10, 11, 12, 13};
    NO_THROW(a.append({1, 4}, 0, raw, sizeof raw));
    CHECK((zarr::Array::open(store, "/t").read<double>({3, 0}, {1, 4}) ==
           std::vector<double>{10, 11, 12, 13}));
    // count must match the shape elsewhere; dim below the rank; exact buffer size; type.
    THROWS(a.append<double>({1, 3}, 0, {0, 0, 0}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.append<double>({1, 4}, 2, {0, 0, 0, 0}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(a.append<double>({1, 4}, 0, {0, 0, 0}), ZARR_ERROR_BUFFER_SIZE_MISMATCH, "");
    THROWS(a.append<float>({1, 4}, 0, {0, 0, 0, 0}), ZARR_ERROR_INVALID_ARGUMENT, "4 bytes");
    CHECK((a.shape() == std::vector<uint64_t>{4, 4}));
}

const char *const strings_v3 =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [3, 4],"
    " \"data_type\": \"string\", \"chunk_grid\": {\"name\": \"regular\","
    " \"configuration\": {\"chunk_shape\": [2, 2]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
    " \"codecs\": [{\"name\": \"vlen-utf8\"}, {\"name\": \"zstd\","
    " \"configuration\": {\"level\": 3, \"checksum\": false}}]}";

const char *const bytes_v3 =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5],"
    " \"data_type\": \"bytes\", \"chunk_grid\": {\"name\": \"regular\","
    " \"configuration\": {\"chunk_shape\": [2]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","
    " \"codecs\": [{\"name\": \"vlen-bytes\"}]}";

// write_strings / read_strings on a v3 string array and a v3 bytes array.
void strings_round_trip() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/s", strings_v3);
    CHECK(a.data_type() == ZARR_DATA_TYPE_STRING);
    CHECK(a.element_size() == 0);
    std::vector<std::string> values;
    for (int k = 0; k < 12; ++k) values.push_back("s" + std::string(static_cast<size_t>(k), 'x'));
    NO_THROW(a.write_strings({0, 0}, {3, 4}, values));
    CHECK(zarr::Array::open(store, "/s").read_strings({0, 0}, {3, 4}) == values);
    // A part across chunk edges: rows 1..2, columns 1..3.
    std::vector<std::string> part;
    NO_THROW(part = a.read_strings({1, 1}, {2, 3}));
    CHECK((part == std::vector<std::string>{values[5], values[6], values[7], values[9],
                                            values[10], values[11]}));
    NO_THROW(a.write_strings({1, 1}, {1, 2}, {"a much longer string than before", "b"}));
    part = a.read_strings({1, 0}, {1, 4});
    CHECK((part == std::vector<std::string>{values[4], "a much longer string than before", "b",
                                            values[7]}));
    // Never written: the fill value "".
    zarr::Array fresh = zarr::Array::create(store, "/fresh", strings_v3);
    CHECK((fresh.read_strings({2, 2}, {1, 2}) == std::vector<std::string>{"", ""}));

    // bytes: any byte, NUL and 0xff included (no UTF-8 rule).
    zarr::Array b = zarr::Array::create(store, "/b", bytes_v3);
    CHECK(b.data_type() == ZARR_DATA_TYPE_BYTES);
    std::vector<std::string> blobs = {std::string("\0\1\2", 3), "", std::string("\xff\xfe", 2),
                                      "plain", std::string(1000, '\0')};
    NO_THROW(b.write_strings({0}, {5}, blobs));
    std::vector<std::string> blobs_back;
    NO_THROW(blobs_back = zarr::Array::open(store, "/b").read_strings({0}, {5}));
    CHECK(blobs_back == blobs);
    CHECK(blobs_back[0].size() == 3 && blobs_back[4].size() == 1000);
    CHECK((b.read_strings({2}, {2}) ==
           std::vector<std::string>{std::string("\xff\xfe", 2), "plain"}));
}

// Empty strings, an empty selection, non-ASCII UTF-8; a v2 object array of str.
void strings_empty_and_utf8() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array a = zarr::Array::create(store, "/s", strings_v3);
    std::vector<std::string> empties(12, "");
    NO_THROW(a.write_strings({0, 0}, {3, 4}, empties));
    CHECK(a.read_strings({0, 0}, {3, 4}) == empties);
    CHECK(a.read_strings({0, 0}, {0, 4}).empty());
    NO_THROW(a.write_strings({0, 0}, {0, 4}, {}));
    std::vector<std::string> text = {"Gr\xc3\xb6\xc3\x9f" "e",        // Größe
                                     "\xe6\x97\xa5\xe6\x9c\xac",      // 日本
                                     "",
                                     "\xf0\x9f\x99\x82 ok"};          // 🙂 ok
    NO_THROW(a.write_strings({1, 0}, {1, 4}, text));
    std::vector<std::string> back = zarr::Array::open(store, "/s").read_strings({1, 0}, {1, 4});
    CHECK(back == text);
    CHECK(back[0].size() == 7 && back[1].size() == 6 && back[2].empty() && back[3].size() == 7);
    CHECK((a.read_strings({0, 3}, {3, 1}) == std::vector<std::string>{"", text[3], ""}));

    zarr::Array v2 = zarr::Array::create(
        store, "/v2",
        R"({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O", "compressor": null,
            "fill_value": 0, "order": "C", "filters": [{"id": "vlen-utf8"}]})");
    CHECK(v2.data_type() == ZARR_DATA_TYPE_STRING);
    NO_THROW(v2.write_strings({1}, {2}, {text[1], ""}));
    CHECK((v2.read_strings({0}, {4}) == std::vector<std::string>{"", text[1], "", ""}));
}

// The errors of the strings pair and of size arithmetic.
void strings_errors() {
    zarr::Store store = zarr::Store::memory();
    zarr::Array s = zarr::Array::create(store, "/s", strings_v3);
    NO_THROW(s.write_strings({0, 0}, {1, 2}, {"keep", "me"}));
    // Wrong rank (the C library's check) and mismatched lengths (the header's).
    THROWS(s.read_strings({0}, {1}), ZARR_ERROR_INVALID_ARGUMENT, "zarr_array_read_vlen");
    THROWS(s.write_strings({0}, {1}, {"x"}), ZARR_ERROR_INVALID_ARGUMENT, "zarr_array_write_vlen");
    THROWS(s.read_strings({0, 0}, {1}), ZARR_ERROR_INVALID_ARGUMENT, "start has 2");
    // Strings on a numeric array.
    zarr::Array n = zarr::Array::create(store, "/n", meta("[4]", "[2]", "int32", "0"));
    THROWS(n.read_strings({0}, {4}), ZARR_ERROR_UNSUPPORTED, "zarr_array_read_vlen");
    THROWS(n.write_strings({0}, {1}, {"1"}), ZARR_ERROR_UNSUPPORTED, "zarr_array_write_vlen");
    // Fixed-size reads on a string array.
    THROWS(s.read<uint8_t>({0, 0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT, "0");
    THROWS(s.read_fortran<uint8_t>({0, 0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT, "0");
    // Invalid UTF-8 (a lone continuation byte, a truncated sequence): nothing is written.
    THROWS(s.write_strings({0, 0}, {1, 2}, {"fine", "bad \x80"}), ZARR_ERROR_INVALID_ARGUMENT,
           "UTF-8");
    THROWS(s.write_strings({0, 0}, {1, 1}, {"\xe6\x97"}), ZARR_ERROR_INVALID_ARGUMENT, "UTF-8");
    CHECK((s.read_strings({0, 0}, {1, 2}) == std::vector<std::string>{"keep", "me"}));
    // The wrong number of values; out of bounds.
    THROWS(s.write_strings({0, 0}, {1, 2}, {"one"}), ZARR_ERROR_INVALID_ARGUMENT, "");
    THROWS(s.read_strings({2, 3}, {2, 1}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    THROWS(s.write_strings({3, 0}, {1, 1}, {"x"}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    // Element counts (and sizes in bytes) that overflow size_t are refused before anything
    // is allocated or the C library is asked.
    zarr::Array huge = zarr::Array::create(
        store, "/h", meta("[1099511627776, 1048576]", "[1024, 1024]", "uint64", "7"));
    const uint64_t big = uint64_t{1} << 40;
    THROWS(huge.read_fortran<uint64_t>({0, 0}, {big, big}), ZARR_ERROR_INVALID_ARGUMENT,
           "element count (product of count) overflows");
    THROWS(huge.read_fortran<uint64_t>({0, 0}, {big, big >> 19}), ZARR_ERROR_INVALID_ARGUMENT,
           "overflow the size in bytes");
    THROWS(s.read_strings({0, 0}, {big, big}), ZARR_ERROR_INVALID_ARGUMENT,
           "element count (product of count) overflows");
    // A count of 0 makes the product 0 however large the others are; the bounds are still
    // checked.
    CHECK(huge.read_fortran<uint64_t>({0, 0}, {0, 1048576}).empty());
    THROWS(huge.read_fortran<uint64_t>({0, 0}, {0, big}), ZARR_ERROR_OUT_OF_BOUNDS, "");
    CHECK(huge.read_fortran<uint64_t>({big - 1, 0}, {1, 2}) == std::vector<uint64_t>(2, 7));
}

// ---- collective calls over a communicator of threads ---------------------------------
//
// The ranks are threads of this process joined by a zarr_comm_ops table built on a mutex and
// a condition variable (as ctests/test_comm.c), so that these cases run without MPI and
// under the sanitizers. Every operation is two meetings: each rank leaves its contribution,
// meets the others, takes what it needs from theirs and meets them again before the slots
// are reused. A rank whose case fails leaves the group: every later operation of the others
// then fails (ZARR_ERROR_COMMUNICATION) instead of waiting for it forever.

struct ThreadGroup {
    explicit ThreadGroup(size_t n) : size(n), data(n), lens(n), displs(n) {}
    size_t size;
    std::mutex lock;
    std::condition_variable moved_on;
    size_t arrived = 0;
    unsigned long generation = 0;
    bool broken = false;
    std::vector<const void *> data;
    std::vector<const size_t *> lens, displs;

    // Waits until every rank has arrived; false when a rank left the group.
    bool meet() {
        std::unique_lock<std::mutex> l(lock);
        if (broken) return false;
        unsigned long g = generation;
        if (++arrived == size) {
            arrived = 0;
            ++generation;
            moved_on.notify_all();
            return true;
        }
        moved_on.wait(l, [&] { return generation != g || broken; });
        return generation != g;
    }

    void leave() {
        std::lock_guard<std::mutex> l(lock);
        broken = true;
        moved_on.notify_all();
    }
};

struct RankData {
    ThreadGroup *group;
    size_t rank;
};

std::atomic<int> freed_rank_data{0};

RankData &rank_data(void *user_data) { return *static_cast<RankData *>(user_data); }

zarr_status left(const char *operation) {
    zarr_comm_callback_set_error((std::string(operation) + ": a rank left the group").c_str());
    return ZARR_ERROR_COMMUNICATION;
}

zarr_comm_ops thread_ops(RankData *me) {
    zarr_comm_ops ops{};
    ops.version = ZARR_COMM_OPS_VERSION;
    ops.user_data = me;
    ops.barrier = [](void *ud) -> zarr_status {
        return rank_data(ud).group->meet() ? ZARR_OK : left("barrier");
    };
    ops.broadcast = [](void *ud, void *buf, size_t len, size_t root) -> zarr_status {
        RankData &me = rank_data(ud);
        ThreadGroup &g = *me.group;
        g.data[me.rank] = buf;
        if (!g.meet()) return left("broadcast");
        if (me.rank != root && len) std::memcpy(buf, g.data[root], len);
        return g.meet() ? ZARR_OK : left("broadcast");
    };
    ops.all_gather = [](void *ud, const void *send, size_t len, void *recv) -> zarr_status {
        RankData &me = rank_data(ud);
        ThreadGroup &g = *me.group;
        g.data[me.rank] = send;
        if (!g.meet()) return left("all_gather");
        for (size_t r = 0; r < g.size; ++r) {
            if (len) std::memcpy(static_cast<char *>(recv) + r * len, g.data[r], len);
        }
        return g.meet() ? ZARR_OK : left("all_gather");
    };
    ops.all_gather_v = [](void *ud, const void *send, size_t, void *recv, const size_t *recv_lens,
                          const size_t *recv_displs) -> zarr_status {
        RankData &me = rank_data(ud);
        ThreadGroup &g = *me.group;
        g.data[me.rank] = send;
        if (!g.meet()) return left("all_gather_v");
        for (size_t r = 0; r < g.size; ++r) {
            if (recv_lens[r]) {
                std::memcpy(static_cast<char *>(recv) + recv_displs[r], g.data[r], recv_lens[r]);
            }
        }
        return g.meet() ? ZARR_OK : left("all_gather_v");
    };
    ops.all_to_all_v = [](void *ud, const void *send, const size_t *send_lens,
                          const size_t *send_displs, void *recv, const size_t *recv_lens,
                          const size_t *recv_displs) -> zarr_status {
        RankData &me = rank_data(ud);
        ThreadGroup &g = *me.group;
        g.data[me.rank] = send;
        g.lens[me.rank] = send_lens;
        g.displs[me.rank] = send_displs;
        if (!g.meet()) return left("all_to_all_v");
        bool consistent = true;
        for (size_t r = 0; r < g.size; ++r) {
            size_t len = recv_lens[r];
            if (len != g.lens[r][me.rank]) consistent = false;
            if (consistent && len) {
                std::memcpy(static_cast<char *>(recv) + recv_displs[r],
                            static_cast<const char *>(g.data[r]) + g.displs[r][me.rank], len);
            }
        }
        if (!g.meet()) return left("all_to_all_v");
        return consistent ? ZARR_OK : ZARR_ERROR_INTERNAL;
    };
    ops.all_reduce_i64 = [](void *ud, int64_t *values, size_t count,
                            zarr_reduce_op op) -> zarr_status {
        RankData &me = rank_data(ud);
        ThreadGroup &g = *me.group;
        g.data[me.rank] = values;
        if (!g.meet()) return left("all_reduce_i64");
        std::vector<int64_t> result(values, values + count);
        for (size_t r = 0; r < g.size; ++r) {
            const int64_t *theirs = static_cast<const int64_t *>(g.data[r]);
            for (size_t i = 0; i < count; ++i) {
                if (op == ZARR_REDUCE_MIN && theirs[i] < result[i]) result[i] = theirs[i];
                if (op == ZARR_REDUCE_MAX && theirs[i] > result[i]) result[i] = theirs[i];
            }
            if (op == ZARR_REDUCE_SUM && r != me.rank) {
                for (size_t i = 0; i < count; ++i) result[i] += theirs[i];
            }
        }
        if (!g.meet()) return left("all_reduce_i64");
        std::copy(result.begin(), result.end(), values);
        return ZARR_OK;
    };
    ops.free_user_data = [](void *) { ++freed_rank_data; };
    return ops;
}

// Runs `work(comm)` on `size` threads, each a rank with its own zarr::Comm. A failed check
// (or an uncaught exception) in a rank is reported, counted and makes the rank leave.
template <typename Work> void run_ranks(size_t size, Work work) {
    ThreadGroup group(size);
    std::vector<std::thread> threads;
    for (size_t r = 0; r < size; ++r) {
        threads.emplace_back([&group, &work, r] {
            RankData me{&group, r};
            try {
                zarr::Comm comm = zarr::Comm::from_ops(thread_ops(&me), r, group.size);
                work(comm);
                return;
            } catch (const CaseFailed &) {
            } catch (const zarr::Error &e) {
                std::fprintf(stderr, "rank %zu: uncaught zarr::Error, status %d (%s): %s\n", r,
                             static_cast<int>(e.status()), e.status_text(), e.what());
                ++failures;
            } catch (const std::exception &e) {
                std::fprintf(stderr, "rank %zu: uncaught exception: %s\n", r, e.what());
                ++failures;
            }
            group.leave();
        });
    }
    for (std::thread &t : threads) t.join();
}

// A 30 x 10 int32 array: shards of 8 x 10 cut into inner chunks of 4 x 5, zstd.
const char *const SHARDED =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [30, 10],"
    " \"data_type\": \"int32\", \"fill_value\": 0,"
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [8, 10]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    "   \"chunk_shape\": [4, 5],"
    "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
    "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "                    {\"name\": \"crc32c\"}]}}]}";

int32_t value_at(uint64_t r, uint64_t c) { return static_cast<int32_t>(r * 100 + c + 1); }

// Rank `rank`'s box of the 30 x 10 array in an uneven decomposition for 3 ranks: rows 0-6
// whole (rank 0), then rows 7-29 split at column 3 (ranks 1 and 2), cutting shards and
// inner chunks.
void uneven_box(size_t rank, std::vector<uint64_t> &start, std::vector<uint64_t> &count) {
    static const uint64_t boxes[3][4] = {{0, 0, 7, 10}, {7, 0, 23, 3}, {7, 3, 23, 7}};
    start = {boxes[rank][0], boxes[rank][1]};
    count = {boxes[rank][2], boxes[rank][3]};
}

std::vector<int32_t> box_values(const std::vector<uint64_t> &start,
                                const std::vector<uint64_t> &count) {
    std::vector<int32_t> values;
    for (uint64_t r = 0; r < count[0]; ++r) {
        for (uint64_t c = 0; c < count[1]; ++c) values.push_back(value_at(start[0] + r, start[1] + c));
    }
    return values;
}

// Checks every element of the whole 30 x 10 array against value_at (or 0 when `empty`).
void check_every_element(const std::vector<int32_t> &back, bool empty, size_t rank) {
    CHECK(back.size() == 300);
    for (uint64_t r = 0; r < 30; ++r) {
        for (uint64_t c = 0; c < 10; ++c) {
            int32_t want = empty ? 0 : value_at(r, c);
            if (back[r * 10 + c] != want) {
                fail(__FILE__, __LINE__,
                     "rank " + std::to_string(rank) + ": (" + std::to_string(r) + ", " +
                         std::to_string(c) + ") holds " + std::to_string(back[r * 10 + c]) +
                         ", expected " + std::to_string(want));
            }
        }
    }
}

// A communicator: from_ops checks its table, rank() and size(), moves, the destructor frees
// the table's user_data once, an empty Comm fails on its own rank only; one rank alone
// makes collective calls without any thread.
void comm_basics() {
    ThreadGroup group(1);
    RankData me{&group, 0};
    zarr_comm_ops ops = thread_ops(&me);
    THROWS(zarr::Comm::from_ops(ops, 1, 1), ZARR_ERROR_INVALID_ARGUMENT, "rank 1 of 1");
    THROWS(zarr::Comm::from_ops(ops, 0, 0), ZARR_ERROR_INVALID_ARGUMENT, "");
    zarr_comm_ops bad = ops;
    bad.version = 99;
    THROWS(zarr::Comm::from_ops(bad, 0, 1), ZARR_ERROR_INVALID_ARGUMENT, "version is 99");
    bad = ops;
    bad.all_to_all_v = nullptr;
    THROWS(zarr::Comm::from_ops(bad, 0, 1), ZARR_ERROR_INVALID_ARGUMENT, "all_to_all_v");
    CHECK(freed_rank_data == 0); // a failed creation leaves user_data to the caller
    {
        zarr::Comm comm = zarr::Comm::from_ops(ops, 0, 1);
        CHECK(comm.rank() == 0);
        CHECK(comm.size() == 1);
        CHECK(comm.last_write_json() == "null");
        zarr::Comm moved = std::move(comm);
        CHECK(!comm);
        CHECK(moved.get() != nullptr);
        THROWS(comm.rank(), ZARR_ERROR_NULL_ARGUMENT, "comm");
        // One rank alone.
        zarr::Store store = zarr::Store::memory();
        zarr::Array a = zarr::Array::create_collective(moved, store, "/a", SHARDED);
        std::vector<int32_t> values = box_values({0, 0}, {30, 10});
        a.write_collective(moved, {0, 0}, {30, 10}, values);
        check_every_element(a.read<int32_t>({0, 0}, {30, 10}), false, 0);
        check_every_element(a.read_collective<int32_t>(moved, {0, 0}, {30, 10}), false, 0);
        CHECK(contains(moved.last_write_json(), "\"units_written\""));
        moved.agree(ZARR_OK);
        THROWS(moved.agree(ZARR_ERROR_IO, "a disk is full"), ZARR_ERROR_IO,
               "rank 0: a disk is full");
        // An empty communicator: NULL_ARGUMENT on this rank alone, before any exchange.
        THROWS(a.write_collective(comm, {0, 0}, {1, 1}, std::vector<int32_t>{1}),
               ZARR_ERROR_NULL_ARGUMENT, "comm");
        THROWS(zarr::Group::create_collective(comm, store, "/g"), ZARR_ERROR_NULL_ARGUMENT, "comm");
        THROWS(a.resize_collective(comm, {1, 1}), ZARR_ERROR_NULL_ARGUMENT, "comm");
        THROWS(comm.last_write_json(), ZARR_ERROR_NULL_ARGUMENT, "comm");
        CHECK(freed_rank_data == 0);
    }
    CHECK(freed_rank_data == 1);
    freed_rank_data = 0;
}

// Three ranks write an uneven decomposition of a sharded array (boxes cutting shards and
// inner chunks) collectively; every rank reads it back whole, collectively and alone.
void comm_uneven_write() {
    TempDir dir;
    run_ranks(3, [&](zarr::Comm &comm) {
        size_t rank = comm.rank();
        CHECK(comm.size() == 3);
        zarr::Store store = zarr::Store::filesystem(dir.path());
        zarr::Array a = zarr::Array::create_collective(comm, store, "/field", SHARDED);
        std::vector<uint64_t> start, count;
        uneven_box(rank, start, count);
        a.write_collective(comm, start, count, box_values(start, count));
        check_every_element(a.read_collective<int32_t>(comm, {0, 0}, {30, 10}), false, rank);
        std::string report = comm.last_write_json();
        CHECK(contains(report, "\"ranks\": 3") || contains(report, "\"ranks\":3"));
        CHECK(contains(report, "\"units\""));
        // Each rank reads its own box (boxes may overlap in reads: here they do not).
        std::vector<int32_t> mine(static_cast<size_t>(count[0] * count[1]));
        a.read_collective(comm, start, count, mine.data(), mine.size() * sizeof(int32_t));
        CHECK(mine == box_values(start, count));
        // The raw overload, with a rank that writes nothing (a zero count) but takes part.
        std::vector<uint64_t> none = {0, 0};
        std::vector<int32_t> row(10, -static_cast<int32_t>(rank) - 1);
        if (rank == 1) {
            a.write_collective(comm, {29, 0}, {1, 10}, row.data(), row.size() * sizeof(int32_t));
        } else {
            a.write_collective(comm, {0, 0}, none, nullptr, 0);
        }
        CHECK(a.read<int32_t>({29, 0}, {1, 10}) == std::vector<int32_t>(10, -2));
    });
    // Another process (here: a serial handle) sees the result.
    zarr::Store store = zarr::Store::filesystem(dir.path());
    std::vector<int32_t> all = zarr::Array::open(store, "/field").read<int32_t>({0, 0}, {29, 10});
    all.resize(300);
    for (uint64_t c = 0; c < 10; ++c) all[290 + c] = value_at(29, c);
    check_every_element(all, false, 0);
}

// The checks this header makes before a collective call, failing on one rank, throw the
// same status on every rank (agreed with zarr_comm_agree) without a hang, and write nothing.
void comm_local_checks_agreed() {
    TempDir dir;
    run_ranks(3, [&](zarr::Comm &comm) {
        size_t rank = comm.rank();
        zarr::Store store = zarr::Store::filesystem(dir.path());
        // A NUL byte in one rank's path.
        THROWS(zarr::Array::create_collective(comm, store, rank == 0 ? std::string("/f\0x", 4)
                                                                     : std::string("/field"),
                                              SHARDED),
               ZARR_ERROR_INVALID_ARGUMENT, "rank 0: zarr.hpp: path contains a NUL byte");
        zarr::Array a = zarr::Array::create_collective(comm, store, "/field", SHARDED);
        std::vector<uint64_t> start, count;
        uneven_box(rank, start, count);
        std::vector<int32_t> values = box_values(start, count);
        // The wrong element type on rank 1.
        if (rank == 1) {
            std::vector<int64_t> wide(values.begin(), values.end());
            THROWS(a.write_collective(comm, start, count, wide), ZARR_ERROR_INVALID_ARGUMENT,
                   "rank 1: zarr::Array::write_collective: the element type has 8 bytes");
        } else {
            THROWS(a.write_collective(comm, start, count, values), ZARR_ERROR_INVALID_ARGUMENT,
                   "rank 1: zarr::Array::write_collective: the element type has 8 bytes");
        }
        // start and count of different lengths on rank 2 (raw and typed overloads).
        std::vector<uint64_t> short_start = rank == 2 ? std::vector<uint64_t>{start[0]} : start;
        THROWS(a.write_collective(comm, short_start, count, values), ZARR_ERROR_INVALID_ARGUMENT,
               "rank 2: zarr::Array::write_collective: start has 1 values but count has 2");
        THROWS(a.write_collective(comm, short_start, count, values.data(),
                                  values.size() * sizeof(int32_t)),
               ZARR_ERROR_INVALID_ARGUMENT, "rank 2:");
        THROWS(a.append_collective(comm, 0, 1, short_start, {1, count[1]}, values),
               ZARR_ERROR_INVALID_ARGUMENT, "rank 2:");
        // A read past the array on rank 1 (found by the size query before the call).
        THROWS(a.read_collective<int32_t>(comm, {rank == 1 ? 29u : 0u, 0}, {2, 10}),
               ZARR_ERROR_OUT_OF_BOUNDS, "rank 1:");
        // The wrong element type for a read on rank 0 and 2: the lowest rank's wins.
        if (rank == 1) {
            THROWS(a.read_collective<int32_t>(comm, {0, 0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT,
                   "rank 0: zarr::Array::read_collective");
        } else {
            THROWS(a.read_collective<uint16_t>(comm, {0, 0}, {1, 1}), ZARR_ERROR_INVALID_ARGUMENT,
                   "rank 0: zarr::Array::read_collective");
        }
        // Checks the C library makes itself fail every rank too.
        std::vector<uint64_t> far = start;
        if (rank == 2) far[0] += 100;
        THROWS(a.write_collective(comm, far, count, values), ZARR_ERROR_OUT_OF_BOUNDS, "");
        // A NUL byte in one rank's attributes.
        THROWS(a.set_attributes_collective(comm, rank == 2 ? std::string("{}\0", 3) : "{}"),
               ZARR_ERROR_INVALID_ARGUMENT, "rank 2: zarr.hpp: attributes_json contains a NUL");
        // agree and agree_on for the program's own checks.
        THROWS(comm.agree(rank == 2 ? ZARR_ERROR_NOT_FOUND : ZARR_OK, "input.nc is missing"),
               ZARR_ERROR_NOT_FOUND, "rank 2: input.nc is missing");
        THROWS(comm.agree_on([&] {
                   if (rank >= 1) throw std::runtime_error("no luck on rank " + std::to_string(rank));
               }),
               ZARR_ERROR_INTERNAL, "rank 1: no luck on rank 1");
        comm.agree_on([] {});
        // Nothing was written by the failed calls.
        check_every_element(a.read<int32_t>({0, 0}, {30, 10}), true, rank);
        // The communicator still works.
        a.write_collective(comm, start, count, values);
        check_every_element(a.read_collective<int32_t>(comm, {0, 0}, {30, 10}), false, rank);
    });
}

// Appends along time, attributes, groups, resizing and consolidated metadata, collectively.
void comm_appends_groups_consolidation() {
    TempDir dir;
    const std::string series_meta =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [0, 6],"
        " \"data_type\": \"float64\", \"fill_value\": \"NaN\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 6]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"},"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
        "              {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}],"
        " \"dimension_names\": [\"time\", \"x\"]}";
    run_ranks(3, [&](zarr::Comm &comm) {
        size_t rank = comm.rank(), size = comm.size();
        zarr::Store store = zarr::Store::filesystem(dir.path());
        zarr::Group root = zarr::Group::create_collective(comm, store, "/", "{\"title\": \"run\"}");
        zarr::Group sub = zarr::Group::create_collective(comm, store, "/sub");
        zarr::Array series = zarr::Array::create_collective(comm, store, "/series", series_meta);
        // Rank r owns columns [6r/size, 6(r+1)/size).
        uint64_t first = 6 * rank / size, last = 6 * (rank + 1) / size;
        for (uint64_t step = 0; step < 5; ++step) {
            std::vector<double> values;
            for (uint64_t c = first; c < last; ++c) values.push_back(static_cast<double>(step * 10 + c));
            if (step % 2 == 0) {
                series.append_collective(comm, 0, 1, {0, first}, {1, last - first}, values);
            } else {
                series.append_collective(comm, 0, 1, {0, first}, {1, last - first}, values.data(),
                                         values.size() * sizeof(double));
            }
        }
        CHECK((series.shape() == std::vector<uint64_t>{5, 6}));
        std::vector<double> back = series.read_collective<double>(comm, {0, 0}, {5, 6});
        for (uint64_t step = 0; step < 5; ++step) {
            for (uint64_t c = 0; c < 6; ++c) CHECK(back[step * 6 + c] == static_cast<double>(step * 10 + c));
        }
        // Two steps at once, every rank writing one of them partly.
        std::vector<double> two(last - first, -1.0);
        series.append_collective(comm, 0, 2, {rank % 2, first}, {1, last - first}, two);
        CHECK((series.shape() == std::vector<uint64_t>{7, 6}));
        // A box past the appended block on one rank fails every rank.
        THROWS(series.append_collective(comm, 0, 1, {0, first}, {rank == 0 ? 2u : 1u, last - first},
                                        std::vector<double>((rank == 0 ? 2 : 1) * (last - first))),
               ZARR_ERROR_OUT_OF_BOUNDS, "");
        series.set_attributes_collective(comm, "{\"units\": \"K\"}");
        CHECK(contains(series.attributes(), "\"units\""));
        root.set_attributes_collective(comm, "{\"steps\": 7}");
        CHECK(contains(root.attributes(), "\"steps\""));
        THROWS(root.set_attributes_collective(comm, rank ? "{}" : "[1]"), ZARR_ERROR_INVALID_ARGUMENT,
               "");
        root.consolidate_collective(comm);
        series.resize_collective(comm, {9, 6});
        CHECK((series.shape() == std::vector<uint64_t>{9, 6}));
        THROWS(series.resize_collective(comm, {9 + rank, 6}), ZARR_ERROR_INVALID_ARGUMENT, "");
        CHECK(sub.format() == 3);
    });
    // A serial reader sees every node through the consolidated metadata.
    zarr::Store store = zarr::Store::filesystem(dir.path());
    zarr::Store view = zarr::Store::consolidated(store);
    zarr::Array series = zarr::Array::open(view, "/series");
    CHECK(contains(zarr::Group::open(view, "/").attributes(), "\"steps\""));
}

struct Case {
    const char *name;
    void (*fn)();
};

#define TCASE(name) {#name, name}
const Case cases[] = {
    TCASE(round_trip_filesystem),
    TCASE(round_trip_memory),
    TCASE(scalar_and_complex),
    TCASE(sub_byte_int4),
    TCASE(complex_bfloat16_bits),
    TCASE(groups_and_attributes),
    TCASE(children_listing),
    TCASE(v2_consolidated_descendants),
    TCASE(zip_store_errors),
    TCASE(move_semantics),
    TCASE(free_in_any_order),
    TCASE(error_not_found),
    TCASE(error_invalid_metadata),
    TCASE(error_wrong_element_type),
    TCASE(error_out_of_bounds),
    TCASE(sharded_inner_chunks),
    TCASE(read_double_converts),
    TCASE(threads_and_version),
    TCASE(accessors_and_attributes),
    TCASE(array_builder),
    TCASE(callback_store),
    TCASE(store_url_file),
    TCASE(store_url_s3),
    TCASE(strided_read_fortran),
    TCASE(strided_write_padded),
    TCASE(resize_grow_shrink),
    TCASE(append_blocks),
    TCASE(strings_round_trip),
    TCASE(strings_empty_and_utf8),
    TCASE(strings_errors),
    TCASE(comm_basics),
    TCASE(comm_uneven_write),
    TCASE(comm_local_checks_agreed),
    TCASE(comm_appends_groups_consolidation),
};

bool run(const Case &c) {
    int before = failures;
    try {
        c.fn();
    } catch (const CaseFailed &) {
    } catch (const zarr::Error &e) {
        std::fprintf(stderr, "%s: uncaught zarr::Error, status %d (%s): %s\n", c.name,
                     static_cast<int>(e.status()), e.status_text(), e.what());
        ++failures;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: uncaught exception: %s\n", c.name, e.what());
        ++failures;
    }
    std::fprintf(stderr, "%s %s\n", failures == before ? "ok  " : "FAIL", c.name);
    return failures == before;
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "--list") == 0) {
        for (const Case &c : cases) std::printf("%s\n", c.name);
        return 0;
    }
    bool found = argc < 2;
    for (const Case &c : cases) {
        if (argc < 2 || std::strcmp(argv[1], c.name) == 0) {
            found = true;
            run(c);
        }
    }
    if (!found) {
        std::fprintf(stderr, "no case named %s\n", argv[1]);
        return 2;
    }
    return failures == 0 ? 0 : 1;
}
