// A directory opened once and then used by its handle, not by its name: on Linux a path through
// /proc/self/fd/N reaches the directory the descriptor holds (openat(2) semantics for every call
// Node makes with it), so renaming a folder on the way or swapping it for a symlink after the
// open cannot redirect what is created, renamed or removed in it.
import { constants, existsSync } from "node:fs";
import { open, readlink, realpath, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

let procFd: boolean | undefined;

/** Whether /proc/self/fd paths work here (Linux with /proc mounted); probed once. */
export function hasProcFd(): boolean {
  procFd ??= process.platform === "linux" && existsSync("/proc/self/fd");
  return procFd;
}

/** For tests: pretend /proc is not there (the portable fallback), or probe again. */
export function setProcFdForTesting(value: boolean | undefined): void {
  procFd = value;
}

export interface HeldDir {
  /** The directory's real path when it was opened. */
  readonly path: string;
  /** The path to use for `name` inside the held directory. */
  at(name: string): string;
  /** Where the held directory is now (undefined when that cannot be told, e.g. it was removed). */
  whereNow(): Promise<string | undefined>;
  /** fsync of the directory (makes a rename durable); best effort. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The directory is not (any more) the one expected at `path`. */
export class DirMovedError extends Error {
  constructor(readonly path: string, readonly now: string | undefined) {
    super(now === undefined ? `${path} is gone` : `${path} now leads to ${now}`);
    this.name = "DirMovedError";
  }
}

/**
 * Opens the directory whose real path is `path` and checks that what was opened is that
 * directory (a component swapped for a symlink between the caller's realpath and the open is
 * a DirMovedError). Without /proc the held directory falls back to names, checked by realpath.
 */
export async function holdDir(path: string): Promise<HeldDir> {
  const handle: FileHandle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    if (!hasProcFd()) {
      const opened = await realpath(path).catch(() => undefined);
      if (opened !== path) throw new DirMovedError(path, opened);
      return namedDir(path, handle);
    }
    const fdPath = `/proc/self/fd/${handle.fd}`;
    const whereNow = async (): Promise<string | undefined> => {
      const now = await readlink(fdPath).catch(() => undefined);
      return now === undefined || now.endsWith(" (deleted)") ? undefined : now;
    };
    const opened = await whereNow();
    if (opened !== path) throw new DirMovedError(path, opened);
    return {
      path,
      at: (name) => (name === "." ? fdPath : `${fdPath}/${name}`),
      whereNow,
      sync: () => handle.sync().catch(() => undefined),
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

function namedDir(path: string, handle: FileHandle): HeldDir {
  return {
    path,
    at: (name) => (name === "." ? path : join(path, name)),
    whereNow: () => realpath(path).catch(() => undefined),
    sync: () => handle.sync().catch(() => undefined),
    close: () => handle.close(),
  };
}
