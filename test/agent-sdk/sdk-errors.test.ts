// How a run ends, as SDK programs see it (both pinned SDK releases): an error result makes the
// process exit non-zero, so query() throws "Claude Code returned an error result" and the
// program's catch runs; an API error reads as the reference's synthetic assistant message;
// denials by hooks and interrupt-denies are listed; nothing reaches the model after SIGTERM.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, chatReply, responsesReply, startMockModelServer, type MockModelServer, type ScriptedResponse } from "../mock-model-server.js";
import { runQuery, SDK_VERSIONS, sdkEnv, sdkWorkspace } from "./sdk-helpers.js";

let server: MockModelServer | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.close();
  await cleanup?.();
  server = undefined;
  cleanup = undefined;
});

async function setup(script: Parameters<typeof startMockModelServer>[0]) {
  const ws = await sdkWorkspace();
  cleanup = ws.cleanup;
  server = await startMockModelServer(script);
  const env = sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" });
  return { ...ws, env, server };
}

const text = (t: string) => anthropicReply([{ type: "text", text: t }]);
const bypass = { permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true } as const;

describe.each(SDK_VERSIONS)("SDK %s: error results", (sdk) => {
  it("max turns: the error result, then query() throws", async () => {
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_g", name: "Glob", input: { pattern: "*" } }]), text("never")]);
    const run = await runQuery("loop", { cwd: ctx.cwd, env: ctx.env, maxTurns: 1 }, undefined, sdk);
    expect(run.result).toMatchObject({ subtype: "error_max_turns", is_error: true });
    expect(run.error?.message).toMatch(/^Claude Code returned an error result: /);
    expect(ctx.server.requests).toHaveLength(1);
  });

  it("budget: the reply that passes maxBudgetUsd has its tool calls refused, not run; query() throws", async () => {
    const ctx = await setup([]);
    const marker = join(ctx.cwd, "marker");
    // 100 input + 10 output tokens of Sonnet 4.5 cost $0.00045: over a budget of $0.0001.
    ctx.server.push(anthropicReply([{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: `touch ${marker}` } }]), text("never"));
    const run = await runQuery("go", { cwd: ctx.cwd, env: ctx.env, model: "claude-sonnet-4-5", maxBudgetUsd: 0.0001, ...bypass }, undefined, sdk);
    expect(run.result).toMatchObject({ subtype: "error_max_budget_usd", is_error: true });
    expect(existsSync(marker)).toBe(false);
    expect(ctx.server.requests).toHaveLength(1);
    expect(run.error?.message).toMatch(/^Claude Code returned an error result: /);
  });

  it("HTTP 400: a synthetic API Error assistant message, a success result with is_error, query() throws with it", async () => {
    const body = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } });
    const ctx = await setup([{ status: 400, body }]);
    const run = await runQuery("hi", { cwd: ctx.cwd, env: ctx.env }, undefined, sdk);
    const assistant = run.messages.filter((m) => m.type === "assistant");
    expect(assistant).toHaveLength(1);
    const said = JSON.stringify((assistant[0] as { message: { content: unknown } }).message.content);
    expect(said).toContain("API Error: 400");
    expect(said).toContain("prompt is too long");
    expect(run.result).toMatchObject({ subtype: "success", is_error: true, api_error_status: 400 });
    expect((run.result as { result: string }).result).toMatch(/^API Error: 400 /);
    expect(run.error?.message).toContain("Claude Code returned an error result: API Error: 400");
  });

  it("a PreToolUse hook's block is listed in permission_denials", async () => {
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_h", name: "Bash", input: { command: "echo hi" } }]), text("blocked")]);
    const run = await runQuery(
      "go",
      {
        cwd: ctx.cwd,
        env: ctx.env,
        ...bypass,
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no shell" } })] }] },
      },
      undefined,
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.result?.permission_denials).toEqual([expect.objectContaining({ tool_name: "Bash", tool_use_id: "toolu_h", tool_input: { command: "echo hi" } })]);
  });

  it("canUseTool deny with interrupt: listed in permission_denials, the run ends with an error, query() throws", async () => {
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_i", name: "Write", input: { file_path: "/tmp/never-written-by-armature-test", content: "x" } }]), text("never")]);
    const run = await runQuery("go", { cwd: ctx.cwd, env: ctx.env, canUseTool: async () => ({ behavior: "deny", message: "stop everything", interrupt: true }) }, undefined, sdk);
    expect(run.result?.is_error).toBe(true);
    expect(run.result?.permission_denials.map((d) => d.tool_use_id)).toEqual(["toolu_i"]);
    expect(run.error?.message).toMatch(/^Claude Code returned an error result: /);
    expect(ctx.server.requests).toHaveLength(1);
  });

  it("abort (the SDK's SIGTERM) during a tool call: no further model request", async () => {
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_s", name: "Bash", input: { command: "sleep 20" } }]), text("too late")]);
    const abortController = new AbortController();
    const started = Date.now();
    const run = await runQuery("go", { cwd: ctx.cwd, env: ctx.env, abortController, ...bypass }, (m) => {
      if (m.type === "assistant" && JSON.stringify(m.message.content).includes("sleep 20")) setTimeout(() => abortController.abort(), 300);
    }, sdk);
    expect(run.error).toBeDefined();
    // Give a process that outlived the abort the time to make its request.
    await new Promise((r) => setTimeout(r, 1500));
    expect(ctx.server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

/** The OpenAI-compatible providers: the same error paths through their SDK's errors and streams. */
const OPENAI_PROVIDERS: Array<[string, (calls: Array<{ id: string; name: string; arguments: string }>) => ScriptedResponse]> = [
  ["openai", (toolCalls) => chatReply({ toolCalls, usage: { prompt_tokens: 100_000, completion_tokens: 10 } })],
  ["openai-responses", (toolCalls) => responsesReply({ calls: toolCalls.map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments })), usage: { input_tokens: 100_000, output_tokens: 10 } })],
];

describe.each(SDK_VERSIONS)("SDK %s: error results from OpenAI-compatible providers", (sdk) => {
  it.each(OPENAI_PROVIDERS)("--provider %s: an HTTP 400 reads as API Error with the API's message; a budget stop refuses the reply's call", async (provider, reply) => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    const marker = join(ws.cwd, "marker");
    server = await startMockModelServer([
      { status: 400, body: JSON.stringify({ error: { message: "Invalid value for temperature", type: "invalid_request_error" } }) },
      reply([{ id: "call_1", name: "Bash", arguments: JSON.stringify({ command: `touch ${marker}` }) }]),
    ]);
    const env = sdkEnv(ws.home, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test-key" });
    const options = { cwd: ws.cwd, env, model: "gpt-4o", extraArgs: { provider }, ...bypass };
    const failed = await runQuery("hi", options, undefined, sdk);
    expect(failed.result).toMatchObject({ subtype: "success", is_error: true, result: "API Error: 400 Invalid value for temperature", api_error_status: 400 });
    expect(failed.error?.message).toContain("Claude Code returned an error result: API Error: 400 Invalid value for temperature");
    // gpt-4o: 100,000 input tokens cost $0.25, over a budget of $0.01.
    const stopped = await runQuery("go", { ...options, maxBudgetUsd: 0.01 }, undefined, sdk);
    expect(stopped.result).toMatchObject({ subtype: "error_max_budget_usd", is_error: true });
    expect(existsSync(marker)).toBe(false);
    expect(stopped.error?.message).toMatch(/^Claude Code returned an error result: /);
  });
});
