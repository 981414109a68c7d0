// The page: an agentwire agent (the npm package's wasm build) with the mock GitHub MCP server,
// the page's JS tools, and the mock model or an OpenAI-compatible endpoint.
import { createAgent, mockGithub, mockModel, openaiCompatible } from '../vendor/agentwire/index.js';
import { createApproval } from './approval.js';
import { createChat } from './chat.js';
import { byId } from './dom.js';
import { pageTools } from './page-tools.js';
import { loadSettings, modelLabel, redact, setupSettings } from './settings.js';
import { createTimeline } from './timeline.js';
import { setupServers } from './servers.js';
import { setupSkills } from './skills.js';
import { renderTools } from './tools-panel.js';
import { chatTurns, localSession, showContext } from './session.js';

const status = byId('status');
const setStatus = (state, text) => {
  status.dataset.state = state;
  status.textContent = text;
};

/** The model for `s`: the built-in mock, or an OpenAI-compatible endpoint over fetch. */
function modelFor(s) {
  if (s.kind !== 'openai') return mockModel();
  return openaiCompatible({
    baseURL: s.baseURL,
    apiKey: s.apiKey || undefined,
    model: s.model,
    stream: s.stream,
  });
}

function showModel(s) {
  const button = byId('model-button');
  button.dataset.kind = s.kind;
  byId('model-label').textContent = modelLabel(s);
}

/** What the wasm modules (runtime and mocks) weigh, from the browser's resource timing. */
function coreInfo(loadMs) {
  const sizes = performance
    .getEntriesByType('resource')
    .filter((r) => /\/agentwire(_mocks)?_bg\.wasm$/.test(r.name) && r.decodedBodySize)
    .map((r) => r.decodedBodySize);
  const total = sizes.reduce((a, b) => a + b, 0);
  const kb = total ? ` · wasm ${Math.round(total / 1024)} KB` : '';
  return `core ready in ${Math.round(loadMs)} ms${kb}`;
}

/** `?toolSearch=auto|on|off` picks deferred tool loading (default auto). */
function toolSearchFromUrl() {
  const mode = new URLSearchParams(location.search).get('toolSearch');
  return ['auto', 'on', 'off'].includes(mode) ? mode : undefined;
}

/** `?contextWindow=N` gives the model a context window (the mock has none), for the meter and compaction. */
function contextWindowFromUrl() {
  const n = Number(new URLSearchParams(location.search).get('contextWindow'));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Shows the turns of a conversation restored from the session store. */
function restoreChat(chat, agent) {
  const turns = chatTurns(agent.history().entries);
  for (const turn of turns) {
    chat.user(turn.user);
    const bubble = chat.pending();
    if (turn.answer !== undefined) bubble.answer(redact(turn.answer), 'restored');
    else bubble.error('No answer: the page was closed during this run.');
  }
  return turns.length;
}

async function start() {
  const started = performance.now();
  const allowed = new Set(); // tools answered "always" (the core remembers; this is for display)
  let agent;
  const riskOf = (name) => agent?.tools().find((t) => t.name === name)?.risk;
  const timeline = createTimeline({ riskOf, redact });
  const ask = createApproval();
  let busy = false;

  const chat = createChat({
    onSend: async (prompt) => {
      if (busy) return;
      busy = true;
      chat.setEnabled(false);
      setStatus('busy', 'Running…');
      chat.user(prompt);
      const bubble = chat.pending();
      timeline.startRun(prompt);
      let steps = 0;
      try {
        const answer = await agent.run(prompt, {
          onEvent: (event) => {
            timeline.event(event);
            // A subagent's events show in the timeline only; its answer is a tool result.
            if (event.agent !== undefined) return;
            if (event.type === 'text_delta') bubble.stream(redact(event.text));
            if (event.type === 'step_start') bubble.step();
            if (event.type === 'done') steps = event.steps;
            if (event.type === 'done' && event.context) showContext(event.context);
          },
          onApproval: async (request) => {
            setStatus('busy', 'Waiting for your approval…');
            const answer = await ask(request);
            timeline.decided(request.id, answer);
            if (answer === 'always') {
              allowed.add(request.name);
              showTools();
            }
            setStatus('busy', 'Running…');
            return answer;
          },
        });
        bubble.answer(redact(answer), steps ? `${steps} step${steps === 1 ? '' : 's'} · ${modelLabel()}` : '');
        setStatus('ready', 'Ready');
      } catch (error) {
        bubble.error(redact(error?.message ?? error));
        setStatus('error', 'The last run failed');
      } finally {
        busy = false;
        chat.setEnabled(true);
        showContext(agent.context());
      }
    },
  });

  const store = localSession();
  try {
    const initial = loadSettings();
    const options = {
      model: modelFor(initial),
      servers: { github: mockGithub() },
      tools: pageTools(),
      // The timeline shows whole results (the model gets at most maxOutputChars anyway).
      previewChars: 60_000,
      onNotice: (message) => timeline.notice(message),
      toolSearch: toolSearchFromUrl(),
      // The built-in general-purpose subagent: "use subagents: …" dispatches children.
      agents: [],
      // The conversation survives a reload: every entry goes to localStorage as it happens.
      session: store,
      contextWindow: contextWindowFromUrl(),
    };
    try {
      agent = await createAgent(options);
    } catch (error) {
      // A stored conversation this version cannot read is dropped, and said so, not fatal.
      if (!/session store/.test(error?.message ?? '')) throw error;
      store.reset();
      agent = await createAgent(options);
      timeline.notice(`The saved conversation could not be restored and was dropped: ${error.message}`);
    }
    showModel(initial);
    const restored = restoreChat(chat, agent);
    if (restored) timeline.notice(`Restored ${restored} turn${restored === 1 ? '' : 's'} of the conversation saved in this browser`);
  } catch (error) {
    setStatus('error', 'The core failed to load');
    timeline.event({ type: 'error', message: `Could not start agentwire: ${error?.message ?? error}` });
    return;
  }

  // Remote MCP servers added from the page (over Streamable HTTP) can be removed again.
  let remote = new Set();
  const showTools = () =>
    renderTools(agent, allowed, {
      removable: remote,
      onRemove: (name) => {
        if (busy) return;
        agent.disconnect(name);
        remote.delete(name);
        timeline.notice(`Removed MCP server ${name}`);
        showTools();
      },
    });
  remote = setupServers({ agent, onChange: showTools, notice: (text) => timeline.notice(text) });
  setupSkills({ agent, onChange: showTools, notice: (text) => timeline.notice(text) });
  showTools();
  setupSettings({
    openButton: byId('model-button'),
    apply: (s) => {
      agent.setModel(modelFor(s));
      showModel(s);
    },
  });
  byId('new-chat').addEventListener('click', () => {
    if (busy) return;
    store.reset();
    agent.clearHistory();
    showContext(agent.context());
    chat.clear();
    timeline.clear();
    chat.setEnabled(true);
  });

  showContext(agent.context());
  byId('core-info').textContent = coreInfo(performance.now() - started);
  // For bench-ready.mjs: when the page became usable, on the navigation's clock.
  performance.mark('agentwire-ready');
  setStatus('ready', 'Ready');
  chat.setEnabled(true);
}

start();
