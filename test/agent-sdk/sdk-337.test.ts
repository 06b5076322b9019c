// The drop-in on the SDK's newer protocol (0.3.337) and on 0.3.332: each behaviour runs through
// both releases' own `query()` against a scripted model on 127.0.0.1.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer, type RecordedRequest } from "../mock-model-server.js";
import { chatReply, responsesReply } from "../mock-model-server.js";
import { inputQueue, runQuery, SDK_VERSIONS, sdkEnv, sdkWorkspace, userMessage } from "./sdk-helpers.js";

const FIXTURE_MCP = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "mcp-server.mjs");

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
  const env = sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key", ENABLE_TOOL_SEARCH: "false" });
  return { ...ws, env, server };
}

function lastResults(request: RecordedRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  return JSON.stringify(messages.at(-1)?.content ?? "");
}

const text = (t: string) => anthropicReply([{ type: "text", text: t }]);

describe.each(SDK_VERSIONS)("SDK %s on armature", (sdk) => {
  it("an external stdio MCP server from options.mcpServers is started and its tool called", async () => {
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_e", name: "mcp__fix__echo", input: { text: "ECHO-FROM-FIXTURE" } }]), text("echoed")]);
    let status: Array<Record<string, unknown>> | undefined;
    const run = await runQuery(
      "echo",
      { cwd: ctx.cwd, env: ctx.env, mcpServers: { fix: { command: process.execPath, args: [FIXTURE_MCP], env: { FIXTURE_SECRET: "x" } } }, allowedTools: ["mcp__fix__echo"] },
      async (m, q) => {
        if (m.type === "system" && m.subtype === "init") status = (await q.mcpServerStatus()) as unknown as Array<Record<string, unknown>>;
      },
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.result).toMatchObject({ subtype: "success", result: "echoed" });
    expect(lastResults(ctx.server.requests[1])).toContain("ECHO-FROM-FIXTURE");
    const init = run.messages.find((m) => m.type === "system" && m.subtype === "init") as unknown as { mcp_servers: unknown; claude_code_version: unknown };
    expect(init.mcp_servers).toEqual([{ name: "fix", status: "connected" }]);
    expect(init.claude_code_version).toMatch(/^\d+\.\d+\.\d+$/);
    const row = status?.[0];
    expect(row).toMatchObject({ name: "fix", status: "connected", serverInfo: { name: "fixture", version: "1.0.0" }, transport: "stdio", config: { type: "stdio", command: process.execPath } });
    // The server's env stays out of the status (it may hold credentials).
    expect(JSON.stringify(row)).not.toContain("FIXTURE_SECRET");
    expect((row?.tools as Array<{ name: string }>).map((t) => t.name)).toContain("echo");
    expect((row?.tools as Array<{ name: string; annotations?: unknown }>).find((t) => t.name === "echo")?.annotations).toEqual({ readOnly: true });
  });

  it("setMcpServers adds a server mid-session, reconnectMcpServer restarts it, setMcpServers({}) removes it", async () => {
    const ctx = await setup([text("no servers yet"), anthropicReply([{ type: "tool_use", id: "toolu_e2", name: "mcp__late__echo", input: { text: "LATE-ECHO" } }]), text("done")]);
    const input = inputQueue();
    input.push(userMessage("first"));
    const seen: Record<string, unknown> = {};
    let results = 0;
    const run = await runQuery(
      input.iterable,
      { cwd: ctx.cwd, env: ctx.env, allowedTools: ["mcp__late__echo"] },
      async (m, q) => {
        if (m.type !== "result") return;
        results++;
        if (results === 1) {
          seen.added = await q.setMcpServers({ late: { command: process.execPath, args: [FIXTURE_MCP] } });
          const before = (await q.mcpServerStatus()).find((s) => s.name === "late") as unknown as { status: string } | undefined;
          await q.reconnectMcpServer("late");
          const after = (await q.mcpServerStatus()).find((s) => s.name === "late") as unknown as { status: string } | undefined;
          seen.statuses = [before?.status, after?.status];
          seen.reconnectUnknown = await q.reconnectMcpServer("nope").then(() => "resolved", (err: Error) => err.message);
          input.push(userMessage("use it"));
        } else {
          seen.removed = await q.setMcpServers({});
          seen.left = (await q.mcpServerStatus()).map((s) => s.name);
          input.end();
        }
      },
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(seen.added).toEqual({ added: ["late"], removed: [], errors: {} });
    expect(seen.statuses).toEqual(["connected", "connected"]);
    expect(seen.reconnectUnknown).toContain('"nope"');
    expect(lastResults(ctx.server.requests[2])).toContain("LATE-ECHO");
    expect(seen.removed).toEqual({ added: [], removed: ["late"], errors: {} });
    expect(seen.left).toEqual([]);
  });

  it("toggleMcpServer turns a server off (its tools leave the next request) and on again", async () => {
    const ctx = await setup([text("one"), text("two"), text("three")]);
    const input = inputQueue();
    input.push(userMessage("first"));
    const statuses: string[] = [];
    let results = 0;
    const toolNames = (i: number) => ((ctx.server.requests[i]?.body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    const run = await runQuery(
      input.iterable,
      { cwd: ctx.cwd, env: ctx.env, mcpServers: { fix: { command: process.execPath, args: [FIXTURE_MCP] } } },
      async (m, q) => {
        if (m.type !== "result") return;
        results++;
        const status = async () => statuses.push(String((await q.mcpServerStatus()).find((s) => s.name === "fix")?.status));
        if (results === 1) {
          await q.toggleMcpServer("fix", false);
          await status();
          input.push(userMessage("second"));
        } else if (results === 2) {
          await q.toggleMcpServer("fix", true);
          await status();
          input.push(userMessage("third"));
        } else input.end();
      },
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(statuses).toEqual(["disabled", "connected"]);
    expect(toolNames(0)).toContain("mcp__fix__echo");
    expect(toolNames(1)).not.toContain("mcp__fix__echo");
    expect(toolNames(2)).toContain("mcp__fix__echo");
  });

  it("supportedModels, supportedCommands, supportedAgents and accountInfo say what armature runs; a skill runs as a slash command", async () => {
    const ctx = await setup([text("greeted")]);
    const skillDir = join(ctx.home, ".armature", "skills", "greet");
    await mkdir(skillDir, { recursive: true });
    await writeFile(join(skillDir, "SKILL.md"), "---\nname: greet\ndescription: Greets someone by name\n---\nSay GREETING-SKILL-BODY to $ARGUMENTS.\n");
    const seen: Record<string, unknown> = {};
    const run = await runQuery(
      "/greet Ada",
      { cwd: ctx.cwd, env: ctx.env, model: "sonnet", agents: { reviewer: { description: "Reviews code", prompt: "Review." } } },
      async (m, q) => {
        if (m.type !== "system" || m.subtype !== "init") return;
        seen.models = await q.supportedModels();
        seen.commands = await q.supportedCommands();
        seen.agents = (await q.supportedAgents()).map((a) => a.name);
        seen.account = await q.accountInfo();
      },
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    // The alias is resolved before the request: the API gets the current Sonnet id.
    expect(ctx.server.requests[0]?.body.model).toBe("claude-sonnet-5-5");
    expect(seen.models).toEqual(expect.arrayContaining([expect.objectContaining({ value: "opus", resolvedModel: "claude-opus-5-5" }), expect.objectContaining({ value: "sonnet", resolvedModel: "claude-sonnet-5-5" }), expect.objectContaining({ value: "haiku", resolvedModel: "claude-haiku-5-5" })]));
    expect(seen.commands).toEqual([{ name: "greet", description: "Greets someone by name", argumentHint: "" }]);
    expect(seen.agents).toEqual(["general-purpose", "Explore", "reviewer"]);
    expect(seen.account).toMatchObject({ apiKeySource: "ANTHROPIC_API_KEY", armature: { provider: "anthropic", model: "claude-sonnet-5-5", baseURL: ctx.server.url, account: null } });
    const prompt = JSON.stringify(ctx.server.requests[0]?.body.messages);
    expect(prompt).toContain("Say GREETING-SKILL-BODY to Ada.");
  });

  it("getContextUsage estimates the window: system prompt, tools, messages, free space, the last reply's usage", async () => {
    const ctx = await setup([text("one"), text("two")]);
    const input = inputQueue();
    input.push(userMessage("hello"));
    let usage: Awaited<ReturnType<import("@anthropic-ai/claude-agent-sdk").Query["getContextUsage"]>> | undefined;
    const run = await runQuery(
      input.iterable,
      { cwd: ctx.cwd, env: ctx.env, systemPrompt: "You are a test. ".repeat(100) },
      async (m, q) => {
        if (m.type !== "result") return;
        usage = await q.getContextUsage();
        input.end();
      },
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    const byId = Object.fromEntries((usage?.categories ?? []).map((c) => [c.id, c.tokens]));
    expect(byId.system_prompt).toBe(400);
    expect(byId.system_tools).toBeGreaterThan(1000);
    expect(byId.messages).toBeGreaterThan(0);
    expect(usage?.totalTokens).toBe(byId.system_prompt! + byId.system_tools! + byId.mcp_tools! + byId.messages!);
    expect(byId.free_space).toBe(usage!.maxTokens - usage!.totalTokens);
    expect(usage?.apiUsage).toMatchObject({ input_tokens: 100, output_tokens: 10 });
    expect(usage?.systemTools?.map((t) => t.name)).toContain("Read");
  });

  it("stopTask stops a background command: task_notification with status stopped", async () => {
    // A stop that lands before the model's second reply ends gives the model a turn for the
    // task's end within the same run (the third reply); one that lands after it does not.
    const ctx = await setup([anthropicReply([{ type: "tool_use", id: "toolu_bg", name: "Bash", input: { command: "sleep 30", run_in_background: true } }]), text("started it"), text("it was stopped")]);
    const input = inputQueue();
    input.push(userMessage("start"));
    const notes: unknown[] = [];
    let stopError: string | undefined;
    const started = Date.now();
    const run = await runQuery(
      input.iterable,
      { cwd: ctx.cwd, env: ctx.env, permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true },
      async (m, q) => {
        if (m.type === "system" && m.subtype === "task_started") {
          await q.stopTask((m as unknown as { task_id: string }).task_id);
          stopError = await q.stopTask("no-such-task").then(() => undefined, (err: Error) => err.message);
        }
        if (m.type === "system" && m.subtype === "task_notification") notes.push(m);
        if (m.type === "result") input.end();
      },
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(notes).toEqual([expect.objectContaining({ status: "stopped", tool_use_id: "toolu_bg" })]);
    expect(stopError).toContain("No task found with ID: no-such-task");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("an alias the OpenAI provider has no model for is an error naming it; a mapping in settings resolves it", async () => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    server = await startMockModelServer([chatReply({ text: "mapped" })]);
    const env = sdkEnv(ws.home, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test-key" });
    const refused = await runQuery("hi", { cwd: ws.cwd, env, model: "opus", extraArgs: { provider: "openai" } }, undefined, sdk);
    expect(refused.error?.message).toBeDefined();
    expect(refused.stderr).toContain('"opus"');
    expect(refused.stderr).toContain("ANTHROPIC_DEFAULT_OPUS_MODEL");
    expect(server.requests).toHaveLength(0);
    await mkdir(join(ws.home, ".armature"), { recursive: true });
    await writeFile(join(ws.home, ".armature", "settings.json"), JSON.stringify({ env: { ANTHROPIC_DEFAULT_OPUS_MODEL: "gpt-4o" } }));
    const mapped = await runQuery("hi", { cwd: ws.cwd, env, model: "opus", extraArgs: { provider: "openai" } }, undefined, sdk);
    expect(mapped.error, mapped.stderr).toBeUndefined();
    expect(server.requests[0]?.body.model).toBe("gpt-4o");
    expect(mapped.result?.total_cost_usd).toBeGreaterThan(0);
  });

  it.each(["openai", "openai-responses"])("--provider %s: the host's external MCP server's tool is called", async (provider) => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    const call = { id: "call_m", name: "mcp__fix__echo", arguments: JSON.stringify({ text: "ECHO-VIA-OPENAI" }) };
    server = await startMockModelServer(
      provider === "openai"
        ? [chatReply({ toolCalls: [call] }), chatReply({ text: "echoed" })]
        : [responsesReply({ calls: [{ callId: call.id, name: call.name, arguments: call.arguments }] }), responsesReply({ text: "echoed" })],
    );
    const env = sdkEnv(ws.home, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test-key", ENABLE_TOOL_SEARCH: "false" });
    const run = await runQuery(
      "echo",
      { cwd: ws.cwd, env, model: "gpt-4o", extraArgs: { provider }, mcpServers: { fix: { command: process.execPath, args: [FIXTURE_MCP] } }, allowedTools: ["mcp__fix__echo"] },
      undefined,
      sdk,
    );
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.result).toMatchObject({ subtype: "success", result: "echoed" });
    expect(JSON.stringify(server.requests[1]?.body)).toContain("ECHO-VIA-OPENAI");
  });
});
