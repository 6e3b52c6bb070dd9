//! The library's version at run time (the header's ZARR_VERSION_* macros give it at
//! compile time; Cargo.toml is the single source of both).

use std::ffi::c_char;

const VERSION: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
) {
    Ok(v) => v,
    Err(_) => panic!("version string"),
};

/// The library's version as "MAJOR.MINOR.PATCH". Static; never NULL; do not free.
#[no_mangle]
pub extern "C" fn zarr_version_string() -> *const c_char {
    VERSION.as_ptr()
}

/// The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100).
#[no_mangle]
pub extern "C" fn zarr_version_number() -> u32 {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    part(env!("CARGO_PKG_VERSION_MAJOR")) * 10000
        + part(env!("CARGO_PKG_VERSION_MINOR")) * 100
        + part(env!("CARGO_PKG_VERSION_PATCH"))
}
