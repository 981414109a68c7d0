//! `${VAR}` and `${VAR:-default}` expansion, as Claude's `.mcp.json` understands it.
//!
//! Rules (also in the module docs of `config`):
//! - `${NAME}` is replaced by the variable's value; an unset variable is an error.
//! - `${NAME:-default}` is replaced by the value, or by `default` when the variable is unset or
//!   empty (as in POSIX shells). The default may itself contain `${...}` expansions.
//! - `$${` is an escape for a literal `${`. Any other `$` (`$HOME`, `$$`, a trailing `$`) is kept
//!   as written, so shell snippets in `args` pass through untouched.
//! - Names are `[A-Za-z_][A-Za-z0-9_]*`; anything else inside `${...}` is an error.
//! - Defaults nest at most [`MAX_NESTING`] levels deep, so expansion is linear in the input
//!   (each level scans the text once) and its recursion bounded.

use crate::json::quoted;
use std::fmt;

/// How deeply `${...}` may nest (`${A:-${B}}` is two levels): far more than any real config.
pub const MAX_NESTING: usize = 16;

/// Why a string could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExpandError {
    /// `${NAME}` named a variable that is not set and has no default.
    Unset {
        /// The variable's name.
        name: String,
    },
    /// A `${` without its closing `}`.
    Unterminated,
    /// The text inside `${...}` is not a valid variable name.
    BadName {
        /// The offending text.
        name: String,
    },
    /// `${...}` nested deeper than [`MAX_NESTING`] levels.
    TooDeep,
}

impl fmt::Display for ExpandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpandError::Unset { name } => write!(
                f,
                "environment variable {} is not set (write ${{{name}:-default}} to give a default)",
                quoted(name)
            ),
            ExpandError::Unterminated => write!(f, "\"${{\" without a closing \"}}\""),
            ExpandError::TooDeep => {
                write!(f, "\"${{...}}\" nested more than {MAX_NESTING} levels deep")
            }
            ExpandError::BadName { name } => {
                write!(
                    f,
                    "{name} inside \"${{...}}\" is not a valid variable name",
                    name = quoted(name)
                )
            }
        }
    }
}

/// Expands `${VAR}` / `${VAR:-default}` in `input`, reading variables through `lookup`.
pub fn expand_vars(
    input: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    // Fast path: most strings have nothing to expand.
    if !input.contains("${") {
        return Ok(input.to_owned());
    }
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if let Some(after) = tail.strip_prefix("$${") {
            out.push_str("${");
            rest = after;
        } else if let Some(body_and_more) = tail.strip_prefix("${") {
            let end = closing_brace(body_and_more)?;
            out.push_str(&expand_one(&body_and_more[..end], lookup)?);
            rest = &body_and_more[end + 1..];
        } else {
            out.push('$');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Byte index of the `}` that closes a `${` whose body starts at `s`, counting nested `${`.
/// Stops at the first level past [`MAX_NESTING`]: the nested levels would each scan the rest
/// of the text again.
fn closing_brace(s: &str) -> Result<usize, ExpandError> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                // The `${` being closed is the first level.
                if depth >= MAX_NESTING {
                    return Err(ExpandError::TooDeep);
                }
                i += 2;
                continue;
            }
            b'}' if depth == 0 => return Ok(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    Err(ExpandError::Unterminated)
}

fn expand_one(body: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let (name, default) = match body.find(":-") {
        Some(i) => (&body[..i], Some(&body[i + 2..])),
        None => (body, None),
    };
    if !valid_name(name) {
        return Err(ExpandError::BadName {
            name: name.to_owned(),
        });
    }
    match (lookup(name), default) {
        (Some(value), Some(_)) if !value.is_empty() => Ok(value),
        (Some(value), None) => Ok(value),
        (_, Some(default)) => expand_vars(default, lookup),
        (None, None) => Err(ExpandError::Unset {
            name: name.to_owned(),
        }),
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/ada".into()),
            "TOKEN" => Some("s3cret".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn ex(s: &str) -> Result<String, ExpandError> {
        expand_vars(s, &env)
    }

    #[test]
    fn plain_and_defaulted_variables_expand() {
        assert_eq!(ex("${HOME}/bin").unwrap(), "/home/ada/bin");
        assert_eq!(ex("Bearer ${TOKEN}").unwrap(), "Bearer s3cret");
        assert_eq!(ex("${TOKEN}${TOKEN}").unwrap(), "s3crets3cret");
        assert_eq!(ex("${NOPE:-fallback}").unwrap(), "fallback");
        assert_eq!(ex("${NOPE:-}").unwrap(), "");
        assert_eq!(ex("${HOME:-x}").unwrap(), "/home/ada");
        assert_eq!(
            ex("${EMPTY:-used}").unwrap(),
            "used",
            "empty counts as unset"
        );
        assert_eq!(ex("${EMPTY}").unwrap(), "", "set-but-empty without default");
        assert_eq!(ex("${NOPE:-${HOME}/x}").unwrap(), "/home/ada/x", "nested");
        assert_eq!(ex("${NOPE:-a:-b}").unwrap(), "a:-b");
        assert_eq!(ex("中文${TOKEN}é").unwrap(), "中文s3creté");
    }

    #[test]
    fn dollar_forms_that_are_not_expansions_pass_through() {
        assert_eq!(ex("$HOME $$ $ 5$").unwrap(), "$HOME $$ $ 5$");
        assert_eq!(ex("$${HOME}").unwrap(), "${HOME}", "escaped");
        // Left to right: a lone `$`, then the escape `$${`.
        assert_eq!(ex("$$${TOKEN}").unwrap(), "$${TOKEN}");
        // A literal `$` right before an expansion, spelled with a default.
        assert_eq!(ex("${D:-$}${TOKEN}").unwrap(), "$s3cret");
        assert_eq!(ex("no vars").unwrap(), "no vars");
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(
            ex("x${MISSING}y"),
            Err(ExpandError::Unset {
                name: "MISSING".into()
            })
        );
        assert_eq!(ex("${HOME"), Err(ExpandError::Unterminated));
        assert_eq!(ex("${NOPE:-${HOME}"), Err(ExpandError::Unterminated));
        assert_eq!(ex("${}"), Err(ExpandError::BadName { name: "".into() }));
        assert_eq!(ex("${1X}"), Err(ExpandError::BadName { name: "1X".into() }));
        assert_eq!(
            ex("${A B}"),
            Err(ExpandError::BadName { name: "A B".into() })
        );
        let msg = ex("${MISSING}").unwrap_err().to_string();
        assert!(msg.contains("\"MISSING\" is not set"), "{msg}");
    }

    /// `levels` nested defaults around `HOME`: `${A:-${A:-…${HOME}…}}`.
    fn nested(levels: usize) -> String {
        format!(
            "{}${{HOME}}{}",
            "${A:-".repeat(levels - 1),
            "}".repeat(levels - 1)
        )
    }

    #[test]
    fn nesting_is_capped_with_a_named_error() {
        assert_eq!(ex(&nested(MAX_NESTING)).unwrap(), "/home/ada");
        assert_eq!(ex(&nested(MAX_NESTING + 1)), Err(ExpandError::TooDeep));
        // The review's case: 200,000 levels took more than a minute; now the first scan stops.
        assert_eq!(ex(&nested(200_000)), Err(ExpandError::TooDeep));
        let msg = ExpandError::TooDeep.to_string();
        assert!(msg.contains("more than 16 levels"), "{msg}");
        // Side by side is not nested.
        let wide = "${A:-x}".repeat(10_000);
        assert_eq!(ex(&wide).unwrap(), "x".repeat(10_000));
        assert_eq!(
            ex(&format!("${{A:-{}}}", "${B:-y}".repeat(100))).unwrap(),
            "y".repeat(100)
        );
    }
}
