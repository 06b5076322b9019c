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
  const isMatch = compileMatcher(plan.glob);
  const cut = plan.root.endsWith("/") ? plan.root.length : plan.root.length + 1;
  const stamper = createStamper();
  // Full paths (cheaper in fdir than relative ones); the pattern sees the part below the root.
  // Matches go to the stamper, which stats them while the crawl goes on (fdir keeps no list).
  let builder = new fdir()
    .withFullPaths()
    .withAbortSignal(signal)
    .exclude((dirName, dirPath) => isVcsDirectory(dirName) || (skip !== undefined && skip(dirPath.replace(/\/+$/, ""), "dir")))
    .filter((path, isDirectory) => {
      if (!isDirectory && isMatch(path, cut)) stamper.add(path);
      return false;
    });
  if (plan.maxDepth !== undefined) builder = builder.withMaxDepth(plan.maxDepth);
  try {
    await builder.crawl(plan.root).withPromise();
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
 * A test of a full path whose part below the root starts at `cut`: what `picomatch(glob, { dot: true })`
 * answers, without the two objects it allocates per call. `**\/<name glob>` (the most common
 * pattern) needs only the last segment: that test is shorter and cheaper.
 */
export function compileMatcher(glob: string): (path: string, cut: number) => boolean {
  const name = glob.startsWith("**/") ? glob.slice(3) : undefined;
  if (name && !name.includes("/") && !name.includes("**") && !name.startsWith("!")) {
    const re = picomatch.makeRe(name, { dot: true });
    // picomatch also takes the whole glob literally (a file named `**/(x).ts`); that needs no slice.
    return (path, cut) => re.test(path.slice(path.lastIndexOf("/") + 1)) || (path.length - cut === glob.length && path.endsWith(glob));
  }
  const re = picomatch.makeRe(glob, { dot: true });
  // picomatch.test: the glob itself, taken literally, or its regex.
  return (path, cut) => {
    const input = path.slice(cut);
    return input !== "" && (input === glob || re.test(input));
  };
}
