use super::*;
use serde_json::json;

fn doc(server: &str, tool: &str, description: &str, params: &[(&str, &str)]) -> ToolDoc {
    ToolDoc {
        name: format!("mcp__{server}__{tool}"),
        server: server.to_owned(),
        tool: tool.to_owned(),
        description: description.to_owned(),
        params: params
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_string()))
            .collect(),
    }
}

fn catalog() -> ToolIndex {
    ToolIndex::new(vec![
        doc(
            "github",
            "create_pull_request_review",
            "Create a review on a pull request",
            &[
                ("pull_number", "Pull request number"),
                ("body", "Review comment text"),
            ],
        ),
        doc(
            "github",
            "create_pull_request",
            "Create a new pull request in a GitHub repository",
            &[("title", "PR title")],
        ),
        doc(
            "github",
            "list_issues",
            "List issues in a GitHub repository",
            &[("state", "open or closed")],
        ),
        doc(
            "github",
            "get_issue",
            "Get details of a specific issue",
            &[("issue_number", "")],
        ),
        doc(
            "filesystem",
            "create_directory",
            "Create a new directory",
            &[("path", "")],
        ),
        doc(
            "filesystem",
            "read_file",
            "Read the contents of a file",
            &[("path", "")],
        ),
        doc(
            "memory",
            "add_observations",
            "Add new observations to existing entities in the knowledge graph",
            &[],
        ),
        doc(
            "everything",
            "echo",
            "Echoes back the input",
            &[("message", "Message to echo")],
        ),
        doc(
            "everything",
            "get-sum",
            "Returns the sum of two numbers",
            &[("a", ""), ("b", "")],
        ),
    ])
}

fn names(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.name.as_str()).collect()
}

#[test]
fn from_definition_reads_property_names_and_descriptions_nested_too() {
    let schema = json!({
        "type": "object",
        "properties": {
            "owner": {"type": "string", "description": "Repository owner"},
            "files": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string", "description": "File path"}
            }}},
            "draft": {"type": "boolean"},
            "event": {"enum": ["APPROVE", "COMMENT", 3], "description": "Action"}
        }
    });
    let doc = ToolDoc::from_definition(
        "mcp__github__push_files",
        "github",
        "push_files",
        "Push files",
        &schema,
    );
    assert_eq!(doc.name, "mcp__github__push_files");
    assert_eq!(doc.tool, "push_files");
    assert_eq!(
        doc.params,
        [
            ("owner", "Repository owner"),
            ("files", ""),
            ("path", "File path"),
            ("draft", ""),
            ("event", "Action APPROVE COMMENT")
        ]
        .map(|(n, d)| (n.to_owned(), d.to_owned()))
    );
    // A schema without properties (or not an object at all) has no parameters.
    assert!(ToolDoc::from_definition("x", "s", "x", "", &json!(true))
        .params
        .is_empty());
}

#[test]
fn exact_names_are_pinned_above_longer_names_that_score_higher() {
    let index = catalog();
    for query in [
        "create_pull_request",
        "mcp__github__create_pull_request",
        "use `create_pull_request` now",
    ] {
        let hits = index.search(query, 5);
        assert_eq!(hits[0].name, "mcp__github__create_pull_request", "{query}");
        assert_eq!(
            hits[1].name, "mcp__github__create_pull_request_review",
            "{query}"
        );
        assert!(hits[0].score > hits[1].score);
    }
    // A plain-word bare name pins only as the whole query, not amid other words.
    assert_eq!(names(&index.search("echo", 1)), ["mcp__everything__echo"]);
    assert_eq!(
        index.search("echo", 1)[0].score,
        index.search("echo", 2)[0].score
    );
    let hits = index.search("read file echo", 2);
    assert_eq!(hits[0].name, "mcp__filesystem__read_file");
}

#[test]
fn select_returns_exactly_the_named_tools_in_order() {
    let index = catalog();
    let hits = index.search(
        "select:get_issue, mcp__filesystem__read_file nope get-sum",
        10,
    );
    assert_eq!(
        names(&hits),
        [
            "mcp__github__get_issue",
            "mcp__filesystem__read_file",
            "mcp__everything__get-sum"
        ]
    );
    assert!(hits
        .windows(2)
        .all(|w| w[0].score > w[1].score && w[1].score > 0.0));
    assert_eq!(
        names(&index.search("select:get_issue,get_issue", 10)),
        ["mcp__github__get_issue"]
    );
    assert_eq!(
        names(&index.search("Select: list_issues", 10)),
        ["mcp__github__list_issues"]
    );
    // Limit applies to selections too.
    assert_eq!(index.search("select:get_issue,read_file", 1).len(), 1);
    // Only unknown names: searched as words rather than returning nothing.
    assert_eq!(
        index.search("select:list_issue", 1)[0].name,
        "mcp__github__list_issues"
    );
    assert!(index.search("select:", 5).is_empty());
}

#[test]
fn scored_matches_follow_bm25_and_the_lexicon() {
    let index = catalog();
    assert_eq!(
        index.search("list the issues", 1)[0].name,
        "mcp__github__list_issues"
    );
    // Words the tool text never uses reach it through the concept lexicon.
    assert_eq!(
        index.search("mkdir", 1)[0].name,
        "mcp__filesystem__create_directory"
    );
    assert_eq!(
        index.search("remember that Alice likes tea", 1)[0].name,
        "mcp__memory__add_observations"
    );
    assert_eq!(
        index.search("open a PR", 1)[0].name,
        "mcp__github__create_pull_request"
    );
    assert_eq!(
        index.search("查看议题", 2)[0].name,
        "mcp__github__list_issues"
    );
    let hits = index.search("issue", 10);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(hits.iter().all(|hit| hit.score > 0.0));
}

#[test]
fn nothing_matching_gives_no_hits() {
    let index = catalog();
    assert!(index.search("weather forecast for Paris", 5).is_empty());
    assert!(index.search("", 5).is_empty());
    assert!(index.search("the of a", 5).is_empty());
    assert!(index.search("list issues", 0).is_empty());
    assert!(ToolIndex::new(vec![]).search("list issues", 5).is_empty());
}

#[test]
fn ties_keep_catalog_order_and_results_are_deterministic() {
    let tied = ToolIndex::new(vec![
        doc("b", "second", "same words", &[]),
        doc("a", "first", "same words", &[]),
    ]);
    let hits = tied.search("same words", 5);
    assert_eq!(names(&hits), ["mcp__b__second", "mcp__a__first"]);
    assert_eq!(hits[0].score, hits[1].score);
    let index = catalog();
    let first = index.search("create a pull request review comment", 5);
    for _ in 0..3 {
        assert_eq!(
            catalog().search("create a pull request review comment", 5),
            first
        );
    }
    assert_eq!(index.len(), 9);
    assert!(!index.is_empty() && tied.len() == 2 && ToolIndex::new(vec![]).is_empty());
}
