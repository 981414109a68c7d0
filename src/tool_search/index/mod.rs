//! A lexical index over tool definitions: exact names pinned first, then BM25F with a concept
//! lexicon. Sans-IO and deterministic: the same tools and query give the same hits, in the same
//! order, with the same scores, natively and in wasm.
//!
//! Ranking of [`ToolIndex::search`]:
//! 1. `select:a,b` returns exactly the named tools (full or bare names, unknown names ignored),
//!    in the order listed; if none of them exists the names are searched as words instead.
//! 2. Otherwise tools named in the query (a token equal to a full name, or to a bare name that
//!    has a separator or camelCase hump, or is the whole query) come first, in query order.
//! 3. Then every other tool with a BM25F score above zero, over name words, server name,
//!    description, parameter names and parameter descriptions (the `bm25` module), the query expanded by
//!    the `lexicon`; ties keep catalog order.
//!
//! Nothing matching gives no hits: the caller says so plainly rather than offering arbitrary tools.
//!
//! The scoring (BM25F, lexicon, tokenizer: [`ToolIndex`], [`SearchHit`]) is the feature
//! `lexical-index`, on by default; the npm runtime module leaves it out and loads it as a wasm
//! module of its own on the first search (see `crate::tool_search`). The pinning of step 1-2
//! is always built in.

#[cfg(feature = "lexical-index")]
mod bm25;
#[cfg(feature = "lexical-index")]
mod lexicon;
#[cfg(feature = "lexical-index")]
mod pin;
#[cfg(feature = "lexical-index")]
mod tokenize;

#[cfg(feature = "lexical-index")]
use bm25::{Postings, FIELDS};
#[cfg(feature = "lexical-index")]
use lexicon::Lexicon;
#[cfg(feature = "lexical-index")]
pub(crate) use pin::pins;
use serde_json::Value;

/// One searchable tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDoc {
    /// Model-facing full name, e.g. `mcp__github__list_issues`.
    pub name: String,
    /// Name of the server that provides it.
    pub server: String,
    /// The server's original tool name, e.g. `list_issues`.
    pub tool: String,
    /// The tool's description.
    pub description: String,
    /// (parameter name, parameter description) of every property of the input schema.
    pub params: Vec<(String, String)>,
}

/// How deep into nested object/array schemas parameters are read.
const MAX_SCHEMA_DEPTH: usize = 4;

impl ToolDoc {
    /// A document from an MCP tool definition, reading the input schema's property names and
    /// descriptions (nested objects and array items included).
    pub fn from_definition(
        name: &str,
        server: &str,
        tool: &str,
        description: &str,
        input_schema: &Value,
    ) -> ToolDoc {
        let mut params = Vec::new();
        collect_params(input_schema, 0, &mut params);
        ToolDoc {
            name: name.to_owned(),
            server: server.to_owned(),
            tool: tool.to_owned(),
            description: description.to_owned(),
            params,
        }
    }
}

/// Appends the properties of `schema` (and of nested objects and array items) to `out`.
fn collect_params(schema: &Value, depth: usize, out: &mut Vec<(String, String)>) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            // Enumerated values are vocabulary too (`"event": ["APPROVE", "COMMENT"]`).
            let mut text = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let values = property.get("enum").and_then(Value::as_array);
            for value in values.into_iter().flatten().filter_map(Value::as_str) {
                text.push(' ');
                text.push_str(value);
            }
            out.push((name.clone(), text));
            collect_params(property, depth + 1, out);
        }
    }
    if let Some(items) = schema.get("items") {
        collect_params(items, depth + 1, out);
    }
}

/// One result of a search: a tool's full name and how well it matched (higher is better).
#[cfg(feature = "lexical-index")]
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    /// The tool's model-facing full name.
    pub name: String,
    /// Relevance; pinned names score above every scored match.
    pub score: f64,
}

/// A searchable catalog of tools; build it once per catalog, search it many times.
#[cfg(feature = "lexical-index")]
pub struct ToolIndex {
    names: Vec<String>,
    bare: Vec<String>,
    postings: Postings,
    lexicon: Lexicon,
}

#[cfg(feature = "lexical-index")]
impl ToolIndex {
    /// Indexes `docs`; their order is the catalog order that breaks ties.
    pub fn new(docs: Vec<ToolDoc>) -> ToolIndex {
        let mut fields: Vec<[Vec<String>; FIELDS]> = Vec::with_capacity(docs.len());
        let mut names = Vec::with_capacity(docs.len());
        let mut bare = Vec::with_capacity(docs.len());
        for doc in docs {
            let mut param_names = Vec::new();
            let mut param_texts = Vec::new();
            for (name, text) in &doc.params {
                param_names.extend(tokenize::terms(name));
                param_texts.extend(tokenize::terms(text));
            }
            fields.push([
                tokenize::terms(&doc.tool),
                tokenize::terms(&doc.server),
                tokenize::terms(&doc.description),
                param_names,
                param_texts,
            ]);
            names.push(doc.name);
            bare.push(doc.tool);
        }
        ToolIndex {
            names,
            bare,
            postings: Postings::new(fields),
            lexicon: Lexicon::new(),
        }
    }

    /// Best matches, at most `limit`, best first (see the module docs for the ranking); empty
    /// when nothing matches.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let pins = pins(&self.names, &self.bare, query);
        let pinned = pins.positions;
        if pins.whole {
            return self.hits(&pinned, &[], 0.0, limit);
        }
        let text = pins.text;
        let (query, distinct) = self.lexicon.expand(&tokenize::terms(&text));
        let scores = self.postings.scores(&query, distinct);
        let mut candidates: Vec<usize> = Vec::new();
        for (i, &score) in scores.iter().enumerate() {
            if score > 0.0 && !pinned.contains(&i) {
                candidates.push(i);
            }
        }
        // The best `limit` by repeated selection (no sort: limits are small, and it keeps the
        // wasm module small); the first of equal scores wins, so ties keep catalog order.
        let mut scored: Vec<(usize, f64)> = Vec::new();
        while scored.len() + pinned.len() < limit && !candidates.is_empty() {
            let mut best = 0;
            for (at, &i) in candidates.iter().enumerate() {
                if scores[i] > scores[candidates[best]] {
                    best = at;
                }
            }
            let i = candidates.remove(best);
            scored.push((i, scores[i]));
        }
        let top = scored.first().map_or(0.0, |&(_, score)| score);
        self.hits(&pinned, &scored, top, limit)
    }

    /// Pinned tools (scored above `top`, in order) followed by the scored ones, cut to `limit`.
    fn hits(
        &self,
        pinned: &[usize],
        scored: &[(usize, f64)],
        top: f64,
        limit: usize,
    ) -> Vec<SearchHit> {
        let mut hits = Vec::new();
        for (rank, &i) in pinned.iter().enumerate() {
            hits.push((i, top + (pinned.len() - rank) as f64));
        }
        hits.extend_from_slice(scored);
        hits.truncate(limit);
        let mut out = Vec::with_capacity(hits.len());
        for (i, score) in hits {
            out.push(SearchHit {
                name: self.names[i].clone(),
                score,
            });
        }
        out
    }

    /// Number of tools indexed.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the index holds no tools.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(all(test, feature = "lexical-index"))]
mod tests;
