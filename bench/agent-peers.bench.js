// The agent loop beside its peers (issue 25), with the same harness for each: a scripted model in
// the process (no network) streams the same turns, a function tool does the same trivial work
// ("ok"), and the run is consumed as a stream to its end. Peers: armature's runAgent (its pipeline:
// permissions, hooks, budgets, transcript), the AI SDK 5 and 6 (`streamText` with their own
// MockLanguageModelV2/V3), and the OpenAI Agents SDK 0.14 (its own `Runner`, streamed, with a
// scripted `Model`; tracing off). All are devDependencies; AI SDK 5 and 6 are installed as `ai-v5` and `ai-v6`, the Agents SDK 0.14 as
// `openai-agents-v0.14`.
// The peers run no permission checks and write no transcript.
//
// Runs: text only; one step of N calls (N = 1, 100, 1,000) then text; M = 100 steps of one call
// each then text. Rows: text only; per step with one call (T_M − T_text) / M; 1,000 calls in one
// step; per call in a batch (T100 − T1) / 99 and (T1000 − T1) / 999. Medians.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ReadableStream } from "node:stream/web";
import { z } from "zod";
import * as ai6 from "ai-v6";
import { MockLanguageModelV3 } from "ai-v6/test";
import * as ai5 from "ai-v5";
import { MockLanguageModelV2 } from "ai-v5/test";
import { Agent, Runner, tool as agentsTool } from "openai-agents-v0.14";
import { buildTool, createSession, runAgent } from "../dist/bundle/index.js";
import { median, report } from "./util.js";

/** A script: tool calls per step, then one text reply. */
const script = {
  text: [],
  batch: (n) => [n],
  steps: (m) => Array.from({ length: m }, () => 1),
};

// ---- armature runAgent ----
const USAGE = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
function armatureProvider(steps) {
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
const noop = buildTool({ name: "Noop", description: "Does nothing.", inputSchema: z.object({ i: z.number() }), isConcurrencySafe: () => true, isReadOnly: () => true, call: async () => ({ data: "ok" }) });
const dir = await mkdtemp(join(tmpdir(), "armature-agent-peers-"));
const session = createSession({ cwd: dir, tools: [noop], sessionDir: join(dir, "s") });
async function armature(steps) {
  for await (const event of runAgent({ session, provider: armatureProvider(steps), model: "m", prompt: "go", sessionStart: "none", sessionEnd: false })) {
    if (event.type === "result" && event.result.is_error) throw new Error(event.result.error);
  }
}

// ---- AI SDK 5 and 6: streamText with the SDK's mock model ----
function streamOf(parts) {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}
/** The stream parts of one step; `finish` builds the finish part in the model spec's own shape. */
function aiStepParts(steps, step, finish) {
  const parts = [{ type: "stream-start", warnings: [] }];
  const calls = steps[step];
  if (calls === undefined) {
    parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Done." }, { type: "text-end", id: "t" }, finish("stop"));
  } else {
    for (let i = 0; i < calls; i++) parts.push({ type: "tool-call", toolCallId: `call_${step}_${i}`, toolName: "Noop", input: JSON.stringify({ i }) });
    parts.push(finish("tool-calls"));
  }
  return parts;
}
const v3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const v3Finish = (reason) => ({ type: "finish", finishReason: { unified: reason, raw: reason }, usage: v3Usage });
const v2Finish = (reason) => ({ type: "finish", finishReason: reason, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
const noopSchema = { type: "object", properties: { i: { type: "number" } }, required: ["i"] };
function aiSdk(sdk, Mock, finish) {
  const tools = { Noop: sdk.tool({ description: "Does nothing.", inputSchema: sdk.jsonSchema(noopSchema), execute: async () => "ok" }) };
  return async (steps) => {
    let request = 0;
    const model = new Mock({ doStream: async () => ({ stream: streamOf(aiStepParts(steps, request++, finish)) }) });
    const result = sdk.streamText({ model, prompt: "go", tools, stopWhen: sdk.stepCountIs(steps.length + 2) });
    for await (const part of result.fullStream) if (part.type === "error") throw part.error;
  };
}

// ---- OpenAI Agents SDK: its Runner, streamed, with a scripted Model ----
const agentsUsage = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };
function agentsModel(steps) {
  let request = 0;
  return {
    async getResponse() {
      throw new Error("the bench streams");
    },
    async *getStreamedResponse() {
      const step = request++;
      yield { type: "response_started" };
      const calls = steps[step];
      let output;
      if (calls === undefined) {
        yield { type: "output_text_delta", delta: "Done." };
        output = [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done." }] }];
      } else {
        output = [];
        for (let i = 0; i < calls; i++) output.push({ type: "function_call", callId: `call_${step}_${i}`, name: "Noop", arguments: JSON.stringify({ i }), status: "completed" });
      }
      yield { type: "response_done", response: { id: `resp_${step}`, usage: agentsUsage, output } };
    },
  };
}
const agentsNoop = agentsTool({ name: "Noop", description: "Does nothing.", parameters: z.object({ i: z.number() }), execute: async () => "ok" });
const runner = new Runner({ tracingDisabled: true });
async function agentsSdk(steps) {
  const agent = new Agent({ name: "bench", instructions: "go", model: agentsModel(steps), tools: [agentsNoop] });
  const result = await runner.run(agent, "go", { stream: true, maxTurns: steps.length + 2 });
  for await (const _event of result) void _event;
  await result.completed;
  if (result.error) throw result.error;
  if (result.finalOutput !== "Done.") throw new Error(`Agents SDK run ended without the final text: ${String(result.finalOutput)}`);
}

// ---- Measure ----
const peers = [
  { key: "armature", title: "armature runAgent", run: armature },
  { key: "ai5", title: "AI SDK 5", run: aiSdk(ai5, MockLanguageModelV2, v2Finish) },
  { key: "ai6", title: "AI SDK 6", run: aiSdk(ai6, MockLanguageModelV3, v3Finish) },
  { key: "agents", title: "Agents SDK 0.14", run: agentsSdk },
];
const M = 100;
// `warm`: runs before any is timed. A few runs are not enough: the first ~5,000 calls through
// runAgent cost 5–15× the later ones while V8 compiles the pipeline (measured), and the peers
// have their own warm-up; every peer gets the same.
const runs = [
  { key: "text", steps: script.text, warm: 100, times: 200 },
  { key: "b1", steps: script.batch(1), warm: 100, times: 200 },
  { key: "b100", steps: script.batch(100), warm: 40, times: 40 },
  { key: "b1000", steps: script.batch(1000), warm: 5, times: 10 },
  { key: "m", steps: script.steps(M), warm: 5, times: 20 },
];
for (const p of peers) for (const r of runs) for (let i = 0; i < r.warm; i++) await p.run(r.steps);
/** Median µs of `times` runs. */
async function sample(fn, steps, times) {
  const all = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await fn(steps);
    all.push((performance.now() - t0) * 1000);
  }
  return median(all);
}
// Interleaved by run so that a change in the machine's load touches every peer alike.
const t = Object.fromEntries(peers.map((p) => [p.key, {}]));
for (const r of runs) for (const p of peers) t[p.key][r.key] = await sample(p.run, r.steps, r.times);

const rows = [
  { name: "text only, 1 step", unit: "µs", value: (x) => x.text },
  { name: `per step with 1 call (M = ${M})`, unit: "µs", value: (x) => (x.m - x.text) / M },
  { name: "1,000 calls in one step", unit: "ms", value: (x) => x.b1000 / 1000 },
  { name: "per call in a batch, (T100 − T1)/99", unit: "µs", value: (x) => (x.b100 - x.b1) / 99 },
  { name: "per call in a batch, (T1000 − T1)/999", unit: "µs", value: (x) => (x.b1000 - x.b1) / 999 },
];
const fmt = (v, unit) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${unit}`;
const others = peers.slice(1);
console.log(`| measure | ${peers.map((p) => p.title).join(" | ")} | ${others.map((p) => `armature ÷ ${p.title}`).join(" | ")} |`);
console.log(`|---|${peers.map(() => "---|").join("")}${others.map(() => "---|").join("")}`);
let ahead = true;
for (const row of rows) {
  const mine = row.value(t.armature);
  const cells = peers.map((p) => fmt(row.value(t[p.key]), row.unit));
  const ratios = others.map((p) => {
    const ratio = mine / row.value(t[p.key]);
    if (!(ratio < 1)) ahead = false;
    return `${ratio.toFixed(2)}×`;
  });
  console.log(`| ${row.name} | ${cells.join(" | ")} | ${ratios.join(" | ")} |`);
}
report({ name: "runAgent ahead of every peer on every row", value: rows.length, unit: "rows", target: "every ratio below 1", ok: ahead });
await session.close();
await rm(dir, { recursive: true, force: true });
