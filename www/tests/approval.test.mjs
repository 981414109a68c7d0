// Approvals: the page's `get_weather` tool has risk `network`, so the core asks before each
// call. Open-Meteo is answered by the test (no network here); declining must mean that no
// request leaves the page.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { lastAnswer, openPage, RESULTS, toolCalls, waitForRunEnd, useServedPage } from './helpers.mjs';

const www = useServedPage();

const PLACES = {
  Paris: { name: 'Paris', country: 'France', latitude: 48.85341, longitude: 2.3488 },
  Berlin: { name: 'Berlin', country: 'Germany', latitude: 52.52437, longitude: 13.41053 },
};
const NOW = { time: '2026-05-01T14:00', temperature_2m: 17.3, relative_humidity_2m: 61, weather_code: 2, wind_speed_10m: 11.2 };

/** Answers Open-Meteo's two endpoints from canned data; returns the URLs asked. */
async function fakeOpenMeteo(page) {
  const asked = [];
  await page.route(/^https:\/\/[a-z-]+\.open-meteo\.com\//, async (route) => {
    const u = new URL(route.request().url());
    asked.push(u.href);
    const cors = { 'access-control-allow-origin': '*' };
    if (u.host === 'geocoding-api.open-meteo.com') {
      const place = PLACES[u.searchParams.get('name')];
      return route.fulfill({ json: { results: place ? [place] : undefined }, headers: cors });
    }
    return route.fulfill({
      json: {
        latitude: Number(u.searchParams.get('latitude')),
        longitude: Number(u.searchParams.get('longitude')),
        current: NOW,
        current_units: { temperature_2m: '°C', relative_humidity_2m: '%', weather_code: 'wmo code', wind_speed_10m: 'km/h' },
      },
      headers: cors,
    });
  });
  return asked;
}

/** Sends `prompt` and waits for the approval dialog; returns the bubble index to wait on. */
async function askAndWaitForDialog(page, prompt) {
  const n = (await page.locator('.msg.assistant').count()) + 1;
  await page.locator('#prompt').fill(prompt);
  await page.locator('#prompt').press('Enter');
  await page.locator('#approval[open]').waitFor({ timeout: 30_000 });
  return n;
}

describe('approvals', () => {
  test('yes: the dialog shows the call, then the tool runs and the answer uses its result', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      const asked = await fakeOpenMeteo(page);
      await page.locator('.example', { hasText: 'weather in Paris' }).click();
      await page.locator('#approval[open]').waitFor({ timeout: 30_000 });

      assert.equal(await page.locator('#approval-tool').innerText(), 'get_weather');
      assert.equal(await page.locator('#approval-risk').innerText(), 'network');
      assert.deepEqual(JSON.parse(await page.locator('#approval-args').innerText()), { city: 'Paris' });
      const call = toolCalls(page, 'get_weather');
      assert.equal(await call.getAttribute('data-state'), 'waiting');
      assert.equal(await call.locator('.badge.waiting').innerText(), 'awaiting approval');
      assert.deepEqual(asked, [], 'nothing is fetched before the user answers');
      await page.screenshot({ path: join(RESULTS, 'approval-dialog.png') });

      await page.locator('#approval-yes').click();
      await waitForRunEnd(page, 1);
      assert.equal(asked.length, 2, `geocoding then forecast, got ${asked.join(', ')}`);
      assert.match(asked[0], /geocoding-api\.open-meteo\.com\/v1\/search\?name=Paris/);
      assert.match(asked[1], /api\.open-meteo\.com\/v1\/forecast\?latitude=48\.85341&longitude=2\.3488/);
      assert.equal(await call.getAttribute('data-state'), 'ok');
      assert.ok(await call.locator('.badge', { hasText: 'approved' }).count());
      const answer = await lastAnswer(page);
      for (const part of ['Paris', 'France', 'partly cloudy', '17.3 °C', '61 %', '11.2 km/h']) {
        assert.ok(answer.includes(part), `the answer should mention "${part}":\n${answer}`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('no: the call is declined, nothing is fetched, and the run still ends with an answer', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      const asked = await fakeOpenMeteo(page);
      const n = await askAndWaitForDialog(page, 'weather in Berlin');
      await page.locator('#approval-no').click();
      await waitForRunEnd(page, n);
      assert.deepEqual(asked, []);
      const call = toolCalls(page, 'get_weather');
      assert.equal(await call.getAttribute('data-state'), 'failed');
      assert.equal(await call.locator('.badge.failed').innerText(), 'declined');
      const answer = await lastAnswer(page);
      assert.match(answer, /get_weather/);
      assert.ok(!answer.includes('°C'), answer);
      assert.equal(await page.locator('.msg.assistant.error').count(), 0, 'a declined call is not a failed run');

      // Escape is a "no" too.
      const m = await askAndWaitForDialog(page, 'weather in Paris');
      await page.keyboard.press('Escape');
      await waitForRunEnd(page, m);
      assert.deepEqual(asked, []);
      assert.equal(await toolCalls(page, 'get_weather').last().locator('.badge.failed').innerText(), 'declined');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('always: runs now and stops asking about that tool for the session', async () => {
    const { context, page, errors } = await openPage(www.browser, www.url);
    try {
      const asked = await fakeOpenMeteo(page);
      const n = await askAndWaitForDialog(page, 'weather in Paris');
      await page.locator('#approval-always').click();
      await waitForRunEnd(page, n);
      assert.equal(asked.length, 2);
      assert.match(await page.locator('.tool[data-tool="get_weather"] .tool-policy').innerText(), /allowed for this session/);

      // The next call runs without a dialog.
      await page.locator('#prompt').fill('weather in Berlin');
      await page.locator('#prompt').press('Enter');
      await waitForRunEnd(page, n + 1);
      assert.equal(await page.locator('#approval[open]').count(), 0);
      assert.equal(asked.length, 4);
      assert.match(await lastAnswer(page), /Berlin.*Germany/s);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
