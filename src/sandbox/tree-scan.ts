// What the boundary must hold in the working directories, found at any depth by one walk that never
// follows a link: protected names (a nested repository's .git, a sub-folder's .claude/, .envrc,
// site-packages/*.pth…) and the paths the caller's read rules hide. The walk is cached per folder
// and checked by the folder's own change time, so a call on a tree that did not change costs one
// lstat per folder. Before a writable call it says what to mount read-only; after it, what the call
// created there (removed by remove-created.ts).
import { lstatSync, readdirSync, readFileSync, type Dirent } from "node:fs";
import { join, resolve, sep } from "node:path";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_SEQUENCES } from "../fs/protected-names.js";

/** Inside a git directory, what names or holds programs (the rest, objects and refs, stays writable). */
export const GIT_INTERNALS: readonly string[] = ["hooks", "config", "config.worktree", "commondir", "modules", "worktrees", "info"];
const VCS_INTERNALS: Readonly<Record<string, readonly string[]>> = { ".git": GIT_INTERNALS, ".hg": ["hgrc"], ".svn": [] };

const DIR_NAMES = new Set(PROTECTED_DIRS.map((d) => d.name.toLowerCase()));
const FILE_NAMES = new Set(PROTECTED_FILES.map((f) => f.name.toLowerCase()));
const SEQUENCES = PROTECTED_SEQUENCES.map((s) => s.segments);
const PACKAGE_DIRS = new Set(["site-packages", "dist-packages"]);
/** Folders not walked: a package tree is large and nothing there runs on the user's behalf by its name. */
const NOT_WALKED = new Set(["node_modules"]);

/** How many entries one scan reads at the most before it says it is incomplete. */
export const SCAN_ENTRY_LIMIT = 200_000;

export interface ScanOptions {
  /**
   * What the caller's rules make of a path (file or folder): hidden (a read rule), protected (an
   * edit rule). A pure function of the absolute path.
   */
  mark?: (path: string, directory: boolean) => "hide" | "protect" | undefined;
  /** What `mark` depends on (the rules): its answers are cached per folder under this key. */
  markKey?: string;
  /** Absolute paths protected besides the names (the home's credentials when the home is a working directory). */
  extraProtected?: readonly string[];
  entryLimit?: number;
}

export interface TreeScan {
  /** Protected paths that exist (files or folders, never a link's name): mounted read-only. */
  protected: string[];
  /** Version-control folders (.git, .hg) at any depth: pinned, their program parts protected. */
  vcsDirs: string[];
  /** Existing paths the read rules hide. */
  hidden: Array<{ path: string; directory: boolean }>;
  /** The folders the walk read: after a call, an empty folder not among them was the call's. */
  folders: Set<string>;
  /** False when the limit stopped the walk: what it did not reach is not known. */
  complete: boolean;
  entries: number;
}

interface DirEntry {
  mtimeMs: number;
  ino: number;
  names: Array<{ name: string; dir: boolean; link: boolean }>;
  marked?: { key: string; hide: Array<{ path: string; directory: boolean }>; protect: string[] };
  derived?: { protected: string[]; vcs: string[]; subdirs: string[] };
}

const cache = new Map<string, DirEntry>();
const CACHE_LIMIT = 100_000;

function listing(dir: string): DirEntry | undefined {
  let st;
  try {
    st = lstatSync(dir, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (st === undefined || !st.isDirectory()) {
    cache.delete(dir);
    return undefined;
  }
  const hit = cache.get(dir);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.ino === st.ino) return hit;
  let dirents: Dirent[];
  try {
    dirents = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const entry: DirEntry = { mtimeMs: st.mtimeMs, ino: st.ino, names: dirents.map((d) => ({ name: d.name, dir: d.isDirectory(), link: d.isSymbolicLink() })) };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(dir, entry);
  return entry;
}

function exists(path: string): "dir" | "file" | "link" | undefined {
  try {
    const s = lstatSync(path, { throwIfNoEntry: false });
    if (s === undefined) return undefined;
    return s.isSymbolicLink() ? "link" : s.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

/** The folder a repository's `core.hooksPath` names, read from its config without running git. */
function hooksPathOf(gitDir: string, worktree: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(gitDir, "config"), "utf8");
  } catch {
    return undefined;
  }
  let section = "";
  let found: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const head = /^\[\s*([^\]\s"]+)/.exec(line);
    if (head) section = head[1]!.toLowerCase();
    const kv = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (section === "core" && kv) found = kv[1]!.replace(/^"(.*)"$/, "$1").trim();
  }
  if (found === undefined || found === "") return undefined;
  return resolve(worktree, found.startsWith("~/") ? join(process.env.HOME ?? "/", found.slice(2)) : found);
}

/** Whether `lower` in the folder `dir` ends one of the protected sequences (`.github/workflows`). */
function endsSequence(dirSegments: readonly string[], lower: string): boolean {
  return SEQUENCES.some((seq) => seq[seq.length - 1] === lower && seq.length - 1 <= dirSegments.length && seq.slice(0, -1).every((s, i) => dirSegments[dirSegments.length - seq.length + 1 + i] === s));
}

/** What a folder's names say, computed once per listing: protected names, repositories, folders to enter. */
function derive(dir: string, entry: DirEntry): NonNullable<DirEntry["derived"]> {
  const segments = dir.toLowerCase().split(sep);
  const inPackages = PACKAGE_DIRS.has(segments[segments.length - 1] ?? "");
  const derived: NonNullable<DirEntry["derived"]> = { protected: [], vcs: [], subdirs: [] };
  for (const n of entry.names) {
    const path = join(dir, n.name);
    const lower = n.name.toLowerCase();
    if (VCS_INTERNALS[lower] !== undefined && n.dir && !n.link) derived.vcs.push(path);
    else if (DIR_NAMES.has(lower) || FILE_NAMES.has(lower) || endsSequence(segments, lower) || (inPackages && lower.endsWith(".pth"))) derived.protected.push(path);
    else if (n.dir && !n.link && !inPackages && !NOT_WALKED.has(lower)) derived.subdirs.push(path);
  }
  return derived;
}

/**
 * Walks `roots` (canonical folders) for protected names and hidden paths. Links are listed, never
 * followed: a link's own name is protected where it stands (its target is judged where it lies).
 */
export function scanTree(roots: readonly string[], options: ScanOptions = {}): TreeScan {
  const out: TreeScan = { protected: [], vcsDirs: [], hidden: [], folders: new Set(), complete: true, entries: 0 };
  const limit = options.entryLimit ?? SCAN_ENTRY_LIMIT;
  const seen = new Set<string>();
  const protect = (path: string): void => {
    if (!seen.has(path)) {
      seen.add(path);
      out.protected.push(path);
    }
  };
  const markKey = options.markKey ?? "";
  const hiddenDirs = new Set<string>();
  for (const root of roots) {
    const stack: string[] = [root];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const entry = listing(dir);
      if (entry === undefined) continue;
      out.folders.add(dir);
      out.entries += entry.names.length;
      if (out.entries > limit) {
        out.complete = false;
        break;
      }
      if (options.mark) {
        if (entry.marked?.key !== markKey) {
          const marked: NonNullable<DirEntry["marked"]> = { key: markKey, hide: [], protect: [] };
          for (const n of entry.names) {
            const path = join(dir, n.name);
            // A link is hidden through its target (the mask lands there); a protected one is removed if new.
            const what = options.mark(path, n.dir);
            if (what === "hide") marked.hide.push({ path, directory: n.dir });
            else if (what === "protect") marked.protect.push(path);
          }
          entry.marked = marked;
        }
        for (const h of entry.marked.hide) {
          out.hidden.push(h);
          if (h.directory) hiddenDirs.add(h.path);
        }
        for (const p of entry.marked.protect) protect(p);
      }
      const derived = (entry.derived ??= derive(dir, entry));
      for (const path of derived.protected) protect(path);
      for (const path of derived.vcs) {
        out.vcsDirs.push(path);
        const name = path.slice(path.lastIndexOf(sep) + 1).toLowerCase();
        // What lies inside a repository folder changes without its parent's listing changing: looked at every time.
        for (const part of VCS_INTERNALS[name] ?? []) {
          const kind = exists(join(path, part));
          if (kind === "dir" || kind === "file") protect(join(path, part));
        }
        if (name === ".git") {
          const hooks = hooksPathOf(path, dir);
          const kind = hooks === undefined ? undefined : exists(hooks);
          if (hooks !== undefined && (kind === "dir" || kind === "file")) protect(hooks);
        }
      }
      for (const sub of derived.subdirs) if (!hiddenDirs.has(sub)) stack.push(sub);
    }
    if (!out.complete) break;
  }
  for (const path of options.extraProtected ?? []) {
    const kind = exists(path);
    if (kind === "dir" || kind === "file") protect(path);
  }
  return out;
}

/** Forget the cached listings (tests). */
export function resetTreeScanCache(): void {
  cache.clear();
}
