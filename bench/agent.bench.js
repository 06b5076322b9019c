// The agent loop (issue 10). A scripted Anthropic SSE server on 127.0.0.1 and the real SDK; the
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
