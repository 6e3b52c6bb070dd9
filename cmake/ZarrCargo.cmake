# Builds the Rust crate with cargo and exposes it as imported targets:
#   zarr::zarr         the shared library (libzarr.so, SONAME libzarr.so.<major>)
#   zarr::zarr_static  the static library (libzarr.a) with the system libraries it needs
# Both carry the include directory of zarr.h. No network access happens at configure time:
# cargo runs at build time with --locked.

find_program(ZARR_CARGO cargo HINTS "$ENV{HOME}/.cargo/bin")
if(NOT ZARR_CARGO)
  message(FATAL_ERROR "cargo not found: install Rust (https://rustup.rs) or set ZARR_CARGO")
endif()

set(ZARR_CARGO_TARGET_DIR "${PROJECT_BINARY_DIR}/cargo")
set(ZARR_LIB_DIR "${ZARR_CARGO_TARGET_DIR}/release")
set(ZARR_SHARED_LIB "${ZARR_LIB_DIR}/libzarr.so")
set(ZARR_STATIC_LIB "${ZARR_LIB_DIR}/libzarr.a")
set(ZARR_INCLUDE_DIR "${PROJECT_SOURCE_DIR}/include")

file(GLOB_RECURSE ZARR_RUST_SOURCES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/*.rs")
add_custom_command(
  OUTPUT "${ZARR_SHARED_LIB}" "${ZARR_STATIC_LIB}"
  COMMAND "${ZARR_CARGO}" build --release --locked --lib --target-dir "${ZARR_CARGO_TARGET_DIR}"
  # Programs linked against the library look for its SONAME at run time.
  COMMAND "${CMAKE_COMMAND}" -E create_symlink libzarr.so
          "${ZARR_LIB_DIR}/libzarr.so.${PROJECT_VERSION_MAJOR}"
  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
  DEPENDS ${ZARR_RUST_SOURCES}
          "${PROJECT_SOURCE_DIR}/Cargo.toml" "${PROJECT_SOURCE_DIR}/Cargo.lock"
          "${PROJECT_SOURCE_DIR}/build.rs" "${PROJECT_SOURCE_DIR}/cbindgen.toml"
  COMMENT "cargo build --release (libzarr)"
  USES_TERMINAL)
add_custom_target(zarr_cargo ALL DEPENDS "${ZARR_SHARED_LIB}" "${ZARR_STATIC_LIB}")

add_library(zarr::zarr SHARED IMPORTED GLOBAL)
set_target_properties(zarr::zarr PROPERTIES
  IMPORTED_LOCATION "${ZARR_SHARED_LIB}"
  IMPORTED_SONAME "libzarr.so.${PROJECT_VERSION_MAJOR}"
  INTERFACE_INCLUDE_DIRECTORIES "${ZARR_INCLUDE_DIR}")
add_dependencies(zarr::zarr zarr_cargo)

# The system libraries a Rust static library needs, as reported by
# `cargo rustc --release --lib --crate-type staticlib -- --print native-static-libs`.
# The installed package (cmake/ZarrInstall.cmake: zarrConfig.cmake, zarr.pc) uses this list too.
set(ZARR_STATIC_SYSTEM_LIBS gcc_s util rt pthread m dl c)
add_library(zarr::zarr_static STATIC IMPORTED GLOBAL)
set_target_properties(zarr::zarr_static PROPERTIES
  IMPORTED_LOCATION "${ZARR_STATIC_LIB}"
  INTERFACE_INCLUDE_DIRECTORIES "${ZARR_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${ZARR_STATIC_SYSTEM_LIBS}")
add_dependencies(zarr::zarr_static zarr_cargo)
