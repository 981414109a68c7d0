//! Tool argument checking against the tool's own input schema, with zod-style messages.
//!
//! The real server validates with zod and reports paths such as `owner: Required`; checking
//! against the published JSON Schema keeps the two in step by construction. Like zod objects,
//! unknown keys are ignored. Unlike zod, `null` for an optional argument counts as absent:
//! models often send it, and rejecting it would only add a pointless retry to demos.

use serde_json::{Map, Value};

/// Checks `args` against an object schema; on failure, every problem found, in a stable order.
pub(crate) fn validate(schema: &Value, args: &Map<String, Value>) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    check_object(schema, args, "", &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn check_object(schema: &Value, obj: &Map<String, Value>, prefix: &str, out: &mut Vec<String>) {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, prop) in props {
        let path = format!("{prefix}{key}");
        match obj.get(key) {
            None | Some(Value::Null) if required.contains(&key.as_str()) => {
                out.push(format!("{path}: Required"));
            }
            None | Some(Value::Null) => {}
            Some(value) => check_value(prop, value, &path, out),
        }
    }
}

fn check_value(schema: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    let expected = schema.get("type").and_then(Value::as_str).unwrap_or("any");
    let type_ok = match expected {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !type_ok {
        out.push(format!(
            "{path}: Expected {expected}, received {}",
            received(value)
        ));
        return;
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            let listed: Vec<String> = options
                .iter()
                .map(|o| format!("'{}'", o.as_str().unwrap_or_default()))
                .collect();
            out.push(format!(
                "{path}: Invalid enum value. Expected {}, received '{}'",
                listed.join(" | "),
                value.as_str().unwrap_or_default()
            ));
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            if n < min {
                out.push(format!(
                    "{path}: Number must be greater than or equal to {min}"
                ));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
            if n > max {
                out.push(format!(
                    "{path}: Number must be less than or equal to {max}"
                ));
            }
        }
    }
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_value(item_schema, item, &format!("{path}.{i}"), out);
                }
            }
        }
        Value::Object(map) if schema.get("properties").is_some() => {
            check_object(schema, map, &format!("{path}."), out);
        }
        _ => {}
    }
}

fn received(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Typed access to arguments that have passed [`validate`].
///
/// Getters never panic: a required argument that is somehow absent reads as empty, which then
/// fails the lookup it is used for and yields an ordinary "not found" result.
#[derive(Clone, Copy)]
pub(crate) struct Args<'a>(pub &'a Map<String, Value>);

impl<'a> Args<'a> {
    /// A string argument, or `""` when absent.
    pub fn str(&self, key: &str) -> &'a str {
        self.opt_str(key).unwrap_or_default()
    }

    /// An optional string argument.
    pub fn opt_str(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// An optional number argument.
    pub fn opt_f64(&self, key: &str) -> Option<f64> {
        self.0.get(key).and_then(Value::as_f64)
    }

    /// A whole-number argument such as an issue number; fractions and negatives match nothing.
    pub fn number(&self, key: &str) -> Option<u64> {
        let n = self.opt_f64(key)?;
        (n >= 0.0 && n.fract() == 0.0 && n < 9.0e15).then_some(n as u64)
    }

    /// A list of strings, empty when absent.
    pub fn strs(&self, key: &str) -> Vec<&'a str> {
        self.0
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// A 1-based page number; GitHub treats anything below 1 as the first page.
    pub fn page(&self, key: &str) -> usize {
        self.opt_f64(key)
            .map_or(1, |p| p.clamp(1.0, 1.0e6) as usize)
    }

    /// A page size: 30 by default, clamped to GitHub's 1..=100.
    pub fn per_page(&self, key: &str) -> usize {
        self.opt_f64(key)
            .map_or(30, |p| p.clamp(1.0, 100.0) as usize)
    }
}

/// The requested page of `items` (1-based pages of `per_page`).
pub(crate) fn paginate<T>(items: Vec<T>, page: usize, per_page: usize) -> Vec<T> {
    let start = page.saturating_sub(1).saturating_mul(per_page);
    items.into_iter().skip(start).take(per_page).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"},
                "n": {"type": "number", "minimum": 1, "maximum": 100},
                "state": {"type": "string", "enum": ["open", "closed"]},
                "labels": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["owner"],
        })
    }

    fn problems(args: Value) -> Vec<String> {
        let Value::Object(map) = args else {
            panic!("test args must be an object")
        };
        validate(&schema(), &map).err().unwrap_or_default()
    }

    #[test]
    fn reports_each_problem_with_its_path() {
        assert!(
            problems(json!({"owner": "a", "n": 5, "state": "open", "labels": ["x"]})).is_empty()
        );
        assert_eq!(problems(json!({})), ["owner: Required"]);
        assert_eq!(problems(json!({"owner": null})), ["owner: Required"]);
        assert_eq!(
            problems(json!({"owner": 3})),
            ["owner: Expected string, received number"]
        );
        assert_eq!(
            problems(json!({"owner": "a", "state": "merged"})),
            ["state: Invalid enum value. Expected 'open' | 'closed', received 'merged'"]
        );
        assert_eq!(
            problems(json!({"owner": "a", "n": 0})),
            ["n: Number must be greater than or equal to 1"]
        );
        assert_eq!(
            problems(json!({"owner": "a", "n": 101})),
            ["n: Number must be less than or equal to 100"]
        );
        assert_eq!(
            problems(json!({"owner": "a", "labels": ["ok", 7]})),
            ["labels.1: Expected string, received number"]
        );
        assert_eq!(
            problems(json!({"n": "5", "labels": "bug"})),
            // Schema order: problems are listed as the schema declares the fields.
            [
                "owner: Required",
                "n: Expected number, received string",
                "labels: Expected array, received string"
            ]
        );
    }

    #[test]
    fn optional_nulls_and_unknown_keys_are_ignored() {
        assert!(problems(json!({"owner": "a", "n": null, "extra": true})).is_empty());
    }

    #[test]
    fn getters_and_paging_clamp_like_github() {
        let map = json!({"p": -3, "pp": 1000, "n": 12.0, "f": 1.5, "s": "x", "l": ["a", 1, "b"]});
        let args = Args(map.as_object().unwrap_or_else(|| unreachable!()));
        assert_eq!(args.page("p"), 1);
        assert_eq!(args.page("missing"), 1);
        assert_eq!(args.per_page("pp"), 100);
        assert_eq!(args.per_page("missing"), 30);
        assert_eq!(args.number("n"), Some(12));
        assert_eq!(args.number("f"), None);
        assert_eq!(args.str("s"), "x");
        assert_eq!(args.str("missing"), "");
        assert_eq!(args.strs("l"), ["a", "b"]);
        assert_eq!(paginate(vec![1, 2, 3, 4, 5], 2, 2), [3, 4]);
        assert_eq!(paginate(vec![1, 2, 3], 3, 2), Vec::<i32>::new());
    }
}
