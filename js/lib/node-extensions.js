// Skills, commands and plugins from folders, for Node (`agentwire/node`): the same places and
// precedence as the CLI, parsed by the core's parsers. Only this file touches the disk; what
// it returns is the plain objects `createAgent` and `agent.use` take anywhere.
//
// Every file is read inside a root, as in the CLI: a project's skills and commands inside the
// project, a user's SKILL.md inside its skill folder, a plugin's files inside the plugin. The
// path, symlinks followed, must stay in the root; the resolved path is opened with O_NOFOLLOW |
// O_NONBLOCK and must be a regular file, so a link out is refused unread and a FIFO never
// blocks. (Node has no openat: a directory swapped for a link in the instant between the check
// and the open is not caught here; the CLI's component-wise open catches it.)
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseCommand, parsePluginManifest, parsePluginServers, parseSkill } from './extensions.js';
import { httpTransport } from './http.js';

/** The largest extension file read (as the CLI: 1 MiB). */
const MAX_FILE_BYTES = 1024 * 1024;
/** Bundled files listed per skill, and how deep (as the CLI). */
const MAX_FILES = 200;
const MAX_DEPTH = 4;
/** Entries of one folder looked at, as the CLI (a folder of a million files costs no more). */
const MAX_ENTRIES = 2000;
const SKIPPED = new Set(['.git', 'node_modules', '__pycache__']);

/** A folder extension files must stay inside: its real path, and how a refusal names it. */
export async function boundOf(dir, label) {
  return { real: await realpath(resolve(dir)), label };
}

/** Where `path` really is, if inside `bound`; otherwise an error naming the path and target. */
export async function resolveInside(bound, path) {
  let real;
  try {
    real = await realpath(path);
  } catch (error) {
    throw new Error(`${path}: cannot be resolved (${error.code ?? error.message}); not loaded`);
  }
  // A bound at `/` holds everything: its prefix is `/`, not `//`.
  const prefix = bound.real.endsWith(sep) ? bound.real : bound.real + sep;
  if (real !== bound.real && !real.startsWith(prefix)) {
    throw new Error(`${path} leads outside ${bound.label} (to ${real}); refused`);
  }
  return real;
}

function kind(info) {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Reads `path` as UTF-8 if it resolves inside `bound` and is a regular file of at most 1 MiB. */
export async function readText(bound, path) {
  const real = await resolveInside(bound, path);
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(real, flags).catch((error) => {
    const why = error.code === 'ELOOP' ? 'changed while it was being opened (a symlink appeared); refused' : `cannot read: ${error.message}`;
    throw new Error(`${path}: ${why}`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${path}: is ${kind(info)}, not a regular file; not loaded`);
    const tooLarge = () => new Error(`${path}: larger than ${MAX_FILE_BYTES / 1024} KiB; not loaded`);
    if (info.size > MAX_FILE_BYTES) throw tooLarge();
    // One byte more than the limit tells a file that grew since the stat.
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_FILE_BYTES) throw tooLarge();
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function exists(path) {
  return stat(path).then(() => true, () => false);
}

/** Whether anything is at `path`, a dangling link included (it is then refused by name). */
async function present(path) {
  return lstat(path).then(() => true, () => false);
}

/** Whether `path` (after symlinks) stays inside `root` (already real). */
async function inside(root, path) {
  const real = await realpath(path).catch(() => null);
  return real !== null && (real === root || real.startsWith(root + sep));
}

/** The files a skill ships: relative paths, bounded, no dotfiles, nothing escaping `root`. */
async function listFiles(root, warnings) {
  const out = [];
  const walk = async (dir, depth) => {
    for (const entry of await firstByName(dir, warnings)) {
      if (out.length >= MAX_FILES) return;
      if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (!(await inside(root, path))) {
        warnings.push(`${path}: a link leading out of the skill's folder; not read`);
        continue;
      }
      const info = await stat(path);
      if (info.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(path, depth + 1);
      } else if (relative(root, path) !== 'SKILL.md') {
        out.push(relative(root, path).split(sep).join('/'));
      }
    }
  };
  await walk(root, 1);
  return out;
}

/** A parsed record as the `SkillDefinition` object createAgent takes. */
function skillDefinition(record, files) {
  const def = { name: record.name, description: record.description, instructions: record.body };
  if (record.whenToUse) def.whenToUse = record.whenToUse;
  if (record.argumentHint) def.argumentHint = record.argumentHint;
  if (record.arguments.length) def.arguments = record.arguments;
  if (!record.modelInvocable) def.disableModelInvocation = true;
  if (!record.userInvocable) def.userInvocable = false;
  if (record.allowedTools.length) def.allowedTools = record.allowedTools;
  if (record.disallowedTools.length) def.disallowedTools = record.disallowedTools;
  if (files && Object.keys(files).length) def.files = files;
  return def;
}

/**
 * Reads the skill in `dir` (`dir/SKILL.md` and the files it ships, none outside `dir`) as a
 * `SkillDefinition`. Parser warnings are on the non-enumerable `warnings` property.
 */
export async function loadSkillDir(dir) {
  return loadSkill(dir, null);
}

/** [`loadSkillDir`], with the skill folder required to resolve inside `within` (if given). */
async function loadSkill(dir, within) {
  const root = within ? await resolveInside(within, resolve(dir)) : await realpath(resolve(dir));
  const own = { real: root, label: "the skill's folder" };
  const location = join(root, 'SKILL.md');
  const record = await parseSkill(await readText(within ?? own, join(resolve(dir), 'SKILL.md')), { dirName: basename(root), location });
  const warnings = [...record.warnings.map((w) => `${location}: ${w}`)];
  const files = {};
  for (const path of await listFiles(root, warnings)) {
    files[path] = await readText(own, join(root, path)).catch((error) => {
      warnings.push(error.message);
      return undefined;
    });
    if (files[path] === undefined) delete files[path];
  }
  const def = skillDefinition(record, files);
  Object.defineProperty(def, 'warnings', { value: warnings });
  return def;
}

/**
 * `commands/**.md` under `root` (depth ≤ 6): nested ones named `sub:name`. Everything stays
 * inside `within` (default: `root` itself); a linked folder leading out is not entered.
 */
/**
 * The entries of `dir` sorted by name, the first `MAX_ENTRIES` of them; the rest are reported
 * in `warnings`, naming the folder. A folder that cannot be read has no entries.
 */
async function firstByName(dir, warnings) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (entries.length > MAX_ENTRIES) {
    warnings.push(`${dir}: ${entries.length} entries; only the first ${MAX_ENTRIES} by name are looked at (${entries.length - MAX_ENTRIES} not loaded)`);
    entries.length = MAX_ENTRIES;
  }
  return entries;
}

async function loadCommands(root, warnings, within = null, prefix = '', depth = 0) {
  const out = [];
  if (!(await exists(root))) return out;
  let bound = within;
  try {
    if (bound) await resolveInside(bound, root);
    else bound = await boundOf(root, 'the commands folder');
  } catch (error) {
    warnings.push(error.message);
    return out;
  }
  for (const entry of await firstByName(root, warnings)) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const path = join(root, entry.name);
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory() && depth < 6) {
      out.push(...(await loadCommands(path, warnings, bound, `${prefix}${entry.name}:`, depth + 1)));
    } else if (info && !info.isDirectory() && entry.name.endsWith('.md')) {
      try {
        const record = await parseCommand(await readText(bound, path), { name: prefix + entry.name.slice(0, -3), location: path });
        warnings.push(...record.warnings.map((w) => `${path}: ${w}`));
        const def = { name: record.qualified, prompt: record.body };
        // Offered to the model only with an explicit description, as in the CLI.
        if (record.modelInvocable) def.description = record.description;
        if (record.argumentHint) def.argumentHint = record.argumentHint;
        out.push(def);
      } catch (error) {
        warnings.push(error.message);
      }
    }
  }
  return out;
}

/** Every `<root>/<d>/SKILL.md` (one level), sorted, inside `within` if given; a broken one is a warning. */
async function loadSkills(root, warnings, within = null) {
  const out = [];
  if (within && (await exists(root))) {
    try {
      await resolveInside(within, root);
    } catch (error) {
      warnings.push(error.message);
      return out;
    }
  }
  for (const entry of await firstByName(root, warnings)) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const dir = join(root, entry.name);
    if (!(await present(join(dir, 'SKILL.md')))) continue;
    try {
      const def = await loadSkill(dir, within);
      warnings.push(...def.warnings);
      out.push(def);
    } catch (error) {
      warnings.push(error.message);
    }
  }
  return out;
}

/**
 * Reads the plugin in `dir` (`.claude-plugin/plugin.json`, `skills/`, `commands/`, `.mcp.json`)
 * as the plugin object `agent.use` takes; stdio servers become `stdioTransport`s, HTTP ones
 * `httpTransport`s. `env` supplies `${VAR}`s (with `CLAUDE_PLUGIN_ROOT`); a server whose
 * variable is unset is left out with a warning, the rest load. Warnings are on the
 * non-enumerable `warnings` property.
 */
export async function loadPluginDir(dir, opts) {
  const { stdioTransport } = await import('../node.js');
  const root = await realpath(resolve(dir));
  const bound = { real: root, label: 'the plugin' };
  const warnings = [];
  const manifestPath = join(root, '.claude-plugin', 'plugin.json');
  const text = (await present(manifestPath)) ? await readText(bound, manifestPath) : '';
  const manifest = await parsePluginManifest(text, { dirName: basename(root), location: manifestPath });
  warnings.push(...manifest.warnings.map((w) => `${manifestPath}: ${w}`));
  // Hooks are read below (the core parsed the manifest without them).
  const ignored = manifest.ignored.filter((w) => !w.startsWith('hooks '));
  warnings.push(...ignored.map((w) => `${manifestPath}: not supported yet, ignored: ${w}`));
  const skills = await loadSkills(join(root, 'skills'), warnings, bound);
  for (const extra of manifest.skills) skills.push(...(await loadSkills(join(root, extra), warnings, bound)));
  const commands = [];
  for (const path of manifest.commands ?? ['commands']) commands.push(...(await loadCommands(join(root, path), warnings, bound)));
  // ${VAR}s as the CLI reads them: the environment, the plugin's root, then what the caller gives.
  const vars = { ...process.env, CLAUDE_PLUGIN_ROOT: root, ...(opts?.env ?? {}) };
  let serversText = null;
  let serversFile = join(root, '.mcp.json');
  const declared = manifest.mcpServers;
  if (declared && typeof declared === 'object' && !Array.isArray(declared)) {
    serversText = JSON.stringify({ mcpServers: declared });
    serversFile = manifestPath;
  } else if (typeof declared === 'string') {
    serversFile = join(root, declared);
  }
  if (serversText === null && (await present(serversFile))) {
    serversText = await readText(bound, serversFile).catch((error) => {
      warnings.push(error.message);
      return null;
    });
  }
  const servers = {};
  if (serversText !== null) {
    const parsed = await parsePluginServers(serversText, manifest.name, { location: serversFile, vars });
    warnings.push(...parsed.warnings, ...parsed.errors);
    for (const s of parsed.servers) {
      if (s.disabled) continue;
      if (s.type === 'stdio') servers[s.server] = stdioTransport(s.command, s.args, { env: s.env, cwd: s.cwd ?? root });
      else if (s.type === 'http') servers[s.server] = httpTransport(s.url, { headers: s.headers });
    }
  }
  const plugin = { name: manifest.name, skills, commands, servers };
  const hooks = await pluginHooks(root, bound, text, manifestPath, warnings);
  if (hooks) plugin.hooks = hooks;
  if (manifest.version) plugin.version = manifest.version;
  if (manifest.description) plugin.description = manifest.description;
  Object.defineProperty(plugin, 'warnings', { value: warnings });
  return plugin;
}

/**
 * A plugin's command hooks as `agent.use` takes them (`{ root, settings }`): `hooks/hooks.json`,
 * else the manifest's `hooks` (an object, or a path inside the plugin), as the CLI reads them.
 * `${CLAUDE_PLUGIN_ROOT}` is the hook's environment, not text replaced here.
 */
async function pluginHooks(root, bound, manifestText, manifestPath, warnings) {
  const parse = (text, path) => {
    try {
      return JSON.parse(text);
    } catch (error) {
      warnings.push(`${path}: invalid JSON: ${error.message}`);
      return null;
    }
  };
  const read = async (path) => {
    const text = await readText(bound, path).catch((error) => {
      warnings.push(error.message);
      return null;
    });
    return text === null ? null : parse(text, path);
  };
  const file = join(root, 'hooks', 'hooks.json');
  let settings = null;
  if (await lstat(file).then(() => true, () => false)) {
    settings = await read(file);
  } else if (manifestText) {
    const declared = parse(manifestText, manifestPath)?.hooks;
    if (typeof declared === 'string') settings = await read(join(root, declared));
    else if (isObject(declared)) settings = { hooks: declared.hooks ?? declared };
  }
  return isObject(settings) ? { root, settings } : null;
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The project folders from `cwd` up to its git root (stopping at `home`), nearest first. */
export async function projectDirs(cwd, home) {
  const dirs = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (dir === home) break;
    dirs.push(dir);
    if ((await exists(join(dir, '.git'))) || dirname(dir) === dir) break;
  }
  return dirs;
}

/**
 * Finds skills, commands and plugins where the CLI does: `~/.claude/{skills,commands}`,
 * `~/.agents/skills`, and the project's `.claude`/`.agents` folders from `cwd` up to the git
 * root. User items beat project items of the same name (a cloned repository cannot shadow
 * yours); within a scope `.claude` comes before `.agents`. Project skills' `allowed-tools`
 * grants are dropped and project plugins are not loaded unless `trustWorkspace`. `bare`: none
 * of it.
 */
export async function discoverExtensions(opts) {
  const o = opts ?? {};
  const result = { skills: [], commands: [], plugins: [], warnings: [] };
  if (o.bare) return result;
  const home = resolve(o.home ?? process.env.HOME ?? '/');
  const warnings = result.warnings;
  const taken = new Map();
  const keep = (list, items, scope) => {
    for (const item of items) {
      const key = `${list === result.commands ? 'c' : 's'}:${item.name}`;
      if (taken.has(key)) {
        warnings.push(`/${item.name}: the ${taken.get(key)} one takes precedence over the ${scope} one`);
        continue;
      }
      taken.set(key, scope);
      list.push(item);
    }
  };
  const project = await projectDirs(o.cwd ?? process.cwd(), home);
  // Everything of the project stays inside its root (the git root), wherever it links.
  const projectBound = project.length ? await boundOf(project[project.length - 1], 'the project').catch(() => null) : null;
  const scopes = [['user', [home], null], ['project', projectBound ? project : [], projectBound]];
  for (const [scope, dirs, within] of scopes) {
    for (const dir of dirs) {
      for (const root of [join(dir, '.claude', 'skills'), join(dir, '.agents', 'skills')]) {
        const skills = await loadSkills(root, warnings, within);
        if (scope === 'project' && !o.trustWorkspace) {
          for (const skill of skills) {
            if (skill.allowedTools) {
              warnings.push(`${skill.name}: allowed-tools of a project skill are ignored until the workspace is trusted`);
              delete skill.allowedTools;
            }
          }
        }
        keep(result.skills, skills, scope);
        for (const entry of await firstByName(root, [])) {
          if (!(await exists(join(root, entry.name, '.claude-plugin', 'plugin.json')))) continue;
          if (scope === 'project' && !o.trustWorkspace) {
            warnings.push(`project plugin ${entry.name} (${join(root, entry.name)}) not loaded: the workspace is not trusted (trustWorkspace)`);
            continue;
          }
          if (within && !(await resolveInside(within, join(root, entry.name)).then(() => true, (error) => (warnings.push(error.message), false)))) continue;
          const plugin = await loadPluginDir(join(root, entry.name), { env: o.env }).catch((error) => {
            warnings.push(error.message);
            return null;
          });
          if (plugin) {
            warnings.push(...plugin.warnings);
            result.plugins.push(plugin);
          }
        }
      }
      keep(result.commands, await loadCommands(join(dir, '.claude', 'commands'), warnings, within), scope);
    }
  }
  return result;
}
