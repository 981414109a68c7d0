// The parsers' public entry points, loading their JS (and, inside, the `ext` wasm module) on
// first use: importing the package does not fetch either.
const extensions = () => import('./extensions.js');

/** Parses a SKILL.md text as the CLI does (see extensions.js). */
export async function parseSkill(text, opts) {
  return (await extensions()).parseSkill(text, opts);
}

/** Parses a commands/*.md text (see extensions.js). */
export async function parseCommand(text, opts) {
  return (await extensions()).parseCommand(text, opts);
}

/** Parses `.claude-plugin/plugin.json` text (see extensions.js). */
export async function parsePluginManifest(text, opts) {
  return (await extensions()).parsePluginManifest(text, opts);
}
