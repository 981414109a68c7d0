//! Arguments of `/name args` as current Claude Code substitutes them, and shell snippets.
//!
//! `$ARGUMENTS` is the raw argument string; `$ARGUMENTS[N]` and `$N` are the Nth shell-style
//! word, **0-based** (`$0` is the first); declared `$name` arguments are positional; `\` before a
//! placeholder keeps it literal. One pass over the template: inserted values are never scanned
//! again. Inside a shell snippet values are inserted POSIX single-quoted.

/// Splits arguments into shell-style words: `"a b"` and `'a b'` group, an unbalanced quote
/// groups to the end.
pub fn split_args(raw: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote = None;
    for c in raw.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// `value` as one POSIX shell word: `'…'` with `'` written as `'\''`.
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\\''"))
}

/// What a template needs for substitution.
#[derive(Clone, Debug, Default)]
pub struct Substitution<'a> {
    /// The raw argument string.
    pub raw: &'a str,
    /// Declared argument names (`arguments:`), bound to words in order.
    pub names: &'a [String],
    /// `${VAR}` variables the host supplies (`CLAUDE_SKILL_DIR`, `CLAUDE_PLUGIN_ROOT`, …).
    pub vars: &'a [(String, String)],
}

/// Substitutes `template` once. Returns the text and whether any argument placeholder was
/// seen (if none was and arguments were given, the caller appends `ARGUMENTS: …`).
pub fn substitute(template: &str, sub: &Substitution<'_>, quote: bool) -> (String, bool) {
    let words = split_args(sub.raw);
    let put = |out: &mut String, value: &str| {
        if quote {
            out.push_str(&shell_quote(value));
        } else {
            out.push_str(value);
        }
    };
    let mut out = String::with_capacity(template.len());
    let mut used = false;
    let mut rest = template;
    while let Some(at) = rest.find(['$', '\\']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(escaped) = tail.strip_prefix("\\$") {
            if placeholder(escaped, sub, &words).is_some() {
                out.push('$');
                rest = escaped;
                continue;
            }
            out.push('\\');
            rest = &tail[1..];
            continue;
        }
        if let Some(after) = tail.strip_prefix('\\') {
            out.push('\\');
            rest = after;
            continue;
        }
        match placeholder(&tail[1..], sub, &words) {
            Some((len, value, is_arg)) => {
                used |= is_arg;
                match value {
                    Some(v) => put(&mut out, &v),
                    None => out.push_str(&tail[..1 + len]),
                }
                rest = &tail[1 + len..];
            }
            None => {
                out.push('$');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    (out, used)
}

/// The placeholder at the start of `after` (text after `$`): its length, its value (`None`
/// keeps it literal) and whether it is an argument placeholder.
fn placeholder(
    after: &str,
    sub: &Substitution<'_>,
    words: &[String],
) -> Option<(usize, Option<String>, bool)> {
    if let Some(rest) = after.strip_prefix("ARGUMENTS") {
        if let Some(index) = rest.strip_prefix('[') {
            let digits = index.len() - index.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 && index[digits..].starts_with(']') {
                let n: usize = index[..digits].parse().unwrap_or(usize::MAX);
                return Some((9 + 2 + digits, words.get(n).cloned(), true));
            }
        }
        return Some((9, Some(sub.raw.to_owned()), true));
    }
    if let Some(var) = after.strip_prefix('{') {
        let end = var.find('}')?;
        let name = &var[..end];
        let value = sub
            .vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone());
        return Some((end + 2, value, false));
    }
    let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let n: usize = after[..digits].parse().unwrap_or(usize::MAX);
        return Some((digits, words.get(n).cloned(), true));
    }
    let word = after.len()
        - after
            .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '-')
            .len();
    let name = &after[..word];
    let position = sub.names.iter().position(|n| n == name)?;
    Some((
        word,
        Some(words.get(position).cloned().unwrap_or_default()),
        true,
    ))
}

/// The load-time warning for a template that uses `$1`…`$9` but never `$0`.
pub fn positional_lint(template: &str) -> Option<String> {
    let uses = |p: &str| {
        let mut rest = template;
        while let Some(at) = rest.find(p) {
            let after = &rest[at + p.len()..];
            if !after.starts_with(|c: char| c.is_ascii_digit()) {
                return true;
            }
            rest = after;
        }
        false
    };
    let later = (1..10).any(|n| uses(&format!("${n}")));
    (later && !uses("$0") && !template.contains("$ARGUMENTS[0]")).then(|| {
        "uses $1 but never $0: in Claude Code $0 is the first argument and $1 the second".into()
    })
}

/// A shell snippet of a command: `` !`cmd` `` (at a line start or after whitespace) or a
/// ```` ```! ```` fenced block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// Byte range in the template that the output replaces.
    pub start: usize,
    /// End of that range.
    pub end: usize,
    /// The command, placeholders not yet substituted.
    pub command: String,
}

/// Every snippet of `template`, in order.
pub fn find_snippets(template: &str) -> Vec<Snippet> {
    let mut out = Vec::new();
    let bytes = template.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let line_start = at == 0 || bytes[at - 1] == b'\n';
        if line_start && template[at..].starts_with("```!") {
            let body_start = template[at..]
                .find('\n')
                .map_or(bytes.len(), |n| at + n + 1);
            let close = template[body_start..].find("\n```").map(|n| body_start + n);
            let (body_end, end) = match close {
                Some(c) => (c, (c + 4).min(bytes.len())),
                None => (bytes.len(), bytes.len()),
            };
            let command = template[body_start.min(body_end)..body_end]
                .trim()
                .to_owned();
            out.push(Snippet {
                start: at,
                end,
                command,
            });
            at = end;
            continue;
        }
        let after_space = at == 0 || (bytes[at - 1] as char).is_ascii_whitespace();
        if after_space && template[at..].starts_with("!`") {
            if let Some(len) = template[at + 2..].find('`') {
                let command = template[at + 2..at + 2 + len].to_owned();
                if !command.trim().is_empty() && !command.contains('\n') {
                    out.push(Snippet {
                        start: at,
                        end: at + 3 + len,
                        command,
                    });
                    at += 3 + len;
                    continue;
                }
            }
        }
        at += template[at..].chars().next().map_or(1, char::len_utf8);
    }
    out
}
