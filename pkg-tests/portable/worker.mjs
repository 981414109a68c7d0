// The suite's entry for workerd (Cloudflare Workers): bundled by run.mjs with the `workerd`
// export condition. POST /suite runs every test with the JSON body as environment; POST /agent
// runs one agent per request (the Workers pattern); POST /bench the mock run benchmark, with `{ prompt, mcpUrl, openaiBaseURL }`.
import { createAgent, httpTransport, openaiCompatible } from 'agentwire';
import { benchMockRun } from './bench.mjs';
import { runTests } from './suite/index.mjs';

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const body = await request.json();
    if (url.pathname === '/bench') return Response.json({ bench: await benchMockRun(body.rounds), passed: [], failed: [] });
    if (url.pathname === '/suite') return Response.json(await runTests(body, { filter: body.filter }));
    if (url.pathname === '/agent') {
      const model = openaiCompatible({ baseURL: body.openaiBaseURL, apiKey: 'sk-test', model: 'gpt-4o-mini' });
      const agent = await createAgent({ model, servers: { rec: httpTransport(body.mcpUrl) } });
      try {
        const events = [];
        const answer = await agent.run(body.prompt, { onEvent: (e) => events.push(e.type) });
        return Response.json({ answer, events, servers: agent.servers().map((s) => s.status) });
      } finally {
        agent.close();
      }
    }
    return new Response('not found', { status: 404 });
  },
};
