// `armature gc --worktrees`: a resumable session (`armature agent`, `exec --session-dir`) leaves the
// worktrees it made locked at close, so that `--resume` comes back in them. Nothing removes them
// later by itself; this does, for the ones that hold no work: no uncommitted file and no commit
// that only their own branch holds. A worktree with work, one of a session still running, one
// the user made or locked, or one outside the worktrees folder is never touched.
import { stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { gitRead, mainCheckout, uncommittedFiles } from "./git.js";
import { removeWorktree, WORKTREES_DIR } from "./worktree.js";

/** The lock reason a session's worktree carries (see worktreeLockReason), read back: the session id. */
const LOCK_REASON = /^armature session (\S+)$/;

export interface SweptWorktree {
  path: string;
  branch: string;
  /** The session whose lock it carries. */
  session: string;
  /** `removed` (or would be, in a dry run), or `kept` with why. */
  action: "removed" | "kept";
  why?: string;
}

export interface SweepOptions {
  /** Leave worktrees whose lock is younger than this. */
  olderThanMs: number;
  dryRun: boolean;
  /** Whether the session with this id is running now (its folder's lock names a live process). */
  sessionRunning: (sessionId: string) => Promise<boolean>;
  now?: number;
}

interface Listed {
  path: string;
  head: string;
  branch: string;
  locked?: string;
}

function parseList(porcelain: string): Listed[] {
  const trees: Listed[] = [];
  for (const line of porcelain.split("\n")) {
    const last = trees.at(-1);
    if (line.startsWith("worktree ")) trees.push({ path: line.slice(9), head: "", branch: "" });
    else if (!last) continue;
    else if (line.startsWith("HEAD ")) last.head = line.slice(5);
    else if (line.startsWith("branch ")) last.branch = line.slice(7).replace(/^refs\/heads\//, "");
    else if (line === "locked" || line.startsWith("locked ")) last.locked = line.slice(7);
  }
  return trees;
}

/** Whether some ref other than `branch` holds `commit` (deleting the branch then loses no commit). */
async function heldElsewhere(root: string, commit: string, branch: string): Promise<boolean> {
  const out = await gitRead(["for-each-ref", "--contains", commit, "--format=%(refname)"], root);
  if (out.code !== 0) return false;
  return out.stdout.split("\n").some((ref) => ref !== "" && ref !== `refs/heads/${branch}`);
}

/** When the worktree was locked: the mtime of its `locked` file in the repository's admin folder. */
async function lockedSince(path: string): Promise<number | undefined> {
  const out = await gitRead(["rev-parse", "--absolute-git-dir"], path);
  if (out.code !== 0) return undefined;
  try {
    return (await stat(join(out.stdout.trim(), "locked"))).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Sweeps the session worktrees of the repository `cwd` is in. Throws when `cwd` is in no repository. */
export async function sweepWorktrees(cwd: string, options: SweepOptions): Promise<SweptWorktree[]> {
  const root = await mainCheckout(cwd);
  if (root === undefined) throw new Error(`${cwd} is not in a git repository (or is in a bare one)`);
  const listing = await gitRead(["worktree", "list", "--porcelain"], root);
  if (listing.code !== 0) throw new Error(`git worktree list failed in ${root}: ${listing.stderr.trim()}`);
  const folder = join(root, WORKTREES_DIR);
  const now = options.now ?? Date.now();
  const out: SweptWorktree[] = [];
  for (const tree of parseList(listing.stdout).slice(1)) {
    const session = LOCK_REASON.exec(tree.locked ?? "")?.[1];
    const name = relative(folder, tree.path);
    // Only what a session made: locked by it, in the worktrees folder, on the branch it named.
    if (session === undefined || name === "" || name.startsWith("..") || tree.branch !== `worktree-${name.split(sep).join("/")}`) continue;
    const entry: SweptWorktree = { path: tree.path, branch: tree.branch, session, action: "kept" };
    out.push(entry);
    try {
      const since = await lockedSince(tree.path);
      if (since === undefined) entry.why = "its lock cannot be read";
      else if (now - since < options.olderThanMs) entry.why = "locked more recently than --older-than";
      else if (await options.sessionRunning(session)) entry.why = "its session is running";
      else if ((await uncommittedFiles(tree.path)) > 0) entry.why = "it has uncommitted files";
      else if (!(await heldElsewhere(root, tree.head, tree.branch))) entry.why = `it has commits only its branch ${tree.branch} holds`;
      else {
        if (!options.dryRun) await removeWorktree({ path: tree.path, branch: tree.branch, base: tree.head, root });
        entry.action = "removed";
      }
    } catch (err) {
      entry.why = (err as Error).message;
    }
  }
  return out;
}
