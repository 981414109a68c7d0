//! Canned rows rendered as GitHub REST API objects (the subset of fields clients rely on).

use super::base64;
use super::data::{self, stable_id, stable_sha, Commit, File, Issue, Pull, Repo, State};
use serde_json::{json, Value};

const API: &str = "https://api.github.com";
const WEB: &str = "https://github.com";

/// A user account.
pub(crate) fn user(login: &str) -> Value {
    account(login, "User")
}

fn account(login: &str, kind: &str) -> Value {
    let id = stable_id(&["user", login]);
    json!({
        "login": login,
        "id": id,
        "node_id": format!("U_{id:x}"),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
        "url": format!("{API}/users/{login}"),
        "html_url": format!("{WEB}/{login}"),
        "type": kind,
    })
}

/// The short repository object embedded in code search results and pull request refs.
pub(crate) fn repository_short(r: &Repo) -> Value {
    let full = r.full_name();
    let id = stable_id(&["repo", &full]);
    json!({
        "id": id,
        "node_id": format!("R_{id:x}"),
        "name": r.name,
        "full_name": full,
        "private": false,
        "owner": account(r.owner, "Organization"),
        "html_url": format!("{WEB}/{full}"),
        "description": r.description,
        "fork": false,
        "url": format!("{API}/repos/{full}"),
    })
}

/// The full repository object, as in repository search results.
pub(crate) fn repository(r: &Repo) -> Value {
    let full = r.full_name();
    let mut v = repository_short(r);
    let open_issues = data::ISSUES
        .iter()
        .filter(|i| i.repo == full && i.state == State::Open)
        .count()
        + data::PULLS
            .iter()
            .filter(|p| p.repo == full && p.state == State::Open)
            .count();
    let extra = json!({
        "created_at": r.created_at,
        "updated_at": r.pushed_at,
        "pushed_at": r.pushed_at,
        "git_url": format!("git://github.com/{full}.git"),
        "ssh_url": format!("git@github.com:{full}.git"),
        "clone_url": format!("{WEB}/{full}.git"),
        "homepage": r.homepage,
        "stargazers_count": r.stars,
        "watchers_count": r.stars,
        "forks_count": r.forks,
        "open_issues_count": open_issues,
        "language": r.language,
        "topics": r.topics,
        "visibility": "public",
        "default_branch": r.default_branch,
        "score": 1.0,
    });
    merge(&mut v, extra);
    v
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(into), Value::Object(from)) = (into, from) {
        into.extend(from);
    }
}

fn label(repo: &str, name: &str) -> Value {
    let (color, description) =
        data::label(name).map_or(("ededed", ""), |l| (l.color, l.description));
    let id = stable_id(&["label", repo, name]);
    json!({
        "id": id,
        "node_id": format!("LA_{id:x}"),
        "url": format!(
            "{API}/repos/{repo}/labels/{}",
            name.replace(' ', "%20").replace('/', "%2F").replace(':', "%3A")
        ),
        "name": name,
        "color": color,
        "default": matches!(name, "bug" | "enhancement" | "documentation" | "good first issue"),
        "description": description,
    })
}

fn issue_common(repo: &str, number: u64, kind: &str) -> Value {
    let id = stable_id(&[kind, repo, &number.to_string()]);
    let url = format!("{API}/repos/{repo}/issues/{number}");
    json!({
        "url": url,
        "repository_url": format!("{API}/repos/{repo}"),
        "labels_url": format!("{url}/labels{{/name}}"),
        "comments_url": format!("{url}/comments"),
        "events_url": format!("{url}/events"),
        "id": id,
        "node_id": format!("I_{id:x}"),
        "number": number,
        "locked": false,
        "milestone": null,
        "author_association": "CONTRIBUTOR",
    })
}

/// An issue, as the issues API returns it.
pub(crate) fn issue(i: &Issue) -> Value {
    let mut v = issue_common(i.repo, i.number, "issue");
    let assignees: Vec<Value> = i.assignee.into_iter().map(user).collect();
    merge(
        &mut v,
        json!({
            "html_url": format!("{WEB}/{}/issues/{}", i.repo, i.number),
            "title": i.title,
            "user": user(i.author),
            "labels": i.labels.iter().map(|l| label(i.repo, l)).collect::<Vec<_>>(),
            "state": i.state.as_str(),
            "state_reason": if i.state == State::Closed { json!("completed") } else { Value::Null },
            "assignee": assignees.first().cloned().unwrap_or(Value::Null),
            "assignees": assignees,
            "comments": i.comments,
            "created_at": i.created_at,
            "updated_at": i.updated_at,
            "closed_at": i.closed_at,
            "body": i.body,
        }),
    );
    v
}

/// A pull request seen through the issues API (as issue search and `get_issue` show it).
pub(crate) fn pull_as_issue(p: &Pull) -> Value {
    let mut v = issue_common(p.repo, p.number, "pull");
    let html = format!("{WEB}/{}/pull/{}", p.repo, p.number);
    merge(
        &mut v,
        json!({
            "html_url": html,
            "title": p.title,
            "user": user(p.author),
            "labels": p.labels.iter().map(|l| label(p.repo, l)).collect::<Vec<_>>(),
            "state": p.state.as_str(),
            "assignee": null,
            "assignees": [],
            "comments": p.comments,
            "created_at": p.created_at,
            "updated_at": p.updated_at,
            "closed_at": p.closed_at,
            "draft": p.draft,
            "body": p.body,
            "pull_request": {
                "url": format!("{API}/repos/{}/pulls/{}", p.repo, p.number),
                "html_url": html,
                "diff_url": format!("{html}.diff"),
                "patch_url": format!("{html}.patch"),
                "merged_at": p.merged_at,
            },
        }),
    );
    v
}

fn pull_ref(r: &Repo, p: &Pull, branch: &str, side: &str) -> Value {
    let owner = if side == "head" { p.author } else { r.owner };
    json!({
        "label": format!("{owner}:{branch}"),
        "ref": branch,
        "sha": stable_sha(&[side, p.repo, &p.number.to_string()]),
        "user": user(owner),
        "repo": repository_short(r),
    })
}

/// A pull request, as the pulls API returns it.
pub(crate) fn pull(r: &Repo, p: &Pull) -> Value {
    let n = p.number.to_string();
    let id = stable_id(&["pull", p.repo, &n]);
    let html = format!("{WEB}/{}/pull/{n}", p.repo);
    json!({
        "url": format!("{API}/repos/{}/pulls/{n}", p.repo),
        "id": id,
        "node_id": format!("PR_{id:x}"),
        "html_url": html,
        "diff_url": format!("{html}.diff"),
        "patch_url": format!("{html}.patch"),
        "issue_url": format!("{API}/repos/{}/issues/{n}", p.repo),
        "number": p.number,
        "state": p.state.as_str(),
        "locked": false,
        "title": p.title,
        "user": user(p.author),
        "body": p.body,
        "labels": p.labels.iter().map(|l| label(p.repo, l)).collect::<Vec<_>>(),
        "created_at": p.created_at,
        "updated_at": p.updated_at,
        "closed_at": p.closed_at,
        "merged_at": p.merged_at,
        "merged": p.merged_at.is_some(),
        "merge_commit_sha": p.merged_at.map(|_| stable_sha(&["merge", p.repo, &n])),
        "assignee": null,
        "assignees": [],
        "requested_reviewers": [],
        "draft": p.draft,
        "head": pull_ref(r, p, p.head, "head"),
        "base": pull_ref(r, p, p.base, "base"),
        "comments": p.comments,
        "additions": p.additions,
        "deletions": p.deletions,
        "changed_files": p.changed_files,
        "author_association": "CONTRIBUTOR",
    })
}

/// The SHA of a commit row.
pub(crate) fn commit_sha(c: &Commit) -> String {
    stable_sha(&["commit", c.repo, c.message, c.date])
}

/// A commit in a commit listing; `parent` is the next-older commit's SHA, when known.
pub(crate) fn commit(c: &Commit, parent: Option<&str>) -> Value {
    let sha = commit_sha(c);
    let who = json!({"name": c.author, "email": c.email, "date": c.date});
    let parents: Vec<Value> = parent
        .map(|p| {
            json!({
                "sha": p,
                "url": format!("{API}/repos/{}/commits/{p}", c.repo),
                "html_url": format!("{WEB}/{}/commit/{p}", c.repo),
            })
        })
        .into_iter()
        .collect();
    json!({
        "sha": sha,
        "node_id": format!("C_{}", &sha[..16]),
        "commit": {
            "author": who,
            "committer": who,
            "message": c.message,
            "tree": {
                "sha": stable_sha(&["tree", &sha]),
                "url": format!("{API}/repos/{}/git/trees/{}", c.repo, stable_sha(&["tree", &sha])),
            },
            "url": format!("{API}/repos/{}/git/commits/{sha}", c.repo),
            "comment_count": 0,
        },
        "url": format!("{API}/repos/{}/commits/{sha}", c.repo),
        "html_url": format!("{WEB}/{}/commit/{sha}", c.repo),
        "comments_url": format!("{API}/repos/{}/commits/{sha}/comments", c.repo),
        "parents": parents,
    })
}

/// The URLs shared by file and directory entries.
fn entry(r: &Repo, path: &str, kind: &str, sha: &str) -> Value {
    let full = r.full_name();
    let branch = r.default_branch;
    let self_url = format!("{API}/repos/{full}/contents/{path}?ref={branch}");
    let git_kind = if kind == "dir" { "trees" } else { "blobs" };
    let git_url = format!("{API}/repos/{full}/git/{git_kind}/{sha}");
    let web_kind = if kind == "dir" { "tree" } else { "blob" };
    let html_url = format!("{WEB}/{full}/{web_kind}/{branch}/{path}");
    json!({
        "name": path.rsplit('/').next().unwrap_or(path),
        "path": path,
        "sha": sha,
        "url": self_url,
        "git_url": git_url,
        "html_url": html_url,
        "type": kind,
        "_links": {"self": self_url, "git": git_url, "html": html_url},
    })
}

fn file_sha(f: &File) -> String {
    stable_sha(&["blob", f.repo, f.path, f.content])
}

/// A file with its content. The real MCP server decodes GitHub's base64 before answering (and
/// leaves `encoding: "base64"` in place); `base64` keeps the raw API's encoded form instead.
pub(crate) fn file(r: &Repo, f: &File, base64: bool) -> Value {
    let mut v = entry(r, f.path, "file", &file_sha(f));
    let content = if base64 {
        base64::encode_wrapped(f.content.as_bytes(), 60)
    } else {
        f.content.to_owned()
    };
    merge(
        &mut v,
        json!({
            "size": f.content.len(),
            "download_url": download_url(r, f.path),
            "content": content,
            "encoding": "base64",
        }),
    );
    v
}

fn download_url(r: &Repo, path: &str) -> String {
    format!(
        "https://raw.githubusercontent.com/{}/{}/{path}",
        r.full_name(),
        r.default_branch
    )
}

/// One entry of a directory listing: a file (with its size) or a subdirectory.
pub(crate) fn dir_entry(r: &Repo, path: &str, file: Option<&File>) -> Value {
    let mut v = match file {
        Some(f) => entry(r, path, "file", &file_sha(f)),
        None => entry(r, path, "dir", &stable_sha(&["tree", &r.full_name(), path])),
    };
    merge(
        &mut v,
        json!({
            "size": file.map_or(0, |f| f.content.len()),
            "download_url": file.map(|_| download_url(r, path)),
        }),
    );
    v
}

/// A code search hit.
pub(crate) fn code_hit(r: &Repo, f: &File) -> Value {
    let sha = file_sha(f);
    let full = r.full_name();
    json!({
        "name": f.path.rsplit('/').next().unwrap_or(f.path),
        "path": f.path,
        "sha": sha,
        "url": format!("{API}/repositories/{}/contents/{}?ref={sha}", stable_id(&["repo", &full]), f.path),
        "git_url": format!("{API}/repositories/{}/git/blobs/{sha}", stable_id(&["repo", &full])),
        "html_url": format!("{WEB}/{full}/blob/{sha}/{}", f.path),
        "repository": repository_short(r),
        "score": 1.0,
    })
}

/// The mock's fixed "now" for things it creates: the core has no clock, and a stable time keeps
/// transcripts reproducible.
pub(crate) const CANNED_NOW: &str = "2025-06-12T12:00:00Z";

/// The account the mock pretends to be authenticated as, for writes.
pub(crate) const MOCK_USER: &str = "mock-user";

/// What `create_issue` answers: the issue as GitHub would return it (nothing is stored).
pub(crate) struct NewIssue<'a> {
    pub repo: &'a str,
    pub number: u64,
    pub title: &'a str,
    pub body: Option<&'a str>,
    pub labels: &'a [&'a str],
    pub assignees: &'a [&'a str],
    pub milestone: Option<u64>,
}

/// Renders a just-created issue.
pub(crate) fn new_issue(n: &NewIssue<'_>) -> Value {
    let mut v = issue_common(n.repo, n.number, "issue");
    let assignees: Vec<Value> = n.assignees.iter().map(|a| user(a)).collect();
    merge(
        &mut v,
        json!({
            "html_url": format!("{WEB}/{}/issues/{}", n.repo, n.number),
            "title": n.title,
            "user": user(MOCK_USER),
            "labels": n.labels.iter().map(|l| label(n.repo, l)).collect::<Vec<_>>(),
            "state": "open",
            "state_reason": null,
            "assignee": assignees.first().cloned().unwrap_or(Value::Null),
            "assignees": assignees,
            "milestone": n.milestone.map(|m| json!({"number": m})),
            "comments": 0,
            "created_at": CANNED_NOW,
            "updated_at": CANNED_NOW,
            "closed_at": null,
            "author_association": "OWNER",
            "body": n.body,
        }),
    );
    v
}

/// Renders a just-added issue comment.
pub(crate) fn new_comment(repo: &str, number: u64, serial: u64, body: &str) -> Value {
    let id = stable_id(&["comment", repo, &number.to_string(), &serial.to_string()]);
    json!({
        "id": id,
        "node_id": format!("IC_{id:x}"),
        "url": format!("{API}/repos/{repo}/issues/comments/{id}"),
        "html_url": format!("{WEB}/{repo}/issues/{number}#issuecomment-{id}"),
        "issue_url": format!("{API}/repos/{repo}/issues/{number}"),
        "user": user(MOCK_USER),
        "created_at": CANNED_NOW,
        "updated_at": CANNED_NOW,
        "author_association": "OWNER",
        "body": body,
    })
}
