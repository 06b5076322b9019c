// The edge of the boundary: what exists on disk, by real path, turned into a BwrapPlan.
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import type { BwrapPlan } from "./bwrap-args.js";
import type { TreeScan } from "./tree-scan.js";
import { unixSocketFilter } from "./seccomp.js";
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
  /**
   * The session's own temp folder, seen at `/tmp` and `$TMPDIR` in place of the host's (absent:
   * the host's are seen read-only, as for armature's own programs).
   */
  tmp?: string;
  /** Host paths the call must see even where they lie in the host's temp folder (the shell, node). */
  needed?: readonly string[];
  /** Apply the filter that refuses Unix sockets (seccomp.ts; the caller gives bwrap its fd). */
  seccomp?: boolean;
  /** Linked worktrees among the working directories (linkedWorktree): their main git folder is writable too. */
  linkedWorktrees?: ReadonlyArray<{ gitDir: string; common: string }>;
  /**
   * What the walk of the working directories found (tree-scan.ts): protected paths at any depth,
   * read-only; version-control folders, pinned; paths the read rules hide, masked.
   */
  scan?: Pick<TreeScan, "protected" | "vcsDirs" | "hidden">;
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

/**
 * Credentials under the home, hidden in every boundary (a file reads empty, a folder is empty)
 * unless `sandbox.filesystem.allowRead` names them: keys, cloud and cluster logins, registry and
 * git tokens, the reference agent's login. With the config dir's session key (plan's configDirs).
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json", ".netrc", ".npmrc", ".yarnrc.yml",
  ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".git-credentials", ".config/git/credentials",
  ".config/gh", ".config/hub", ".password-store", ".vault-token", ".terraform.d/credentials.tfrc.json", ".claude/.credentials.json",
  ".pgpass", ".my.cnf", ".boto", ".s3cfg", ".config/containers/auth.json", ".local/share/keyrings",
];

/**
 * Under a home that is a working directory (or inside one), what no call may create or change
 * besides the protected names: the credentials above, and what runs at log-in or desktop start.
 */
export function homeProtectedPaths(home: string, roots: readonly string[]): string[] {
  if (!roots.some((r) => inside(home, r))) return [];
  return [...CREDENTIAL_PATHS, ".config/autostart", ".config/systemd", ".config/environment.d", ".pam_environment", ".xprofile", ".xsessionrc"].map((rel) => join(home, rel));
}

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

/** The parts of a main repository's git folder that name or hold programs, for its linked worktrees. */
const COMMON_PROGRAM_PARTS = ["hooks", "config", "info", "modules", "commondir"];

/** The program parts of a linked worktree's git folders, existing or not (what a call must not create there either). */
export function linkedWorktreeProgramParts(linked: { gitDir: string; common: string }): string[] {
  return [...COMMON_PROGRAM_PARTS.map((p) => join(linked.common, p)), join(linked.gitDir, "config.worktree")];
}

/**
 * The git folders of a linked worktree at `root`, when git made it: `root/.git` is a file naming a
 * folder whose `commondir` leads to the main repository's, and which names this `.git` file back.
 * A `.git` file a project ships that points anywhere else grants nothing.
 */
export function linkedWorktree(root: string): { gitDir: string; common: string } | undefined {
  const dotGit = join(root, ".git");
  if (kindOf(dotGit) !== "file") return undefined;
  try {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
    if (named === undefined) return undefined;
    const gitDir = canonical(resolve(root, named));
    if (gitDir === undefined || kindOf(gitDir) !== "dir") return undefined;
    const common = canonical(resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim()));
    const back = canonical(readFileSync(join(gitDir, "gitdir"), "utf8").trim());
    if (common === undefined || back !== canonical(dotGit) || dirname(gitDir) !== join(common, "worktrees")) return undefined;
    return { gitDir, common };
  } catch {
    return undefined;
  }
}

/**
 * The session's temp folder at `/tmp` and at the host's temp dir when that is elsewhere, with the
 * paths of `wanted` that lie inside them bound back (a project or a home under /tmp stays seen).
 */
function privateTmp(source: string, wanted: readonly string[]): NonNullable<BwrapPlan["tmp"]> {
  const at = ["/tmp"];
  const host = canonical(tmpdir());
  if (host !== undefined && host !== "/" && !at.some((a) => inside(host, a) || inside(a, host))) at.push(host);
  const visible: string[] = [];
  for (const path of wanted) {
    const real = canonical(path);
    if (real === undefined || !at.some((a) => real !== a && inside(real, a)) || inside(real, source) || visible.includes(real)) continue;
    visible.push(real);
  }
  return { source, at, visible };
}

/** The plan of one call: `boundary` from the decision, `network` from its approval. */
export function sandboxPlan(boundary: BwrapPlan["boundary"], network: boolean, settings: SandboxSettings, dirs: PlanDirs): BwrapPlan {
  const env = dirs.env ?? process.env;
  const tmpSource = dirs.tmp === undefined ? undefined : canonical(dirs.tmp);
  const writableWanted = boundary === "workspace-write" ? [dirs.projectDir, ...dirs.additionalDirectories, ...(tmpSource === undefined ? [tmpdir()] : []), ...settings.allowWrite] : [];
  const writable: string[] = [];
  for (const path of [...writableWanted, dirs.reportDir]) {
    const real = canonical(path);
    if (real !== undefined && real !== "/" && kindOf(real) === "dir" && !writable.includes(real)) writable.push(real);
  }
  const pinned: string[] = [];
  const readOnly: string[] = [];
  const readOnlySet = new Set<string>();
  const addReadOnly = (path: string): void => {
    if (!readOnlySet.has(path) && writable.some((w) => inside(path, w))) {
      readOnlySet.add(path);
      readOnly.push(path);
    }
  };
  if (boundary === "workspace-write") {
    // A linked worktree (git worktree add) commits into its main repository's git folder: that
    // folder is writable too, its program parts not.
    for (const linked of dirs.linkedWorktrees ?? []) {
      if (writable.some((w) => inside(linked.common, w))) continue;
      writable.push(linked.common);
      pinned.push(linked.common);
      for (const part of linkedWorktreeProgramParts(linked)) {
        const kind = kindOf(part);
        if (kind === "dir" || kind === "file") addReadOnly(part);
      }
    }
  }
  const reportReal = canonical(dirs.reportDir);
  const scan = dirs.scan;
  if (scan) {
    // A mount point cannot be renamed or removed: pinned first, their program parts read-only over them.
    for (const vcs of scan.vcsDirs) if (writable.some((w) => inside(vcs, w))) pinned.push(vcs);
    // A symlink's name cannot be mounted on (the mount lands on its target); its target is judged where it is.
    for (const path of scan.protected) {
      const kind = kindOf(path);
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
  const maskedSet = new Set<string>();
  const mask = (path: string): void => {
    const real = canonical(path);
    const kind = real === undefined ? undefined : kindOf(real);
    if (real === undefined || real === "/" || (kind !== "dir" && kind !== "file") || maskedSet.has(real)) return;
    maskedSet.add(real);
    masked.push({ path: real, directory: kind === "dir" });
  };
  const readable = settings.allowRead.map((p) => canonical(p) ?? p);
  const credentials = [...CREDENTIAL_PATHS.map((rel) => join(home, rel)), ...configDirs.map((d) => join(d, "session-key"))];
  for (const path of credentials) {
    const real = canonical(path);
    if (real !== undefined && !readable.some((r) => inside(real, r))) mask(real);
  }
  for (const path of [...settings.denyRead, ...(dirs.deniedReads ?? []), ...(scan?.hidden.map((h) => h.path) ?? [])]) mask(path);
  const sockets = settings.allowUnixSockets.filter((s) => kindOf(s) === "socket");
  const report = reportReal;
  const tmp = tmpSource === undefined ? undefined : privateTmp(tmpSource, [dirs.projectDir, ...dirs.additionalDirectories, dirs.cwd, home, ...configDirs, ...settings.allowRead, ...settings.allowWrite, ...sockets, ...(dirs.needed ?? []), ...writable, ...(dirs.linkedWorktrees ?? []).map((l) => l.common)]);
  const hidden = socketDirs(env).filter((d) => !tmp?.at.some((at) => inside(d, at)));
  return {
    boundary,
    writable,
    pinned: [...new Set(pinned)],
    readOnly,
    ...(report !== undefined && report !== "/" && kindOf(report) === "dir" ? { report } : {}),
    masked,
    hidden,
    ...(tmp !== undefined ? { tmp } : {}),
    sockets,
    seccomp: dirs.seccomp === true && sockets.length === 0 && unixSocketFilter() !== undefined,
    network,
    cwd: canonical(dirs.cwd) ?? dirs.cwd,
  };
}
