// The chat column: the messages, the composer and the example prompts.
import { byId, h, stickToBottom } from './dom.js';
import { renderMarkdown } from './markdown.js';

/** Example prompts the mock model understands; `note` says what is special about one. */
export const EXAMPLES = [
  { prompt: '查看 vercel/ai 的 issues', note: 'MCP' },
  { prompt: 'list pull requests in vercel/ai', note: 'MCP' },
  { prompt: 'read README.md of vercel/ai', note: 'MCP' },
  { prompt: 'search repositories about mcp', note: 'MCP' },
  { prompt: 'calculate (2+3)*4^2', note: 'JS tool' },
  { prompt: 'weather in Paris', note: 'asks first · network' },
  { prompt: 'use subagents: list issues in vercel/ai; list pull requests in facebook/react', note: 'subagents' },
];

/** Wires the chat; `onSend(prompt)` runs a turn. */
export function createChat({ onSend }) {
  const messages = byId('messages');
  const welcome = byId('welcome');
  const form = byId('composer');
  const input = byId('prompt');
  const send = byId('send');
  let enabled = false;

  const examples = byId('examples');
  examples.replaceChildren(
    ...EXAMPLES.map(({ prompt, note }) =>
      h('button', { type: 'button', class: 'example', dataset: { prompt }, onclick: () => enabled && onSend(prompt) },
        prompt, h('span', { class: 'tag' }, note)),
    ),
  );

  for (const b of examples.querySelectorAll('button')) b.disabled = true; // until the core is ready

  const autosize = () => {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 160)}px`;
  };
  input.addEventListener('input', autosize);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const prompt = input.value.trim();
    if (!prompt || !enabled) return;
    input.value = '';
    autosize();
    onSend(prompt);
  });

  const add = (el) => {
    stickToBottom(messages, () => messages.append(el));
    return el;
  };

  return {
    /** Enables or disables sending (one run at a time). */
    setEnabled(on) {
      enabled = on;
      input.disabled = !on;
      send.disabled = !on;
      for (const b of examples.querySelectorAll('button')) b.disabled = !on;
      if (on) input.focus();
    },

    /** Shows the user's message. */
    user(text) {
      welcome.hidden = true;
      add(h('div', { class: 'msg user' }, text));
    },

    /** Adds the assistant's bubble for a run in progress; returns its controls. */
    pending() {
      const body = h('div', { class: 'body typing' }, 'Working…');
      const bubble = add(h('div', { class: 'msg assistant pending', 'aria-busy': 'true' }, body));
      let streamed = '';
      return {
        /** Text streamed by the model. */
        stream(text) {
          streamed += text;
          stickToBottom(messages, () => body.replaceChildren(streamed));
        },
        /** A new step starts: streamed text so far belonged to the previous one. */
        step() {
          streamed = '';
        },
        /** The final answer. */
        answer(text, meta) {
          bubble.classList.remove('pending');
          bubble.removeAttribute('aria-busy');
          body.classList.remove('typing');
          stickToBottom(messages, () => {
            body.replaceChildren(renderMarkdown(text));
            if (meta) bubble.append(h('span', { class: 'meta' }, meta));
          });
        },
        /** The run failed. */
        error(message) {
          bubble.classList.remove('pending');
          bubble.classList.add('error');
          bubble.removeAttribute('aria-busy');
          body.classList.remove('typing');
          body.replaceChildren(message);
        },
      };
    },

    /** Starts over. */
    clear() {
      messages.replaceChildren(welcome);
      welcome.hidden = false;
    },
  };
}
