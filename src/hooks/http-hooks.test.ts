import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { cmd, runnerFor, script, toolInput } from "../../test/hook-helpers.js";
import { startTestProxy } from "../../test/proxy-server.js";
import { expandHeaderValue } from "./http.js";
import { createHookRunner } from "./runner.js";

interface Seen {
  method: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let base = "";
const seen: Seen[] = [];
const hanging = new Set<ServerResponse>();

const routes: Record<string, (res: ServerResponse) => void> = {
  "/deny": (res) => json(res, 200, { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "blocked by the policy server" } }),
  "/allow": (res) => json(res, 200, { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "ls -la" } } }),
  "/context": (res) => json(res, 201, { systemMessage: "logged", hookSpecificOutput: { additionalContext: "audit id 42" } }),
  "/empty": (res) => res.writeHead(204).end(),
  "/text": (res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"),
  "/garbage": (res) => res.writeHead(200).end("{not json at all"),
  "/error": (res) => json(res, 500, { hookSpecificOutput: { permissionDecision: "deny" } }),
  "/redirect": (res) => res.writeHead(302, { location: "/deny" }).end(),
  "/hang": (res) => void hanging.add(res),
};

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", headers: req.headers, body });
      (routes[req.url ?? ""] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function http(path: string, extra: object = {}): object {
  return { type: "http", url: `${base}${path}`, ...extra };
}

describe("HTTP hooks", () => {
  it("POSTs the input JSON with headers; ${VAR} expands only listed env vars", async () => {
    await withTempDir(async (dir) => {
      seen.length = 0;
      const runner = runnerFor(
        dir,
        "PreToolUse",
        [http("/empty", { headers: { Authorization: "Bearer ${HOOK_TOKEN}", "X-Other": "[$SECRET_KEY]", "X-Plain": "v1" }, allowedEnvVars: ["HOOK_TOKEN"] })],
        undefined,
        { env: { HOOK_TOKEN: "t0k3n", SECRET_KEY: "do-not-send" } },
      );
      const out = await runner.run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors).toEqual([]);
      expect(seen).toHaveLength(1);
      const req = seen[0]!;
      expect(req.method).toBe("POST");
      expect(req.headers["content-type"]).toBe("application/json");
      expect(req.headers.authorization).toBe("Bearer t0k3n");
      expect(req.headers["x-other"]).toBe("[]");
      expect(req.headers["x-plain"]).toBe("v1");
      expect(JSON.parse(req.body)).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    });
  });

  it("a 2xx JSON body is read like a command hook's stdout", async () => {
    await withTempDir(async (dir) => {
      const deny = await runnerFor(dir, "PreToolUse", [http("/deny")]).run("PreToolUse", toolInput("PreToolUse"));
      expect(deny).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "blocked by the policy server", errors: [] });
      const allow = await runnerFor(dir, "PreToolUse", [http("/allow")]).run("PreToolUse", toolInput("PreToolUse"));
      expect(allow).toMatchObject({ permissionDecision: "allow", updatedInput: { command: "ls -la" } });
      const ctx = await runnerFor(dir, "PostToolUse", [http("/context")]).run("PostToolUse", toolInput("PostToolUse"));
      expect(ctx).toMatchObject({ systemMessages: ["logged"], additionalContext: ["audit id 42"], errors: [] });
    });
  });

  it("an empty or plain-text 2xx answer is a success without a decision", async () => {
    await withTempDir(async (dir) => {
      for (const path of ["/empty", "/text"]) {
        const out = await runnerFor(dir, "PreToolUse", [http(path)]).run("PreToolUse", toolInput("PreToolUse"));
        expect(out).toMatchObject({ errors: [], additionalContext: [] });
        expect(out.permissionDecision).toBeUndefined();
      }
    });
  });

  const failures: Array<[string, string, object, RegExp]> = [
    ["a non-2xx status cannot block, even with a deny body", "/error", {}, /answered HTTP 500; it made no decision/],
    ["a redirect is not followed", "/redirect", {}, /answered HTTP 302/],
    ["a 404", "/missing", {}, /answered HTTP 404/],
    ["garbage JSON", "/garbage", {}, /not valid JSON/],
    ["a timeout", "/hang", { timeout: 1 }, /timed out after 1 s/],
  ];
  it.each(failures)("%s is a non-blocking error", async (_name, path, extra, message) => {
    await withTempDir(async (dir) => {
      const out = await runnerFor(dir, "PreToolUse", [http(path, extra)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.permissionDecision).toBeUndefined();
      expect(out.blockReason).toBeUndefined();
      expect(out.errors).toHaveLength(1);
      expect(out.errors[0]).toMatch(message);
    });
  });

  it("a refused connection is a non-blocking error", async () => {
    await withTempDir(async (dir) => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const out = await runnerFor(dir, "PreToolUse", [{ type: "http", url: `http://127.0.0.1:${port}/h` }]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors[0]).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/h failed: fetch failed \(ECONNREFUSED\)/);
    });
  });

  it("HTTP_PROXY: the hook's request goes through the proxy (absolute form); NO_PROXY sends it direct", async () => {
    const proxy = await startTestProxy();
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
    process.env.HTTP_PROXY = proxy.url;
    delete process.env.NO_PROXY;
    try {
      await withTempDir(async (dir) => {
        const deny = await runnerFor(dir, "PreToolUse", [http("/deny")]).run("PreToolUse", toolInput("PreToolUse"));
        expect(deny).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "blocked by the policy server" });
        expect(proxy.asked).toEqual([`POST ${base}/deny`]);
        process.env.NO_PROXY = "127.0.0.1";
        const direct = await runnerFor(dir, "PreToolUse", [http("/deny")]).run("PreToolUse", toolInput("PreToolUse"));
        expect(direct.permissionDecision).toBe("deny");
        expect(proxy.asked).toHaveLength(1);
      });
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await proxy.close();
    }
  });

  it("the abort signal cancels a pending request", async () => {
    await withTempDir(async (dir) => {
      const controller = new AbortController();
      const running = runnerFor(dir, "PreToolUse", [http("/hang")]).run("PreToolUse", toolInput("PreToolUse"), "Bash", controller.signal);
      setTimeout(() => controller.abort(), 50);
      const out = await running;
      expect(out.errors[0]).toMatch(/was stopped because the call was aborted/);
    });
  });

  it("allowedHttpHookUrls drops hooks to other URLs; httpHookAllowedEnvVars narrows header expansion", async () => {
    await withTempDir(async (dir) => {
      seen.length = 0;
      const config = {
        PreToolUse: [
          {
            hooks: [
              http("/empty", { headers: { "X-A": "${VAR_A}", "X-B": "${VAR_B}" }, allowedEnvVars: ["VAR_A", "VAR_B"] }),
              { type: "http", url: "https://elsewhere.example/hook" },
            ],
          },
        ],
      };
      const runner = createHookRunner([{ source: "project.json", config }], {
        projectDir: dir,
        env: { VAR_A: "a", VAR_B: "b" },
        allowedHttpHookUrls: [`${base}/*`],
        httpHookAllowedEnvVars: ["VAR_A"],
      });
      expect(runner.warnings).toEqual(["project.json: hooks.PreToolUse[0].hooks[1].url: https://elsewhere.example/hook is not in allowedHttpHookUrls; this hook never runs"]);
      const out = await runner.run("PreToolUse", toolInput("PreToolUse"));
      expect(out).toMatchObject({ hookCount: 1, errors: [] });
      expect(seen[0]!.headers["x-a"]).toBe("a");
      expect(seen[0]!.headers["x-b"]).toBe("");
      const none = createHookRunner([{ source: "project.json", config }], { projectDir: dir, allowedHttpHookUrls: [] });
      expect(none.has("PreToolUse", "Bash")).toBe(false);
    });
  });

  it("command and HTTP hooks combine: deny from either wins", async () => {
    await withTempDir(async (dir) => {
      const allow = await script(dir, "allow.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`);
      const runner = createHookRunner(
        [
          { source: "user.json", config: { PreToolUse: [{ matcher: "Bash", hooks: [cmd(allow)] }] } },
          { source: "project.json", config: { PreToolUse: [{ matcher: "Bash", hooks: [http("/deny")] }] } },
        ],
        { projectDir: dir },
      );
      const out = await runner.run("PreToolUse", toolInput("PreToolUse"), "Bash");
      expect(out.permissionDecision).toBe("deny");
      expect(out.hookCount).toBe(2);
    });
  });
});

describe("expandHeaderValue", () => {
  const env = { A: "1", B: "2" };
  it.each([
    ["$A-${B}", ["A", "B"], "1-2"],
    ["$A-${B}", ["A"], "1-"],
    ["${UNSET}", ["UNSET"], ""],
    ["no vars", [], "no vars"],
    ["$$A", ["A"], "$1"],
  ])("%j with %j → %j", (value, allowed, expected) => {
    expect(expandHeaderValue(value, allowed, env)).toBe(expected);
  });
});
