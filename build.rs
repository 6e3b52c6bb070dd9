//! Build script: generates `include/zarr.h` from `src/ffi` with cbindgen, and gives the
//! shared library its SONAME and its symbol policy (a linker version script).
//!
//! The header is rewritten only when its text changes, so that a build does not touch a
//! committed file needlessly (CI checks that the committed header equals a fresh run).
//! A source tree that cannot be written (an installed source package, a read-only mount)
//! still builds: the header is then left as it is, with a cargo warning if it is stale.

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");

    // The SONAME carries the major version (libzarr.so.0 for 0.x), so a future
    // incompatible release can be installed beside this one.
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("set by cargo");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libzarr.so.{major}");
        export_only_zarr_symbols();
    }

    generate_header(&crate_dir);
}

/// Passes a linker version script that exports `zarr_*` and makes every other symbol local.
///
/// rustc already hands the linker a version script of its own for a cdylib (the crate's
/// `#[no_mangle] extern` items global, everything else local), and GNU ld gives the exact
/// names of that first script precedence over our wildcard. So this script states the
/// policy and keeps it on linkers that honour it, while the `install.symbols` ctest test
/// (`nm -D --defined-only`) is what enforces it. It carries no version node: a node here
/// would be silently ignored for the same reason, so compatibility is the SONAME's job.
fn export_only_zarr_symbols() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let script = out_dir.join("zarr.map");
    std::fs::write(&script, "{\n  global:\n    zarr_*;\n  local:\n    *;\n};\n")
        .expect("write zarr.map in OUT_DIR");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
    // rustc's own script also makes global the `#[no_mangle]` C functions of dependencies
    // (crc-fast, which object_store brings for Icechunk, exports its C API that way); the
    // dependencies reach the linker as archives (rlibs), whose symbols this keeps local.
    println!("cargo:rustc-cdylib-link-arg=-Wl,--exclude-libs,ALL");
}

fn generate_header(crate_dir: &std::path::Path) {
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is valid");
    let version =
        |part: &str| std::env::var(format!("CARGO_PKG_VERSION_{part}")).expect("set by cargo");
    config.after_includes = Some(format!(
        r#"
/* Version of the library these declarations belong to (see also zarr_version_string()). */
#define ZARR_VERSION_MAJOR {major}
#define ZARR_VERSION_MINOR {minor}
#define ZARR_VERSION_PATCH {patch}
#define ZARR_VERSION_STRING "{major}.{minor}.{patch}"

/* Status-returning functions are marked so that compilers warn when a status is ignored. */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define ZARR_NODISCARD [[nodiscard]]
#elif defined(__GNUC__) || defined(__clang__)
#define ZARR_NODISCARD __attribute__((warn_unused_result))
#else
#define ZARR_NODISCARD
#endif"#,
        major = version("MAJOR"),
        minor = version("MINOR"),
        patch = version("PATCH"),
    ));
    // Parse only the ffi module tree: it is the whole C API, and nothing else of the
    // crate's public Rust items belongs in the header.
    let bindings = match cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .generate()
    {
        Ok(bindings) => bindings,
        Err(error) => {
            // rustc reports the underlying syntax error itself; say why the header is stale.
            println!("cargo:warning=cbindgen could not generate include/zarr.h: {error}");
            return;
        }
    };
    let mut text = Vec::new();
    bindings.write(&mut text);
    let path = crate_dir.join("include/zarr.h");
    if std::fs::read(&path).ok().as_deref() == Some(text.as_slice()) {
        return;
    }
    let written = std::fs::create_dir_all(crate_dir.join("include"))
        .and_then(|()| std::fs::write(&path, &text));
    if let Err(error) = written {
        // The library does not need the header to build; CI's header check catches drift.
        println!(
            "cargo:warning=include/zarr.h is out of date and cannot be rewritten ({error}); \
             the library builds anyway, but the header does not match it"
        );
    }
}
