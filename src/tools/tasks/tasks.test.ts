import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, isAlive, pidsIn, ResponseRecorder, run, shellSession, textOf } from "../../../test/bash-helpers.js";
import { withTempDir } from "../../../test/helpers.js";
import { createSubagentContext } from "../../tool/context.js";
import type { BashOutput } from "../bash/result.js";
import { findTaskRegistry, taskRegistry } from "../../tasks/registry.js";
import { toolUse } from "../../../test/helpers.js";
import { createSession } from "../../session/session.js";
import { createBashTool } from "../bash/bash-tool.js";
import { createReadTool } from "../read/read-tool.js";
import { createTaskOutputTool } from "../task-output/task-output-tool.js";
import { createTaskStopTool } from "../task-stop/task-stop-tool.js";

function taskIdIn(text: string): string {
  const match = /background with ID: (\w+)/.exec(text);
  if (!match) throw new Error(`no task id in: ${text}`);
  return match[1]!;
}

describe("background tasks", () => {
  it("run_in_background returns a task id and the output file at once; TaskOutput waits for the end", async () => {
    await withTempDir(async (dir) => {
      const hooks = new ResponseRecorder();
      const s = shellSession(dir, { session: { hooks } });
      const r = await run(s, "Bash", { command: "sleep 0.5; echo late", run_in_background: true });
      expect(r.is_error).toBeUndefined();
      const id = taskIdIn(textOf(r));
      const data = hooks.last<BashOutput>();
      expect(data.backgroundTaskId).toBe(id);
      expect(textOf(r)).toContain(`Output is being written to: ${data.outputPath}`);
      expect(findTaskRegistry(s.context)!.get(id)!.status).toBe("running");

      const out = await run(s, "TaskOutput", { task_id: id });
      const text = textOf(out);
      expect(text).toContain("<retrieval_status>success</retrieval_status>");
      expect(text).toContain(`<task_id>${id}</task_id>`);
      expect(text).toContain("<task_type>local_bash</task_type>");
      expect(text).toContain("<status>completed</status>");
      expect(text).toContain("<exit_code>0</exit_code>");
      expect(text).toContain("<output>\nlate\n</output>");
      expect(readFileSync(data.outputPath!, "utf8")).toBe("late\n");
      await s.close();
    });
  });

  it("TaskOutput returns only what is new since the last read", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second", run_in_background: true })));
      const task = findTaskRegistry(s.context)!.get(id)!;
      expect(await eventually(() => existsSync(task.outputPath) && readFileSync(task.outputPath, "utf8") === "first\n")).toBe(true);
      const one = textOf(await run(s, "TaskOutput", { task_id: id, block: false }));
      expect(one).toContain("<status>running</status>");
      expect(one).toContain("<output>\nfirst\n</output>");
      const none = textOf(await run(s, "TaskOutput", { task_id: id, block: false }));
      expect(none).toContain("(no new output)");
      await run(s, "Bash", { command: "touch go" });
      const two = textOf(await run(s, "TaskOutput", { task_id: id, block: true, timeout: 20_000 }));
      expect(two).toContain("<output>\nsecond\n</output>");
      expect(two).toContain("<status>completed</status>");
      await s.close();
    });
  });

  it("a blocking read that times out says so and leaves the task running", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "sleep 1000", run_in_background: true })));
      const text = textOf(await run(s, "TaskOutput", { task_id: id, block: true, timeout: 200 }));
      expect(text).toContain("<retrieval_status>timeout</retrieval_status>");
      expect(text).toContain("<status>running</status>");
      expect(text).toContain("still running");
      await s.close();
    });
  });

  it("TaskStop kills the whole group; a second stop says it is not running", async () => {
    await withTempDir(async (dir) => {
      const pids = join(dir, "pids");
      const s = shellSession(dir);
      const command = `(sleep 1000 & echo $! >> ${pids}; wait) & bash -c 'trap "" TERM; echo $$ >> ${pids}; while :; do sleep 0.05; done' & sleep 1000`;
      const id = taskIdIn(textOf(await run(s, "Bash", { command, run_in_background: true })));
      expect(await eventually(() => existsSync(pids) && pidsIn(pids).length === 2)).toBe(true);
      const stopped = await run(s, "TaskStop", { task_id: id });
      expect(stopped.is_error).toBeUndefined();
      expect(textOf(stopped)).toBe(`Successfully stopped task: ${id} (${command})`);
      for (const pid of pidsIn(pids)) expect(isAlive(pid)).toBe(false);
      expect(findTaskRegistry(s.context)!.get(id)!.status).toBe("killed");
      const again = await run(s, "TaskStop", { task_id: id });
      expect(again.is_error).toBe(true);
      expect(textOf(again)).toContain(`Task ${id} is not running (status: killed)`);
      await s.close();
    });
  });

  it("legacy names and keys: BashOutput + bash_id (does not wait), KillShell + shell_id, KillBash", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "echo hi; sleep 1000", run_in_background: true })));
      const task = findTaskRegistry(s.context)!.get(id)!;
      expect(await eventually(() => readFileSync(task.outputPath, "utf8") === "hi\n")).toBe(true);
      const out = textOf(await run(s, "BashOutput", { bash_id: id }));
      expect(out).toContain("<status>running</status>");
      expect(out).toContain("hi");
      expect(textOf(await run(s, "KillShell", { shell_id: id }))).toContain("Successfully stopped task");
      const id2 = taskIdIn(textOf(await run(s, "Bash", { command: "sleep 1000", run_in_background: true })));
      expect(textOf(await run(s, "KillBash", { shell_id: id2 }))).toContain("Successfully stopped task");
      await s.close();
    });
  });

  it("the legacy filter keeps matching lines", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "printf 'ok 1\\nbad 2\\nok 3\\n'", run_in_background: true })));
      const text = textOf(await run(s, "TaskOutput", { task_id: id, filter: "^ok" }));
      expect(text).toContain("<output>\nok 1\nok 3\n</output>");
      expect(textOf(await run(s, "TaskOutput", { task_id: id, filter: "(" }))).toContain("filter is not a valid regular expression");
      await s.close();
    });
  });

  it("unknown ids and missing ids are errors that say what to do", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const unknown = await run(s, "TaskOutput", { task_id: "nope" });
      expect(unknown.is_error).toBe(true);
      expect(textOf(unknown)).toContain("No task found with ID: nope");
      expect(textOf(await run(s, "TaskStop", {}))).toContain("Give task_id");
      await s.close();
    });
  });

  it("background tasks die with session.close()", async () => {
    await withTempDir(async (dir) => {
      const pids = join(dir, "pids");
      const s = shellSession(dir);
      await run(s, "Bash", { command: `(sleep 1000 & echo $! >> ${pids}; wait) & echo $$ >> ${pids}; sleep 1000`, run_in_background: true });
      await run(s, "Bash", { command: `sleep 1000 & echo $! >> ${pids}; wait`, run_in_background: true });
      expect(await eventually(() => existsSync(pids) && pidsIn(pids).length === 3)).toBe(true);
      await s.close();
      for (const pid of pidsIn(pids)) expect(isAlive(pid)).toBe(false);
    });
  });

  it("a sub-agent shares the session's task registry", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const registry = taskRegistry(s.context);
      expect(taskRegistry(createSubagentContext(s.context))).toBe(registry);
      await s.close();
    });
  });

  it("the next turn carries a notification (newMessages) that a background task ended, once", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "exit 3", run_in_background: true, description: "Fail" })));
      const task = findTaskRegistry(s.context)!.get(id)!;
      await task.done;
      const next = await s.runTurnDetailed([toolUse("Bash", { command: "echo x" })]);
      expect(textOf(next.results[0]!)).toBe("x");
      expect(next.newMessages).toHaveLength(1);
      const note = next.newMessages[0]!.content as string;
      expect(note).toMatch(/^\[SYSTEM NOTIFICATION - NOT USER INPUT\]\nThis is an automated background-task event, NOT a message from the user\.\n<task-notification>\n/);
      expect(note).toContain(`<task-id>${id}</task-id>\n<output-file>${task.outputPath}</output-file>\n<status>failed</status>`);
      expect(note).toContain('<summary>Background command "Fail" failed (exit code 3)</summary>');
      expect((await s.runTurnDetailed([toolUse("Bash", { command: "echo y" })])).newMessages).toHaveLength(0);
      await s.close();
    });
  });

  it("a timeout moves a command to the background: output so far, the reference's words, Read, a notification", async () => {
    await withTempDir(async (dir) => {
      const full = createSession({
        cwd: dir,
        tools: [createBashTool({ killGraceMs: 300 }), createReadTool(), createTaskStopTool(), createTaskOutputTool()],
        permissionMode: "default",
        allow: ["Bash(echo *)"],
      });
      const r = await run(full, "Bash", { command: "echo start; sleep 2; echo done", timeout: 1_000, description: "Print, sleep, print" });
      expect(r.is_error).toBeUndefined();
      const text = textOf(r);
      const id = /\(ID: (\w+)\)/.exec(text)![1]!;
      const task = findTaskRegistry(full.context)!.get(id)!;
      expect(text).toBe(
        `start\nCommand did not complete within its 1s timeout and was moved to the background (ID: ${id}). Output is being written to: ${task.outputPath}. ` +
          "You will be notified when it completes. If it is still running after 10m in the background, it will be stopped and you will be notified. " +
          "It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop. To check interim output, use Read on that file path.",
      );
      expect(task.status).toBe("running");
      await task.done;
      expect(task.status).toBe("completed");
      const read = await full.runTurnDetailed([toolUse("Read", { file_path: task.outputPath })]);
      expect(textOf(read.results[0]!)).toBe("1\tstart\n2\tdone\n3\t");
      expect(read.newMessages.map((m) => m.content as string).join("")).toContain('<summary>Background command "Print, sleep, print" completed (exit code 0)</summary>');
      await full.close();
    });
  });

  it("a moved command with no output yet says so; TaskStop and TaskOutput reach it", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const text = textOf(await run(s, "Bash", { command: "(sleep 30; echo never)", timeout: 500 }));
      expect(text).toMatch(/^Command did not complete within its 0\.5s timeout and was moved to the background/);
      expect(text).toContain("No output had been read from it when it was moved. A program that buffers its output, or a pipe into one such as tail, can keep the output file empty until the command finishes. To check interim output, use Read on that file path.");
      const id = /\(ID: (\w+)\)/.exec(text)![1]!;
      expect(textOf(await run(s, "TaskOutput", { task_id: id, block: false }))).toContain("<status>running</status>");
      expect(textOf(await run(s, "TaskStop", { task_id: id }))).toContain(id);
      expect(findTaskRegistry(s.context)!.get(id)!.status).toBe("killed");
      // No notification for a task the model stopped itself.
      expect((await s.runTurnDetailed([toolUse("Bash", { command: "echo y" })])).newMessages).toHaveLength(0);
      await s.close();
    });
  });

  it("a timeout stops a command whose first word is sleep: Exit code 143, the reference's words", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      for (const command of ["sleep 3; echo done", "sleep 3 && echo done"]) {
        const r = await run(s, "Bash", { command, timeout: 1_000 });
        expect(r.is_error).toBe(true);
        expect(textOf(r)).toBe("Exit code 143\nCommand timed out after 1s");
      }
      expect(findTaskRegistry(s.context)?.list() ?? []).toHaveLength(0);
      await s.close();
    });
  });

  it("a background command's timeout bounds its lifetime", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir);
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "sleep 1000", run_in_background: true, timeout: 300 })));
      const text = textOf(await run(s, "TaskOutput", { task_id: id, timeout: 20_000 }));
      expect(text).toContain("<status>failed</status>");
      expect(text).toContain("time limit expired");
      await s.close();
    });
  });

  it("a long background output is read back head and tail, bounded", async () => {
    await withTempDir(async (dir) => {
      const s = shellSession(dir, { session: { env: { BASH_MAX_OUTPUT_LENGTH: "4000" } } });
      const id = taskIdIn(textOf(await run(s, "Bash", { command: "seq 1 200000", run_in_background: true })));
      const text = textOf(await run(s, "TaskOutput", { task_id: id }));
      expect(text.length).toBeLessThan(4_000 + 800);
      expect(text).toContain("<output>\n1\n2\n3\n");
      expect(text).toContain("199999\n200000\n</output>");
      expect(text).toContain("of output omitted here");
      await s.close();
    });
  });
});
