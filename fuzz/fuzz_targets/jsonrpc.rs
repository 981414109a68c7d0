//! Fuzz target `jsonrpc`: see `agentwire_fuzz::jsonrpc` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::jsonrpc(data));
