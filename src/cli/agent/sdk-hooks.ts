import { compileMatcher, type HookMatcher } from "../../hooks/matcher.js";
import { combineVerdicts, interpretExecution, type HookVerdict } from "../../hooks/verdict.js";
import { HOOK_MATCH_FIELD, type HookEventName, type HookOutcome, type HookRunner } from "../../hooks/types.js";
import type { ControlChannel } from "./control-channel.js";

/** `initialize.hooks`: per event, matchers naming the host's callbacks by id. */
export type SdkHookConfig = Partial<Record<string, Array<{ matcher?: string; hookCallbackIds?: string[]; timeout?: number }>>>;

interface SdkMatcher {
  match: HookMatcher;
  ids: string[];
  timeoutMs: number;
}

const DEFAULT_CALLBACK_TIMEOUT_MS = 60_000;

/**
 * The host's hook callbacks as a HookRunner: each matching callback is asked with a
 * `hook_callback` control request and its answer is read like a command hook's JSON output
 * (the same verdict rules). Combined with the settings' own hooks when there are some.
 * Returns the problems of the configuration (a matcher that is not a valid pattern is left out).
 */
export function sdkHookRunner(config: SdkHookConfig | undefined, channel: ControlChannel, settingsHooks: HookRunner | undefined): { runner: HookRunner | undefined; problems: string[] } {
  const problems: string[] = [];
  const byEvent = new Map<string, SdkMatcher[]>();
  for (const [event, matchers] of Object.entries(config ?? {})) {
    if (!Array.isArray(matchers)) {
      problems.push(`initialize.hooks.${event} is not a list; left out`);
      continue;
    }
    for (const m of matchers) {
      const ids = Array.isArray(m?.hookCallbackIds) ? m.hookCallbackIds.filter((id): id is string => typeof id === "string") : [];
      if (ids.length === 0) continue;
      try {
        const timeoutMs = typeof m.timeout === "number" && m.timeout > 0 ? m.timeout * 1000 : DEFAULT_CALLBACK_TIMEOUT_MS;
        byEvent.set(event, [...(byEvent.get(event) ?? []), { match: compileMatcher(m.matcher), ids, timeoutMs }]);
      } catch (err) {
        problems.push(`initialize.hooks.${event}: ${(err as Error).message}; left out`);
      }
    }
  }
  if (byEvent.size === 0) return { runner: settingsHooks, problems };
  const matching = (event: HookEventName, value: string | undefined): SdkMatcher[] => {
    const list = byEvent.get(event) ?? [];
    if (HOOK_MATCH_FIELD[event] === undefined) return list;
    return list.filter((m) => m.match(value ?? ""));
  };
  const runner: HookRunner = {
    has(event, value) {
      return matching(event, value).length > 0 || settingsHooks?.has(event, value) === true;
    },
    async run(event, input, value, signal) {
      const own = settingsHooks?.has(event, value) ? settingsHooks.run(event, input, value, signal) : undefined;
      const verdicts: Array<Promise<HookVerdict>> = [];
      for (const m of matching(event, value)) {
        for (const id of m.ids) verdicts.push(askCallback(channel, event, id, input, m.timeoutMs, signal));
      }
      const sdk = combineVerdicts(await Promise.all(verdicts));
      return own ? mergeOutcomes(await own, sdk) : sdk;
    },
  };
  return { runner, problems };
}

async function askCallback(channel: ControlChannel, event: HookEventName, id: string, input: Record<string, unknown>, timeoutMs: number, signal: AbortSignal | undefined): Promise<HookVerdict> {
  const label = `SDK hook callback ${id}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const answer = await channel.request(
      { subtype: "hook_callback", callback_id: id, input, ...(typeof input.tool_use_id === "string" ? { tool_use_id: input.tool_use_id } : {}) },
      both,
    );
    // `{async: true}`: the host goes on in the background; nothing to wait for.
    if (answer.async === true) return interpretExecution(event, label, { kind: "exit", code: 0, stdout: "", stderr: "" });
    return interpretExecution(event, label, { kind: "exit", code: 0, stdout: JSON.stringify(answer), stderr: "" });
  } catch (err) {
    if (timeout.aborted) return interpretExecution(event, label, { kind: "timeout", seconds: Math.round(timeoutMs / 1000) });
    if (signal?.aborted) return interpretExecution(event, label, { kind: "aborted" });
    return interpretExecution(event, label, { kind: "spawn-error", message: (err as Error).message });
  }
}

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** Two events' outcomes as one: the stronger decision wins (deny > ask > allow), lists are joined. */
export function mergeOutcomes(a: HookOutcome, b: HookOutcome): HookOutcome {
  const out: HookOutcome = {
    additionalContext: [...a.additionalContext, ...b.additionalContext],
    systemMessages: [...a.systemMessages, ...b.systemMessages],
    errors: [...a.errors, ...b.errors],
    suppressOutput: a.suppressOutput || b.suppressOutput,
    hookCount: (a.hookCount ?? 0) + (b.hookCount ?? 0),
  };
  const winner = !b.permissionDecision ? a : !a.permissionDecision ? b : RANK[b.permissionDecision] > RANK[a.permissionDecision] ? b : a;
  if (winner.permissionDecision) out.permissionDecision = winner.permissionDecision;
  if (winner.permissionDecisionReason !== undefined) out.permissionDecisionReason = winner.permissionDecisionReason;
  const rewrite = winner.updatedInput ?? (winner.permissionDecision === undefined ? (a.updatedInput ?? b.updatedInput) : undefined);
  if (rewrite && out.permissionDecision !== "deny") out.updatedInput = rewrite;
  if (winner.updatedPermissions) out.updatedPermissions = winner.updatedPermissions;
  const blocks = [a.blockReason, b.blockReason].filter((x): x is string => x !== undefined);
  if (blocks.length > 0) out.blockReason = blocks.join("\n");
  const stop = a.stopReason ?? b.stopReason;
  if (stop !== undefined) out.stopReason = stop;
  if (a.retry || b.retry) out.retry = true;
  if ("updatedToolOutput" in a) out.updatedToolOutput = a.updatedToolOutput;
  else if ("updatedToolOutput" in b) out.updatedToolOutput = b.updatedToolOutput;
  if (a.deferred || b.deferred) out.deferred = out.permissionDecision === undefined;
  return out;
}
