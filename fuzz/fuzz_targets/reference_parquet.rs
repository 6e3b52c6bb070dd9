//! Fuzz target `reference_parquet`: see docs/reliability.md. Built for libFuzzer (`cargo fuzz`,
//! the default feature) or AFL++ (`cargo afl`, feature `afl`).
#![cfg_attr(not(feature = "afl"), no_main)]

#[cfg(not(feature = "afl"))]
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr::fuzzing::reference_parquet(data));

#[cfg(feature = "afl")]
fn main() {
    afl::fuzz!(|data: &[u8]| zarr::fuzzing::reference_parquet(data));
}
