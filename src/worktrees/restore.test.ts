// A session saved inside a worktree comes back in it; a snapshot is untrusted input.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../test/helpers.js";
import { createSession, type Session } from "../session/session.js";
import { vetSnapshot, type SessionSnapshot } from "../session/snapshot.js";
import { builtinTools } from "../tools/index.js";
import { activeWorktree } from "./state.js";

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });

async function repo(dir: string): Promise<string> {
  const root = await realpath(dir);
  await mkdir(join(root, "p"));
  const p = join(root, "p");
  git(p, "init", "-q", "-b", "master");
  await writeFile(join(p, "a.txt"), "alpha\n");
  git(p, "add", "-A");
  git(p, "commit", "-qm", "init");
  return p;
}

const open = (cwd: string, restore?: SessionSnapshot): Session =>
  createSession({ cwd, tools: builtinTools(), permissionMode: "bypassPermissions", sandbox: false, resumable: true, ...(restore ? { restore } : {}) });

async function call(session: Session, name: string, input: Record<string, unknown>): Promise<string> {
  const [r] = await session.runTurn([toolUse(name, input)]);
  return typeof r!.content === "string" ? r!.content : JSON.stringify(r!.content);
}

describe("worktree state in the session snapshot", () => {
  it("saved in a worktree, resumed in it (cwd, lock, the right to remove it); the snapshot names the project it came from", async () => {
    await withTempDir(async (dir) => {
      const project = await repo(dir);
      const first = open(project);
      await call(first, "EnterWorktree", { name: "feat" });
      const tree = join(project, ".armature", "worktrees", "feat");
      await mkdir(join(tree, "sub"));
      await call(first, "Bash", { command: "cd sub" });
      const saved = first.snapshot();
      expect(saved.projectDir).toBe(project);
      expect(saved.worktree).toMatchObject({ path: tree, branch: "worktree-feat", created: true, back: { projectDir: project, cwd: project } });
      await first.close();
      // Resumable: close left it, locked.
      expect(existsSync(tree)).toBe(true);
      expect(git(project, "worktree", "list", "--porcelain")).toContain(`locked armature session ${saved.sessionId}`);

      const vetted = vetSnapshot(saved, { verified: true, projectDir: project, sessionDir: join(dir, "s") }).snapshot;
      const second = open(project, vetted);
      expect(second.context.workspace).toEqual({ projectDir: tree, cwd: join(tree, "sub") });
      expect(activeWorktree(second.context)).toMatchObject({ created: true, tree: { path: tree, branch: "worktree-feat", root: project } });
      expect(await call(second, "ExitWorktree", { action: "remove" })).toContain(tree);
      expect(second.context.workspace).toEqual({ projectDir: project, cwd: project });
      expect(existsSync(tree)).toBe(false);
      await second.close();
    });
  });

  it("attacks: a path that is not a worktree of this repository, a cwd outside the project, an unsigned claim to have made a worktree", async () => {
    await withTempDir(async (dir) => {
      const project = await repo(dir);
      const outside = await realpath(dir);
      const fresh = open(project);
      const base = fresh.snapshot();
      await fresh.close();
      // Another repository's worktree, and a plain folder: neither moves the cwd.
      const other = join(outside, "other");
      await mkdir(other);
      git(other, "init", "-q", "-b", "master");
      git(other, "commit", "-q", "--allow-empty", "-m", "x");
      git(other, "worktree", "add", "-q", join(outside, "other-wt"));
      for (const path of [join(outside, "other-wt"), outside, "/etc", project]) {
        const forged: SessionSnapshot = { ...base, cwd: path, worktree: { path, branch: "worktree-x", base: "0".repeat(40), created: true, back: { projectDir: project, cwd: project } } };
        const s = open(project, forged);
        expect(s.context.workspace, path).toEqual({ projectDir: project, cwd: project });
        expect(activeWorktree(s.context)).toBeUndefined();
        await s.close();
      }
      const plain = open(project, { ...base, cwd: "/etc" });
      expect(plain.context.workspace.cwd).toBe(project);
      await plain.close();

      // A real worktree of this repository the user made: entered, never ours to remove.
      git(project, "worktree", "add", "-q", "-b", "mine", join(outside, "mine"));
      const mine = join(outside, "mine");
      const claim: SessionSnapshot = { ...base, cwd: mine, worktree: { path: mine, branch: "mine", base: git(project, "rev-parse", "HEAD").trim(), created: true, back: { projectDir: project, cwd: project } } };
      const s = open(project, claim);
      expect(s.context.workspace).toEqual({ projectDir: mine, cwd: mine });
      expect(activeWorktree(s.context)!.created).toBe(false);
      await call(s, "ExitWorktree", { action: "remove", discard_changes: true });
      expect(existsSync(mine)).toBe(true);
      await s.close();
      // Unsigned: the claim is dropped before any check.
      const { snapshot, dropped } = vetSnapshot(claim, { verified: false, projectDir: project, sessionDir: join(dir, "s") });
      expect(snapshot.worktree!.created).toBe(false);
      expect(dropped.join("\n")).toContain(`the right to remove the worktree ${mine}`);
    });
  });
});
