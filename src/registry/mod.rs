//! The tool registry: built-in and MCP tools under one namespace, with risk and limits.
