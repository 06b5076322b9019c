import { readFile } from "node:fs/promises";
import { parseRuleLists, RuleParseError } from "../permissions/rule.js";
import type { PermissionResolver } from "../permissions/types.js";
import type { HookRunner } from "../hooks/types.js";
import { PERMISSION_MODES, type PermissionMode, type PermissionRule } from "../tool/types.js";
import { UsageError } from "./io.js";

export interface ExecSettingsInput {
  cwd: string;
  settingsFile?: string;
  cli: { allow?: string[]; ask?: string[]; deny?: string[]; mode?: PermissionMode; addDirs?: string[] };
}

export interface ExecSettings {
  rules: PermissionRule[];
  mode?: PermissionMode;
  additionalDirectories: string[];
  env: Record<string, string>;
  hooks?: HookRunner;
  resolvePermission?: PermissionResolver;
}

function stringArray(value: unknown, file: string, key: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new UsageError(`${file}: ${key} must be an array of strings`);
  }
  return value;
}

/** Reads `--settings FILE` (permissions only, for now) and the command-line rules. */
export async function loadExecSettings(input: ExecSettingsInput): Promise<ExecSettings> {
  const rules: PermissionRule[] = [];
  let mode = input.cli.mode;
  const additionalDirectories = [...(input.cli.addDirs ?? [])];
  try {
    rules.push(...parseRuleLists({ allow: input.cli.allow, ask: input.cli.ask, deny: input.cli.deny }, "command line"));
  } catch (err) {
    if (err instanceof RuleParseError) throw new UsageError(err.message);
    throw err;
  }
  if (input.settingsFile !== undefined) {
    const file = input.settingsFile;
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, "utf8"));
    } catch (err) {
      throw new UsageError(`--settings ${file}: ${(err as Error).message}`);
    }
    const permissions = (json as { permissions?: Record<string, unknown> }).permissions ?? {};
    try {
      rules.push(
        ...parseRuleLists(
          {
            allow: stringArray(permissions.allow, file, "permissions.allow"),
            ask: stringArray(permissions.ask, file, "permissions.ask"),
            deny: stringArray(permissions.deny, file, "permissions.deny"),
          },
          file,
        ),
      );
    } catch (err) {
      if (err instanceof RuleParseError) throw new UsageError(err.message);
      throw err;
    }
    const defaultMode = permissions.defaultMode;
    if (defaultMode !== undefined) {
      if (typeof defaultMode !== "string" || !PERMISSION_MODES.includes(defaultMode as PermissionMode)) {
        throw new UsageError(`${file}: permissions.defaultMode must be one of ${PERMISSION_MODES.join(", ")}`);
      }
      mode ??= defaultMode as PermissionMode;
    }
    additionalDirectories.push(...stringArray(permissions.additionalDirectories, file, "permissions.additionalDirectories"));
  }
  return { rules, mode, additionalDirectories, env: {} };
}
