// The session's folder of Bash outputs, bounded in total: before a call starts, the oldest outputs
// of calls that have ended are removed until the folder, plus what the new call may keep, fits.
// What the folder holds is read once per folder and then kept up to date as calls end (one stat
// of the ended call's file), so a call costs the same in a folder of 5 outputs or of 5,000.
import { readdir, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Output files of calls still running in this process (foreground or background): never removed. */
const live = new Set<string>();

/** The finished outputs of one folder, oldest first, with their sizes. */
interface Ledger {
  sizes: Map<string, number>;
  used: number;
  /** The sizes of calls that ended, being read: a trim waits for them. */
  pending: Promise<void>;
}

const ledgers = new Map<string, Promise<Ledger>>();

function ledgerOf(dir: string): Promise<Ledger> {
  let ledger = ledgers.get(dir);
  if (!ledger) {
    ledger = readLedger(dir);
    ledgers.set(dir, ledger);
  }
  return ledger;
}

async function readLedger(dir: string): Promise<Ledger> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: Array<{ path: string; size: number; mtimeMs: number }> = [];
  for (const name of names) {
    if (!name.endsWith(".output")) continue;
    const path = join(dir, name);
    if (live.has(path)) continue;
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) found.push({ path, size: info.size, mtimeMs: info.mtimeMs });
  }
  found.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : 1));
  return { sizes: new Map(found.map((f) => [f.path, f.size])), used: found.reduce((n, f) => n + f.size, 0), pending: Promise.resolve() };
}

/** Marks `path` as the output of a running call; the returned function unmarks it (its size joins the folder's). */
export function markLiveOutput(path: string): () => void {
  live.add(path);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    live.delete(path);
    const ledger = ledgers.get(dirname(path));
    if (!ledger) return;
    void ledger.then((l) => {
      l.pending = l.pending.then(async () => {
        const info = await stat(path).catch(() => undefined);
        l.used -= l.sizes.get(path) ?? 0;
        l.sizes.delete(path);
        if (info?.isFile()) {
          l.sizes.set(path, info.size); // the newest
          l.used += info.size;
        }
      });
    });
  };
}

/**
 * Removes the oldest finished outputs (`*.output`) of `dir` until at most `room` bytes are
 * used (running calls' outputs count, and stay). Resolves to the paths removed, oldest first.
 */
export async function trimOutputFolder(dir: string, room: number): Promise<string[]> {
  const ledger = await ledgerOf(dir);
  await ledger.pending;
  let used = ledger.used;
  for (const path of live) {
    if (dirname(path) !== dir) continue;
    used += (await stat(path).catch(() => undefined))?.size ?? 0;
  }
  const removed: string[] = [];
  for (const [path, size] of [...ledger.sizes]) {
    if (used <= room) break;
    try {
      await unlink(path);
      removed.push(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") continue;
    }
    // Gone (removed here, or by someone else): no longer counted.
    ledger.sizes.delete(path);
    ledger.used -= size;
    used -= size;
  }
  return removed;
}
