// Pipeline overhead, concurrency and streaming (issue 2, §8). Baselines: calling the tool's
// function directly; running the same calls serially; waiting for the whole response.
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { buildTool, createSession } from "../dist/bundle/index.js";
import { median, report } from "./util.js";

const noop = buildTool({
  name: "Noop",
  description: "Does nothing.",
  inputSchema: z.object({ i: z.number() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => ({ data: "ok" }),
});
const rules = Array.from({ length: 50 }, (_, i) => `Tool${i}`);
const blocks = (n) => Array.from({ length: n }, (_, i) => ({ type: "tool_use", id: `t${i}`, name: "Noop", input: { i } }));

async function perCallMicros(n, runs) {
  const session = createSession({ cwd: process.cwd(), tools: [noop], allow: rules.slice(0, 25), deny: rules.slice(25) });
  const turn = blocks(n);
  for (let i = 0; i < 5; i++) await session.runTurn(turn);
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await session.runTurn(turn);
    times.push(((performance.now() - t0) * 1000) / n);
  }
  await session.close();
  return median(times);
}

async function directMicros(n, runs) {
  const ctx = {};
  const times = [];
  for (let r = 0; r < runs + 5; r++) {
    const t0 = performance.now();
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = noop.mapToolResultToToolResultBlockParam((await noop.call({ i }, ctx, () => {})).data, `t${i}`);
    if (r >= 5) times.push(((performance.now() - t0) * 1000) / n);
  }
  return median(times);
}

const direct = await directMicros(1000, 30);
const at1000 = await perCallMicros(1000, 30);
const at100 = await perCallMicros(100, 100);
const single = await perCallMicros(1, 2000);
report({ name: "pipeline, 1,000 no-op calls, 50 rules: per call", value: at1000, unit: "µs", baseline: direct, baselineName: "direct call", target: "≤ 10 µs", ok: at1000 <= 10 });
report({ name: "pipeline, 100 no-op calls: per call", value: at100, unit: "µs", target: "per-call at 1,000 within 1.5× of at 100", ok: at1000 <= at100 * 1.5 });
report({ name: "pipeline, a turn of one no-op call", value: single, unit: "µs", baseline: direct, baselineName: "direct call", target: "≤ 50 µs", ok: single <= 50 });

// Concurrency: 10 concurrency-safe tools of 50 ms each.
const sleeper = (safe) =>
  buildTool({
    name: safe ? "Sleep" : "SleepSerial",
    description: "Sleeps.",
    inputSchema: z.object({ ms: z.number() }),
    isConcurrencySafe: () => safe,
    isReadOnly: () => true,
    call: (input) => new Promise((r) => setTimeout(() => r({ data: "ok" }), input.ms)),
  });
const sleepSession = createSession({ cwd: process.cwd(), tools: [sleeper(true), sleeper(false)] });
const ten = (name, ms) => Array.from({ length: 10 }, (_, i) => ({ type: "tool_use", id: `s${i}`, name, input: { ms } }));
await sleepSession.runTurn(ten("Sleep", 1));
const walls = [];
for (let r = 0; r < 10; r++) {
  const t0 = performance.now();
  await sleepSession.runTurn(ten("Sleep", 50));
  walls.push(performance.now() - t0);
}
const t0 = performance.now();
await sleepSession.runTurn(ten("SleepSerial", 50));
const serial = performance.now() - t0;
const wall = median(walls);
report({ name: "concurrency, 10 safe tools of 50 ms: wall", value: wall, unit: "ms", baseline: serial, baselineName: "serial", target: "≤ 60 ms and ≥ 8× faster than serial", ok: wall <= 60 && serial / wall >= 8 });
console.log(`  speed-up over serial: ${(serial / wall).toFixed(1)}×`);

// Streaming: 3 blocks arriving 500 ms apart, tools of 300 ms (serial tools, so order matters).
async function* arriving(name) {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 500));
    yield { type: "tool_use", id: `st${i}`, name, input: { ms: 300 } };
  }
}
for (const name of ["SleepSerial", "Sleep"]) {
  const start = performance.now();
  let lastResult = 0;
  for await (const e of sleepSession.stream(arriving(name))) if (e.type === "result") lastResult = performance.now() - start;
  const lastArrival = 1500;
  const late = lastResult - (lastArrival + 300);
  // Baseline: wait for all blocks, then run the turn.
  const b0 = performance.now();
  const all = [];
  for await (const b of arriving(name)) all.push(b);
  await sleepSession.runTurn(all);
  const baseline = performance.now() - b0;
  report({
    name: `streaming (${name === "Sleep" ? "safe" : "unsafe"} tools): last result after start`,
    value: lastResult,
    unit: "ms",
    baseline,
    baselineName: "wait-for-whole-response-then-run",
    target: "≤ last arrival + 300 + 50 ms",
    ok: late <= 50,
  });
}
await sleepSession.close();
