//! A temporary home folder that is also the workspace, for the tests of the protected places.

use super::super::{builtin_tools, find_tool, BuiltinTool, Protected, ToolContext, Workspace};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A home folder (a temporary directory) with its state directory and config home inside.
pub(super) struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    pub(super) fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(super) fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// The user's places of this home.
    pub(super) fn protected(&self) -> Protected {
        let home = self.path();
        Protected::for_user(
            Some(&home),
            Some(&home.join(".local/state/agentwire")),
            Some(&home.join(".config")),
        )
    }

    /// The built-in tools on `root`, protecting `protected`.
    pub(super) fn tools(&self, root: &Path, protected: Protected) -> Vec<Box<dyn BuiltinTool>> {
        builtin_tools(Workspace::new(root).unwrap().protecting(protected))
    }

    /// Writes `content` to `rel`, making its folders.
    pub(super) fn write(&self, rel: &str, content: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

/// Runs the tool `name`: whether it succeeded, and what the model would see.
pub(super) async fn call(
    tools: &[Box<dyn BuiltinTool>],
    name: &str,
    args: Value,
) -> (bool, String) {
    let out = find_tool(tools, name)
        .unwrap()
        .execute(args, &ToolContext::default())
        .await;
    (!out.is_error, out.to_model_text())
}
