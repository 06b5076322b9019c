// Whether a directory belongs to the same git repository as the session's cwd: git run there
// reads the same configuration (hooks, fsmonitor, pager…). A `.git` entry (a directory or a
// worktree/submodule file) between the directory and the repository's top starts another one.
import { existsSync, readFileSync, statSync } from "node:fs";
import { posix } from "node:path";
import { analysisArgv } from "./index.js";

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

/** The git directory of the repository whose top is `top`: `.git`, or where a `.git` file points. */
export function gitDirOf(top: string): string | undefined {
  const dotGit = posix.join(top, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const link = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    return link === undefined ? undefined : posix.resolve(top, link);
  } catch {
    return undefined;
  }
}

/**
 * `git --git-dir=X` / `--work-tree=Y` (after any `-C`) name the repository `cwd` is in: X is
 * exactly its git directory and Y a directory of it (canonical paths, checked now). Each base
 * is a directory the shell may be in when git runs. Any other value, or one not static, is
 * another repository, whose configuration can run programs.
 */
export function gitOptionsStayInRepository(
  argv: readonly string[],
  cwd: string,
  bases: readonly string[],
  canonicalize: (path: string) => string,
): boolean {
  // The parsers load with the analysis (a call with shell facts has loaded it), not with this module.
  const { gitGlobalOptions, literalWord } = analysisArgv();
  const options = gitGlobalOptions(argv.map(literalWord)).map((o) => ({ name: o.name, value: o.value?.text }));
  const top = repositoryTop(canonicalize(cwd));
  const gitDir = top === undefined ? undefined : gitDirOf(top);
  if (top === undefined || gitDir === undefined) return false;
  const canonicalGitDir = canonicalize(gitDir);
  return bases.every((base) => {
    let dir = base;
    for (const o of options) if (o.name === "-C" && o.value) dir = posix.resolve(dir, o.value);
    return options.every((o) => {
      if (o.name !== "--git-dir" && o.name !== "--work-tree") return true;
      if (o.value === undefined || o.value === "" || /[$`*?[{~]/.test(o.value)) return false;
      const target = canonicalize(posix.resolve(dir, o.value));
      return o.name === "--git-dir" ? target === canonicalGitDir : sameRepository(canonicalize(cwd), [target]);
    });
  });
}
