// The page end to end in headless Chromium: the GitHub example, the timeline, the tool list,
// multi-turn history, a JS tool, a new chat, and the layout on a phone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { importPackage, lastAnswer, openPage, RESULTS, sendPrompt, toolCalls, useServedPage } from './helpers.mjs';

const www = useServedPage();

/** The canned issues of vercel/ai, asked of the package's mock GitHub server in Node. */
async function cannedIssues() {
  const { createAgent } = await importPackage();
  const agent = await createAgent();
  try {
    const result = await agent.callTool('mcp__github__list_issues', { owner: 'vercel', repo: 'ai' });
    assert.equal(result.isError, false, result.text);
    return JSON.parse(result.text);
  } finally {
    agent.close();
  }
}

describe('the page', () => {
  test('runs "查看 vercel/ai 的 issues" on the mock model and mock GitHub server', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      // The example prompt is one click away.
      await page.locator('.example', { hasText: '查看 vercel/ai 的 issues' }).click();
      await page.locator('.msg.assistant:not(.pending)').waitFor({ timeout: 30_000 });

      // The timeline: the step, the MCP tool call with its exact arguments, ok, a duration.
      const call = toolCalls(page, 'mcp__github__list_issues');
      assert.equal(await call.count(), 1);
      assert.equal(await call.locator('.call-args').innerText(), '{"owner":"vercel","repo":"ai"}');
      assert.equal(await call.getAttribute('data-state'), 'ok');
      assert.match(await call.locator('.badge.duration').innerText(), /^\d+ ms$/);
      assert.equal(await call.locator('.risk').innerText(), 'read');
      assert.ok(await page.locator('#timeline .ev.step', { hasText: 'Step 1' }).count());
      assert.equal(await page.locator('#timeline .ev.done').count(), 1);

      // The result is collapsible, and holds what the tool returned.
      const result = call.locator('details.call-result');
      assert.equal(await result.evaluate((d) => d.open), false);
      await result.locator('summary').click();
      assert.equal(await result.evaluate((d) => d.open), true);
      const shown = JSON.parse(await result.locator('.call-output').innerText());
      const canned = await cannedIssues();
      assert.deepEqual(shown, canned, 'the timeline shows the tool result the package returns');
      assert.ok(canned.length >= 3, `expected several canned issues, got ${canned.length}`);

      // The answer lists the canned issues (the mock model shows up to 20).
      const answer = await lastAnswer(page);
      for (const issue of canned.slice(0, 20)) {
        assert.ok(answer.includes(issue.title), `the answer should list "${issue.title}":\n${answer}`);
        assert.ok(answer.includes(String(issue.number)), `the answer should give #${issue.number}`);
      }
      assert.match(await page.locator('.msg.assistant .meta').last().innerText(), /2 steps · Mock model/);

      await page.screenshot({ path: join(RESULTS, 'page-desktop.png') });
      await result.locator('summary').click(); // collapse again for a tidy timeline below
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('groups the tool list by source, with each tool\'s risk', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      const groups = await page.locator('.tool-group').evaluateAll((els) => els.map((e) => e.dataset.group));
      assert.deepEqual(groups, ['builtin', 'mcp:github']);
      const builtin = page.locator('.tool-group[data-group="builtin"] .tool');
      const own = await builtin.evaluateAll((els) => els.map((e) => [e.dataset.tool, e.dataset.risk]));
      // The page offers the built-in subagent through the `Agent` tool.
      assert.ok(own.some(([name, risk]) => name === 'Agent' && risk === 'read'), JSON.stringify(own));
      assert.deepEqual(own.filter(([name]) => name !== 'Agent'), [
        ['calculator', 'read'],
        ['get_weather', 'network'],
        // The mock GitHub server offers resources, so the two resource tools are registered.
        ['list_mcp_resources', 'read'],
        ['read_mcp_resource', 'read'],
      ]);
      // The GitHub group lists exactly the mock server's tools, with the package's risks.
      const { createAgent } = await importPackage();
      const agent = await createAgent();
      const expected = agent.tools().filter((t) => t.server === 'github').map((t) => [t.name, t.risk]);
      agent.close();
      const github = page.locator('.tool-group[data-group="mcp:github"] .tool');
      assert.deepEqual(await github.evaluateAll((els) => els.map((e) => [e.dataset.tool, e.dataset.risk])), expected);
      assert.ok(expected.some(([, risk]) => risk === 'write'), 'the mock server has write tools (create_issue)');
      assert.match(await page.locator('.tool-group[data-group="mcp:github"] h3').innerText(), /MCP · github/);
      assert.match(await page.locator('#tools-count').innerText(), new RegExp(`^${expected.length + 5} tools$`));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('keeps a multi-turn history, runs a JS tool, and starts over on "New chat"', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      await sendPrompt(page, 'list pull requests in vercel/ai');
      assert.equal(await toolCalls(page, 'mcp__github__list_pull_requests').count(), 1);
      await sendPrompt(page, 'calculate (2+3)*4^2');
      const calc = toolCalls(page, 'calculator');
      assert.equal(await calc.locator('.call-args').innerText(), '{"expression":"(2+3)*4^2"}');
      assert.match(await lastAnswer(page), /\(2\+3\)\*4\^2 = 80/);

      // Both turns are on screen, in order, and in the timeline as two runs.
      const users = await page.locator('.msg.user').allInnerTexts();
      assert.deepEqual(users, ['list pull requests in vercel/ai', 'calculate (2+3)*4^2']);
      assert.equal(await page.locator('.msg.assistant:not(.error)').count(), 2);
      assert.equal(await page.locator('#timeline .run-head').count(), 2);

      // A question that fits no pattern gets the mock model's own explanation, not an error.
      await sendPrompt(page, 'hello there');
      assert.match(await lastAnswer(page), /mock model/);

      await page.locator('#new-chat').click();
      assert.equal(await page.locator('.msg').count(), 0);
      assert.equal(await page.locator('#welcome').isVisible(), true);
      assert.equal(await page.locator('#timeline .ev').count(), 0);
      await sendPrompt(page, 'calculate 1+1');
      assert.equal(await page.locator('#timeline .run-head').innerText().then((t) => t.startsWith('Run 1')), true);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('shows a failing tool call as an error, with its message', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      // The mock GitHub server has no such repository: the tool result is an error.
      await sendPrompt(page, 'list issues in nobody/nothing-here');
      const call = toolCalls(page, 'mcp__github__list_issues');
      assert.equal(await call.getAttribute('data-state'), 'failed');
      assert.equal(await call.locator('.badge.failed').innerText(), 'failed');
      assert.equal(await call.locator('details.call-result').evaluate((d) => d.open), true, 'errors are shown open');
      assert.match(await call.locator('.call-output').innerText(), /nobody\/nothing-here|not found/i);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('dispatches two subagents from the example prompt and shows their progress', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      await page.locator('.example', { hasText: 'use subagents' }).click();
      await page.locator('.msg.assistant:not(.pending)').waitFor({ timeout: 30_000 });
      const lines = await page.locator('#timeline .ev.subagent').allInnerTexts();
      assert.ok(lines.some((l) => /general-purpose.*→ mcp__github__list_issues/.test(l)), lines.join('\n'));
      assert.ok(lines.some((l) => /general-purpose.*→ mcp__github__list_pull_requests/.test(l)), lines.join('\n'));
      assert.equal(lines.filter((l) => /done in 2 steps/.test(l)).length, 2, lines.join('\n'));
      assert.equal(await toolCalls(page, 'Agent').count(), 2);
      const answer = await lastAnswer(page);
      assert.match(answer, /vercel\/ai/);
      assert.match(answer, /facebook\/react/);
      assert.equal(await page.locator('#timeline .ev.done').count(), 1, 'one end for the run');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('fits a phone screen and the dark theme', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url, {
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    try {
      await page.locator('.example', { hasText: '查看 vercel/ai 的 issues' }).click();
      await page.locator('.msg.assistant:not(.pending)').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
      await page.screenshot({ path: join(RESULTS, 'page-phone-dark.png'), fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
