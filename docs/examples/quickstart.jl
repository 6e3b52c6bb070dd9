# quickstart.jl: open a dataset, list it, read a variable as numbers, write a new one.
using LibZarr   # ENV["LIBZARR"] = "/path/to/libzarr.so" if it is not on the library path

# The number attribute `key` of `a`, or `otherwise` if there is none (see quickstart.c).
number(a, key, otherwise) = try attribute(a, key, Float64) catch; otherwise end

store = open_filesystem(length(ARGS) > 0 ? ARGS[1] : "climate.zarr")

# Open the dataset and list what is in it.
root = open_group(store, "/")
println("variables: ", children_json(root))

# tas(time, lat, lon): in Julia order it is t[lon, lat, time], no copy, no transpose.
tas = open_array(store, "/tas")
println("tas: ", data_type_name(data_type(tas)), ", ", size(tas))

# Read it whole as Float64, whatever its data type (Int16 when packed, Float32...).
t = read_double(tas)

# Unpack it as CF says: raw * scale_factor + add_offset; _FillValue or missing_value marks
# a missing value. Xarray keeps _FillValue as an attribute in Zarr v3, as the array's fill
# value in Zarr v2.
scale, offset = number(tas, "scale_factor", 1.0), number(tas, "add_offset", 0.0)
missing_value = number(tas, "missing_value", NaN)
fillvalue = zarr_format(tas) == 3 ? number(tas, "_FillValue", NaN) :
            try fill_value_double(tas) catch; NaN end
t = map(v -> v == fillvalue || v == missing_value ? NaN : v * scale + offset, t)
println("tas[1:3, 1, 1] = ", t[1:3, 1, 1], " K")

# Write tas in degrees Celsius beside it, as Float32, replacing an earlier run's.
try delete_node!(store, "/tas_celsius_jl") catch e; e.status == LibZarr.ZARR_ERROR_NOT_FOUND || rethrow() end
celsius = create_array(store, "/tas_celsius_jl", Float32, size(t); fill_value = NaN32, zstd_level = 3)
write_array!(celsius, Float32.(t .- 273.15))
set_attributes!(celsius, """{"units": "degC"}""")
println("wrote /tas_celsius_jl")
