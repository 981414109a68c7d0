// The agent: the core's runtime (wasm) plus the JS-facing shape of every call.
import {
  describe,
  fail,
  isPlainObject,
  messageOf,
  nonEmptyString,
  optionalCount,
  optionalFunction,
  optionalString,
  optionalStrings,
  options as checkOptions,
} from './check.js';
import { checkModel, isMockModel, modelFunction } from './models.js';
import { adaptTransport, checkTransport, isMockGithub, mockGithub } from './transports.js';
import { checkDefer, checkToolSearch, indexSearcher } from './tool-search.js';
import { eventStream } from './stream.js';
import { attachment, mentions } from './mentions.js';
/** Skills, commands and plugins: loaded with their first use, so agents without them skip it. */
const extensions = () => import('./extensions.js');
import { ext, init, mocks, wasm } from './wasm.js';
import { checkApprovals, checkSession, entryMessage, PausedError, secretsOf, SessionWriter } from './session.js';
import { checkHooks, hookConfig, hookRunner } from './hooks.js';

/** Why the core's `mcp` fails for a server that is not connected (`driver::NOT_CONNECTED`). */
const NOT_CONNECTED = 'the server is not connected';
/** The session's refusal of a method the server did not declare (as the core words it). */
const notOffered = (method) => `the server does not offer ${method} (not in its capabilities)`;

const AGENT_OPTIONS = [
  'model',
  'servers',
  'tools',
  'allow',
  'ask',
  'deny',
  'systemPrompt',
  'instructions',
  'maxSteps',
  'maxIdenticalCalls',
  'outputBudgetChars',
  'previewChars',
  'toolTimeoutMs',
  'maxOutputChars',
  'onAudit',
  'onNotice',
  'roots',
  'sampling',
  'toolSearch',
  'contextWindow',
  'compactAt',
  'compact',
  'history',
  'plugins',
  'skills',
  'commands',
  'skillCatalogChars',
  'trustedPlugins',
  'serverOptions',
  'models',
  'agents',
  'maxAgentDepth',
  'agentTokenBudget',
  'session',
  'hooks',
];
const SUBAGENT_FIELDS = ['name', 'description', 'instructions', 'tools', 'disallowedTools', 'model', 'maxTurns', 'permissionMode', 'mcpServers'];
const CONNECT_OPTIONS = ['timeoutMs', 'toolTimeoutMs', 'maxOutputChars', 'sampling', 'defer', 'alwaysLoad', 'protocol', 'tasks', 'skills'];
/** The Skills extension's name in a server's `extensions` (`src/mcp/skills.rs`). */
const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
const PROTOCOLS = ['auto', '2026-07-28', 'legacy'];
const TOOL_FIELDS = ['name', 'description', 'inputSchema', 'risk', 'execute', 'timeoutMs', 'maxOutputChars'];
const RUN_OPTIONS = ['onEvent', 'onApproval', 'signal'];
const RESUME_OPTIONS = ['approvals', ...RUN_OPTIONS];
const STREAM_OPTIONS = ['onApproval', 'signal'];
/** The version of `history()`'s shape and of the transcript format it holds. */
const HISTORY_VERSION = 1;
/** Opens the store of `createAgent({ session })` (only createAgent may). */
const openSession = Symbol('agentwire.openSession');
const ROLES = ['user', 'assistant', 'tool'];
const RISKS = ['read', 'network', 'write', 'execute'];

/** Only `createAgent` may construct an Agent. */
const token = Symbol('agentwire.Agent');

/**
 * `roots` as `[{uri, name?}]`: each a `file://` URI string or such an object. Servers may ask
 * for them (`roots/list`) to know which directories they may work in.
 */
function checkRoots(where, roots) {
  if (roots === undefined) return [];
  if (!Array.isArray(roots)) fail(where, `"roots" must be an array of file:// URIs, got ${describe(roots)}`);
  return roots.map((root, i) => {
    const { uri, name } = typeof root === 'string' ? { uri: root } : isPlainObject(root) ? root : {};
    if (typeof uri !== 'string' || !uri.startsWith('file://')) {
      fail(where, `roots[${i}] must be a file:// URI or {uri, name}, got ${describe(root)}`);
    }
    if (name !== undefined && typeof name !== 'string') {
      fail(where, `roots[${i}].name must be a string, got ${describe(name)}`);
    }
    return name === undefined ? { uri } : { uri, name };
  });
}

/**
 * `instructions`: a text, or what `loadInstructions` returns (`{ text, pathRules }`); as
 * `{ text, pathRules }` for the core, which puts the text after the system prompt (fixed for
 * the agent's conversations) and joins each path rule to the first file tool call it matches.
 */
function checkInstructions(where, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { text: value, pathRules: null };
  if (!isPlainObject(value) || typeof value.text !== 'string') {
    fail(where, `"instructions" must be a string or { text, pathRules } (from loadInstructions), got ${describe(value)}`);
  }
  if (value.pathRules !== undefined && value.pathRules !== null && !isPlainObject(value.pathRules)) {
    fail(where, `"instructions.pathRules" must be an object, got ${describe(value.pathRules)}`);
  }
  return { text: value.text, pathRules: value.pathRules ?? null };
}

function checkAgentOptions(where, options) {
  // A copy: normalising `roots` must not change the caller's object.
  const o = { ...checkOptions(where, options, AGENT_OPTIONS) };
  checkModel(where, o.model);
  for (const key of ['allow', 'ask', 'deny']) optionalStrings(where, key, o[key]);
  optionalString(where, 'systemPrompt', o.systemPrompt);
  o.instructions = checkInstructions(where, o.instructions);
  optionalCount(where, 'maxSteps', o.maxSteps, 1);
  optionalCount(where, 'maxIdenticalCalls', o.maxIdenticalCalls, 1);
  optionalCount(where, 'outputBudgetChars', o.outputBudgetChars, 0);
  optionalCount(where, 'previewChars', o.previewChars, 0);
  optionalCount(where, 'toolTimeoutMs', o.toolTimeoutMs, 1);
  optionalCount(where, 'maxOutputChars', o.maxOutputChars, 1);
  optionalFunction(where, 'onAudit', o.onAudit);
  optionalFunction(where, 'onNotice', o.onNotice);
  o.roots = checkRoots(where, o.roots);
  optionalStrings(where, 'sampling', o.sampling);
  o.toolSearch = checkToolSearch(where, o.toolSearch);
  optionalCount(where, 'contextWindow', o.contextWindow, 1);
  optionalCount(where, 'compactAt', o.compactAt, 1);
  if (o.compactAt !== undefined && o.compactAt > 100) {
    fail(where, `"compactAt" is a percentage of the context window (1 to 100), got ${describe(o.compactAt)}`);
  }
  if (o.compact !== undefined && typeof o.compact !== 'boolean') {
    fail(where, `"compact" must be true or false, got ${describe(o.compact)}`);
  }
  if (o.servers !== undefined) {
    if (!isPlainObject(o.servers)) {
      fail(where, `"servers" must be an object mapping names to transports, got ${describe(o.servers)}`);
    }
    for (const [name, transport] of Object.entries(o.servers)) {
      checkTransport(`${where}: servers.${name}`, transport);
    }
  }
  if (o.serverOptions !== undefined && !isPlainObject(o.serverOptions)) {
    fail(where, `"serverOptions" must be an object mapping server names to connect options, got ${describe(o.serverOptions)}`);
  }
  for (const [name, opts] of Object.entries(o.serverOptions ?? {})) {
    if (!Object.hasOwn(o.servers ?? {}, name)) fail(where, `"serverOptions" names ${JSON.stringify(name)}, which is not one of "servers"`);
    checkConnectOptions(`${where}: serverOptions.${name}`, opts);
  }
  if (o.tools !== undefined && !Array.isArray(o.tools)) {
    fail(where, `"tools" must be an array of tool definitions, got ${describe(o.tools)}`);
  }
  (o.tools ?? []).forEach((tool, i) => checkTool(`${where}: tools[${i}]`, tool));
  optionalCount(where, 'skillCatalogChars', o.skillCatalogChars, 0);
  optionalStrings(where, 'trustedPlugins', o.trustedPlugins);
  if (o.models !== undefined && !isPlainObject(o.models)) {
    fail(where, `"models" must be an object mapping names to models, got ${describe(o.models)}`);
  }
  for (const [name, model] of Object.entries(o.models ?? {})) {
    if (name === 'inherit') fail(where, '"models" cannot name a model "inherit" (that name means the agent\'s own model)');
    if (model === undefined) fail(where, `"models.${name}" must be a model object, got undefined`);
    checkModel(`${where}: models.${name}`, model);
  }
  checkSubagents(where, o.agents, Object.keys(o.models ?? {}));
  o.hookFunctions = checkHooks(where, o.hooks);
  optionalCount(where, 'maxAgentDepth', o.maxAgentDepth, 0);
  optionalCount(where, 'agentTokenBudget', o.agentTokenBudget, 1);
  o.session = checkSession(where, o.session);
  if (o.session !== undefined && o.history !== undefined) {
    fail(where, 'give "history" or "session", not both (a session store holds its history)');
  }
  // Each plugin is checked by `use()`, before anything of it is registered.
  if (o.plugins !== undefined && !Array.isArray(o.plugins)) {
    fail(where, `"plugins" must be an array of plugin objects, got ${describe(o.plugins)}`);
  }
  return o;
}

/** The options of `connect` (and of each `serverOptions` entry), checked. */
function checkConnectOptions(where, options) {
  const o = checkOptions(where, options, CONNECT_OPTIONS);
  optionalCount(where, 'timeoutMs', o.timeoutMs, 1);
  optionalCount(where, 'toolTimeoutMs', o.toolTimeoutMs, 1);
  optionalCount(where, 'maxOutputChars', o.maxOutputChars, 1);
  for (const key of ['sampling', 'tasks', 'skills']) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') fail(where, `"${key}" must be a boolean, got ${describe(o[key])}`);
  }
  checkDefer(where, o.defer);
  optionalStrings(where, 'alwaysLoad', o.alwaysLoad);
  if (o.protocol !== undefined && !PROTOCOLS.includes(o.protocol)) {
    fail(where, `"protocol" must be one of ${PROTOCOLS.join(', ')}, got ${describe(o.protocol)}`);
  }
  return o;
}

/**
 * `agents`: subagents the `Agent` tool offers (the core checks names and values too); each
 * `model` is `inherit` or one of `models` (`named`).
 */
function checkSubagents(where, agents, named) {
  if (agents === undefined) return;
  if (!Array.isArray(agents)) fail(where, `"agents" must be an array of agent objects, got ${describe(agents)}`);
  agents.forEach((agent, i) => {
    const at = `${where}: agents[${i}]`;
    if (!isPlainObject(agent)) fail(at, `an agent must be an object { name, description, instructions }, got ${describe(agent)}`);
    checkOptions(at, agent, SUBAGENT_FIELDS, 'the agent');
    nonEmptyString(at, 'name', agent.name);
    nonEmptyString(at, 'description', agent.description);
    for (const key of ['instructions', 'model', 'permissionMode']) optionalString(at, key, agent[key]);
    for (const key of ['tools', 'disallowedTools', 'mcpServers']) optionalStrings(at, key, agent[key]);
    optionalCount(at, 'maxTurns', agent.maxTurns, 1);
    if (agent.model !== undefined && agent.model !== 'inherit' && !named.includes(agent.model)) {
      const known = named.length > 0 ? `one of ${named.map((n) => JSON.stringify(n)).join(', ')}` : 'none given';
      fail(at, `agent ${agent.name} names model ${JSON.stringify(agent.model)}, which is not in "models" (${known}); use "inherit" or leave it out for the agent's own model`);
    }
  });
}

function checkTool(where, tool) {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    fail(where, `the tool must be an object { name, description, inputSchema, risk, execute }, got ${describe(tool)}`);
  }
  checkOptions(where, tool, TOOL_FIELDS, 'the tool');
  nonEmptyString(where, 'name', tool.name);
  optionalString(where, 'description', tool.description);
  if (tool.inputSchema !== undefined && !isPlainObject(tool.inputSchema)) {
    fail(where, `"inputSchema" must be a JSON Schema object, got ${describe(tool.inputSchema)}`);
  }
  if (tool.risk !== undefined && !RISKS.includes(String(tool.risk).toLowerCase())) {
    fail(where, `"risk" must be one of ${RISKS.join(', ')}, got ${describe(tool.risk)}`);
  }
  if (typeof tool.execute !== 'function') {
    fail(where, `"execute" must be a function, got ${describe(tool.execute)}`);
  }
  optionalCount(where, 'timeoutMs', tool.timeoutMs, 1);
  optionalCount(where, 'maxOutputChars', tool.maxOutputChars, 1);
}

/** A JS tool's return value as an MCP CallToolResult. */
function toCallToolResult(result) {
  if (typeof result === 'string') return { content: [{ type: 'text', text: result }] };
  if (result === undefined || result === null) return { content: [] };
  if (typeof result === 'object' && Array.isArray(result.content)) return result;
  const text = JSON.stringify(result);
  if (text === undefined) return { content: [{ type: 'text', text: String(result) }] };
  const out = { content: [{ type: 'text', text }] };
  if (isPlainObject(result)) out.structuredContent = result;
  return out;
}

/** A checked JS tool as the runtime registers it (defaults filled in). */
function toolSpec(tool) {
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema ?? { type: 'object', properties: {} },
    risk: String(tool.risk ?? 'write').toLowerCase(),
    toolTimeoutMs: tool.timeoutMs,
    maxOutputChars: tool.maxOutputChars,
  };
}

function toolFunction(name, execute, runSignal, context = {}) {
  return (argsJson) => {
    const controller = new AbortController();
    const settled = (async () => {
      await null; // out of the wasm call: the tool may call the agent back
      try {
        const result = await execute(JSON.parse(argsJson), { ...context, name, signal: controller.signal });
        return JSON.stringify(toCallToolResult(result));
      } catch (error) {
        return JSON.stringify({ content: [{ type: 'text', text: `Error: ${messageOf(error)}` }], isError: true });
      }
    })();
    // Called by the runtime when it stops waiting: the run was aborted, or the tool timed out.
    settled.abort = () => {
      const run = runSignal();
      controller.abort(run?.aborted ? run.reason : new Error(`tool ${name} timed out`));
    };
    return settled;
  };
}

/** Checks a `signal` option: an `AbortSignal` (or anything shaped like one). */
function checkSignal(where, signal) {
  if (signal === undefined) return;
  if (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' ||
      typeof signal.addEventListener !== 'function') {
    fail(where, `"signal" must be an AbortSignal, got ${describe(signal)}`);
  }
}

/** The error a run aborted by `signal` rejects with: an `AbortError` naming why. */
function abortError(signal, message) {
  const reason = signal.reason;
  const why = message ?? `the run was aborted${reason === undefined ? '' : `: ${messageOf(reason)}`}`;
  const error = new Error(why, { cause: reason });
  error.name = 'AbortError';
  return error;
}

/** Text naming why `signal` aborted, for the run's `error` event. */
function abortReason(signal) {
  const reason = signal.reason;
  if (reason === undefined || reason?.name === 'AbortError') return 'the AbortSignal';
  return `the AbortSignal (${messageOf(reason)})`;
}

/**
 * Checks a saved conversation (`agent.history()`'s shape) and returns its messages; a
 * TypeError names the bad field.
 */
function checkHistory(where, history) {
  if (isPlainObject(history) && history.entries !== undefined) return checkEntries(where, history);
  if (!isPlainObject(history)) {
    fail(where, `the history must be { version: ${HISTORY_VERSION}, entries: [...] } as agent.history() gives it (or the older { version, messages }), got ${describe(history)}`);
  }
  if (history.version !== HISTORY_VERSION) {
    fail(where, `history.version must be ${HISTORY_VERSION}, got ${describe(history.version)}`);
  }
  if (!Array.isArray(history.messages)) {
    fail(where, `history.messages must be an array, got ${describe(history.messages)}`);
  }
  history.messages.forEach((m, i) => {
    if (!isPlainObject(m)) fail(where, `history.messages[${i}] must be an object, got ${describe(m)}`);
    if (!ROLES.includes(m.role)) {
      fail(where, `history.messages[${i}].role must be one of ${ROLES.join(', ')}, got ${describe(m.role)}`);
    }
  });
  return history.messages;
}

/**
 * A saved conversation in the transcript format (`{ version: 1, entries }`, as `history()`
 * gives it: one entry per message) as the core's messages.
 */
function checkEntries(where, history) {
  if (history.version !== HISTORY_VERSION) {
    fail(where, `history.version must be ${HISTORY_VERSION}, got ${describe(history.version)}`);
  }
  if (!Array.isArray(history.entries)) fail(where, `history.entries must be an array, got ${describe(history.entries)}`);
  return history.entries.map((entry, i) => {
    if (!isPlainObject(entry)) fail(where, `history.entries[${i}] must be an object, got ${describe(entry)}`);
    const message = entryMessage(entry);
    if (message === undefined) {
      fail(where, `history.entries[${i}].type must be user, assistant or tool_result (a session's whole transcript loads through createAgent({ session })), got ${describe(entry.type)}`);
    }
    return message;
  });
}

function approvalWord(answer) {
  if (answer === true) return 'yes';
  if (typeof answer === 'string') return answer;
  return 'no';
}

function callSafely(callback, value) {
  try {
    callback?.(value);
  } catch (error) {
    // A broken UI callback must not break the run; say so once on the console.
    console.error('agentwire: an event callback threw:', error);
  }
}

/** An agent: a conversation with a model, MCP servers and JS tools. Made by `createAgent`. */
export class Agent {
  #wasm;
  #closed = false;
  #onAudit;
  #onNotice;
  /** Offered to every server this agent connects (`[{uri, name?}]`). */
  #roots;
  /** Where streamed model text goes during a run. */
  #textSink = null;
  /** The active run's `signal`, which JS tools and the model see aborted with it. */
  #runSignal = null;
  /** The active run's approver, which plugin code calling tools asks through. */
  #runApprove = undefined;
  /** Plugins in use, by name as given: `{ info, part }`. */
  #plugins = new Map();
  /** Bundled files of object skills, by qualified name, for `read_skill_file`. */
  #skillFiles = new Map();
  /**
   * The skills and commands (a `SkillBook` in the `ext` module, which the runtime asks as its
   * skill host), from the first item on; null before.
   */
  #book = null;
  /** The promise of `#book` while it loads. */
  #bookLoading = null;
  /** Plugins whose declared tool risk and skill grants the host trusts. */
  #trustedPlugins;
  /** The session's writer (`createAgent({ session })`), or null. */
  #session = null;
  /** The `ext` module's exports, once a session loaded it (its redactor writes every entry). */
  #ext = null;
  /** The models used so far, whose keys never reach the session store. */
  #models = [];
  /** Hook functions of `createAgent({ hooks })`, and plugins' hooks.json: `{ name, root, settings }`. */
  #hookFunctions = [];
  #pluginHooks = [];
  /** Every hook, as the core lists it (with whether it runs). */
  #hookList = [];
  /** What every hook input says about the session. */
  #hookContext = { sessionId: globalThis.crypto?.randomUUID?.() ?? `session-${Date.now()}`, cwd: globalThis.process?.cwd?.() ?? '' };
  /** Whether `SessionStart` fired (before the first run, when there are hooks). */
  #sessionStarted = false;

  /** `agents`, when given, comes read by the `ext` module (`agentRecord`): the runtime takes that record. */
  constructor(options, key, agents) {
    if (key !== token) throw new TypeError('use createAgent(options) to make an Agent');
    const config = {
      allow: options.allow,
      ask: options.ask,
      deny: options.deny,
      systemPrompt: options.systemPrompt,
      instructions: options.instructions,
      maxSteps: options.maxSteps,
      maxIdenticalCalls: options.maxIdenticalCalls,
      outputBudgetChars: options.outputBudgetChars,
      previewChars: options.previewChars,
      toolTimeoutMs: options.toolTimeoutMs,
      maxOutputChars: options.maxOutputChars,
      toolSearch: options.toolSearch?.settings,
      contextWindow: options.contextWindow,
      compactAt: options.compactAt,
      compact: options.compact,
      skillCatalogChars: options.skillCatalogChars,
      agents,
      maxAgentDepth: options.maxAgentDepth,
      agentTokenBudget: options.agentTokenBudget,
      // Audit records cross into JS only for a listener: each costs more than the call itself.
      auditEvents: typeof options.onAudit === 'function',
    };
    this.#trustedPlugins = new Set(options.trustedPlugins ?? []);
    this.#onAudit = options.onAudit;
    this.#roots = options.roots ?? [];
    this.#onNotice = options.onNotice;
    this.#models = [options.model];
    const glue = wasm('createAgent');
    try {
      this.#wasm = new glue.WasmAgent(JSON.stringify(config), this.#modelFunction(options.model));
      // Always: the runtime module ranks tool_search through the JS layer's search module.
      const search = options.toolSearch?.search;
      this.#wasm.setToolSearcher(indexSearcher(search, (m) => this.#onNotice?.(m), () => JSON.parse(this.#wasm.tools())));
      this.#wasm.setSkillFileReader((argsJson) => this.#readSkillFile(argsJson));
      // The models agents may name; their keys stay out of the session store too.
      const named = Object.entries(options.models ?? {});
      if (named.length > 0) {
        this.#wasm.setAgentModels(named.map(([name]) => name), named.map(([, model]) => this.#modelFunction(model)));
        this.#models.push(...named.map(([, model]) => model));
      }
      this.#hookFunctions = options.hookFunctions ?? [];
      if (this.#hookFunctions.length > 0) this.#applyHooks();
    } catch (error) {
      throw new TypeError(`createAgent: ${messageOf(error)}`);
    }
  }

  /**
   * Hands every hook to the core, which matches them and merges what they say (only
   * tightening the gate); warnings about skipped entries go to `onNotice`.
   */
  #applyHooks() {
    const config = hookConfig(this.#hookFunctions, this.#pluginHooks, this.#hookContext);
    const { warnings, hooks } = JSON.parse(this.#wasm.setHooks(JSON.stringify(config), hookRunner(this.#hookFunctions)));
    this.#hookList = hooks;
    for (const warning of warnings) callSafely(this.#onNotice, `hooks: ${warning}`);
  }

  /** Every hook: event, matcher, kind, function id / command, source, and whether it runs (and why not). */
  hooks() {
    this.#live('agent.hooks');
    return structuredClone(this.#hookList);
  }

  #modelFunction(model) {
    return modelFunction(
      () => this.#runSignal,
      model,
      (text) => {
        if (typeof text === 'string') this.#textSink?.({ type: 'text_delta', text });
      },
      (text) => {
        if (typeof text === 'string') this.#textSink?.({ type: 'reasoning_delta', text });
      },
    );
  }

  #live(where) {
    if (this.#closed) throw new Error(`${where}: the agent is closed`);
    return this.#wasm;
  }

  /**
   * The function the core reports events to. Events are queued and delivered in a microtask,
   * in order: user callbacks never run inside a call into the wasm module, so they may call
   * the agent back (`agent.servers()` from `onNotice`, say). Audit records go to `onAudit`,
   * notices to `onNotice` and `onEvent`, the rest to `onEvent`.
   */
  #emitter(onEvent) {
    const queue = [];
    const flush = () => {
      for (const json of queue.splice(0)) {
        const event = JSON.parse(json);
        if (event.type === 'audit') {
          callSafely(this.#onAudit, event.record);
          continue;
        }
        if (event.type === 'notice') callSafely(this.#onNotice, event.message);
        callSafely(onEvent, event);
      }
    };
    return (json) => {
      if (queue.push(json) === 1) queueMicrotask(flush);
    };
  }

  /**
   * Runs one user turn to its final answer. The conversation keeps its history across runs;
   * one run at a time. `signal` aborts it: calls in flight are cancelled, the run ends with one
   * `error` event and rejects with an `AbortError`; the agent stays usable.
   */
  async run(prompt, options) {
    const where = 'agent.run';
    if (typeof prompt !== 'string') fail(where, `the prompt must be a string, got ${describe(prompt)}`);
    const o = checkOptions(where, options, RUN_OPTIONS);
    // `@server:uri` attaches that resource; one that cannot be read fails the run.
    return this.#drive(where, o, async (core, emit, approve) => ({ running: core.begin('run', await this.#attachMentions(prompt), emit, approve) }));
  }

  /**
   * Continues a paused run (see `run`: with a session and no `onApproval`, a run that needs an
   * approval rejects with a `PausedError` listing the pending calls) with the user's
   * `approvals` (`{ [callId]: 'approve' | 'reject' }`): approved calls run once, rejected ones
   * reach the model as declined, calls without a decision go through the gate again. In this
   * runtime or another, from the session's store. Resolves to the final answer.
   */
  async resume(options) {
    const where = 'agent.resume';
    const o = checkOptions(where, options, RESUME_OPTIONS);
    const approvals = JSON.stringify(checkApprovals(where, o.approvals));
    return this.#drive(where, o, async (core, emit, approve) => ({ running: core.begin('resume', approvals, emit, approve) }));
  }

  /** The calls a paused conversation waits on, `[{ id, name, args }]` (empty when none). */
  pending() {
    // The core gives each as a model's tool call, `{ id, name, arguments }`.
    return JSON.parse(this.#live('agent.pending').pending()).map((call) => ({ id: call.id, name: call.name, args: call.arguments }));
  }

  /** The session's store (`createAgent({ session })`), or undefined. */
  get session() {
    return this.#session?.store;
  }

  /**
   * Runs `start(core, emit, approve)` (a run or a resumed one) with the run options `o`;
   * `start` resolves to `{ running }`, the core's promise, once the core has the run.
   */
  async #drive(where, o, start) {
    optionalFunction(where, 'onEvent', o.onEvent);
    optionalFunction(where, 'onApproval', o.onApproval);
    checkSignal(where, o.signal);
    const core = this.#live(where);
    const signal = o.signal;
    if (signal?.aborted) throw abortError(signal);
    const onApproval = o.onApproval;
    const approve = onApproval
      ? async (json) => {
          await null; // out of the wasm call, after the events queued so far
          return approvalWord(await onApproval(JSON.parse(json)));
        }
      : undefined;
    const emit = this.#emitter(o.onEvent);
    const sink = (event) => callSafely(o.onEvent, event);
    this.#textSink = sink;
    this.#runSignal = signal ?? null;
    this.#runApprove = approve;
    const onAbort = () => core.interrupt(abortReason(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    let answer;
    let failure;
    try {
      if (!this.#sessionStarted && this.#hookList.length > 0) {
        this.#sessionStarted = true;
        await core.sessionStart('startup', emit);
      }
      const { running } = await start(core, emit, approve);
      // An abort while reading mentions reaches the run as soon as it starts (it queues the stop).
      if (signal?.aborted) core.interrupt(abortReason(signal));
      answer = await running;
    } catch (error) {
      failure = signal?.aborted ? abortError(signal, messageOf(error)) : error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (this.#textSink === sink) this.#textSink = null;
      if (this.#runSignal === (signal ?? null)) this.#runSignal = null;
      if (this.#runApprove === approve) this.#runApprove = undefined;
    }
    // Every entry of the run is in the store before the run settles; a failing store says so.
    await this.#session?.settled(where);
    if (failure === undefined) return answer;
    const pending = this.#closed ? [] : this.pending();
    if (this.#session && !approve && pending.length > 0 && messageOf(failure).startsWith('paused:')) {
      throw new PausedError(where, pending);
    }
    throw failure;
  }

  /**
   * Reads the session store into the conversation and sends every new entry to it. A store
   * whose contents are no transcript throws naming the line.
   */
  async [openSession](store) {
    const writer = new SessionWriter(store);
    const { text, fresh } = await writer.load('createAgent');
    const core = this.#live('createAgent');
    // The `ext` module reads the store strictly and redacts every entry before the store sees
    // it (the runtime module carries neither the reader nor the redaction).
    const module = await ext();
    if (!fresh) {
      const read = JSON.parse(module.parseTranscriptText(text));
      if (read.error !== undefined) {
        throw new Error(`createAgent: the session store does not hold a transcript this version reads: ${read.error}`);
      }
      for (const warning of read.warnings) callSafely(this.#onNotice, `session store: ${warning}`);
      core.setHistory(JSON.stringify(read.messages));
    }
    this.#ext = module;
    this.#openWriter(core, writer);
    this.#session = writer;
    await writer.settled('createAgent');
  }

  /**
   * Sends every new entry of the core to `writer`, redacted by the `ext` module with the
   * secrets of every model used so far.
   */
  #openWriter(core, writer) {
    const redactor = new this.#ext.StoreRedactor(JSON.stringify(secretsOf(this.#models)));
    core.setSession((json) => writer.push(redactor.line(json)));
  }

  /**
   * Runs one user turn as an async iterable of the events `onEvent` would get, ending after
   * `done` or `error`. Leaving the loop early (`break`, `return`, a throw) aborts the run and
   * waits for it to end, so the agent is ready for the next one.
   */
  stream(prompt, options) {
    const where = 'agent.stream';
    if (typeof prompt !== 'string') fail(where, `the prompt must be a string, got ${describe(prompt)}`);
    const o = checkOptions(where, options, STREAM_OPTIONS);
    optionalFunction(where, 'onApproval', o.onApproval);
    checkSignal(where, o.signal);
    this.#live(where);
    return eventStream((onEvent, signal) => this.run(prompt, { onApproval: o.onApproval, onEvent, signal }), o.signal);
  }

  /**
   * Connects an MCP server as `name`: its tools join the registry as `mcp__<name>__<tool>`.
   * Resolves to the server's status; a failure is reported there, never thrown.
   */
  async connect(name, transport, options) {
    const where = 'agent.connect';
    nonEmptyString(where, 'name', name);
    checkTransport(where, transport);
    const o = checkConnectOptions(where, options);
    const core = this.#live(where);
    // The built-in mock speaks the legacy era only: no probe for it (as natively).
    const protocol = o.protocol ?? (isMockGithub(transport) ? 'legacy' : 'auto');
    const json = JSON.stringify({ ...o, protocol, roots: this.#roots });
    if (isMockGithub(transport)) {
      // Its module first, so the handshake does not wait for it; a load failure shows up as
      // the server's error when the transport's first send fails the same way.
      await mocks().catch(() => {});
    }
    const status = JSON.parse(await core.connect(name, adaptTransport(transport), json));
    if (status.status === 'failed') callSafely(this.#onNotice, `MCP server ${name} failed: ${status.error}`);
    // A new connection's skills replace the old one's.
    this.#dropServerSkills(name);
    if (status.extensions?.includes(SKILLS_EXTENSION)) await this.#listServerSkills(name);
    return status;
  }

  /**
   * Lists the skills server `name` serves (the Skills extension) into the skill book as
   * `<name>:<skill>`; nothing but the listing is read. Entries left out and a failed listing
   * are notices naming the server.
   */
  async #listServerSkills(name) {
    const where = 'agent.connect';
    let notices;
    try {
      const items = await this.#live(where).mcp(name, 'skills/list', '{}');
      const book = await this.#skillBook(where);
      notices = JSON.parse(book.op('addServer', `{"server":${JSON.stringify(name)},"items":${items}}`));
      this.#wasm.extensions('refresh', '{}');
    } catch (error) {
      notices = [`MCP server ${name}: skills/list: ${messageOf(error)}`];
    }
    for (const notice of notices) callSafely(this.#onNotice, notice);
  }

  /** Takes server `name`'s skills out of the skill book (it was disconnected or reconnected). */
  #dropServerSkills(name) {
    if (this.#book && JSON.parse(this.#book.op('removeServer', JSON.stringify({ server: name }))) > 0) {
      this.#wasm.extensions('refresh', '{}');
    }
  }

  /** Disconnects server `name` and removes its tools (and the skills it served). */
  disconnect(name) {
    nonEmptyString('agent.disconnect', 'name', name);
    const removed = this.#live('agent.disconnect').disconnect(name);
    this.#dropServerSkills(name);
    return removed;
  }

  /** Registers a tool implemented in JS. */
  registerTool(tool) {
    const where = 'agent.registerTool';
    checkTool(where, tool);
    const core = this.#live(where);
    const spec = toolSpec(tool);
    try {
      core.registerTool(JSON.stringify(spec), toolFunction(tool.name, tool.execute, () => this.#runSignal));
    } catch (error) {
      throw new Error(`${where}: ${messageOf(error)}`);
    }
  }

  /** Removes a JS tool; false when there was none by that name. */
  unregisterTool(name) {
    nonEmptyString('agent.unregisterTool', 'name', name);
    return this.#live('agent.unregisterTool').unregisterTool(name);
  }

  /** Every tool the model may call, with its source, risk, loading and estimated tokens. */
  tools() {
    return JSON.parse(this.#live('agent.tools').tools());
  }

  /** Estimated tokens of the tool definitions the next model request carries. */
  requestTokens() {
    return this.#live('agent.requestTokens').requestTokens();
  }

  /** Every MCP server with its status. */
  servers() {
    return JSON.parse(this.#live('agent.servers').servers());
  }

  /**
   * The conversation so far as plain JSON, `{ version: 1, messages }`: save it anywhere and
   * restore it with `setHistory()` or `createAgent({ history })`, in this runtime or another.
   */
  history() {
    return { version: HISTORY_VERSION, entries: JSON.parse(this.#live('agent.history').history()) };
  }

  /** Replaces the conversation with a saved one; a TypeError names a malformed field. */
  setHistory(history) {
    const where = 'agent.setHistory';
    const messages = checkHistory(where, history);
    const core = this.#live(where);
    try {
      core.setHistory(JSON.stringify(messages));
    } catch (error) {
      const message = messageOf(error);
      // One entry per message: the core's `messages[i]` is `entries[i]`.
      if (history.entries !== undefined && message.startsWith('messages')) {
        throw new TypeError(`${where}: history.entries${message.slice('messages'.length)}`);
      }
      // The core names the message and field (`messages[2]: ...`); a run in progress is no type error.
      if (message.startsWith('messages')) throw new TypeError(`${where}: history.${message}`);
      throw new Error(`${where}: ${message}`);
    }
  }

  /**
   * What the next request would take of the context window, in tokens:
   * `{ system, tools, skills, history, total, window?, free?, compact_at?, measured }`.
   */
  context() {
    return JSON.parse(this.#live('agent.context').context());
  }

  /**
   * Compacts the conversation now: the model summarises it (`focus` steers the summary) and
   * the summary with the latest request replaces the history. `onEvent` gets `compacted`.
   */
  async compact(focus, { onEvent } = {}) {
    const where = 'agent.compact';
    if (focus !== undefined && typeof focus !== 'string') {
      throw new TypeError(`${where}: the focus must be a string, got ${describe(focus)}`);
    }
    const emit = (json) => {
      if (typeof onEvent === 'function') onEvent(JSON.parse(json));
    };
    try {
      await this.#live(where).begin('compact', focus, emit);
    } catch (error) {
      throw new Error(`${where}: ${messageOf(error)}`);
    } finally {
      // The compaction entry is in the store before compact() resolves.
      await this.#session?.settled(where);
    }
  }

  /** Starts a new conversation. */
  clearHistory() {
    try {
      this.#live('agent.clearHistory').clearHistory();
    } catch (error) {
      throw new Error(`agent.clearHistory: ${messageOf(error)}`);
    }
  }

  /** Replaces the model; takes effect at the next model call. */
  setModel(model) {
    checkModel('agent.setModel', model);
    const core = this.#live('agent.setModel');
    core.setModel(this.#modelFunction(model));
    this.#models.push(model);
    if (this.#session) {
      // The new model's key joins the ones kept out of the store.
      const writer = this.#session;
      this.#openWriter(core, writer);
    }
  }

  /**
   * Calls one tool directly, as the user: deny rules still apply and the call is audited, but
   * it never asks for approval.
   */
  async callTool(name, args) {
    const where = 'agent.callTool';
    nonEmptyString(where, 'name', name);
    if (args !== undefined && !isPlainObject(args)) {
      fail(where, `the arguments must be an object, got ${describe(args)}`);
    }
    const core = this.#live(where);
    try {
      return JSON.parse(await core.callTool(name, JSON.stringify(args ?? {}), this.#emitter(undefined)));
    } catch (error) {
      throw new Error(`${where}: ${messageOf(error)}`);
    }
  }

  /** Resources and resource templates of every server offering them (or of `server`). */
  async resources(server) {
    const methods = ['resources/list', 'resources/templates/list'];
    const [resources, resourceTemplates] = await this.#gather('agent.resources', server, methods);
    return { resources, resourceTemplates };
  }

  /** Reads one resource of `server`: `{contents: [{uri, mimeType?, text? | blob?}]}`. */
  async readResource(server, uri) {
    const where = 'agent.readResource';
    nonEmptyString(where, 'uri', uri);
    const why = (reason) => `reading ${uri} from MCP server ${server} failed: ${reason}`;
    return this.#ask(where, server ?? '', 'resources/read', { uri }, why);
  }

  /** Prompts of every server offering them (or of `server`), each with its `server`. */
  async prompts(server) {
    return (await this.#gather('agent.prompts', server, ['prompts/list']))[0];
  }

  /** Gets prompt `name` of `server` filled in with `args`: `{description?, messages}`. */
  async getPrompt(server, name, args) {
    const where = 'agent.getPrompt';
    nonEmptyString(where, 'name', name);
    const params = { name, arguments: args ?? {} };
    const why = (reason) => `MCP server ${server}: prompt ${name}: ${reason}`;
    return this.#ask(where, server ?? '', 'prompts/get', params, why);
  }

  /** Values `server` suggests for `argument` of prompt `prompt`, typed so far as `value`. */
  async complete(server, prompt, argument, value, context) {
    const where = 'agent.complete';
    nonEmptyString(where, 'argument', argument);
    const text = (v) => (typeof v === 'string' ? v : '');
    const params = {
      ref: { type: 'ref/prompt', name: text(prompt) },
      argument: { name: argument, value: text(value) },
      context: { arguments: context ?? {} },
    };
    const why = (reason) => `MCP server ${server}: completion: ${reason}`;
    // A server that is not connected or offers no completion suggests nothing.
    const result = await this.#ask(where, server ?? '', 'completion/complete', params, why, []);
    const values = result?.completion?.values;
    if (!Array.isArray(values)) throw new Error(`${where}: ${why('no values')}`);
    return values.filter((v) => typeof v === 'string');
  }

  /** `prompt` with the resource of each of its `@server:uri` mentions attached. */
  async #attachMentions(prompt) {
    if (!prompt.includes('@')) return prompt;
    const found = mentions(prompt, this.servers().map((s) => s.name));
    let attached = prompt;
    for (const [server, uri] of found) {
      const why = (reason) => `reading ${uri} from MCP server ${server} failed: ${reason}`;
      const read = await this.#ask(undefined, server, 'resources/read', { uri }, why);
      attached += attachment(server, uri, read);
    }
    return attached;
  }

  /**
   * One exchange with `server` (the core's `mcp`): the result; `otherwise` when the server is
   * not connected or does not offer `method` (an error saying so when `otherwise` is not given);
   * failures worded by `why`, after `where: ` unless `where` is undefined (a run's errors).
   */
  async #ask(where, server, method, params, why, otherwise) {
    const failed = (reason) => new Error(where ? `${where}: ${why(reason)}` : why(reason));
    if (where) nonEmptyString(where, 'server', server);
    const core = this.#live(where ?? 'agent.run');
    let text;
    try {
      text = await core.mcp(server, method, JSON.stringify(params));
    } catch (error) {
      const reason = messageOf(error);
      const absent = reason === NOT_CONNECTED || reason === notOffered(method);
      if (otherwise !== undefined && absent) return otherwise;
      throw failed(reason);
    }
    return JSON.parse(text);
  }

  /**
   * The entries of the list `methods[0]` (and of the optional lists after it) of every
   * connected server offering it, or of `server` alone, each tagged with its `server`: one
   * array per method. Errors name the server and `methods[0]`.
   */
  async #gather(where, server, methods) {
    if (server !== undefined) nonEmptyString(where, 'server', server);
    const core = this.#live(where);
    const names = server === undefined ? this.servers().map((s) => s.name) : [server];
    const lists = methods.map(() => []);
    const why = (name, reason) => new Error(`${where}: MCP server ${name}: ${methods[0]}: ${reason}`);
    for (const name of names) {
      for (const [i, method] of methods.entries()) {
        let items;
        try {
          items = JSON.parse(await core.mcp(name, method, ''));
        } catch (error) {
          // The lists after the first are optional even for servers offering the first.
          if (i > 0) continue;
          const reason = messageOf(error);
          // A server not connected or not offering the list is skipped, unless asked by name.
          if (server === undefined && (reason === NOT_CONNECTED || reason === notOffered(method))) break;
          throw why(name, reason === NOT_CONNECTED ? 'not connected' : reason);
        }
        for (const item of items) {
          if (isPlainObject(item)) lists[i].push({ ...item, server: name });
        }
      }
    }
    return lists;
  }

  /**
   * Serves `read_skill_file` for object skills (the core has confined `path` already), and
   * `activate_skill` / `read_skill_file` of skills a server serves: the skill book says which
   * file of which server, the file is read from that server, and the book checks its size and
   * digest (and an activation's frontmatter) before any of it reaches the model.
   */
  async #readSkillFile(argsJson) {
    const args = JSON.parse(argsJson);
    const name = args.name ?? args.skill;
    const query = JSON.stringify({ name, path: args.path });
    const served = this.#book && JSON.parse(this.#book.op('served', query));
    if (served) {
      let result = served.error === undefined ? null : { error: served.error };
      if (!result) {
        result = await this.#live('read_skill_file')
          .mcp(served.server, 'resources/read', JSON.stringify({ uri: served.uri }))
          .then((json) => JSON.parse(json), (error) => ({ error: messageOf(error) }));
      }
      const judged = JSON.parse(this.#book.op('accept', JSON.stringify({ name, path: args.path, result })));
      if (judged.error !== undefined) return JSON.stringify({ content: [{ type: 'text', text: judged.error }], isError: true });
      return JSON.stringify({ content: [{ type: 'text', text: judged.text }] });
    }
    const { skill, path } = args;
    const files = this.#skillFiles.get(skill);
    const text = files && Object.hasOwn(files, path) ? files[path] : undefined;
    if (text === undefined) {
      return JSON.stringify({ content: [{ type: 'text', text: `Error: skill ${skill} has no file ${path} here` }], isError: true });
    }
    return JSON.stringify({ content: [{ type: 'text', text }] });
  }

  /** The skill book, loaded (with the `ext` module) and wired to the runtime on first use. */
  async #skillBook(where) {
    if (this.#book) return this.#book;
    this.#bookLoading ??= extensions().then(({ skillBook }) => skillBook(this.#live(where)));
    try {
      this.#book = await this.#bookLoading;
    } catch (error) {
      this.#bookLoading = null;
      throw new Error(`${where}: the ext module could not be loaded (${messageOf(error)})`);
    }
    return this.#book;
  }

  /** Runs `op` on the skill book (`fallback` when no item was ever added) and parses it. */
  #bookOp(where, op, args, fallback) {
    this.#live(where);
    return this.#book ? JSON.parse(this.#book.op(op, JSON.stringify(args))) : fallback;
  }

  /**
   * Adds records (from `toRecords`) for the host (`plugin` undefined) or a plugin; returns the
   * qualified names and the warnings (collisions, what the parser noticed). The skill book must
   * be loaded when there are records.
   */
  #addRecords(where, entries, plugin, part, trusted) {
    const core = this.#live(where);
    const records = entries.map((e) => e.record);
    let collisions = [];
    if (records.length > 0) {
      try {
        collisions = JSON.parse(this.#book.op('add', JSON.stringify({ records, plugin, trusted })));
      } catch (error) {
        throw new TypeError(`${where}: ${messageOf(error)}`);
      }
      core.extensions('refresh', '{}');
    }
    const names = entries.map(({ record, files }) => {
      const leaf = record.name.split(':').pop();
      const qualified = part === undefined ? (record.qualified ?? record.name) : `${part}:${leaf}`;
      if (files) this.#skillFiles.set(qualified, files);
      return { qualified, kind: record.kind ?? 'skill' };
    });
    const warnings = [
      ...collisions,
      ...records.flatMap((r) => (r.warnings ?? []).map((w) => `${r.location ?? r.name}: ${w}`)),
    ];
    return { names, warnings };
  }

  /**
   * Adds skills and commands for the host: `SkillDefinition`/`CommandDefinition` objects or
   * SKILL.md / commands/*.md texts. Host items beat files and plugins for the same name.
   * Resolves to the warnings (collisions, fields the parser ignored).
   */
  async addSkills(skills, commands) {
    const where = 'agent.addSkills';
    this.#live(where);
    const { toRecords } = await extensions();
    const entries = await toRecords(where, skills, commands);
    if (entries.length > 0) await this.#skillBook(where);
    return this.#addRecords(where, entries, undefined, undefined, true).warnings;
  }

  /** Removes the skill or command `name` reaches; false when none. */
  removeSkill(name) {
    const where = 'agent.removeSkill';
    nonEmptyString(where, 'name', name);
    const removed = this.#bookOp(where, 'remove', { name }, false);
    if (removed) {
      this.#wasm.extensions('refresh', '{}');
      this.#skillFiles.delete(name);
    }
    return removed;
  }

  /** Every skill (kind `skill`), sorted by qualified name, without bodies. */
  skills() {
    return this.#bookOp('agent.skills', 'list', {}, []).filter((s) => s.kind === 'skill');
  }

  /** Every prompt command (kind `command`), sorted by qualified name, without bodies. */
  commands() {
    return this.#bookOp('agent.commands', 'list', {}, []).filter((s) => s.kind === 'command');
  }

  /**
   * Adds a plugin: its tools as `plugin__<name>__<tool>` (declared risk counts only when not
   * lower than the name suggests, unless the host trusts the plugin), its skills and commands
   * as `<name>:<item>`, its servers as `plugin_<name>_<server>` (never with sampling). All
   * checks come first; a tool the registry refuses undoes the whole plugin. Resolves to the
   * plugin's info: tools, skills, commands, server statuses and warnings.
   */
  async use(plugin) {
    const where = 'agent.use';
    const { checkPlugin, toRecords } = await extensions();
    checkPlugin(where, plugin, checkTool, checkTransport);
    const core = this.#live(where);
    if (this.#plugins.has(plugin.name)) throw new Error(`${where}: plugin ${plugin.name} is already in use`);
    const entries = await toRecords(`${where}: plugin ${plugin.name}`, plugin.skills, plugin.commands);
    if (entries.length > 0) await this.#skillBook(where);
    const names = (tool) => JSON.parse(core.extensions('names', JSON.stringify({ plugin: plugin.name, tool })));
    const part = names('').plugin;
    for (const [other, { part: taken }] of this.#plugins) {
      if (taken === part) throw new Error(`${where}: plugin ${plugin.name} would share the namespace "${part}" of plugin ${other}`);
    }
    const trusted = this.#trustedPlugins.has(plugin.name);
    const info = { name: plugin.name, namespace: part, version: plugin.version, description: plugin.description, tools: [], skills: [], commands: [], servers: [], warnings: [] };
    this.#plugins.set(plugin.name, { info, part });
    try {
      for (const tool of plugin.tools ?? []) {
        const spec = toolSpec(tool);
        const full = names(tool.name).tool;
        const context = this.#pluginContext(part);
        try {
          const owned = JSON.stringify({ ...spec, plugin: plugin.name, trusted });
          info.tools.push(core.registerTool(owned, toolFunction(full, tool.execute, () => this.#runSignal, context)));
        } catch (error) {
          throw new Error(`${where}: plugin ${plugin.name}: tool ${tool.name}: ${messageOf(error)}`);
        }
      }
      const added = this.#addRecords(where, entries, plugin.name, part, trusted);
      for (const { qualified, kind } of added.names) (kind === 'command' ? info.commands : info.skills).push(qualified);
      info.warnings.push(...added.warnings);
      if (plugin.hooks) {
        this.#pluginHooks.push({ name: plugin.name, root: plugin.hooks.root, settings: plugin.hooks.settings });
        this.#applyHooks();
        info.hooks = this.#hookList.filter((h) => h.source === `plugin ${plugin.name}`);
      }
    } catch (error) {
      this.removePlugin(plugin.name);
      throw error;
    }
    info.servers = await Promise.all(
      Object.entries(plugin.servers ?? {}).map(async ([server, transport]) => {
        if (isMockGithub(transport)) await mocks().catch(() => {});
        // `plugin` makes the core name it plugin_<p>_<server> and refuse it sampling.
        const protocol = isMockGithub(transport) ? 'legacy' : 'auto';
        const options = JSON.stringify({ roots: this.#roots, plugin: plugin.name, protocol });
        const status = JSON.parse(await core.connect(server, adaptTransport(transport), options));
        if (status.status === 'failed') info.warnings.push(`server ${status.name} failed: ${status.error}`);
        return status;
      }),
    );
    return structuredClone(info);
  }

  /** What plugin code gets: gated tool calls (attributed `plugin:<name>`) and a log line. */
  #pluginContext(part) {
    return {
      callTool: async (name, args) => {
        const where = `plugin ${part}: callTool`;
        nonEmptyString(where, 'name', name);
        if (args !== undefined && !isPlainObject(args)) fail(where, `the arguments must be an object, got ${describe(args)}`);
        const core = this.#live(where);
        try {
          const json = JSON.stringify(args ?? {});
          return JSON.parse(await core.callTool(name, json, this.#emitter(undefined), `plugin:${part}`, this.#runApprove));
        } catch (error) {
          throw new Error(`${where}: ${messageOf(error)}`);
        }
      },
      log: (message) => callSafely(this.#onNotice, `plugin ${part}: ${message}`),
    };
  }

  /**
   * Removes plugin `name`: exactly its tools, servers, skills and commands. False when no
   * plugin by that name is in use.
   */
  removePlugin(name) {
    nonEmptyString('agent.removePlugin', 'name', name);
    const entry = this.#plugins.get(name);
    if (!entry) return false;
    this.#plugins.delete(name);
    if (this.#pluginHooks.some((h) => h.name === name)) {
      this.#pluginHooks = this.#pluginHooks.filter((h) => h.name !== name);
      this.#applyHooks();
    }
    const plugin = JSON.stringify({ plugin: name });
    this.#book?.op('removePlugin', plugin);
    // After the book: the runtime rebuilds the skill tools from it.
    this.#live('agent.removePlugin').extensions('removePlugin', plugin);
    for (const key of [...this.#skillFiles.keys()]) {
      if (key.startsWith(`${entry.part}:`)) this.#skillFiles.delete(key);
    }
    return true;
  }

  /** The plugins in use, each with its tools, skills, commands, current server statuses and warnings. */
  plugins() {
    const servers = this.servers();
    return [...this.#plugins.values()].map(({ info }) => ({
      ...structuredClone(info),
      servers: info.servers.map((s) => servers.find((now) => now.name === s.name) ?? s),
    }));
  }

  /**
   * Runs command or skill `name` (bare or `plugin:name`) with `args` as the user typing
   * `/name args`: arguments substituted, its shell snippets run first as gated `bash` calls
   * (only when the host registered a `bash` tool). An unknown name throws.
   */
  async runCommand(name, args, options) {
    const where = 'agent.runCommand';
    nonEmptyString(where, 'name', name);
    if (args !== undefined && typeof args !== 'string') fail(where, `the arguments must be a string, got ${describe(args)}`);
    const input = `/${name.replace(/^\//, '')}${args ? ` ${args}` : ''}`;
    // Resolved as run() will (precedence, plugin items shared by two plugins, built-ins), so
    // a name that reaches nothing is an error here, never text for the model.
    if (this.#bookOp(where, 'resolve', { input }, null) === null) {
      throw new Error(`${where}: unknown command ${input.split(' ')[0]} (agent.commands() and agent.skills() list them)`);
    }
    return this.run(input, options);
  }

  /** Whether `close()` was called. */
  get closed() {
    return this.#closed;
  }

  /** Closes every server connection and releases the runtime. Safe to call twice. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#wasm.close();
    this.#wasm.free();
    this.#book?.free();
    this.#book = null;
  }
}

/**
 * `agents` read by the `ext` module as the runtime reads it (checks, precedence, the `Agent`
 * tool's catalog), loaded for agents with subagents only: the runtime module carries none of it.
 */
async function agentRecord(agents) {
  const record = JSON.parse((await ext()).agentSetRecord(JSON.stringify(agents)));
  if (record.error !== undefined) throw new TypeError(`createAgent: ${record.error}`);
  return record;
}

/**
 * Creates an agent. With no options: the mock model, and the mock GitHub MCP server connected
 * as `github`. Servers that fail to connect are reported in `agent.servers()`; they never stop
 * the agent.
 */
export async function createAgent(options) {
  const o = checkAgentOptions('createAgent', options);
  if (o.history !== undefined) checkHistory('createAgent', o.history);
  const servers = o.servers ?? { github: mockGithub() };
  // The mocks module (mock model, mock GitHub server) loads alongside the runtime when needed.
  const needsMocks = isMockModel(o.model) || Object.values(servers).some(isMockGithub);
  await Promise.all([init(), needsMocks ? mocks().catch(() => {}) : null]);
  const agent = new Agent(o, token, o.agents === undefined ? undefined : await agentRecord(o.agents));
  if (o.session !== undefined) {
    try {
      await agent[openSession](o.session);
    } catch (error) {
      agent.close();
      throw error;
    }
  }
  if (o.history !== undefined) {
    try {
      agent.setHistory(o.history);
    } catch (error) {
      agent.close();
      const Kind = error instanceof TypeError ? TypeError : Error;
      throw new Kind(messageOf(error).replace(/^agent\.setHistory/, 'createAgent'));
    }
  }
  try {
    for (const tool of o.tools ?? []) agent.registerTool(tool);
  } catch (error) {
    agent.close();
    throw new Error(messageOf(error).replace(/^agent\.registerTool/, 'createAgent: tools'));
  }
  try {
    if (o.skills !== undefined || o.commands !== undefined) await agent.addSkills(o.skills, o.commands);
    for (const plugin of o.plugins ?? []) {
      const info = await agent.use(plugin);
      for (const warning of info.warnings) callSafely(o.onNotice, `plugin ${info.name}: ${warning}`);
    }
  } catch (error) {
    agent.close();
    const Kind = error instanceof TypeError ? TypeError : Error;
    throw new Kind(messageOf(error).replace(/^agent\.(use|addSkills)/, 'createAgent'));
  }
  const sampling = new Set(o.sampling ?? []);
  await Promise.all(
    Object.entries(servers).map(([name, transport]) => {
      const options = { ...o.serverOptions?.[name] };
      if (sampling.has(name)) options.sampling = true;
      return agent.connect(name, transport, options);
    }),
  );
  return agent;
}
