// A refused call's words: the session's `refusalText` replaces armature's own for an unapproved
// call and a PreToolUse hook's deny; `armature agent` gives the reference CLI's (as its recorded
// runs show them). Real sessions, real files and a real command hook in a temp dir.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { createHookRunner } from "../../hooks/index.js";
import { createSession } from "../../session/session.js";
import { builtinTools } from "../../tools/index.js";
import { referenceRefusalText } from "./reference-texts.js";

const denyHook = (reason?: string) =>
  `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", ...(reason !== undefined ? { permissionDecisionReason: reason } : {}) } })}'`;

describe("referenceRefusalText", () => {
  const words = referenceRefusalText("/work/p");
  const tool = (name: string) => ({ name }) as never;
  it.each([
    { kind: "unapproved", name: "Write", input: { file_path: "/work/p/a.txt" }, says: "Claude requested permissions to write to /work/p/a.txt, but you haven't granted it yet." },
    { kind: "unapproved", name: "Edit", input: { file_path: "sub/b.txt" }, says: "Claude requested permissions to write to /work/p/sub/b.txt, but you haven't granted it yet." },
    { kind: "unapproved", name: "NotebookEdit", input: { notebook_path: "/work/p/n.ipynb" }, says: "Claude requested permissions to write to /work/p/n.ipynb, but you haven't granted it yet." },
    { kind: "unapproved", name: "Bash", input: { command: "touch x" }, says: undefined },
    { kind: "unapproved", name: "Write", input: {}, says: undefined },
    { kind: "hook", name: "Bash", input: { command: "x" }, reason: "hooks forbid Bash", says: "PreToolUse:Bash hook error: hooks forbid Bash" },
    { kind: "hook", name: "Read", input: {}, says: "PreToolUse:Read hook error: Blocked by hook" },
  ] as const)("$kind $name → $says", ({ kind, name, input, says, ...rest }) => {
    expect(words({ kind, tool: tool(name), input: { ...input }, ...("reason" in rest ? { reason: rest.reason } : {}) })).toBe(says);
  });
});

describe("a session's refusalText", () => {
  it("words an unapproved write and a hook's deny; without it armature's own words stay", async () => {
    await withTempDir(async (dir) => {
      const hooks = createHookRunner([{ source: "test", config: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: denyHook("no reading") }] }, { matcher: "Glob", hooks: [{ type: "command", command: denyHook() }] }] } }], { projectDir: dir });
      const calls = () => [toolUse("Write", { file_path: join(dir, "w.txt"), content: "x" }), toolUse("Read", { file_path: join(dir, "r.txt") }), toolUse("Glob", { pattern: "*" })];
      const reference = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default", hooks, refusalText: referenceRefusalText(dir) });
      const ours = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default", hooks });
      try {
        const [write, read, glob] = await reference.runTurn(calls());
        expect([write, read, glob].map((r) => [r!.content, r!.is_error])).toEqual([
          [`Claude requested permissions to write to ${join(dir, "w.txt")}, but you haven't granted it yet.`, true],
          ["PreToolUse:Read hook error: no reading", true],
          ["PreToolUse:Glob hook error: Blocked by hook", true],
        ]);
        const own = await ours.runTurn(calls());
        expect(JSON.stringify(own[0]!.content)).toContain("this run cannot ask for approval");
        expect(JSON.stringify(own[1]!.content)).toContain("Permission to use Read was denied. no reading");
        await expect(readFile(join(dir, "w.txt"), "utf8")).rejects.toThrow();
      } finally {
        await reference.close();
        await ours.close();
      }
    });
  });

  it("a deny rule keeps armature's words", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default", deny: ["Write(./w.txt)"], refusalText: referenceRefusalText(dir) });
      try {
        const [result] = await session.runTurn([toolUse("Write", { file_path: join(dir, "w.txt"), content: "x" })]);
        expect(JSON.stringify(result!.content)).toContain("Permission to use Write was denied");
      } finally {
        await session.close();
      }
    });
  });
});
