import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSdkMcpServer, tool, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropicReply, chatReply, startMockModelServer, type MockModelServer, type RecordedRequest } from "../mock-model-server.js";
import { ARMATURE_AGENT_BIN, inputQueue, runQuery, sdkEnv, sdkWorkspace, userMessage } from "./sdk-helpers.js";

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

/** The tool_result blocks of a recorded request's last user message, as text. */
function lastResults(request: RecordedRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  return JSON.stringify(messages.at(-1)?.content ?? "");
}

const text = (t: string) => anthropicReply([{ type: "text", text: t }]);

describe("Agent SDK scenarios on armature", () => {
  it("canUseTool: allow runs the call, deny stops it with the host's message, updatedInput rewrites it", async () => {
    const ctx = await setup([]);
    const file = (n: string) => join(ctx.cwd, n);
    ctx.server.push(
      anthropicReply([
        { type: "tool_use", id: "toolu_a", name: "Write", input: { file_path: file("allowed.txt"), content: "yes" } },
        { type: "tool_use", id: "toolu_d", name: "Write", input: { file_path: file("denied.txt"), content: "no" } },
        { type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: file("rewritten.txt"), content: "original" } },
      ]),
      text("done"),
    );
    const asked: string[] = [];
    const run = await runQuery("write three files", {
      cwd: ctx.cwd,
      env: ctx.env,
      canUseTool: async (name, input, { toolUseID }) => {
        asked.push(`${name}:${toolUseID}`);
        const path = String(input.file_path);
        if (path.endsWith("denied.txt")) return { behavior: "deny", message: "not that one" };
        if (path.endsWith("rewritten.txt")) return { behavior: "allow", updatedInput: { ...input, content: "rewritten by the host" } };
        return { behavior: "allow", updatedInput: input };
      },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(asked.sort()).toEqual(["Write:toolu_a", "Write:toolu_d", "Write:toolu_w"]);
    expect(await readFile(file("allowed.txt"), "utf8")).toBe("yes");
    expect(existsSync(file("denied.txt"))).toBe(false);
    expect(await readFile(file("rewritten.txt"), "utf8")).toBe("rewritten by the host");
    expect(lastResults(ctx.server.requests[1])).toContain("not that one");
    expect(run.result?.permission_denials.map((d) => d.tool_use_id)).toEqual(["toolu_d"]);
  });

  it("hooks: a PreToolUse callback denies Bash (nothing runs), a PostToolUse callback adds context", async () => {
    const ctx = await setup([]);
    const marker = join(ctx.cwd, "marker");
    await writeFile(join(ctx.cwd, "a.txt"), "hello\n");
    ctx.server.push(
      anthropicReply([{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: `touch ${marker}` } }]),
      anthropicReply([{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: join(ctx.cwd, "a.txt") } }]),
      text("ok"),
    );
    const seen: string[] = [];
    const run = await runQuery("go", {
      cwd: ctx.cwd,
      env: ctx.env,
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input) => {
                seen.push(`pre:${(input as { tool_name: string }).tool_name}`);
                return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "the host forbids Bash" } };
              },
            ],
          },
        ],
        PostToolUse: [{ matcher: "Read", hooks: [async () => ({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "REMEMBER-THE-HOST" } })] }],
      },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(seen).toEqual(["pre:Bash"]);
    expect(existsSync(marker)).toBe(false);
    const results = lastResults(ctx.server.requests[1]);
    expect(results).toContain("the host forbids Bash");
    expect(JSON.stringify(ctx.server.requests[2]?.body.messages)).toContain("REMEMBER-THE-HOST");
  });

  it("an in-process createSdkMcpServer tool is called through armature's MCP client", async () => {
    const ctx = await setup([]);
    const calls: Array<{ a: number; b: number }> = [];
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async (args) => {
        calls.push(args);
        return { content: [{ type: "text", text: String(args.a + args.b) }] };
      })],
    });
    ctx.server.push(anthropicReply([{ type: "tool_use", id: "toolu_m", name: "mcp__calc__add", input: { a: 2, b: 40 } }]), text("42"));
    let status: unknown;
    const run = await runQuery(
      "add",
      { cwd: ctx.cwd, env: { ...ctx.env, ENABLE_TOOL_SEARCH: "false" }, mcpServers: { calc }, allowedTools: ["mcp__calc__add"] },
      async (m, q) => {
        if (m.type === "system" && m.subtype === "init") status = await q.mcpServerStatus();
      },
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(calls).toEqual([{ a: 2, b: 40 }]);
    expect(lastResults(ctx.server.requests[1])).toContain("42");
    const init = run.messages.find((m) => m.type === "system" && m.subtype === "init") as { mcp_servers: Array<{ name: string; status: string }> };
    expect(init.mcp_servers).toEqual([{ name: "calc", status: "connected" }]);
    expect(status).toEqual([expect.objectContaining({ name: "calc", status: "connected" })]);
  });

  it("agents: the host's sub-agent type runs with its own prompt", async () => {
    const ctx = await setup([]);
    ctx.server.push(
      anthropicReply([{ type: "tool_use", id: "toolu_ag", name: "Agent", input: { description: "review", prompt: "review the code", subagent_type: "reviewer" } }]),
      anthropicReply([{ type: "tool_use", id: "toolu_sub_read", name: "Read", input: { file_path: join(ctx.cwd, "missing.txt") } }]),
      text("REVIEW-REPORT: fine"),
      text("The reviewer says fine."),
    );
    const run = await runQuery("review", {
      cwd: ctx.cwd,
      env: ctx.env,
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      agents: { reviewer: { description: "Reviews code", prompt: "You are REVIEWER-PROMPT.", tools: ["Read"] } },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(JSON.stringify(ctx.server.requests[1]?.body.system)).toContain("REVIEWER-PROMPT");
    expect(lastResults(ctx.server.requests[3])).toContain("REVIEW-REPORT: fine");
    expect(run.result).toMatchObject({ result: "The reviewer says fine." });
    // The sub-agent's reply is in the stream under the parent's Agent call, and its tokens count.
    const sub = run.messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === "toolu_ag");
    // Its call, then that call's result (held until the reply's blocks are out), then its report.
    expect(sub.map((m) => m.type)).toEqual(["assistant", "user", "assistant"]);
    expect(JSON.stringify(sub[0])).toContain("toolu_sub_read");
    expect(JSON.stringify(sub[1])).toContain('"tool_use_id":"toolu_sub_read"');
    expect(JSON.stringify(sub[2])).toContain("REVIEW-REPORT");
    expect(run.result?.usage.input_tokens).toBe(400);
  });

  it("streaming input over several turns, setPermissionMode between them, then interrupt()", async () => {
    const ctx = await setup([]);
    const target = join(ctx.cwd, "late.txt");
    ctx.server.push(
      text("first answer"),
      anthropicReply([{ type: "tool_use", id: "toolu_w1", name: "Write", input: { file_path: target, content: "x" } }]),
      text("denied, as expected"),
      anthropicReply([{ type: "tool_use", id: "toolu_w2", name: "Write", input: { file_path: target, content: "written" } }]),
      text("written now"),
      anthropicReply([{ type: "tool_use", id: "toolu_s", name: "Bash", input: { command: "sleep 30" } }]),
    );
    const input = inputQueue();
    input.push(userMessage("hello"));
    const results: Array<Extract<SDKMessage, { type: "result" }>> = [];
    const started = Date.now();
    const run = await runQuery(input.iterable, { cwd: ctx.cwd, env: ctx.env }, async (m, q) => {
      if (m.type === "result") {
        results.push(m);
        if (results.length === 1) input.push(userMessage("write it"));
        if (results.length === 2) {
          await q.setPermissionMode("acceptEdits");
          input.push(userMessage("write it again"));
        }
        if (results.length === 3) input.push(userMessage("sleep"));
        if (results.length === 4) input.end();
      }
      if (m.type === "assistant" && JSON.stringify(m.message.content).includes("sleep 30")) {
        setTimeout(() => void q.interrupt(), 300);
      }
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(results.map((r) => r.is_error)).toEqual([false, false, false, true]);
    expect((results[0] as { result: string }).result).toBe("first answer");
    expect(results[1]?.permission_denials).toHaveLength(1);
    expect(await readFile(target, "utf8")).toBe("written");
    // All turns are one conversation: the last request carries the first prompt.
    expect(JSON.stringify(ctx.server.requests.at(-1)?.body.messages)).toContain("hello");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("resume continues a saved conversation", async () => {
    const ctx = await setup([text("remembered: 7"), text("it was 7")]);
    const first = await runQuery("remember 7", { cwd: ctx.cwd, env: ctx.env });
    expect(first.error, first.stderr).toBeUndefined();
    const sessionId = first.result!.session_id;
    const second = await runQuery("what was it?", { cwd: ctx.cwd, env: ctx.env, resume: sessionId });
    expect(second.error, second.stderr).toBeUndefined();
    expect(second.result?.session_id).toBe(sessionId);
    const messages = JSON.stringify(ctx.server.requests[1]?.body.messages);
    expect(messages).toContain("remember 7");
    expect(messages).toContain("remembered: 7");
  });

  it("outputFormat json_schema: the answer comes back as structured_output", async () => {
    const ctx = await setup([
      anthropicReply([{ type: "tool_use", id: "toolu_so", name: "StructuredOutput", input: { answer: 42 } }]),
      text("handed in"),
    ]);
    const run = await runQuery("answer", {
      cwd: ctx.cwd,
      env: ctx.env,
      outputFormat: { type: "json_schema", schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] } },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.result).toMatchObject({ subtype: "success", structured_output: { answer: 42 }, result: '{"answer":42}' });
    const tools = (ctx.server.requests[0]?.body.tools ?? []) as Array<{ name: string; input_schema: unknown }>;
    expect(tools.find((t) => t.name === "StructuredOutput")?.input_schema).toMatchObject({ required: ["answer"] });
  });

  it("includePartialMessages: stream_event lines with the Anthropic stream's events, a tool call's input as the input_json_deltas the model streamed", async () => {
    const ctx = await setup([]);
    await writeFile(join(ctx.cwd, "a.txt"), "alpha\n");
    ctx.server.push(anthropicReply([{ type: "text", text: "Reading it." }, { type: "tool_use", id: "toolu_p", name: "Read", input: { file_path: join(ctx.cwd, "a.txt") } }]), text("alpha"));
    const run = await runQuery("read a.txt", { cwd: ctx.cwd, env: ctx.env, includePartialMessages: true, permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true });
    expect(run.error, run.stderr).toBeUndefined();
    const events = run.messages.flatMap((m) => (m.type === "stream_event" ? [m.event] : []));
    const first = events.slice(0, events.findIndex((e) => e.type === "message_stop") + 1);
    expect(first.map((e) => (e.type === "content_block_delta" ? `${e.type}:${e.delta.type}` : e.type))).toEqual([
      "message_start",
      "content_block_start",
      ...first.filter((e) => e.type === "content_block_delta" && e.delta.type === "text_delta").map(() => "content_block_delta:text_delta"),
      "content_block_stop",
      "content_block_start",
      // The scripted server sends the input in three pieces: each is passed on as it arrives.
      "content_block_delta:input_json_delta",
      "content_block_delta:input_json_delta",
      "content_block_delta:input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const streamed = first.flatMap((e) => (e.type === "content_block_delta" && e.delta.type === "text_delta" ? [e.delta.text] : [])).join("");
    expect(streamed).toBe("Reading it.");
    const json = first.flatMap((e) => (e.type === "content_block_delta" && e.delta.type === "input_json_delta" ? [e.delta.partial_json] : [])).join("");
    expect(JSON.parse(json)).toEqual({ file_path: join(ctx.cwd, "a.txt") });
    expect(first.filter((e) => e.type === "content_block_start")[1]).toMatchObject({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_p", name: "Read" } });
    expect(run.result).toMatchObject({ subtype: "success", result: "alpha" });
  });

  it("maxTurns stops the run with error_max_turns", async () => {
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_g", name: "Glob", input: { pattern: "*" } }]), text("never")]);
    const run = await runQuery("loop", { cwd: ctx.cwd, env: ctx.env, maxTurns: 1 });
    expect(run.result).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 2 });
    // num_turns counts as the reference does: the prompt and the one tool result.
    expect(ctx.server.requests).toHaveLength(1);
  });

  it("the same query() with --provider openai against a Chat Completions server", async () => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    await writeFile(join(ws.cwd, "n.txt"), "from openai\n");
    server = await startMockModelServer([
      chatReply({ toolCalls: [{ id: "call_1", name: "Read", arguments: JSON.stringify({ file_path: join(ws.cwd, "n.txt") }) }] }),
      chatReply({ text: "It says: from openai" }),
    ]);
    const run = await runQuery("read n.txt", {
      cwd: ws.cwd,
      model: "gpt-4o",
      env: sdkEnv(ws.home, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test-key" }),
      extraArgs: { provider: "openai" },
      // The README's path: the armature-agent bin.
      pathToClaudeCodeExecutable: ARMATURE_AGENT_BIN,
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.result).toMatchObject({ subtype: "success", result: "It says: from openai" });
    expect(server.requests[0]?.url).toContain("/chat/completions");
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("from openai");
    // gpt-4o: $2.5 / $10 per million; two requests of 50 in + 5 out.
    expect(run.result!.total_cost_usd).toBeCloseTo((100 * 2.5 + 10 * 10) / 1e6, 10);
  });
});
