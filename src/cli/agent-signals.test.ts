// SIGTERM / SIGHUP to `armature agent -p` in the middle of a Bash call: as exec, the process
// stops everything the session started, saves the session state, and exits 128+signal.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, isAlive, pidsIn } from "../../test/bash-helpers.js";
import { withTempDir } from "../../test/helpers.js";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";

const bin = fileURLToPath(new URL("../../bin/armature.js", import.meta.url));
const marker = String(100_000 + Math.floor(Math.random() * 800_000));

function markedSleeps(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").startsWith(`sleep\0${marker}.`) && isAlive(Number(name))) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("armature agent stops everything its session started when it is signalled", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("%s during a Bash call: exit %d, no process survives, the state is saved", async (signal, code) => {
    await withTempDir(async (dir) => {
      const pidFile = join(dir, "pids");
      const command = `sleep ${marker}.1 & echo $! >> ${pidFile}; setsid sleep ${marker}.2 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; sleep ${marker}.3`;
      server = await startMockModelServer([anthropicReply([{ type: "tool_use", id: "toolu_long", name: "Bash", input: { command } }])]);
      const child = spawn(process.execPath, [bin, "agent", "-p", "run it", "--cwd", dir, "--mode", "bypassPermissions", "--output-format", "stream-json", "--session-id", "sig-test", "--session-dir", join(dir, ".armature", "sessions")], {
        // The pids the command echoes are the host's only outside the sandbox's PID namespace
        // (the sandboxed case is covered by test/sandbox-effects.test.ts).
        env: { ...process.env, HOME: dir, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key", ARMATURE_SANDBOX: "0" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.once("close", (c) => r(c)));
      expect(await eventually(() => existsSync(pidFile) && pidsIn(pidFile).length >= 3, 20_000), `the command never started: ${stderr}`).toBe(true);
      expect(await eventually(() => markedSleeps().length === 3, 10_000)).toBe(true);
      const pids = pidsIn(pidFile);
      child.kill(signal);
      expect(await exited, stderr).toBe(code);
      expect(await eventually(() => !pids.some(isAlive) && markedSleeps().length === 0, 5_000), `still alive: ${[...pids.filter(isAlive), ...markedSleeps()].join(" ")}`).toBe(true);
      expect(existsSync(join(dir, ".armature", "sessions", "sig-test", "state.json"))).toBe(true);
      expect(existsSync(join(dir, ".armature", "sessions", "sig-test", "armature.lock"))).toBe(false);
    });
  }, 60_000);
});
