# vlen.jl -- part of module LibZarr (included at its end): arrays of variable-length
# elements, `string` (Zarr v2 `|O` text) and `bytes`, as `Array{String}` and
# `Array{Vector{UInt8}}`. NOT RUN (see LibZarr.jl); the @ccall signatures are checked
# against zarr.h by check_signatures.py.
#
# The C functions exchange elements Arrow-style (offsets and one data buffer) in C order,
# which is the column-major order of the Julia array of reversed size: element k (0-based)
# of the C selection is Julia linear index k + 1.

const ZARR_DATA_TYPE_STRING = Int32(31)
const ZARR_DATA_TYPE_BYTES = Int32(32)

# The selection of `ranges` (one per Julia dimension, `:` for all): C-order start and count,
# and the Julia size of the result.
function vlen_selection(what::AbstractString, a::ZarrArray, ranges::Tuple)
    dims = size(a)
    length(ranges) == length(dims) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "$what: $(length(dims)) ranges expected, got $(length(ranges))"))
    rs = ntuple(i -> ranges[i] isa Colon ? (1:dims[i]) : ranges[i], length(dims))
    start = c_indices(what, map(first, rs))
    count = UInt64[UInt64(length(r)) for r in reverse(rs)]
    return start, count, map(length, rs)
end

# Offsets (n + 1) and data of the selection, with the size query first: the data is read
# in a second call into a buffer of the size the first reported (again if the array grew
# in between).
function read_vlen_raw(a::ZarrArray, start::Vector{UInt64}, count::Vector{UInt64}, n::Int)
    ndim = length(count)
    offsets = Vector{UInt64}(undef, n + 1)
    size_out = Ref{Csize_t}(0)
    check(@ccall libzarr().zarr_array_read_vlen(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, offsets::Ptr{UInt64}, length(offsets)::Csize_t, C_NULL::Ptr{Cvoid}, 0::Csize_t, size_out::Ref{Csize_t})::Int32)
    while true
        data = Vector{UInt8}(undef, size_out[])
        status = @ccall libzarr().zarr_array_read_vlen(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, offsets::Ptr{UInt64}, length(offsets)::Csize_t, data::Ptr{Cvoid}, length(data)::Csize_t, size_out::Ref{Csize_t})::Int32
        status == ZARR_ERROR_BUFFER_TOO_SMALL && size_out[] > length(data) && continue
        check(status)
        return offsets, data
    end
end

"""
    read_strings(a) -> Array{String}
    read_strings(a, ranges...) -> Array{String}

Reads the elements of a `string` array (or a `bytes` array whose elements are text) in
the whole array or the region given by one 1-based range (or `:`) per Julia dimension
(wraps `zarr_array_read_vlen`). Elements never written are the fill value. Throws
`ZarrError`: UNSUPPORTED (fixed-size elements: use `read_array`), OUT_OF_BOUNDS,
CORRUPT_DATA (a chunk that lies about its contents, text that is not UTF-8), IO.
"""
read_strings(a::ZarrArray, ranges::Union{AbstractUnitRange{<:Integer},Colon}...) =
    map(String, read_vlen(a, "read_strings", isempty(ranges) ? ntuple(_ -> Colon(), ndims(a)) : ranges))

"""
    read_bytes(a, ranges...) -> Array{Vector{UInt8}}

As `read_strings`, each element as its bytes (for `bytes` arrays).
"""
read_bytes(a::ZarrArray, ranges::Union{AbstractUnitRange{<:Integer},Colon}...) =
    read_vlen(a, "read_bytes", isempty(ranges) ? ntuple(_ -> Colon(), ndims(a)) : ranges)

function read_vlen(a::ZarrArray, what::AbstractString, ranges::Tuple)
    start, count, jsize = vlen_selection(what, a, ranges)
    n = prod(jsize; init=1)
    offsets, data = read_vlen_raw(a, start, count, n)
    out = Array{Vector{UInt8}}(undef, jsize...)
    for k in 1:n
        out[k] = data[offsets[k]+1:offsets[k+1]]
    end
    return out
end

"""
    write_strings!(a, data::AbstractArray, firsts::Integer...) -> a

Writes `data` (strings, or byte vectors for a `bytes` array) at the 1-based Julia-order
position `firsts` (default all 1) (wraps `zarr_array_write_vlen`). Throws `ZarrError`:
UNSUPPORTED (fixed-size elements, or the read-only `json2` codec), INVALID_ARGUMENT (text
that is not UTF-8), OUT_OF_BOUNDS, CORRUPT_DATA (an existing chunk to merge with),
READ_ONLY, IO.
"""
function write_strings!(a::ZarrArray, data::AbstractArray, firsts::Integer...)
    pos = isempty(firsts) ? ntuple(_ -> 1, ndims(data)) : firsts
    start = c_indices("write_strings!", pos)
    count = UInt64[UInt64(n) for n in reverse(size(data))]
    length(start) == length(count) ||
        throw(ZarrError(ZARR_ERROR_INVALID_ARGUMENT, "write_strings!: $(length(start)) positions for a $(ndims(data))-d array"))
    offsets = Vector{UInt64}(undef, length(data) + 1)
    offsets[1] = 0
    bytes = UInt8[]
    for (k, element) in enumerate(vec(collect(data)))
        append!(bytes, element isa AbstractString ? codeunits(String(element)) : element)
        offsets[k+1] = length(bytes)
    end
    ndim = length(count)
    check(@ccall libzarr().zarr_array_write_vlen(a::Ptr{Cvoid}, ndim::Csize_t, start::Ptr{UInt64}, count::Ptr{UInt64}, offsets::Ptr{UInt64}, length(offsets)::Csize_t, bytes::Ptr{Cvoid}, length(bytes)::Csize_t)::Int32)
    return a
end
