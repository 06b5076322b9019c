import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { cmd, eventually, runnerFor, script, toolInput } from "../../test/hook-helpers.js";
import { createHookRunner, runHooks } from "./runner.js";
import type { HookOutcome } from "./types.js";

const common = { session_id: "s", transcript_path: "/t/transcript.jsonl", cwd: "/w" };

describe("has(): the cheap check", () => {
  it("answers per event and match value", () => {
    const runner = createHookRunner(
      [
        {
          source: "settings.json",
          config: {
            PreToolUse: [{ matcher: "Edit|Write", hooks: [cmd("true")] }],
            PostToolUse: [{ matcher: "Bash", hooks: [] }],
            SessionStart: [{ matcher: "resume", hooks: [cmd("true")] }],
            Stop: [{ hooks: [cmd("true")] }],
          },
        },
      ],
      { projectDir: "/tmp" },
    );
    expect(runner.has("PreToolUse", "Write")).toBe(true);
    expect(runner.has("PreToolUse", "Read")).toBe(false);
    expect(runner.has("PreToolUse")).toBe(true);
    expect(runner.has("PostToolUse", "Bash")).toBe(false); // a group without handlers
    expect(runner.has("PermissionRequest", "Write")).toBe(false);
    expect(runner.has("SessionStart", "resume")).toBe(true);
    expect(runner.has("SessionStart", "startup")).toBe(false);
    expect(runner.has("Stop", "anything")).toBe(true); // Stop takes no matcher
    expect(runner.handlers).toHaveLength(3);
  });

  it("an empty configuration has nothing", () => {
    const runner = createHookRunner([{ source: "a", config: undefined }, { source: "b", config: {} }], { projectDir: "/tmp" });
    expect(runner.has("PreToolUse", "Bash")).toBe(false);
    expect(runner.warnings).toEqual([]);
  });

  it("a bad file fails the whole runner, naming the file", () => {
    expect(() => createHookRunner([{ source: "/home/u/.armature/settings.json", config: { PreToolUse: [{ matcher: "(", hooks: [] }] } }], { projectDir: "/tmp" }))
      .toThrow(/invalid hooks in \/home\/u\/\.armature\/settings\.json: hooks\.PreToolUse\[0\]\.matcher/);
  });
});

describe("which handlers run", () => {
  it("regex and exact matchers on the tool name", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "log.sh", `echo "$1" >> "$2"`);
      const runner = createHookRunner(
        [{ source: "s", config: { PreToolUse: [{ matcher: "Edit.*", hooks: [cmd(path, { args: ["regex", "a.txt"] })] }, { matcher: "Edit", hooks: [cmd(path, { args: ["exact", "a.txt"] })] }] } }],
        { projectDir: dir },
      );
      await runner.run("PreToolUse", toolInput("PreToolUse", { tool_name: "NotebookEdit" }));
      expect((await readFile(join(dir, "a.txt"), "utf8")).trim()).toBe("regex");
      await runner.run("PreToolUse", toolInput("PreToolUse", { tool_name: "Edit" }));
      expect((await readFile(join(dir, "a.txt"), "utf8")).trim().split("\n").sort()).toEqual(["exact", "regex", "regex"]);
    });
  });

  it("`if` filters by tool (default matcher), and a custom matcher can judge the specifier", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "log.sh", `echo "$1" >> ran.txt`);
      const config = { PreToolUse: [{ hooks: [cmd(path, { args: ["git"], if: "Bash(git *)" }), cmd(path, { args: ["read"], if: "Read" })] }] };
      const runner = createHookRunner([{ source: "s", config }], { projectDir: dir });
      await runner.run("PreToolUse", toolInput("PreToolUse", { tool_input: { command: "npm test" } }));
      // The default cannot judge "git *": it runs the hook rather than skip a policy.
      expect((await readFile(join(dir, "ran.txt"), "utf8")).trim()).toBe("git");
      const strict = createHookRunner([{ source: "s", config }], {
        projectDir: dir,
        ifMatcher: (rule, tool, input) => rule === "Bash(git *)" && tool === "Bash" && String((input as { command: string }).command).startsWith("git "),
      });
      await strict.run("PreToolUse", toolInput("PreToolUse", { tool_input: { command: "npm test" } }));
      await strict.run("PreToolUse", toolInput("PreToolUse", { tool_input: { command: "git push" } }));
      expect((await readFile(join(dir, "ran.txt"), "utf8")).trim().split("\n")).toEqual(["git", "git"]);
    });
  });

  it("`once: true` runs a handler once per runner", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "c.sh", "echo x >> count.txt");
      const runner = runnerFor(dir, "PostToolUse", [cmd(path, { once: true })]);
      await runner.run("PostToolUse", toolInput("PostToolUse"));
      const second = await runner.run("PostToolUse", toolInput("PostToolUse"));
      expect(second.hookCount).toBe(0);
      expect((await readFile(join(dir, "count.txt"), "utf8")).trim().split("\n")).toHaveLength(1);
    });
  });

  it("`async: true` runs in the background; its outcome goes to onBackgroundOutcome", async () => {
    await withTempDir(async (dir) => {
      // Waits for a file the test writes only after run() returned: run() must not wait for it.
      const path = await script(dir, "bg.sh", `while [ ! -f go ]; do sleep 0.05; done; echo '{"systemMessage":"background done"}'`);
      const seen: HookOutcome[] = [];
      const runner = runnerFor(dir, "PostToolUse", [cmd(path, { async: true, timeout: 20 })], undefined, { onBackgroundOutcome: (_e, o) => seen.push(o) });
      const out = await runner.run("PostToolUse", toolInput("PostToolUse"));
      expect(out.hookCount).toBe(0);
      expect(seen).toHaveLength(0);
      await writeFile(join(dir, "go"), "");
      expect(await eventually(() => seen.length === 1)).toBe(true);
      expect(seen[0]!.systemMessages).toEqual(["background done"]);
    });
  });

  it("a background listener that throws does not take the process down", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "bg.sh", "echo '{}'");
      let called = false;
      const runner = runnerFor(dir, "PostToolUse", [cmd(path, { async: true, timeout: 20 })], undefined, {
        onBackgroundOutcome: () => {
          called = true;
          throw new Error("listener bug");
        },
      });
      await runner.run("PostToolUse", toolInput("PostToolUse"));
      expect(await eventually(() => called)).toBe(true);
    });
  });

  it("the default timeout applies to a handler without one", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "slow.sh", "sleep 30");
      const out = await runnerFor(dir, "PreToolUse", [cmd(path)], undefined, { defaultTimeoutMs: 500 }).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors[0]).toMatch(/timed out after 0\.5 s/);
    });
  });

  it("SessionEnd hooks get a short default budget", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "slow.sh", "sleep 30");
      const out = await runHooks(runnerFor(dir, "SessionEnd", [cmd(path)]), "SessionEnd", { ...common, reason: "other" });
      expect(out.errors[0]).toMatch(/timed out after 1\.5 s/);
    });
  });

  it("a tool response that is not plain JSON (BigInt, cycles) still reaches the hook", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "in.sh", "cat > in.json");
      const cyclic: Record<string, unknown> = { n: 10n };
      cyclic.self = cyclic;
      const out = await runnerFor(dir, "PostToolUse", [cmd(path)]).run("PostToolUse", toolInput("PostToolUse", { tool_response: cyclic }));
      expect(out.errors).toEqual([]);
      expect(JSON.parse(await readFile(join(dir, "in.json"), "utf8")).tool_response).toEqual({ n: "10", self: "[Circular]" });
    });
  });
});

describe("runHooks for the agent loop events", () => {
  it("nothing configured: an empty outcome, nothing runs", async () => {
    expect(await runHooks(undefined, "Stop", { ...common, stop_hook_active: false })).toMatchObject({ hookCount: 0, errors: [] });
  });

  it("SessionStart matches on source, stdout becomes context", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "start.sh", `sed -E 's/.*"source":"([a-z]+)".*/\\1/'`);
      const runner = runnerFor(dir, "SessionStart", [cmd(path)], "startup|clear");
      expect((await runHooks(runner, "SessionStart", { ...common, source: "startup" })).additionalContext).toEqual(["startup"]);
      expect((await runHooks(runner, "SessionStart", { ...common, source: "resume" })).hookCount).toBe(0);
    });
  });

  it("UserPromptSubmit gets the prompt and can block it", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "p.sh", `grep -q password && { echo 'do not paste passwords' >&2; exit 2; }; exit 0`);
      const runner = runnerFor(dir, "UserPromptSubmit", [cmd(path)]);
      expect((await runHooks(runner, "UserPromptSubmit", { ...common, prompt: "my password is hunter2" })).blockReason).toBe("do not paste passwords");
      expect((await runHooks(runner, "UserPromptSubmit", { ...common, prompt: "hello" })).blockReason).toBeUndefined();
    });
  });

  it("Stop: decision block keeps the turn going; Notification, PreCompact, SubagentStop, SessionEnd, PostToolBatch run", async () => {
    await withTempDir(async (dir) => {
      const block = await script(dir, "b.sh", `echo '{"decision":"block","reason":"run the tests first"}'`);
      const stop = await runHooks(runnerFor(dir, "Stop", [cmd(block)]), "Stop", { ...common, stop_hook_active: false, last_assistant_message: "done" });
      expect(stop.blockReason).toBe("run the tests first");
      const log = await script(dir, "log.sh", `cat >> events.jsonl; echo >> events.jsonl`);
      const runner = createHookRunner(
        [
          {
            source: "s",
            config: {
              Notification: [{ matcher: "idle_prompt", hooks: [cmd(log)] }],
              PreCompact: [{ matcher: "auto", hooks: [cmd(log)] }],
              SubagentStop: [{ matcher: "Explore", hooks: [cmd(log)] }],
              SessionEnd: [{ matcher: "logout", hooks: [cmd(log)] }],
              PostToolBatch: [{ hooks: [cmd(log)] }],
            },
          },
        ],
        { projectDir: dir },
      );
      await runHooks(runner, "Notification", { ...common, message: "waiting", notification_type: "idle_prompt" });
      await runHooks(runner, "Notification", { ...common, message: "x", notification_type: "permission_prompt" });
      await runHooks(runner, "PreCompact", { ...common, trigger: "auto", custom_instructions: "" });
      await runHooks(runner, "SubagentStop", { ...common, stop_hook_active: false, agent_id: "a1", agent_type: "Explore" });
      await runHooks(runner, "SessionEnd", { ...common, reason: "logout" });
      await runHooks(runner, "PostToolBatch", { ...common, tool_calls: [{ tool_name: "Read", tool_input: { file_path: "/x" }, tool_use_id: "t1", tool_response: "ok" }] });
      const events = (await readFile(join(dir, "events.jsonl"), "utf8")).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.map((e) => e.hook_event_name)).toEqual(["Notification", "PreCompact", "SubagentStop", "SessionEnd", "PostToolBatch"]);
      expect(events[4]).toMatchObject({ tool_calls: [{ tool_name: "Read", tool_use_id: "t1" }] });
    });
  });
});
