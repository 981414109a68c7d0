//! Issue and pull request tools over the canned data, including the write tools.

use super::{call_err, call_ok, numbers, server, strings};
use serde_json::{json, Value};

#[test]
fn list_issues_filters_sorts_and_pages() {
    let mut s = server();
    let base = json!({"owner": "vercel", "repo": "ai"});
    let with = |extra: Value| {
        let mut args = base.clone();
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        args
    };
    let open = call_ok(&mut s, "list_issues", base.clone());
    assert_eq!(
        numbers(&open),
        [6241, 6218, 6175, 6152, 6101],
        "open by default, newest first"
    );
    assert!(strings(&open, "state").iter().all(|st| st == "open"));
    let first = &open[0];
    assert_eq!(first["user"]["login"], "mika-lindqvist");
    assert_eq!(first["comments"], 4);
    assert_eq!(
        first["html_url"],
        "https://github.com/vercel/ai/issues/6241"
    );
    assert_eq!(strings(&first["labels"], "name"), ["bug", "ai/mcp"]);
    assert!(first["created_at"].is_string() && first["title"].is_string());

    let cases = [
        (json!({"state": "closed"}), vec![6190, 6133, 6088]),
        (
            json!({"state": "all", "per_page": 3}),
            vec![6241, 6218, 6190],
        ),
        (
            json!({"state": "all", "per_page": 3, "page": 3}),
            vec![6101, 6088],
        ),
        (json!({"labels": ["bug"]}), vec![6241, 6101]),
        (json!({"labels": ["BUG", "ai/mcp"]}), vec![6241]),
        (json!({"labels": ["bug,ai/ui"]}), vec![6101]),
        (
            json!({"state": "all", "labels": ["ai/mcp"], "direction": "asc"}),
            vec![6088, 6218, 6241],
        ),
        (
            json!({"sort": "comments"}),
            vec![6218, 6152, 6241, 6101, 6175],
        ),
        (
            json!({"since": "2025-06-08T00:00:00Z"}),
            vec![6241, 6218, 6175],
        ),
        (json!({"page": 9}), vec![]),
    ];
    for (extra, expected) in cases {
        let r = call_ok(&mut s, "list_issues", with(extra.clone()));
        assert_eq!(numbers(&r), expected, "list_issues with {extra}");
    }
    let other = call_ok(
        &mut s,
        "list_issues",
        json!({"owner": "Facebook", "repo": "React"}),
    );
    assert_eq!(
        numbers(&other),
        [31840, 31777],
        "owner and repo are case-insensitive"
    );
}

#[test]
fn get_issue_finds_issues_and_pull_requests() {
    let mut s = server();
    let i = call_ok(
        &mut s,
        "get_issue",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6190}),
    );
    assert_eq!(i["number"], 6190);
    assert_eq!(i["state"], "closed");
    assert!(i["closed_at"].is_string());
    assert!(i["body"].as_str().is_some_and(|b| b.contains("onFinish")));
    assert!(i.get("pull_request").is_none());
    let p = call_ok(
        &mut s,
        "get_issue",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6250}),
    );
    assert_eq!(
        p["pull_request"]["html_url"],
        "https://github.com/vercel/ai/pull/6250"
    );
    for n in [json!(1), json!(6241.5), json!(-6241)] {
        let err = call_err(
            &mut s,
            "get_issue",
            json!({"owner": "vercel", "repo": "ai", "issue_number": n}),
        );
        assert!(
            err.starts_with("Not Found: Resource not found: no issue"),
            "{err}"
        );
    }
}

#[test]
fn pull_request_tools() {
    let mut s = server();
    let base = json!({"owner": "vercel", "repo": "ai"});
    let open = call_ok(&mut s, "list_pull_requests", base.clone());
    assert_eq!(numbers(&open), [6250, 6236]);
    assert_eq!(open[1]["draft"], true);
    let cases = [
        (json!({"state": "closed"}), vec![6199, 6160]),
        (
            json!({"state": "all", "sort": "popularity"}),
            vec![6160, 6250, 6199, 6236],
        ),
        (
            json!({"state": "all", "sort": "popularity", "direction": "desc"}),
            vec![6236, 6199, 6250, 6160],
        ),
        (json!({"head": "mcp-tools-pagination"}), vec![6250]),
        (
            json!({"head": "mika-lindqvist:mcp-tools-pagination"}),
            vec![6250],
        ),
        (json!({"head": "someone-else:mcp-tools-pagination"}), vec![]),
        (json!({"base": "canary"}), vec![]),
        (
            json!({"state": "all", "per_page": 1, "page": 2}),
            vec![6236],
        ),
    ];
    for (extra, expected) in cases {
        let mut args = base.clone();
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        assert_eq!(
            numbers(&call_ok(&mut s, "list_pull_requests", args)),
            expected,
            "{extra}"
        );
    }

    let pr = call_ok(
        &mut s,
        "get_pull_request",
        json!({"owner": "vercel", "repo": "ai", "pull_number": 6199}),
    );
    assert_eq!(pr["merged"], true);
    assert_eq!(pr["head"]["ref"], "fix-onfinish-abort");
    assert_eq!(pr["base"]["ref"], "main");
    assert_eq!(pr["base"]["repo"]["full_name"], "vercel/ai");
    assert_eq!(pr["user"]["login"], "ana-duarte");
    assert!(pr["merge_commit_sha"].is_string());
    let err = call_err(
        &mut s,
        "get_pull_request",
        json!({"owner": "vercel", "repo": "ai", "pull_number": 6241}),
    );
    assert!(err.contains("is an issue, not a pull request"), "{err}");
    let err = call_err(
        &mut s,
        "get_pull_request",
        json!({"owner": "vercel", "repo": "ai", "pull_number": 7}),
    );
    assert!(err.starts_with("Not Found:"), "{err}");
}

#[test]
fn search_issues_spans_issues_and_pull_requests() {
    let mut s = server();
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "repo:vercel/ai is:issue is:open mcp"}),
    );
    assert_eq!(numbers(&r), [6241, 6218]);
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "is:pr is:merged", "sort": "created", "order": "asc"}),
    );
    assert_eq!(numbers(&r), [134470, 1405, 6199, 31850]);
    assert!(r["items"][0].get("pull_request").is_some());
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "label:\"good first issue\""}),
    );
    assert_eq!(numbers(&r), [134401, 6175]);
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "author:wei-chen type:issue"}),
    );
    assert_eq!(numbers(&r), [134512, 1420]);
    let r = call_ok(
        &mut s,
        "search_issues",
        json!({"q": "pagination state:closed"}),
    );
    assert_eq!(r["total_count"], 0);
}

#[test]
fn write_tools_answer_plausibly_without_storing_anything() {
    let mut s = server();
    let args = json!({"owner": "vercel", "repo": "ai", "title": "Demo issue", "body": "Hi", "labels": ["bug"], "assignees": ["ana-duarte"]});
    let a = call_ok(&mut s, "create_issue", args.clone());
    let b = call_ok(&mut s, "create_issue", args);
    assert_eq!(
        (a["number"].as_u64(), b["number"].as_u64()),
        (Some(6251), Some(6252))
    );
    assert_eq!(a["title"], "Demo issue");
    assert_eq!(a["state"], "open");
    assert_eq!(a["user"]["login"], "mock-user");
    assert_eq!(a["assignee"]["login"], "ana-duarte");
    assert_eq!(strings(&a["labels"], "name"), ["bug"]);
    assert_eq!(a["html_url"], "https://github.com/vercel/ai/issues/6251");
    let err = call_err(
        &mut s,
        "get_issue",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6251}),
    );
    assert!(
        err.starts_with("Not Found:"),
        "created issues are not stored: {err}"
    );
    let err = call_err(
        &mut s,
        "create_issue",
        json!({"owner": "vercel", "repo": "ai", "title": " "}),
    );
    assert!(err.contains("title can't be blank"), "{err}");

    let c = call_ok(
        &mut s,
        "add_issue_comment",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 6241, "body": "Thanks!"}),
    );
    assert_eq!(c["body"], "Thanks!");
    assert!(c["html_url"]
        .as_str()
        .is_some_and(|u| u.contains("/issues/6241#issuecomment-")));
    let err = call_err(
        &mut s,
        "add_issue_comment",
        json!({"owner": "vercel", "repo": "ai", "issue_number": 1, "body": "x"}),
    );
    assert!(err.starts_with("Not Found:"), "{err}");
}
