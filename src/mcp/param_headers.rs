//! Tool parameters mirrored into HTTP headers (`x-mcp-header`, SEP-2243, 2026-07-28): which
//! parameters a tool declares, whether the declaration is valid, and how values are encoded.
//!
//! A tool whose declarations break a rule (an empty or non-token name, a name used twice in any
//! case, a parameter that is not a string, integer or boolean) is excluded from the tool list:
//! the spec says clients MUST reject it, and sending its calls would put malformed headers on
//! the wire.

use serde_json::Value;

/// The schema keyword that names a parameter's header.
pub(crate) const X_MCP_HEADER: &str = "x-mcp-header";

/// One declared parameter: where it sits in the arguments, and its header's name (without the
/// `Mcp-Param-` prefix).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Binding {
    /// Property names from the arguments object down to the parameter.
    pub path: Vec<String>,
    /// The header name as declared.
    pub header: String,
}

/// The parameters `input_schema` mirrors into headers, or why its declarations are invalid.
pub(crate) fn bindings(input_schema: &Value) -> Result<Vec<Binding>, String> {
    let mut found = Vec::new();
    collect(input_schema, &mut Vec::new(), &mut found, 0)?;
    for (i, binding) in found.iter().enumerate() {
        if found[..i]
            .iter()
            .any(|b| b.header.eq_ignore_ascii_case(&binding.header))
        {
            return Err(format!(
                "x-mcp-header {} is declared twice (names are case-insensitive)",
                crate::json::quoted(&binding.header)
            ));
        }
    }
    Ok(found)
}

/// Deepest nesting of `properties` searched for declarations.
const MAX_DEPTH: usize = 8;

fn collect(
    schema: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<Binding>,
    depth: usize,
) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, property) in properties {
        path.push(name.clone());
        if let Some(header) = property.get(X_MCP_HEADER) {
            found.push(Binding {
                path: path.clone(),
                header: valid_header(name, header, property)?,
            });
        } else if depth < MAX_DEPTH {
            collect(property, path, found, depth + 1)?;
        }
        path.pop();
    }
    Ok(())
}

fn valid_header(parameter: &str, header: &Value, property: &Value) -> Result<String, String> {
    let quoted = crate::json::quoted;
    let Some(header) = header.as_str() else {
        return Err(format!(
            "parameter {}: x-mcp-header is not a string",
            quoted(parameter)
        ));
    };
    if header.is_empty() {
        return Err(format!(
            "parameter {}: x-mcp-header is empty",
            quoted(parameter)
        ));
    }
    if !all_bytes(header, is_token_byte) {
        return Err(format!(
            "parameter {}: x-mcp-header {} is not an HTTP token",
            quoted(parameter),
            quoted(header)
        ));
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(header.to_owned()),
        _ => Err(format!(
            "parameter {} mirrored into a header must be a string, integer or boolean",
            quoted(parameter)
        )),
    }
}

/// Whether every byte of `text` passes `ok` (one loop for both checks: a closure per `all`
/// would be code of its own in the wasm module).
fn all_bytes(text: &str, ok: fn(u8) -> bool) -> bool {
    for byte in text.bytes() {
        if !ok(byte) {
            return false;
        }
    }
    true
}

/// RFC 9110 `tchar`.
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// The header value of an argument: strings (encoded), integers and booleans; `None` for null,
/// an absent argument or anything else (the header is then omitted).
pub(crate) fn header_value(arguments: &Value, binding: &Binding) -> Option<String> {
    let mut value = arguments;
    for key in &binding.path {
        value = value.get(key)?;
    }
    match value {
        Value::String(text) => Some(encode_text(text)),
        // JSON's text of a boolean or a whole number is the header's.
        Value::Bool(_) => Some(crate::json::to_text(value)),
        Value::Number(number) if number.is_i64() || number.is_u64() => {
            Some(crate::json::to_text(value))
        }
        _ => None,
    }
}

/// A text as a header value: printable ASCII without surrounding whitespace as it is, anything
/// else (non-ASCII, control characters, edge whitespace, or text that looks like the sentinel)
/// as `=?base64?…?=` over its UTF-8 bytes.
pub(crate) fn encode_text(text: &str) -> String {
    let plain = all_bytes(text, |b| (0x20..=0x7e).contains(&b))
        && text.trim() == text
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    if plain {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", standard_base64(text.as_bytes()))
    }
}

/// Standard base64 with padding. The same as `oauth::encoding::base64_standard`, kept apart on
/// purpose: sharing that one made the npm runtime module 303 B larger gzipped.
fn standard_base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let bytes = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(bytes[0]) << 16) | (u32::from(bytes[1]) << 8) | u32::from(bytes[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
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
    fn declared_parameters_are_found_with_their_paths() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "nested": {"type": "object", "properties": {
                "flag": {"type": "boolean", "x-mcp-header": "Flag"}
            }}
        }});
        let found = bindings(&schema).unwrap();
        assert_eq!(found.len(), 2);
        let args = json!({"region": "us-west1", "nested": {"flag": true}, "query": "q"});
        let values: Vec<_> = found.iter().map(|b| header_value(&args, b)).collect();
        assert!(values.contains(&Some("us-west1".into())));
        assert!(values.contains(&Some("true".into())));
        assert_eq!(header_value(&json!({"region": null}), &found[0]), None);
        assert_eq!(header_value(&json!({}), &found[0]), None);
    }

    #[test]
    fn invalid_declarations_are_refused() {
        let bad = [
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
            json!({"v": {"type": "array", "x-mcp-header": "Items"}}),
            json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
            json!({"v": {"type": "number", "x-mcp-header": "Score"}}),
            json!({"v": {"type": "string", "x-mcp-header": "My Field"}}),
            json!({"v": {"type": "string", "x-mcp-header": "My:Field"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Régión"}}),
            json!({"v": {"type": "string", "x-mcp-header": "A\nB"}}),
            json!({"a": {"type": "string", "x-mcp-header": "Region"},
                   "b": {"type": "string", "x-mcp-header": "region"}}),
        ];
        for properties in bad {
            let schema = json!({"type": "object", "properties": properties});
            assert!(bindings(&schema).is_err(), "{schema}");
        }
    }

    #[test]
    fn only_whole_numbers_travel_and_big_or_negative_ones_exactly() {
        let binding = Binding {
            path: vec!["n".into()],
            header: "N".into(),
        };
        let value = |v: Value| header_value(&json!({ "n": v }), &binding);
        assert_eq!(value(json!(42)), Some("42".into()));
        assert_eq!(value(json!(-3)), Some("-3".into()));
        assert_eq!(value(json!(u64::MAX)), Some(u64::MAX.to_string()));
        assert_eq!(value(json!(3.5)), None, "a float is not an integer");
        assert_eq!(value(json!(false)), Some("false".into()));
        assert_eq!(value(json!({"a": 1})), None);
    }

    #[test]
    fn only_the_whole_sentinel_shape_is_encoded_for_ambiguity() {
        assert_eq!(encode_text("=?base64?abc"), "=?base64?abc");
        assert_eq!(encode_text("abc?="), "abc?=");
        assert_eq!(encode_text("=?base64??="), "=?base64?PT9iYXNlNjQ/Pz0=?=");
    }

    #[test]
    fn values_that_cannot_travel_plain_are_base64_encoded() {
        assert_eq!(encode_text("us west 1"), "us west 1");
        assert_eq!(encode_text(""), "");
        assert_eq!(
            encode_text("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_text(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_text("\tx"), "=?base64?CXg=?=");
        assert_eq!(encode_text("a\r\nb"), "=?base64?YQ0KYg==?=");
        assert_eq!(encode_text("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
        assert_eq!(standard_base64(b"ab"), "YWI=");
        assert_eq!(standard_base64(b"abc"), "YWJj");
    }
}
