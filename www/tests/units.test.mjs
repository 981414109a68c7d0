// Unit tests of the page's own pieces: the calculator's parser (in Node) and the Markdown
// renderer (in the browser, where the DOM is).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { evaluate, pageTools } from '../src/page-tools.js';
import { launch, serveWww } from './helpers.mjs';

describe('calculator', () => {
  test('follows precedence, associativity and signs', () => {
    const cases = {
      '2+3*4': 14,
      '(2+3)*4^2': 80,
      '-2^2': -4,
      '2^3^2': 512,
      '2^-1': 0.5,
      '10 % 3': 1,
      '50%': 0.5,
      '7 - 2 - 1': 4,
      '8 / 4 / 2': 1,
      '3×4÷6': 2,
      '（1+1）*2': 4,
      '.5 + 1.25': 1.75,
    };
    for (const [expression, want] of Object.entries(cases)) assert.equal(evaluate(expression), want, expression);
  });

  test('rejects what is not arithmetic, saying why', () => {
    const cases = {
      '': /empty/,
      '2+': /ends too early/,
      '(1+2': /missing "\)"/,
      '1/0': /division by zero/,
      'alert(1)': /unexpected "a"/,
      '2 3': /unexpected "3"/,
      '10^400': /not a finite number/,
    };
    for (const [expression, want] of Object.entries(cases)) assert.throws(() => evaluate(expression), want, expression);
  });

  test('the tool answers with the expression and a tidy result', async () => {
    const calculator = pageTools().find((t) => t.name === 'calculator');
    assert.equal(calculator.risk, 'read');
    assert.deepEqual(await calculator.execute({ expression: '0.1+0.2' }), { expression: '0.1+0.2', result: '0.3' });
    assert.throws(() => calculator.execute({ expression: 42 }), /must be a string/);
    assert.equal(pageTools().find((t) => t.name === 'get_weather').risk, 'network');
  });
});

describe('markdown', () => {
  let browser;
  let server;
  let page;
  before(async () => {
    let url;
    ({ server, url } = await serveWww());
    browser = await launch();
    page = await browser.newPage();
    await page.goto(url); // the page's origin, to import its modules
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  const render = (text) =>
    page.evaluate(async (t) => {
      const { renderMarkdown } = await import('/src/markdown.js');
      const div = document.createElement('div');
      div.append(renderMarkdown(t));
      return div.innerHTML;
    }, text);

  test('renders lists, code, emphasis and links', async () => {
    assert.equal(
      await render('Issues:\n- **#1** `bug` in https://github.com/vercel/ai.\n- *two*\n\n```\nx < y\n```'),
      '<p>Issues:</p><ul><li><strong>#1</strong> <code>bug</code> in <a href="https://github.com/vercel/ai" target="_blank" rel="noopener noreferrer">https://github.com/vercel/ai</a>.</li><li><em>two</em></li></ul><pre><code>x &lt; y</code></pre>',
    );
    assert.equal(await render('1. one\n2. two'), '<ol><li>one</li><li>two</li></ol>');
    assert.equal(await render('# Title\nline one\nline two'), '<p><strong>Title</strong></p><p>line one<br>line two</p>');
  });

  test('never produces markup from the text, nor non-http links', async () => {
    const html = await render('<img src=x onerror="alert(1)"> [click](javascript:alert(1)) <script>alert(2)</script>');
    assert.ok(!/<img|<script/i.test(html), html);
    assert.ok(!/href="javascript/i.test(html), html);
    assert.match(html, /&lt;img src=x onerror="alert\(1\)"&gt;/);
  });
});

describe('timeline', () => {
  let browser;
  let server;
  let page;
  before(async () => {
    let url;
    ({ server, url } = await serveWww());
    browser = await launch();
    page = await browser.newPage();
    await page.goto(url);
    await page.locator('#status[data-state="ready"]').waitFor();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  test('renders each event kind: truncation, declines, errors, notices, masked secrets', async () => {
    const html = await page.evaluate(async () => {
      const { createTimeline } = await import('/src/timeline.js');
      const t = createTimeline({ riskOf: (name) => (name === 'big' ? 'read' : 'write'), redact: (s) => s.replaceAll('SECRET', '[API key]') });
      t.clear();
      t.startRun('a prompt');
      const events = [
        { type: 'step_start', step: 1 },
        { type: 'model_text', text: 'short text' },
        { type: 'tool_start', id: 'c1', name: 'big', args: { n: 1 } },
        { type: 'tool_end', id: 'c1', name: 'big', ok: true, duration_ms: 7, truncated: true, output: '{"a":1}' },
        { type: 'approval_request', id: 'c2', name: 'rm', args: {}, risk: 'write' },
      ];
      for (const e of events) t.event(e);
      const waiting = document.querySelector('[data-call-id="c2"]').dataset.state;
      t.decided('c2', 'no');
      t.event({ type: 'tool_end', id: 'c2', name: 'rm', ok: false, duration_ms: 0, truncated: false, output: 'declined: SECRET' });
      t.event({ type: 'notice', message: 'server x failed' });
      t.event({ type: 'error', message: 'the model failed: SECRET' });
      const q = (s) => document.querySelector(`#timeline ${s}`);
      return {
        waiting,
        truncated: q('[data-call-id="c1"] .badge.truncated')?.textContent,
        duration: q('[data-call-id="c1"] .badge.duration')?.textContent,
        risk: q('[data-call-id="c1"] .risk')?.textContent,
        args: q('[data-call-id="c1"] .call-args')?.textContent,
        output: q('[data-call-id="c1"] .call-output')?.textContent,
        collapsed: !q('[data-call-id="c1"] details').open,
        declined: q('[data-call-id="c2"] .badge.failed')?.textContent,
        declinedOpen: q('[data-call-id="c2"] details').open,
        text: document.getElementById('timeline').textContent,
      };
    });
    assert.equal(html.waiting, 'waiting');
    assert.equal(html.truncated, 'truncated');
    assert.equal(html.duration, '7 ms');
    assert.equal(html.risk, 'read');
    assert.equal(html.args, '{"n":1}');
    assert.equal(html.output, '{\n  "a": 1\n}');
    assert.equal(html.collapsed, true);
    assert.equal(html.declined, 'declined');
    assert.equal(html.declinedOpen, true);
    for (const part of ['Run 1', 'Step 1', 'short text', 'server x failed', 'the model failed: [API key]']) {
      assert.ok(html.text.includes(part), `the timeline should show "${part}":\n${html.text}`);
    }
    assert.ok(!html.text.includes('SECRET'));
  });
});
