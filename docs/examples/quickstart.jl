# quickstart.jl: open a dataset, list it, read a variable, write a new one.
using LibZarr   # ENV["LIBZARR"] = "/path/to/libzarr.so" if it is not on the library path

store = open_filesystem(length(ARGS) > 0 ? ARGS[1] : "climate.zarr")

# Open the dataset and list what is in it.
root = open_group(store, "/")
println("variables: ", children_json(root))

# Read tas(time, lat, lon): in Julia order it is t[lon, lat, time], no copy, no transpose.
tas = open_array(store, "/tas")
t = read_array(tas)
println("tas: ", size(t), ", attributes ", attributes(tas))
println("tas[1, 1, 1] = ", t[1, 1, 1], " K")

# Write a new variable beside it: tas in degrees Celsius, same shape.
celsius = create_array(store, "/tas_celsius_jl", Float32, size(t); fill_value = NaN32, zstd_level = 3)
write_array!(celsius, t .- 273.15f0)
set_attributes!(celsius, """{"units": "degC"}""")
println("wrote /tas_celsius_jl")
