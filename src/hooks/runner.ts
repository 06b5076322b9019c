import { parseRule } from "../permissions/rule.js";
import { runCommandHook } from "./command.js";
import type { ProjectCodeBoundary } from "../sandbox/project-code.js";
import { parseHooksConfig, type HookGroup, type HookHandler, type ParsedHooksConfig } from "./config.js";
import { runHttpHook } from "./http.js";
import {
  emptyHookOutcome,
  HOOK_MATCH_FIELD,
  TOOL_HOOK_EVENTS,
  type HookEventName,
  type HookInput,
  type HookOutcome,
  type HookPayload,
  type HookRunner,
} from "./types.js";
import { combineVerdicts, interpretExecution, type HookExecution, type HookVerdict } from "./verdict.js";

export const DEFAULT_HOOK_TIMEOUT_MS = 600_000;
/** Per-event defaults that differ from 600 s (facts §3.3). */
const EVENT_DEFAULT_TIMEOUT_MS: Partial<Record<HookEventName, number>> = { UserPromptSubmit: 30_000, SessionEnd: 1_500 };
/** SessionEnd must not hold up the exit: an explicit timeout is capped too. */
const SESSION_END_MAX_MS = 60_000;
const HAS_CACHE_MAX = 4_096;
const TOOL_EVENTS: ReadonlySet<string> = new Set<string>(TOOL_HOOK_EVENTS);

/** Decides a handler's `if` rule against a tool call; the permission engine can plug its matcher in. */
export type HookIfMatcher = (rule: string, toolName: string, toolInput: unknown) => boolean;

export interface HookRunnerOptions {
  /** The project root: the hooks' cwd and `ARMATURE_PROJECT_DIR` / `CLAUDE_PROJECT_DIR`. */
  projectDir: string;
  /** Added to the inherited environment (e.g. the settings' `env`). */
  env?: Record<string, string>;
  /** Timeout of a handler without its own `timeout` (default 600 s). */
  defaultTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when a command hook is stopped (default 1 s). */
  killGraceMs?: number;
  /**
   * Evaluates a handler's `if` rule. The default compares the tool name only and runs the
   * handler when the rule has a specifier it cannot evaluate (failing open runs the hook).
   */
  ifMatcher?: HookIfMatcher;
  /**
   * Settings `allowedHttpHookUrls`: the URLs HTTP hooks may POST to (`*` matches any run of
   * characters). Undefined: no restriction; empty: no HTTP hooks. A hook outside it is dropped
   * with a warning.
   */
  allowedHttpHookUrls?: readonly string[];
  /** Settings `httpHookAllowedEnvVars`: narrows every HTTP hook's `allowedEnvVars` to these names. */
  httpHookAllowedEnvVars?: readonly string[];
  /** Receives what background (`async: true`) handlers said, since no call waits for them. */
  onBackgroundOutcome?: (event: HookEventName, outcome: HookOutcome) => void;
  /**
   * Where the command hooks of the project's own files run (sandbox/project-code.ts): inside the
   * sandbox's boundary. Absent: on the host, like the user's own hooks.
   */
  projectBoundary?: ProjectCodeBoundary;
}

export interface ConfiguredHookRunner extends HookRunner {
  /** Problems in the configuration that did not stop loading. */
  readonly warnings: readonly string[];
  /** Every configured handler, in order (for `armature hooks list`-style output). */
  readonly handlers: readonly HookHandler[];
}

export type HookConfigSource = { source: string; config: unknown; fromProject?: boolean } | ParsedHooksConfig;

/**
 * Builds a runner from every settings file's `hooks` object (merged, in the order given; never
 * replaced). Throws HookConfigError for a file that does not validate.
 */
export function createHookRunner(configs: readonly HookConfigSource[], options: HookRunnerOptions): ConfiguredHookRunner {
  const parsed = configs.map((c) => ("groups" in c ? c : parseHooksConfig(c.config, c.source)));
  const projectSources = new Set(configs.filter((c) => !("groups" in c) && c.fromProject === true).map((c) => (c as { source: string }).source));
  const warnings = parsed.flatMap((p) => p.warnings);
  const byEvent = new Map<HookEventName, HookGroup[]>();
  const allHandlers: HookHandler[] = [];
  for (const file of parsed) {
    for (const raw of file.groups) {
      const group = applyHttpPolicy(raw, options, warnings);
      allHandlers.push(...group.handlers);
      if (group.handlers.length === 0) continue;
      const list = byEvent.get(group.event) ?? [];
      list.push(group);
      byEvent.set(group.event, list);
    }
  }
  const ranOnce = new Set<string>();
  const hasCache = new Map<HookEventName, Map<string, boolean>>();
  const env: NodeJS.ProcessEnv = { ...process.env, ...(options.env ?? {}) };
  for (const key of Object.keys(env)) if (key.startsWith("OTEL_")) delete env[key];
  env.ARMATURE_PROJECT_DIR = options.projectDir;
  env.CLAUDE_PROJECT_DIR = options.projectDir;
  const ifMatcher = options.ifMatcher ?? toolNameIfMatcher;

  const matching = (event: HookEventName, value: string | undefined): HookGroup[] => {
    const groups = byEvent.get(event);
    if (!groups) return [];
    if (HOOK_MATCH_FIELD[event] === undefined) return groups;
    return groups.filter((g) => g.match(value ?? ""));
  };

  const timeoutMs = (event: HookEventName, handler: HookHandler): number => {
    const explicit = handler.timeoutSeconds !== undefined ? handler.timeoutSeconds * 1000 : undefined;
    const fallback = EVENT_DEFAULT_TIMEOUT_MS[event] ?? options.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    const ms = explicit ?? fallback;
    return event === "SessionEnd" ? Math.min(ms, SESSION_END_MAX_MS) : ms;
  };

  const execute = async (event: HookEventName, handler: HookHandler, body: string, signal: AbortSignal | undefined): Promise<HookVerdict> => {
    const label = handlerLabel(handler);
    let run: HookExecution;
    try {
      const common = { env, timeoutMs: timeoutMs(event, handler), ...(signal ? { signal } : {}) };
      run = handler.type === "command"
        ? await runCommandHook(handler, body, {
            ...common,
            cwd: options.projectDir,
            killGraceMs: options.killGraceMs ?? 1_000,
            ...(projectSources.has(handler.source) && options.projectBoundary ? { boundary: options.projectBoundary } : {}),
          })
        : await runHttpHook(handler, body, common);
    } catch (err) {
      run = { kind: "spawn-error", message: (err as Error).message };
    }
    return interpretExecution(event, label, run);
  };

  return {
    warnings,
    handlers: allHandlers,

    has(event, matchValue) {
      const groups = byEvent.get(event);
      if (!groups) return false;
      if (matchValue === undefined || HOOK_MATCH_FIELD[event] === undefined) return true;
      // Every tool call asks this: remember the answer per (event, value); tool names are few.
      let cache = hasCache.get(event);
      if (!cache) hasCache.set(event, (cache = new Map()));
      const known = cache.get(matchValue);
      if (known !== undefined) return known;
      const answer = groups.some((g) => g.match(matchValue));
      if (cache.size >= HAS_CACHE_MAX) cache.clear();
      cache.set(matchValue, answer);
      return answer;
    },

    async run(event: HookEventName, input: HookInput, matchValue?: string, signal?: AbortSignal): Promise<HookOutcome> {
      const value = matchValue ?? matchValueOf(event, input);
      const seen = new Set<string>();
      const selected: HookHandler[] = [];
      for (const group of matching(event, value)) {
        for (const handler of group.handlers) {
          if (seen.has(handler.key)) continue;
          if (handler.if !== undefined && !ifApplies(handler.if, event, input, ifMatcher)) continue;
          seen.add(handler.key);
          if (handler.once) {
            const onceKey = `${event}\u0000${handler.key}`;
            if (ranOnce.has(onceKey)) continue;
            ranOnce.add(onceKey);
          }
          selected.push(handler);
        }
      }
      if (selected.length === 0) return { ...emptyHookOutcome(), hookCount: 0 };
      const body = safeJson({ ...input, hook_event_name: event });
      const foreground: Promise<HookVerdict>[] = [];
      const background: Promise<HookVerdict>[] = [];
      for (const handler of selected) {
        // Background handlers are not tied to the call's abort: the call does not wait for them.
        if (handler.type === "command" && handler.async) background.push(execute(event, handler, body, undefined));
        else foreground.push(execute(event, handler, body, signal));
      }
      if (background.length > 0) {
        void Promise.all(background).then((verdicts) => {
          try {
            options.onBackgroundOutcome?.(event, combineVerdicts(verdicts));
          } catch {
            // A listener's bug must not become an unhandled rejection that ends the process.
          }
        });
      }
      return combineVerdicts(await Promise.all(foreground));
    },
  };
}

/** Drops HTTP handlers whose URL the settings do not allow; narrows their env var lists. */
function applyHttpPolicy(group: HookGroup, options: HookRunnerOptions, warnings: string[]): HookGroup {
  const urls = options.allowedHttpHookUrls;
  const vars = options.httpHookAllowedEnvVars;
  if (urls === undefined && vars === undefined) return group;
  const handlers: HookHandler[] = [];
  for (const handler of group.handlers) {
    if (handler.type !== "http") {
      handlers.push(handler);
      continue;
    }
    if (urls !== undefined && !urls.some((pattern) => wildcard(pattern).test(handler.url))) {
      warnings.push(`${handler.source}: ${handler.path}.url: ${handler.url} is not in allowedHttpHookUrls; this hook never runs`);
      continue;
    }
    handlers.push(vars === undefined ? handler : { ...handler, allowedEnvVars: handler.allowedEnvVars.filter((v) => vars.includes(v)) });
  }
  return { ...group, handlers };
}

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
}

/**
 * Runs the hooks of one event with a typed payload (for the agent loop: SessionStart,
 * UserPromptSubmit, Stop, …, and PostToolBatch). Cheap when nothing matches.
 */
export async function runHooks<E extends HookEventName>(
  runner: HookRunner | undefined,
  event: E,
  payload: HookPayload<E>,
  signal?: AbortSignal,
): Promise<HookOutcome> {
  const input: HookInput = { ...payload, hook_event_name: event };
  const value = matchValueOf(event, input);
  if (!runner || !runner.has(event, value)) return { ...emptyHookOutcome(), hookCount: 0 };
  return runner.run(event, input, value, signal);
}

function matchValueOf(event: HookEventName, input: HookInput): string | undefined {
  const field = HOOK_MATCH_FIELD[event];
  if (field === undefined) return undefined;
  const value = input[field];
  return typeof value === "string" ? value : undefined;
}

function ifApplies(rule: string, event: HookEventName, input: HookInput, matcher: HookIfMatcher): boolean {
  if (!TOOL_EVENTS.has(event) || typeof input.tool_name !== "string") return false;
  try {
    return matcher(rule, input.tool_name, input.tool_input);
  } catch {
    return true; // cannot evaluate: run the hook rather than skip a policy
  }
}

/** Matches the rule's tool name (MCP server rules by prefix); a specifier it cannot judge runs the hook. */
export const toolNameIfMatcher: HookIfMatcher = (rule, toolName) => {
  const parsed = parseRule(rule, "allow", "hook if");
  if (parsed.toolName === toolName) return true;
  return parsed.toolName.startsWith("mcp__") && parsed.ruleContent === undefined && !parsed.toolName.slice(5).includes("__")
    ? toolName.startsWith(`${parsed.toolName}__`)
    : false;
};

function handlerLabel(handler: HookHandler): string {
  const what = handler.type === "command" ? [handler.command, ...(handler.args ?? [])].join(" ") : handler.url;
  const short = what.length > 80 ? `${what.slice(0, 77)}...` : what;
  return `\`${short}\` (${handler.source})`;
}

/** The input as JSON, whatever a tool put in its response (BigInt, cycles). */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return "[Circular]";
        seen.add(v);
      }
      return v;
    });
  }
}
