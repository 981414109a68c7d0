//! Fuzz target `openai`: see `agentwire_fuzz::openai` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::openai(data));
