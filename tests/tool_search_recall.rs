//! Recall of the core tool index over the real catalog of four MCP servers (63 tools, captured
//! by `scripts/capture-tools.mjs` into `tests/fixtures/tool_search/`) and the labelled query set
//! `queries.jsonl` (kinds: `vocabulary`, `model`, `exact`, `chinese`, `request`). A query is found at k when one of its expected tools (alternatives that
//! each serve the request) is among the first k hits. Prints the figures per kind
//! (`cargo test -p agentwire --test tool_search_recall -- --nocapture`) and asserts the targets.
//! `TOOL_SEARCH_QUERIES=other.jsonl` also prints the figures of another set in the same format
//! (a held-out set, say), without targets.

use agentwire::registry::names::mcp_tool_name;
use agentwire::tool_search::{rank_tools, ToolDoc, ToolIndex};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tool_search");
const SERVERS: [&str; 4] = ["everything", "filesystem", "github", "memory"];

fn catalog() -> Vec<ToolDoc> {
    let mut docs = Vec::new();
    for server in SERVERS {
        let text = std::fs::read_to_string(format!("{FIXTURES}/{server}.json")).unwrap();
        let listing: Value = serde_json::from_str(&text).unwrap();
        for tool in listing["tools"].as_array().unwrap() {
            let bare = tool["name"].as_str().unwrap();
            docs.push(ToolDoc::from_definition(
                &mcp_tool_name(server, bare),
                server,
                bare,
                tool["description"].as_str().unwrap_or_default(),
                &tool["inputSchema"],
            ));
        }
    }
    docs
}

struct Query {
    query: String,
    expected: Vec<String>,
    kind: String,
}

fn queries(path: &str) -> Vec<Query> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            Query {
                query: v["query"].as_str().unwrap().to_owned(),
                expected: v["expected"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|name| name.as_str().unwrap().to_owned())
                    .collect(),
                kind: v["kind"].as_str().unwrap().to_owned(),
            }
        })
        .collect()
}

/// Recall at 1, 3 and 5 of `queries`, printing each query missed at 5 (or at `strict_k`).
fn recall(index: &ToolIndex, kind: &str, queries: &[Query], strict_k: usize) -> [f64; 3] {
    let mut found = [0usize; 3];
    for q in queries {
        let hits: Vec<String> = index
            .search(&q.query, 5)
            .into_iter()
            .map(|h| h.name)
            .collect();
        let rank = hits.iter().position(|name| q.expected.contains(name));
        for (slot, k) in [1, 3, 5].into_iter().enumerate() {
            if rank.is_some_and(|r| r < k) {
                found[slot] += 1;
            }
        }
        if rank.is_none_or(|r| r >= strict_k) {
            println!("  miss@{strict_k} [{kind}] {:?} → {hits:?}", q.query);
        }
    }
    found.map(|n| n as f64 / queries.len().max(1) as f64)
}

#[test]
fn recall_meets_the_targets_per_kind() {
    let docs = catalog();
    assert_eq!(docs.len(), 63, "26 + 14 + 14 + 9 tools");
    let index = ToolIndex::new(docs.clone());
    let all = queries(&format!("{FIXTURES}/queries.jsonl"));
    assert!(all.len() >= 60, "{} queries", all.len());
    // Every tool by its bare and its full name, on top of the set's own exact-name queries.
    let mut exact: Vec<Query> = docs
        .iter()
        .flat_map(|doc| {
            [&doc.tool, &doc.name].map(|q| Query {
                query: q.clone(),
                expected: vec![doc.name.clone()],
                kind: "exact".to_owned(),
            })
        })
        .collect();
    let by_kind = |kind: &str| -> Vec<Query> {
        all.iter()
            .filter(|q| q.kind == kind)
            .map(|q| Query {
                query: q.query.clone(),
                expected: q.expected.clone(),
                kind: q.kind.clone(),
            })
            .collect()
    };
    exact.extend(by_kind("exact"));
    let sets = [
        ("vocabulary", by_kind("vocabulary"), 3, 0.95),
        ("model", by_kind("model"), 5, 0.85),
        ("exact", exact, 1, 1.00),
        ("chinese", by_kind("chinese"), 5, 0.70),
        // A user's raw words, as a host that searches before calling the model would pass them.
        ("request", by_kind("request"), 5, 0.85),
    ];
    let names: Vec<String> = index.search("", 0).into_iter().map(|h| h.name).collect();
    assert!(names.is_empty());
    let mut failures = Vec::new();
    for (kind, queries, k, target) in &sets {
        for q in queries {
            for name in &q.expected {
                assert!(
                    docs.iter().any(|d| &d.name == name),
                    "unknown tool {name} in {:?}",
                    q.query
                );
            }
        }
        let r = recall(&index, kind, queries, *k);
        println!(
            "{kind:<10} n={:<3} R@1 {:.2}  R@3 {:.2}  R@5 {:.2}  (target R@{k} ≥ {target:.2})",
            queries.len(),
            r[0],
            r[1],
            r[2]
        );
        let at_k = r[[1, 3, 5].iter().position(|x| x == k).unwrap()];
        if at_k < *target {
            failures.push(format!("{kind}: R@{k} {at_k:.2} < {target:.2}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn recall_of_another_query_set_when_given() {
    let Ok(path) = std::env::var("TOOL_SEARCH_QUERIES") else {
        return;
    };
    let index = ToolIndex::new(catalog());
    let all = queries(&path);
    let mut kinds: Vec<&str> = all.iter().map(|q| q.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    for kind in kinds {
        let set: Vec<Query> = all
            .iter()
            .filter(|q| q.kind == kind)
            .map(|q| Query {
                query: q.query.clone(),
                expected: q.expected.clone(),
                kind: q.kind.clone(),
            })
            .collect();
        let r = recall(&index, kind, &set, 5);
        println!(
            "{path}: {kind:<10} n={:<3} R@1 {:.2}  R@3 {:.2}  R@5 {:.2}",
            set.len(),
            r[0],
            r[1],
            r[2]
        );
    }
}

/// The rankings the npm package must reproduce, in `rankings.json` beside the query set:
/// pkg-tests/test/tool-search-parity.test.mjs ranks the same queries over the same catalog
/// through the package (its search module, and an agent's `tool_search`) and compares. For
/// every query of the set and every tool's bare and full name: the index's top 5 with scores,
/// and the fusion (`rank_tools`) with a fixed host ranking (the catalog backwards).
/// `AW_UPDATE_RANKINGS=1` rewrites the file after a deliberate change to the index.
#[test]
fn the_committed_rankings_are_what_the_index_gives() {
    const LIMIT: usize = 5;
    let docs = catalog();
    let index = ToolIndex::new(docs.clone());
    let host: Vec<String> = docs.iter().rev().map(|d| d.name.clone()).collect();
    let mut texts: Vec<String> = queries(&format!("{FIXTURES}/queries.jsonl"))
        .into_iter()
        .map(|q| q.query)
        .collect();
    for doc in &docs {
        texts.push(doc.tool.clone());
        texts.push(doc.name.clone());
    }
    texts.push("select:nope,also_nope".to_owned());
    let cases: Vec<Value> = texts
        .iter()
        .map(|query| {
            let hits: Vec<Value> = index
                .search(query, LIMIT)
                .into_iter()
                .map(|h| serde_json::json!({"name": h.name, "score": h.score}))
                .collect();
            let fused = rank_tools(docs.clone(), query, LIMIT, Some(&host));
            serde_json::json!({"query": query, "hits": hits, "fused": fused})
        })
        .collect();
    let catalog: Vec<Value> = docs
        .iter()
        .map(|d| serde_json::json!({"name": d.name, "server": d.server, "tool": d.tool}))
        .collect();
    let mut text = format!(
        "{{\n\"limit\": {LIMIT},\n\"host\": \"the catalog's names, last first\",\n\"catalog\": {},\n\"cases\": [\n",
        serde_json::to_string(&catalog).unwrap()
    );
    for (i, case) in cases.iter().enumerate() {
        let sep = if i + 1 == cases.len() { "" } else { "," };
        text.push_str(&format!("{}{sep}\n", serde_json::to_string(case).unwrap()));
    }
    text.push_str("]\n}\n");
    let path = format!("{FIXTURES}/rankings.json");
    if std::env::var_os("AW_UPDATE_RANKINGS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{path} is not what the index gives now; after a deliberate change to the index, \
         rewrite it with AW_UPDATE_RANKINGS=1 cargo test -p agentwire --test tool_search_recall"
    );
}
