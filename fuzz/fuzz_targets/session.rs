//! Fuzz target `session`: see `agentwire_fuzz::session` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::session(data));
