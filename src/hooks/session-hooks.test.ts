import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolUse, withTempDir } from "../../test/helpers.js";
import { alive, cmd, eventually, script } from "../../test/hook-helpers.js";
import { hookOutputTag } from "../pipeline/run-tool-use.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import { createHookRunner } from "./runner.js";

/** A real tool: writes a note file in the project. */
const note = buildTool({
  name: "Note",
  description: "Writes a note.",
  inputSchema: z.object({ name: z.string().regex(/^[a-z]+$/), text: z.string() }),
  isReadOnly: () => false,
  async call(input, context) {
    const { writeFile } = await import("node:fs/promises");
    if (input.text === "fail") throw new Error("the disk said no");
    await writeFile(join(context.workspace.cwd, `${input.name}.txt`), input.text);
    return { data: `wrote ${input.name}.txt` };
  },
});

async function sessionWith(dir: string, hooks: Record<string, unknown>, extra: Partial<Parameters<typeof createSession>[0]> = {}) {
  const runner = createHookRunner([{ source: join(dir, ".armature/settings.json"), config: hooks }], { projectDir: dir });
  return createSession({ cwd: dir, tools: [note], hooks: runner, allow: ["Note"], ...extra });
}

describe("hooks through a session", () => {
  it("PreToolUse deny blocks the call; the model sees the reason", async () => {
    await withTempDir(async (dir) => {
      const deny = await script(dir, "deny.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"notes are frozen"}}'`);
      const s = await sessionWith(dir, { PreToolUse: [{ matcher: "Note", hooks: [cmd(deny)] }] });
      const [r] = await s.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      expect(r!.is_error).toBe(true);
      expect(r!.content).toContain("notes are frozen");
      await expect(readFile(join(dir, "a.txt"), "utf8")).rejects.toThrow();
      await s.close();
    });
  });

  it("PreToolUse exit 2 blocks with stderr", async () => {
    await withTempDir(async (dir) => {
      const block = await script(dir, "block.sh", `grep -q secret && { echo 'no secrets in notes' >&2; exit 2; }; exit 0`);
      const s = await sessionWith(dir, { PreToolUse: [{ hooks: [cmd(block)] }] });
      const [bad, good] = await s.runTurn([toolUse("Note", { name: "a", text: "secret" }, "t1"), toolUse("Note", { name: "b", text: "fine" }, "t2")]);
      expect(bad).toMatchObject({ is_error: true, content: "<tool_use_error>PreToolUse hook blocked this call: no secrets in notes</tool_use_error>" });
      expect(good).toMatchObject({ content: "wrote b.txt" });
      await s.close();
    });
  });

  it("updatedInput rewrites the call; an invalid rewrite is an is_error result", async () => {
    await withTempDir(async (dir) => {
      const rewrite = await script(dir, "rw.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"name":"rewritten","text":"by hook"}}}'`);
      const s = await sessionWith(dir, { PreToolUse: [{ hooks: [cmd(rewrite)] }] });
      const [r] = await s.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      expect(r!.content).toBe("wrote rewritten.txt");
      expect(await readFile(join(dir, "rewritten.txt"), "utf8")).toBe("by hook");
      await s.close();

      const invalid = await script(dir, "bad.sh", `echo '{"hookSpecificOutput":{"updatedInput":{"name":"UPPER","text":3}}}'`);
      const t = await sessionWith(dir, { PreToolUse: [{ hooks: [cmd(invalid)] }] });
      const [bad] = await t.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      expect(bad!.is_error).toBe(true);
      expect(bad!.content).toContain("A PreToolUse hook rewrote the input, and the rewrite is invalid.");
      expect(bad!.content).toContain("`text`");
      await t.close();
    });
  });

  it("a hook allow does not override a deny rule", async () => {
    await withTempDir(async (dir) => {
      const allow = await script(dir, "allow.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`);
      const s = await sessionWith(dir, { PreToolUse: [{ hooks: [cmd(allow)] }] }, { allow: [], deny: ["Note"] });
      const [r] = await s.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      expect(r!.is_error).toBe(true);
      expect(r!.content).toContain("Denied by rule Note");
      await s.close();
    });
  });

  it("PostToolUse additionalContext shows in the result; systemMessage is a notice", async () => {
    await withTempDir(async (dir) => {
      const post = await script(dir, "post.sh", `echo '{"systemMessage":"note indexed","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"remember to link the note"}}'`);
      const s = await sessionWith(dir, { PostToolUse: [{ matcher: "Note", hooks: [cmd(post)] }] });
      const turn = await s.runTurnDetailed([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      // The hook's text is a block of its own, labelled with this process's tag (tool output cannot forge it).
      expect(turn.results[0]!.content).toEqual([
        { type: "text", text: "wrote a.txt" },
        { type: "text", text: `[PostToolUse hook output ${hookOutputTag()}: added by a hook configured in settings, not part of the tool's result]\nremember to link the note` },
      ]);
      expect(hookOutputTag()).toMatch(/^[0-9a-f]{12}$/);
      expect(turn.notices).toEqual(["note indexed"]);
      await s.close();
    });
  });

  it("PostToolUseFailure gets the error, its context reaches the model; exit 2 feedback too", async () => {
    await withTempDir(async (dir) => {
      const fail = await script(dir, "fail.sh", `cat > failure.json; echo '{"hookSpecificOutput":{"additionalContext":"check the disk"}}'`);
      const fb = await script(dir, "fb.sh", `echo 'retry with another name' >&2; exit 2`);
      const s = await sessionWith(dir, { PostToolUseFailure: [{ hooks: [cmd(fail), cmd(fb)] }] });
      const [r] = await s.runTurn([toolUse("Note", { name: "a", text: "fail" }, "t1")]);
      expect(r!.is_error).toBe(true);
      const text = JSON.stringify(r!.content);
      expect(text).toContain("the disk said no");
      expect(text).toContain(`[PostToolUseFailure hook output ${hookOutputTag()}: added by a hook configured in settings, not part of the tool's result]\\ncheck the disk`);
      expect(text).toContain("retry with another name");
      const input = JSON.parse(await readFile(join(dir, "failure.json"), "utf8"));
      expect(input).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "Note", tool_use_id: "t1", is_interrupt: false });
      expect(input.error).toContain("the disk said no");
      await s.close();
    });
  });

  it("PermissionRequest answers an ask; PermissionDenied hears about a denial", async () => {
    await withTempDir(async (dir) => {
      const approve = await script(dir, "approve.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`);
      const s = await sessionWith(dir, { PermissionRequest: [{ matcher: "Note", hooks: [cmd(approve)] }] }, { allow: [] });
      expect((await s.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t1")]))[0]!.content).toBe("wrote a.txt");
      await s.close();

      const log = await script(dir, "denied.sh", `cat > denied.json`);
      const t = await sessionWith(dir, { PermissionDenied: [{ hooks: [cmd(log)] }] }, { allow: [], deny: ["Note"] });
      await t.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t2")]);
      expect(JSON.parse(await readFile(join(dir, "denied.json"), "utf8"))).toMatchObject({ hook_event_name: "PermissionDenied", tool_name: "Note", reason: expect.stringContaining("Denied by rule Note") });
      await t.close();
    });
  });

  it("a broken hook is reported as a notice and the call proceeds", async () => {
    await withTempDir(async (dir) => {
      const s = await sessionWith(dir, { PreToolUse: [{ hooks: [cmd("/nonexistent/hook.sh"), cmd("echo '{oops'")] }] });
      const turn = await s.runTurnDetailed([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      expect(turn.results[0]!.content).toBe("wrote a.txt");
      expect(turn.notices).toHaveLength(2);
      expect(turn.notices.join("\n")).toMatch(/code 127/);
      expect(turn.notices.join("\n")).toMatch(/not valid JSON/);
      await s.close();
    });
  });

  it("continue:false asks the agent loop to stop", async () => {
    await withTempDir(async (dir) => {
      const stop = await script(dir, "stop.sh", `echo '{"continue":false,"stopReason":"budget reached"}'`);
      const s = await sessionWith(dir, { PostToolUse: [{ hooks: [cmd(stop)] }] });
      const turn = await s.runTurnDetailed([toolUse("Note", { name: "a", text: "hi" }, "t1")]);
      expect(turn.preventContinuation).toBe("budget reached");
      await s.close();
    });
  });

  it("aborting the turn stops a hanging PreToolUse hook", async () => {
    await withTempDir(async (dir) => {
      const hang = await script(dir, "hang.sh", "echo $$ > started.tmp; mv started.tmp started; sleep 300");
      const s = await sessionWith(dir, { PreToolUse: [{ hooks: [cmd(hang)] }] });
      const controller = new AbortController();
      const running = s.runTurn([toolUse("Note", { name: "a", text: "hi" }, "t1")], { signal: controller.signal });
      const { existsSync } = await import("node:fs");
      for (let i = 0; i < 200 && !existsSync(join(dir, "started")); i++) await new Promise((r) => setTimeout(r, 25));
      controller.abort();
      const [r] = await running;
      expect(r!.is_error).toBe(true);
      expect(r!.content).toContain("aborted");
      await expect(readFile(join(dir, "a.txt"), "utf8")).rejects.toThrow();
      const pid = Number((await readFile(join(dir, "started"), "utf8")).trim());
      expect(await eventually(() => !alive(pid))).toBe(true);
      await s.close();
    });
  });

  it("PostToolBatch sees every call of the turn; its context joins the turn", async () => {
    await withTempDir(async (dir) => {
      const seen = join(dir, "batch.json");
      const hook = await script(dir, "batch.sh", `cat > ${seen}; echo '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"lint ran: clean"}}'`);
      const s = await sessionWith(dir, { PostToolBatch: [{ hooks: [cmd(hook)] }] });
      const turn = await s.runTurnDetailed([toolUse("Note", { name: "a", text: "x" }, "t1"), toolUse("Note", { name: "B", text: "x" }, "t2")]);
      const input = JSON.parse(await readFile(seen, "utf8"));
      expect(input.hook_event_name).toBe("PostToolBatch");
      expect(input.tool_calls.map((c: { tool_use_id: string; tool_name: string }) => `${c.tool_name}:${c.tool_use_id}`)).toEqual(["Note:t1", "Note:t2"]);
      expect(input.tool_calls[0].tool_response).toBe("wrote a.txt");
      expect(turn.newMessages).toEqual([{ role: "user", content: `[PostToolBatch hook output ${hookOutputTag()}: added by a hook configured in settings, not part of the tool's result]\nlint ran: clean` }]);
      await s.close();
    });
  });
});
