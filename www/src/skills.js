// Skills from the page: paste a SKILL.md, see how the core parses it (name, description,
// warnings, fields it ignores), and add it to the agent. The model then sees it in
// activate_skill's catalog; the mock model activates it when the prompt names it ("use the
// <name> skill"). Parsing runs the core's parsers (the package's `ext` wasm module, loaded on
// the first paste), so the page shows exactly what the CLI would.
import { parseSkill } from '../vendor/agentwire/index.js';
import { byId, h } from './dom.js';

/** A short, safe preview of a parsed skill (or of why it cannot load). */
export function describeParsed(parsed) {
  const lines = [`/${parsed.name}: ${parsed.description}`];
  for (const field of parsed.ignoredFields) lines.push(`ignored: ${field}`);
  for (const warning of parsed.warnings) lines.push(`warning: ${warning}`);
  return lines;
}

/**
 * Wires the "+ Skill" dialog. `agent` is the page's agent; `onChange()` re-renders the tool
 * list; `notice(text)` writes to the timeline.
 */
export function setupSkills({ agent, onChange, notice }) {
  const dialog = byId('add-skill');
  const form = byId('add-skill-form');
  const text = form.elements.skill;
  const preview = byId('add-skill-preview');
  const error = byId('add-skill-error');
  const add = byId('add-skill-add');
  let current = null;
  let generation = 0;

  const show = async () => {
    const mine = ++generation;
    current = null;
    add.disabled = true;
    error.textContent = '';
    if (!text.value.trim()) return preview.replaceChildren();
    try {
      const parsed = await parseSkill(text.value);
      if (mine !== generation) return;
      current = parsed;
      add.disabled = false;
      preview.replaceChildren(...describeParsed(parsed).map((line) =>
        h('li', { class: line.startsWith('warning') ? 'warn' : '' }, line)));
    } catch (e) {
      if (mine !== generation) return;
      preview.replaceChildren();
      error.textContent = e?.message ?? String(e);
    }
  };

  byId('add-skill-button').addEventListener('click', () => {
    form.reset();
    preview.replaceChildren();
    error.textContent = '';
    add.disabled = true;
    dialog.showModal();
  });
  text.addEventListener('input', show);

  form.addEventListener('submit', async (event) => {
    if (event.submitter?.value !== 'add') return; // Cancel just closes.
    event.preventDefault();
    if (!current) return;
    if (agent.skills().some((s) => s.qualified === current.name)) {
      error.textContent = `A skill named ${current.name} is already added`;
      return;
    }
    try {
      const warnings = await agent.addSkills([text.value]);
      for (const warning of warnings) notice(`Skill ${current.name}: ${warning}`);
    } catch (e) {
      error.textContent = e?.message ?? String(e);
      return;
    }
    notice(`Added skill ${current.name}: try "use the ${current.name} skill"`);
    onChange();
    dialog.close('add');
  });
}
