//! JSON helpers for the wasm module's sake: one reader for text and bytes alike, and quoting
//! for messages.

use serde_json::Value;
use std::fmt;

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

/// A string shown in double quotes with JSON escapes, for messages that name a value
/// (`unknown tool "x"`). Reads like `{:?}` for ordinary text.
///
/// Why not `{:?}`: `str`'s `Debug` brings `char::escape_debug` and core's Unicode tables of
/// printable and combining characters into the wasm module (several KB), while serde_json's
/// string escaper is there anyway.
pub(crate) struct Quoted<'a>(&'a str);

/// `text` in double quotes with JSON escapes, when displayed.
pub(crate) fn quoted(text: &str) -> Quoted<'_> {
    Quoted(text)
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Serialising a string cannot fail.
        let json = serde_json::to_string(self.0).map_err(|_| fmt::Error)?;
        f.write_str(&json)
    }
}

/// `value` as compact JSON text, the same text as `value.to_string()`.
///
/// Why not `to_string()`: `Value`'s `Display` compiles serde_json's serializer twice more (into
/// a `fmt::Formatter`, compact and pretty, about 3 KB of wasm) and brings `std::io::Error` with
/// `str`'s `Debug` along; this goes through the `Vec<u8>` serializer the module has anyway.
pub(crate) fn to_text(value: &Value) -> String {
    // Serialising a `Value` cannot fail: its keys are strings and a `Vec` takes every write.
    serde_json::to_string(value).unwrap_or_default()
}

/// Adds `key: value` to `map`: one out-of-line copy for objects built field by field, where
/// `json!` would expand a serializer call and a key allocation inline at every field.
#[inline(never)]
pub(crate) fn put(map: &mut serde_json::Map<String, Value>, key: &str, value: Value) {
    map.insert(key.to_owned(), value);
}

/// Adds `key: text` to `map` (a string value), out of line like [`put`].
#[inline(never)]
pub(crate) fn put_str(map: &mut serde_json::Map<String, Value>, key: &str, text: &str) {
    put(map, key, Value::String(text.to_owned()));
}

/// The strings of a JSON array (other items skipped); empty for anything but an array.
pub(crate) fn strings(value: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(Value::Array(items)) = value {
        for item in items {
            if let Some(text) = item.as_str() {
                out.push(text.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn to_text_writes_what_display_writes() {
        let value = json!({"b": [1, 2.5, null, true], "a": "é \"q\" \\ \n\u{1}", "n": -3});
        assert_eq!(to_text(&value), value.to_string());
        assert_eq!(to_text(&json!("x")), "\"x\"");
    }

    #[test]
    fn quoted_uses_json_escapes() {
        assert_eq!(quoted("tool").to_string(), "\"tool\"");
        assert_eq!(
            quoted("a \"b\"\n\u{1b}é").to_string(),
            r#""a \"b\"\n\u001bé""#
        );
        assert_eq!(format!("unknown tool {}", quoted("")), "unknown tool \"\"");
    }

    #[test]
    fn strings_takes_the_strings_of_an_array_only() {
        let value = serde_json::json!(["a", 1, null, "b"]);
        assert_eq!(strings(Some(&value)), ["a", "b"]);
        assert!(strings(Some(&serde_json::json!("a"))).is_empty());
        assert!(strings(None).is_empty());
    }
}
