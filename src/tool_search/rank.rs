//! Ranking the deferred catalog for a query: the core's lexical index, optionally fused with a
//! host searcher's answer.

use crate::registry::ToolSpec;

/// Names of the best matches for `query` among `catalog`, best first, at most `limit`; empty
/// when nothing matches.
pub(super) fn rank(catalog: &[&ToolSpec], query: &str, limit: usize) -> Vec<String> {
    // Placeholder until the lexical index lands: exact names and `select:` only.
    let wanted: Vec<&str> = match query.trim().strip_prefix("select:") {
        Some(list) => list.split(',').map(str::trim).collect(),
        None => query.split_whitespace().collect(),
    };
    let mut out: Vec<String> = Vec::new();
    for want in wanted {
        for spec in catalog {
            let bare = super::bridge::bare_name(spec);
            if (spec.name == want || bare == want) && !out.contains(&spec.name) {
                out.push(spec.name.clone());
            }
        }
    }
    out.truncate(limit);
    out
}

/// Reciprocal-rank fusion of the index's and the host's rankings (k = 60), ties in the index's
/// order; names outside `catalog` are dropped. A `select:` query keeps the index's answer.
pub(super) fn fuse(
    catalog: &[&ToolSpec],
    query: &str,
    index: Vec<String>,
    host: &[String],
    limit: usize,
) -> Vec<String> {
    if query.trim().starts_with("select:") {
        return index;
    }
    let host: Vec<&String> = host
        .iter()
        .filter(|n| catalog.iter().any(|t| t.name == **n))
        .collect();
    let mut scored: Vec<(f64, usize, String)> = Vec::new();
    let mut add = |name: &String, rank: usize, tie: usize| {
        let score = 1.0 / (61.0 + rank as f64);
        match scored.iter_mut().find(|(_, _, n)| n == name) {
            Some(entry) => entry.0 += score,
            None => scored.push((score, tie, name.clone())),
        }
    };
    for (rank, name) in index.iter().enumerate() {
        add(name, rank, rank);
    }
    for (rank, name) in host.iter().enumerate() {
        add(name, rank, index.len() + rank);
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(limit).map(|(_, _, n)| n).collect()
}
