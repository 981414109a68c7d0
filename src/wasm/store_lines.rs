//! What a session store may keep, decided in the on-demand `ext` module (feature `wasm-ext`):
//! the runtime hands each transcript entry over as it was recorded, and the JS layer passes it
//! through a [`StoreRedactor`] before the store sees it, so the redaction (secret shapes, then
//! every exact secret value of the host: [`crate::transcript::stored_line`], the same as the
//! CLI's session files get) stays out of the runtime module. The JS layer loads `ext` when it
//! opens a session, before any entry is recorded.

use crate::transcript::{entry_from_line, secret_values, stored_line};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Redacts transcript lines for one session's store, with the host's secret values.
#[wasm_bindgen]
pub struct StoreRedactor {
    secrets: Vec<String>,
}

#[wasm_bindgen]
impl StoreRedactor {
    /// `secrets_json`: `{vars: [[name, value]...], keys: [...]}`, the host's environment (only
    /// sensitive names count) and the model keys.
    #[wasm_bindgen(constructor)]
    pub fn new(secrets_json: &str) -> StoreRedactor {
        let value = crate::json::parse_str(secrets_json).unwrap_or(Value::Null);
        let text = |v: &Value| v.as_str().map(str::to_owned);
        let mut vars = Vec::new();
        for pair in value["vars"].as_array().map_or(&[][..], Vec::as_slice) {
            if let (Some(name), Some(value)) = (text(&pair[0]), text(&pair[1])) {
                vars.push((name, value));
            }
        }
        let keys: Vec<String> = value["keys"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(text)
            .collect();
        StoreRedactor {
            secrets: secret_values(vars, &keys),
        }
    }

    /// The line the store keeps for the runtime's entry `line` (its JSON, as `setSession`'s
    /// callback gets it), without its newline; empty when `line` is no transcript entry, so
    /// nothing unredacted is ever stored.
    pub fn line(&self, line: &str) -> String {
        match entry_from_line(line) {
            Ok(entry) => stored_line(&entry, &self.secrets).trim_end().to_owned(),
            Err(_) => String::new(),
        }
    }
}
