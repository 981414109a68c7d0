#!/usr/bin/env node
// agentwire's own cost per `callTool`, without pipes or a server process: the npm package
// against a minimal MCP echo server written in JS in the same process (answers on
// setImmediate), sequential calls, with and without an `onAudit` listener, for each package
// build given (say, before and after a change), rounds rotating between them.
//
//   node bench/js-call-inproc.mjs PKG_DIR [PKG_DIR...] [--calls N] [--rounds R]
//
// Prints client CPU per call (process.cpuUsage, median of the rounds; the echo server's few µs
// included) for every build × {no listener, onAudit}.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const dirs = [];
let calls = 5000;
let rounds = 6;
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--calls') calls = Number(args[++i]);
  else if (args[i] === '--rounds') rounds = Number(args[++i]);
  else dirs.push(resolve(args[i]));
}
if (!dirs.length || !(calls > 0) || !(rounds > 0)) {
  console.error('usage: js-call-inproc.mjs PKG_DIR [PKG_DIR...] [--calls N] [--rounds R]');
  process.exit(2);
}

/** An MCP server with one tool, `echo`, as a JS transport object. */
function echoServer() {
  let deliver;
  const answer = (m) => {
    if (m.method === 'initialize') {
      return { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '0' } };
    }
    if (m.method === 'tools/list') {
      const inputSchema = { type: 'object', properties: { message: { type: 'string' } } };
      return { tools: [{ name: 'echo', description: 'Echoes', inputSchema }] };
    }
    return { content: [{ type: 'text', text: `Echo: ${m.params.arguments.message}` }] };
  };
  return {
    send(line) {
      const m = JSON.parse(line);
      if (m.id === undefined) return;
      const reply = JSON.stringify({ result: answer(m), jsonrpc: '2.0', id: m.id });
      setImmediate(() => deliver(reply));
    },
    onMessage(callback) {
      deliver = callback;
    },
    close() {},
  };
}

const clients = [];
for (const [i, dir] of dirs.entries()) {
  const aw = await import(pathToFileURL(join(dir, 'node.js')).href);
  for (const audit of [false, true]) {
    const options = { servers: { e: echoServer() }, ...(audit ? { onAudit: () => {} } : {}) };
    const agent = await aw.createAgent(options);
    const call = async () => {
      const r = await agent.callTool('mcp__e__echo', { message: 'hello' });
      if (r.text !== 'Echo: hello') throw new Error(`unexpected result ${JSON.stringify(r)}`);
    };
    clients.push({ label: `#${i + 1} ${audit ? 'onAudit' : 'no listener'}`, call, cpu: [] });
  }
}
for (const c of clients) for (let i = 0; i < 1000; i += 1) await c.call();
for (let r = 0; r < rounds; r += 1) {
  for (let k = 0; k < clients.length; k += 1) {
    const c = clients[(k + r) % clients.length];
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i += 1) await c.call();
    const used = process.cpuUsage(start);
    c.cpu.push((used.user + used.system) / calls);
  }
}
console.log(`Node ${process.version}; ${rounds} rounds x ${calls} sequential calls each, order rotating`);
dirs.forEach((dir, i) => console.log(`#${i + 1} ${dir}`));
for (const c of clients) {
  const sorted = c.cpu.sort((a, b) => a - b);
  console.log(`${c.label.padEnd(16)} client CPU per call, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs`);
}
process.exit(0);
