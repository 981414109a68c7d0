// The live timeline: one entry per UI event of the core (step, tool call, model text, notice,
// error, end of run). Tool calls are one entry each, updated in place from start to end; so is
// the model's streamed reasoning ("thinking"), for models that send it.
import { byId, h, prettyJson, stickToBottom } from './dom.js';

const DECISION_LABEL = { yes: 'approved', always: 'approved (always)', no: 'declined' };

/** What the model wrote in a step: short text inline, long text (a final answer) folded. */
function modelText(text) {
  const firstLine = text.split('\n')[0];
  if (text.length <= 160 && !text.includes('\n')) return h('li', { class: 'ev text' }, h('span', { class: 'who' }, 'model'), text);
  const preview = firstLine.length > 100 ? `${firstLine.slice(0, 100)}…` : firstLine;
  return h(
    'li',
    { class: 'ev text' },
    h('details', {}, h('summary', {}, h('span', { class: 'who' }, 'model'), preview), h('div', { class: 'full' }, text)),
  );
}

/** Wires the timeline list. `riskOf(name)` gives a tool's risk for its badge. */
/** One line of a subagent's progress, or null for events the line does not show. */
function childProgress(e) {
  switch (e.type) {
    case 'step_start':
      return `step ${e.step}`;
    case 'tool_start':
      return `→ ${e.name}`;
    case 'tool_end':
      return `← ${e.name} ${e.ok ? 'ok' : 'failed'} (${e.duration_ms} ms)`;
    case 'done':
      return `done in ${e.steps} step${e.steps === 1 ? '' : 's'}`;
    case 'error':
      return `stopped: ${e.message}`;
    default:
      return null;
  }
}

export function createTimeline({ riskOf, redact }) {
  const list = byId('timeline');
  const calls = new Map(); // call id -> { li, state badge, ... } of the current run
  let runNumber = 0;
  let runStart = 0;
  let thinking = null; // the text of the reasoning entry being streamed, if any

  const add = (li) => {
    stickToBottom(list, () => {
      list.querySelector(':scope > .empty')?.remove();
      list.append(li);
    });
    return li;
  };

  const setState = (call, state, label) => {
    call.li.dataset.state = state;
    call.state.className = `badge ${state}`;
    call.state.textContent = label;
  };

  const toolStart = (e) => {
    const risk = riskOf(e.name);
    const state = h('span', { class: 'badge running' }, 'running');
    const li = h(
      'li',
      { class: 'ev call', dataset: { tool: e.name, callId: e.id, state: 'running' } },
      h('div', { class: 'call-head' },
        h('span', { class: 'call-name' }, e.name),
        risk && h('span', { class: 'risk', dataset: { risk } }, risk),
        state,
      ),
      h('pre', { class: 'call-args', title: 'Arguments' }, JSON.stringify(e.args ?? {})),
    );
    const call = { li, state, decision: null };
    calls.set(e.id, call);
    add(li);
  };

  const approvalRequest = (e) => {
    let call = calls.get(e.id);
    if (!call) {
      toolStart({ id: e.id, name: e.name, args: e.args });
      call = calls.get(e.id);
    }
    setState(call, 'waiting', 'awaiting approval');
  };

  const toolEnd = (e) => {
    let call = calls.get(e.id);
    if (!call) {
      toolStart({ id: e.id, name: e.name, args: {} });
      call = calls.get(e.id);
    }
    const declined = call.decision === 'no';
    setState(call, e.ok ? 'ok' : 'failed', e.ok ? 'ok' : declined ? 'declined' : 'failed');
    const head = call.li.querySelector('.call-head');
    if (call.decision && !declined) head.append(h('span', { class: 'badge' }, DECISION_LABEL[call.decision]));
    head.append(h('span', { class: 'badge duration', title: 'Duration' }, `${e.duration_ms} ms`));
    if (e.truncated) {
      head.append(h('span', { class: 'badge truncated', title: 'The output was cut before it reached the model' }, 'truncated'));
    }
    const output = redact(e.output ?? '');
    const details = h(
      'details',
      { class: 'call-result', open: !e.ok },
      h('summary', {}, e.ok ? `Result · ${output.length.toLocaleString('en')} chars` : 'Error'),
      h('pre', { class: 'call-output' }, prettyJson(output)),
    );
    call.li.append(details);
  };

  return {
    /** Opens a new run's section. */
    startRun(prompt) {
      runNumber += 1;
      runStart = performance.now();
      calls.clear();
      add(h('li', { class: 'run-head', dataset: { run: runNumber } }, `Run ${runNumber}`, h('span', { class: 'prompt' }, prompt)));
    },

    /** Shows one event of the core. */
    event(e) {
      // A subagent's progress: one line per step, tool and end, under its name (its call ids
      // are its own, so they never touch the run's calls).
      if (e.agent !== undefined) {
        const what = childProgress(e);
        if (what) add(h('li', { class: 'ev subagent' }, h('span', { class: 'who' }, `↳ ${e.agent}`), ` ${redact(what)}`));
        return;
      }
      // Reasoning pieces grow one entry until anything else happens.
      if (e.type !== 'reasoning_delta') thinking = null;
      switch (e.type) {
        case 'reasoning_delta':
          if (!thinking) {
            thinking = h('span', { class: 'thinking-text' });
            add(h('li', { class: 'ev thinking' }, h('span', { class: 'who' }, 'thinking'), thinking));
          }
          stickToBottom(list, () => thinking.append(redact(e.text)));
          break;
        case 'step_start':
          add(h('li', { class: 'ev step' }, `Step ${e.step}`));
          break;
        case 'model_text':
          if (e.text?.trim()) add(modelText(redact(e.text.trim())));
          break;
        case 'tool_start':
          toolStart(e);
          break;
        case 'approval_request':
          approvalRequest(e);
          break;
        case 'tool_end':
          toolEnd(e);
          break;
        case 'tool_search': {
          const found = e.results.length ? e.results.join(', ') : 'nothing';
          add(h('li', { class: 'ev notice tool-search' }, `tool_search "${redact(e.query)}" found ${found}`));
          break;
        }
        case 'notice':
          add(h('li', { class: 'ev notice' }, redact(e.message)));
          break;
        case 'error':
          add(h('li', { class: 'ev error', role: 'alert' }, redact(e.message)));
          break;
        case 'done': {
          const seconds = ((performance.now() - runStart) / 1000).toFixed(2);
          const steps = `${e.steps} step${e.steps === 1 ? '' : 's'}`;
          const u = e.usage;
          const tokens = u
            ? ` · ${u.input_tokens.toLocaleString('en-US')} tokens in${u.cache_read_tokens !== undefined ? ` (${u.cache_read_tokens.toLocaleString('en-US')} cached)` : ''}, ${u.output_tokens.toLocaleString('en-US')} out`
            : '';
          add(h('li', { class: 'ev done' }, `Answered after ${steps} in ${seconds} s${tokens}`));
          break;
        }
        default:
          break; // text_delta streams into the chat; later event kinds are ignored.
      }
    },

    /** Records the user's answer to an approval request. */
    decided(id, answer) {
      const call = calls.get(id);
      if (!call) return;
      call.decision = answer;
      if (answer !== 'no') setState(call, 'running', 'running');
    },

    /** A notice from outside a run (a server failed, ...). */
    notice(message) {
      add(h('li', { class: 'ev notice' }, redact(message)));
    },

    /** Empties the timeline. */
    clear() {
      calls.clear();
      runNumber = 0;
      list.replaceChildren(h('li', { class: 'empty' }, 'Runs will show up here: each step, each tool call with its arguments and result.'));
    },
  };
}
