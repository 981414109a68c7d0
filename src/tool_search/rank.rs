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
