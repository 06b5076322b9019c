import { describe, expect, it } from "vitest";
import { createSession } from "../session/session.js";
import { AskUserQuestionTool } from "../tools/ask-user-question/index.js";
import { captureIO, toolUse, withTempDir } from "../../test/helpers.js";
import { terminalApprover } from "./prompt.js";

/** A terminal whose user types `answers`, one per question asked. */
function terminal(answers: string[]) {
  const io = captureIO();
  const asked: string[] = [];
  return { io: { ...io, isTTY: true, question: async (prompt: string) => (asked.push(prompt), answers.shift() ?? "") }, asked };
}

const questions = [
  { question: "Which database?", header: "DB", multiSelect: false, options: [{ label: "SQLite", description: "a file" }, { label: "Postgres", description: "a server" }] },
  { question: "Which extras?", header: "Extras", multiSelect: true, options: [{ label: "Cache", description: "c" }, { label: "Queue", description: "q" }, { label: "Search", description: "s" }] },
];

describe("the terminal approver answers AskUserQuestion", () => {
  it.each([
    [["2", "1,3"], '"Which database?"="Postgres", "Which extras?"="Cache, Search"'],
    [["MySQL please", "none"], '"Which database?"="MySQL please", "Which extras?"="none"'],
  ])("typed %j", async (typed, answered) => {
    await withTempDir(async (dir) => {
      const { io, asked } = terminal([...typed]);
      const session = createSession({ cwd: dir, tools: [AskUserQuestionTool], canUseTool: terminalApprover(io) });
      const [r] = await session.runTurn([toolUse("AskUserQuestion", { questions })]);
      expect(r!.content).toBe(`Your questions have been answered: ${answered}. You can now continue with these answers in mind.`);
      expect(asked[0]).toContain("1. SQLite — a file");
      await session.close();
    });
  });

  it("an empty answer dismisses the questions", async () => {
    await withTempDir(async (dir) => {
      const { io } = terminal([""]);
      const session = createSession({ cwd: dir, tools: [AskUserQuestionTool], canUseTool: terminalApprover(io) });
      const [r] = await session.runTurn([toolUse("AskUserQuestion", { questions })]);
      expect(r!.is_error).toBe(true);
      expect(String(r!.content)).toContain("The user dismissed the question.");
      await session.close();
    });
  });
});
