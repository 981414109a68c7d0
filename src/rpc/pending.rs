//! The pending-request table: which ids are in flight, for which method, until when.

use crate::time::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
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
/// Memory is proportional to the number of requests in flight: one slot and one or two deadline
/// entries each. Finding the earliest deadline is O(1) and every change O(log n) (amortised), so
/// 10,000 requests in flight cost no more per event than ten.
///
/// Why not a `HashMap` and a `BTreeSet`: each instantiates its own insert, remove and rebalancing
/// code (about 8 KB of wasm for the B-tree alone); a sorted `Vec` and a `BinaryHeap` need a
/// fraction of that, at the same complexity.
#[derive(Debug)]
pub struct PendingTable<T> {
    next_id: u64,
    /// Slots in increasing id order (ids are allocated in increasing order, so an insert is a
    /// push); `None` marks a finished request, dropped at the next compaction.
    slots: Vec<(u64, Option<Pending<T>>)>,
    /// Number of `Some` slots.
    live: usize,
    /// Min-heap of (deadline, id) with lazy deletion: an entry is stale once its request has
    /// finished or its deadline has moved, and is dropped when it reaches the top or at the next
    /// compaction. Every `&mut self` method leaves a live entry on top, so `next_deadline` can
    /// read it from `&self`.
    by_deadline: BinaryHeap<Reverse<(Instant, u64)>>,
}

/// Stale slots or heap entries allowed beyond the live count before a compaction; the slack
/// keeps small tables from compacting on every removal.
const SLACK: usize = 16;

impl<T> Default for PendingTable<T> {
    fn default() -> Self {
        PendingTable {
            next_id: 1,
            slots: Vec::new(),
            live: 0,
            by_deadline: BinaryHeap::new(),
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
        self.by_deadline.push(Reverse((deadlines.deadline, id)));
        let pending = Pending {
            method: method.to_owned(),
            sent_at,
            deadlines,
            data,
        };
        self.slots.push((id, Some(pending)));
        self.live += 1;
        id
    }

    /// Removes and returns the request with this id, if it is in flight.
    pub fn remove(&mut self, id: u64) -> Option<Pending<T>> {
        let at = slot_of(&self.slots, id)?;
        let pending = self.slots[at].1.take()?;
        self.live -= 1;
        self.tidy();
        Some(pending)
    }

    /// The request with this id, if it is in flight.
    pub fn get(&self, id: u64) -> Option<&Pending<T>> {
        get(&self.slots, id)
    }

    /// Mutable access to a request's caller data.
    pub fn data_mut(&mut self, id: u64) -> Option<&mut T> {
        let at = slot_of(&self.slots, id)?;
        self.slots[at].1.as_mut().map(|p| &mut p.data)
    }

    /// Restarts a request's silence timer at `now` (progress arrived), never past its hard
    /// deadline. Returns false if the id is not in flight.
    pub fn extend(&mut self, id: u64, now: Instant) -> bool {
        let Some(at) = slot_of(&self.slots, id) else {
            return false;
        };
        let Some(pending) = self.slots[at].1.as_mut() else {
            return false;
        };
        let d = &mut pending.deadlines;
        let mut next = now + d.timeout;
        if let Some(hard) = d.hard_deadline {
            next = next.min(hard);
        }
        if next > d.deadline {
            // The old heap entry goes stale: its deadline no longer matches.
            d.deadline = next;
            self.by_deadline.push(Reverse((next, id)));
            self.tidy();
        }
        true
    }

    /// Gives every request in flight back the time from `paused_at` (or from its sending, if
    /// later) to `now`, silence timer and hard deadline alike: time spent waiting on something
    /// other than the server (a user authorizing in a browser) does not count against it.
    pub fn postpone_all(&mut self, paused_at: Instant, now: Instant) {
        let mut entries = Vec::with_capacity(self.live);
        for (id, pending) in &mut self.slots {
            if let Some(pending) = pending {
                let from = if pending.sent_at > paused_at {
                    pending.sent_at
                } else {
                    paused_at
                };
                let by = now.saturating_since(from);
                let d = &mut pending.deadlines;
                d.deadline = d.deadline + by;
                d.hard_deadline = d.hard_deadline.map(|hard| hard + by);
                entries.push(Reverse((d.deadline, *id)));
            }
        }
        // Every old entry is stale now; heapifying the fresh ones is O(n).
        self.by_deadline = BinaryHeap::from(entries);
    }

    /// The earliest deadline of any request in flight.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.by_deadline.peek().map(|Reverse((at, _))| *at)
    }

    /// Removes and returns one request whose deadline is at or before `now`, earliest first.
    pub fn pop_expired(&mut self, now: Instant) -> Option<(u64, Pending<T>)> {
        let &Reverse((at, id)) = self.by_deadline.peek()?;
        if at > now {
            return None;
        }
        self.by_deadline.pop();
        self.remove(id).map(|p| (id, p))
    }

    /// Removes every request, in id order (used when the connection closes).
    pub fn drain(&mut self) -> Vec<(u64, Pending<T>)> {
        self.by_deadline.clear();
        self.live = 0;
        std::mem::take(&mut self.slots)
            .into_iter()
            .filter_map(|(id, p)| Some((id, p?)))
            .collect()
    }

    /// Uses up the next id without a request (for a command answered without the wire).
    pub fn skip_id(&mut self) {
        self.next_id += 1;
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
        self.live
    }

    /// Whether no request is in flight.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Restores the invariants after a removal or a moved deadline: a live entry (or nothing) on
    /// top of the heap, and stale slots and heap entries at most about as many as live ones.
    /// Each compaction is O(n) and follows at least n/2 removals or moves, so O(1) amortised.
    fn tidy(&mut self) {
        let limit = 2 * self.live + SLACK;
        if self.slots.len() > limit {
            self.slots.retain(|(_, p)| p.is_some());
        }
        let slots = &self.slots;
        if self.by_deadline.len() > limit {
            self.by_deadline.retain(|entry| is_live(slots, entry));
        }
        while let Some(top) = self.by_deadline.peek() {
            if is_live(slots, top) {
                break;
            }
            self.by_deadline.pop();
        }
    }
}

/// Where the slot of `id` is, if it has not been compacted away.
fn slot_of<T>(slots: &[(u64, Option<Pending<T>>)], id: u64) -> Option<usize> {
    slots
        .binary_search_by_key(&id, |(slot_id, _)| *slot_id)
        .ok()
}

/// The request with this id, if it is in flight.
fn get<T>(slots: &[(u64, Option<Pending<T>>)], id: u64) -> Option<&Pending<T>> {
    slots[slot_of(slots, id)?].1.as_ref()
}

/// Whether a heap entry still stands for a request in flight with that deadline.
fn is_live<T>(
    slots: &[(u64, Option<Pending<T>>)],
    &Reverse((at, id)): &Reverse<(Instant, u64)>,
) -> bool {
    get(slots, id).is_some_and(|p| p.deadlines.deadline == at)
}

#[cfg(test)]
#[path = "pending_tests.rs"]
mod tests;
