// A stateless, modern-only (2026-07-28) MCP server over Streamable HTTP that serves the two
// extensions the npm package opts into per server: Tasks (io.modelcontextprotocol/tasks) and
// Skills over MCP (io.modelcontextprotocol/skills, SEP-2640). No official SDK serves either
// yet, so it is a plain Node http server speaking the revision as written: no `initialize`
// (refused with -32022), `server/discover`, `resultType` on every result, no session id, JSON
// answers, `Mcp-Method` / `Mcp-Name` headers checked against the body.
//
// Tools: `quick` (a plain result), `report` (a task when the client declared the Tasks
// extension: `working` with a status message, then `completed`; otherwise answered at once),
// `endless` (a task that never finishes: only `tasks/cancel` ends it).
// Skills: `pdf-tools` (SKILL.md and forms/w9.md, both matching their digests) and
// `release-notes` (its SKILL.md served differs from the digest its entry lists: tampered).
// `GET /__log` answers every JSON-RPC request received so far, in order ({method, name, params}).
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const SKILLS = 'io.modelcontextprotocol/skills';

const FILES = {
  'skill://pdf-tools/SKILL.md':
    '---\nname: pdf-tools\ndescription: Fill in PDF forms for the user\nallowed-tools: Bash\n---\n' +
    '# Filling PDF forms with care\nRead forms/w9.md before filling a W-9.\n',
  'skill://pdf-tools/forms/w9.md': 'The W-9 asks for a taxpayer identification number.\n',
  'skill://team/release-notes/SKILL.md':
    '---\nname: release-notes\ndescription: Write release notes from merged changes\n---\n# Release notes in three sections\n',
};
/**
 * What is served for a URI when it differs from what the entry's digest was computed from: the
 * same size, other bytes, so only the digest can tell.
 */
const SERVED = {
  'skill://team/release-notes/SKILL.md': FILES['skill://team/release-notes/SKILL.md'].replace('three sections', 'evil.example!!'),
};

function entry(root, frontmatter) {
  const files = Object.keys(FILES).filter((uri) => uri.startsWith(`${root}/`));
  return {
    uri: `${root}/SKILL.md`,
    frontmatter,
    resources: files.map((uri) => ({
      uri,
      digest: `sha256:${createHash('sha256').update(FILES[uri]).digest('hex')}`,
      size: Buffer.byteLength(FILES[uri]),
    })),
  };
}

const ENTRIES = [
  entry('skill://pdf-tools', { name: 'pdf-tools', description: 'Fill in PDF forms for the user', 'allowed-tools': 'Bash' }),
  entry('skill://team/release-notes', { name: 'release-notes', description: 'Write release notes from merged changes' }),
];

const TOOLS = [
  { name: 'quick', description: 'Answer at once', inputSchema: { type: 'object' } },
  { name: 'report', description: 'Build a report (slow: a task)', inputSchema: { type: 'object' } },
  { name: 'endless', description: 'Work forever (a task)', inputSchema: { type: 'object' } },
];

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** Starts the server on a free loopback port; resolves to `{ url (its /mcp), stop() }`. */
export async function extensionsServer() {
  const log = [];
  const tasks = new Map();
  let next = 0;
  const now = () => new Date().toISOString();
  const taskState = (task) => ({
    taskId: task.id,
    status: task.status,
    createdAt: task.created,
    lastUpdatedAt: now(),
    ttlMs: null,
    pollIntervalMs: 100,
    ...(task.message ? { statusMessage: task.message } : {}),
    ...(task.result ? { result: task.result } : {}),
  });

  function answer(method, params) {
    const meta = params?._meta ?? {};
    if (method === 'initialize') throw new RpcError(-32022, `only ${MODERN} is served`, { supported: [MODERN] });
    if (meta['io.modelcontextprotocol/protocolVersion'] !== MODERN) {
      throw new RpcError(-32022, `unsupported protocol version`, { supported: [MODERN] });
    }
    const extensions = meta['io.modelcontextprotocol/clientCapabilities']?.extensions ?? {};
    switch (method) {
      case 'server/discover':
        return {
          supportedVersions: [MODERN],
          capabilities: { tools: {}, resources: {}, extensions: { [TASKS]: {}, [SKILLS]: {} } },
          serverInfo: { name: 'extensions-fixture', version: '1.0.0' },
        };
      case 'tools/list':
        return { tools: TOOLS, ttlMs: 0, cacheScope: 'private' };
      case 'tools/call': {
        const name = params.name;
        if (!TOOLS.some((t) => t.name === name)) throw new RpcError(-32602, `no tool ${name}`);
        const done = { content: [{ type: 'text', text: `${name}: done` }] };
        // Only a client that declared the extension may be answered with a task.
        if (name === 'quick' || !extensions[TASKS]) return done;
        const task = { id: `task-${++next}`, tool: name, status: 'working', polls: 0, created: now(), message: 'started' };
        tasks.set(task.id, task);
        return { resultType: 'task', ...taskState(task) };
      }
      case 'tasks/get': {
        const task = tasks.get(params.taskId);
        if (!task) throw new RpcError(-32602, `no task ${params.taskId}`);
        task.polls++;
        if (task.tool === 'report' && task.status === 'working') {
          if (task.polls === 1) task.message = 'step 1 of 2: collecting';
          else {
            task.status = 'completed';
            task.message = 'step 2 of 2: written';
            task.result = { content: [{ type: 'text', text: `report ready after ${task.polls} polls` }] };
          }
        }
        return taskState(task);
      }
      case 'tasks/cancel': {
        const task = tasks.get(params.taskId);
        if (!task) throw new RpcError(-32602, `no task ${params.taskId}`);
        task.status = 'cancelled';
        return {};
      }
      case 'skills/list':
        return { skills: ENTRIES, ttlMs: 0, cacheScope: 'private' };
      case 'resources/read': {
        const uri = params.uri;
        if (!Object.hasOwn(FILES, uri)) throw new RpcError(-32602, `no resource ${uri}`);
        return { contents: [{ uri, mimeType: 'text/markdown', text: SERVED[uri] ?? FILES[uri] }], ttlMs: 0, cacheScope: 'private' };
      }
      default:
        throw new RpcError(-32601, `method not found: ${method}`);
    }
  }

  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url === '/__log') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify(log));
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' });
      return res.end();
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
    }
    if (message.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    const { method, params } = message;
    log.push({ method, name: req.headers['mcp-name'], params });
    const reply = { jsonrpc: '2.0', id: message.id };
    try {
      if (method !== 'initialize' && req.headers['mcp-method'] !== method) {
        throw new RpcError(-32001, `Mcp-Method header ${req.headers['mcp-method']} does not match ${method}`);
      }
      const result = answer(method, params);
      reply.result = { resultType: 'complete', ...result };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      reply.error = { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) };
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    log,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
