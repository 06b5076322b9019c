import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { builtinTools } from "../tools/index.js";
import { createSession } from "./session.js";
import { parseSessionSnapshot, SnapshotError, type SessionSnapshot } from "./snapshot.js";

const bash = (id: string, command: string) => [{ type: "tool_use" as const, id, name: "Bash", input: { command } }];

describe("session snapshots", () => {
  it("rules remembered with 'always' for the session come back in a restored session", async () => {
    await withTempDir(async (dir) => {
      let asked = 0;
      const first = createSession({
        cwd: dir,
        tools: builtinTools(),
        canUseTool: async () => (asked++, { behavior: "allow", remember: "session", rules: ["Bash(touch *)"] }),
      });
      const [r1] = await first.runTurn(bash("a", "touch one.txt"));
      expect(r1!.is_error, String(r1!.content)).toBeUndefined();
      expect(asked).toBe(1);
      const snapshot = parseSessionSnapshot(JSON.parse(JSON.stringify(first.snapshot())));
      await first.close();
      expect(snapshot.rememberedRules.map((r) => r.raw)).toEqual(["Bash(touch *)"]);

      // No approver: without the remembered rule this call would be denied.
      const second = createSession({ cwd: dir, tools: builtinTools(), restore: snapshot });
      expect(second.context.session.id).toBe(snapshot.sessionId);
      const [r2] = await second.runTurn(bash("b", "touch two.txt"));
      expect(r2!.is_error, String(r2!.content)).toBeUndefined();
      const [r3] = await second.runTurn(bash("c", "rm one.txt"));
      expect(r3!.is_error).toBe(true);
      await second.close();
    });
  });

  it("a cwd outside the restored project, or one that is gone, is not restored", async () => {
    await withTempDir(async (dir) => {
      const base: SessionSnapshot = { version: 1, sessionId: "s", projectDir: dir, cwd: `${dir}/gone`, readFiles: [], rememberedRules: [], tasks: [] };
      const gone = createSession({ cwd: dir, restore: base });
      expect(gone.context.workspace.cwd).toBe(dir);
      const other = createSession({ cwd: dir, restore: { ...base, projectDir: "/elsewhere", cwd: "/tmp" } });
      expect(other.context.workspace.cwd).toBe(dir);
      await Promise.all([gone.close(), other.close()]);
    });
  });

  it.each([
    [null, "the state is not a JSON object"],
    [{ version: 2 }, "unknown state version 2"],
    [{ version: 1, sessionId: 1 }, "sessionId must be a string"],
    [{ version: 1, sessionId: "s", projectDir: "/p", cwd: "/p", readFiles: [["/x", { contentHash: 1 }]] }, "readFiles[0] must be"],
    [{ version: 1, sessionId: "s", projectDir: "/p", cwd: "/p", readFiles: [], rememberedRules: [{ behavior: "deny", toolName: "Bash", raw: "Bash", source: "session" }] }, "rememberedRules[0] must be an allow rule"],
    [{ version: 1, sessionId: "s", projectDir: "/p", cwd: "/p", readFiles: [], rememberedRules: [], tasks: [{}] }, "tasks[0] must be a task record"],
  ])("a bad snapshot is a SnapshotError: %j", (value, message) => {
    expect(() => parseSessionSnapshot(value)).toThrow(SnapshotError);
    expect(() => parseSessionSnapshot(value)).toThrow(message);
  });
});
