// Nothing armature starts outlives it: an MCP stdio server that ignores the end of its stdin
// (and what it started) after a kill -9 of `exec`; what a hook leaves running in the background
// after `exec` ends. Outside the sandbox, where no PID namespace ends them by itself (the
// watchdog of src/sandbox/call-mark.ts does).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, isAlive, pidsIn } from "./bash-helpers.js";
import { startExec } from "./exec-process.js";
import { withTempDir } from "./helpers.js";

const FIXTURE = resolve(import.meta.dirname, "fixtures/mcp-server.mjs");
const unsandboxed = { ...process.env, ARMATURE_SANDBOX: "0" };
/** A duration no other process uses, so that a leftover `sleep` is recognisable. */
const marker = String(100_000 + Math.floor(Math.random() * 800_000));

/** Ends what a failed run left (by pid, only the processes this test started). */
function killLeft(pids: number[]): void {
  for (const pid of pids.filter(isAlive)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

describe("what armature starts does not outlive it", () => {
  it("kill -9 of exec: an MCP stdio server that ignores the end of stdin, and its child, are ended", async () => {
    await withTempDir(async (dir) => {
      const pids = join(dir, "pids");
      const server = join(dir, "stubborn-server.mjs");
      // The real fixture server, kept alive after its stdin closes, with a child of its own.
      writeFileSync(
        server,
        `import { appendFileSync } from "node:fs";
         import { spawn } from "node:child_process";
         setInterval(() => {}, 1000);
         process.on("SIGTERM", () => {});
         const child = spawn("sleep", ["${marker}.1"], { stdio: "ignore" });
         appendFileSync(${JSON.stringify(pids)}, process.pid + "\\n" + child.pid + "\\n");
         await import(${JSON.stringify(FIXTURE)});`,
      );
      const config = JSON.stringify({ mcpServers: { stubborn: { command: process.execPath, args: [server] } } });
      // Its temp folder in the test's own: a killed exec cannot remove it.
      const tmp = join(dir, "tmp");
      mkdirSync(tmp);
      const exec = startExec(["--cwd", dir, "--mcp-config", config, "--mode", "bypassPermissions"], { env: { ...unsandboxed, TMPDIR: tmp } });
      const reply = (await exec.turn([{ type: "tool_use", id: "e", name: "mcp__stubborn__echo", input: { text: "here" } }])) as { content: Array<{ content: unknown }> };
      expect(JSON.stringify(reply.content[0]!.content)).toContain("here");
      const started = pidsIn(pids);
      expect(started).toHaveLength(2);
      expect(started.every(isAlive)).toBe(true);
      exec.child.kill("SIGKILL");
      await exec.exited;
      try {
        expect(await eventually(() => !started.some(isAlive), 15_000), `still alive: ${started.filter(isAlive).join(" ")}`).toBe(true);
      } finally {
        killLeft(started);
      }
    });
  }, 60_000);

  it("a hook's background processes (plain and setsid'd) end when exec ends", async () => {
    await withTempDir(async (dir) => {
      const pids = join(dir, "pids");
      const settings = join(dir, "settings.json");
      const hook = `sleep ${marker}.2 & echo $! >> ${pids}; setsid sleep ${marker}.3 & echo $! >> ${pids}; exit 0`;
      writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] } }));
      const exec = startExec(["--cwd", dir, "--settings", settings, "--mode", "bypassPermissions"], { env: unsandboxed });
      const reply = (await exec.turn([{ type: "tool_use", id: "b", name: "Bash", input: { command: "echo ran" } }])) as { content: Array<{ content: unknown }> };
      expect(JSON.stringify(reply.content[0]!.content)).toContain("ran");
      const started = pidsIn(pids);
      expect(started).toHaveLength(2);
      expect(started.every(isAlive)).toBe(true);
      expect((await exec.end()).code).toBe(0);
      try {
        expect(await eventually(() => !started.some(isAlive), 15_000), `still alive: ${started.filter(isAlive).join(" ")}`).toBe(true);
      } finally {
        killLeft(started);
      }
    });
  }, 60_000);
});
