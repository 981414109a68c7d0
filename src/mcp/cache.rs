//! Cache hints of the modern era (2026-07-28): list results and `resources/read` may carry
//! `ttlMs` (how long the answer stays fresh) and `cacheScope`. The session keeps fresh answers
//! in a bounded cache, so a re-list (or re-read) inside the TTL sends nothing; a `list_changed`
//! or `resources/updated` notification drops the entries it makes stale. `ttlMs` absent or 0
//! caches nothing; both scopes (`private`, `public`) are fine for one user's client.

use super::features::ListKind;
use crate::time::Instant;
use serde_json::Value;
use std::time::Duration;

/// Most `resources/read` answers kept.
pub const MAX_CACHED_READS: usize = 32;
/// Largest `resources/read` answer kept, in bytes of its text and blob strings.
pub const MAX_CACHED_READ_BYTES: usize = 256 * 1024;
/// Longest TTL honoured (a server's hint beyond it is cut to it).
pub const MAX_TTL: Duration = Duration::from_secs(3600);

/// What an answer is kept under.
#[derive(Debug, PartialEq)]
enum Key {
    List(ListKind),
    Read(String),
}

#[derive(Debug)]
struct Entry {
    key: Key,
    /// A whole list as an array, or a `resources/read` result.
    value: Value,
    fresh_until: Instant,
}

/// Fresh answers by list kind and by resource URI, oldest first. One list of one entry type
/// (and one `drop_where` for every removal) keeps the wasm module small.
#[derive(Debug, Default)]
pub(crate) struct HintCache {
    entries: Vec<Entry>,
}

/// The TTL a result asks for, capped; `None` when it asks for none.
fn ttl(result: &Value) -> Option<Duration> {
    let ms = result.get("ttlMs")?.as_u64().filter(|ms| *ms > 0)?;
    Some(Duration::from_millis(ms).min(MAX_TTL))
}

/// Bytes of the strings in `value` (a cheap bound on what it costs to keep).
fn string_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(string_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + string_bytes(v)).sum(),
        _ => 8,
    }
}

impl HintCache {
    fn fresh(&self, key: &Key, now: Instant) -> Option<&Value> {
        self.entries
            .iter()
            .find(|e| e.key == *key && e.fresh_until > now)
            .map(|e| &e.value)
    }

    fn drop_where(&mut self, stale: &dyn Fn(&Entry) -> bool) {
        self.entries.retain(|e| !stale(e));
    }

    /// A fresh list of `kind`, if one is kept.
    pub(crate) fn list(&self, kind: ListKind, now: Instant) -> Option<&Vec<Value>> {
        self.fresh(&Key::List(kind), now)?.as_array()
    }

    /// Keeps a whole list whose last page said `ttlMs`.
    pub(crate) fn keep_list(
        &mut self,
        kind: ListKind,
        items: &[Value],
        last_page: &Value,
        now: Instant,
    ) {
        self.forget(Key::List(kind));
        if let Some(ttl) = ttl(last_page) {
            self.entries.push(Entry {
                key: Key::List(kind),
                value: Value::Array(items.to_vec()),
                fresh_until: now + ttl,
            });
        }
    }

    /// A fresh `resources/read` answer for `uri`, if one is kept.
    pub(crate) fn read(&self, uri: &str, now: Instant) -> Option<&Value> {
        self.fresh(&Key::Read(uri.to_owned()), now)
    }

    /// Keeps a `resources/read` answer that said `ttlMs`, if small enough; the oldest entry
    /// makes room.
    pub(crate) fn keep_read(&mut self, uri: &str, result: &Value, now: Instant) {
        self.forget_read(uri);
        let Some(ttl) = ttl(result) else { return };
        if string_bytes(result) > MAX_CACHED_READ_BYTES {
            return;
        }
        self.drop_where(&|e| matches!(e.key, Key::Read(_)) && e.fresh_until <= now);
        let reads = self
            .entries
            .iter()
            .filter(|e| matches!(e.key, Key::Read(_)));
        if reads.count() >= MAX_CACHED_READS {
            let oldest = self
                .entries
                .iter()
                .position(|e| matches!(e.key, Key::Read(_)));
            if let Some(at) = oldest {
                self.entries.remove(at);
            }
        }
        self.entries.push(Entry {
            key: Key::Read(uri.to_owned()),
            value: result.clone(),
            fresh_until: now + ttl,
        });
    }

    fn forget(&mut self, key: Key) {
        self.drop_where(&|e| e.key == key);
    }

    /// Drops the list of `kind` (its `list_changed` arrived).
    pub(crate) fn forget_list(&mut self, kind: ListKind) {
        self.forget(Key::List(kind));
        if kind == ListKind::Resources {
            self.drop_where(&|e| matches!(e.key, Key::Read(_)));
        }
    }

    /// Drops the answer for `uri` (its `resources/updated` arrived).
    pub(crate) fn forget_read(&mut self, uri: &str) {
        self.forget(Key::Read(uri.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_fresh_answers_with_a_ttl_are_served_and_the_cache_is_bounded() {
        let now = Instant::from_millis(1_000);
        let mut cache = HintCache::default();
        let items = vec![json!({"name": "a"}), json!({"name": "b"})];
        cache.keep_list(ListKind::Tools, &items, &json!({"ttlMs": 500}), now);
        assert_eq!(
            cache.list(ListKind::Tools, now + Duration::from_millis(499)),
            Some(&items)
        );
        assert_eq!(
            cache.list(ListKind::Tools, now + Duration::from_millis(500)),
            None
        );
        assert_eq!(cache.list(ListKind::Prompts, now), None);
        cache.keep_list(ListKind::Tools, &items, &json!({"ttlMs": 0}), now);
        assert_eq!(
            cache.list(ListKind::Tools, now),
            None,
            "ttlMs 0 caches nothing"
        );

        for i in 0..MAX_CACHED_READS + 5 {
            cache.keep_read(
                &format!("r{i}"),
                &json!({"ttlMs": 60_000, "contents": []}),
                now,
            );
        }
        assert!(cache.read("r0", now).is_none(), "the oldest made room");
        assert!(cache
            .read(&format!("r{}", MAX_CACHED_READS + 4), now)
            .is_some());
        let big =
            json!({"ttlMs": 60_000, "contents": [{"text": "x".repeat(MAX_CACHED_READ_BYTES)}]});
        cache.keep_read("big", &big, now);
        assert!(cache.read("big", now).is_none(), "too big to keep");
        cache.forget_read("r6");
        assert!(cache.read("r6", now).is_none());
        cache.keep_read("r7", &json!({"ttlMs": 9_999_999_999u64}), now);
        assert!(
            cache.read("r7", now + MAX_TTL).is_none(),
            "the TTL is capped"
        );
    }
}
