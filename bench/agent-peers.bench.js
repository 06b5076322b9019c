// The agent loop beside a peer (issue 25), with the same harness: a scripted model in the
// process replies with N tool calls in one step, then text; the tool does nothing. armature's
// runAgent (its pipeline: permissions, hooks, budgets, transcript) against the AI SDK 6's
// streamText with a MockLanguageModelV3 (a devDependency; no permissions, no transcript).
// The OpenAI Agents SDK is not measured: it is not a dependency of this repository.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ReadableStream } from "node:stream/web";
import { z } from "zod";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { buildTool, createSession, runAgent } from "../dist/bundle/index.js";
import { median, report } from "./util.js";

const USAGE = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
function scripted(calls) {
  let request = 0;
  return {
    name: "scripted",
    async *stream() {
      const step = request++;
      yield { type: "message_start", id: `msg_${step}`, model: "m", usage: USAGE };
      if (step > 0 || calls === 0) {
        yield { type: "text_delta", text: "Done." };
        yield { type: "block", block: { type: "text", text: "Done." } };
        yield { type: "message_end", stopReason: "end_turn", usage: USAGE };
        return;
      }
      for (let i = 0; i < calls; i++) yield { type: "block", block: { type: "tool_use", id: `toolu_${i}`, name: "Noop", input: { i } } };
      yield { type: "message_end", stopReason: "tool_use", usage: USAGE };
    },
  };
}
const noop = buildTool({ name: "Noop", description: "Does nothing.", inputSchema: z.object({ i: z.number() }), isConcurrencySafe: () => true, isReadOnly: () => true, call: async () => ({ data: "ok" }) });
const dir = await mkdtemp(join(tmpdir(), "armature-agent-peers-"));
const session = createSession({ cwd: dir, tools: [noop], sessionDir: join(dir, "s") });
async function armature(calls) {
  const t0 = performance.now();
  for await (const event of runAgent({ session, provider: scripted(calls), model: "m", prompt: "go", sessionStart: "none", sessionEnd: false })) {
    if (event.type === "result" && event.result.is_error) throw new Error(event.result.error);
  }
  return (performance.now() - t0) * 1000;
}

const v3Usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
function stream(parts) {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}
function mockModel(calls) {
  let request = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const step = request++;
      const parts = [{ type: "stream-start", warnings: [] }];
      if (step > 0 || calls === 0) {
        parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Done." }, { type: "text-end", id: "t" });
        parts.push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: v3Usage });
      } else {
        for (let i = 0; i < calls; i++) parts.push({ type: "tool-call", toolCallId: `call_${i}`, toolName: "Noop", input: JSON.stringify({ i }) });
        parts.push({ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: v3Usage });
      }
      return { stream: stream(parts) };
    },
  });
}
const aiTools = { Noop: tool({ description: "Does nothing.", inputSchema: jsonSchema({ type: "object", properties: { i: { type: "number" } }, required: ["i"] }), execute: async () => "ok" }) };
async function aiSdk(calls) {
  const t0 = performance.now();
  const result = streamText({ model: mockModel(calls), prompt: "go", tools: aiTools, stopWhen: stepCountIs(5) });
  for await (const part of result.fullStream) if (part.type === "error") throw part.error;
  return (performance.now() - t0) * 1000;
}

async function sample(fn, runs) {
  for (let i = 0; i < 3; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await fn());
  return median(times);
}
const RUNS = { 0: 200, 1: 200, 100: 40, 1000: 10 };
const rows = {};
for (const n of [0, 1, 100, 1000]) rows[n] = { armature: await sample(() => armature(n), RUNS[n]), ai: await sample(() => aiSdk(n), RUNS[n]) };
const per = (who, n) => (rows[n][who] - rows[1][who]) / (n - 1);
console.log("measure | armature runAgent | AI SDK 6 streamText");
console.log(`text only, 1 step | ${rows[0].armature.toFixed(0)} µs | ${rows[0].ai.toFixed(0)} µs`);
console.log(`1 call, then text | ${rows[1].armature.toFixed(0)} µs | ${rows[1].ai.toFixed(0)} µs`);
console.log(`1,000 calls in one step, then text | ${(rows[1000].armature / 1000).toFixed(1)} ms | ${(rows[1000].ai / 1000).toFixed(1)} ms`);
console.log(`per call, (T100 − T1)/99 | ${per("armature", 100).toFixed(1)} µs | ${per("ai", 100).toFixed(1)} µs`);
console.log(`per call, (T1000 − T1)/999 | ${per("armature", 1000).toFixed(1)} µs | ${per("ai", 1000).toFixed(1)} µs`);
report({ name: "runAgent per call at 1,000 beside the AI SDK 6", value: per("armature", 1000), unit: "µs", baseline: per("ai", 1000), baselineName: "AI SDK 6 per call", target: "below the peer", ok: per("armature", 1000) < per("ai", 1000) });
await session.close();
await rm(dir, { recursive: true, force: true });
