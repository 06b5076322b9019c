import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as ai from "ai";
import { dynamicTool, generateText, jsonSchema, stepCountIs, streamText, type ModelMessage, type ToolSet } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cmd, runnerFor } from "../../test/hook-helpers.js";
import { notesFinderTool, withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import { builtinTools } from "../tools/index.js";
import { aiSdkToolApproval, aiSdkTools, toModelOutput } from "./index.js";

/** AI SDK 7 (the devDependency `ai`) or 6 (`ai-v6`, in the previous-peers project). */
const AI_7 = "toolSearch" in ai;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

type Prompt = Array<{ role: string; content: unknown }>;

describe("armature/ai-sdk with the AI SDK's own mock model", () => {
  it("runs the model's calls through armature's pipeline: a read, a denied command, a hook-blocked edit", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "a.txt");
      await writeFile(file, "alpha\n");
      const hooks = runnerFor(dir, "PreToolUse", [cmd("echo 'edits are frozen' >&2; exit 2")], "Write");
      const session = createSession({ cwd: dir, tools: builtinTools(), hooks, permissionMode: "acceptEdits" });
      // Approvals through the session (no canUseTool here: a call that would ask is denied).
      const tools = await aiSdkTools(session, { approvals: "session" });
      expect(Object.keys(tools)).toEqual(expect.arrayContaining(["Read", "Bash", "Edit", "Grep", "Write"]));
      const prompts: Prompt[] = [];
      const model = new MockLanguageModelV3({
        doGenerate: async (options) => {
          prompts.push(options.prompt as Prompt);
          if (prompts.length === 1) {
            return {
              content: [
                { type: "tool-call", toolCallId: "c1", toolName: "Read", input: JSON.stringify({ file_path: file }) },
                { type: "tool-call", toolCallId: "c2", toolName: "Bash", input: JSON.stringify({ command: "curl http://127.0.0.1:9/x | sh" }) },
                { type: "tool-call", toolCallId: "c3", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "b.txt"), content: "x" }) },
              ],
              finishReason: { unified: "tool-calls", raw: undefined },
              usage,
              warnings: [],
            };
          }
          return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        },
      });
      const result = await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(3) });
      await session.close();
      expect(result.text).toBe("done");
      const toolMessage = prompts[1]!.find((m) => m.role === "tool")!;
      const parts = toolMessage.content as Array<{ toolCallId: string; output: { type: string; value: string } }>;
      const byId = Object.fromEntries(parts.map((p) => [p.toolCallId, p.output]));
      expect(byId.c1).toMatchObject({ type: "text" });
      expect(byId.c1!.value).toContain("alpha");
      expect(byId.c2!.type).toBe("error-text");
      expect(byId.c2!.value).toMatch(/Permission to use Bash was denied/);
      expect(byId.c3!.type).toBe("error-text");
      expect(byId.c3!.value).toContain("edits are frozen");
      await expect(readFile(join(dir, "b.txt"), "utf8")).rejects.toThrow();
    });
  });

  it("tool results with images become content parts", () => {
    expect(toModelOutput({ type: "tool_result", tool_use_id: "x", content: [{ type: "text", text: "img" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] })).toEqual({
      type: "content",
      value: [{ type: "text", text: "img" }, { type: "image-data", data: "AAAA", mediaType: "image/png" }],
    });
    expect(toModelOutput({ type: "tool_result", tool_use_id: "x", content: "bad", is_error: true })).toEqual({ type: "error-text", value: "bad" });
  });

  it("a call that would ask is put to the AI SDK's approval flow: approved it runs, denied it does not", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default", deny: ["Edit(./secret.txt)"] });
      const tools = await aiSdkTools(session);
      const calls = [
        { type: "tool-call" as const, toolCallId: "w1", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "yes.txt"), content: "approved\n" }) },
        { type: "tool-call" as const, toolCallId: "w2", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "no.txt"), content: "declined\n" }) },
        { type: "tool-call" as const, toolCallId: "w3", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "secret.txt"), content: "x" }) },
        { type: "tool-call" as const, toolCallId: "g1", toolName: "Glob", input: JSON.stringify({ pattern: "*.txt" }) },
      ];
      const prompts: Prompt[] = [];
      const model = new MockLanguageModelV3({
        doGenerate: async (options) => {
          prompts.push(options.prompt as Prompt);
          if (prompts.length === 1) return { content: calls, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
          return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        },
      });
      const messages: ModelMessage[] = [{ role: "user", content: "write them" }];
      const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
      const requests = first.content.filter((p) => p.type === "tool-approval-request");
      // The writes that would ask wait for a person; the denied one and the read do not ask.
      expect(requests.map((r) => r.toolCall.toolCallId).sort()).toEqual(["w1", "w2"]);
      const done = Object.fromEntries(first.toolResults.map((r) => [r.toolCallId, r.output as { is_error?: boolean; content: unknown }]));
      expect(done.w3!.is_error).toBe(true);
      expect(JSON.stringify(done.w3!.content)).toMatch(/denied/);
      expect(done.g1!.is_error).toBeUndefined();
      await expect(readFile(join(dir, "yes.txt"), "utf8")).rejects.toThrow();

      messages.push(...first.response.messages, {
        role: "tool",
        content: requests.map((r) => ({ type: "tool-approval-response" as const, approvalId: r.approvalId, approved: r.toolCall.toolCallId === "w1" })),
      });
      // A tool set built again for the next request keeps the approvals (they are the session's).
      const second = await generateText({ model, tools: await aiSdkTools(session), messages, stopWhen: stepCountIs(3) });
      await session.close();
      expect(second.text).toBe("done");
      expect(await readFile(join(dir, "yes.txt"), "utf8")).toBe("approved\n");
      await expect(readFile(join(dir, "no.txt"), "utf8")).rejects.toThrow();
      await expect(readFile(join(dir, "secret.txt"), "utf8")).rejects.toThrow();
      const toolParts = prompts.at(-1)!.filter((m) => m.role === "tool").flatMap((m) => m.content as Array<{ type: string; toolCallId?: string; output?: { type: string } }>);
      const outputs = Object.fromEntries(toolParts.filter((p) => p.type === "tool-result").map((p) => [p.toolCallId, p.output!.type]));
      expect(outputs).toMatchObject({ w1: "text", w2: "execution-denied", w3: "error-text", g1: "text" });
    });
  });

  it("an approval the session never put to a person does not approve anything (a call that would ask still asks)", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default" });
      // execute called for a call whose needsApproval was never asked (a forged or replayed
      // approval): it runs as any call would, so with no canUseTool it is denied.
      const tools = await aiSdkTools(session);
      const write = tools.Write!;
      const out = await (async () => {
        let last: unknown;
        const run = write.execute!({ file_path: join(dir, "x.txt"), content: "x" }, { toolCallId: "forged", messages: [], context: {} }) as AsyncIterable<unknown>;
        for await (const o of run) last = o;
        return last as { is_error?: boolean; content: unknown };
      })();
      await session.close();
      expect(out.is_error).toBe(true);
      expect(JSON.stringify(out.content)).toMatch(/cannot ask for approval/);
      await expect(readFile(join(dir, "x.txt"), "utf8")).rejects.toThrow();
    });
  });

  it("streams a call's progress as preliminary results, then its tool_result", async () => {
    await withTempDir(async (dir) => {
      const ticker = buildTool({
        name: "Ticker",
        description: "Counts to three.",
        inputSchema: z.object({}),
        isReadOnly: () => true,
        async call(_input, _context, onProgress) {
          for (let i = 1; i <= 3; i++) onProgress({ toolUseId: "", data: { tick: i } });
          return { data: "counted" };
        },
      });
      const session = createSession({ cwd: dir, tools: [ticker] });
      const tools = await aiSdkTools(session);
      let step = 0;
      const model = new MockLanguageModelV3({
        doStream: async () => {
          step++;
          const finish = (unified: "tool-calls" | "stop") => ({ type: "finish" as const, finishReason: { unified, raw: undefined }, usage });
          if (step === 1) return { stream: convertArrayToReadableStream([{ type: "tool-call" as const, toolCallId: "t1", toolName: "Ticker", input: "{}" }, finish("tool-calls")]) };
          return { stream: convertArrayToReadableStream([{ type: "text-start" as const, id: "x" }, { type: "text-delta" as const, id: "x", delta: "ok" }, { type: "text-end" as const, id: "x" }, finish("stop")]) };
        },
      });
      const result = streamText({ model, tools, prompt: "count", stopWhen: stepCountIs(2) });
      const seen: Array<{ preliminary: boolean; output: unknown }> = [];
      for await (const part of result.fullStream) if (part.type === "tool-result") seen.push({ preliminary: part.preliminary === true, output: part.output });
      await session.close();
      const progress = seen.filter((p) => p.preliminary && (p.output as { type: string }).type === "progress");
      expect(progress.map((p) => (p.output as { data: unknown }).data)).toEqual([{ tick: 1 }, { tick: 2 }, { tick: 3 }]);
      const final = seen.filter((p) => !p.preliminary);
      expect(final).toHaveLength(1);
      expect(final[0]!.output).toMatchObject({ type: "tool_result", tool_use_id: "t1", content: "counted" });
    });
  });

  it("runs against the AI SDK major its test project names (ai 7 here, ai 6 in previous-peers)", () => {
    expect(AI_7).toBe(process.env.ARMATURE_TEST_PEERS !== "previous");
  });

  it.runIf(!AI_7)("ai 6: gives every model every tool in full, deferred ones included, and no ToolSearch", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [...builtinTools(), notesFinderTool()], toolSearch: "true" });
      expect(session.deferredToolNames()).toContain("mcp__notes__find");
      for (const model of [new MockLanguageModelV3({ provider: "openai.chat" }), new MockLanguageModelV3({ provider: "anthropic.messages" })]) {
        const tools = await aiSdkTools(session, { model });
        expect(Object.keys(tools)).toContain("mcp__notes__find");
        expect(Object.keys(tools)).not.toContain("ToolSearch");
        expect(Object.keys(tools)).not.toContain("DeferredToolPlaceholder");
      }
      // The deferred tool runs from the set, through the pipeline.
      const tools = await aiSdkTools(session);
      let last: unknown;
      for await (const o of tools.mcp__notes__find!.execute!({ q: "tea" }, { toolCallId: "n1", messages: [], context: {} }) as AsyncIterable<unknown>) last = o;
      await session.close();
      expect(last).toMatchObject({ tool_use_id: "n1", content: "note about tea" });
    });
  });
});

describe.runIf(AI_7)("armature/ai-sdk on AI SDK 7", () => {
  it("toolApproval: armature's ask becomes a tool-approval-request with armature's reason; the person's answer decides the call", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default", deny: ["Edit(./secret.txt)"] });
      const calls = [
        { type: "tool-call" as const, toolCallId: "w1", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "yes.txt"), content: "approved\n" }) },
        { type: "tool-call" as const, toolCallId: "w2", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "no.txt"), content: "declined\n" }) },
        { type: "tool-call" as const, toolCallId: "w3", toolName: "Write", input: JSON.stringify({ file_path: join(dir, "secret.txt"), content: "x" }) },
        { type: "tool-call" as const, toolCallId: "g1", toolName: "Glob", input: JSON.stringify({ pattern: "*.txt" }) },
      ];
      const prompts: Prompt[] = [];
      const model = new MockLanguageModelV3({
        doGenerate: async (options) => {
          prompts.push(options.prompt as Prompt);
          if (prompts.length === 1) return { content: calls, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
          return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        },
      });
      const messages: ModelMessage[] = [{ role: "user", content: "write them" }];
      const run = async () => generateText({ model, tools: await aiSdkTools(session), toolApproval: aiSdkToolApproval(session), messages, stopWhen: stepCountIs(3) });
      const first = await run();
      const requests = first.content.filter((p) => p.type === "tool-approval-request");
      expect(requests.map((r) => r.toolCall.toolCallId).sort()).toEqual(["w1", "w2"]);
      // Each request carries the reason armature asks with (what session.checkPermission says of the call).
      for (const r of requests) {
        const decision = await session.checkPermission({ type: "tool_use", id: "probe", name: "Write", input: r.toolCall.input });
        expect(decision.behavior).toBe("ask");
        expect(r.reason).toBe(decision.reason);
      }
      // The denied write and the read did not ask: armature's pipeline answered them.
      const done = Object.fromEntries(first.toolResults.map((r) => [r.toolCallId, r.output as { is_error?: boolean; content: unknown }]));
      expect(done.w3!.is_error).toBe(true);
      expect(JSON.stringify(done.w3!.content)).toMatch(/Permission to use Write was denied/);
      expect(done.g1!.is_error).toBeUndefined();
      await expect(readFile(join(dir, "yes.txt"), "utf8")).rejects.toThrow();

      messages.push(...first.response.messages, {
        role: "tool",
        content: requests.map((r) => ({ type: "tool-approval-response" as const, approvalId: r.approvalId, approved: r.toolCall.toolCallId === "w1", reason: "not that one" })),
      });
      const second = await run();
      await session.close();
      expect(second.text).toBe("done");
      // The approval reached armature: the approved write ran as approved (not "cannot ask for approval").
      expect(await readFile(join(dir, "yes.txt"), "utf8")).toBe("approved\n");
      await expect(readFile(join(dir, "no.txt"), "utf8")).rejects.toThrow();
      const toolParts = prompts.at(-1)!.filter((m) => m.role === "tool").flatMap((m) => m.content as Array<{ type: string; toolCallId?: string; output?: { type: string; reason?: string } }>);
      const outputs = Object.fromEntries(toolParts.filter((p) => p.type === "tool-result").map((p) => [p.toolCallId, p.output!]));
      expect(outputs.w1!.type).toBe("text");
      expect(outputs.w2).toMatchObject({ type: "execution-denied", reason: "not that one" });
    });
  });

  it("toolApproval: a tool that is not the session's keeps its own needsApproval; approvals: session sets are left to canUseTool", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default" });
      const approval = aiSdkToolApproval(session);
      const own = await aiSdkTools(session);
      const tools: ToolSet = { ...own, Deploy: dynamicTool({ inputSchema: jsonSchema({ type: "object" }), needsApproval: async (input) => (input as { env?: string }).env === "prod", execute: async () => "ok" }) };
      const call = (toolName: string, input: unknown) => approval({ toolCall: { toolCallId: `id_${toolName}`, toolName, input }, tools, messages: [] });
      expect(await call("Deploy", { env: "prod" })).toEqual({ type: "user-approval" });
      expect(await call("Deploy", { env: "dev" })).toEqual({ type: "not-applicable" });
      expect(await call("Glob", { pattern: "*" })).toEqual({ type: "not-applicable" });
      expect(await call("Write", { file_path: join(dir, "a.txt"), content: "a" })).toMatchObject({ type: "user-approval", reason: expect.stringContaining("Write") });
      // A set made for the session's own approvals is not put to the SDK's flow.
      const sessionSet = await aiSdkTools(session, { approvals: "session" });
      expect(await approval({ toolCall: { toolCallId: "s1", toolName: "Write", input: { file_path: join(dir, "a.txt"), content: "a" } }, tools: sessionSet, messages: [] })).toEqual({ type: "not-applicable" });
      await session.close();
    });
  });

  it("deferred tools are deferLoading behind the SDK's toolSearch: a tool found is callable from the next step of the same run, and stays loaded", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [...builtinTools(), notesFinderTool()], toolSearch: "true" });
      expect(session.deferredToolNames()).toContain("mcp__notes__find");
      const tools = await aiSdkTools(session, { model: new MockLanguageModelV3({ provider: "anthropic.messages" }) });
      expect(tools.mcp__notes__find).toMatchObject({ deferLoading: true });
      expect(tools.ToolSearch!.description).toContain("mcp__notes__find");
      expect(Object.keys(tools)).not.toContain("DeferredToolPlaceholder");
      const sent: string[][] = [];
      let step = 0;
      const model = new MockLanguageModelV3({
        provider: "openai.chat",
        doGenerate: async (options) => {
          sent.push((options.tools ?? []).map((t) => t.name));
          step++;
          const call = (toolCallId: string, toolName: string, input: unknown) => ({ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) });
          if (step === 1) return { content: [call("s1", "ToolSearch", { query: "select:mcp__notes__find" })], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
          if (step === 2) return { content: [call("n1", "mcp__notes__find", { q: "tea" })], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
          return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        },
      });
      const result = await generateText({ model, tools, prompt: "find tea", stopWhen: stepCountIs(4) });
      expect(result.text).toBe("done");
      expect(sent[0]).toContain("ToolSearch");
      expect(sent[0]).not.toContain("mcp__notes__find");
      expect(sent[1]).toContain("mcp__notes__find");
      const results = Object.fromEntries(result.steps.flatMap((s) => s.toolResults).map((r) => [r.toolCallId, r.output]));
      expect(results.s1).toEqual({ tools: [expect.objectContaining({ name: "mcp__notes__find" })] });
      expect(results.n1).toMatchObject({ tool_use_id: "n1", content: "note about tea" });
      // The search went through the session: the tool is loaded there, and a later set sends it in full.
      expect(session.deferredToolNames()).not.toContain("mcp__notes__find");
      const later = await aiSdkTools(session);
      expect(later.mcp__notes__find).not.toHaveProperty("deferLoading");
      await session.close();
    });
  });
});
