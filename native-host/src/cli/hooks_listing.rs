//! `agentwire hooks list [--json]`: every hook found, its source, and whether it will run.

use crate::extensions::hooks::SessionHooks;
use crate::os::term_safe::visible;
use agentwire::hooks::{HookHandler, HookSpec};
use serde_json::{json, Value};

/// One hook as JSON: `event`, `matcher`, `type`, `command`/`url`, `timeoutSecs`, `source`,
/// `runs`, and `why` when it does not run.
pub fn hook_json(spec: &HookSpec) -> Value {
    let mut v = json!({
        "event": spec.event.as_str(),
        "matcher": spec.matcher.as_str(),
        "timeoutSecs": spec.timeout.as_secs_f64(),
        "source": spec.source.label,
        "runs": spec.source.blocked.is_none(),
    });
    match &spec.handler {
        HookHandler::Command { command } => {
            v["type"] = "command".into();
            v["command"] = command.as_str().into();
        }
        HookHandler::Http { url, .. } => {
            v["type"] = "http".into();
            v["url"] = url.as_str().into();
        }
        _ => v["type"] = "host".into(),
    }
    if let Some(why) = &spec.source.blocked {
        v["why"] = why.as_str().into();
    }
    v
}

/// Prints the list (a JSON document with `--json`), then the warnings on stderr.
pub fn print(hooks: &SessionHooks, as_json: bool) {
    let specs = hooks.set.specs();
    if as_json {
        let list: Vec<Value> = specs.iter().map(hook_json).collect();
        crate::outln!("{}", json!({"hooks": list, "warnings": hooks.warnings}));
        return;
    }
    if specs.is_empty() {
        crate::outln!(
            "no hooks found (~/.claude/settings.json, .claude/settings*.json, plugins, --settings)"
        );
    }
    for spec in specs {
        let matcher = match spec.matcher.as_str() {
            "" => String::new(),
            m => format!(" [{m}]"),
        };
        let state = match &spec.source.blocked {
            None => "runs".to_owned(),
            Some(why) => format!("does not run: {why}"),
        };
        crate::outln!(
            "{}{matcher}: {} ({}; {state})",
            spec.event.as_str(),
            visible(spec.name()),
            visible(&spec.source.label)
        );
    }
    for warning in &hooks.warnings {
        crate::errln!("warning: {}", visible(warning));
    }
}
