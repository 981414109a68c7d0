// agentwire/node: project instructions from folders, as the CLI finds and reads them, and
// createAgent({ instructions }) with the prefix fixed and path rules joining tool results.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { createAgent } from 'agentwire';
import { loadInstructions } from 'agentwire/node';

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A home and a git repository with nested instruction files, imports and rules. */
function tree() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'aw-instructions-')));
  const home = join(base, 'home');
  const repo = join(base, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  write(join(home, '.claude', 'CLAUDE.md'), 'USER: answer briefly.');
  write(join(home, '.ssh', 'id_rsa'), 'SECRETKEY');
  write(join(repo, 'CLAUDE.md'), 'ROOT @docs/a.md\n<!-- NOTE -->\n```\n@docs/fenced.md\n```\n');
  write(join(repo, 'docs', 'a.md'), 'A @b.md');
  write(join(repo, 'docs', 'b.md'), 'B');
  write(join(repo, 'docs', 'fenced.md'), 'FENCED');
  write(join(repo, 'pkg', 'AGENTS.md'), 'PKG @~/.ssh/id_rsa');
  write(join(repo, '.claude', 'rules', 'ts.md'), '---\npaths: "pkg/src/**/*.ts"\n---\nTS-RULE');
  symlinkSync('/proc/self/environ', join(repo, 'pkg', 'CLAUDE.local.md'));
  return { home, repo, cwd: join(repo, 'pkg') };
}

test('loadInstructions resolves a nested tree in order, the same every time, confined', async () => {
  const t = tree();
  const options = { cwd: t.cwd, home: t.home, configHome: join(t.home, '.config') };
  const found = await loadInstructions(options);
  assert.deepEqual(found.files.map((f) => f.shown), ['~/.claude/CLAUDE.md', 'CLAUDE.md', 'docs/a.md', 'docs/b.md', 'pkg/AGENTS.md', '.claude/rules/ts.md']);
  const order = ['USER:', 'ROOT', '\nA ', '\nB\n', 'PKG'].map((s) => found.text.indexOf(s));
  assert.ok(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), found.text);
  for (const absent of ['SECRETKEY', 'NOTE', 'FENCED', 'TS-RULE', 'PATH=']) assert.ok(!found.text.includes(absent), absent);
  assert.ok(found.warnings.some((w) => w.includes('import @~/.ssh/id_rsa not read')), found.warnings.join('\n'));
  assert.ok(found.warnings.some((w) => w.includes('CLAUDE.local.md leads outside the project')), found.warnings.join('\n'));
  assert.deepEqual(await loadInstructions(options), found);
  // Trusted: the key folder stays unread.
  const trusted = await loadInstructions({ ...options, trustWorkspace: true });
  assert.ok(!trusted.text.includes('SECRETKEY'));
  assert.ok(trusted.warnings.some((w) => w.includes('never read as instructions')), trusted.warnings.join('\n'));
  assert.equal((await loadInstructions({ ...options, bare: true })).text, '');
});

test('createAgent({ instructions }): a fixed prefix, and a path rule joins the first matching read', async () => {
  const t = tree();
  write(join(t.cwd, 'src', 'a.ts'), 'export const a = 1;');
  const instructions = await loadInstructions({ cwd: t.cwd, home: t.home, configHome: join(t.home, '.config') });
  const requests = [];
  const model = {
    async complete(request) {
      requests.push(request);
      if (requests.length <= 2) return { toolCalls: [{ id: `r${requests.length}`, name: 'read_file', arguments: { path: 'src/a.ts' } }] };
      return { text: 'done' };
    },
  };
  const readFile = { name: 'read_file', description: 'Read a file', risk: 'read', execute: () => 'export const a = 1;' };
  const agent = await createAgent({ model, servers: {}, tools: [readFile], systemPrompt: 'BASE', instructions });
  try {
    await agent.run('read it', { onApproval: () => true });
    assert.equal(requests[0].system, `BASE\n\n${instructions.text}`);
    assert.ok(requests.every((r) => r.system === requests[0].system));
    const results = requests[2].messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(results[0], 'export const a = 1;\n\n[Instructions for files like pkg/src/a.ts, from .claude/rules/ts.md]\nTS-RULE');
    assert.equal(results[1], 'export const a = 1;', 'a rule joins once');
  } finally {
    agent.close();
  }
  // A plain text works anywhere; a wrong shape names the option.
  const plain = await createAgent({ model: { complete: async (r) => (requests.push(r), { text: 'ok' }) }, servers: {}, instructions: 'Be terse.' });
  try {
    await plain.run('hi');
    assert.ok(requests.at(-1).system.endsWith('\n\nBe terse.'));
  } finally {
    plain.close();
  }
  await assert.rejects(createAgent({ servers: {}, instructions: 42 }), /"instructions" must be a string/);
});
