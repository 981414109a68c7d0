// Skills, commands and plugins: checking the JS shapes and turning them into the records the
// runtime takes. Text (SKILL.md, commands/*.md) is parsed by the core's parsers in the `ext`
// wasm module, loaded on first use; objects are turned into records here.
import {
  describe,
  fail,
  isPlainObject,
  nonEmptyString,
  optionalString,
  optionalStrings,
  options as checkOptions,
} from './check.js';
import { ext } from './wasm.js';

const PLUGIN_FIELDS = ['name', 'version', 'description', 'tools', 'skills', 'commands', 'servers', 'hooks'];
/** Keys a plugin might try to change the gate with, and why it may not. */
const FORBIDDEN = {
  allow: 'plugins cannot change permission rules',
  ask: 'plugins cannot change permission rules',
  deny: 'plugins cannot change permission rules',
  permissions: 'plugins cannot change permission rules',
  rules: 'plugins cannot change permission rules',
  onApproval: 'plugins cannot answer approvals',
  approve: 'plugins cannot answer approvals',
  sampling: 'plugins cannot turn on sampling (it is the user\'s to give a server)',
  systemPrompt: 'plugins cannot change the system prompt',
  trusted: 'only the host trusts a plugin (createAgent({ trustedPlugins }))',
};
const SKILL_FIELDS = [
  'name',
  'description',
  'instructions',
  'whenToUse',
  'argumentHint',
  'arguments',
  'disableModelInvocation',
  'userInvocable',
  'allowedTools',
  'disallowedTools',
  'files',
];
const COMMAND_FIELDS = ['name', 'description', 'argumentHint', 'prompt'];
/** Skill and command names: one word, no `/` (they are typed as `/name`). */
const NAME = /^[^\s/]+$/u;

function optionalBoolean(where, name, value) {
  if (value !== undefined && typeof value !== 'boolean') {
    fail(where, `"${name}" must be a boolean, got ${describe(value)}`);
  }
}

function checkName(where, value) {
  nonEmptyString(where, 'name', value);
  if (!NAME.test(value)) fail(where, `"name" must be one word without "/", got ${describe(value)}`);
}

/** A `SkillDefinition` object as the runtime's record, and its files for `read_skill_file`. */
function skillRecord(where, def) {
  checkOptions(where, def, SKILL_FIELDS, 'the skill');
  checkName(where, def.name);
  nonEmptyString(where, 'description', def.description);
  if (typeof def.instructions !== 'string') {
    fail(where, `"instructions" must be the skill's Markdown text, got ${describe(def.instructions)}`);
  }
  for (const key of ['whenToUse', 'argumentHint']) optionalString(where, key, def[key]);
  for (const key of ['arguments', 'allowedTools', 'disallowedTools']) optionalStrings(where, key, def[key]);
  optionalBoolean(where, 'disableModelInvocation', def.disableModelInvocation);
  optionalBoolean(where, 'userInvocable', def.userInvocable);
  if (def.files !== undefined) {
    if (!isPlainObject(def.files) || Object.values(def.files).some((v) => typeof v !== 'string')) {
      fail(where, `"files" must be an object mapping relative paths to their text, got ${describe(def.files)}`);
    }
  }
  const record = {
    name: def.name,
    kind: 'skill',
    description: def.description,
    body: def.instructions,
    whenToUse: def.whenToUse,
    argumentHint: def.argumentHint,
    arguments: def.arguments,
    modelInvocable: def.disableModelInvocation !== true,
    userInvocable: def.userInvocable !== false,
    allowedTools: def.allowedTools,
    disallowedTools: def.disallowedTools,
    files: Object.keys(def.files ?? {}).sort(),
  };
  return { record, files: def.files };
}

function commandRecord(where, def) {
  checkOptions(where, def, COMMAND_FIELDS, 'the command');
  checkName(where, def.name);
  optionalString(where, 'description', def.description);
  optionalString(where, 'argumentHint', def.argumentHint);
  if (typeof def.prompt !== 'string') {
    fail(where, `"prompt" must be the command's template text, got ${describe(def.prompt)}`);
  }
  return {
    record: {
      name: def.name,
      kind: 'command',
      description: def.description ?? '',
      body: def.prompt,
      argumentHint: def.argumentHint,
      // Commands are offered to the model only with an explicit description.
      modelInvocable: def.description !== undefined,
    },
  };
}

/**
 * A new skill book (the `ext` module's `SkillBook`: one agent's skills and commands) wired as
 * the skill host of runtime agent `core`: the runtime module has no skill set and asks the book,
 * synchronously, for the skill tools, activations, `read_skill_file` checks and `/name`
 * expansions.
 */
export async function skillBook(core) {
  const module = await ext();
  const book = new module.SkillBook();
  core.setSkillHost((op, argsJson) => book.op(op, argsJson));
  return book;
}

/** Throws the parser's refusal (naming the text) as an Error for `where`. */
function parsed(where, json) {
  const value = JSON.parse(json);
  if (value.error !== undefined) throw new Error(`${where}: ${value.error}`);
  return value;
}

/**
 * Parses a SKILL.md text as the CLI does: fields, warnings and ignored fields. `dirName` is
 * the skill's directory name (the name it is invoked by; default: the frontmatter `name`),
 * `location` how messages name the file.
 */
export async function parseSkill(text, opts) {
  const where = 'parseSkill';
  if (typeof text !== 'string') fail(where, `the SKILL.md text must be a string, got ${describe(text)}`);
  const o = checkOptions(where, opts, ['dirName', 'location']);
  optionalString(where, 'dirName', o.dirName);
  optionalString(where, 'location', o.location);
  const module = await ext();
  const name = o.dirName ?? '';
  return parsed(where, module.parseSkillText(text, name, o.location ?? (name ? `${name}/SKILL.md` : 'SKILL.md')));
}

/** Parses a commands/*.md text; `name` is the file stem (`sub:name` for a nested one). */
export async function parseCommand(text, opts) {
  const where = 'parseCommand';
  if (typeof text !== 'string') fail(where, `the command text must be a string, got ${describe(text)}`);
  const o = checkOptions(where, opts, ['name', 'location']);
  checkName(where, o.name);
  optionalString(where, 'location', o.location);
  const module = await ext();
  return parsed(where, module.parseCommandText(text, o.name, o.location ?? `${o.name}.md`));
}

/**
 * Parses `.claude-plugin/plugin.json` text: `{name, version, description, skills, commands,
 * mcpServers, ignored, warnings}`; wrong types and paths leaving the plugin throw naming the
 * field. `dirName` names a plugin whose manifest has no `name`.
 */
export async function parsePluginManifest(text, opts) {
  const where = 'parsePluginManifest';
  if (typeof text !== 'string') fail(where, `the plugin.json text must be a string, got ${describe(text)}`);
  const o = checkOptions(where, opts, ['dirName', 'location']);
  const module = await ext();
  const file = o.location ?? '.claude-plugin/plugin.json';
  return parsed(where, module.parsePluginManifestText(text, o.dirName ?? '', file));
}

/** A plugin's `.mcp.json` (wrapped or flat) as server entries; each broken server fails alone. */
export async function parsePluginServers(text, plugin, opts) {
  const o = opts ?? {};
  const module = await ext();
  return parsed('parsePluginServers', module.parsePluginServersText(text, plugin, o.location ?? '.mcp.json', JSON.stringify(o.vars ?? {})));
}

/**
 * Skills and commands (objects or text) as runtime records, plus the bundled files of object
 * skills. Text needs the parser module; objects do not load it.
 */
export async function toRecords(where, skills, commands) {
  const out = [];
  if (skills !== undefined && !Array.isArray(skills)) {
    fail(where, `"skills" must be an array of skill definitions or SKILL.md texts, got ${describe(skills)}`);
  }
  if (commands !== undefined && !Array.isArray(commands)) {
    fail(where, `"commands" must be an array of command definitions or commands/*.md texts, got ${describe(commands)}`);
  }
  for (const [i, skill] of (skills ?? []).entries()) {
    const at = `${where}: skills[${i}]`;
    if (typeof skill === 'string') out.push({ record: await parseSkill(skill).catch(rethrow(at)) });
    else if (isPlainObject(skill)) out.push(skillRecord(at, skill));
    else fail(at, `a skill must be a skill definition or SKILL.md text, got ${describe(skill)}`);
  }
  for (const [i, command] of (commands ?? []).entries()) {
    const at = `${where}: commands[${i}]`;
    if (typeof command === 'string') {
      // A command text without a file name goes by its frontmatter `name`.
      const name = /^---[^\n]*\n(?:[^\n]*\n)*?name:\s*([^\s]+)\s*\n/u.exec(command)?.[1];
      if (!name) fail(at, 'a command text needs a "name:" in its frontmatter (or pass { name, prompt })');
      out.push({ record: await parseCommand(command, { name }).catch(rethrow(at)) });
    } else if (isPlainObject(command)) out.push(commandRecord(at, command));
    else fail(at, `a command must be a command definition or commands/*.md text, got ${describe(command)}`);
  }
  return out;
}

function rethrow(where) {
  return (error) => {
    const message = String(error?.message ?? error).replace(/^parse(Skill|Command): /, '');
    throw new (error instanceof TypeError ? TypeError : Error)(`${where}: ${message}`);
  };
}

/** Checks a plugin object: known keys only; anything touching the gate is refused by name. */
export function checkPlugin(where, plugin, checkTool, checkTransport) {
  if (!isPlainObject(plugin)) {
    fail(where, `a plugin must be an object { name, tools?, skills?, commands?, servers? }, got ${describe(plugin)}`);
  }
  for (const key of Object.keys(plugin)) {
    if (Object.hasOwn(FORBIDDEN, key)) fail(where, `${FORBIDDEN[key]} ("${key}" in plugin ${describe(plugin.name)})`);
  }
  checkOptions(where, plugin, PLUGIN_FIELDS, 'the plugin');
  nonEmptyString(where, 'name', plugin.name);
  if (!/[a-z0-9]/i.test(plugin.name)) {
    fail(where, `the plugin name must contain a letter or digit, got ${describe(plugin.name)}`);
  }
  optionalString(where, 'version', plugin.version);
  optionalString(where, 'description', plugin.description);
  if (plugin.tools !== undefined && !Array.isArray(plugin.tools)) {
    fail(where, `"tools" must be an array of tool definitions, got ${describe(plugin.tools)}`);
  }
  (plugin.tools ?? []).forEach((tool, i) => checkTool(`${where}: tools[${i}]`, tool));
  if (plugin.servers !== undefined) {
    if (!isPlainObject(plugin.servers)) {
      fail(where, `"servers" must be an object mapping names to transports, got ${describe(plugin.servers)}`);
    }
    for (const [name, transport] of Object.entries(plugin.servers)) {
      checkTransport(`${where}: servers.${name}`, transport);
    }
  }
  if (plugin.hooks !== undefined) {
    const h = plugin.hooks;
    if (!isPlainObject(h) || !isPlainObject(h.settings) || (h.root !== undefined && typeof h.root !== 'string')) {
      fail(where, `"hooks" must be { root?, settings: { hooks: {...} } } (a hooks.json, as loadPluginDir reads it), got ${describe(h)}`);
    }
  }
  return plugin;
}

