//! GitHub requests: which repository, which issue, which file, what to search for.

use serde_json::{json, Map, Value};

use super::{has_any, has_word, trim_punctuation, Parsed};
use crate::model::mock::lang::{Capability, Missing};

/// Runs of characters that can form `owner/repo`, paths, `#123` and URLs.
fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_.-/#:".contains(c)))
        .map(|t| t.trim_end_matches(['.', ':']))
        .filter(|t| !t.is_empty())
        .collect()
}

/// `owner/repo` from a token, or from a GitHub URL in it.
fn repo_of(token: &str) -> Option<(String, String)> {
    let (rest, from_url) = match token.find("github.com/") {
        Some(i) => (&token[i + "github.com/".len()..], true),
        None => (token, false),
    };
    let parts: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    if parts.len() < 2 || (!from_url && parts.len() != 2) {
        return None;
    }
    let owner = parts[0];
    let repo = parts[1].strip_suffix(".git").unwrap_or(parts[1]);
    let owner_ok = !owner.is_empty()
        && !owner.starts_with('-')
        && owner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let repo_ok = !repo.is_empty()
        && repo != "."
        && repo != ".."
        && repo
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    // "1/2" is a fraction, not a repository.
    let has_letter = owner
        .chars()
        .chain(repo.chars())
        .any(|c| c.is_ascii_alphabetic());
    (owner_ok && repo_ok && has_letter).then(|| (owner.to_owned(), repo.to_owned()))
}

/// The repository the message names, and the index of its token. A candidate right after
/// "of/in/from/..." wins over others ("read docs/a.md of vercel/ai"); otherwise the first.
fn find_repo(tokens: &[&str]) -> Option<(String, String, usize)> {
    let candidates: Vec<(usize, (String, String))> = tokens
        .iter()
        .enumerate()
        .filter_map(|(i, t)| repo_of(t).map(|r| (i, r)))
        .collect();
    let after_preposition = candidates.iter().find(|(i, _)| {
        *i > 0
            && matches!(
                tokens[i - 1].to_lowercase().as_str(),
                "of" | "in" | "from" | "at" | "on" | "for" | "repo" | "repository"
            )
    });
    let (i, (owner, repo)) = after_preposition.or(candidates.first())?.clone();
    Some((owner, repo, i))
}

/// A file path the message names (any token but the repository's). A bare README means
/// README.md, which is what repositories have.
fn find_path(tokens: &[&str], repo_index: Option<usize>) -> Option<String> {
    tokens.iter().enumerate().find_map(|(i, t)| {
        if Some(i) == repo_index || t.starts_with('#') || t.contains("github.com") {
            return None;
        }
        let t = t.trim_start_matches('/');
        let name = t.rsplit('/').next().unwrap_or(t);
        let has_extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && ext.starts_with(|c: char| c.is_ascii_alphabetic())
        }) || name.starts_with('.') && name.len() > 1;
        let known = [
            "LICENSE",
            "CHANGELOG",
            "CONTRIBUTING",
            "Dockerfile",
            "Makefile",
        ]
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name));
        if t.eq_ignore_ascii_case("readme") {
            Some("README.md".to_owned())
        } else if let Some(k) = known.filter(|_| t == name) {
            Some((*k).to_owned())
        } else if (has_extension || t.contains('/') || known.is_some())
            && !["e.g", "i.e", "etc"].contains(&t.to_lowercase().as_str())
        {
            Some(t.to_owned())
        } else {
            None
        }
    })
}

/// `#123`, `issues/123`, or (when the message says "issue") a bare number.
fn issue_number(text: &str, tokens: &[&str], issue_word: bool) -> Option<u64> {
    let digits_after = |marker: &str| {
        text.match_indices(marker).find_map(|(i, m)| {
            let rest = &text[i + m.len()..];
            let rest = rest.trim_start();
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            rest[..end].parse::<u64>().ok().filter(|n| *n > 0)
        })
    };
    digits_after("#")
        .or_else(|| digits_after("issues/"))
        .or_else(|| {
            let bare = tokens
                .iter()
                .find_map(|t| t.parse::<u64>().ok().filter(|n| *n > 0));
            bare.filter(|_| issue_word)
        })
}

/// `state` for listings: only when the message asks for open or closed items.
fn state(text: &str, words: &[&str]) -> Option<&'static str> {
    let open = has_word(words, &["open"])
        || has_any(text, &["打开的", "开放的", "未关闭", "未解决", "开启的"]);
    let without_open = text.replace("未关闭", "");
    let closed =
        has_word(words, &["closed"]) || has_any(&without_open, &["已关闭", "关闭的", "已解决"]);
    match (open, closed) {
        (true, true) => Some("all"),
        (true, false) => Some("open"),
        (false, true) => Some("closed"),
        (false, false) => None,
    }
}

pub(super) fn github(text: &str, lower: &str, words: &[&str]) -> Parsed {
    let tokens = tokens(text);
    let repo = find_repo(&tokens);
    let repo_index = repo.as_ref().map(|r| r.2);
    let with_repo = |cap: Capability, extra: &[(&str, Value)]| match &repo {
        Some((owner, name, _)) => {
            let mut args = Map::new();
            args.insert("owner".into(), owner.clone().into());
            args.insert("repo".into(), name.clone().into());
            for (k, v) in extra {
                args.insert((*k).into(), v.clone());
            }
            Parsed::Call(cap, Value::Object(args))
        }
        None => Parsed::Missing(cap, Missing::Repo),
    };
    let state_arg = || -> Vec<(&str, Value)> {
        state(text, words)
            .map(|s| vec![("state", Value::from(s))])
            .unwrap_or_default()
    };

    let pulls = has_word(words, &["pr", "prs", "pulls"])
        || has_any(lower, &["pull request", "pull-request", "pullrequest"])
        || has_any(text, &["拉取请求", "合并请求"]);
    if pulls {
        return with_repo(Capability::ListPulls, &state_arg());
    }
    let issue_word = has_word(words, &["issue", "issues"]);
    let zh_issue = has_any(text, &["问题", "议题", "工单"]) && repo.is_some();
    let hash_number = text.contains('#') && repo.is_some();
    if issue_word || zh_issue || hash_number {
        return match issue_number(text, &tokens, issue_word || zh_issue) {
            Some(n) => with_repo(Capability::GetIssue, &[("issue_number", n.into())]),
            None => with_repo(Capability::ListIssues, &state_arg()),
        };
    }
    let path = find_path(&tokens, repo_index);
    let file_word = has_word(
        words,
        &["read", "file", "contents", "content", "cat", "open"],
    ) || has_any(text, &["读取", "文件", "内容", "打开"]);
    match (&path, repo.is_some()) {
        (Some(path), true) => {
            return with_repo(Capability::GetFile, &[("path", path.clone().into())])
        }
        (Some(_), false) if file_word => {
            return Parsed::Missing(Capability::GetFile, Missing::Repo)
        }
        (None, true) if file_word => return Parsed::Missing(Capability::GetFile, Missing::Path),
        _ => {}
    }
    // "search" asks for a search by itself; everyday words like "find" or "找" only together
    // with a word for repositories, so "帮我找工作" is not a repository search.
    let strong = has_word(words, &["search"]) || has_any(text, &["搜索", "查找", "寻找"]);
    let weak = has_word(words, &["find"])
        || has_any(lower, &["look for", "looking for"])
        || has_any(text, &["搜", "找"]);
    let about_repos = has_word(
        words,
        &[
            "repo",
            "repos",
            "repository",
            "repositories",
            "project",
            "projects",
        ],
    ) || has_any(text, &["仓库", "项目", "代码库"]);
    let search = strong || (weak && about_repos);
    if search {
        let query = search_query(text);
        return if query.is_empty() {
            Parsed::Missing(Capability::SearchRepos, Missing::Query)
        } else {
            Parsed::Call(Capability::SearchRepos, json!({ "query": query }))
        };
    }
    Parsed::NoFit
}

/// What to search for: the message without the words that ask for a search.
fn search_query(text: &str) -> String {
    const ZH: &[&str] = &[
        "帮我搜索一下",
        "帮我搜索",
        "搜索一下",
        "搜索",
        "搜一下",
        "帮我找一下",
        "帮我找",
        "请帮我",
        "帮我",
        "查找",
        "寻找",
        "找一下",
        "找找",
        "在 github 上",
        "在github上",
        "在 GitHub 上",
        "在GitHub上",
        "github 上",
        "github上",
        "GitHub 上",
        "GitHub上",
        "相关的",
        "相关",
        "有关的",
        "有关",
        "关于",
        "方面的",
        "仓库",
        "代码库",
        "项目",
        "一些",
        "所有",
        "请",
        "的",
        "一下",
        "搜",
        "找",
    ];
    const EN: &[&str] = &[
        "search",
        "searching",
        "find",
        "finding",
        "look",
        "looking",
        "for",
        "about",
        "related",
        "relating",
        "regarding",
        "to",
        "on",
        "github",
        "repositories",
        "repository",
        "repos",
        "repo",
        "projects",
        "project",
        "the",
        "me",
        "please",
        "can",
        "could",
        "would",
        "you",
        "some",
        "any",
        "that",
        "which",
        "are",
        "is",
        "with",
        "mention",
        "mentioning",
        "matching",
        "match",
        "called",
        "named",
        "of",
        "a",
        "an",
        "i",
        "want",
        "show",
        "list",
        "all",
        "like",
        "help",
        "in",
    ];
    let mut rest = text.to_owned();
    for phrase in ZH {
        rest = rest.replace(phrase, " ");
    }
    rest.split_whitespace()
        .map(trim_punctuation)
        .filter(|w| !w.is_empty() && !EN.contains(&w.to_lowercase().as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}
