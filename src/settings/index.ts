export { loadSettings, settingsFilePlan, DEFAULT_MANAGED_SETTINGS } from "./load.js";
export type { CliSettings, IgnoredSetting, LoadSettingsOptions, LoadedSettings, SettingsLevel, SettingsSource } from "./load.js";
export { intersectUrlPatterns, untrustedWarning } from "./merge.js";
export { INERT_ENV, WIDENING_KEYS, inertEnvReason } from "./project-policy.js";
export { SettingsFileSchema, PermissionsSettingsSchema, SettingsError, validateSettings } from "./schema.js";
export type { SettingsFile } from "./schema.js";
export {
  describeChanges,
  listTrustedProjects,
  projectFingerprint,
  projectTrustStatus,
  revokeProjectTrust,
  trustProject,
  trustStorePath,
  PROJECT_CONFIG_FILES,
  PROJECT_MCP_FILE,
} from "./trust.js";
export type { ProjectFingerprint, TrustOptions, TrustRecord, TrustState, TrustStatus } from "./trust.js";
export { addPermissionRules, settingsPathFor } from "./write.js";
export type { PersistScope } from "./write.js";
