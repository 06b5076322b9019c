// A saved worktree state brought back in a new process. The snapshot is untrusted input: it is
// only believed where git agrees (the path is a worktree of the project's repository), and the
// right to remove the worktree only where its lock says this session made it.
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { engineCommand } from "../sandbox/engine-process.js";
import type { ToolUseContext } from "../tool/types.js";
import { activeWorktree, cleanUpOnClose, setActiveWorktree, worktreeLockReason, type WorktreeState } from "./state.js";

/** What a snapshot says of the worktree the session was in. */
export interface WorktreeRecord {
  path: string;
  branch: string;
  base: string;
  created: boolean;
  back: { projectDir: string; cwd: string };
}

export function worktreeRecord(context: ToolUseContext): WorktreeRecord | undefined {
  const state = activeWorktree(context);
  if (!state) return undefined;
  return { path: state.tree.path, branch: state.tree.branch, base: state.tree.base, created: state.created, back: { ...state.back } };
}

function gitSync(args: string[], cwd: string): string | undefined {
  const cmd = engineCommand("git", args, { cwd });
  if (!cmd) return undefined;
  try {
    return execFileSync(cmd.file, cmd.args, { cwd, env: cmd.env, encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return undefined;
  }
}

const real = (path: string): string | undefined => {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
};

export const within = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/**
 * Puts the session back in the worktree a snapshot names, when git lists that path as a worktree
 * (not the main checkout) of the repository of the session's project. Returns why not, or
 * undefined when it came back.
 */
export function restoreWorktree(context: ToolUseContext, record: WorktreeRecord, sessionId: string, savedCwd: string): string | undefined {
  const projectDir = context.workspace.projectDir;
  if (real(record.back.projectDir) !== real(projectDir)) return `it was entered from ${record.back.projectDir}, not this project`;
  const path = real(record.path);
  const listing = gitSync(["worktree", "list", "--porcelain"], projectDir);
  if (path === undefined || listing === undefined) return `${record.path} is not a worktree of this repository`;
  const trees: Array<{ path: string; branch: string; locked?: string }> = [];
  for (const line of listing.split("\n")) {
    if (line.startsWith("worktree ")) trees.push({ path: line.slice(9), branch: "" });
    else if (line.startsWith("branch ") && trees.length > 0) trees.at(-1)!.branch = line.slice(7).replace(/^refs\/heads\//, "");
    else if ((line === "locked" || line.startsWith("locked ")) && trees.length > 0) trees.at(-1)!.locked = line.slice(7);
  }
  const index = trees.findIndex((t) => real(t.path) === path);
  if (index <= 0) return `${record.path} is not a worktree of this repository`;
  const listed = trees[index]!;
  const head = gitSync(["rev-parse", "HEAD"], path)?.trim() ?? "";
  // Removal rights only for a worktree this session made: its lock names the session, and the base is a commit of its history.
  const made =
    record.created &&
    listed.locked === worktreeLockReason(sessionId) &&
    /^[0-9a-f]{40}$/.test(record.base) &&
    gitSync(["merge-base", "--is-ancestor", record.base, "HEAD"], path) !== undefined;
  const state: WorktreeState = {
    tree: { path, branch: listed.branch, base: made ? record.base : head, root: trees[0]!.path },
    created: made,
    back: { projectDir, cwd: within(real(record.back.cwd) ?? projectDir, projectDir) ? (real(record.back.cwd) ?? projectDir) : projectDir },
  };
  const cwd = real(savedCwd);
  context.workspace = { projectDir: path, cwd: cwd !== undefined && within(cwd, path) ? cwd : path };
  setActiveWorktree(context, state);
  if (made) cleanUpOnClose(context, state);
  return undefined;
}
