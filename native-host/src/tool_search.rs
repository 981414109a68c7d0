//! Deferred tool loading as the CLI is told: `--tool-search`, `--tool-search-threshold`,
//! `--context-window` and `AGENTWIRE_TOOL_SEARCH`.

/// Whether MCP tool definitions are deferred behind `tool_search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    /// Defer when the MCP definitions cost more than the threshold.
    Auto,
    /// Defer every deferrable MCP tool.
    On,
    /// Send every definition up front.
    Off,
}

/// The tool-search settings the command line and environment ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolSearchSetting {
    /// The mode, when one was given (otherwise the core's default, `auto`).
    pub mode: Option<SearchMode>,
    /// `auto`'s threshold in estimated tokens, when one was given.
    pub threshold_tokens: Option<u64>,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u64>,
}

const ENV: &str = "AGENTWIRE_TOOL_SEARCH";

/// Reads `auto`, `on` or `off` (case-insensitive); the error names the accepted values.
pub fn parse_mode(text: &str) -> Result<SearchMode, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "auto" => Ok(SearchMode::Auto),
        "on" => Ok(SearchMode::On),
        "off" => Ok(SearchMode::Off),
        _ => Err(format!(
            "{text:?} is not a tool-search mode: use auto, on or off"
        )),
    }
}

/// `auto`, `on`, `off` or `auto:N` (N tokens), as `AGENTWIRE_TOOL_SEARCH` takes it.
fn parse_env(text: &str) -> Result<(SearchMode, Option<u64>), String> {
    let bad = |why: String| format!("{ENV}={text:?}: {why}");
    match text.trim().split_once(':') {
        Some((mode, tokens)) => {
            if parse_mode(mode).map_err(bad)? != SearchMode::Auto {
                return Err(bad("only auto takes a threshold (auto:TOKENS)".into()));
            }
            let tokens = tokens.trim().parse::<u64>().map_err(|_| {
                bad(format!(
                    "{tokens:?} is not a number of tokens (auto:TOKENS)"
                ))
            })?;
            Ok((SearchMode::Auto, Some(tokens)))
        }
        None => Ok((parse_mode(text).map_err(bad)?, None)),
    }
}

impl ToolSearchSetting {
    /// Flags first, then the environment variable (read through `env`); a threshold without a
    /// mode means `auto`, and a threshold with `on` or `off` is refused rather than ignored.
    pub fn resolve(
        flag_mode: Option<SearchMode>,
        flag_threshold: Option<u64>,
        context_window: Option<u64>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ToolSearchSetting, String> {
        let from_env = match env(ENV).filter(|v| !v.trim().is_empty()) {
            Some(value) => Some(parse_env(&value)?),
            None => None,
        };
        let (mode, threshold_tokens) = match (flag_mode, flag_threshold) {
            (Some(mode), threshold) => (Some(mode), threshold),
            (None, Some(threshold)) => (Some(SearchMode::Auto), Some(threshold)),
            (None, None) => match from_env {
                Some((mode, threshold)) => (Some(mode), threshold),
                None => (None, None),
            },
        };
        if threshold_tokens.is_some() && matches!(mode, Some(SearchMode::On | SearchMode::Off)) {
            return Err("--tool-search-threshold only applies to --tool-search auto".to_owned());
        }
        if context_window == Some(0) {
            return Err("--context-window must be a positive number of tokens".to_owned());
        }
        Ok(ToolSearchSetting {
            mode,
            threshold_tokens,
            context_window,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(
        mode: Option<&str>,
        threshold: Option<u64>,
        env: Option<&str>,
    ) -> Result<ToolSearchSetting, String> {
        let mode = mode.map(|m| parse_mode(m).unwrap());
        let env = env.map(str::to_owned);
        ToolSearchSetting::resolve(mode, threshold, None, move |name| {
            assert_eq!(name, ENV);
            env.clone()
        })
    }

    fn setting(mode: Option<SearchMode>, threshold: Option<u64>) -> ToolSearchSetting {
        ToolSearchSetting {
            mode,
            threshold_tokens: threshold,
            context_window: None,
        }
    }

    #[test]
    fn flags_win_over_the_environment() {
        use SearchMode::*;
        assert_eq!(resolve(None, None, None), Ok(setting(None, None)));
        assert_eq!(resolve(None, None, Some("")), Ok(setting(None, None)));
        assert_eq!(resolve(None, None, Some("ON")), Ok(setting(Some(On), None)));
        assert_eq!(
            resolve(None, None, Some("auto:1200")),
            Ok(setting(Some(Auto), Some(1200)))
        );
        assert_eq!(
            resolve(Some("off"), None, Some("on")),
            Ok(setting(Some(Off), None))
        );
        assert_eq!(
            resolve(None, Some(800), Some("off")),
            Ok(setting(Some(Auto), Some(800)))
        );
        assert_eq!(
            resolve(Some("auto"), Some(800), None),
            Ok(setting(Some(Auto), Some(800)))
        );
    }

    #[test]
    fn bad_values_name_the_culprit() {
        assert!(parse_mode("maybe").unwrap_err().contains("auto, on or off"));
        let err = resolve(None, None, Some("sometimes")).unwrap_err();
        assert!(err.contains("AGENTWIRE_TOOL_SEARCH=\"sometimes\""), "{err}");
        let err = resolve(None, None, Some("on:500")).unwrap_err();
        assert!(err.contains("only auto takes a threshold"), "{err}");
        let err = resolve(None, None, Some("auto:lots")).unwrap_err();
        assert!(err.contains("\"lots\" is not a number"), "{err}");
        let err = resolve(Some("on"), Some(10), None).unwrap_err();
        assert!(err.contains("--tool-search-threshold"), "{err}");
        let err = ToolSearchSetting::resolve(None, None, Some(0), |_| None).unwrap_err();
        assert!(err.contains("--context-window"), "{err}");
    }
}
