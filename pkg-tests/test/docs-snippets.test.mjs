// The `js` snippets of README.md, docs/npm.md and docs/sessions.md, run as a reader would paste them: each one a
// module of its own in the project where the packed package is installed, under this Node.
// A snippet that throws, rejects, hangs or prints nothing fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

/** The repository's root, where README.md and docs/ are (set up by ../run). */
function docsRoot() {
  const root = process.env.AW_DOCS_ROOT;
  if (!root) throw new Error('AW_DOCS_ROOT must point at the repository; run the tests with pkg-tests/run');
  return root;
}

/** Every fenced block tagged `js` (or `javascript`) of a Markdown text, with its line. */
export function jsBlocks(markdown) {
  const blocks = [];
  let open = null;
  markdown.split('\n').forEach((line, index) => {
    if (open === null) {
      const fence = /^```\s*(js|javascript)\s*$/.exec(line.trim());
      if (fence) open = { line: index + 1, lines: [] };
    } else if (line.trim().startsWith('```')) {
      blocks.push({ line: open.line, code: open.lines.join('\n') });
      open = null;
    } else {
      open.lines.push(line);
    }
  });
  if (open !== null) throw new Error(`unclosed js block at line ${open.line}`);
  return blocks;
}

test('jsBlocks finds js blocks only, with their lines', () => {
  const text = 'a\n```js\nconsole.log(1);\n```\n```sh\nls\n```\n```javascript\nx();\ny();\n```\n';
  assert.deepEqual(jsBlocks(text), [
    { line: 2, code: 'console.log(1);' },
    { line: 8, code: 'x();\ny();' },
  ]);
});

for (const file of ['README.md', 'docs/npm.md', 'docs/sessions.md']) {
  const blocks = jsBlocks(readFileSync(join(docsRoot(), file), 'utf8'));
  test(`${file} has js snippets to run`, () => {
    assert.ok(blocks.length > 0, `no js block in ${file}`);
  });
  for (const { line, code } of blocks) {
    test(`${file}:${line} runs against the installed package`, () => {
      // Inside the project, so `import ... from 'agentwire'` resolves to the installed tarball.
      const dir = mkdtempSync(join(process.cwd(), 'docs-snippet-'));
      try {
        const script = join(dir, 'snippet.mjs');
        writeFileSync(script, code);
        const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
        const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
        assert.equal(run.error, undefined, `${file}:${line} did not finish: ${run.error}\n${output}`);
        assert.equal(run.status, 0, `${file}:${line} exited with ${run.status}\n${output}`);
        assert.ok(run.stdout.trim().length > 0, `${file}:${line} printed nothing\n${output}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}
