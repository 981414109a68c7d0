//! `agentwire instructions [--json]` and the REPL's `/memory`: which instruction files load,
//! from where, in which order, and their size (printed through `outln!`, which shows terminal
//! escapes in file names and texts as visible `\\uXXXX`).

use crate::config::settings::Settings;
use crate::extensions::instructions::SessionInstructions;
use agentwire::instructions::Instructions;
use serde_json::json;

/// `agentwire instructions`: resolves as a session would and lists it; no server starts.
pub fn run(settings: &Settings, as_json: bool) -> i32 {
    let loaded = crate::app::instructions::load(settings);
    let skipped = crate::app::instructions::skipped_by(settings);
    if as_json {
        crate::outln!("{}", record(loaded.as_ref(), skipped));
    } else {
        crate::outln!("{}", listing(loaded.as_ref(), skipped));
    }
    0
}

/// The JSON record: `{"skipped": null | "--bare", "root", "trusted", "budget", "bytes",
/// "truncatedBytes", "files", "warnings", "text"}`.
pub fn record(loaded: Option<&SessionInstructions>, skipped: Option<&str>) -> serde_json::Value {
    let Some(loaded) = loaded else {
        return json!({"skipped": skipped, "files": [], "warnings": [], "bytes": 0});
    };
    let sources = loaded.lookup.sources();
    let mut value = loaded.found.to_json();
    value["skipped"] = serde_json::Value::Null;
    value["root"] = sources.root.into();
    value["trusted"] = sources.trusted.into();
    value["budget"] = sources.budget_bytes.into();
    value["text"] = loaded.found.text.clone().into();
    value
}

/// The human listing, one file a line, then the warnings.
pub fn listing(loaded: Option<&SessionInstructions>, skipped: Option<&str>) -> String {
    let Some(loaded) = loaded else {
        return format!(
            "instructions: skipped ({})",
            skipped.unwrap_or("--bare or --no-instructions")
        );
    };
    let sources = loaded.lookup.sources();
    describe(
        &loaded.found,
        &sources.root,
        sources.trusted,
        sources.budget_bytes,
    )
}

fn describe(found: &Instructions, root: &str, trusted: bool, budget: usize) -> String {
    let trust = if trusted { "trusted" } else { "untrusted" };
    let mut out = format!(
        "instructions: {} bytes in the system prompt (budget {budget}); project {} ({trust})",
        found.text.len(),
        root
    );
    if found.files.is_empty() {
        out.push_str("\n  no instruction files found");
    }
    for file in &found.files {
        let how = match (&file.imported_by, file.paths.is_empty()) {
            (_, false) => format!(
                "rule for {}, joins when a matching file is used",
                file.paths.join(", ")
            ),
            (Some(by), _) => format!("imported by {by}"),
            (None, _) => file.origin.as_str().to_owned(),
        };
        let cut = if file.truncated {
            ", cut by the budget"
        } else {
            ""
        };
        out.push_str(&format!(
            "\n  {}  {} bytes  ({how}{cut})",
            file.shown, file.bytes
        ));
    }
    if found.truncated_bytes > 0 {
        out.push_str(&format!(
            "\n  {} bytes over the budget were cut",
            found.truncated_bytes
        ));
    }
    for warning in &found.warnings {
        out.push_str(&format!("\nwarning: {}", warning));
    }
    out
}
