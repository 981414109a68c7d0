//! Paths as the resolver sees them: absolute, `/`-separated strings, normalised lexically (the
//! host, which can see links, confines the real file).

/// `path` with `.` and empty names dropped and `..` applied; always absolute (`..` above the
/// root stays at the root).
pub fn normalize(path: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in path.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            name => names.push(name),
        }
    }
    format!("/{}", names.join("/"))
}

/// The folder `path` is in.
pub fn parent(path: &str) -> String {
    match path.rfind('/') {
        Some(0) | None => "/".to_owned(),
        Some(i) => path[..i].to_owned(),
    }
}

/// `dir/name`, normalised.
pub fn join(dir: &str, name: &str) -> String {
    normalize(&format!("{dir}/{name}"))
}

/// Whether `path` is `dir` or inside it (whole names: `/a/bc` is not inside `/a/b`).
pub fn within(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir || dir.is_empty() || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// `path` relative to `dir` (`""` for `dir` itself), when inside it.
pub fn relative<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    if !within(path, dir) {
        return None;
    }
    let dir = dir.trim_end_matches('/');
    Some(path[dir.len()..].trim_start_matches('/'))
}

/// Every folder from `root` down to `cwd`, root first; only `root` when `cwd` is not inside.
pub fn chain(root: &str, cwd: &str) -> Vec<String> {
    let mut dirs = vec![root.to_owned()];
    if let Some(rest) = relative(cwd, root) {
        let mut dir = root.trim_end_matches('/').to_owned();
        for name in rest.split('/').filter(|n| !n.is_empty()) {
            dir = format!("{dir}/{name}");
            dirs.push(dir.clone());
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        assert_eq!(normalize("/a/./b//c/../d"), "/a/b/d");
        assert_eq!(normalize("/../../etc"), "/etc");
        assert_eq!(parent("/a/b.md"), "/a");
        assert_eq!(parent("/b.md"), "/");
        assert_eq!(join("/r/docs", "../x.md"), "/r/x.md");
        assert!(within("/a/b/c", "/a/b") && within("/a/b", "/a/b/"));
        assert!(!within("/a/bc", "/a/b") && !within("/a", "/a/b"));
        assert!(within("/anything", "/"));
        assert_eq!(relative("/r/x/y.md", "/r"), Some("x/y.md"));
        assert_eq!(relative("/q/y.md", "/r"), None);
        assert_eq!(chain("/r", "/r/a/b"), ["/r", "/r/a", "/r/a/b"]);
        assert_eq!(chain("/r", "/elsewhere"), ["/r"]);
        assert_eq!(chain("/", "/a"), ["/", "/a"]);
    }
}
