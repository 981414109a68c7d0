// Skills from the page in headless Chromium: a pasted SKILL.md is parsed by the core (the
// package's ext module), shown with its warnings, added to the agent, and activated by the mock
// model when the prompt names it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lastAnswer, openPage, sendPrompt, toolCalls, useServedPage } from './helpers.mjs';

const www = useServedPage();

const SKILL = `---
name: release-notes
description: Write release notes from merged pull requests
model: opus
---
# Release notes guide
Group the changes by feature, fix and chore.
`;

describe('skills on the page', () => {
  test('a pasted SKILL.md is parsed, added, listed and activated by the mock model', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      await page.locator('#add-skill-button').click();
      const add = page.locator('#add-skill-add');
      assert.equal(await add.isDisabled(), true, 'nothing to add before a paste');
      // Half a file: the core refuses it and says why; nothing can be added.
      await page.locator('#add-skill-form textarea').fill('---\nname: broken\n');
      await page.locator('#add-skill-error').filter({ hasText: /\S/ }).waitFor();
      assert.equal(await add.isDisabled(), true);

      await page.locator('#add-skill-form textarea').fill(SKILL);
      const preview = page.locator('#add-skill-preview');
      await preview.locator('li').first().waitFor();
      const lines = await preview.locator('li').allInnerTexts();
      assert.equal(lines[0], '/release-notes: Write release notes from merged pull requests');
      assert.ok(lines.some((l) => /^ignored: model/.test(l)), lines.join('\n'));
      await add.click();
      await page.locator('#add-skill').waitFor({ state: 'hidden' });

      const listed = page.locator('.tool-group[data-group="skills"] [data-skill="release-notes"]');
      assert.equal(await listed.count(), 1);
      assert.match(await listed.innerText(), /Write release notes/);

      await sendPrompt(page, 'use the release-notes skill for v2');
      const call = toolCalls(page, 'activate_skill');
      assert.equal(await call.count(), 1);
      assert.equal(await call.locator('.call-args').innerText(), '{"name":"release-notes"}');
      assert.equal(await lastAnswer(page), 'Loaded skill release-notes: Release notes guide');

      // The same name twice is refused in the dialog.
      await page.locator('#add-skill-button').click();
      await page.locator('#add-skill-form textarea').fill(SKILL);
      await preview.locator('li').first().waitFor();
      await add.click();
      await page.locator('#add-skill-error').filter({ hasText: 'already added' }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
