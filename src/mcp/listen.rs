//! `subscriptions/listen` (2026-07-28): one long-lived request whose response stream carries
//! the notifications the client chose, replacing the legacy era's `GET` stream. The session
//! opens it as soon as a modern server is ready, for the `list_changed` kinds the server
//! declared (`tools`, `prompts`, `resources` with `listChanged: true`); the notifications that
//! arrive on it are handled like any other, with the same coalescing and bounds. The request
//! has no timeout (it is meant to stay open) and is not in the pending table: its end is
//! reported as a protocol error and not retried.

use super::events::SessionEvent;
use super::session::ClientSession;
use crate::jsonrpc::{ErrorObject, Id, Message, Request};
use serde_json::{json, Map, Value};

impl ClientSession {
    /// The filter of `subscriptions/listen`: the `list_changed` kinds the server declared.
    fn listen_filter(&self) -> Map<String, Value> {
        let capabilities = self.server.as_ref().map(|s| &s.capabilities);
        let declares = |kind: &str| {
            capabilities
                .and_then(|c| c.get(kind))
                .and_then(|c| c.get("listChanged"))
                == Some(&Value::Bool(true))
        };
        let mut filter = Map::new();
        for (kind, key) in [
            ("tools", "toolsListChanged"),
            ("prompts", "promptsListChanged"),
            ("resources", "resourcesListChanged"),
        ] {
            if declares(kind) {
                filter.insert(key.into(), true.into());
            }
        }
        filter
    }

    /// Opens `subscriptions/listen` when the server declared anything worth listening to.
    pub(super) fn start_listening(&mut self) {
        let filter = self.listen_filter();
        if filter.is_empty() {
            return;
        }
        let Some(envelope) = &self.envelope else {
            return;
        };
        let id = self.peek_next_id();
        self.pending.skip_id();
        let params = envelope.wrap(
            Some(json!({ "notifications": filter })),
            self.log_level.as_deref(),
        );
        let request = Request {
            id: Id::from(id),
            method: "subscriptions/listen".into(),
            params,
        };
        self.transmit
            .push_back(crate::framing::encode_line(&Message::Request(request)));
        self.listen = Some(id);
    }

    /// A response to the open `subscriptions/listen`: it ended. `false` for other ids.
    pub(super) fn listen_ended(
        &mut self,
        wire_id: u64,
        outcome: &Result<Value, ErrorObject>,
    ) -> bool {
        if self.listen != Some(wire_id) {
            return false;
        }
        self.listen = None;
        let message = match outcome {
            Ok(_) => "the server ended subscriptions/listen: list changes are no longer reported"
                .to_owned(),
            Err(error) => format!(
                "the server refused subscriptions/listen: list changes are not reported: {error}"
            ),
        };
        self.push_droppable(SessionEvent::ProtocolError { message });
        true
    }
}
