// Deferred tool loading on the page: which tools are deferred, what each costs, the tokens a
// request carries, and a run through tool_search (`?toolSearch=on`).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, sendPrompt, toolCalls, useServedPage } from './helpers.mjs';

const www = useServedPage();

const tokensPerRequest = async (page) => {
  const text = await page.locator('#tools-context').innerText();
  const match = /~([\d,]+) tokens per request$/.exec(text);
  assert.ok(match, text);
  return { text, tokens: Number(match[1].replaceAll(',', '')) };
};

describe('tool search on the page', () => {
  test('by default every tool is direct, each with its estimated tokens', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      const tools = page.locator('.tool');
      const loading = await tools.evaluateAll((els) => els.map((e) => e.dataset.loading));
      assert.ok(loading.length > 10 && loading.every((l) => l === 'direct'), String(loading));
      const tokens = await tools.locator('.tokens').allInnerTexts();
      assert.equal(tokens.length, loading.length);
      assert.ok(tokens.every((t) => /^~\d+$/.test(t) && Number(t.slice(1)) > 10), String(tokens));
      assert.equal(await page.locator('.tool .loading').count(), 0);
      const { text, tokens: total } = await tokensPerRequest(page);
      assert.ok(!text.includes('deferred'), text);
      const sum = tokens.reduce((s, t) => s + Number(t.slice(1)), 0);
      assert.equal(total, sum, 'without deferral a request carries every definition');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('?toolSearch=on defers the MCP tools, shows it, and runs the example in 3 steps', async () => {
    const direct = await openPage(www.browser, www.url);
    const before = (await tokensPerRequest(direct.page)).tokens;
    await direct.context.close();

    const { context, page, errors } = await openPage(www.browser, `${www.url}?toolSearch=on`);
    try {
      const github = page.locator('.tool-group[data-group="mcp:github"] .tool');
      const count = await github.count();
      assert.ok(count > 5);
      assert.deepEqual(new Set(await github.evaluateAll((els) => els.map((e) => e.dataset.loading))), new Set(['deferred']));
      assert.equal(await github.locator('.loading').count(), count, 'each deferred tool is marked');
      const builtin = page.locator('.tool-group[data-group="builtin"] .tool');
      assert.deepEqual(new Set(await builtin.evaluateAll((els) => els.map((e) => e.dataset.loading))), new Set(['direct']));
      const { text, tokens } = await tokensPerRequest(page);
      assert.ok(text.startsWith(`${count} deferred · `), text);
      assert.ok(tokens < before, `${tokens} < ${before}`);

      await sendPrompt(page, '查看 vercel/ai 的 issues');
      assert.match(await page.locator('.msg.assistant .meta').last().innerText(), /3 steps/);
      const search = page.locator('#timeline .ev.tool-search');
      assert.equal(await search.innerText(), 'tool_search "select:mcp__github__list_issues" found mcp__github__list_issues');
      assert.equal(await toolCalls(page, 'mcp__github__list_issues').count(), 1);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
