// The per-runtime figure: p50 (and min, p90) of one mock agent run (mock model + mock GitHub,
// 查看 vercel/ai 的 issues: a tool call and an answer) on a fresh agent, after a warm-up.
import { createAgent } from 'agentwire';

/** Runs the mock agent `rounds` times; resolves to `{ rounds, p50, p90, min }` in ms. */
export async function benchMockRun(rounds = 30) {
  const once = async () => {
    const started = performance.now();
    const agent = await createAgent();
    try {
      await agent.run('查看 vercel/ai 的 issues');
    } finally {
      agent.close();
    }
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i++) await once(); // loads and compiles both modules
  const times = [];
  for (let i = 0; i < rounds; i++) times.push(await once());
  times.sort((a, b) => a - b);
  const at = (q) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 100) / 100;
  return { rounds, p50: at(0.5), p90: at(0.9), min: at(0) };
}
