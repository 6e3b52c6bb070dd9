# collective.jl -- part of module LibZarr (included at its end): communicators and the
# collective calls of zarr.h (zarr_comm_*, zarr_*_collective), for MPI programs and any
# other group of ranks. NOT RUN (see LibZarr.jl); the @ccall signatures are checked against
# zarr.h and zarr_mpi.h by check_signatures.py.
#
# Every rank of a communicator calls a collective function together, in the same order,
# from one task at a time per communicator; each returns, or throws a ZarrError with the
# same status, on every rank. THE RULE kept here: a check this module makes itself before a
# collective C call (element type, positions, NUL bytes in strings) must not throw on one
# rank while the others wait inside the call, so such checks run inside `agree`, which
# agrees on their outcome with the other ranks (`zarr_comm_agree`) first.

"""
    ZarrComm

A communicator: the ranks that make collective calls together (wraps `zarr_comm *`). Made
by [`comm_create_mpi`](@ref) from an MPI communicator's Fortran handle, or by
[`comm_create`](@ref) from a table of collective operations. Freed by a finalizer or at
once with `close`; for an MPI communicator, `close` it on every rank before
`MPI.Finalize()` (`zarr_comm_free` calls `MPI_Comm_free`, which should not be left to the
garbage collector running at different times on different ranks).
"""
mutable struct ZarrComm
    ptr::Ptr{Cvoid}
    function ZarrComm(ptr::Ptr{Cvoid})
        return finalizer(free!, new(ptr))
    end
end

function free!(c::ZarrComm)
    if c.ptr != C_NULL
        @ccall libzarr().zarr_comm_free(c.ptr::Ptr{Cvoid})::Cvoid
        c.ptr = C_NULL
    end
    return nothing
end

Base.close(c::ZarrComm) = free!(c)
Base.cconvert(::Type{Ptr{Cvoid}}, c::ZarrComm) = c
Base.unsafe_convert(::Type{Ptr{Cvoid}}, c::ZarrComm) = c.ptr

"""
    ZarrCommOps

zarr.h's `zarr_comm_ops`, for [`comm_create`](@ref): `version` is
`ZARR_COMM_OPS_VERSION`, `user_data` is passed to every operation, and the operations are
`@cfunction` pointers with the signatures of zarr.h's `zarr_comm_*_fn` types (every one
required but `free_user_data`). They run on the task that makes the collective call.
"""
struct ZarrCommOps
    version::UInt32
    user_data::Ptr{Cvoid}
    barrier::Ptr{Cvoid}
    broadcast::Ptr{Cvoid}
    all_gather::Ptr{Cvoid}
    all_gather_v::Ptr{Cvoid}
    all_to_all_v::Ptr{Cvoid}
    all_reduce_i64::Ptr{Cvoid}
    free_user_data::Ptr{Cvoid}
end

const ZARR_COMM_OPS_VERSION = UInt32(1)
const ZARR_REDUCE_MIN = Int32(1)
const ZARR_REDUCE_MAX = Int32(2)
const ZARR_REDUCE_SUM = Int32(3)

const _MPI_LIBPATH = Ref{String}("")

"""
    libzarr_mpi() -> String

The MPI glue library (`libzarr_mpi`, built with the MPI compiler next to libzarr):
`ENV["LIBZARR_MPI"]` if set (for example
`/path/to/libzarr/build/mpi/libzarr_mpi.so`), otherwise `"libzarr_mpi"`. Read once, at the
first call. It must belong to the MPI library that MPI.jl uses (with MPI.jl, configure the
system MPI: `MPIPreferences.use_system_binary()`).
"""
function libzarr_mpi()
    if isempty(_MPI_LIBPATH[])
        _MPI_LIBPATH[] = get(ENV, "LIBZARR_MPI", "libzarr_mpi")
    end
    return _MPI_LIBPATH[]
end

"""
    comm_create_mpi(fortran_handle::Integer) -> ZarrComm

A communicator over the processes of an MPI intra-communicator given by its Fortran handle
(wraps `zarr_comm_create_mpi_f` of libzarr_mpi, which converts it with `MPI_Comm_f2c`).
With MPI.jl:

    using MPI, LibZarr
    MPI.Init()
    comm = comm_create_mpi(MPI.API.MPI_Comm_c2f(MPI.COMM_WORLD))
    ...
    close(comm)          # on every rank, before MPI.Finalize()

Collective over the MPI communicator: every process calls it. libzarr works on its own
duplicate of it. Throws `ZarrError` (the same status on every rank once the communicator
is duplicated): INVALID_ARGUMENT (MPI not initialised or finalised, `MPI_COMM_NULL`, an
inter-communicator), OUT_OF_MEMORY, COMMUNICATION.
"""
function comm_create_mpi(fortran_handle::Integer)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    handle = Int32(fortran_handle)
    check(@ccall libzarr_mpi().zarr_comm_create_mpi_f(handle::Int32, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrComm(out[])
end

"""
    comm_create(ops::ZarrCommOps, rank, size) -> ZarrComm

A communicator whose collective operations are those of `ops` (copied), this being rank
`rank` (0-based) of `size` (wraps `zarr_comm_create`). Not collective. `ops.user_data` and
the functions must stay valid until the communicator is freed. Throws `ZarrError`:
INVALID_ARGUMENT (unknown version, a missing operation, `size` 0 or `rank >= size`).
"""
function comm_create(ops::ZarrCommOps, rank::Integer, size::Integer)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    table = Ref(ops)
    check(@ccall libzarr().zarr_comm_create(table::Ref{ZarrCommOps}, rank::Csize_t, size::Csize_t, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrComm(out[])
end

"""
    comm_callback_set_error(message)

For use inside an operation of a `ZarrCommOps` table that is about to fail: `message`
becomes part of the failing call's message (wraps `zarr_comm_callback_set_error`).
"""
comm_callback_set_error(message::AbstractString) =
    @ccall libzarr().zarr_comm_callback_set_error(message::Cstring)::Cvoid

"""
    comm_rank(comm) -> Int

This rank's number, 0 to `comm_size(comm) - 1` (wraps `zarr_comm_rank`). Not collective.
"""
function comm_rank(c::ZarrComm)
    r = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_comm_rank(c::Ptr{Cvoid}, r::Ref{Csize_t})::Int32)
    return Int(r[])
end

"""
    comm_size(comm) -> Int

The number of ranks (wraps `zarr_comm_size`). Not collective.
"""
function comm_size(c::ZarrComm)
    n = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_comm_size(c::Ptr{Cvoid}, n::Ref{Csize_t})::Int32)
    return Int(n[])
end

"""
    agree(comm, status, message = "")
    agree(f, comm)

Agrees on an outcome, collectively (wraps `zarr_comm_agree`): every rank passes its own
`status` (`ZARR_OK`, or the error it found, explained by `message`); returns `nothing` on
every rank when all passed `ZARR_OK`, otherwise throws `ZarrError` on every rank with the
status of the lowest failing rank N and the message "rank N: <its message>". The second
form runs `f()` on this rank and agrees on whether it threw (a `ZarrError` gives its status
and message, an `OutOfMemoryError` OUT_OF_MEMORY, anything else INTERNAL):

    agree(comm) do
        isfile(input) || throw(ZarrError(LibZarr.ZARR_ERROR_NOT_FOUND, "no \$input here"))
    end

For checks of your own before a collective call, so that either every rank makes it or
none does. Also throws NULL_ARGUMENT (closed communicator: this rank alone) and
COMMUNICATION.
"""
function agree(c::ZarrComm, status::Integer, message::AbstractString = "")
    text = String(message)
    # Any integer: a conversion that threw here would skip the agreement on this rank alone.
    status = Int32(clamp(status, typemin(Int32), typemax(Int32)))
    if status == ZARR_OK
        check(@ccall libzarr().zarr_comm_agree(c::Ptr{Cvoid}, ZARR_OK::Int32, C_NULL::Ptr{UInt8})::Int32)
    else
        # A NUL byte would end the C string early; it cannot make this rank throw alone.
        text = replace(text, '\0' => ' ')
        check(@ccall libzarr().zarr_comm_agree(c::Ptr{Cvoid}, status::Int32, text::Cstring)::Int32)
    end
    return nothing
end

function agree(f::Function, c::ZarrComm)
    status, message = ZARR_OK, ""
    try
        f()
    catch e
        if e isa ZarrError
            status, message = e.status, e.message
        elseif e isa OutOfMemoryError
            status, message = ZARR_ERROR_OUT_OF_MEMORY, "LibZarr: out of memory"
        else
            status, message = ZARR_ERROR_INTERNAL, sprint(showerror, e)
        end
    end
    return agree(c, status, message)
end

"""
    last_write_json(comm) -> String

What the last `write_collective!` or `append_collective!` through `comm` did on this rank,
as JSON object text (`ranks`, `rounds`, `units`, `units_written`, `units_merged`,
`bytes_sent`, `bytes_received`), `"null"` before the first (wraps
`zarr_comm_last_write_json`). Not collective.
"""
function last_write_json(c::ZarrComm)
    out = Ref{Ptr{UInt8}}(C_NULL)
    check(@ccall libzarr().zarr_comm_last_write_json(c::Ptr{Cvoid}, out::Ref{Ptr{UInt8}})::Int32)
    return take_string(out[])
end

# Throws INVALID_ARGUMENT when `s` holds a NUL byte (@ccall's Cstring conversion would throw
# an ArgumentError on this rank alone, after the agreement).
function check_cstring(what::AbstractString, s::AbstractString)
    Base.containsnul(s) &&
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "$what contains a NUL byte"))
    return String(s)
end

# Julia-order 1-based `firsts` (default all 1) of a buffer of `dims` -> C-order start and count.
function collective_selection(what::AbstractString, firsts, dims::Tuple)
    pos = isempty(firsts) ? ntuple(_ -> 1, length(dims)) : firsts
    start = c_indices(what, pos)
    count = UInt64[UInt64(n) for n in reverse(dims)]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "$what: $(length(start)) positions for a $(length(dims))-d buffer"))
    return start, count
end

"""
    create_array_collective(comm, store, path, metadata_json) -> ZarrArray
    create_array_collective(comm, store, path, T, dims; chunks, fill_value, zstd_level) -> ZarrArray

Creates an array, collectively: every rank passes the same arguments (those of
`create_array`); rank 0 writes the metadata, then every rank opens the array (wraps
`zarr_array_create_collective`). Throws `ZarrError` on every rank: INVALID_ARGUMENT (ranks
passing different arguments; an element type without a Zarr name), INVALID_PATH,
ALREADY_EXISTS, NODE_TYPE_MISMATCH, INVALID_METADATA, UNSUPPORTED, IO, COMMUNICATION.
"""
function create_array_collective(c::ZarrComm, store::ZarrStore, path::AbstractString,
                                 metadata_json::AbstractString)
    p, m = "", ""
    agree(c) do
        p = check_cstring("create_array_collective: path", path)
        m = check_cstring("create_array_collective: metadata_json", metadata_json)
    end
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall libzarr().zarr_array_create_collective(c::Ptr{Cvoid}, store::Ptr{Cvoid}, p::Cstring, m::Cstring, out::Ref{Ptr{Cvoid}})::Int32)
    return ZarrArray(out[])
end

function create_array_collective(c::ZarrComm, store::ZarrStore, path::AbstractString, ::Type{T},
                                 dims::Tuple{Vararg{Integer}}; kwargs...) where {T}
    metadata = ""
    agree(c) do
        metadata = array_metadata_json(T, dims; kwargs...)
    end
    return create_array_collective(c, store, path, metadata)
end

"""
    write_collective!(comm, a, data::AbstractArray, firsts::Integer...) -> a

Writes each rank's `data` at its 1-based Julia-order position `firsts` (default all 1),
collectively (wraps `zarr_array_write_collective`): the result equals one serial write of
every rank's box; boxes may cut chunks and shards anywhere but must not overlap; an empty
`data` writes nothing but its rank takes part. Each chunk or shard is written once, by one
rank. Throws `ZarrError` on every rank: INVALID_ARGUMENT (element type or rank on any rank,
overlapping boxes), OUT_OF_BOUNDS, UNSUPPORTED, CORRUPT_DATA, READ_ONLY, IO,
COMMUNICATION; nothing is written after an argument error.
"""
function write_collective!(c::ZarrComm, a::ZarrArray, data::AbstractArray{T}, firsts::Integer...) where {T}
    buf, start, count = data, UInt64[], UInt64[]
    agree(c) do
        check_eltype("write_collective!", a, T)
        buf = data isa Array ? data : Array{T}(data)
        start, count = collective_selection("write_collective!", firsts, size(buf))
    end
    ndim = length(count)
    check(@ccall libzarr().zarr_array_write_collective(c::Ptr{Cvoid}, a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, buf::Ptr{Cvoid}, sizeof(buf)::Csize_t)::Int32)
    return a
end

"""
    read_collective!(comm, a, dest::Array, firsts::Integer...) -> dest

Reads each rank's region of size `size(dest)` at its 1-based Julia-order position `firsts`
(default all 1) into `dest`, collectively (wraps `zarr_array_read_collective`); regions may
overlap. Throws `ZarrError` on every rank: INVALID_ARGUMENT (element type or rank on any
rank), OUT_OF_BOUNDS, UNSUPPORTED, CORRUPT_DATA, IO, COMMUNICATION.
"""
function read_collective!(c::ZarrComm, a::ZarrArray, dest::Array{T}, firsts::Integer...) where {T}
    start, count = UInt64[], UInt64[]
    agree(c) do
        check_eltype("read_collective!", a, T)
        start, count = collective_selection("read_collective!", firsts, size(dest))
    end
    ndim = length(count)
    check(@ccall libzarr().zarr_array_read_collective(c::Ptr{Cvoid}, a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, dest::Ptr{Cvoid}, sizeof(dest)::Csize_t)::Int32)
    return dest
end

"""
    read_collective(comm, a) -> Array
    read_collective(comm, a, ranges...) -> Array

Reads the whole array, or each rank's region given by one 1-based range (or `:`) per Julia
dimension, into a new `Array{eltype(a)}`, collectively (see `read_collective!`).
"""
read_collective(c::ZarrComm, a::ZarrArray, ranges::Union{AbstractUnitRange{<:Integer},Colon}...) =
    read_collective_region(c, a, ranges)

function read_collective_region(c::ZarrComm, a::ZarrArray, ranges::Tuple)
    dest, firsts = Array{UInt8}(undef, 0), ()
    agree(c) do
        dims = size(a)
        rs = isempty(ranges) ? map(d -> 1:d, dims) : ranges
        length(rs) == length(dims) ||
            throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "read_collective: $(length(dims)) ranges expected, got $(length(rs))"))
        rs = ntuple(i -> rs[i] isa Colon ? (1:dims[i]) : rs[i], length(dims))
        dest = Array{eltype(a)}(undef, map(length, rs)...)
        firsts = map(first, rs)
    end
    return read_collective!(c, a, dest, firsts...)
end

"""
    resize_collective!(comm, a, dims::Integer...) -> a

Changes the array's size (Julia order), collectively: every rank passes the same size; rank
0 rewrites the metadata, then every rank's handle has it (wraps
`zarr_array_resize_collective`). Throws `ZarrError` on every rank: INVALID_ARGUMENT (wrong
number of dimensions, a negative size, different sizes on some rank), UNSUPPORTED,
READ_ONLY, IO, COMMUNICATION.
"""
function resize_collective!(c::ZarrComm, a::ZarrArray, dims::Integer...)
    shape = UInt64[]
    agree(c) do
        all(>=(0), dims) ||
            throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "resize_collective!: negative size $(dims)"))
        shape = UInt64[UInt64(n) for n in reverse(dims)]
    end
    ndim = length(shape)
    check(@ccall libzarr().zarr_array_resize_collective(c::Ptr{Cvoid}, a::Ptr{Cvoid}, ndim::Csize_t, shape::Ptr{UInt64})::Int32)
    return a
end

"""
    append_collective!(comm, a, dim, data::AbstractArray, firsts::Integer...; len) -> a

Grows Julia dimension `dim` by `len`, then writes each rank's `data` at its 1-based
Julia-order position `firsts` within the appended block, collectively: the time step of a
simulation, each rank writing its part (wraps `zarr_array_append_collective`). `len`
defaults to where this rank's block ends along `dim` (`firsts[dim] + size(data, dim) -
1`); every rank must pass the same `dim` and `len`. Throws `ZarrError` on every rank: those
of `resize_collective!` and `write_collective!`, OUT_OF_BOUNDS for a box outside the block.
"""
function append_collective!(c::ZarrComm, a::ZarrArray, dim::Integer, data::AbstractArray{T},
                            firsts::Integer...; len::Union{Nothing,Integer} = nothing) where {T}
    buf, start, count = data, UInt64[], UInt64[]
    cdim, block = 0, UInt64(0)
    agree(c) do
        check_eltype("append_collective!", a, T)
        buf = data isa Array ? data : Array{T}(data)
        start, count = collective_selection("append_collective!", firsts, size(buf))
        n = length(count)
        1 <= dim <= n ||
            throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "append_collective!: dimension $dim of a $n-d array"))
        cdim = n - dim
        if len === nothing
            block = start[cdim + 1] + count[cdim + 1]
        else
            len >= 0 || throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "append_collective!: negative len $len"))
            block = UInt64(len)
        end
    end
    ndim = length(count)
    check(@ccall libzarr().zarr_array_append_collective(c::Ptr{Cvoid}, a::Ptr{Cvoid}, cdim::Csize_t, block::UInt64, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, buf::Ptr{Cvoid}, sizeof(buf)::Csize_t)::Int32)
    return a
end

"""
    set_attributes_collective!(comm, node, json) -> node

Replaces the attributes of a group or array with the JSON object text `json`, collectively
(every rank passes the same text; rank 0 writes; wraps
`zarr_group_set_attributes_json_collective` / `zarr_array_set_attributes_json_collective`).
Throws `ZarrError` on every rank: INVALID_ARGUMENT (not a JSON object, different on some
rank), READ_ONLY, IO, COMMUNICATION.
"""
function set_attributes_collective!(c::ZarrComm, g::ZarrGroup, json::AbstractString)
    text = ""
    agree(c) do
        text = check_cstring("set_attributes_collective!: json", json)
    end
    check(@ccall libzarr().zarr_group_set_attributes_json_collective(c::Ptr{Cvoid}, g::Ptr{Cvoid}, text::Cstring)::Int32)
    return g
end

function set_attributes_collective!(c::ZarrComm, a::ZarrArray, json::AbstractString)
    text = ""
    agree(c) do
        text = check_cstring("set_attributes_collective!: json", json)
    end
    check(@ccall libzarr().zarr_array_set_attributes_json_collective(c::Ptr{Cvoid}, a::Ptr{Cvoid}, text::Cstring)::Int32)
    return a
end

"""
    create_group_collective(comm, store, path = "/"; attrs = nothing) -> ZarrGroup

Creates a Zarr v3 group at `path` with the attributes in the JSON object text `attrs`,
collectively: every rank passes the same arguments; rank 0 writes it, then every rank opens
it (wraps `zarr_group_create_collective`). Throws `ZarrError` on every rank:
INVALID_ARGUMENT, INVALID_PATH, ALREADY_EXISTS, NODE_TYPE_MISMATCH, IO, COMMUNICATION.
"""
function create_group_collective(c::ZarrComm, store::ZarrStore, path::AbstractString = "/";
                                 attrs::Union{Nothing,AbstractString} = nothing)
    p, text = "", ""
    agree(c) do
        p = check_cstring("create_group_collective: path", path)
        attrs === nothing || (text = check_cstring("create_group_collective: attrs", attrs))
    end
    out = Ref{Ptr{Cvoid}}(C_NULL)
    if attrs === nothing
        status = @ccall libzarr().zarr_group_create_collective(c::Ptr{Cvoid}, store::Ptr{Cvoid}, p::Cstring, C_NULL::Ptr{UInt8}, out::Ref{Ptr{Cvoid}})::Int32
    else
        status = @ccall libzarr().zarr_group_create_collective(c::Ptr{Cvoid}, store::Ptr{Cvoid}, p::Cstring, text::Cstring, out::Ref{Ptr{Cvoid}})::Int32
    end
    check(status)
    return ZarrGroup(out[])
end

"""
    consolidate_collective!(comm, group) -> group

Writes consolidated metadata for every node below the group, collectively (rank 0 writes;
wraps `zarr_group_consolidate_collective`): call it after the last collective write and
node creation. Throws `ZarrError` on every rank: INVALID_ARGUMENT, INVALID_METADATA,
READ_ONLY, IO, COMMUNICATION.
"""
function consolidate_collective!(c::ZarrComm, g::ZarrGroup)
    check(@ccall libzarr().zarr_group_consolidate_collective(c::Ptr{Cvoid}, g::Ptr{Cvoid})::Int32)
    return g
end
