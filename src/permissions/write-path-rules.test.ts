// A deny or ask rule written for Write (or MultiEdit, NotebookEdit) with a path restricts writes to
// that path, as the Edit(…) rule it means: it used to deny every Write call (a specifier the
// matcher did not read was taken to restrict everything). Real sessions, real files.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import type { PermissionMode, ToolUseBlock } from "../tool/types.js";

type Expect = "runs" | "denied by rule" | "asks";
interface Case {
  rules: { deny?: string[]; ask?: string[]; allow?: string[] };
  mode: PermissionMode;
  call: (dir: string) => ToolUseBlock;
  expect: Expect;
}

const write = (file: string) => (dir: string): ToolUseBlock => ({ type: "tool_use", id: "w", name: "Write", input: { file_path: join(dir, file), content: "new\n" } });
const edit = (file: string) => (dir: string): ToolUseBlock => ({ type: "tool_use", id: "e", name: "Edit", input: { file_path: join(dir, file), old_string: "old", new_string: "new" } });
const shell = (command: string) => (): ToolUseBlock => ({ type: "tool_use", id: "b", name: "Bash", input: { command } });

const cases: Array<[string, Case]> = [
  ["deny Write(./secret.txt): a Write to another file runs", { rules: { deny: ["Write(./secret.txt)"] }, mode: "acceptEdits", call: write("other.txt"), expect: "runs" }],
  ["deny Write(./secret.txt): a Write to a file in a folder runs", { rules: { deny: ["Write(./secret.txt)"] }, mode: "acceptEdits", call: write("sub/secret.txt.bak"), expect: "runs" }],
  ["deny Write(./secret.txt): a Write to secret.txt is denied", { rules: { deny: ["Write(./secret.txt)"] }, mode: "acceptEdits", call: write("secret.txt"), expect: "denied by rule" }],
  ["deny Write(./secret.txt) under bypassPermissions: secret.txt still denied", { rules: { deny: ["Write(./secret.txt)"] }, mode: "bypassPermissions", call: write("secret.txt"), expect: "denied by rule" }],
  ["deny Write(./secret.txt): an Edit of secret.txt is denied too", { rules: { deny: ["Write(./secret.txt)"] }, mode: "acceptEdits", call: edit("secret.txt"), expect: "denied by rule" }],
  ["deny Write(./secret.txt): a Bash redirect into secret.txt is denied", { rules: { deny: ["Write(./secret.txt)"] }, mode: "bypassPermissions", call: shell("echo x > secret.txt"), expect: "denied by rule" }],
  ["deny Write(./secret.txt): a Bash redirect into another file runs", { rules: { deny: ["Write(./secret.txt)"] }, mode: "bypassPermissions", call: shell("echo x > other.txt"), expect: "runs" }],
  ["deny Write(*.key): a Write to notes.md runs, one to id.key is denied", { rules: { deny: ["Write(*.key)"] }, mode: "acceptEdits", call: write("notes.md"), expect: "runs" }],
  ["deny Write(*.key): id.key", { rules: { deny: ["Write(*.key)"] }, mode: "acceptEdits", call: write("id.key"), expect: "denied by rule" }],
  ["deny MultiEdit(./secret.txt): a Write to another file runs", { rules: { deny: ["MultiEdit(./secret.txt)"] }, mode: "acceptEdits", call: write("other.txt"), expect: "runs" }],
  ["deny NotebookEdit(./secret.txt): a Write to secret.txt is denied", { rules: { deny: ["NotebookEdit(./secret.txt)"] }, mode: "acceptEdits", call: write("secret.txt"), expect: "denied by rule" }],
  ["ask Write(./secret.txt): a Write to another file runs", { rules: { ask: ["Write(./secret.txt)"] }, mode: "acceptEdits", call: write("other.txt"), expect: "runs" }],
  ["ask Write(./secret.txt): a Write to secret.txt asks", { rules: { ask: ["Write(./secret.txt)"] }, mode: "acceptEdits", call: write("secret.txt"), expect: "asks" }],
  ["allow Write(./secret.txt) never matches: the Write still asks in default mode", { rules: { allow: ["Write(./secret.txt)"] }, mode: "default", call: write("secret.txt"), expect: "asks" }],
  ["a bare deny Write still denies every Write", { rules: { deny: ["Write"] }, mode: "acceptEdits", call: write("other.txt"), expect: "denied by rule" }],
];

describe("Write(…)/MultiEdit(…)/NotebookEdit(…) path rules restrict that path only", () => {
  it.each(cases)("%s", async (_name, c) => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, "secret.txt"), "old\n");
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: c.mode, sandbox: false, ...c.rules });
      try {
        const block = c.call(dir);
        const input = block.input as Record<string, unknown>;
        if (block.name === "Edit") await session.runTurn([{ type: "tool_use", id: "r", name: "Read", input: { file_path: input.file_path } }]);
        const [result] = await session.runTurn([block]);
        const text = JSON.stringify(result!.content);
        const target = typeof input.file_path === "string" ? input.file_path : join(dir, /> (\S+)$/.exec(String(input.command))![1]!);
        if (c.expect === "runs") {
          expect(result!.is_error, text).toBeFalsy();
          expect(existsSync(target)).toBe(true);
        } else {
          expect(result!.is_error).toBe(true);
          expect(text).toMatch(c.expect === "asks" ? /needs approval|cannot ask|approv/i : /Denied by rule/);
          if (target.endsWith("secret.txt")) expect(readFileSync(target, "utf8")).toBe("old\n");
          else expect(existsSync(target)).toBe(false);
        }
      } finally {
        await session.close();
      }
    });
  });
});
