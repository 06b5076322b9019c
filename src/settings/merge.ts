import { join, resolve, sep } from "node:path";
import { visible } from "../text/visible.js";
import { parseRule, RuleParseError } from "../permissions/rule.js";
import type { PermissionMode, PermissionRule } from "../tool/types.js";
import { editDistance } from "../fs/similar-files.js";
import { isLoaded, type CliSettings, type IgnoredSetting, type LoadedFile, type LoadedSettings, type SettingsLevel } from "./load.js";
import { describeWidening, inertEnvReason } from "./project-policy.js";
import { mergeSandboxLayers } from "../sandbox/settings.js";
import { SettingsError, SettingsFileSchema, type SettingsFile } from "./schema.js";
import type { TrustStatus } from "./trust.js";
import { realPathOrSelf } from "../fs/path-identity.js";

function isInsideDir(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Where a path really leads (symlinks followed); a path that does not exist stays as written. */

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

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
}

/**
 * URL patterns every list allows: a pattern of one list is kept when, read as text, it matches
 * a pattern of every other list (its `*`s then fall inside the other's `*`s, so every URL it
 * matches the other matches too). Sound, and exact for the usual prefix patterns.
 */
export function intersectUrlPatterns(lists: ReadonlyArray<readonly string[]>): string[] {
  if (lists.length === 1) return [...lists[0]!];
  const out = new Set<string>();
  lists.forEach((list, i) => {
    for (const p of list) {
      if (lists.every((other, j) => j === i || other.some((q) => wildcard(q).test(p)))) out.add(p);
    }
  });
  return [...out];
}

/** The most restrictive HTTP hook policy across levels: a level can narrow it, never widen it. */
function narrowestHookPolicy(layers: readonly Layer[]): LoadedSettings["hookPolicy"] {
  const policy: LoadedSettings["hookPolicy"] = {};
  const urlLists = layers.flatMap((l) => (l.settings.allowedHttpHookUrls ? [l.settings.allowedHttpHookUrls] : []));
  if (urlLists.length > 0) policy.allowedHttpHookUrls = intersectUrlPatterns(urlLists);
  const varLists = layers.flatMap((l) => (l.settings.httpHookAllowedEnvVars ? [l.settings.httpHookAllowedEnvVars] : []));
  if (varLists.length > 0) policy.httpHookAllowedEnvVars = varLists[0]!.filter((v) => varLists.every((list) => list.includes(v)));
  return policy;
}

/**
 * The one warning for an untrusted project: everything ignored, what changed, and how to trust.
 * Exported for project configuration read elsewhere (agents, skills, MCP) to word theirs alike.
 */
export function untrustedWarning(trust: TrustStatus, ignored: readonly IgnoredSetting[]): string | null {
  const items = ignored.filter((i) => i.why === "untrusted");
  if (items.length === 0) return null;
  const bySource = new Map<string, string[]>();
  for (const i of items) bySource.set(i.source, [...(bySource.get(i.source) ?? []), i.detail]);
  // Every setting, every rule, every hook's whole command: nothing cut, nothing hidden (the
  // details are written with their hidden characters made visible; so are the paths here).
  const list = [...bySource].map(([source, details]) => `${visible(source)}: ${details.join(", ")}`).join("; ");
  const count = items.length === 1 ? "this setting was" : `these ${items.length} settings were`;
  const why =
    trust.state === "changed"
      ? `its configuration changed since you trusted it (${visible(trust.changes.join("; "))})`
      : "you have not trusted it";
  const dir = visible(trust.dir);
  return `${dir} is not trusted (${why}), so its own settings may only restrict: deny and ask rules apply, and ${count} ignored — ${list}. If you trust this project, run: armature trust ${dir} (or pass --trust-project for one run)`;
}

const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export interface MergeContext {
  cwd: string;
  home: string;
  cli: CliSettings;
  trust: TrustStatus;
  projectMcp: LoadedSettings["projectMcp"];
  /** An untrusted project's skill and agent folders that hold any, with what they hold (not loaded). */
  skippedDefinitions?: ReadonlyArray<{ path: string; kind: "skills" | "agents"; names: string[] }>;
}

export function mergeSettings(
  loaded: LoadedFile[],
  all: Array<LoadedFile | Omit<LoadedFile, "settings">>,
  ctx: MergeContext,
): LoadedSettings {
  const { cwd, home, cli, trust, projectMcp } = ctx;
  const layers: Layer[] = [];
  for (const f of loaded) if (f.level === "managed") layers.push({ source: f.path, level: f.level, root: f.root, settings: f.settings });
  layers.push(cliLayer(cli, cwd));
  for (const f of loaded) if (f.level !== "managed") layers.push({ source: f.path, level: f.level, root: f.root, settings: f.settings });

  const warnings: string[] = [];
  const ignored: IgnoredSetting[] = [];
  const ignore = (layer: Layer, key: string, value: unknown, why: IgnoredSetting["why"]): void => {
    ignored.push({ source: layer.source, key, detail: describeWidening(key, value), why });
  };
  const managed = layers.find((l) => l.level === "managed")?.settings;
  const isProject = (l: Layer): boolean => l.level === "project" || l.level === "local";
  // Policy keys take their most restrictive value across levels, within what each level governs:
  // a project narrows its own configuration, never reaching into the user's (dropping the user's
  // deny rules or guard hooks would widen, not narrow).
  const managedRulesOnly = layers.some((l) => !isProject(l) && l.settings.allowManagedPermissionRulesOnly === true);
  // disableAllHooks in managed settings turns every hook off; in the user's or a --settings file,
  // all but managed ones; in the project's, the project's own.
  const hooksOff = (l: Layer): boolean => l.settings.allowManagedHooksOnly === true || (l.level !== "managed" && l.settings.disableAllHooks === true);
  const managedHooksOnly = layers.some((l) => !isProject(l) && hooksOff(l));
  const noProjectHooks = layers.some((l) => isProject(l) && hooksOff(l));
  const noHooks = managed?.disableAllHooks === true;
  const hookPolicy = narrowestHookPolicy(layers);
  const disableBypass = layers.some((l) => l.settings.permissions?.disableBypassPermissionsMode === "disable");
  const disableAuto = layers.some((l) => l.settings.permissions?.disableAutoMode === "disable");

  const rules: PermissionRule[] = [];
  const additionalDirectories: string[] = [];
  const env: Record<string, string> = {};
  const hooks: LoadedSettings["hooks"] = [];
  const mcpServers: LoadedSettings["mcpServers"] = [];
  const mcpApproval: LoadedSettings["mcpApproval"] = { enabledMcpjsonServers: [], disabledMcpjsonServers: [] };
  let mode: PermissionMode | undefined;
  let modeSource = "built-in default";
  const realCwd = realPathOrSelf(cwd);

  for (const layer of layers) {
    const fromProject = isProject(layer);
    // An untrusted project's own settings may only restrict.
    const widens = !fromProject || trust.trusted;
    const p = layer.settings.permissions;
    if (p && (!managedRulesOnly || layer.level === "managed")) {
      for (const behavior of ["deny", "ask", "allow"] as const) {
        const raws = p[behavior] ?? [];
        if (behavior === "allow" && !widens) {
          if (raws.length > 0) ignore(layer, "permissions.allow", raws, "untrusted");
          continue;
        }
        raws.forEach((raw, i) => {
          try {
            rules.push(parseRule(raw, behavior, layer.source, layer.root));
          } catch (err) {
            if (err instanceof RuleParseError) throw new SettingsError(layer.source, `permissions.${behavior}[${i}]`, `${JSON.stringify(raw)}: ${err.problem}`);
            throw err;
          }
        });
      }
    }
    const dirs = p?.additionalDirectories ?? [];
    if (!widens && dirs.length > 0) ignore(layer, "permissions.additionalDirectories", dirs, "untrusted");
    for (const d of widens ? dirs : []) {
      const expanded = d === "~" ? home : d.startsWith("~/") ? join(home, d.slice(2)) : d;
      // Judged by where it leads: `rootlink -> /` inside the project is the root, not the project.
      const abs = realPathOrSelf(resolve(layer.root, expanded));
      if (fromProject && trust.state === "override" && !isInsideDir(abs, realCwd) && !isInsideDir(abs, cwd)) {
        warnings.push(`${layer.source}: permissions.additionalDirectories ${JSON.stringify(d)} leads to ${abs}, outside the project (allowed: --trust-project)`);
      }
      if (!additionalDirectories.includes(abs)) additionalDirectories.push(abs);
    }
    const wanted = p?.defaultMode === "manual" ? "default" : p?.defaultMode;
    if (wanted !== undefined && !widens) ignore(layer, "permissions.defaultMode", wanted, "untrusted");
    else if (wanted !== undefined && mode === undefined) {
      if (fromProject && (wanted === "bypassPermissions" || wanted === "auto") && !cli.allowBypassFromProject) {
        warnings.push(
          `${layer.source}: permissions.defaultMode ${JSON.stringify(wanted)} is ignored: project settings cannot choose it on their own (pass --mode ${wanted}, or --allow-project-bypass)`,
        );
      } else {
        mode = wanted;
        modeSource = layer.level === "cli" ? "--mode" : layer.source;
      }
    }
    const layerEnv = Object.entries(layer.settings.env ?? {});
    if (!widens && layerEnv.length > 0) ignore(layer, "env", Object.fromEntries(layerEnv), "untrusted");
    const notInert: string[] = [];
    for (const [k, v] of widens ? layerEnv : []) {
      if (fromProject && !cli.allowProjectEnv && inertEnvReason(k, v) === null) {
        notInert.push(k);
        continue;
      }
      if (!(k in env)) env[k] = v;
    }
    if (notInert.length > 0) {
      ignored.push({ source: layer.source, key: "env", detail: `env (${notInert.join(", ")})`, why: "not-inert-env" });
      warnings.push(
        `${layer.source}: env ${notInert.join(", ")} ignored: a project's settings may set only inert variables (NODE_ENV, LANG, TZ, CI, *_PORT…). Set them in your own settings, or pass --allow-project-env`,
      );
    }
    warnings.push(...unknownKeyWarnings(layer));
    if (layer.settings.hooks !== undefined && !noHooks && (!managedHooksOnly || layer.level === "managed") && !(fromProject && noProjectHooks)) {
      if (widens) hooks.push({ source: layer.source, config: layer.settings.hooks, ...(fromProject ? { fromProject: true } : {}) });
      else if (Object.keys(layer.settings.hooks).length > 0) ignore(layer, "hooks", layer.settings.hooks, "untrusted");
    }
    const servers = layer.settings.mcpServers;
    if (servers !== undefined && Object.keys(servers).length > 0) {
      if (widens) mcpServers.push({ source: layer.source, level: layer.level, config: servers });
      else ignore(layer, "mcpServers", servers, "untrusted");
    }
    const raw = layer.settings as Record<string, unknown>;
    if (!widens) {
      for (const key of ["enableAllProjectMcpServers", "enabledMcpjsonServers"] as const) {
        const v = raw[key];
        if (v !== undefined && v !== false) ignore(layer, key, v, "untrusted");
      }
      if ((layer.settings.import ?? []).length > 0) ignore(layer, "import", layer.settings.import, "untrusted");
    }
    // A project's file never approves the project's servers, trusted or not: approval is the user's.
    if (!fromProject) {
      if (mcpApproval.enableAllProjectMcpServers === undefined && typeof raw.enableAllProjectMcpServers === "boolean") {
        mcpApproval.enableAllProjectMcpServers = raw.enableAllProjectMcpServers;
      }
      mcpApproval.enabledMcpjsonServers.push(...stringsOf(raw.enabledMcpjsonServers));
    }
    mcpApproval.disabledMcpjsonServers.push(...stringsOf(raw.disabledMcpjsonServers));
  }
  const sandbox = mergeSandboxLayers(
    layers.map((layer) => ({ source: layer.source, root: layer.root, home, widens: !isProject(layer) || trust.trusted, project: isProject(layer), settings: layer.settings.sandbox })),
  );
  for (const i of sandbox.ignored) ignored.push({ source: i.source, key: i.key, detail: describeWidening(i.key, i.value), why: "untrusted" });
  if (projectMcp.exists && !projectMcp.allowed) {
    ignored.push({ source: projectMcp.path, key: "mcpServers", detail: visible(`mcpServers (${projectMcp.shown || "none readable"})`), why: "untrusted" });
  }
  for (const d of ctx.skippedDefinitions ?? []) {
    ignored.push({ source: d.path, key: d.kind, detail: `${d.kind === "skills" ? "skills" : "sub-agent definitions"} (${d.names.join(", ")})`, why: "untrusted" });
  }
  const untrusted = untrustedWarning(trust, ignored);
  if (untrusted) warnings.unshift(untrusted);

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
    mcpServers,
    mcpApproval,
    projectMcp,
    trust,
    ignored,
    sources: all.map((f) => ({ path: f.path, level: f.level, loaded: isLoaded(f) })),
    warnings,
    sandbox: sandbox.settings,
  };
}
