import { posix } from "node:path";
import type { ShellSubcommand } from "../tool/types.js";
import { effectiveArgv } from "./bash-rules.js";
import picomatch from "picomatch";
import { expandHome, hasBrace, hasGlob, isDynamicWord, isInside, toPosix, type Canonicalize } from "./paths.js";

/** Directories whose contents configure tools that run code: writes there always need a human. */
const PROTECTED_DIRS = [
  ".git",
  ".armature",
  ".claude",
  ".vscode",
  ".idea",
  ".husky",
  ".cargo",
  ".devcontainer",
  ".yarn",
  ".mvn",
];

const PROTECTED_FILES = new Set([
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_aliases",
  ".bash_logout",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".profile",
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnp.cjs",
  ".pnp.loader.mjs",
  ".pnpmfile.cjs",
  "bunfig.toml",
  ".bunfig.toml",
  ".bazelrc",
  ".bazelversion",
  ".bazeliskrc",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
  ".lefthook.yaml",
  "gradle-wrapper.properties",
  "maven-wrapper.properties",
  ".devcontainer.json",
  ".ripgreprc",
  "pyrightconfig.json",
  ".mcp.json",
  ".claude.json",
]);

/**
 * Why a write to this path is protected, or null. Compared case-insensitively, segment by
 * segment, so `.GIT/hooks` and `sub/.Claude/x` are caught on case-insensitive file systems.
 */
export function protectedPathReason(path: string): string | null {
  const segments = path.toLowerCase().split("/").filter(Boolean);
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg === ".claude" && segments[i + 1] === "worktrees") continue;
    if (PROTECTED_DIRS.includes(seg) && i < segments.length - 1) return `${seg}/ is a protected directory`;
    if (PROTECTED_DIRS.includes(seg)) return `${seg} is a protected directory`;
    if (seg === ".config" && segments[i + 1] === "git") return ".config/git is protected";
  }
  const base = segments[segments.length - 1];
  if (base !== undefined && PROTECTED_FILES.has(base)) return `${base} is a protected file`;
  return null;
}

/** Whether a one-segment glob (`*.o`, `.gi?`) may expand to a protected directory or file name. */
export function globMayNameProtected(segment: string): boolean {
  const match = picomatch(segment, { dot: true, nocase: true });
  return PROTECTED_DIRS.some((d) => match(d)) || [...PROTECTED_FILES].some((f) => match(f)) || match("worktrees") || match("git");
}

const RM_COMMANDS = new Set(["rm", "rmdir", "unlink", "shred"]);
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
  const argv = effectiveArgv(sub);
  const name = posix.basename(argv[0] ?? "");
  const judge = criticalJudge(ctx);
  if (name === "find") {
    if (!argv.some((a) => a === "-delete")) return null;
    if (argv.includes("-files0-from")) return "find -files0-from … -delete: its starting points are not on the command line";
    let i = 1;
    while (i < argv.length && /^-([HLP]|D|O\d*)$/.test(argv[i]!)) i += argv[i] === "-D" ? 2 : 1;
    const roots: string[] = [];
    for (; i < argv.length && !argv[i]!.startsWith("-") && argv[i] !== "(" && argv[i] !== "!"; i++) roots.push(argv[i]!);
    // `find . -name x -delete` removes below the working dir, never the dir itself.
    for (const root of roots.length > 0 ? roots : ["."]) {
      const reason = judge(root, false);
      if (reason) return `find ${root} -delete: ${reason}`;
    }
    return null;
  }
  if (!RM_COMMANDS.has(name)) return null;
  let flagsDone = false;
  for (const arg of argv.slice(1)) {
    if (!flagsDone && arg === "--") {
      flagsDone = true;
      continue;
    }
    if (!flagsDone && arg.startsWith("-") && arg !== "-") continue;
    const reason = judge(arg, true);
    if (reason) return `${name} ${arg}: ${reason}`;
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
    const match = picomatch(last, { dot: true });
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
