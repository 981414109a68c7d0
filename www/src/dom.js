// Tiny DOM helpers. Everything the page shows is built as nodes with text content, never as
// HTML strings, so model output and tool results cannot inject markup.

/**
 * Creates an element: `h('li', { class: 'ev', dataset: { tool: 'x' } }, 'text', child)`.
 * Attributes with value `false`, `null` or `undefined` are left out.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'class') el.className = value;
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children: nodes, strings (as text), arrays of either; skips null/false. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** `document.getElementById` that fails loudly when the page and the script disagree. */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no element #${id}`);
  return el;
}

/** Scrolls `el` to the bottom if the user was already near it (keeps their place otherwise). */
export function stickToBottom(el, update) {
  const near = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  update();
  if (near) el.scrollTop = el.scrollHeight;
}

/** Pretty JSON for arguments and results; text that is not JSON is returned as is. */
export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Parses `text` as an http(s) URL, or throws a message for the user (`example` shows the form). */
export function httpUrl(text, what, example) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`The ${what} must be a full address, like ${example}`);
  }
  if (!['http:', 'https:'].includes(url.protocol)) throw new Error(`The ${what} must start with https:// or http://`);
  return url;
}
