import { readdir } from "node:fs";
import { dirname, basename, isAbsolute, resolve } from "node:path";
import picomatch from "picomatch";
import { expandHome, isVcsDirectory } from "../search/paths.js";
import { selectOldest } from "./oldest.js";
import { createStamper, PathKind } from "./stat-pool.js";

/** Where a pattern is crawled from and what is matched below it. */
export interface GlobPlan {
  /** The folder the crawl starts in (absolute). Permissions are checked on it. */
  root: string;
  /** The pattern relative to `root`. */
  glob: string;
  /** How deep the crawl needs to go; undefined = no limit (the pattern has `**`). */
  maxDepth?: number;
}

/**
 * Splits a pattern into its static folder prefix and the glob below it, so that
 * `src/**\/*.ts` crawls only `src`, and `/etc/*.conf` or `../x/*.ts` crawl where they point
 * (and are permission-checked there, not in `path`).
 */
export function planGlob(pattern: string, searchDir: string): GlobPlan {
  const expanded = expandHome(pattern);
  // As the reference (ripgrep's --glob): a pattern without a slash names files at any depth.
  if (!expanded.includes("/")) {
    const scan = picomatch.scan(expanded);
    return { root: searchDir, glob: `**/${scan.isGlob ? expanded : escapeGlob(expanded)}` };
  }
  const scan = picomatch.scan(expanded);
  if (!scan.isGlob) {
    const literal = isAbsolute(scan.base) ? scan.base : resolve(searchDir, scan.base);
    return { root: dirname(literal), glob: escapeGlob(basename(literal)), maxDepth: 0 };
  }
  const root = scan.base === "" ? searchDir : isAbsolute(scan.base) ? resolve(scan.base) : resolve(searchDir, scan.base);
  const glob = scan.glob;
  const maxDepth = glob.includes("**") ? undefined : [...glob].filter((c) => c === "/").length;
  return maxDepth === undefined ? { root, glob } : { root, glob, maxDepth };
}

function escapeGlob(name: string): string {
  return name.replace(/[\\*?[\]{}()!+@]/g, "\\$&");
}

export interface GlobMatch {
  path: string;
  mtimeMs: number;
}

export interface GlobCrawlResult {
  /** The oldest `limit` matches, oldest first (ties by path). */
  matches: GlobMatch[];
  /** How many files matched in all. */
  total: number;
}

/**
 * Paths the crawl must not enter or list (Read deny rules): folders are asked before they are
 * entered (the crawl never enters symlinked ones), files when they are stat'ed (by then it is
 * known whether they are symlinks, without another system call).
 */
export type CrawlSkip = (path: string, kind: "file" | "dir" | "symlink") => boolean;

/**
 * Crawls `plan.root` (not following symlinked folders, skipping VCS folders, hidden files
 * included, .gitignore not applied) and returns the `limit` oldest matching files.
 */
export async function crawlGlob(plan: GlobPlan, limit: number, signal: AbortSignal, skip?: CrawlSkip): Promise<GlobCrawlResult> {
  const isMatch = compileMatcher(plan.glob);
  const base = plan.root.endsWith("/") ? plan.root : `${plan.root}/`;
  const stamper = createStamper();
  // Matches go to the stamper, which stats them while the crawl goes on.
  try {
    await walk(base, plan.maxDepth ?? Infinity, signal, {
      enter: (name, path) => !isVcsDirectory(name) && (skip === undefined || !skip(path, "dir")),
      file: (dir, name) => {
        if (isMatch(dir, name, base.length)) stamper.add(dir + name);
      },
    });
    signal.throwIfAborted();
  } catch (err) {
    stamper.cancel();
    throw err;
  }
  const { paths, kinds, mtimes } = await stamper.finish(signal);
  // Symlinks to folders and vanished files drop out; denied files too (a symlink is judged by its target as well).
  const keep = (i: number): boolean => {
    const kind = kinds[i];
    if (kind === PathKind.File) return skip === undefined || !skip(paths[i]!, "file");
    if (kind === PathKind.Symlink) return skip === undefined || !skip(paths[i]!, "symlink");
    return false;
  };
  const { indices, total } = selectOldest(paths, mtimes, keep, limit);
  return { matches: indices.map((i) => ({ path: paths[i]!, mtimeMs: mtimes[i]! })), total };
}

/**
 * Lists `base` (a folder path ending in `/`) and the folders below it, `depth` levels down,
 * without following symlinked folders: files and symlinks go to `file(dir, name)` (dir ends in
 * `/`), folders are entered when `enter(name, path)` allows. Folders that cannot be read are
 * skipped. Up to WALK_READS folders are read at once on libuv's thread pool (the rest wait here,
 * so that an abort drops them unread and other file work still gets threads); a file's path is
 * built only when it matches (the name is tested first). An abort rejects at once: the reads
 * under way are let finish, and their entries ignored.
 */
function walk(base: string, depth: number, signal: AbortSignal, visit: { enter(name: string, path: string): boolean; file(dir: string, name: string): void }): Promise<void> {
  return new Promise((resolve, reject) => {
    const waiting: Array<{ dir: string; left: number }> = [];
    let reading = 0;
    let settled = false;
    const settle = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      waiting.length = 0;
      signal.removeEventListener("abort", onAbort);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onAbort = (): void => settle(signal.reason ?? new Error("aborted"));
    const pump = (): void => {
      while (!settled && reading < WALK_READS && waiting.length > 0) {
        const { dir, left } = waiting.pop()!;
        reading++;
        readdir(dir, WITH_TYPES, (err, entries) => {
          reading--;
          if (settled) return;
          try {
            if (!err) {
              for (const entry of entries) {
                if (entry.isFile() || entry.isSymbolicLink()) {
                  visit.file(dir, entry.name);
                } else if (entry.isDirectory() && left > 0) {
                  const path = dir + entry.name;
                  if (visit.enter(entry.name, path)) waiting.push({ dir: `${path}/`, left: left - 1 });
                }
              }
            }
          } catch (e) {
            settle(e);
            return;
          }
          if (signal.aborted) return onAbort();
          pump();
          if (reading === 0 && waiting.length === 0) settle();
        });
      }
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    waiting.push({ dir: base, left: depth });
    pump();
  });
}

/** Folders read at once: twice libuv's default thread pool: it stays busy, and other file work waits behind few reads. */
const WALK_READS = 8;

const WITH_TYPES = { withFileTypes: true } as const;

/**
 * A test of a file (its folder, ending in `/`, and its name; the part below the root starts at
 * `cut`): what `picomatch(glob, { dot: true })` answers on the relative path, without the two
 * objects it allocates per call. `**\/<name glob>` (the most common pattern) tests the name
 * alone, before any path is built.
 */
export function compileMatcher(glob: string): (dir: string, name: string, cut: number) => boolean {
  const last = glob.startsWith("**/") ? glob.slice(3) : undefined;
  if (last && !last.includes("/") && !last.includes("**") && !last.startsWith("!")) {
    const re = picomatch.makeRe(last, { dot: true });
    // picomatch also takes the whole glob literally (a file named `(x).ts` in a folder named `**`).
    return (dir, name, cut) => re.test(name) || (dir.length + name.length - cut === glob.length && (dir + name).endsWith(glob));
  }
  const re = picomatch.makeRe(glob, { dot: true });
  // picomatch.test: the glob itself, taken literally, or its regex.
  return (dir, name, cut) => {
    const input = (dir + name).slice(cut);
    return input !== "" && (input === glob || re.test(input));
  };
}
