// Shared plumbing of the browser tests: Debian's Chromium driven by playwright-core (never a
// downloaded browser), the page served by serve.mjs, and console-error collection.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../serve.mjs';

export const WWW = join(dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS = join(WWW, 'test-results');
mkdirSync(RESULTS, { recursive: true });

/** Chromium from $CHROMIUM_PATH or Debian's package; fails loudly (tests never skip). */
export function chromiumPath() {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(`no Chromium at ${path}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  return path;
}

/**
 * Launches headless Chromium. Playwright gives every launch a fresh, empty --user-data-dir of
 * its own (passing one in `args` is refused), deleted when the browser closes.
 */
export function launch() {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Serves www/ with serve.mjs on a free loopback port. */
/**
 * A test file's browser and served page: `www/` is served and Chromium launched before the
 * file's tests, both closed after them. Read `browser` and `url` inside tests.
 */
export function useServedPage() {
  const served = { browser: null, server: null, url: '' };
  before(async () => {
    ({ server: served.server, url: served.url } = await serveWww());
    served.browser = await launch();
  });
  after(async () => {
    await served.browser?.close();
    served.server?.close();
  });
  return served;
}

export async function serveWww() {
  if (!existsSync(join(WWW, 'vendor', 'agentwire', 'index.js'))) {
    throw new Error('www/vendor/agentwire is missing: run `node build.mjs` (npm test does) after scripts/build-pkg');
  }
  return startServer({ port: 0, root: WWW });
}

/**
 * Opens the page in a new context and waits until the core is ready. Returns the page and the
 * list of console errors / uncaught exceptions seen (tests assert it stays empty).
 */
export async function openPage(browser, url, { viewport = { width: 1440, height: 900 }, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const errors = [];
  const consoleLines = [];
  page.on('console', (message) => {
    consoleLines.push(`${message.type()}: ${message.text()}`);
    if (message.type() === 'error' || message.type() === 'warning') errors.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    // Requests the tests abort on purpose are marked by the tests' routes.
    if (!request.url().startsWith(url)) return;
    errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  await page.goto(url);
  await page.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
  return { context, page, errors, consoleLines };
}

/** Types `prompt` into the composer, sends it, and waits for the run to end. */
export async function sendPrompt(page, prompt) {
  const before = await page.locator('.msg.assistant').count();
  await page.locator('#prompt').fill(prompt);
  await page.locator('#prompt').press('Enter');
  await waitForRunEnd(page, before + 1);
}

/** Waits until the `n`th assistant bubble holds an answer or an error. */
export async function waitForRunEnd(page, n) {
  const bubble = page.locator('.msg.assistant').nth(n - 1);
  await bubble.waitFor();
  await page.waitForFunction(
    (i) => {
      const b = document.querySelectorAll('.msg.assistant')[i];
      return b && !b.classList.contains('pending');
    },
    n - 1,
    { timeout: 30_000 },
  );
  return bubble;
}

/** The last assistant answer's text. */
export async function lastAnswer(page) {
  return page.locator('.msg.assistant').last().locator('.body').innerText();
}

/** The timeline entries of tool `name` (the latest last). */
export function toolCalls(page, name) {
  return page.locator(`#timeline .ev.call[data-tool="${name}"]`);
}

/** The npm package itself, imported in Node (for expected data, independent of the page). */
export async function importPackage() {
  const pkg = process.env.AW_PKG_DIR ?? join(WWW, '..', 'pkg');
  // The server entry (Node, Deno, Bun) reads the wasm from disk; index.js fetches it, as pages do.
  return import(pathToFileURL(join(pkg, 'server.js')).href);
}

/** A port that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a command and waits until `url` answers (`ready(response)`, by default a 2xx);
 * returns the child process.
 */
export async function startCommand(cmd, args, url, { ready = (response) => response.ok, ...options } = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(url);
      if (ready(response)) return child;
    } catch {}
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`${cmd} did not serve ${url} within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function stop(child) {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}
