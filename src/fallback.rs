//! Which GitHub MCP server to use: the real one, or the mock with a visible notice.
//!
//! The policy is host-independent: the host reports what it can do (is there a token, can it
//! spawn processes, is `npx` on the path) and gets back either the command for the real
//! `@modelcontextprotocol/server-github` or the decision to use the built-in
//! [`MockGithubServer`](crate::mock_github::MockGithubServer), with a notice for the user that
//! says which path was taken and why. The token never appears in a notice or in `Debug` output.

use std::fmt;

/// The npm package of the real GitHub MCP server.
pub const GITHUB_SERVER_PACKAGE: &str = "@modelcontextprotocol/server-github";

/// The environment variable the real server reads its token from.
pub const SERVER_TOKEN_ENV: &str = "GITHUB_PERSONAL_ACCESS_TOKEN";

/// Where hosts look for a token, in order of preference.
pub const TOKEN_ENV_VARS: [&str; 2] = ["GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOKEN"];

const MOCK: &str = "Using the built-in mock GitHub server (canned data)";
const MAX_REASON_CHARS: usize = 300;

/// What the host knows about its environment.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct FallbackInputs {
    /// The GitHub token, if the host found one (see [`token_from_env`]).
    pub token: Option<String>,
    /// Whether the host can start child processes at all.
    pub can_spawn: bool,
    /// Whether `npx` was found.
    pub npx_available: bool,
}

impl fmt::Debug for FallbackInputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FallbackInputs")
            .field("token", &self.token.as_ref().map(|_| Redacted))
            .field("can_spawn", &self.can_spawn)
            .field("npx_available", &self.npx_available)
            .finish()
    }
}

/// Prints as `<redacted>` in place of a secret.
struct Redacted;

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The decision: start the real server with this command, or use the mock.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GithubServerChoice {
    /// Spawn the real server; `env` carries the token and must be added to the child's env.
    Real {
        /// The program, `npx`.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables for the child, including the token.
        env: Vec<(String, String)>,
    },
    /// Use the built-in mock and show `notice` to the user.
    Mock {
        /// Which path was taken and why, for the user.
        notice: String,
    },
}

impl GithubServerChoice {
    /// Whether this is the mock.
    pub fn is_mock(&self) -> bool {
        matches!(self, GithubServerChoice::Mock { .. })
    }

    /// A one-line, token-free description of the choice, for logs and the user interface.
    pub fn notice(&self) -> String {
        match self {
            GithubServerChoice::Real { command, args, .. } => format!(
                "Using the real GitHub MCP server ({command} {}).",
                args.join(" ")
            ),
            GithubServerChoice::Mock { notice } => notice.clone(),
        }
    }
}

impl fmt::Debug for GithubServerChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GithubServerChoice::Real { command, args, env } => {
                let env: Vec<(&str, Redacted)> =
                    env.iter().map(|(k, _)| (k.as_str(), Redacted)).collect();
                f.debug_struct("Real")
                    .field("command", command)
                    .field("args", args)
                    .field("env", &env)
                    .finish()
            }
            GithubServerChoice::Mock { notice } => {
                f.debug_struct("Mock").field("notice", notice).finish()
            }
        }
    }
}

/// Finds the token through a host-supplied environment lookup (the core reads no environment):
/// the first of [`TOKEN_ENV_VARS`] that is set and not blank, trimmed.
pub fn token_from_env(lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    TOKEN_ENV_VARS.iter().find_map(|name| {
        lookup(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    })
}

/// Decides between the real server and the mock.
///
/// Child processes being unavailable trumps everything else (a token is useless in a browser);
/// otherwise every missing prerequisite is named, so the user can fix them all at once.
pub fn choose_github_server(inputs: &FallbackInputs) -> GithubServerChoice {
    if !inputs.can_spawn {
        return mock(&["child processes are unavailable here".to_owned()]);
    }
    let token = inputs.token.as_deref().map(str::trim);
    let mut missing = Vec::new();
    match token {
        None => missing.push(format!(
            "no {} or {} is set",
            TOKEN_ENV_VARS[0], TOKEN_ENV_VARS[1]
        )),
        Some("") => missing.push("the GitHub token is set but empty".to_owned()),
        Some(_) => {}
    }
    if !inputs.npx_available {
        missing.push("npx was not found (install Node.js to use the real server)".to_owned());
    }
    match token {
        Some(token) if missing.is_empty() => GithubServerChoice::Real {
            command: "npx".to_owned(),
            args: vec!["-y".to_owned(), GITHUB_SERVER_PACKAGE.to_owned()],
            env: vec![(SERVER_TOKEN_ENV.to_owned(), token.to_owned())],
        },
        _ => mock(&missing),
    }
}

fn mock(reasons: &[String]) -> GithubServerChoice {
    GithubServerChoice::Mock {
        notice: format!("{MOCK}: {}.", reasons.join(", and ")),
    }
}

/// The fallback once the real server failed to start (spawn error, early exit, failed
/// `initialize`). `reason` is shown to the user: it is flattened to one line, shortened, and
/// anything shaped like a GitHub token is masked, since child stderr may echo one.
pub fn after_real_failure(reason: &str) -> GithubServerChoice {
    let reason = sanitize_reason(reason);
    GithubServerChoice::Mock {
        notice: format!(
            "The real GitHub MCP server failed to start ({reason}); falling back to the \
             built-in mock GitHub server (canned data)."
        ),
    }
}

/// Prefixes of GitHub's token formats (classic, OAuth, user-to-server, server-to-server,
/// refresh, fine-grained).
const TOKEN_PREFIXES: [&str; 6] = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"];

fn sanitize_reason(reason: &str) -> String {
    let words: Vec<String> = reason
        .split_whitespace()
        .map(|word| {
            let lower = word.to_ascii_lowercase();
            match TOKEN_PREFIXES.iter().filter_map(|p| lower.find(p)).min() {
                Some(at) => format!("{}[redacted]", &word[..at]),
                None => word.to_owned(),
            }
        })
        .collect();
    let flat = words.join(" ");
    if flat.is_empty() {
        return "no reason given".to_owned();
    }
    match flat.char_indices().nth(MAX_REASON_CHARS) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "ghp_S3cretT0kenValue";

    fn inputs(token: Option<&str>, can_spawn: bool, npx_available: bool) -> FallbackInputs {
        FallbackInputs {
            token: token.map(str::to_owned),
            can_spawn,
            npx_available,
        }
    }

    fn notice_of(choice: &GithubServerChoice) -> &str {
        match choice {
            GithubServerChoice::Mock { notice } => notice,
            other => panic!("expected the mock, got {other:?}"),
        }
    }

    #[test]
    fn everything_available_starts_the_real_server_with_the_token() {
        let choice = choose_github_server(&inputs(Some(TOKEN), true, true));
        assert_eq!(
            choice,
            GithubServerChoice::Real {
                command: "npx".into(),
                args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
                env: vec![("GITHUB_PERSONAL_ACCESS_TOKEN".into(), TOKEN.into())],
            }
        );
        assert!(!choice.is_mock());
        assert_eq!(
            choice.notice(),
            "Using the real GitHub MCP server (npx -y @modelcontextprotocol/server-github)."
        );
        // Surrounding whitespace (a token read from a file) is trimmed.
        let padded = choose_github_server(&inputs(Some(" ghp_x\n"), true, true));
        assert!(matches!(padded, GithubServerChoice::Real { ref env, .. } if env[0].1 == "ghp_x"));
    }

    #[test]
    fn each_missing_prerequisite_picks_the_mock_and_says_why() {
        let cases = [
            (
                inputs(None, true, true),
                "Using the built-in mock GitHub server (canned data): no \
                 GITHUB_PERSONAL_ACCESS_TOKEN or GITHUB_TOKEN is set.",
            ),
            (
                inputs(Some("  "), true, true),
                "Using the built-in mock GitHub server (canned data): the GitHub token is set \
                 but empty.",
            ),
            (
                inputs(Some(TOKEN), true, false),
                "Using the built-in mock GitHub server (canned data): npx was not found \
                 (install Node.js to use the real server).",
            ),
            (
                inputs(None, true, false),
                "Using the built-in mock GitHub server (canned data): no \
                 GITHUB_PERSONAL_ACCESS_TOKEN or GITHUB_TOKEN is set, and npx was not found \
                 (install Node.js to use the real server).",
            ),
            (
                inputs(Some(TOKEN), false, true),
                "Using the built-in mock GitHub server (canned data): child processes are \
                 unavailable here.",
            ),
            (
                inputs(None, false, false),
                "Using the built-in mock GitHub server (canned data): child processes are \
                 unavailable here.",
            ),
        ];
        for (input, expected) in cases {
            let choice = choose_github_server(&input);
            assert!(choice.is_mock(), "{input:?}");
            assert_eq!(notice_of(&choice), expected, "{input:?}");
            assert_eq!(choice.notice(), expected);
        }
    }

    #[test]
    fn a_failed_real_server_falls_back_with_its_reason() {
        let choice = after_real_failure("spawn npx ENOENT");
        assert_eq!(
            notice_of(&choice),
            "The real GitHub MCP server failed to start (spawn npx ENOENT); falling back to the \
             built-in mock GitHub server (canned data)."
        );
        let multi = after_real_failure("exited with code 1\n  stderr:\tBad credentials\n");
        assert!(notice_of(&multi)
            .contains("(exited with code 1 stderr: Bad credentials); falling back"));
        assert!(notice_of(&after_real_failure(" \n")).contains("(no reason given)"));
        let long = after_real_failure(&"é".repeat(1000));
        let reason_chars = notice_of(&long).chars().filter(|&c| c == 'é').count();
        assert_eq!(reason_chars, MAX_REASON_CHARS);
        assert!(notice_of(&long).contains("é…)"));
    }

    #[test]
    fn the_token_never_shows_in_notices_or_debug_output() {
        for (can_spawn, npx) in [(true, true), (true, false), (false, true), (false, false)] {
            let input = inputs(Some(TOKEN), can_spawn, npx);
            let choice = choose_github_server(&input);
            for text in [format!("{input:?}"), format!("{choice:?}"), choice.notice()] {
                assert!(!text.contains("S3cret"), "leaked in {text}");
            }
        }
        let real = choose_github_server(&inputs(Some(TOKEN), true, true));
        assert_eq!(
            format!("{real:?}"),
            "Real { command: \"npx\", args: [\"-y\", \"@modelcontextprotocol/server-github\"], \
             env: [(\"GITHUB_PERSONAL_ACCESS_TOKEN\", <redacted>)] }"
        );
        assert_eq!(
            format!("{:?}", inputs(Some(TOKEN), true, true)),
            "FallbackInputs { token: Some(<redacted>), can_spawn: true, npx_available: true }"
        );
        let echoed = after_real_failure(&format!(
            "auth failed for token={TOKEN} and github_pat_11ABghp_"
        ));
        let text = notice_of(&echoed);
        assert!(!text.contains("S3cret") && !text.contains("11AB"), "{text}");
        assert!(text.contains("token=[redacted] and [redacted]"), "{text}");
    }

    #[test]
    fn token_lookup_prefers_the_personal_access_token_and_skips_blanks() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let both = &[
            ("GITHUB_PERSONAL_ACCESS_TOKEN", "pat"),
            ("GITHUB_TOKEN", "gt"),
        ];
        assert_eq!(token_from_env(env(both)), Some("pat".into()));
        let blank_pat = &[
            ("GITHUB_PERSONAL_ACCESS_TOKEN", " "),
            ("GITHUB_TOKEN", "gt\n"),
        ];
        assert_eq!(token_from_env(env(blank_pat)), Some("gt".into()));
        assert_eq!(token_from_env(env(&[("OTHER", "x")])), None);
    }
}
