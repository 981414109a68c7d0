//! The mock's tools: definitions, argument checking, and the handlers over canned data.

mod issues;
mod repos;
mod schemas;

pub(crate) use schemas::{definitions, ToolDef};

use super::args::{self, Args};
use super::data::{self, Repo};
use serde_json::{Map, Value};

/// What a tool handler needs besides its arguments: options and per-session counters.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// Serve file bodies base64-encoded (raw GitHub API) instead of decoded (real MCP server).
    pub base64_contents: bool,
    /// Issues "created" so far, so each gets a fresh number (nothing is stored).
    pub issues_created: u64,
    /// Comments "added" so far, for distinct comment ids.
    pub comments_created: u64,
}

/// A tool handler: arguments that passed the schema in, GitHub API response out.
pub(crate) type Handler = fn(&mut Session, Args<'_>) -> Result<Value, ToolError>;

/// Why a tool call failed; reported to the model as an `isError` result.
#[derive(Debug, PartialEq)]
pub(crate) enum ToolError {
    /// The arguments do not match the schema; one entry per problem.
    InvalidArguments(Vec<String>),
    /// The repository, issue, file or ref does not exist (GitHub's 404).
    NotFound(String),
    /// GitHub would refuse the request (its 422), e.g. an empty search query.
    Validation(String),
}

impl ToolError {
    /// The text the real server would show, followed by the specifics.
    pub fn message(&self) -> String {
        match self {
            ToolError::InvalidArguments(problems) => {
                format!("Invalid arguments: {}", problems.join("; "))
            }
            ToolError::NotFound(detail) => format!("Not Found: Resource not found: {detail}"),
            ToolError::Validation(detail) => {
                format!("Validation Error: Validation Failed: {detail}")
            }
        }
    }
}

/// Checks the arguments against the tool's schema, then runs it.
pub(crate) fn call(
    tool: &ToolDef,
    session: &mut Session,
    arguments: &Map<String, Value>,
) -> Result<Value, ToolError> {
    args::validate(&tool.input_schema, arguments).map_err(ToolError::InvalidArguments)?;
    (tool.handler)(session, Args(arguments))
}

/// The repository named by the `owner` and `repo` arguments.
fn repo(a: Args<'_>) -> Result<&'static Repo, ToolError> {
    let (owner, name) = (a.str("owner"), a.str("repo"));
    data::find_repo(owner, name).ok_or_else(|| {
        let known: Vec<String> = data::REPOS.iter().map(Repo::full_name).collect();
        ToolError::NotFound(format!(
            "repository {owner}/{name} does not exist in the mock's canned data (it has: {})",
            known.join(", ")
        ))
    })
}
