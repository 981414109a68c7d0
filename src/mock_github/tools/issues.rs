//! Issue and pull request tools.
//!
//! Unlike GitHub's issues endpoint, `list_issues` does not mix pull requests in: the canned
//! data keeps them apart so a demo's "open issues" answer reads cleanly. `get_issue` and
//! `search_issues` do see pull requests, as on GitHub.

use super::repos::{parse_query, repo_qualifiers_match, search_result};
use super::{repo, Session, ToolError};
use crate::mock_github::args::{paginate, Args};
use crate::mock_github::data::{self, Issue, Pull, Repo, State};
use crate::mock_github::query::Query;
use crate::mock_github::render::{self, NewIssue};
use serde_json::Value;

/// An issue or a pull request, for code that treats both alike.
#[derive(Clone, Copy)]
enum Row {
    Issue(&'static Issue),
    Pull(&'static Pull),
}

impl Row {
    fn all() -> impl Iterator<Item = Row> {
        data::ISSUES
            .iter()
            .map(Row::Issue)
            .chain(data::PULLS.iter().map(Row::Pull))
    }

    fn find(full: &str, number: u64) -> Option<Row> {
        Row::all().find(|r| r.repo() == full && r.number() == number)
    }

    fn repo(self) -> &'static str {
        match self {
            Row::Issue(i) => i.repo,
            Row::Pull(p) => p.repo,
        }
    }

    fn number(self) -> u64 {
        match self {
            Row::Issue(i) => i.number,
            Row::Pull(p) => p.number,
        }
    }

    fn state(self) -> State {
        match self {
            Row::Issue(i) => i.state,
            Row::Pull(p) => p.state,
        }
    }

    fn labels(self) -> &'static [&'static str] {
        match self {
            Row::Issue(i) => i.labels,
            Row::Pull(p) => p.labels,
        }
    }

    fn author(self) -> &'static str {
        match self {
            Row::Issue(i) => i.author,
            Row::Pull(p) => p.author,
        }
    }

    /// Sort keys: created, updated, comments.
    fn keys(self) -> (&'static str, &'static str, u64) {
        match self {
            Row::Issue(i) => (i.created_at, i.updated_at, i.comments),
            Row::Pull(p) => (p.created_at, p.updated_at, p.comments),
        }
    }

    fn text(self) -> String {
        let (title, body) = match self {
            Row::Issue(i) => (i.title, i.body),
            Row::Pull(p) => (p.title, p.body),
        };
        format!("{title}\n{body}").to_lowercase()
    }

    fn render_as_issue(self) -> Value {
        match self {
            Row::Issue(i) => render::issue(i),
            Row::Pull(p) => render::pull_as_issue(p),
        }
    }

    fn has_label(self, wanted: &str) -> bool {
        self.labels().iter().any(|l| l.eq_ignore_ascii_case(wanted))
    }
}

fn state_matches(state: State, wanted: &str) -> bool {
    wanted == "all" || wanted == state.as_str()
}

/// Sorts by `created`, `updated` or `comments` (`popularity`); stable, so ties keep data order.
fn sort_rows(rows: &mut [Row], sort: &str, descending: bool) {
    rows.sort_by(|x, y| {
        let (kx, ky) = (x.keys(), y.keys());
        let order = match sort {
            "updated" => kx.1.cmp(ky.1),
            "comments" | "popularity" => kx.2.cmp(&ky.2),
            _ => kx.0.cmp(ky.0),
        };
        if descending {
            order.reverse()
        } else {
            order
        }
    });
}

/// Labels as GitHub takes them: a list whose entries may also be comma-separated.
fn wanted_labels<'a>(a: Args<'a>) -> Vec<&'a str> {
    a.strs("labels")
        .into_iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// `list_issues`: open by default, newest first, filtered by labels (all must match).
pub(super) fn list_issues(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let full = repo(a)?.full_name();
    let state = a.opt_str("state").unwrap_or("open");
    let labels = wanted_labels(a);
    let since = a.opt_str("since");
    let mut rows: Vec<Row> = data::ISSUES
        .iter()
        .map(Row::Issue)
        .filter(|r| {
            r.repo() == full
                && state_matches(r.state(), state)
                && labels.iter().all(|l| r.has_label(l))
                && since.is_none_or(|s| r.keys().1 >= s)
        })
        .collect();
    let descending = a.opt_str("direction") != Some("asc");
    sort_rows(
        &mut rows,
        a.opt_str("sort").unwrap_or("created"),
        descending,
    );
    let page = paginate(rows, a.page("page"), a.per_page("per_page"));
    Ok(Value::Array(
        page.into_iter().map(Row::render_as_issue).collect(),
    ))
}

fn not_found(what: &str, number: Option<u64>, full: &str) -> ToolError {
    let number = number.map_or_else(|| "(not a whole number)".to_owned(), |n| format!("#{n}"));
    ToolError::NotFound(format!("no {what} {number} in {full}"))
}

/// `get_issue`: an issue, or a pull request seen as an issue.
pub(super) fn get_issue(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let full = repo(a)?.full_name();
    let number = a.number("issue_number");
    number
        .and_then(|n| Row::find(&full, n))
        .map(Row::render_as_issue)
        .ok_or_else(|| not_found("issue", number, &full))
}

/// `create_issue`: answers with the issue GitHub would create; nothing is stored.
pub(super) fn create_issue(s: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let full = repo(a)?.full_name();
    let title = a.str("title").trim();
    if title.is_empty() {
        return Err(ToolError::Validation("title can't be blank".into()));
    }
    let highest = Row::all()
        .filter(|r| r.repo() == full)
        .map(Row::number)
        .max()
        .unwrap_or(0);
    s.issues_created += 1;
    let labels = wanted_labels(a);
    let assignees = a.strs("assignees");
    Ok(render::new_issue(&NewIssue {
        repo: &full,
        number: highest + s.issues_created,
        title,
        body: a.opt_str("body"),
        labels: &labels,
        assignees: &assignees,
        milestone: a.number("milestone"),
    }))
}

/// `add_issue_comment`: answers with the comment GitHub would create; nothing is stored.
pub(super) fn add_issue_comment(s: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let full = repo(a)?.full_name();
    let number = a.number("issue_number");
    let row = number
        .and_then(|n| Row::find(&full, n))
        .ok_or_else(|| not_found("issue", number, &full))?;
    let body = a.str("body");
    if body.trim().is_empty() {
        return Err(ToolError::Validation("body can't be blank".into()));
    }
    s.comments_created += 1;
    Ok(render::new_comment(
        &full,
        row.number(),
        s.comments_created,
        body,
    ))
}

/// Whether a row passes the issue-search qualifiers (`is:`, `type:`, `state:`, `label:`, ...).
fn issue_qualifiers_match(query: &Query, row: Row, r: &Repo) -> bool {
    let is_pull = matches!(row, Row::Pull(_));
    let merged = matches!(row, Row::Pull(p) if p.merged_at.is_some());
    let kind_ok = |v: &str| match v {
        "issue" => !is_pull,
        "pr" | "pull-request" => is_pull,
        "open" | "closed" => v == row.state().as_str(),
        "merged" => merged,
        "unmerged" => is_pull && !merged,
        _ => true,
    };
    let assignee = match row {
        Row::Issue(i) => i.assignee,
        Row::Pull(_) => None,
    };
    repo_qualifiers_match(query, r)
        && query.values("is").chain(query.values("type")).all(kind_ok)
        && query.values("state").all(|v| v == row.state().as_str())
        && query.values("label").all(|l| row.has_label(l))
        && query
            .values("author")
            .all(|u| u.eq_ignore_ascii_case(row.author()))
        && query
            .values("assignee")
            .all(|u| assignee.is_some_and(|a| a.eq_ignore_ascii_case(u)))
}

/// `search_issues`: issues and pull requests across every repository.
pub(super) fn search_issues(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let query = parse_query(a.str("q"))?;
    let mut rows: Vec<Row> = Row::all()
        .filter(|row| {
            data::repo_of(row.repo()).is_some_and(|r| issue_qualifiers_match(&query, *row, r))
                && query.text_matches(&row.text())
        })
        .collect();
    // "Best match" has no meaning over canned rows; recently updated first stands in for it.
    let sort = a
        .opt_str("sort")
        .filter(|s| matches!(*s, "created" | "updated" | "comments"))
        .unwrap_or("updated");
    sort_rows(&mut rows, sort, a.opt_str("order") != Some("asc"));
    let total = rows.len();
    let page = paginate(rows, a.page("page"), a.per_page("per_page"));
    Ok(search_result(
        total,
        page.into_iter().map(Row::render_as_issue).collect(),
    ))
}

/// `list_pull_requests`: open by default; `head` is `branch` or `user:branch`.
pub(super) fn list_pull_requests(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let r = repo(a)?;
    let full = r.full_name();
    let state = a.opt_str("state").unwrap_or("open");
    let head = a.opt_str("head").map(|h| match h.split_once(':') {
        Some((user, branch)) => (Some(user), branch),
        None => (None, h),
    });
    let base = a.opt_str("base");
    let mut rows: Vec<Row> = data::PULLS
        .iter()
        .filter(|p| {
            p.repo == full
                && state_matches(p.state, state)
                && head.is_none_or(|(user, branch)| {
                    p.head == branch
                        && user.is_none_or(|u| {
                            u.eq_ignore_ascii_case(p.author) || u.eq_ignore_ascii_case(r.owner)
                        })
                })
                && base.is_none_or(|b| p.base == b)
        })
        .map(Row::Pull)
        .collect();
    // GitHub's default direction: descending for `created` (or no sort), ascending otherwise.
    let sort = a.opt_str("sort").unwrap_or("created");
    let descending = match a.opt_str("direction") {
        Some(d) => d == "desc",
        None => sort == "created",
    };
    let key = if sort == "long-running" {
        "created"
    } else {
        sort
    };
    sort_rows(&mut rows, key, descending);
    let page = paginate(rows, a.page("page"), a.per_page("per_page"));
    let items = page
        .into_iter()
        .filter_map(|row| match row {
            Row::Pull(p) => Some(render::pull(r, p)),
            Row::Issue(_) => None,
        })
        .collect();
    Ok(Value::Array(items))
}

/// `get_pull_request`: one pull request with its refs and change counts.
pub(super) fn get_pull_request(_: &mut Session, a: Args<'_>) -> Result<Value, ToolError> {
    let r = repo(a)?;
    let full = r.full_name();
    let number = a.number("pull_number");
    match number.and_then(|n| Row::find(&full, n)) {
        Some(Row::Pull(p)) => Ok(render::pull(r, p)),
        Some(Row::Issue(i)) => Err(ToolError::NotFound(format!(
            "#{} in {full} is an issue, not a pull request",
            i.number
        ))),
        None => Err(not_found("pull request", number, &full)),
    }
}
