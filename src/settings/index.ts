export { loadSettings, settingsFilePlan, DEFAULT_MANAGED_SETTINGS } from "./load.js";
export type { CliSettings, LoadSettingsOptions, LoadedSettings, SettingsLevel, SettingsSource } from "./load.js";
export { SettingsFileSchema, PermissionsSettingsSchema, SettingsError, validateSettings } from "./schema.js";
export type { SettingsFile } from "./schema.js";
export { addPermissionRules, settingsPathFor } from "./write.js";
export type { PersistScope } from "./write.js";
