import { loadSettings, type CliSettings, type LoadedSettings, type SettingSource } from "../settings/load.js";
import { visible } from "../text/visible.js";
import { SettingsError } from "../settings/schema.js";
import type { PermissionMode, PermissionRule } from "../tool/types.js";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { ruleWarnings } from "../permissions/rule.js";
import { PERMISSION_MODES, type Tool } from "../tool/types.js";
import { HookConfigError } from "../hooks/config.js";
import { createHookRunner, type ConfiguredHookRunner } from "../hooks/runner.js";
import { permissionRuleIfMatcher } from "../session/hook-if.js";
import type { ToolUseContext } from "../tool/types.js";
import { UsageError, type CliIO } from "./io.js";
import { projectCodeBoundary } from "../sandbox/project-code.js";
import { sandboxStatus } from "../sandbox/status.js";

/** The options `exec` and `permissions` share: where settings come from and what the command line adds. */
export const SETTINGS_OPTIONS = {
  cwd: { type: "string" },
  mode: { type: "string" },
  allow: { type: "string", multiple: true },
  ask: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  "add-dir": { type: "string", multiple: true },
  settings: { type: "string" },
  "settings-from": { type: "string", multiple: true },
  "allow-project-bypass": { type: "boolean" },
  "trust-project": { type: "boolean" },
  "allow-project-env": { type: "boolean" },
} as const;

export const SETTINGS_HELP = `  --cwd DIR              working directory (default: the current one); its settings are read
  --mode MODE            ${PERMISSION_MODES.join(" | ")}
  --allow RULE, --ask RULE, --deny RULE   rules on top of the settings (repeatable)
  --add-dir DIR          an additional working directory (repeatable; must exist)
  --settings FILE        a settings file (JSON) on top of the project's
                         (paths are relative to the shell's directory, not to --cwd)
  --settings-from claude also read the matching .claude/ settings files
  --allow-project-bypass let project settings choose bypassPermissions or auto
  --trust-project        trust the project's own settings for this run (hooks, allow rules, env, working
                         dirs, MCP servers); otherwise they may only restrict until 'armature trust'
  --allow-project-env    let a trusted project's env set any variable (default: only inert ones)
`;

export interface SettingsFlagValues {
  cwd?: string;
  mode?: string;
  allow?: string[];
  ask?: string[];
  deny?: string[];
  "add-dir"?: string[];
  settings?: string;
  "settings-from"?: string[];
  "allow-project-bypass"?: boolean;
  "trust-project"?: boolean;
  "allow-project-env"?: boolean;
}

export function checkMode(mode: unknown, flag: string): PermissionMode | undefined {
  if (mode === undefined) return undefined;
  if (typeof mode !== "string" || !PERMISSION_MODES.includes(mode as PermissionMode)) {
    throw new UsageError(`${flag} must be one of ${PERMISSION_MODES.join(", ")}; got ${JSON.stringify(mode)}`);
  }
  return mode as PermissionMode;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The parsed shared flags as a settings request. Every path flag is relative to the shell's
 * directory, as the input file is (not to `--cwd`); `--cwd` and each `--add-dir` must be directories.
 */
export function settingsInputFrom(values: SettingsFlagValues): ExecSettingsInput {
  const cwd = resolve(values.cwd ?? process.cwd());
  if (!isDirectory(cwd)) throw new UsageError(`--cwd: ${cwd} is not a directory`);
  const addDirs = values["add-dir"]?.map((dir) => resolve(dir));
  for (const dir of addDirs ?? []) if (!isDirectory(dir)) throw new UsageError(`--add-dir: ${dir} is not a directory`);
  return {
    cwd,
    settingsFile: values.settings === undefined ? undefined : resolve(values.settings),
    settingsFrom: values["settings-from"],
    allowProjectBypass: values["allow-project-bypass"],
    trustProject: values["trust-project"],
    allowProjectEnv: values["allow-project-env"],
    cli: { allow: values.allow, ask: values.ask, deny: values.deny, mode: checkMode(values.mode, "--mode"), addDirs },
  };
}

/** What the user should hear about the settings: the loader's warnings and rules naming unknown tools. */
/** The warnings to print: names, paths and commands from a project's files come with their hidden characters written out. */
export function settingsWarnings(settings: ExecSettings, tools: readonly Tool[]): string[] {
  return [...settings.warnings, ...ruleWarnings(settings.rules, tools.map((t) => t.name))].map(visible);
}

export interface ExecSettingsInput {
  cwd: string;
  settingsFile?: string;
  settingsFrom?: string[];
  allowProjectBypass?: boolean;
  trustProject?: boolean;
  allowProjectEnv?: boolean;
  /** `--setting-sources`: the settings levels read (undefined: all). */
  settingSources?: readonly SettingSource[];
  cli: { allow?: string[]; ask?: string[]; deny?: string[]; mode?: PermissionMode; addDirs?: string[] };
  /** For tests: where managed and user settings (and trust.json) are read from. */
  home?: string;
  managedPath?: string;
  userDir?: string;
}

export interface ExecSettings {
  rules: PermissionRule[];
  mode: PermissionMode;
  additionalDirectories: string[];
  env: Record<string, string>;
  /** Each settings file's raw `hooks` object with its path, highest precedence first (for createHookRunner). */
  hookConfigs: LoadedSettings["hooks"];
  hookPolicy: LoadedSettings["hookPolicy"];
  warnings: string[];
  sandbox: LoadedSettings["sandbox"];
  loaded: LoadedSettings;
}

/**
 * Every settings level of `--cwd` (managed, the command line, `.armature/settings.local.json`,
 * `.armature/settings.json`, the user's; `.claude/` ones with `--settings-from claude`).
 * A bad file or rule is a usage error naming the file and the key.
 */
export async function loadExecSettings(input: ExecSettingsInput): Promise<ExecSettings> {
  for (const from of input.settingsFrom ?? []) {
    if (from !== "claude") throw new UsageError(`--settings-from accepts only "claude"; got ${JSON.stringify(from)}`);
  }
  const cli: CliSettings = {
    allow: input.cli.allow,
    ask: input.cli.ask,
    deny: input.cli.deny,
    mode: input.cli.mode,
    addDirs: input.cli.addDirs,
    settingsFile: input.settingsFile,
    settingsFrom: (input.settingsFrom ?? []) as "claude"[],
    allowBypassFromProject: input.allowProjectBypass === true,
    trustProject: input.trustProject === true,
    allowProjectEnv: input.allowProjectEnv === true,
    ...(input.settingSources !== undefined ? { settingSources: input.settingSources } : {}),
  };
  let loaded: LoadedSettings;
  try {
    loaded = await loadSettings({ cwd: input.cwd, cli, home: input.home, managedPath: input.managedPath, userDir: input.userDir });
  } catch (err) {
    if (err instanceof SettingsError) throw new UsageError(settingsErrorMessage(err));
    throw err;
  }
  return {
    rules: loaded.rules,
    mode: loaded.mode,
    additionalDirectories: loaded.additionalDirectories,
    env: loaded.env,
    hookConfigs: loaded.hooks,
    hookPolicy: loaded.hookPolicy,
    warnings: loaded.warnings,
    sandbox: loaded.sandbox,
    loaded,
  };
}

/** A settings error as a usage message: command-line rules are named by their flag. */
export function settingsErrorMessage(err: SettingsError): string {
  if (err.file !== "command line") return err.message;
  const m = /^permissions\.(allow|ask|deny)/.exec(err.key ?? "");
  return m ? `--${m[1]}: ${err.problem}` : `${err.key ?? "command line"}: ${err.problem}`;
}

/**
 * The settings' hooks as a runner (undefined without any), its warnings on stderr; a hook's `if`
 * rule reads the context `context()` returns when the hook runs. A bad `hooks` object is a
 * usage error naming the file and key.
 */
export function settingsHooks(settings: ExecSettings, cwd: string, context: () => ToolUseContext, io: CliIO): ConfiguredHookRunner | undefined {
  if (settings.hookConfigs.length === 0) return undefined;
  let hooks: ConfiguredHookRunner;
  try {
    const projectBoundary = settings.hookConfigs.some((c) => c.fromProject === true)
      ? projectCodeBoundary(sandboxStatus(settings.sandbox), { projectDir: resolve(cwd), additionalDirectories: settings.additionalDirectories })
      : undefined;
    hooks = createHookRunner(settings.hookConfigs, {
      projectDir: resolve(cwd),
      env: settings.env,
      ...(projectBoundary ? { projectBoundary } : {}),
      ...settings.hookPolicy,
      ifMatcher: permissionRuleIfMatcher(context),
    });
  } catch (err) {
    if (err instanceof HookConfigError) throw new UsageError(err.message);
    throw err;
  }
  for (const warning of hooks.warnings) io.stderr.write(`armature: ${warning}\n`);
  return hooks;
}
