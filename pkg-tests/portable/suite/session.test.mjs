// Sessions in every runtime: a run paused for approval in Node 20 (run.mjs put its store's
// contents in env.pausedSession) resumes here; this runtime then pauses a new run in the same
// session, whose store goes back to run.mjs, which resumes it in Node.
import { assert, test } from '../harness.mjs';
import { pauseRun, resumeRun } from './paused.mjs';

test('a run paused in Node 20 resumes here from its session store, and pauses again for Node', async (env) => {
  if (!env.pausedSession) throw new Error('env.pausedSession is missing (run.mjs pauses a run in Node)');
  const { history, stored } = await resumeRun(env.pausedSession);
  assert.deepEqual(history.map((e) => e.type), ['user', 'assistant', 'tool_result', 'tool_result', 'assistant']);
  env.share('pausedSession', await pauseRun(stored, `pause again in ${env.runtime}`));
});

test('a run paused here resumes here', async () => {
  await resumeRun(await pauseRun([], 'note keep and drop'));
});
