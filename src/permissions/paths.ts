import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, posix, resolve as resolvePath } from "node:path";

/**
 * The two names a path goes by: the one written (made absolute and normalised lexically) and
 * the canonical one (every symlink resolved, a dangling one to where it points). Rules are checked on
 * both: a deny matches if either does, an allow needs both.
 */
export interface PathForms {
  lexical: string;
  canonical: string;
}

/** How paths are canonicalised; tests and the CLI use the real file system. */
export type Canonicalize = (absolutePath: string) => string;

/** Windows paths as POSIX (`C:\x` → `/c/x`), so rules written on one system read the same. */
export function toPosix(path: string): string {
  const drive = /^([A-Za-z]):[\\/]/.exec(path);
  let out = path.replace(/\\/g, "/");
  if (drive) out = `/${drive[1]!.toLowerCase()}${out.slice(2)}`;
  return out;
}

/** Expands a leading `~` or `~/` (as bash would for an unquoted word). */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return posix.join(home, path.slice(2));
  return path;
}

/** How many symlinks one name may pass through before it counts as a loop (Linux's MAXSYMLINKS). */
export const MAX_SYMLINK_DEPTH = 40;

/** The prefix of the canonical name of a path whose symlinks loop or nest too deep: never a real path. */
const UNRESOLVABLE = "/\0unresolvable-symlinks";

/** A canonical name the canonicaliser could not work out (a symlink loop): the target is unknown. */
export function isUnresolvable(canonical: string): boolean {
  return canonical.startsWith(UNRESOLVABLE);
}

/** Links followed so far by the canonicalisation in progress (it is synchronous, so one counter serves). */
let linksFollowed = 0;

/**
 * The real path, as the kernel would resolve it for a write that creates it. An existing path is
 * the OS's realpath. Otherwise the directory is canonicalised (by `parent`) and the last
 * component looked at with lstat: a symlink whose target does not exist yet (`src/hook ->
 * ../.git/hooks/pre-commit`) names its target, followed to its own canonical name (a relative
 * target read against the link's directory), so writing through it is judged where it lands.
 * Past MAX_SYMLINK_DEPTH links the name is unresolvable (`isUnresolvable`). The raw
 * (un-normalised) path is walked so that `link/..` means what the kernel means by it. `parent`
 * is a memo passing itself, so siblings share the work.
 */
export function realCanonicalize(absolutePath: string, parent: Canonicalize = realCanonicalize): string {
  // existsSync never throws (ENOTDIR, EACCES, ELOOP read as missing) and builds no Stats object.
  if (existsSync(absolutePath)) {
    try {
      return realpathSync.native(absolutePath);
    } catch {
      // raced away or unreadable: treat as missing
    }
  }
  const slash = absolutePath.lastIndexOf("/");
  if (slash < 0) return posix.resolve(absolutePath);
  const rest = absolutePath.slice(slash + 1);
  const dir = parent(absolutePath.slice(0, slash) || "/");
  if (rest === "" || rest === "." || rest === ".." || isUnresolvable(dir)) return posix.resolve(dir, rest === "" ? "." : rest);
  const joined = dir === "/" ? `/${rest}` : `${dir}/${rest}`;
  const target = danglingLinkTarget(joined);
  if (target === undefined) return joined;
  if (linksFollowed >= MAX_SYMLINK_DEPTH) return `${UNRESOLVABLE}${absolutePath}`;
  linksFollowed++;
  try {
    return parent(target.startsWith("/") ? target : `${dir}/${target}`);
  } finally {
    linksFollowed--;
  }
}

/** The link text of a symlink (one whose target is missing or loops), or undefined for anything else. */
function danglingLinkTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) return undefined;
    return toPosix(readlinkSync(path));
  } catch {
    return undefined;
  }
}

/** A memo so one decision canonicalises each path (and each parent directory) once. */
export function memoCanonicalize(inner: (p: string, parent: Canonicalize) => string): Canonicalize {
  const seen = new Map<string, string>();
  const memo: Canonicalize = (p) => {
    let out = seen.get(p);
    if (out === undefined) {
      out = inner(p, memo);
      seen.set(p, out);
    }
    return out;
  };
  return memo;
}

export function pathForms(path: string, cwd: string, home: string, canonicalize: Canonicalize): PathForms {
  const posixPath = toPosix(expandHome(path, home));
  const raw = isAbsolute(posixPath) ? posixPath : `${cwd.replace(/\/+$/, "")}/${posixPath}`;
  return { lexical: resolvePath(raw), canonical: canonicalize(raw) };
}

/** Inside with a segment boundary: `/proj-evil` is not inside `/proj`. */
export function isInside(path: string, dir: string): boolean {
  if (dir === "/") return path.startsWith("/");
  return path === dir || path.startsWith(`${dir}/`);
}

/** The working directories, each by both its names. */
export interface WorkingDirs {
  lexical: string[];
  canonical: string[];
}

export function workingDirs(cwd: string, additional: readonly string[], canonicalize: Canonicalize): WorkingDirs {
  const dirs = [cwd, ...additional.map((d) => resolvePath(cwd, toPosix(d)))];
  const lexical = dirs.map((d) => resolvePath(d));
  return { lexical, canonical: lexical.map((d) => canonicalize(d)) };
}

/** Inside the working dirs by its canonical name, and by its written name too. */
export function insideWorkingDirs(forms: PathForms, dirs: WorkingDirs): boolean {
  const canonicalInside = dirs.canonical.some((d) => isInside(forms.canonical, d));
  const lexicalInside = dirs.lexical.some((d) => isInside(forms.lexical, d)) || dirs.canonical.some((d) => isInside(forms.lexical, d));
  return canonicalInside && lexicalInside;
}

let homeCache: { env: string | undefined; home: string } | undefined;

/** The user's home (os.homedir asks the OS each time; it follows HOME, so that is the cache key). */
export function defaultHome(): string {
  const env = process.env.HOME;
  if (homeCache?.env !== env || homeCache === undefined) homeCache = { env, home: toPosix(homedir()) };
  return homeCache.home;
}
