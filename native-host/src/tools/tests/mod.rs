//! Tests of the built-in tools against real temporary directories and real processes.

mod bash;
mod bash_escapes;
mod calc_weather;
mod confinement;
mod files;
mod home;
mod protected;
mod sandbox;
mod sandbox_policy;
mod search;
mod secrets;
mod special_files;

use super::{builtin_tools, find_tool, BuiltinTool, ToolContext, Workspace};
use agentwire::content::ToolOutput;
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

/// A workspace directory and a sibling directory outside it.
struct Fixture {
    ws: TempDir,
    outside: TempDir,
    tools: Vec<Box<dyn BuiltinTool>>,
    ctx: ToolContext,
}

impl Fixture {
    fn new() -> Fixture {
        let ws = TempDir::new().unwrap();
        let outside = TempDir::new().unwrap();
        let tools = builtin_tools(Workspace::new(ws.path()).unwrap());
        Fixture {
            ws,
            outside,
            tools,
            ctx: ToolContext::default(),
        }
    }

    fn root(&self) -> &Path {
        self.ws.path()
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.ws.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.ws.path().join(rel)).unwrap()
    }

    async fn call(&self, name: &str, args: Value) -> ToolOutput {
        let tool = find_tool(&self.tools, name).unwrap_or_else(|| panic!("no tool {name}"));
        tool.execute(args, &self.ctx).await
    }

    /// Calls and expects success; returns the text.
    async fn ok(&self, name: &str, args: Value) -> String {
        let out = self.call(name, args.clone()).await;
        let text = out.to_model_text();
        assert!(!out.is_error, "{name} {args} failed: {text}");
        text
    }

    /// Calls and expects an error result; returns its message.
    async fn err(&self, name: &str, args: Value) -> String {
        let out = self.call(name, args.clone()).await;
        let text = out.to_model_text();
        assert!(out.is_error, "{name} {args} should fail, got: {text}");
        text
    }
}

#[test]
fn registry_lists_every_tool_with_schema_and_risk() {
    let fx = Fixture::new();
    let names: Vec<_> = fx.tools.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "write_file",
            "edit_file",
            "list_directory",
            "glob",
            "grep",
            "bash",
            "calculator",
            "get_weather"
        ]
    );
    for tool in &fx.tools {
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{}", tool.name());
        for req in schema["required"].as_array().into_iter().flatten() {
            let key = req.as_str().unwrap();
            assert!(
                schema["properties"].get(key).is_some(),
                "{}: {key}",
                tool.name()
            );
        }
        assert!(!tool.description().is_empty());
        let def = tool.definition();
        assert_eq!(def.name, tool.name());
        assert_eq!(def.input_schema, schema);
    }
    let risk = |n: &str| find_tool(&fx.tools, n).unwrap().risk();
    assert_eq!(risk("read_file"), "read");
    assert_eq!(risk("list_directory"), "read");
    assert_eq!(risk("glob"), "read");
    assert_eq!(risk("grep"), "read");
    assert_eq!(risk("write_file"), "write");
    assert_eq!(risk("edit_file"), "write");
    assert_eq!(risk("bash"), "execute");
    assert_eq!(risk("get_weather"), "read");
    assert_eq!(risk("calculator"), "read");
    assert!(find_tool(&fx.tools, "nope").is_none());
}

#[tokio::test]
async fn non_object_arguments_are_errors_for_every_tool() {
    let fx = Fixture::new();
    for tool in &fx.tools {
        for bad in [
            serde_json::json!([1]),
            serde_json::json!("x"),
            serde_json::json!(3),
        ] {
            let out = tool.execute(bad.clone(), &fx.ctx).await;
            assert!(out.is_error, "{} accepted {bad}", tool.name());
            assert!(
                out.to_model_text().contains("must be a JSON object"),
                "{}: {}",
                tool.name(),
                out.to_model_text()
            );
        }
    }
}
