// Headless Debian Chromium driven by the playwright-core that pkg-tests/run installs
// (AW_PLAYWRIGHT): the one browser every browser test of the package uses.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Launches headless Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium); close it after. */
export async function launchChromium() {
  if (!process.env.AW_PLAYWRIGHT) throw new Error('AW_PLAYWRIGHT must point at playwright-core; run the tests with pkg-tests/run');
  const { chromium } = await import(pathToFileURL(join(process.env.AW_PLAYWRIGHT, 'index.mjs')).href);
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
