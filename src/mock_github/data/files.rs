//! File contents on each repository's default branch. Texts are short stand-ins written for the
//! mock, not copies of the real files. Directories are implied by the paths.

use super::File;

/// Every file the mock can serve.
pub(crate) static FILES: &[File] = &[
    File {
        repo: "vercel/ai",
        path: "README.md",
        content: r#"# AI SDK

The AI SDK is a TypeScript toolkit for building AI-powered applications and agents
with React, Next.js, Vue, Svelte, Node.js and more.

## Installation

```shell
npm install ai
```

## Usage

```ts
import { generateText } from 'ai';

const { text } = await generateText({
  model: 'openai/gpt-4o',
  prompt: 'What is an AI agent?',
});
```

## Tools and MCP

Models can call tools you define with a schema, and tools can come from any
Model Context Protocol (MCP) server through the MCP client.

## Packages

- `ai`: core functions such as `generateText`, `streamText` and `generateObject`
- `@ai-sdk/react`: UI hooks such as `useChat`
- `@ai-sdk/*`: one package per model provider

## License

Apache-2.0
"#,
    },
    File {
        repo: "vercel/ai",
        path: "package.json",
        content: r#"{
  "name": "ai-monorepo",
  "private": true,
  "scripts": {
    "build": "turbo build",
    "test": "turbo test",
    "lint": "turbo lint"
  },
  "packageManager": "pnpm@9.12.0",
  "engines": { "node": ">=18" }
}
"#,
    },
    File {
        repo: "vercel/ai",
        path: "LICENSE",
        content: "Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/\n",
    },
    File {
        repo: "vercel/ai",
        path: "packages/ai/package.json",
        content: r#"{
  "name": "ai",
  "version": "5.0.0",
  "description": "AI SDK by Vercel: the AI Toolkit for TypeScript and JavaScript",
  "license": "Apache-2.0",
  "main": "./dist/index.js",
  "types": "./dist/index.d.ts"
}
"#,
    },
    File {
        repo: "vercel/ai",
        path: "packages/ai/src/index.ts",
        content: r#"export { generateText, streamText } from './generate-text';
export { generateObject, streamObject } from './generate-object';
export { tool } from './tool';
export { experimental_createMCPClient } from './mcp/mcp-client';
"#,
    },
    File {
        repo: "vercel/ai",
        path: "examples/mcp/README.md",
        content: r#"# MCP example

Connects to an MCP server over stdio, lists its tools and lets the model call them:

```ts
const client = await experimental_createMCPClient({ transport });
const tools = await client.tools();
const result = await generateText({ model, tools, prompt });
```
"#,
    },
    File {
        repo: "vercel/next.js",
        path: "README.md",
        content: r#"# Next.js

Next.js is a React framework for building full-stack web applications: routing,
server rendering, data fetching and bundling in one package.

## Getting started

```shell
npx create-next-app@latest
```

Read the documentation at https://nextjs.org/docs.
"#,
    },
    File {
        repo: "vercel/next.js",
        path: "package.json",
        content: r#"{
  "name": "nextjs-project",
  "private": true,
  "scripts": { "build": "turbo run build", "test": "jest" },
  "packageManager": "pnpm@9.12.0"
}
"#,
    },
    File {
        repo: "modelcontextprotocol/servers",
        path: "README.md",
        content: r#"# Model Context Protocol servers

Reference implementations of Model Context Protocol (MCP) servers, plus links to
servers maintained by the community. Each server gives language models secure,
controlled access to tools and data sources.

## Reference servers

- **Everything**: a test server exercising prompts, resources and tools
- **Fetch**: web content fetching and conversion
- **Filesystem**: file operations with configurable access controls
- **Git**: tools to read, search and manipulate Git repositories
- **Memory**: a knowledge-graph-based persistent memory
- **Time**: time and timezone conversions

Servers that are no longer maintained here were moved to the archive repository,
including the GitHub server (`@modelcontextprotocol/server-github`).

## Using a server

```json
{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "<token>" }
    }
  }
}
```
"#,
    },
    File {
        repo: "modelcontextprotocol/servers",
        path: "package.json",
        content: r#"{
  "name": "@modelcontextprotocol/servers",
  "private": true,
  "workspaces": ["src/*"],
  "scripts": { "build": "npm run build --workspaces" }
}
"#,
    },
    File {
        repo: "modelcontextprotocol/servers",
        path: "src/filesystem/README.md",
        content: r#"# Filesystem MCP server

Read, write, move and search files inside the directories given on the command
line. Paths outside them are refused; symlinks are resolved before the check.
"#,
    },
    File {
        repo: "modelcontextprotocol/servers",
        path: "src/everything/README.md",
        content: r#"# Everything MCP server

A server that exercises every feature of the protocol, for testing clients:
tools, resources, prompts, sampling, logging and progress notifications.
"#,
    },
    File {
        repo: "modelcontextprotocol/typescript-sdk",
        path: "README.md",
        content: r#"# MCP TypeScript SDK

Build Model Context Protocol servers and clients in TypeScript.

```ts
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

const server = new McpServer({ name: 'demo', version: '1.0.0' });
```

Transports: stdio and Streamable HTTP.
"#,
    },
    File {
        repo: "modelcontextprotocol/typescript-sdk",
        path: "package.json",
        content: r#"{
  "name": "@modelcontextprotocol/sdk",
  "version": "1.12.0",
  "description": "Model Context Protocol implementation for TypeScript",
  "license": "MIT",
  "type": "module"
}
"#,
    },
    File {
        repo: "modelcontextprotocol/rust-sdk",
        path: "README.md",
        content: r#"# MCP Rust SDK

An async Rust implementation of the Model Context Protocol, with client and
server roles, stdio and HTTP transports, and macros that derive tool schemas.
"#,
    },
    File {
        repo: "modelcontextprotocol/rust-sdk",
        path: "Cargo.toml",
        content: r#"[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.package]
edition = "2021"
license = "MIT"
"#,
    },
    File {
        repo: "facebook/react",
        path: "README.md",
        content: r#"# React

React is a JavaScript library for building user interfaces.

- **Declarative**: describe each state of your UI and React updates it.
- **Component-based**: build encapsulated components that manage their own state.
- **Learn once, write anywhere**: render on the server, in the browser or natively.

Documentation: https://react.dev
"#,
    },
    File {
        repo: "facebook/react",
        path: "package.json",
        content: r#"{
  "private": true,
  "workspaces": ["packages/*"],
  "scripts": { "build": "node ./scripts/rollup/build-all-release-channels.js", "test": "node ./scripts/jest/jest-cli.js" }
}
"#,
    },
    File {
        repo: "facebook/react",
        path: "packages/react/package.json",
        content: r#"{
  "name": "react",
  "description": "React is a JavaScript library for building user interfaces.",
  "version": "19.1.0",
  "license": "MIT",
  "main": "index.js"
}
"#,
    },
    File {
        repo: "rust-lang/rust",
        path: "README.md",
        content: r#"# The Rust Programming Language

This is the main source code repository for Rust: the compiler, the standard
library and the documentation.

## Installing

Most people install Rust with rustup: https://rustup.rs

## Building from source

```shell
./x.py build
```

## Getting help

See https://www.rust-lang.org/community for forums and chat.
"#,
    },
    File {
        repo: "rust-lang/rust",
        path: "Cargo.toml",
        content: r#"[workspace]
resolver = "2"
members = ["compiler/rustc", "src/tools/cargo", "src/tools/clippy"]
"#,
    },
    File {
        repo: "rust-lang/rust",
        path: "compiler/rustc/src/main.rs",
        content: r#"// The rustc binary: a thin wrapper around the compiler driver.
fn main() {
    rustc_driver::main()
}
"#,
    },
];
