// Skills, commands and plugins from folders, for Node (`agentwire/node`): the same places and
// precedence as the CLI, parsed by the core's parsers. Only this file touches the disk; what
// it returns is the plain objects `createAgent` and `agent.use` take anywhere.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseCommand, parsePluginManifest, parsePluginServers, parseSkill } from './extensions.js';
import { httpTransport } from './http.js';

/** The largest extension file read (as the CLI: 1 MiB). */
const MAX_FILE_BYTES = 1024 * 1024;
/** Bundled files listed per skill, and how deep (as the CLI). */
const MAX_FILES = 200;
const MAX_DEPTH = 4;
const SKIPPED = new Set(['.git', 'node_modules', '__pycache__']);

async function readText(path) {
  const info = await stat(path);
  if (info.size > MAX_FILE_BYTES) throw new Error(`${path}: larger than ${MAX_FILE_BYTES / 1024} KiB; not loaded`);
  return readFile(path, 'utf8');
}

async function exists(path) {
  return stat(path).then(() => true, () => false);
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
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
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
  const root = await realpath(resolve(dir));
  const location = join(root, 'SKILL.md');
  const record = await parseSkill(await readText(location), { dirName: basename(root), location });
  const warnings = [...record.warnings.map((w) => `${location}: ${w}`)];
  const files = {};
  for (const path of await listFiles(root, warnings)) {
    files[path] = await readText(join(root, path)).catch((error) => {
      warnings.push(error.message);
      return undefined;
    });
    if (files[path] === undefined) delete files[path];
  }
  const def = skillDefinition(record, files);
  Object.defineProperty(def, 'warnings', { value: warnings });
  return def;
}

/** `commands/**.md` under `root` (depth ≤ 6): nested ones named `sub:name`. */
async function loadCommands(root, warnings, prefix = '', depth = 0) {
  const out = [];
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const path = join(root, entry.name);
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory() && depth < 6) {
      out.push(...(await loadCommands(path, warnings, `${prefix}${entry.name}:`, depth + 1)));
    } else if (info?.isFile() && entry.name.endsWith('.md')) {
      try {
        const record = await parseCommand(await readText(path), { name: prefix + entry.name.slice(0, -3), location: path });
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

/** Every `<root>/<d>/SKILL.md` (one level), sorted; a broken one is a warning. */
async function loadSkills(root, warnings) {
  const out = [];
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const dir = join(root, entry.name);
    if (!(await exists(join(dir, 'SKILL.md')))) continue;
    try {
      const def = await loadSkillDir(dir);
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
  const warnings = [];
  const manifestPath = join(root, '.claude-plugin', 'plugin.json');
  const text = (await exists(manifestPath)) ? await readText(manifestPath) : '';
  const manifest = await parsePluginManifest(text, { dirName: basename(root), location: manifestPath });
  warnings.push(...manifest.warnings.map((w) => `${manifestPath}: ${w}`));
  warnings.push(...manifest.ignored.map((w) => `${manifestPath}: not supported yet, ignored: ${w}`));
  const skills = await loadSkills(join(root, 'skills'), warnings);
  for (const extra of manifest.skills) skills.push(...(await loadSkills(join(root, extra), warnings)));
  const commands = [];
  for (const path of manifest.commands ?? ['commands']) commands.push(...(await loadCommands(join(root, path), warnings)));
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
  if (serversText === null && (await exists(serversFile))) serversText = await readText(serversFile);
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
  if (manifest.version) plugin.version = manifest.version;
  if (manifest.description) plugin.description = manifest.description;
  Object.defineProperty(plugin, 'warnings', { value: warnings });
  return plugin;
}

/** The project folders from `cwd` up to its git root (stopping at `home`), nearest first. */
async function projectDirs(cwd, home) {
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
  const scopes = [['user', [home]], ['project', await projectDirs(o.cwd ?? process.cwd(), home)]];
  for (const [scope, dirs] of scopes) {
    for (const dir of dirs) {
      for (const root of [join(dir, '.claude', 'skills'), join(dir, '.agents', 'skills')]) {
        const skills = await loadSkills(root, warnings);
        if (scope === 'project' && !o.trustWorkspace) {
          for (const skill of skills) {
            if (skill.allowedTools) {
              warnings.push(`${skill.name}: allowed-tools of a project skill are ignored until the workspace is trusted`);
              delete skill.allowedTools;
            }
          }
        }
        keep(result.skills, skills, scope);
        for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
          if (!(await exists(join(root, entry.name, '.claude-plugin', 'plugin.json')))) continue;
          if (scope === 'project' && !o.trustWorkspace) {
            warnings.push(`project plugin ${entry.name} (${join(root, entry.name)}) not loaded: the workspace is not trusted (trustWorkspace)`);
            continue;
          }
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
      keep(result.commands, await loadCommands(join(dir, '.claude', 'commands'), warnings), scope);
    }
  }
  return result;
}
