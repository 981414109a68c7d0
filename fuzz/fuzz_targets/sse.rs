//! Fuzz target `sse`: see `agentwire_fuzz::sse` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::sse(data));
