// Type declarations for `agentwire`.

// ----- models -------------------------------------------------------------------------------

/** A tool as the model sees it. */
export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
}

/** A tool call the model asks for. */
export interface ToolCall {
  /** Call id; tool results refer to it. */
  id: string;
  name: string;
  /** Arguments; an object (a JSON string is accepted from models). */
  arguments: Record<string, unknown> | string;
}

/** One message of the conversation, in the core's shape. */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean };

/** What a model is asked. */
export interface ModelRequest {
  system: string;
  messages: ChatMessage[];
  tools: ModelTool[];
}

/** Tokens a model call consumed, as its backend reported them (counts it did not report are absent). */
export interface ModelUsage {
  /** Prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Prompt tokens written to the prompt cache. */
  cacheWriteTokens?: number;
}

/** A model's answer: tool calls to make, or (without tool calls) the final text. */
export interface ModelResponse {
  text?: string | null;
  toolCalls?: ToolCall[] | null;
  /** Token usage, when the backend reports it (`openaiCompatible` does). */
  usage?: ModelUsage | null;
}

/** Token usage in events (snake_case, like the other event fields). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}

/** Passed to `complete` as its second argument. */
export interface CompleteContext {
  /** Report text as it streams in; it reaches `onEvent` as `text_delta` events. */
  onText?: (text: string) => void;
  /**
   * Report the model's visible reasoning as it streams in (models that send
   * `reasoning_content`); it reaches `onEvent` as `reasoning_delta` events and is never part of
   * the answer or the history.
   */
  onReasoning?: (text: string) => void;
  /** Aborted when the run stops waiting for this call (the run was aborted): stop the request. */
  signal?: AbortSignal;
}

/** Any model: an object whose `complete` answers one request. */
export interface Model {
  complete(request: ModelRequest, context?: CompleteContext): Promise<ModelResponse> | ModelResponse;
}

/** The built-in mock model (deterministic, offline). The default. */
export function mockModel(): Model;

export interface OpenAICompatibleOptions {
  /** E.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Model name, e.g. `gpt-4o-mini`, `qwen-plus`. */
  model: string;
  /** Stream the answer (default true). */
  stream?: boolean;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  temperature?: number;
  maxTokens?: number;
  /** Extra top-level body fields (vendor options), copied last. */
  extra?: Record<string, unknown>;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * Retries after a 408, 429 or 5xx answer (default 3): `Retry-After` is honoured up to 60 s,
   * otherwise 0.5 s doubling up to 8 s. A 401 or other 4xx fails at once.
   */
  retries?: number;  /**
   * The most bytes an answer's body may have (default 64 MiB); a longer one (a runaway or
   * hostile stream) fails with an error naming the provider and this option.
   */
  maxAnswerBytes?: number;
  /**
   * The longest one answer may take, from sending the request to its last byte, in ms (default
   * 30 minutes); a stream still arriving then fails with an error naming this option.
   */
  maxAnswerMs?: number;
}

/** A model behind an OpenAI-compatible chat completions endpoint, over `fetch`. */
export function openaiCompatible(options: OpenAICompatibleOptions): Model;

export interface AnthropicOptions {
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Model name, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Default `https://api.anthropic.com`; `/v1/messages` is appended (`/messages` after `/v1`). */
  baseURL?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * Allow use from a browser page, where the key is visible to every visitor; sends
   * `anthropic-dangerous-direct-browser-access: true`. Without it, `anthropic()` throws in a browser.
   */
  dangerouslyAllowBrowser?: boolean;
  /** Stream the answer (default true). */
  stream?: boolean;
  /** `max_tokens` (default 8192). */
  maxTokens?: number;
  temperature?: number;
  /** Prompt-caching breakpoints on the last tool and the newest message (default true). */
  cache?: boolean;
  /** `tool_choice`, e.g. `{ type: 'any' }`. */
  toolChoice?: Record<string, unknown>;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  /** Extra top-level body fields (e.g. `thinking`), copied last. */
  extra?: Record<string, unknown>;
  /** Retries after a 408, 429, 529 or other 5xx answer (default 3), honouring `retry-after`. */
  retries?: number;  /**
   * The most bytes an answer's body may have (default 64 MiB); a longer one (a runaway or
   * hostile stream) fails with an error naming the provider and this option.
   */
  maxAnswerBytes?: number;
  /**
   * The longest one answer may take, from sending the request to its last byte, in ms (default
   * 30 minutes); a stream still arriving then fails with an error naming this option.
   */
  maxAnswerMs?: number;
}

/** Claude through the Anthropic Messages API, over `fetch`; usage carries cache reads and writes. */
export function anthropic(options: AnthropicOptions): Model;

/** A piece of a streamed answer. */
export type StreamDelta =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; index: number; id: string; name: string };

/** The core's OpenAI-compatible wire codec, for hosts that call a model themselves. */
export const openaiCodec: {
  encodeRequest(
    request: ModelRequest,
    options: { model: string; stream?: boolean; temperature?: number; maxTokens?: number; extra?: Record<string, unknown> },
  ): Record<string, unknown>;
  decodeResponse(body: string | Uint8Array | ArrayBuffer): ModelResponse;
  createStreamDecoder(): {
    push(chunk: string | Uint8Array | ArrayBuffer): StreamDelta[];
    finish(): ModelResponse;
  };
};

// ----- transports ----------------------------------------------------------------------------

/**
 * A connection to an MCP server, made of four functions: bridge a WebContainer `spawn()`
 * process, a worker, a WebSocket, anything that moves JSON-RPC messages.
 */
export interface Transport {
  /** Sends one JSON-RPC message (a line of JSON, without the newline). May return a promise. */
  send(line: string): void | Promise<void>;
  /** Registers the callback for messages from the server: one whole message per call. */
  onMessage(callback: (message: string | object) => void): void;
  /** Registers the callback for the end of the connection, with the reason if known. */
  onClose?(callback: (reason?: string | Error) => void): void;
  /**
   * Registers the callback for authorization rounds: call it with `true` when the transport
   * starts waiting for credentials (a user consenting in a popup) and `false` when it has them
   * or gave up. Request timeouts stop meanwhile, since the server is not the one being slow.
   */
  onAuthorizing?(callback: (authorizing: boolean) => void): void;
  /** Ends the connection. */
  close?(): void;
}

/** The built-in mock GitHub MCP server (canned data, no network) as a transport. */
export function mockGithub(): Transport;

// ----- tools, events, results ----------------------------------------------------------------

/** How dangerous a tool is. By default `read` runs without asking and the others ask. */
export type Risk = 'read' | 'network' | 'write' | 'execute';

/** One block of tool output (MCP content). */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; description?: string; mimeType?: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** An MCP `CallToolResult`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface ToolContext {
  /** The tool's name. */
  name: string;
  /** Aborted when the runtime stops waiting for the call (its timeout). */
  signal: AbortSignal;
  /** Plugin tools only: calls another tool through the gate (deny refuses; ask asks the run's `onApproval`). */
  callTool?(name: string, args?: Record<string, unknown>): Promise<DirectCallResult>;
  /** Plugin tools only: a notice for `onNotice`, prefixed with the plugin's name. */
  log?(message: string): void;
}

/** A tool implemented in JS. */
export interface ToolDefinition<Args = any> {
  /** `[A-Za-z0-9_-]`, at most 64 characters, unique among the agent's tools. */
  name: string;
  description?: string;
  /** JSON Schema of the arguments (default: an object with no declared properties). */
  inputSchema?: Record<string, unknown>;
  /** Default `"write"`: asks before running unless a rule allows it. */
  risk?: Risk;
  /**
   * Runs the tool. Return a string (text), a `CallToolResult`, or any JSON value (sent as
   * text and as `structuredContent`). A throw becomes an error result for the model.
   */
  execute(args: Args, context: ToolContext): unknown | Promise<unknown>;
  /** Per-call timeout (default: the agent's `toolTimeoutMs`, 60 s). */
  timeoutMs?: number;
  /** Longest output fed to the model, in characters (default 50 000). */
  maxOutputChars?: number;
}

/** An entry of `agent.tools()`. */
export interface ToolInfo {
  /** The name the model calls it by; MCP tools are `mcp__<server>__<tool>`. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  risk: Risk;
  /**
   * `builtin`: registered with `registerTool`; `mcp`: from an MCP server; `plugin`: a JS
   * plugin's (`plugin__<p>__<tool>`); `skill`: the core's `activate_skill`/`read_skill_file`;
   * `subagent`: the `Agent` tool (with the `agents` option).
   */
  source: 'builtin' | 'mcp' | 'plugin' | 'skill' | 'subagent';
  /** The owning plugin (its tools, and tools of its servers). */
  plugin?: string;
  /** The MCP server (for `mcp` tools). */
  server?: string;
  /** The tool's own name on its server (for `mcp` tools). */
  originalName?: string;
  timeoutMs: number;
  maxOutputChars: number;
  concurrencySafe: boolean;
  annotations?: Record<string, unknown>;
  /**
   * `direct`: its definition is sent with every model request; `deferred`: only its name is
   * listed in `tool_search`'s description, and the model finds it there and calls it through
   * `call_tool` (see `AgentOptions.toolSearch`).
   */
  loading: 'direct' | 'deferred';
  /** Estimated tokens of its definition as sent (bytes / 4.5). */
  estimatedTokens: number;
}

/** An entry of `agent.servers()`, and what `agent.connect` resolves to. */
export interface ServerInfo {
  name: string;
  status: 'connected' | 'failed' | 'disabled';
  /** Tools registered (when connected). */
  tools?: number;
  /** Why it failed. */
  error?: string;
  /** The server's `serverInfo` (when connected). */
  serverInfo?: { name?: string; version?: string; [key: string]: unknown };
  /** The MCP version the session speaks (when connected). */
  protocolVersion?: string;
  /** `'modern'` (2026-07-28: no handshake, `_meta` on every request) or `'legacy'` (when connected). */
  era?: 'modern' | 'legacy';
  /** The 2026-07-28 extensions in use with it (asked for in `ConnectOptions` and declared by the server). */
  extensions?: Array<'io.modelcontextprotocol/tasks' | 'io.modelcontextprotocol/skills'>;
  /** The server's recent log lines and notices. */
  log: string[];
}

/** A resource a server lists (`server` added by agentwire). */
export interface McpResource {
  server: string;
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** A resource template (RFC 6570 `uriTemplate`). */
export interface McpResourceTemplate {
  server: string;
  uriTemplate: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** One item of a read resource: text, or base64 `blob`. */
export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A prompt a server offers. */
export interface McpPrompt {
  server: string;
  name: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** `prompts/get`'s result. */
export interface McpPromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: Record<string, unknown> }[];
}

/**
 * Events of a run, in order: each step's `step_start`, then text, tool calls, the end. A
 * subagent's events have the same shapes plus `agent` (its name) and `parent_tool_use_id` (the
 * id of the `Agent` call that started it); its `done` or `error` does not end the run.
 */
export type AgentEvent = (BaseEvent & { agent?: undefined; parent_tool_use_id?: undefined }) | SubagentEvent;

/** An event of a subagent's run. */
export type SubagentEvent = BaseEvent & { agent: string; parent_tool_use_id: string };

/** The shapes of the events (of the run, or of a subagent's run). */
export type BaseEvent =
  | { type: 'step_start'; step: number }
  /** After a model call whose backend reported usage (none otherwise). */
  | { type: 'step_end'; step: number; usage: Usage }
  | { type: 'model_text'; text: string }
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'tool_start'; id: string; name: string; args: Record<string, unknown> }
  | {
      type: 'tool_end';
      id: string;
      name: string;
      ok: boolean;
      duration_ms: number;
      truncated: boolean;
      /** The start of what the model was given. */
      output: string;
    }
  /**
   * A running MCP call's progress (`notifications/progress`, or a task's `statusMessage`, when
   * `progress` is the milliseconds the task has run): the latest at most every 250 ms per call,
   * between its `tool_start` and `tool_end`. `message` is the server's text, at most 200
   * characters; absent fields were not sent.
   */
  | {
      type: 'tool_progress';
      id: string;
      name: string;
      server?: string;
      progress: number;
      total?: number;
      message?: string;
    }
  | { type: 'approval_request'; id: string; name: string; args: Record<string, unknown>; risk: Risk }
  /** A `tool_search` ran (besides its `tool_start`/`tool_end`): the tools it found, best first. */
  | { type: 'tool_search'; query: string; results: string[] }
  | { type: 'notice'; message: string }
  /** An MCP server's `notifications/message` (seen between steps). */
  | { type: 'server_log'; server: string; level: string; logger: string | null; data: unknown }
  /** A server changed its tools (`list_changed`); `tools` is how many it now has. */
  | { type: 'tools_changed'; server: string; tools: number }
  /** A subscribed resource changed. */
  | { type: 'resource_updated'; server: string; uri: string }
  | { type: 'error'; message: string }
  /** A leading `/name args` was expanded into the run's user message (`chars` long). */
  | { type: 'command_expanded'; name: string; qualified: string; source: string; chars: number }
  /** The conversation was compacted to fit the context window (estimated tokens). */
  | { type: 'compacted'; mode: 'stub' | 'summary'; tokens_before: number; tokens_after: number }
  /** `usage`: the run's steps summed, when any reported usage; `context`: the window's use. */
  | { type: 'done'; answer: string; steps: number; usage?: Usage; context?: ContextReport }
  /** The run stopped for approvals nobody here can give (a session and no `onApproval`). */
  | { type: 'paused'; pending: Array<PendingCall & { awaiting_approval: boolean }> };

/** What `onApproval` is asked. */
export interface ApprovalRequest {
  id: string;
  name: string;
  args: Record<string, unknown>;
  risk: Risk;
  /** The subagent asking, when a child made the call. */
  agent?: string;
}

/**
 * `true` or `"yes"`: run it; `false`, `"no"` or nothing: decline; `"always"`: run it and stop
 * asking about this tool for the rest of the session.
 */
export type ApprovalAnswer = boolean | 'yes' | 'no' | 'always' | undefined | null;

export interface RunOptions {
  onEvent?: (event: AgentEvent) => void;
  /**
   * Without it, every call that needs approval is declined; with a `session` too, the run
   * pauses instead (it rejects with a `PausedError`, and `agent.resume()` continues it).
   */
  onApproval?: (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /**
   * Aborts the run: the model request is aborted, MCP calls in flight get
   * `notifications/cancelled`, JS tools see their context's `signal` aborted with this signal's
   * reason; the run ends with one `error` event and rejects with an `AbortError`.
   */
  signal?: AbortSignal;
}

/** Options of `agent.stream()`: leaving the loop early aborts the run like `signal`. */
export type StreamOptions = Omit<RunOptions, 'onEvent'>;

/** What a request takes of the context window, in tokens (`agent.context()`, `done.context`). */
export interface ContextReport {
  system: number;
  tools: number;
  skills: number;
  history: number;
  total: number;
  /** The window, when known (`contextWindow`). */
  window?: number;
  free?: number;
  /** Where automatic compaction starts (`compactAt` percent of the window). */
  compact_at?: number;
  /** Whether the model's reported usage refined the estimate. */
  measured: boolean;
}

/**
 * One entry of the transcript format (a line of a CLI session file, what a session store
 * keeps): `type` says what happened (`session` is the header).
 */
export type TranscriptEntry =
  | { type: 'session'; version: 1; id: string }
  | { type: 'user'; content: string }
  | {
      type: 'assistant';
      content: string | null;
      tool_calls: Array<{ id: string; name: string; arguments: unknown }>;
      usage?: Usage;
    }
  | { type: 'tool_result'; call_id: string; name: string; content: string; is_error: boolean }
  | { type: 'approval'; call_id: string; answer: 'yes' | 'no' | 'always' }
  | { type: 'compaction'; mode: 'stub' | 'summary'; tokens_before: number; tokens_after: number; messages: unknown[] }
  | { type: 'clear' | 'command' | 'notice' | 'catalog_notice'; [field: string]: unknown };

/** A saved conversation from `agent.history()`: the transcript format's entries. */
export interface SavedHistory {
  version: 1;
  entries: TranscriptEntry[];
}

/** The shape `agent.history()` gave before the transcript format; still loads. */
export interface SavedMessages {
  version: 1;
  messages: ChatMessage[];
}

/**
 * Where a session's transcript lives: `append` gets every entry as it happens (after the
 * header, which a fresh store gets first), `load` gives them all back (entries or JSON lines,
 * or one JSONL text). Either may be async. Secrets (sensitive environment values, the model
 * key) never reach it.
 */
export interface SessionStore {
  append(entry: TranscriptEntry): void | Promise<void>;
  load(): TranscriptEntry[] | string[] | string | undefined | null | Promise<TranscriptEntry[] | string[] | string | undefined | null>;
}

/** A call a paused run waits on. */
export interface PendingCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A decision on a pending call: run it once, decline it, or run it and stop asking. */
export type ResumeAnswer = 'approve' | 'reject' | 'always' | 'yes' | 'no' | boolean;

/** Options of `agent.resume()`. */
export interface ResumeOptions extends RunOptions {
  /** A decision per call id (`PausedError.pending`, `agent.pending()`). */
  approvals: Record<string, ResumeAnswer>;
}

/** What a run that paused for approval rejects with. */
export class PausedError extends Error {
  name: 'PausedError';
  /** The calls waiting for a decision. */
  pending: PendingCall[];
}

/** A store that keeps the entries in memory (what `session: true` uses). */
export function memorySession(entries?: TranscriptEntry[]): SessionStore & { entries: TranscriptEntry[] };

/** What the runtime module holds open right now, across agents (all zero when idle). */
export interface RuntimeDiagnostics {
  /** `setTimeout`s not yet fired or cleared. */
  timers: number;
  /** Model calls the runtime is awaiting. */
  modelCalls: number;
  /** JS tool calls the runtime is awaiting. */
  toolCalls: number;
}

/** One audit record per tool call (`args` is a redacted summary). */
export interface AuditRecord {
  time: number;
  call_id: string;
  tool: string;
  server: string | null;
  args: string;
  duration_ms: number;
  outcome: string;
  output_chars: number;
  truncated: boolean;
  error: string | null;
  /** `builtin`, `mcp`, `plugin` or `skill` (null for an unknown tool). */
  source: string | null;
  /** The plugin owning the tool, from the registry (never from what a plugin declares). */
  plugin: string | null;
  /** Who made the call: `model`, `user`, `command:/name` or `plugin:<p>`. */
  origin: string;
}

/** The result of `agent.callTool`. */
export interface DirectCallResult extends CallToolResult {
  isError: boolean;
  /** The output as text, cut to the tool's limit, as the model would see it. */
  text: string;
  truncated: boolean;
  /** Why the call produced no output (timeout, server gone, ...). */
  error?: string;
}

export interface ConnectOptions {
  /** Handshake and tool-listing timeout (default 30 s for the handshake, 60 s per request). */
  timeoutMs?: number;
  /** Timeout of each call of this server's tools (default: the agent's `toolTimeoutMs`). */
  toolTimeoutMs?: number;
  /** Let this server use the agent's model (MCP sampling, text only); off by default. */
  sampling?: boolean;
  /**
   * The MCP era to speak: `'auto'` (default: a `server/discover` probe, falling back to
   * `initialize` for a legacy server; `mockGithub()` is always legacy), `'2026-07-28'` (the
   * stateless revision only), or `'legacy'` (the `initialize` handshake only).
   */
  protocol?: 'auto' | '2026-07-28' | 'legacy';
  /**
   * The MCP Tasks extension (2026-07-28 servers; off by default, as `"tasks": true` in a
   * `.mcp.json` entry): a `tools/call` the server turns into a task is followed with
   * `tasks/get` until it ends, its input requests answered as a multi-round-trip request's,
   * and cancelled with `tasks/cancel` when the run's `signal` aborts or the call times out.
   */
  tasks?: boolean;
  /**
   * Skills over MCP (2026-07-28 servers; off by default, as `"skills": true` in `.mcp.json`):
   * the skills the server serves join the agent's skills as `<server>:<skill>` (listed at
   * connection, read only when the model activates one, each file's size and SHA-256 digest
   * checked first; their `allowed-tools` grant nothing).
   */
  skills?: boolean;
  /** Longest output of this server's tools fed to the model (default 50 000 characters). */
  maxOutputChars?: number;
  /**
   * Whether this server's tools may be deferred behind `tool_search`: `'auto'` (default)
   * follows `toolSearch`; `true` defers them whenever tool search is not off; `false` never.
   */
  defer?: boolean | 'auto';
  /** This server's tools (names as the server lists them) that are never deferred. */
  alwaysLoad?: string[];
}

/** A tool the `toolSearch.search` callback may rank. */
export interface SearchCatalogEntry {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The MCP server the tool comes from (absent for tools of no server). */
  server?: string;
  /** The tool's own name on its server (e.g. `list_issues` for `mcp__github__list_issues`). */
  tool?: string;
}

/** Deferred tool loading (see `AgentOptions.toolSearch`). */
export interface ToolSearchOptions {
  /**
   * `auto` (default): defer the MCP tools when their definitions are estimated above
   * `threshold` tokens (or 10% of `contextWindow`, when lower); `on`: always; `off`: never.
   */
  mode?: 'auto' | 'on' | 'off';
  /** `auto`'s threshold in estimated tokens (default 3000). */
  threshold?: number;
  /**
   * `bridge` (default): found definitions come back as `tool_search`'s result and are called
   * through `call_tool`, so the request's tools never change and the prompt cache holds;
   * `append`: they are also added to the tools, for models that need native calls (one
   * prompt-cache miss per load).
   */
  reveal?: 'bridge' | 'append';
  /** Most definitions one search returns (default 5). */
  limit?: number;
  /** Tool names (`mcp__github__get_issue`) that are never deferred. */
  alwaysLoad?: string[];
  /**
   * Your own ranking (embeddings, say): tool names best first, among `catalog` (the deferred
   * tools). It is fused with the built-in index's; if it throws, the index answers alone and
   * `onNotice` says why.
   */
  search?: (query: string, catalog: SearchCatalogEntry[]) => Promise<string[]> | string[];
}

export interface AgentOptions {
  /** Default: the mock model. */
  model?: Model;
  /** MCP servers to connect, by name. Default: `{ github: mockGithub() }`. */
  servers?: Record<string, Transport>;
  /** JS tools to register. */
  tools?: ToolDefinition[];
  /** Permission patterns: `tool_name`, `mcp__github`, `mcp__github__get_*`, `*`. */
  allow?: string[];
  ask?: string[];
  deny?: string[];
  systemPrompt?: string;
  /**
   * Project instructions after the system prompt, fixed for the agent's conversations: a text,
   * or what `loadInstructions` (agentwire/node) returns, whose path rules join the result of
   * the first `read_file`/`write_file`/`edit_file` call on a file they match. Never a permission.
   */
  instructions?: string | Instructions;
  /** Most model calls per run (default 20). */
  maxSteps?: number;
  /** A run stops when the model repeats the same call this many times (default 3). */
  maxIdenticalCalls?: number;
  /** Tool output characters one run may feed the model (default 200 000). */
  outputBudgetChars?: number;
  /** Characters of output shown in `tool_end` events (default 200). */
  previewChars?: number;
  /** Default timeout of each tool call (default 60 000). */
  toolTimeoutMs?: number;
  /** Default longest tool output fed to the model (default 50 000 characters). */
  maxOutputChars?: number;
  /** Receives one record per tool call, from runs and from `callTool`. */
  onAudit?: (record: AuditRecord) => void;
  /** Receives runtime notices (a server failed or disconnected, its tools changed). */
  onNotice?: (message: string) => void;
  /**
   * Directories servers may work in (MCP roots), as `file://` URIs or `{ uri, name }`: offered
   * to every server the agent connects, which may ask for them with `roots/list` (a filesystem
   * server, say). None by default.
   */
  roots?: Array<string | Root>;
  /**
   * Names of servers in `servers` that may use the agent's model (MCP sampling): a server
   * may ask the model for a completion, text only, even in the middle of its own tool call.
   * It spends your model budget, so none may by default (see `ConnectOptions.sampling`).
   */
  sampling?: string[];
  /** Connect options per server of `servers` (`{ jobs: { tasks: true }, docs: { skills: true } }`). */
  serverOptions?: Record<string, ConnectOptions>;
  /**
   * Deferred tool loading: when MCP tool definitions would cost many prompt tokens on every
   * request, send only their names (in `tool_search`'s description) and let the model search
   * for what it needs. `'auto'` (default), `'on'`, `'off'`, or the details.
   */
  toolSearch?: 'auto' | 'on' | 'off' | ToolSearchOptions;
  /**
   * The model's context window in tokens, when known: `auto` defers above 10% of it, and the
   * conversation is compacted when a request passes `compactAt` percent of it.
   */
  contextWindow?: number;
  /** Compact at this percentage of `contextWindow` (default 80). */
  compactAt?: number;
  /** `false`: never compact automatically (`agent.compact()` still does). */
  compact?: boolean;
  /** A conversation to continue, as `agent.history()` gave it (a TypeError names a bad field). */
  history?: SavedHistory | SavedMessages;
  /**
   * Keeps the conversation in a store, entry by entry (`true`: in memory): it is loaded from
   * the store first, and runs without `onApproval` pause for approval instead of declining.
   */
  session?: SessionStore | boolean;
  /** Plugins to `use()`, in order. */
  plugins?: Plugin[];
  /** Host skills (objects or SKILL.md texts); they beat files and plugins of the same name. */
  skills?: Array<SkillDefinition | string>;
  /** Host prompt commands (objects or commands/*.md texts with a `name:`). */
  commands?: Array<CommandDefinition | string>;
  /** Character budget of the skill catalog in `activate_skill`'s description (default 8 000). */
  skillCatalogChars?: number;
  /** Plugins whose declared tool risk and skill `allowed-tools` grants the host trusts. */
  trustedPlugins?: string[];
  /**
   * Subagents the `Agent` tool offers (with the built-in `general-purpose` one): a child agent
   * with a fresh context and never more tools or rights than the agent itself. Without this
   * option there is no `Agent` tool.
   */
  agents?: SubagentDefinition[];
  /**
   * Models the `agents` may name (`{ small: openaiCompatible(...) }`): a definition's `model`
   * picks one; absent or `'inherit'`, the child runs on the agent's model. A name not here is
   * refused when the agent is created, naming the agent.
   */
  models?: Record<string, Model>;
  /** How deep children may nest (default 1: children start no children; 0: no `Agent` tool). */
  maxAgentDepth?: number;
  /** Tokens one child run may use (default 400 000); over it, the child stops. */
  agentTokenBudget?: number;
  /**
   * Hook functions by event, with Claude Code's event input and output shapes (docs/hooks.md):
   * a function, or `{ matcher, hooks, timeoutMs }`. Hooks can only tighten the gate: an
   * `allow` never beats a deny or ask rule.
   */
  hooks?: Partial<Record<HookEventName, Array<HookFunction | HookGroup>>>;
}

/** The events a hook can be given for. */
export type HookEventName =
  | 'SessionStart' | 'UserPromptSubmit' | 'PreToolUse' | 'PermissionRequest' | 'PostToolUse'
  | 'PostToolUseFailure' | 'Stop' | 'SessionEnd' | 'Notification' | 'PreCompact'
  | 'SubagentStart' | 'SubagentStop';

/**
 * A hook function: gets the event's JSON (`session_id`, `cwd`, `hook_event_name`, `tool_name`,
 * `tool_input`, ...) and answers with Claude Code's JSON output (`decision`, `continue`,
 * `hookSpecificOutput`, ...), plain text (context for session events), or nothing. A throw
 * or a timeout is a non-blocking error (a `hook_notice` event).
 */
export type HookFunction = (
  input: Record<string, unknown>,
  context: { signal: AbortSignal },
) => unknown;

/** Hook functions for the values `matcher` matches (tool name, source, trigger, agent type). */
export interface HookGroup {
  matcher?: string;
  hooks: HookFunction[];
  /** Default 60 000, at most 600 000. */
  timeoutMs?: number;
}

/** One hook as `agent.hooks()` lists it. */
export interface HookInfo {
  event: HookEventName;
  matcher: string;
  kind: 'function' | 'command' | 'http';
  /** A function's id (event, place and name). */
  id?: string;
  command?: string;
  url?: string;
  source: string;
  timeoutMs: number;
  runs: boolean;
  /** Why it does not run (a command hook outside `agentwire/node`). */
  why?: string;
}

/** A subagent, as Claude Code's `.claude/agents/*.md` frontmatter names its fields. */
export interface SubagentDefinition {
  /** What the model passes as `subagent_type`. */
  name: string;
  /** When to use it (shown in the `Agent` tool's catalog). */
  description: string;
  /** The child's system prompt. */
  instructions?: string;
  /** Tools it may use (agentwire or Claude Code names, `*` globs); default: all of the parent's. */
  tools?: string[];
  disallowedTools?: string[];
  /** A name in `models` to run on, or `'inherit'` (the default: the agent's model). */
  model?: string;
  /** Most model calls of one child run. */
  maxTurns?: number;
  /** `'plan'` (read-only tools) or `'dontAsk'` (only tools allowed without asking); never wider. */
  permissionMode?: 'default' | 'plan' | 'dontAsk';
  /** MCP servers, by name, whose tools it may use (default: all). */
  mcpServers?: string[];
}

/** A skill given as an object (what `loadSkillDir` returns too). */
export interface SkillDefinition {
  /** One word without `/` (invoked as `/name`). */
  name: string;
  description: string;
  /** The Markdown body the model gets when the skill is activated. */
  instructions: string;
  whenToUse?: string;
  argumentHint?: string;
  /** Named arguments (`$name`). */
  arguments?: string[];
  disableModelInvocation?: boolean;
  userInvocable?: boolean;
  /** Turn-scoped grants when activated (trusted sources only; never beat a deny or ask rule). */
  allowedTools?: string[];
  disallowedTools?: string[];
  /** Bundled files, relative path → text, read by the model with `read_skill_file`. */
  files?: Record<string, string>;
}

/** A prompt command given as an object. */
export interface CommandDefinition {
  name: string;
  /** Offered to the model only with one. */
  description?: string;
  argumentHint?: string;
  /** The template: `$ARGUMENTS`, `$0`, `$name`, `` !`cmd` `` (run as gated `bash` calls). */
  prompt: string;
}

/**
 * A JS plugin. Nothing else is accepted: a plugin cannot bring permission rules, answer
 * approvals, turn on sampling or name anything outside its namespace.
 */
export interface Plugin {
  name: string;
  version?: string;
  description?: string;
  /** Registered as `plugin__<name>__<tool>`; declared risk never lowers the inferred one. */
  tools?: ToolDefinition[];
  /** As `<name>:<skill>`. */
  skills?: Array<SkillDefinition | string>;
  commands?: Array<CommandDefinition | string>;
  /** Connected as `plugin_<name>_<server>` (never with sampling). */
  servers?: Record<string, Transport>;
  /** Command hooks (a `hooks/hooks.json`, as `loadPluginDir` reads it): run only in Node. */
  hooks?: { root?: string; settings: { hooks: Record<string, unknown> } };
}

/** What `agent.use()` resolves to and `agent.plugins()` lists. */
export interface PluginInfo {
  name: string;
  /** The plugin's part of tool and server names. */
  namespace: string;
  version?: string;
  description?: string;
  /** Registered tool names. */
  tools: string[];
  /** Qualified skill names (`<name>:<skill>`). */
  skills: string[];
  commands: string[];
  servers: ServerInfo[];
  /** Collisions, parser notes, servers that failed. */
  warnings: string[];
  /** The plugin's hooks, when it has any. */
  hooks?: HookInfo[];
}

/** A skill or command as the core parsed it (`agent.skills()`, `agent.commands()`, `parseSkill`). */
export interface SkillInfo {
  name: string;
  qualified: string;
  kind: 'skill' | 'command';
  /** `host`, `user`, `project` or `plugin:<p>`. */
  source: string;
  location: string;
  description: string;
  displayName: string | null;
  whenToUse: string | null;
  argumentHint: string | null;
  arguments: string[];
  modelInvocable: boolean;
  userInvocable: boolean;
  allowedTools: string[];
  disallowedTools: string[];
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, unknown>;
  files: string[];
  dir: string | null;
  bodyChars: number;
  /** Recognised but not acted on yet (`model`, `hooks`, `context`, ...). */
  ignoredFields: string[];
  warnings: string[];
}

/** What `parseSkill`/`parseCommand` return: the record with its body. */
export interface ParsedSkill extends SkillInfo {
  body: string;
}

/** What `parsePluginManifest` returns. */
export interface PluginManifest {
  name: string;
  version: string | null;
  description: string | null;
  skills: string[];
  commands: string[] | null;
  mcpServers: unknown;
  /** Parts not supported yet (`hooks`, `agents`, ...). */
  ignored: string[];
  warnings: string[];
}

/** Parses a SKILL.md text as the CLI does (`agentwire skills show --json` gives the same record). */
export function parseSkill(text: string, opts?: { dirName?: string; location?: string }): Promise<ParsedSkill>;
/** Parses a commands/*.md text; `name` is its file stem (`sub:name` for a nested one). */
export function parseCommand(text: string, opts: { name: string; location?: string }): Promise<ParsedSkill>;
/** Parses `.claude-plugin/plugin.json`; wrong types and paths leaving the plugin throw naming the field. */
export function parsePluginManifest(text: string, opts?: { dirName?: string; location?: string }): Promise<PluginManifest>;

/** An MCP root: a directory a server may work in. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A name to show for it. */
  name?: string;
}

/** An agent: a conversation with a model, MCP servers and JS tools. */
export class Agent {
  private constructor();
  /** Runs one user turn; resolves to the final answer, rejects when the run ends without one. */
  run(prompt: string, options?: RunOptions): Promise<string>;
  /**
   * Runs one user turn as the events `onEvent` would get, ending after `done` or `error`;
   * leaving the loop early aborts the run and waits for it to end.
   */
  stream(prompt: string, options?: StreamOptions): AsyncIterableIterator<AgentEvent>;
  /** Connects an MCP server; a failure is reported in the result, never thrown. */
  connect(name: string, transport: Transport, options?: ConnectOptions): Promise<ServerInfo>;
  /** Disconnects a server and removes its tools. */
  disconnect(name: string): boolean;
  registerTool<Args = any>(tool: ToolDefinition<Args>): void;
  unregisterTool(name: string): boolean;
  tools(): ToolInfo[];
  /** Estimated tokens of the tool definitions the next model request carries. */
  requestTokens(): number;
  servers(): ServerInfo[];
  /** Resources and templates of every server that offers them (or of `server`). */
  resources(server?: string): Promise<{ resources: McpResource[]; resourceTemplates: McpResourceTemplate[] }>;
  /** Reads one resource; rejects naming the server and URI when it cannot. */
  readResource(server: string, uri: string): Promise<{ contents: McpResourceContents[] }>;
  /** Prompts of every server that offers them (or of `server`). */
  prompts(server?: string): Promise<McpPrompt[]>;
  /** A prompt filled in with `args`. */
  getPrompt(server: string, name: string, args?: Record<string, string>): Promise<McpPromptResult>;
  /** Completion values for a prompt argument (`[]` when the server offers no completion). */
  complete(
    server: string,
    prompt: string,
    argument: string,
    value?: string,
    context?: Record<string, string>,
  ): Promise<string[]>;
  /** Calls one tool as the user: deny rules apply, it is audited, it never asks. */
  callTool(name: string, args?: Record<string, unknown>): Promise<DirectCallResult>;
  /** The conversation so far, as plain JSON to save and restore. */
  history(): SavedHistory;
  /** Replaces the conversation with a saved one; a TypeError names a malformed field. */
  setHistory(history: SavedHistory | SavedMessages): void;
  /** Continues a paused run with a decision per pending call; resolves to the final answer. */
  resume(options: ResumeOptions): Promise<string>;
  /** The calls a paused conversation waits on (empty when it is not paused). */
  pending(): PendingCall[];
  /** The session store (`createAgent({ session })`). */
  readonly session: SessionStore | undefined;
  clearHistory(): void;
  /** What the next request would take of the context window, in tokens (estimates). */
  context(): ContextReport;
  /** Compacts the conversation now with a summary the model writes; `focus` steers it. */
  compact(focus?: string, options?: { onEvent?: (event: AgentEvent) => void }): Promise<void>;
  setModel(model?: Model): void;
  /** Adds a plugin: its tools, skills, commands and servers, each in its namespace. */
  use(plugin: Plugin): Promise<PluginInfo>;
  /** Removes exactly that plugin's tools, servers, skills and commands. */
  removePlugin(name: string): boolean;
  /** The plugins in use, with current server statuses. */
  plugins(): PluginInfo[];
  /** Every hook (functions and plugins' command hooks) and whether it runs here. */
  hooks(): HookInfo[];
  /** Adds host skills and commands; resolves to warnings (collisions, parser notes). */
  addSkills(skills?: Array<SkillDefinition | string>, commands?: Array<CommandDefinition | string>): Promise<string[]>;
  removeSkill(name: string): boolean;
  skills(): SkillInfo[];
  commands(): SkillInfo[];
  /** Runs `/name args` as the user typing it; an unknown name throws. */
  runCommand(name: string, args?: string, options?: RunOptions): Promise<string>;
  readonly closed: boolean;
  /** Closes every connection. */
  close(): void;
}

/** Creates an agent (loads the wasm module on first use and connects the servers). */
export function createAgent(options?: AgentOptions): Promise<Agent>;

/** Where a wasm module comes from; by default its `.wasm` file beside the package. */
export type WasmSource =
  | string
  | URL
  | Response
  | PromiseLike<Response>
  | ArrayBuffer
  | ArrayBufferView
  | WebAssembly.Module;

/** What the runtime module holds open right now: for leak checks after aborted runs. */
export function diagnostics(): RuntimeDiagnostics;

/** Loads the wasm module ahead of time, or from another place; `createAgent` calls it. */
export function init(source?: WasmSource): Promise<void>;

/**
 * Loads the mocks module (`agentwire_mocks_bg.wasm`: the mock model and the mock GitHub server)
 * ahead of time, or from another place; by default it loads on first use of either.
 */
export function initMocks(source?: WasmSource): Promise<void>;

/**
 * The package's on-demand wasm modules, each loaded on first use of what it implements:
 * `mocks` (mock model, mock GitHub server), `anthropic` (the Claude codec of `anthropic()`),
 * `search` (the lexical index `tool_search` ranks with), `ext` (the parsers of SKILL.md,
 * commands and plugin manifests).
 */
export type WasmModuleName = 'mocks' | 'anthropic' | 'search' | 'ext';

/**
 * Loads on-demand module `name` (`agentwire_<name>_bg.wasm`) ahead of time, or from another
 * place (a `WebAssembly.Module` on Workers); by default it loads on first use.
 */
export function initModule(name: WasmModuleName, source?: WasmSource): Promise<void>;

// ----- Streamable HTTP -------------------------------------------------------------------------

/** Something an HTTP transport reports that is not an MCP message and does not end it. */
export type HttpTransportEvent =
  /** A problem that does not end the connection (no GET stream, a notification rejected, ...). */
  | { type: 'warning'; message: string }
  /** The server forgot the session (HTTP 404); a new one is being started. */
  | { type: 'session_expired'; sessionId: string };

export interface HttpTransportOptions {
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Receives warnings and session expiries; by default they go to `console.warn`. */
  onEvent?: (event: HttpTransportEvent) => void;
  /**
   * Gets an access token when the server answers `401`/`403` (MCP authorization): run the
   * OAuth flow (or refresh a token) your own way and resolve to the token. The refused
   * messages are held meanwhile and sent again with `Authorization: Bearer <token>`, which
   * every later request carries too. A throw, a rejection or no token fails the server; three
   * refusals in a row without a success give up. Request timeouts stop while it runs.
   */
  authorize?: (challenge: HttpAuthorizationChallenge) => string | Promise<string>;
}

/** What `authorize` is told about a refusal. */
export interface HttpAuthorizationChallenge {
  /** The MCP server's URL. */
  url: string;
  /** `401` (no or expired token) or `403` (more scope needed). */
  status: number;
  /** The `WWW-Authenticate` header, when the server sent one (its `resource_metadata`, `scope`, …). */
  wwwAuthenticate?: string;
}

/**
 * An MCP server reached over Streamable HTTP (spec 2025-11-25) at `url` (http or https), as a
 * transport for `agent.connect`. The core decides every request; `fetch` performs it. Sends
 * `DELETE` for the session on close. Throws a `TypeError` for a bad URL, headers or options.
 */
export function httpTransport(url: string, options?: HttpTransportOptions): Transport;

/** One instruction file that loaded. */
export interface InstructionFile {
  readonly path: string;
  /** Relative to the project root, `~/…`, or absolute. */
  readonly shown: string;
  readonly origin: 'user' | 'project' | 'local' | 'rule' | 'import';
  readonly bytes: number;
  readonly importedBy: string | null;
  /** A rule's `paths:` globs (it joins the conversation later, not the system prompt). */
  readonly paths: string[];
  readonly truncated: boolean;
}

/** Resolved project instructions (`loadInstructions` in agentwire/node). */
export interface Instructions {
  /** The block for the system prompt ("" when nothing loaded). */
  text: string;
  /** The rules with `paths:` globs, as the core gives them. */
  pathRules?: { root: string; base: string; rules: { path: string; shown: string; globs: string[]; text: string }[] } | null;
  readonly files?: InstructionFile[];
  readonly warnings?: string[];
  readonly bytes?: number;
  readonly truncatedBytes?: number;
}
