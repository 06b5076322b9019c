// A session folder that outlives its process (`armature exec --session-dir DIR`): a lock so
// that one process at a time uses it, and the session's state saved there after every turn.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { atomicWriteFile } from "../tools/fs/atomic-write.js";
import { parseSessionSnapshot, SnapshotError, type SessionSnapshot } from "./snapshot.js";

export const STATE_FILE = "state.json";
export const LOCK_FILE = "armature.lock";

/** The folder is in use by another process, or its state cannot be read. */
export class SessionDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SessionDirError";
  }
}

export interface SessionDirHandle {
  readonly dir: string;
  /** The saved state, when there is one. */
  readonly snapshot: SessionSnapshot | undefined;
  /** Replaces the saved state (write to a temp file, then rename). */
  save(snapshot: SessionSnapshot): Promise<void>;
  /** Removes the lock. Safe to call twice; also done when the process exits. */
  release(): void;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLockPid(path: string): number | undefined {
  try {
    const pid = Number((JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown }).pid);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const UNREADABLE_LOCK_GRACE_MS = 10_000;

function lockAgeMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Infinity;
  }
}

/**
 * Takes the lock: a file created with O_EXCL holding this process's pid. A lock whose process
 * is gone (killed, crashed) is stale and taken over; one held by a live process is an error
 * naming it. A lock file that cannot be read is treated as held only while it is young, so a
 * crash between create and write does not block the folder for ever.
 */
function takeLock(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx", 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new SessionDirError(`cannot lock ${dir}: ${(err as Error).message}`);
      const pid = readLockPid(path);
      if (pid === undefined && lockAgeMs(path) < UNREADABLE_LOCK_GRACE_MS) {
        // Just created by another process that has not written its pid yet (or crashed then).
        throw new SessionDirError(`${dir} is being locked by another armature process; try again in a moment`);
      }
      if (pid !== undefined && pidAlive(pid)) {
        throw new SessionDirError(
          `${dir} is in use by another armature process (pid ${pid}); run one process at a time per session folder, or wait for it to end`,
        );
      }
      // Stale: its process is gone. Removed only if it still names that process (another one
      // may have taken it over in between; the window left is a few microseconds).
      if (readLockPid(path) === pid) {
        try {
          unlinkSync(path);
        } catch {
          // another process removed it first; try again
        }
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
    } finally {
      closeSync(fd);
    }
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      process.removeListener("exit", release);
      if (readLockPid(path) !== process.pid) return;
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    };
    process.on("exit", release);
    return release;
  }
  throw new SessionDirError(`cannot lock ${dir}: another process keeps taking the lock`);
}

/**
 * Removes the lock of `dir` when its process is gone (found by `armature gc`; `openSessionDir`
 * takes such a lock over by itself). Resolves to the dead pid, or undefined when there was no
 * stale lock. A lock that cannot be read is left to its grace period.
 */
export function removeStaleLock(dir: string): number | undefined {
  const path = join(dir, LOCK_FILE);
  const pid = readLockPid(path);
  if (pid === undefined || pidAlive(pid)) return undefined;
  if (readLockPid(path) !== pid) return undefined;
  try {
    unlinkSync(path);
    return pid;
  } catch {
    return undefined;
  }
}

/** Creates the folder when needed, takes its lock and reads its saved state. */
export async function openSessionDir(dir: string): Promise<SessionDirHandle> {
  await mkdir(dir, { recursive: true });
  const release = takeLock(dir);
  const statePath = join(dir, STATE_FILE);
  let snapshot: SessionSnapshot | undefined;
  try {
    let text: string | undefined;
    try {
      text = await readFile(statePath, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new SessionDirError(`cannot read ${statePath}: ${(err as Error).message}`);
    }
    if (text !== undefined) {
      try {
        snapshot = parseSessionSnapshot(JSON.parse(text));
      } catch (err) {
        const why = err instanceof SnapshotError || err instanceof SyntaxError ? err.message : String(err);
        throw new SessionDirError(`${statePath}: ${why}; remove the file to start the session afresh`);
      }
    }
  } catch (err) {
    release();
    throw err;
  }
  return {
    dir,
    snapshot,
    save: (state) => atomicWriteFile(statePath, Buffer.from(`${JSON.stringify(state)}\n`)),
    release,
  };
}
