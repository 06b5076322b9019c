// The temp files a write puts beside its target carry the writer's pid, so that a later process
// can tell the temp file of a writer killed mid-write (kill -9, a crash, a power cut) from one
// in progress, and remove it: `.<name>.<pid>-<random>.armature-tmp`. A write in place leaves a
// journal named the same way with `.armature-copy` (copy-journal.ts): a sweep puts back the old
// content from a dead writer's journal.
import { randomBytes } from "node:crypto";
import { lstat, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Dirent } from "node:fs";
import { isJournalName, recoverCopyJournal } from "./copy-journal.js";

const SUFFIX = ".armature-tmp";
const PATTERN = /^\..*\.(\d+)-[0-9a-f]{12}\.armature-(?:tmp|copy)$/;
/** Beyond this age a temp file is stale even if its pid is alive again (pids are reused). */
const MAX_AGE_MS = 24 * 3600_000;
/** Room for the pid, the random part and the suffix in a 255-byte name. */
const MAX_BASE = 200;

/** A fresh temp name for a file called `name`, owned by this process. */
export function tempNameFor(name: string): string {
  const base = Buffer.byteLength(name) > MAX_BASE ? Buffer.from(name).subarray(0, MAX_BASE).toString("utf8").replace(/\uFFFD+$/, "") : name;
  return `.${base}.${process.pid}-${randomBytes(6).toString("hex")}${SUFFIX}`;
}

/** The pid in a temp name of ours, or undefined when the name is not one. */
export function tempNameOwner(name: string): number | undefined {
  const m = PATTERN.exec(name);
  return m ? Number(m[1]) : undefined;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether a temp file of ours is left over: its writer is gone, or it is older than any write takes. */
export function isStaleTemp(name: string, mtimeMs: number, now = Date.now()): boolean {
  const pid = tempNameOwner(name);
  if (pid === undefined) return false;
  if (pid === process.pid) return false;
  return !alive(pid) || now - mtimeMs > MAX_AGE_MS;
}

/**
 * Removes the stale temp files in `dir` (best effort: a folder that cannot be listed is left
 * alone). `within` maps a name to the path to use for it (a held directory's fd path).
 * Returns the names removed.
 */
export async function removeStaleTemps(dir: string, within: (name: string) => string = (n) => join(dir, n), dryRun = false): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(within("."));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (tempNameOwner(name) === undefined) continue;
    try {
      const info = await lstat(within(name));
      if (!info.isFile() || !isStaleTemp(name, info.mtimeMs)) continue;
      if (dryRun) {
        // listed only
      } else if (isJournalName(name)) await recoverCopyJournal(within, name);
      else await unlink(within(name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

const swept = new Set<string>();
const MAX_SWEPT = 10_000;

/** `removeStaleTemps` the first time this process writes in `dir` (a folder is listed once). */
export async function sweepOnce(dir: string, within?: (name: string) => string): Promise<void> {
  if (swept.has(dir)) return;
  if (swept.size >= MAX_SWEPT) swept.clear();
  swept.add(dir);
  await removeStaleTemps(dir, within);
}

/** Folders a tree sweep never enters: other tools' stores, where armature writes nothing. */
const SKIPPED = new Set([".git", "node_modules"]);

/**
 * `armature gc`'s sweep: the stale temp files in `root` and the folders below it (symlinks not
 * followed; .git and node_modules skipped; at most `maxDirs` folders). Resolves to their paths.
 */
export async function removeStaleTempsUnder(root: string, options: { maxDirs?: number; dryRun?: boolean } = {}): Promise<{ removed: string[]; truncated: boolean }> {
  const maxDirs = options.maxDirs ?? 20_000;
  const removed: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0) {
    if (seen++ >= maxDirs) return { removed, truncated: true };
    const dir = queue.shift()!;
    for (const name of await removeStaleTemps(dir, (n) => join(dir, n), options.dryRun)) removed.push(join(dir, name));
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) if (e.isDirectory() && !SKIPPED.has(e.name)) queue.push(join(dir, e.name));
  }
  return { removed, truncated: false };
}
