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

#[derive(Debug)]
struct Entry<T> {
    value: T,
    fresh_until: Instant,
}

/// Fresh answers by list kind and by resource URI.
#[derive(Debug, Default)]
pub(crate) struct HintCache {
    lists: Vec<(ListKind, Entry<Vec<Value>>)>,
    reads: Vec<(String, Entry<Value>)>,
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
    /// A fresh list of `kind`, if one is kept.
    pub(crate) fn list(&self, kind: ListKind, now: Instant) -> Option<&Vec<Value>> {
        self.lists
            .iter()
            .find(|(k, e)| *k == kind && e.fresh_until > now)
            .map(|(_, e)| &e.value)
    }

    /// Keeps a whole list whose last page said `ttlMs`.
    pub(crate) fn keep_list(
        &mut self,
        kind: ListKind,
        items: &[Value],
        last_page: &Value,
        now: Instant,
    ) {
        self.lists.retain(|(k, _)| *k != kind);
        if let Some(ttl) = ttl(last_page) {
            let entry = Entry {
                value: items.to_vec(),
                fresh_until: now + ttl,
            };
            self.lists.push((kind, entry));
        }
    }

    /// A fresh `resources/read` answer for `uri`, if one is kept.
    pub(crate) fn read(&self, uri: &str, now: Instant) -> Option<&Value> {
        self.reads
            .iter()
            .find(|(u, e)| u == uri && e.fresh_until > now)
            .map(|(_, e)| &e.value)
    }

    /// Keeps a `resources/read` answer that said `ttlMs`, if small enough; the oldest entry
    /// makes room.
    pub(crate) fn keep_read(&mut self, uri: &str, result: &Value, now: Instant) {
        self.reads.retain(|(u, _)| u != uri);
        let Some(ttl) = ttl(result) else { return };
        if string_bytes(result) > MAX_CACHED_READ_BYTES {
            return;
        }
        self.reads.retain(|(_, e)| e.fresh_until > now);
        if self.reads.len() >= MAX_CACHED_READS {
            self.reads.remove(0);
        }
        let entry = Entry {
            value: result.clone(),
            fresh_until: now + ttl,
        };
        self.reads.push((uri.to_owned(), entry));
    }

    /// Drops the list of `kind` (its `list_changed` arrived).
    pub(crate) fn forget_list(&mut self, kind: ListKind) {
        self.lists.retain(|(k, _)| *k != kind);
        if kind == ListKind::Resources {
            self.reads.clear();
        }
    }

    /// Drops the answer for `uri` (its `resources/updated` arrived).
    pub(crate) fn forget_read(&mut self, uri: &str) {
        self.reads.retain(|(u, _)| u != uri);
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
