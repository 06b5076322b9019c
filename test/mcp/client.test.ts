import { getEventListeners } from "node:events";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, parseMcpServers, type McpManager, type McpEvent } from "../../src/mcp/index.js";
import { createSession, type Session } from "../../src/session/session.js";
import { builtinTools } from "../../src/tools/index.js";
import { createHookRunner } from "../../src/hooks/runner.js";
import type { ToolUseBlock } from "../../src/tool/types.js";
import { startTestProxy } from "../proxy-server.js";
import { alive, FIXTURE, startHttpFixture, tempDir, waitFor, type HttpFixture } from "./helpers.js";

const use = (name: string, input: unknown, id = name): ToolUseBlock => ({ type: "tool_use", id, name, input });

function entries(servers: Record<string, unknown>) {
  const parsed = parseMcpServers({ mcpServers: servers }, "test", "dynamic", { env: { ...process.env, FIXTURE_TOKEN: "s3cret" } });
  expect(parsed.problems).toEqual([]);
  return parsed.servers;
}

const stdio = (...args: string[]) => ({ command: process.execPath, args: [FIXTURE, ...args] });

describe("MCP client over stdio", () => {
  const tmp = tempDir();
  const logFile = join(tmp.dir, "fixture.log");
  let manager: McpManager;
  let session: Session;
  /** The manager shared by several sessions: closing one of them must not close it. */
  const shared = () => ({ tools: () => manager.tools(), onToolsChanged: (l: () => void) => manager.onToolsChanged(l), close: async () => {} });
  const events: McpEvent[] = [];

  beforeAll(async () => {
    manager = await connectMcpServers(
      entries({
        fixture: stdio("--log", logFile),
        broken: stdio("--crash-on-start"),
      }),
      { cwd: tmp.dir, toolTimeoutMs: 1_500, onEvent: (e) => events.push(e) },
    );
    session = createSession({ cwd: tmp.dir, tools: builtinTools(), toolSource: shared(), allow: ["mcp__fixture"], toolSearch: "true" });
  }, 60_000);
  afterAll(async () => {
    await session.close();
    await manager.close();
    tmp.cleanup();
  });

  it("connects in parallel; a server that fails at start is reported and left out", () => {
    const byName = Object.fromEntries(manager.servers().map((s) => [s.name, s]));
    expect(byName.fixture!.status).toBe("connected");
    expect(byName.broken!.status).toBe("failed");
    expect(byName.broken!.error).toMatch(/code 3|crashing on purpose|closed/i);
    expect(events.find((e) => e.type === "failed")).toMatchObject({ server: "broken" });
    expect(manager.tools().every((t) => t.name.startsWith("mcp__fixture__"))).toBe(true);
  });

  it("keeps the pool cache-stable: built-ins sorted, then MCP tools sorted", () => {
    const names = session.context.options.tools.map((t) => t.name);
    const firstMcp = names.findIndex((n) => n.startsWith("mcp__"));
    const builtins = names.slice(0, firstMcp);
    const mcp = names.slice(firstMcp);
    expect(builtins).toEqual([...builtins].sort());
    expect(builtins).toContain("ToolSearch");
    expect(mcp).toEqual([...mcp].sort());
    expect(mcp.every((n) => n.startsWith("mcp__"))).toBe(true);
  });

  it("maps results as the reference does: text blocks, structuredContent as JSON text, isError as is", async () => {
    const [echo, add, fail, thrown] = await session.runTurn([
      use("mcp__fixture__echo", { text: "hello" }),
      use("mcp__fixture__add", { a: 2, b: 3 }),
      use("mcp__fixture__fail", {}),
      use("mcp__fixture__throws", {}),
    ]);
    expect(echo!.content).toEqual([{ type: "text", text: "hello" }]);
    expect(add!.content).toBe('{"sum":5}');
    expect(fail).toMatchObject({ content: "failed on purpose", is_error: true });
    expect(thrown).toMatchObject({ content: "handler threw", is_error: true });
  });

  it("maps images, audio, resource links and embedded resources", async () => {
    const [r] = await session.runTurn([use("mcp__fixture__media", {})]);
    const blocks = r!.content as unknown as Array<Record<string, unknown>>;
    expect(blocks[0]).toEqual({ type: "text", text: "media follows" });
    expect(blocks[1]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png" } });
    expect(blocks[2]!.text).toMatch(/^\[audio: audio\/wav, \d+ bytes/);
    expect(blocks[3]!.text).toBe("Resource link: report <file:///tmp/report.txt> (text/plain) — the report");
    expect(blocks[4]!.text).toBe("Resource <mem://note> (text/plain):\nembedded note");
    expect(blocks[5]!.text).toMatch(/^\[resource <mem:\/\/bin>: application\/octet-stream/);
  });

  it("validates input with the server's JSON Schema before the call; the error points at ToolSearch while unloaded", async () => {
    const [r] = await session.runTurn([use("mcp__fixture__add", { a: "x" })]);
    expect(r!.is_error).toBe(true);
    const text = r!.content as string;
    expect(text).toContain("InputValidationError: mcp__fixture__add failed due to the following issues:");
    expect(text).toContain("The parameter `a` type is expected as `number` but provided as `string`");
    expect(text).toContain("The required parameter `b` is missing");
    expect(text).toContain('ToolSearch (query "select:mcp__fixture__add")');
    const [missing] = await session.runTurn([use("mcp__fixture__echo", "not an object")]);
    expect(missing!.content).toContain("The input must be a JSON object");
  });

  it("a result of the wrong shape is an is_error result, not a crash", async () => {
    const [r] = await session.runTurn([use("mcp__fixture__garbage", {})]);
    expect(r!.is_error).toBe(true);
    expect(r!.content).toMatch(/^MCP error -32602: Invalid tools\/call result/);
  });

  it("persists an oversized result like any tool's", async () => {
    const [r] = await session.runTurn([use("mcp__fixture__huge", { chars: 300_000 })]);
    expect(typeof r!.content === "string" && r!.content.includes("<persisted-output>")).toBe(true);
    const path = /saved to: (\S+)/i.exec(r!.content as string)?.[1] ?? /(\/\S+\.txt)/.exec(r!.content as string)?.[1];
    expect(path && existsSync(path) ? readFileSync(path, "utf8").length : 0).toBeGreaterThanOrEqual(300_000);
  });

  it("progress notifications become progress events", async () => {
    const progress: unknown[] = [];
    const [r] = await session.runTurn([use("mcp__fixture__slow", { ms: 150, steps: 3 })], { onProgress: (p) => progress.push(p.data) });
    expect(r!.content).toEqual([{ type: "text", text: "done" }]);
    // The SDK handles a notification a microtask after the response that follows it in the same
    // chunk, so the last step's notification may be dropped; the earlier ones always arrive.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.slice(0, 2)).toEqual([
      { type: "mcp_progress", server: "fixture", tool: "slow", progress: 1, total: 3, message: "step 1" },
      { type: "mcp_progress", server: "fixture", tool: "slow", progress: 2, total: 3, message: "step 2" },
    ]);
  });

  it("an abort sends notifications/cancelled to the server", async () => {
    const controller = new AbortController();
    const turn = session.runTurn([use("mcp__fixture__hang", {}, "abort-me")], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user pressed stop")), 300);
    const [r] = await turn;
    expect(r!.is_error).toBe(true);
    expect(r!.content).toMatch(/interrupted|aborted/);
    await waitFor(() => existsSync(logFile) && readFileSync(logFile, "utf8").includes('"tool":"hang"'));
  });

  it("a call leaves no abort listener on the signal it was given (the SDK's is removed once the call ends)", async () => {
    const echo = manager.tools().find((t) => t.name === "mcp__fixture__echo")!;
    const controller = new AbortController();
    const context = { ...session.context, abortController: controller };
    for (let i = 0; i < 3; i++) {
      const { data } = await echo.call({ text: `ping ${i}` }, context, () => {});
      expect(data).toMatchObject({ content: [{ type: "text", text: `ping ${i}` }] });
    }
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
    // Aborting it now sends nothing: no request of those calls is still waiting.
    controller.abort(new Error("after the calls"));
    const [r] = await session.runTurn([use("mcp__fixture__echo", { text: "still fine" }, "after-abort")]);
    expect(r!.content).toEqual([{ type: "text", text: "still fine" }]);
  });

  it("a call past MCP_TOOL_TIMEOUT is cancelled and says so", async () => {
    const before = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").length : 0;
    const [r] = await session.runTurn([use("mcp__fixture__hang", {}, "timeout")]);
    expect(r).toMatchObject({ is_error: true });
    expect(r!.content).toContain("did not answer hang within 1500 ms (MCP_TOOL_TIMEOUT)");
    await waitFor(() => readFileSync(logFile, "utf8").split("\n").length > before);
  });

  it("tools/list_changed refreshes the pool in order, and ToolSearch finds the new tool", async () => {
    const [r] = await session.runTurn([use("mcp__fixture__add_tool", {})]);
    expect(r!.content).toEqual([{ type: "text", text: "extra_0" }]);
    await waitFor(() => session.context.options.tools.some((t) => t.name === "mcp__fixture__extra_0"));
    const names = session.context.options.tools.map((t) => t.name);
    const mcp = names.filter((n) => n.startsWith("mcp__"));
    expect(mcp).toEqual([...mcp].sort());
    expect(session.deferredToolNames()).toContain("mcp__fixture__extra_0");
    const [found] = await session.runTurn([use("ToolSearch", { query: "extra" })]);
    expect(found!.content).toEqual([{ type: "tool_reference", tool_name: "mcp__fixture__extra_0" }]);
  });

  it("mcp__server rules apply: a deny of one tool, an ask without approver", async () => {
    const s = createSession({ cwd: tmp.dir, toolSource: shared(), deny: ["mcp__fixture__fail"], toolSearch: "false" });
    try {
      const names = (await s.toolDefinitions("anthropic")).map((d) => d.name);
      expect(names).toContain("mcp__fixture__echo");
      expect(names).not.toContain("mcp__fixture__fail");
      expect(names).not.toContain("ToolSearch");
      const [echo, add] = await s.runTurn([use("mcp__fixture__echo", { text: "ro" }), use("mcp__fixture__add", { a: 1, b: 1 })]);
      // echo says readOnlyHint: a server's claim about itself is not an approval, so without
      // an allow rule both ask, and nobody can approve.
      expect(echo!.is_error).toBe(true);
      expect(echo!.content).toContain("readOnlyHint is not an approval");
      expect(add!.is_error).toBe(true);
      expect(add!.content).toContain("Permission to use mcp__fixture__add was denied");
    } finally {
      await s.close();
    }
    // Benign control: the user's allow rule runs it, in default and dontAsk modes alike.
    for (const permissionMode of ["default", "dontAsk"] as const) {
      const allowed = createSession({ cwd: tmp.dir, toolSource: shared(), allow: ["mcp__fixture__echo"], permissionMode, toolSearch: "false" });
      const [ok] = await allowed.runTurn([use("mcp__fixture__echo", { text: "ro" })]);
      expect(ok!.content).toEqual([{ type: "text", text: "ro" }]);
      await allowed.close();
    }
    for (const permissionMode of ["plan", "dontAsk"] as const) {
      const strict = createSession({ cwd: tmp.dir, toolSource: shared(), permissionMode, toolSearch: "false" });
      const [no] = await strict.runTurn([use("mcp__fixture__echo", { text: "ro" })]);
      expect(no!.is_error, permissionMode).toBe(true);
      await strict.close();
    }
    const none = createSession({ cwd: tmp.dir, toolSource: shared(), deny: ["mcp__fixture"] });
    expect((await none.toolDefinitions("openai")).filter((d) => d.function.name.startsWith("mcp__"))).toEqual([]);
    const [denied] = await none.runTurn([use("mcp__fixture__echo", { text: "x" })]);
    expect(denied!.content).toContain("denied");
    await none.close();
  });

  it("hooks match MCP tool names with the reference's matcher syntax", async () => {
    const marker = join(tmp.dir, "hook-ran");
    const hooks = createHookRunner(
      [
        {
          source: "test",
          config: {
            PreToolUse: [
              { matcher: "mcp__fixture__.*", hooks: [{ type: "command", command: `echo "$(cat)" >> ${marker}` }] },
              { matcher: "mcp__fixture", hooks: [{ type: "command", command: "echo 'never' >&2; exit 2" }] },
            ],
          },
        },
      ],
      { projectDir: tmp.dir },
    );
    const s = createSession({ cwd: tmp.dir, toolSource: shared(), allow: ["mcp__fixture"], hooks });
    try {
      const [r] = await s.runTurn([use("mcp__fixture__echo", { text: "hooked" })]);
      expect(r!.content).toEqual([{ type: "text", text: "hooked" }]);
      expect(readFileSync(marker, "utf8")).toContain('"tool_name":"mcp__fixture__echo"');
    } finally {
      await s.close();
    }
  });
});

describe("MCP client lifecycle", () => {
  it("a server that hangs at start hits the start-up timeout; the others connect", async () => {
    const manager = await connectMcpServers(entries({ hangs: stdio("--hang-on-start"), ok: stdio() }), { cwd: process.cwd(), startupTimeoutMs: 10_000 });
    try {
      const status = Object.fromEntries(manager.servers().map((s) => [s.name, s]));
      expect(status.hangs).toMatchObject({ status: "failed" });
      expect(status.hangs!.error).toMatch(/start-up timeout/);
      expect(status.ok!.status).toBe("connected");
    } finally {
      await manager.close();
    }
  }, 60_000);

  it("a server that crashes mid-call gives an is_error result; close() kills every stdio server's process group", async () => {
    const manager = await connectMcpServers(entries({ a: stdio(), b: stdio("--stdout-garbage") }), { cwd: process.cwd() });
    const session = createSession({ cwd: process.cwd(), toolSource: manager, allow: ["mcp__a", "mcp__b"] });
    const [child] = await session.runTurn([use("mcp__b__spawn_child", {})]);
    const grandchild = Number((child!.content as Array<{ text: string }>)[0]!.text);
    expect(alive(grandchild)).toBe(true);
    const leader = manager.servers().find((s) => s.name === "a")!.pid!;
    const [crash] = await session.runTurn([use("mcp__a__crash", {})]);
    expect(crash!.is_error).toBe(true);
    expect(crash!.content).toMatch(/closed the connection|not connected/);
    await waitFor(() => manager.servers().find((s) => s.name === "a")!.status === "failed");
    expect(alive(leader)).toBe(false);
    const [after] = await session.runTurn([use("mcp__b__echo", { text: "still here" })]);
    expect(after!.content).toEqual([{ type: "text", text: "still here" }]);
    await session.close();
    await waitFor(() => !alive(grandchild));
  }, 60_000);
});

describe("MCP client over HTTP", () => {
  let http: HttpFixture;
  let sse: HttpFixture;
  beforeAll(async () => {
    [http, sse] = await Promise.all([startHttpFixture("http"), startHttpFixture("sse")]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([http?.stop(), sse?.stop()]);
  });

  it("Streamable HTTP with headers (${VAR} expanded); a dropped session is reconnected", async () => {
    const manager = await connectMcpServers(
      entries({ remote: { type: "http", url: http.url, headers: { Authorization: "Bearer ${FIXTURE_TOKEN}" } } }),
      { cwd: process.cwd() },
    );
    const session = createSession({ cwd: process.cwd(), toolSource: manager, allow: ["mcp__remote"] });
    try {
      const [h] = await session.runTurn([use("mcp__remote__headers", {})]);
      expect(h!.content).toEqual([{ type: "text", text: "Bearer s3cret" }]);
      await fetch(`http://127.0.0.1:${http.port}/drop-sessions`);
      const [r] = await session.runTurn([use("mcp__remote__add", { a: 20, b: 22 })]);
      expect(r!.content).toBe('{"sum":42}');
    } finally {
      await session.close();
    }
  }, 60_000);

  it("HTTP_PROXY: Streamable HTTP and legacy SSE go through the proxy (absolute form)", async () => {
    const proxy = await startTestProxy();
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
    process.env.HTTP_PROXY = proxy.url;
    delete process.env.NO_PROXY;
    const manager = await connectMcpServers(entries({ remote: { type: "http", url: http.url }, old: { type: "sse", url: sse.url } }), { cwd: process.cwd() });
    const session = createSession({ cwd: process.cwd(), toolSource: manager, allow: ["mcp__remote", "mcp__old"] });
    try {
      expect(manager.servers().map((s) => `${s.name} ${s.status}`).sort()).toEqual(["old connected", "remote connected"]);
      const [r, o] = await session.runTurn([use("mcp__remote__add", { a: 1, b: 2 }), use("mcp__old__echo", { text: "via proxy" })]);
      expect(r!.content).toBe('{"sum":3}');
      expect(o!.content).toEqual([{ type: "text", text: "via proxy" }]);
      expect(proxy.asked).toContain(`POST ${http.url}`);
      expect(proxy.asked).toContain(`GET ${sse.url}`);
    } finally {
      await session.close();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await proxy.close();
    }
  }, 60_000);

  it("legacy SSE", async () => {
    const manager = await connectMcpServers(entries({ old: { type: "sse", url: sse.url } }), { cwd: process.cwd() });
    const session = createSession({ cwd: process.cwd(), toolSource: manager, allow: ["mcp__old"] });
    try {
      expect(manager.servers()[0]!.status).toBe("connected");
      const [r] = await session.runTurn([use("mcp__old__echo", { text: "over sse" })]);
      expect(r!.content).toEqual([{ type: "text", text: "over sse" }]);
    } finally {
      await session.close();
    }
  }, 60_000);
});
