// Whether a directory belongs to the same git repository as the session's cwd: git run there
// reads the same configuration (hooks, fsmonitor, pager…). A `.git` entry (a directory or a
// worktree/submodule file) between the directory and the repository's top starts another one.
import { existsSync, statSync } from "node:fs";
import { posix } from "node:path";

/** The nearest directory at or above `dir` holding a `.git` entry, or undefined. */
export function repositoryTop(dir: string): string | undefined {
  for (let d = dir; ; d = posix.dirname(d)) {
    if (existsSync(posix.join(d, ".git"))) return d;
    if (d === "/" || d === ".") return undefined;
  }
}

/** Every directory is an existing directory of the repository `cwd` is in (canonical paths). */
export function sameRepository(cwd: string, dirs: readonly string[]): boolean {
  const top = repositoryTop(cwd);
  if (top === undefined) return false;
  return dirs.every((d) => {
    try {
      if (!statSync(d).isDirectory()) return false;
    } catch {
      return false;
    }
    return repositoryTop(d) === top;
  });
}
