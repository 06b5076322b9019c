import { mkdir, readdir, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { captureIO, withTempDir } from "../../test/helpers.js";
import type { AuditReport } from "../audit/audit-report.js";
import { referenceFixture } from "../audit/transcript-calls.test.js";
import { main } from "./main.js";
import { referenceProjectSlug } from "./permissions-audit.js";

async function audit(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await main(["permissions", "audit", ...args], io);
  return { code, out: io.out, err: io.err };
}

async function auditJson(args: string[]): Promise<AuditReport> {
  const { code, out, err } = await audit([...args, "--json"]);
  expect(err).toBe("");
  expect(code).toBe(0);
  return JSON.parse(out) as AuditReport;
}

async function referenceProject(dir: string): Promise<{ project: string; transcripts: string }> {
  const project = join(dir, "project");
  const transcripts = join(dir, "transcripts");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(transcripts);
  await writeFile(join(project, "src", "a.ts"), "export const a = 1;\n");
  for (const f of ["reference-default.jsonl", "reference-bypass.jsonl", "reference-rules.jsonl"]) {
    const path = await referenceFixture(f, project);
    await writeFile(join(transcripts, f), await (await import("node:fs/promises")).readFile(path, "utf8"));
  }
  return { project, transcripts };
}

let server: MockModelServer | undefined;
const savedConfig = process.env.CLAUDE_CONFIG_DIR;
const savedArmatureConfig = process.env.ARMATURE_CONFIG_DIR;
const savedKey = process.env.ANTHROPIC_API_KEY;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (savedConfig === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = savedConfig;
  if (savedArmatureConfig === undefined) delete process.env.ARMATURE_CONFIG_DIR;
  else process.env.ARMATURE_CONFIG_DIR = savedArmatureConfig;
  if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = savedKey;
});

describe("armature permissions audit", () => {
  it("reference transcripts under a policy: decisions, what decided, what would ask, what it would have stopped", async () => {
    await withTempDir(async (dir) => {
      const { project, transcripts } = await referenceProject(dir);
      const r = await auditJson([transcripts, "--cwd", project, "--deny", "Bash(rm *)", "--deny", "Read(./.env)", "--allow", "Bash(npm install *)"]);
      expect(r.files.map((f) => f.format)).toEqual(["reference", "reference", "reference"]);
      expect(r.calls).toBe(20);
      // mcp__github__create_issue: a stand-in decides it (no rule allows it: ask).
      expect(r.decided).toBe(20);
      expect(r.decisions).toEqual({ allow: 10, ask: 6, deny: 4 });
      // The bypass session ran `rm -rf build && npm install`: this policy denies it.
      expect(r.wouldHaveStopped.count).toBe(1);
      expect(r.wouldHaveStopped.examples[0]).toMatchObject({ tool: "Bash", call: "rm -rf build && npm install", rule: "Bash(rm *)" });
      expect(r.deciders).toContainEqual({ decider: "Bash(rm *) (command line)", behavior: "deny", count: 3 });
      expect(r.asks.map((a) => a.shape)).toContain("mcp__github__create_issue");
      expect(r.asks.find((a) => a.shape.startsWith("Edit("))).toMatchObject({ suggestedRule: expect.stringMatching(/^Edit\(.*src\/\*\*\)$/) });
      expect(r.original).toMatchObject({ allowed: 13, rejected: 2, denied: 2, failed: 3 });
      // Saved: the refused `rm -rf build` is now denied outright; added: two Edits that ran unasked.
      expect(r.comparison).toEqual({ recorded: 17, originalPrompts: 2, policyPrompts: 3, saved: 1, added: 2 });
      expect(r.problems.counts).toEqual({});
    });
  });

  it("prints one screen of text, Markdown for a PR, and fails CI on deny or ask when asked to", async () => {
    await withTempDir(async (dir) => {
      const { project, transcripts } = await referenceProject(dir);
      const text = await audit([transcripts, "--cwd", project, "--deny", "Bash(rm *)"]);
      expect(text.code).toBe(0);
      expect(text.out).toMatch(/^Audited 20 tool calls from 3 transcripts \(mode default, 1 rule, /);
      expect(text.out).toContain("Would have stopped (1):\n  Bash: rm -rf build && npm install    ← Bash(rm *)");
      expect(text.out).toContain("Would ask most often:");
      expect(text.out.split("\n").length).toBeLessThan(40);

      const md = await audit([transcripts, "--cwd", project, "--deny", "Bash(rm *)", "--markdown"]);
      expect(md.out).toContain("### Permission policy audit");
      expect(md.out).toContain("| deny | 3 |");
      expect(md.out).toContain("| Bash | `rm -rf build && npm install` | Bash(rm *) |");

      expect((await audit([transcripts, "--cwd", project, "--deny", "Bash(rm *)", "--fail-on", "deny"])).code).toBe(4);
      expect((await audit([transcripts, "--cwd", project, "--mode", "bypassPermissions", "--fail-on", "deny"])).code).toBe(0);
      expect((await audit([transcripts, "--cwd", project, "--fail-on", "ask"])).code).toBe(3);
      const bad = await audit([transcripts, "--fail-on", "maybe"]);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain("--fail-on must be deny or ask");
    });
  });

  it("--recorded-mode decides each call in the mode its session ran in", async () => {
    await withTempDir(async (dir) => {
      const { project, transcripts } = await referenceProject(dir);
      const bypass = join(transcripts, "reference-bypass.jsonl");
      expect((await auditJson([bypass, "--cwd", project])).decisions.ask).toBeGreaterThan(0);
      const recorded = await auditJson([bypass, "--cwd", project, "--recorded-mode"]);
      expect(recorded.decisions).toEqual({ allow: 6, ask: 0, deny: 0 });
    });
  });

  it("without paths: the project's folder in the reference's projects directory; none there is an error naming it", async () => {
    await withTempDir(async (dir) => {
      const { project } = await referenceProject(dir);
      process.env.CLAUDE_CONFIG_DIR = join(dir, "claude-config");
      process.env.ARMATURE_CONFIG_DIR = join(dir, "armature-config");
      const missing = await audit(["--cwd", project]);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain(join(dir, "claude-config", "projects", referenceProjectSlug(realpathSync(project))));
      const folder = join(dir, "claude-config", "projects", referenceProjectSlug(realpathSync(project)));
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, "s.jsonl"), await (await import("node:fs/promises")).readFile(await referenceFixture("reference-default.jsonl", project), "utf8"));
      const r = await auditJson(["--cwd", project]);
      expect(r.calls).toBe(6);
      expect(r.files).toHaveLength(1);
    });
  });

  it("a session armature's own agent ran against a scripted model: its refusal is a prompt this policy saves", async () => {
    await withTempDir(async (dir) => {
      process.env.ANTHROPIC_API_KEY = "test-key";
      server = await startMockModelServer([
        anthropicReply([
          { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
          { type: "tool_use", id: "t2", name: "Bash", input: { command: "rm -rf dist" } },
        ]),
        anthropicReply([{ type: "text", text: "Could not remove dist." }]),
      ]);
      const sessions = join(dir, "sessions");
      expect(await main(["agent", "-p", "clean up", "--base-url", server.url, "--cwd", dir, "--session-dir", sessions], captureIO())).toBe(0);
      expect((await readdir(sessions)).some((n) => n.endsWith(".jsonl"))).toBe(true);
      const before = await auditJson([sessions, "--cwd", dir]);
      expect(before.files.some((f) => f.format === "armature")).toBe(true);
      // The conversation and the hooks' transcript both hold the calls: each is counted once.
      expect(before.calls).toBe(2);
      expect(before.original).toMatchObject({ ran: 1, rejected: 1 });
      expect(before.decisions).toEqual({ allow: 1, ask: 1, deny: 0 });
      const after = await auditJson([sessions, "--cwd", dir, "--allow", "Bash(rm -rf dist)"]);
      expect(after.decisions).toEqual({ allow: 2, ask: 0, deny: 0 });
      expect(after.wouldNowAllow).toBe(1);

      // Without --session-dir the agent keeps the session in the user's config dir, where the
      // audit looks by default.
      process.env.ARMATURE_CONFIG_DIR = join(dir, "armature-config");
      process.env.CLAUDE_CONFIG_DIR = join(dir, "claude-config");
      server.push(anthropicReply([{ type: "tool_use", id: "t3", name: "Bash", input: { command: "git push" } }]), anthropicReply([{ type: "text", text: "No." }]));
      expect(await main(["agent", "-p", "push", "--base-url", server.url, "--cwd", dir], captureIO())).toBe(0);
      const found = await auditJson(["--cwd", dir]);
      expect(found.calls).toBe(1);
      expect(found.original).toEqual({ rejected: 1 });
    });
  });

  it("damage and unknown tools are counted and named; a large transcript streams through", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "big.jsonl");
      const lines: string[] = ["{oops"];
      for (let i = 0; i < 3000; i++) {
        const name = i % 100 === 0 ? "SomeFutureTool" : i % 2 === 0 ? "Bash" : "Read";
        const input = name === "Bash" ? { command: i % 10 === 0 ? "git push" : "ls -la" } : name === "Read" ? { file_path: join(dir, "f.txt") } : { x: 1 };
        lines.push(JSON.stringify({ type: "assistant", sessionId: "s", version: "2", cwd: dir, message: { role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name, input }] } }));
      }
      lines.push(JSON.stringify({ type: "assistant", sessionId: "s", cwd: "/no/such/dir", message: { role: "assistant", content: [{ type: "tool_use", id: "bad", name: "Read", input: { file_path: 3 } }] } }));
      await writeFile(file, `${lines.join("\n")}\n`);
      const r = await auditJson([file, "--cwd", dir]);
      expect(r.calls).toBe(3001);
      expect(r.undecided.unknownTools).toEqual([{ tool: "SomeFutureTool", count: 30 }]);
      expect(r.undecided.invalidInput).toBe(1);
      expect(r.decided).toBe(2970);
      expect(r.problems.counts).toEqual({ "malformed-line": 1, "cwd-missing": 1 });
      expect(r.asks[0]).toMatchObject({ shape: "Bash(git push *)", count: 270 });
    });
  });
});
