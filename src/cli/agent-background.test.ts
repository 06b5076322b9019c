// A -p run does not end while a command it moved to the background at its timeout still runs:
// the model was told it would hear when it ends, so it gets a turn with the notification.
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
      expect(events.at(-1)).toMatchObject({ result: "It finished.", num_turns: 3 });
      expect(events.find((e) => e.subtype === "task_started")).toMatchObject({ type: "system", task_id: id, tool_use_id: "toolu_slow", task_type: "local_bash" });
      // Its end, in the reference's events, before the turn it gave the model.
      const ended = events.findIndex((e) => e.subtype === "task_notification");
      expect(events[ended]).toMatchObject({ type: "system", task_id: id, tool_use_id: "toolu_slow", status: "completed", summary: expect.stringContaining("completed (exit code 0)") });
      expect(events[ended - 1]).toMatchObject({ type: "system", subtype: "task_updated", task_id: id, patch: { status: "completed" } });
      expect(ended).toBeLessThan(events.findIndex((e) => JSON.stringify(e).includes("It finished.")));
    });
  }, 30_000);
});
