import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { call, fileSession, text } from "../../test/file-tools/harness.js";
import { persistOversizedResult } from "../budget/persist.js";
import { createEditTool } from "../tools/edit/edit-tool.js";
import { createNotebookEditTool } from "../tools/notebook-edit/notebook-edit-tool.js";
import { createWriteTool } from "../tools/write/write-tool.js";
import { atomicWriteFile, ReadOnlyFileError } from "./atomic-write.js";
import { setProcFdForTesting } from "./held-dir.js";
import { isStaleTemp, removeStaleTemps, tempNameFor, tempNameOwner } from "./temp-name.js";

const unread = { requireReadBeforeEdit: false };
const tools = [createWriteTool(unread), createEditTool(unread), createNotebookEditTool(unread)];
const isRoot = process.getuid?.() === 0;

/** A pid that certainly is not running: a child that has exited (and been reaped). */
function deadPid(): number {
  return spawnSync("true").pid!;
}

afterEach(() => setProcFdForTesting(undefined));

describe("a written file keeps what it is", () => {
  it.each([
    ["through /proc/self/fd", true],
    ["by name (the portable fallback)", false],
  ])("mode, owner and hard links survive Write and Edit (%s)", async (_, procFd) => {
    setProcFdForTesting(procFd);
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const s = fileSession(dir, tools, { permissionMode: "acceptEdits" });
      const moded = join(dir, "moded.sh");
      writeFileSync(moded, "echo 1\n");
      chmodSync(moded, 0o751);
      const a = join(dir, "a.txt");
      const b = join(dir, "b.txt");
      writeFileSync(a, "linked\n");
      linkSync(a, b);
      const inode = statSync(a).ino;
      expect(text(await call(s, "Write", { file_path: moded, content: "echo 2\n" }))).toContain("updated");
      expect(text(await call(s, "Edit", { file_path: a, old_string: "linked", new_string: "edited through a" }))).toContain("updated");
      expect(statSync(moded).mode & 0o7777).toBe(0o751);
      expect(readFileSync(b, "utf8")).toBe("edited through a\n");
      expect([statSync(a).ino, statSync(b).ino, statSync(a).nlink]).toEqual([inode, inode, 2]);
      // Shrinking in place cuts the file to the new length.
      expect(text(await call(s, "Write", { file_path: b, content: "x" }))).toContain("updated");
      expect(readFileSync(a, "utf8")).toBe("x");
      if (isRoot) {
        const owned = join(dir, "owned.txt");
        writeFileSync(owned, "owned\n");
        chownSync(owned, 1234, 4321);
        chmodSync(owned, 0o640);
        expect(text(await call(s, "Edit", { file_path: owned, old_string: "owned", new_string: "still theirs" }))).toContain("updated");
        const info = statSync(owned);
        expect([info.uid, info.gid, info.mode & 0o777]).toEqual([1234, 4321, 0o640]);
        expect(readFileSync(owned, "utf8")).toBe("still theirs\n");
      }
      expect(readdirSync(dir).filter((n) => n.endsWith(".armature-tmp"))).toEqual([]);
      await s.close();
    });
  });

  it("a read-only file (0444) is refused with its mode named, and stays as it was; a new file gets the usual mode", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const s = fileSession(dir, tools, { permissionMode: "acceptEdits" });
      const ro = join(dir, "ro.txt");
      writeFileSync(ro, "keep\n");
      chmodSync(ro, 0o444);
      const before = statSync(ro);
      for (const [name, input] of [
        ["Write", { file_path: ro, content: "changed\n" }],
        ["Edit", { file_path: ro, old_string: "keep", new_string: "changed" }],
      ] as const) {
        const block = await call(s, name, input);
        expect(block.is_error).toBe(true);
        expect(text(block)).toContain(`${ro} is read-only (mode 0444), so it was not changed`);
      }
      expect(readFileSync(ro, "utf8")).toBe("keep\n");
      expect(statSync(ro).ino).toBe(before.ino);
      await expect(atomicWriteFile(ro, Buffer.from("x"))).rejects.toBeInstanceOf(ReadOnlyFileError);
      const fresh = join(dir, "fresh.txt");
      await atomicWriteFile(fresh, Buffer.from("new"));
      const umask = process.umask();
      expect(statSync(fresh).mode & 0o777).toBe(0o666 & ~umask);
      await s.close();
    });
  });

  it("a symlink at our own file's name is replaced, not followed; a swapped tool-results folder is refused", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const session = join(dir, "session");
      const outside = join(dir, "outside");
      mkdirSync(join(session, "tool-results"), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(outside, "victim.txt"), "original\n");
      symlinkSync(join(outside, "victim.txt"), join(session, "tool-results", "toolu_1.txt"));
      const big = "y".repeat(10_000);
      const first = await persistOversizedResult({ type: "tool_result", tool_use_id: "toolu_1", content: big }, session);
      expect(String(first.content)).toContain(`Full output saved to: ${join(session, "tool-results", "toolu_1.txt")}`);
      expect(readFileSync(join(session, "tool-results", "toolu_1.txt"), "utf8")).toBe(big);
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original\n");
      rmSync(join(session, "tool-results"), { recursive: true });
      symlinkSync(outside, join(session, "tool-results"));
      const second = await persistOversizedResult({ type: "tool_result", tool_use_id: "toolu_2", content: big }, session);
      expect(String(second.content)).toMatch(/could not be saved to a file \(.*was not written.*\); only the preview/);
      expect(readdirSync(outside)).toEqual(["victim.txt"]);
    });
  });
});

describe("temp files are named for crash cleanup", () => {
  it("names carry the writer's pid and stay within a file name's length", () => {
    const name = tempNameFor("report.txt");
    expect(name).toMatch(/^\.report\.txt\.\d+-[0-9a-f]{12}\.armature-tmp$/);
    expect(tempNameOwner(name)).toBe(process.pid);
    expect(Buffer.byteLength(tempNameFor("é".repeat(127)))).toBeLessThanOrEqual(255);
    expect(tempNameOwner(".report.txt.tmp")).toBeUndefined();
    expect(tempNameOwner("report.txt")).toBeUndefined();
  });

  it("a writer's first write in a folder removes the temp files of dead writers, and only those", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const dead = `.f.txt.${deadPid()}-aaaaaaaaaaaa.armature-tmp`;
      const old = `.g.txt.${process.ppid}-bbbbbbbbbbbb.armature-tmp`;
      const live = `.h.txt.${process.ppid}-cccccccccccc.armature-tmp`;
      const mine = `.i.txt.${process.pid}-dddddddddddd.armature-tmp`;
      const foreign = `.j.txt.${deadPid()}.tmp`; // not our pattern: never touched
      for (const n of [dead, old, live, mine, foreign]) writeFileSync(join(dir, n), "partial");
      utimesSync(join(dir, old), new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000));
      expect(isStaleTemp(live, Date.now())).toBe(false);
      await atomicWriteFile(join(dir, "target.txt"), Buffer.from("x"));
      expect(readdirSync(dir).sort()).toEqual([foreign, live, mine, "target.txt"].sort());
      expect(await removeStaleTemps(dir)).toEqual([]);
    });
  });
});

describe("the folder judged is the folder written", () => {
  it("a racing process swapping the parent folder for a symlink: 0 writes land outside", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const proj = join(dir, "proj");
      const outside = join(dir, "outside");
      mkdirSync(join(proj, "sub"), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(proj, "sub", "f.txt"), "start\n");
      writeFileSync(join(proj, "sub", "n.ipynb"), JSON.stringify({ cells: [{ cell_type: "code", id: "c1", source: "1", metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 }));
      // Moves sub away, puts a symlink to outside in its place, then puts sub back.
      const racer = spawn("bash", ["-c", `cd "${proj}" && while :; do mv sub sub.away; ln -s "${outside}" sub; rm sub; mv sub.away sub; done`], { stdio: "ignore" });
      const s = fileSession(proj, tools, { permissionMode: "acceptEdits" });
      const outcomes = { written: 0, refused: 0 };
      try {
        for (let i = 0; i < 150; i++) {
          const path = join(proj, "sub", i % 3 === 2 ? "n.ipynb" : "f.txt");
          const block =
            i % 3 === 0
              ? await call(s, "Write", { file_path: path, content: `pwned ${i}\n` })
              : i % 3 === 1
                ? await call(s, "Edit", { file_path: path, old_string: "\n", new_string: " \n", replace_all: true })
                : await call(s, "NotebookEdit", { notebook_path: path, cell_id: "c1", new_source: `x = ${i}` });
          if (block.is_error) outcomes.refused++;
          else outcomes.written++;
        }
      } finally {
        racer.kill("SIGKILL");
        await new Promise((r) => racer.once("exit", r));
        await s.close();
      }
      expect(outcomes.written + outcomes.refused).toBe(150);
      expect(readdirSync(outside)).toEqual([]);
      // The racer may have stopped at any step: put sub back as the real folder.
      if (lstatSync(join(proj, "sub"), { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(join(proj, "sub"));
      if (lstatSync(join(proj, "sub.away"), { throwIfNoEntry: false })?.isDirectory()) renameSync(join(proj, "sub.away"), join(proj, "sub"));
      // How many raced calls got through depends on the machine's timing (on a loaded one the
      // racer may win every time); with the race over, the same calls write.
      const s2 = fileSession(proj, tools, { permissionMode: "acceptEdits" });
      try {
        const block = await call(s2, "Write", { file_path: join(proj, "sub", "after.txt"), content: "after\n" });
        expect(block.is_error).not.toBe(true);
      } finally {
        await s2.close();
      }
      expect(readFileSync(join(proj, "sub", "after.txt"), "utf8")).toBe("after\n");
    });
  });
});
