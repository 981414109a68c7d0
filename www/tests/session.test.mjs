// The page's session: the context meter (agent.context()) and the conversation kept across a
// reload in localStorage, in headless Chromium.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lastAnswer, openPage, sendPrompt, useServedPage } from './helpers.mjs';

const www = useServedPage();
const KEY = 'agentwire.www.session';

/** The meter's token total. */
const meterTotal = async (page) => Number(await page.locator('#context-meter').getAttribute('data-total'));

/** The stored transcript's entries. */
const stored = async (page) =>
  page.evaluate((key) => (localStorage.getItem(key) ?? '').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)), KEY);

describe('the session', () => {
  test('the context meter shows what the conversation takes, and the window when there is one', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      const empty = await meterTotal(page);
      assert.ok(empty > 500, `system prompt and tools count before any turn, got ${empty}`);
      assert.match(await page.locator('#context-label').innerText(), /^[\d,]+ tokens$/);
      assert.equal(await page.locator('#context-bar').isVisible(), false, 'the mock model has no window');
      await sendPrompt(page, '查看 vercel/ai 的 issues');
      const after = await meterTotal(page);
      assert.ok(after > empty + 1000, `the tool result counts: ${empty} → ${after}`);
      assert.match(await page.locator('#context-meter').getAttribute('title'), /conversation [\d,]+ tokens/);

      // With a window (?contextWindow=N), the meter fills up to it.
      await page.goto(`${www.url}?contextWindow=64000`);
      await page.locator('#status[data-state="ready"]').waitFor();
      const label = await page.locator('#context-label').innerText();
      assert.match(label, /^[\d,]+ \/ 64,000 tokens \(\d+%\)$/);
      const bar = page.locator('#context-bar');
      assert.equal(await bar.isVisible(), true);
      assert.equal(Number(await bar.getAttribute('max')), 64000);
      assert.equal(await bar.evaluate((m) => m.value), await meterTotal(page));
      assert.equal(await bar.evaluate((m) => m.high), 51200, 'compaction starts at 80%');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('the conversation survives a reload, continues, and New chat forgets it', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      await sendPrompt(page, 'list pull requests in vercel/ai');
      await sendPrompt(page, 'calculate (2+3)*4^2');
      const answers = await page.locator('.msg.assistant .body').allInnerTexts();
      const before = await meterTotal(page);
      const entries = await stored(page);
      assert.equal(entries[0].type, 'session');
      assert.deepEqual(entries.filter((e) => e.type === 'user').map((e) => e.content), ['list pull requests in vercel/ai', 'calculate (2+3)*4^2']);

      await page.reload();
      await page.locator('#status[data-state="ready"]').waitFor();
      assert.deepEqual(await page.locator('.msg.user').allInnerTexts(), ['list pull requests in vercel/ai', 'calculate (2+3)*4^2']);
      assert.deepEqual(await page.locator('.msg.assistant .body').allInnerTexts(), answers);
      assert.equal(await meterTotal(page), before, 'the restored conversation takes what it took');
      assert.match(await page.locator('#timeline').innerText(), /Restored 2 turns/);

      // The agent has the history too: the next turn goes on from it.
      await sendPrompt(page, 'hello there');
      assert.match(await lastAnswer(page), /mock model/);
      assert.ok((await meterTotal(page)) > before);
      assert.equal((await stored(page)).filter((e) => e.type === 'user').length, 3);

      await page.locator('#new-chat').click();
      await page.reload();
      await page.locator('#status[data-state="ready"]').waitFor();
      assert.equal(await page.locator('.msg').count(), 0);
      assert.equal(await page.locator('#welcome').isVisible(), true);
      await sendPrompt(page, 'calculate 1+1');
      assert.deepEqual((await stored(page)).filter((e) => e.type === 'user').map((e) => e.content), ['calculate 1+1']);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('a stored conversation this version cannot read is dropped with a notice, not fatal', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      await page.evaluate((key) => localStorage.setItem(key, '{"type":"session","version":1,"id":"x"}\n{"type":"telepathy"}\n'), KEY);
      await page.reload();
      await page.locator('#status[data-state="ready"]').waitFor();
      assert.match(await page.locator('#timeline').innerText(), /could not be restored and was dropped: .*line 2: .*telepathy/);
      await sendPrompt(page, 'calculate 2+2');
      assert.match(await lastAnswer(page), /2\+2 = 4/);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
