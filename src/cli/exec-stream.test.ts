import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startExec } from "../../test/exec-process.js";
import { captureIO, withTempDir } from "../../test/helpers.js";
import { main } from "./main.js";

interface Result {
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}
const call = (id: string, name: string, input: unknown): unknown[] => [{ type: "tool_use", id, name, input }];
const contentOf = (line: unknown): Result[] => (line as { content: Result[] }).content;

describe("armature exec as a co-process (stdin a pipe, no file)", () => {
  it("answers each line before the next is written; the next turn is decided from the answer", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "next.txt"), "second.txt\n");
      await writeFile(join(dir, "second.txt"), "the end\n");
      const exec = startExec(["--cwd", dir]);
      const first = contentOf(await exec.turn(call("t1", "Read", { file_path: join(dir, "next.txt") })));
      const name = /\d+\t(\S+)/.exec(first[0]!.content)![1]!;
      expect(name).toBe("second.txt");
      const second = contentOf(await exec.turn(call("t2", "Read", { file_path: join(dir, name) })));
      expect(second[0]!.content).toContain("the end");
      const { code, stderr } = await exec.end();
      expect(code, stderr).toBe(0);
    });
  });

  it("a background task's end notification comes as a message line of its own, before the next turn's results", async () => {
    // The result names the task's output file, so exec keeps its temp session folder: in a temp dir of the test's own.
    await withTempDir(async (tmp) => withTempDir(async (dir) => {
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"], { env: { ...process.env, TMPDIR: tmp } });
      const started = contentOf(await exec.turn(call("bg", "Bash", { command: "echo done-bg", run_in_background: true, description: "Say done" })));
      expect(started[0]!.content).toMatch(/^Command running in background with ID: \S+\./);
      await new Promise((r) => setTimeout(r, 700));
      exec.write(call("n", "Bash", { command: "echo next" }));
      const message = (await exec.next()) as { type: string; role: string; content: string };
      expect(message).toMatchObject({ type: "message", role: "user" });
      expect(message.content).toContain("<task-notification>");
      expect(message.content).toContain("<status>completed</status>");
      expect(contentOf(await exec.next())[0]!.content).toBe("next");
      const { code, stderr } = await exec.end();
      expect(code, stderr).toBe(0);
    }));
  });

  it("a bad line gets an error object naming it, the rest go on, and the exit code is 2", async () => {
    await withTempDir(async (dir) => {
      const exec = startExec(["--cwd", dir, "--mode", "bypassPermissions"]);
      expect(contentOf(await exec.turn(call("a", "Bash", { command: "echo one" })))[0]!.content).toBe("one");
      expect(await exec.turn("{oops")).toMatchObject({ line: 2, error: expect.stringMatching(/^line 2: not JSON/) });
      exec.write("");
      expect(await exec.turn({ no: "calls" })).toMatchObject({ line: 4, error: expect.stringContaining("line 4: expected an array of tool_use blocks") });
      expect(contentOf(await exec.turn(call("b", "Bash", { command: "echo two" })))[0]!.content).toBe("two");
      const { code } = await exec.end();
      expect(code).toBe(2);
    });
  });

  it("OpenAI-shaped lines are answered in the OpenAI shape", async () => {
    const exec = startExec([]);
    const line = { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "Missing", arguments: "{}" } }] };
    expect(await exec.turn(line)).toEqual([{ role: "tool", tool_call_id: "c1", content: "<tool_use_error>Error: No such tool available: Missing</tool_use_error>" }]);
    expect((await exec.end()).code).toBe(0);
  });

  it("in-process: the same streaming through main() with captured IO", async () => {
    const c = captureIO(`${JSON.stringify(call("a", "Missing", {}))}\n{oops\n`);
    expect(await main(["exec"], c)).toBe(2);
    const [first, second] = c.out.trim().split("\n").map((l) => JSON.parse(l) as unknown);
    expect(contentOf(first)[0]!.tool_use_id).toBe("a");
    expect(second).toMatchObject({ line: 2 });
  });
});

const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe("armature exec --interactive on a terminal", () => {
  it.skipIf(!hasPython)("turns typed on the terminal run; the approval answer typed there is not taken for a turn", async () => {
    await withTempDir(async (dir) => {
      const r = spawnSync("python3", ["test/pty-exec.py", process.execPath, "bin/armature.js", dir], { encoding: "utf8", timeout: 240_000 });
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ exit: 0, made: true });
    });
  }, 300_000);
});

describe("armature exec with a file (or -): every line is checked before anything runs", () => {
  it.each([["file"], ["-"]])("%s: a bad line names it and nothing runs", async (kind) => {
    await withTempDir(async (dir) => {
      const text = `${JSON.stringify(call("a", "Bash", { command: `touch ${join(dir, "ran")}` }))}\n{oops\n`;
      const file = join(dir, "turns.jsonl");
      await writeFile(file, text);
      const c = captureIO(text);
      expect(await main(["exec", kind === "file" ? file : "-", "--cwd", dir, "--mode", "bypassPermissions"], c)).toBe(2);
      expect(c.err).toContain(`${kind === "file" ? file : "stdin"}: line 2: not JSON`);
      expect(c.out).toBe("");
      expect(existsSync(join(dir, "ran"))).toBe(false);
    });
  });

  it("a whole multi-line JSON document is one turn", async () => {
    const c = captureIO(JSON.stringify(call("a", "Missing", {}), null, 2));
    expect(await main(["exec", "-"], c)).toBe(0);
    expect(contentOf(JSON.parse(c.out))[0]!.tool_use_id).toBe("a");
  });
});

describe("the temp session folder", () => {
  it("is removed on exit, unless a result names a file in it (then stderr says where, and gc cleans up)", async () => {
    await withTempDir(async (tmp) => {
      const env = { ...process.env, TMPDIR: tmp };
      const small = spawnSync(process.execPath, ["bin/armature.js", "exec", "--mode", "bypassPermissions", "--cwd", tmp], {
        input: JSON.stringify(call("a", "Bash", { command: "echo hi" })),
        encoding: "utf8",
        env,
      });
      expect(small.status, small.stderr).toBe(0);
      expect(readdirSync(tmp).filter((n) => n.startsWith("armature-exec-"))).toEqual([]);

      const big = spawnSync(process.execPath, ["bin/armature.js", "exec", "--mode", "bypassPermissions", "--cwd", tmp], {
        input: JSON.stringify(call("a", "Bash", { command: "seq 1 100000" })),
        encoding: "utf8",
        env,
      });
      expect(big.status, big.stderr).toBe(0);
      const kept = readdirSync(tmp).filter((n) => n.startsWith("armature-exec-"));
      expect(kept).toHaveLength(1);
      expect(big.stdout).toContain(join(tmp, kept[0]!));
      expect(big.stderr).toContain(`results name files in ${join(tmp, kept[0]!)}; it is kept`);

      // Recent: gc leaves it; --older-than 0 removes it.
      const keep = spawnSync(process.execPath, ["bin/armature.js", "gc"], { encoding: "utf8", env });
      expect(keep.status).toBe(0);
      expect(existsSync(join(tmp, kept[0]!))).toBe(true);
      const gc = spawnSync(process.execPath, ["bin/armature.js", "gc", "--older-than", "0"], { encoding: "utf8", env });
      expect(gc.stdout).toBe(`removed ${join(tmp, kept[0]!)}\n`);
      expect(existsSync(join(tmp, kept[0]!))).toBe(false);
    });
  }, 120_000);

  it("gc removes old folders only, and never one a live process holds", async () => {
    await withTempDir(async (tmp) => {
      const old = Date.now() / 1000 - 10 * 86_400;
      for (const name of ["armature-exec-old", "armature-exec-locked", "armature-exec-new", "not-ours"]) mkdirSync(join(tmp, name));
      writeFileSync(join(tmp, "armature-exec-locked", "armature.lock"), JSON.stringify({ pid: process.pid }));
      for (const name of ["armature-exec-old", "armature-exec-locked", "not-ours"]) utimesSync(join(tmp, name), old, old);
      const dry = captureIO();
      expect(await main(["gc", "--dir", tmp, "--dry-run"], dry)).toBe(0);
      expect(dry.out).toBe(`would remove ${join(tmp, "armature-exec-old")}\n`);
      const c = captureIO();
      expect(await main(["gc", "--dir", tmp], c)).toBe(0);
      expect(readdirSync(tmp).sort()).toEqual(["armature-exec-locked", "armature-exec-new", "not-ours"]);
      expect(await main(["gc", "--older-than", "soon"], captureIO())).toBe(2);
    });
  });
});
