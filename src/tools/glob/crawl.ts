import { lstat, stat } from "node:fs/promises";
import { dirname, basename, isAbsolute, join, resolve } from "node:path";
import { fdir } from "fdir";
import picomatch from "picomatch";
import { expandHome, isVcsDirectory } from "../search/paths.js";

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
  const scan = picomatch.scan(expandHome(pattern));
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
 * Crawls `plan.root` (not following symlinked folders, skipping VCS folders, hidden files
 * included, .gitignore not applied) and returns the `limit` oldest matching files.
 */
export async function crawlGlob(plan: GlobPlan, limit: number, signal: AbortSignal): Promise<GlobCrawlResult> {
  const isMatch = picomatch(plan.glob, { dot: true });
  let builder = new fdir()
    .withRelativePaths()
    .withAbortSignal(signal)
    .exclude((dirName) => isVcsDirectory(dirName))
    .filter((path, isDirectory) => !isDirectory && isMatch(path));
  if (plan.maxDepth !== undefined) builder = builder.withMaxDepth(plan.maxDepth);
  const relative = await builder.crawl(plan.root).withPromise();
  signal.throwIfAborted();
  const stamped = await statAll(plan.root, relative, signal);
  stamped.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { matches: stamped.slice(0, limit), total: stamped.length };
}

const STAT_CONCURRENCY = 64;

/** Modification times of the matches; symlinks to folders and vanished files drop out. */
async function statAll(root: string, relative: readonly string[], signal: AbortSignal): Promise<GlobMatch[]> {
  const out: GlobMatch[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < relative.length) {
      if (signal.aborted) return;
      const path = join(root, relative[next++]!);
      const info = await stat(path).catch(() => lstat(path).catch(() => undefined));
      if (info && !info.isDirectory()) out.push({ path, mtimeMs: info.mtimeMs });
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, relative.length) }, worker));
  signal.throwIfAborted();
  return out;
}
