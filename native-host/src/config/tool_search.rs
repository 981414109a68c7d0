//! Deferred tool loading as the CLI is told: `--tool-search`, `--tool-search-threshold`,
//! `--context-window` and `AGENTWIRE_TOOL_SEARCH`.

use agentwire::tool_search::{ToolSearchConfig, ToolSearchMode, DEFAULT_THRESHOLD_TOKENS};

/// `--tool-search`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    /// Defer when the MCP definitions cost more than the threshold.
    Auto,
    /// Defer every deferrable MCP tool.
    On,
    /// Send every definition up front.
    Off,
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

/// A token count from the command line, as the core keeps it.
fn tokens(value: u64, flag: &str) -> Result<u32, String> {
    u32::try_from(value).map_err(|_| format!("{flag} {value} is more tokens than supported"))
}

/// The deferred-loading settings for these flags and environment: flags first, then
/// `AGENTWIRE_TOOL_SEARCH` (`auto|on|off|auto:TOKENS`, read through `env`), then the core's
/// default (`auto` at 3,000 tokens). A threshold without a mode means `auto`; a threshold with
/// `on` or `off` is refused rather than ignored.
pub fn resolve(
    flag_mode: Option<SearchMode>,
    flag_threshold: Option<u64>,
    context_window: Option<u64>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<ToolSearchConfig, String> {
    let threshold = flag_threshold
        .map(|t| tokens(t, "--tool-search-threshold"))
        .transpose()?;
    let mode = match (flag_mode, threshold) {
        (Some(SearchMode::On | SearchMode::Off), Some(_)) => {
            return Err("--tool-search-threshold only applies to --tool-search auto".to_owned())
        }
        (Some(SearchMode::On), None) => ToolSearchMode::On,
        (Some(SearchMode::Off), None) => ToolSearchMode::Off,
        (Some(SearchMode::Auto) | None, Some(threshold_tokens)) => {
            ToolSearchMode::Auto { threshold_tokens }
        }
        (Some(SearchMode::Auto), None) => ToolSearchMode::Auto {
            threshold_tokens: DEFAULT_THRESHOLD_TOKENS,
        },
        (None, None) => match env(ENV).filter(|v| !v.trim().is_empty()) {
            Some(value) => ToolSearchMode::parse(&value).map_err(|e| format!("{ENV}: {e}"))?,
            None => ToolSearchMode::default(),
        },
    };
    let context_window = match context_window {
        Some(0) => return Err("--context-window must be a positive number of tokens".to_owned()),
        Some(window) => Some(tokens(window, "--context-window")?),
        None => None,
    };
    Ok(ToolSearchConfig {
        mode,
        context_window,
        ..ToolSearchConfig::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(
        flag: Option<&str>,
        threshold: Option<u64>,
        env: Option<&str>,
    ) -> Result<ToolSearchMode, String> {
        let flag = flag.map(|m| parse_mode(m).unwrap());
        let env = env.map(str::to_owned);
        resolve(flag, threshold, None, move |name| {
            assert_eq!(name, ENV);
            env.clone()
        })
        .map(|config| config.mode)
    }

    const fn auto(threshold_tokens: u32) -> ToolSearchMode {
        ToolSearchMode::Auto { threshold_tokens }
    }

    #[test]
    fn flags_win_over_the_environment_which_wins_over_the_default() {
        use ToolSearchMode::{Off, On};
        assert_eq!(mode(None, None, None), Ok(auto(3000)));
        assert_eq!(mode(None, None, Some(" ")), Ok(auto(3000)));
        assert_eq!(mode(None, None, Some("ON")), Ok(On));
        assert_eq!(mode(None, None, Some("auto:1200")), Ok(auto(1200)));
        assert_eq!(mode(Some("off"), None, Some("on")), Ok(Off));
        assert_eq!(mode(Some("auto"), None, Some("on")), Ok(auto(3000)));
        assert_eq!(mode(None, Some(800), Some("off")), Ok(auto(800)));
        assert_eq!(mode(Some("auto"), Some(0), None), Ok(auto(0)));
        let config = resolve(None, None, Some(32_000), |_| None).unwrap();
        assert_eq!(config.context_window, Some(32_000));
        assert_eq!(
            config.threshold(),
            Some(3_000),
            "10% of the window is 3,200"
        );
    }

    #[test]
    fn bad_values_name_the_culprit() {
        assert!(parse_mode("maybe").unwrap_err().contains("auto, on or off"));
        let err = mode(None, None, Some("sometimes")).unwrap_err();
        assert!(err.starts_with("AGENTWIRE_TOOL_SEARCH: "), "{err}");
        assert!(err.contains("sometimes"), "{err}");
        let err = mode(Some("on"), Some(10), None).unwrap_err();
        assert!(err.contains("--tool-search-threshold"), "{err}");
        let err = mode(None, Some(u64::MAX), None).unwrap_err();
        assert!(err.contains("--tool-search-threshold"), "{err}");
        let err = resolve(None, None, Some(0), |_| None).unwrap_err();
        assert!(err.contains("--context-window"), "{err}");
    }
}
