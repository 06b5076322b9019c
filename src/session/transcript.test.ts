import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolUse, withTempDir } from "../../test/helpers.js";
import { cmd, script } from "../../test/hook-helpers.js";
import { createHookRunner } from "../hooks/runner.js";
import { buildTool } from "../tool/build-tool.js";
import { createSession } from "./session.js";

const echo = buildTool({
  name: "Echo",
  description: "Echoes.",
  inputSchema: z.object({ text: z.string() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async ({ text }) => ({ data: text }),
});

/** A PreToolUse hook that keeps its input and a copy of the transcript as it was then. */
async function recordingSession(dir: string, transcript?: boolean) {
  const hook = await script(
    dir,
    "record.sh",
    `cat > "${dir}/input.json"; p=$(sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p' "${dir}/input.json"); if [ -n "$p" ]; then cp "$p" "${dir}/at-pre.jsonl"; fi`,
  );
  const hooks = createHookRunner([{ source: join(dir, "settings.json"), config: { PreToolUse: [{ hooks: [cmd(hook)] }] } }], { projectDir: dir });
  return createSession({ cwd: dir, tools: [echo], hooks, sessionDir: join(dir, "session"), ...(transcript !== undefined ? { transcript } : {}) });
}

describe("the transcript hooks get as transcript_path", () => {
  it("exists when a hook runs, and holds each turn's tool_use blocks then its tool_result blocks", async () => {
    await withTempDir(async (dir) => {
      const s = await recordingSession(dir);
      await s.runTurn([toolUse("Echo", { text: "one" }, "a")]);
      await s.runTurn([toolUse("Echo", { text: "two" }, "b")]);
      const input = JSON.parse(readFileSync(join(dir, "input.json"), "utf8")) as { transcript_path: string };
      expect(input.transcript_path).toBe(join(dir, "session", "transcript.jsonl"));
      // At the second turn's PreToolUse: the first turn, and the second turn's call.
      const atPre = readFileSync(join(dir, "at-pre.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      expect(atPre.map((e) => e.type)).toEqual(["assistant", "user", "assistant"]);
      expect(atPre[2].message.content[0]).toMatchObject({ type: "tool_use", id: "b", name: "Echo" });
      const all = readFileSync(input.transcript_path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      expect(all).toHaveLength(4);
      expect(all[3]).toMatchObject({ type: "user", parentUuid: all[2].uuid, message: { role: "user", content: [{ type: "tool_result", tool_use_id: "b", content: "two" }] } });
      expect(all[0]).toMatchObject({ parentUuid: null, sessionId: s.context.session.id, cwd: dir });
      await s.close();
    });
  });

  it("without a transcript the field is left out, never a path that does not exist", async () => {
    await withTempDir(async (dir) => {
      const s = await recordingSession(dir, false);
      await s.runTurn([toolUse("Echo", { text: "one" }, "a")]);
      const input = JSON.parse(readFileSync(join(dir, "input.json"), "utf8")) as Record<string, unknown>;
      expect(input).not.toHaveProperty("transcript_path");
      expect(input.session_id).toBe(s.context.session.id);
      expect(existsSync(join(dir, "session", "transcript.jsonl"))).toBe(false);
      await s.close();
    });
  });
});
