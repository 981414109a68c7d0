//! Token usage a model reports for one completion, and its sum over a run.
//!
//! Backends report usage in their own shapes; this record is the common one. It is only ever
//! built from what a backend actually said: a response without usage has none (no zeros are
//! invented), and fields a backend does not report stay `None`.

use crate::json::to_text;
use serde_json::{Map, Value};

/// Tokens one model call (or a whole run, summed) consumed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens, all of them: cached ones included (OpenAI's `prompt_tokens`; for
    /// Anthropic, `input_tokens` + cache reads + cache writes).
    pub input_tokens: u64,
    /// Generated tokens (`completion_tokens`), reasoning included.
    pub output_tokens: u64,
    /// Prompt tokens read from the provider's prompt cache, when the backend says
    /// (`prompt_tokens_details.cached_tokens`, Anthropic's `cache_read_input_tokens`).
    pub cache_read_tokens: Option<u64>,
    /// Prompt tokens written to the prompt cache, when the backend says (Anthropic's
    /// `cache_creation_input_tokens`; OpenAI does not report it).
    pub cache_write_tokens: Option<u64>,
}

/// The keys of [`Usage::to_value`], in [`Usage::counts`] order.
const EVENT_KEYS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
];

/// The keys of [`Usage::to_js_value`] and [`Usage::from_js_value`], in the same order.
const JS_KEYS: [&str; 4] = [
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
];

/// A non-negative integer field, or `None` when absent, null or anything else.
fn count(object: &Map<String, Value>, key: &str) -> Option<u64> {
    object.get(key).and_then(Value::as_u64)
}

/// Both optional counts summed; `None` only when neither side reported one.
fn add_optional(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}

impl Usage {
    /// Reads an OpenAI-compatible `usage` object: `prompt_tokens`, `completion_tokens` and
    /// `prompt_tokens_details.cached_tokens`. `None` when it is absent, null, or lacks either
    /// count: partial usage is dropped rather than completed with zeros.
    pub fn from_openai(usage: Option<&Value>) -> Option<Usage> {
        let usage = usage?.as_object()?;
        let cache_read_tokens = usage
            .get("prompt_tokens_details")
            .and_then(Value::as_object)
            .and_then(|details| count(details, "cached_tokens"));
        Some(Usage {
            input_tokens: count(usage, "prompt_tokens")?,
            output_tokens: count(usage, "completion_tokens")?,
            cache_read_tokens,
            cache_write_tokens: None,
        })
    }

    /// Reads an Anthropic Messages `usage` object: `input_tokens` (the uncached part),
    /// `output_tokens`, `cache_read_input_tokens` and `cache_creation_input_tokens`. The
    /// record's `input_tokens` is all three prompt counts summed, as OpenAI's `prompt_tokens`
    /// is. `None` when it is absent, null, or lacks either required count.
    pub fn from_anthropic(usage: Option<&Value>) -> Option<Usage> {
        let usage = usage?.as_object()?;
        let cache_read_tokens = count(usage, "cache_read_input_tokens");
        let cache_write_tokens = count(usage, "cache_creation_input_tokens");
        let input_tokens = count(usage, "input_tokens")?
            .saturating_add(cache_read_tokens.unwrap_or(0))
            .saturating_add(cache_write_tokens.unwrap_or(0));
        Some(Usage {
            input_tokens,
            output_tokens: count(usage, "output_tokens")?,
            cache_read_tokens,
            cache_write_tokens,
        })
    }

    /// Adds `other` into this total (saturating; an optional count is kept when either side
    /// reported it).
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = add_optional(self.cache_read_tokens, other.cache_read_tokens);
        self.cache_write_tokens = add_optional(self.cache_write_tokens, other.cache_write_tokens);
    }

    /// `total` plus `step`, starting from nothing: how a run accumulates its steps.
    pub fn accumulate(total: &mut Option<Usage>, step: &Usage) {
        total.get_or_insert_with(Usage::default).add(step);
    }

    /// `{"input_tokens", "output_tokens", "cache_read_tokens"?, "cache_write_tokens"?}`, the
    /// snake_case shape of UI events and the audit; unknown counts are left out.
    pub fn to_value(&self) -> Value {
        self.with_keys(EVENT_KEYS)
    }

    /// `{"inputTokens", "outputTokens", "cacheReadTokens"?, "cacheWriteTokens"?}`, the shape of
    /// model responses exchanged with JS.
    pub fn to_js_value(&self) -> Value {
        self.with_keys(JS_KEYS)
    }

    /// The four counts in key order (the two required ones always known).
    fn counts(&self) -> [Option<u64>; 4] {
        [
            Some(self.input_tokens),
            Some(self.output_tokens),
            self.cache_read_tokens,
            self.cache_write_tokens,
        ]
    }

    fn with_keys(&self, keys: [&str; 4]) -> Value {
        // One loop over the four counts: smaller in the wasm module than four `json!` steps.
        let mut object = Map::new();
        for (key, count) in keys.into_iter().zip(self.counts()) {
            if let Some(n) = count {
                object.insert(key.to_owned(), n.into());
            }
        }
        Value::Object(object)
    }

    /// Reads [`to_js_value`](Self::to_js_value)'s shape (absent or null is `None`); errors
    /// name the offending field.
    pub fn from_js_value(value: Option<&Value>) -> Result<Option<Usage>, String> {
        let obj = match value {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(obj)) => obj,
            Some(_) => return Err("\"usage\" must be an object".into()),
        };
        // One loop over the four keys, in order: the first bad field is the one named.
        let mut counts = [None; 4];
        for (at, key) in JS_KEYS.into_iter().enumerate() {
            counts[at] = match obj.get(key) {
                None | Some(Value::Null) if at < 2 => {
                    return Err(format!("\"usage.{key}\" is missing"))
                }
                None | Some(Value::Null) => None,
                // `to_text`, not `{v}`: the same text without `Value`'s `Display` in wasm.
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    format!(
                        "\"usage.{key}\" must be a non-negative integer, got {}",
                        to_text(v)
                    )
                })?),
            };
        }
        let [input, output, cache_read_tokens, cache_write_tokens] = counts;
        Ok(Some(Usage {
            input_tokens: input.unwrap_or(0),
            output_tokens: output.unwrap_or(0),
            cache_read_tokens,
            cache_write_tokens,
        }))
    }

    /// One line for people: `tokens: 1,412 in (1,024 cached), 96 out`, with
    /// `, 300 written to cache` inside the brackets when the backend reported cache writes.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = [
            self.cache_read_tokens
                .map(|n| format!("{} cached", thousands(n))),
            self.cache_write_tokens
                .filter(|&n| n > 0)
                .map(|n| format!("{} written to cache", thousands(n))),
        ]
        .into_iter()
        .flatten()
        .collect();
        let cached = if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        };
        format!(
            "tokens: {} in{cached}, {} out",
            thousands(self.input_tokens),
            thousands(self.output_tokens)
        )
    }
}

/// `1412` → `1,412`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_usage_with_cached_tokens_is_read() {
        let usage = json!({"prompt_tokens": 1412, "completion_tokens": 96, "total_tokens": 1508,
                           "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0}});
        let usage = Usage::from_openai(Some(&usage)).unwrap();
        assert_eq!(
            usage,
            Usage {
                input_tokens: 1412,
                output_tokens: 96,
                cache_read_tokens: Some(1024),
                cache_write_tokens: None,
            }
        );
        assert_eq!(usage.summary(), "tokens: 1,412 in (1,024 cached), 96 out");
    }

    #[test]
    fn absent_or_partial_usage_is_none_not_zero() {
        assert_eq!(Usage::from_openai(None), None);
        assert_eq!(Usage::from_openai(Some(&Value::Null)), None);
        assert_eq!(Usage::from_openai(Some(&json!("12"))), None);
        assert_eq!(Usage::from_openai(Some(&json!({"total_tokens": 9}))), None);
        assert_eq!(
            Usage::from_openai(Some(&json!({"prompt_tokens": 9, "completion_tokens": -1}))),
            None
        );
        // No details: the cache count is unknown, not zero.
        let plain = Usage::from_openai(Some(&json!({"prompt_tokens": 9, "completion_tokens": 2})));
        assert_eq!(plain.unwrap().cache_read_tokens, None);
        assert_eq!(plain.unwrap().summary(), "tokens: 9 in, 2 out");
    }

    #[test]
    fn accumulation_sums_and_keeps_optional_counts_reported_by_any_step() {
        let mut total = None;
        let a = Usage {
            input_tokens: 1000,
            output_tokens: 10,
            cache_read_tokens: None,
            cache_write_tokens: None,
        };
        let b = Usage {
            input_tokens: 1500,
            output_tokens: 20,
            cache_read_tokens: Some(900),
            cache_write_tokens: None,
        };
        Usage::accumulate(&mut total, &a);
        assert_eq!(total, Some(a));
        Usage::accumulate(&mut total, &b);
        let total = total.unwrap();
        assert_eq!((total.input_tokens, total.output_tokens), (2500, 30));
        assert_eq!(total.cache_read_tokens, Some(900));
        assert_eq!(total.cache_write_tokens, None);
        let mut big = Usage {
            input_tokens: u64::MAX,
            ..Usage::default()
        };
        big.add(&total);
        assert_eq!(big.input_tokens, u64::MAX);
    }

    #[test]
    fn both_value_shapes_round_trip_and_leave_unknown_counts_out() {
        let usage = Usage {
            input_tokens: 5,
            output_tokens: 6,
            cache_read_tokens: Some(4),
            cache_write_tokens: Some(1),
        };
        assert_eq!(
            usage.to_value(),
            json!({"input_tokens": 5, "output_tokens": 6, "cache_read_tokens": 4,
                   "cache_write_tokens": 1})
        );
        let js = usage.to_js_value();
        assert_eq!(Usage::from_js_value(Some(&js)), Ok(Some(usage)));
        let bare = Usage {
            cache_read_tokens: None,
            cache_write_tokens: None,
            ..usage
        };
        assert_eq!(
            bare.to_value(),
            json!({"input_tokens": 5, "output_tokens": 6})
        );
        assert_eq!(Usage::from_js_value(None), Ok(None));
        let err = Usage::from_js_value(Some(&json!({"inputTokens": 1}))).unwrap_err();
        assert!(err.contains("usage.outputTokens"), "{err}");
        let err = Usage::from_js_value(Some(&json!({"inputTokens": 1, "outputTokens": "2"})))
            .unwrap_err();
        assert!(err.contains("usage.outputTokens"), "{err}");
        // The two cache counts are optional (absent or null), the first two are not.
        let two = json!({"inputTokens": 5, "outputTokens": 6, "cacheReadTokens": null});
        assert_eq!(Usage::from_js_value(Some(&two)), Ok(Some(bare)));
        let err = Usage::from_js_value(Some(&json!({"outputTokens": 6}))).unwrap_err();
        assert_eq!(err, "\"usage.inputTokens\" is missing");
        let err = Usage::from_js_value(Some(&json!({"inputTokens": 5, "outputTokens": 6,
                                                    "cacheWriteTokens": -1})))
        .unwrap_err();
        assert_eq!(
            err,
            "\"usage.cacheWriteTokens\" must be a non-negative integer, got -1"
        );
    }

    #[test]
    fn anthropic_usage_sums_the_three_prompt_counts_and_keeps_cache_writes() {
        // Field names from Anthropic's Messages API reference (`usage`).
        let usage = json!({"input_tokens": 12, "output_tokens": 40,
                           "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 300});
        let usage = Usage::from_anthropic(Some(&usage)).unwrap();
        assert_eq!(
            usage,
            Usage {
                input_tokens: 2312,
                output_tokens: 40,
                cache_read_tokens: Some(2000),
                cache_write_tokens: Some(300),
            }
        );
        assert_eq!(
            usage.summary(),
            "tokens: 2,312 in (2,000 cached, 300 written to cache), 40 out"
        );
        assert_eq!(
            Usage::from_anthropic(Some(&json!({"output_tokens": 3}))),
            None
        );
        assert_eq!(Usage::from_anthropic(None), None);
        let plain = Usage::from_anthropic(Some(&json!({"input_tokens": 5, "output_tokens": 1})));
        assert_eq!(plain.unwrap().summary(), "tokens: 5 in, 1 out");
    }

    #[test]
    fn thousands_separators() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), want);
        }
    }
}
