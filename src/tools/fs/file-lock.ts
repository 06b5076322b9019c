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
