import { mkdirSync, readdirSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolUse, withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import { builtinTools } from "../tools/index.js";

/** A session whose approver approves every ask with `rewrite` as the new input. */
function approving(cwd: string, mode: "default" | "acceptEdits" | "bypassPermissions", rewrite: (input: Record<string, unknown>) => Record<string, unknown>) {
  const asked: string[] = [];
  const session = createSession({
    cwd,
    tools: builtinTools(),
    permissionMode: mode,
    canUseTool: async (req) => (asked.push(req.decision.reason), { behavior: "allow", updatedInput: rewrite(req.input) }),
  });
  return { session, asked };
}

describe("rewritten inputs are judged like originals", () => {
  it.each([
    ["a protected path", (p: string) => join(p, ".git", "hooks", "pre-commit"), /needs approval of its own.*\.git/],
    ["a CI workflow", (p: string) => join(p, ".github", "workflows", "x.yml"), /needs approval of its own.*workflows/],
    ["a path outside the working directories", (p: string) => join(p, "..", "outside.txt"), /needs approval of its own.*outside the working directories/],
  ])("an approver's rewrite of a Write to %s is denied", async (_name, where, reason) => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const proj = join(dir, "proj");
      mkdirSync(proj);
      const { session, asked } = approving(proj, "default", (input) => ({ ...input, file_path: where(proj) }));
      const [r] = await session.runTurn([toolUse("Write", { file_path: join(proj, "notes.txt"), content: "x" })]);
      expect(asked).toHaveLength(1);
      expect(r!.is_error).toBe(true);
      expect(r!.content).toMatch(reason);
      expect(readdirSync(dir)).toEqual(["proj"]);
      expect(readdirSync(proj)).toEqual([]);
      await session.close();
    });
  });

  it("a rewrite the tool's own validation refuses is an error; a benign rewrite runs (control)", async () => {
    await withTempDir(async (raw) => {
      const proj = await realpath(raw);
      const nul = approving(proj, "default", (input) => ({ ...input, file_path: `${proj}/a\0b` }));
      const [bad] = await nul.session.runTurn([toolUse("Write", { file_path: join(proj, "a.txt"), content: "x" })]);
      expect(bad!.content).toMatch(/rewritten input is not valid: file_path contains a NUL/);
      await nul.session.close();
      const ok = approving(proj, "default", (input) => ({ ...input, file_path: join(proj, "b.txt") }));
      const [good] = await ok.session.runTurn([toolUse("Write", { file_path: join(proj, "a.txt"), content: "x" })]);
      expect(good!.is_error).toBeUndefined();
      expect(readdirSync(proj)).toEqual(["b.txt"]);
      await ok.session.close();
    });
  });

  it("a tool's own deny of the rewritten input is final", async () => {
    await withTempDir(async (proj) => {
      const picky = buildTool({
        name: "Picky",
        description: "Refuses the word 'no'.",
        inputSchema: z.object({ word: z.string() }),
        checkPermissions: (i) => (i.word === "no" ? { behavior: "deny", message: "the tool refuses 'no'" } : { behavior: "passthrough" }),
        call: async (i) => ({ data: `ran ${i.word}` }),
      });
      const session = createSession({ cwd: proj, tools: [picky], canUseTool: async () => ({ behavior: "allow", updatedInput: { word: "no" } }) });
      const [r] = await session.runTurn([toolUse("Picky", { word: "yes" })]);
      expect(r!.content).toMatch(/not allowed as rewritten: the tool refuses 'no'/);
      await session.close();
    });
  });
});
