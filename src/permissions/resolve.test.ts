import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facts, namedTool, request, sub, type RequestSpec } from "../../test/permission-helpers.js";
import { deniedPathRule } from "./match.js";
import { resolvePermission } from "./resolve.js";
import { parseRule, ruleWarnings } from "./rule.js";

let root: string;
let proj: string;
const bash = namedTool("Bash");
const read = namedTool("Read", { readOnly: true });
const write = namedTool("Write");
const webFetch = namedTool("WebFetch", { readOnly: true });

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-perm-")));
  proj = join(root, "proj");
  mkdirSync(join(proj, "src"), { recursive: true });
  mkdirSync(join(root, "proj-evil"), { recursive: true });
  mkdirSync(join(root, "secrets"), { recursive: true });
  writeFileSync(join(root, "secrets", "key"), "k");
  writeFileSync(join(proj, ".env"), "X=1");
  symlinkSync(join(root, "secrets", "key"), join(proj, "link-to-key"));
  symlinkSync(join(proj, ".env"), join(proj, "innocent.txt"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const decide = (spec: Omit<RequestSpec, "cwd"> & { cwd?: string }) =>
  resolvePermission(request({ cwd: proj, ...spec }), { home: join(root, "home") });

describe("Bash rules", () => {
  const cmd = (command: string, subs: string[], extra = {}) =>
    ({ kind: "shell", facts: facts(command, subs.map((s) => sub(s)), extra) }) as const;

  it("word boundary: `ls *` matches ls and ls -la, not lsof", () => {
    expect(decide({ tool: bash, subject: cmd("ls", ["ls"]), allow: ["Bash(ls *)"] }).behavior).toBe("allow");
    expect(decide({ tool: bash, subject: cmd("ls -la", ["ls -la"]), allow: ["Bash(ls *)"] }).behavior).toBe("allow");
    expect(decide({ tool: bash, subject: cmd("lsof", ["lsof"]), allow: ["Bash(ls *)"] }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: cmd("lsof", ["lsof"]), allow: ["Bash(ls*)"] }).behavior).toBe("allow");
  });
  it("legacy :* equals a trailing space-star", () => {
    expect(decide({ tool: bash, subject: cmd("npm run test", ["npm run test"]), allow: ["Bash(npm run test:*)"] }).behavior).toBe("allow");
    expect(decide({ tool: bash, subject: cmd("npm run testx", ["npm run testx"]), allow: ["Bash(npm run test:*)"] }).behavior).toBe("ask");
  });
  it("no star means the exact command", () => {
    expect(decide({ tool: bash, subject: cmd("npm run build", ["npm run build"]), allow: ["Bash(npm run build)"] }).behavior).toBe("allow");
    expect(decide({ tool: bash, subject: cmd("npm run build x", ["npm run build x"]), allow: ["Bash(npm run build)"] }).behavior).toBe("ask");
  });
  it("a compound needs every part allowed; a deny hits any part", () => {
    const both = cmd("npm test && rm -rf x", ["npm test", "rm -rf x"]);
    expect(decide({ tool: bash, subject: both, allow: ["Bash(npm test *)"] }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: both, allow: ["Bash(npm test *)", "Bash(rm *)"] }).behavior).toBe("allow");
    const d = decide({ tool: bash, subject: both, allow: ["Bash(*)"], deny: ["Bash(rm *)"] });
    expect(d).toMatchObject({ behavior: "deny", rule: "Bash(rm *)", source: "test" });
  });
  it("deny sees wrappers through the effective text", () => {
    const s = { kind: "shell", facts: facts("timeout 5 rm x", [sub("timeout 5 rm x", { effective: "rm x" })]) } as const;
    expect(decide({ tool: bash, subject: s, deny: ["Bash(rm *)"] }).behavior).toBe("deny");
  });
  it("an incomplete command is never allowed by a rule or a mode, and deny still applies", () => {
    const s = cmd("weird", ["echo hi"], { complete: false, readOnly: true, reasons: ["parse error"] });
    expect(decide({ tool: bash, subject: s, allow: ["Bash(echo *)"] }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: s, mode: "bypassPermissions" }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: s, mode: "dontAsk" }).behavior).toBe("deny");
    const evil = cmd("curl x | sh", ["echo"], { complete: false });
    expect(decide({ tool: bash, subject: evil, deny: ["Bash(curl *)"] }).behavior).toBe("deny");
  });
  it("unsafe env assignments defeat allow rules", () => {
    const s = { kind: "shell", facts: facts("LD_PRELOAD=x ls", [sub("ls", { env: { LD_PRELOAD: "x" } })]) } as const;
    expect(decide({ tool: bash, subject: s, allow: ["Bash(ls *)"] }).behavior).toBe("ask");
    const ok = { kind: "shell", facts: facts("NODE_ENV=test npm test", [sub("npm test", { env: { NODE_ENV: "test" } })]) } as const;
    expect(decide({ tool: bash, subject: ok, allow: ["Bash(npm test *)"] }).behavior).toBe("allow");
  });
  it("Edit deny applies to write targets, Read deny to read targets", () => {
    const w = cmd("echo x > .env", ["echo x"], { writeTargets: [".env"] });
    expect(decide({ tool: bash, subject: w, allow: ["Bash(echo *)"], deny: ["Edit(.env)"] }).behavior).toBe("deny");
    const r = cmd("cat src/../.env", ["cat src/../.env"], { readTargets: ["src/../.env"], readOnly: true });
    expect(decide({ tool: bash, subject: r, deny: ["Read(.env)"] }).behavior).toBe("deny");
  });
  it("protected paths and critical rm ask even with allow rules and in bypass", () => {
    const w = cmd("echo x > .git/hooks/pre-commit", ["echo x"], { writeTargets: [".git/hooks/pre-commit"] });
    expect(decide({ tool: bash, subject: w, allow: ["Bash(echo *)"] }).behavior).toBe("ask");
    const cdw = cmd("cd .claude && echo x > settings.json", ["cd .claude", "echo x"], { writeTargets: ["settings.json"], cdTargets: [".claude"] });
    expect(decide({ tool: bash, subject: cdw, allow: ["Bash(echo *)", "Bash(cd *)"] }).behavior).toBe("ask");
    const rmrf = cmd("rm -rf /", ["rm -rf /"], { writeTargets: ["/"] });
    expect(decide({ tool: bash, subject: rmrf, mode: "bypassPermissions", allow: ["Bash(rm *)"] }).behavior).toBe("ask");
    const rmup = cmd("rm -rf ..", ["rm -rf .."], { writeTargets: [".."] });
    expect(decide({ tool: bash, subject: rmup, mode: "acceptEdits" }).behavior).toBe("ask");
  });
  it("cd outside the working dirs asks; writes outside ask in every mode but bypass", () => {
    const cd = cmd("cd /etc", ["cd /etc"], { cdTargets: ["/etc"], readOnly: true });
    expect(decide({ tool: bash, subject: cd }).behavior).toBe("ask");
    const out = cmd("cp a /tmp/x", ["cp a /tmp/x"], { writeTargets: ["/tmp/x"] });
    expect(decide({ tool: bash, subject: out, mode: "acceptEdits" }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: out, allow: ["Bash(cp *)"] }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: out, mode: "bypassPermissions" }).behavior).toBe("allow");
  });
  it("suggests narrowed rules, never a bare Bash", () => {
    const d = decide({ tool: bash, subject: cmd("npm run test -- --watch", ["npm run test -- --watch"]) });
    expect(d.behavior).toBe("ask");
    expect(d.suggestedRules).toEqual(["Bash(npm run test *)"]);
  });
});

describe("Read/Edit path rules", () => {
  const file = (access: "read" | "write", ...paths: string[]) => ({ kind: "file", access, paths }) as const;
  it("segment boundaries: /proj-evil is not inside /proj", () => {
    expect(decide({ tool: read, subject: file("read", join(root, "proj-evil", "x")) }).behavior).toBe("ask");
    expect(decide({ tool: read, subject: file("read", join(proj, "src", "a.ts")) }).behavior).toBe("allow");
  });
  it("the four anchors", () => {
    const abs = join(root, "secrets", "key");
    expect(decide({ tool: read, subject: file("read", abs), deny: [`Read(/${abs})`] }).behavior).toBe("deny");
    expect(decide({ tool: read, subject: file("read", join(root, "home", ".ssh", "id")), deny: ["Read(~/.ssh/**)"] }).behavior).toBe("deny");
    expect(decide({ tool: read, subject: file("read", join(proj, "src", "a.ts")), deny: ["Read(/src/**)"] }).behavior).toBe("deny");
    expect(decide({ tool: read, subject: file("read", join(proj, "deep", "x", ".env")), deny: ["Read(.env)"] }).behavior).toBe("deny");
  });
  it("symlinks: deny if link or target matches; allow needs both", () => {
    expect(decide({ tool: read, subject: file("read", join(proj, "link-to-key")), deny: [`Read(/${root}/secrets/**)`] }).behavior).toBe("deny");
    expect(decide({ tool: read, subject: file("read", join(proj, "innocent.txt")), deny: ["Read(.env)"] }).behavior).toBe("deny");
    expect(decide({ tool: read, subject: file("read", join(proj, "link-to-key")), allow: [`Read(/${proj}/**)`] }).behavior).toBe("ask");
  });
  it("case tricks and traversal do not dodge a deny", () => {
    expect(decide({ tool: read, subject: file("read", join(proj, "src", "..", ".ENV")), deny: ["Read(.env)"] }).behavior).toBe("deny");
  });
  it("Edit covers Write; a Read deny blocks writes too", () => {
    expect(decide({ tool: write, subject: file("write", join(proj, "a.txt")), deny: ["Edit(a.txt)"] }).behavior).toBe("deny");
    expect(decide({ tool: write, subject: file("write", join(proj, ".env")), deny: ["Read(.env)"] }).behavior).toBe("deny");
    expect(decide({ tool: write, subject: file("write", join(proj, "a.txt")), mode: "acceptEdits" }).behavior).toBe("allow");
    expect(decide({ tool: write, subject: file("write", join(proj, "a.txt")), allow: ["Edit"] }).behavior).toBe("allow");
    expect(decide({ tool: write, subject: file("write", join(root, "x.txt")), allow: ["Edit"] }).behavior).toBe("ask");
    expect(decide({ tool: write, subject: file("write", join(proj, "a.txt")), mode: "plan", allow: ["Edit"] }).behavior).toBe("deny");
  });
});

describe("WebFetch domains", () => {
  const url = (u: string) => ({ kind: "url", url: u }) as const;
  it.each([
    ["https://docs.example.com/x", "allow"],
    ["https://example.com/x", "ask"],
    ["https://docs.example.com.evil.io/", "ask"],
    ["https://docs.example.com@evil.io/", "ask"],
    ["https://DOCS.EXAMPLE.COM./x", "allow"],
  ])("%s → %s under *.example.com", (u, expected) => {
    expect(decide({ tool: webFetch, subject: url(u), allow: ["WebFetch(domain:*.example.com)"], mode: "dontAsk", readOnly: false }).behavior).toBe(expected === "ask" ? "deny" : "allow");
  });
  it("a domain deny holds against IP spellings", () => {
    expect(decide({ tool: webFetch, subject: url("http://0x7f.1/"), deny: ["WebFetch(domain:127.0.0.1)"] }).behavior).toBe("deny");
  });
});

describe("modes and hooks", () => {
  const s = { kind: "shell", facts: facts("make", [sub("make")]) } as const;
  it("hook deny is final; hook allow does not beat ask rules", () => {
    expect(decide({ tool: bash, subject: s, hook: { behavior: "deny" }, allow: ["Bash(make)"] }).behavior).toBe("deny");
    expect(decide({ tool: bash, subject: s, hook: { behavior: "allow" }, ask: ["Bash(make)"] }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: s, hook: { behavior: "allow" } }).behavior).toBe("allow");
  });
  it("a tool's own deny wins over an ask rule; its ask is skipped only in bypass", () => {
    const deny = { behavior: "deny", message: "blocked by the tool" } as const;
    expect(decide({ tool: bash, subject: s, ask: ["Bash(make)"], toolPermission: deny })).toMatchObject({ behavior: "deny", source: "tool:Bash" });
    const ask = { behavior: "ask", message: "tool wants a human" } as const;
    expect(decide({ tool: bash, subject: s, allow: ["Bash(make)"], toolPermission: ask }).behavior).toBe("ask");
    expect(decide({ tool: bash, subject: s, mode: "bypassPermissions", toolPermission: ask }).behavior).toBe("allow");
    expect(decide({ tool: bash, subject: s, mode: "dontAsk", toolPermission: ask }).behavior).toBe("deny");
  });
  it("safety asks are never classifiable, even when the tool asks too; a hook's allow does not pass them", () => {
    const w = { kind: "shell", facts: facts("echo x > .git/config", [sub("echo x")], { writeTargets: [".git/config"] }) } as const;
    const ask = { behavior: "ask", message: "tool asks" } as const;
    const d = decide({ tool: bash, subject: w, mode: "auto", toolPermission: ask });
    expect(d).toMatchObject({ behavior: "ask", source: "safety" });
    expect(d.classifiable).toBeUndefined();
    expect(decide({ tool: bash, subject: w, hook: { behavior: "allow" } }).behavior).toBe("ask");
    const incomplete = { kind: "shell", facts: facts("x", [sub("ls")], { complete: false }) } as const;
    expect(decide({ tool: bash, subject: incomplete, hook: { behavior: "allow" } }).behavior).toBe("ask");
  });
  it("auto mode sets broad code-execution allow rules aside", () => {
    const py = { kind: "shell", facts: facts("python x.py", [sub("python x.py")]) } as const;
    expect(decide({ tool: bash, subject: py, mode: "auto", allow: ["Bash(python *)"] })).toMatchObject({ behavior: "ask", classifiable: true });
    expect(decide({ tool: bash, subject: py, mode: "auto", allow: ["Bash(python x.py)"] }).behavior).toBe("allow");
    expect(decide({ tool: bash, subject: py, mode: "default", allow: ["Bash(python *)"] }).behavior).toBe("allow");
  });
  it("auto marks asks classifiable, except ask rules", () => {
    expect(decide({ tool: bash, subject: s, mode: "auto" })).toMatchObject({ behavior: "ask", classifiable: true });
    expect(decide({ tool: bash, subject: s, mode: "auto", ask: ["Bash(make)"] }).classifiable).toBeUndefined();
  });
  it("MCP server and tool rules", () => {
    const gh = namedTool("mcp__github__create_issue", { mcpServer: "github" });
    expect(decide({ tool: gh, allow: ["mcp__github"] }).behavior).toBe("allow");
    expect(decide({ tool: gh, allow: ["mcp__github__*"], deny: ["mcp__github__create_issue"] }).behavior).toBe("deny");
    expect(decide({ tool: gh, allow: ["mcp__github__get_*"] }).behavior).toBe("ask");
  });
});

describe("deniedPathRule (for tools that walk directories)", () => {
  it("names the deny rule that hides a file found below an allowed root", () => {
    const rules = [parseRule("Read(.env)", "deny", "f", proj), parseRule("Edit(src/**)", "deny", "f", proj)];
    expect(deniedPathRule(rules, join(proj, "deep", ".env"), "read", { cwd: proj })?.raw).toBe("Read(.env)");
    expect(deniedPathRule(rules, join(proj, "innocent.txt"), "read", { cwd: proj })?.raw).toBe("Read(.env)");
    expect(deniedPathRule(rules, join(proj, "src", "a.ts"), "read", { cwd: proj })).toBeUndefined();
    expect(deniedPathRule(rules, join(proj, "src", "a.ts"), "write", { cwd: proj })?.raw).toBe("Edit(src/**)");
  });
});

describe("rule parsing", () => {
  it("errors name the rule; unknown tools warn", () => {
    expect(() => parseRule("Bash(", "allow", "f")).toThrow(/Bash\(/);
    expect(() => parseRule("WebFetch(https://x.com)", "allow", "f")).toThrow(/domain/);
    expect(ruleWarnings([parseRule("Bsh", "deny", "f.json")])).toEqual([expect.stringContaining("unknown tool")]);
    expect(ruleWarnings([parseRule("WebSearch(cats)", "deny", "f.json")])).toEqual([expect.stringContaining("every WebSearch call")]);
    expect(ruleWarnings([parseRule("mcp__*", "allow", "f.json")])).toEqual([expect.stringContaining("ignored")]);
    expect(ruleWarnings([parseRule("Write(src/**)", "allow", "f.json")])).toEqual([
      'f.json, permissions.allow: "Write(src/**)" never matches; path rules for writes are Edit(…) rules, which cover Write, MultiEdit and NotebookEdit: write Edit(src/**)',
    ]);
    expect(ruleWarnings([parseRule("MultiEdit(/tmp/x)", "deny", "f.json")])).toEqual([expect.stringContaining('"MultiEdit(/tmp/x)" is read as Edit(/tmp/x) (writes to that path by any tool); path rules for writes are Edit(…) rules')]);
    expect(ruleWarnings([parseRule("Edit(src/**)", "allow", "f.json")])).toEqual([]);
    expect(ruleWarnings([parseRule("Bash(ls *)", "allow", "f.json"), parseRule("mcp__gh__x", "deny", "f")])).toEqual([]);
  });
});
