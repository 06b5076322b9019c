// A file with hard links is rewritten in place (its inode kept), through a journal beside it
// (copy-journal.ts): all or nothing on a failure, put right after a kill, nothing left behind.
import { spawn, spawnSync } from "node:child_process";
import { linkSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startExec } from "../../test/exec-process.js";
import { withTempDir } from "../../test/helpers.js";
import { atomicWriteFile } from "./atomic-write.js";
import { removeStaleTemps } from "./temp-name.js";

const ROOT = resolve(import.meta.dirname, "../..");
/** The built module, for child processes (the CLI's tests build first, as these do). */
const BUILT = pathToFileURL(join(ROOT, "dist/fs/atomic-write.js")).href;
const MiB = 1024 * 1024;

/** Names armature leaves beside a target while it writes. */
const ours = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith(".armature-tmp") || n.endsWith(".armature-copy"));

/** `size` bytes of text, different for each seed. */
function content(size: number, seed: string): Buffer {
  const unit = `${seed} `.padEnd(63, "-") + "\n";
  return Buffer.from(unit.repeat(Math.ceil(size / unit.length)).slice(0, size));
}

/** A file with a second name: the in-place path. */
function linked(dir: string, old: Buffer): { file: string; other: string; ino: number } {
  const file = join(dir, "data.txt");
  const other = join(dir, "other-name.txt");
  writeFileSync(file, old);
  linkSync(file, other);
  return { file, other, ino: statSync(file).ino };
}

/**
 * A child process that rewrites `file` in place and, once `stopAfter` bytes of the new content
 * are in it, says "mid" and then does what `then` says: wait to be killed, or exit at once.
 */
function writerStoppedMidway(file: string, data: Buffer, then: "wait" | "exit"): { child: ReturnType<typeof spawn>; mid: Promise<void> } {
  const script = `
    import { atomicWriteFile } from ${JSON.stringify(BUILT)};
    import { readFileSync } from "node:fs";
    const data = readFileSync(process.argv[1]);
    await atomicWriteFile(${JSON.stringify(file)}, data, { hooks: { duringCopyBack: async () => {
      process.stdout.write("mid\\n");
      ${then === "exit" ? "process.exit(3);" : "await new Promise(() => setInterval(() => {}, 1000));"}
    } } });
  `;
  const dataFile = `${file}.input`;
  writeFileSync(dataFile, data);
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, dataFile], { stdio: ["ignore", "pipe", "pipe"] });
  const mid = new Promise<void>((ok, fail) => {
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("mid") && ok());
    child.once("exit", () => fail(new Error(`the writer exited before the copy began: ${err}`)));
  });
  return { child, mid };
}

const exited = (child: ReturnType<typeof spawn>): Promise<void> => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())));

describe("a write in place is all or nothing", () => {
  it("a file size limit (ulimit -f) met while writing: EFBIG in words, both names keep the old content, nothing left beside them", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = content(200 * 1024, "old");
      const { file, other, ino } = linked(dir, old);
      // 1,000 blocks of 1 KiB: the new content does not fit, the old does. EFBIG is real here
      // (Node ignores SIGXFSZ, so write(2) fails instead of the process dying).
      const exec = spawn("bash", ["-c", `ulimit -f 1000; exec "${process.execPath}" bin/armature.js exec --cwd "${dir}" --mode bypassPermissions`], {
        cwd: ROOT,
        env: { ...process.env, ARMATURE_SANDBOX: "0" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      exec.stdout.on("data", (d: Buffer) => (out += d.toString()));
      const done = exited(exec);
      const turns = [
        [{ type: "tool_use", id: "r", name: "Read", input: { file_path: file, limit: 1 } }],
        [{ type: "tool_use", id: "w", name: "Write", input: { file_path: file, content: content(1200 * 1024, "new").toString() } }],
      ];
      exec.stdin.end(turns.map((t) => JSON.stringify(t)).join("\n") + "\n");
      await done;
      const write = out.trim().split("\n").map((l) => JSON.parse(l) as { content: Array<{ tool_use_id: string; content: string; is_error?: boolean }> })[1]!.content[0]!;
      expect(write.is_error).toBe(true);
      expect(write.content).toContain(`${file} was not changed: the file would be larger than allowed (the file system's or this process's file size limit) (EFBIG)`);
      expect(readFileSync(file).equals(old)).toBe(true);
      expect(readFileSync(other).equals(old)).toBe(true);
      expect([statSync(file).ino, statSync(file).nlink]).toEqual([ino, 2]);
      expect(ours(dir)).toEqual([]);
    });
  }, 60_000);

  it("a failure while the new bytes go in (a quota met midway): the old content is put back, the error names EDQUOT in words", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = content(6 * MiB, "old");
      const { file, other, ino } = linked(dir, old);
      // What libuv hands over for EDQUOT, which it cannot name.
      const quota = Object.assign(new Error("Unknown system error -122: Unknown system error -122, write"), { errno: -122, code: "Unknown system error -122", syscall: "write" });
      let at = 0;
      const failing = atomicWriteFile(file, content(9 * MiB, "new"), {
        hooks: {
          duringCopyBack: (_target, written) => {
            at = written;
            throw quota;
          },
        },
      });
      await expect(failing).rejects.toThrow(`${file} was not changed: the disk quota is exceeded (EDQUOT). The file keeps its previous content.`);
      expect(at).toBe(4 * MiB); // the failure came with new bytes in the file
      expect(readFileSync(file).equals(old)).toBe(true);
      expect(readFileSync(other).equals(old)).toBe(true);
      expect([statSync(other).ino, statSync(other).nlink]).toEqual([ino, 2]);
      expect(ours(dir)).toEqual([]);
    });
  });

  it("kill -9 in the middle: the journal is left, and the folder's next sweep puts the old content back", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = content(6 * MiB, "old");
      const { file, other, ino } = linked(dir, old);
      const { child, mid } = writerStoppedMidway(file, content(5 * MiB, "new"), "wait");
      await mid;
      child.kill("SIGKILL");
      await exited(child);
      // Killed with part of the new content in the file: the case this is about.
      const cut = readFileSync(file);
      expect(cut.length).toBe(old.length);
      expect(cut.subarray(0, 4 * MiB).equals(content(5 * MiB, "new").subarray(0, 4 * MiB))).toBe(true);
      expect(ours(dir)).toEqual([expect.stringMatching(/^\.data\.txt\.\d+-[0-9a-f]{12}\.armature-copy$/)]);
      // The next armature write in that folder (here: of another file) sweeps it.
      await atomicWriteFile(join(dir, "unrelated.txt"), Buffer.from("x"));
      expect(readFileSync(file).equals(old)).toBe(true);
      expect(readFileSync(other).equals(old)).toBe(true);
      expect(statSync(file).ino).toBe(ino);
      expect(ours(dir)).toEqual([]);
    });
  }, 60_000);

  it("kill -9 in the middle, then `armature gc --temp-files`: the old content is back, and gc names the journal", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = content(6 * MiB, "old");
      const { file, other } = linked(dir, old);
      const { child, mid } = writerStoppedMidway(file, content(7 * MiB, "new"), "wait");
      await mid;
      child.kill("SIGKILL");
      await exited(child);
      expect(readFileSync(file).equals(old)).toBe(false);
      const [journal] = ours(dir);
      const sessions = join(dir, "no-sessions");
      mkdirSync(sessions);
      const gc = spawnSync(process.execPath, [join(ROOT, "bin/armature.js"), "gc", "--temp-files", dir, "--dir", sessions, "--json"], { encoding: "utf8" });
      expect(gc.status, gc.stderr).toBe(0);
      expect((JSON.parse(gc.stdout) as { tempFiles: string[] }).tempFiles).toEqual([join(dir, journal!)]);
      expect(readFileSync(file).equals(old)).toBe(true);
      expect(readFileSync(other).equals(old)).toBe(true);
      expect(ours(dir)).toEqual([]);
    });
  }, 60_000);

  it("after a kill, a file someone changed since is left as they made it (the journal goes)", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = content(6 * MiB, "old");
      const { file } = linked(dir, old);
      const { child, mid } = writerStoppedMidway(file, content(5 * MiB, "new"), "wait");
      await mid;
      child.kill("SIGKILL");
      await exited(child);
      const theirs = content(5 * MiB + 17, "theirs");
      writeFileSync(file, theirs); // in place, as a shell's `>` does
      expect(ours(dir)).toHaveLength(1);
      await removeStaleTemps(dir);
      expect(readFileSync(file).equals(theirs)).toBe(true);
      expect(ours(dir)).toEqual([]);
    });
  }, 60_000);

  it("process.exit in the middle (a signal handler's exit): the old content is back before the process is gone", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = content(6 * MiB, "old");
      const { file, other } = linked(dir, old);
      const { child, mid } = writerStoppedMidway(file, content(9 * MiB, "new"), "exit");
      await mid;
      await exited(child);
      expect(child.exitCode).toBe(3);
      expect(readFileSync(other).equals(old)).toBe(true);
      expect(ours(dir)).toEqual([]);
    });
  }, 60_000);
});

describe("temp files go on every path", () => {
  it("process.exit just before the rename of an ordinary write leaves no temp file", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const file = join(dir, "plain.txt");
      writeFileSync(file, "old\n");
      const script = `
        import { atomicWriteFile } from ${JSON.stringify(BUILT)};
        await atomicWriteFile(${JSON.stringify(file)}, Buffer.from("new\\n"), { hooks: { beforeRename: () => process.exit(4) } });
      `;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(run.status, run.stderr).toBe(4);
      expect(readFileSync(file, "utf8")).toBe("old\n");
      expect(readdirSync(dir)).toEqual(["plain.txt"]);
    });
  });

  it("a session folder sweeps what a killed save left (.state.json.*.armature-tmp) when it is opened", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const sessionDir = join(dir, "session");
      const first = startExec(["--cwd", dir, "--session-dir", sessionDir]);
      await first.turn([{ type: "tool_use", id: "g", name: "Glob", input: { pattern: "*" } }]);
      expect((await first.end()).code).toBe(0);
      const dead = spawnSync("true").pid!;
      const leftover = `.state.json.${dead}-0123456789ab.armature-tmp`;
      writeFileSync(join(sessionDir, leftover), '{"partial":');
      const second = startExec(["--cwd", dir, "--session-dir", sessionDir]);
      await second.turn([{ type: "tool_use", id: "g", name: "Glob", input: { pattern: "*" } }]);
      expect((await second.end()).code).toBe(0);
      expect(readdirSync(sessionDir).filter((n) => n.includes("armature-tmp"))).toEqual([]);
    });
  }, 60_000);
});
