import { loadSettings, type CliSettings, type LoadedSettings } from "../settings/load.js";
import { SettingsError } from "../settings/schema.js";
import type { PermissionMode, PermissionRule } from "../tool/types.js";
import { UsageError } from "./io.js";

export interface ExecSettingsInput {
  cwd: string;
  settingsFile?: string;
  settingsFrom?: string[];
  allowProjectBypass?: boolean;
  cli: { allow?: string[]; ask?: string[]; deny?: string[]; mode?: PermissionMode; addDirs?: string[] };
  /** For tests: where managed and user settings are read from. */
  home?: string;
  managedPath?: string;
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
  };
  let loaded: LoadedSettings;
  try {
    loaded = await loadSettings({ cwd: input.cwd, cli, home: input.home, managedPath: input.managedPath });
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
    loaded,
  };
}

/** A settings error as a usage message: command-line rules are named by their flag. */
export function settingsErrorMessage(err: SettingsError): string {
  if (err.file !== "command line") return err.message;
  const m = /^permissions\.(allow|ask|deny)/.exec(err.key ?? "");
  return m ? `--${m[1]}: ${err.problem}` : `${err.key ?? "command line"}: ${err.problem}`;
}
