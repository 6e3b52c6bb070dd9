//! Generates include/zarr.h with cbindgen (rewritten only when its text changes).
fn main() {
    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{crate_dir}/cbindgen.toml")).unwrap_or_default();
    match cbindgen::Builder::new().with_crate(&crate_dir).with_config(config).with_language(cbindgen::Language::C).generate() {
        Ok(bindings) => {
            let mut text = Vec::new();
            bindings.write(&mut text);
            let path = format!("{crate_dir}/include/zarr.h");
            if std::fs::read(&path).ok().as_deref() != Some(&text[..]) {
                std::fs::write(&path, &text).unwrap();
            }
        }
        Err(e) => println!("cargo:warning=cbindgen failed: {e}"),
    }
}
