import type { SandboxSettings } from "../sandbox/settings.js";
import { readdir, stat } from "node:fs/promises";
import { describeServers } from "./project-policy.js";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { PermissionMode, PermissionRule } from "../tool/types.js";
import { mergeSettings } from "./merge.js";
import { SettingsError, validateSettings, type SettingsFile } from "./schema.js";
import { PROJECT_MCP_PATH, projectInputs, projectSettingsPath } from "./project-inputs.js";
import { ConfigFileError, readConfigJson } from "./read-config-file.js";
import { projectTrustStatus, type TrustStatus } from "./trust.js";

/** The levels `--setting-sources` names (the reference's words). */
export const SETTING_SOURCES = ["user", "project", "local"] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

/** Settings levels, highest precedence first. */
export type SettingsLevel = "managed" | "cli" | "local" | "project" | "user";

export const DEFAULT_MANAGED_SETTINGS = "/etc/armature/managed-settings.json";

export interface CliSettings {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  mode?: PermissionMode;
  addDirs?: readonly string[];
  /** `--settings FILE` */
  settingsFile?: string;
  /** `--settings-from claude`: also read the matching `.claude/` files. */
  settingsFrom?: readonly "claude"[];
  /** Lets project and local settings set `bypassPermissions` (they never can on their own). */
  allowBypassFromProject?: boolean;
  /** `--trust-project`: trust the project's own configuration for this run (as `armature trust` would, unpinned). */
  trustProject?: boolean;
  /**
   * `--setting-sources user,project,local` (the reference's flag): only these levels' files are
   * read, armature's and the `.claude/` ones alike; undefined: all. Managed settings and the
   * command line's are read whatever it says.
   */
  settingSources?: readonly SettingSource[];
  /** `--allow-project-env`: a trusted project's `env` may set any variable, not only inert ones. */
  allowProjectEnv?: boolean;
}

export interface LoadSettingsOptions {
  cwd: string;
  cli?: CliSettings;
  /** Home directory (default: the user's). */
  home?: string;
  /** Managed settings file (default: env ARMATURE_MANAGED_SETTINGS, else /etc/armature/managed-settings.json). */
  managedPath?: string;
  /** User settings directory (default: env ARMATURE_CONFIG_DIR, else ~/.armature). */
  userDir?: string;
  /**
   * Trust the project's own configuration (its hooks, allow rules, env, MCP servers…) for this
   * load. Default: trusted only if the user ran `armature trust` on it and its configuration has
   * not changed since; otherwise project settings may only restrict.
   */
  trustProject?: boolean;
}

export interface SettingsSource {
  path: string;
  level: SettingsLevel;
  /** True when the file existed and was read. */
  loaded: boolean;
}

export interface LoadedSettings {
  rules: PermissionRule[];
  mode: PermissionMode;
  /** Which file or flag set the mode (`built-in default` when none did). */
  modeSource: string;
  additionalDirectories: string[];
  /** Environment for tool processes, merged by precedence per variable. */
  env: Record<string, string>;
  /**
   * Each file's raw `hooks` object, highest precedence first, for the hooks module; `fromProject`
   * for the project's own files (their commands run inside the sandbox: sandbox.projectCode).
   */
  hooks: Array<{ source: string; config: unknown; fromProject?: boolean }>;
  /** `allowedHttpHookUrls` and `httpHookAllowedEnvVars`: what every level that sets them allows (the narrowest). */
  hookPolicy: { allowedHttpHookUrls?: string[]; httpHookAllowedEnvVars?: string[] };
  /** Each level's raw `mcpServers` object that may be used, highest precedence first (project ones only when trusted). */
  mcpServers: Array<{ source: string; level: SettingsLevel; config: Record<string, unknown> }>;
  /**
   * Which project MCP servers (`.mcp.json`, a project's or local file's `mcpServers`) the user
   * approved: `enableAllProjectMcpServers` and `enabledMcpjsonServers` from the levels the
   * project does not control (managed, command line, user); `disabledMcpjsonServers` from all.
   */
  mcpApproval: { enableAllProjectMcpServers?: boolean; enabledMcpjsonServers: string[]; disabledMcpjsonServers: string[] };
  /** The project's `.mcp.json`: its server names, and whether they may be started (only when the project is trusted). */
  /** `shown`: each server with what it runs or connects to, for the warning. */
  projectMcp: { path: string; exists: boolean; servers: string[]; allowed: boolean; shown?: string };
  /** Whether the project's own configuration is trusted, and if it was once, what changed. */
  trust: TrustStatus;
  /** Project configuration that was not applied, one entry per key (for library users; the CLI prints `warnings`). */
  ignored: IgnoredSetting[];
  sources: SettingsSource[];
  warnings: string[];
  /** The `sandbox` key of every level combined (an untrusted project's may only narrow it). */
  sandbox: SandboxSettings;
}

/** A project setting that was not applied, and why. */
export interface IgnoredSetting {
  source: string;
  key: string;
  /** The key and a short form of its value, e.g. `permissions.allow ["Bash(*)"]`. */
  detail: string;
  why: "untrusted" | "not-inert-env" | "outside-project" | "needs-flag";
}

export interface LoadedFile {
  path: string;
  level: SettingsLevel;
  /** The directory `/x` rules and relative additionalDirectories are anchored to. */
  root: string;
  settings: SettingsFile;
}

async function readSettingsFile(path: string, mustExist: boolean): Promise<SettingsFile | undefined> {
  let json: unknown;
  try {
    json = await readConfigJson(path);
  } catch (err) {
    if (err instanceof ConfigFileError) throw new SettingsError(path, null, err.problem);
    throw err;
  }
  // A level's own file may be absent; a file the user named (--settings) must be there.
  if (json === undefined) {
    if (mustExist) throw new SettingsError(path, null, "cannot read the file: no such file");
    return undefined;
  }
  return validateSettings(json, path);
}

/** armature's user folder: `userDir`, else env ARMATURE_CONFIG_DIR, else `~/.armature`. */
export function userDirFor(options: { userDir?: string }, home: string): string {
  return options.userDir ?? process.env.ARMATURE_CONFIG_DIR ?? join(home, ".armature");
}

/** The settings files of a directory, highest precedence first, with the level and anchor of each. */
export function settingsFilePlan(options: LoadSettingsOptions, claude: boolean): Array<Omit<LoadedFile, "settings">> {
  const home = options.home ?? homedir();
  const cwd = resolve(options.cwd);
  const userDir = userDirFor(options, home);
  const managed = options.managedPath ?? process.env.ARMATURE_MANAGED_SETTINGS ?? DEFAULT_MANAGED_SETTINGS;
  const plan: Array<Omit<LoadedFile, "settings">> = [{ path: managed, level: "managed", root: dirname(managed) }];
  const settingsFile = options.cli?.settingsFile;
  if (settingsFile !== undefined) {
    const abs = resolve(cwd, settingsFile);
    plan.push({ path: abs, level: "cli", root: dirname(abs) });
  }
  const levels: Array<[SettingsLevel, string, string, string]> = [
    ["local", projectSettingsPath(cwd, "local", false), projectSettingsPath(cwd, "local", true), cwd],
    ["project", projectSettingsPath(cwd, "project", false), projectSettingsPath(cwd, "project", true), cwd],
    ["user", join(userDir, "settings.json"), join(home, ".claude", "settings.json"), userDir],
  ];
  const sources = options.cli?.settingSources;
  for (const [level, ours, theirs, root] of levels) {
    if (sources !== undefined && !sources.includes(level as SettingSource)) continue;
    plan.push({ path: ours, level, root });
    if (claude) plan.push({ path: theirs, level, root: level === "user" ? join(home, ".claude") : root });
  }
  return plan;
}

async function readPlan(plan: Array<Omit<LoadedFile, "settings">>): Promise<Array<LoadedFile | Omit<LoadedFile, "settings">>> {
  return Promise.all(
    plan.map(async (p) => {
      const settings = await readSettingsFile(p.path, p.level === "cli");
      return settings ? { ...p, settings } : p;
    }),
  );
}

export function isLoaded(f: LoadedFile | Omit<LoadedFile, "settings">): f is LoadedFile {
  return "settings" in f;
}

/**
 * Reads every settings level of a directory: managed, command line, `.armature/settings.local.json`,
 * `.armature/settings.json`, the user's — and with `--settings-from claude` or `"import": ["claude"]`
 * the matching `.claude/` files too. Arrays merge; scalars take the highest level. An invalid file
 * is a SettingsError naming the file and the key.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const cwd = resolve(options.cwd);
  const home = options.home ?? homedir();
  const cli = options.cli ?? {};
  const trust = await projectTrustStatus(cwd, {
    home,
    userDir: userDirFor(options, home),
    override: options.trustProject === true || cli.trustProject === true,
  });
  let files = await readPlan(settingsFilePlan(options, false));
  // `import` in a project's own file is a widening key: an untrusted project must not turn on
  // the user's ~/.claude/settings.json (its allow rules, mode and env).
  const imports = (f: LoadedFile | Omit<LoadedFile, "settings">): boolean =>
    isLoaded(f) && (trust.trusted || (f.level !== "project" && f.level !== "local")) && f.settings.import?.includes("claude") === true;
  const wantsClaude = (cli.settingsFrom ?? []).includes("claude") || files.some(imports);
  if (wantsClaude) files = await readPlan(settingsFilePlan(options, true));
  const loaded = files.filter(isLoaded);
  const projectMcp = await readProjectMcp(cwd, trust.trusted);
  const skippedDefinitions = trust.trusted ? [] : await untrustedDefinitions(cwd, wantsClaude);
  return mergeSettings(loaded, files, { cwd, home, cli, trust, projectMcp, skippedDefinitions });
}

/**
 * The skills (folders with a SKILL.md) and sub-agent definitions (`*.md`) an untrusted project
 * ships, by folder: none of them is loaded, and the trust warning names them.
 */
async function untrustedDefinitions(cwd: string, claude: boolean): Promise<Array<{ path: string; kind: "skills" | "agents"; names: string[] }>> {
  const out: Array<{ path: string; kind: "skills" | "agents"; names: string[] }> = [];
  for (const kind of ["skills", "agents"] as const) {
    for (const input of projectInputs(kind, claude)) {
      const path = join(cwd, input.path);
      const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
      const names: string[] = [];
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (kind === "agents" && e.isFile() && e.name.endsWith(".md")) names.push(e.name.slice(0, -3));
        if (kind === "skills" && e.isDirectory() && (await stat(join(path, e.name, "SKILL.md")).then((st) => st.isFile(), () => false))) names.push(e.name);
      }
      if (names.length > 0) out.push({ path, kind, names });
    }
  }
  return out;
}

/** The server names of the project's `.mcp.json` (an unreadable file counts as present, with none named). */
async function readProjectMcp(cwd: string, trusted: boolean): Promise<LoadedSettings["projectMcp"]> {
  const path = join(cwd, PROJECT_MCP_PATH);
  let json: unknown;
  try {
    json = await readConfigJson(path);
  } catch {
    return { path, exists: true, servers: [], allowed: trusted };
  }
  if (json === undefined) return { path, exists: false, servers: [], allowed: trusted };
  const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === null || typeof servers !== "object" || Array.isArray(servers)) return { path, exists: true, servers: [], allowed: trusted };
  return { path, exists: true, servers: Object.keys(servers), allowed: trusted, shown: describeServers(servers as Record<string, unknown>) };
}

