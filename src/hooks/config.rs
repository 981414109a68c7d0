//! Hook configuration in Claude Code's settings format, and the set of a session's hooks.
//!
//! `{"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command":
//! "…", "timeout": 30}]}]}}`, from settings files and plugins' `hooks/hooks.json` alike. Sources
//! add up (none replaces another, as in Claude Code); a handler configured twice for one event
//! (same command in the same plugin root, same URL) runs once.

use super::event::HookEvent;
use super::matcher::Matcher;
use serde_json::Value;
use std::time::Duration;

/// Default time a hook may take (Claude Code's 60 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Longest timeout a hook may ask for (10 minutes), so a typo cannot stall a session for days.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// What runs when a hook fires.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookHandler {
    /// `type: "command"`: a shell command, the input JSON on stdin.
    Command {
        /// The command line, run by `sh -c`.
        command: String,
    },
    /// `type: "http"`: POST the input JSON to `url`.
    Http {
        /// Where to POST.
        url: String,
        /// Extra request headers, as configured.
        headers: Vec<(String, String)>,
    },
    /// A function the embedding host registered (the npm package's `hooks` option), by id.
    Host {
        /// The host's id for the function.
        id: String,
    },
}

/// Where a hook was configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookSource {
    /// What the user is shown: a path (`~/.claude/settings.json`) or `plugin <name>`.
    pub label: String,
    /// The plugin's folder, for `${CLAUDE_PLUGIN_ROOT}`.
    pub plugin_root: Option<String>,
    /// Why the hook will not run (an untrusted workspace), or `None` when it runs.
    pub blocked: Option<String>,
}

/// One configured hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookSpec {
    /// The event it fires on.
    pub event: HookEvent,
    /// Which values of the event's matcher field it fires for.
    pub matcher: Matcher,
    /// What runs.
    pub handler: HookHandler,
    /// How long it may take.
    pub timeout: Duration,
    /// Where it was configured.
    pub source: HookSource,
}

impl HookSpec {
    /// A short name for messages and audit: the command, URL or host id.
    pub fn name(&self) -> &str {
        match &self.handler {
            HookHandler::Command { command } => command,
            HookHandler::Http { url, .. } => url,
            HookHandler::Host { id } => id,
        }
    }

    /// Whether two specs run the same thing (then it runs once).
    fn same_handler(&self, other: &HookSpec) -> bool {
        self.event == other.event
            && self.handler == other.handler
            && self.source.plugin_root == other.source.plugin_root
    }
}

/// Every hook of a session, in configuration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookSet {
    specs: Vec<HookSpec>,
}

impl HookSet {
    /// No hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the hooks of one settings text (`{"hooks": {…}}`) from `source`. Returns warnings
    /// naming the source for every entry skipped (unknown event or type, no command, invalid
    /// matcher); the rest is added.
    pub fn add_settings(&mut self, settings: &Value, source: &HookSource) -> Vec<String> {
        let mut warnings = Vec::new();
        let label = &source.label;
        let Some(hooks) = settings.get("hooks") else {
            return warnings;
        };
        let Some(events) = hooks.as_object() else {
            warnings.push(format!("{label}: \"hooks\" must be an object of events"));
            return warnings;
        };
        for (name, groups) in events {
            let Some(event) = HookEvent::parse(name) else {
                warnings.push(format!(
                    "{label}: hook event {name:?} is not supported; skipped"
                ));
                continue;
            };
            let Some(groups) = groups.as_array() else {
                warnings.push(format!("{label}: hooks.{name} must be a list; skipped"));
                continue;
            };
            for group in groups {
                let text = group.get("matcher").and_then(Value::as_str).unwrap_or("");
                let matcher = match Matcher::parse(text) {
                    Ok(matcher) => matcher,
                    Err(error) => {
                        warnings.push(format!("{label}: hooks.{name}: {error}; skipped"));
                        continue;
                    }
                };
                let handlers = group.get("hooks").and_then(Value::as_array);
                for handler in handlers.into_iter().flatten() {
                    match parse_handler(handler) {
                        Ok((handler, timeout)) => self.specs.push(HookSpec {
                            event,
                            matcher: matcher.clone(),
                            handler,
                            timeout,
                            source: source.clone(),
                        }),
                        Err(error) => {
                            warnings.push(format!("{label}: hooks.{name}: {error}; skipped"))
                        }
                    }
                }
            }
        }
        warnings
    }

    /// Adds one hook.
    pub fn push(&mut self, spec: HookSpec) {
        self.specs.push(spec);
    }

    /// Every configured hook, runnable or not, in order.
    pub fn specs(&self) -> &[HookSpec] {
        &self.specs
    }

    /// Whether no hook will run.
    pub fn is_empty(&self) -> bool {
        self.specs.iter().all(|s| s.source.blocked.is_some())
    }

    /// The hooks that run for `event` when its matcher field is `value` (ignored by events
    /// without matchers): runnable ones only, each handler once, in configuration order.
    pub fn matching(&self, event: HookEvent, value: &str) -> Vec<HookSpec> {
        let mut found: Vec<HookSpec> = Vec::new();
        for spec in &self.specs {
            let fires = spec.event == event
                && spec.source.blocked.is_none()
                && (event.matcher_field().is_none() || spec.matcher.matches(value));
            if fires && !found.iter().any(|f| f.same_handler(spec)) {
                found.push(spec.clone());
            }
        }
        found
    }

    /// Whether any runnable hook fires for `event` with `value`.
    pub fn fires(&self, event: HookEvent, value: &str) -> bool {
        self.specs.iter().any(|spec| {
            spec.event == event
                && spec.source.blocked.is_none()
                && (event.matcher_field().is_none() || spec.matcher.matches(value))
        })
    }
}

fn parse_handler(handler: &Value) -> Result<(HookHandler, Duration), String> {
    let timeout = match handler.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(value) => match value.as_f64() {
            Some(seconds) if seconds > 0.0 && seconds.is_finite() => {
                Duration::from_secs_f64(seconds.min(MAX_TIMEOUT.as_secs_f64()))
            }
            _ => {
                return Err(format!(
                    "timeout {value} must be a positive number of seconds"
                ))
            }
        },
    };
    let text = |key: &str| {
        handler
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let kind = handler.get("type").and_then(Value::as_str).unwrap_or("");
    let parsed = match kind {
        "command" => HookHandler::Command {
            command: text("command")
                .ok_or("a command hook needs a \"command\"")?
                .to_owned(),
        },
        "http" => {
            let url = text("url").ok_or("an http hook needs a \"url\"")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "http hook url {url:?} must start with http:// or https://"
                ));
            }
            let headers = handler
                .get("headers")
                .and_then(Value::as_object)
                .map(|h| {
                    h.iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                        .collect()
                })
                .unwrap_or_default();
            HookHandler::Http {
                url: url.to_owned(),
                headers,
            }
        }
        other => {
            return Err(format!(
                "hook type {other:?} is not supported (command, http)"
            ))
        }
    };
    Ok((parsed, timeout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn source(label: &str, root: Option<&str>) -> HookSource {
        HookSource {
            label: label.into(),
            plugin_root: root.map(str::to_owned),
            blocked: None,
        }
    }

    #[test]
    fn sources_add_up_and_identical_handlers_run_once() {
        let settings = json!({"hooks": {"PreToolUse": [
            {"matcher": "bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]},
            {"matcher": "bash|write_file", "hooks": [{"type": "command", "command": "guard.sh"}]},
            {"hooks": [{"type": "http", "url": "http://127.0.0.1:9/h", "headers": {"X-A": "1"}}]}
        ]}});
        let mut set = HookSet::new();
        assert!(set
            .add_settings(&settings, &source("user", None))
            .is_empty());
        let project = json!({"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [
            {"type": "command", "command": "guard.sh"}, {"type": "command", "command": "other.sh"}]}]}});
        set.add_settings(&project, &source("project", None));
        let plugin = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "guard.sh"}]}]}});
        set.add_settings(&plugin, &source("plugin p", Some("/p")));
        let names: Vec<String> = set
            .matching(HookEvent::PreToolUse, "bash")
            .iter()
            .map(|s| format!("{}@{}", s.name(), s.source.label))
            .collect();
        assert_eq!(
            names,
            [
                "guard.sh@user",
                "http://127.0.0.1:9/h@user",
                "other.sh@project",
                "guard.sh@plugin p"
            ]
        );
        assert_eq!(
            set.matching(HookEvent::PreToolUse, "bash")[0].timeout,
            Duration::from_secs(5)
        );
        assert_eq!(set.matching(HookEvent::PreToolUse, "read_file").len(), 2);
        assert!(set.matching(HookEvent::PostToolUse, "bash").is_empty());
        assert!(set.fires(HookEvent::PreToolUse, "x") && !set.fires(HookEvent::Stop, ""));
    }

    #[test]
    fn blocked_hooks_are_listed_but_never_match() {
        let mut blocked = source(".claude/settings.json", None);
        blocked.blocked = Some("the workspace is not trusted".into());
        let mut set = HookSet::new();
        set.add_settings(
            &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch x"}]}]}}),
            &blocked,
        );
        assert_eq!(set.specs().len(), 1);
        assert!(set.is_empty());
        assert!(set.matching(HookEvent::Stop, "").is_empty());
        assert!(!set.fires(HookEvent::Stop, ""));
    }

    #[test]
    fn bad_entries_are_skipped_with_a_warning_naming_the_source() {
        let settings = json!({"hooks": {
            "PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
                           {"hooks": [{"type": "prompt", "prompt": "x"}, {"type": "command"},
                                      {"type": "command", "command": "ok", "timeout": -1},
                                      {"type": "http", "url": "file:///etc/passwd"},
                                      {"type": "command", "command": "kept", "timeout": 99999}]}],
            "Bogus": [],
            "Stop": {}
        }});
        let mut set = HookSet::new();
        let warnings = set.add_settings(&settings, &source("s.json", None));
        assert_eq!(warnings.len(), 7, "{warnings:#?}");
        assert!(
            warnings.iter().all(|w| w.starts_with("s.json: ")),
            "{warnings:#?}"
        );
        assert_eq!(set.specs().len(), 1);
        assert_eq!(set.specs()[0].timeout, MAX_TIMEOUT);
        assert!(
            HookSet::new()
                .add_settings(&json!({"hooks": 3}), &source("t", None))
                .len()
                == 1
        );
    }
}
