//! The build script (build.rs) run by hand on copies of the sources: it rewrites a stale
//! header, leaves a current one untouched, and does not fail when the header cannot be
//! written (a read-only source tree, such as an installed source package).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The most recent compiled build script of this package, next to this test's own
/// binary (`<target>/<profile>/deps/` -> `<target>/<profile>/build/libzarr-*/`).
fn build_script() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let build_dir = exe.parent().unwrap().parent().unwrap().join("build");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&build_dir)
        .unwrap()
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?;
            let script = path.join("build-script-build");
            (name.starts_with("libzarr-") && script.is_file()).then_some(script)
        })
        .collect();
    scripts.sort_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
    scripts
        .pop()
        .expect("a compiled build script under target/<profile>/build")
}

/// A copy of what the build script reads: cbindgen.toml and src/ffi.
fn source_copy(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("libzarr-build-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("src/ffi")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::copy(here.join("cbindgen.toml"), dir.join("cbindgen.toml")).unwrap();
    for entry in std::fs::read_dir(here.join("src/ffi")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("src/ffi").join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn run(dir: &Path) -> Output {
    Command::new(build_script())
        .env("CARGO_MANIFEST_DIR", dir)
        .env("OUT_DIR", dir.join("out"))
        .env("CARGO_PKG_VERSION_MAJOR", "0")
        .env("CARGO_PKG_VERSION_MINOR", "1")
        .env("CARGO_PKG_VERSION_PATCH", "0")
        .env("CARGO_CFG_TARGET_OS", "linux")
        .output()
        .unwrap()
}

#[test]
fn stale_header_is_rewritten_and_current_one_kept() {
    let dir = source_copy("rewrite");
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::write(dir.join("include/zarr.h"), "stale").unwrap();
    let output = run(&dir);
    assert!(output.status.success(), "{output:?}");
    let header = std::fs::read_to_string(dir.join("include/zarr.h")).unwrap();
    assert!(header.contains("zarr_store_open_filesystem"));
    let before = std::fs::metadata(dir.join("include/zarr.h"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let output = run(&dir);
    assert!(output.status.success(), "{output:?}");
    let after = std::fs::metadata(dir.join("include/zarr.h"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "an unchanged header must not be rewritten");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `include` cannot be created (a file is in the way, which stops root as well as anyone
/// else): the build goes on, with a warning.
#[test]
fn unwritable_header_is_a_warning_not_a_failure() {
    let dir = source_copy("readonly");
    std::fs::write(dir.join("include"), "not a directory").unwrap();
    let output = run(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout.contains("cargo:warning=include/zarr.h is out of date and cannot be rewritten"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
