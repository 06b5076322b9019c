import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, tempDir } from "./helpers.js";

const BIN = resolve(import.meta.dirname, "../../bin/armature.js");

function stdioClient(cwd: string, extra: string[] = [], elicit?: (message: string) => { action: "accept" | "decline"; content?: Record<string, unknown> }, env?: Record<string, string>) {
  const client = new Client({ name: "test-client", version: "1" }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (req) => elicit(req.params.message));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "serve", "--cwd", cwd, ...extra],
    stderr: "pipe",
    ...(env ? { env: { ...(process.env as Record<string, string>), ...env } } : {}),
  });
  return { client, transport };
}

const text = (r: unknown): string => ((r as CallToolResult).content as Array<{ text: string }>).map((c) => c.text).join("\n");

describe("armature mcp serve (stdio), through the SDK's own client", () => {
  const tmp = tempDir();
  beforeAll(() => writeFileSync(join(tmp.dir, "a.txt"), "alpha\nbeta\n"));
  afterAll(() => tmp.cleanup());

  it("lists the built-ins with annotations from our contract, and calls them through the pipeline", async () => {
    const { client, transport } = stdioClient(tmp.dir);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(Object.keys(byName)).toEqual(expect.arrayContaining(["Bash", "Edit", "Glob", "Grep", "Read", "Write"]));
      expect(byName.ToolSearch).toBeUndefined();
      expect(byName.Read!.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
      expect(byName.Write!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
      expect(byName.Read!.inputSchema).toMatchObject({ type: "object", required: ["file_path"] });
      const read = await client.callTool({ name: "Read", arguments: { file_path: join(tmp.dir, "a.txt") } });
      expect(read.isError).toBeFalsy();
      expect(text(read)).toContain("1\talpha");
      const bad = await client.callTool({ name: "Read", arguments: {} });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain("The required parameter `file_path` is missing");
      // A call that needs approval, from a client without elicitation: denied with the reason.
      const write = await client.callTool({ name: "Write", arguments: { file_path: join(tmp.dir, "new.txt"), content: "x" } });
      expect(write.isError).toBe(true);
      expect(text(write)).toContain("cannot be asked (it does not support elicitation)");
      const unknown = await client.callTool({ name: "Nope", arguments: {} });
      expect(text(unknown)).toContain("No such tool available: Nope");
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a background task's end notification reaches the client as notifications/message", async () => {
    const { client, transport } = stdioClient(tmp.dir, ["--mode", "bypassPermissions"]);
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params.data));
    await client.connect(transport);
    try {
      const started = await client.callTool({ name: "Bash", arguments: { command: "echo bg-done", run_in_background: true, description: "Say done" } });
      expect(text(started)).toMatch(/^Command running in background with ID: /);
      await new Promise((r) => setTimeout(r, 700));
      await client.callTool({ name: "Bash", arguments: { command: "echo next" } });
      await new Promise((r) => setTimeout(r, 100));
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ type: "message", role: "user", content: expect.stringContaining("<status>completed</status>") });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("asks through MCP elicitation: accepted runs the call, declined denies it", async () => {
    const asked: string[] = [];
    let answer: "accept" | "decline" = "accept";
    const { client, transport } = stdioClient(tmp.dir, [], (message) => {
      asked.push(message);
      return answer === "accept" ? { action: "accept", content: { approve: true } } : { action: "decline" };
    });
    await client.connect(transport);
    try {
      const ok = await client.callTool({ name: "Write", arguments: { file_path: join(tmp.dir, "approved.txt"), content: "yes" } });
      expect(ok.isError).toBeFalsy();
      expect(readFileSync(join(tmp.dir, "approved.txt"), "utf8")).toBe("yes");
      expect(asked[0]).toMatch(/^armature: Write needs approval/);
      answer = "decline";
      const no = await client.callTool({ name: "Bash", arguments: { command: `touch ${join(tmp.dir, "declined")}` } });
      expect(no.isError).toBe(true);
      expect(text(no)).toContain("declined this call through the MCP client");
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("the served directory's rules and flags apply: a deny rule hides and refuses, an allow rule runs without asking", async () => {
    const { client, transport } = stdioClient(tmp.dir, ["--deny", "Bash", "--allow", "Write"]);
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("Bash");
      const bash = await client.callTool({ name: "Bash", arguments: { command: "echo hi" } });
      expect(bash.isError).toBe(true);
      const write = await client.callTool({ name: "Write", arguments: { file_path: join(tmp.dir, "allowed.txt"), content: "ok" } });
      expect(write.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 60_000);

  it("serves the MCP tools it is connected to with --include-mcp-tools", async () => {
    const config = JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } } });
    const { client, transport } = stdioClient(tmp.dir, ["--mcp-config", config, "--include-mcp-tools", "--allow", "mcp__fx"]);
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools;
      const add = tools.find((t) => t.name === "mcp__fx__add");
      expect(add?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
      expect(tools.find((t) => t.name === "mcp__fx__echo")?.annotations?.readOnlyHint).toBe(true);
      expect(text(await client.callTool({ name: "mcp__fx__add", arguments: { a: 1, b: 2 } }))).toBe('{"sum":3}');
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("armature mcp serve: skills", () => {
  const tmp = tempDir();
  const config = join(tmp.dir, "config");
  const project = join(tmp.dir, "project");
  const put = (path: string, body: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
  };
  beforeAll(() => {
    put(join(config, "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies imports.\nallowed-tools: Write\n---\nSort the imports of $ARGUMENTS.\n");
    put(join(project, ".armature", "skills", "house-style", "SKILL.md"), "---\nname: house-style\ndescription: The project's style.\n---\nTabs.\n");
  });
  afterAll(() => tmp.cleanup());
  const env = { ARMATURE_CONFIG_DIR: config };

  it("the Skill tool and the listing (server instructions, Skill's description); the reference's texts; allowed-tools pre-approves; an untrusted project's skills are not offered", async () => {
    const { client, transport } = stdioClient(project, [], undefined, env);
    await client.connect(transport);
    try {
      const listing = "The following skills are available for use with the Skill tool:\n\n- tidy: Tidies imports.";
      expect(client.getInstructions()).toBe(listing);
      const skill = (await client.listTools()).tools.find((t) => t.name === "Skill");
      expect(skill?.description).toMatch(new RegExp(`\n\n${listing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
      // Before the skill: a Write would ask, and this client cannot be asked.
      const before = await client.callTool({ name: "Write", arguments: { file_path: join(project, "a.ts"), content: "x" } });
      expect(before.isError).toBe(true);
      const loaded = await client.callTool({ name: "Skill", arguments: { skill: "tidy", args: "src/a.ts" } });
      expect(loaded.isError).toBeFalsy();
      const parts = (loaded.content as Array<{ type: string; text: string }>).map((c) => c.text);
      expect(parts).toEqual(["Launching skill: tidy", `Base directory for this skill: ${join(config, "skills", "tidy")}\n\nSort the imports of src/a.ts.\n`]);
      const after = await client.callTool({ name: "Write", arguments: { file_path: join(project, "a.ts"), content: "x" } });
      expect(after.isError).toBeFalsy();
      expect(readFileSync(join(project, "a.ts"), "utf8")).toBe("x");
      const unknown = await client.callTool({ name: "Skill", arguments: { skill: "house-style" } });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain("Unknown skill: house-style");
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a trusted project's skills are offered too, listed first; with no skill at all there is no Skill tool and no instructions", async () => {
    const trusted = spawnSync(process.execPath, [BIN, "trust", project], { encoding: "utf8", env: { ...process.env, ...env } });
    expect(trusted.status, trusted.stderr).toBe(0);
    const { client, transport } = stdioClient(project, [], undefined, env);
    await client.connect(transport);
    try {
      expect(client.getInstructions()).toBe("The following skills are available for use with the Skill tool:\n\n- house-style: The project's style.\n- tidy: Tidies imports.");
      expect(text(await client.callTool({ name: "Skill", arguments: { skill: "/house-style" } }))).toContain("Tabs.");
    } finally {
      await client.close();
    }
    const bare = stdioClient(tmp.dir, [], undefined, { ARMATURE_CONFIG_DIR: join(tmp.dir, "empty-config") });
    await bare.client.connect(bare.transport);
    try {
      expect(bare.client.getInstructions()).toBeUndefined();
      expect((await bare.client.listTools()).tools.map((t) => t.name)).not.toContain("Skill");
    } finally {
      await bare.client.close();
    }
  }, 60_000);
});

describe("armature mcp serve --http", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("requires the bearer token it generated and printed; serves with it", async () => {
    const child = spawn(process.execPath, [BIN, "mcp", "serve", "--cwd", tmp.dir, "--http", "0"], { stdio: ["ignore", "ignore", "pipe"] });
    try {
      const lines = createInterface({ input: child.stderr! });
      let url = "";
      let token = "";
      for await (const line of lines) {
        const u = /serving MCP at (\S+)/.exec(line);
        if (u) url = u[1]!;
        const t = /bearer token: (\S+)/.exec(line);
        if (t) token = t[1]!;
        if (url && token) break;
      }
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const denied = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
      expect(denied.status).toBe(401);
      const wrong = new Client({ name: "t", version: "1" });
      await expect(wrong.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer wrong" } } }))).rejects.toThrow();
      const client = new Client({ name: "t", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("Read");
      const glob = await client.callTool({ name: "Glob", arguments: { pattern: "*" } });
      expect(glob.isError).toBeFalsy();
      await client.close();
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);

  it("bad flags are usage errors naming the flag", () => {
    const r = spawnSync(process.execPath, [BIN, "mcp", "serve", "--http", "nope"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--http takes [HOST:]PORT");
    const t = spawnSync(process.execPath, [BIN, "mcp", "serve", "--http", "0", "--token", "short"], { encoding: "utf8" });
    expect(t.status).toBe(2);
    expect(t.stderr).toContain("--token must be at least 16 characters");
  });
});

describe("armature exec --mcp-config", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("connects the servers, runs their tools through the pipeline, and reports a server that fails", () => {
    const config = join(tmp.dir, "servers.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] }, dead: { command: process.execPath, args: [FIXTURE, "--crash-on-start"] } } }));
    const turn = JSON.stringify([
      { type: "tool_use", id: "a", name: "mcp__fx__echo", input: { text: "via exec" } },
      { type: "tool_use", id: "b", name: "mcp__fx__add", input: { a: 1, b: 1 } },
    ]);
    const r = spawnSync(process.execPath, [BIN, "exec", "-", "--cwd", tmp.dir, "--mcp-config", config, "--allow", "mcp__fx__add", "--allow", "mcp__fx__echo"], { input: turn, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as { content: Array<{ content: unknown }> };
    expect(out.content[0]!.content).toEqual([{ type: "text", text: "via exec" }]);
    expect(out.content[1]!.content).toBe('{"sum":2}');
    expect(r.stderr).toMatch(/MCP server dead failed to start/);
  }, 60_000);

  it("project .mcp.json servers need a trusted project and the user's approval", () => {
    writeFileSync(join(tmp.dir, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [FIXTURE] } } }));
    const turn = JSON.stringify([{ type: "tool_use", id: "a", name: "mcp__proj__echo", input: { text: "p" } }]);
    const home = join(tmp.dir, "home");
    const env = { ...process.env, ARMATURE_CONFIG_DIR: home, HOME: home };
    const untrusted = spawnSync(process.execPath, [BIN, "exec", "-", "--cwd", tmp.dir], { input: turn, encoding: "utf8", env, timeout: 60_000 });
    expect(untrusted.stderr).toContain(`.mcp.json: mcpServers (proj: runs ${process.execPath} ${JSON.stringify(FIXTURE)})`);
    expect(untrusted.stdout).toContain("No such tool available: mcp__proj__echo");
    const unapproved = spawnSync(process.execPath, [BIN, "exec", "-", "--cwd", tmp.dir, "--trust-project"], { input: turn, encoding: "utf8", env, timeout: 60_000 });
    expect(unapproved.stderr).toContain("not approved");
    const settings = join(tmp.dir, "user-settings.json");
    // Approved, and allowed: echo's readOnlyHint alone would not run it.
    // The project's server runs in the project-code boundary, which has a /tmp of its own: where
    // this checkout lies under /tmp, the user lets the boundary see it (the fixture and its modules).
    writeFileSync(settings, JSON.stringify({ enabledMcpjsonServers: ["proj"], permissions: { allow: ["mcp__proj__echo"] }, sandbox: { filesystem: { allowRead: [process.cwd()] } } }));
    const approved = spawnSync(process.execPath, [BIN, "exec", "-", "--cwd", tmp.dir, "--trust-project", "--settings", settings], { input: turn, encoding: "utf8", env, timeout: 60_000 });
    expect(approved.stdout).toContain('"text":"p"');
  }, 120_000);
});
