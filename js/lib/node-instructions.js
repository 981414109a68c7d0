// Project instructions from folders, for Node (`agentwire/node`): CLAUDE.md, AGENTS.md,
// CLAUDE.local.md, .claude/rules and the user's own files, found where the CLI finds them and
// resolved by the core (the `ext` module's resolver, in rounds: it names the files it needs,
// this file reads them, confined as the CLI reads them). The result is the plain object
// `createAgent({ instructions })` takes anywhere.
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { boundOf, projectDirs, readText, resolveInside } from './node-extensions.js';
import { ext } from './wasm.js';
import { describe, fail, options as checkOptions } from './check.js';

const OPTIONS = ['cwd', 'home', 'configHome', 'trustWorkspace', 'budgetBytes', 'bare'];
/** Folders never read as instructions, whatever links lead there. */
const PSEUDO = ['/proc', '/sys', '/dev'];
/** The user's key folders below home, never read as instructions (as the CLI). */
const SECRET_DIRS = ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.docker'];
/** Most rule files listed per folder, and how deep (as the CLI). */
const MAX_RULE_FILES = 1000;
const MAX_RULE_DEPTH = 8;
/** Rounds of reads before giving up (the core needs far fewer). */
const MAX_ROUNDS = 16;

const inside = (path, dir) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** Where `path` really is (as given when it does not exist). */
const real = (path) => realpath(path).catch(() => resolve(path));

/** The `.md` files under `dir`, links to folders not followed. */
async function listMarkdown(dir, depth = 0, found = []) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (found.length >= MAX_RULE_FILES) break;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (depth < MAX_RULE_DEPTH) await listMarkdown(path, depth + 1, found);
    } else if (entry.name.endsWith('.md')) {
      found.push(path);
    }
  }
  return found;
}

/**
 * Loads the instructions a session in `cwd` gets, as the CLI does: the user's
 * `~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`, `<configHome>/agentwire/AGENTWIRE.md` and
 * `~/.claude/rules`, then each folder from the git root down to `cwd` (`CLAUDE.md` or
 * `.claude/CLAUDE.md`, else `AGENTS.md`; then `CLAUDE.local.md`), then `.claude/rules`.
 * Imports leave the workspace only when `trustWorkspace`. `bare`: nothing.
 * Returns `{ text, files, warnings, bytes, truncatedBytes, pathRules }`.
 */
export async function loadInstructions(opts) {
  const where = 'loadInstructions';
  const o = checkOptions(where, opts, OPTIONS);
  if (o.budgetBytes !== undefined && !(Number.isInteger(o.budgetBytes) && o.budgetBytes >= 0)) {
    fail(where, `"budgetBytes" must be a non-negative integer, got ${describe(o.budgetBytes)}`);
  }
  if (o.bare) return { text: '', files: [], warnings: [], bytes: 0, truncatedBytes: 0, pathRules: null };
  const cwd = await real(o.cwd ?? process.cwd());
  const homeDir = o.home ?? process.env.HOME;
  const home = homeDir ? await real(homeDir) : null;
  const configHome = o.configHome ?? process.env.XDG_CONFIG_HOME ?? (home ? join(home, '.config') : null);
  const dirs = await projectDirs(cwd, home);
  const top = dirs[dirs.length - 1];
  const gitRoot = top && (await stat(join(top, '.git')).then(() => true, () => false));
  const root = gitRoot ? top : cwd;
  const userFiles = [];
  if (home) userFiles.push(join(home, '.claude', 'CLAUDE.md'), join(home, '.codex', 'AGENTS.md'));
  if (configHome) userFiles.push(join(configHome, 'agentwire', 'AGENTWIRE.md'));
  const sources = {
    root,
    cwd,
    home,
    userFiles,
    userRules: home ? join(home, '.claude', 'rules') : null,
    trusted: o.trustWorkspace === true,
    budgetBytes: o.budgetBytes,
  };
  const never = [...PSEUDO];
  for (const dir of home ? SECRET_DIRS : []) never.push(await real(join(home, dir)));
  const projectBound = await boundOf(root, 'the project').catch(() => null);
  const anywhere = { real: '/', label: 'the file system' };
  const read = async (path, access) => {
    const missing = await lstat(path).then(() => false, (error) => error.code === 'ENOENT');
    if (missing) return null;
    try {
      const bound = access === 'project' ? projectBound : anywhere;
      if (!bound) throw new Error(`${path}: the project root cannot be resolved; not loaded`);
      const target = await resolveInside(bound, path);
      const folder = never.find((dir) => inside(target, dir));
      if (folder) throw new Error(`${path} leads to ${target}, inside ${folder}, which is never read as instructions; refused`);
      return await readText(bound, path);
    } catch (error) {
      return { error: error.message };
    }
  };
  const module = await ext();
  const files = {};
  const listings = {};
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const answer = JSON.parse(module.resolveInstructionsRound(JSON.stringify({ sources, files, listings })));
    if (answer.error !== undefined) throw new Error(`${where}: ${answer.error}`);
    if (answer.instructions) return answer.instructions;
    for (const { path, access } of answer.need.files) files[path] = await read(path, access);
    for (const { dir } of answer.need.dirs) listings[dir] = await listMarkdown(dir);
  }
  throw new Error(`${where}: the instruction files did not resolve in ${MAX_ROUNDS} rounds`);
}
