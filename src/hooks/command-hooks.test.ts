import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { alive, cmd, eventually, runnerFor, script, toolInput } from "../../test/hook-helpers.js";
import { createHookRunner } from "./runner.js";
import type { HookEventName, HookOutcome } from "./types.js";

async function once(event: HookEventName, body: string, extra: object = {}, input = toolInput(event)): Promise<HookOutcome> {
  return withTempDir(async (dir) => {
    const path = await script(dir, "hook.sh", body);
    return runnerFor(dir, event, [cmd(path, extra)]).run(event, input);
  });
}

describe("command hooks: the protocol", () => {
  it("gets the input JSON on stdin, the project dir in its env and as cwd", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "hook.sh", `cat > "$ARMATURE_PROJECT_DIR/stdin.json"\necho "$ARMATURE_PROJECT_DIR|$CLAUDE_PROJECT_DIR|$PWD|\${OTEL_SECRET-unset}|$EXTRA" > env.txt`);
      const runner = runnerFor(dir, "PreToolUse", [cmd(path)], "Bash", { env: { OTEL_SECRET: "x", EXTRA: "from-settings" } });
      const out = await runner.run("PreToolUse", toolInput("PreToolUse", { tool_input: { command: "git status" } }), "Bash");
      expect(out.errors).toEqual([]);
      expect(JSON.parse(await readFile(join(dir, "stdin.json"), "utf8"))).toEqual({
        session_id: "sess-1",
        transcript_path: "/tmp/sess-1/transcript.jsonl",
        cwd: "/work",
        hook_event_name: "PreToolUse",
        permission_mode: "default",
        tool_name: "Bash",
        tool_input: { command: "git status" },
        tool_use_id: "toolu_1",
      });
      expect((await readFile(join(dir, "env.txt"), "utf8")).trim()).toBe(`${dir}|${dir}|${dir}|unset|from-settings`);
    });
  });

  it("exit 0 without output: success, nothing to add", async () => {
    const out = await once("PreToolUse", "exit 0");
    expect(out).toEqual({ additionalContext: [], systemMessages: [], suppressOutput: false, errors: [], hookCount: 1 });
  });

  it("exit 0 plain stdout is context only for UserPromptSubmit and SessionStart", async () => {
    expect((await once("PreToolUse", "echo hello")).additionalContext).toEqual([]);
    expect((await once("UserPromptSubmit", "echo 'branch: main'", {}, toolInput("UserPromptSubmit", { prompt: "hi" }))).additionalContext).toEqual(["branch: main"]);
    expect((await once("SessionStart", "echo 'today is Monday'", {}, toolInput("SessionStart", { source: "startup" }))).additionalContext).toEqual(["today is Monday"]);
  });

  it("exit 2 blocks with stderr as the reason", async () => {
    const out = await once("PreToolUse", "echo 'rm is not allowed here' >&2; exit 2");
    expect(out.blockReason).toBe("rm is not allowed here");
    expect(out.errors).toEqual([]);
  });

  it("exit 2 with empty stderr still blocks, saying so", async () => {
    const out = await once("PreToolUse", "exit 2");
    expect(out.blockReason).toMatch(/exited with code 2 and gave no reason/);
  });

  it("exit 2: a JSON reason on stdout wins over stderr; JSON cannot turn the block into an allow", async () => {
    const out = await once("PreToolUse", `echo '{"reason":"policy 7","hookSpecificOutput":{"permissionDecision":"allow"}}'; echo other >&2; exit 2`);
    expect(out.blockReason).toBe("policy 7");
    expect(out.permissionDecision).toBeUndefined();
  });

  it("exit 2 on PostToolUse and Stop blocks (feedback to the model); on PermissionRequest it is ignored and reported", async () => {
    expect((await once("PostToolUse", "echo 'lint failed' >&2; exit 2")).blockReason).toBe("lint failed");
    expect((await once("Stop", "echo 'tests still fail' >&2; exit 2", {}, toolInput("Stop", { stop_hook_active: false }))).blockReason).toBe("tests still fail");
    const pr = await once("PermissionRequest", "echo nope >&2; exit 2");
    expect(pr.blockReason).toBeUndefined();
    expect(pr.errors[0]).toMatch(/exited with code 2, which has no effect on PermissionRequest: nope/);
  });

  it("exit 2 on SessionStart is a message for the user, not a block", async () => {
    const out = await once("SessionStart", "echo 'setup failed' >&2; exit 2", {}, toolInput("SessionStart", { source: "startup" }));
    expect(out.blockReason).toBeUndefined();
    expect(out.systemMessages).toEqual(["setup failed"]);
  });

  it("exit 1 is a non-blocking error with the first stderr line; the call proceeds", async () => {
    const out = await once("PreToolUse", "echo 'first problem' >&2; echo 'second' >&2; exit 1");
    expect(out.blockReason).toBeUndefined();
    expect(out.permissionDecision).toBeUndefined();
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatch(/^PreToolUse hook `.*hook\.sh` \(test-settings\.json\) exited with code 1: first problem$/);
  });

  it("other exit codes with valid hook JSON on stdout: the JSON decides, no error", async () => {
    const out = await once("PreToolUse", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'; exit 3`);
    expect(out.permissionDecision).toBe("deny");
    expect(out.errors).toEqual([]);
  });

  it("a missing command (exit 127) is reported, and the call proceeds", async () => {
    await withTempDir(async (dir) => {
      const out = await runnerFor(dir, "PreToolUse", [cmd("/nonexistent/policy.sh")]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.blockReason).toBeUndefined();
      expect(out.errors[0]).toMatch(/exited with code 127 \(command not found: check the path and that the script is executable\)/);
      const exec = await runnerFor(dir, "PreToolUse", [cmd("/nonexistent/policy", { args: ["x"] })]).run("PreToolUse", toolInput("PreToolUse"));
      expect(exec.errors[0]).toMatch(/could not be started: spawn \/nonexistent\/policy ENOENT/);
    });
  });

  it("a script that is not executable (exit 126) is reported", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "noexec.sh");
      await writeFile(path, "#!/usr/bin/env bash\nexit 2\n");
      const out = await runnerFor(dir, "PreToolUse", [cmd(path)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.blockReason).toBeUndefined();
      expect(out.errors[0]).toMatch(/exited with code 126 \(not executable\)/);
    });
  });

  it("exec form (args) runs the program without a shell", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "args.sh", `printf '%s\\n' "$@" > args.txt`);
      const out = await runnerFor(dir, "PreToolUse", [cmd(path, { args: ["a b", "$HOME", ";ls"] })]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors).toEqual([]);
      expect(await readFile(join(dir, "args.txt"), "utf8")).toBe("a b\n$HOME\n;ls\n");
    });
  });

  it("a hook that never reads a large stdin does not crash anything", async () => {
    const out = await once("PostToolUse", "exit 0", {}, toolInput("PostToolUse", { tool_response: "x".repeat(2_000_000) }));
    expect(out.errors).toEqual([]);
  });
});

describe("command hooks: each JSON field", () => {
  const cases: Array<[string, HookEventName, object, Partial<HookOutcome>]> = [
    ["continue:false + stopReason", "PostToolUse", { continue: false, stopReason: "budget exhausted" }, { stopReason: "budget exhausted" }],
    ["continue:false on PreToolUse also blocks the call", "PreToolUse", { continue: false, stopReason: "halt" }, { stopReason: "halt", blockReason: "halt" }],
    ["continue:false without a reason", "Stop", { continue: false }, { stopReason: expect.stringMatching(/stopped the session \(continue: false\)/) as unknown as string }],
    ["suppressOutput", "PostToolUse", { suppressOutput: true }, { suppressOutput: true }],
    ["systemMessage", "PostToolUse", { systemMessage: "formatted 3 files" }, { systemMessages: ["formatted 3 files"] }],
    ["decision block + reason on PostToolUse", "PostToolUse", { decision: "block", reason: "fix the lint errors" }, { blockReason: "fix the lint errors" }],
    ["decision block on UserPromptSubmit", "UserPromptSubmit", { decision: "block", reason: "no secrets in prompts" }, { blockReason: "no secrets in prompts" }],
    ["PreToolUse allow", "PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "safe" } }, { permissionDecision: "allow", permissionDecisionReason: "safe" }],
    ["PreToolUse deny", "PreToolUse", { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "use rg" } }, { permissionDecision: "deny", permissionDecisionReason: "use rg" }],
    ["PreToolUse ask", "PreToolUse", { hookSpecificOutput: { permissionDecision: "ask" } }, { permissionDecision: "ask" }],
    ["PreToolUse defer", "PreToolUse", { hookSpecificOutput: { permissionDecision: "defer" } }, { deferred: true }],
    ["updatedInput", "PreToolUse", { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "ls -la" } } }, { permissionDecision: "allow", updatedInput: { command: "ls -la" } }],
    ["updatedInput without a decision", "PreToolUse", { hookSpecificOutput: { updatedInput: { command: "ls -1" } } }, { updatedInput: { command: "ls -1" } }],
    ["additionalContext", "PostToolUse", { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "3 tests failed" } }, { additionalContext: ["3 tests failed"] }],
    ["legacy decision approve", "PreToolUse", { decision: "approve", reason: "ok by policy" }, { permissionDecision: "allow", permissionDecisionReason: "ok by policy" }],
    ["legacy decision block on PreToolUse", "PreToolUse", { decision: "block", reason: "not on main" }, { permissionDecision: "deny", permissionDecisionReason: "not on main" }],
    ["PermissionRequest allow with input and permissions", "PermissionRequest", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "npm test" }, updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "session" }] } } }, { permissionDecision: "allow", updatedInput: { command: "npm test" }, updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "session" }] }],
    ["PermissionRequest deny with message and interrupt", "PermissionRequest", { hookSpecificOutput: { decision: { behavior: "deny", message: "not today", interrupt: true } } }, { permissionDecision: "deny", permissionDecisionReason: "not today", stopReason: "not today" }],
    ["PermissionDenied retry", "PermissionDenied", { hookSpecificOutput: { hookEventName: "PermissionDenied", retry: true } }, { retry: true }],
    ["PostToolUse updatedToolOutput", "PostToolUse", { hookSpecificOutput: { updatedToolOutput: { stdout: "redacted" } } }, { updatedToolOutput: { stdout: "redacted" } }],
    ["SessionStart additionalContext", "SessionStart", { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "repo uses pnpm" } }, { additionalContext: ["repo uses pnpm"] }],
    ["unknown extra fields are accepted", "PostToolUse", { terminalSequence: "\u0007", systemMessage: "x" }, { systemMessages: ["x"] }],
  ];
  it.each(cases)("%s", async (_name, event, json, expected) => {
    const out = await once(event, `cat <<'JSON'\n${JSON.stringify(json)}\nJSON`);
    expect(out.errors).toEqual([]);
    expect(out).toMatchObject(expected);
  });

  it("hookSpecificOutput for another event is ignored and reported", async () => {
    const out = await once("PostToolUse", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}'`);
    expect(out.permissionDecision).toBeUndefined();
    expect(out.errors[0]).toMatch(/returned hookSpecificOutput for PreToolUse; it was ignored/);
  });
});

describe("command hooks that misbehave are reported, never fatal", () => {
  it("garbage that looks like JSON", async () => {
    const out = await once("PreToolUse", `echo '{"hookSpecificOutput": {permissionDecision: deny'`);
    expect(out.permissionDecision).toBeUndefined();
    expect(out.errors[0]).toMatch(/printed output starting with "\{" that is not valid JSON/);
  });

  it("JSON of the wrong shape names the field", async () => {
    const out = await once("PreToolUse", `echo '{"hookSpecificOutput":{"permissionDecision":"Deny"}}'`);
    expect(out.permissionDecision).toBeUndefined();
    expect(out.errors[0]).toMatch(/does not follow the hook output format: hookSpecificOutput\.permissionDecision/);
    expect((await once("PostToolUse", `echo '{"continue":"no"}'`)).stopReason).toBeUndefined();
  });

  it("binary noise on stdout and stderr", async () => {
    const out = await once("PreToolUse", "head -c 20000 /dev/urandom; head -c 20000 /dev/urandom >&2; exit 1");
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]!.length).toBeLessThanOrEqual(10_000);
  });

  it("endless output is bounded and the hook is stopped at its timeout", async () => {
    const out = await once("PreToolUse", "yes '{garbage'", { timeout: 1 });
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatch(/timed out after 1 s/);
  });

  it("a project directory that does not exist is reported as such", async () => {
    const runner = createHookRunner([{ source: "s", config: { PreToolUse: [{ hooks: [cmd("true")] }] } }], { projectDir: "/nonexistent/project" });
    const out = await runner.run("PreToolUse", toolInput("PreToolUse"));
    expect(out.errors[0]).toMatch(/could not be started: the project directory \/nonexistent\/project does not exist/);
  });

  it("a crash (killed by a signal)", async () => {
    const out = await once("PreToolUse", "echo 'about to crash' >&2; kill -SEGV $$");
    expect(out.errors[0]).toMatch(/was killed by SIGSEGV: about to crash; it made no decision/);
  });

  it("a hanging hook times out; its whole process group is killed", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "hang.sh", `echo $$ > main.pid\nsleep 300 &\necho $! > child.pid\nwait`);
      const out = await runnerFor(dir, "PreToolUse", [cmd(path, { timeout: 1 })]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors[0]).toMatch(/timed out after 1 s and was stopped; it made no decision/);
      expect(out.permissionDecision).toBeUndefined();
      for (const file of ["main.pid", "child.pid"]) {
        const pid = Number((await readFile(join(dir, file), "utf8")).trim());
        expect(await eventually(() => !alive(pid))).toBe(true);
      }
    });
  });

  it("a hook that ignores SIGTERM is killed with SIGKILL", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "stubborn.sh", `trap '' TERM\necho $$ > main.pid\nwhile true; do sleep 0.1; done`);
      const out = await runnerFor(dir, "PreToolUse", [cmd(path, { timeout: 1 })]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors[0]).toMatch(/timed out after 1 s/);
      const pid = Number((await readFile(join(dir, "main.pid"), "utf8")).trim());
      expect(await eventually(() => !alive(pid))).toBe(true);
    });
  });

  it("a background child that keeps stdout open does not hold the call", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "bg.sh", `sleep 300 &\necho $! > child.pid\necho '{"systemMessage":"done"}'`);
      const out = await runnerFor(dir, "PostToolUse", [cmd(path)]).run("PostToolUse", toolInput("PostToolUse"));
      expect(out.systemMessages).toEqual(["done"]);
      process.kill(Number((await readFile(join(dir, "child.pid"), "utf8")).trim()), "SIGKILL");
    });
  });

  it("the abort signal stops running hooks", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "slow.sh", `echo $$ > main.pid\nsleep 300`);
      const controller = new AbortController();
      const running = runnerFor(dir, "PreToolUse", [cmd(path)]).run("PreToolUse", toolInput("PreToolUse"), "Bash", controller.signal);
      await eventually(() => existsSync(join(dir, "main.pid")));
      controller.abort();
      const out = await running;
      expect(out.errors[0]).toMatch(/was stopped because the call was aborted/);
      const pid = Number((await readFile(join(dir, "main.pid"), "utf8")).trim());
      expect(await eventually(() => !alive(pid))).toBe(true);
    });
  });

  it("an already aborted signal runs nothing", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "h.sh", "touch ran");
      const controller = new AbortController();
      controller.abort();
      const out = await runnerFor(dir, "PreToolUse", [cmd(path)]).run("PreToolUse", toolInput("PreToolUse"), "Bash", controller.signal);
      expect(out.errors[0]).toMatch(/aborted/);
    });
  });

  it("output strings are capped at 10,000 characters", async () => {
    const ctx = await once("PostToolUse", `python3 -c 'import json; print(json.dumps({"hookSpecificOutput": {"additionalContext": "y" * 50000}}))'`);
    expect(ctx.additionalContext[0]!.length).toBeLessThanOrEqual(10_000);
    expect(ctx.additionalContext[0]).toMatch(/more characters cut\]$/);
    const block = await once("PreToolUse", "head -c 50000 /dev/zero | tr '\\0' z >&2; exit 2");
    expect(block.blockReason!.length).toBeLessThanOrEqual(10_000);
    expect(block.blockReason!.startsWith("zzzz")).toBe(true);
  });
});

describe("several hooks", () => {
  it("matching hooks run in parallel", async () => {
    await withTempDir(async (dir) => {
      // Each waits for the other's marker: run one after the other, both would time out.
      const wait = (mine: string, theirs: string) => `touch ${mine}\nfor i in $(seq 200); do [ -f ${theirs} ] && exit 0; sleep 0.05; done\necho 'never saw ${theirs}' >&2; exit 1`;
      const a = await script(dir, "a.sh", wait("a.mark", "b.mark"));
      const b = await script(dir, "b.sh", wait("b.mark", "a.mark"));
      const out = await runnerFor(dir, "PreToolUse", [cmd(a), cmd(b)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.errors).toEqual([]);
      expect(out.hookCount).toBe(2);
    });
  });

  it("identical commands run once, across groups and settings files", async () => {
    await withTempDir(async (dir) => {
      const path = await script(dir, "count.sh", "echo run >> count.txt");
      const other = await script(dir, "other.sh", "echo other >> count.txt");
      const group = { matcher: "Bash", hooks: [cmd(path), cmd(path)] };
      const runner = createHookRunner(
        [
          { source: "user.json", config: { PreToolUse: [group, { hooks: [cmd(path)] }] } },
          { source: "project.json", config: { PreToolUse: [{ matcher: "Bash|Read", hooks: [cmd(path), cmd(other)] }] } },
        ],
        { projectDir: dir },
      );
      const out = await runner.run("PreToolUse", toolInput("PreToolUse"), "Bash");
      expect(out.hookCount).toBe(2);
      expect((await readFile(join(dir, "count.txt"), "utf8")).split("\n").filter(Boolean).sort()).toEqual(["other", "run"]);
    });
  });

  const decide = (d: string, reason: string, input?: object) =>
    `cat <<'JSON'\n${JSON.stringify({ hookSpecificOutput: { permissionDecision: d, permissionDecisionReason: reason, ...(input ? { updatedInput: input } : {}) } })}\nJSON`;

  const precedence: Array<[string, string[], string, string]> = [
    ["deny beats ask and allow", ["allow", "ask", "deny"], "deny", "deny said so"],
    ["deny wins wherever it is listed", ["deny", "allow", "ask"], "deny", "deny said so"],
    ["ask beats allow", ["allow", "ask"], "ask", "ask said so"],
    ["allow alone", ["allow", "allow"], "allow", "allow said so"],
    ["deny beats defer", ["defer", "deny"], "deny", "deny said so"],
  ];
  it.each(precedence)("%s", async (_name, decisions, expected, reason) => {
    await withTempDir(async (dir) => {
      const handlers = await Promise.all(decisions.map(async (d, i) => cmd(await script(dir, `h${i}.sh`, decide(d, `${d} said so`)))));
      const out = await runnerFor(dir, "PreToolUse", handlers).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.permissionDecision).toBe(expected);
      expect(out.permissionDecisionReason).toBe(reason);
    });
  });

  it("updatedInput comes from the deciding hook", async () => {
    await withTempDir(async (dir) => {
      const allow = await script(dir, "allow.sh", decide("allow", "fine", { command: "from-allow" }));
      const ask = await script(dir, "ask.sh", decide("ask", "check", { command: "from-ask" }));
      const out = await runnerFor(dir, "PreToolUse", [cmd(allow), cmd(ask)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out).toMatchObject({ permissionDecision: "ask", updatedInput: { command: "from-ask" } });
      const deny = await script(dir, "deny.sh", decide("deny", "no"));
      const denied = await runnerFor(dir, "PreToolUse", [cmd(allow), cmd(deny)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(denied.permissionDecision).toBe("deny");
      expect(denied.updatedInput).toBeUndefined();
    });
  });

  it("one hook's error does not hide another's decision; every message is kept in order", async () => {
    await withTempDir(async (dir) => {
      const broken = await script(dir, "broken.sh", "echo boom >&2; exit 1");
      const deny = await script(dir, "deny.sh", decide("deny", "policy"));
      const ctx = await script(dir, "ctx.sh", `echo '{"systemMessage":"m1","hookSpecificOutput":{"additionalContext":"c1"}}'`);
      const out = await runnerFor(dir, "PreToolUse", [cmd(broken), cmd(deny), cmd(ctx)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.permissionDecision).toBe("deny");
      expect(out.errors).toHaveLength(1);
      expect(out.systemMessages).toEqual(["m1"]);
      expect(out.additionalContext).toEqual(["c1"]);
    });
  });

  it("blocks from several hooks are all reported", async () => {
    await withTempDir(async (dir) => {
      const a = await script(dir, "a.sh", "echo 'reason A' >&2; exit 2");
      const b = await script(dir, "b.sh", "echo 'reason B' >&2; exit 2");
      const out = await runnerFor(dir, "PreToolUse", [cmd(a), cmd(b)]).run("PreToolUse", toolInput("PreToolUse"));
      expect(out.blockReason).toBe("reason A\nreason B");
    });
  });
});
