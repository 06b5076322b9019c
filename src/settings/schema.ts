import { z } from "zod";
import { PERMISSION_MODES } from "../tool/types.js";
import { SandboxSettingsSchema } from "../sandbox/settings.js";

/** `manual` is accepted as another name for `default`. */
const MODE_NAMES = [...PERMISSION_MODES, "manual"] as const;

const ruleList = z.array(z.string());

export const PermissionsSettingsSchema = z.looseObject({
  allow: ruleList.optional(),
  ask: ruleList.optional(),
  deny: ruleList.optional(),
  defaultMode: z.enum(MODE_NAMES).optional(),
  additionalDirectories: z.array(z.string()).optional(),
  disableBypassPermissionsMode: z.literal("disable").optional(),
  disableAutoMode: z.literal("disable").optional(),
});

/**
 * One settings file: the reference agent's schema, in our directories. Keys we do not use are
 * kept (loose), so a file shared with other tools stays valid; keys we use are validated.
 * `hooks` is handed as is to the hooks module, which validates its own shape.
 */
export const SettingsFileSchema = z.looseObject({
  permissions: PermissionsSettingsSchema.optional(),
  env: z.record(z.string(), z.string()).optional(),
  hooks: z.record(z.string(), z.unknown()).optional(),
  import: z.array(z.literal("claude")).optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  model: z.string().optional(),
  allowManagedPermissionRulesOnly: z.boolean().optional(),
  allowManagedHooksOnly: z.boolean().optional(),
  disableAllHooks: z.boolean().optional(),
  allowedHttpHookUrls: z.array(z.string()).optional(),
  httpHookAllowedEnvVars: z.array(z.string()).optional(),
  sandbox: SandboxSettingsSchema.optional(),
});

export type SettingsFile = z.infer<typeof SettingsFileSchema>;

/** A settings file that cannot be used: the message names the file and the key. */
export class SettingsError extends Error {
  constructor(
    readonly file: string,
    readonly key: string | null,
    readonly problem: string,
  ) {
    super(`${file}${key ? `: ${key}` : ""}: ${problem}`);
    this.name = "SettingsError";
  }
}

/** Validates parsed JSON; the first problem becomes a SettingsError naming the key. */
export function validateSettings(json: unknown, file: string): SettingsFile {
  const result = SettingsFileSchema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  return throwIssue(file, key, issue.message);
}

function throwIssue(file: string, key: string | null, message: string): never {
  throw new SettingsError(file, key, message);
}
