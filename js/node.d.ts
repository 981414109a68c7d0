// Type declarations for `agentwire/node`: everything from `agentwire`, plus Node transports.
export * from './index.js';
import type { CommandDefinition, InstructionFile, Instructions, Plugin, SkillDefinition, Transport } from './index.js';

export interface StdioTransportOptions {
  /** The server's environment beyond the short list it inherits (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_ALL, LC_CTYPE, TERM, TMPDIR, TZ): nothing else of `process.env` reaches it. */
  env?: Record<string, string>;
  cwd?: string;
  /** What to do with the server's stderr (default `"pipe"`: kept to explain an exit). */
  stderr?: 'pipe' | 'inherit' | 'ignore';
  /** Receives each stderr line (with `stderr: "pipe"`). */
  onStderr?: (line: string) => void;
}

/** An MCP server run as a child process speaking JSON-RPC over stdin/stdout. */
export function stdioTransport(command: string, args?: string[], options?: StdioTransportOptions): Transport;

/** Reads `dir/SKILL.md` and the files it ships (none outside `dir`); parser notes in `warnings`. */
export function loadSkillDir(dir: string): Promise<SkillDefinition & { readonly warnings: string[] }>;

/** Reads a plugin folder (manifest, skills, commands, `.mcp.json`); stdio servers become `stdioTransport`s. */
export function loadPluginDir(dir: string, opts?: { env?: Record<string, string> }): Promise<Plugin & { readonly warnings: string[] }>;

/** Skills, commands and plugins where the CLI looks, with its precedence (user beats project). */
export function discoverExtensions(opts?: {
  cwd?: string;
  home?: string;
  /** Load project plugins and count project skills' `allowed-tools`. */
  trustWorkspace?: boolean;
  /** No discovery at all. */
  bare?: boolean;
  env?: Record<string, string>;
}): Promise<{ skills: SkillDefinition[]; commands: CommandDefinition[]; plugins: Plugin[]; warnings: string[] }>;

/**
 * The instructions a session in `cwd` gets, where the CLI finds them (user files, the git root
 * down to `cwd`, `.claude/rules`), confined as the CLI reads them; for `createAgent({ instructions })`.
 */
export function loadInstructions(opts?: {
  cwd?: string;
  home?: string;
  /** Where `agentwire/AGENTWIRE.md` is (default `$XDG_CONFIG_HOME`, else `~/.config`). */
  configHome?: string;
  /** Let imports leave the workspace. */
  trustWorkspace?: boolean;
  /** Most bytes of the block (default 32768). */
  budgetBytes?: number;
  /** Load nothing. */
  bare?: boolean;
}): Promise<Instructions & { readonly files: InstructionFile[]; readonly warnings: string[] }>;
