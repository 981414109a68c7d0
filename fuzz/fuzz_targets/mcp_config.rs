//! Fuzz target `mcp_config`: see `agentwire_fuzz::mcp_config` (fuzz/src/lib.rs) for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agentwire_fuzz::mcp_config(data));
