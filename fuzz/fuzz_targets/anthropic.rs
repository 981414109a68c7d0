//! Fuzz target `anthropic`: see `agentwire_fuzz::anthropic` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::anthropic(data));
