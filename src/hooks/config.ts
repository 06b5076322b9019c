import { z } from "zod";
import { parseRule, RuleParseError } from "../permissions/rule.js";
import { compileMatcher, MatcherSyntaxError, type HookMatcher } from "./matcher.js";
import { HOOK_MATCH_FIELD, LOOP_HOOK_EVENTS, TOOL_HOOK_EVENTS, type HookEventName } from "./types.js";

/** Claude Code events armature does not fire (yet): accepted with a warning, never run. */
const FOREIGN_EVENTS = new Set([
  "Setup", "InstructionsLoaded", "UserPromptExpansion", "MessageDisplay", "TaskCreated",
  "TaskCompleted", "StopFailure", "TeammateIdle", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged",
  "WorktreeCreate", "WorktreeRemove", "PostCompact", "Elicitation", "ElicitationResult",
]);
const EVENTS: ReadonlySet<string> = new Set<string>([...TOOL_HOOK_EVENTS, ...LOOP_HOOK_EVENTS]);
/** Events that accept only command hooks (facts §3.3). */
const COMMAND_ONLY_EVENTS: ReadonlySet<string> = new Set<string>(["SessionStart"]);
const UNSUPPORTED_TYPES = new Set(["prompt", "agent", "mcp_tool"]);

export interface HookConfigIssue {
  /** Key path inside the settings file, e.g. `hooks.PreToolUse[0].hooks[1].timeout`. */
  path: string;
  message: string;
}

/** A `hooks` object that does not validate. Names the file and every key that is wrong. */
export class HookConfigError extends Error {
  constructor(
    readonly source: string,
    readonly issues: HookConfigIssue[],
  ) {
    super(`invalid hooks in ${source}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
    this.name = "HookConfigError";
  }
}

const seconds = z
  .number({ error: "must be a number of seconds" })
  .positive({ error: "must be a positive number of seconds" })
  .max(86_400, { error: "must be at most 86400 seconds (one day)" });

const common = {
  timeout: seconds.optional(),
  statusMessage: z.string().optional(),
  if: z.string({ error: "must be a permission rule string such as \"Bash(git *)\"" }).optional(),
  once: z.boolean().optional(),
};

const commandHandlerSchema = z.strictObject({
  type: z.literal("command"),
  command: z.string({ error: "must be the command to run (a string)" }).trim().min(1, { error: "must not be empty" }),
  args: z.array(z.string(), { error: "must be an array of strings" }).optional(),
  async: z.boolean().optional(),
  asyncRewake: z.boolean().optional(),
  shell: z.enum(["bash"], { error: "only \"bash\" is supported here (PowerShell is not available)" }).optional(),
  ...common,
});

const httpHandlerSchema = z.strictObject({
  type: z.literal("http"),
  url: z.string({ error: "must be an http(s) URL" }).refine(isHttpUrl, { error: "must be an http:// or https:// URL" }),
  headers: z.record(z.string(), z.string({ error: "header values must be strings" })).optional(),
  allowedEnvVars: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "must be an environment variable name" })).optional(),
  ...common,
});

const groupSchema = z.strictObject({
  matcher: z.string({ error: "must be a string (a tool name, a list like \"Edit|Write\", or a regex)" }).optional(),
  hooks: z.array(z.unknown(), { error: "must be an array of hook handlers" }),
});

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

interface HandlerBase {
  event: HookEventName;
  /** The settings file that defined it. */
  source: string;
  /** Its key path in that file. */
  path: string;
  timeoutSeconds?: number;
  statusMessage?: string;
  /** A permission rule (tool events only): the handler runs only when the call matches it. */
  if?: string;
  once: boolean;
  /** Identical handlers (same key) run once per event. */
  key: string;
}

export interface CommandHookHandler extends HandlerBase {
  type: "command";
  command: string;
  /** Present: exec form, no shell. */
  args?: string[];
  async: boolean;
}

export interface HttpHookHandler extends HandlerBase {
  type: "http";
  url: string;
  headers: Record<string, string>;
  allowedEnvVars: string[];
}

export type HookHandler = CommandHookHandler | HttpHookHandler;

export interface HookGroup {
  event: HookEventName;
  matcher?: string;
  match: HookMatcher;
  handlers: HookHandler[];
}

export interface ParsedHooksConfig {
  source: string;
  groups: HookGroup[];
  /** Problems that do not stop loading (events armature does not fire, ignored matchers). */
  warnings: string[];
}

/**
 * Validates one settings file's `hooks` object. Throws HookConfigError naming the file and each
 * bad key path. An unknown event name is an error; a Claude Code event armature does not fire is
 * a warning (its hooks never run). `undefined`/`null` is an empty configuration.
 */
export function parseHooksConfig(config: unknown, source: string): ParsedHooksConfig {
  const parsed: ParsedHooksConfig = { source, groups: [], warnings: [] };
  if (config === undefined || config === null) return parsed;
  const issues: HookConfigIssue[] = [];
  if (typeof config !== "object" || Array.isArray(config)) {
    throw new HookConfigError(source, [{ path: "hooks", message: "must be an object keyed by event name, e.g. {\"PreToolUse\": [...]}" }]);
  }
  for (const [eventName, groups] of Object.entries(config)) {
    const eventPath = `hooks.${eventName}`;
    if (!EVENTS.has(eventName)) {
      if (FOREIGN_EVENTS.has(eventName)) {
        parsed.warnings.push(`${source}: ${eventPath}: armature does not fire ${eventName}; these hooks never run`);
        continue;
      }
      issues.push({ path: eventPath, message: unknownEventMessage(eventName) });
      continue;
    }
    const event = eventName as HookEventName;
    if (!Array.isArray(groups)) {
      issues.push({ path: eventPath, message: "must be an array of {matcher, hooks} groups" });
      continue;
    }
    groups.forEach((rawGroup, gi) => {
      const groupPath = `${eventPath}[${gi}]`;
      const group = groupSchema.safeParse(rawGroup);
      if (!group.success) {
        issues.push(...zodIssues(group.error, groupPath));
        return;
      }
      let match: HookMatcher;
      try {
        match = compileMatcher(group.data.matcher);
      } catch (err) {
        if (!(err instanceof MatcherSyntaxError)) throw err;
        issues.push({ path: `${groupPath}.matcher`, message: err.problem });
        return;
      }
      const matcher = group.data.matcher;
      if (matcher !== undefined && matcher.trim() !== "" && matcher.trim() !== "*" && HOOK_MATCH_FIELD[event] === undefined) {
        parsed.warnings.push(`${source}: ${groupPath}.matcher: ${event} takes no matcher; it is ignored and the hooks run for every ${event}`);
      }
      const handlers: HookHandler[] = [];
      group.data.hooks.forEach((rawHandler, hi) => {
        const handlerPath = `${groupPath}.hooks[${hi}]`;
        const handler = parseHandler(rawHandler, event, source, handlerPath, issues);
        if (!handler) return;
        if (handler.if !== undefined && HOOK_MATCH_FIELD[event] !== "tool_name") {
          parsed.warnings.push(`${source}: ${handlerPath}.if: "if" applies to events about one tool call only; on ${event} this handler never runs`);
          return;
        }
        handlers.push(handler);
      });
      const out: HookGroup = { event, match, handlers };
      if (matcher !== undefined) out.matcher = matcher;
      parsed.groups.push(out);
    });
  }
  if (issues.length > 0) throw new HookConfigError(source, issues);
  return parsed;
}

function parseHandler(raw: unknown, event: HookEventName, source: string, path: string, issues: HookConfigIssue[]): HookHandler | undefined {
  const type = typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
  if (typeof type === "string" && UNSUPPORTED_TYPES.has(type)) {
    issues.push({ path: `${path}.type`, message: `"${type}" hooks are not supported by armature; use a "command" or "http" hook` });
    return undefined;
  }
  if (type !== "command" && type !== "http") {
    issues.push({ path: `${path}.type`, message: `must be "command" or "http" (got ${JSON.stringify(type)})` });
    return undefined;
  }
  if (type === "http" && COMMAND_ONLY_EVENTS.has(event)) {
    issues.push({ path: `${path}.type`, message: `${event} supports only "command" hooks` });
    return undefined;
  }
  const result = type === "command" ? commandHandlerSchema.safeParse(raw) : httpHandlerSchema.safeParse(raw);
  if (!result.success) {
    issues.push(...zodIssues(result.error, path));
    return undefined;
  }
  const data = result.data;
  if (data.if !== undefined) {
    try {
      parseRule(data.if, "allow", source);
    } catch (err) {
      if (!(err instanceof RuleParseError)) throw err;
      issues.push({ path: `${path}.if`, message: err.problem });
      return undefined;
    }
  }
  const base = {
    event,
    source,
    path,
    once: data.once ?? false,
    ...(data.timeout !== undefined ? { timeoutSeconds: data.timeout } : {}),
    ...(data.statusMessage !== undefined ? { statusMessage: data.statusMessage } : {}),
    ...(data.if !== undefined ? { if: data.if } : {}),
  };
  if (data.type === "command") {
    const handler: CommandHookHandler = {
      ...base,
      type: "command",
      command: data.command,
      async: data.async === true || data.asyncRewake === true,
      key: JSON.stringify(["command", data.command, data.args ?? null, data.if ?? null]),
    };
    if (data.args !== undefined) handler.args = data.args;
    return handler;
  }
  return {
    ...base,
    type: "http",
    url: data.url,
    headers: data.headers ?? {},
    allowedEnvVars: data.allowedEnvVars ?? [],
    key: JSON.stringify(["http", data.url, data.headers ?? {}, data.if ?? null]),
  };
}

function zodIssues(error: z.ZodError, prefix: string): HookConfigIssue[] {
  return error.issues.map((issue) => {
    let path = prefix + issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") {
      path = `${path}.${issue.keys[0] ?? ""}`;
      message = `unknown key${issue.keys.length > 1 ? `s ${issue.keys.join(", ")}` : ""}; remove it or fix its spelling`;
    }
    return { path, message };
  });
}

function unknownEventMessage(name: string): string {
  const lower = name.toLowerCase();
  const near = [...EVENTS].find((e) => e.toLowerCase() === lower);
  const hint = near ? `did you mean ${near}?` : `the events are ${[...EVENTS].join(", ")}`;
  return `unknown hook event ${JSON.stringify(name)}; ${hint}`;
}
