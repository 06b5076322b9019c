import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import type { SessionSnapshot } from "./snapshot.js";
import { LOCK_FILE, openSessionDir, SessionDirError, STATE_FILE } from "./state-dir.js";

const deadPid = (): number => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
const snapshot: SessionSnapshot = { version: 1, sessionId: "s1", projectDir: "/p", cwd: "/p", readFiles: [], rememberedRules: [], tasks: [] };

describe("session folder lock and state", () => {
  it("one holder at a time; released, the next one reads what was saved", async () => {
    await withTempDir(async (dir) => {
      const first = await openSessionDir(join(dir, "s"));
      expect(JSON.parse(readFileSync(join(dir, "s", LOCK_FILE), "utf8")).pid).toBe(process.pid);
      await expect(openSessionDir(join(dir, "s"))).rejects.toThrow(`is in use by another armature process (pid ${process.pid})`);
      await first.save(snapshot);
      first.release();
      first.release();
      expect(existsSync(join(dir, "s", LOCK_FILE))).toBe(false);
      const second = await openSessionDir(join(dir, "s"));
      expect(second.snapshot).toEqual(snapshot);
      second.release();
    });
  });

  it.each([
    ["a dead process's lock is taken over", () => JSON.stringify({ pid: deadPid() }), false, undefined],
    ["an unreadable lock just created is respected", () => "", false, "is being locked by another armature process"],
    ["an unreadable lock left for long is taken over", () => "", true, undefined],
  ])("%s", async (_name, content, old, error) => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, LOCK_FILE), content());
      if (old) utimesSync(join(dir, LOCK_FILE), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      if (error) {
        await expect(openSessionDir(dir)).rejects.toThrow(SessionDirError);
        await expect(openSessionDir(dir)).rejects.toThrow(error);
        return;
      }
      const handle = await openSessionDir(dir);
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
      handle.release();
    });
  });

  it("a state file that is not a valid snapshot is an error, and the lock is let go", async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, STATE_FILE), JSON.stringify({ version: 9 }));
      await expect(openSessionDir(dir)).rejects.toThrow(`${join(dir, STATE_FILE)}: unknown state version 9`);
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    });
  });
});
