// A session folder that outlives its process (`armature exec --session-dir DIR`): a lock so
// that one process at a time uses it, and the session's state saved there after every turn.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { atomicWriteFile } from "../fs/atomic-write.js";
import { removeStaleTemps } from "../fs/temp-name.js";
import { signState, verifyState } from "./session-home.js";
import { parseSessionSnapshot, SnapshotError, vetSnapshot, type SessionSnapshot } from "./snapshot.js";

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
  /** The saved state, when there is one, as far as it may be restored (see vetSnapshot). */
  readonly snapshot: SessionSnapshot | undefined;
  /** What of the saved state was not restored, and why (for the user). */
  readonly dropped: string[];
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

export interface SessionDirOptions {
  /**
   * The user's key and the project: the state is saved signed, and a saved state restores its
   * rules and read-file records only when its signature is good for this project. Without it,
   * a saved state never restores rules.
   */
  signing?: { key: Buffer; projectDir: string };
}

/** Creates the folder when needed (0700), takes its lock and reads its saved state. */
export async function openSessionDir(dir: string, options: SessionDirOptions = {}): Promise<SessionDirHandle> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const release = takeLock(dir);
  // What an earlier process killed in the middle of a save left (.state.json.<pid>-….armature-tmp).
  await removeStaleTemps(dir);
  const statePath = join(dir, STATE_FILE);
  let snapshot: SessionSnapshot | undefined;
  let dropped: string[] = [];
  const { signing } = options;
  try {
    let text: string | undefined;
    try {
      text = await readFile(statePath, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new SessionDirError(`cannot read ${statePath}: ${(err as Error).message}`);
    }
    if (text !== undefined) {
      try {
        const json = JSON.parse(text) as unknown;
        let verified = false;
        if (json !== null && typeof json === "object" && !Array.isArray(json)) {
          const { mac, ...body } = json as Record<string, unknown>;
          verified = signing !== undefined && verifyState(signing.key, signing.projectDir, JSON.stringify(body), mac);
          const parsed = parseSessionSnapshot(body);
          ({ snapshot, dropped } = vetSnapshot(parsed, { verified, projectDir: signing?.projectDir ?? parsed.projectDir, sessionDir: dir }));
        } else parseSessionSnapshot(json);
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
    dropped,
    save: (state) => {
      const body = JSON.stringify(state);
      const text = signing ? JSON.stringify({ ...state, mac: signState(signing.key, signing.projectDir, body) }) : body;
      return atomicWriteFile(statePath, Buffer.from(`${text}\n`), { newFileMode: 0o600 });
    },
    release,
  };
}
