//! Tests of the pending-request table, lazy deletion and compaction included.

use super::*;
use crate::test_rng::Rng;

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

/// Ids popped by `pop_expired(now)` until it finds nothing.
fn expired(t: &mut PendingTable<()>, now: Instant) -> Vec<u64> {
    std::iter::from_fn(|| t.pop_expired(now).map(|(id, _)| id)).collect()
}

#[test]
fn extend_moves_a_deadline_later_and_its_old_entry_is_skipped() {
    let mut t = PendingTable::new();
    let a = t.insert("a", at(0), Deadlines::starting_at(at(0), secs(1), None), ());
    let b = t.insert("b", at(0), Deadlines::starting_at(at(0), secs(2), None), ());
    assert!(t.extend(a, at(1_500)));
    assert_eq!(
        t.next_deadline(),
        Some(at(2_000)),
        "a's old 1 s deadline is gone"
    );
    assert!(t.pop_expired(at(1_999)).is_none());
    assert_eq!(expired(&mut t, at(2_000)), [b]);
    assert_eq!(t.next_deadline(), Some(at(2_500)));
    assert_eq!(
        expired(&mut t, at(10_000)),
        [a],
        "a comes out once, not twice"
    );
    assert!(t.is_empty() && t.next_deadline().is_none());
}

#[test]
fn extend_to_an_earlier_or_equal_deadline_changes_nothing() {
    let mut t = PendingTable::new();
    let a = t.insert("a", at(0), Deadlines::starting_at(at(0), secs(5), None), ());
    assert!(t.extend(a, at(0)));
    assert_eq!(t.next_deadline(), Some(at(5_000)));
    assert_eq!(
        t.by_deadline.len(),
        1,
        "no entry pushed for an unchanged deadline"
    );
}

#[test]
fn removing_a_non_top_entry_leaves_the_others_in_deadline_order() {
    let mut t = PendingTable::new();
    let a = t.insert("a", at(0), Deadlines::starting_at(at(0), secs(1), None), ());
    let b = t.insert("b", at(0), Deadlines::starting_at(at(0), secs(2), None), ());
    let c = t.insert("c", at(0), Deadlines::starting_at(at(0), secs(3), None), ());
    assert_eq!(t.remove(b).map(|p| p.method), Some("b".to_owned()));
    assert_eq!(t.next_deadline(), Some(at(1_000)));
    assert!(t.get(b).is_none() && t.data_mut(b).is_none() && !t.extend(b, at(0)));
    assert_eq!(
        expired(&mut t, at(2_500)),
        [a],
        "b's deadline has no request behind it"
    );
    assert_eq!(t.next_deadline(), Some(at(3_000)));
    assert_eq!(t.remove(c).map(|p| p.method), Some("c".to_owned()));
    assert!(t.next_deadline().is_none() && t.is_empty());
}

#[test]
fn pop_expired_goes_earliest_first_and_ties_by_id() {
    let mut t = PendingTable::new();
    let dl = |s| Deadlines::starting_at(at(0), secs(s), None);
    let ids: Vec<u64> = [3, 1, 2, 1, 3]
        .iter()
        .map(|&s| t.insert("m", at(0), dl(s), ()))
        .collect();
    assert_eq!(
        expired(&mut t, at(2_000)),
        [ids[1], ids[3], ids[2]],
        "deadlines 1 s, 1 s, 2 s"
    );
    assert_eq!(expired(&mut t, at(3_000)), [ids[0], ids[4]]);
}

#[test]
fn drain_is_in_id_order_whatever_the_deadlines_and_the_table_stays_usable() {
    let mut t = PendingTable::new();
    let dl = |s| Deadlines::starting_at(at(0), secs(s), None);
    let ids: Vec<u64> = (0..6)
        .map(|i| t.insert("m", at(0), dl(10 - i), ()))
        .collect();
    t.remove(ids[2]);
    t.extend(ids[4], at(5_000));
    let drained: Vec<u64> = t.drain().into_iter().map(|(id, _)| id).collect();
    assert_eq!(drained, [ids[0], ids[1], ids[3], ids[4], ids[5]]);
    assert!(t.is_empty() && t.next_deadline().is_none() && t.remove(ids[0]).is_none());
    let next = t.insert("m", at(0), dl(1), ());
    assert_eq!(next, ids[5] + 1, "ids keep increasing after a drain");
    assert_eq!(t.next_deadline(), Some(at(1_000)));
}

#[test]
fn memory_follows_requests_in_flight_not_requests_ever_sent() {
    let mut t = PendingTable::new();
    // One long request stays in flight while 10,000 others come and go, each with progress.
    let long = t.insert(
        "long",
        at(0),
        Deadlines::starting_at(at(0), secs(60), None),
        (),
    );
    for i in 0..10_000u64 {
        let id = t.insert("m", at(i), Deadlines::starting_at(at(i), secs(5), None), ());
        assert!(t.extend(id, at(i + 1)));
        assert!(t.extend(long, at(i)));
        assert!(t.remove(id).is_some());
        assert!(t.slots.len() <= 2 * t.len() + SLACK);
        assert!(t.by_deadline.len() <= 2 * t.len() + SLACK);
    }
    assert_eq!(t.len(), 1);
    assert_eq!(t.next_deadline(), Some(at(9_999 + 60_000)));
    assert_eq!(t.get(long).map(|p| p.method.as_str()), Some("long"));
}

#[test]
fn agrees_with_a_naive_table_under_a_random_workload() {
    // A fixed xorshift sequence: deterministic, and varied enough to reach compactions with
    // stale entries on top, in the middle and at the bottom of the heap.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut rand = |n: u64| rng.below(n as usize) as u64;
    let mut t = PendingTable::new();
    let mut naive: Vec<(u64, Instant)> = Vec::new(); // (id, deadline) in flight
    let mut now = 0;
    for _ in 0..20_000 {
        now += rand(50);
        let pick = |r: u64, naive: &Vec<(u64, Instant)>| {
            naive.get(r as usize % naive.len().max(1)).map(|e| e.0)
        };
        match rand(5) {
            0 | 1 => {
                let d = Deadlines::starting_at(at(now), Duration::from_millis(rand(3_000)), None);
                let id = t.insert("m", at(now), d, ());
                naive.push((id, d.deadline));
            }
            2 => {
                if let Some(id) = pick(rand(1 << 20), &naive) {
                    assert!(t.extend(id, at(now)));
                    let e = naive.iter_mut().find(|e| e.0 == id).unwrap();
                    let timeout = t.get(id).unwrap().deadlines.timeout;
                    e.1 = e.1.max(at(now) + timeout);
                }
            }
            3 => {
                let id = pick(rand(1 << 20), &naive).unwrap_or(t.next_id());
                let found = t.remove(id).is_some();
                assert_eq!(found, naive.iter().any(|e| e.0 == id));
                naive.retain(|e| e.0 != id);
            }
            _ => {
                while let Some((id, p)) = t.pop_expired(at(now)) {
                    let earliest = naive.iter().map(|e| (e.1, e.0)).min();
                    assert_eq!(Some((p.deadlines.deadline, id)), earliest);
                    assert!(p.deadlines.deadline <= at(now));
                    naive.retain(|e| e.0 != id);
                }
            }
        }
        assert_eq!(t.len(), naive.len());
        assert_eq!(t.next_deadline(), naive.iter().map(|e| e.1).min());
    }
    let drained: Vec<u64> = t.drain().into_iter().map(|(id, _)| id).collect();
    let mut ids: Vec<u64> = naive.iter().map(|e| e.0).collect();
    ids.sort_unstable();
    assert_eq!(drained, ids);
}

#[test]
fn postponing_gives_back_the_paused_time_from_each_requests_sending() {
    let mut t = PendingTable::new();
    let before = t.insert(
        "a",
        at(0),
        Deadlines::starting_at(at(0), secs(10), None),
        (),
    );
    let capped = t.insert(
        "b",
        at(0),
        Deadlines::starting_at(at(0), secs(30), Some(secs(12))),
        (),
    );
    // Paused from 5 s to 65 s; this one was sent at 20 s, during the pause.
    let during = t.insert(
        "c",
        at(20_000),
        Deadlines::starting_at(at(20_000), secs(10), None),
        (),
    );
    t.postpone_all(at(5_000), at(65_000));
    let deadline = |t: &PendingTable<()>, id| t.get(id).unwrap().deadlines;
    assert_eq!(
        deadline(&t, before).deadline,
        at(70_000),
        "10 s + 60 s paused"
    );
    assert_eq!(deadline(&t, capped).deadline, at(72_000));
    assert_eq!(
        deadline(&t, capped).hard_deadline,
        Some(at(72_000)),
        "moved too"
    );
    assert_eq!(
        deadline(&t, during).deadline,
        at(75_000),
        "30 + 45 s from its sending"
    );
    assert_eq!(t.next_deadline(), Some(at(70_000)));
    let order: Vec<u64> =
        std::iter::from_fn(|| t.pop_expired(at(100_000)).map(|(id, _)| id)).collect();
    assert_eq!(order, [before, capped, during]);
    assert!(t.next_deadline().is_none(), "no stale entry survives");
}
