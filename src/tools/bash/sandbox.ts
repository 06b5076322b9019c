// How the Bash tool finds its sandbox: the session's (settings, probed once), or a host's explicit
// option. The boundary itself lives in sandbox/.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_SANDBOX_SETTINGS, sandboxStatus, type SandboxStatus } from "../../sandbox/index.js";
import { cachedPathPattern, pathMatches, type PathPattern } from "../../permissions/path-rules.js";
import type { PermissionRule } from "../../tool/types.js";
import type { Env } from "./config.js";

/** A host's explicit sandbox option (createBashTool({ sandbox })); asking for it makes it required. */
export interface SandboxConfig {
  enabled: boolean;
  /** Let sandboxed commands reach the network whatever approved them (default false). */
  allowNetwork?: boolean;
  /** Writable besides the working directories and the temp dir. */
  writablePaths?: readonly string[];
  /**
   * Whether `dangerouslyDisableSandbox` may be granted at all. Default: it asks, in every mode.
   * `true` set here lets bypassPermissions run it without asking; `false` refuses it.
   */
  allowUnsandboxedCommands?: boolean;
  /** The bwrap binary (default: `bwrap` from PATH). */
  bwrapPath?: string;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());
}

/** The sandbox the CLI asks for through the environment: ARMATURE_SANDBOX=1, …_ALLOW_NETWORK=1, …_WRITABLE=a:b. */
export function sandboxConfigFromEnv(env: Env): SandboxConfig | undefined {
  if (!truthy(env.ARMATURE_SANDBOX)) return undefined;
  const writable = (env.ARMATURE_SANDBOX_WRITABLE ?? "").split(":").filter((p) => p.trim() !== "");
  const config: SandboxConfig = { enabled: true, allowNetwork: truthy(env.ARMATURE_SANDBOX_ALLOW_NETWORK), writablePaths: writable };
  if (env.ARMATURE_SANDBOX_ALLOW_UNSANDBOXED !== undefined) config.allowUnsandboxedCommands = truthy(env.ARMATURE_SANDBOX_ALLOW_UNSANDBOXED);
  return config;
}

/** The status of an explicit option: enabled, required (no fallback), probed with its binary. */
export function statusFromConfig(config: SandboxConfig, env: Env): SandboxStatus {
  const settings = {
    ...DEFAULT_SANDBOX_SETTINGS,
    enabled: config.enabled,
    required: config.enabled,
    enabledSource: "the Bash tool's sandbox option",
    allowUnsandboxedCommands: config.allowUnsandboxedCommands !== false,
    unsandboxedUnasked: config.allowUnsandboxedCommands === true,
    allowWrite: [...(config.writablePaths ?? [])],
  };
  const probeEnv = config.bwrapPath !== undefined ? { ...env, ARMATURE_SANDBOX: undefined, ARMATURE_SANDBOX_BWRAP: config.bwrapPath } : { ...env, ARMATURE_SANDBOX: undefined };
  return sandboxStatus(settings, probeEnv);
}

const GLOB = /[*?[\]{}]/;

const restrictive = (rule: PermissionRule, tool: string): boolean => rule.toolName === tool && rule.ruleContent !== undefined && (rule.behavior === "deny" || rule.behavior === "ask");

/**
 * Literal paths that `Read(…)` deny and ask rules name, for the sandbox to mask wherever they are
 * (`Read(~/.pgpass)`, `Read(./secrets/**)` is the secrets directory). Patterns are matched by the
 * walk of the working directories instead (`pathMarker`).
 */
export function deniedReadPaths(rules: readonly PermissionRule[], projectDir: string, home: string = process.env.HOME ?? homedir()): string[] {
  const out: string[] = [];
  for (const rule of rules) {
    if (!restrictive(rule, "Read") || rule.ruleContent === undefined) continue;
    const spec = rule.ruleContent.replace(/\/\*\*?$/, "");
    if (spec === "" || GLOB.test(spec)) continue;
    let path: string;
    if (spec.startsWith("//")) path = spec.slice(1);
    else if (spec === "~" || spec.startsWith("~/")) path = join(home, spec.slice(1));
    else if (spec.startsWith("/")) path = join(rule.root ?? projectDir, spec);
    else path = resolve(projectDir, spec);
    if (!out.includes(path)) out.push(path);
  }
  return out;
}

/**
 * What the walk of the working directories (sandbox/tree-scan.ts) marks by the rules: a path a
 * `Read(…)` deny or ask rule matches is hidden, one an `Edit(…)` deny rule matches is read-only —
 * so a program the analysis does not know reads and writes what `cat` and the file tools may, no
 * more. Undefined without such rules. `key` changes with the rules (the walk caches by it).
 */
export function pathMarker(rules: readonly PermissionRule[], projectDir: string, home: string = process.env.HOME ?? homedir()): { mark: (path: string, directory: boolean) => "hide" | "protect" | undefined; key: string } | undefined {
  const reads = rules.filter((r) => restrictive(r, "Read"));
  const edits = rules.filter((r) => r.behavior === "deny" && restrictive(r, "Edit"));
  if (reads.length === 0 && edits.length === 0) return undefined;
  const compile = (list: PermissionRule[]): PathPattern[] => list.map((r) => cachedPathPattern(r, projectDir, home));
  const hidden = compile(reads);
  const readOnly = compile(edits);
  const key = JSON.stringify([projectDir, home, reads.map((r) => r.raw), edits.map((r) => r.raw)]);
  return {
    key,
    mark: (path) => (hidden.some((p) => pathMatches(p, path, true)) ? "hide" : readOnly.some((p) => pathMatches(p, path, true)) ? "protect" : undefined),
  };
}
