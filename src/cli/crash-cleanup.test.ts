// Issue 24: nothing a killed armature leaves behind outlives the next start (or `armature gc`).
// Spawns the built CLI (npm run build first).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureIO, toolUse, withTempDir } from "../../test/helpers.js";
import { rng } from "../../test/fuzz/mutate.js";
import { LOCK_FILE } from "../session/state-dir.js";
import { gcCommand } from "./gc.js";

const deadPid = (): number => spawnSync("true").pid!;
const temps = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith(".armature-tmp"));

/** One exec run of `turn` with TMPDIR at `tmp`; `killAfterMs`: SIGKILL it then. */
function execTurn(project: string, tmp: string, turn: unknown[], killAfterMs?: number): Promise<number | null> {
  const child = spawn(process.execPath, ["bin/armature.js", "exec", "--cwd", project, "--mode", "bypassPermissions"], {
    env: { ...process.env, TMPDIR: tmp },
    stdio: ["pipe", "ignore", "ignore"],
  });
  child.stdin.on("error", () => undefined); // killed before it read the whole turn
  child.stdin.end(`${JSON.stringify(turn)}\n`);
  if (killAfterMs !== undefined) setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

describe("after kill -9", () => {
  it("the next start removes the temp files a killed write left beside its target; gc removes the killed run's folder", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const project = join(dir, "p");
      const tmp = join(dir, "tmp");
      mkdirSync(project);
      mkdirSync(tmp);
      const big = "0123456789abcdef".repeat(1 << 19); // 8 MiB
      const random = rng(24);
      let leftBehind = 0;
      for (let run = 0; run < 6; run++) {
        await execTurn(project, tmp, [toolUse("Write", { file_path: join(project, "big.txt"), content: big })], 60 + Math.floor(random() * 240));
        leftBehind += temps(project).length;
      }
      // What a kill in the middle of a write leaves, for certain: a temp file of a dead writer.
      writeFileSync(join(project, `.big.txt.${deadPid()}-0123456789ab.armature-tmp`), "partial");
      await execTurn(project, tmp, [toolUse("Write", { file_path: join(project, "small.txt"), content: "next start\n" })]);
      expect(temps(project), `${leftBehind} temp files were left by the kills`).toEqual([]);
      // The killed runs' session folders: gc removes them (their locks name dead processes).
      const io = captureIO();
      await gcCommand(["--older-than", "0", "--dir", tmp, "--temp-files", project], io);
      expect(readdirSync(tmp).filter((n) => n.startsWith("armature-exec-"))).toEqual([]);
    });
  }, 60_000);
});

describe("armature gc", () => {
  it("removes stale locks of dead processes and stale temp files below a folder, and nothing live", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const sessions = join(dir, "sessions");
      const young = join(sessions, "armature-exec-young");
      const held = join(sessions, "armature-exec-held");
      mkdirSync(young, { recursive: true });
      mkdirSync(held, { recursive: true });
      const dead = deadPid();
      writeFileSync(join(young, LOCK_FILE), JSON.stringify({ pid: dead }));
      writeFileSync(join(held, LOCK_FILE), JSON.stringify({ pid: process.pid }));
      const tree = join(dir, "project");
      mkdirSync(join(tree, "src", "deep"), { recursive: true });
      mkdirSync(join(tree, "node_modules"), { recursive: true });
      const stale = join(tree, "src", "deep", `.a.ts.${dead}-aaaaaaaaaaaa.armature-tmp`);
      const live = join(tree, "src", `.b.ts.${process.pid}-bbbbbbbbbbbb.armature-tmp`);
      const skipped = join(tree, "node_modules", `.c.js.${dead}-cccccccccccc.armature-tmp`);
      for (const p of [stale, live, skipped]) writeFileSync(p, "partial");

      const dry = captureIO();
      await gcCommand(["--dir", sessions, "--temp-files", tree, "--dry-run"], dry);
      expect(dry.out).toContain(`would remove ${stale}`);
      expect(readdirSync(join(tree, "src", "deep"))).toHaveLength(1);

      const io = captureIO();
      await gcCommand(["--dir", sessions, "--temp-files", tree], io);
      expect(io.out).toContain(`removed the stale lock of pid ${dead} in ${young}`);
      expect(io.out).toContain(`removed ${stale}`);
      expect(readdirSync(young)).toEqual([]);
      expect(readdirSync(held)).toEqual([LOCK_FILE]);
      expect(readdirSync(join(tree, "src", "deep"))).toEqual([]);
      expect(readdirSync(join(tree, "src"))).toContain(`.b.ts.${process.pid}-bbbbbbbbbbbb.armature-tmp`);
      expect(readdirSync(join(tree, "node_modules"))).toHaveLength(1);
    });
  });
});
