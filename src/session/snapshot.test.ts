import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { openSessionDir } from "./state-dir.js";
import { builtinTools } from "../tools/index.js";
import { createSession } from "./session.js";
import { parseSessionSnapshot, SnapshotError, vetSnapshot, type SessionSnapshot, type TaskRecord } from "./snapshot.js";

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

  it("a saved state restores rules only with this user's signature for this project; task records only inside the session folder", async () => {
    await withTempDir(async (raw) => {
      const dir = realpathSync(raw);
      const session = join(dir, "s");
      mkdirSync(join(session, "shell-output"), { recursive: true });
      writeFileSync(join(dir, "secret.txt"), "secret\n");
      writeFileSync(join(session, "shell-output", "ok.output"), "fine\n");
      symlinkSync(join(dir, "secret.txt"), join(session, "shell-output", "link.output"));
      const task = (id: string, outputPath: string): TaskRecord => ({ id, type: "local_bash", description: id, outputPath, startedAt: 0, status: "completed", readOffset: 0, endReported: false });
      const snapshot: SessionSnapshot = {
        version: 1, sessionId: "s", projectDir: dir, cwd: dir, readFiles: [],
        rememberedRules: [{ behavior: "allow", toolName: "Bash", raw: "Bash(python3 *)", source: "session" }],
        tasks: [task("ok", join(session, "shell-output", "ok.output")), task("out", join(dir, "secret.txt")), task("link", join(session, "shell-output", "link.output")), task("rel", "../secret.txt")],
      };
      const unsigned = vetSnapshot(snapshot, { verified: false, projectDir: dir, sessionDir: session });
      expect(unsigned.snapshot.rememberedRules).toEqual([]);
      expect(unsigned.snapshot.tasks.map((t) => t.id)).toEqual(["ok"]);
      expect(unsigned.dropped.join("\n")).toContain("Bash(python3 *)");
      const otherProject = vetSnapshot(snapshot, { verified: true, projectDir: join(dir, "s"), sessionDir: session });
      expect(otherProject.snapshot.rememberedRules).toEqual([]);
      // Control: signed for this project, the rules come back.
      expect(vetSnapshot(snapshot, { verified: true, projectDir: dir, sessionDir: session }).snapshot.rememberedRules).toHaveLength(1);

      // Through the folder: what this user's armature saved (signed) restores; a copy planted unsigned does not.
      const key = Buffer.alloc(32, 7);
      const handle = await openSessionDir(session, { signing: { key, projectDir: dir } });
      await handle.save(snapshot);
      handle.release();
      const again = await openSessionDir(session, { signing: { key, projectDir: dir } });
      expect(again.snapshot!.rememberedRules).toHaveLength(1);
      again.release();
      const forged = await openSessionDir(session, { signing: { key: Buffer.alloc(32, 8), projectDir: dir } });
      expect(forged.snapshot!.rememberedRules).toEqual([]);
      forged.release();
    });
  });

  it("TaskOutput reads a task's file as a Read would: a deny rule on it holds", async () => {
    await withTempDir(async (raw) => {
      const dir = realpathSync(raw);
      const session = join(dir, "s");
      mkdirSync(join(session, "shell-output"), { recursive: true });
      const output = join(session, "shell-output", "t.output");
      writeFileSync(output, "the output\n");
      const restore: SessionSnapshot = {
        version: 1, sessionId: "s", projectDir: dir, cwd: dir, readFiles: [], rememberedRules: [],
        tasks: [{ id: "t", type: "local_bash", description: "t", outputPath: output, startedAt: 0, status: "completed", readOffset: 0, endReported: false }],
      };
      const read = [{ type: "tool_use" as const, id: "r", name: "TaskOutput", input: { task_id: "t", block: false } }];
      const denied = createSession({ cwd: dir, sessionDir: session, tools: builtinTools(), restore, deny: [`Read(/${output})`] });
      const [d] = await denied.runTurn(read);
      expect(d!.is_error).toBe(true);
      expect(JSON.stringify(d!.content)).not.toContain("the output");
      await denied.close();
      // Control: without the rule the session's own output file reads with no approval.
      const allowed = createSession({ cwd: dir, sessionDir: session, tools: builtinTools(), restore });
      const [a] = await allowed.runTurn(read);
      expect(JSON.stringify(a!.content)).toContain("the output");
      await allowed.close();
    });
  });
});
