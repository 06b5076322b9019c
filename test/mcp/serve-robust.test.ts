// `armature mcp serve` keeps serving whatever a client sends, ends on SIGTERM/SIGINT/SIGHUP, and over
// HTTP reaps idle sessions, caps them and cuts slow requests. The stdio cases run the real CLI
// over pipes; the HTTP cases the library's serveHttp with the official SDK client.
import { connect } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/tool/build-tool.js";
import { serveHttp } from "../../src/mcp/serve-transports.js";
import { createSession } from "../../src/session/session.js";
import { builtinTools } from "../../src/tools/index.js";
import { tempDir } from "./helpers.js";
import { fuzzStdioServer, INITIALIZE, startRawServer } from "./raw-stdio.js";

const tmp = tempDir();
writeFileSync(join(tmp.dir, "a.txt"), "alpha\n");
afterAll(() => tmp.cleanup());

describe("mcp serve over stdio answers what it cannot read, and goes on", () => {
  it("a line that is not JSON, an invalid message, an oversized one: each gets its JSON-RPC error", async () => {
    const server = startRawServer(tmp.dir, ["--max-message-mb", "1", "--verbose"]);
    try {
      expect((await server.request(1, "initialize", INITIALIZE)).result).toBeDefined();
      await server.write("{not json\n");
      const parse = await server.waitFor((r) => (r.error as { code?: number } | undefined)?.code === -32700);
      expect(parse.id).toBeNull();
      await server.write(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: 5 })}\n`);
      const invalid = await server.waitFor((r) => r.id === 7);
      expect(invalid.error).toMatchObject({ code: -32600, message: expect.stringContaining("method is not a string") });
      // 2 MiB in 64 KiB pieces, over the 1 MiB limit set above.
      const big = `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"${"x".repeat(2 * 1024 * 1024)}"}}\n`;
      for (let at = 0; at < big.length; at += 65_536) await server.write(big.slice(at, at + 65_536));
      const tooLong = await server.waitFor((r) => String((r.error as { message?: string } | undefined)?.message).includes("exceeded 1048576 bytes"));
      expect(tooLong.error).toMatchObject({ code: -32600 });
      // A whole oversized line in one write, then a valid request in the same write.
      await server.write(`{"pad":"${"y".repeat(1_100_000)}"}\n${JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" })}\n`);
      const list = await server.waitFor((r) => r.id === 9);
      expect((list.result as { tools: unknown[] }).tools.length).toBeGreaterThan(3);
      const read = await server.request(10, "tools/call", { name: "Read", arguments: { file_path: join(tmp.dir, "a.txt") } });
      expect(JSON.stringify(read.result)).toContain("alpha");
      // An unknown method and bad params get their error replies too.
      expect((await server.request(11, "nope/x", {})).error).toMatchObject({ code: -32601 });
      expect((await server.request(12, "tools/call", { name: 5 })).error).toBeDefined();
      expect(server.exited()).toBe(false);
      expect(server.stderr()).toMatch(/rejected a message: Parse error/);
    } finally {
      await server.stop();
    }
  }, 60_000);

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`${signal} ends it while the client keeps stdin open`, async () => {
      const server = startRawServer(tmp.dir);
      try {
        await server.request(1, "initialize", INITIALIZE);
        const exit = new Promise<number | null>((r) => server.child.once("exit", (code) => r(code)));
        const started = Date.now();
        server.child.kill(signal);
        const code = await exit;
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(code).toBe(0);
      } finally {
        await server.stop();
      }
    }, 30_000);
  }

  it("a seeded fuzz slice: no exit, and a ping after it is answered", async () => {
    const count = Number(process.env.ARMATURE_FUZZ_STDIO_MESSAGES ?? 300);
    const result = await fuzzStdioServer(tmp.dir, 2201, count, 1_200_000);
    expect(result.exited, result.stderr).toBe(false);
    expect(result.pingAnswered).toBe(true);
    expect(result.replies).toBeGreaterThan(count / 4);
  }, 120_000);
});

describe("mcp serve over HTTP: idle sessions, a session cap, a request deadline", () => {
  const makeSession = () => createSession({ cwd: tmp.dir, tools: builtinTools(), toolSearch: "false" });
  const token = "t".repeat(24);
  const client = (url: string) => {
    const c = new Client({ name: "t", version: "1" });
    return { c, transport: new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }) };
  };

  it("closes a session idle past the timeout (its event stream open or not) and says so in the log; a busy one stays", async () => {
    const log: string[] = [];
    const handle = await serveHttp(makeSession, { port: 0, token, idleTimeoutMs: 300, onEvent: (m) => log.push(m) });
    try {
      const idle = client(handle.url);
      await idle.c.connect(idle.transport);
      const busy = client(handle.url);
      await busy.c.connect(busy.transport);
      expect(handle.openSessions).toBe(2);
      const until = Date.now() + 900;
      while (Date.now() < until) {
        await busy.c.listTools();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(handle.openSessions).toBe(1);
      expect(log.some((l) => /closed idle MCP session \w+ .*1 reaped so far, 1 open/.test(l))).toBe(true);
      await expect(idle.c.listTools()).rejects.toThrow(/Session not found/);
      await busy.c.close();
    } finally {
      await handle.close();
    }
  }, 30_000);

  it("past the cap a new session closes the one idle longest (its client is told 404); 503 only while every session has a call running", async () => {
    // A tool whose calls run until the test lets them end.
    const running: Array<() => void> = [];
    const hold = buildTool({
      name: "Hold",
      description: "Runs until released.",
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: () => new Promise<{ data: string }>((resolve) => running.push(() => resolve({ data: "released" }))),
    });
    const log: string[] = [];
    const handle = await serveHttp(() => createSession({ cwd: tmp.dir, tools: [...builtinTools(), hold], toolSearch: "false" }), { port: 0, token, maxSessions: 2, idleTimeoutMs: 0, onEvent: (m) => log.push(m) });
    try {
      const a = client(handle.url);
      const b = client(handle.url);
      await a.c.connect(a.transport);
      await b.c.connect(b.transport);
      await b.c.listTools(); // a is now the one idle longest
      const c = client(handle.url);
      await c.c.connect(c.transport);
      expect(handle.openSessions).toBe(2);
      expect(log.some((l) => l.includes(`closed MCP session ${a.transport.sessionId}, idle longest`) && l.includes("under the limit of 2"))).toBe(true);
      await expect(a.c.listTools()).rejects.toThrow(/Session not found/);
      expect((await b.c.listTools()).tools.length).toBeGreaterThan(3);
      // Both sessions with a call running: nothing can be closed, so the next client waits.
      const calls = [b.c.callTool({ name: "Hold", arguments: {} }), c.c.callTool({ name: "Hold", arguments: {} })];
      while (running.length < 2) await new Promise((r) => setTimeout(r, 20));
      const d = client(handle.url);
      await expect(d.c.connect(d.transport)).rejects.toThrow(/Too many MCP sessions \(2 open, each with a call running|503/);
      expect(log.some((l) => l.includes("refused a new MCP session: 2 open, each with a call running; the limit is 2"))).toBe(true);
      for (const release of running) release();
      for (const call of await Promise.all(calls)) expect(JSON.stringify(call.content)).toContain("released");
      const e = client(handle.url);
      await e.c.connect(e.transport);
      expect((await e.c.listTools()).tools.length).toBeGreaterThan(3);
      for (const x of [b, c, e]) await x.c.close().catch(() => undefined);
    } finally {
      await handle.close();
    }
  }, 30_000);

  it("a request whose body does not all arrive in time gets 408 and the connection is cut", async () => {
    const handle = await serveHttp(makeSession, { port: 0, token, requestTimeoutMs: 500 });
    try {
      const started = Date.now();
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(handle.port, "127.0.0.1", () => {
          socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`);
        });
        let got = "";
        socket.on("data", (d: Buffer) => (got += d.toString("utf8")));
        socket.on("close", () => resolve(got));
        socket.on("error", () => resolve(got));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await handle.close();
    }
  }, 30_000);
});
