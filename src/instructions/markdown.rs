//! The Markdown an instructions file is read as: block HTML comments dropped, and the `@path`
//! imports found outside code blocks and code spans.

/// Whether `line` opens or closes a fenced code block (up to three spaces, then ``` or ~~~),
/// and with which fence character.
fn fence(line: &str) -> Option<char> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    ['`', '~']
        .into_iter()
        .find(|&c| rest.chars().take_while(|&x| x == c).count() >= 3)
}

/// `text` without its block HTML comments (a comment that starts a line, outside code blocks,
/// through its `-->`, across lines). Inline comments and comments inside code stay: they are
/// text the author shows.
pub fn strip_block_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence: Option<char> = None;
    let mut in_comment = false;
    for line in text.split_inclusive('\n') {
        if in_comment {
            if let Some(end) = line.find("-->") {
                in_comment = false;
                let rest = &line[end + 3..];
                if !rest.trim().is_empty() {
                    out.push_str(rest);
                }
            }
            continue;
        }
        if let Some(c) = fence(line) {
            in_fence = match in_fence {
                Some(open) if open == c => None,
                Some(open) => Some(open),
                None => Some(c),
            };
            out.push_str(line);
            continue;
        }
        if in_fence.is_none() && line.trim_start().starts_with("<!--") {
            let start = line.find("<!--").unwrap_or(0) + 4;
            match line[start..].find("-->") {
                Some(end) => {
                    let rest = &line[start + end + 3..];
                    if !rest.trim().is_empty() {
                        out.push_str(rest);
                    }
                }
                None => in_comment = true,
            }
            continue;
        }
        out.push_str(line);
    }
    out
}

/// Characters that end a sentence rather than a path, trimmed from the end of an import.
const TRAILING: &[char] = &['.', ',', ';', ':', ')', '!', '?', '"', '\''];

/// The `@path` imports of `text`, in order: an `@` at the start of a line or after whitespace,
/// followed by a path, outside fenced code blocks and `` `code spans` ``.
pub fn imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_fence: Option<char> = None;
    for line in text.lines() {
        if let Some(c) = fence(line) {
            in_fence = match in_fence {
                Some(open) if open == c => None,
                Some(open) => Some(open),
                None => Some(c),
            };
            continue;
        }
        if in_fence.is_some() {
            continue;
        }
        line_imports(line, &mut found);
    }
    found
}

/// The imports of one line outside its code spans.
fn line_imports(line: &str, found: &mut Vec<String>) {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut previous_space = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'`' {
            // A code span: a run of N backticks up to the next run of exactly N.
            let run = bytes[i..].iter().take_while(|&&x| x == b'`').count();
            let after = i + run;
            match find_run(&bytes[after..], run) {
                Some(end) => i = after + end + run,
                // No closing run: the backticks are literal text.
                None => i = after,
            }
            previous_space = false;
            continue;
        }
        if b == b'@' && previous_space {
            let start = i + 1;
            let end = bytes[start..]
                .iter()
                .position(|x| x.is_ascii_whitespace() || *x == b'`')
                .map_or(bytes.len(), |p| start + p);
            let path = line[start..end].trim_end_matches(TRAILING);
            if !path.is_empty() && !path.starts_with('@') {
                found.push(path.to_owned());
            }
            i = end;
            previous_space = false;
            continue;
        }
        previous_space = b.is_ascii_whitespace();
        i += 1;
    }
}

/// Where a run of exactly `run` backticks starts in `bytes`.
fn find_run(bytes: &[u8], run: usize) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let n = bytes[i..].iter().take_while(|&&x| x == b'`').count();
            if n == run {
                return Some(i);
            }
            i += n;
        } else {
            i += 1;
        }
    }
    None
}

/// The `paths:` globs of a rule file's frontmatter and the body after it: `paths: "a, b"`,
/// `paths: [a, b]` or a block list. No frontmatter, or no `paths:`: no globs (the rule always
/// applies). An unclosed frontmatter is an error.
pub fn rule_paths(text: &str) -> Result<(Vec<String>, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((Vec::new(), text));
    };
    let mut offset = text.len() - rest.len();
    let mut globs = Vec::new();
    let mut in_paths = false;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim_end() == "---" {
            return Ok((globs, &text[offset..]));
        }
        if let Some(value) = content.strip_prefix("paths:") {
            in_paths = true;
            globs.extend(split_globs(value));
            continue;
        }
        let trimmed = content.trim_start();
        if in_paths && trimmed.starts_with("- ") {
            globs.extend(split_globs(&trimmed[2..]));
        } else if !content.starts_with([' ', '\t']) {
            in_paths = false;
        }
    }
    Err("the frontmatter opened by `---` on line 1 is never closed by a `---` line".into())
}

/// `"a, b"`, `[a, b]`, `'a'` → the globs.
fn split_globs(value: &str) -> Vec<String> {
    let value = value.trim();
    let value = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    split_outside_braces(value)
        .into_iter()
        .map(|g| g.trim().trim_matches(['"', '\'']).trim().to_owned())
        .filter(|g| !g.is_empty())
        .collect()
}

/// Splits on commas outside `{ }` (a glob's alternatives keep theirs).
fn split_outside_braces(value: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0u32, 0);
    for (i, c) in value.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&value[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_skip_code_spans_code_blocks_and_emails() {
        let text = "See @docs/a.md and @./b.md.\nmail me@example.com\n`@not/this` but @yes\n\
                    ```\n@inside/fence\n```\n~~~md\n```\n@still/inside\n~~~\n@~/x.md,\n``a ` @no `` @after";
        assert_eq!(
            imports(text),
            ["docs/a.md", "./b.md", "yes", "~/x.md", "after"]
        );
        assert_eq!(imports("`unclosed @here"), ["here"]);
        assert_eq!(imports("@ alone @@double"), Vec::<String>::new());
    }

    #[test]
    fn block_comments_go_inline_and_fenced_ones_stay() {
        let text = "keep\n<!-- gone -->\n<!-- multi\nline @hidden.md\n--> tail\n\
                    text <!-- inline stays -->\n```\n<!-- in code -->\n```\n";
        let stripped = strip_block_comments(text);
        assert_eq!(
            stripped,
            "keep\n tail\ntext <!-- inline stays -->\n```\n<!-- in code -->\n```\n"
        );
        assert!(imports(&stripped).is_empty());
        // An unclosed comment hides the rest of the file.
        assert_eq!(strip_block_comments("a\n<!-- b\nc\n"), "a\n");
    }

    #[test]
    fn rule_paths_read_every_spelling() {
        let (globs, body) =
            rule_paths("---\npaths: \"src/**/*.{ts,tsx}, lib/*.rs\"\n---\nbody\n").unwrap();
        assert_eq!(globs, ["src/**/*.{ts,tsx}", "lib/*.rs"]);
        assert_eq!(body, "body\n");
        let (globs, _) = rule_paths(
            "---\ndescription: x\npaths:\n  - \"a/**\"\n  - b.md\nother: 1\n  - no\n---\n",
        )
        .unwrap();
        assert_eq!(globs, ["a/**", "b.md"]);
        let (globs, _) = rule_paths("---\npaths: [x/*, 'y']\n---\n").unwrap();
        assert_eq!(globs, ["x/*", "y"]);
        let (globs, body) = rule_paths("no frontmatter\n").unwrap();
        assert!(globs.is_empty());
        assert_eq!(body, "no frontmatter\n");
        assert!(rule_paths("---\npaths: a\n").is_err());
    }
}
