import { posix } from "node:path";
import type { ShellSubcommand } from "../tool/types.js";
import { effectiveArgv } from "./bash-rules.js";
import { expandHome, hasGlob, isDynamicWord, isInside, toPosix } from "./paths.js";

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

const RM_COMMANDS = new Set(["rm", "rmdir", "unlink", "shred"]);

export interface CriticalContext {
  cwd: string;
  projectDir: string;
  home: string;
  additionalDirectories: readonly string[];
}

/**
 * Whether a subcommand removes a critical path: `/`, a direct child of `/`, home, the working
 * dir or one of its parents, a glob under a working dir's root, or a glob or trailing slash
 * right after a variable (`rm -rf "$DIR"/*`, where an empty variable means `/`).
 */
export function criticalRemoval(sub: ShellSubcommand, ctx: CriticalContext): string | null {
  const argv = effectiveArgv(sub);
  const name = posix.basename(argv[0] ?? "");
  if (!RM_COMMANDS.has(name)) return null;
  let flagsDone = false;
  for (const arg of argv.slice(1)) {
    if (!flagsDone && arg === "--") {
      flagsDone = true;
      continue;
    }
    if (!flagsDone && arg.startsWith("-") && arg !== "-") continue;
    const reason = criticalTarget(arg, ctx);
    if (reason) return `${name} ${arg}: ${reason}`;
  }
  return null;
}

function criticalTarget(arg: string, ctx: CriticalContext): string | null {
  if (/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?["']?\/(\*|$)/.test(arg) || /^["']?\$/.test(arg) && /\/\*?$/.test(arg)) {
    return "a variable followed by a slash or glob removes from / when the variable is empty";
  }
  if (/^~[^/]*$/.test(arg) || arg === "~/" || /^\$\{?HOME\}?\/?\*?$/.test(arg)) return "that is the home directory";
  if (isDynamicWord(arg)) return null; // not static: such commands are never auto-approved anyway
  const abs = posix.resolve(ctx.cwd, toPosix(expandHome(arg, ctx.home)));
  const stripped = abs.replace(/\/\*+$/, "") || "/";
  if (abs === "/" || stripped === "/") return "that is the filesystem root";
  if (posix.dirname(abs) === "/" && !hasGlob(abs)) return "that is a top-level system directory";
  if (posix.dirname(stripped) === "/" && hasGlob(arg)) return "a glob over a top-level directory";
  if (stripped === ctx.home) return "that is the home directory";
  for (const dir of [ctx.cwd, ctx.projectDir, ...ctx.additionalDirectories]) {
    if (isInside(dir, stripped)) return `that is ${dir} or one of its parents`;
  }
  return null;
}
