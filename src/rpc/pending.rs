//! The pending-request table: which ids are in flight, for which method, until when.

use crate::time::Instant;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// Deadlines of one in-flight request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// How long the request may stay silent; progress notifications restart this clock.
    pub timeout: Duration,
    /// When the request fails unless a response or progress arrives first.
    pub deadline: Instant,
    /// When the request fails whatever progress arrives, if set.
    pub hard_deadline: Option<Instant>,
}

impl Deadlines {
    /// Deadlines for a request sent at `now`.
    pub fn starting_at(now: Instant, timeout: Duration, max_total: Option<Duration>) -> Self {
        let hard_deadline = max_total.map(|max| now + max);
        let deadline = now + timeout;
        Deadlines {
            timeout,
            deadline: hard_deadline.map_or(deadline, |hard| deadline.min(hard)),
            hard_deadline,
        }
    }
}

/// One in-flight request and what the caller attached to it.
#[derive(Debug)]
pub struct Pending<T> {
    /// The method, for error messages.
    pub method: String,
    /// When it was sent.
    pub sent_at: Instant,
    /// Its deadlines.
    pub deadlines: Deadlines,
    /// Caller data, such as what to do with the response.
    pub data: T,
}

/// Requests in flight, keyed by the numeric id this side allocated.
///
/// Memory is proportional to the number of requests in flight: one map entry and one ordered
/// deadline entry each. Finding the earliest deadline is O(log n), so 10,000 requests in flight
/// cost no more per event than ten.
#[derive(Debug)]
pub struct PendingTable<T> {
    next_id: u64,
    entries: HashMap<u64, Pending<T>>,
    by_deadline: BTreeSet<(Instant, u64)>,
}

impl<T> Default for PendingTable<T> {
    fn default() -> Self {
        PendingTable {
            next_id: 1,
            entries: HashMap::new(),
            by_deadline: BTreeSet::new(),
        }
    }
}

impl<T> PendingTable<T> {
    /// An empty table whose first id is 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates the next id and records the request under it.
    pub fn insert(&mut self, method: &str, sent_at: Instant, deadlines: Deadlines, data: T) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.by_deadline.insert((deadlines.deadline, id));
        let pending = Pending {
            method: method.to_owned(),
            sent_at,
            deadlines,
            data,
        };
        self.entries.insert(id, pending);
        id
    }

    /// Removes and returns the request with this id, if it is in flight.
    pub fn remove(&mut self, id: u64) -> Option<Pending<T>> {
        let pending = self.entries.remove(&id)?;
        self.by_deadline.remove(&(pending.deadlines.deadline, id));
        Some(pending)
    }

    /// The request with this id, if it is in flight.
    pub fn get(&self, id: u64) -> Option<&Pending<T>> {
        self.entries.get(&id)
    }

    /// Mutable access to a request's caller data.
    pub fn data_mut(&mut self, id: u64) -> Option<&mut T> {
        self.entries.get_mut(&id).map(|p| &mut p.data)
    }

    /// Restarts a request's silence timer at `now` (progress arrived), never past its hard
    /// deadline. Returns false if the id is not in flight.
    pub fn extend(&mut self, id: u64, now: Instant) -> bool {
        let Some(pending) = self.entries.get_mut(&id) else {
            return false;
        };
        let d = &mut pending.deadlines;
        let mut next = now + d.timeout;
        if let Some(hard) = d.hard_deadline {
            next = next.min(hard);
        }
        if next > d.deadline {
            self.by_deadline.remove(&(d.deadline, id));
            d.deadline = next;
            self.by_deadline.insert((next, id));
        }
        true
    }

    /// The earliest deadline of any request in flight.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.by_deadline.first().map(|&(at, _)| at)
    }

    /// Removes and returns one request whose deadline is at or before `now`, earliest first.
    pub fn pop_expired(&mut self, now: Instant) -> Option<(u64, Pending<T>)> {
        let &(at, id) = self.by_deadline.first()?;
        if at > now {
            return None;
        }
        self.remove(id).map(|p| (id, p))
    }

    /// Removes every request, in id order (used when the connection closes).
    pub fn drain(&mut self) -> Vec<(u64, Pending<T>)> {
        self.by_deadline.clear();
        let mut all: Vec<_> = self.entries.drain().collect();
        all.sort_unstable_by_key(|(id, _)| *id);
        all
    }

    /// The id the next `insert` will allocate.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Whether the id was allocated by this table at some point (in flight or finished).
    pub fn was_issued(&self, id: u64) -> bool {
        id != 0 && id < self.next_id
    }

    /// Number of requests in flight.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no request is in flight.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn ids_are_sequential_and_expiry_is_earliest_first() {
        let mut t = PendingTable::new();
        let a = t.insert("a", at(0), Deadlines::starting_at(at(0), secs(5), None), ());
        let b = t.insert("b", at(0), Deadlines::starting_at(at(0), secs(1), None), ());
        assert_eq!((a, b), (1, 2));
        assert_eq!(t.next_deadline(), Some(at(1000)));
        assert!(t.pop_expired(at(999)).is_none());
        assert_eq!(t.pop_expired(at(5000)).map(|(id, _)| id), Some(2));
        assert_eq!(t.pop_expired(at(5000)).map(|(id, _)| id), Some(1));
        assert!(t.is_empty() && t.next_deadline().is_none());
        assert!(t.was_issued(2) && !t.was_issued(3) && !t.was_issued(0));
    }

    #[test]
    fn progress_extends_up_to_the_hard_deadline_only() {
        let mut t = PendingTable::new();
        let d = Deadlines::starting_at(at(0), secs(10), Some(secs(25)));
        let id = t.insert("tools/call", at(0), d, ());
        assert!(t.extend(id, at(8_000)));
        assert_eq!(t.next_deadline(), Some(at(18_000)));
        t.extend(id, at(20_000));
        assert_eq!(
            t.next_deadline(),
            Some(at(25_000)),
            "capped by the hard deadline"
        );
        t.extend(id, at(24_000));
        assert_eq!(t.next_deadline(), Some(at(25_000)));
        assert!(!t.extend(99, at(0)));
    }

    #[test]
    fn remove_keeps_deadline_index_consistent() {
        let mut t = PendingTable::new();
        let ids: Vec<u64> = (0..100)
            .map(|i| {
                t.insert(
                    "m",
                    at(0),
                    Deadlines::starting_at(at(0), secs(100 - i), None),
                    (),
                )
            })
            .collect();
        for id in &ids[50..] {
            assert!(t.remove(*id).is_some());
        }
        assert!(
            t.remove(ids[99]).is_none(),
            "a second removal finds nothing"
        );
        assert_eq!(t.len(), 50);
        assert_eq!(t.next_deadline(), Some(at(51_000)));
        assert_eq!(t.drain().len(), 50);
        assert!(t.next_deadline().is_none());
    }
}
