# accessors.jl -- part of module LibZarr (included at its end): metadata without JSON
# (dimension names, fill values, codecs, children), typed attributes, deleting nodes and
# chunks, the array builder and stores of the caller's own. NOT RUN (see LibZarr.jl); the
# @ccall signatures are checked against zarr.h by check_signatures.py.
#
# Julia order as everywhere in this module: dimension names, chunk coordinates and the
# builder's sizes are reversed from C order (the first Julia dimension is the last C one).

const ZARR_NODE_TYPE_ARRAY = Int32(1)
const ZARR_NODE_TYPE_GROUP = Int32(2)

# ---- arrays: names, fill value, codecs --------------------------------------------------

"""
    dimension_names(a) -> Vector{Union{Nothing,String}}

The name of each dimension in Julia order, `nothing` for an unnamed one (wraps
`zarr_array_dimension_name`: v3 `dimension_names`, v2 `_ARRAY_DIMENSIONS`). Throws
`ZarrError`: INVALID_METADATA (a malformed `_ARRAY_DIMENSIONS`).
"""
function dimension_names(a::ZarrArray)
    n = ndims(a)
    names = Vector{Union{Nothing,String}}(undef, n)
    for d in 0:n-1
        out = Ref{Ptr{UInt8}}(C_NULL)
        check(@ccall libzarr().zarr_array_dimension_name(a::Ptr{Cvoid}, d::Csize_t, out::Ref{Ptr{UInt8}})::Int32)
        # C dimension d is Julia dimension n - d.
        names[n-d] = out[] == C_NULL ? nothing : take_string(out[])
    end
    return names
end

"""
    fill_value(a) -> eltype(a)

The value unwritten elements read as (wraps `zarr_array_fill_value`).
"""
function fill_value(a::ZarrArray)
    value = Ref{eltype(a)}()
    check(@ccall libzarr().zarr_array_fill_value(a::Ptr{Cvoid}, value::Ptr{Cvoid}, sizeof(eltype(a))::Csize_t)::Int32)
    return value[]
end

"""
    codec_names(a) -> Vector{String}

The array's codecs in encoding order, by their Zarr v3 names ("bytes", "gzip",
"sharding_indexed", "numcodecs.zlib"...) (wraps `zarr_array_codec_count` and
`zarr_array_codec_name`).
"""
function codec_names(a::ZarrArray)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_codec_count(a::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    names = String[]
    for i in 0:Int(n[])-1
        out = Ref{Ptr{UInt8}}(C_NULL)
        check(@ccall libzarr().zarr_array_codec_name(a::Ptr{Cvoid}, i::Csize_t, out::Ref{Ptr{UInt8}})::Int32)
        push!(names, take_string(out[]))
    end
    return names
end

"""
    codec_configuration_json(a, i) -> String

The configuration of codec number `i` (1-based) as JSON object text (wraps
`zarr_array_codec_configuration_json`). Throws `ZarrError`: OUT_OF_BOUNDS.
"""
function codec_configuration_json(a::ZarrArray, i::Integer)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_array_codec_configuration_json(a::Ptr{Cvoid}, (i - 1)::Csize_t, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

# ---- groups: children -------------------------------------------------------------------

"""
    children(g) -> Vector{Pair{String,Symbol}}

The group's direct children sorted by name, each `name => :array` or `name => :group`,
listed now (wraps `zarr_group_child_count`, `zarr_group_child_name` and
`zarr_group_child_node_type`). Throws `ZarrError`: INVALID_METADATA, IO.
"""
function children(g::ZarrGroup)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_group_child_count(g::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    out = Pair{String,Symbol}[]
    for i in 0:Int(n[])-1
        name = Ref{Ptr{UInt8}}(C_NULL)
        check(@ccall libzarr().zarr_group_child_name(g::Ptr{Cvoid}, i::Csize_t, name::Ref{Ptr{UInt8}})::Int32)
        t = Ref{Int32}(0)
        check(@ccall libzarr().zarr_group_child_node_type(g::Ptr{Cvoid}, i::Csize_t, t::Ref{Int32})::Int32)
        push!(out, take_string(name[]) => (t[] == ZARR_NODE_TYPE_ARRAY ? :array : :group))
    end
    return out
end

# ---- typed attributes -------------------------------------------------------------------

"""
    attribute(node, key, T) -> T

The attribute `key` of an array or group as `T`: `String`, `Float64` (any number, or
"NaN"/"Infinity"/"-Infinity"), `Int64` (an integral number), `Vector{Float64}` or
`Vector{Int64}` (a number reads as a vector of one), in the manner of `nc_get_att`
(wraps `zarr_array_attribute_*` / `zarr_group_attribute_*`). Throws `ZarrError`:
NOT_FOUND, TYPE_MISMATCH, OUT_OF_BOUNDS (an integer outside Int64).
"""
function attribute end

function attribute(a::ZarrArray, key::AbstractString, ::Type{String})
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_array_attribute_string(a::Ptr{Cvoid}, key::Cstring, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

function attribute(g::ZarrGroup, key::AbstractString, ::Type{String})
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_group_attribute_string(g::Ptr{Cvoid}, key::Cstring, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

function attribute(a::ZarrArray, key::AbstractString, ::Type{Float64})
    v = Ref{Float64}(0)
    check(@ccall libzarr().zarr_array_attribute_double(a::Ptr{Cvoid}, key::Cstring, v::Ref{Float64})::Int32)
    return v[]
end

function attribute(g::ZarrGroup, key::AbstractString, ::Type{Float64})
    v = Ref{Float64}(0)
    check(@ccall libzarr().zarr_group_attribute_double(g::Ptr{Cvoid}, key::Cstring, v::Ref{Float64})::Int32)
    return v[]
end

function attribute(a::ZarrArray, key::AbstractString, ::Type{Int64})
    v = Ref{Int64}(0)
    check(@ccall libzarr().zarr_array_attribute_int64(a::Ptr{Cvoid}, key::Cstring, v::Ref{Int64})::Int32)
    return v[]
end

function attribute(g::ZarrGroup, key::AbstractString, ::Type{Int64})
    v = Ref{Int64}(0)
    check(@ccall libzarr().zarr_group_attribute_int64(g::Ptr{Cvoid}, key::Cstring, v::Ref{Int64})::Int32)
    return v[]
end

function attribute(a::ZarrArray, key::AbstractString, ::Type{Vector{Float64}})
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_attribute_double_array(a::Ptr{Cvoid}, key::Cstring, C_NULL::Ptr{Float64}, 0::Csize_t, n::Ref{Csize_t})::Int32)
    v = Vector{Float64}(undef, Int(n[]))
    check(@ccall libzarr().zarr_array_attribute_double_array(a::Ptr{Cvoid}, key::Cstring, v::Ptr{Float64}, length(v)::Csize_t, n::Ref{Csize_t})::Int32)
    return v
end

function attribute(g::ZarrGroup, key::AbstractString, ::Type{Vector{Float64}})
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_group_attribute_double_array(g::Ptr{Cvoid}, key::Cstring, C_NULL::Ptr{Float64}, 0::Csize_t, n::Ref{Csize_t})::Int32)
    v = Vector{Float64}(undef, Int(n[]))
    check(@ccall libzarr().zarr_group_attribute_double_array(g::Ptr{Cvoid}, key::Cstring, v::Ptr{Float64}, length(v)::Csize_t, n::Ref{Csize_t})::Int32)
    return v
end

function attribute(a::ZarrArray, key::AbstractString, ::Type{Vector{Int64}})
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_attribute_int64_array(a::Ptr{Cvoid}, key::Cstring, C_NULL::Ptr{Int64}, 0::Csize_t, n::Ref{Csize_t})::Int32)
    v = Vector{Int64}(undef, Int(n[]))
    check(@ccall libzarr().zarr_array_attribute_int64_array(a::Ptr{Cvoid}, key::Cstring, v::Ptr{Int64}, length(v)::Csize_t, n::Ref{Csize_t})::Int32)
    return v
end

function attribute(g::ZarrGroup, key::AbstractString, ::Type{Vector{Int64}})
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_group_attribute_int64_array(g::Ptr{Cvoid}, key::Cstring, C_NULL::Ptr{Int64}, 0::Csize_t, n::Ref{Csize_t})::Int32)
    v = Vector{Int64}(undef, Int(n[]))
    check(@ccall libzarr().zarr_group_attribute_int64_array(g::Ptr{Cvoid}, key::Cstring, v::Ptr{Int64}, length(v)::Csize_t, n::Ref{Csize_t})::Int32)
    return v
end

"""
    attribute_names(node) -> Vector{String}

The attribute names of an array or group, in document order (wraps
`zarr_*_attribute_count` and `zarr_*_attribute_name`).
"""
function attribute_names(a::ZarrArray)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_attribute_count(a::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    names = String[]
    for i in 0:Int(n[])-1
        out = Ref{Ptr{UInt8}}(C_NULL)
        check(@ccall libzarr().zarr_array_attribute_name(a::Ptr{Cvoid}, i::Csize_t, out::Ref{Ptr{UInt8}})::Int32)
        push!(names, take_string(out[]))
    end
    return names
end

function attribute_names(g::ZarrGroup)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_group_attribute_count(g::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    names = String[]
    for i in 0:Int(n[])-1
        out = Ref{Ptr{UInt8}}(C_NULL)
        check(@ccall libzarr().zarr_group_attribute_name(g::Ptr{Cvoid}, i::Csize_t, out::Ref{Ptr{UInt8}})::Int32)
        push!(names, take_string(out[]))
    end
    return names
end

"""
    set_attribute!(node, key, value) -> node

Sets the attribute `key` of an array or group to a string, an integer, a float, or a
vector of integers or floats, rewriting the attributes document atomically (wraps
`zarr_*_set_attribute_*`). Throws `ZarrError`: READ_ONLY, IO.
"""
function set_attribute! end

set_attribute!(a::ZarrArray, key::AbstractString, value::AbstractString) =
    (check(@ccall libzarr().zarr_array_set_attribute_string(a::Ptr{Cvoid}, key::Cstring, value::Cstring)::Int32); a)
set_attribute!(g::ZarrGroup, key::AbstractString, value::AbstractString) =
    (check(@ccall libzarr().zarr_group_set_attribute_string(g::Ptr{Cvoid}, key::Cstring, value::Cstring)::Int32); g)
set_attribute!(a::ZarrArray, key::AbstractString, value::Integer) =
    (check(@ccall libzarr().zarr_array_set_attribute_int64(a::Ptr{Cvoid}, key::Cstring, Int64(value)::Int64)::Int32); a)
set_attribute!(g::ZarrGroup, key::AbstractString, value::Integer) =
    (check(@ccall libzarr().zarr_group_set_attribute_int64(g::Ptr{Cvoid}, key::Cstring, Int64(value)::Int64)::Int32); g)
set_attribute!(a::ZarrArray, key::AbstractString, value::AbstractFloat) =
    (check(@ccall libzarr().zarr_array_set_attribute_double(a::Ptr{Cvoid}, key::Cstring, Float64(value)::Float64)::Int32); a)
set_attribute!(g::ZarrGroup, key::AbstractString, value::AbstractFloat) =
    (check(@ccall libzarr().zarr_group_set_attribute_double(g::Ptr{Cvoid}, key::Cstring, Float64(value)::Float64)::Int32); g)

function set_attribute!(a::ZarrArray, key::AbstractString, values::AbstractVector{<:Integer})
    v = Int64.(values)
    check(@ccall libzarr().zarr_array_set_attribute_int64_array(a::Ptr{Cvoid}, key::Cstring, v::Ptr{Int64}, length(v)::Csize_t)::Int32)
    return a
end

function set_attribute!(g::ZarrGroup, key::AbstractString, values::AbstractVector{<:Integer})
    v = Int64.(values)
    check(@ccall libzarr().zarr_group_set_attribute_int64_array(g::Ptr{Cvoid}, key::Cstring, v::Ptr{Int64}, length(v)::Csize_t)::Int32)
    return g
end

function set_attribute!(a::ZarrArray, key::AbstractString, values::AbstractVector{<:AbstractFloat})
    v = Float64.(values)
    check(@ccall libzarr().zarr_array_set_attribute_double_array(a::Ptr{Cvoid}, key::Cstring, v::Ptr{Float64}, length(v)::Csize_t)::Int32)
    return a
end

function set_attribute!(g::ZarrGroup, key::AbstractString, values::AbstractVector{<:AbstractFloat})
    v = Float64.(values)
    check(@ccall libzarr().zarr_group_set_attribute_double_array(g::Ptr{Cvoid}, key::Cstring, v::Ptr{Float64}, length(v)::Csize_t)::Int32)
    return g
end

"""
    delete_attribute!(node, key) -> node

Removes the attribute `key` (wraps `zarr_*_delete_attribute`). Throws `ZarrError`:
NOT_FOUND, READ_ONLY, IO.
"""
delete_attribute!(a::ZarrArray, key::AbstractString) =
    (check(@ccall libzarr().zarr_array_delete_attribute(a::Ptr{Cvoid}, key::Cstring)::Int32); a)
delete_attribute!(g::ZarrGroup, key::AbstractString) =
    (check(@ccall libzarr().zarr_group_delete_attribute(g::Ptr{Cvoid}, key::Cstring)::Int32); g)

# ---- deleting -----------------------------------------------------------------------------

"""
    delete_node!(store, path) -> store

Deletes the array or group (with everything below it) at `path`, keeping consolidated
metadata true (wraps `zarr_store_delete_node`). The root cannot be deleted. Throws
`ZarrError`: INVALID_ARGUMENT (the root), INVALID_PATH, NOT_FOUND, READ_ONLY, IO.
"""
delete_node!(store::ZarrStore, path::AbstractString) =
    (check(@ccall libzarr().zarr_store_delete_node(store::Ptr{Cvoid}, path::Cstring)::Int32); store)

"""
    erase_chunk!(a, idx::Integer...) -> a

Erases the chunk (a whole shard for sharded arrays) at 1-based Julia-order grid
coordinates `idx`; it then reads as the fill value (wraps `zarr_array_erase_chunk`).
"""
function erase_chunk!(a::ZarrArray, idx::Integer...)
    ci = c_indices("erase_chunk!", idx)
    check(@ccall libzarr().zarr_array_erase_chunk(a::Ptr{Cvoid}, length(ci)::Csize_t, ci::Ptr{UInt64})::Int32)
    return a
end

"""
    chunk_stored_nbytes(a, idx::Integer...) -> Union{Nothing,Int}

The stored size in bytes of the chunk at 1-based Julia-order grid coordinates `idx`, or
`nothing` when it is not stored (wraps `zarr_array_chunk_stored_nbytes`).
"""
function chunk_stored_nbytes(a::ZarrArray, idx::Integer...)
    ci = c_indices("chunk_stored_nbytes", idx)
    stored = Ref{Bool}(false)
    n = Ref{UInt64}(0)
    check(@ccall libzarr().zarr_array_chunk_stored_nbytes(a::Ptr{Cvoid}, length(ci)::Csize_t, ci::Ptr{UInt64}, stored::Ref{Bool}, n::Ref{UInt64})::Int32)
    return stored[] ? Int(n[]) : nothing
end

# ---- the array builder ----------------------------------------------------------------------

const ZARR_TYPE_CODES = Dict{DataType,Int32}(v => k for (k, v) in ZARR_DATA_TYPES)

"""
    ArrayBuilder(T, dims)

Settings for a new array of Julia element type `T` and Julia size `dims` (wraps
`zarr_array_builder_new`; freed by a finalizer or `close`). Change them with
`set_chunk_size!`, `set_shard_size!`, `set_fill_value!`, `add_codec!`, `add_gzip!`,
`add_zstd!`, `set_dimension_name!`, `set_attributes_json!`, `set_attribute!` and
`set_format!`, then `create_array(builder, store, path)`.
"""
mutable struct ArrayBuilder
    ptr::Ptr{Cvoid}
    ndim::Int
    function ArrayBuilder(::Type{T}, dims::Tuple{Vararg{Integer}}) where {T}
        haskey(ZARR_TYPE_CODES, T) ||
            throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "ArrayBuilder: no Zarr data type for $T"))
        shape = UInt64[UInt64(d) for d in reverse(dims)]
        out = Ref{Ptr{Cvoid}}(C_NULL)
        check(@ccall libzarr().zarr_array_builder_new(ZARR_TYPE_CODES[T]::Int32, length(shape)::Csize_t, shape::Ptr{UInt64}, out::Ref{Ptr{Cvoid}})::Int32)
        return finalizer(free!, new(out[], length(shape)))
    end
end

function free!(b::ArrayBuilder)
    if b.ptr != C_NULL
        @ccall libzarr().zarr_array_builder_free(b.ptr::Ptr{Cvoid})::Cvoid
        b.ptr = C_NULL
    end
    return nothing
end

Base.close(b::ArrayBuilder) = free!(b)
Base.cconvert(::Type{Ptr{Cvoid}}, b::ArrayBuilder) = b
Base.unsafe_convert(::Type{Ptr{Cvoid}}, b::ArrayBuilder) = b.ptr

c_sizes(dims) = UInt64[UInt64(d) for d in reverse(Tuple(dims))]

function set_chunk_size!(b::ArrayBuilder, chunks)
    c = c_sizes(chunks)
    check(@ccall libzarr().zarr_array_builder_set_chunk_shape(b::Ptr{Cvoid}, length(c)::Csize_t, c::Ptr{UInt64})::Int32)
    return b
end

function set_shard_size!(b::ArrayBuilder, shards)
    c = c_sizes(shards)
    check(@ccall libzarr().zarr_array_builder_set_shard_shape(b::Ptr{Cvoid}, length(c)::Csize_t, c::Ptr{UInt64})::Int32)
    return b
end

function set_fill_value!(b::ArrayBuilder, value)
    v = Ref(value)
    check(@ccall libzarr().zarr_array_builder_set_fill_value(b::Ptr{Cvoid}, v::Ptr{Cvoid}, sizeof(value)::Csize_t)::Int32)
    return b
end

function add_codec!(b::ArrayBuilder, name::AbstractString, configuration_json::Union{Nothing,AbstractString} = nothing)
    if configuration_json === nothing
        check(@ccall libzarr().zarr_array_builder_add_codec(b::Ptr{Cvoid}, name::Cstring, C_NULL::Ptr{UInt8})::Int32)
    else
        check(@ccall libzarr().zarr_array_builder_add_codec(b::Ptr{Cvoid}, name::Cstring, configuration_json::Cstring)::Int32)
    end
    return b
end

add_gzip!(b::ArrayBuilder, level::Integer) =
    (check(@ccall libzarr().zarr_array_builder_add_gzip(b::Ptr{Cvoid}, level::Int32)::Int32); b)
add_zstd!(b::ArrayBuilder, level::Integer) =
    (check(@ccall libzarr().zarr_array_builder_add_zstd(b::Ptr{Cvoid}, level::Int32)::Int32); b)

"""
    set_dimension_name!(b, dim, name)

Names Julia dimension `dim` (1-based), or unnames it with `nothing`.
"""
function set_dimension_name!(b::ArrayBuilder, dim::Integer, name::Union{Nothing,AbstractString})
    1 <= dim <= b.ndim ||
        throw(ZarrError(ZARR_ERROR_OUT_OF_BOUNDS, "set_dimension_name!: dimension $dim of $(b.ndim)"))
    cdim = b.ndim - dim # Julia dimension dim is C dimension ndim - dim
    if name === nothing
        check(@ccall libzarr().zarr_array_builder_set_dimension_name(b::Ptr{Cvoid}, cdim::Csize_t, C_NULL::Ptr{UInt8})::Int32)
    else
        check(@ccall libzarr().zarr_array_builder_set_dimension_name(b::Ptr{Cvoid}, cdim::Csize_t, name::Cstring)::Int32)
    end
    return b
end

set_attributes_json!(b::ArrayBuilder, json::AbstractString) =
    (check(@ccall libzarr().zarr_array_builder_set_attributes_json(b::Ptr{Cvoid}, json::Cstring)::Int32); b)
set_attribute!(b::ArrayBuilder, key::AbstractString, value::AbstractString) =
    (check(@ccall libzarr().zarr_array_builder_set_attribute_string(b::Ptr{Cvoid}, key::Cstring, value::Cstring)::Int32); b)
set_attribute!(b::ArrayBuilder, key::AbstractString, value::Integer) =
    (check(@ccall libzarr().zarr_array_builder_set_attribute_int64(b::Ptr{Cvoid}, key::Cstring, Int64(value)::Int64)::Int32); b)
set_attribute!(b::ArrayBuilder, key::AbstractString, value::AbstractFloat) =
    (check(@ccall libzarr().zarr_array_builder_set_attribute_double(b::Ptr{Cvoid}, key::Cstring, Float64(value)::Float64)::Int32); b)
set_format!(b::ArrayBuilder, zarr_format::Integer) =
    (check(@ccall libzarr().zarr_array_builder_set_format(b::Ptr{Cvoid}, zarr_format::UInt32)::Int32); b)

"""
    create_array(builder, store, path) -> ZarrArray

Creates an array from the builder's settings (wraps `zarr_array_builder_create`).
"""
function create_array(b::ArrayBuilder, store::ZarrStore, path::AbstractString)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_array_builder_create(b::Ptr{Cvoid}, store::Ptr{Cvoid}, path::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrArray(out[])
end

# ---- stores of the caller's own ----------------------------------------------------------------

"""
    ZarrStoreCallbacks

Mirror of C's `zarr_store_callbacks` (see zarr.h): fill it with `@cfunction` pointers and
pass it to `open_callbacks`. libzarr calls the callbacks from its worker threads,
concurrently: Julia code called from threads Julia did not start needs Julia 1.9 or
later, and the callbacks must be thread-safe. The pointers must stay valid as long as
the store is open.
"""
struct ZarrStoreCallbacks
    version::UInt32
    user_data::Ptr{Cvoid}
    get::Ptr{Cvoid}
    get_range::Ptr{Cvoid}
    size::Ptr{Cvoid}
    set::Ptr{Cvoid}
    erase::Ptr{Cvoid}
    list::Ptr{Cvoid}
    erase_prefix::Ptr{Cvoid}
    free_user_data::Ptr{Cvoid}
end

"""
    open_callbacks(callbacks::ZarrStoreCallbacks) -> ZarrStore

Opens a store implemented by the callbacks (wraps `zarr_store_open_callbacks`).
"""
function open_callbacks(callbacks::ZarrStoreCallbacks)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    table = Ref(callbacks)
    check(@ccall libzarr().zarr_store_open_callbacks(table::Ref{ZarrStoreCallbacks}, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrStore(out[])
end

"""
    sink_write(sink::Ptr{Cvoid}, data::Vector{UInt8}) -> Int32

For use inside a read callback: appends `data` to the value (wraps `zarr_sink_write`);
returns the status for the callback to pass on.
"""
sink_write(sink::Ptr{Cvoid}, data::Vector{UInt8}) =
    @ccall libzarr().zarr_sink_write(sink::Ptr{Cvoid}, data::Ptr{Cvoid}, length(data)::Csize_t)::Int32

"""
    sink_extend(sink::Ptr{Cvoid}, n) -> Ptr{UInt8}

For use inside a read callback: appends `n` bytes to fill in place and returns their
address (C_NULL on failure) (wraps `zarr_sink_extend`).
"""
function sink_extend(sink::Ptr{Cvoid}, n::Integer)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    status = @ccall libzarr().zarr_sink_extend(sink::Ptr{Cvoid}, n::Csize_t, out::Ref{Ptr{Cvoid}})::Int32
    return status == ZARR_OK ? Ptr{UInt8}(out[]) : Ptr{UInt8}(C_NULL)
end

"""
    callback_set_error(message)

For use inside a failing callback: the message of the error it returns (wraps
`zarr_store_callback_set_error`).
"""
callback_set_error(message::AbstractString) =
    @ccall libzarr().zarr_store_callback_set_error(message::Cstring)::Cvoid
