// agentwire/node: skills, commands and plugins from folders, with the CLI's places and precedence.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { createAgent } from 'agentwire';
import { discoverExtensions, loadPluginDir, loadSkillDir } from 'agentwire/node';

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

// Every folder a test makes is removed when the file's tests end, pass or fail.
const made = [];
after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const skill = (name, description) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nDo it.\n`;

test('loadSkillDir reads the skill and only the files inside its folder', async () => {
  const root = tempDir('aw-skill-');
  const dir = join(root, 'pdf');
  write(join(dir, 'SKILL.md'), skill('pdf', 'Read PDFs'));
  write(join(dir, 'reference', 'forms.md'), 'Forms guide');
  write(join(dir, '.hidden'), 'no');
  write(join(root, 'secret.txt'), 'outside');
  symlinkSync(join(root, 'secret.txt'), join(dir, 'leak.txt'));
  const def = await loadSkillDir(dir);
  assert.deepEqual([def.name, def.description, def.files], ['pdf', 'Read PDFs', { 'reference/forms.md': 'Forms guide' }]);
  assert.ok(def.warnings.some((w) => w.includes('leak.txt')), def.warnings.join());

  // The agent serves the bundled file through read_skill_file, confined to the listing.
  const requests = [];
  const model = {
    async complete(request) {
      requests.push(request);
      if (requests.length === 1) return { toolCalls: [{ id: 'r', name: 'read_skill_file', arguments: { skill: 'pdf', path: 'reference/forms.md' } }, { id: 'x', name: 'read_skill_file', arguments: { skill: 'pdf', path: '../secret.txt' } }] };
      return { text: 'done' };
    },
  };
  const agent = await createAgent({ model, servers: {}, skills: [def] });
  try {
    await agent.run('read the forms guide', { onApproval: () => true });
    const results = requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(results[0], 'Forms guide');
    assert.match(results[1], /error/);
  } finally {
    agent.close();
  }
});

test('loadPluginDir: skills, commands and a stdio server that connects', async () => {
  const fixtures = process.env.AW_MCP_FIXTURES;
  assert.ok(fixtures, 'AW_MCP_FIXTURES is set by pkg-tests/run');
  const dir = tempDir('aw-plugin-');
  write(join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'fixture', version: '0.1.0', hooks: { SessionStart: [] } }));
  write(join(dir, 'skills', 'helper', 'SKILL.md'), skill('helper', 'Helps'));
  write(join(dir, 'commands', 'hello.md'), '---\ndescription: Says hello\n---\nSay hello to $0.');
  write(join(dir, '.mcp.json'), JSON.stringify({ fast: { command: process.execPath, args: ['${FIXTURES}/fast.mjs'] }, broken: { command: '${NOT_SET_ANYWHERE}' } }));
  const plugin = await loadPluginDir(dir, { env: { FIXTURES: fixtures } });
  assert.deepEqual([plugin.name, plugin.version, Object.keys(plugin.servers)], ['fixture', '0.1.0', ['fast']]);
  assert.ok(plugin.warnings.some((w) => w.includes('NOT_SET_ANYWHERE')), plugin.warnings.join('\n'));
  // The manifest's inline hooks are the plugin's hooks now, not a warning.
  assert.deepEqual(plugin.hooks, { root: realpathSync(dir), settings: { hooks: { SessionStart: [] } } });
  assert.ok(!plugin.warnings.some((w) => w.includes('hooks')), plugin.warnings.join('\n'));
  const agent = await createAgent({ servers: {} });
  try {
    const info = await agent.use(plugin);
    assert.deepEqual(info.servers.map((s) => [s.name, s.status]), [['plugin_fixture_fast', 'connected']]);
    assert.deepEqual([info.skills, info.commands], [['fixture:helper'], ['fixture:hello']]);
    assert.ok(agent.tools().some((t) => t.name === 'mcp__plugin_fixture_fast__echo'));
    assert.equal(agent.removePlugin('fixture'), true);
    assert.deepEqual(agent.servers(), []);
  } finally {
    agent.close();
  }
});

test('discoverExtensions: user beats project, project grants and plugins wait for trust, bare finds nothing', async () => {
  const home = tempDir('aw-home-');
  const project = join(tempDir('aw-proj-'), 'repo');
  mkdirSync(join(project, '.git'), { recursive: true });
  write(join(home, '.claude', 'skills', 'deploy', 'SKILL.md'), skill('deploy', 'Mine'));
  write(join(project, '.claude', 'skills', 'deploy', 'SKILL.md'), skill('deploy', 'From the repo'));
  write(join(project, '.agents', 'skills', 'audit', 'SKILL.md'), '---\nname: audit\ndescription: Audits\nallowed-tools: Bash\n---\nAudit.');
  write(join(project, '.claude', 'commands', 'frontend', 'component.md'), 'Make $0');
  write(join(project, '.claude', 'skills', 'evil', '.claude-plugin', 'plugin.json'), '{"name": "evil"}');
  const found = await discoverExtensions({ cwd: join(project), home });
  assert.deepEqual(found.skills.map((s) => [s.name, s.description]), [['deploy', 'Mine'], ['audit', 'Audits']]);
  assert.equal(found.skills[1].allowedTools, undefined, 'an untrusted project grant is dropped');
  assert.deepEqual(found.commands.map((c) => c.name), ['frontend:component']);
  assert.deepEqual(found.plugins, []);
  assert.ok(found.warnings.some((w) => /user one takes precedence over the project one/.test(w)), found.warnings.join('\n'));
  assert.ok(found.warnings.some((w) => /project plugin evil .* not loaded: the workspace is not trusted/.test(w)), found.warnings.join('\n'));
  const trusted = await discoverExtensions({ cwd: project, home, trustWorkspace: true });
  assert.deepEqual(trusted.plugins.map((p) => p.name), ['evil']);
  assert.deepEqual(trusted.skills[1].allowedTools, ['Bash']);
  assert.deepEqual(await discoverExtensions({ cwd: project, home, bare: true }), { skills: [], commands: [], plugins: [], warnings: [] });
  // What it found is what createAgent takes.
  const agent = await createAgent({ servers: {}, skills: found.skills, commands: found.commands });
  try {
    assert.deepEqual(agent.skills().map((s) => s.qualified), ['audit', 'deploy']);
    assert.deepEqual(agent.commands().map((c) => c.qualified), ['frontend:component']);
  } finally {
    agent.close();
  }
});

test('discoverExtensions and loadPluginDir: links out of the project or plugin are refused unread, FIFOs never block', { timeout: 20000 }, async () => {
  const base = tempDir('aw-confine-');
  const [home, project, outside] = ['home', 'project', 'outside'].map((d) => join(base, d));
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const secret = '---\nname: leak\ndescription: SECRET-DESCRIPTION\n---\nSECRET-BODY\n';
  write(join(outside, 'secret.md'), secret);
  write(join(outside, 'skill', 'SKILL.md'), secret);
  write(join(outside, 'cmds', 'grab.md'), secret);
  write(join(project, '.claude', 'skills', 'fine', 'SKILL.md'), skill('fine', 'Stays'));
  mkdirSync(join(project, '.claude', 'skills', 'leak'), { recursive: true });
  symlinkSync(join(outside, 'secret.md'), join(project, '.claude', 'skills', 'leak', 'SKILL.md'));
  symlinkSync(join(outside, 'skill'), join(project, '.claude', 'skills', 'leakdir'));
  mkdirSync(join(project, '.claude', 'commands'), { recursive: true });
  symlinkSync(join(outside, 'secret.md'), join(project, '.claude', 'commands', 'leak.md'));
  symlinkSync(join(outside, 'cmds'), join(project, '.claude', 'commands', 'sub'));
  mkdirSync(join(project, '.claude', 'skills', 'pipe'), { recursive: true });
  execFileSync('mkfifo', [join(project, '.claude', 'skills', 'pipe', 'SKILL.md'), join(project, '.claude', 'commands', 'pipe.md')]);
  const found = await discoverExtensions({ cwd: project, home });
  const text = JSON.stringify([found.skills, found.commands]);
  assert.ok(!text.includes('SECRET'), text);
  assert.deepEqual(found.skills.map((s) => s.name), ['fine']);
  assert.deepEqual(found.commands, []);
  const warnings = found.warnings.join('\n');
  for (const culprit of ['skills/leak/SKILL.md', 'skills/leakdir', 'commands/leak.md', 'commands/sub']) {
    assert.ok(warnings.includes(culprit) && warnings.includes('leads outside the project'), `${culprit}:\n${warnings}`);
  }
  assert.ok(/pipe\/SKILL\.md: is a FIFO/.test(warnings) && /pipe\.md: is a FIFO/.test(warnings), warnings);

  // A plugin: its .mcp.json a FIFO, a skill linked out of its root.
  const plugin = join(base, 'plug');
  write(join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'plug' }));
  execFileSync('mkfifo', [join(plugin, '.mcp.json')]);
  mkdirSync(join(plugin, 'skills'), { recursive: true });
  symlinkSync(join(outside, 'skill'), join(plugin, 'skills', 'out'));
  const loaded = await loadPluginDir(plugin);
  assert.deepEqual([loaded.skills, Object.keys(loaded.servers)], [[], []]);
  const pluginWarnings = loaded.warnings.join('\n');
  assert.ok(pluginWarnings.includes('.mcp.json: is a FIFO'), pluginWarnings);
  assert.ok(pluginWarnings.includes('leads outside the plugin'), pluginWarnings);
});

test('a folder with more entries than the bound loads the first 2,000 by name and says so', async () => {
  const home = tempDir('aw-home-');
  const project = join(tempDir('aw-proj-'), 'repo');
  mkdirSync(join(project, '.git'), { recursive: true });
  const commands = join(home, '.claude', 'commands');
  mkdirSync(commands, { recursive: true });
  for (let i = 0; i < 2001; i++) writeFileSync(join(commands, `c${String(i).padStart(4, '0')}.md`), `Command ${i}.`);
  const found = await discoverExtensions({ cwd: project, home });
  assert.equal(found.commands.length, 2000);
  assert.equal(found.commands.at(-1).name, 'c1999');
  assert.ok(found.warnings.some((w) => w.includes(commands) && w.includes('2001 entries') && w.includes('1 not loaded')), found.warnings.join('\n'));
});
