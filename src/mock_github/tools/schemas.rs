//! Tool names, descriptions and input schemas, matching `@modelcontextprotocol/server-github`.
//!
//! The real server derives its schemas from zod with `zod-to-json-schema`, which produces
//! draft-07 objects with `additionalProperties: false`; these are written out in that form so a
//! model sees the same tool surface whichever server is behind it.

use super::{issues, repos, Handler};
use serde_json::{json, Map, Value};

/// One tool the mock offers.
pub(crate) struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    /// Runs the tool on arguments that passed the schema.
    pub handler: Handler,
}

impl ToolDef {
    /// The tool as `tools/list` describes it.
    pub fn to_value(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        })
    }
}

/// A property: its type and, optionally, a description.
fn p(kind: &str, description: &str) -> Value {
    let mut v = json!({ "type": kind });
    if !description.is_empty() {
        v["description"] = description.into();
    }
    v
}

fn string_enum(options: &[&str], description: &str) -> Value {
    let mut v = p("string", description);
    v["enum"] = json!(options);
    v
}

fn string_array(description: &str) -> Value {
    let mut v = p("array", description);
    v["items"] = json!({ "type": "string" });
    v
}

fn object(props: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let properties: Map<String, Value> =
        props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#",
    })
}

const OWNER: &str = "Repository owner (username or organization)";
const REPO: &str = "Repository name";

fn owner_repo() -> Vec<(&'static str, Value)> {
    vec![("owner", p("string", OWNER)), ("repo", p("string", REPO))]
}

fn search_options(extra: Option<(&'static str, Value)>) -> Value {
    let mut props = vec![
        ("q", p("string", "")),
        ("order", string_enum(&["asc", "desc"], "")),
        ("page", json!({"type": "number", "minimum": 1})),
        (
            "per_page",
            json!({"type": "number", "minimum": 1, "maximum": 100}),
        ),
    ];
    props.extend(extra);
    object(props, &["q"])
}

/// Every tool, in the order the real server lists them.
pub(crate) fn definitions() -> Vec<ToolDef> {
    let issue_number = || p("number", "");
    let pull_number = || p("number", "Pull request number");
    vec![
        ToolDef {
            name: "search_repositories",
            handler: repos::search_repositories,
            description: "Search for GitHub repositories",
            input_schema: object(
                vec![
                    (
                        "query",
                        p("string", "Search query (see GitHub search syntax)"),
                    ),
                    (
                        "page",
                        p("number", "Page number for pagination (default: 1)"),
                    ),
                    (
                        "perPage",
                        p(
                            "number",
                            "Number of results per page (default: 30, max: 100)",
                        ),
                    ),
                ],
                &["query"],
            ),
        },
        ToolDef {
            name: "get_file_contents",
            handler: repos::get_file_contents,
            description: "Get the contents of a file or directory from a GitHub repository",
            input_schema: object(
                [
                    owner_repo(),
                    vec![
                        ("path", p("string", "Path to the file or directory")),
                        ("branch", p("string", "Branch to get contents from")),
                    ],
                ]
                .concat(),
                &["owner", "repo", "path"],
            ),
        },
        ToolDef {
            name: "create_issue",
            handler: issues::create_issue,
            description: "Create a new issue in a GitHub repository",
            input_schema: object(
                [
                    owner_repo(),
                    vec![
                        ("title", p("string", "")),
                        ("body", p("string", "")),
                        ("assignees", string_array("")),
                        ("milestone", p("number", "")),
                        ("labels", string_array("")),
                    ],
                ]
                .concat(),
                &["owner", "repo", "title"],
            ),
        },
        ToolDef {
            name: "list_commits",
            handler: repos::list_commits,
            description: "Get list of commits of a branch in a GitHub repository",
            input_schema: object(
                [
                    owner_repo(),
                    vec![
                        ("sha", p("string", "")),
                        ("page", p("number", "")),
                        ("perPage", p("number", "")),
                    ],
                ]
                .concat(),
                &["owner", "repo"],
            ),
        },
        ToolDef {
            name: "list_issues",
            handler: issues::list_issues,
            description: "List issues in a GitHub repository with filtering options",
            input_schema: object(
                [
                    owner_repo(),
                    vec![
                        ("direction", string_enum(&["asc", "desc"], "")),
                        ("labels", string_array("")),
                        ("page", p("number", "")),
                        ("per_page", p("number", "")),
                        ("since", p("string", "")),
                        ("sort", string_enum(&["created", "updated", "comments"], "")),
                        ("state", string_enum(&["open", "closed", "all"], "")),
                    ],
                ]
                .concat(),
                &["owner", "repo"],
            ),
        },
        ToolDef {
            name: "add_issue_comment",
            handler: issues::add_issue_comment,
            description: "Add a comment to an existing issue",
            input_schema: object(
                [
                    owner_repo(),
                    vec![("issue_number", issue_number()), ("body", p("string", ""))],
                ]
                .concat(),
                &["owner", "repo", "issue_number", "body"],
            ),
        },
        ToolDef {
            name: "search_code",
            handler: repos::search_code,
            description: "Search for code across GitHub repositories",
            input_schema: search_options(None),
        },
        ToolDef {
            name: "search_issues",
            handler: issues::search_issues,
            description: "Search for issues and pull requests across GitHub repositories",
            input_schema: search_options(Some((
                "sort",
                string_enum(
                    &[
                        "comments",
                        "reactions",
                        "reactions-+1",
                        "reactions--1",
                        "reactions-smile",
                        "reactions-thinking_face",
                        "reactions-heart",
                        "reactions-tada",
                        "interactions",
                        "created",
                        "updated",
                    ],
                    "",
                ),
            ))),
        },
        ToolDef {
            name: "get_issue",
            handler: issues::get_issue,
            description: "Get details of a specific issue in a GitHub repository.",
            input_schema: object(
                [owner_repo(), vec![("issue_number", issue_number())]].concat(),
                &["owner", "repo", "issue_number"],
            ),
        },
        ToolDef {
            name: "get_pull_request",
            handler: issues::get_pull_request,
            description: "Get details of a specific pull request",
            input_schema: object(
                [owner_repo(), vec![("pull_number", pull_number())]].concat(),
                &["owner", "repo", "pull_number"],
            ),
        },
        ToolDef {
            name: "list_pull_requests",
            handler: issues::list_pull_requests,
            description: "List and filter repository pull requests",
            input_schema: object(
                [
                    owner_repo(),
                    vec![
                        (
                            "state",
                            string_enum(
                                &["open", "closed", "all"],
                                "State of the pull requests to return",
                            ),
                        ),
                        (
                            "head",
                            p(
                                "string",
                                "Filter by head user or head organization and branch name",
                            ),
                        ),
                        ("base", p("string", "Filter by base branch name")),
                        (
                            "sort",
                            string_enum(
                                &["created", "updated", "popularity", "long-running"],
                                "What to sort results by",
                            ),
                        ),
                        (
                            "direction",
                            string_enum(&["asc", "desc"], "The direction of the sort"),
                        ),
                        ("per_page", p("number", "Results per page (max 100)")),
                        ("page", p("number", "Page number of the results")),
                    ],
                ]
                .concat(),
                &["owner", "repo"],
            ),
        },
    ]
}
