// `agent.stream()`: a run as an async iterable of its events.

/**
 * Starts `start(onEvent, signal)` (a run) and yields its events in order; ends after the run
 * settles. A run that fails before any terminal event throws from the loop. Leaving early
 * aborts the run (through its own controller, also tied to `outer`) and waits for it to end.
 */
export function eventStream(start, outer) {
  const controller = new AbortController();
  const forward = () => controller.abort(outer.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  const queue = [];
  let wake = null;
  let terminal = false;
  let failure = null;
  let ended = false;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const run = start((event) => {
    // A subagent's `done` or `error` (it has `parent_tool_use_id`) does not end the run.
    if (['done', 'error', 'paused'].includes(event.type) && event.parent_tool_use_id === undefined) terminal = true;
    queue.push(event);
    notify();
  }, controller.signal);
  const finished = run.then(
    () => {},
    (error) => {
      // The terminal event already told the consumer; other failures are thrown.
      if (!terminal) failure = error;
    },
  ).finally(() => {
    ended = true;
    outer?.removeEventListener('abort', forward);
    notify();
  });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      for (;;) {
        if (queue.length > 0) return { value: queue.shift(), done: false };
        if (ended) {
          if (failure) {
            const error = failure;
            failure = null;
            throw error;
          }
          return { value: undefined, done: true };
        }
        await new Promise((resolve) => {
          wake = resolve;
        });
      }
    },
    async return(value) {
      if (!ended) controller.abort(new Error('the stream was closed early'));
      await finished;
      queue.length = 0;
      failure = null;
      return { value, done: true };
    },
  };
}
