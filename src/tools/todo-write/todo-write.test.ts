import { describe, expect, it } from "vitest";
import { createSession } from "../../session/session.js";
import { createSubagentContext } from "../../tool/context.js";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { TODO_WRITE_RESULT } from "./prompt.js";
import { todoStore, type TodoChange } from "./todo-store.js";
import { TodoWriteTool } from "./todo-write-tool.js";

const item = (content: string, status: "pending" | "in_progress" | "completed") => ({ content, status, activeForm: `${content}ing` });

describe("TodoWrite", () => {
  it("keeps the list, answers with the reference's text and reports old and new lists", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [TodoWriteTool] });
      const changes: TodoChange[] = [];
      todoStore(session.context).onChange((c) => changes.push(c));
      const [r1] = await session.runTurn([toolUse("TodoWrite", { todos: [item("Write the parser", "in_progress"), item("Add tests", "pending")] })]);
      expect(r1).toMatchObject({ content: TODO_WRITE_RESULT });
      expect(r1!.is_error).toBeUndefined();
      expect(todoStore(session.context).get().map((t) => t.status)).toEqual(["in_progress", "pending"]);
      await session.runTurn([toolUse("TodoWrite", { todos: [item("Write the parser", "completed"), item("Add tests", "in_progress")] })]);
      expect(changes).toHaveLength(2);
      expect(changes[1]!.oldTodos.map((t) => t.status)).toEqual(["in_progress", "pending"]);
      expect(changes[1]!.newTodos.map((t) => t.status)).toEqual(["completed", "in_progress"]);
      expect(changes[1]!.agentId).toBe("main");
      await session.close();
    });
  });

  it("clears a list whose items are all completed, so the next write starts empty", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [TodoWriteTool] });
      const changes: TodoChange[] = [];
      todoStore(session.context).onChange((c) => changes.push(c));
      for (const todos of [[item("A", "completed"), item("B", "completed")], [item("C", "pending")]]) {
        await session.runTurn([toolUse("TodoWrite", { todos })]);
      }
      expect(changes[1]!.oldTodos).toEqual([]);
      expect(todoStore(session.context).get().map((t) => t.content)).toEqual(["C"]);
      await session.close();
    });
  });

  it("accepts an empty list and rejects items missing fields with one line per problem", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [TodoWriteTool] });
      const [ok] = await session.runTurn([toolUse("TodoWrite", { todos: [] })]);
      expect(ok!.content).toBe(TODO_WRITE_RESULT);
      const [bad] = await session.runTurn([toolUse("TodoWrite", { todos: [{ content: "x", status: "doing" }] })]);
      expect(bad!.is_error).toBe(true);
      expect(String(bad!.content)).toContain("todos[0].activeForm");
      expect(String(bad!.content)).toContain("todos[0].status");
      await session.close();
    });
  });

  it("runs in plan mode (it changes only the session's own list) and keeps one list per agent", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [TodoWriteTool], permissionMode: "plan" });
      const [r] = await session.runTurn([toolUse("TodoWrite", { todos: [item("Main step", "pending")] })]);
      expect(r!.is_error).toBeUndefined();
      const child = createSubagentContext(session.context, { agentId: "child-1" });
      todoStore(child).set(child.agent.agentId, [item("Child step", "pending")]);
      expect(todoStore(session.context).get().map((t) => t.content)).toEqual(["Main step"]);
      expect(todoStore(session.context).get("child-1").map((t) => t.content)).toEqual(["Child step"]);
      await session.close();
    });
  });
});
