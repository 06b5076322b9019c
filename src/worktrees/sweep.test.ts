// `armature gc --worktrees`: the worktrees resumable sessions left locked go once they hold no
// work and their session is gone; everything else stays, and says why.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, realpath, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { captureIO, toolUse, withTempDir } from "../../test/helpers.js";
import { gcCommand } from "../cli/gc.js";
import { projectSessionsDir } from "../session/session-home.js";
import { LOCK_FILE } from "../session/state-dir.js";
import { createSession } from "../session/session.js";
import { builtinTools } from "../tools/index.js";

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });

async function repo(dir: string): Promise<string> {
  const p = join(await realpath(dir), "p");
  await mkdir(p);
  git(p, "init", "-q", "-b", "master");
  await writeFile(join(p, "a.txt"), "alpha\n");
  git(p, "add", "-A");
  git(p, "commit", "-qm", "init");
  return p;
}

/** A resumable session that makes the worktree `name` and closes: the worktree stays, locked. */
async function leftBehind(project: string, name: string, sessionId: string): Promise<string> {
  const session = createSession({ sessionId, cwd: project, tools: builtinTools(), permissionMode: "bypassPermissions", sandbox: false, resumable: true });
  const [r] = await session.runTurn([toolUse("EnterWorktree", { name })]);
  expect(r!.is_error).not.toBe(true);
  await session.close();
  const path = join(project, ".armature", "worktrees", name);
  expect(git(project, "worktree", "list", "--porcelain")).toContain(`locked armature session ${sessionId}`);
  return path;
}

/** Makes the worktree's lock `days` old. */
async function age(path: string, days: number): Promise<void> {
  const admin = git(path, "rev-parse", "--absolute-git-dir").trim();
  const t = (Date.now() - days * 86_400_000) / 1000;
  await utimes(join(admin, "locked"), t, t);
}

async function gc(project: string, ...args: string[]): Promise<{ code: number; report: { worktrees: Array<{ path: string; action: string; why?: string }> } }> {
  const io = captureIO();
  const code = await gcCommand(["--worktrees", "--cwd", project, "--dir", project, "--temp-files", project, "--json", ...args], io);
  return { code, report: JSON.parse(io.out) };
}

afterEach(() => vi.unstubAllEnvs());

describe("armature gc --worktrees", () => {
  it("removes an idle session worktree (and its branch) past --older-than; keeps a young one, one with work, one of a running session", async () => {
    await withTempDir(async (dir) => {
      vi.stubEnv("ARMATURE_CONFIG_DIR", join(dir, "config"));
      const project = await repo(dir);
      const idle = await leftBehind(project, "idle", "s-idle");
      const young = await leftBehind(project, "young", "s-young");
      const dirty = await leftBehind(project, "dirty", "s-dirty");
      const committed = await leftBehind(project, "committed", "s-committed");
      const running = await leftBehind(project, "running", "s-running");
      for (const p of [idle, dirty, committed, running]) await age(p, 30);
      await writeFile(join(dirty, "wip.txt"), "work in progress\n");
      await writeFile(join(committed, "b.txt"), "b\n");
      git(committed, "add", "-A");
      git(committed, "commit", "-qm", "work");
      await age(committed, 30);
      // The running session's folder is locked by a live process (this one).
      const folder = join(projectSessionsDir(project), "s-running");
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, LOCK_FILE), JSON.stringify({ pid: process.pid }));

      const dry = await gc(project, "--dry-run");
      expect(dry.code).toBe(0);
      expect(dry.report.worktrees.find((w) => w.path === idle)?.action).toBe("removed");
      expect(existsSync(idle)).toBe(true); // a dry run removes nothing

      const { report } = await gc(project);
      const why = (p: string): string | undefined => report.worktrees.find((w) => w.path === p)?.why;
      expect(report.worktrees.find((w) => w.path === idle)?.action).toBe("removed");
      expect(existsSync(idle)).toBe(false);
      expect(git(project, "branch", "--list", "worktree-idle")).toBe("");
      expect(why(young)).toMatch(/more recently/);
      expect(why(dirty)).toMatch(/uncommitted/);
      expect(why(committed)).toMatch(/commits only its branch/);
      expect(why(running)).toMatch(/running/);
      for (const p of [young, dirty, committed, running]) expect(existsSync(p)).toBe(true);
      expect(git(committed, "log", "--format=%s", "-1").trim()).toBe("work");
    });
  }, 60_000);

  it("never touches a worktree no session made: the user's own, one locked by the user, one outside the worktrees folder", async () => {
    await withTempDir(async (dir) => {
      vi.stubEnv("ARMATURE_CONFIG_DIR", join(dir, "config"));
      const project = await repo(dir);
      const own = join(dir, "own");
      git(project, "worktree", "add", "-q", "-b", "own", own);
      const userLocked = join(project, ".armature", "worktrees", "mine");
      git(project, "worktree", "add", "-q", "-b", "worktree-mine", userLocked);
      git(project, "worktree", "lock", "--reason", "keep this", userLocked);
      // A lock that claims a session, on a worktree outside the folder (or on another branch): not ours.
      const claimed = join(dir, "claimed");
      git(project, "worktree", "add", "-q", "-b", "worktree-claimed", claimed);
      git(project, "worktree", "lock", "--reason", "armature session x", claimed);
      const otherBranch = join(project, ".armature", "worktrees", "other");
      git(project, "worktree", "add", "-q", "-b", "feature", otherBranch);
      git(project, "worktree", "lock", "--reason", "armature session y", otherBranch);
      for (const p of [userLocked, claimed, otherBranch]) await age(p, 30);
      const { report } = await gc(project, "--older-than", "0");
      expect(report.worktrees).toEqual([]);
      for (const p of [own, userLocked, claimed, otherBranch]) expect(existsSync(p)).toBe(true);
    });
  }, 60_000);

  it("outside a repository: a usage error naming the folder", async () => {
    await withTempDir(async (dir) => {
      const io = captureIO();
      await expect(gcCommand(["--worktrees", "--cwd", dir, "--dir", dir, "--temp-files", dir], io)).rejects.toThrow(/--worktrees: .* is not in a git repository/);
    });
  });
});
