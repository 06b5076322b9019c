// SIGTERM / SIGINT to `exec` (or a library host's session.close() on a signal) in the middle of
// a Bash call: the process exits 128+signal and nothing it started is left running.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, isAlive, pidsIn } from "../../test/bash-helpers.js";
import { startExec } from "../../test/exec-process.js";
import { packageEntry, withTempDir } from "../../test/helpers.js";

/** A duration no other process uses: `sleep <marker>.N` finds what this test started in /proc. */
const marker = String(100_000 + Math.floor(Math.random() * 800_000));

/** A foreground child, a setsid'd one that leaves the process group, a nested shell, and the shell itself. */
const longCommand = (pidFile: string): string =>
  `sleep ${marker}.1 & echo $! >> ${pidFile}; setsid sleep ${marker}.2 & echo $! >> ${pidFile}; bash -c 'echo $$ >> ${pidFile}; sleep ${marker}.3'  & echo $$ >> ${pidFile}; sleep ${marker}.4`;

/** Live processes running `sleep <marker>.N`, wherever they were re-parented. */
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

const call = (id: string, input: unknown, name = "Bash"): unknown[] => [{ type: "tool_use", id, name, input }];

/**
 * Outside the OS sandbox: these tests read pids from inside the commands, which a sandbox's PID
 * namespace renumbers (the sandboxed lifetime is test/sandbox-effects.test.ts's).
 */
const unsandboxed = { ...process.env, ARMATURE_SANDBOX: "0" };

async function pidsWhenStarted(pidFile: string): Promise<number[]> {
  expect(await eventually(() => existsSync(pidFile) && pidsIn(pidFile).length >= 4, 20_000), "the command never started").toBe(true);
  await new Promise((r) => setTimeout(r, 200)); // the last sleep starts
  return pidsIn(pidFile);
}

describe("exec stops everything a session started when it is signalled", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)("%s during a Bash call (and with a background task running): exit %d, no process survives", async (signal, code) => {
    // The background call's result names its output file, so exec keeps its temp session folder: in a temp dir of the test's own.
    await withTempDir(async (tmp) => withTempDir(async (dir) => {
      const pidFile = join(dir, "pids");
      const bgFile = join(dir, "bg");
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"], { env: { ...unsandboxed, TMPDIR: tmp } });
      const bg = (await exec.turn(call("bg", { command: `echo $$ > ${bgFile}; sleep ${marker}.5`, run_in_background: true }))) as { content: Array<{ content: string }> };
      expect(bg.content[0]!.content).toContain("background");
      exec.write(call("fg", { command: longCommand(pidFile) }));
      const pids = [...(await pidsWhenStarted(pidFile)), ...pidsIn(bgFile)];
      expect(pids.every(isAlive)).toBe(true);
      expect(await eventually(() => markedSleeps().length === 5, 10_000), `sleeps running: ${markedSleeps().length}`).toBe(true);
      exec.child.kill(signal);
      const exit = await exec.exited;
      expect(exit.code, exit.stderr).toBe(code);
      expect(await eventually(() => !pids.some(isAlive) && markedSleeps().length === 0, 5_000), `still alive: ${[...pids.filter(isAlive), ...markedSleeps()].join(" ")}`).toBe(true);
    }));
  }, 90_000);

  it("a library host's closeSessionOnSignals: session.close() then exit 143, nothing left", async () => {
    await withTempDir(async (dir) => {
      const pidFile = join(dir, "pids");
      const script = `
        import { createSession, builtinTools, closeSessionOnSignals } from ${JSON.stringify(packageEntry())};
        const session = createSession({ cwd: ${JSON.stringify(dir)}, tools: builtinTools(), permissionMode: "bypassPermissions" });
        closeSessionOnSignals(session);
        await session.runTurn([{ type: "tool_use", id: "a", name: "Bash", input: { command: ${JSON.stringify(longCommand(pidFile))} } }]);
      `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"], env: unsandboxed });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.once("close", (c) => r(c)));
      const pids = await pidsWhenStarted(pidFile);
      expect(await eventually(() => markedSleeps().length === 4, 10_000)).toBe(true);
      child.kill("SIGTERM");
      expect(await exited, stderr).toBe(143);
      expect(await eventually(() => !pids.some(isAlive) && markedSleeps().length === 0, 5_000), `still alive: ${[...pids.filter(isAlive), ...markedSleeps()].join(" ")}`).toBe(true);
    });
  }, 90_000);
});
