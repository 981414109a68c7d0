//! Fuzz target `http`: see `agentwire_fuzz::http` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::http(data));
