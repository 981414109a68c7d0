//! `VecMap` and `VecSet`: ordered maps and sets over a sorted `Vec`, for the core's small
//! collections (servers, calls in flight, ids of one conversation, per-server settings).
//!
//! Why not `BTreeMap`: each key/value pair of types instantiates the B-tree's insert, remove,
//! rebalancing and drop code anew, about 7 KB of wasm apiece; a sorted `Vec` needs a few
//! hundred bytes. These collections hold a handful to a few thousand entries, where a binary
//! search plus a `memmove` is as fast as a tree. Iteration is in key order, as with a B-tree.
//! (The requests in flight, a large and hot table, use a sorted `Vec` with tombstones and a
//! binary heap instead: `rpc::PendingTable`.)

use std::borrow::Borrow;
use std::fmt;

/// A map ordered by key, stored as a sorted `Vec` of pairs.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap {
            entries: Vec::new(),
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// An empty map.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Where `key` is, or where it would go.
    fn search<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub(crate) fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let at = self.search(key).ok()?;
        Some(&self.entries[at].1)
    }

    /// The value of `key`, to change it.
    pub(crate) fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let at = self.search(key).ok()?;
        Some(&mut self.entries[at].1)
    }

    /// The value of `key`, inserted with `make` first if there is none.
    pub(crate) fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.search(&key) {
            Ok(at) => at,
            Err(at) => {
                self.entries.insert(at, (key, make()));
                at
            }
        };
        &mut self.entries[at].1
    }

    /// Sets `key` to `value`; returns the value it replaced.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.search(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// Removes `key`; returns its value.
    pub(crate) fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.search(key).ok()?;
        Some(self.entries.remove(at).1)
    }
}

impl<K, V> VecMap<K, V> {
    /// The entries in key order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order, values changeable.
    pub(crate) fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys in order.
    pub(crate) fn keys(&self) -> impl DoubleEndedIterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order, changeable.
    pub(crate) fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Removes every entry.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// A set ordered by value, stored as a sorted `Vec`.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct VecSet<K> {
    map: VecMap<K, ()>,
}

impl<K: fmt::Debug> fmt::Debug for VecSet<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.map.keys()).finish()
    }
}

impl<K: Ord> VecSet<K> {
    /// An empty set.
    pub(crate) fn new() -> Self {
        VecSet { map: VecMap::new() }
    }

    /// Adds `key`; false when it was there already.
    pub(crate) fn insert(&mut self, key: K) -> bool {
        self.map.insert(key, ()).is_none()
    }

    /// Whether `key` is in the set.
    pub(crate) fn contains<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.map.search(key).is_ok()
    }

    /// Removes `key`; false when it was not there.
    pub(crate) fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.map.remove(key).is_some()
    }

    /// Adds many members at once: one sort instead of a `memmove` per member (loading a
    /// conversation's thousands of call ids).
    pub(crate) fn extend_bulk(&mut self, items: impl IntoIterator<Item = K>) {
        let entries = &mut self.map.entries;
        entries.extend(items.into_iter().map(|k| (k, ())));
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
    }
}

impl<K> VecSet<K> {
    /// The members in order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &K> {
        self.map.keys()
    }

    /// Removes every member.
    pub(crate) fn clear(&mut self) {
        self.map.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_keys_sorted_and_unique() {
        let mut map = VecMap::new();
        assert_eq!(map.insert("b".to_owned(), 2), None);
        assert_eq!(map.insert("a".to_owned(), 1), None);
        assert_eq!(map.insert("c".to_owned(), 3), None);
        assert_eq!(map.insert("b".to_owned(), 20), Some(2));
        let pairs: Vec<(&str, i32)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(pairs, [("a", 1), ("b", 20), ("c", 3)]);
        assert_eq!(map.len(), 3);
        assert_eq!(map.get("c"), Some(&3));
        assert_eq!(map.get("d"), None);
        *map.get_mut("a").unwrap() += 10;
        *map.get_or_insert_with("0".to_owned(), || 7) += 1;
        *map.get_or_insert_with("a".to_owned(), || 99) += 1;
        assert_eq!(map.remove("b"), Some(20));
        assert_eq!(map.remove("b"), None);
        let pairs: Vec<(&str, i32)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(pairs, [("0", 8), ("a", 12), ("c", 3)]);
        assert_eq!(map.keys().next_back().map(String::as_str), Some("c"));
        assert_eq!(format!("{map:?}"), r#"{"0": 8, "a": 12, "c": 3}"#);
        map.clear();
        assert_eq!(map.len(), 0);
    }

    #[test]
    fn set_adds_each_member_once() {
        let mut set = VecSet::new();
        assert!(set.insert("y".to_owned()));
        assert!(set.insert("x".to_owned()));
        assert!(!set.insert("y".to_owned()));
        assert!(set.contains("x"));
        assert!(!set.contains("z"));
        assert_eq!(set.iter().collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(format!("{set:?}"), r#"{"x", "y"}"#);
        assert!(set.remove("x"));
        assert!(!set.remove("x"));
        set.clear();
        assert_eq!(set.iter().count(), 0);
    }
}
