import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { readTranscriptCalls, type TranscriptCall, type TranscriptItem } from "./transcript-calls.js";

const FIXTURES = new URL("../../test/fixtures/audit/", import.meta.url);
/** The directory the reference fixtures were recorded in. */
const RECORDED_CWD = /\/tmp\/audit-scen\/w-s\d/g;

async function collect(file: string, options = {}): Promise<{ calls: TranscriptCall[]; problems: string[]; files: Extract<TranscriptItem, { kind: "file" }>[] }> {
  const calls: TranscriptCall[] = [];
  const problems: string[] = [];
  const files: Extract<TranscriptItem, { kind: "file" }>[] = [];
  for await (const item of readTranscriptCalls(file, options)) {
    if (item.kind === "call") calls.push(item.call);
    else if (item.kind === "problem") problems.push(`${item.problem.kind}@${item.problem.line ?? "-"}`);
    else files.push(item);
  }
  return { calls, problems, files };
}

/** A fixture recorded from the reference CLI, with its recorded directory replaced by `dir`. */
export async function referenceFixture(name: string, dir: string): Promise<string> {
  const text = await readFile(new URL(name, FIXTURES), "utf8");
  const path = join(dir, name);
  await writeFile(path, text.replace(RECORDED_CWD, dir));
  return path;
}

describe("readTranscriptCalls: the reference agent's transcripts", () => {
  it("a default-mode session: each call with its input, cwd, mode and the decision the transcript recorded", async () => {
    await withTempDir(async (dir) => {
      const { calls, problems, files } = await collect(await referenceFixture("reference-default.jsonl", dir));
      expect(problems).toEqual([]);
      expect(files).toEqual([expect.objectContaining({ format: "reference" })]);
      expect(calls.map((c) => [c.tool, c.outcome])).toEqual([
        ["Read", "allowed"],
        ["Bash", "allowed"],
        ["Bash", "rejected"],
        ["Edit", "rejected"],
        ["mcp__github__create_issue", "failed"],
        ["Grep", "allowed"],
      ]);
      expect(calls[1]).toMatchObject({ input: { command: "ls -la" }, cwd: dir, recordedMode: "default", sidechain: false });
      expect(calls.every((c) => c.toolUseId.startsWith("toolu_") || c.toolUseId.length > 0)).toBe(true);
    });
  });

  it("deny rules are told apart from prompts nobody could answer", async () => {
    await withTempDir(async (dir) => {
      const { calls } = await collect(await referenceFixture("reference-rules.jsonl", dir));
      const byCommand = new Map(calls.map((c) => [JSON.stringify(c.input), c.outcome]));
      expect(byCommand.get(JSON.stringify({ command: "rm -rf build && npm install", description: "clean" }))).toBe("denied");
      expect(byCommand.get(JSON.stringify({ file_path: join(dir, ".env") }))).toBe("denied");
      expect(byCommand.get(JSON.stringify({ command: "npm install" }))).toBe("allowed");
    });
  });
});

describe("readTranscriptCalls: other shapes and damage", () => {
  const use = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input });
  const result = (id: string, content: string, isError = false) => ({ type: "tool_result", tool_use_id: id, content, is_error: isError });

  it("armature's own transcripts (no cwd) and stream-json captures (cwd and mode from system/init)", async () => {
    await withTempDir(async (dir) => {
      const armature = join(dir, "a.jsonl");
      await writeFile(
        armature,
        [
          { type: "assistant", uuid: "u1", timestamp: "t", session_id: "s", message: { role: "assistant", content: [use("t1", "Bash", { command: "rm -rf dist" })] } },
          { type: "user", uuid: "u2", timestamp: "t", session_id: "s", message: { role: "user", content: [result("t1", "<tool_use_error>Bash(rm -rf dist) requires approval, and nobody is there to approve it</tool_use_error>", true)] } },
        ]
          .map((l) => JSON.stringify(l))
          .join("\n"),
      );
      const a = await collect(armature);
      expect(a.files[0]!.format).toBe("armature");
      expect(a.calls).toEqual([expect.objectContaining({ tool: "Bash", outcome: "rejected" })]);
      expect(a.calls[0]!.cwd).toBeUndefined();

      const stream = join(dir, "s.jsonl");
      await writeFile(
        stream,
        [
          { type: "system", subtype: "init", cwd: "/work/p", permissionMode: "acceptEdits", session_id: "s", tools: [] },
          { type: "assistant", message: { role: "assistant", content: [use("t1", "Read", { file_path: "/work/p/a" })] }, parent_tool_use_id: null, session_id: "s" },
          { type: "user", message: { role: "user", content: [result("t1", "1\tx")] }, parent_tool_use_id: null, session_id: "s" },
          { type: "result", subtype: "success" },
        ]
          .map((l) => JSON.stringify(l))
          .join("\n"),
      );
      const s = await collect(stream);
      expect(s.files[0]!.format).toBe("stream-json");
      expect(s.calls).toEqual([expect.objectContaining({ tool: "Read", cwd: "/work/p", recordedMode: "acceptEdits", outcome: "ran" })]);
    });
  });

  it("malformed, oversized and cut lines are problems; the lines around them still count; a call without result is kept", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "t.jsonl");
      const line = (o: unknown) => JSON.stringify(o);
      await writeFile(
        file,
        [
          line({ type: "assistant", sessionId: "s", version: "1", message: { role: "assistant", content: [use("a", "Read", { file_path: "/x" }), use("b", "Bash", { command: "ls" })] } }),
          "{not json",
          "[1,2]",
          line({ type: "user", sessionId: "s", message: { role: "user", content: [result("a", "x".repeat(5000))] } }),
          line({ type: "assistant", sessionId: "s", message: { role: "assistant", content: [use("c", "Grep", { pattern: "p" })] } }),
          line({ type: "user", sessionId: "s", message: { role: "user", content: [result("c", "ok")] } }),
          '{"type":"assistant","message":{"role":"assis',
        ].join("\n"),
      );
      const { calls, problems } = await collect(file, { maxLineBytes: 1000 });
      expect(problems).toEqual(["malformed-line@2", "malformed-line@3", "oversized-line@4", "truncated@7"]);
      expect(calls.map((c) => [c.tool, c.outcome])).toEqual([
        ["Grep", "ran"],
        ["Read", "no-result"],
        ["Bash", "no-result"],
      ]);
    });
  });

  it("an unreadable path and a file with no messages are named, never thrown", async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, "folder.jsonl"));
      expect((await collect(join(dir, "folder.jsonl"))).problems).toEqual(["unreadable@-"]);
      expect((await collect(join(dir, "missing.jsonl"))).problems).toEqual(["unreadable@-"]);
      await writeFile(join(dir, "other.jsonl"), '{"hello":1}\n{"world":2}\n');
      expect((await collect(join(dir, "other.jsonl"))).problems).toEqual(["not-a-transcript@-"]);
    });
  });

  it("calls whose results never come are let go past the pending limit, in order", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "t.jsonl");
      const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ type: "assistant", sessionId: "s", message: { role: "assistant", content: [use(`t${i}`, "Bash", { command: `echo ${i}` })] } }));
      await writeFile(file, lines.join("\n"));
      const { calls } = await collect(file, { maxPending: 10 });
      expect(calls).toHaveLength(50);
      expect(calls.map((c) => (c.input as { command: string }).command)).toEqual(Array.from({ length: 50 }, (_, i) => `echo ${i}`));
    });
  });
});
