import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, parseMcpServers, type McpEvent } from "../../src/mcp/index.js";
import { hasStoredTokens, loginMcpServer } from "../../src/mcp/oauth.js";
import { createSession } from "../../src/session/session.js";
import { BIN, tempDir } from "./helpers.js";

const OAUTH_FIXTURE = resolve(import.meta.dirname, "../fixtures/oauth-mcp-server.mjs");

describe("OAuth 2.1 for a remote MCP server: armature mcp login, stored tokens, refresh", () => {
  const config = tempDir("armature-oauth-");
  let fixture: ChildProcess;
  let base = "";
  let servers = "";
  beforeAll(async () => {
    fixture = spawn(process.execPath, [OAUTH_FIXTURE], { stdio: ["ignore", "pipe", "inherit"] });
    const port = await new Promise<number>((ok) => createInterface({ input: fixture.stdout! }).once("line", (l) => ok((JSON.parse(l) as { port: number }).port)));
    base = `http://127.0.0.1:${port}`;
    servers = JSON.stringify({ mcpServers: { remote: { type: "http", url: `${base}/mcp` } } });
  }, 60_000);
  afterAll(() => {
    fixture.kill("SIGTERM");
    config.cleanup();
  });

  const connect = async () => {
    const events: McpEvent[] = [];
    const parsed = parseMcpServers(JSON.parse(servers), "test", "dynamic");
    const manager = await connectMcpServers(parsed.servers, { cwd: process.cwd(), oauthConfigDir: config.dir, onEvent: (e) => events.push(e) });
    return { manager, events };
  };
  const stats = async () => (await (await fetch(`${base}/stats`)).json()) as { registrations: number; logins: number; refreshes: number };

  it("logs in through the browser flow, then calls with the saved tokens and refreshes them when they expire", async () => {
    // Before any login: an error naming the server and the command.
    const before = await connect();
    const failed = before.events.find((e) => e.type === "failed") as { error: string } | undefined;
    expect(failed?.error).toContain("MCP server remote answered 401 Unauthorized: it needs OAuth authorization. Run `armature mcp login remote` once");
    await before.manager.close();

    const login = spawn(process.execPath, [BIN, "mcp", "login", "remote", "--mcp-config", servers, "--timeout", "60"], {
      env: { ...process.env, ARMATURE_CONFIG_DIR: config.dir },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const exited = new Promise<number | null>((r) => login.once("exit", r));
    let address = "";
    for await (const line of createInterface({ input: login.stderr! })) {
      stderr += `${line}\n`;
      if (/^https?:\/\//.test(line)) {
        address = line;
        break;
      }
    }
    login.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    // The person's browser: the login page approves at once and sends it back to the callback on 127.0.0.1.
    const authorize = new URL(address);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const page = await fetch(authorize, { redirect: "manual" });
    expect(page.status).toBe(302);
    const back = await fetch(page.headers.get("location")!);
    expect(await back.text()).toContain("logged in");
    expect(await exited).toBe(0);
    expect(stderr).toContain("armature: logged in to remote");

    const dir = join(config.dir, "mcp-oauth");
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(join(dir, file!), "utf8")) as { tokens: { access_token: string; refresh_token: string } };
    expect(saved.tokens.refresh_token).toBeTruthy();
    expect(await stats()).toMatchObject({ registrations: 1, logins: 1, refreshes: 0 });

    const after = await connect();
    const session = createSession({ cwd: process.cwd(), toolSource: after.manager, allow: ["mcp__remote"] });
    try {
      expect(after.manager.servers()[0]!.status).toBe("connected");
      const [r] = await session.runTurn([{ type: "tool_use", id: "w1", name: "mcp__remote__whoami", input: {} }]);
      expect((r!.content as Array<{ text: string }>)[0]!.text).toMatch(/^client [0-9a-f-]{36}$/);
      await fetch(`${base}/expire`);
      const [again] = await session.runTurn([{ type: "tool_use", id: "w2", name: "mcp__remote__whoami", input: {} }]);
      expect(again!.is_error).toBeFalsy();
      expect(await stats()).toMatchObject({ logins: 1, refreshes: 1 });
      const refreshed = JSON.parse(readFileSync(join(dir, file!), "utf8")) as { tokens: { access_token: string } };
      expect(refreshed.tokens.access_token).not.toBe(saved.tokens.access_token);
    } finally {
      await session.close();
    }
  }, 90_000);

  it.each([
    ["a forged state", (u: URL) => `${u.searchParams.get("redirect_uri")}?code=stolen&state=forged`, "without a valid code and state"],
    ["no code", (u: URL) => `${u.searchParams.get("redirect_uri")}?state=${u.searchParams.get("state")}`, "without a valid code and state"],
    ["an error from the server", (u: URL) => `${u.searchParams.get("redirect_uri")}?error=access_denied&state=${u.searchParams.get("state")}`, "the server refused the login: access_denied"],
  ])("a callback with %s ends the login and saves no tokens", async (_what, forged, message) => {
    const other = tempDir("armature-oauth-attack-");
    try {
      const url = `${base}/mcp`;
      let opened: URL | undefined;
      const login = loginMcpServer("remote", url, { configDir: other.dir, timeoutMs: 30_000, onAuthorizationUrl: (u) => (opened = u) }).catch((err: Error) => err);
      while (!opened) await new Promise((r) => setTimeout(r, 20));
      const answer = await fetch(forged(opened));
      expect(answer.status).toBe(400);
      const outcome = await login;
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toContain(message);
      expect(await hasStoredTokens(other.dir, url)).toBe(false);
    } finally {
      other.cleanup();
    }
  }, 60_000);
});
