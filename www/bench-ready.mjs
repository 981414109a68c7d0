// How fast the page is ready: loads it in headless Chromium (Debian's, as the tests use) from
// the local server, each time in a fresh browser context (empty cache), and measures from
// navigation start to the status "Ready" (both wasm modules fetched, compiled and instantiated,
// the mock GitHub server connected). Prints p50 / p95 / min over the runs.
//
//   node bench-ready.mjs [RUNS]      (npm run bench-ready; build with `node build.mjs` first)
//
// A benchmark, not a test: it asserts nothing. Loopback has no network latency, so this is the
// page's own cost (parse, compile, instantiate, connect), the floor of a real first visit.
import { launch, openPage, serveWww } from './tests/helpers.mjs';

const runs = Number(process.argv[2] ?? 20);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`usage: node bench-ready.mjs [RUNS]  (RUNS: a positive integer, got ${process.argv[2]})`);
  process.exit(2);
}

const { server, url } = await serveWww();
const browser = await launch();
const times = [];
try {
  for (let i = 0; i < runs; i++) {
    const { context, page, errors } = await openPage(browser, url);
    // openPage waited for "Ready"; the page recorded when that was, on its own clock.
    const ms = await page.evaluate(() => {
      const ready = performance.getEntriesByName('agentwire-ready')[0];
      return ready ? ready.startTime : null;
    });
    await context.close();
    if (errors.length) throw new Error(`the page logged errors: ${errors.join('; ')}`);
    if (ms === null) throw new Error('the page did not mark "agentwire-ready" (is vendor/ up to date? run node build.mjs)');
    times.push(ms);
  }
} finally {
  await browser.close();
  server.close();
}

times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
const fmt = (ms) => `${ms.toFixed(0)} ms`;
console.log(
  `page ready after navigation start, ${runs} cold loads (fresh context each): ` +
    `p50 ${fmt(at(0.5))}, p95 ${fmt(at(0.95))}, min ${fmt(times[0])}`,
);
