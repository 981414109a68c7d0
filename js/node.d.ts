// Type declarations for `agentwire/node`: everything from `agentwire`, plus Node transports.
export * from './index.js';
import type { Transport } from './index.js';

export interface StdioTransportOptions {
  /** Added to the parent's environment. */
  env?: Record<string, string>;
  cwd?: string;
  /** What to do with the server's stderr (default `"pipe"`: kept to explain an exit). */
  stderr?: 'pipe' | 'inherit' | 'ignore';
  /** Receives each stderr line (with `stderr: "pipe"`). */
  onStderr?: (line: string) => void;
}

/** An MCP server run as a child process speaking JSON-RPC over stdin/stdout. */
export function stdioTransport(command: string, args?: string[], options?: StdioTransportOptions): Transport;
