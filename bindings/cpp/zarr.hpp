// zarr.hpp -- a header-only C++17 binding of libzarr's C API (zarr.h).
//
// Everything lives in namespace `zarr`:
//
// - `zarr::Store`, `zarr::Group`, `zarr::Array` own one C handle each (RAII). They are
//   move-only; the destructor calls the matching `zarr_*_free`; `.get()` gives the raw
//   pointer for calls into zarr.h directly. A moved-from (or default-constructed) object
//   is empty: `get()` is NULL, destroying it does nothing, and calling a member on it
//   throws `zarr::Error` with `ZARR_ERROR_NULL_ARGUMENT` (the C library's answer). As in
//   C, a child keeps its parents alive, so objects may be destroyed in any order.
// - Every failing C call becomes a `zarr::Error` (a `std::runtime_error`) carrying the
//   status code and the text of `zarr_last_error_message()`, captured on the same thread
//   right after the failing call. Checks made by this header itself (element type size,
//   mismatched `start`/`count`/stride lengths, NUL bytes inside strings, size overflow)
//   throw `zarr::Error` too, with `ZARR_ERROR_INVALID_ARGUMENT` or
//   `ZARR_ERROR_OUT_OF_MEMORY` (`ZARR_ERROR_BUFFER_SIZE_MISMATCH` from `write_fortran`).
//   Allocation failures in this header throw `std::bad_alloc`.
// - Strings returned by the C API are copied into `std::string` and freed with
//   `zarr_string_free`, also when the copy throws.
// - Element buffers are dense, C (row-major) order, host byte order, exactly as in C,
//   except in the strided and Fortran-order members (`read_strided`, `read_fortran`, ...).
//   Variable-length `string` and `bytes` elements are `std::string`s (`read_strings`).
//   Typed overloads check that `sizeof(T)` equals the array's element size; use
//   `uint8_t` for bool arrays (`std::vector<bool>` is packed and cannot be used),
//   `std::complex<float>` for complex64, `uint16_t` for float16 bits.
// - The data types held as bits (see docs/data-types.md): `uint8_t` for the float8 formats
//   and for int2, int4, uint2, uint4, float4_e2m1fn and float6_* (one byte per element, the
//   2-, 4- or 6-bit code in the low bits, the upper bits zero: ml_dtypes' and
//   tensorstore's layout); `zarr::sub_byte_to_int8` and `zarr::int8_to_sub_byte` convert
//   int2/int4/uint2/uint4 codes from and to `int8_t` values. `uint16_t` for bfloat16;
//   `std::complex<float>` / `std::complex<double>` for complex_float32 / complex_float64;
//   `zarr::ComplexBits<uint16_t>` for complex_bfloat16 and complex_float16, and
//   `zarr::ComplexBits<uint8_t>` for the complex float4/float6/float8 types (the real
//   part's bits, then the imaginary part's). `zarr::data_type_str` names a code.
// - Thread safety is that of the C API (see zarr.h): the objects add no state of their
//   own beyond the handle pointer.
//
// - Collective calls, for MPI programs and any other group of ranks: `zarr::Comm` owns a
//   communicator (`zarr::mpi::comm(MPI_Comm)` in zarr_mpi.hpp, or `Comm::from_ops`), and
//   the `*_collective` members of Array and Group take one. Every rank calls them
//   together; they return, or throw the same status, on every rank. Checks this header
//   makes before a collective C call are agreed with the other ranks first, so that a
//   mistake on one rank (a wrong element type) never leaves the others waiting.
//
// Stores other than `filesystem` and `memory` (for example ones added to the C API
// later) can be wrapped by adopting their raw handle: `zarr::Store(raw_store_pointer)`.
//
// Requires zarr.h on the include path and linking with libzarr (CMake: `zarr::zarr`).

#ifndef ZARR_HPP
#define ZARR_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "zarr.h"

namespace zarr {

// The exception thrown by every wrapper in this header when a call fails.
//
// `status()` is the `zarr_status` (a negative `ZARR_ERROR_*` value) and `what()` the
// message: for a failing C call, the text of `zarr_last_error_message()` taken right
// after the call on the same thread (it names the C function and the causes).
class Error : public std::runtime_error {
  public:
    // An error with the given status and message. Throws std::bad_alloc only.
    Error(zarr_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}

    // The status code (`ZARR_ERROR_*`).
    zarr_status status() const noexcept { return status_; }

    // Fixed text for the status code (`zarr_status_str`). Never throws.
    const char *status_text() const noexcept { return zarr_status_str(status_); }

  private:
    zarr_status status_;
};

namespace detail {

// Throws zarr::Error(status, zarr_last_error_message()) unless status is ZARR_OK. Call it
// directly on the C function's result so that nothing runs in between.
inline void check(zarr_status status) {
    if (status != ZARR_OK) {
        throw Error(status, zarr_last_error_message());
    }
}

// Throws zarr::Error with ZARR_ERROR_INVALID_ARGUMENT and the given message.
[[noreturn]] inline void invalid_argument(const std::string &message) {
    throw Error(ZARR_ERROR_INVALID_ARGUMENT, message);
}

// The NUL-terminated text of `s`; throws INVALID_ARGUMENT when `s` holds a NUL byte
// (the C API would silently see a shorter string).
inline const char *c_str(const std::string &s, const char *what) {
    if (s.find('\0') != std::string::npos) {
        invalid_argument(std::string("zarr.hpp: ") + what + " contains a NUL byte");
    }
    return s.c_str();
}

// Frees a string returned by libzarr.
struct StringDeleter {
    void operator()(char *s) const noexcept { zarr_string_free(s); }
};

// Calls `fn(char **out)`, checks its status and returns the string as std::string. The C
// string is freed in every case, also when the copy throws std::bad_alloc.
template <typename Fn> std::string take_string(Fn fn) {
    char *raw = nullptr;
    zarr_status status = fn(&raw);
    std::unique_ptr<char, StringDeleter> owned(raw);
    check(status);
    return owned ? std::string(owned.get()) : std::string();
}

// The destructor calls for each handle type (overloads picked by pointer type).
inline void free_handle(zarr_store *p) noexcept { zarr_store_free(p); }
inline void free_handle(zarr_group *p) noexcept { zarr_group_free(p); }
inline void free_handle(zarr_array *p) noexcept { zarr_array_free(p); }
inline void free_handle(zarr_array_builder *p) noexcept { zarr_array_builder_free(p); }
inline void free_handle(zarr_comm *p) noexcept { zarr_comm_free(p); }

// A move-only owner of one C handle; the base of Store, Group and Array.
template <typename T> class Handle {
  public:
    // An empty handle (get() is NULL).
    Handle() noexcept = default;
    // Takes ownership of `raw` (which may be NULL).
    explicit Handle(T *raw) noexcept : raw_(raw) {}
    // Frees the handle with zarr_*_free (which accepts NULL and never fails).
    ~Handle() { free_handle(raw_); }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    // Moves ownership; `other` becomes empty.
    Handle(Handle &&other) noexcept : raw_(other.raw_) { other.raw_ = nullptr; }
    // Frees the current handle, then takes ownership of `other`'s; `other` becomes empty.
    Handle &operator=(Handle &&other) noexcept {
        if (this != &other) {
            free_handle(raw_);
            raw_ = other.raw_;
            other.raw_ = nullptr;
        }
        return *this;
    }

    // The raw C handle (NULL when empty); ownership stays with this object.
    T *get() const noexcept { return raw_; }
    // True unless empty.
    explicit operator bool() const noexcept { return raw_ != nullptr; }
    // Gives up ownership: returns the raw handle (the caller frees it) and becomes empty.
    T *release() noexcept {
        T *raw = raw_;
        raw_ = nullptr;
        return raw;
    }
    // Frees the current handle and becomes empty.
    void reset() noexcept {
        free_handle(raw_);
        raw_ = nullptr;
    }

  private:
    T *raw_ = nullptr;
};

// Throws INVALID_ARGUMENT unless sizeof(T) equals the array's element size `element_size`.
template <typename T> void check_element_size(size_t element_size, const char *function) {
    if (sizeof(T) != element_size) {
        invalid_argument(std::string(function) + ": the element type has " +
                         std::to_string(sizeof(T)) + " bytes but the array's elements have " +
                         std::to_string(element_size));
    }
}

// Compile-time checks shared by the typed overloads.
template <typename T> constexpr bool is_element_type() {
    static_assert(std::is_trivially_copyable<T>::value,
                  "zarr.hpp: element types must be trivially copyable");
    static_assert(!std::is_same<T, bool>::value,
                  "zarr.hpp: use uint8_t for bool arrays (std::vector<bool> is packed)");
    return true;
}


// Typed attribute access shared by Array and Group; `H` is the C handle type and the
// function pointers the matching zarr_array_* or zarr_group_* functions.
template <typename H, typename Fn> std::string attribute_string(H *h, Fn fn, const std::string &key) {
    const char *k = c_str(key, "key");
    return take_string([h, fn, k](char **out) { return fn(h, k, out); });
}

template <typename T, typename H, typename Fn> T attribute_scalar(H *h, Fn fn, const std::string &key) {
    T value{};
    check(fn(h, c_str(key, "key"), &value));
    return value;
}

// A size query, then the values.
template <typename T, typename H, typename Fn>
std::vector<T> attribute_vector(H *h, Fn fn, const std::string &key) {
    const char *k = c_str(key, "key");
    size_t n = 0;
    check(fn(h, k, nullptr, 0, &n));
    std::vector<T> values(n);
    check(fn(h, k, values.data(), values.size(), &n));
    values.resize(n);
    return values;
}

template <typename H, typename CountFn, typename NameFn>
std::vector<std::string> names_by_index(H *h, CountFn count, NameFn name) {
    size_t n = 0;
    check(count(h, &n));
    std::vector<std::string> names;
    names.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        names.push_back(take_string([h, name, i](char **out) { return name(h, i, out); }));
    }
    return names;
}

// THE RULE of collective calls: a check this header makes on one rank before a collective
// C call must not make that rank throw while the others wait inside the call. So `local`
// (the checks, and whatever they prepare) runs first, and its outcome is agreed with the
// other ranks of `comm` (`zarr_comm_agree`): either every rank goes on to the C call or
// every rank throws zarr::Error with the status and message of the lowest failing rank
// ("rank N: ..."). A zarr::Error from `local` gives its status, std::bad_alloc
// ZARR_ERROR_OUT_OF_MEMORY, any other exception ZARR_ERROR_INTERNAL with its text.
// A NULL `comm` throws NULL_ARGUMENT on this rank alone (it cannot reach the others).
template <typename Fn> void agree_on(const zarr_comm *comm, Fn &&local) {
    zarr_status status = ZARR_OK;
    std::string message;
    try {
        local();
    } catch (const Error &e) {
        status = e.status();
        message = e.what();
    } catch (const std::bad_alloc &) {
        status = ZARR_ERROR_OUT_OF_MEMORY;
        message = "zarr.hpp: out of memory";
    } catch (const std::exception &e) {
        status = ZARR_ERROR_INTERNAL;
        message = e.what();
    } catch (...) {
        status = ZARR_ERROR_INTERNAL;
        message = "zarr.hpp: an exception of unknown type";
    }
    check(zarr_comm_agree(comm, status, status == ZARR_OK ? nullptr : message.c_str()));
}

} // namespace detail

class Group;
class Array;

// A store of your own, for `zarr::Store::callbacks` (wraps `zarr_store_callbacks`).
//
// libzarr calls these members from its worker threads, concurrently: implementations must
// be thread-safe. A member reports a failure by throwing: a `zarr::Error` gives its status
// (`ZARR_ERROR_IO`, `ZARR_ERROR_READ_ONLY`, ...) and message to the failing libzarr call,
// any other exception `ZARR_ERROR_IO` with its `what()`. Exceptions never cross into C.
class StoreBackend {
  public:
    virtual ~StoreBackend() = default;
    // The value of `key`, or std::nullopt when there is none.
    virtual std::optional<std::vector<uint8_t>> get(const std::string &key) = 0;
    // `length` bytes of the value of `key` from `offset`, or its last `length` bytes when
    // `from_end`; std::nullopt when there is no value; throw zarr::Error with
    // ZARR_ERROR_OUT_OF_BOUNDS for a range past the end. The default cuts it from `get`.
    virtual std::optional<std::vector<uint8_t>> get_range(const std::string &key, uint64_t offset,
                                                          uint64_t length, bool from_end) {
        std::optional<std::vector<uint8_t>> value = get(key);
        if (!value) return value;
        uint64_t size = value->size();
        if (length > size || (!from_end && offset > size - length)) {
            throw Error(ZARR_ERROR_OUT_OF_BOUNDS, "byte range past the end of '" + key + "'");
        }
        uint64_t start = from_end ? size - length : offset;
        return std::vector<uint8_t>(value->begin() + static_cast<std::ptrdiff_t>(start),
                                    value->begin() + static_cast<std::ptrdiff_t>(start + length));
    }
    // Replace the value of `key` with `len` bytes at `data`, atomically.
    virtual void set(const std::string &key, const uint8_t *data, size_t len) = 0;
    // Remove `key`; a missing key is not an error.
    virtual void erase(const std::string &key) = 0;
    // Every key starting with `prefix` ("" or ending in '/'), in any order.
    virtual std::vector<std::string> list(const std::string &prefix) = 0;
};

namespace detail {

// Runs a backend member for a C callback: exceptions become statuses with messages.
template <typename Fn> zarr_status backend_call(Fn fn) noexcept {
    try {
        return fn();
    } catch (const Error &e) {
        zarr_store_callback_set_error(e.what());
        return e.status();
    } catch (const std::exception &e) {
        zarr_store_callback_set_error(e.what());
        return ZARR_ERROR_IO;
    } catch (...) {
        zarr_store_callback_set_error("unknown C++ exception in a zarr::StoreBackend");
        return ZARR_ERROR_IO;
    }
}

inline StoreBackend &backend_of(void *user_data) {
    return **static_cast<std::shared_ptr<StoreBackend> *>(user_data);
}

inline zarr_status write_value(zarr_sink *sink, const std::optional<std::vector<uint8_t>> &v) {
    if (!v) return ZARR_ERROR_NOT_FOUND;
    return zarr_sink_write(sink, v->data(), v->size());
}

// The callbacks table of a StoreBackend (each entry a captureless lambda).
inline zarr_store_callbacks backend_table(std::shared_ptr<StoreBackend> *owner) {
    zarr_store_callbacks cb{};
    cb.version = ZARR_STORE_CALLBACKS_VERSION;
    cb.user_data = owner;
    cb.get = [](void *ud, const char *key, zarr_sink *value) -> zarr_status {
        return backend_call([&] { return write_value(value, backend_of(ud).get(key)); });
    };
    cb.get_range = [](void *ud, const char *key, uint64_t offset, uint64_t length, bool from_end,
                      zarr_sink *value) -> zarr_status {
        return backend_call([&] {
            return write_value(value, backend_of(ud).get_range(key, offset, length, from_end));
        });
    };
    cb.set = [](void *ud, const char *key, const void *value, size_t len) -> zarr_status {
        return backend_call([&] {
            backend_of(ud).set(key, static_cast<const uint8_t *>(value), len);
            return ZARR_OK;
        });
    };
    cb.erase = [](void *ud, const char *key) -> zarr_status {
        return backend_call([&] {
            backend_of(ud).erase(key);
            return ZARR_OK;
        });
    };
    cb.list = [](void *ud, const char *prefix, zarr_sink *keys) -> zarr_status {
        return backend_call([&] {
            for (const std::string &key : backend_of(ud).list(prefix)) {
                zarr_status s = zarr_sink_write(keys, key.c_str(), key.size() + 1);
                if (s != ZARR_OK) return s;
            }
            return static_cast<zarr_status>(ZARR_OK);
        });
    };
    cb.free_user_data = [](void *ud) { delete static_cast<std::shared_ptr<StoreBackend> *>(ud); };
    return cb;
}

} // namespace detail

// A store: where keys map to bytes (wraps `zarr_store *`). Move-only; the destructor calls
// `zarr_store_free`. Arrays and groups opened from it keep it alive.
class Store : public detail::Handle<zarr_store> {
  public:
    // An empty store object (get() is NULL).
    Store() noexcept = default;
    // Adopts a raw handle from any `zarr_store_open_*` function (freed by the destructor).
    explicit Store(zarr_store *raw) noexcept : Handle(raw) {}

    // A store on the local file system rooted at directory `path`, created on first write
    // (wraps `zarr_store_open_filesystem`). Throws zarr::Error: INVALID_ARGUMENT (empty
    // path or NUL byte inside), IO (`path` exists and is not a directory).
    static Store filesystem(const std::string &path) {
        zarr_store *raw = nullptr;
        detail::check(zarr_store_open_filesystem(detail::c_str(path, "path"), &raw));
        return Store(raw);
    }

    // A new, empty in-memory store (wraps `zarr_store_open_memory`). Throws zarr::Error
    // only if the library fails unexpectedly.
    static Store memory() {
        zarr_store *raw = nullptr;
        detail::check(zarr_store_open_memory(&raw));
        return Store(raw);
    }

    // A read-only store over a `.zip` file holding a hierarchy, zipped from within or from
    // its parent folder (wraps `zarr_store_open_zip`). Throws zarr::Error: INVALID_ARGUMENT
    // (empty path), NOT_FOUND (no such file), CORRUPT_DATA (not a zip, or a hostile or
    // truncated archive), UNSUPPORTED, IO.
    static Store zip(const std::string &path) {
        zarr_store *raw = nullptr;
        detail::check(zarr_store_open_zip(detail::c_str(path, "path"), &raw));
        return Store(raw);
    }

    // The store a URL names (wraps `zarr_store_open_url`): `s3://bucket/prefix`,
    // `http(s)://host/path` (read-only), `file:///abs/path` or a plain path. `options` is a
    // JSON object (see zarr.h: endpoint, region, anonymous, access_key_id,
    // secret_access_key, session_token, profile, force_path_style, max_concurrency,
    // timeout_ms, max_retries, read_only, create...), or empty for none. A local directory
    // or S3 bucket must exist unless the options say "create": true. Throws zarr::Error:
    // INVALID_ARGUMENT (malformed URL, unknown option, wrong type, option not for the
    // scheme, unknown profile), UNSUPPORTED (another scheme), NOT_FOUND (no such directory
    // or bucket), IO, NETWORK. Later calls on the
    // store may throw NETWORK, ACCESS_DENIED, TIMEOUT and REMOTE.
    static Store url(const std::string &url, const std::string &options = std::string()) {
        zarr_store *raw = nullptr;
        detail::check(zarr_store_open_url(detail::c_str(url, "url"),
                                          options.empty() ? nullptr
                                                          : detail::c_str(options, "options"),
                                          &raw));
        return Store(raw);
    }

    // A view of `store` serving node metadata from its consolidated metadata, read once now
    // (wraps `zarr_store_open_consolidated`). Throws zarr::Error: NULL_ARGUMENT (empty
    // store), NOT_FOUND (no consolidated metadata), INVALID_METADATA, UNSUPPORTED, IO.
    static Store consolidated(const Store &store) {
        zarr_store *raw = nullptr;
        detail::check(zarr_store_open_consolidated(store.get(), &raw));
        return Store(raw);
    }

    // A store implemented by `backend` (wraps `zarr_store_open_callbacks`); the store
    // shares ownership of it until the store and everything opened from it are gone.
    // Throws zarr::Error: NULL_ARGUMENT (empty pointer).
    static Store callbacks(std::shared_ptr<StoreBackend> backend) {
        if (!backend) throw Error(ZARR_ERROR_NULL_ARGUMENT, "zarr::Store::callbacks: no backend");
        auto *owner = new std::shared_ptr<StoreBackend>(std::move(backend));
        zarr_store_callbacks cb = detail::backend_table(owner);
        zarr_store *raw = nullptr;
        // On failure the library has already called free_user_data (deleting `owner`).
        detail::check(zarr_store_open_callbacks(&cb, &raw));
        return Store(raw);
    }

    // Deletes the array or group (with everything below it) at `path`, keeping
    // consolidated metadata true (wraps `zarr_store_delete_node`). Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT (the root), INVALID_PATH, NOT_FOUND, READ_ONLY, IO.
    void delete_node(const std::string &path) {
        detail::check(zarr_store_delete_node(get(), detail::c_str(path, "path")));
    }
};

// A communicator: the ranks that make collective calls together (wraps `zarr_comm *`).
// Move-only; the destructor calls `zarr_comm_free`. MPI programs get one from
// `zarr::mpi::comm(MPI_COMM_WORLD)` (zarr_mpi.hpp, which needs <mpi.h>); other programs
// from a table of collective operations (`Comm::from_ops`), or adopt a raw handle.
//
// Collective members (`Array::create_collective`, `write_collective`, `read_collective`,
// `resize_collective`, `append_collective`, `set_attributes_collective`,
// `Group::create_collective`, `set_attributes_collective`, `consolidate_collective`, and
// `agree` / `agree_on` here) must be called by every rank of the communicator, in the same
// order, one call at a time per communicator (as MPI collectives). Each returns, or throws
// a zarr::Error with the same status, on every rank; the other ranks' message of a failure
// found on rank N starts with "rank N: ". The checks this header makes before calling C
// (element type size, `start`/`count` lengths, NUL bytes) are agreed with the other ranks
// first (`zarr_comm_agree`), so a mistake on one rank throws on every rank instead of
// leaving the others waiting. An empty `Comm` throws NULL_ARGUMENT on its own rank only.
// The other members (`rank`, `size`, `last_write_json`) are local.
class Comm : public detail::Handle<zarr_comm> {
  public:
    // An empty communicator object (get() is NULL).
    Comm() noexcept = default;
    // Adopts a raw handle from `zarr_comm_create` or `zarr_comm_create_mpi`.
    explicit Comm(zarr_comm *raw) noexcept : Handle(raw) {}

    // A communicator whose collective operations are the functions of `ops` (copied; see
    // `zarr_comm_ops` in zarr.h), this being rank `rank` of `size` (wraps
    // `zarr_comm_create`). Not collective. The communicator calls `ops.free_user_data`
    // when it is destroyed; on failure it is not called (`ops.user_data` stays yours).
    // Throws zarr::Error: INVALID_ARGUMENT (unknown `version`, a NULL function, `size` 0
    // or `rank >= size`).
    static Comm from_ops(const zarr_comm_ops &ops, size_t rank, size_t size) {
        zarr_comm *raw = nullptr;
        detail::check(zarr_comm_create(&ops, rank, size, &raw));
        return Comm(raw);
    }

    // This rank's number, 0 to size() - 1 (wraps `zarr_comm_rank`). Not collective.
    // Throws zarr::Error: NULL_ARGUMENT (empty object).
    size_t rank() const {
        size_t r = 0;
        detail::check(zarr_comm_rank(get(), &r));
        return r;
    }

    // The number of ranks (wraps `zarr_comm_size`). Not collective. Throws zarr::Error:
    // NULL_ARGUMENT (empty object).
    size_t size() const {
        size_t n = 0;
        detail::check(zarr_comm_size(get(), &n));
        return n;
    }

    // Agrees on an outcome, collectively (wraps `zarr_comm_agree`): every rank passes its
    // own `status` (ZARR_OK, or the error it found, explained by `message`); returns on
    // every rank when all passed ZARR_OK, otherwise throws zarr::Error on every rank with
    // the status of the lowest failing rank N and the message "rank N: <its message>".
    // For checks of your own before a collective call (a file missing on one node), so
    // that either every rank makes the call or none does. Throws zarr::Error: that
    // status; NULL_ARGUMENT (empty object: this rank alone); COMMUNICATION.
    void agree(zarr_status status, const std::string &message = std::string()) const {
        detail::check(zarr_comm_agree(get(), status, status == ZARR_OK ? nullptr : message.c_str()));
    }

    // Runs `local` (any callable taking no argument) on this rank, then agrees on whether
    // it threw, collectively: returns on every rank when no rank's `local` threw, otherwise
    // throws zarr::Error on every rank as `agree` (a zarr::Error from `local` gives its
    // status and message, std::bad_alloc OUT_OF_MEMORY, another exception INTERNAL with
    // its `what()`). The collective members of this header check their arguments this way.
    template <typename Fn> void agree_on(Fn &&local) const {
        detail::agree_on(get(), std::forward<Fn>(local));
    }

    // What the last `write_collective` or `append_collective` through this communicator
    // did on this rank, as JSON object text (`ranks`, `rounds`, `units`, `units_written`,
    // `units_merged`, `bytes_sent`, `bytes_received`; see `zarr_comm_last_write_json`), or
    // "null" before the first one. Not collective. Throws zarr::Error: NULL_ARGUMENT.
    std::string last_write_json() const {
        zarr_comm *c = get();
        return detail::take_string([c](char **out) { return zarr_comm_last_write_json(c, out); });
    }
};

namespace detail {

// The zarr_array_* / zarr_group_* attribute functions, for Attributes<>.
template <typename H> struct AttributeFns;
template <> struct AttributeFns<zarr_array> {
    static constexpr auto count = zarr_array_attribute_count;
    static constexpr auto name = zarr_array_attribute_name;
    static constexpr auto string = zarr_array_attribute_string;
    static constexpr auto double_ = zarr_array_attribute_double;
    static constexpr auto int64 = zarr_array_attribute_int64;
    static constexpr auto doubles = zarr_array_attribute_double_array;
    static constexpr auto int64s = zarr_array_attribute_int64_array;
    static constexpr auto set_string = zarr_array_set_attribute_string;
    static constexpr auto set_double = zarr_array_set_attribute_double;
    static constexpr auto set_int64 = zarr_array_set_attribute_int64;
    static constexpr auto set_doubles = zarr_array_set_attribute_double_array;
    static constexpr auto set_int64s = zarr_array_set_attribute_int64_array;
    static constexpr auto remove = zarr_array_delete_attribute;
};
template <> struct AttributeFns<zarr_group> {
    static constexpr auto count = zarr_group_attribute_count;
    static constexpr auto name = zarr_group_attribute_name;
    static constexpr auto string = zarr_group_attribute_string;
    static constexpr auto double_ = zarr_group_attribute_double;
    static constexpr auto int64 = zarr_group_attribute_int64;
    static constexpr auto doubles = zarr_group_attribute_double_array;
    static constexpr auto int64s = zarr_group_attribute_int64_array;
    static constexpr auto set_string = zarr_group_set_attribute_string;
    static constexpr auto set_double = zarr_group_set_attribute_double;
    static constexpr auto set_int64 = zarr_group_set_attribute_int64;
    static constexpr auto set_doubles = zarr_group_set_attribute_double_array;
    static constexpr auto set_int64s = zarr_group_set_attribute_int64_array;
    static constexpr auto remove = zarr_group_delete_attribute;
};

// Typed attributes of an array or group, without JSON (wraps zarr_array_attribute_* and
// zarr_group_attribute_*, in the manner of netCDF's nc_get_att / nc_put_att). Getters
// throw zarr::Error: NOT_FOUND, TYPE_MISMATCH (another JSON type; a fractional number
// asked as an integer), OUT_OF_BOUNDS (an integer outside int64). Setters rewrite the
// attributes document atomically and throw zarr::Error: READ_ONLY, IO.
template <typename Derived, typename H> class Attributes {
    using F = AttributeFns<H>;
    H *h() const { return static_cast<const Derived *>(this)->get(); }

  public:
    // The attribute names, in document order.
    std::vector<std::string> attribute_names() const {
        return names_by_index(h(), F::count, F::name);
    }
    std::string attribute_string(const std::string &key) const {
        return detail::attribute_string(h(), F::string, key);
    }
    // Any number; "NaN", "Infinity" and "-Infinity" too.
    double attribute_double(const std::string &key) const {
        return attribute_scalar<double>(h(), F::double_, key);
    }
    int64_t attribute_int64(const std::string &key) const {
        return attribute_scalar<int64_t>(h(), F::int64, key);
    }
    // An array of numbers (a single number reads as one element).
    std::vector<double> attribute_doubles(const std::string &key) const {
        return attribute_vector<double>(h(), F::doubles, key);
    }
    std::vector<int64_t> attribute_int64s(const std::string &key) const {
        return attribute_vector<int64_t>(h(), F::int64s, key);
    }
    void set_attribute_string(const std::string &key, const std::string &value) {
        check(F::set_string(h(), c_str(key, "key"), c_str(value, "value")));
    }
    // Non-finite values are stored as "NaN", "Infinity", "-Infinity".
    void set_attribute_double(const std::string &key, double value) {
        check(F::set_double(h(), c_str(key, "key"), value));
    }
    void set_attribute_int64(const std::string &key, int64_t value) {
        check(F::set_int64(h(), c_str(key, "key"), value));
    }
    void set_attribute_doubles(const std::string &key, const std::vector<double> &values) {
        check(F::set_doubles(h(), c_str(key, "key"), values.data(), values.size()));
    }
    void set_attribute_int64s(const std::string &key, const std::vector<int64_t> &values) {
        check(F::set_int64s(h(), c_str(key, "key"), values.data(), values.size()));
    }
    // Throws zarr::Error: NOT_FOUND (no such attribute), READ_ONLY, IO.
    void delete_attribute(const std::string &key) { check(F::remove(h(), c_str(key, "key"))); }
};

} // namespace detail

// A direct child of a group: its name and `ZARR_NODE_TYPE_ARRAY` or `ZARR_NODE_TYPE_GROUP`.
struct Child {
    std::string name;
    zarr_node_type node_type;
};

// A Zarr group (wraps `zarr_group *`). Move-only; the destructor calls `zarr_group_free`.
class Group : public detail::Handle<zarr_group>, public detail::Attributes<Group, zarr_group> {
  public:
    // An empty group object (get() is NULL).
    Group() noexcept = default;
    // Adopts a raw handle from `zarr_group_open` / `zarr_group_create`.
    explicit Group(zarr_group *raw) noexcept : Handle(raw) {}

    // Opens the group at absolute node `path` (wraps `zarr_group_open`). Throws
    // zarr::Error: NULL_ARGUMENT (empty store), INVALID_PATH, NOT_FOUND,
    // NODE_TYPE_MISMATCH (an array is there), INVALID_METADATA, UNSUPPORTED, IO.
    static Group open(const Store &store, const std::string &path) {
        zarr_group *raw = nullptr;
        detail::check(zarr_group_open(store.get(), detail::c_str(path, "path"), &raw));
        return Group(raw);
    }

    // Creates a group at `path` without attributes; missing ancestors are created (wraps
    // `zarr_group_create`). Throws zarr::Error: NULL_ARGUMENT, INVALID_PATH,
    // ALREADY_EXISTS, NODE_TYPE_MISMATCH (an ancestor is an array), IO.
    static Group create(Store &store, const std::string &path) {
        zarr_group *raw = nullptr;
        detail::check(zarr_group_create(store.get(), detail::c_str(path, "path"), nullptr, &raw));
        return Group(raw);
    }

    // Creates a group at `path` with the attributes in the JSON object text
    // `attributes_json` (wraps `zarr_group_create`). Throws zarr::Error as the overload
    // above, plus INVALID_ARGUMENT (not a JSON object).
    static Group create(Store &store, const std::string &path,
                        const std::string &attributes_json) {
        zarr_group *raw = nullptr;
        detail::check(zarr_group_create(store.get(), detail::c_str(path, "path"),
                                        detail::c_str(attributes_json, "attributes_json"),
                                        &raw));
        return Group(raw);
    }

    // Creates a group at `path` in Zarr format `zarr_format` (2: `.zgroup`, 3: zarr.json)
    // with attributes from the JSON object text `attributes_json` ("{}" for none); missing
    // ancestors are created in the same format (wraps `zarr_group_create_with_format`).
    // Throws zarr::Error as `create`, plus INVALID_ARGUMENT (a format other than 2 or 3).
    static Group create_with_format(Store &store, const std::string &path, uint32_t zarr_format,
                                    const std::string &attributes_json = "{}") {
        zarr_group *raw = nullptr;
        detail::check(zarr_group_create_with_format(
            store.get(), detail::c_str(path, "path"),
            detail::c_str(attributes_json, "attributes_json"), zarr_format, &raw));
        return Group(raw);
    }

    // Deprecated: `create_with_format(store, path, 2, attributes_json)`.
    [[deprecated("use zarr::Group::create_with_format(store, path, 2, attributes)")]]
    static Group create_v2(Store &store, const std::string &path,
                           const std::string &attributes_json = "{}") {
        return create_with_format(store, path, 2, attributes_json);
    }

    // The Zarr format the group is stored in: 3 (also for the 2022 draft layout) or 2
    // (wraps `zarr_group_format`). Throws zarr::Error: NULL_ARGUMENT (empty object).
    uint32_t format() const {
        uint32_t format = 0;
        detail::check(zarr_group_format(get(), &format));
        return format;
    }

    // Deprecated: `format()`.
    [[deprecated("use zarr::Group::format()")]] uint32_t zarr_format() const { return format(); }

    // Every node below the group as JSON text, depth first (wraps
    // `zarr_group_descendants_json`). Throws zarr::Error: NULL_ARGUMENT,
    // INVALID_METADATA, IO.
    std::string descendants_json() const {
        zarr_group *g = get();
        return detail::take_string(
            [g](char **out) { return zarr_group_descendants_json(g, out); });
    }

    // Writes consolidated metadata for every node below the group (wraps
    // `zarr_group_consolidate`). Throws zarr::Error: NULL_ARGUMENT, INVALID_ARGUMENT
    // (2022 draft layout), INVALID_METADATA, READ_ONLY, IO.
    void consolidate() const { detail::check(zarr_group_consolidate(get())); }

    // The attributes as JSON object text, "{}" when there are none (wraps
    // `zarr_group_attributes_json`). Throws zarr::Error: NULL_ARGUMENT (empty object).
    std::string attributes() const {
        zarr_group *g = get();
        return detail::take_string([g](char **out) { return zarr_group_attributes_json(g, out); });
    }

    // Replaces the attributes with the JSON object text `attributes_json` and rewrites
    // zarr.json atomically (wraps `zarr_group_set_attributes_json`). Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT (not a JSON object), IO.
    void set_attributes(const std::string &attributes_json) {
        detail::check(zarr_group_set_attributes_json(
            get(), detail::c_str(attributes_json, "attributes_json")));
    }

    // The direct children as JSON text: an array, sorted by name, of objects
    // {"name", "path", "node_type"} (wraps `zarr_group_children_json`). Throws
    // zarr::Error: NULL_ARGUMENT, INVALID_METADATA (a child's zarr.json), IO.
    std::string children_json() const {
        zarr_group *g = get();
        return detail::take_string([g](char **out) { return zarr_group_children_json(g, out); });
    }

    // The direct children sorted by name, listed now (wraps `zarr_group_child_count`,
    // `zarr_group_child_name`, `zarr_group_child_node_type`). Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_METADATA, IO.
    std::vector<Child> children() const {
        zarr_group *g = get();
        size_t n = 0;
        detail::check(zarr_group_child_count(g, &n));
        std::vector<Child> out;
        out.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            Child c;
            c.name = detail::take_string([g, i](char **o) { return zarr_group_child_name(g, i, o); });
            c.node_type = 0;
            detail::check(zarr_group_child_node_type(g, i, &c.node_type));
            out.push_back(std::move(c));
        }
        return out;
    }

    // Creates a Zarr v3 group at `path` without attributes, collectively: every rank of
    // `comm` calls it with the same `path`; rank 0 writes it, then every rank opens it
    // (wraps `zarr_group_create_collective`). Throws zarr::Error on every rank:
    // INVALID_ARGUMENT (ranks passing different paths, a NUL byte in `path` on any rank),
    // NULL_ARGUMENT, INVALID_PATH, ALREADY_EXISTS, NODE_TYPE_MISMATCH, IO (of rank 0's
    // creation or any rank's opening), COMMUNICATION.
    static Group create_collective(const Comm &comm, Store &store, const std::string &path) {
        const char *p = nullptr;
        comm.agree_on([&] { p = detail::c_str(path, "path"); });
        zarr_group *raw = nullptr;
        detail::check(zarr_group_create_collective(comm.get(), store.get(), p, nullptr, &raw));
        return Group(raw);
    }

    // Creates a Zarr v3 group at `path` with the attributes in the JSON object text
    // `attributes_json`, collectively (every rank passes the same arguments; wraps
    // `zarr_group_create_collective`). Throws zarr::Error on every rank as the overload
    // above, plus INVALID_ARGUMENT (not a JSON object, or different on some rank).
    static Group create_collective(const Comm &comm, Store &store, const std::string &path,
                                   const std::string &attributes_json) {
        const char *p = nullptr, *a = nullptr;
        comm.agree_on([&] {
            p = detail::c_str(path, "path");
            a = detail::c_str(attributes_json, "attributes_json");
        });
        zarr_group *raw = nullptr;
        detail::check(zarr_group_create_collective(comm.get(), store.get(), p, a, &raw));
        return Group(raw);
    }

    // Replaces the attributes with the JSON object text `attributes_json`, collectively
    // (every rank passes the same text; wraps `zarr_group_set_attributes_json_collective`).
    // Throws zarr::Error on every rank: NULL_ARGUMENT, INVALID_ARGUMENT (not a JSON
    // object, different on some rank, a NUL byte), READ_ONLY, IO, COMMUNICATION.
    void set_attributes_collective(const Comm &comm, const std::string &attributes_json) {
        const char *a = nullptr;
        comm.agree_on([&] { a = detail::c_str(attributes_json, "attributes_json"); });
        detail::check(zarr_group_set_attributes_json_collective(comm.get(), get(), a));
    }

    // Writes consolidated metadata for every node below the group, collectively (rank 0
    // writes; wraps `zarr_group_consolidate_collective`): call it after the last
    // collective write and node creation. Throws zarr::Error on every rank: NULL_ARGUMENT,
    // INVALID_ARGUMENT (ranks passing different groups; 2022 draft layout),
    // INVALID_METADATA, READ_ONLY, IO, COMMUNICATION.
    void consolidate_collective(const Comm &comm) const {
        detail::check(zarr_group_consolidate_collective(comm.get(), get()));
    }
};

// A Zarr array (wraps `zarr_array *`). Move-only; the destructor calls `zarr_array_free`.
//
// Index vectors (`start`, `count`, chunk indices) hold one value per dimension; their
// length is passed to C as `ndim` (an empty vector for a 0-d array). Element buffers are
// dense, C order, host byte order, except where strides or Fortran order are named.
class Array : public detail::Handle<zarr_array>, public detail::Attributes<Array, zarr_array> {
  public:
    // An empty array object (get() is NULL).
    Array() noexcept = default;
    // Adopts a raw handle from `zarr_array_open` / `zarr_array_create`.
    explicit Array(zarr_array *raw) noexcept : Handle(raw) {}

    // Opens the array at absolute node `path` (wraps `zarr_array_open`). Throws
    // zarr::Error: NULL_ARGUMENT (empty store), INVALID_PATH, NOT_FOUND,
    // NODE_TYPE_MISMATCH (a group is there), INVALID_METADATA, UNSUPPORTED, IO.
    static Array open(const Store &store, const std::string &path) {
        zarr_array *raw = nullptr;
        detail::check(zarr_array_open(store.get(), detail::c_str(path, "path"), &raw));
        return Array(raw);
    }

    // Creates an array at `path` from a complete Zarr v3 array metadata document (wraps
    // `zarr_array_create`); no data is written. Throws zarr::Error: NULL_ARGUMENT,
    // INVALID_PATH, ALREADY_EXISTS, NODE_TYPE_MISMATCH, INVALID_METADATA, UNSUPPORTED, IO.
    static Array create(Store &store, const std::string &path, const std::string &metadata_json) {
        zarr_array *raw = nullptr;
        detail::check(zarr_array_create(store.get(), detail::c_str(path, "path"),
                                        detail::c_str(metadata_json, "metadata_json"), &raw));
        return Array(raw);
    }

    // The number of dimensions (wraps `zarr_array_ndim`). Throws zarr::Error:
    // NULL_ARGUMENT (empty object).
    size_t ndim() const {
        size_t n = 0;
        detail::check(zarr_array_ndim(get(), &n));
        return n;
    }

    // The Zarr format the array is stored in: 3 (also for the 2022 draft layout) or 2
    // (wraps `zarr_array_format`). Throws zarr::Error: NULL_ARGUMENT (empty object).
    uint32_t format() const {
        uint32_t format = 0;
        detail::check(zarr_array_format(get(), &format));
        return format;
    }

    // Deprecated: `format()`.
    [[deprecated("use zarr::Array::format()")]] uint32_t zarr_format() const { return format(); }

    // The shape, one extent per dimension (wraps `zarr_array_shape`). Throws zarr::Error:
    // NULL_ARGUMENT.
    std::vector<uint64_t> shape() const {
        std::vector<uint64_t> v(ndim());
        detail::check(zarr_array_shape(get(), v.size(), v.data()));
        return v;
    }

    // The chunk shape of the regular grid (wraps `zarr_array_chunk_shape`). Throws
    // zarr::Error: NULL_ARGUMENT.
    std::vector<uint64_t> chunk_shape() const {
        std::vector<uint64_t> v(ndim());
        detail::check(zarr_array_chunk_shape(get(), v.size(), v.data()));
        return v;
    }

    // The inner chunk shape: a sharded array's inner chunks, else the chunk shape (wraps
    // `zarr_array_inner_chunk_shape`). Throws zarr::Error: NULL_ARGUMENT.
    std::vector<uint64_t> inner_chunk_shape() const {
        std::vector<uint64_t> v(ndim());
        detail::check(zarr_array_inner_chunk_shape(get(), v.size(), v.data()));
        return v;
    }

    // The data type as a `ZARR_DATA_TYPE_*` code (wraps `zarr_array_data_type`). Throws
    // zarr::Error: NULL_ARGUMENT.
    zarr_data_type data_type() const {
        zarr_data_type t = 0;
        detail::check(zarr_array_data_type(get(), &t));
        return t;
    }

    // The size in bytes of one element in caller buffers (wraps
    // `zarr_array_element_size`). Throws zarr::Error: NULL_ARGUMENT.
    size_t element_size() const {
        size_t n = 0;
        detail::check(zarr_array_element_size(get(), &n));
        return n;
    }

    // The size in bytes of one whole chunk in caller buffers (wraps
    // `zarr_array_chunk_nbytes`). Throws zarr::Error: NULL_ARGUMENT.
    size_t chunk_nbytes() const {
        size_t n = 0;
        detail::check(zarr_array_chunk_nbytes(get(), &n));
        return n;
    }

    // The size in bytes of one whole inner chunk (product of `inner_chunk_shape()` times
    // the element size; computed here, checked for overflow). Throws zarr::Error:
    // NULL_ARGUMENT, OUT_OF_MEMORY (does not fit in size_t).
    size_t inner_chunk_nbytes() const {
        std::vector<uint64_t> inner = inner_chunk_shape();
        uint64_t n = element_size();
        for (uint64_t extent : inner) {
            if (extent != 0 && n > std::numeric_limits<uint64_t>::max() / extent) {
                throw Error(ZARR_ERROR_OUT_OF_MEMORY, "zarr::Array::inner_chunk_nbytes: overflow");
            }
            n *= extent;
        }
        if (n > std::numeric_limits<size_t>::max()) {
            throw Error(ZARR_ERROR_OUT_OF_MEMORY, "zarr::Array::inner_chunk_nbytes: overflow");
        }
        return static_cast<size_t>(n);
    }

    // The size in bytes of the dense buffer for the selection `start`, `count` (wraps
    // `zarr_array_selection_nbytes`). Throws zarr::Error: NULL_ARGUMENT,
    // INVALID_ARGUMENT (wrong rank, or `start` and `count` of different lengths),
    // OUT_OF_BOUNDS, OUT_OF_MEMORY.
    size_t selection_nbytes(const std::vector<uint64_t> &start,
                            const std::vector<uint64_t> &count) const {
        check_ranks(start, count, "zarr::Array::selection_nbytes");
        size_t n = 0;
        detail::check(zarr_array_selection_nbytes(get(), start.size(), start.data(), count.data(), &n));
        return n;
    }

    // The array's zarr.json document as JSON text (wraps `zarr_array_metadata_json`).
    // Throws zarr::Error: NULL_ARGUMENT.
    std::string metadata() const {
        zarr_array *a = get();
        return detail::take_string([a](char **out) { return zarr_array_metadata_json(a, out); });
    }

    // The attributes as JSON object text, "{}" when there are none (wraps
    // `zarr_array_attributes_json`). Throws zarr::Error: NULL_ARGUMENT.
    std::string attributes() const {
        zarr_array *a = get();
        return detail::take_string([a](char **out) { return zarr_array_attributes_json(a, out); });
    }

    // Replaces the attributes with the JSON object text `attributes_json` and rewrites
    // zarr.json atomically (wraps `zarr_array_set_attributes_json`). Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT (not a JSON object), IO.
    void set_attributes(const std::string &attributes_json) {
        detail::check(zarr_array_set_attributes_json(
            get(), detail::c_str(attributes_json, "attributes_json")));
    }

    // Reads the selection `start .. start + count` into the raw buffer `buf` of `buf_len`
    // bytes (wraps `zarr_array_read`); after a decoding or I/O failure the selection's bytes
    // are unspecified (the failing chunk's part is unchanged). Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, mismatched lengths), OUT_OF_BOUNDS,
    // BUFFER_TOO_SMALL, CORRUPT_DATA, OUT_OF_MEMORY, IO.
    void read(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count, void *buf,
              size_t buf_len) const {
        check_ranks(start, count, "zarr::Array::read");
        detail::check(
            zarr_array_read(get(), start.size(), start.data(), count.data(), buf, buf_len));
    }

    // Reads the selection `start .. start + count` into a new vector of T (wraps
    // `zarr_array_read`). Throws zarr::Error: INVALID_ARGUMENT when sizeof(T) differs from
    // the element size, and as the raw overload.
    template <typename T>
    std::vector<T> read(const std::vector<uint64_t> &start,
                        const std::vector<uint64_t> &count) const {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::read");
        size_t nbytes = selection_nbytes(start, count);
        std::vector<T> values(nbytes / sizeof(T));
        read(start, count, values.data(), nbytes);
        return values;
    }

    // Reads the selection into `out`, which is first resized to the selection's element
    // count (wraps `zarr_array_read`); reuses `out`'s storage. On failure `out` may have
    // been resized. Throws as `read<T>(start, count)`.
    template <typename T>
    void read(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
              std::vector<T> &out) const {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::read");
        size_t nbytes = selection_nbytes(start, count);
        out.resize(nbytes / sizeof(T));
        read(start, count, out.data(), nbytes);
    }

    // Reads the selection `start .. start + count` converted to double (dense, C order),
    // whatever the array's real number type: bool, integers, float16/bfloat16/float8,
    // float32, float64 (wraps `zarr_array_read_double`). No attribute is applied: CF
    // packing (scale_factor, add_offset, _FillValue) is the caller's. Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, mismatched lengths, element count
    // overflows), TYPE_MISMATCH (complex, strings, structs, datetimes...), OUT_OF_BOUNDS,
    // CORRUPT_DATA, OUT_OF_MEMORY, IO.
    std::vector<double> read_double(const std::vector<uint64_t> &start,
                                    const std::vector<uint64_t> &count) const {
        const char *function = "zarr::Array::read_double";
        check_ranks(start, count, function);
        size_t n = element_count(count, function);
        // The data type and bounds first (a call with no buffer reads nothing: past them it
        // stops at the length), so that a wrong selection throws before allocating.
        zarr_status probe = zarr_array_read_double(get(), start.size(), start.data(),
                                                   count.data(), nullptr, 0);
        if (probe == ZARR_OK) return {};
        if (probe != ZARR_ERROR_BUFFER_SIZE_MISMATCH) detail::check(probe);
        std::vector<double> values(n);
        detail::check(zarr_array_read_double(get(), start.size(), start.data(), count.data(),
                                             values.data(), values.size()));
        return values;
    }

    // Writes the raw buffer `buf` of `buf_len` bytes into the selection `start .. start +
    // count` (wraps `zarr_array_write`). Throws zarr::Error: NULL_ARGUMENT,
    // INVALID_ARGUMENT, OUT_OF_BOUNDS, BUFFER_SIZE_MISMATCH, CORRUPT_DATA, OUT_OF_MEMORY,
    // IO.
    void write(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
               const void *buf, size_t buf_len) {
        check_ranks(start, count, "zarr::Array::write");
        detail::check(
            zarr_array_write(get(), start.size(), start.data(), count.data(), buf, buf_len));
    }

    // Writes `values` (dense, C order) into the selection `start .. start + count` (wraps
    // `zarr_array_write`). Throws zarr::Error: INVALID_ARGUMENT when sizeof(T) differs
    // from the element size, BUFFER_SIZE_MISMATCH when `values.size()` differs from the
    // selection's element count, and as the raw overload.
    template <typename T>
    void write(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
               const std::vector<T> &values) {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::write");
        write(start, count, values.data(), values.size() * sizeof(T));
    }

    // Reads the selection `start .. start + count` into the raw buffer `buf` of `buf_len`
    // bytes laid out by `byte_strides` (wraps `zarr_array_read_strided`): element `i` of
    // the selection goes to byte `sum(i[d] * byte_strides[d])` of `buf`. Strides are in
    // bytes, one per dimension, each at least 1, and must not make elements overlap;
    // `buf_len` is at least the span, element size + sum((count[d] - 1) *
    // byte_strides[d]). Bytes between the elements are never written. Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, `start`, `count` and `byte_strides` of
    // different lengths, a stride below 1, overlapping elements), OUT_OF_BOUNDS,
    // BUFFER_TOO_SMALL, CORRUPT_DATA, OUT_OF_MEMORY, IO, UNSUPPORTED (variable-length
    // elements: use `read_strings`).
    void read_strided(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                      const std::vector<int64_t> &byte_strides, void *buf, size_t buf_len) const {
        check_strided_ranks(start, count, byte_strides, "zarr::Array::read_strided");
        detail::check(zarr_array_read_strided(get(), start.size(), start.data(), count.data(),
                                              byte_strides.data(), buf, buf_len));
    }

    // Reads the selection into the `data_len` elements at `data`, element `i` of the
    // selection going to `data[sum(i[d] * strides[d])]` (wraps `zarr_array_read_strided`):
    // `strides` counts elements, not bytes, and `data_len` is at least 1 + sum((count[d] -
    // 1) * strides[d]). For example, a 3 x 4 selection in Fortran order has strides {1, 3};
    // into rows of a C-order buffer 10 elements wide, {10, 1}. Throws zarr::Error:
    // INVALID_ARGUMENT when sizeof(T) differs from the element size or a stride or
    // `data_len` times sizeof(T) overflows, and as the raw overload.
    template <typename T>
    void read_strided(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                      T *data, size_t data_len, const std::vector<int64_t> &strides) const {
        static_assert(detail::is_element_type<T>(), "");
        const char *function = "zarr::Array::read_strided";
        detail::check_element_size<T>(element_size(), function);
        read_strided(start, count, strides_in_bytes<T>(strides, function), data,
                     bytes_of<T>(data_len, function));
    }

    // Writes the selection `start .. start + count` from the raw buffer `buf` of `buf_len`
    // bytes laid out by `byte_strides` (wraps `zarr_array_write_strided`; see
    // `read_strided`, except that elements may share bytes here, and bytes past the span
    // are ignored). Throws zarr::Error: NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank,
    // lengths of `start`, `count` and `byte_strides` differ, a stride below 1),
    // OUT_OF_BOUNDS, BUFFER_TOO_SMALL, CORRUPT_DATA, OUT_OF_MEMORY, READ_ONLY, IO,
    // UNSUPPORTED (variable-length elements: use `write_strings`).
    void write_strided(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                       const std::vector<int64_t> &byte_strides, const void *buf, size_t buf_len) {
        check_strided_ranks(start, count, byte_strides, "zarr::Array::write_strided");
        detail::check(zarr_array_write_strided(get(), start.size(), start.data(), count.data(),
                                               byte_strides.data(), buf, buf_len));
    }

    // Writes the selection from the `data_len` elements at `data`, element `i` of the
    // selection taken from `data[sum(i[d] * strides[d])]` (`strides` in elements, as the
    // typed `read_strided`; wraps `zarr_array_write_strided`). Throws zarr::Error:
    // INVALID_ARGUMENT when sizeof(T) differs from the element size or a stride or
    // `data_len` times sizeof(T) overflows, and as the raw overload.
    template <typename T>
    void write_strided(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                       const T *data, size_t data_len, const std::vector<int64_t> &strides) {
        static_assert(detail::is_element_type<T>(), "");
        const char *function = "zarr::Array::write_strided";
        detail::check_element_size<T>(element_size(), function);
        write_strided(start, count, strides_in_bytes<T>(strides, function), data,
                      bytes_of<T>(data_len, function));
    }

    // Reads the selection `start .. start + count` into a new vector of T in Fortran
    // (column-major) order: the first dimension varies fastest (wraps
    // `zarr_array_read_strided`; chunks decode straight into the vector, no temporary
    // copy). Throws zarr::Error: INVALID_ARGUMENT when sizeof(T) differs from the element
    // size or the element count or its size in bytes overflows, and as `read_strided`.
    template <typename T>
    std::vector<T> read_fortran(const std::vector<uint64_t> &start,
                                const std::vector<uint64_t> &count) const {
        static_assert(detail::is_element_type<T>(), "");
        const char *function = "zarr::Array::read_fortran";
        detail::check_element_size<T>(element_size(), function);
        check_ranks(start, count, function);
        size_t n = element_count(count, function);
        size_t nbytes = bytes_of<T>(n, function);
        std::vector<int64_t> strides = fortran_strides_in_bytes<T>(count, function);
        std::vector<T> values(n);
        read_strided(start, count, strides, values.data(), nbytes);
        return values;
    }

    // Writes `values`, the selection `start .. start + count` in Fortran (column-major)
    // order, the first dimension varying fastest (wraps `zarr_array_write_strided`).
    // Throws zarr::Error: INVALID_ARGUMENT when sizeof(T) differs from the element size or
    // the element count overflows, BUFFER_SIZE_MISMATCH when `values.size()` differs from
    // the selection's element count, and as `write_strided`.
    template <typename T>
    void write_fortran(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                       const std::vector<T> &values) {
        static_assert(detail::is_element_type<T>(), "");
        const char *function = "zarr::Array::write_fortran";
        detail::check_element_size<T>(element_size(), function);
        check_ranks(start, count, function);
        size_t n = element_count(count, function);
        if (values.size() != n) {
            throw Error(ZARR_ERROR_BUFFER_SIZE_MISMATCH,
                        std::string(function) + ": " + std::to_string(values.size()) +
                            " values for a selection of " + std::to_string(n) + " elements");
        }
        std::vector<int64_t> strides = fortran_strides_in_bytes<T>(count, function);
        write_strided(start, count, strides, values.data(), bytes_of<T>(n, function));
    }

    // Changes the shape to `shape` (one extent per dimension; the rank and chunk shape
    // stay): chunks wholly outside the new shape are deleted, and elements between an old
    // edge and a grown one read as the fill value (wraps `zarr_array_resize`). Consolidated
    // metadata is not updated. Do not read or write through this object while it resizes.
    // Throws zarr::Error: NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, more than 2^64
    // elements), UNSUPPORTED (2022 draft layout), CORRUPT_DATA, READ_ONLY, IO.
    void resize(const std::vector<uint64_t> &shape) {
        detail::check(zarr_array_resize(get(), shape.size(), shape.data()));
    }

    // Grows dimension `dim` by `count[dim]` and writes the raw buffer `buf` of `buf_len`
    // bytes (dense, C order, the block's exact size) into the new part; `count` equals the
    // shape on every other dimension (wraps `zarr_array_append`). If the write fails, the
    // array keeps its new shape. Throws zarr::Error: NULL_ARGUMENT, INVALID_ARGUMENT (wrong
    // rank, `dim` not below the rank, `count` not matching the shape elsewhere),
    // OUT_OF_BOUNDS (the extent passes 2^64 - 1), BUFFER_SIZE_MISMATCH, UNSUPPORTED,
    // OUT_OF_MEMORY, READ_ONLY, IO.
    void append(const std::vector<uint64_t> &count, size_t dim, const void *buf, size_t buf_len) {
        detail::check(zarr_array_append(get(), count.size(), count.data(), dim, buf, buf_len));
    }

    // Grows dimension `dim` by `count[dim]` and writes `values` (dense, C order) into the
    // new part (wraps `zarr_array_append`). Throws zarr::Error: INVALID_ARGUMENT when
    // sizeof(T) differs from the element size, BUFFER_SIZE_MISMATCH when `values.size()`
    // differs from the block's element count, and as the raw overload.
    template <typename T>
    void append(const std::vector<uint64_t> &count, size_t dim, const std::vector<T> &values) {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::append");
        append(count, dim, values.data(), values.size() * sizeof(T));
    }

    // Reads the variable-length elements of the selection `start .. start + count`, C
    // order, of a `string` array (UTF-8 text) or a `bytes` array (any bytes, NUL included)
    // (wraps `zarr_array_read_vlen`: a size query, then the read, repeated if the array
    // grew in between). Elements never written are the fill value (usually ""). Throws
    // zarr::Error: NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, mismatched lengths, an
    // element count that overflows), UNSUPPORTED (an array of fixed-size elements: use
    // `read`), OUT_OF_BOUNDS, CORRUPT_DATA, OUT_OF_MEMORY, IO.
    std::vector<std::string> read_strings(const std::vector<uint64_t> &start,
                                          const std::vector<uint64_t> &count) const {
        const char *function = "zarr::Array::read_strings";
        check_ranks(start, count, function);
        size_t n = element_count(count, function);
        if (n > std::numeric_limits<size_t>::max() / sizeof(uint64_t) - 1) {
            detail::invalid_argument(std::string(function) + ": too many elements");
        }
        std::vector<uint64_t> offsets(n + 1);
        size_t size = 0;
        detail::check(zarr_array_read_vlen(get(), start.size(), start.data(), count.data(),
                                           offsets.data(), offsets.size(), nullptr, 0, &size));
        std::string data;
        for (;;) {
            data.resize(size);
            zarr_status status = zarr_array_read_vlen(get(), start.size(), start.data(),
                                                      count.data(), offsets.data(), offsets.size(),
                                                      data.data(), data.size(), &size);
            if (status == ZARR_ERROR_BUFFER_TOO_SMALL && size > data.size()) continue;
            detail::check(status);
            break;
        }
        std::vector<std::string> values;
        values.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            // substr throws std::out_of_range rather than reading past `data`.
            values.push_back(data.substr(static_cast<size_t>(offsets[i]),
                                         static_cast<size_t>(offsets[i + 1] - offsets[i])));
        }
        return values;
    }

    // Writes `values`, the selection `start .. start + count` in C order, to a `string`
    // array (each value valid UTF-8) or a `bytes` array (any bytes) (wraps
    // `zarr_array_write_vlen` with the values concatenated and their offsets). Everything
    // is checked before anything is written. Throws zarr::Error: NULL_ARGUMENT,
    // INVALID_ARGUMENT (wrong rank, mismatched lengths, `values.size()` not the selection's
    // element count, text that is not UTF-8, a total size that overflows), UNSUPPORTED
    // (fixed-size elements: use `write`; the read-only `json2` codec), OUT_OF_BOUNDS,
    // CORRUPT_DATA, OUT_OF_MEMORY, READ_ONLY, IO.
    void write_strings(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                       const std::vector<std::string> &values) {
        const char *function = "zarr::Array::write_strings";
        check_ranks(start, count, function);
        std::vector<uint64_t> offsets;
        offsets.reserve(values.size() + 1);
        offsets.push_back(0);
        size_t total = 0;
        for (const std::string &v : values) {
            if (v.size() > std::numeric_limits<size_t>::max() - total) {
                detail::invalid_argument(std::string(function) + ": total size overflows");
            }
            total += v.size();
            offsets.push_back(total);
        }
        std::string data;
        data.reserve(total);
        for (const std::string &v : values) data += v;
        detail::check(zarr_array_write_vlen(get(), start.size(), start.data(), count.data(),
                                            offsets.data(), offsets.size(), data.data(),
                                            data.size()));
    }

    // Reads the whole chunk at grid coordinates `chunk_indices` into the raw buffer `buf`
    // (wraps `zarr_array_read_chunk`). Throws zarr::Error: NULL_ARGUMENT,
    // INVALID_ARGUMENT (wrong rank), OUT_OF_BOUNDS (no such chunk), BUFFER_TOO_SMALL,
    // CORRUPT_DATA, IO.
    void read_chunk(const std::vector<uint64_t> &chunk_indices, void *buf, size_t buf_len) const {
        detail::check(zarr_array_read_chunk(get(), chunk_indices.size(), chunk_indices.data(), buf,
                                            buf_len));
    }

    // Reads the whole chunk at `chunk_indices` into a new vector of T, at the full chunk
    // shape (wraps `zarr_array_read_chunk`). Throws zarr::Error: INVALID_ARGUMENT when
    // sizeof(T) differs from the element size, and as the raw overload.
    template <typename T> std::vector<T> read_chunk(const std::vector<uint64_t> &chunk_indices) const {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::read_chunk");
        size_t nbytes = chunk_nbytes();
        std::vector<T> values(nbytes / sizeof(T));
        read_chunk(chunk_indices, values.data(), nbytes);
        return values;
    }

    // Writes the whole chunk at `chunk_indices` from the raw buffer `buf` of exactly
    // `chunk_nbytes()` bytes (wraps `zarr_array_write_chunk`). Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT, OUT_OF_BOUNDS, BUFFER_SIZE_MISMATCH, IO.
    void write_chunk(const std::vector<uint64_t> &chunk_indices, const void *buf, size_t buf_len) {
        detail::check(zarr_array_write_chunk(get(), chunk_indices.size(), chunk_indices.data(),
                                             buf, buf_len));
    }

    // Writes the whole chunk at `chunk_indices` from `values` (full chunk shape, C order;
    // wraps `zarr_array_write_chunk`). Throws zarr::Error: INVALID_ARGUMENT when sizeof(T)
    // differs from the element size, and as the raw overload.
    template <typename T>
    void write_chunk(const std::vector<uint64_t> &chunk_indices, const std::vector<T> &values) {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::write_chunk");
        write_chunk(chunk_indices, values.data(), values.size() * sizeof(T));
    }

    // Reads the whole inner chunk at `inner_chunk_indices` (coordinates in the array-wide
    // grid of inner chunks) into the raw buffer `buf` (wraps
    // `zarr_array_read_inner_chunk`). There is no inner-chunk write in the C API: write
    // shards with `write_chunk` or regions with `write`. Throws zarr::Error:
    // NULL_ARGUMENT, INVALID_ARGUMENT, OUT_OF_BOUNDS, BUFFER_TOO_SMALL, CORRUPT_DATA, IO.
    void read_inner_chunk(const std::vector<uint64_t> &inner_chunk_indices, void *buf,
                          size_t buf_len) const {
        detail::check(zarr_array_read_inner_chunk(get(), inner_chunk_indices.size(),
                                                  inner_chunk_indices.data(), buf, buf_len));
    }

    // Reads the whole inner chunk at `inner_chunk_indices` into a new vector of T (wraps
    // `zarr_array_read_inner_chunk`). Throws zarr::Error: INVALID_ARGUMENT when sizeof(T)
    // differs from the element size, OUT_OF_MEMORY, and as the raw overload.
    template <typename T>
    std::vector<T> read_inner_chunk(const std::vector<uint64_t> &inner_chunk_indices) const {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::read_inner_chunk");
        size_t nbytes = inner_chunk_nbytes();
        std::vector<T> values(nbytes / sizeof(T));
        read_inner_chunk(inner_chunk_indices, values.data(), nbytes);
        return values;
    }

    // The name of dimension `dim` (C order), or std::nullopt when it is unnamed (wraps
    // `zarr_array_dimension_name`: v3 `dimension_names`, v2 `_ARRAY_DIMENSIONS`). Throws
    // zarr::Error: NULL_ARGUMENT, OUT_OF_BOUNDS, INVALID_METADATA.
    std::optional<std::string> dimension_name(size_t dim) const {
        char *raw = nullptr;
        zarr_status status = zarr_array_dimension_name(get(), dim, &raw);
        std::unique_ptr<char, detail::StringDeleter> owned(raw);
        detail::check(status);
        if (!owned) return std::nullopt;
        return std::string(owned.get());
    }

    // Every dimension's name, C order (see `dimension_name`).
    std::vector<std::optional<std::string>> dimension_names() const {
        std::vector<std::optional<std::string>> names;
        for (size_t d = 0, n = ndim(); d < n; ++d) names.push_back(dimension_name(d));
        return names;
    }

    // The fill value as a T, whose size must be the element size (wraps
    // `zarr_array_fill_value`). Throws zarr::Error: INVALID_ARGUMENT (element type).
    template <typename T> T fill_value() const {
        static_assert(detail::is_element_type<T>(), "");
        detail::check_element_size<T>(element_size(), "zarr::Array::fill_value");
        T value{};
        detail::check(zarr_array_fill_value(get(), &value, sizeof value));
        return value;
    }

    // The fill value converted to double as `read_double` converts elements (wraps
    // `zarr_array_fill_value_double`; xarray keeps a Zarr v2 variable's _FillValue there).
    // Throws zarr::Error: NOT_FOUND (a Zarr v2 fill_value of null), TYPE_MISMATCH.
    double fill_value_double() const {
        double value = 0;
        detail::check(zarr_array_fill_value_double(get(), &value));
        return value;
    }

    // The codecs' Zarr v3 names in encoding order (wraps `zarr_array_codec_count` and
    // `zarr_array_codec_name`). Throws zarr::Error: NULL_ARGUMENT.
    std::vector<std::string> codec_names() const {
        return detail::names_by_index(get(), zarr_array_codec_count, zarr_array_codec_name);
    }

    // The configuration of codec `index` as JSON object text (wraps
    // `zarr_array_codec_configuration_json`). Throws zarr::Error: OUT_OF_BOUNDS.
    std::string codec_configuration_json(size_t index) const {
        zarr_array *a = get();
        return detail::take_string(
            [a, index](char **out) { return zarr_array_codec_configuration_json(a, index, out); });
    }

    // Erases the chunk (for a sharded array, the shard) at `chunk_indices` (wraps
    // `zarr_array_erase_chunk`). Throws zarr::Error: INVALID_ARGUMENT, OUT_OF_BOUNDS,
    // READ_ONLY, IO.
    void erase_chunk(const std::vector<uint64_t> &chunk_indices) {
        detail::check(zarr_array_erase_chunk(get(), chunk_indices.size(), chunk_indices.data()));
    }

    // The stored size of the chunk at `chunk_indices`, or std::nullopt when it is not
    // stored (wraps `zarr_array_chunk_stored_nbytes`). Throws zarr::Error:
    // INVALID_ARGUMENT, OUT_OF_BOUNDS, IO.
    std::optional<uint64_t> chunk_stored_nbytes(const std::vector<uint64_t> &chunk_indices) const {
        bool stored = false;
        uint64_t nbytes = 0;
        detail::check(zarr_array_chunk_stored_nbytes(get(), chunk_indices.size(),
                                                     chunk_indices.data(), &stored, &nbytes));
        if (!stored) return std::nullopt;
        return nbytes;
    }

    // ---- Collective calls (see zarr::Comm): every rank of `comm` calls them together. ----

    // Creates an array at `path` from a complete Zarr v3 metadata document, collectively:
    // every rank passes the same `path` and `metadata_json`; rank 0 writes the metadata,
    // then every rank opens the array (wraps `zarr_array_create_collective`). Throws
    // zarr::Error on every rank: INVALID_ARGUMENT (ranks passing different arguments, a
    // NUL byte on any rank), NULL_ARGUMENT, INVALID_PATH, ALREADY_EXISTS,
    // NODE_TYPE_MISMATCH, INVALID_METADATA, UNSUPPORTED, IO (of rank 0's creation or any
    // rank's opening), COMMUNICATION.
    static Array create_collective(const Comm &comm, Store &store, const std::string &path,
                                   const std::string &metadata_json) {
        const char *p = nullptr, *m = nullptr;
        comm.agree_on([&] {
            p = detail::c_str(path, "path");
            m = detail::c_str(metadata_json, "metadata_json");
        });
        zarr_array *raw = nullptr;
        detail::check(zarr_array_create_collective(comm.get(), store.get(), p, m, &raw));
        return Array(raw);
    }

    // Writes each rank's box `start .. start + count` from its raw buffer `buf` of exactly
    // `buf_len` bytes (dense, C order), collectively (wraps `zarr_array_write_collective`):
    // the result equals one serial write of every rank's box, boxes may cut chunks and
    // shards anywhere but must not overlap; a box with a zero count writes nothing but its
    // rank takes part. Each chunk or shard is written once, by one rank. Throws zarr::Error
    // on every rank: NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, `start` and `count` of
    // different lengths, overlapping boxes, ranks writing different arrays),
    // OUT_OF_BOUNDS, BUFFER_SIZE_MISMATCH, UNSUPPORTED (variable-length elements),
    // CORRUPT_DATA, OUT_OF_MEMORY, READ_ONLY, IO, COMMUNICATION. Argument errors of any
    // rank are found before anything is written.
    void write_collective(const Comm &comm, const std::vector<uint64_t> &start,
                          const std::vector<uint64_t> &count, const void *buf, size_t buf_len) {
        comm.agree_on([&] { check_ranks(start, count, "zarr::Array::write_collective"); });
        detail::check(zarr_array_write_collective(comm.get(), get(), start.size(), start.data(),
                                                  count.data(), buf, buf_len));
    }

    // Writes each rank's box from its `values` (dense, C order), collectively (wraps
    // `zarr_array_write_collective`). Throws zarr::Error on every rank: INVALID_ARGUMENT
    // when sizeof(T) differs from the element size on any rank, BUFFER_SIZE_MISMATCH when
    // `values.size()` is not the box's element count, and as the raw overload.
    template <typename T>
    void write_collective(const Comm &comm, const std::vector<uint64_t> &start,
                          const std::vector<uint64_t> &count, const std::vector<T> &values) {
        static_assert(detail::is_element_type<T>(), "");
        const char *function = "zarr::Array::write_collective";
        comm.agree_on([&] {
            detail::check_element_size<T>(element_size(), function);
            check_ranks(start, count, function);
        });
        detail::check(zarr_array_write_collective(comm.get(), get(), start.size(), start.data(),
                                                  count.data(), values.data(),
                                                  values.size() * sizeof(T)));
    }

    // Reads each rank's box `start .. start + count` into its raw buffer `buf` of
    // `buf_len` bytes (dense, C order), collectively (wraps `zarr_array_read_collective`);
    // boxes may overlap. After a failure while reading, `buf` may be partly written.
    // Throws zarr::Error on every rank: NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank,
    // mismatched lengths), OUT_OF_BOUNDS, BUFFER_TOO_SMALL, UNSUPPORTED (variable-length
    // elements), CORRUPT_DATA, OUT_OF_MEMORY, IO, COMMUNICATION.
    void read_collective(const Comm &comm, const std::vector<uint64_t> &start,
                         const std::vector<uint64_t> &count, void *buf, size_t buf_len) const {
        comm.agree_on([&] { check_ranks(start, count, "zarr::Array::read_collective"); });
        detail::check(zarr_array_read_collective(comm.get(), get(), start.size(), start.data(),
                                                 count.data(), buf, buf_len));
    }

    // Reads each rank's box into a new vector of T (C order), collectively (wraps
    // `zarr_array_read_collective`). Throws zarr::Error on every rank: INVALID_ARGUMENT
    // when sizeof(T) differs from the element size on any rank, OUT_OF_BOUNDS (a box past
    // the array on any rank), OUT_OF_MEMORY, and as the raw overload.
    template <typename T>
    std::vector<T> read_collective(const Comm &comm, const std::vector<uint64_t> &start,
                                   const std::vector<uint64_t> &count) const {
        static_assert(detail::is_element_type<T>(), "");
        std::vector<T> values;
        size_t nbytes = 0;
        comm.agree_on([&] {
            detail::check_element_size<T>(element_size(), "zarr::Array::read_collective");
            nbytes = selection_nbytes(start, count);
            values.resize(nbytes / sizeof(T));
        });
        detail::check(zarr_array_read_collective(comm.get(), get(), start.size(), start.data(),
                                                 count.data(), values.data(), nbytes));
        return values;
    }

    // Changes the shape to `shape`, collectively: every rank passes the same shape; rank 0
    // rewrites the metadata, then every rank's object has the new shape (wraps
    // `zarr_array_resize_collective`; see `resize`). Throws zarr::Error on every rank:
    // NULL_ARGUMENT, INVALID_ARGUMENT (wrong rank, ranks passing different shapes),
    // UNSUPPORTED, CORRUPT_DATA, READ_ONLY, IO, COMMUNICATION.
    void resize_collective(const Comm &comm, const std::vector<uint64_t> &shape) {
        detail::check(zarr_array_resize_collective(comm.get(), get(), shape.size(), shape.data()));
    }

    // Grows dimension `dim` by `length`, then writes each rank's box of the appended block
    // from its raw buffer `buf` of `buf_len` bytes, collectively: the time step of a
    // simulation, each rank writing its part (wraps `zarr_array_append_collective`).
    // Every rank passes the same `dim` and `length`; `start`/`count` are relative to the
    // appended block (`start[dim] + count[dim] <= length`); boxes as in
    // `write_collective`. If the write fails after the resize, the array keeps its new
    // shape. Throws zarr::Error on every rank: those of `resize_collective` and
    // `write_collective`; INVALID_ARGUMENT also for a `dim` outside the array or
    // `start`/`count` of different lengths; OUT_OF_BOUNDS for a box outside the block.
    void append_collective(const Comm &comm, size_t dim, uint64_t length,
                           const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                           const void *buf, size_t buf_len) {
        comm.agree_on([&] { check_ranks(start, count, "zarr::Array::append_collective"); });
        detail::check(zarr_array_append_collective(comm.get(), get(), dim, length, start.size(),
                                                   start.data(), count.data(), buf, buf_len));
    }

    // Grows dimension `dim` by `length` and writes each rank's box of the appended block
    // from its `values` (dense, C order), collectively (wraps
    // `zarr_array_append_collective`). Throws zarr::Error on every rank: INVALID_ARGUMENT
    // when sizeof(T) differs from the element size on any rank, and as the raw overload.
    template <typename T>
    void append_collective(const Comm &comm, size_t dim, uint64_t length,
                           const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                           const std::vector<T> &values) {
        static_assert(detail::is_element_type<T>(), "");
        const char *function = "zarr::Array::append_collective";
        comm.agree_on([&] {
            detail::check_element_size<T>(element_size(), function);
            check_ranks(start, count, function);
        });
        detail::check(zarr_array_append_collective(comm.get(), get(), dim, length, start.size(),
                                                   start.data(), count.data(), values.data(),
                                                   values.size() * sizeof(T)));
    }

    // Replaces the attributes with the JSON object text `attributes_json`, collectively
    // (every rank passes the same text; rank 0 writes, then every object has them; wraps
    // `zarr_array_set_attributes_json_collective`). Throws zarr::Error on every rank:
    // NULL_ARGUMENT, INVALID_ARGUMENT (not a JSON object, different on some rank, a NUL
    // byte), READ_ONLY, IO, COMMUNICATION.
    void set_attributes_collective(const Comm &comm, const std::string &attributes_json) {
        const char *a = nullptr;
        comm.agree_on([&] { a = detail::c_str(attributes_json, "attributes_json"); });
        detail::check(zarr_array_set_attributes_json_collective(comm.get(), get(), a));
    }

  private:
    // Throws INVALID_ARGUMENT when `start` and `count` have different lengths.
    static void check_ranks(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count,
                            const char *function) {
        if (start.size() != count.size()) {
            detail::invalid_argument(std::string(function) + ": start has " +
                                     std::to_string(start.size()) + " values but count has " +
                                     std::to_string(count.size()));
        }
    }

    // Throws INVALID_ARGUMENT unless `start`, `count` and `strides` have the same length
    // (the C function reads that many values from each).
    static void check_strided_ranks(const std::vector<uint64_t> &start,
                                    const std::vector<uint64_t> &count,
                                    const std::vector<int64_t> &strides, const char *function) {
        check_ranks(start, count, function);
        if (strides.size() != start.size()) {
            detail::invalid_argument(std::string(function) + ": start has " +
                                     std::to_string(start.size()) + " values but the strides " +
                                     std::to_string(strides.size()));
        }
    }

    // The number of elements of a selection, the product of `count` (0 when any count is
    // 0); throws INVALID_ARGUMENT when it does not fit in size_t.
    static size_t element_count(const std::vector<uint64_t> &count, const char *function) {
        for (uint64_t c : count) {
            if (c == 0) return 0;
        }
        uint64_t n = 1;
        for (uint64_t c : count) {
            if (n > std::numeric_limits<size_t>::max() / c) {
                detail::invalid_argument(std::string(function) +
                                         ": the element count (product of count) overflows");
            }
            n *= c;
        }
        return static_cast<size_t>(n);
    }

    // `n` elements of T in bytes; throws INVALID_ARGUMENT when that overflows size_t.
    template <typename T> static size_t bytes_of(size_t n, const char *function) {
        if (n > std::numeric_limits<size_t>::max() / sizeof(T)) {
            detail::invalid_argument(std::string(function) + ": " + std::to_string(n) +
                                     " elements overflow the size in bytes");
        }
        return n * sizeof(T);
    }

    // Strides in elements of T converted to bytes; throws INVALID_ARGUMENT when one
    // overflows int64_t (the C function refuses strides below 1 itself).
    template <typename T>
    static std::vector<int64_t> strides_in_bytes(const std::vector<int64_t> &strides,
                                                 const char *function) {
        const int64_t size = static_cast<int64_t>(sizeof(T));
        std::vector<int64_t> bytes;
        bytes.reserve(strides.size());
        for (int64_t s : strides) {
            if (s > std::numeric_limits<int64_t>::max() / size ||
                s < std::numeric_limits<int64_t>::min() / size) {
                detail::invalid_argument(std::string(function) + ": the stride " +
                                         std::to_string(s) + " overflows in bytes");
            }
            bytes.push_back(s * size);
        }
        return bytes;
    }

    // The byte strides of a dense Fortran-order (column-major) buffer of T for a selection
    // of `count`: sizeof(T), then each the previous times the previous count (a count of 0
    // taken as 1, so that the strides stay valid for an empty selection); throws
    // INVALID_ARGUMENT when one overflows int64_t.
    template <typename T>
    static std::vector<int64_t> fortran_strides_in_bytes(const std::vector<uint64_t> &count,
                                                         const char *function) {
        const uint64_t max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        std::vector<int64_t> strides;
        strides.reserve(count.size());
        uint64_t stride = sizeof(T);
        for (size_t d = 0; d < count.size(); ++d) {
            strides.push_back(static_cast<int64_t>(stride));
            uint64_t c = count[d] == 0 ? 1 : count[d];
            if (d + 1 < count.size() && stride > max / c) {
                detail::invalid_argument(std::string(function) +
                                         ": the Fortran-order strides overflow int64_t");
            }
            stride *= c;
        }
        return strides;
    }
};

// Settings for a new array, so that no metadata document is written by hand (wraps
// `zarr_array_builder *`; move-only). Setters return the builder for chaining and throw
// zarr::Error as their C functions document; `create` makes the array.
//
//     zarr::Array a = zarr::ArrayBuilder(ZARR_DATA_TYPE_FLOAT32, {100, 120})
//                         .chunk_shape({32, 32}).zstd(3).dimension_name(0, "lat")
//                         .create(store, "/temperature");
class ArrayBuilder : public detail::Handle<zarr_array_builder> {
  public:
    // Wraps `zarr_array_builder_new`. Throws zarr::Error: INVALID_ARGUMENT (unknown or raw
    // data type), OUT_OF_BOUNDS (more than 2^64 elements).
    ArrayBuilder(zarr_data_type data_type, const std::vector<uint64_t> &shape) {
        zarr_array_builder *raw = nullptr;
        detail::check(zarr_array_builder_new(data_type, shape.size(), shape.data(), &raw));
        Handle::operator=(Handle(raw));
    }

    ArrayBuilder &chunk_shape(const std::vector<uint64_t> &shape) {
        detail::check(zarr_array_builder_set_chunk_shape(get(), shape.size(), shape.data()));
        return *this;
    }
    ArrayBuilder &shard_shape(const std::vector<uint64_t> &shape) {
        detail::check(zarr_array_builder_set_shard_shape(get(), shape.size(), shape.data()));
        return *this;
    }
    template <typename T> ArrayBuilder &fill_value(const T &value) {
        static_assert(detail::is_element_type<T>(), "");
        detail::check(zarr_array_builder_set_fill_value(get(), &value, sizeof value));
        return *this;
    }
    // `configuration_json` "" means none.
    ArrayBuilder &codec(const std::string &name, const std::string &configuration_json = "") {
        detail::check(zarr_array_builder_add_codec(
            get(), detail::c_str(name, "name"),
            configuration_json.empty() ? nullptr
                                       : detail::c_str(configuration_json, "configuration_json")));
        return *this;
    }
    ArrayBuilder &gzip(int32_t level) {
        detail::check(zarr_array_builder_add_gzip(get(), level));
        return *this;
    }
    ArrayBuilder &zstd(int32_t level) {
        detail::check(zarr_array_builder_add_zstd(get(), level));
        return *this;
    }
    // Names dimension `dim` (C order); std::nullopt removes the name.
    ArrayBuilder &dimension_name(size_t dim, const std::optional<std::string> &name) {
        detail::check(zarr_array_builder_set_dimension_name(
            get(), dim, name ? detail::c_str(*name, "name") : nullptr));
        return *this;
    }
    ArrayBuilder &attributes_json(const std::string &json) {
        detail::check(zarr_array_builder_set_attributes_json(get(), detail::c_str(json, "json")));
        return *this;
    }
    ArrayBuilder &attribute_string(const std::string &key, const std::string &value) {
        detail::check(zarr_array_builder_set_attribute_string(get(), detail::c_str(key, "key"),
                                                              detail::c_str(value, "value")));
        return *this;
    }
    ArrayBuilder &attribute_double(const std::string &key, double value) {
        detail::check(zarr_array_builder_set_attribute_double(get(), detail::c_str(key, "key"), value));
        return *this;
    }
    ArrayBuilder &attribute_int64(const std::string &key, int64_t value) {
        detail::check(zarr_array_builder_set_attribute_int64(get(), detail::c_str(key, "key"), value));
        return *this;
    }
    // 2 or 3.
    ArrayBuilder &format(uint32_t zarr_format) {
        detail::check(zarr_array_builder_set_format(get(), zarr_format));
        return *this;
    }
    // Creates the array at `path` (wraps `zarr_array_builder_create`); the builder may
    // create more.
    Array create(Store &store, const std::string &path) const {
        zarr_array *raw = nullptr;
        detail::check(zarr_array_builder_create(get(), store.get(), detail::c_str(path, "path"), &raw));
        return Array(raw);
    }
};

// One element of a complex data type whose parts are held as bits: the real part, then
// the imaginary part (`uint16_t` parts for complex_bfloat16 and complex_float16, `uint8_t`
// for the complex float4/float6/float8 types; their 4- and 6-bit codes in the low bits).
// The layout of the C buffers, usable as the element type of the typed members.
template <typename T> struct ComplexBits {
    static_assert(std::is_same<T, uint8_t>::value || std::is_same<T, uint16_t>::value,
                  "zarr::ComplexBits: the parts are uint8_t or uint16_t");
    T re;
    T im;
    bool operator==(const ComplexBits &o) const { return re == o.re && im == o.im; }
    bool operator!=(const ComplexBits &o) const { return !(*this == o); }
};
static_assert(sizeof(ComplexBits<uint8_t>) == 2 && sizeof(ComplexBits<uint16_t>) == 4,
              "zarr::ComplexBits has no padding");

// The Zarr name of a `ZARR_DATA_TYPE_*` code ("int4", "complex_bfloat16", ...; "unknown
// data type" for other values) (wraps `zarr_data_type_str`). Never throws but
// std::bad_alloc.
inline std::string data_type_str(zarr_data_type data_type) {
    return zarr_data_type_str(data_type);
}

// The int8 values of int2, int4, uint2 or uint4 codes as an array of that type reads them
// (one byte per element, the code in the low bits): int2/int4 sign-extended, uint2/uint4
// zero-extended; bits above the code are ignored, as the registry says a reader ignores
// them (wraps `zarr_sub_byte_to_int8`). Throws zarr::Error: INVALID_ARGUMENT (another
// data type).
inline std::vector<int8_t> sub_byte_to_int8(zarr_data_type data_type,
                                            const std::vector<uint8_t> &codes) {
    std::vector<int8_t> values(codes.size());
    detail::check(zarr_sub_byte_to_int8(data_type, codes.data(), values.data(), codes.size()));
    return values;
}

// The codes of int8 values in int2, int4, uint2 or uint4, as an array of that type takes
// them in writes (wraps `zarr_int8_to_sub_byte`). Throws zarr::Error: INVALID_ARGUMENT
// (another data type, or a value out of the type's range: the message names the first
// such index, "values[i]").
inline std::vector<uint8_t> int8_to_sub_byte(zarr_data_type data_type,
                                             const std::vector<int8_t> &values) {
    std::vector<uint8_t> codes(values.size());
    detail::check(zarr_int8_to_sub_byte(data_type, values.data(), codes.data(), values.size()));
    return codes;
}

// The calling thread's message for its most recent failed libzarr call, "" if none (wraps
// `zarr_last_error_message`). Throws std::bad_alloc only.
inline std::string last_error_message() { return zarr_last_error_message(); }

// Fixed English text for any status value (wraps `zarr_status_str`). Never throws.
inline const char *status_str(zarr_status status) noexcept { return zarr_status_str(status); }

// Sets the number of worker threads for parallel chunk coding; 0 restores the default
// (wraps `zarr_thread_pool_set_size`). Throws zarr::Error: OUT_OF_MEMORY.
inline void set_thread_pool_size(size_t size) { detail::check(zarr_thread_pool_set_size(size)); }

// The number of worker threads (wraps `zarr_thread_pool_size`). Throws zarr::Error:
// OUT_OF_MEMORY.
inline size_t thread_pool_size() {
    size_t n = 0;
    detail::check(zarr_thread_pool_size(&n));
    return n;
}

// Deprecated: `set_thread_pool_size`.
[[deprecated("use zarr::set_thread_pool_size")]] inline void set_num_threads(size_t n) {
    set_thread_pool_size(n);
}

// Deprecated: `thread_pool_size`.
[[deprecated("use zarr::thread_pool_size")]] inline size_t num_threads() {
    return thread_pool_size();
}

// The library's version as "MAJOR.MINOR.PATCH" (wraps `zarr_version_string`; the library
// linked at run time, not the header). Throws std::bad_alloc only.
inline std::string version() { return zarr_version_string(); }

// The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (wraps
// `zarr_version_number`). Never throws.
inline uint32_t version_number() noexcept { return zarr_version_number(); }

} // namespace zarr

#endif // ZARR_HPP
