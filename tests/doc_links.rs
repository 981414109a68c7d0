//! Every relative link and `#anchor` in `README.md` and `docs/*.md` resolves: the file or folder
//! exists, and an anchor names a heading of its target as GitHub renders it (lowercased,
//! punctuation dropped, spaces to `-`, `-1`, `-2`... for repeated headings).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    let text = strip_inline_markup(heading);
    let mut out = String::new();
    for ch in text.trim().chars().flat_map(char::to_lowercase) {
        if ch.is_alphanumeric() || ch == '-' || ch == '_' {
            out.push(ch);
        } else if ch == ' ' {
            out.push('-');
        }
    }
    out
}

/// The text a heading renders as: code spans' backticks and emphasis markers dropped, a link
/// replaced by its text, an HTML tag removed.
fn strip_inline_markup(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(ch) = rest.chars().next() {
        if ch == '[' {
            if let Some((label, after)) = split_link(rest) {
                out.push_str(&strip_inline_markup(label));
                rest = after;
                continue;
            }
        }
        if ch == '<' {
            if let Some(end) = rest.find('>') {
                rest = &rest[end + 1..];
                continue;
            }
        }
        if ch != '`' && ch != '*' {
            out.push(ch);
        }
        rest = &rest[ch.len_utf8()..];
    }
    out
}

/// `[label](target)rest` → (label, rest).
fn split_link(text: &str) -> Option<(&str, &str)> {
    let (label, target, rest) = parse_link(text)?;
    let _ = target;
    Some((label, rest))
}

/// `[label](target)rest` → (label, target, rest); nested brackets in the label are allowed.
fn parse_link(text: &str) -> Option<(&str, &str, &str)> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let after = &text[close + 1..];
    let inner = after.strip_prefix('(')?;
    let end = inner.find(')')?;
    let target = inner[..end].split_whitespace().next().unwrap_or("");
    Some((&text[1..close], target, &inner[end + 1..]))
}

/// Lines outside fenced code blocks, with their numbers (1-based).
fn prose_lines(markdown: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for (i, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => lines.push((i + 1, line)),
            _ => {}
        }
    }
    lines
}

/// A line with its code spans blanked out, so a `[x](y)` inside backticks is not a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for ch in line.chars() {
        if ch == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { ch });
        }
    }
    out
}

/// The anchors a Markdown file defines: one per heading (repeats numbered), plus `<a id>` and
/// `<a name>` tags.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (_, line) in prose_lines(markdown) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes + 1..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while found.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            found.insert(anchor);
        }
        for attr in ["<a id=\"", "<a name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(attr) {
                rest = &rest[at + attr.len()..];
                if let Some(end) = rest.find('"') {
                    found.insert(rest[..end].to_owned());
                }
            }
        }
    }
    found
}

/// Every link target of a Markdown file outside code, with its line.
fn links(markdown: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in prose_lines(markdown) {
        let line = without_code_spans(line);
        // Reference definitions: `[label]: target`.
        if let Some(rest) = line.trim_start().strip_prefix('[') {
            if let Some(end) = rest.find("]:") {
                let target = rest[end + 2..].split_whitespace().next().unwrap_or("");
                found.push((number, target.to_owned()));
                continue;
            }
        }
        let mut rest = line.as_str();
        while let Some(open) = rest.find('[') {
            rest = &rest[open..];
            match parse_link(rest) {
                Some((_, target, after)) => {
                    found.push((number, target.to_owned()));
                    rest = after;
                }
                None => rest = &rest[1..],
            }
        }
    }
    found
}

/// Why each relative link of `file` (a Markdown file under `root`) does not resolve.
fn broken_links(root: &Path, file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let shown = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let mut problems = Vec::new();
    for (line, target) in links(&text) {
        if target.is_empty() {
            problems.push(format!("{shown}:{line}: a link with no target"));
            continue;
        }
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else if let Some(from_root) = path.strip_prefix('/') {
            root.join(from_root)
        } else {
            file.parent().expect("a file has a folder").join(path)
        };
        if !resolved.exists() {
            problems.push(format!("{shown}:{line}: {target}: no such file"));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        if resolved.extension().and_then(|e| e.to_str()) != Some("md") {
            continue; // a line anchor into source (#L10) is GitHub's, not checked here
        }
        let target_text = fs::read_to_string(&resolved).unwrap_or_default();
        if !anchors(&target_text).contains(anchor) {
            problems.push(format!(
                "{shown}:{line}: {target}: no heading with the anchor #{anchor}"
            ));
        }
    }
    problems
}

/// `README.md` and every Markdown file in `docs/`.
fn documentation(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("the docs/ folder")
        .map(|entry| entry.expect("a readable docs/ entry").path())
        .filter(|path| path.extension().and_then(|e| e.to_str()) == Some("md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = documentation(root);
    assert!(files.len() > 5, "README.md and the docs/ pages: {files:?}");
    let mut checked = 0;
    let mut problems = Vec::new();
    for file in &files {
        checked += links(&fs::read_to_string(file).unwrap()).len();
        problems.extend(broken_links(root, file));
    }
    assert!(
        checked > 50,
        "only {checked} links found: the scan is broken"
    );
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_docs_page_is_linked_from_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let targets: BTreeSet<String> = links(&readme).into_iter().map(|(_, t)| t).collect();
    for page in documentation(root).iter().skip(1) {
        let name = format!("docs/{}", page.file_name().unwrap().to_str().unwrap());
        assert!(
            targets
                .iter()
                .any(|t| t.split('#').next() == Some(name.as_str())),
            "README.md links to no {name}"
        );
    }
}

#[test]
fn slugs_follow_githubs_rules() {
    assert_eq!(slug("Workspace trust"), "workspace-trust");
    assert_eq!(slug("Servers and `.mcp.json`"), "servers-and-mcpjson");
    assert_eq!(slug("What `scripts/test` runs"), "what-scriptstest-runs");
    assert_eq!(
        slug("Framing + parse (criterion)"),
        "framing--parse-criterion"
    );
    assert_eq!(slug("The gate's invariants"), "the-gates-invariants");
    assert_eq!(
        slug("Context economy: the first request"),
        "context-economy-the-first-request"
    );
    assert_eq!(
        slug("tool_search and `call_tool`"),
        "tool_search-and-call_tool"
    );
    assert_eq!(slug("Link [to docs](docs/x.md) here"), "link-to-docs-here");
    assert_eq!(slug("中文 标题"), "中文-标题");
}

#[test]
fn repeated_headings_and_html_anchors_get_their_own_anchors() {
    let found =
        anchors("# A\n## Usage\ntext\n## Usage\n<a id=\"here\"></a>\n```\n## Not a heading\n```\n");
    let expected: BTreeSet<String> = ["a", "usage", "usage-1", "here"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn links_in_code_are_not_links() {
    let text = "see [one](a.md) and `[two](b.md)`\n```\n[three](c.md)\n```\n[ref]: d.md#x\n";
    let targets: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(targets, ["a.md", "d.md#x"]);
}

#[test]
fn a_missing_file_or_anchor_is_reported_with_its_line() {
    let dir = std::env::temp_dir().join(format!("agentwire-doc-links-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("docs")).unwrap();
    fs::write(dir.join("docs/other.md"), "# Other\n## Real section\n").unwrap();
    let page = dir.join("docs/page.md");
    fs::write(
        &page,
        "# Page\n[ok](other.md#real-section) [self](#page) [web](https://example.com/#x)\n\
         [gone](missing.md)\n[bad anchor](other.md#unreal-section)\n[bad self](#nowhere)\n",
    )
    .unwrap();
    let problems = broken_links(&dir, &page);
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(
        problems,
        [
            "docs/page.md:3: missing.md: no such file",
            "docs/page.md:4: other.md#unreal-section: no heading with the anchor #unreal-section",
            "docs/page.md:5: #nowhere: no heading with the anchor #nowhere",
        ]
    );
}
