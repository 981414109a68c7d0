// Type-checked (never run) by pkg-tests/run with `tsc --strict` against the installed package:
// the API as a TypeScript user writes it. Lines marked `@ts-expect-error` must stay errors, so
// the declarations cannot quietly loosen to `any`.
import {
  anthropic,
  createAgent,
  diagnostics,
  httpTransport,
  init,
  initMocks,
  initModule,
  mockGithub,
  mockModel,
  openaiCodec,
  openaiCompatible,
  type Agent,
  type AgentEvent,
  type ApprovalAnswer,
  type Model,
  type ModelResponse,
  type RuntimeDiagnostics,
  type SavedHistory,
  type ServerInfo,
  type ToolInfo,
  type Transport,
} from 'agentwire';
import { stdioTransport } from 'agentwire/node';

export async function demo(): Promise<string> {
  await init();
  await initMocks();
  await initModule('search');
  await initModule('anthropic', new URL('https://example.com/agentwire_anthropic_bg.wasm'));
  // @ts-expect-error: no such module
  await initModule('nope');
  const agent: Agent = await createAgent();
  const answer: string = await agent.run('查看 vercel/ai 的 issues', {
    onEvent: (event: AgentEvent) => {
      switch (event.type) {
        case 'tool_start':
          console.log(event.name, event.args);
          break;
        case 'tool_end':
          console.log(event.ok, event.duration_ms, event.output.length);
          break;
        case 'text_delta':
        case 'reasoning_delta':
          console.log(event.text);
          break;
        case 'step_end':
          console.log(event.step, event.usage.input_tokens, event.usage.cache_read_tokens ?? 0);
          break;
        case 'done':
          console.log(event.answer, event.steps, event.usage?.output_tokens);
          break;
      }
    },
    onApproval: async (request): Promise<ApprovalAnswer> => (request.risk === 'write' ? 'always' : false),
  });
  agent.close();
  return answer;
}

export function claude(): Model {
  // @ts-expect-error model is required
  anthropic({ apiKey: 'sk-ant-…' });
  return anthropic({
    apiKey: 'sk-ant-…',
    model: 'claude-sonnet-4-5',
    baseURL: 'https://api.anthropic.com',
    fetch: globalThis.fetch,
    dangerouslyAllowBrowser: false,
    toolChoice: { type: 'auto' },
  });
}

export async function realBackends(): Promise<ServerInfo[]> {
  const model: Model = openaiCompatible({
    baseURL: 'https://api.openai.com/v1',
    apiKey: 'sk-…',
    model: 'gpt-4o-mini',
    stream: true,
    retries: 2,
  });
  const agent = await createAgent({
    model,
    servers: { github: mockGithub() },
    allow: ['mcp__github__get_*'],
    deny: ['bash'],
    onNotice: (message: string) => console.warn(message),
    roots: ['file:///home/project', { uri: 'file:///data', name: 'data' }],
    sampling: ['github'],
  });
  const remote: Transport = httpTransport('https://mcp.example.com/mcp', {
    headers: { Authorization: 'Bearer token' },
    onEvent: (event) => console.warn(event.type === 'warning' ? event.message : event.sessionId),
    authorize: async ({ url, status, wwwAuthenticate }) => `token for ${url} after ${status} ${wwwAuthenticate ?? ''}`,
  });
  const status: ServerInfo = await agent.connect('remote', remote, { timeoutMs: 10_000, sampling: true });
  // A bridged transport that authorizes on its own says when, so timeouts wait for the user.
  let announce: (authorizing: boolean) => void = () => {};
  const bridged: Transport = {
    send: (line: string) => console.log(line),
    onMessage: () => {},
    onAuthorizing: (callback) => {
      announce = callback;
    },
  };
  await agent.connect('bridged', bridged);
  announce(true);
  if (status.status === 'failed') console.warn(status.error);
  await agent.connect('everything', stdioTransport('npx', ['-y', '@modelcontextprotocol/server-everything'], { env: { DEBUG: '1' } }));
  agent.setModel(mockModel());
  return agent.servers();
}

export async function tools(agent: Agent): Promise<ToolInfo[]> {
  agent.registerTool<{ city: string }>({
    name: 'get_weather',
    description: 'Weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    risk: 'network',
    execute: async ({ city }, { signal }) => {
      const response = await fetch(`https://example.com/${encodeURIComponent(city)}`, { signal });
      return response.text();
    },
  });
  const result = await agent.callTool('get_weather', { city: 'Paris' });
  console.log(result.isError, result.text, result.content[0]?.type);
  return agent.tools().filter((t) => t.source === 'mcp' && t.server === 'github');
}

export const scripted: Model = {
  async complete(request, context): Promise<ModelResponse> {
    context?.onText?.('thinking about ' + request.messages.length + ' messages');
    context?.onReasoning?.('…');
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: last.content };
    return { toolCalls: [{ id: 'call_1', name: 'mcp__github__list_issues', arguments: { owner: 'vercel', repo: 'ai' } }] };
  },
};

export function codec(): ModelResponse {
  const decoder = openaiCodec.createStreamDecoder();
  for (const delta of decoder.push('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n')) {
    if (delta.type === 'text') console.log(delta.text);
  }
  return decoder.finish();
}

export async function mistakes(agent: Agent): Promise<void> {
  // @ts-expect-error: not a risk level
  agent.registerTool({ name: 't', risk: 'dangerous', execute: () => 'x' });
  // @ts-expect-error: a transport needs send and onMessage
  await agent.connect('broken', { close() {} });
  // @ts-expect-error: headers are strings
  httpTransport('https://example.com/mcp', { headers: { 'x-retries': 3 } });
  // @ts-expect-error: sampling names servers
  await createAgent({ sampling: true });
  // @ts-expect-error: a root is a URI string or {uri, name}
  await createAgent({ roots: [{ path: '/home/project' }] });
  // @ts-expect-error: authorize gives a token string
  httpTransport('https://example.com/mcp', { authorize: async () => ({ token: 'x' }) });
  await agent.run('hi', {
    onEvent: (event) => {
      // @ts-expect-error: a done event has no text
      if (event.type === 'done') console.log(event.text);
    },
  });
}

export async function mcpFeatures(agent: Agent): Promise<string> {
  const { resources, resourceTemplates } = await agent.resources();
  const first: string = resources[0].uri + resourceTemplates.length;
  const { contents } = await agent.readResource('github', first);
  const prompts = await agent.prompts('github');
  const got = await agent.getPrompt('github', prompts[0].name, { owner: 'vercel' });
  const values: string[] = await agent.complete('github', 'explain_file', 'repo', 'a', { owner: 'vercel' });
  await agent.run('hi', {
    onEvent: (event) => {
      if (event.type === 'server_log') console.log(event.server, event.level, event.data);
      if (event.type === 'tools_changed') console.log(event.tools + 1);
    },
  });
  // @ts-expect-error: prompt arguments are strings
  await agent.getPrompt('github', 'x', { n: 1 });
  return (contents[0].text ?? '') + got.messages.length + values.join();
}

export async function cancelStreamRestore(): Promise<number> {
  const agent = await createAgent();
  const controller = new AbortController();
  const answer: Promise<string> = agent.run('hi', { signal: controller.signal });
  controller.abort();
  await answer.catch(() => {});
  let steps = 0;
  for await (const event of agent.stream('again', { signal: controller.signal })) {
    if (event.type === 'done') steps++;
  }
  // @ts-expect-error stream takes no onEvent: the loop gets the events
  agent.stream('x', { onEvent: () => {} });
  const saved: SavedHistory = agent.history();
  const restored = await createAgent({ history: saved });
  restored.setHistory({ version: 1, entries: saved.entries });
  // The shape before the transcript format still loads.
  restored.setHistory({ version: 1, messages: [{ role: 'user', content: 'hi' }] });
  // @ts-expect-error the version is part of the shape
  restored.setHistory({ messages: [] });
  // @ts-expect-error entries are transcript entries
  restored.setHistory({ version: 1, entries: [{ role: 'user', content: 'hi' }] });
  const held: RuntimeDiagnostics = diagnostics();
  return steps + held.timers;
}

// Skills, commands and plugins.
import {
  parseCommand,
  parsePluginManifest,
  parseSkill,
  type CommandDefinition,
  type ParsedSkill,
  type Plugin,
  type PluginInfo,
  type SkillDefinition,
  type SkillInfo,
} from 'agentwire';
import { discoverExtensions, loadPluginDir, loadSkillDir } from 'agentwire/node';

export async function extensions(): Promise<PluginInfo[]> {
  const skill: SkillDefinition = { name: 'pdf', description: 'Read PDFs', instructions: '# PDF', files: { 'a.md': 'A' } };
  const command: CommandDefinition = { name: 'review', description: 'Review', prompt: 'Review $0' };
  const plugin: Plugin = {
    name: 'docs',
    tools: [{ name: 'lint', risk: 'read', execute: async (_args, ctx) => ctx.callTool?.('bash', { command: 'ls' }) }],
    skills: ['---\nname: w\ndescription: W\n---\nBody'],
    servers: { s: mockGithub() },
  };
  // @ts-expect-error a plugin cannot carry permission rules
  const evil: Plugin = { name: 'evil', allow: ['*'] };
  void evil;
  const agent = await createAgent({ plugins: [plugin], skills: [skill], commands: [command], trustedPlugins: ['docs'], skillCatalogChars: 4000 });
  const info: PluginInfo = await agent.use(await loadPluginDir('./plugin', { env: { X: '1' } }));
  const skills: SkillInfo[] = agent.skills().concat(agent.commands());
  const removed: boolean = agent.removePlugin(info.name);
  const answer: string = await agent.runCommand('review', '42', { onApproval: () => true });
  const parsed: ParsedSkill = await parseSkill('---\nname: x\n---\n', { dirName: 'x' });
  const cmd: ParsedSkill = await parseCommand('Do $0', { name: 'do' });
  const manifest = await parsePluginManifest('{}', { dirName: 'p' });
  const found = await discoverExtensions({ cwd: '.', home: '/home/u', trustWorkspace: false });
  const loaded = await loadSkillDir('./pdf');
  const audit = (r: import('agentwire').AuditRecord): string => `${r.source} ${r.plugin} ${r.origin}`;
  void audit;
  void [skills, removed, answer, parsed.body, cmd.warnings, manifest.ignored, found.plugins, loaded.warnings];
  return agent.plugins();
}

// Sessions: a store of one's own, paused runs and resuming them.
import { memorySession, PausedError, type PendingCall, type SessionStore, type TranscriptEntry } from 'agentwire';

export async function sessions(kv: Map<string, string>): Promise<string> {
  const store: SessionStore = {
    async append(entry: TranscriptEntry) {
      kv.set('s', `${kv.get('s') ?? ''}${JSON.stringify(entry)}\n`);
    },
    load: () => kv.get('s') ?? null,
  };
  const agent = await createAgent({ session: store, ask: ['calculator'] });
  const inMemory = memorySession();
  const entries: TranscriptEntry[] = inMemory.entries;
  await createAgent({ session: true });
  // @ts-expect-error a store has append and load
  await createAgent({ session: { append() {} } });
  try {
    return await agent.run('calculate 6*7');
  } catch (error) {
    if (!(error instanceof PausedError)) throw error;
    const pending: PendingCall[] = error.pending;
    const again: PendingCall[] = agent.pending();
    const approvals = Object.fromEntries(pending.map((call) => [call.id, 'approve' as const]));
    // @ts-expect-error a decision is approve, reject or always
    agent.resume({ approvals: { [again[0].id]: 'maybe' } });
    const event = (e: AgentEvent) => (e.type === 'paused' ? e.pending[0].awaiting_approval : false);
    return (await agent.resume({ approvals, onEvent: (e) => event(e) })) + String(entries.length + (agent.session ? 1 : 0));
  }
}

/** Hook functions and the listing of hooks. */
export async function hooks(): Promise<import('agentwire').HookInfo[]> {
  const agent = await createAgent({
    deny: ['delete_repo'],
    hooks: {
      PreToolUse: [{ matcher: 'bash', timeoutMs: 5000, hooks: [async (input, { signal }) => {
        void signal.aborted;
        return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: String(input.tool_name) } };
      }] }],
      SessionStart: [() => 'context'],
    },
  });
  // @ts-expect-error an unknown event
  await createAgent({ hooks: { PreTool: [() => undefined] } });
  return agent.hooks();
}
