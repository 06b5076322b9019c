// The edge of the boundary: what exists on disk, by real path, turned into a BwrapPlan.
import { lstatSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, sep } from "node:path";
import type { BwrapPlan } from "./bwrap-args.js";
import { mayExist, protectedRelativePaths, topNames } from "./protected-paths.js";
import type { SandboxSettings } from "./settings.js";

export interface PlanDirs {
  projectDir: string;
  additionalDirectories: readonly string[];
  cwd: string;
  /** armature's own directory the shell reports its final cwd in: writable in every boundary. */
  reportDir: string;
  /** The user config dir and the trust store's folder: read-only wherever they are. */
  configDirs?: readonly string[];
  /** Literal paths deny rules keep from reads (`Read(./secrets/**)` → the secrets dir): masked. */
  deniedReads?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
}

// Every call plans again (the disk changes between calls), and most names asked about do not
// exist: each lookup answers "missing" without an exception, which costs more than the lstat.
function canonical(path: string): string | undefined {
  try {
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

type Kind = "dir" | "file" | "link" | "socket" | undefined;
function kindOf(path: string): Kind {
  try {
    const s = lstatSync(path, { throwIfNoEntry: false });
    if (s === undefined) return undefined;
    return s.isSymbolicLink() ? "link" : s.isDirectory() ? "dir" : s.isSocket() ? "socket" : "file";
  } catch {
    return undefined;
  }
}


function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

const PROTECTED = protectedRelativePaths();

/**
 * Credentials under the home, hidden in every boundary (a file reads empty, a folder is empty)
 * unless `sandbox.filesystem.allowRead` names them: keys, cloud and cluster logins, registry and
 * git tokens, the reference agent's login. With the config dir's session key (plan's configDirs).
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json", ".netrc", ".npmrc", ".yarnrc.yml",
  ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".git-credentials", ".config/git/credentials",
  ".config/gh", ".config/hub", ".password-store", ".vault-token", ".terraform.d/credentials.tfrc.json", ".claude/.credentials.json",
];
const VCS_DIRS = [".git", ".hg"];

/** Socket directories that exist here: the system's and the ones desktop sessions put in /tmp. */
function socketDirs(env: Readonly<Record<string, string | undefined>>): string[] {
  const out: string[] = [];
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  const candidates = ["/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/tmp/.font-unix", `/tmp/tmux-${uid}`];
  if (env.XDG_RUNTIME_DIR) candidates.push(env.XDG_RUNTIME_DIR);
  const agent = env.SSH_AUTH_SOCK;
  if (agent && agent.startsWith("/tmp/")) {
    const dir = agent.slice(0, agent.lastIndexOf("/"));
    if (dir !== "/tmp") candidates.push(dir);
  }
  for (const c of candidates) {
    // A symlink (/var/run → /run) is hidden through its target; mounting on it would follow it anyway.
    if (kindOf(c) === "dir" && !out.includes(c)) out.push(c);
  }
  return out;
}

/** The plan of one call: `boundary` from the decision, `network` from its approval. */
export function sandboxPlan(boundary: BwrapPlan["boundary"], network: boolean, settings: SandboxSettings, dirs: PlanDirs): BwrapPlan {
  const env = dirs.env ?? process.env;
  const writableWanted = boundary === "workspace-write" ? [dirs.projectDir, ...dirs.additionalDirectories, tmpdir(), ...settings.allowWrite] : [];
  const writable: string[] = [];
  for (const path of [...writableWanted, dirs.reportDir]) {
    const real = canonical(path);
    if (real !== undefined && real !== "/" && kindOf(real) === "dir" && !writable.includes(real)) writable.push(real);
  }
  const pinned: string[] = [];
  const readOnly: string[] = [];
  const addReadOnly = (path: string): void => {
    if (!readOnly.includes(path) && writable.some((w) => inside(path, w))) readOnly.push(path);
  };
  const reportReal = canonical(dirs.reportDir);
  for (const root of writable) {
    if (root === reportReal) continue;
    const names = topNames(root);
    for (const vcs of VCS_DIRS) if (mayExist(names, vcs) && kindOf(join(root, vcs)) === "dir") pinned.push(join(root, vcs));
    for (const rel of PROTECTED) {
      if (!mayExist(names, rel)) continue;
      const path = join(root, rel);
      const kind = kindOf(path);
      // A symlink's name cannot be pinned (the mount lands on its target); its target is judged where it is.
      if (kind === "dir" || kind === "file") addReadOnly(path);
    }
  }
  const home = env.HOME ?? homedir();
  const configDirs = dirs.configDirs ?? [env.ARMATURE_CONFIG_DIR, join(home, ".armature")].filter((d): d is string => d !== undefined && d !== "");
  for (const path of [...configDirs, join(home, ".claude"), ...settings.denyWrite]) {
    const real = canonical(path);
    if (real !== undefined) addReadOnly(real);
  }
  const masked: BwrapPlan["masked"] = [];
  const mask = (path: string): void => {
    const real = canonical(path);
    const kind = real === undefined ? undefined : kindOf(real);
    if (real === undefined || real === "/" || (kind !== "dir" && kind !== "file")) return;
    if (!masked.some((m) => m.path === real)) masked.push({ path: real, directory: kind === "dir" });
  };
  const readable = settings.allowRead.map((p) => canonical(p) ?? p);
  const credentials = [...CREDENTIAL_PATHS.map((rel) => join(home, rel)), ...configDirs.map((d) => join(d, "session-key"))];
  for (const path of credentials) {
    const real = canonical(path);
    if (real !== undefined && !readable.some((r) => inside(real, r))) mask(real);
  }
  for (const path of [...settings.denyRead, ...(dirs.deniedReads ?? [])]) mask(path);
  const sockets = settings.allowUnixSockets.filter((s) => kindOf(s) === "socket");
  const report = reportReal;
  return {
    boundary,
    writable,
    pinned: [...new Set(pinned)],
    readOnly,
    ...(report !== undefined && report !== "/" && kindOf(report) === "dir" ? { report } : {}),
    masked,
    hidden: socketDirs(env),
    sockets,
    network,
    cwd: canonical(dirs.cwd) ?? dirs.cwd,
  };
}
