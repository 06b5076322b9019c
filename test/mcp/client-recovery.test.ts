import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, parseMcpServers, type McpEvent } from "../../src/mcp/index.js";
import { createSession } from "../../src/session/session.js";
import { builtinTools } from "../../src/tools/index.js";
import type { ToolUseBlock } from "../../src/tool/types.js";
import { alive, FIXTURE, tempDir, waitFor } from "./helpers.js";

const use = (name: string, input: unknown, id = name): ToolUseBlock => ({ type: "tool_use", id, name, input });
const stdio = { command: process.execPath, args: [FIXTURE] };

function entries(servers: Record<string, unknown>) {
  const parsed = parseMcpServers({ mcpServers: servers }, "test", "dynamic");
  expect(parsed.problems).toEqual([]);
  return parsed.servers;
}

describe("MCP client: a crashed stdio server", () => {
  it("is restarted at the next call: its tools stay in the pool meanwhile, and the call works", async () => {
    const manager = await connectMcpServers(entries({ s: stdio }), { cwd: process.cwd() });
    const session = createSession({ cwd: process.cwd(), toolSource: manager, allow: ["mcp__s"] });
    try {
      const first = manager.servers()[0]!.pid!;
      const [crash] = await session.runTurn([use("mcp__s__crash", {})]);
      expect(crash!.is_error).toBe(true);
      await waitFor(() => !alive(first) && manager.servers()[0]!.status === "failed");
      expect(manager.servers()[0]!.error).toContain("it is restarted at the next call");
      expect(manager.tools().map((t) => t.name)).toContain("mcp__s__echo");
      expect((await session.toolDefinitions("anthropic")).map((t) => t.name)).toContain("mcp__s__echo");
      const [again] = await session.runTurn([use("mcp__s__echo", { text: "back" })]);
      expect(again!.content).toEqual([{ type: "text", text: "back" }]);
      const status = manager.servers()[0]!;
      expect(status.status).toBe("connected");
      expect(status.pid).not.toBe(first);
      expect(alive(status.pid!)).toBe(true);
    } finally {
      await session.close();
    }
  }, 60_000);

  it("one that keeps crashing is restarted a bounded number of times, then left out with a message saying so", async () => {
    const events: McpEvent[] = [];
    const manager = await connectMcpServers(entries({ s: stdio }), { cwd: process.cwd(), onEvent: (e) => events.push(e) });
    const session = createSession({ cwd: process.cwd(), toolSource: manager, allow: ["mcp__s"] });
    try {
      const pids = new Set<number>();
      for (let i = 0; i < 4; i++) {
        const [crash] = await session.runTurn([use("mcp__s__crash", {}, `c${i}`)]);
        expect(crash!.is_error).toBe(true);
        pids.add(manager.servers()[0]!.pid!);
        await waitFor(() => manager.servers()[0]!.status === "failed");
      }
      // The first process and three restarts, each a new process.
      expect(pids.size).toBe(4);
      expect(events.filter((e) => e.type === "lost")).toHaveLength(1);
      expect(manager.servers()[0]!.error).toContain("it crashed 4 times in a row, so it is not restarted again");
      expect(manager.tools()).toEqual([]);
      const [after] = await session.runTurn([use("mcp__s__echo", { text: "x" })]);
      expect(after!.is_error).toBe(true);
      expect(manager.servers()[0]!.pid).toBe([...pids][3]);
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe("MCP client: large structured results", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("are saved pretty-printed, so that Read with offset and limit reads them by lines", async () => {
    const manager = await connectMcpServers(entries({ s: stdio }), { cwd: tmp.dir });
    // The session folder inside cwd, so that reading it needs no approval.
    const session = createSession({ cwd: tmp.dir, sessionDir: join(tmp.dir, "session"), tools: builtinTools(), toolSource: manager, allow: ["mcp__s"] });
    try {
      const [r] = await session.runTurn([use("mcp__s__huge_structured", { rows: 3_000 })]);
      const content = r!.content as string;
      expect(content).toContain("<persisted-output>");
      const path = /Full output saved to: (\S+)/.exec(content)![1]!;
      const saved = readFileSync(path, "utf8");
      expect(saved.split("\n").length).toBeGreaterThan(10_000);
      expect((JSON.parse(saved) as { rows: unknown[] }).rows).toHaveLength(3_000);
      const [read] = await session.runTurn([use("Read", { file_path: path, offset: 100, limit: 5 })]);
      expect(read!.is_error, String(read!.content)).toBeFalsy();
      const lines = (read!.content as string).split("\n");
      expect(lines).toHaveLength(5);
      expect(lines[0]).toMatch(/^\s*100\t/);
      // A small one is still the compact JSON the reference sends.
      const [small] = await session.runTurn([use("mcp__s__huge_structured", { rows: 1 })]);
      expect(small!.content).toBe('{"rows":[{"id":0,"name":"row 0","tags":["a","b"]}]}');
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe("MCP client: a remote server answering 401", () => {
  let server: Server;
  let url = "";
  const body = '{"error":"invalid_token","error_description":"raw body nobody should see"}';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("fails to connect with an error naming the server and saying OAuth is needed, not the raw body", async () => {
    const events: McpEvent[] = [];
    const manager = await connectMcpServers(
      entries({ locked: { type: "http", url }, withToken: { type: "http", url, headers: { Authorization: "Bearer stale" } }, oldStyle: { type: "sse", url } }),
      { cwd: process.cwd(), onEvent: (e) => events.push(e) },
    );
    try {
      const failed = Object.fromEntries(events.filter((e) => e.type === "failed").map((e) => [e.server, (e as { error: string }).error]));
      expect(Object.keys(failed).sort()).toEqual(["locked", "oldStyle", "withToken"]);
      for (const [name, error] of Object.entries(failed)) {
        expect(error).toContain(`MCP server ${name} answered 401 Unauthorized: it needs OAuth authorization`);
        expect(error).toContain('"headers"');
        expect(error).not.toContain("raw body");
      }
      expect(failed.withToken).toContain("the Authorization header in its configuration was refused");
      expect(failed.locked).not.toContain("was refused");
    } finally {
      await manager.close();
    }
  }, 60_000);
});
