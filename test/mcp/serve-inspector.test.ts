import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, startServeHttp, tempDir } from "./helpers.js";

// The MCP Inspector's page is served from http://localhost:6274 and, connected directly, calls
// the server from the browser: a CORS preflight first (without the token), then the requests.
const INSPECTOR = "http://localhost:6274";
const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "inspector", version: "1" } } });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("mcp serve --http for the MCP Inspector", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("answers a loopback page's preflight and lets it read the session id; the token is still required, a foreign origin still refused", async () => {
    const served = await startServeHttp(["--cwd", tmp.dir]);
    try {
      const preflight = await fetch(served.url, {
        method: "OPTIONS",
        headers: { origin: INSPECTOR, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, mcp-protocol-version" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(INSPECTOR);
      expect(preflight.headers.get("access-control-allow-headers")).toMatch(/authorization.*mcp-session-id/);
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");

      const noToken = await fetch(served.url, { method: "POST", headers: { ...MCP_HEADERS, origin: INSPECTOR }, body: INITIALIZE });
      expect(noToken.status).toBe(401);

      const init = await fetch(served.url, { method: "POST", headers: { ...MCP_HEADERS, origin: INSPECTOR, authorization: `Bearer ${served.token}` }, body: INITIALIZE });
      expect(init.status).toBe(200);
      expect(init.headers.get("access-control-allow-origin")).toBe(INSPECTOR);
      expect(init.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
      expect(init.headers.get("mcp-session-id")).toMatch(/^[0-9a-f]{32}$/);
      await init.body?.cancel();

      const foreign = await fetch(served.url, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await served.stop();
    }
  }, 60_000);

  it("--no-token serves a loopback address without a token, saying so; the SDK's client connects with no header", async () => {
    const served = await startServeHttp(["--cwd", tmp.dir, "--no-token"]);
    try {
      expect(served.token).toBeUndefined();
      expect(served.stderr).toContain("serving without a token (--no-token)");
      const client = new Client({ name: "inspector", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("Read");
      await client.close();
      // The Origin and Host checks still hold without a token.
      const foreign = await fetch(served.url, { method: "POST", headers: { ...MCP_HEADERS, origin: "https://evil.example" }, body: INITIALIZE });
      expect(foreign.status).toBe(403);
    } finally {
      await served.stop();
    }
  }, 60_000);

  it.each([
    [["--no-token", "--http", "0.0.0.0:0"], "--no-token serves only on a loopback address (127.0.0.1, ::1, localhost); --http binds 0.0.0.0"],
    [["--no-token", "--http", "0", "--token", "a-token-of-sixteen-chars"], "--no-token and --token contradict each other"],
    [["--no-token"], "--no-token is for --http"],
  ])("refuses %j (exit 2, naming the flag)", (args, message) => {
    const r = spawnSync(process.execPath, [BIN, "mcp", "serve", "--cwd", tmp.dir, ...args], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
