// The session's folder of Bash outputs, bounded in total: before a call starts, the oldest outputs
// of calls that have ended are removed until the folder, plus what the new call may keep, fits.
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

/** Output files of calls still running in this process (foreground or background): never removed. */
const live = new Set<string>();

/** Marks `path` as the output of a running call; the returned function unmarks it. */
export function markLiveOutput(path: string): () => void {
  live.add(path);
  return () => {
    live.delete(path);
  };
}

/**
 * Removes the oldest finished outputs (`*.output`) of `dir` until at most `room` bytes are
 * used. Resolves to the paths removed, oldest first.
 */
export async function trimOutputFolder(dir: string, room: number): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const files: Array<{ path: string; size: number; mtimeMs: number }> = [];
  let used = 0;
  for (const name of names) {
    if (!name.endsWith(".output")) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    used += info.size;
    if (!live.has(path)) files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : 1));
  const removed: string[] = [];
  for (const file of files) {
    if (used <= room) break;
    try {
      await unlink(file.path);
    } catch {
      continue;
    }
    used -= file.size;
    removed.push(file.path);
  }
  return removed;
}
