import { readdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { posix } from "node:path";
import type { ShellSubcommand } from "../tool/types.js";
import { commandFacts, type Deletes } from "../shell/command-facts.js";
import { globSegmentMatcher } from "../shell/glob-match.js";
import { expandHome, isInside, toPosix, type Canonicalize } from "./paths.js";
import { hasBrace, hasGlob, isDynamicWord } from "../shell/shared.js";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_SEQUENCES } from "../fs/protected-names.js";

/** Directories whose `*.pth` files Python runs (import lines) at start-up. */
const SITE_DIRS = new Set(["site-packages", "dist-packages"]);

const DIR_REASONS = new Map(PROTECTED_DIRS.map((d) => [d.name, d.reason]));
const FILE_REASONS = new Map(PROTECTED_FILES.map((f) => [f.name, f.reason]));

/**
 * Why a write to this path is protected, or null. Compared case-insensitively, segment by
 * segment, so `.GIT/hooks` and `sub/.Claude/x` are caught on case-insensitive file systems.
 * An absolute path is also looked at on disk: a directory acting as a git dir (see gitDirReason).
 */
export function protectedPathReason(path: string): string | null {
  return protectedNameReason(path) ?? (path.startsWith("/") ? (configDirReason(path) ?? gitDirReason(path)) : null);
}

let configDirs: { key: string; dirs: string[] } | undefined;

/**
 * The user's config dir (settings, trust store, session key and sessions), by its real path:
 * protection by the name `.armature` misses an ARMATURE_CONFIG_DIR of another name, which may
 * even lie inside a working directory. Read from the environment when asked (cached per value).
 */
export function configDirReason(absolutePath: string): string | null {
  const key = `${process.env.ARMATURE_CONFIG_DIR ?? ""}\0${process.env.HOME ?? ""}`;
  if (configDirs?.key !== key) {
    const named = [process.env.ARMATURE_CONFIG_DIR, posix.join(homedir(), ".armature")].filter((d): d is string => d !== undefined && d !== "");
    const dirs = new Set<string>();
    for (const d of named) {
      const abs = posix.resolve(toPosix(d));
      dirs.add(abs);
      try {
        dirs.add(toPosix(realpathSync.native(abs)));
      } catch {
        // not created yet: its name still counts
      }
    }
    configDirs = { key, dirs: [...dirs] };
  }
  const hit = configDirs.dirs.find((d) => d !== "/" && isInside(absolutePath, d));
  return hit === undefined ? null : `${hit} is armature's config dir (settings, trust store, session key): a protected directory`;
}

/** protectedPathReason by the names in the path alone, without looking at the disk. */
export function protectedNameReason(path: string): string | null {
  const segments = path.toLowerCase().split("/").filter(Boolean);
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    // Agents' worktrees are checkouts to work in (armature's and the reference's), not settings.
    if ((seg === ".claude" || seg === ".armature") && segments[i + 1] === "worktrees") continue;
    const dirReason = DIR_REASONS.get(seg);
    if (dirReason !== undefined) return `${seg}${i < segments.length - 1 ? "/" : ""} is a protected directory (${dirReason})`;
    for (const seq of PROTECTED_SEQUENCES) {
      if (seq.segments.every((s, k) => segments[i + k] === s)) return `${seq.segments.join("/")} is protected (${seq.reason})`;
    }
    if (SITE_DIRS.has(seg) && i < segments.length - 1 && segments[segments.length - 1]!.endsWith(".pth")) {
      return `a .pth file in ${seg} is protected (Python runs its import lines at start-up)`;
    }
  }
  const base = segments[segments.length - 1];
  const fileReason = base !== undefined ? FILE_REASONS.get(base) : undefined;
  if (base !== undefined && fileReason !== undefined) return `${base} is a protected file (${fileReason})`;
  return null;
}

/** What makes a directory a git dir: git treats one holding HEAD, objects/ and refs/ as a repository. */
const GIT_DIR_MARKERS = ["head", "objects", "refs", "config", "packed-refs", "commondir"];
/** Names inside a git dir through which git runs code or reads what to run. */
const GIT_DIR_ENTRIES = new Set(["head", "config", "objects", "refs", "hooks", "info", "packed-refs", "commondir", "gitdir", "worktrees"]);

/** The git-dir markers a directory holds, each of the kind git needs (`objects` a folder, `config` a file). */
function entriesOf(dir: string): Set<string> {
  const out = new Set<string>();
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const n = e.name.toLowerCase();
      const wantsDir = n === "objects" || n === "refs";
      if (GIT_DIR_MARKERS.includes(n) && (e.isSymbolicLink() || (wantsDir ? e.isDirectory() : e.isFile()))) out.add(n);
    }
  } catch {
    // not a directory (yet)
  }
  return out;
}

/**
 * A write that makes (or changes) a directory acting as a git dir, found where git looks for a
 * repository (a bare repository, a `GIT_DIR` target, a `.git` by another name): `config`,
 * `HEAD`, `objects/`, `refs/` or `hooks/` in a directory that already holds another git-dir
 * entry (`HEAD`, `objects`, `refs`, `config`…). Its `config` can name programs (core.fsmonitor,
 * core.pager) that any `git status` there runs.
 */
export function gitDirReason(absolutePath: string): string | null {
  const segments = absolutePath.split("/").filter(Boolean);
  // The entry written may be the file itself (`x/config`) or a directory above it (`x/hooks/pre-commit`).
  for (let i = segments.length - 1; i >= Math.max(0, segments.length - 4); i--) {
    const name = segments[i]!.toLowerCase();
    if (!GIT_DIR_ENTRIES.has(name)) continue;
    const dir = `/${segments.slice(0, i).join("/")}`;
    const present = entriesOf(dir);
    const others = GIT_DIR_MARKERS.filter((m) => m !== name && present.has(m));
    if (others.length > 0 && (present.has("head") || name === "head" || others.length >= 2)) {
      return `${dir} acts as a git directory (it holds ${others.join(", ")}): git runs what its config and hooks name`;
    }
  }
  return null;
}

/**
 * One command that writes several git-dir markers into the same directory (`mkdir -p d/objects
 * d/refs && echo … > d/HEAD`) makes a git dir there, even though none of them exists yet when it
 * is judged: the markers it writes count together with those already on disk.
 */
export function gitDirCreatedBy(absolutePaths: readonly string[]): string | null {
  const written = new Map<string, Set<string>>();
  for (const path of absolutePaths) {
    const segments = path.split("/").filter(Boolean);
    for (let i = segments.length - 1; i >= Math.max(0, segments.length - 4); i--) {
      const name = segments[i]!.toLowerCase();
      if (!GIT_DIR_MARKERS.includes(name)) continue;
      const dir = `/${segments.slice(0, i).join("/")}`;
      const names = written.get(dir) ?? new Set<string>();
      names.add(name);
      written.set(dir, names);
    }
  }
  for (const [dir, names] of written) {
    const all = new Set([...names, ...entriesOf(dir)]);
    if (all.size >= 2 && (all.has("head") || all.has("config"))) {
      return `${dir} would act as a git directory (the command writes ${[...names].join(", ")} there): git runs what its config and hooks name`;
    }
  }
  return null;
}

/** Whether a one-segment glob (`*.o`, `.gi?`) may expand to a protected directory or file name. */
export function globMayNameProtected(segment: string): boolean {
  const match = globSegmentMatcher(segment, { dot: true, nocase: true });
  return (
    PROTECTED_DIRS.some((d) => match(d.name)) ||
    PROTECTED_FILES.some((f) => match(f.name)) ||
    PROTECTED_SEQUENCES.some((s) => s.segments.some((seg) => match(seg))) ||
    match("worktrees") ||
    match("x.pth")
  );
}

/** Removers that unlink a symlink rather than follow it (shred writes through it). */
export const UNLINKERS = new Set(["rm", "rmdir", "unlink"]);

export interface CriticalContext {
  cwd: string;
  projectDir: string;
  home: string;
  additionalDirectories: readonly string[];
  /** Where a relative operand may land (the cwd and every static `cd` target); default: the cwd. */
  bases?: readonly string[];
  /** A `cd` went somewhere the text does not name: a relative operand may be anything. */
  cdUnknown?: boolean;
  /** Resolves symlinks (`outer -> ..` makes `outer/proj` the project); default: lexical only. */
  canonicalize?: Canonicalize;
}

/**
 * Whether a subcommand removes a critical path: `/`, a direct child of `/`, home, a working
 * dir or one of its parents (by the name written, after every `cd` it may follow, and by the
 * real path), a glob over a working dir's root or one that may match a critical path, or an
 * operand whose value is not known before it runs (`$PWD`, `` `pwd` ``, `{a,b}`). rm, rmdir,
 * unlink, shred, and the roots of `find … -delete`.
 */
export function criticalRemoval(sub: ShellSubcommand, ctx: CriticalContext): string | null {
  return criticalDeletion(commandFacts(sub).deletes, ctx);
}

/** criticalRemoval for what a command removes (its facts' `deletes`, or those of a command it may run). */
export function criticalDeletion(deletes: Deletes, ctx: CriticalContext): string | null {
  if (deletes.unknown !== null) return deletes.unknown;
  if (deletes.paths.length === 0) return null;
  const judge = criticalJudge(ctx);
  for (const d of deletes.paths) {
    const reason = judge(d.path, d.itself);
    if (reason) return `${d.shown}: ${reason}`;
  }
  return null;
}

function criticalJudge(ctx: CriticalContext): (arg: string, workingDirItself: boolean) => string | null {
  const canon = ctx.canonicalize ?? ((p: string) => p);
  const dirs = [ctx.cwd, ctx.projectDir, ...ctx.additionalDirectories].map((d) => posix.resolve(toPosix(d)));
  const working = [...new Set([...dirs, ...dirs.map(canon)])];
  const homes = [...new Set([posix.resolve(ctx.home), canon(posix.resolve(ctx.home))])];
  const bases = ctx.bases && ctx.bases.length > 0 ? ctx.bases : [ctx.cwd];

  /** Why removing this absolute path is critical, or null. */
  const criticalPath = (p: string, workingDirItself: boolean): string | null => {
    if (p === "/") return "that is the filesystem root";
    if (posix.dirname(p) === "/") return "that is a top-level system directory";
    if (homes.includes(p)) return "that is the home directory";
    for (const d of working) {
      if (isInside(d, p) && (workingDirItself || d !== p)) return `that is ${d} or one of its parents`;
    }
    return null;
  };
  /** The critical paths a glob's last segment may match among the children of `dir`. */
  const globHits = (dir: string, last: string): string | null => {
    if (/^\*+$/.test(last)) {
      // `X/*` removes all of X: as critical as X itself (a working dir's root included).
      const whole = criticalPath(dir, true);
      if (whole) return `a glob over ${dir}, which is critical: ${whole}`;
    }
    if (dir === "/") return "a glob over a top-level directory";
    const match = globSegmentMatcher(last, { dot: true });
    for (const c of [...working, ...homes]) {
      if (!isInside(c, dir) || c === dir) continue;
      const child = c.slice(dir === "/" ? 1 : dir.length + 1).split("/")[0]!;
      if (match(child)) return `the glob may match ${posix.join(dir, child)}, which is critical`;
    }
    return null;
  };

  return (arg, workingDirItself) => {
    if (/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?["']?\/(\*|$)/.test(arg) || (/^["']?\$/.test(arg) && /\/\*?$/.test(arg))) {
      return "a variable followed by a slash or glob removes from / when the variable is empty";
    }
    if (/^~[^/]*$/.test(arg) || arg === "~/" || /^\$\{?HOME\}?\/?\*?$/.test(arg)) return "that is the home directory";
    if (isDynamicWord(arg) || hasBrace(arg)) return "its value is not known before the command runs, and it may name a critical path";
    const word = toPosix(expandHome(arg, ctx.home));
    if (ctx.cdUnknown && !word.startsWith("/")) return "it is relative to a directory not known before the command runs";
    const glob = hasGlob(word);
    for (const base of bases) {
      const raw = word.startsWith("/") ? word : `${base.replace(/\/+$/, "")}/${word}`;
      if (!glob) {
        for (const p of new Set([posix.resolve(raw), canon(raw)])) {
          const reason = criticalPath(p, workingDirItself);
          if (reason) return reason;
        }
        continue;
      }
      const abs = posix.resolve(raw);
      const slash = abs.lastIndexOf("/");
      const dir = abs.slice(0, slash) || "/";
      // A wildcard before the last segment may pass through a symlink (`*/..`, `l*/proj`).
      if (hasGlob(dir)) return "a glob before the last path segment may reach a critical path";
      const last = abs.slice(slash + 1);
      for (const d of new Set([dir, canon(dir)])) {
        const reason = globHits(d, last);
        if (reason) return reason;
      }
    }
    return null;
  };
}
