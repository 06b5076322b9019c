import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Approver, ApprovalRequest } from "../../permissions/types.js";
import { createSession } from "../../session/session.js";
import { createSubagentContext } from "../../tool/context.js";
import { runToolUse } from "../../pipeline/run-tool-use.js";
import { prepareTurn } from "../../pipeline/prepare.js";
import { defaultPipelineServices } from "../../pipeline/run-tool-use.js";
import { WriteTool } from "../write/index.js";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { AskUserQuestionTool } from "../ask-user-question/index.js";
import { EnterPlanModeTool, ExitPlanModeTool } from "./plan-mode-tools.js";

const text = (c: unknown): string => (typeof c === "string" ? c : JSON.stringify(c));

describe("EnterPlanMode / ExitPlanMode", () => {
  it("enter switches to plan mode (writes refused), exit asks the approver and restores the previous mode", async () => {
    await withTempDir(async (dir) => {
      const asked: ApprovalRequest[] = [];
      const canUseTool: Approver = async (req) => (asked.push(req), { behavior: "allow" });
      const session = createSession({ cwd: dir, tools: [EnterPlanModeTool, ExitPlanModeTool, WriteTool], permissionMode: "acceptEdits", canUseTool });
      const enter = await session.runTurnDetailed([toolUse("EnterPlanMode", {})]);
      expect(text(enter.results[0]!.content)).toMatch(/^Entered plan mode\./);
      expect(enter.newMessages[0]!.content).toContain("Plan mode is active");
      expect(session.context.permissionContext.mode).toBe("plan");

      const [write] = await session.runTurn([toolUse("Write", { file_path: join(dir, "a.txt"), content: "x" })]);
      expect(write!.is_error).toBe(true);
      expect(text(write!.content)).toContain("plan mode");
      expect(asked).toHaveLength(0);

      const exit = await session.runTurnDetailed([toolUse("ExitPlanMode", { plan: "1. write a.txt" })]);
      expect(exit.results[0]!.content).toBe("User has approved exiting plan mode. You can now proceed.");
      expect(exit.newMessages[0]!.content).toContain("## Exited Plan Mode");
      expect(asked.map((a) => a.tool.name)).toEqual(["ExitPlanMode"]);
      expect(asked[0]!.decision.reason).toContain("1. write a.txt");
      expect(session.context.permissionContext.mode).toBe("acceptEdits");
      const data = exit.outcomes[0]!;
      expect(data.isError).toBe(false);

      const [written] = await session.runTurn([toolUse("Write", { file_path: join(dir, "a.txt"), content: "x" })]);
      expect(written!.is_error).toBeUndefined();
      await session.close();
    });
  });

  it("a rejected plan stays in plan mode, with the user's words", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({
        cwd: dir,
        tools: [EnterPlanModeTool, ExitPlanModeTool],
        canUseTool: async () => ({ behavior: "deny", message: "Plan rejected: add tests first." }),
      });
      await session.runTurn([toolUse("EnterPlanMode", {})]);
      const [r] = await session.runTurn([toolUse("ExitPlanMode", { plan: "do it" })]);
      expect(r!.is_error).toBe(true);
      expect(text(r!.content)).toContain("Plan rejected: add tests first.");
      expect(session.context.permissionContext.mode).toBe("plan");
      await session.close();
    });
  });

  it("a run that started in plan mode leaves it for default mode, and the approved plan is saved", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [ExitPlanModeTool], permissionMode: "plan", canUseTool: async () => ({ behavior: "allow" }), sessionDir: join(dir, "s") });
      const detailed = await session.runTurnDetailed([toolUse("ExitPlanMode", { plan: "# Plan\n- step" })]);
      expect(session.context.permissionContext.mode).toBe("default");
      const saved = (await import("node:fs/promises")).readdir(join(dir, "s", "plans"));
      const files = await saved;
      expect(files).toHaveLength(1);
      expect(await readFile(join(dir, "s", "plans", files[0]!), "utf8")).toBe("# Plan\n- step");
      expect(detailed.results[0]!.is_error).toBeUndefined();
      await session.close();
    });
  });

  it("without anyone to answer, the interactive tools are not offered and are disabled with the reference's text", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [EnterPlanModeTool, ExitPlanModeTool, AskUserQuestionTool, WriteTool] });
      const names = (await session.toolDefinitions("anthropic")).map((d) => d.name);
      for (const hidden of ["EnterPlanMode", "ExitPlanMode", "AskUserQuestion"]) expect(names).not.toContain(hidden);
      expect(names).toContain("Write");
      const results = await session.runTurn([toolUse("EnterPlanMode", {}), toolUse("ExitPlanMode", {})]);
      for (const [r, name] of [[results[0]!, "EnterPlanMode"], [results[1]!, "ExitPlanMode"]] as const) {
        expect(r.is_error).toBe(true);
        expect(r.content).toBe(`<tool_use_error>Error: No such tool available: ${name}. ${name} is disabled for this session, in subagents as well as here.</tool_use_error>`);
      }
      expect(session.context.permissionContext.mode).toBe("default");
      await session.close();
    });
  });

  it("ExitPlanMode outside plan mode, and any of them inside a sub-agent, are errors", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [EnterPlanModeTool, ExitPlanModeTool], canUseTool: async () => ({ behavior: "allow" }) });
      const [r] = await session.runTurn([toolUse("ExitPlanMode", {})]);
      expect(text(r!.content)).toContain("You are not in plan mode");
      const child = createSubagentContext(session.context, { agentId: "c" });
      const [call] = prepareTurn([toolUse("EnterPlanMode", {})], child);
      const outcome = await runToolUse(call!, child, defaultPipelineServices({ approver: async () => ({ behavior: "allow" }) }), undefined);
      expect(text(outcome.block.content)).toContain("EnterPlanMode is not available inside subagents");
      await session.close();
    });
  });
});

describe("AskUserQuestion", () => {
  const questions = [
    { question: "Which database should we use?", header: "Database", multiSelect: false, options: [{ label: "SQLite", description: "a file" }, { label: "Postgres", description: "a server" }] },
  ];

  it("asks through the approver; the host's answers come back in the reference's words", async () => {
    await withTempDir(async (dir) => {
      const seen: ApprovalRequest[] = [];
      const session = createSession({
        cwd: dir,
        tools: [AskUserQuestionTool],
        canUseTool: async (req) => {
          seen.push(req);
          return { behavior: "allow", updatedInput: { ...req.input, answers: { "Which database should we use?": "SQLite" } } };
        },
      });
      const [r] = await session.runTurn([toolUse("AskUserQuestion", { questions })]);
      expect(r!.content).toBe('Your questions have been answered: "Which database should we use?"="SQLite". You can now continue with these answers in mind.');
      expect(seen[0]!.decision.reason).toBe("Which database should we use?");
      await session.close();
    });
  });

  it("is asked even in bypassPermissions mode, and a dismissal reaches the model", async () => {
    await withTempDir(async (dir) => {
      let asked = 0;
      const session = createSession({
        cwd: dir,
        tools: [AskUserQuestionTool],
        permissionMode: "bypassPermissions",
        canUseTool: async () => (asked++, { behavior: "deny", message: "The user dismissed the question." }),
      });
      const [r] = await session.runTurn([toolUse("AskUserQuestion", { questions })]);
      expect(asked).toBe(1);
      expect(r!.is_error).toBe(true);
      expect(text(r!.content)).toContain("The user dismissed the question.");
      await session.close();
    });
  });

  it("an approval with no answers is an error the model can act on; bad shapes are rejected", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [AskUserQuestionTool], canUseTool: async () => ({ behavior: "allow" }) });
      const [none] = await session.runTurn([toolUse("AskUserQuestion", { questions })]);
      expect(none!.is_error).toBe(true);
      expect(text(none!.content)).toContain("The user gave no answer");
      const [oneOption] = await session.runTurn([toolUse("AskUserQuestion", { questions: [{ ...questions[0], options: [questions[0]!.options[0]] }] })]);
      expect(oneOption!.is_error).toBe(true);
      const [dup] = await session.runTurn([toolUse("AskUserQuestion", { questions: [questions[0], questions[0]] })]);
      expect(text(dup!.content)).toContain("Each question must be different");
      await session.close();
    });
  });

  it("is disabled when nobody can answer", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [AskUserQuestionTool] });
      const [r] = await session.runTurn([toolUse("AskUserQuestion", { questions })]);
      expect(r!.content).toBe(
        "<tool_use_error>Error: No such tool available: AskUserQuestion. AskUserQuestion is disabled for this session, in subagents as well as here.</tool_use_error>",
      );
      await session.close();
    });
  });
});
