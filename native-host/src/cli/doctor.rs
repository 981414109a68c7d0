//! `agentwire doctor`: what this machine can enforce, so a missing feature is found before it
//! matters (today: the `bash` sandbox's kernel features).

use crate::app::sandbox_setup;
use crate::config::settings::Settings;
use crate::os::sandbox::Capabilities;
use serde_json::json;

/// Prints the capability report (JSON with `json`); returns the exit status (0: it ran).
pub fn run(settings: &Settings, json: bool) -> i32 {
    let caps = Capabilities::probe();
    println!("{}", report(settings, &caps, json));
    0
}

/// The report's text for `caps`.
pub fn report(settings: &Settings, caps: &Capabilities, json: bool) -> String {
    // With the user config file, as a run would read it; a bad file is named, not fatal here.
    let (sandbox, line) = match sandbox_setup::run_sandbox(settings, caps) {
        Ok(run) => (run.settings, run.lines.join("\n")),
        Err(error) => {
            let (sandbox, line) =
                sandbox_setup::sandbox_settings(settings, &Default::default(), caps);
            (
                sandbox,
                format!("{line}\n  the user config file is not used: {error}"),
            )
        }
    };
    if json {
        return json!({
            "sandbox": {
                "mode": sandbox.mode.as_str(),
                "network": sandbox.network,
                "allow": sandbox.allow.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "landlock_abi": caps.landlock_abi,
                "seccomp": caps.seccomp,
                "mount_namespace": caps.mount_namespace,
                "gaps": caps.gaps(),
                "deny_read": sandbox.deny_read,
            }
        })
        .to_string();
    }
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = vec![
        line,
        format!(
            "  Landlock ABI: {} (files: {}, TCP rules: {})",
            caps.landlock_abi,
            yes(caps.files()),
            yes(caps.tcp())
        ),
        format!("  seccomp: {}", yes(caps.seccomp)),
        format!(
            "  mount namespace (read-only .git/hooks, .mcp.json, .claude, .agentwire): {}",
            yes(caps.mount_namespace)
        ),
        "  unreadable inside the sandbox:".to_owned(),
    ];
    out.extend(
        sandbox
            .deny_read
            .iter()
            .map(|p| format!("    {}", p.display())),
    );
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::Cli;
    use clap::Parser;

    fn settings(args: &[&str]) -> Settings {
        let mut all = vec!["agentwire"];
        all.extend_from_slice(args);
        Cli::try_parse_from(all)
            .expect("the options parse")
            .common
            .settings()
    }

    #[test]
    fn the_report_names_each_feature_and_the_deny_list() {
        let caps = Capabilities {
            landlock_abi: 7,
            seccomp: true,
            mount_namespace: false,
        };
        let text = report(
            &settings(&[
                "--sandbox",
                "workspace-write",
                "--sandbox-deny",
                "/extra/secret",
            ]),
            &caps,
            false,
        );
        assert!(
            text.starts_with("sandbox: workspace-write (network off); not enforced here"),
            "{text}"
        );
        assert!(
            text.contains("Landlock ABI: 7 (files: yes, TCP rules: yes)"),
            "{text}"
        );
        assert!(text.contains("seccomp: yes"), "{text}");
        assert!(text.contains(".agentwire): no"), "{text}");
        assert!(text.contains("    /extra/secret"), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&report(&settings(&["--sandbox", "read-only"]), &caps, true))
                .unwrap();
        assert_eq!(json["sandbox"]["mode"], "read-only");
        assert_eq!(json["sandbox"]["landlock_abi"], 7);
        assert_eq!(json["sandbox"]["mount_namespace"], false);
        assert_eq!(json["sandbox"]["gaps"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn without_landlock_the_default_is_off_and_said() {
        let caps = Capabilities {
            landlock_abi: 0,
            seccomp: false,
            mount_namespace: false,
        };
        let text = report(&settings(&[]), &caps, false);
        assert!(text.starts_with("sandbox: off"), "{text}");
        assert!(text.contains("files: no, TCP rules: no"), "{text}");
    }
}
