//! Duplicate names in `mcpServers`. A JSON object with a key twice parses fine, keeping the last
//! value, so a second `"github"` entry (a merge gone wrong, or one hidden below a long file)
//! would silently replace the first; this scan finds such keys for a warning.

use crate::json::parse_str;

/// One open object or array while scanning.
struct Frame {
    is_object: bool,
    /// In an object: the next string is a key.
    expect_key: bool,
    /// This is the `mcpServers` object.
    servers: bool,
}

/// What a scan of a config's text found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Duplicates {
    /// `mcpServers` itself appeared more than once at the top level.
    pub(super) servers_object: bool,
    /// Server names that appear more than once in the last `mcpServers` object, each once, in
    /// the order of their second appearance.
    pub(super) names: Vec<String>,
}

/// Scans `text`, which must already have parsed as JSON, in one pass.
pub(super) fn find_duplicates(text: &str) -> Duplicates {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut found = Duplicates::default();
    let mut seen: Vec<String> = Vec::new();
    let mut top_key_is_servers = false;
    let mut servers_objects = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                if let Some(frame) = stack.last_mut().filter(|f| f.is_object && f.expect_key) {
                    frame.expect_key = false;
                    let key = unescape(&text[i..end]);
                    if frame.servers {
                        if seen.contains(&key) {
                            if !found.names.contains(&key) {
                                found.names.push(key);
                            }
                        } else {
                            seen.push(key);
                        }
                    } else if stack.len() == 1 {
                        top_key_is_servers = key == "mcpServers";
                    }
                }
                i = end;
                continue;
            }
            open @ (b'{' | b'[') => {
                let servers = open == b'{' && stack.len() == 1 && top_key_is_servers;
                if servers {
                    servers_objects += 1;
                    seen.clear();
                    found.names.clear();
                }
                stack.push(Frame {
                    is_object: open == b'{',
                    expect_key: open == b'{',
                    servers,
                });
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(frame) = stack.last_mut().filter(|f| f.is_object) {
                    frame.expect_key = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found.servers_object = servers_objects > 1;
    found
}

/// The index just past the string that starts with the quote at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The text of a JSON string literal (quotes included).
fn unescape(literal: &str) -> String {
    if !literal.contains('\\') {
        return literal[1..literal.len() - 1].to_owned();
    }
    match parse_str(literal) {
        Ok(serde_json::Value::String(text)) => text,
        _ => literal.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        assert!(parse_str(text).is_ok(), "valid JSON: {text}");
        find_duplicates(text).names
    }

    #[test]
    fn repeated_server_names_are_found_once_each() {
        let text = r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"},
            "a": {"command": "z", "env": {"a": "1", "a": "2"}}, "b": {}, "a": {}}}"#;
        assert_eq!(names(text), ["a", "b"]);
        // Escapes spell the same name.
        assert_eq!(
            names(r#"{"mcpServers": {"gh": {}, "g\u0068": {}}}"#),
            ["gh"]
        );
        // Strings holding braces, quotes and commas do not confuse the scan.
        let tricky = r#"{"mcpServers": {"a": {"args": ["{\"a\": 1,", "}", "\\"]}, "b": {}}}"#;
        assert!(names(tricky).is_empty());
        assert_eq!(
            names(r#"{"mcpServers": {"a\"b": {}, "a\"b": {}}}"#),
            ["a\"b"]
        );
    }

    #[test]
    fn text_that_is_not_json_never_panics() {
        for cut in [
            r#"{"mcpServers": {"a"#,
            r#"{"mcpServers": {"a\"#,
            "\"",
            "}}]]",
        ] {
            assert!(find_duplicates(cut).names.is_empty(), "{cut}");
        }
    }

    #[test]
    fn only_server_names_count() {
        let text = r#"{"other": {"a": 1, "a": 2}, "mcpServers": {"a": {"env": {"k": "1", "k": "2"}},
            "b": {"mcpServers": {"x": 1, "x": 2}}}, "list": [{"a": 1}, {"a": 2}]}"#;
        assert!(names(text).is_empty());
        assert!(!find_duplicates(text).servers_object);
        assert!(names(r#"{"mcpServers": []}"#).is_empty());
        // Values that spell a key are not keys.
        assert!(names(r#"{"mcpServers": {"a": "a", "b": ["b", "a"]}}"#).is_empty());
        let value_named_servers = r#"{"x": "mcpServers", "y": {"a": {}, "a": {}}}"#;
        assert!(names(value_named_servers).is_empty());
        assert!(names("[]").is_empty());
    }

    #[test]
    fn a_second_servers_object_is_reported_and_replaces_the_first() {
        let text = r#"{"mcpServers": {"a": {}, "a": {}}, "mcpServers": {"b": {}, "b": {}}}"#;
        let found = find_duplicates(text);
        assert!(found.servers_object);
        assert_eq!(found.names, ["b"], "the last object is the one used");
    }
}
