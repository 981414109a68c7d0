//! Opening a session: `server/discover` for the modern era, `initialize` for the legacy one,
//! and the fallback between them that the 2026-07-28 versioning page prescribes.
//!
//! With [`ProtocolChoice::Auto`] the session probes with `server/discover` (carrying the modern
//! `_meta`). A result listing 2026-07-28 makes the session modern and ready at once. An
//! unsupported-version error (`-32022`) listing 2026-07-28 is retried once; any other error, a
//! result without 2026-07-28, or no answer within [`SessionConfig::discover_timeout`] means a
//! legacy server, and `initialize` follows. A legacy server that answers the probe with an
//! error (`-32601`, or an HTTP 4xx the transport turns into an error) costs one round trip,
//! never a timeout. With [`ProtocolChoice::Modern`] the same outcomes close the session with
//! the reason instead.
//!
//! [`SessionConfig::discover_timeout`]: super::SessionConfig::discover_timeout

use super::era::{Era, ProtocolChoice, MODERN_PROTOCOL_VERSION};
use super::meta::{supported_versions, Envelope, UNSUPPORTED_PROTOCOL_VERSION};
use super::session::{ClientSession, Purpose, State};
use crate::jsonrpc::ErrorObject;
use crate::rpc::Deadlines;
use crate::time::{whole_millis, Instant};
use serde_json::{json, Map, Value};

impl ClientSession {
    /// Sends the first request: `initialize`, or the `server/discover` probe.
    pub(super) fn open(&mut self, now: Instant) {
        match self.config.protocol {
            ProtocolChoice::Legacy => self.send_initialize(now),
            _ => {
                let info =
                    json!({"name": self.config.client_name, "version": self.config.client_version});
                let capabilities = self.capabilities(Era::Modern);
                self.envelope = Some(Envelope::new(MODERN_PROTOCOL_VERSION, capabilities, info));
                self.send_discover(now, false);
            }
        }
    }

    fn send_discover(&mut self, now: Instant, retried: bool) {
        self.state = State::Discovering { retried };
        // The probe and the `initialize` after it share the start-up time.
        let timeout = match self.config.protocol {
            ProtocolChoice::Auto => self.config.discover_timeout,
            _ => self.config.initialize_timeout,
        };
        let deadlines = Deadlines::starting_at(now, timeout.min(self.startup_left(now)), None);
        self.send_request(now, "server/discover", None, deadlines, Purpose::Discover);
    }

    pub(super) fn send_initialize(&mut self, now: Instant) {
        self.envelope = None;
        self.state = State::Initializing;
        let params = self.initialize_params();
        // After a probe, what is left of the start-up time.
        let deadlines = Deadlines::starting_at(now, self.startup_left(now), None);
        self.send_request(
            now,
            "initialize",
            Some(params),
            deadlines,
            Purpose::Initialize,
        );
    }

    /// What is left of the start-up time (the probe and `initialize` share it). Time paused
    /// for the user (an OAuth consent), finished or still running, is not the server's.
    fn startup_left(&self, now: Instant) -> std::time::Duration {
        let pausing = self.paused_since.map(|since| now.saturating_since(since));
        let paused = self.paused_total + pausing.unwrap_or_default();
        let spent = now.saturating_since(self.opened_at).saturating_sub(paused);
        self.config.initialize_timeout.saturating_sub(spent)
    }

    /// The capabilities this client declares, in the shape of `era`.
    pub(super) fn capabilities(&self, era: Era) -> Value {
        let mut capabilities = Map::new();
        if self.config.roots || !self.config.fixed_roots.is_empty() {
            // `notifications/roots/list_changed` is gone in the modern era.
            let roots = match era {
                Era::Legacy => json!({"listChanged": false}),
                Era::Modern => json!({}),
            };
            capabilities.insert("roots".into(), roots);
        }
        if self.config.sampling {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.config.elicitation {
            capabilities.insert("elicitation".into(), json!({"form": {}}));
        }
        // The extensions this build has, asked for in the config (none in the legacy era).
        #[cfg(any(feature = "mcp-tasks", feature = "mcp-skills"))]
        {
            let mut extensions = Map::new();
            #[cfg(feature = "mcp-tasks")]
            if self.config.tasks && era == Era::Modern {
                extensions.insert(super::tasks::TASKS_EXTENSION.into(), json!({}));
            }
            #[cfg(feature = "mcp-skills")]
            if self.config.skills && era == Era::Modern {
                extensions.insert(super::skills::SKILLS_EXTENSION.into(), json!({}));
            }
            if !extensions.is_empty() {
                capabilities.insert("extensions".into(), Value::Object(extensions));
            }
        }
        Value::Object(capabilities)
    }

    /// The server answered the probe.
    pub(super) fn discover_answered(&mut self, now: Instant, result: Value) {
        if !lists_modern(&result) {
            let listed = result.get("supportedVersions").unwrap_or(&Value::Null);
            let reason = format!(
                "server/discover lists no {MODERN_PROTOCOL_VERSION} (supportedVersions: {})",
                crate::framing::excerpt(crate::json::to_text(listed).as_bytes())
            );
            return self.not_modern(now, reason);
        }
        let details =
            super::incoming::server_details(&result, MODERN_PROTOCOL_VERSION, Era::Modern);
        self.become_ready(details);
        self.start_listening();
    }

    /// The server answered the probe with an error.
    pub(super) fn discover_failed(&mut self, now: Instant, error: ErrorObject) {
        let retried = matches!(self.state, State::Discovering { retried: true });
        if error.code == UNSUPPORTED_PROTOCOL_VERSION {
            let supported = supported_versions(error.data.as_ref());
            if supported.contains(&MODERN_PROTOCOL_VERSION) && !retried {
                // A mutual version exists: ask again with it (once; a server that keeps
                // refusing the version it lists is not believed twice).
                return self.send_discover(now, true);
            }
            let reason = format!(
                "the server does not accept {MODERN_PROTOCOL_VERSION} (supported: {})",
                supported.join(", ")
            );
            return self.not_modern(now, reason);
        }
        self.not_modern(now, format!("server/discover failed: {error}"));
    }

    /// The probe went unanswered for `discover_timeout`. Its answer may still come (a server
    /// slow to start reads both requests at once): a modern one then wins over `initialize`.
    pub(super) fn discover_timed_out(
        &mut self,
        now: Instant,
        wire_id: u64,
        waited: std::time::Duration,
    ) {
        self.late_probe = Some(wire_id);
        let reason = format!(
            "server did not answer server/discover within {} ms",
            whole_millis(waited)
        );
        self.not_modern(now, reason);
    }

    /// A response to the probe that timed out, while `initialize` is out: a modern answer
    /// makes the session modern (the `initialize` in flight is forgotten); `false` when
    /// `wire_id` is not the probe or the answer is not modern.
    pub(super) fn late_probe_answered(
        &mut self,
        now: Instant,
        wire_id: u64,
        outcome: &Result<Value, ErrorObject>,
    ) -> bool {
        if self.late_probe != Some(wire_id) || self.state != State::Initializing {
            return false;
        }
        self.late_probe = None;
        let Ok(result) = outcome else { return false };
        if !lists_modern(result) {
            return false;
        }
        for (_, pending) in self.pending.drain() {
            debug_assert!(matches!(pending.data, Purpose::Initialize));
        }
        let info = json!({"name": self.config.client_name, "version": self.config.client_version});
        let capabilities = self.capabilities(Era::Modern);
        self.envelope = Some(Envelope::new(MODERN_PROTOCOL_VERSION, capabilities, info));
        self.discover_answered(now, result.clone());
        true
    }

    /// The server is not (or not only) modern: legacy it is under `auto`, an error otherwise.
    fn not_modern(&mut self, now: Instant, reason: String) {
        match self.config.protocol {
            ProtocolChoice::Auto => self.send_initialize(now),
            _ => self.shut_down(format!(
                "the server does not speak MCP {MODERN_PROTOCOL_VERSION}, which this server's \
                 \"protocol\" requires: {reason}"
            )),
        }
    }
}

/// Whether a `server/discover` result's `supportedVersions` lists 2026-07-28.
fn lists_modern(result: &Value) -> bool {
    result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|v| v == MODERN_PROTOCOL_VERSION))
}
