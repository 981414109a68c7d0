// Model settings: the built-in mock model (default) or an OpenAI-compatible endpoint called
// from the page with `fetch`. The API key lives in this module's memory; with "remember in
// this tab" it also goes to sessionStorage (never localStorage), and it is never logged.
import { byId, httpUrl } from './dom.js';

const STORAGE_KEY = 'agentwire.www.model';

/** The current model settings. */
let current = { kind: 'mock' };

/** Reads settings remembered in this tab, if any. */
export function loadSettings() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    if (saved && saved.kind === 'openai' && typeof saved.baseURL === 'string') current = { ...saved, remember: true };
  } catch {
    sessionStorage.removeItem(STORAGE_KEY);
  }
  return current;
}

/** The current settings. */
export function settings() {
  return current;
}

/** `text` with the API key (if any) masked: for anything shown on the page. */
export function redact(text) {
  const key = current.apiKey;
  const s = String(text);
  return key && key.length >= 4 ? s.split(key).join('[API key]') : s;
}

/** A short label for the header: "Mock model" or "gpt-4o-mini @ api.openai.com". */
export function modelLabel(s = current) {
  if (s.kind !== 'openai') return 'Mock model';
  let host = s.baseURL;
  try {
    host = new URL(s.baseURL).host;
  } catch {}
  return `${s.model} @ ${host}`;
}

/** Checks the form's fields; returns the settings or throws with what is wrong. */
function readForm(form) {
  const data = new FormData(form);
  if (data.get('kind') !== 'openai') return { kind: 'mock' };
  const baseURL = String(data.get('baseURL') ?? '').trim().replace(/\/+$/, '');
  httpUrl(baseURL, 'base URL', 'https://api.openai.com/v1');
  const model = String(data.get('model') ?? '').trim();
  if (!model) throw new Error('Name the model, for example gpt-4o-mini');
  return {
    kind: 'openai',
    baseURL,
    apiKey: String(data.get('apiKey') ?? ''),
    model,
    stream: data.get('stream') === 'on',
    remember: data.get('remember') === 'on',
  };
}

function fillForm(form, s) {
  form.elements.kind.value = s.kind === 'openai' ? 'openai' : 'mock';
  form.elements.baseURL.value = s.baseURL ?? '';
  form.elements.apiKey.value = s.apiKey ?? '';
  form.elements.model.value = s.model ?? '';
  form.elements.stream.checked = s.stream ?? true;
  form.elements.remember.checked = s.remember ?? false;
}

/**
 * Wires the settings dialog. `apply(settings)` installs a model for the settings (it may throw
 * to keep the dialog open with the error shown).
 */
export function setupSettings({ openButton, apply }) {
  const dialog = byId('settings');
  const form = byId('settings-form');
  const fields = byId('endpoint-fields');
  const error = byId('settings-error');
  const syncFields = () => {
    const openai = form.elements.kind.value === 'openai';
    fields.hidden = !openai;
    for (const name of ['baseURL', 'model']) form.elements[name].required = openai;
  };
  form.addEventListener('change', syncFields);

  openButton.addEventListener('click', () => {
    fillForm(form, current);
    syncFields();
    error.textContent = '';
    dialog.showModal();
  });

  form.addEventListener('submit', (event) => {
    if (event.submitter?.value !== 'save') return; // Cancel just closes.
    event.preventDefault();
    let next;
    try {
      next = readForm(form);
      apply(next);
    } catch (e) {
      error.textContent = redact(e?.message ?? e);
      return;
    }
    current = next;
    if (next.kind === 'openai' && next.remember) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    else sessionStorage.removeItem(STORAGE_KEY);
    dialog.close('save');
  });
}
