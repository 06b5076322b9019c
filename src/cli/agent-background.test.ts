// A -p run does not end while background work the model was promised to hear of still runs (a
// command moved to the background at its timeout, or run there): as the reference CLI, the
// stream has the answer's result, then the task's end, a new init, the model's turn with the
// notification, and a second result.
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { captureIO, useTestApiKey, withTempDir } from "../../test/helpers.js";
import { main } from "./main.js";

let server: MockModelServer | undefined;
useTestApiKey();
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("armature agent -p and background work", () => {
  it("waits for a command moved to the background at its timeout and gives the model a turn for its end", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_slow", name: "Bash", input: { command: "echo started; sleep 1.5; echo finished-late", timeout: 300 } }]),
        anthropicReply([{ type: "text", text: "I will report when it ends." }]),
        anthropicReply([{ type: "text", text: "It finished." }]),
      ]);
      const io = captureIO();
      const code = await main(["agent", "-p", "run the slow thing", "--cwd", dir, "--mode", "bypassPermissions", "--base-url", server.url, "--output-format", "stream-json", "--session-dir", `${dir}/s`], io);
      expect(code, io.err).toBe(0);
      expect(server.requests).toHaveLength(3);
      const moved = JSON.stringify(server.requests[1]!.body.messages);
      expect(moved).toContain("moved to the background");
      const last = JSON.stringify(server.requests[2]!.body.messages);
      const id = /\(ID: ([\w-]+)\)/.exec(moved)?.[1];
      expect(id).toBeDefined();
      expect(last).toContain(`<task-id>${id}</task-id>`);
      expect(last).toContain("<status>completed</status>");
      const events = io.out.trim().split("\n").map((l) => JSON.parse(l) as { type: string; subtype?: string; task_id?: string; tool_use_id?: string });
      expect(events.at(-1)).toMatchObject({ type: "result", result: "It finished.", num_turns: 1, result_index: 1 });
      const results = events.filter((e) => e.type === "result");
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ result: "I will report when it ends.", num_turns: 2, result_index: 0 });
      // The notification came as the last user message of its own run.
      const messages = server.requests[2]!.body.messages as Array<{ role: string; content: unknown }>;
      expect(messages.at(-1)!.role).toBe("user");
      expect(JSON.stringify(messages.at(-1)!.content)).toContain('"text":"<system-reminder>\\n[SYSTEM NOTIFICATION');
      expect(events.find((e) => e.subtype === "task_started")).toMatchObject({ type: "system", task_id: id, tool_use_id: "toolu_slow", task_type: "local_bash" });
      // Its end, in the reference's events, before the turn it gave the model.
      const ended = events.findIndex((e) => e.subtype === "task_notification");
      expect(events[ended]).toMatchObject({ type: "system", task_id: id, tool_use_id: "toolu_slow", status: "completed", summary: expect.stringContaining("completed (exit code 0)") });
      expect(events[ended - 1]).toMatchObject({ type: "system", subtype: "task_updated", task_id: id, patch: { status: "completed" } });
      expect(ended).toBeLessThan(events.findIndex((e) => JSON.stringify(e).includes("It finished.")));
      // After the first result: the end, the tasks left (none), a new init, the turn.
      const first = events.indexOf(results[0]!);
      expect(events.slice(first + 1, first + 5).map((e) => e.subtype)).toEqual(["task_updated", "task_notification", "background_tasks_changed", "init"]);
    });
  }, 30_000);

  it("waits for a command run in the background and reports it in a run of its own", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_bg", name: "Bash", input: { command: "sleep 1; echo bg-done", run_in_background: true, description: "Wait then print" } }]),
        anthropicReply([{ type: "text", text: "Started it." }]),
        anthropicReply([{ type: "text", text: "It printed bg-done." }]),
      ]);
      const io = captureIO();
      const code = await main(["agent", "-p", "start it", "--cwd", dir, "--mode", "bypassPermissions", "--base-url", server.url, "--output-format", "stream-json", "--session-dir", `${dir}/s`], io);
      expect(code, io.err).toBe(0);
      expect(server.requests).toHaveLength(3);
      const events = io.out.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const kinds = events.map((e) => (e.type === "system" ? `system/${String(e.subtype)}` : String(e.type)));
      expect(kinds).toEqual([
        "system/init",
        "assistant",
        "system/background_tasks_changed",
        "system/task_started",
        "user",
        "assistant",
        "result",
        "system/task_updated",
        "system/task_notification",
        "system/background_tasks_changed",
        "system/init",
        "assistant",
        "result",
      ]);
      const started = events[3]!;
      expect(started).toMatchObject({ task_type: "local_bash", tool_use_id: "toolu_bg", description: "Wait then print", is_backgrounded: true });
      expect(events[2]).toMatchObject({ tasks: [{ task_id: started.task_id, task_type: "local_bash", description: "Wait then print" }] });
      expect(events[8]).toMatchObject({ task_id: started.task_id, status: "completed", summary: 'Background command "Wait then print" completed (exit code 0)' });
      expect(events[9]).toMatchObject({ tasks: [] });
      expect(JSON.stringify(server.requests[2]!.body.messages)).toContain(`<task-id>${String(started.task_id)}</task-id>`);
    });
  }, 30_000);
});
