import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** Version-control folders that searches never enter. */
export const VCS_DIRECTORIES: readonly string[] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

const VCS_SET: ReadonlySet<string> = new Set(VCS_DIRECTORIES);

export function isVcsDirectory(name: string): boolean {
  return VCS_SET.has(name);
}

/** `~` and `~/x` to the home folder; everything else as given. */
export function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return path;
}

/**
 * The absolute path a `path` input names: `~` expanded, relative paths against the session cwd.
 * Models sometimes send the strings "undefined" or "null" for an omitted path; those mean the cwd.
 */
export function resolveSearchPath(path: string | undefined, cwd: string): string {
  if (path === undefined || path === "" || path === "undefined" || path === "null") return resolve(cwd);
  const expanded = expandHome(path);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** A path as the model is shown it: relative to the cwd when inside it, absolute otherwise. */
export function displayPath(absolute: string, cwd: string): string {
  if (absolute === cwd) return ".";
  const prefix = cwd.endsWith(sep) ? cwd : cwd + sep;
  if (absolute.startsWith(prefix)) return absolute.slice(prefix.length);
  const rel = relative(cwd, absolute);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : absolute;
}

/**
 * The order of a depth-first walk that sorts each folder's entries by name (ripgrep's
 * `--sort path`): compares segment by segment, so `a/b` sorts before `a.txt`.
 */
export function comparePathsDepthFirst(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  const n = Math.min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = as[i]!;
    const y = bs[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}
