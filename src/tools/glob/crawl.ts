import { lstatSync, statSync, type Stats } from "node:fs";
import { dirname, basename, isAbsolute, resolve } from "node:path";
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
  // Loaded on the first Glob call, not at import.
  const { fdir } = await import("fdir");
  const isMatch = picomatch(plan.glob, { dot: true });
  const cut = plan.root.endsWith("/") ? plan.root.length : plan.root.length + 1;
  // Full paths (cheaper in fdir than relative ones); the pattern sees the part below the root.
  let builder = new fdir()
    .withFullPaths()
    .withAbortSignal(signal)
    .exclude((dirName, dirPath) => isVcsDirectory(dirName) || (skip !== undefined && skip(dirPath.replace(/\/+$/, ""), "dir")))
    .filter((path, isDirectory) => !isDirectory && isMatch(path.slice(cut)));
  if (plan.maxDepth !== undefined) builder = builder.withMaxDepth(plan.maxDepth);
  const paths = await builder.crawl(plan.root).withPromise();
  signal.throwIfAborted();
  const stamped = await statAll(paths, signal, skip);
  stamped.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { matches: stamped.slice(0, limit), total: stamped.length };
}

/** Files stat'ed between yields to the event loop. */
const STAT_BATCH = 2_000;

/**
 * Modification times of the matches; symlinks to folders and vanished files drop out.
 * Synchronous stats in batches: several times faster than one promise per file (no thread
 * pool round trip), and the event loop still gets a turn between batches.
 */
async function statAll(paths: readonly string[], signal: AbortSignal, skip: CrawlSkip | undefined): Promise<GlobMatch[]> {
  const out: GlobMatch[] = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % STAT_BATCH === 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
    }
    const path = paths[i]!;
    const info = skip ? statUnlessSkipped(path, skip) : (statSync(path, { throwIfNoEntry: false }) ?? lstatSafe(path));
    if (info && !info.isDirectory()) out.push({ path, mtimeMs: info.mtimeMs });
  }
  return out;
}

/** A file's own stat first: a plain file is judged by its name, a symlink by its target as well. */
function statUnlessSkipped(path: string, skip: CrawlSkip): Stats | undefined {
  const own = lstatSafe(path);
  if (!own) return undefined;
  if (!own.isSymbolicLink()) return skip(path, "file") ? undefined : own;
  if (skip(path, "symlink")) return undefined;
  return statSync(path, { throwIfNoEntry: false }) ?? own;
}

function lstatSafe(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
