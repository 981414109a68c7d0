//! Repository tools: search, file contents, commits and code search.

use super::{repo, Session, ToolError};
use crate::mock_github::args::{paginate, Args};
use crate::mock_github::data::{self, File, Repo};
use crate::mock_github::query::Query;
use crate::mock_github::render;
use serde_json::{json, Value};

pub(super) fn search_result(total: usize, items: Vec<Value>) -> Value {
    json!({"total_count": total, "incomplete_results": false, "items": items})
}

pub(super) fn parse_query(q: &str) -> Result<Query, ToolError> {
    let query = Query::parse(q);
    if query.is_empty() {
        return Err(ToolError::Validation(
            "the search query is empty; give search terms or qualifiers such as repo:owner/name"
                .into(),
        ));
    }
    Ok(query)
}

/// `repo:`, `user:` and `org:` qualifiers, shared by every search.
pub(super) fn repo_qualifiers_match(query: &Query, r: &Repo) -> bool {
    query.values("repo").all(|v| r.is(v))
        && query
            .values("user")
            .chain(query.values("org"))
            .all(|v| v.eq_ignore_ascii_case(r.owner))
}

/// `search_repositories`: terms match names, descriptions and topics; best-starred first.
pub(super) fn search_repositories(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let query = parse_query(a.str("query"))?;
    let mut hits: Vec<&Repo> = data::REPOS
        .iter()
        .filter(|r| {
            let haystack = format!("{} {} {}", r.full_name(), r.description, r.topics.join(" "))
                .to_lowercase();
            repo_qualifiers_match(&query, r)
                && query
                    .values("language")
                    .all(|l| l.eq_ignore_ascii_case(r.language))
                && query.values("topic").all(|t| r.topics.contains(&t))
                && query.text_matches(&haystack)
        })
        .collect();
    hits.sort_by_key(|r| std::cmp::Reverse(r.stars));
    let total = hits.len();
    let page = paginate(hits, a.page("page"), a.per_page("perPage"));
    Ok(search_result(
        total,
        page.into_iter().map(render::repository).collect(),
    ))
}

/// Refs the mock serves files for: the default branch and pull request heads (same files).
fn check_ref(r: &Repo, reference: Option<&str>) -> Result<(), ToolError> {
    let Some(reference) = reference else {
        return Ok(());
    };
    let full = r.full_name();
    let known = reference == r.default_branch
        || data::PULLS
            .iter()
            .any(|p| p.repo == full && p.head == reference)
        || (reference.len() >= 7
            && data::COMMITS
                .iter()
                .any(|c| c.repo == full && render::commit_sha(c).starts_with(reference)));
    if known {
        Ok(())
    } else {
        Err(ToolError::NotFound(format!(
            "no commit found for the ref {reference} in {full} (its default branch is {})",
            r.default_branch
        )))
    }
}

/// `get_file_contents`: a file with its content, or a directory listing.
pub(super) fn get_file_contents(s: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let r = repo(a)?;
    check_ref(r, a.opt_str("branch"))?;
    let full = r.full_name();
    let path = a.str("path").trim_start_matches("./").trim_matches('/');
    let files: Vec<&File> = data::FILES.iter().filter(|f| f.repo == full).collect();
    if let Some(f) = files.iter().find(|f| f.path == path) {
        return Ok(render::file(r, f, s.base64_contents));
    }
    let prefix = if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    };
    let mut entries: Vec<(String, Option<&File>)> = Vec::new();
    for f in files.iter().filter(|f| f.path.starts_with(&prefix)) {
        let rest = &f.path[prefix.len()..];
        let entry = match rest.split_once('/') {
            Some((dir, _)) => (format!("{prefix}{dir}"), None),
            None => (f.path.to_owned(), Some(*f)),
        };
        if !entries.iter().any(|(p, _)| *p == entry.0) {
            entries.push(entry);
        }
    }
    if entries.is_empty() {
        return Err(ToolError::NotFound(format!(
            "no file or directory {path:?} in {full}"
        )));
    }
    entries.sort_by(|x, y| x.0.cmp(&y.0));
    Ok(Value::Array(
        entries
            .into_iter()
            .map(|(p, f)| render::dir_entry(r, &p, f))
            .collect(),
    ))
}

/// `list_commits`: newest first, from the default branch or a given commit.
pub(super) fn list_commits(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let r = repo(a)?;
    let full = r.full_name();
    let reference = a.opt_str("sha");
    check_ref(r, reference)?;
    let commits: Vec<_> = data::COMMITS.iter().filter(|c| c.repo == full).collect();
    let start = reference
        .and_then(|sha| {
            commits
                .iter()
                .position(|c| sha.len() >= 7 && render::commit_sha(c).starts_with(sha))
        })
        .unwrap_or(0);
    let rendered: Vec<Value> = commits
        .iter()
        .enumerate()
        .skip(start)
        .map(|(i, c)| {
            let parent = commits.get(i + 1).map(|p| render::commit_sha(p));
            render::commit(c, parent.as_deref())
        })
        .collect();
    Ok(Value::Array(paginate(
        rendered,
        a.page("page"),
        a.per_page("perPage"),
    )))
}

/// Languages as code search's `language:` qualifier spells them, by file extension.
fn file_language(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("rs") => "rust",
        Some("ts" | "tsx") => "typescript",
        Some("js" | "jsx") => "javascript",
        Some("md") => "markdown",
        Some("json") => "json",
        Some("toml") => "toml",
        _ => "text",
    }
}

/// `search_code`: terms must all occur in a file's content or path.
pub(super) fn search_code(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let query = parse_query(a.str("q"))?;
    let mut hits: Vec<(&Repo, &File)> = Vec::new();
    for f in data::FILES {
        let Some(r) = data::repo_of(f.repo) else {
            continue;
        };
        let name = f.path.rsplit('/').next().unwrap_or(f.path);
        let path_lower = f.path.to_lowercase();
        let quals_ok = repo_qualifiers_match(&query, r)
            && query.values("language").all(|l| l == file_language(f.path))
            && query
                .values("path")
                .all(|p| path_lower.contains(p.trim_matches('/')))
            && query
                .values("filename")
                .all(|n| n.eq_ignore_ascii_case(name))
            && query
                .values("extension")
                .all(|e| path_lower.ends_with(&format!(".{}", e.trim_start_matches('.'))));
        let haystack = format!("{path_lower}\n{}", f.content.to_lowercase());
        if quals_ok && query.text_matches(&haystack) {
            hits.push((r, f));
        }
    }
    let total = hits.len();
    let page = paginate(hits, a.page("page"), a.per_page("per_page"));
    let items = page
        .into_iter()
        .map(|(r, f)| render::code_hit(r, f))
        .collect();
    Ok(search_result(total, items))
}
