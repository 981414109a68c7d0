// Every suite file, imported statically so one bundle carries them all (workerd, browsers).
// Add a new file here; its tests run under every runtime pkg-tests/portable/run.mjs drives.
import './agent.test.mjs';
import './http.test.mjs';
import './control.test.mjs';
import './abort.test.mjs';
import './history.test.mjs';
import './errors.test.mjs';
import './transports.test.mjs';
import './tools.test.mjs';
import './callbacks.test.mjs';
import './modules.test.mjs';
import './session.test.mjs';
import './hooks.test.mjs';
import './mcp-extensions.test.mjs';

export { runTests } from '../harness.mjs';
