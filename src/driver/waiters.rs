//! The callers waiting for their request's outcome, by request id.
//!
//! Why not `HashMap`: it was the last user of std's hash table in the npm runtime module
//! (serde_json's maps bring their own copy through indexmap), and each key/value type
//! instantiated its insert, find, rehash and drop anew: a few KB of wasm. Request ids are
//! handed out in increasing order and mostly complete in about that order, so a sorted deque
//! with tombstones does the job: an insert appends, a removal is a binary search that leaves a
//! hole, holes at either end are popped, and the holes left behind a slow request are swept
//! once they make up half the table (amortised constant time, memory bounded by twice the
//! requests in flight).

use crate::mcp::RequestId;
use std::collections::VecDeque;

/// Values by request id, in id order.
#[derive(Debug)]
pub(crate) struct Waiters<V> {
    slots: VecDeque<(RequestId, Option<V>)>,
    /// How many slots hold no value any more.
    holes: usize,
}

impl<V> Default for Waiters<V> {
    fn default() -> Self {
        Waiters {
            slots: VecDeque::new(),
            holes: 0,
        }
    }
}

impl<V> Waiters<V> {
    /// An empty table.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn find(&self, id: RequestId) -> Result<usize, usize> {
        self.slots.binary_search_by_key(&id, |(key, _)| *key)
    }

    /// Sets the value of `id`, replacing any it had.
    pub(crate) fn insert(&mut self, id: RequestId, value: V) {
        if self.slots.back().is_none_or(|(last, _)| *last < id) {
            return self.slots.push_back((id, Some(value)));
        }
        match self.find(id) {
            Ok(at) => {
                if self.slots[at].1.is_none() {
                    self.holes -= 1;
                }
                self.slots[at].1 = Some(value);
            }
            Err(at) => self.slots.insert(at, (id, Some(value))),
        }
    }

    /// The value of `id`, if it has one.
    pub(crate) fn get(&self, id: RequestId) -> Option<&V> {
        self.slots.get(self.find(id).ok()?)?.1.as_ref()
    }

    /// Takes the value of `id`, if it has one.
    pub(crate) fn remove(&mut self, id: RequestId) -> Option<V> {
        let at = self.find(id).ok()?;
        let value = self.slots[at].1.take()?;
        self.holes += 1;
        while self.slots.front().is_some_and(|(_, v)| v.is_none()) {
            self.slots.pop_front();
            self.holes -= 1;
        }
        while self.slots.back().is_some_and(|(_, v)| v.is_none()) {
            self.slots.pop_back();
            self.holes -= 1;
        }
        if self.holes * 2 > self.slots.len() {
            self.slots.retain(|(_, v)| v.is_some());
            self.holes = 0;
        }
        Some(value)
    }

    /// How many ids have a value.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.holes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_by_id_in_any_order() {
        let mut waiters = Waiters::new();
        for id in [1, 2, 3, 5, 4] {
            waiters.insert(RequestId(id), id * 10);
        }
        assert_eq!(waiters.len(), 5);
        assert_eq!(waiters.get(RequestId(3)), Some(&30));
        assert_eq!(waiters.remove(RequestId(3)), Some(30));
        assert_eq!(waiters.get(RequestId(3)), None, "taken");
        assert_eq!(waiters.get(RequestId(9)), None, "never inserted");
        assert_eq!(waiters.remove(RequestId(3)), None, "taken once");
        assert_eq!(waiters.remove(RequestId(9)), None, "never inserted");
        waiters.insert(RequestId(2), 21);
        assert_eq!(waiters.remove(RequestId(2)), Some(21), "replaced");
        assert_eq!(
            waiters.remove(RequestId(4)),
            Some(40),
            "inserted out of order"
        );
        assert_eq!(waiters.remove(RequestId(1)), Some(10));
        assert_eq!(waiters.remove(RequestId(5)), Some(50));
        assert_eq!(waiters.len(), 0);
        assert!(
            waiters.slots.is_empty(),
            "no holes left: {:?}",
            waiters.slots
        );
        // A hole filled again counts as a value.
        waiters.insert(RequestId(6), 60);
        waiters.insert(RequestId(7), 70);
        waiters.insert(RequestId(8), 80);
        assert_eq!(waiters.remove(RequestId(7)), Some(70));
        waiters.insert(RequestId(7), 71);
        assert_eq!(waiters.len(), 3);
        assert_eq!(waiters.remove(RequestId(7)), Some(71));
        assert_eq!(waiters.remove(RequestId(6)), Some(60));
        assert_eq!(waiters.remove(RequestId(8)), Some(80));
        assert_eq!(waiters.len(), 0);
    }

    #[test]
    fn holes_behind_a_slow_request_are_swept() {
        let mut waiters = Waiters::new();
        waiters.insert(RequestId(0), 0u64);
        // Request 0 is slow; each later one is answered before the next is sent, except
        // that each tenth stays in flight a while.
        for id in 1..10_000u64 {
            waiters.insert(RequestId(id), id);
            if id % 10 != 0 {
                assert_eq!(waiters.remove(RequestId(id)), Some(id));
            } else if id > 10 {
                assert_eq!(waiters.remove(RequestId(id - 10)), Some(id - 10));
            }
            assert!(
                waiters.slots.len() <= 2 * waiters.len() + 1,
                "{} slots for {} values",
                waiters.slots.len(),
                waiters.len()
            );
        }
        assert_eq!(waiters.len(), 2, "request 0 and 9990");
        assert_eq!(
            waiters.remove(RequestId(0)),
            Some(0),
            "the slow one is still there"
        );
        assert_eq!(waiters.remove(RequestId(9_990)), Some(9_990));
        assert!(waiters.slots.is_empty());
    }
}
