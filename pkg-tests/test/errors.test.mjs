// Bad arguments to the Node-only stdioTransport (the rest: portable/suite/errors.test.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stdioTransport } from 'agentwire/node';

/** `fn()` throws (or rejects with) a TypeError whose message matches `pattern`. */
async function rejectsWith(fn, pattern) {
  await assert.rejects(async () => fn(), (error) => {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${error?.constructor?.name}: ${error?.message}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test('stdioTransport: bad arguments', async () => {
  await rejectsWith(() => stdioTransport(), /stdioTransport: "command" is required/);
  await rejectsWith(() => stdioTransport('node', 'server.js'), /stdioTransport: args must be an array of strings, got a string "server\.js"/);
  await rejectsWith(() => stdioTransport('node', [], { environment: {} }), /unknown option "environment" in options \(known: env, cwd, stderr, onStderr\)/);
  await rejectsWith(() => stdioTransport('node', [], { env: { PORT: 80 } }), /"env" must be an object of strings/);
});
