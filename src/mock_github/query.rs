//! GitHub search syntax, the part the mock understands: free terms (all must match,
//! case-insensitively), `"quoted phrases"`, and `key:value` qualifiers such as `repo:vercel/ai`,
//! `is:open` or `label:"good first issue"`. Qualifiers a search does not know are ignored, as
//! the mock cannot honour them anyway.

/// A parsed search query; everything is lower-cased.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Query {
    /// Free-text terms and phrases.
    pub terms: Vec<String>,
    /// `key:value` qualifiers, in order.
    pub qualifiers: Vec<(String, String)>,
}

impl Query {
    /// Parses a query string.
    pub fn parse(q: &str) -> Query {
        let mut query = Query::default();
        for token in tokenize(q) {
            let is_qualifier = !token.quoted_key
                && token
                    .text
                    .split_once(':')
                    .is_some_and(|(k, v)| !k.is_empty() && !v.is_empty() && is_key(k));
            if is_qualifier {
                if let Some((k, v)) = token.text.split_once(':') {
                    query.qualifiers.push((k.to_owned(), v.to_owned()));
                }
            } else if !matches!(token.text.as_str(), "and" | "") || token.quoted_key {
                query.terms.push(token.text);
            }
        }
        query
    }

    /// Whether there is nothing to search for.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.qualifiers.is_empty()
    }

    /// The values of every qualifier named `key`.
    pub fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.qualifiers
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether every free term occurs in `haystack`, which must already be lower-case.
    pub fn text_matches(&self, haystack: &str) -> bool {
        self.terms.iter().all(|t| haystack.contains(t.as_str()))
    }
}

fn is_key(k: &str) -> bool {
    k.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

struct Token {
    text: String,
    /// The token began with a quote, so a colon inside it is text, not a qualifier.
    quoted_key: bool,
}

/// Splits on whitespace, keeping quoted stretches (`"a b"`, `label:"a b"`) together.
fn tokenize(q: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut starts_quoted = false;
    for c in q.chars() {
        match c {
            '"' => {
                if current.is_empty() && !in_quotes {
                    starts_quoted = true;
                }
                in_quotes = !in_quotes;
            }
            c if c.is_whitespace() && !in_quotes => {
                if !current.is_empty() {
                    tokens.push(Token {
                        text: std::mem::take(&mut current),
                        quoted_key: starts_quoted,
                    });
                }
                starts_quoted = false;
            }
            c => current.extend(c.to_lowercase()),
        }
    }
    if !current.is_empty() {
        tokens.push(Token {
            text: current,
            quoted_key: starts_quoted,
        });
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(terms: &[&str], quals: &[(&str, &str)]) -> Query {
        Query {
            terms: terms.iter().map(|s| s.to_string()).collect(),
            qualifiers: quals
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn parses_terms_phrases_and_qualifiers() {
        assert_eq!(Query::parse("MCP  client"), q(&["mcp", "client"], &[]));
        assert_eq!(
            Query::parse("repo:vercel/ai is:open Pagination"),
            q(&["pagination"], &[("repo", "vercel/ai"), ("is", "open")])
        );
        assert_eq!(
            Query::parse("label:\"Good First Issue\" \"model context\""),
            q(&["model context"], &[("label", "good first issue")])
        );
        assert_eq!(Query::parse("\"a:b\" c: :d"), q(&["a:b", "c:", ":d"], &[]));
        assert_eq!(Query::parse("mcp AND sdk"), q(&["mcp", "sdk"], &[]));
        assert!(Query::parse("   ").is_empty());
    }

    #[test]
    fn matching_needs_every_term() {
        let query = Query::parse("mcp sdk");
        assert!(query.text_matches("the mcp rust sdk"));
        assert!(!query.text_matches("the mcp servers"));
        assert_eq!(
            Query::parse("is:pr is:open")
                .values("is")
                .collect::<Vec<_>>(),
            ["pr", "open"]
        );
    }
}
