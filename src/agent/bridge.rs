//! The agent's side of deferred tool loading: the session's frozen `tools`, catalog notices,
//! `tool_search` answers (from the core index or the host's searcher) and tool loading info.

use super::turn::{tools_turn, CallState, PendingCall};
use super::{Agent, Outbox, UiEvent};
use crate::agent::AgentError;
use crate::audit::Outcome;
use crate::model::{ChatMessage, ToolDefinition};
use crate::time::Instant;
use crate::tool_search::{SearchOutcome, ToolLoading, ToolSession};

impl Outbox {
    /// Answers a `tool_search` call with what the search found, and reports it.
    pub(super) fn finish_search(
        &mut self,
        pending: &mut PendingCall,
        now: Instant,
        query: String,
        found: SearchOutcome,
        preview_chars: usize,
    ) {
        self.announce(pending);
        self.events.push_back(UiEvent::ToolSearch {
            query,
            results: found.results.clone(),
        });
        pending.loads = found.results;
        self.answer(
            pending,
            now,
            (found.content, false),
            Outcome::Ok,
            preview_chars,
        );
    }
}

impl Agent {
    /// The `tools` of the next request. The conversation's first request partitions the
    /// registry; later ones reuse the frozen list, and a catalog change since the model was
    /// last told is appended to the newest message (not yet sent, so the history stays
    /// append-only on the wire).
    pub(super) fn session_tools(&mut self) -> Vec<ToolDefinition> {
        let session = self
            .tools
            .get_or_insert_with(|| ToolSession::start(&self.registry, &self.config.tool_search));
        if let Some(notice) = session.catalog_notice(&self.registry) {
            match self.history.last_mut() {
                Some(ChatMessage::User { content }) | Some(ChatMessage::Tool { content, .. }) => {
                    content.push_str("\n\n");
                    content.push_str(&notice);
                    self.out
                        .transcribe(crate::transcript::Entry::CatalogNotice { text: notice });
                }
                _ => {}
            }
        }
        session.request_tools(&self.registry)
    }

    /// Each tool's loading (direct or deferred) and estimated tokens: the conversation's
    /// partition once it has one, else what its first request would do now.
    pub fn tool_loading(&self) -> Vec<ToolLoading> {
        match &self.tools {
            Some(session) => session.loading(&self.registry),
            None => {
                ToolSession::start(&self.registry, &self.config.tool_search).loading(&self.registry)
            }
        }
    }

    /// The conversation's tool session, once its first request was made.
    pub fn tool_session(&self) -> Option<&ToolSession> {
        self.tools.as_ref()
    }

    /// Sends `tool_search` calls to the host's searcher as [`crate::agent::Action::SearchTools`]
    /// (`true`) or answers them with the core index alone (`false`, the default).
    pub fn set_host_search(&mut self, on: bool) {
        self.host_search = on;
    }

    /// Takes the host searcher's ranking for a [`crate::agent::Action::SearchTools`]: names,
    /// best first, fused with the core index's (unknown names are ignored); an error falls back
    /// to the index alone.
    pub fn handle_search_result(
        &mut self,
        now: Instant,
        call_id: &str,
        result: Result<Vec<String>, String>,
    ) -> Result<(), AgentError> {
        let unknown = || AgentError::UnknownCall(call_id.to_owned());
        let preview_chars = self.config.preview_chars;
        let Some(turn) = tools_turn(&mut self.run) else {
            return Err(unknown());
        };
        let pending = turn
            .calls
            .iter_mut()
            .find(|c| {
                c.call.id == call_id
                    && c.searching.is_some()
                    && matches!(c.state, CallState::Running(_))
            })
            .ok_or_else(unknown)?;
        let session = self.tools.as_mut().ok_or_else(unknown)?;
        let Some((query, limit)) = pending.searching.take() else {
            return Err(unknown());
        };
        let host = result.ok();
        let found = session.search(&self.registry, &query, limit, host.as_deref());
        self.out
            .finish_search(pending, now, query, found, preview_chars);
        self.pump(now);
        Ok(())
    }
}
