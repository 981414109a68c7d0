//! One JSON reader for text and bytes alike, for the wasm module's sake.

use serde_json::Value;

/// Parses `text` as one JSON value, exactly as `serde_json::from_str` does.
///
/// serde_json compiles its parser once per kind of input (`&str`, `&[u8]`), about 5 KB of wasm
/// each. The core parses bytes too (HTTP bodies, JSON-RPC lines), so on wasm32 text goes through
/// the byte reader: for a `&str` the value and the errors are the same, it only re-checks the
/// UTF-8 of string contents. Natively, text keeps the reader that skips that check.
pub(crate) fn parse_str(text: &str) -> serde_json::Result<Value> {
    #[cfg(target_arch = "wasm32")]
    return serde_json::from_slice(text.as_bytes());
    #[cfg(not(target_arch = "wasm32"))]
    return serde_json::from_str(text);
}
