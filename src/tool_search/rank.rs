//! Ranking the deferred catalog for a query. With the lexical index (feature `lexical-index`,
//! on by default): the index's ranking, fused with a host searcher's when there is one. Without
//! it (the npm runtime module, whose JS layer ranks with the same index in a wasm module of its
//! own, loaded on the first search, and answers with the tools the query names when that module
//! cannot be loaded: `js/lib/pins.js`): the host's ranking as given, or nothing without one.
#[cfg(feature = "lexical-index")]
use super::index::{ToolDoc, ToolIndex};
use crate::registry::ToolSpec;

/// Names of the best matches for `query` among `catalog`, best first, at most `limit`; empty
/// when nothing matches. `host`: a host searcher's ranking (see the module docs).
pub(super) fn ranking(
    catalog: &[&ToolSpec],
    query: &str,
    limit: usize,
    host: Option<&[String]>,
) -> Vec<String> {
    #[cfg(feature = "lexical-index")]
    {
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
        rank_tools(docs, query, limit, host)
    }
    #[cfg(not(feature = "lexical-index"))]
    {
        let _ = query;
        host.map_or_else(Vec::new, |host| as_given(catalog, host, limit))
    }
}

/// The ranking `tool_search` answers with for `docs` (the deferred catalog, in catalog order):
/// the [`ToolIndex`]'s best `limit` names, fused with `host`'s ranking when given (see
/// `fuse`). The npm package's search module calls this too, so both rank alike.
#[cfg(feature = "lexical-index")]
pub fn rank_tools(
    docs: Vec<ToolDoc>,
    query: &str,
    limit: usize,
    host: Option<&[String]>,
) -> Vec<String> {
    let names: Vec<String> = docs.iter().map(|doc| doc.name.clone()).collect();
    let index = ToolIndex::new(docs)
        .search(query, limit)
        .into_iter()
        .map(|hit| hit.name)
        .collect();
    match host {
        Some(host) => fuse(&names, query, index, host, limit),
        None => index,
    }
}

/// Reciprocal-rank fusion of the index's and the host's rankings (k = 60), ties in the index's
/// order; names outside `catalog` are dropped. A `select:` query keeps the index's answer.
#[cfg(feature = "lexical-index")]
fn fuse(
    catalog: &[String],
    query: &str,
    index: Vec<String>,
    host: &[String],
    limit: usize,
) -> Vec<String> {
    if query.trim().starts_with("select:") {
        return index;
    }
    let host: Vec<&String> = host.iter().filter(|n| catalog.contains(n)).collect();
    // (score, name) in tie order: the index's names first, so ties keep its order.
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

/// The host's ranking, cut to the names of `catalog` (each once) and to `limit`.
#[cfg(not(feature = "lexical-index"))]
fn as_given(catalog: &[&ToolSpec], host: &[String], limit: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in host {
        if out.len() == limit {
            break;
        }
        if !out.contains(name) && catalog.iter().any(|spec| spec.name == *name) {
            out.push(name.clone());
        }
    }
    out
}
