// The tool list, grouped by source: the page's built-in JS tools, then each MCP server; each
// tool with its risk, its estimated tokens and whether it is deferred behind tool_search; then
// the skills the agent has.
import { byId, h } from './dom.js';

/**
 * Renders `agent.tools()` and `agent.servers()`; `allowed` holds tools answered "always".
 * Servers named in `removable` get a Remove button that calls `onRemove(name)`.
 */
export function renderTools(agent, allowed, { removable = new Set(), onRemove } = {}) {
  const root = byId('tools');
  const tools = agent.tools();
  const servers = agent.servers();
  const groups = [];

  // The `Agent` tool (subagents) is the page's own too.
  const builtin = tools.filter((t) => t.source === 'builtin' || t.source === 'subagent');
  if (builtin.length) {
    groups.push(group('builtin', 'Built-in', 'JS tools of this page', builtin, allowed, (t) => t.name));
  }
  for (const server of servers) {
    const own = tools.filter((t) => t.source === 'mcp' && t.server === server.name);
    const info = server.serverInfo;
    const about = [
      'MCP server',
      info?.name && `${info.name}${info.version ? ` ${info.version}` : ''}`,
      server.status !== 'connected' && server.status,
      server.error,
    ].filter(Boolean).join(' · ');
    const remove = removable.has(server.name) && onRemove
      ? h('button', { class: 'ghost small', type: 'button', title: `Disconnect ${server.name} and remove its tools`, dataset: { remove: server.name }, onclick: () => onRemove(server.name) }, 'Remove')
      : null;
    groups.push(group(`mcp:${server.name}`, `MCP · ${server.name}`, about, own, allowed, (t) => t.originalName ?? t.name, remove));
  }
  const skills = agent.skills();
  if (skills.length) {
    groups.push(skillGroup(skills));
  }
  root.replaceChildren(...groups);
  byId('tools-count').textContent = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
  const deferred = tools.filter((t) => t.loading === 'deferred').length;
  const tokens = agent.requestTokens().toLocaleString('en-US');
  byId('tools-context').textContent = `${deferred ? `${deferred} deferred · ` : ''}~${tokens} tokens per request`;
}

function group(key, title, about, tools, allowed, shortName, action = null) {
  return h(
    'section',
    { class: 'tool-group', dataset: { group: key } },
    h('h3', {}, title, h('span', { class: 'hint' }, about), action),
    h(
      'ul',
      {},
      tools.map((t) =>
        h(
          'li',
          { class: 'tool', dataset: { tool: t.name, risk: t.risk, loading: t.loading }, title: t.name },
          h('div', { class: 'tool-row' },
            h('span', { class: 'tool-name' }, shortName(t)),
            t.loading === 'deferred' &&
              h('span', { class: 'loading', title: 'Only its name is sent; the model finds it with tool_search' }, 'deferred'),
            h('span', { class: 'tokens', title: 'Estimated tokens of its definition' }, `~${t.estimatedTokens}`),
            h('span', { class: 'risk', dataset: { risk: t.risk } }, t.risk),
          ),
          t.description && h('p', { class: 'tool-desc' }, t.description),
          allowed.has(t.name) && h('span', { class: 'tool-policy' }, '✓ allowed for this session'),
        ),
      ),
    ),
  );
}

/** The skills the agent has: name, description and how many warnings the parser had. */
function skillGroup(skills) {
  return h(
    'section',
    { class: 'tool-group', dataset: { group: 'skills' } },
    h('h3', {}, 'Skills', h('span', { class: 'hint' }, 'activated with activate_skill')),
    h(
      'ul',
      {},
      skills.map((s) =>
        h(
          'li',
          { class: 'tool', dataset: { skill: s.qualified }, title: s.location },
          h('div', { class: 'tool-row' },
            h('span', { class: 'tool-name' }, s.qualified),
            s.warnings.length > 0 && h('span', { class: 'loading', title: s.warnings.join('\n') }, `${s.warnings.length} warning${s.warnings.length === 1 ? '' : 's'}`),
          ),
          h('p', { class: 'tool-desc' }, s.description),
        ),
      ),
    ),
  );
}
