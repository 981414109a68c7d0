// `@server:uri` in a prompt, for `agent.run`: which resources it names and how their contents
// are attached. The same rules as the core's `Runtime::attach_mentions` (the native CLI's), kept
// in JS so the runtime wasm module carries no copy of them.

/** Rust's `char::is_whitespace` as a character class body (Unicode White_Space; JS's `\s` differs). */
export const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** What Rust's `str::split_whitespace` splits on. */
const WHITESPACE = new RegExp(`[${SPACE}]+`);

/** The core's `DEFAULT_MAX_OUTPUT_CHARS`: an attached resource is cut like tool output. */
const MAX_CHARS = 50_000;

/**
 * The `@server:uri` mentions of `prompt` whose server is one of `servers`, in order, once each:
 * `[server, uri]` pairs. Closing punctuation belongs to the sentence, not the URI.
 */
export function mentions(prompt, servers) {
  const found = [];
  for (const word of prompt.split(WHITESPACE)) {
    const colon = word.indexOf(':');
    if (!word.startsWith('@') || colon < 0) continue;
    const server = word.slice(1, colon);
    const uri = word.slice(colon + 1).replace(/[.,;)!?"']+$/, '');
    if (servers.includes(server) && uri !== '' && !found.some(([s, u]) => s === server && u === uri)) {
      found.push([server, uri]);
    }
  }
  return found;
}

/**
 * The tagged text a read resource (`{contents}`, checked by the core) adds to the prompt: text
 * contents bare, others as the core shows a resource block, cut to the tool output limit.
 */
export function attachment(server, uri, read) {
  const parts = read.contents.map((c) => {
    if (typeof c.text === 'string') return c.text;
    const mime = typeof c.mimeType === 'string' ? c.mimeType : 'binary';
    const bytes = typeof c.blob === 'string' ? new TextEncoder().encode(c.blob).length : 0;
    return `[resource ${c.uri}, ${mime}, ${bytes} bytes base64]`;
  });
  return `\n\n<resource server="${server}" uri="${uri}">\n${truncate(parts.join('\n'))}\n</resource>`;
}

/** `text` cut to `MAX_CHARS` characters (code points) with the core's marker (`truncate_output`). */
function truncate(text) {
  if (text.length <= MAX_CHARS) return text;
  const chars = Array.from(text);
  const cut = chars.length - MAX_CHARS;
  if (cut <= 0) return text;
  const marker = `[output truncated: ${cut} of ${chars.length} characters cut, over the tool's limit of ${MAX_CHARS}]`;
  return `${chars.slice(0, MAX_CHARS).join('')}\n${marker}`;
}
