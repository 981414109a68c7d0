//! Ranking the deferred catalog for a query: the core's lexical index, optionally fused with a
//! host searcher's answer.

use super::index::{ToolDoc, ToolIndex};
use crate::registry::ToolSpec;

/// Names of the best matches for `query` among `catalog`, best first, at most `limit`; empty
/// when nothing matches (exact names and `select:` pinned first, see [`ToolIndex::search`]).
pub(super) fn rank(catalog: &[&ToolSpec], query: &str, limit: usize) -> Vec<String> {
    let docs = catalog
        .iter()
        .map(|spec| {
            ToolDoc::from_definition(
                &spec.name,
                spec.server().unwrap_or(""),
                spec.call_name(),
                &spec.description,
                &spec.input_schema,
            )
        })
        .collect();
    ToolIndex::new(docs)
        .search(query, limit)
        .into_iter()
        .map(|hit| hit.name)
        .collect()
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
    // (score, tie order, name); the index's names first, so ties keep its order.
    let mut scored: Vec<(f64, String)> = Vec::new();
    let mut add = |name: &String, rank: usize| {
        let score = 1.0 / (61.0 + rank as f64);
        match scored.iter_mut().find(|(_, n)| n == name) {
            Some(entry) => entry.0 += score,
            None => scored.push((score, name.clone())),
        }
    };
    for (rank, name) in index.iter().enumerate() {
        add(name, rank);
    }
    for (rank, name) in host.iter().enumerate() {
        add(name, rank);
    }
    // The best `limit` by repeated selection of the first highest score: entries are in tie
    // order already, and no sort instance is needed.
    let mut out = Vec::new();
    while out.len() < limit && !scored.is_empty() {
        let mut best = 0;
        for at in 1..scored.len() {
            if scored[at].0 > scored[best].0 {
                best = at;
            }
        }
        out.push(scored.remove(best).1);
    }
    out
}
