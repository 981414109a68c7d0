//! Fuzz target `framing`: see `agentwire_fuzz::framing` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::framing(data));
