// `--session-dir`: one process per turn works like one process for all of them.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startExec } from "../../test/exec-process.js";
import { withTempDir } from "../../test/helpers.js";

interface Result {
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** One exec process for one turn; resolves to its results. */
function turnInOwnProcess(args: string[], calls: Array<[string, unknown]>): { results: Result[]; status: number | null; stderr: string } {
  const line = JSON.stringify(calls.map(([name, input], i) => ({ type: "tool_use", id: `c${i}`, name, input })));
  const r = spawnSync(process.execPath, ["bin/armature.js", "exec", ...args], { input: `${line}\n`, encoding: "utf8" });
  // Messages the turn adds (a finished task's notification) come first, one line each; the results line is last.
  const out = r.stdout.trim().split("\n").at(-1) ?? "";
  return { results: out === "" ? [] : (JSON.parse(out) as { content: Result[] }).content, status: r.status, stderr: r.stderr };
}

describe("armature exec --session-dir", () => {
  it("a Read in one process lets an Edit in the next one through; a cd carries over; a background task's output stays readable", async () => {
    await withTempDir(async (dir) => {
      const project = join(dir, "p");
      const state = join(dir, "state");
      await mkdir(join(project, "src"), { recursive: true });
      await writeFile(join(project, "a.txt"), "hello\n");
      const args = ["--cwd", project, "--mode", "acceptEdits", "--session-dir", state];

      const noRead = turnInOwnProcess(["--cwd", project, "--mode", "acceptEdits"], [["Edit", { file_path: join(project, "a.txt"), old_string: "hello", new_string: "bye" }]]);
      expect(noRead.results[0]!.is_error, "without the state, the Edit needs a Read first").toBe(true);

      // Process 1: a Read and a cd. Process 2: the Edit (no Read in this process), where the shell is, a background task.
      const first = turnInOwnProcess(args, [["Read", { file_path: join(project, "a.txt") }], ["Bash", { command: "cd src" }]]);
      expect(first.results.map((r) => r.is_error), first.stderr).toEqual([undefined, undefined]);
      const second = turnInOwnProcess(args, [
        ["Bash", { command: "echo from-the-background", run_in_background: true }],
        ["Edit", { file_path: join(project, "a.txt"), old_string: "hello", new_string: "bye" }],
        ["Bash", { command: "pwd" }],
      ]);
      expect(second.results[1]!.is_error, second.results[1]!.content).toBeUndefined();
      expect(readFileSync(join(project, "a.txt"), "utf8")).toBe("bye\n");
      expect(second.results[2]!.content.split("\n")[0]).toBe(join(project, "src")); // a task-ended note may follow
      // Process 3: the background task's record and output outlive the process that started it.
      const id = /ID: (\w+)/.exec(second.results[0]!.content)![1]!;
      const out = turnInOwnProcess(args, [["TaskOutput", { task_id: id }]]);
      expect(out.results[0]!.content).toContain("from-the-background");

      const saved = JSON.parse(readFileSync(join(state, "state.json"), "utf8")) as { version: number; cwd: string; readFiles: Array<[string, unknown]> };
      expect(saved.version).toBe(1);
      expect(saved.cwd).toBe(join(project, "src"));
      expect(saved.readFiles.map(([p]) => p)).toContain(join(project, "a.txt"));
    });
  }, 120_000);

  it("a second process on the same folder gets a clear error; a stale lock (dead pid) is taken over", async () => {
    await withTempDir(async (dir) => {
      const state = join(dir, "state");
      const first = startExec(["--cwd", dir, "--session-dir", state]);
      await first.turn([]); // running, lock held
      const second = turnInOwnProcess(["--cwd", dir, "--session-dir", state], []);
      expect(second.status).toBe(2);
      expect(second.stderr).toContain(`--session-dir: ${state} is in use by another armature process (pid ${first.child.pid})`);
      expect((await first.end()).code).toBe(0);

      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
      writeFileSync(join(state, "armature.lock"), JSON.stringify({ pid: Number(dead.stdout) }));
      const third = turnInOwnProcess(["--cwd", dir, "--session-dir", state], [["Bash", { command: "echo ok" }]]);
      expect(third.status, third.stderr).toBe(0);
    });
  }, 90_000);

  it("a state file that is not valid is an error naming it, not a silent fresh start", async () => {
    await withTempDir(async (dir) => {
      const state = join(dir, "state");
      await mkdir(state);
      await writeFile(join(state, "state.json"), "{ half");
      const r = turnInOwnProcess(["--cwd", dir, "--session-dir", state], []);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`${join(state, "state.json")}:`);
      expect(r.stderr).toContain("remove the file to start the session afresh");
    });
  }, 60_000);
});
