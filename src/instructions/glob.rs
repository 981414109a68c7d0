//! The globs of a rule's `paths:`, matched against a path relative to the project root:
//! `**` any number of folders, `*` and `?` within one name, `{a,b}` alternatives, `[abc]`
//! classes. A pattern without a `/` matches a file's name in any folder (`*.md`).

/// Most alternatives one pattern expands to; a pattern beyond it matches nothing.
const MAX_EXPANSIONS: usize = 256;

/// Whether `path` (relative, `/`-separated) matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim_start_matches("./").trim_start_matches('/');
    expand(pattern).iter().any(|p| {
        let anchored = p.contains('/');
        let names: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
        if anchored {
            let parts: Vec<&str> = p.split('/').filter(|n| !n.is_empty()).collect();
            match_parts(&parts, &names)
        } else {
            names.last().is_some_and(|name| match_name(p, name))
        }
    })
}

/// `a{b,c}d{e,f}` → `abde`, `abdf`, `acde`, `acdf` (nested braces too); at most
/// [`MAX_EXPANSIONS`], none at all when over.
fn expand(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![pattern.to_owned()];
    while let Some(p) = stack.pop() {
        if out.len() + stack.len() > MAX_EXPANSIONS {
            return Vec::new();
        }
        match first_group(&p) {
            None => out.push(p),
            Some((open, close)) => {
                let inner = &p[open + 1..close];
                for alternative in split_top(inner) {
                    stack.push(format!("{}{alternative}{}", &p[..open], &p[close + 1..]));
                }
            }
        }
    }
    out.sort();
    out
}

/// The byte range of the first `{…}` with its matching `}`.
fn first_group(p: &str) -> Option<(usize, usize)> {
    let open = p.find('{')?;
    let mut depth = 0;
    for (i, c) in p[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open, open + i));
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits a brace group's inside on its top-level commas.
fn split_top(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0u32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

/// Folder-by-folder match; `**` takes zero or more names. A table over (part, name) keeps it
/// linear in their product: a pattern of many `**` costs no backtracking.
fn match_parts(parts: &[&str], names: &[&str]) -> bool {
    let width = names.len() + 1;
    // `next[j]`: whether parts[i + 1..] match names[j..]; starts as the empty pattern.
    let mut next: Vec<bool> = (0..width).map(|j| j == names.len()).collect();
    for part in parts.iter().rev() {
        let mut here = vec![false; width];
        for j in (0..width).rev() {
            here[j] = if *part == "**" {
                next[j] || (j < names.len() && here[j + 1])
            } else {
                j < names.len() && next[j + 1] && match_name(part, names[j])
            };
        }
        next = here;
    }
    next[0]
}

/// One name against one pattern part (`*`, `?`, `[…]`, literal characters).
fn match_name(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative wildcard match with one backtrack point, linear in practice.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
            continue;
        }
        if pi < p.len() {
            if let Some((ok, width)) = match_one(&p[pi..], n[ni]) {
                if ok {
                    pi += width;
                    ni += 1;
                    continue;
                }
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether the pattern at `p` matches the character `c`, and how many pattern characters it
/// used; `None` at a `*` (handled by the caller).
fn match_one(p: &[char], c: char) -> Option<(bool, usize)> {
    match p[0] {
        '*' => None,
        '?' => Some((true, 1)),
        '[' => match p.iter().position(|&x| x == ']') {
            Some(end) if end > 1 => {
                let class = &p[1..end];
                let (negated, class) = match class.first() {
                    Some('!') | Some('^') => (true, &class[1..]),
                    _ => (false, class),
                };
                let mut hit = false;
                let mut i = 0;
                while i < class.len() {
                    if i + 2 < class.len() && class[i + 1] == '-' {
                        hit |= class[i] <= c && c <= class[i + 2];
                        i += 3;
                    } else {
                        hit |= class[i] == c;
                        i += 1;
                    }
                }
                Some((hit != negated, end + 1))
            }
            _ => Some((c == '[', 1)),
        },
        literal => Some((literal == c, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs_match_as_rules_write_them() {
        let cases = [
            ("src/**/*.ts", "src/a.ts", true),
            ("src/**/*.ts", "src/x/y/a.ts", true),
            ("src/**/*.ts", "lib/a.ts", false),
            ("src/**/*.{ts,tsx}", "src/ui/a.tsx", true),
            ("*.md", "docs/deep/README.md", true),
            ("*.md", "docs/README.mdx", false),
            ("docs/*.md", "docs/deep/a.md", false),
            ("./docs/*.md", "docs/a.md", true),
            ("/docs/*.md", "docs/a.md", true),
            ("**", "anything/at/all", true),
            ("a?c/[xy]-[0-9].rs", "abc/y-7.rs", true),
            ("a?c/[!xy].rs", "abc/x.rs", false),
            ("src/**", "src", true),
            ("*a*b*", "xxaxxbxx", true),
            ("*a*b", "xxaxxbxxc", false),
            ("{a,b{c,d}}/*", "bd/f", true),
        ];
        for (pattern, path, want) in cases {
            assert_eq!(matches(pattern, path), want, "{pattern} vs {path}");
        }
    }

    #[test]
    fn many_globstars_cost_no_backtracking() {
        let pattern = "**/".repeat(40) + "z";
        let path = "a/".repeat(200) + "b";
        let started = std::time::Instant::now();
        assert!(!matches(&pattern, &path));
        assert!(matches(&pattern, &(path + "/z")));
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn a_brace_bomb_matches_nothing_instead_of_exploding() {
        let bomb = "{a,b}".repeat(20);
        assert!(!matches(&bomb, "aaaaaaaaaaaaaaaaaaaa"));
    }
}
