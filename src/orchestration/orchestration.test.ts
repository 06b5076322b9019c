import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../tool/build-tool.js";
import { createToolUseContext } from "../tool/context.js";
import { prepareTurn } from "../pipeline/prepare.js";
import { defaultPipelineServices } from "../pipeline/run-tool-use.js";
import { createSession } from "../session/session.js";
import { sleepTool, toolUse } from "../../test/helpers.js";
import { partitionToolCalls } from "./partition.js";
import { StreamingToolExecutor, type ExecutorEvent } from "./streaming-executor.js";
import { resolveMaxConcurrency } from "./concurrency.js";
import { AsyncQueue } from "./async-queue.js";
import type { Tool, ToolUseBlock } from "../tool/types.js";

/** A tool whose safety depends on its input, and that records start/end order. */
function recorder(log: string[]): Tool {
  return buildTool({
    name: "Rec",
    description: "Records.",
    inputSchema: z.object({ id: z.string(), safe: z.boolean(), ms: z.number().default(10), fail: z.boolean().optional() }),
    isConcurrencySafe: (input) => input.safe,
    isReadOnly: () => true,
    abortsSiblingsOnError: () => true,
    async call(input, context) {
      log.push(`start ${input.id}`);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, input.ms);
        context.abortController.signal.addEventListener("abort", () => {
          clearTimeout(t);
          log.push(`aborted ${input.id}`);
          reject(new Error("aborted"));
        }, { once: true });
      });
      log.push(`end ${input.id}`);
      if (input.fail) throw new Error(`${input.id} failed`);
      return {
        data: input.id,
        contextModifier: (ctx) => ({ ...ctx, messages: [...ctx.messages, { role: "user" as const, content: `mod ${input.id}` }] }),
      };
    },
  });
}

const rec = (id: string, safe: boolean, ms = 10, fail = false): ToolUseBlock => toolUse("Rec", { id, safe, ms, fail }, id);

describe("partitionToolCalls", () => {
  const ctx = createToolUseContext({ cwd: process.cwd(), tools: [recorder([])] });
  const shape = (blocks: ToolUseBlock[]) =>
    partitionToolCalls(prepareTurn(blocks, ctx)).map((b) => `${b.concurrent ? "C" : "S"}[${b.calls.map((c) => c.block.id).join(",")}]`);

  it.each([
    { name: "all safe → one batch", blocks: [rec("a", true), rec("b", true), rec("c", true)], want: ["C[a,b,c]"] },
    { name: "unsafe each alone", blocks: [rec("a", false), rec("b", false)], want: ["S[a]", "S[b]"] },
    { name: "safe runs split by unsafe", blocks: [rec("a", true), rec("b", true), rec("c", false), rec("d", true)], want: ["C[a,b]", "S[c]", "C[d]"] },
    { name: "unparseable input is unsafe", blocks: [rec("a", true), toolUse("Rec", { id: 1 }, "x"), rec("b", true)], want: ["C[a]", "S[x]", "C[b]"] },
    { name: "unknown tool is unsafe", blocks: [rec("a", true), toolUse("Nope", {}, "n"), rec("b", true)], want: ["C[a]", "S[n]", "C[b]"] },
  ])("$name", ({ blocks, want }) => {
    expect(shape(blocks)).toEqual(want);
  });

  it("a tool whose isConcurrencySafe throws is serial", () => {
    const bad = buildTool({ name: "Bad", description: "", inputSchema: z.object({}), isConcurrencySafe: () => { throw new Error("x"); }, call: async () => ({ data: "" }) });
    const c = createToolUseContext({ cwd: process.cwd(), tools: [bad] });
    expect(prepareTurn([toolUse("Bad", {}, "a")], c)[0]!.concurrencySafe).toBe(false);
  });
});

describe("runTurn", () => {
  it("runs safe calls concurrently and returns results in tool_use order", async () => {
    const s = createSession({ cwd: process.cwd(), tools: [sleepTool()] });
    const blocks = [60, 10, 30].map((ms, i) => toolUse("Sleep", { ms, text: `r${i}` }, `id${i}`));
    const t0 = Date.now();
    const results = await s.runTurn(blocks);
    expect(Date.now() - t0).toBeLessThan(170); // serial would be ≥ 100; generous bound only against serialisation
    expect(results.map((r) => r.content)).toEqual(["r0", "r1", "r2"]);
    await s.close();
  });

  it("respects the concurrency cap", async () => {
    let running = 0;
    let peak = 0;
    const probe = buildTool({
      name: "Probe", description: "", inputSchema: z.object({}), isConcurrencySafe: () => true, isReadOnly: () => true,
      async call() {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return { data: "" };
      },
    });
    const s = createSession({ cwd: process.cwd(), tools: [probe], maxConcurrency: 3 });
    await s.runTurn(Array.from({ length: 12 }, (_, i) => toolUse("Probe", {}, `p${i}`)));
    expect(peak).toBe(3);
    await s.close();
  });

  it("applies context modifiers of a concurrent batch in order, after the batch; serial ones before the next call", async () => {
    const log: string[] = [];
    const s = createSession({ cwd: process.cwd(), tools: [recorder(log)] });
    await s.runTurn([rec("a", true, 30), rec("b", true, 5), rec("c", false, 5)]);
    expect(s.context.messages.map((m) => m.content)).toEqual(["mod a", "mod b", "mod c"]);
    expect(log.indexOf("start c")).toBeGreaterThan(log.indexOf("end a"));
    await s.close();
  });

  it("the cap comes from ARMATURE_MAX_TOOL_CONCURRENCY when no option is given", () => {
    expect(resolveMaxConcurrency(undefined, { ARMATURE_MAX_TOOL_CONCURRENCY: "4" })).toBe(4);
    expect(resolveMaxConcurrency(undefined, { ARMATURE_MAX_TOOL_CONCURRENCY: "zero" })).toBe(10);
    expect(resolveMaxConcurrency(2, { ARMATURE_MAX_TOOL_CONCURRENCY: "4" })).toBe(2);
    expect(() => resolveMaxConcurrency(0)).toThrow(RangeError);
  });
});

const tick = () => new Promise((r) => setTimeout(r, 2));

async function collect(events: AsyncIterable<ExecutorEvent>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of events) if (e.type === "result") out.push(`${e.outcome.block.tool_use_id}:${e.outcome.isError ? "err" : "ok"}`);
  return out;
}

describe("StreamingToolExecutor", () => {
  function executor(log: string[], options: { abortSiblingsOnError?: boolean } = {}) {
    const ctx = createToolUseContext({ cwd: process.cwd(), tools: [recorder(log)] });
    return new StreamingToolExecutor(ctx, defaultPipelineServices(), { maxConcurrency: 10, ...options });
  }

  it("starts a safe call at once, blocks behind an unsafe one, releases in order", async () => {
    const log: string[] = [];
    const ex = executor(log);
    const results = collect(ex.events());
    ex.addTool(rec("a", true, 300));
    await tick();
    expect(log).toEqual(["start a"]);
    ex.addTool(rec("b", true, 200));
    await tick();
    expect(log).toEqual(["start a", "start b"]);
    ex.addTool(rec("c", false, 5)); // waits for a and b
    ex.addTool(rec("d", true, 5)); // waits behind c
    await tick();
    expect(log).toEqual(["start a", "start b"]);
    ex.done();
    expect(await results).toEqual(["a:ok", "b:ok", "c:ok", "d:ok"]);
    expect(log.indexOf("start c")).toBeGreaterThan(log.indexOf("end a"));
    expect(log.indexOf("start d")).toBeGreaterThan(log.indexOf("end c"));
  });

  it("a failing shell-like call aborts running siblings and cancels queued ones", async () => {
    const log: string[] = [];
    const ex = executor(log);
    const results = collect(ex.events());
    ex.addTool(rec("slow", true, 500));
    ex.addTool(rec("bad", true, 5, true));
    ex.addTool(rec("after", false, 5));
    ex.done();
    expect(await results).toEqual(["slow:err", "bad:err", "after:err"]);
    expect(log).toContain("aborted slow");
    expect(log).not.toContain("start after");
  });

  it("sibling abort can be turned off", async () => {
    const log: string[] = [];
    const ex = executor(log, { abortSiblingsOnError: false });
    const results = collect(ex.events());
    ex.addTool(rec("slow", true, 30));
    ex.addTool(rec("bad", true, 5, true));
    ex.done();
    expect(await results).toEqual(["slow:ok", "bad:err"]);
  });

  it("discard() stops running calls and ends the stream", async () => {
    const log: string[] = [];
    const ex = executor(log);
    const results = collect(ex.events());
    ex.addTool(rec("a", true, 1000));
    await tick();
    ex.discard();
    expect(await results).toEqual([]);
    await tick();
    expect(log).toContain("aborted a");
  });

  it("with ownsController, calls share the context's controller: a failure aborts it, a finished turn's discard does not", async () => {
    const run = async (blocks: ToolUseBlock[]) => {
      const log: string[] = [];
      const ctx = createToolUseContext({ cwd: process.cwd(), tools: [recorder(log)] });
      const ex = new StreamingToolExecutor(ctx, defaultPipelineServices(), { maxConcurrency: 10, ownsController: true });
      const results = collect(ex.events());
      for (const b of blocks) ex.addTool(b);
      ex.done();
      const out = await results;
      ex.discard();
      return { out, log, aborted: ctx.abortController.signal.aborted };
    };
    const clean = await run([rec("a", true, 5), rec("b", true, 5)]);
    expect(clean.out).toEqual(["a:ok", "b:ok"]);
    expect(clean.aborted).toBe(false);
    const failed = await run([rec("slow", true, 500), rec("bad", true, 5, true), rec("after", false, 5)]);
    expect(failed.out).toEqual(["slow:err", "bad:err", "after:err"]);
    expect(failed.log).toContain("aborted slow");
    expect(failed.aborted).toBe(true);
  });

  it("session.stream forwards progress and results as blocks arrive", async () => {
    const chatty = buildTool({
      name: "Chatty", description: "", inputSchema: z.object({}), isConcurrencySafe: () => true, isReadOnly: () => true,
      async call(_input, _ctx, onProgress) {
        onProgress({ toolUseId: "", data: "half" });
        return { data: "done" };
      },
    });
    const s = createSession({ cwd: process.cwd(), tools: [chatty] });
    async function* blocks() {
      yield toolUse("Chatty", {}, "x");
      await new Promise((r) => setTimeout(r, 10));
      yield toolUse("Chatty", {}, "y");
    }
    const events: string[] = [];
    for await (const e of s.stream(blocks())) events.push(e.type === "progress" ? `progress ${e.toolUseId} ${String(e.data)}` : `result ${e.result.tool_use_id}`);
    expect(events).toEqual(["progress x half", "result x", "progress y half", "result y"]);
    await s.close();
  });
});

describe("abort listeners do not pile up", () => {
  it("a long session keeps no listener per finished turn or call", async () => {
    const s = createSession({ cwd: process.cwd(), tools: [sleepTool()] });
    const root = s.context.abortController.signal;
    const before = getEventListeners(root, "abort").length;
    const external = new AbortController();
    for (let i = 0; i < 20; i++) await s.runTurn([toolUse("Sleep", { ms: 0 }, `a${i}`), toolUse("Sleep", { ms: 0 }, `b${i}`)], { signal: external.signal });
    for (let i = 0; i < 20; i++) await s.runTurn([toolUse("Sleep", { ms: 0 }, `c${i}`), toolUse("Sleep", { ms: 0 }, `d${i}`)]);
    async function* one() {
      yield toolUse("Sleep", { ms: 0 }, "s");
    }
    for (let i = 0; i < 5; i++) for await (const _e of s.stream(one())) void _e;
    // At most one: the last turn's controller, kept for the next turn.
    expect(getEventListeners(root, "abort").length).toBeLessThanOrEqual(before + 1);
    expect(getEventListeners(external.signal, "abort").length).toBe(0);
    await s.close();
  });

  it("a turn's controller is used again only when nothing of that turn still listens to it", async () => {
    const seen: AbortController[] = [];
    const leftover = (): void => {};
    const probe = buildTool({
      name: "Probe",
      description: "Records the call's controller; may leave a listener on it.",
      inputSchema: z.object({ leave: z.boolean() }),
      isReadOnly: () => true,
      call: async ({ leave }, context) => {
        seen.push(context.abortController);
        if (leave) context.abortController.signal.addEventListener("abort", leftover);
        return { data: "ok" };
      },
    });
    const s = createSession({ cwd: process.cwd(), tools: [probe] });
    await s.runTurn([toolUse("Probe", { leave: false }, "a")]);
    await s.runTurn([toolUse("Probe", { leave: true }, "b")]);
    await s.runTurn([toolUse("Probe", { leave: false }, "c")]);
    const own = new AbortController();
    await s.runTurn([toolUse("Probe", { leave: false }, "d")], { signal: own.signal });
    expect(getEventListeners(own.signal, "abort")).toHaveLength(0); // unlinked at the turn's end
    own.abort(new Error("late")); // an abort after the turn reaches nothing of it
    expect(seen[3]!.signal.aborted).toBe(false);
    await s.runTurn([toolUse("Probe", { leave: false }, "e")]);
    const aborted = new AbortController();
    aborted.abort(new Error("stopped"));
    await s.runTurn([toolUse("Probe", { leave: false }, "f")], { signal: aborted.signal });
    await s.runTurn([toolUse("Probe", { leave: false }, "g")]);
    expect(seen[1]).toBe(seen[0]); // a clean turn's controller serves the next turn
    expect(seen[2]).not.toBe(seen[1]); // b left a listener: c gets a fresh one
    expect(seen[3]).toBe(seen[2]); // a turn with its own signal links it for the turn only
    expect(seen[4]).toBe(seen[3]);
    // f's signal was aborted before it began: its call did not run, the controller it was given
    // (the kept one) is aborted with it and not kept; g gets a fresh one.
    expect(seen).toHaveLength(6);
    expect(seen[4]!.signal.aborted).toBe(true);
    expect(seen[5]).not.toBe(seen[4]);
    expect(seen[5]!.signal.aborted).toBe(false);
    const kept = seen[5]!;
    await s.close();
    expect(kept.signal.aborted).toBe(true); // closing the session aborts the kept controller too
  });
});

describe("AsyncQueue", () => {
  const drain = async (q: AsyncQueue<number>): Promise<{ got: number[]; error?: string }> => {
    const got: number[] = [];
    try {
      for await (const v of q) got.push(v);
    } catch (err) {
      return { got, error: (err as Error).message };
    }
    return { got };
  };

  it("fail() ends the queue with the error after the items pushed before it, for a waiting or a late consumer", async () => {
    const waiting = new AsyncQueue<number>();
    const drained = drain(waiting);
    waiting.push(1);
    await tick();
    waiting.fail(new Error("cut"));
    waiting.push(2); // after the end: dropped
    expect(await drained).toEqual({ got: [1], error: "cut" });

    const late = new AsyncQueue<number>();
    late.push(1);
    late.push(2);
    late.fail(new Error("cut"));
    expect(await drain(late)).toEqual({ got: [1, 2], error: "cut" });
  });

  it("close() then fail(): the first end wins", async () => {
    const q = new AsyncQueue<number>();
    q.push(1);
    q.close();
    q.fail(new Error("too late"));
    expect(await drain(q)).toEqual({ got: [1] });
  });
});
