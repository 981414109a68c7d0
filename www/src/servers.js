// Remote MCP servers: the "Add MCP server" dialog connects the agent to a server over
// Streamable HTTP (`httpTransport`, fetch from this page, so the server must allow CORS), and
// each server added here can be removed again. A server that fails to connect is reported in
// the dialog and changes nothing else.
import { httpTransport } from '../vendor/agentwire/index.js';
import { byId, httpUrl } from './dom.js';

/** Server names become tool-name prefixes (`mcp__<name>__<tool>`): keep them plain. */
const NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** A default name from the URL's host: `mcp.example.com` → `mcp-example-com`. */
export function nameFromUrl(text) {
  try {
    const host = new URL(text).hostname.replace(/^www\./, '');
    return host.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'remote';
  } catch {
    return '';
  }
}

/** Checks the form; returns `{ name, url, headers }` or throws with what is wrong. */
export function readServerForm(data, taken) {
  const url = String(data.get('url') ?? '').trim();
  httpUrl(url, 'URL', 'https://mcp.example.com/mcp');
  const name = String(data.get('name') ?? '').trim() || nameFromUrl(url);
  if (!NAME.test(name)) throw new Error('The name may use letters, digits, - and _ (at most 32)');
  if (taken.has(name)) throw new Error(`A server named ${name} is already connected`);
  const token = String(data.get('token') ?? '').trim();
  const headers = token ? { Authorization: /^bearer\s/i.test(token) ? token : `Bearer ${token}` } : {};
  return { name, url, headers };
}

/**
 * Wires the dialog. `agent` is the page's agent; `onChange()` re-renders the tool list;
 * `notice(text)` writes to the timeline. Returns the names of the servers added here.
 */
export function setupServers({ agent, onChange, notice }) {
  const dialog = byId('add-server');
  const form = byId('add-server-form');
  const error = byId('add-server-error');
  const connect = byId('add-server-connect');
  const added = new Set();

  byId('add-server-button').addEventListener('click', () => {
    form.reset();
    error.textContent = '';
    connect.disabled = false;
    dialog.showModal();
  });
  form.elements.url.addEventListener('input', () => {
    form.elements.name.placeholder = nameFromUrl(form.elements.url.value.trim()) || 'remote';
  });

  form.addEventListener('submit', async (event) => {
    if (event.submitter?.value !== 'connect') return; // Cancel just closes.
    event.preventDefault();
    let server;
    try {
      server = readServerForm(new FormData(form), new Set(agent.servers().map((s) => s.name)));
    } catch (e) {
      error.textContent = e?.message ?? String(e);
      return;
    }
    connect.disabled = true;
    error.textContent = `Connecting to ${server.url}…`;
    const onEvent = (e) => notice(`MCP server ${server.name}: ${e.message ?? `session ${e.sessionId} expired; starting a new one`}`);
    const status = await agent.connect(server.name, httpTransport(server.url, { headers: server.headers, onEvent }));
    connect.disabled = false;
    if (status.status !== 'connected') {
      // A failed server is not kept: the dialog says why, and the page goes on as before.
      agent.disconnect(server.name);
      error.textContent = `Could not connect ${server.name}: ${status.error ?? status.status}`;
      return;
    }
    added.add(server.name);
    notice(`Connected MCP server ${server.name} (${server.url})`);
    onChange();
    dialog.close('connect');
  });

  return added;
}
