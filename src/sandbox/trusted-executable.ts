// The programs armature itself starts (bwrap, ripgrep, git, the shell), found where neither the
// project nor the model can put one: the system's own directories, owned by root and writable by
// no one else, never a PATH entry in a project, a virtual environment or the home. An absolute path
// the user chose (a setting, ARMATURE_SHELL, ARMATURE_SANDBOX_BWRAP) is taken as given.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { realPathOrSelf } from "../fs/path-identity.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where a bare name is looked for, in PATH's order where PATH names them, else in this one. */
export const SYSTEM_BIN_DIRS: readonly string[] = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"];

/**
 * `name` as an absolute path, or undefined. A name with a slash must be absolute and is taken as
 * given (the user chose it); a bare name is looked up in the system directories only, each of
 * which (and every folder above it, by real path) must be owned by root and writable by its owner
 * alone, so that no user-writable folder can stand in for them. PATH decides only their order.
 */
export function trustedExecutable(name: string, env: Env = process.env): string | undefined {
  if (name.includes("/")) return isAbsolute(name) && executable(name) ? name : undefined;
  for (const dir of systemDirs(env)) {
    const candidate = join(dir, name);
    if (executable(candidate) && rootOwnedFile(candidate)) return candidate;
  }
  return undefined;
}

/** The system directories in PATH's order, then the rest of them; only the ones that hold. */
function systemDirs(env: Env): string[] {
  const fromPath = (env.PATH ?? "").split(delimiter).filter((d) => SYSTEM_BIN_DIRS.includes(d));
  return [...new Set([...fromPath, ...SYSTEM_BIN_DIRS])].filter(rootOwnedTree);
}

const treeCache = new Map<string, boolean>();

/** The folder and every folder above it (by real path) belong to root and only root may write them. */
function rootOwnedTree(dir: string): boolean {
  const cached = treeCache.get(dir);
  if (cached !== undefined) return cached;
  let ok = true;
  for (let d = realPathOrSelf(dir); ; d = dirname(d)) {
    if (!rootOwned(d)) {
      ok = false;
      break;
    }
    if (d === "/") break;
  }
  treeCache.set(dir, ok);
  return ok;
}

function rootOwned(path: string): boolean {
  try {
    const s = statSync(path);
    return s.uid === 0 && (s.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The file itself (through a link, its target) is root's and writable by root alone. */
function rootOwnedFile(path: string): boolean {
  return rootOwned(path) && rootOwnedTree(dirname(realPathOrSelf(path)));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
