// The `sandbox` settings key, in the reference agent's schema, and how the levels combine: a
// level the user trusts may widen the boundary, an untrusted project's settings may only narrow it.
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";

const paths = z.array(z.string());

export const SandboxSettingsSchema = z.looseObject({
  enabled: z.boolean().optional(),
  autoAllowBashIfSandboxed: z.boolean().optional(),
  excludedCommands: z.array(z.string()).optional(),
  allowUnsandboxedCommands: z.boolean().optional(),
  projectCode: z.enum(["boundary", "host"]).optional(),
  network: z
    .looseObject({
      allowedDomains: z.array(z.string()).optional(),
      allowUnixSockets: paths.optional(),
    })
    .optional(),
  filesystem: z
    .looseObject({
      allowWrite: paths.optional(),
      allowRead: paths.optional(),
      denyWrite: paths.optional(),
      denyRead: paths.optional(),
    })
    .optional(),
});

export type SandboxSettingsFile = z.infer<typeof SandboxSettingsSchema>;

/** The settings of every level combined: what the sandbox module works from. */
export interface SandboxSettings {
  /** Run commands in the OS sandbox where one is available (default true). */
  enabled: boolean;
  /** With the sandbox on, a call that contains nothing known to write runs read-only instead of asking (default true). */
  autoAllowBashIfSandboxed: boolean;
  /** Commands (`docker`, `docker compose *`) that run outside the sandbox; they are still judged and asked for. */
  excludedCommands: string[];
  /** Whether `dangerouslyDisableSandbox` may be approved at all (default true). */
  allowUnsandboxedCommands: boolean;
  /**
   * The user's own settings (not a project's) set `allowUnsandboxedCommands: true` themselves:
   * only then may bypassPermissions run a `dangerouslyDisableSandbox` call without asking.
   */
  unsandboxedUnasked: boolean;
  /**
   * Where code a project ships runs — its hooks and MCP stdio servers: inside the workspace-write
   * boundary with no network (default), or on the host ("host", only from the user's own levels).
   */
  projectCode: "boundary" | "host";
  allowedDomains: string[];
  /** Absolute paths of Unix sockets the sandbox may reach. */
  allowUnixSockets: string[];
  /** Absolute paths writable in the workspace-write boundary besides the working directories. */
  allowWrite: string[];
  /** Absolute paths of credentials the sandbox hides by default that stay readable (e.g. `~/.npmrc` for a private registry). */
  allowRead: string[];
  /** Absolute paths read-only in every boundary. */
  denyWrite: string[];
  /** Absolute paths hidden in every boundary. */
  denyRead: string[];
  /** Where `enabled` came from (a file, ARMATURE_SANDBOX, the default). */
  enabledSource: string;
  /**
   * Asked for explicitly (ARMATURE_SANDBOX=1, or a host's option): where it cannot run, Bash
   * refuses to run commands instead of falling back to the analysis alone.
   */
  required: boolean;
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  enabled: true,
  autoAllowBashIfSandboxed: true,
  excludedCommands: [],
  allowUnsandboxedCommands: true,
  unsandboxedUnasked: false,
  projectCode: "boundary",
  allowedDomains: [],
  allowUnixSockets: [],
  allowWrite: [],
  allowRead: [],
  denyWrite: [],
  denyRead: [],
  enabledSource: "default",
  required: false,
};

export interface SandboxLayer {
  source: string;
  /** Relative paths in this level are relative to it. */
  root: string;
  home: string;
  /** False for an untrusted project's settings: they may only restrict. */
  widens: boolean;
  /** The project's own level (project or local settings), trusted or not. */
  project?: boolean;
  settings: SandboxSettingsFile | undefined;
}

export interface MergedSandboxSettings {
  settings: SandboxSettings;
  /** Keys an untrusted level set that would widen the boundary, which were ignored. */
  ignored: Array<{ source: string; key: string; value: unknown }>;
}

function absolute(path: string, layer: SandboxLayer): string {
  const expanded = path === "~" ? layer.home : path.startsWith("~/") ? join(layer.home, path.slice(2)) : path;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(layer.root, expanded);
}

/**
 * Layers in precedence order (managed first). A scalar takes the first level that sets it, except
 * that a level which may not widen can only set the narrowing value; lists of what widens are the
 * union of the levels that may widen, lists of what narrows the union of all.
 */
export function mergeSandboxLayers(layers: readonly SandboxLayer[]): MergedSandboxSettings {
  const out: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, excludedCommands: [], allowedDomains: [], allowUnixSockets: [], allowWrite: [], allowRead: [], denyWrite: [], denyRead: [] };
  const ignored: MergedSandboxSettings["ignored"] = [];
  const set = new Set<string>();
  const scalar = (layer: SandboxLayer, key: "enabled" | "autoAllowBashIfSandboxed" | "allowUnsandboxedCommands", value: boolean | undefined, narrowing: boolean): void => {
    if (value === undefined) return;
    if (!layer.widens && value !== narrowing) {
      ignored.push({ source: layer.source, key: `sandbox.${key}`, value });
      return;
    }
    // A narrowing value from any level holds over a wider one from a level below it.
    if (set.has(key) && !(value === narrowing && out[key] !== narrowing)) return;
    set.add(key);
    out[key] = value;
    if (key === "enabled") out.enabledSource = layer.source;
  };
  const union = (target: string[], values: readonly string[]): void => {
    for (const v of values) if (!target.includes(v)) target.push(v);
  };
  for (const layer of layers) {
    const s = layer.settings;
    if (!s) continue;
    // Only the user's own levels may let a project's code out: a project, trusted or not, may not.
    if (s.projectCode !== undefined) {
      if (s.projectCode === "host" && (!layer.widens || layer.project === true)) ignored.push({ source: layer.source, key: "sandbox.projectCode", value: s.projectCode });
      else if (!set.has("projectCode")) {
        set.add("projectCode");
        out.projectCode = s.projectCode;
      }
    }
    scalar(layer, "enabled", s.enabled, true);
    scalar(layer, "autoAllowBashIfSandboxed", s.autoAllowBashIfSandboxed, false);
    scalar(layer, "allowUnsandboxedCommands", s.allowUnsandboxedCommands, false);
    if (s.allowUnsandboxedCommands === true && layer.widens && layer.project !== true) out.unsandboxedUnasked = true;
    const widening: Array<[string, readonly string[] | undefined, string[], boolean]> = [
      ["excludedCommands", s.excludedCommands, out.excludedCommands, false],
      ["network.allowedDomains", s.network?.allowedDomains, out.allowedDomains, false],
      ["network.allowUnixSockets", s.network?.allowUnixSockets, out.allowUnixSockets, true],
      ["filesystem.allowWrite", s.filesystem?.allowWrite, out.allowWrite, true],
      ["filesystem.allowRead", s.filesystem?.allowRead, out.allowRead, true],
    ];
    for (const [key, values, target, arePaths] of widening) {
      if (!values || values.length === 0) continue;
      if (!layer.widens) {
        ignored.push({ source: layer.source, key: `sandbox.${key}`, value: values });
        continue;
      }
      union(target, arePaths ? values.map((p) => absolute(p, layer)) : values);
    }
    union(out.denyWrite, (s.filesystem?.denyWrite ?? []).map((p) => absolute(p, layer)));
    union(out.denyRead, (s.filesystem?.denyRead ?? []).map((p) => absolute(p, layer)));
  }
  // A level that turned unsandboxed commands off holds whoever asked for them unasked.
  out.unsandboxedUnasked &&= out.allowUnsandboxedCommands;
  return { settings: out, ignored };
}

/** ARMATURE_SANDBOX=0|1 overrides `sandbox.enabled` (other values are ignored). */
export function applySandboxEnv(settings: SandboxSettings, env: Readonly<Record<string, string | undefined>>): SandboxSettings {
  const value = env.ARMATURE_SANDBOX?.trim().toLowerCase();
  if (value === undefined || value === "") return settings;
  if (["1", "true", "yes", "on"].includes(value)) return { ...settings, enabled: true, required: true, enabledSource: "ARMATURE_SANDBOX" };
  if (["0", "false", "no", "off"].includes(value)) return { ...settings, enabled: false, required: false, enabledSource: "ARMATURE_SANDBOX" };
  return settings;
}
