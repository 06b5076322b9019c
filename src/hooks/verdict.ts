import { z } from "zod";
import type { HookEventName, HookOutcome, HookPermissionUpdate } from "./types.js";

/** Every string a hook hands back is capped at this many characters. */
export const HOOK_OUTPUT_MAX_CHARS = 10_000;

/** How one handler ended, before its output is read. */
export type HookExecution =
  | { kind: "exit"; code: number; stdout: string; stderr: string }
  | { kind: "signal"; signal: string; stderr: string }
  | { kind: "timeout"; seconds: number }
  | { kind: "aborted" }
  | { kind: "spawn-error"; message: string }
  | { kind: "http"; status: number; body: string }
  | { kind: "http-error"; message: string };

type Decision = "allow" | "deny" | "ask" | "defer";

/** What one handler said. Pure data; `combineVerdicts` merges several into a HookOutcome. */
export interface HookVerdict {
  decision?: Decision;
  decisionReason?: string;
  updatedInput?: Record<string, unknown>;
  updatedPermissions?: HookPermissionUpdate[];
  block?: string;
  additionalContext: string[];
  systemMessage?: string;
  stopReason?: string;
  suppressOutput: boolean;
  retry?: boolean;
  updatedToolOutput?: unknown;
  hasUpdatedToolOutput?: boolean;
  errors: string[];
}

const destination = z.enum(["session", "localSettings", "projectSettings", "userSettings"]);
const permissionUpdate = z.union([
  z.object({
    type: z.enum(["addRules", "replaceRules", "removeRules"]),
    rules: z.array(z.object({ toolName: z.string(), ruleContent: z.string().optional() })),
    behavior: z.enum(["allow", "deny", "ask"]),
    destination,
  }),
  z.object({ type: z.literal("setMode"), mode: z.string(), destination }),
  z.object({ type: z.enum(["addDirectories", "removeDirectories"]), directories: z.array(z.string()), destination }),
]);
const inputObject = z.record(z.string(), z.unknown());

const hookJsonSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(["block", "approve"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(["allow", "deny", "ask", "defer"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: inputObject.optional(),
      additionalContext: z.string().optional(),
      decision: z
        .looseObject({
          behavior: z.enum(["allow", "deny"]),
          updatedInput: inputObject.optional(),
          updatedPermissions: z.array(permissionUpdate).optional(),
          message: z.string().optional(),
          interrupt: z.boolean().optional(),
        })
        .optional(),
      retry: z.boolean().optional(),
      updatedToolOutput: z.unknown().optional(),
      updatedMCPToolOutput: z.unknown().optional(),
    })
    .optional(),
});
type HookJson = z.infer<typeof hookJsonSchema>;

/** Events where exit code 2 (or `decision: "block"`) blocks and the reason reaches the model. */
const BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set<HookEventName>([
  "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact",
]);
/** Events whose exit-2 stderr is shown to the user only. */
const USER_ONLY_EVENTS: ReadonlySet<HookEventName> = new Set<HookEventName>(["SessionStart", "SessionEnd"]);
/** Events whose plain (non-JSON) stdout on exit 0 becomes context for the model. */
const PLAIN_STDOUT_EVENTS: ReadonlySet<HookEventName> = new Set<HookEventName>(["SessionStart", "UserPromptSubmit"]);

export function capHookText(text: string): string {
  if (text.length <= HOOK_OUTPUT_MAX_CHARS) return text;
  const note = `\n… [${text.length - (HOOK_OUTPUT_MAX_CHARS - 60)} more characters cut]`;
  return text.slice(0, HOOK_OUTPUT_MAX_CHARS - note.length) + note;
}

function emptyVerdict(): HookVerdict {
  return { additionalContext: [], suppressOutput: false, errors: [] };
}

function firstLine(text: string): string {
  return text.trim().split("\n", 1)[0]?.trim() ?? "";
}

type JsonRead = { kind: "none" } | { kind: "json"; value: HookJson } | { kind: "invalid"; problem: string };

/** Reads output as hook JSON when its first non-space character is `{`. */
function readJson(text: string): JsonRead {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return { kind: "none" };
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch (err) {
    return { kind: "invalid", problem: `printed output starting with "{" that is not valid JSON (${(err as Error).message})` };
  }
  const parsed = hookJsonSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.map(String).join(".") || "(top level)" : "(top level)";
    return { kind: "invalid", problem: `printed JSON that does not follow the hook output format: ${where}: ${issue?.message ?? "invalid"}` };
  }
  return { kind: "json", value: parsed.data };
}

/**
 * Turns how one handler ended into what it said, following the exit-code and JSON rules:
 * exit 0 → success (JSON read when stdout starts with `{`); exit 2 → block with stderr on events
 * that can block; any other end → a non-blocking error, unless stdout is valid hook JSON.
 */
export function interpretExecution(event: HookEventName, label: string, run: HookExecution): HookVerdict {
  const verdict = emptyVerdict();
  const fail = (message: string): HookVerdict => {
    verdict.errors.push(capHookText(`${event} hook ${label} ${message}`));
    return verdict;
  };
  switch (run.kind) {
    case "timeout":
      return fail(`timed out after ${run.seconds} s and was stopped; it made no decision`);
    case "aborted":
      return fail("was stopped because the call was aborted; it made no decision");
    case "spawn-error":
      return fail(`could not be started: ${run.message}`);
    case "http-error":
      return fail(`failed: ${run.message}; it made no decision`);
    case "signal":
      return fail(`was killed by ${run.signal}${run.stderr.trim() ? `: ${firstLine(run.stderr)}` : ""}; it made no decision`);
    case "http": {
      if (run.status < 200 || run.status > 299) return fail(`answered HTTP ${run.status}; it made no decision`);
      return readSuccess(event, label, run.body, verdict);
    }
    case "exit": {
      if (run.code === 0) return readSuccess(event, label, run.stdout, verdict);
      if (run.code === 2) return readBlock(event, label, run, verdict);
      const json = readJson(run.stdout);
      if (json.kind === "json") return applyJson(event, label, json.value, verdict);
      const detail = firstLine(run.stderr) || firstLine(run.stdout) || "no output";
      const missing = run.code === 127 ? " (command not found: check the path and that the script is executable)" : run.code === 126 ? " (not executable)" : "";
      return fail(`exited with code ${run.code}${missing}: ${detail}`);
    }
  }
}

function readSuccess(event: HookEventName, label: string, stdout: string, verdict: HookVerdict): HookVerdict {
  const json = readJson(stdout);
  if (json.kind === "json") return applyJson(event, label, json.value, verdict);
  if (json.kind === "invalid") verdict.errors.push(capHookText(`${event} hook ${label} ${json.problem}`));
  const text = stdout.trim();
  if (text && PLAIN_STDOUT_EVENTS.has(event)) verdict.additionalContext.push(capHookText(text));
  return verdict;
}

function readBlock(event: HookEventName, label: string, run: { stdout: string; stderr: string }, verdict: HookVerdict): HookVerdict {
  const json = readJson(run.stdout);
  const fromJson = json.kind === "json" ? (json.value.reason ?? json.value.hookSpecificOutput?.permissionDecisionReason) : undefined;
  const reason = capHookText(fromJson ?? (run.stderr.trim() || `${label} exited with code 2 and gave no reason`));
  if (BLOCKING_EVENTS.has(event)) verdict.block = reason;
  else if (USER_ONLY_EVENTS.has(event)) verdict.systemMessage = reason;
  else verdict.errors.push(capHookText(`${event} hook ${label} exited with code 2, which has no effect on ${event}: ${reason}`));
  return verdict;
}

function applyJson(event: HookEventName, label: string, json: HookJson, verdict: HookVerdict): HookVerdict {
  const specific = json.hookSpecificOutput;
  if (specific?.hookEventName !== undefined && specific.hookEventName !== event) {
    verdict.errors.push(`${event} hook ${label} returned hookSpecificOutput for ${specific.hookEventName}; it was ignored`);
  } else if (specific) {
    applySpecific(event, specific, verdict);
  }
  if (json.suppressOutput === true) verdict.suppressOutput = true;
  if (json.systemMessage !== undefined) verdict.systemMessage = capHookText(json.systemMessage);
  if (json.decision === "block") {
    const reason = capHookText(json.reason ?? `blocked by ${event} hook ${label}`);
    if (event === "PreToolUse") {
      if (verdict.decision === undefined) {
        verdict.decision = "deny";
        verdict.decisionReason = reason;
      }
    } else if (BLOCKING_EVENTS.has(event)) {
      verdict.block = reason;
    }
  } else if (json.decision === "approve" && event === "PreToolUse" && verdict.decision === undefined) {
    verdict.decision = "allow";
    if (json.reason !== undefined) verdict.decisionReason = capHookText(json.reason);
  }
  if (json.continue === false) {
    verdict.stopReason = capHookText(json.stopReason ?? `${event} hook ${label} stopped the session (continue: false)`);
    // `continue: false` overrides decisions: the call does not run, an approval is refused.
    if (event === "PreToolUse") verdict.block = verdict.block ?? verdict.stopReason;
    if (event === "PermissionRequest") {
      verdict.decision = "deny";
      verdict.decisionReason = verdict.stopReason;
    }
  }
  return verdict;
}

type Specific = NonNullable<HookJson["hookSpecificOutput"]>;

function applySpecific(event: HookEventName, specific: Specific, verdict: HookVerdict): void {
  if (specific.additionalContext !== undefined && specific.additionalContext.trim() !== "") {
    verdict.additionalContext.push(capHookText(specific.additionalContext));
  }
  if (event === "PreToolUse") {
    if (specific.permissionDecision !== undefined) verdict.decision = specific.permissionDecision;
    if (specific.permissionDecisionReason !== undefined) verdict.decisionReason = capHookText(specific.permissionDecisionReason);
    if (specific.updatedInput !== undefined) verdict.updatedInput = specific.updatedInput;
  } else if (event === "PermissionRequest") {
    const d = specific.decision;
    if (d) {
      verdict.decision = d.behavior;
      if (d.message !== undefined) verdict.decisionReason = capHookText(d.message);
      if (d.updatedInput !== undefined) verdict.updatedInput = d.updatedInput;
      if (d.updatedPermissions !== undefined) verdict.updatedPermissions = d.updatedPermissions as HookPermissionUpdate[];
      if (d.interrupt === true && d.behavior === "deny") verdict.stopReason = capHookText(d.message ?? "A PermissionRequest hook denied the call and interrupted the session");
    } else if (specific.permissionDecision === "allow" || specific.permissionDecision === "deny") {
      verdict.decision = specific.permissionDecision;
      if (specific.permissionDecisionReason !== undefined) verdict.decisionReason = capHookText(specific.permissionDecisionReason);
      if (specific.updatedInput !== undefined) verdict.updatedInput = specific.updatedInput;
    }
  } else if (event === "PermissionDenied") {
    if (specific.retry === true) verdict.retry = true;
  } else if (event === "PostToolUse") {
    const replacement = specific.updatedToolOutput !== undefined ? specific.updatedToolOutput : specific.updatedMCPToolOutput;
    if (replacement !== undefined) {
      verdict.updatedToolOutput = replacement;
      verdict.hasUpdatedToolOutput = true;
    }
  }
}

const RANK: Record<Decision, number> = { allow: 1, ask: 2, defer: 3, deny: 4 };

/**
 * Merges the verdicts of every handler that ran (in configuration order): deny > defer > ask >
 * allow; the reason and `updatedInput` come from the deciding hook; blocks, context, messages and
 * errors are all kept.
 */
export function combineVerdicts(verdicts: readonly HookVerdict[]): HookOutcome {
  const outcome: HookOutcome = { additionalContext: [], systemMessages: [], suppressOutput: false, errors: [], hookCount: verdicts.length };
  const blocks: string[] = [];
  let winner: HookVerdict | undefined;
  for (const v of verdicts) {
    if (v.decision !== undefined && (winner?.decision === undefined || RANK[v.decision] > RANK[winner.decision])) winner = v;
    if (v.block !== undefined) blocks.push(v.block);
    outcome.additionalContext.push(...v.additionalContext);
    if (v.systemMessage !== undefined) outcome.systemMessages.push(v.systemMessage);
    if (v.stopReason !== undefined && outcome.stopReason === undefined) outcome.stopReason = v.stopReason;
    if (v.suppressOutput) outcome.suppressOutput = true;
    if (v.retry) outcome.retry = true;
    if (v.hasUpdatedToolOutput && !("updatedToolOutput" in outcome)) outcome.updatedToolOutput = v.updatedToolOutput;
    outcome.errors.push(...v.errors);
  }
  if (blocks.length > 0) outcome.blockReason = capHookText(blocks.join("\n"));
  const decision = winner?.decision;
  if (decision === "defer") {
    outcome.deferred = true;
  } else if (decision !== undefined) {
    outcome.permissionDecision = decision;
    // Among the hooks that gave the winning decision, the first with a reason / a rewrite speaks.
    const same = verdicts.filter((v) => v.decision === decision);
    const reason = same.find((v) => v.decisionReason !== undefined)?.decisionReason;
    if (reason !== undefined) outcome.permissionDecisionReason = reason;
    if (decision !== "deny") {
      const rewrite = same.find((v) => v.updatedInput !== undefined);
      if (rewrite?.updatedInput) outcome.updatedInput = rewrite.updatedInput;
      const perms = same.find((v) => v.updatedPermissions !== undefined);
      if (perms?.updatedPermissions) outcome.updatedPermissions = perms.updatedPermissions;
    }
  }
  if (decision === undefined || decision === "defer") {
    // No hook decided: a rewrite alone still applies (the first one, in configuration order).
    const rewrite = verdicts.find((v) => v.updatedInput !== undefined);
    if (rewrite?.updatedInput) outcome.updatedInput = rewrite.updatedInput;
  }
  return outcome;
}
