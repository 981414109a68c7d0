//! Reading tool arguments with messages a model can act on.

use agentwire::jsonrpc::type_name;
use serde_json::{Map, Value};

/// A tool's arguments: a JSON object (`null` reads as empty).
pub(crate) struct Args {
    map: Map<String, Value>,
}

impl Args {
    /// Checks that `value` is an object.
    pub(crate) fn new(value: Value) -> Result<Args, String> {
        match value {
            Value::Object(map) => Ok(Args { map }),
            Value::Null => Ok(Args { map: Map::new() }),
            other => Err(format!(
                "arguments must be a JSON object, got {}",
                type_name(&other)
            )),
        }
    }

    /// A required string.
    pub(crate) fn string(&self, key: &str) -> Result<String, String> {
        self.opt_string(key)?
            .ok_or_else(|| format!("missing required argument {key:?} (a string)"))
    }

    /// An optional string (`null` counts as absent).
    pub(crate) fn opt_string(&self, key: &str) -> Result<Option<String>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "argument {key:?} must be a string, got {}",
                type_name(other)
            )),
        }
    }

    /// An optional non-negative integer; integral floats such as `10.0` are accepted.
    pub(crate) fn opt_u64(&self, key: &str) -> Result<Option<u64>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => {
                if let Some(v) = n.as_u64() {
                    return Ok(Some(v));
                }
                match n.as_f64() {
                    Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9.0e15 => Ok(Some(f as u64)),
                    _ => Err(format!(
                        "argument {key:?} must be a non-negative integer, got {n}"
                    )),
                }
            }
            Some(other) => Err(format!(
                "argument {key:?} must be a non-negative integer, got {}",
                type_name(other)
            )),
        }
    }

    /// An optional boolean, `false` when absent.
    pub(crate) fn flag(&self, key: &str) -> Result<bool, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!(
                "argument {key:?} must be true or false, got {}",
                type_name(other)
            )),
        }
    }
}

/// Cuts `text` to at most `max` bytes on a character boundary; returns whether it cut.
pub(crate) fn truncate_utf8(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    true
}
