//! Hook matchers as Claude Code documents them: empty or `*` matches everything; a matcher of
//! letters, digits, `_` and `|` is an exact name or a list of exact names; anything else is a
//! regular expression tested anywhere in the value (`Notebook.*`, `mcp__memory__.*`).

use super::regex::Regex;

/// A parsed matcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matcher {
    text: String,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Any,
    Names(Vec<String>),
    Regex(Regex),
}

impl Matcher {
    /// Parses `text`; an invalid regular expression is an error naming the matcher.
    pub fn parse(text: &str) -> Result<Matcher, String> {
        let kind = if text.is_empty() || text == "*" {
            Kind::Any
        } else if text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || c == '-')
        {
            Kind::Names(text.split('|').map(str::to_owned).collect())
        } else {
            Kind::Regex(Regex::new(text).map_err(|e| format!("invalid matcher {text:?}: {e}"))?)
        };
        Ok(Matcher {
            text: text.to_owned(),
            kind,
        })
    }

    /// The matcher as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `value` (a tool name, a session source, …) matches. Case-sensitive.
    pub fn matches(&self, value: &str) -> bool {
        match &self.kind {
            Kind::Any => true,
            Kind::Names(names) => names.iter().any(|n| n == value),
            Kind::Regex(regex) => regex.is_match(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Matcher;

    #[test]
    fn exact_lists_and_regexes() {
        let m = |text: &str, value: &str| Matcher::parse(text).unwrap().matches(value);
        assert!(m("", "bash") && m("*", "bash"));
        assert!(m("bash", "bash"));
        assert!(!m("bash", "Bash"), "case-sensitive");
        assert!(!m("bash", "bash2"), "a plain name is exact, not a prefix");
        assert!(m("write_file|bash", "bash"));
        assert!(!m("write_file|bash", "read_file"));
        assert!(m("mcp__github__.*", "mcp__github__create_issue"));
        assert!(!m("mcp__github__.*", "mcp__gitlab__x"));
        assert!(m("^(read|write)_file$", "write_file"));
        assert!(m("startup", "startup") && !m("startup", "resume"));
    }

    #[test]
    fn an_invalid_regex_names_the_matcher() {
        let error = Matcher::parse("mcp__(x").unwrap_err();
        assert!(error.contains("mcp__(x"), "{error}");
    }
}
