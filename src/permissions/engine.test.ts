import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { facts, sub } from "../../test/permission-helpers.js";
import { toolUse, withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import type { ToolResultBlock } from "../tool/types.js";
import { createPermissionEngine, type AutoClassifier } from "./engine.js";
import type { ApprovalAnswer, ApprovalRequest } from "./types.js";

/** A shell-like tool whose subject splits `&&` into subcommands (the real analysis lives with Bash). */
const shellTool = buildTool({
  name: "Bash",
  description: "test shell",
  inputSchema: z.object({ command: z.string() }),
  permissionSubject: (input) => ({
    kind: "shell",
    facts: facts(input.command, input.command.split("&&").map((p) => sub(p.trim()))),
  }),
  call: async (input) => ({ data: `ran ${input.command}` }),
});

function text(block: ToolResultBlock): string {
  return typeof block.content === "string" ? block.content : JSON.stringify(block.content);
}

async function run(
  dir: string,
  answers: ApprovalAnswer[],
  commands: string[],
  extra: { classifier?: AutoClassifier; mode?: "auto" | "default" } = {},
) {
  const asked: ApprovalRequest[] = [];
  const engine = createPermissionEngine({
    projectDir: dir,
    home: join(dir, "home"),
    classifier: extra.classifier,
    approver: async (r) => {
      asked.push(r);
      return answers.shift() ?? { behavior: "deny" };
    },
  });
  // Without the sandbox: with it, commands like `a` that nothing marks as writing run read-only instead of asking.
  const session = createSession({ cwd: dir, tools: [shellTool], resolvePermission: engine.resolvePermission, canUseTool: engine.approver, permissionMode: extra.mode, sandbox: false });
  const results: string[] = [];
  for (const c of commands) results.push(text((await session.runTurn([toolUse("Bash", { command: c })]))[0]!));
  await session.close();
  return { engine, asked, results };
}

describe("permission engine", () => {
  it("allow once asks again next time; always (session) remembers the narrowed rule", async () => {
    await withTempDir(async (dir) => {
      const once = await run(dir, [{ behavior: "allow" }, { behavior: "deny" }], ["npm run test -- a", "npm run test -- b"]);
      expect(once.asked).toHaveLength(2);
      expect(once.results[0]).toBe("ran npm run test -- a");
      const always = await run(dir, [{ behavior: "allow", remember: "session" }], ["npm run test -- a", "npm run test -- b", "npm run lint"]);
      expect(always.engine.sessionRules.map((r) => r.raw)).toEqual(["Bash(npm run test *)"]);
      expect(always.results.slice(0, 2)).toEqual(["ran npm run test -- a", "ran npm run test -- b"]);
      expect(always.asked).toHaveLength(2);
    });
  });

  it("always (local) writes .armature/settings.local.json, one rule per new subcommand", async () => {
    await withTempDir(async (dir) => {
      await run(dir, [{ behavior: "allow", remember: "local" }], ["git status && cargo build --release"]);
      const json = JSON.parse(await readFile(join(dir, ".armature", "settings.local.json"), "utf8"));
      expect(json.permissions.allow).toEqual(["Bash(git status *)", "Bash(cargo build *)"]);
    });
  });

  it("never remembers a bare Bash", async () => {
    await withTempDir(async (dir) => {
      const r = await run(dir, [{ behavior: "allow", remember: "session", rules: ["Bash", "Bash(*)"] }], ["make"]);
      expect(r.engine.sessionRules).toEqual([]);
      expect(r.engine.notices.join("\n")).toMatch(/every command/);
    });
  });

  it("a denial reaches the model with the user's message and is tracked", async () => {
    await withTempDir(async (dir) => {
      const r = await run(dir, [{ behavior: "deny", message: "Not now: run the tests instead." }], ["make deploy"]);
      expect(r.results[0]).toContain("Not now: run the tests instead.");
      expect(r.engine.denials).toMatchObject([{ toolName: "Bash", source: "approver" }]);
    });
  });

  it("auto mode: the classifier answers classifiable asks; its denials fall back to a human after three", async () => {
    await withTempDir(async (dir) => {
      const verdicts: Array<"allow" | "deny" | "ask"> = ["allow", "ask", "deny", "deny", "deny", "deny"];
      const classifier: AutoClassifier = () => verdicts.shift()!;
      const r = await run(dir, [{ behavior: "allow" }, { behavior: "allow" }], ["a", "b", "c", "d", "e", "f"], { classifier, mode: "auto" });
      expect(r.results[0]).toBe("ran a");
      expect(r.results[1]).toBe("ran b"); // classifier said ask → the human allowed
      expect(r.results.slice(2, 5).every((t) => t.includes("classifier denied"))).toBe(true);
      expect(r.results[5]).toBe("ran f"); // fourth denial in a row → the human
      expect(r.asked).toHaveLength(2);
    });
  });

  it("without a human, what asks is denied with the reason", async () => {
    await withTempDir(async (dir) => {
      const engine = createPermissionEngine({ projectDir: dir });
      const session = createSession({ cwd: dir, tools: [shellTool], resolvePermission: engine.resolvePermission, canUseTool: engine.approver });
      const [block] = await session.runTurn([toolUse("Bash", { command: "make" })]);
      expect(text(block!)).toMatch(/cannot ask for approval/);
      await session.close();
    });
  });
});

describe("createSession runs a permission engine by default", () => {
  it("'always allow' for the session remembers a narrowed rule: the next such call does not ask", async () => {
    const { createSession } = await import("../session/session.js");
    const { createBashTool } = await import("../tools/bash/index.js");
    const { withTempDir, toolUse } = await import("../../test/helpers.js");
    await withTempDir(async (dir) => {
      const asked: string[] = [];
      const s = createSession({
        cwd: dir,
        tools: [createBashTool()],
        canUseTool: async (request) => {
          asked.push(String(request.input.command));
          return { behavior: "allow", remember: "session" };
        },
      });
      await s.runTurn([toolUse("Bash", { command: "git init -q one" }, "a")]);
      const [second] = await s.runTurn([toolUse("Bash", { command: "git init -q two" }, "b")]);
      expect(second!.is_error).toBeUndefined();
      expect(asked).toEqual(["git init -q one"]);
      await s.close();
    });
  });
});
