// What a writable call created at protected paths, taken away once its processes are gone. Only
// what this call created (the scan after it, minus the scan before), only inside the writable
// roots, and never through a link: every folder between the root and the path is checked with
// lstat right before the removal, and a recursive removal unlinks links instead of entering them.
// A repository the call made (git init, git clone) keeps what git itself writes; its hooks other
// than git's samples, and a config that names anything beyond the plain keys git init and clone
// write, go. A marker on disk for the duration of the call lets the next start finish the job
// when armature died mid-call.
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { randomBytes } from "node:crypto";
import { scanTree, type ScanOptions, type TreeScan } from "./tree-scan.js";

function inside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function lkind(path: string): "dir" | "file" | "link" | undefined {
  try {
    const s = lstatSync(path, { throwIfNoEntry: false });
    if (s === undefined) return undefined;
    return s.isSymbolicLink() ? "link" : s.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

/** Every folder from `root` (excluded) down to `path`'s parent is a real folder, not a link. */
function reachedWithoutLinks(path: string, root: string): boolean {
  if (!inside(path, root) || lkind(root) !== "dir") return false;
  const parts = relative(root, dirname(path)).split(sep).filter((p) => p !== "");
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    if (lkind(dir) !== "dir") return false;
  }
  return true;
}

/** Removes `path` (a link itself, a file, or a folder and all in it) if it is reached without links. */
function removeSafely(path: string, roots: readonly string[]): boolean {
  const root = roots.find((r) => inside(path, r));
  if (root === undefined || !reachedWithoutLinks(path, root)) return false;
  const kind = lkind(path);
  try {
    if (kind === "dir") rmSync(path, { recursive: true, force: true });
    else if (kind !== undefined) unlinkSync(path);
    else return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * The keys `git init` and `git clone` write, and others that name no program: a config a call
 * created with nothing else is kept. Section names in lower case; `*` for a subsection.
 */
const PLAIN_GIT_KEYS = new Set([
  "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates", "core.ignorecase", "core.precomposeunicode",
  "core.symlinks", "core.autocrlf", "core.eol", "core.safecrlf", "core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
  "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.tagopt", "remote.*.promisor", "remote.*.partialclonefilter", "remote.*.mirror",
  "branch.*.remote", "branch.*.merge", "branch.*.rebase", "user.name", "user.email", "init.defaultbranch", "extensions.objectformat",
  "extensions.worktreeconfig", "extensions.partialclone", "extensions.refstorage", "submodule.*.url", "submodule.*.active", "gc.auto",
  "pull.rebase", "pull.ff", "push.default", "fetch.prune", "lfs.repositoryformatversion", "index.version", "feature.manyfiles",
]);

/** The keys of a git config file that are not plain (empty: keep it); `[include]` and anything unread count. */
export function unplainGitKeys(text: string): string[] {
  const out: string[] = [];
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.replace(/^\s+/, "");
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1]!.toLowerCase();
      section = head[2] !== undefined || name.includes(".") ? `${name.split(".")[0]}.*` : name;
      if (head[3] !== undefined && head[3].trim() !== "" && !/^[#;]/.test(head[3].trim())) out.push(`${section}: ${head[3].trim()}`);
      continue;
    }
    if (line.startsWith("[")) {
      out.push(line);
      continue;
    }
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(=|$)/.exec(line);
    if (!key) {
      out.push(line);
      continue;
    }
    const full = `${section}.${key[1]!.toLowerCase()}`;
    if (!PLAIN_GIT_KEYS.has(full)) out.push(full);
  }
  return out;
}

export interface CreatedRemoval {
  removed: string[];
}

/**
 * Takes away what the call created at protected paths: `after` minus `before`, inside `roots`.
 * In a repository the call created, git's own parts stay (see above).
 */
export function removeCreatedProtected(before: TreeScan, after: TreeScan, roots: readonly string[]): CreatedRemoval {
  const had = new Set(before.protected);
  const oldRepos = new Set(before.vcsDirs);
  const newRepos = after.vcsDirs.filter((d) => !oldRepos.has(d));
  const removed: string[] = [];
  for (const path of after.protected) {
    if (had.has(path)) continue;
    const repo = newRepos.find((r) => inside(path, r));
    if (repo !== undefined && basename(repo) === ".git") {
      const part = relative(repo, path);
      if (part === "hooks" && lkind(path) === "dir") {
        for (const name of listNames(path)) if (!name.endsWith(".sample") && removeSafely(join(path, name), roots)) removed.push(join(path, name));
        continue;
      }
      if ((part === "config" || part === "config.worktree") && lkind(path) === "file") {
        let text = "";
        try {
          text = readFileSync(path, "utf8");
        } catch {
          // unreadable: removed below
        }
        if (text !== "" && unplainGitKeys(text).length === 0) continue;
      } else if (part !== "config" && part !== "config.worktree" && lkind(path) !== "link") {
        // info/, commondir, modules/, worktrees/ of a repository the call made: git's own.
        continue;
      }
    }
    if (removeSafely(path, roots)) {
      removed.push(path);
      removeEmptyNewFolders(dirname(path), before.folders, roots);
    }
  }
  return { removed };
}

/** The folders above a removed path that the call made (not walked before) and that are empty now. */
function removeEmptyNewFolders(dir: string, existed: ReadonlySet<string>, roots: readonly string[]): void {
  if (existed.size === 0) return;
  for (let d = dir; roots.some((r) => inside(d, r)) && !existed.has(d); d = dirname(d)) {
    const root = roots.find((r) => inside(d, r));
    if (root === undefined || !reachedWithoutLinks(d, root) || lkind(d) !== "dir") return;
    try {
      rmdirSync(d);
    } catch {
      return; // not empty: it holds something else, which stays
    }
  }
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A call in progress, on disk: what the next start needs to finish its cleanup if armature dies. */
interface PendingCall {
  pid: number;
  roots: string[];
  before: Pick<TreeScan, "protected" | "vcsDirs">;
  extraProtected: string[];
}

/** Records the call before it starts; the returned function removes the record. */
export function markPendingCall(dir: string, call: Omit<PendingCall, "pid">): () => void {
  const path = join(dir, `${process.pid}-${randomBytes(6).toString("hex")}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(path, JSON.stringify({ pid: process.pid, ...call }), { mode: 0o600, flag: "wx" });
  } catch {
    return () => {};
  }
  return () => rmSync(path, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Finishes the cleanup of calls whose process died (kill -9 mid-call): what exists now at protected
 * paths and was not there before such a call is removed. Returns what was removed.
 */
export function recoverPendingCalls(dir: string, options: Pick<ScanOptions, "entryLimit"> = {}): string[] {
  const removed: string[] = [];
  for (const name of listNames(dir)) {
    if (!name.endsWith(".json")) continue;
    const path = join(dir, name);
    let call: PendingCall;
    try {
      if (lkind(path) !== "file") continue;
      call = JSON.parse(readFileSync(path, "utf8")) as PendingCall;
    } catch {
      rmSync(path, { force: true });
      continue;
    }
    if (typeof call.pid !== "number" || alive(call.pid)) continue;
    if (Array.isArray(call.roots) && call.before && Array.isArray(call.before.protected) && Array.isArray(call.before.vcsDirs)) {
      const after = scanTree(call.roots, { extraProtected: call.extraProtected ?? [], ...options });
      const before: TreeScan = { protected: call.before.protected, vcsDirs: call.before.vcsDirs, hidden: [], folders: new Set(), complete: true, entries: 0 };
      removed.push(...removeCreatedProtected(before, after, call.roots).removed);
    }
    rmSync(path, { force: true });
  }
  return removed;
}
