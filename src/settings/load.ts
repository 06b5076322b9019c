import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { parseRule, RuleParseError } from "../permissions/rule.js";
import type { PermissionMode, PermissionRule } from "../tool/types.js";
import { editDistance } from "../tools/fs/similar-files.js";
import { SettingsError, SettingsFileSchema, validateSettings, type SettingsFile } from "./schema.js";

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
  /** Lets project and local settings set code-running `env` variables and working dirs outside the project. */
  trustProject?: boolean;
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
  /** Each file's raw `hooks` object, highest precedence first, for the hooks module. */
  hooks: Array<{ source: string; config: unknown }>;
  /** `allowedHttpHookUrls` and `httpHookAllowedEnvVars` of the highest level that sets them. */
  hookPolicy: { allowedHttpHookUrls?: string[]; httpHookAllowedEnvVars?: string[] };
  sources: SettingsSource[];
  warnings: string[];
}

interface LoadedFile {
  path: string;
  level: SettingsLevel;
  /** The directory `/x` rules and relative additionalDirectories are anchored to. */
  root: string;
  settings: SettingsFile;
}

async function readSettingsFile(path: string, mustExist: boolean): Promise<SettingsFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A level's own file may be absent; a file the user named (--settings) must be there.
    if ((code === "ENOENT" || code === "ENOTDIR") && !mustExist) return undefined;
    throw new SettingsError(path, null, `cannot read the file: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(path, null, `not valid JSON (${(err as Error).message})`);
  }
  return validateSettings(json, path);
}

function userDirFor(options: LoadSettingsOptions, home: string): string {
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
    ["local", join(cwd, ".armature", "settings.local.json"), join(cwd, ".claude", "settings.local.json"), cwd],
    ["project", join(cwd, ".armature", "settings.json"), join(cwd, ".claude", "settings.json"), cwd],
    ["user", join(userDir, "settings.json"), join(home, ".claude", "settings.json"), userDir],
  ];
  for (const [level, ours, theirs, root] of levels) {
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

function isLoaded(f: LoadedFile | Omit<LoadedFile, "settings">): f is LoadedFile {
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
  let files = await readPlan(settingsFilePlan(options, false));
  const wantsClaude = (cli.settingsFrom ?? []).includes("claude") || files.some((f) => isLoaded(f) && f.settings.import?.includes("claude"));
  if (wantsClaude) files = await readPlan(settingsFilePlan(options, true));
  const loaded = files.filter(isLoaded);
  return mergeSettings(loaded, files, { cwd, home, cli });
}

/**
 * Variables through which a value in a cloned repository's settings would run code in every
 * tool process: shell start-up files, loader and interpreter hooks, the search path, git's
 * and the pager's programs.
 */
const EXECUTION_ENV = /^(BASH_ENV|ENV|PATH|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|IFS|CDPATH|LD_.*|DYLD_.*|NODE_OPTIONS|NODE_PATH|PYTHON(STARTUP|PATH|HOME)|PERL5LIB|PERL5OPT|RUBYOPT|RUBYLIB|GIT_.*|PAGER|EDITOR|VISUAL|SSH_ASKPASS|SUDO_ASKPASS|ARMATURE_.*|CLAUDE_.*|BASH_FUNC_.*)$/;

export function isExecutionEnvVar(name: string): boolean {
  return EXECUTION_ENV.test(name);
}

function isInsideDir(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

const KNOWN_KEYS = Object.keys(SettingsFileSchema.shape);

/** A top-level key one or two letters away from one we read is most likely a typo that drops rules. */
function unknownKeyWarnings(layer: Layer): string[] {
  const out: string[] = [];
  for (const key of Object.keys(layer.settings)) {
    if (KNOWN_KEYS.includes(key)) continue;
    const near = KNOWN_KEYS.find((known) => editDistance(key.toLowerCase(), known.toLowerCase(), 2) <= 2);
    if (near !== undefined) out.push(`${layer.source}: unknown key ${JSON.stringify(key)} is ignored — did you mean ${JSON.stringify(near)}?`);
  }
  return out;
}

/** One level's contribution, in precedence order. The command-line flags are a layer of their own. */
interface Layer {
  source: string;
  level: SettingsLevel;
  root: string;
  settings: SettingsFile;
}

function cliLayer(cli: CliSettings, cwd: string): Layer {
  const permissions: NonNullable<SettingsFile["permissions"]> = {};
  if (cli.allow) permissions.allow = [...cli.allow];
  if (cli.ask) permissions.ask = [...cli.ask];
  if (cli.deny) permissions.deny = [...cli.deny];
  if (cli.addDirs) permissions.additionalDirectories = [...cli.addDirs];
  if (cli.mode) permissions.defaultMode = cli.mode;
  return { source: "command line", level: "cli", root: cwd, settings: { permissions } };
}

function mergeSettings(
  loaded: LoadedFile[],
  all: Array<LoadedFile | Omit<LoadedFile, "settings">>,
  ctx: { cwd: string; home: string; cli: CliSettings },
): LoadedSettings {
  const { cwd, home, cli } = ctx;
  const layers: Layer[] = [];
  for (const f of loaded) if (f.level === "managed") layers.push({ source: f.path, level: f.level, root: f.root, settings: f.settings });
  layers.push(cliLayer(cli, cwd));
  for (const f of loaded) if (f.level !== "managed") layers.push({ source: f.path, level: f.level, root: f.root, settings: f.settings });

  const warnings: string[] = [];
  const managed = layers.find((l) => l.level === "managed")?.settings;
  const managedRulesOnly = managed?.allowManagedPermissionRulesOnly === true;
  // disableAllHooks in managed settings turns every hook off; anywhere else, all but managed ones.
  const managedHooksOnly = managed?.allowManagedHooksOnly === true || layers.some((l) => l.level !== "managed" && l.settings.disableAllHooks === true);
  const noHooks = managed?.disableAllHooks === true;
  const hookPolicy: LoadedSettings["hookPolicy"] = {};
  const urlsFrom = layers.find((l) => l.settings.allowedHttpHookUrls !== undefined);
  if (urlsFrom) hookPolicy.allowedHttpHookUrls = urlsFrom.settings.allowedHttpHookUrls;
  const varsFrom = layers.find((l) => l.settings.httpHookAllowedEnvVars !== undefined);
  if (varsFrom) hookPolicy.httpHookAllowedEnvVars = varsFrom.settings.httpHookAllowedEnvVars;
  const disableBypass = layers.some((l) => l.settings.permissions?.disableBypassPermissionsMode === "disable");
  const disableAuto = layers.some((l) => l.settings.permissions?.disableAutoMode === "disable");

  const rules: PermissionRule[] = [];
  const additionalDirectories: string[] = [];
  const env: Record<string, string> = {};
  const hooks: Array<{ source: string; config: unknown }> = [];
  let mode: PermissionMode | undefined;
  let modeSource = "built-in default";

  for (const layer of layers) {
    const p = layer.settings.permissions;
    if (p && (!managedRulesOnly || layer.level === "managed")) {
      for (const behavior of ["deny", "ask", "allow"] as const) {
        (p[behavior] ?? []).forEach((raw, i) => {
          try {
            rules.push(parseRule(raw, behavior, layer.source, layer.root));
          } catch (err) {
            if (err instanceof RuleParseError) throw new SettingsError(layer.source, `permissions.${behavior}[${i}]`, `${JSON.stringify(raw)}: ${err.problem}`);
            throw err;
          }
        });
      }
    }
    const fromProject = layer.level === "project" || layer.level === "local";
    for (const d of p?.additionalDirectories ?? []) {
      const expanded = d === "~" ? home : d.startsWith("~/") ? join(home, d.slice(2)) : d;
      const abs = resolve(layer.root, expanded);
      if (fromProject && !cli.trustProject && !isInsideDir(abs, cwd)) {
        warnings.push(`${layer.source}: permissions.additionalDirectories ${JSON.stringify(d)} is outside the project and ignored: a project's own settings cannot widen where tools work (pass --add-dir, or --trust-project)`);
        continue;
      }
      if (!additionalDirectories.includes(abs)) additionalDirectories.push(abs);
    }
    const wanted = p?.defaultMode === "manual" ? "default" : p?.defaultMode;
    if (wanted !== undefined && mode === undefined) {
      if (fromProject && (wanted === "bypassPermissions" || wanted === "auto") && !cli.allowBypassFromProject) {
        warnings.push(
          `${layer.source}: permissions.defaultMode ${JSON.stringify(wanted)} is ignored: project settings cannot choose it on their own (pass --mode ${wanted}, or --allow-project-bypass)`,
        );
      } else {
        mode = wanted;
        modeSource = layer.level === "cli" ? "--mode" : layer.source;
      }
    }
    for (const [k, v] of Object.entries(layer.settings.env ?? {})) {
      if (fromProject && !cli.trustProject && isExecutionEnvVar(k)) {
        warnings.push(`${layer.source}: env.${k} is ignored: a project's own settings cannot set variables that make programs run code (pass --trust-project)`);
        continue;
      }
      if (!(k in env)) env[k] = v;
    }
    warnings.push(...unknownKeyWarnings(layer));
    if (layer.settings.hooks !== undefined && !noHooks && (!managedHooksOnly || layer.level === "managed")) {
      hooks.push({ source: layer.source, config: layer.settings.hooks });
    }
  }

  let finalMode: PermissionMode = mode ?? "default";
  if (finalMode === "bypassPermissions" && disableBypass) {
    warnings.push("bypassPermissions is disabled by settings (disableBypassPermissionsMode); using default mode");
    finalMode = "default";
    modeSource = "disableBypassPermissionsMode";
  }
  if (finalMode === "auto" && disableAuto) {
    warnings.push("auto mode is disabled by settings (disableAutoMode); using default mode");
    finalMode = "default";
    modeSource = "disableAutoMode";
  }
  return {
    rules,
    mode: finalMode,
    modeSource,
    additionalDirectories,
    env,
    hooks,
    hookPolicy,
    sources: all.map((f) => ({ path: f.path, level: f.level, loaded: isLoaded(f) })),
    warnings,
  };
}
