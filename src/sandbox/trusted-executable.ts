// The program armature itself starts, found where the project cannot put one: only absolute PATH
// entries, none inside a working directory, so a repository's `node_modules/.bin/rg` or a `.`
// entry never stands in for ripgrep, git or bwrap.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, sep } from "node:path";
import { realPathOrSelf } from "../fs/path-identity.js";

type Env = Readonly<Record<string, string | undefined>>;


function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * `name` as an absolute path, or undefined. A name with a slash must be absolute and is taken as
 * given (a setting chose it); a bare name is looked up in the PATH entries that are absolute and
 * outside every directory of `untrustedDirs` (by real path, so a symlink into the project counts
 * as the project).
 */
export function trustedExecutable(name: string, env: Env = process.env, untrustedDirs: readonly string[] = []): string | undefined {
  if (name.includes("/")) return isAbsolute(name) && executable(name) ? name : undefined;
  const avoid = untrustedDirs.map(realPathOrSelf);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const real = realPathOrSelf(dir);
    if (avoid.some((d) => inside(real, d) || inside(dir, d))) continue;
    const candidate = join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
