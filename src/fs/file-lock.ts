import { realpath } from "node:fs/promises";

const tails = new Map<string, Promise<void>>();

/**
 * Runs `fn` while holding a per-path lock for this process: edits of one file are serialised
 * (another session's edit of the same file waits for this one), edits of different files are not.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(path) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = previous.then(() => mine);
  tails.set(path, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(path) === tail) tails.delete(path);
  }
}

/** The key a file is locked under: its real path, so a link and its target share one lock. */
export async function lockKey(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/** `withFileLock` on the file's real path. */
export async function withFileLockFor<T>(path: string, fn: () => Promise<T>): Promise<T> {
  return withFileLock(await lockKey(path), fn);
}
