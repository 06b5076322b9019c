// runTurn's approvedToolUseIds: calls a host's own approval flow had a person approve (the AI
// SDK's needsApproval, the Agents SDK's interruptions). Only those ids, only in place of asking:
// deny rules, plan mode and calls of other ids are untouched. Real files in a temp dir.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../test/helpers.js";
import type { PermissionMode } from "../tool/types.js";
import { builtinTools } from "../tools/index.js";
import { createSession } from "./session.js";

const cases: Array<{ name: string; file: string; approved: (id: string) => string[]; mode?: PermissionMode; written: boolean; says: RegExp }> = [
  { name: "an approved call that would ask runs", file: "ok.txt", approved: (id) => [id], written: true, says: /created successfully|File created/i },
  { name: "without the approval it is denied (nobody to ask)", file: "ok.txt", approved: () => [], written: false, says: /cannot ask for approval/ },
  { name: "another call's approval does not carry over", file: "ok.txt", approved: () => ["toolu_other"], written: false, says: /cannot ask for approval/ },
  { name: "a deny rule still denies an approved call", file: "secret.txt", approved: (id) => [id], written: false, says: /denied/i },
  { name: "plan mode still denies an approved call", file: "ok.txt", approved: (id) => [id], mode: "plan", written: false, says: /denied|plan/i },
];

describe("runTurn approvedToolUseIds", () => {
  it.each(cases)("$name", async ({ file, approved, mode, written, says }) => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: mode ?? "default", deny: ["Edit(./secret.txt)"] });
      const call = toolUse("Write", { file_path: join(dir, file), content: "x\n" });
      const [result] = await session.runTurn([call], { approvedToolUseIds: approved(call.id) });
      await session.close();
      expect(JSON.stringify(result!.content)).toMatch(says);
      expect(result!.is_error === true).toBe(!written);
      if (written) expect(await readFile(join(dir, file), "utf8")).toBe("x\n");
      else await expect(readFile(join(dir, file), "utf8")).rejects.toThrow();
    });
  });
});
