# Tests of LibZarr.jl. NEVER RUN on the development machine (no Julia there); written for
# whoever has Julia: LIBZARR=/path/to/build/cargo/release/libzarr.so julia --project=. -e
# 'using Pkg; Pkg.test()' from bindings/julia/LibZarr.

using LibZarr
using Test

# A communicator of one rank (a ZarrCommOps table of Julia functions): every exchange is a
# copy of this rank's own bytes. The MPI form is comm_create_mpi (see collective.jl).
one_barrier(::Ptr{Cvoid}) = Int32(0)
one_broadcast(::Ptr{Cvoid}, ::Ptr{Cvoid}, ::Csize_t, ::Csize_t) = Int32(0)
function one_all_gather(::Ptr{Cvoid}, send::Ptr{Cvoid}, len::Csize_t, recv::Ptr{Cvoid})
    unsafe_copyto!(Ptr{UInt8}(recv), Ptr{UInt8}(send), len)
    return Int32(0)
end
function one_all_gather_v(::Ptr{Cvoid}, send::Ptr{Cvoid}, ::Csize_t, recv::Ptr{Cvoid},
                          lens::Ptr{Csize_t}, displs::Ptr{Csize_t})
    unsafe_copyto!(Ptr{UInt8}(recv) + unsafe_load(displs), Ptr{UInt8}(send), unsafe_load(lens))
    return Int32(0)
end
function one_all_to_all_v(::Ptr{Cvoid}, send::Ptr{Cvoid}, send_lens::Ptr{Csize_t},
                          send_displs::Ptr{Csize_t}, recv::Ptr{Cvoid}, ::Ptr{Csize_t},
                          recv_displs::Ptr{Csize_t})
    unsafe_copyto!(Ptr{UInt8}(recv) + unsafe_load(recv_displs),
                   Ptr{UInt8}(send) + unsafe_load(send_displs), unsafe_load(send_lens))
    return Int32(0)
end
one_all_reduce(::Ptr{Cvoid}, ::Ptr{Int64}, ::Csize_t, ::Int32) = Int32(0)

one_rank_ops() = ZarrCommOps(
    LibZarr.ZARR_COMM_OPS_VERSION, C_NULL,
    @cfunction(one_barrier, Int32, (Ptr{Cvoid},)),
    @cfunction(one_broadcast, Int32, (Ptr{Cvoid}, Ptr{Cvoid}, Csize_t, Csize_t)),
    @cfunction(one_all_gather, Int32, (Ptr{Cvoid}, Ptr{Cvoid}, Csize_t, Ptr{Cvoid})),
    @cfunction(one_all_gather_v, Int32,
               (Ptr{Cvoid}, Ptr{Cvoid}, Csize_t, Ptr{Cvoid}, Ptr{Csize_t}, Ptr{Csize_t})),
    @cfunction(one_all_to_all_v, Int32,
               (Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Csize_t}, Ptr{Csize_t}, Ptr{Cvoid}, Ptr{Csize_t},
                Ptr{Csize_t})),
    @cfunction(one_all_reduce, Int32, (Ptr{Cvoid}, Ptr{Int64}, Csize_t, Int32)),
    C_NULL)

@testset "LibZarr" begin
    @testset "round trip, dimension reversal" begin
        store = open_memory()
        a = create_array(store, "/t", Float32, (5, 3); chunks = (2, 2), zstd_level = 1)
        @test size(a) == (5, 3)
        @test zarr_shape(a) == UInt64[3, 5]         # C order: reversed
        @test chunk_size(a) == (2, 2)
        @test eltype(a) == Float32
        x = reshape(Float32.(1:15), 5, 3)
        write_array!(a, x)
        @test read_array(a) == x
        @test read_array(a, 2:3, 1:2) == x[2:3, 1:2]
        @test read_array(a, :, 3:3) == x[:, 3:3]   # ranges or `:` only, no integers
        # The C view: row-major (3, 5), element [i][j] is x[j+1, i+1].
        @test read_chunk(a, 1, 1) == x[1:2, 1:2]
        @test chunk_grid_size(a) == (3, 2)
        @test chunk_region(a, 3, 2) == ((5, 3), (2, 2))   # past the edge: full chunk size
        @test_throws ZarrError chunk_region(a, 4, 1)
        close(a)
        @test_throws ZarrError size(a)
    end

    @testset "filesystem, groups, attributes" begin
        dir = mktempdir()
        store = open_filesystem(joinpath(dir, "d.zarr"))
        g = create_group(store, "/g"; attrs = "{\"units\": \"K\"}")
        @test occursin("units", attributes(open_group(store, "/g")))
        set_attributes!(g, "{\"a\": 1}")
        @test occursin("\"a\"", attributes(g))
        a = create_array(store, "/g/v", Int16, (4,))
        write_array!(a, Int16[1, 2, 3, 4])
        @test read_array(open_array(store, "/g/v")) == Int16[1, 2, 3, 4]
        @test occursin("\"/g/v\"", children_json(g))
    end

    @testset "open_url" begin
        dir = mktempdir()
        store = open_url("file://" * joinpath(dir, "u.zarr"); options = "{\"create\": true}")
        a = create_array(store, "/v", Int32, (3,))
        write_array!(a, Int32[7, 8, 9])
        ro = open_url(joinpath(dir, "u.zarr"); options = "{\"read_only\": true}")
        @test read_array(open_array(ro, "/v")) == Int32[7, 8, 9]
        e = try create_array(ro, "/w", Int32, (3,)); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_READ_ONLY
        e = try open_url("s3://b"; options = "{\"colour\": 1}"); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_INVALID_ARGUMENT && occursin("colour", e.message)
        e = try open_url("ftp://h/x"); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_UNSUPPORTED
        e = try open_url("gs://b/x"; options = "{\"region\": \"eu\"}"); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_INVALID_ARGUMENT && occursin("region", e.message)
    end

    @testset "int4 and complex types" begin
        store = open_memory()
        # int4 codes in UInt8, the 4 bits low (ml_dtypes' layout: -1 is 0x0f); Julia size
        # (4, 2) is the Zarr shape (2, 4).
        meta(dtype, shape, chunks, fill, codecs) = string(
            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": ", shape,
            ", \"data_type\": \"", dtype, "\", \"chunk_grid\": {\"name\": \"regular\", ",
            "\"configuration\": {\"chunk_shape\": ", chunks, "}}, \"chunk_key_encoding\": ",
            "{\"name\": \"default\"}, \"fill_value\": ", fill, ", \"codecs\": ", codecs, "}")
        q = create_array(store, "/q", meta("int4", "[2, 4]", "[2, 2]", "-3", "[{\"name\": \"bytes\"}]"))
        @test data_type(q) == LibZarr.ZARR_DATA_TYPE_INT4
        @test data_type_name(data_type(q)) == "int4"
        @test eltype(q) == UInt8 && element_size(q) == 1
        @test fill_value(q) == 0x0d                      # -3
        vals = Int8[-8 0; -7 1; -2 6; -1 7]
        codes = int8_to_sub_byte(LibZarr.ZARR_DATA_TYPE_INT4, vals)
        @test codes == UInt8[0x08 0x00; 0x09 0x01; 0x0e 0x06; 0x0f 0x07]
        write_array!(q, codes[:, 1:1])
        @test read_array(q) == hcat(codes[:, 1], fill(0x0d, 4))
        write_array!(q, codes)
        back = read_array(q)
        @test back == codes
        @test sub_byte_to_int8(LibZarr.ZARR_DATA_TYPE_INT4, back) == vals
        e = try int8_to_sub_byte(LibZarr.ZARR_DATA_TYPE_INT4, Int8[0, 7, 8]); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_INVALID_ARGUMENT && occursin("values[2]", e.message)
        e = try write_array!(q, reshape(UInt8[0x01, 0x1f], 2, 1)); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_INVALID_ARGUMENT && occursin("0x1f", e.message)
        @test read_array(q) == codes                     # nothing was written
        @test sub_byte_to_int8(LibZarr.ZARR_DATA_TYPE_INT2, UInt8[0, 1, 2, 3]) == Int8[0, 1, -2, -1]

        # complex_float16 is Julia's ComplexF16; complex_bfloat16 pairs of bits.
        c = create_array(store, "/c", meta("complex_float16", "[3]", "[2]", "[1.0, -2.0]",
            "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]"))
        @test data_type(c) == LibZarr.ZARR_DATA_TYPE_COMPLEX_FLOAT16
        @test eltype(c) == ComplexF16 && fill_value(c) == ComplexF16(1, -2)
        write_array!(c, ComplexF16[0.5 - 1.5im], 2)
        @test read_array(c) == ComplexF16[1 - 2im, 0.5 - 1.5im, 1 - 2im]
        b = create_array(store, "/b", meta("complex_bfloat16", "[2]", "[2]", "[1.0, -2.0]",
            "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}}]"))
        @test eltype(b) == NTuple{2,UInt16} && fill_value(b) == (0x3f80, 0xc000)
        write_array!(b, [(0x4040, 0x7fc0)], 2)
        @test read_array(b) == [(0x3f80, 0xc000), (0x4040, 0x7fc0)]
    end

    @testset "errors" begin
        store = open_memory()
        e = try open_array(store, "/missing"); nothing catch err; err end
        @test e isa ZarrError && e.status == LibZarr.ZARR_ERROR_NOT_FOUND
        @test occursin("zarr_array_open", e.message)
        e = try create_array(store, "/bad", "{"); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_INVALID_METADATA
        a = create_array(store, "/a", Float32, (4,))
        e = try write_array!(a, zeros(Float64, 4)); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_INVALID_ARGUMENT
        e = try read_array(a, 3:6); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_OUT_OF_BOUNDS
    end

    @testset "read_double" begin
        store = open_memory()
        a = create_array(store, "/i16", Int16, (3, 2))
        x = Int16[-32768 0; 32767 -1; 5 -32767]
        write_array!(a, x)
        @test read_double(a) == Float64.(x)
        @test read_double(a, 2:3, 2:2) == Float64.(x[2:3, 2:2])
        @test fill_value_double(a) == 0.0
        @test data_type_name(data_type(a)) == "int16"
        @test data_type_name(0) == "unknown data type"
        u = create_array(store, "/u64", UInt64, (2,))
        write_array!(u, UInt64[typemax(UInt64), 7])
        @test read_double(u) == [18446744073709551616.0, 7.0]
        f = create_array(store, "/f32", Float32, (2,); fill_value = NaN32)
        write_array!(f, Float32[0.1, -2.5])
        @test read_double(f) == Float64.(Float32[0.1, -2.5])
        @test isnan(fill_value_double(f))
        c = create_array(store, "/c64", ComplexF32, (2,))
        e = try read_double(c); nothing catch err; err end
        @test e isa ZarrError && e.status == LibZarr.ZARR_ERROR_TYPE_MISMATCH
        @test occursin("complex64", e.message)
        e = try read_double(a, 3:4, 1:2); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_OUT_OF_BOUNDS
    end

    @testset "library" begin
        @test libversion() isa VersionNumber
        set_thread_pool_size(2)
        @test thread_pool_size() == 2
        set_thread_pool_size(0)
    end

    @testset "accessors, attributes, builder, delete" begin
        store = open_memory()
        create_group(store, "/")
        b = ArrayBuilder(Float32, (6, 4))          # Julia size: Zarr shape (4, 6)
        set_chunk_size!(b, (3, 2))
        set_fill_value!(b, -1.0f0)
        add_gzip!(b, 3)
        set_dimension_name!(b, 1, "lon")
        set_dimension_name!(b, 2, "lat")
        set_attribute!(b, "units", "K")
        a = create_array(b, store, "/tas")
        @test dimension_names(a) == ["lon", "lat"]
        @test fill_value(a) == -1.0f0
        @test codec_names(a) == ["bytes", "gzip"]
        @test attribute(a, "units", String) == "K"
        set_attribute!(a, "valid_range", [180.0, 330.0])
        @test attribute(a, "valid_range", Vector{Float64}) == [180.0, 330.0]
        set_attribute!(a, "n", 3)
        @test attribute(a, "n", Int64) == 3
        @test attribute(a, "n", Float64) == 3.0
        @test attribute_names(a) == ["units", "valid_range", "n"]
        e = try attribute(a, "units", Float64); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_TYPE_MISMATCH
        delete_attribute!(a, "n")
        @test children(open_group(store, "/")) == ["tas" => :array]
        write_array!(a, ones(Float32, 6, 4))
        @test chunk_stored_nbytes(a, 1, 1) isa Int
        erase_chunk!(a, 1, 1)
        @test chunk_stored_nbytes(a, 1, 1) === nothing
        delete_node!(store, "/tas")
        @test isempty(children(open_group(store, "/")))
        @test zarr_format(create_group_with_format(store, "/old", 2)) == 2
    end

    @testset "collective calls on one rank" begin
        comm = comm_create(one_rank_ops(), 0, 1)
        @test comm_rank(comm) == 0 && comm_size(comm) == 1
        @test last_write_json(comm) == "null"
        store = open_memory()
        g = create_group_collective(comm, store, "/"; attrs = "{\"title\": \"run\"}")
        a = create_array_collective(comm, store, "/f", Float32, (7, 4); chunks = (3, 2))
        x = reshape(Float32.(1:28), 7, 4)
        write_collective!(comm, a, x[:, 1:2])
        write_collective!(comm, a, x[:, 3:4], 1, 3)
        @test read_collective(comm, a) == x
        @test read_collective(comm, a, 2:4, 3:4) == x[2:4, 3:4]
        @test occursin("units_written", last_write_json(comm))
        # Checks made on the Julia side are agreed: the message names the rank.
        e = try write_collective!(comm, a, zeros(Float64, 7, 4)); nothing catch err; err end
        @test e isa ZarrError && e.status == LibZarr.ZARR_ERROR_INVALID_ARGUMENT
        @test occursin("rank 0: write_collective!", e.message)
        e = try agree(comm, LibZarr.ZARR_ERROR_IO, "disk full"); nothing catch err; err end
        @test e.status == LibZarr.ZARR_ERROR_IO && occursin("rank 0: disk full", e.message)
        @test read_array(a) == x
        s = create_array_collective(comm, store, "/s", Float64, (5, 0); chunks = (5, 2))
        for t in 1:3
            append_collective!(comm, s, 2, fill(Float64(t), 5, 1))
        end
        @test size(s) == (5, 3) && read_collective(comm, s) == repeat([1.0 2.0 3.0], 5)
        resize_collective!(comm, s, 5, 6)
        @test size(s) == (5, 6)
        set_attributes_collective!(comm, s, "{\"units\": \"K\"}")
        set_attributes_collective!(comm, g, "{\"steps\": 3}")
        consolidate_collective!(comm, g)
        @test occursin("steps", attributes(open_group(open_consolidated(store), "/")))
        close(comm)
        @test_throws ZarrError comm_rank(comm)
    end
end
