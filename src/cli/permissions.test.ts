import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import type { CliIO } from "./io.js";
import { main } from "./main.js";
import { loadExecSettings } from "./settings.js";
import { probeSandbox } from "../sandbox/probe.js";

function io(stdin = ""): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    readStdin: async () => stdin,
    isTTY: false,
    out: () => out,
    err: () => err,
  };
}

const saved = { HOME: process.env.HOME, managed: process.env.ARMATURE_MANAGED_SETTINGS };
let isolated: string;
beforeAll(() => {
  isolated = mkdtempSync(join(tmpdir(), "armature-cli-home-"));
  process.env.HOME = isolated;
  process.env.ARMATURE_MANAGED_SETTINGS = join(isolated, "none.json");
});
afterAll(() => {
  process.env.HOME = saved.HOME;
  if (saved.managed === undefined) delete process.env.ARMATURE_MANAGED_SETTINGS;
  else process.env.ARMATURE_MANAGED_SETTINGS = saved.managed;
  rmSync(isolated, { recursive: true, force: true });
});

async function check(args: string[], stdin = "") {
  const t = io(stdin);
  const code = await main(["permissions", "check", ...args], t);
  return { code, out: t.out(), err: t.err() };
}

describe("armature permissions check", () => {
  // Where bubblewrap runs: what exec does with a call that asks to leave the sandbox, mode by mode.
  it.skipIf(!probeSandbox().available).each([
    ["default", "ask"],
    ["acceptEdits", "ask"],
    ["auto", "ask"],
    ["bypassPermissions", "ask"],
    ["dontAsk", "deny"],
    ["plan", "deny"],
  ])("dangerouslyDisableSandbox in %s mode: %s, as exec does", async (mode, behavior) => {
    await withTempDir(async (dir) => {
      const input = JSON.stringify({ command: "touch /var/tmp/x", dangerouslyDisableSandbox: true });
      const r = await check(["--tool", "Bash", "--input", input, "--cwd", dir, "--mode", mode]);
      const decision = JSON.parse(r.out) as { behavior: string; source: string; classifiable?: boolean };
      expect(decision).toMatchObject({ behavior, source: "tool:Bash" });
      // The user's own setting lets bypassPermissions run it unasked; nothing else does.
      const settings = join(dir, "user.json");
      writeFileSync(settings, JSON.stringify({ sandbox: { allowUnsandboxedCommands: true } }));
      const unasked = JSON.parse((await check(["--tool", "Bash", "--input", input, "--cwd", dir, "--mode", mode, "--settings", settings])).out) as { behavior: string };
      expect(unasked.behavior).toBe(mode === "bypassPermissions" ? "allow" : behavior);
    });
  });

  it("prints behavior, reason, rule and source", async () => {
    await withTempDir(async (dir) => {
      const r = await check(["--tool", "Bash", "--input", '{"command":"npm run test -- --ci"}', "--cwd", dir, "--allow", "Bash(npm run test *)"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toEqual({
        behavior: "allow",
        reason: "Allowed by rule Bash(npm run test *)",
        rule: "Bash(npm run test *)",
        source: "command line",
        // The boundary it would run in: the working directories, or none where no sandbox can run.
        sandbox: expect.stringMatching(/^(workspace-write|unavailable)$/),
      });
    });
  });

  it("reads the settings files of --cwd and names the deciding file", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, ".armature"));
      const file = join(dir, ".armature", "settings.json");
      writeFileSync(file, JSON.stringify({ permissions: { deny: ["Bash(curl *)"] } }));
      const r = await check(["--tool", "Bash", "--input", '{"command":"ls && curl http://x"}', "--cwd", dir, "--mode", "bypassPermissions"]);
      expect(JSON.parse(r.out)).toMatchObject({ behavior: "deny", rule: "Bash(curl *)", source: file });
    });
  });

  it.each([
    [["--input", "{}"], "--tool"],
    [["--tool", "Read"], "--input"],
    [["--tool", "Read", "--input", "{nope"], "--input"],
    [["--tool", "Read", "--input", "{}", "--mode", "yolo"], "--mode"],
    [["--tool", "Read", "--input", "{}", "--allow", "Bash("], "--allow"],
    [["--tool", "Nope", "--input", "{}"], "--tool"],
    [["--tool", "Read", "--input", "{}", "--bogus"], "--bogus"],
  ])("bad arguments exit 2 and name the flag (%j)", async (args, flag) => {
    const r = await check(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
  });

  it("--batch prints one decision per line, errors as lines, and exits 2 if any line was bad", async () => {
    await withTempDir(async (dir) => {
      const lines = [
        { tool: "Bash", input: { command: "ls" } },
        { tool: "Bash", input: { command: "rm -rf src" }, deny: ["Bash(rm *)"] },
        { tool: "Read", input: { file_path: "/etc/passwd" }, mode: "dontAsk" },
        "not json",
        { tool: "WebFetch", input: { url: "https://a.example.com/", prompt: "p" }, allow: ["WebFetch(domain:*.example.com)"] },
      ].map((l) => (typeof l === "string" ? l : JSON.stringify(l)));
      const file = join(dir, "cases.jsonl");
      writeFileSync(file, lines.join("\n"));
      const r = await check(["--batch", file, "--cwd", dir]);
      const out = r.out.trim().split("\n").map((l) => JSON.parse(l));
      expect(out.map((o) => o.behavior ?? "error")).toEqual(["allow", "deny", "deny", "error", "allow"]);
      expect(out[3].error).toMatch(/line 4/);
      expect(r.code).toBe(2);
      const piped = await check(["--batch", "-", "--cwd", dir], lines[0]!);
      expect(JSON.parse(piped.out).behavior).toBe("allow");
    });
  });

  it("a --batch line whose cwd does not exist is an error for that line", async () => {
    await withTempDir(async (dir) => {
      const text = [{ tool: "Bash", input: { command: "ls" }, cwd: "nowhere" }, { tool: "Bash", input: { command: "ls" } }].map((l) => JSON.stringify(l)).join("\n");
      const r = await check(["--batch", "-", "--cwd", dir], text);
      const [bad, good] = r.out.trim().split("\n").map((l) => JSON.parse(l));
      expect(bad).toEqual({ error: `line 1: cwd ${join(dir, "nowhere")} is not a directory`, line: 1 });
      expect(good.behavior).toBe("allow");
      expect(r.code).toBe(2);
    });
  });

  it("a tool exec does not have gets its decision with a note saying so", async () => {
    await withTempDir(async (dir) => {
      const r = await check(["--tool", "WebSearch", "--input", '{"query":"zod"}', "--cwd", dir, "--allow", "WebSearch"]);
      expect(JSON.parse(r.out)).toMatchObject({ behavior: "allow", note: "WebSearch is not a tool armature exec has: this is the decision its rules would give a host that adds it" });
      const own = await check(["--tool", "Read", "--input", '{"file_path":"x"}', "--cwd", dir]);
      expect(JSON.parse(own.out)).not.toHaveProperty("note");
    });
  });

  it("--exit-code: 0 allow, 3 ask, 4 deny; with --batch the strictest line; without it, always 0", async () => {
    await withTempDir(async (dir) => {
      const base = ["--cwd", dir, "--deny", "Bash(rm *)"];
      const allow = ["--tool", "Bash", "--input", '{"command":"ls"}'];
      const ask = ["--tool", "Bash", "--input", '{"command":"touch x"}'];
      const deny = ["--tool", "Bash", "--input", '{"command":"rm x"}'];
      expect((await check([...allow, ...base, "--exit-code"])).code).toBe(0);
      expect((await check([...ask, ...base, "--exit-code"])).code).toBe(3);
      expect((await check([...deny, ...base, "--exit-code"])).code).toBe(4);
      expect((await check([...deny, ...base])).code).toBe(0);
      const lines = [{ tool: "Bash", input: { command: "ls" } }, { tool: "Bash", input: { command: "touch x" } }].map((l) => JSON.stringify(l)).join("\n");
      expect((await check(["--batch", "-", ...base, "--exit-code"], lines)).code).toBe(3);
    });
  });
});

describe("armature permissions list", () => {
  it("shows the effective rules with their sources, and warnings", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, ".armature"));
      writeFileSync(join(dir, ".armature", "settings.local.json"), JSON.stringify({ permissions: { allow: ["Bash(make *)"], deny: ["Raed(x)"] } }));
      const untrusted = io();
      expect(await main(["permissions", "list", "--cwd", dir, "--json"], untrusted)).toBe(0);
      expect(JSON.parse(untrusted.out()).rules.map((r: { rule: string }) => r.rule)).toEqual(["Raed(x)"]);
      expect(await main(["trust", dir], io())).toBe(0);
      const t = io();
      expect(await main(["permissions", "list", "--cwd", dir, "--ask", "Bash(git push *)", "--json"], t)).toBe(0);
      const json = JSON.parse(t.out());
      expect(json.rules).toEqual([
        { behavior: "ask", rule: "Bash(git push *)", source: "command line" },
        { behavior: "deny", rule: "Raed(x)", source: join(dir, ".armature", "settings.local.json") },
        { behavior: "allow", rule: "Bash(make *)", source: join(dir, ".armature", "settings.local.json") },
      ]);
      expect(json.warnings.join("\n")).toMatch(/unknown tool "Raed"/);
      const text = io();
      await main(["permissions", "list", "--cwd", dir], text);
      expect(text.out()).toMatch(/allow:\n {2}Bash\(make \*\) {4}.*settings\.local\.json/);
    });
  });
});

describe("armature exec settings", () => {
  it("reads every level of --cwd; env from settings reaches the session's tool environment", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      mkdirSync(join(dir, ".armature"));
      writeFileSync(join(dir, ".armature", "settings.json"), JSON.stringify({ env: { FOO: "project" }, permissions: { deny: ["Bash(curl *)"], additionalDirectories: ["../shared"] } }));
      writeFileSync(join(dir, ".armature", "settings.local.json"), JSON.stringify({ env: { FOO: "local" }, hooks: { PreToolUse: [] } }));
      // Untrusted, a project's own settings may only restrict: the deny rule applies, nothing else.
      const u = await loadExecSettings({ cwd: dir, cli: { allow: ["Bash(ls *)"] } });
      expect(u.rules.map((r) => r.raw)).toEqual(["Bash(ls *)", "Bash(curl *)"]);
      expect(u.env).toEqual({});
      expect(u.additionalDirectories).toEqual([]);
      expect(u.hookConfigs).toEqual([]);
      expect(u.warnings[0]).toContain(`${dir} is not trusted`);
      expect(u.warnings[0]).toContain('permissions.additionalDirectories ["../shared"]');
      // Trusted (here for this run), they apply; env only with inert names unless the user lets it.
      const s = await loadExecSettings({ cwd: dir, trustProject: true, allowProjectEnv: true, cli: { allow: ["Bash(ls *)"] } });
      expect(s.env).toEqual({ FOO: "local" });
      expect(s.additionalDirectories).toEqual([join(dir, "..", "shared")]);
      expect(s.hookConfigs).toEqual([{ source: join(dir, ".armature", "settings.local.json"), config: { PreToolUse: [] }, fromProject: true }]);
      const session = createSession({ cwd: dir, env: s.env, rules: s.rules });
      expect(session.context.session.env).toEqual({ FOO: "local" });
      await session.close();
    });
  });

  it("a bad settings file stops exec with exit 2, naming the file and key", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, ".armature"));
      writeFileSync(join(dir, ".armature", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm"] } }));
      const t = io("[]");
      expect(await main(["exec", "--cwd", dir], t)).toBe(2);
      expect(t.err()).toContain(join(dir, ".armature", "settings.json"));
      expect(t.err()).toContain("permissions.deny[0]");
    });
  });
});
