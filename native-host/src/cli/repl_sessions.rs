//! The REPL's `/context`, `/compact [focus]` and `/resume [N|ID]`.

use crate::app::sessions::info_json;
use crate::app::App;
use crate::cli::repl_commands::Action;
use agentwire::context::ContextReport;

/// Carries out one of the three.
pub async fn run(app: &App, action: Action, args: &str) {
    match action {
        Action::Context => {
            let report = app.runtime.with_agent(|agent| agent.context_report());
            crate::outln!("{}", context_lines(&report));
        }
        Action::Compact => {
            let focus = Some(args).filter(|a| !a.is_empty());
            match app.runtime.compact(focus, &app.terminal).await {
                Ok(()) => {
                    let report = app.runtime.with_agent(|agent| agent.context_report());
                    crate::outln!(
                        "compacted: the conversation now takes {} tokens",
                        report.total
                    );
                }
                Err(e) => crate::errln!("cannot compact: {e}"),
            }
        }
        Action::Resume => resume(app, args).await,
        _ => {}
    }
}

/// `/context`: each part in tokens, and what is left.
pub fn context_lines(report: &ContextReport) -> String {
    let mut lines = vec![
        format!("system prompt  {:>8}", report.system),
        format!("tools          {:>8}", report.tools),
        format!("skills catalog {:>8}", report.skills),
        format!("conversation   {:>8}", report.history),
        format!("total          {:>8}", report.total),
    ];
    match (report.window, report.free()) {
        (Some(window), Some(free)) => {
            lines.push(format!(
                "free           {free:>8} of a {window}-token window"
            ));
            match report.compact_at {
                Some(at) => lines.push(format!("compacts at    {at:>8}")),
                None => lines.push("automatic compaction is off".into()),
            }
        }
        _ => lines
            .push("window unknown (--context-window N sets it; no automatic compaction)".into()),
    }
    lines.push(if report.measured {
        "estimates refined by the model's reported usage".into()
    } else {
        "estimates from the request's size (no usage reported yet)".into()
    });
    lines.join("\n")
}

/// `/resume`: lists the sessions, or continues one and fires `SessionStart` `resume` (as
/// `--continue` and `--resume` do), whose hooks' context joins the next prompt.
async fn resume(app: &App, args: &str) {
    let Some(store) = app.sessions.borrow().clone() else {
        crate::errln!("sessions are not kept (--no-session-persistence, or no state directory)");
        return;
    };
    let sessions = match store.list() {
        Ok(sessions) => sessions,
        Err(e) => {
            crate::errln!("error: {e}");
            return;
        }
    };
    if args.is_empty() {
        if sessions.is_empty() {
            crate::outln!("no sessions in this workspace");
        }
        for (n, info) in sessions.iter().enumerate().take(20) {
            let v = info_json(&store, info);
            crate::outln!(
                "{:>3}. {}  {}",
                n + 1,
                info.id,
                v["title"].as_str().or(v["error"].as_str()).unwrap_or("")
            );
        }
        crate::outln!("/resume N (or ID) continues one");
        return;
    }
    let id = match args.parse::<usize>() {
        Ok(n) if n >= 1 && n <= sessions.len() => sessions[n - 1].id.clone(),
        _ => args.to_owned(),
    };
    match crate::app::session_attach::switch(app, &id) {
        Ok(n) => {
            crate::outln!("continuing session {id} ({n} messages)");
            app.session_start("resume").await;
        }
        Err(e) => crate::errln!("cannot resume: {e}"),
    }
}
