// The agent loop (issues 10 and 25). First, batches: a scripted provider in the process (no
// network, no SDK: all the time is the loop's and the pipeline's) replies with 1/10/100/1,000
// tool calls in one step, then text; each figure beside the pipeline's own (`session.runTurn`
// of the same calls). Then a scripted Anthropic SSE server on 127.0.0.1 and the real SDK; the
// model's time (from the request to the end of its stream, SDK included) is measured by wrapping
// the provider and excluded. Baseline for the loop overhead: the model time of the same round.
import { createServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { AnthropicProvider, buildTool, createSession, runAgent } from "../dist/bundle/index.js";
import { median, report } from "./util.js";

// ---- Batches, scripted in the process ----
const USAGE = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
/** A provider whose replies are `steps` (tool calls per step), then one text reply. */
function scripted(steps) {
  let request = 0;
  return {
    name: "scripted",
    async *stream() {
      const step = request++;
      yield { type: "message_start", id: `msg_${step}`, model: "m", usage: USAGE };
      const calls = steps[step];
      if (calls === undefined) {
        yield { type: "text_delta", text: "Done." };
        yield { type: "block", block: { type: "text", text: "Done." } };
        yield { type: "message_end", stopReason: "end_turn", usage: USAGE };
        return;
      }
      for (let i = 0; i < calls; i++) yield { type: "block", block: { type: "tool_use", id: `toolu_${step}_${i}`, name: "Noop", input: { i } } };
      yield { type: "message_end", stopReason: "tool_use", usage: USAGE };
    },
  };
}
const batchNoop = buildTool({
  name: "Noop",
  description: "Does nothing.",
  inputSchema: z.object({ i: z.number() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => ({ data: "ok" }),
});
const batchDir = await mkdtemp(join(tmpdir(), "armature-agent-batch-"));
const batchSession = createSession({ cwd: batchDir, tools: [batchNoop], sessionDir: join(batchDir, "s") });
async function agentRun(steps) {
  const t0 = performance.now();
  for await (const event of runAgent({ session: batchSession, provider: scripted(steps), model: "m", prompt: "go", sessionStart: "none", sessionEnd: false })) {
    if (event.type === "result" && event.result.is_error) throw new Error(event.result.error);
  }
  return (performance.now() - t0) * 1000;
}
const turnBlocks = (n) => Array.from({ length: n }, (_, i) => ({ type: "tool_use", id: `toolu_${i}`, name: "Noop", input: { i } }));
async function pipelineRun(blocks) {
  const t0 = performance.now();
  await batchSession.runTurn(blocks);
  return (performance.now() - t0) * 1000;
}
/** Median and minimum of `runs` timings (µs) after `warmup`; interleaved runs share the machine's state. */
async function sample(fn, runs, warmup = 3) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await fn());
  return { median: median(times), min: Math.min(...times) };
}
const RUNS = { 1: 200, 10: 100, 100: 40, 1000: 12 };
const agentT = {};
const pipeT = {};
for (const n of [1, 10, 100, 1000]) {
  const blocks = turnBlocks(n);
  agentT[n] = await sample(() => agentRun([n]), RUNS[n]);
  pipeT[n] = await sample(() => pipelineRun(blocks), RUNS[n]);
}
const perCall = (t, n, pick) => (t[n][pick] - t[1][pick]) / (n - 1);
for (const n of [1, 10, 100, 1000]) {
  console.log(`runAgent, one step of ${n} call${n === 1 ? "" : "s"} then a text step: ${agentT[n].median.toFixed(0)} µs (min ${agentT[n].min.toFixed(0)}) | pipeline runTurn of the same calls: ${pipeT[n].median.toFixed(0)} µs (min ${pipeT[n].min.toFixed(0)})`);
}
for (const n of [10, 100, 1000]) {
  const a = perCall(agentT, n, "median");
  report({ name: `runAgent per call in a batch, (T${n} − T1)/${n - 1}`, value: a, unit: "µs", baseline: perCall(pipeT, n, "median"), baselineName: "pipeline runTurn per call", target: "≤ 20 µs", ok: a <= 20 });
  console.log(`  best runs: ${perCall(agentT, n, "min").toFixed(1)} µs; pipeline ${perCall(pipeT, n, "min").toFixed(1)} µs`);
}
const linearity = perCall(agentT, 1000, "median") / perCall(agentT, 100, "median");
report({ name: "runAgent linearity, per call at 1,000 / per call at 100", value: linearity, unit: "×", baseline: perCall(pipeT, 1000, "median") / perCall(pipeT, 100, "median"), baselineName: "pipeline's own ratio", target: "≤ 1.3", ok: linearity <= 1.3 });
console.log(`  best runs: ${(perCall(agentT, 1000, "min") / perCall(agentT, 100, "min")).toFixed(2)}×`);
const textOnly = await sample(() => agentRun([]), 300);
report({ name: "runAgent, text-only step (a whole run: prompt, one reply, result)", value: textOnly.median, unit: "µs", baseline: pipeT[1].median, baselineName: "pipeline runTurn of one call", target: "≤ 300 µs", ok: textOnly.median <= 300 });
console.log(`  best run: ${textOnly.min.toFixed(0)} µs`);
const M = 100;
const stepRuns = await sample(() => agentRun(Array(M).fill(1)), 12, 2);
const perStep = { median: (stepRuns.median - textOnly.median) / M, min: (stepRuns.min - textOnly.min) / M };
report({ name: `runAgent, per step with one call (M = ${M} steps)`, value: perStep.median, unit: "µs", baseline: pipeT[1].median, baselineName: "pipeline runTurn of one call", target: "≤ 150 µs", ok: perStep.median <= 150 });
console.log(`  best runs: ${perStep.min.toFixed(0)} µs`);
await batchSession.close();
await rm(batchDir, { recursive: true, force: true });

// ---- Round trips through the real SDK and loopback SSE ----

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
let msg = 0;
function reply(round, rounds) {
  const id = `msg_${++msg}`;
  const out = [sse("message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } })];
  const text = round < rounds ? `Round ${round}: looking at item ${round} before the next step of the task.` : "All done.";
  out.push(sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
  out.push(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }));
  out.push(sse("content_block_stop", { type: "content_block_stop", index: 0 }));
  if (round < rounds) {
    const json = JSON.stringify({ i: round });
    out.push(sse("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: `toolu_${round}`, name: "Noop", input: {} } }));
    out.push(sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json.slice(0, 4) } }));
    out.push(sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json.slice(4) } }));
    out.push(sse("content_block_stop", { type: "content_block_stop", index: 1 }));
  }
  // The rest of the message arrives a little later, as with a real model: a tool that starts at
  // its block's stop runs before the message ends.
  const tail = [
    sse("message_delta", { type: "message_delta", delta: { stop_reason: round < rounds ? "tool_use" : "end_turn" }, usage: { output_tokens: 20 } }),
    sse("message_stop", { type: "message_stop" }),
  ];
  return { head: out.join(""), tail: tail.join("") };
}

async function startServer(rounds) {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const { head, tail } = reply(++count, rounds);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(head);
      setTimeout(() => res.end(tail), 2);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** The provider, with its time measured and each tool_use block's arrival stamped. */
function timed(provider, stamps) {
  return {
    name: provider.name,
    modelMs: 0,
    async *stream(request) {
      const t0 = performance.now();
      try {
        for await (const event of provider.stream(request)) {
          if (event.type === "block" && event.block.type === "tool_use") stamps.set(event.block.id, performance.now());
          yield event;
        }
      } finally {
        this.modelMs += performance.now() - t0;
      }
    },
  };
}

async function run(rounds, { onRound } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "armature-agent-bench-"));
  const started = new Map();
  const noop = buildTool({
    name: "Noop",
    description: "Does nothing.",
    inputSchema: z.object({ i: z.number() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async (_input, context) => ({ data: "ok", ...(context ? {} : {}) }),
  });
  const startedAt = new Map();
  const tool = { ...noop, call: (input, ctx, p) => (startedAt.set(`toolu_${input.i}`, performance.now()), noop.call(input, ctx, p)) };
  const server = await startServer(rounds);
  const session = createSession({ cwd: dir, tools: [tool], sessionDir: join(dir, "s") });
  const provider = timed(new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), started);
  const roundTimes = [];
  let last = performance.now();
  let lastModel = 0;
  const t0 = performance.now();
  let result;
  for await (const event of runAgent({ session, provider, model: "m", prompt: "go", system: "bench" })) {
    if (event.type === "turn_end") {
      const now = performance.now();
      roundTimes.push({ total: now - last, model: provider.modelMs - lastModel });
      last = now;
      lastModel = provider.modelMs;
      if (onRound) await onRound(event.turn, result);
      last = performance.now();
    }
    if (event.type === "result") result = event.result;
  }
  const total = performance.now() - t0;
  await session.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
  const startDelays = [...startedAt].map(([id, t]) => t - started.get(id));
  return { total, modelMs: provider.modelMs, roundTimes, startDelays, result };
}

// Cold: the first round trip of a fresh process (SDK loading excluded: it is model time).
const cold = await run(2);
const coldOverhead = cold.roundTimes[0].total - cold.roundTimes[0].model;

// Warm: 100 rounds, one tool call each.
const warm = await run(100);
const overheads = warm.roundTimes.slice(5).map((r) => r.total - r.model);
const overhead = median(overheads);
const modelPerRound = median(warm.roundTimes.slice(5).map((r) => r.model));
report({ name: "agent loop overhead per round trip (one tool call), warm", value: overhead, unit: "ms", baseline: modelPerRound, baselineName: "model time of the round (loopback SSE + SDK)", target: "≤ 1 ms", ok: overhead <= 1 });
const sortedOverheads = [...overheads].sort((a, b) => a - b);
console.log(`  cold (first round of a fresh process): ${coldOverhead.toFixed(3)} ms; warm min ${sortedOverheads[0].toFixed(3)} ms, p25 ${sortedOverheads[Math.floor(sortedOverheads.length / 4)].toFixed(3)} ms (a loaded machine inflates the median)`);

const delays = warm.startDelays.slice(5);
const startMedian = median(delays);
const p95 = [...delays].sort((a, b) => a - b)[Math.floor(delays.length * 0.95)];
report({ name: "tool start after its block's content_block_stop, median", value: startMedian, unit: "ms", target: "≤ 2 ms", ok: startMedian <= 2 });
console.log(`  p95 ${p95.toFixed(3)} ms, max ${Math.max(...delays).toFixed(3)} ms; cold ${cold.startDelays[0].toFixed(3)} ms`);

// 200 rounds: loop time (model time excluded) and heap, per 50-round quarter.
const heap = [];
const quarters = [];
const big = await run(200, {
  onRound: async (turn) => {
    if (turn % 50 === 0) {
      globalThis.gc?.();
      heap.push(process.memoryUsage().heapUsed / 1e6);
    }
  },
});
const modelQuarters = [];
for (let q = 0; q < 4; q++) {
  const slice = big.roundTimes.slice(q * 50, q * 50 + 50);
  // Median per round (robust to a loaded machine) × 50, and the summed model time beside it.
  quarters.push(median(slice.map((r) => r.total - r.model)) * 50);
  modelQuarters.push(slice.reduce((s, r) => s + r.model, 0));
}
console.log(`200 rounds: loop time per 50-round quarter (median round × 50, model excluded): ${quarters.map((t) => `${t.toFixed(1)} ms`).join(", ")}`);
console.log(`200 rounds: model time per quarter (SDK serialising the growing history included): ${modelQuarters.map((t) => `${t.toFixed(0)} ms`).join(", ")}`);
console.log(`200 rounds: heap after rounds 50/100/150/200: ${heap.map((h) => `${h.toFixed(1)} MB`).join(", ")}${globalThis.gc ? "" : " (run with --expose-gc for settled figures)"}`);
const steps = heap.slice(1).map((h, i) => h - heap[i]);
const timeRatio = quarters[3] / quarters[0];
const linearMem = steps.every((s) => s < Math.max(2, steps[0] * 3));
report({ name: "200 rounds: last quarter's loop time / first quarter's", value: timeRatio, unit: "×", target: "≤ 2× (constant per round: linear total)", ok: timeRatio <= 2 });
console.log(`  heap growth per quarter: ${steps.map((s) => `${s.toFixed(2)} MB`).join(", ")} (${linearMem ? "linear" : "NOT linear"}); model time total ${big.modelMs.toFixed(0)} ms, ${big.result.messages.length} messages`);
