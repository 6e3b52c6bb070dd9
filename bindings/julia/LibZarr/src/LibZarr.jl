# LibZarr.jl -- a thin Julia binding of libzarr's C API (include/zarr.h) through @ccall.
#
# NOT RUN on the development machine: Julia cannot be installed there. The @ccall
# signatures are checked against zarr.h by bindings/julia/check_signatures.py (ctest label
# "julia"); the Julia code itself has not been executed. See bindings/julia/README.md.
#
# Dimension order. Julia arrays are column-major (first index fastest), Zarr buffers are
# C order (last index fastest). The same bytes serve both if the dimensions are reversed:
# a Julia `Array{T}(undef, nx, ny)` is a Zarr array of shape (ny, nx). Every function here
# takes and returns Julia order (sizes, 1-based ranges, 1-based chunk coordinates) and
# reverses for the C calls; `zarr_shape` gives the stored (C order) shape.
#
# Handles. ZarrStore, ZarrGroup and ZarrArray own one C handle each; a finalizer calls the
# matching zarr_*_free, and `close` frees it at once. libzarr children keep their parents
# alive, so the order in which the garbage collector finalizes them does not matter.
#
# Errors. Every failing C call throws `ZarrError(status, message)`, the message being
# zarr_last_error_message() read right after the call (no yield point in between, so the
# task is still on the OS thread whose message it is).

module LibZarr

export ZarrError, ZarrStore, ZarrGroup, ZarrArray
export open_filesystem, open_memory, open_zip, open_url, open_consolidated, open_group, create_group, create_group_v2
export create_group_with_format
export open_array, create_array, descendants_json, consolidate!, zarr_format
export attributes, set_attributes!, children_json, metadata_json
export read_array, read_array!, write_array!, read_chunk, write_chunk!, read_inner_chunk
export read_double, fill_value_double, data_type_name, sub_byte_to_int8, int8_to_sub_byte
export chunk_aligned, chunk_key, decode_chunk
export store_get, store_set!, store_erase!, store_list_json, node_metadata_json
export zarr_shape, chunk_size, chunk_grid_size, chunk_region, inner_chunk_size, element_size, data_type
export chunk_nbytes, selection_nbytes
export read_strings, read_bytes, write_strings!
export set_num_threads, num_threads, libversion, libversion_number, status_str
export set_thread_pool_size, thread_pool_size
export dimension_names, fill_value, codec_names, codec_configuration_json, children
export attribute, attribute_names, set_attribute!, delete_attribute!
export delete_node!, erase_chunk!, chunk_stored_nbytes
export ArrayBuilder, set_chunk_size!, set_shard_size!, set_fill_value!, add_codec!, add_gzip!
export add_zstd!, set_dimension_name!, set_attributes_json!, set_format!
export ZarrStoreCallbacks, open_callbacks, sink_write, sink_extend, callback_set_error
export write_protection, commit!, versions_json
export ZarrComm, ZarrCommOps, comm_create, comm_create_mpi, comm_rank, comm_size, agree
export last_write_json, comm_callback_set_error, libzarr_mpi
export create_array_collective, write_collective!, read_collective!, read_collective
export resize_collective!, append_collective!, set_attributes_collective!
export create_group_collective, consolidate_collective!

# ---- the library --------------------------------------------------------------------

const _LIBPATH = Ref{String}("")

"""
    libzarr() -> String

The library every `@ccall` of this module loads: `ENV["LIBZARR"]` if set (for example
`/path/to/libzarr/build/cargo/release/libzarr.so`), otherwise `"libzarr"`, which the
system loader finds (`LD_LIBRARY_PATH`, `DYLD_LIBRARY_PATH`, `PATH`). Read once, at the
first call; later changes of the variable have no effect.
"""
function libzarr()
    if isempty(_LIBPATH[])
        _LIBPATH[] = get(ENV, "LIBZARR", "libzarr")
    end
    return _LIBPATH[]
end

# ---- status codes (zarr.h: stable forever) -------------------------------------------

const ZARR_OK = Int32(0)
const ZARR_ERROR_NULL_ARGUMENT = Int32(-1)
const ZARR_ERROR_INVALID_ARGUMENT = Int32(-2)
const ZARR_ERROR_BUFFER_TOO_SMALL = Int32(-3)
const ZARR_ERROR_BUFFER_SIZE_MISMATCH = Int32(-4)
const ZARR_ERROR_OUT_OF_BOUNDS = Int32(-5)
const ZARR_ERROR_NOT_FOUND = Int32(-6)
const ZARR_ERROR_ALREADY_EXISTS = Int32(-7)
const ZARR_ERROR_NODE_TYPE_MISMATCH = Int32(-8)
const ZARR_ERROR_INVALID_METADATA = Int32(-9)
const ZARR_ERROR_UNSUPPORTED = Int32(-10)
const ZARR_ERROR_CORRUPT_DATA = Int32(-11)
const ZARR_ERROR_IO = Int32(-12)
const ZARR_ERROR_INVALID_PATH = Int32(-13)
const ZARR_ERROR_OUT_OF_MEMORY = Int32(-14)
const ZARR_ERROR_READ_ONLY = Int32(-15)
const ZARR_ERROR_INTERNAL = Int32(-16)
const ZARR_ERROR_TYPE_MISMATCH = Int32(-17)
const ZARR_ERROR_RESOURCE = Int32(-18)
const ZARR_ERROR_NETWORK = Int32(-20)
const ZARR_ERROR_ACCESS_DENIED = Int32(-21)
const ZARR_ERROR_TIMEOUT = Int32(-22)
const ZARR_ERROR_REMOTE = Int32(-23)
const ZARR_ERROR_CONFLICT = Int32(-24)
const ZARR_ERROR_COMMUNICATION = Int32(-25)
const ZARR_ERROR_PANIC = Int32(-99)

"""
    ZarrError(status, message)

Thrown when a libzarr call fails. `status` is the C status code (`ZARR_ERROR_*`, negative),
`message` the text of `zarr_last_error_message()` (it names the C function and the causes),
or a message of this module for checks made on the Julia side.
"""
struct ZarrError <: Exception
    status::Int32
    message::String
end

function Base.showerror(io::IO, e::ZarrError)
    print(io, "ZarrError(", e.status, ", ", status_str(e.status), "): ", e.message)
end

"""
    status_str(status) -> String

Fixed English text for any status value (wraps `zarr_status_str`).
"""
status_str(status::Integer) =
    unsafe_string(@ccall libzarr().zarr_status_str(status::Int32)::Cstring)

# Throws ZarrError(status, zarr_last_error_message()) unless status is ZARR_OK. Call it on
# the @ccall result directly.
function check(status::Int32)
    if status != ZARR_OK
        message = unsafe_string(@ccall libzarr().zarr_last_error_message()::Cstring)
        throw(ZarrError(status, message))
    end
    return nothing
end

# Copies a string returned through `char **` and frees it with zarr_string_free.
function take_string(p::Ptr{UInt8})
    p == C_NULL && return ""
    try
        return unsafe_string(p)
    finally
        @ccall libzarr().zarr_string_free(p::Ptr{UInt8})::Cvoid
    end
end

# ---- handles ---------------------------------------------------------------------------

"""
    ZarrStore

An open store (wraps `zarr_store *`). Create with [`open_filesystem`](@ref) or
[`open_memory`](@ref); freed by a finalizer or `close`.
"""
mutable struct ZarrStore
    ptr::Ptr{Cvoid}
    function ZarrStore(ptr::Ptr{Cvoid})
        return finalizer(free!, new(ptr))
    end
end

"""
    ZarrGroup

An open group (wraps `zarr_group *`). Create with [`open_group`](@ref) or
[`create_group`](@ref); freed by a finalizer or `close`.
"""
mutable struct ZarrGroup
    ptr::Ptr{Cvoid}
    function ZarrGroup(ptr::Ptr{Cvoid})
        return finalizer(free!, new(ptr))
    end
end

"""
    ZarrArray

An open array (wraps `zarr_array *`). Create with [`open_array`](@ref) or
[`create_array`](@ref); freed by a finalizer or `close`. `size`, `ndims` and `eltype`
describe it in Julia (reversed) order.
"""
mutable struct ZarrArray
    ptr::Ptr{Cvoid}
    function ZarrArray(ptr::Ptr{Cvoid})
        return finalizer(free!, new(ptr))
    end
end

function free!(s::ZarrStore)
    if s.ptr != C_NULL
        @ccall libzarr().zarr_store_free(s.ptr::Ptr{Cvoid})::Cvoid
        s.ptr = C_NULL
    end
    return nothing
end

function free!(g::ZarrGroup)
    if g.ptr != C_NULL
        @ccall libzarr().zarr_group_free(g.ptr::Ptr{Cvoid})::Cvoid
        g.ptr = C_NULL
    end
    return nothing
end

function free!(a::ZarrArray)
    if a.ptr != C_NULL
        @ccall libzarr().zarr_array_free(a.ptr::Ptr{Cvoid})::Cvoid
        a.ptr = C_NULL
    end
    return nothing
end

const ZarrHandle = Union{ZarrStore,ZarrGroup,ZarrArray}

"""
    close(handle)

Frees the C handle now (the finalizer then does nothing). Using the object afterwards
throws `ZarrError` with `ZARR_ERROR_NULL_ARGUMENT`.
"""
Base.close(h::ZarrHandle) = free!(h)

# Passing a handle object as a `::Ptr{Cvoid}` @ccall argument keeps the object rooted for
# the duration of the call and passes its pointer.
Base.cconvert(::Type{Ptr{Cvoid}}, h::ZarrHandle) = h
Base.unsafe_convert(::Type{Ptr{Cvoid}}, h::ZarrHandle) = h.ptr

# ---- stores ----------------------------------------------------------------------------

"""
    open_filesystem(path) -> ZarrStore

A store on the local file system rooted at directory `path`, created by the first write
(wraps `zarr_store_open_filesystem`). Throws `ZarrError`: INVALID_ARGUMENT (empty path),
IO (`path` exists and is not a directory).
"""
function open_filesystem(path::AbstractString)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_store_open_filesystem(path::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrStore(out[])
end

"""
    open_memory() -> ZarrStore

A new, empty in-memory store (wraps `zarr_store_open_memory`).
"""
function open_memory()
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_store_open_memory(out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrStore(out[])
end

"""
    open_zip(path) -> ZarrStore

A read-only store over the `.zip` file `path` (a hierarchy zipped from within or from its
parent folder; wraps `zarr_store_open_zip`). Throws `ZarrError`: NOT_FOUND (no such file),
CORRUPT_DATA (not a zip, hostile or truncated), UNSUPPORTED, IO.
"""
function open_zip(path::AbstractString)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_store_open_zip(path::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrStore(out[])
end

"""
    open_url(url; options = nothing) -> ZarrStore

The store a URL names (wraps `zarr_store_open_url`): `s3://bucket/prefix`,
`http(s)://host/path` (read-only), `file:///abs/path` or a plain path. `options` is a JSON
object as a string (keys endpoint, region, anonymous, access_key_id, secret_access_key,
session_token, profile, force_path_style, max_concurrency, timeout_ms, max_retries,
read_only, create...; see zarr.h), or `nothing`. A local directory or S3 bucket must exist
unless the options say `"create": true`. Throws `ZarrError`: INVALID_ARGUMENT (malformed URL,
unknown option, wrong type, option not for the scheme, unknown profile), UNSUPPORTED
(another scheme), NOT_FOUND (no such directory or bucket), IO, NETWORK; calls on the store may later throw NETWORK, ACCESS_DENIED,
TIMEOUT and REMOTE.
"""
function open_url(url::AbstractString; options::Union{Nothing,AbstractString} = nothing)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    text = options === nothing ? nothing : String(options)
    GC.@preserve text begin
        # NULL for no options; otherwise the bytes of `text` (a Julia String is always
        # followed by a NUL byte in memory).
        opts = text === nothing ? Ptr{UInt8}(C_NULL) : pointer(text)
        check(@ccall libzarr().zarr_store_open_url(
            url::Cstring, opts::Ptr{UInt8}, out::Ref{Ptr{Cvoid}})::Int32)
    end
    return ZarrStore(out[])
end

"""
    open_consolidated(store) -> ZarrStore

A view of `store` that serves node metadata from the consolidated metadata at its root
(v3 inline `consolidated_metadata` or v2 `.zmetadata`), read once now (wraps
`zarr_store_open_consolidated`). Throws `ZarrError`: NOT_FOUND (none), INVALID_METADATA,
UNSUPPORTED, IO.
"""
function open_consolidated(store::ZarrStore)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_store_open_consolidated(store::Ptr{Cvoid}, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrStore(out[])
end

const ZARR_WRITE_PROTECTION_NONE = Int32(0)
const ZARR_WRITE_PROTECTION_LOCKING = Int32(1)
const ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES = Int32(2)

"""
    write_protection(store) -> Int32

How `store` protects a write of part of a chunk from other processes writing other parts of
it at once (wraps `zarr_store_write_protection`): `ZARR_WRITE_PROTECTION_NONE` (only writes
of whole chunks are safe from several processes), `ZARR_WRITE_PROTECTION_LOCKING` (local
directories: a lock per chunk) or `ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES` (object
stores). Collective writes (`write_collective!`) need none: each chunk has one writer.
"""
function write_protection(store::ZarrStore)
    out = Ref{Int32}(0)
    check(@ccall libzarr().zarr_store_write_protection(store::Ptr{Cvoid}, out::Ref{Int32})::Int32)
    return out[]
end

"""
    commit!(store, message) -> String

Commit what was written through `store`, an Icechunk repository opened on a branch
(`icechunk+file://...`, `icechunk+s3://...`), to its branch, with `message`; returns the
new snapshot id (wraps `zarr_store_commit`). Throws `ZarrError`: CONFLICT (another writer
committed to the branch first: nothing was committed; reopen the store and write again),
READ_ONLY (a tag, a snapshot or `read_only`), INVALID_ARGUMENT (nothing to commit),
UNSUPPORTED (not an Icechunk repository), IO.
"""
function commit!(store::ZarrStore, message::AbstractString)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_store_commit(
        store::Ptr{Cvoid}, message::Cstring, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

"""
    versions_json(store) -> String

An Icechunk repository's branches, tags and the history of the opened version as JSON
text (wraps `zarr_store_versions_json`; see docs/icechunk.md). Throws `ZarrError`:
UNSUPPORTED (not an Icechunk repository), IO.
"""
function versions_json(store::ZarrStore)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_store_versions_json(store::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

# ---- groups ----------------------------------------------------------------------------

"""
    open_group(store, path = "/") -> ZarrGroup

Opens the group at absolute node path `path` (wraps `zarr_group_open`). Throws
`ZarrError`: INVALID_PATH, NOT_FOUND, NODE_TYPE_MISMATCH, INVALID_METADATA, UNSUPPORTED, IO.
"""
function open_group(store::ZarrStore, path::AbstractString = "/")
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_group_open(store::Ptr{Cvoid}, path::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrGroup(out[])
end

"""
    create_group(store, path = "/"; attrs = nothing) -> ZarrGroup

Creates a group at `path` (missing ancestors too), with the attributes in the JSON object
text `attrs` (wraps `zarr_group_create`). Throws `ZarrError`: INVALID_ARGUMENT (`attrs`
not a JSON object), INVALID_PATH, ALREADY_EXISTS, NODE_TYPE_MISMATCH, IO.
"""
function create_group(store::ZarrStore, path::AbstractString = "/";
                      attrs::Union{Nothing,AbstractString} = nothing)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    if attrs === nothing
        status = @ccall libzarr().zarr_group_create(store::Ptr{Cvoid}, path::Cstring, C_NULL::Ptr{UInt8}, out::Ref{Ptr{Cvoid}})::Int32
    else
        status = @ccall libzarr().zarr_group_create(store::Ptr{Cvoid}, path::Cstring, attrs::Cstring, out::Ref{Ptr{Cvoid}})::Int32
    end
    check(status)
    return ZarrGroup(out[])
end

"""
    create_group_with_format(store, path, zarr_format; attrs = "{}") -> ZarrGroup

Creates a group at `path` in Zarr format `zarr_format` (2: `.zgroup`, 3: zarr.json),
missing ancestors in the same format (wraps `zarr_group_create_with_format`). Throws
`ZarrError` as `create_group`, and INVALID_ARGUMENT for a format other than 2 or 3.
"""
function create_group_with_format(store::ZarrStore, path::AbstractString, zarr_format::Integer;
                                  attrs::AbstractString = "{}")
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_group_create_with_format(store::Ptr{Cvoid}, path::Cstring, attrs::Cstring, zarr_format::UInt32, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrGroup(out[])
end

"""
    create_group_v2(store, path = "/"; attrs = "{}") -> ZarrGroup

Deprecated: `create_group_with_format(store, path, 2; attrs)`.
"""
function create_group_v2(store::ZarrStore, path::AbstractString = "/"; attrs::AbstractString = "{}")
    Base.depwarn("create_group_v2 is deprecated, use create_group_with_format(store, path, 2)", :create_group_v2)
    return create_group_with_format(store, path, 2; attrs = attrs)
end

"""
    descendants_json(group) -> String

Every node below the group, depth first, as JSON text: objects with `name`, `path` and
`node_type` (wraps `zarr_group_descendants_json`).
"""
function descendants_json(g::ZarrGroup)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_group_descendants_json(g::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

"""
    consolidate!(group)

Writes consolidated metadata for every node below the group (wraps
`zarr_group_consolidate`). Throws `ZarrError`: INVALID_ARGUMENT (2022 draft layout),
INVALID_METADATA, READ_ONLY, IO.
"""
function consolidate!(g::ZarrGroup)
    check(@ccall libzarr().zarr_group_consolidate(g::Ptr{Cvoid})::Int32)
    return g
end

"""
    zarr_format(node) -> Int

The Zarr format a group or array is stored in: 3 (also for the 2022 draft layout) or 2
(wraps `zarr_group_format` / `zarr_array_format`).
"""
function zarr_format(g::ZarrGroup)
    format = Ref{UInt32}(0)
    check(@ccall libzarr().zarr_group_format(g::Ptr{Cvoid}, format::Ref{UInt32})::Int32)
    return Int(format[])
end

function zarr_format(a::ZarrArray)
    format = Ref{UInt32}(0)
    check(@ccall libzarr().zarr_array_format(a::Ptr{Cvoid}, format::Ref{UInt32})::Int32)
    return Int(format[])
end

# The deprecated C names, kept for one release: not used by this module's functions.
_deprecated_group_format(g::ZarrGroup) =
    (f = Ref{UInt32}(0); check(@ccall libzarr().zarr_group_zarr_format(g::Ptr{Cvoid}, f::Ref{UInt32})::Int32); Int(f[]))
_deprecated_create_group_v2(store::ZarrStore, path::AbstractString) =
    (out = Ref{Ptr{Cvoid}}(C_NULL); check(@ccall libzarr().zarr_group_create_v2(store::Ptr{Cvoid}, path::Cstring, "{}"::Cstring, out::Ref{Ptr{Cvoid}})::Int32); ZarrGroup(out[]))
_deprecated_array_format(a::ZarrArray) =
    (f = Ref{UInt32}(0); check(@ccall libzarr().zarr_array_zarr_format(a::Ptr{Cvoid}, f::Ref{UInt32})::Int32); Int(f[]))

"""
    attributes(node) -> String

The attributes of a group or array as JSON object text, `"{}"` when there are none (wraps
`zarr_group_attributes_json` / `zarr_array_attributes_json`).
"""
function attributes(g::ZarrGroup)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_group_attributes_json(g::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

function attributes(a::ZarrArray)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_array_attributes_json(a::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

"""
    set_attributes!(node, json)

Replaces the attributes of a group or array with the JSON object text `json` and rewrites
its zarr.json atomically (wraps `zarr_group_set_attributes_json` /
`zarr_array_set_attributes_json`). Throws `ZarrError`: INVALID_ARGUMENT, IO.
"""
function set_attributes!(g::ZarrGroup, json::AbstractString)
    check(@ccall libzarr().zarr_group_set_attributes_json(g::Ptr{Cvoid}, json::Cstring)::Int32)
    return g
end

function set_attributes!(a::ZarrArray, json::AbstractString)
    check(@ccall libzarr().zarr_array_set_attributes_json(a::Ptr{Cvoid}, json::Cstring)::Int32)
    return a
end

"""
    children_json(group) -> String

The group's direct children as JSON text: an array, sorted by name, of objects with
`name`, `path` and `node_type` (wraps `zarr_group_children_json`).
"""
function children_json(g::ZarrGroup)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_group_children_json(g::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

# ---- store keys and node metadata -----------------------------------------------------

"""
    store_get(store, key) -> Vector{UInt8}

The value stored at `key` (wraps `zarr_store_get`). Throws `ZarrError`: NOT_FOUND,
INVALID_PATH, IO.
"""
function store_get(s::ZarrStore, key::AbstractString)
    size = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_store_get(s::Ptr{Cvoid}, key::Cstring, C_NULL::Ptr{Cvoid}, 0::Csize_t, size::Ref{Csize_t})::Int32)
    buf = Vector{UInt8}(undef, size[])
    check(@ccall libzarr().zarr_store_get(s::Ptr{Cvoid}, key::Cstring, buf::Ptr{Cvoid}, sizeof(buf)::Csize_t, size::Ref{Csize_t})::Int32)
    return resize!(buf, size[])
end

"""
    store_set!(store, key, value::Vector{UInt8}) -> store

Stores `value` at `key` (wraps `zarr_store_set`).
"""
function store_set!(s::ZarrStore, key::AbstractString, value::Vector{UInt8})
    check(@ccall libzarr().zarr_store_set(s::Ptr{Cvoid}, key::Cstring, value::Ptr{Cvoid}, sizeof(value)::Csize_t)::Int32)
    return s
end

"""
    store_erase!(store, key) -> store

Removes the value at `key`, if any (wraps `zarr_store_erase`).
"""
function store_erase!(s::ZarrStore, key::AbstractString)
    check(@ccall libzarr().zarr_store_erase(s::Ptr{Cvoid}, key::Cstring)::Int32)
    return s
end

"""
    store_list_json(store, prefix = "") -> String

One level of the store under `prefix` as `{"keys": [...], "prefixes": [...]}` (wraps
`zarr_store_list_json`).
"""
function store_list_json(s::ZarrStore, prefix::AbstractString="")
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_store_list_json(s::Ptr{Cvoid}, prefix::Cstring, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

"""
    node_metadata_json(store, path) -> String

The stored metadata document of any node, also one this build cannot open (wraps
`zarr_store_node_metadata_json`).
"""
function node_metadata_json(s::ZarrStore, path::AbstractString)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_store_node_metadata_json(s::Ptr{Cvoid}, path::Cstring, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

# ---- arrays: open, create, describe ----------------------------------------------------

"""
    open_array(store, path) -> ZarrArray

Opens the array at absolute node path `path` (wraps `zarr_array_open`). Throws
`ZarrError`: INVALID_PATH, NOT_FOUND, NODE_TYPE_MISMATCH, INVALID_METADATA, UNSUPPORTED, IO.
"""
function open_array(store::ZarrStore, path::AbstractString)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_array_open(store::Ptr{Cvoid}, path::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrArray(out[])
end

"""
    create_array(store, path, metadata_json) -> ZarrArray

Creates an array from a complete Zarr v3 array metadata document (wraps
`zarr_array_create`). The document's `shape` is in C order: the reverse of the Julia size.
Throws `ZarrError`: INVALID_PATH, ALREADY_EXISTS, NODE_TYPE_MISMATCH, INVALID_METADATA,
UNSUPPORTED, IO.
"""
function create_array(store::ZarrStore, path::AbstractString, metadata_json::AbstractString)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_array_create(store::Ptr{Cvoid}, path::Cstring, metadata_json::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrArray(out[])
end

const ZARR_DATA_TYPES = Dict{Int32,DataType}(
    Int32(1) => Bool, Int32(2) => Int8, Int32(3) => Int16, Int32(4) => Int32,
    Int32(5) => Int64, Int32(6) => UInt8, Int32(7) => UInt16, Int32(8) => UInt32,
    Int32(9) => UInt64, Int32(10) => Float16, Int32(11) => Float32, Int32(12) => Float64,
    Int32(13) => ComplexF32, Int32(14) => ComplexF64)

const ZARR_TYPE_NAMES = Dict{DataType,String}(
    Bool => "bool", Int8 => "int8", Int16 => "int16", Int32 => "int32", Int64 => "int64",
    UInt8 => "uint8", UInt16 => "uint16", UInt32 => "uint32", UInt64 => "uint64",
    Float16 => "float16", Float32 => "float32", Float64 => "float64",
    ComplexF32 => "complex64", ComplexF64 => "complex128")

json_fill(x::Bool) = x ? "true" : "false"
json_fill(x::Integer) = string(x)
function json_fill(x::AbstractFloat)
    isnan(x) && return "\"NaN\""
    isinf(x) && return x > 0 ? "\"Infinity\"" : "\"-Infinity\""
    return string(Float64(x))
end
json_fill(x::Complex) = string("[", json_fill(real(x)), ", ", json_fill(imag(x)), "]")

json_dims(d) = string("[", join(string.(d), ", "), "]")

"""
    create_array(store, path, T, dims; chunks = dims, fill_value = zero(T), zstd_level = nothing)
        -> ZarrArray

Creates an array holding elements of Julia type `T` (Bool, Int8-64, UInt8-64, Float16/32/64,
ComplexF32/64) whose Julia size is `dims`: the Zarr shape is `reverse(dims)`, the chunk
shape `reverse(chunks)`. Codecs: `bytes` (little endian), then `zstd` at `zstd_level` if
given. Throws `ZarrError` as `create_array(store, path, metadata_json)`, and
INVALID_ARGUMENT for an element type without a Zarr name.
"""
function create_array(store::ZarrStore, path::AbstractString, ::Type{T}, dims::Tuple{Vararg{Integer}};
                      kwargs...) where {T}
    return create_array(store, path, array_metadata_json(T, dims; kwargs...))
end

# The v3 metadata document of `create_array(store, path, T, dims; ...)`.
function array_metadata_json(::Type{T}, dims::Tuple{Vararg{Integer}};
                             chunks::Tuple{Vararg{Integer}} = map(d -> max(d, 1), dims),
                             fill_value = zero(T),
                             zstd_level::Union{Nothing,Integer} = nothing) where {T}
    haskey(ZARR_TYPE_NAMES, T) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "create_array: no Zarr data type for $T"))
    codecs = "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}"
    if zstd_level !== nothing
        codecs *= ", {\"name\": \"zstd\", \"configuration\": {\"level\": $(zstd_level), \"checksum\": false}}"
    end
    metadata = string(
        "{\"zarr_format\": 3, \"node_type\": \"array\", ",
        "\"shape\": ", json_dims(reverse(dims)), ", ",
        "\"data_type\": \"", ZARR_TYPE_NAMES[T], "\", ",
        "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": ",
        json_dims(reverse(chunks)), "}}, ",
        "\"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}}, ",
        "\"fill_value\": ", json_fill(convert(T, fill_value)), ", ",
        "\"codecs\": [", codecs, "]}")
    return metadata
end

function Base.ndims(a::ZarrArray)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_ndim(a::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    return Int(n[])
end

"""
    zarr_shape(a) -> Vector{UInt64}

The stored shape, in C order (wraps `zarr_array_shape`). `size(a)` is its reverse.
"""
function zarr_shape(a::ZarrArray)
    n = ndims(a)
    shape = Vector{UInt64}(undef, n)
    check(@ccall libzarr().zarr_array_shape(a::Ptr{Cvoid}, n::Csize_t, shape::Ptr{UInt64})::Int32)
    return shape
end

"""
    size(a::ZarrArray) -> NTuple{N,Int}

The Julia size: the reverse of the Zarr shape.
"""
Base.size(a::ZarrArray) = Tuple(Int.(reverse(zarr_shape(a))))

"""
    chunk_size(a) -> NTuple{N,Int}

The chunk size in Julia order (wraps `zarr_array_chunk_shape`, reversed).
"""
function chunk_size(a::ZarrArray)
    n = ndims(a)
    shape = Vector{UInt64}(undef, n)
    check(@ccall libzarr().zarr_array_chunk_shape(a::Ptr{Cvoid}, n::Csize_t, shape::Ptr{UInt64})::Int32)
    return Tuple(Int.(reverse(shape)))
end

"""
    chunk_grid_size(a) -> NTuple{N,Int}

The number of chunks along each dimension, in Julia order (wraps
`zarr_array_chunk_grid_shape`, reversed).
"""
function chunk_grid_size(a::ZarrArray)
    n = ndims(a)
    grid = Vector{UInt64}(undef, n)
    check(@ccall libzarr().zarr_array_chunk_grid_shape(a::Ptr{Cvoid}, n::Csize_t, grid::Ptr{UInt64})::Int32)
    return Tuple(Int.(reverse(grid)))
end

"""
    chunk_region(a, idx::Integer...) -> (first, size)

Where the chunk at 1-based Julia-order grid coordinates `idx` lies: the 1-based Julia
index of its first element and its full size (an edge chunk may reach past the array's
end; in a rectilinear grid each chunk has its own size). Wraps `zarr_array_chunk_region`.
Throws `ZarrError`: INVALID_ARGUMENT (rank), OUT_OF_BOUNDS.
"""
function chunk_region(a::ZarrArray, idx::Integer...)
    ci = c_indices("chunk_region", idx)
    n = length(ci)
    start = Vector{UInt64}(undef, n)
    shape = Vector{UInt64}(undef, n)
    check(@ccall libzarr().zarr_array_chunk_region(a::Ptr{Cvoid}, n::Csize_t, ci::Ptr{UInt64}, start::Ptr{UInt64}, shape::Ptr{UInt64})::Int32)
    return (Tuple(Int.(reverse(start)) .+ 1), Tuple(Int.(reverse(shape))))
end

"""
    inner_chunk_size(a) -> NTuple{N,Int}

The inner chunk size (sharded arrays; else the chunk size) in Julia order (wraps
`zarr_array_inner_chunk_shape`, reversed).
"""
function inner_chunk_size(a::ZarrArray)
    n = ndims(a)
    shape = Vector{UInt64}(undef, n)
    check(@ccall libzarr().zarr_array_inner_chunk_shape(a::Ptr{Cvoid}, n::Csize_t, shape::Ptr{UInt64})::Int32)
    return Tuple(Int.(reverse(shape)))
end

"""
    data_type(a) -> Int32

The `ZARR_DATA_TYPE_*` code (wraps `zarr_array_data_type`).
"""
function data_type(a::ZarrArray)
    t = Ref{Int32}(0)
    check(@ccall libzarr().zarr_array_data_type(a::Ptr{Cvoid}, t::Ref{Int32})::Int32)
    return t[]
end

"""
    element_size(a) -> Int

Bytes per element in buffers (wraps `zarr_array_element_size`).
"""
function element_size(a::ZarrArray)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_element_size(a::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    return Int(n[])
end

"""
    chunk_nbytes(a) -> Int

Bytes of one whole chunk in buffers (wraps `zarr_array_chunk_nbytes`).
"""
function chunk_nbytes(a::ZarrArray)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_chunk_nbytes(a::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    return Int(n[])
end

"""
    eltype(a::ZarrArray) -> Type

The Julia element type: Bool, Int8-64, UInt8-64, Float16/32/64, ComplexF32/64, or
`NTuple{N,UInt8}` for raw `r<N*8>` data.
"""
function Base.eltype(a::ZarrArray)
    code = data_type(a)
    code == Int32(15) && return NTuple{element_size(a),UInt8}
    return ZARR_DATA_TYPES[code]
end

"""
    metadata_json(a) -> String

The array's zarr.json document (wraps `zarr_array_metadata_json`); its shapes are in C order.
"""
function metadata_json(a::ZarrArray)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_array_metadata_json(a::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

# ---- arrays: data ----------------------------------------------------------------------

# 1-based Julia-order positions -> 0-based C-order UInt64 vector (OUT_OF_BOUNDS below 1).
function c_indices(what::AbstractString, firsts)
    for f in firsts
        f >= 1 || throw(ZarrError(ZARR_ERROR_OUT_OF_BOUNDS, "$what: index $f is below 1"))
    end
    return UInt64[UInt64(f - 1) for f in reverse(Tuple(firsts))]
end

function check_eltype(what::AbstractString, a::ZarrArray, ::Type{T}) where {T}
    isbitstype(T) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "$what: element type $T is not a bits type"))
    n = element_size(a)
    sizeof(T) == n ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT,
                        "$what: element type $T has $(sizeof(T)) bytes, the array's elements $n"))
    return nothing
end

"""
    read_array!(a, dest::Array, firsts::Integer...) -> dest

Reads the region of size `size(dest)` starting at the 1-based Julia-order position
`firsts` (default all 1) into `dest` (wraps `zarr_array_read`). `sizeof(eltype(dest))`
must equal the element size. Throws `ZarrError`: INVALID_ARGUMENT (element type, rank),
OUT_OF_BOUNDS, CORRUPT_DATA, IO; `dest` is unchanged after an argument error, and after a
corrupt or unreadable chunk only that chunk's part of it is (see `zarr_array_read`).
"""
function read_array!(a::ZarrArray, dest::Array{T}, firsts::Integer...) where {T}
    check_eltype("read_array!", a, T)
    pos = isempty(firsts) ? ntuple(_ -> 1, ndims(dest)) : firsts
    start = c_indices("read_array!", pos)
    count = UInt64[UInt64(n) for n in reverse(size(dest))]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "read_array!: $(length(start)) positions for a $(ndims(dest))-d buffer"))
    ndim = length(count)
    check(@ccall libzarr().zarr_array_read(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, dest::Ptr{Cvoid}, sizeof(dest)::Csize_t)::Int32)
    return dest
end

"""
    read_array(a) -> Array
    read_array(a, ranges...) -> Array

Reads the whole array, or the region given by one 1-based range (or `:`) per Julia
dimension, into a new `Array{eltype(a)}` whose size is in Julia order (wraps
`zarr_array_read`). Throws `ZarrError`: INVALID_ARGUMENT (wrong number of ranges),
OUT_OF_BOUNDS, CORRUPT_DATA, IO.
"""
read_array(a::ZarrArray, ranges::Union{AbstractUnitRange{<:Integer},Colon}...) =
    read_region(a, ranges)

read_array(a::ZarrArray) = read_region(a, ntuple(_ -> Colon(), ndims(a)))

function read_region(a::ZarrArray, ranges::Tuple)
    dims = size(a)
    length(ranges) == length(dims) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "read_array: $(length(dims)) ranges expected, got $(length(ranges))"))
    rs = ntuple(i -> ranges[i] isa Colon ? (1:dims[i]) : ranges[i], length(dims))
    dest = Array{eltype(a)}(undef, map(length, rs)...)
    return read_array!(a, dest, map(first, rs)...)
end

"""
    read_double(a) -> Array{Float64}
    read_double(a, ranges...) -> Array{Float64}

Reads the whole array, or the region of one 1-based range (or `:`) per Julia dimension,
converted to `Float64` whatever its real number type (bool, integers, float16, bfloat16,
float8, float32, float64), size in Julia order (wraps `zarr_array_read_double`). No
attribute is applied: CF packing (`scale_factor`, `add_offset`, `_FillValue`) is the
caller's. Throws `ZarrError`: INVALID_ARGUMENT (wrong number of ranges), TYPE_MISMATCH
(complex, strings, structs, datetimes...), OUT_OF_BOUNDS, CORRUPT_DATA, IO.
"""
read_double(a::ZarrArray, ranges::Union{AbstractUnitRange{<:Integer},Colon}...) =
    read_double_region(a, ranges)

read_double(a::ZarrArray) = read_double_region(a, ntuple(_ -> Colon(), ndims(a)))

function read_double_region(a::ZarrArray, ranges::Tuple)
    dims = size(a)
    length(ranges) == length(dims) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "read_double: $(length(dims)) ranges expected, got $(length(ranges))"))
    rs = ntuple(i -> ranges[i] isa Colon ? (1:dims[i]) : ranges[i], length(dims))
    dest = Array{Float64}(undef, map(length, rs)...)
    start = c_indices("read_double", map(first, rs))
    count = UInt64[UInt64(n) for n in reverse(size(dest))]
    ndim = length(count)
    check(@ccall libzarr().zarr_array_read_double(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, dest::Ptr{Float64}, length(dest)::Csize_t)::Int32)
    return dest
end

"""
    fill_value_double(a) -> Float64

The fill value converted to `Float64` as `read_double` converts elements (wraps
`zarr_array_fill_value_double`); xarray keeps a Zarr v2 variable's `_FillValue` there.
Throws `ZarrError`: NOT_FOUND (a Zarr v2 `fill_value` of null), TYPE_MISMATCH.
"""
function fill_value_double(a::ZarrArray)
    v = Ref{Float64}(0)
    check(@ccall libzarr().zarr_array_fill_value_double(a::Ptr{Cvoid}, v::Ref{Float64})::Int32)
    return v[]
end

"""
    data_type_name(code::Integer) -> String

The Zarr name of a `ZARR_DATA_TYPE_*` code, e.g. `data_type_name(data_type(a))` ==
"int16"; "unknown data type" for other integers (wraps `zarr_data_type_str`).
"""
data_type_name(code::Integer) =
    unsafe_string(@ccall libzarr().zarr_data_type_str(code::Int32)::Cstring)

"""
    sub_byte_to_int8(code::Integer, codes::AbstractVector{UInt8}) -> Vector{Int8}

The values of int2, int4, uint2 or uint4 elements as read (one byte each, the code in the
low bits): int2/int4 sign-extended (int4 0x0f is -1) (wraps `zarr_sub_byte_to_int8`).
Throws `ZarrError`: INVALID_ARGUMENT (`code` is not one of the four types).
"""
function sub_byte_to_int8(code::Integer, codes::AbstractVector{UInt8})
    src = Vector{UInt8}(codes)
    out = Vector{Int8}(undef, length(src))
    check(@ccall libzarr().zarr_sub_byte_to_int8(code::Int32, src::Ptr{UInt8}, out::Ptr{Int8},
                                                 length(src)::Csize_t)::Int32)
    return out
end

"""
    int8_to_sub_byte(code::Integer, values::AbstractVector{Int8}) -> Vector{UInt8}

The bytes an int2, int4, uint2 or uint4 array holds for `values` (the code in the low
bits, upper bits zero: int4 -1 is 0x0f) (wraps `zarr_int8_to_sub_byte`). Throws
`ZarrError`: INVALID_ARGUMENT (`code` is not one of the four types, or a value is out of
the type's range).
"""
function int8_to_sub_byte(code::Integer, values::AbstractVector{Int8})
    src = Vector{Int8}(values)
    out = Vector{UInt8}(undef, length(src))
    check(@ccall libzarr().zarr_int8_to_sub_byte(code::Int32, src::Ptr{Int8}, out::Ptr{UInt8},
                                                 length(src)::Csize_t)::Int32)
    return out
end

"""
    write_array!(a, data::AbstractArray, firsts::Integer...) -> a

Writes `data` at the 1-based Julia-order position `firsts` (default all 1) (wraps
`zarr_array_write`). `sizeof(eltype(data))` must equal the element size. Throws
`ZarrError`: INVALID_ARGUMENT (element type, rank), OUT_OF_BOUNDS, CORRUPT_DATA, IO.
"""
function write_array!(a::ZarrArray, data::AbstractArray{T}, firsts::Integer...) where {T}
    check_eltype("write_array!", a, T)
    buf = data isa Array ? data : Array{T}(data)
    pos = isempty(firsts) ? ntuple(_ -> 1, ndims(buf)) : firsts
    start = c_indices("write_array!", pos)
    count = UInt64[UInt64(n) for n in reverse(size(buf))]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "write_array!: $(length(start)) positions for a $(ndims(buf))-d array"))
    ndim = length(count)
    check(@ccall libzarr().zarr_array_write(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, buf::Ptr{Cvoid}, sizeof(buf)::Csize_t)::Int32)
    return a
end

# Byte strides in C order of a strided Julia array (its element strides reversed).
c_byte_strides(buf::StridedArray{T}) where {T} =
    Int64[Int64(s * sizeof(T)) for s in reverse(strides(buf))]

"""
    read_array!(a, dest::StridedArray, firsts::Integer...) -> dest

`read_array!` into a view of a larger array (a `SubArray` with strides, a column range of a
matrix, ...): the chunks decode straight into `dest`'s elements, no temporary (wraps
`zarr_array_read_strided`). Elements of `dest` must not overlap. Throws as `read_array!`.
"""
function read_array!(a::ZarrArray, dest::StridedArray{T}, firsts::Integer...) where {T}
    dest isa Array && return invoke(read_array!, Tuple{ZarrArray,Array{T},Vararg{Integer}}, a, dest, firsts...)
    check_eltype("read_array!", a, T)
    pos = isempty(firsts) ? ntuple(_ -> 1, ndims(dest)) : firsts
    start = c_indices("read_array!", pos)
    count = UInt64[UInt64(n) for n in reverse(size(dest))]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "read_array!: $(length(start)) positions for a $(ndims(dest))-d buffer"))
    ndim = length(count)
    strides_c = c_byte_strides(dest)
    span = isempty(dest) ? 0 : sizeof(T) + sum((Int(count[i]) - 1) * strides_c[i] for i in 1:ndim; init=0)
    GC.@preserve dest begin
        p = pointer(dest)
        check(@ccall libzarr().zarr_array_read_strided(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, strides_c::Ptr{Int64}, p::Ptr{Cvoid}, span::Csize_t)::Int32)
    end
    return dest
end

"""
    write_array!(a, data::StridedArray, firsts::Integer...) -> a

`write_array!` from a strided view, without gathering it first (wraps
`zarr_array_write_strided`). Throws as `write_array!`.
"""
function write_array!(a::ZarrArray, data::StridedArray{T}, firsts::Integer...) where {T}
    data isa Array && return invoke(write_array!, Tuple{ZarrArray,AbstractArray{T},Vararg{Integer}}, a, data, firsts...)
    check_eltype("write_array!", a, T)
    pos = isempty(firsts) ? ntuple(_ -> 1, ndims(data)) : firsts
    start = c_indices("write_array!", pos)
    count = UInt64[UInt64(n) for n in reverse(size(data))]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "write_array!: $(length(start)) positions for a $(ndims(data))-d array"))
    ndim = length(count)
    strides_c = c_byte_strides(data)
    span = isempty(data) ? 0 : sizeof(T) + sum((Int(count[i]) - 1) * strides_c[i] for i in 1:ndim; init=0)
    GC.@preserve data begin
        p = pointer(data)
        check(@ccall libzarr().zarr_array_write_strided(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, strides_c::Ptr{Int64}, p::Ptr{Cvoid}, span::Csize_t)::Int32)
    end
    return a
end

"""
    resize!(a::ZarrArray, dims::Integer...) -> a

Changes the array's size (Julia order) (wraps `zarr_array_resize`): chunks outside the new
size are deleted; what grows reads as the fill value. Throws `ZarrError`:
INVALID_ARGUMENT (wrong number of dimensions), UNSUPPORTED, READ_ONLY, IO.
"""
function Base.resize!(a::ZarrArray, dims::Integer...)
    shape = UInt64[UInt64(n) for n in reverse(dims)]
    ndim = length(shape)
    check(@ccall libzarr().zarr_array_resize(a::Ptr{Cvoid}, ndim::Csize_t, shape::Ptr{UInt64})::Int32)
    return a
end

"""
    append!(a::ZarrArray, data::Array, dim::Integer) -> a

Grows Julia dimension `dim` by `size(data, dim)` and writes `data` there; `data` has the
array's size on every other dimension (wraps `zarr_array_append`). Throws `ZarrError`:
INVALID_ARGUMENT, BUFFER_SIZE_MISMATCH, READ_ONLY, IO.
"""
function Base.append!(a::ZarrArray, data::Array{T}, dim::Integer) where {T}
    check_eltype("append!", a, T)
    count = UInt64[UInt64(n) for n in reverse(size(data))]
    ndim = length(count)
    1 <= dim <= ndim ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "append!: dimension $dim of a $ndim-d array"))
    cdim = ndim - dim
    check(@ccall libzarr().zarr_array_append(a::Ptr{Cvoid}, ndim::Csize_t, count::Ptr{UInt64}, cdim::Csize_t, data::Ptr{Cvoid}, sizeof(data)::Csize_t)::Int32)
    return a
end

"""
    chunk_aligned(a, firsts, counts) -> Bool

Whether the region (1-based Julia-order `firsts`, sizes `counts`) has every bound on a
chunk boundary or the array's edge, so that processes writing disjoint such regions never
lose data (wraps `zarr_array_chunk_aligned`).
"""
function chunk_aligned(a::ZarrArray, firsts, counts)
    start = c_indices("chunk_aligned", firsts)
    count = UInt64[UInt64(n) for n in reverse(Tuple(counts))]
    ndim = length(count)
    out = Ref{Int32}(0)
    check(@ccall libzarr().zarr_array_chunk_aligned(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, out::Ref{Int32})::Int32)
    return out[] == 1
end

"""
    chunk_key(a, idx::Integer...) -> String

The store key of the chunk at 1-based Julia-order grid coordinates `idx` (wraps
`zarr_array_chunk_key`).
"""
function chunk_key(a::ZarrArray, idx::Integer...)
    ci = c_indices("chunk_key", idx)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_array_chunk_key(a::Ptr{Cvoid}, length(ci)::Csize_t, ci::Ptr{UInt64}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

"""
    decode_chunk(a, encoded::Vector{UInt8}) -> Array

Decodes a chunk's stored bytes (from `store_get(store, chunk_key(a, idx...))`) with the
array's codecs (wraps `zarr_array_decode_chunk`).
"""
function decode_chunk(a::ZarrArray, encoded::Vector{UInt8})
    dest = Array{eltype(a)}(undef, chunk_size(a)...)
    check(@ccall libzarr().zarr_array_decode_chunk(a::Ptr{Cvoid}, encoded::Ptr{Cvoid}, sizeof(encoded)::Csize_t, dest::Ptr{Cvoid}, sizeof(dest)::Csize_t)::Int32)
    return dest
end

"""
    read_chunk(a, idx::Integer...) -> Array

Reads the whole chunk at 1-based Julia-order grid coordinates `idx`, at its full chunk
size (including any part past the array's edge) (wraps `zarr_array_read_chunk`). Throws
`ZarrError`: INVALID_ARGUMENT, OUT_OF_BOUNDS (no such chunk), CORRUPT_DATA, IO.
"""
function read_chunk(a::ZarrArray, idx::Integer...)
    ci = c_indices("read_chunk", idx)
    # A rectilinear grid's chunks differ in shape: allocate this chunk's own.
    dest = Array{eltype(a)}(undef, last(chunk_region(a, idx...))...)
    check(@ccall libzarr().zarr_array_read_chunk(a::Ptr{Cvoid}, length(ci)::Csize_t, ci::Ptr{UInt64}, dest::Ptr{Cvoid}, sizeof(dest)::Csize_t)::Int32)
    return dest
end

"""
    write_chunk!(a, data::Array, idx::Integer...) -> a

Writes the whole chunk at 1-based Julia-order grid coordinates `idx` from `data`, whose
size must be the chunk's own (`last(chunk_region(a, idx...))`; `chunk_size(a)` for a
regular grid) (wraps `zarr_array_write_chunk`). Throws `ZarrError`:
INVALID_ARGUMENT (element type, rank), OUT_OF_BOUNDS, BUFFER_SIZE_MISMATCH, IO.
"""
function write_chunk!(a::ZarrArray, data::Array{T}, idx::Integer...) where {T}
    check_eltype("write_chunk!", a, T)
    ci = c_indices("write_chunk!", idx)
    check(@ccall libzarr().zarr_array_write_chunk(a::Ptr{Cvoid}, length(ci)::Csize_t, ci::Ptr{UInt64}, data::Ptr{Cvoid}, sizeof(data)::Csize_t)::Int32)
    return a
end

"""
    read_inner_chunk(a, idx::Integer...) -> Array

Reads the whole inner chunk (of a sharded array; the chunk otherwise) at 1-based
Julia-order coordinates `idx` in the array-wide grid of inner chunks (wraps
`zarr_array_read_inner_chunk`). Throws `ZarrError`: INVALID_ARGUMENT, OUT_OF_BOUNDS,
CORRUPT_DATA, IO.
"""
function read_inner_chunk(a::ZarrArray, idx::Integer...)
    dest = Array{eltype(a)}(undef, inner_chunk_size(a)...)
    ci = c_indices("read_inner_chunk", idx)
    check(@ccall libzarr().zarr_array_read_inner_chunk(a::Ptr{Cvoid}, length(ci)::Csize_t, ci::Ptr{UInt64}, dest::Ptr{Cvoid}, sizeof(dest)::Csize_t)::Int32)
    return dest
end

"""
    selection_nbytes(a, firsts, counts) -> Int

Bytes of the dense buffer for the region of size `counts` at 1-based `firsts`, both in
Julia order (wraps `zarr_array_selection_nbytes`). Throws `ZarrError`: INVALID_ARGUMENT,
OUT_OF_BOUNDS, OUT_OF_MEMORY.
"""
function selection_nbytes(a::ZarrArray, firsts, counts)
    start = c_indices("selection_nbytes", firsts)
    count = UInt64[UInt64(n) for n in reverse(Tuple(counts))]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "selection_nbytes: firsts and counts differ in length"))
    ndim = length(count)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_selection_nbytes(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, n::Ref{Csize_t})::Int32)
    return Int(n[])
end

# ---- library-wide ----------------------------------------------------------------------

"""
    set_thread_pool_size(n)

Sets libzarr's worker threads for parallel chunk coding; 0 restores the default (wraps
`zarr_thread_pool_set_size`). Independent of Julia's own threads.
"""
set_thread_pool_size(n::Integer) = check(@ccall libzarr().zarr_thread_pool_set_size(n::Csize_t)::Int32)

"""
    thread_pool_size() -> Int

libzarr's worker thread count (wraps `zarr_thread_pool_size`).
"""
function thread_pool_size()
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_thread_pool_size(n::Ref{Csize_t})::Int32)
    return Int(n[])
end

"""
    set_num_threads(n)

Deprecated: `set_thread_pool_size(n)` (wraps the deprecated `zarr_set_num_threads`).
"""
set_num_threads(n::Integer) = check(@ccall libzarr().zarr_thread_pool_set_size(n::Csize_t)::Int32)

"""
    num_threads() -> Int

Deprecated: `thread_pool_size()` (wraps the deprecated `zarr_num_threads`).
"""
function num_threads()
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_thread_pool_size(n::Ref{Csize_t})::Int32)
    return Int(n[])
end

"""
    libversion() -> VersionNumber

The loaded library's version (wraps `zarr_version_string`; `zarr_version_number` is
`libversion_number()`).
"""
libversion() = VersionNumber(unsafe_string(@ccall libzarr().zarr_version_string()::Cstring))

libversion_number() = @ccall libzarr().zarr_version_number()::UInt32

include("accessors.jl")
include("vlen.jl")
include("collective.jl")

end # module LibZarr
