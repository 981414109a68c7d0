//! One conversation's view of the tools: partitioned once, then frozen.
//!
//! A session that defers something is *bridged*: its `tools` (direct tools, `tool_search`,
//! `call_tool`) are built at its first model request and never change afterwards, whatever is
//! searched, loaded, connected or re-listed; catalog changes reach the model as a notice appended
//! to the conversation instead. Search and calls always use the live registry. A session that
//! defers nothing keeps sending the live registry's definitions, as before deferred loading.

use super::bridge::{self, CALL_TOOL, TOOL_SEARCH};
use super::config::{Reveal, ToolSearchConfig};
use super::partition::{definition_text, estimate_tokens, partition, Loading, ToolLoading};
use super::rank;
use crate::model::{ToolCall, ToolDefinition};
use crate::registry::{Registry, ToolSpec};
use crate::vec_map::{VecMap, VecSet};

/// What the loop does with one tool call of a bridged session.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// An ordinary call of the subject: the gate decides as for any tool.
    Gate,
    /// Answered by the runtime without running anything.
    Answer {
        /// Text for the model.
        content: String,
        /// Whether it is an error result.
        is_error: bool,
        /// Tools whose definitions this answer gives the model (loaded once it is in history).
        loads: Vec<String>,
    },
    /// A `tool_search` to run.
    Search {
        /// The query.
        query: String,
        /// Most results.
        limit: usize,
    },
}

/// What a search returned.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// Text for the model: the found definitions, or the fixed no-match text.
    pub content: String,
    /// Names found, best first (empty = no match).
    pub results: Vec<String>,
}

#[derive(Clone, Debug)]
struct Bridge {
    /// `tools` as sent on every request: direct tools, `tool_search`, `call_tool`.
    tools: Vec<ToolDefinition>,
    direct: VecSet<String>,
    /// Tools whose definitions are in the history.
    loaded: VecSet<String>,
    /// Definitions appended to `tools` as they load (`reveal: append` only).
    appended: Vec<ToolDefinition>,
    /// Tool names the model has been told about (at the start, then by notices).
    known: VecSet<String>,
    /// Each definition encoded once: name → (definition, its bytes in `tools`).
    encoded: VecMap<String, (ToolDefinition, String)>,
}

/// The tools of one conversation (see the module docs).
#[derive(Clone, Debug)]
pub struct ToolSession {
    reveal: Reveal,
    limit: u8,
    bridge: Option<Bridge>,
}

impl ToolSession {
    /// Partitions `registry` under `config` and freezes `tools` if anything is deferred.
    pub fn start(registry: &Registry, config: &ToolSearchConfig) -> Self {
        let loading = partition(registry, config);
        // One pass (indexes, no `zip` instance): partition keeps the registry's order.
        let mut deferred: Vec<&ToolSpec> = Vec::new();
        let mut direct = VecSet::new();
        let mut tools = Vec::new();
        for (at, spec) in registry.tools().iter().enumerate() {
            if loading[at].loading == Loading::Deferred {
                deferred.push(spec);
            } else {
                direct.insert(spec.name.clone());
                tools.push(spec.definition());
            }
        }
        let bridge = (!deferred.is_empty()).then(|| {
            let index = bridge::render_index(deferred.iter().copied());
            tools.push(bridge::tool_search_definition(&index, config.limit));
            tools.push(bridge::call_tool_definition());
            let mut known = VecSet::new();
            for spec in registry.tools() {
                known.insert(spec.name.clone());
            }
            Bridge {
                tools,
                direct,
                loaded: VecSet::new(),
                appended: Vec::new(),
                known,
                encoded: VecMap::new(),
            }
        });
        ToolSession {
            reveal: config.reveal,
            limit: config.limit,
            bridge,
        }
    }

    /// Whether tools are deferred (`tools` is frozen and the bridge is on).
    pub fn is_bridged(&self) -> bool {
        self.bridge.is_some()
    }

    /// The `tools` of the next request.
    pub fn request_tools(&self, registry: &Registry) -> Vec<ToolDefinition> {
        match &self.bridge {
            None => registry.definitions(),
            Some(b) => {
                // Plain loops: no `chain`/`collect` instances in the wasm build.
                let mut tools = Vec::with_capacity(b.tools.len() + b.appended.len());
                for definition in &b.tools {
                    tools.push(definition.clone());
                }
                for definition in &b.appended {
                    tools.push(definition.clone());
                }
                tools
            }
        }
    }

    /// The loading of every live tool: direct when sent in `tools`, deferred otherwise.
    pub fn loading(&self, registry: &Registry) -> Vec<ToolLoading> {
        let mut out = Vec::with_capacity(registry.tools().len());
        for spec in registry.tools() {
            out.push(ToolLoading {
                name: spec.name.clone(),
                loading: if self.is_deferred(&spec.name) {
                    Loading::Deferred
                } else {
                    Loading::Direct
                },
                estimated_tokens: estimate_tokens(&spec.definition()),
            });
        }
        out
    }

    /// Whether `name` is reachable only through the bridge (bridged and not sent directly).
    fn is_deferred(&self, name: &str) -> bool {
        self.bridge
            .as_ref()
            .is_some_and(|b| !b.direct.contains(name))
    }

    /// The live tools a search looks at: every registry tool not sent directly.
    pub fn catalog<'a>(&self, registry: &'a Registry) -> Vec<&'a ToolSpec> {
        let mut catalog = Vec::new();
        for spec in registry.tools() {
            if self.is_deferred(&spec.name) {
                catalog.push(spec);
            }
        }
        catalog
    }

    /// What the gate, events, audit and repetition check see for `call`: the target of a
    /// resolvable `call_tool` with its inner arguments; the call itself otherwise.
    pub fn subject(&self, call: &ToolCall, registry: &Registry) -> ToolCall {
        if self.bridge.is_none() || call.name != CALL_TOOL {
            return call.clone();
        }
        match bridge::call_arguments(&call.arguments)
            .and_then(|(name, inner)| Ok((bridge::resolve_name(registry, &name)?, inner)))
        {
            Ok((spec, arguments)) => ToolCall {
                id: call.id.clone(),
                name: spec.name.clone(),
                arguments,
            },
            Err(_) => call.clone(),
        }
    }

    /// What to do with `call` (whose [`subject`](Self::subject) is `subject`).
    pub fn step(&mut self, call: &ToolCall, subject: &ToolCall, registry: &Registry) -> Step {
        if self.bridge.is_none() {
            return Step::Gate;
        }
        let error = |content: String| Step::Answer {
            content,
            is_error: true,
            loads: Vec::new(),
        };
        if call.name == TOOL_SEARCH {
            return match bridge::search_arguments(&call.arguments, self.limit) {
                Ok((query, limit)) => Step::Search { query, limit },
                Err(e) => error(e),
            };
        }
        if call.name == CALL_TOOL {
            if let Err(e) = bridge::call_arguments(&call.arguments)
                .and_then(|(name, _)| bridge::resolve_name(registry, &name).map(|_| ()))
            {
                return error(e);
            }
        }
        let Some(spec) = registry.get(&subject.name) else {
            return Step::Gate;
        };
        if self.is_deferred(&spec.name) && !self.is_loaded(&spec.name) {
            let definition = self.encoded(spec);
            return Step::Answer {
                content: bridge::not_loaded_text(&spec.name, &definition),
                is_error: true,
                loads: vec![spec.name.clone()],
            };
        }
        Step::Gate
    }

    /// Whether `name`'s definition is in the history.
    pub fn is_loaded(&self, name: &str) -> bool {
        self.bridge
            .as_ref()
            .is_some_and(|b| b.loaded.contains(name))
    }

    /// Searches the live catalog: the index's ranking, fused with `host`'s when given (without
    /// the feature `lexical-index`: `host`'s ranking, see the `rank` module). Found
    /// definitions come back as the bytes they would have in `tools`.
    pub fn search(
        &mut self,
        registry: &Registry,
        query: &str,
        limit: usize,
        host: Option<&[String]>,
    ) -> SearchOutcome {
        let catalog = self.catalog(registry);
        let results = rank::ranking(&catalog, query, limit, host);
        if results.is_empty() {
            // Sorted as they are collected (a plain loop, no sort instance).
            let mut servers: Vec<&str> = Vec::new();
            for spec in &catalog {
                let server = spec.server().unwrap_or("host");
                let mut at = 0;
                while at < servers.len() && servers[at] < server {
                    at += 1;
                }
                if at == servers.len() || servers[at] != server {
                    servers.insert(at, server);
                }
            }
            return SearchOutcome {
                content: bridge::no_match_text(query, &servers),
                results,
            };
        }
        let mut texts = Vec::new();
        for name in &results {
            if let Some(spec) = registry.get(name) {
                texts.push(self.encoded(spec));
            }
        }
        SearchOutcome {
            content: bridge::found_text(&texts, self.reveal == Reveal::Append),
            results,
        }
    }

    /// `spec`'s definition as it would be in `tools`, encoded once per session: the same
    /// definition (after a re-listing) keeps its bytes.
    fn encoded(&mut self, spec: &ToolSpec) -> String {
        let definition = spec.definition();
        let Some(bridge) = self.bridge.as_mut() else {
            return definition_text(&definition);
        };
        if let Some((cached, text)) = bridge.encoded.get(&spec.name) {
            if *cached == definition {
                return text.clone();
            }
        }
        let text = definition_text(&definition);
        bridge
            .encoded
            .insert(spec.name.clone(), (definition, text.clone()));
        text
    }

    /// Marks `names` loaded: their definitions are now in the history. With `reveal: append`
    /// they are also added to `tools` (once each).
    pub fn load(&mut self, names: &[String], registry: &Registry) {
        let append = self.reveal == Reveal::Append;
        let Some(bridge) = self.bridge.as_mut() else {
            return;
        };
        for name in names {
            if bridge.loaded.insert(name.clone()) && append {
                if let Some(spec) = registry.get(name) {
                    bridge.appended.push(spec.definition());
                }
            }
        }
    }

    /// `[catalog: + a, b; − c]` when tools appeared or left since the model was last told
    /// (bridged sessions only); the model is then considered told.
    pub fn catalog_notice(&mut self, registry: &Registry) -> Option<String> {
        let bridge = self.bridge.as_mut()?;
        let mut added: Vec<&str> = Vec::new();
        for spec in registry.tools() {
            if !bridge.known.contains(spec.name.as_str()) {
                added.push(&spec.name);
            }
        }
        let mut removed: Vec<String> = Vec::new();
        for name in bridge.known.iter() {
            if registry.get(name).is_none() {
                removed.push(name.clone());
            }
        }
        if added.is_empty() && removed.is_empty() {
            return None;
        }
        for name in &added {
            bridge.known.insert((*name).to_owned());
        }
        for name in &removed {
            bridge.known.remove(name);
        }
        let mut notice = String::from("[catalog: ");
        if !added.is_empty() {
            notice.push_str("+ ");
            notice.push_str(&added.join(", "));
        }
        if !removed.is_empty() {
            if !added.is_empty() {
                notice.push_str("; ");
            }
            notice.push_str("\u{2212} ");
            notice.push_str(&removed.join(", "));
        }
        notice.push(']');
        Some(notice)
    }
}
