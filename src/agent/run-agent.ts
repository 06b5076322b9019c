import { stat } from "node:fs/promises";
import { join } from "node:path";
import { runHooks } from "../hooks/runner.js";
import type { HookOutcome } from "../hooks/types.js";
import { hookCommonInput } from "../pipeline/run-tool-use.js";
import { addUsage, emptyUsage, type AgentMessage, type StopReason, type UserContentBlock } from "../providers/model.js";
import type { ConversationMessage, ToolUseContext } from "../tool/types.js";
import type { ToolCallOutcome } from "../pipeline/run-tool-use.js";
import { findTaskRegistry, untilSettled } from "../tasks/registry.js";
import { deferredToolsMessage } from "../registry/deferral.js";
import { ConversationBudget } from "../budget/conversation-budget.js";
import { AGENT_MODEL_KEY, type AgentModelInfo } from "./context-runner.js";
import { runRound } from "./round.js";
import { TranscriptWriter } from "./transcript.js";
import type { AgentEvent, AgentResult, AgentResultSubtype, PermissionDenial, RunAgentOptions } from "./types.js";

const DEFAULT_MAX_TOKENS = 16_384;
const MAX_STREAM_RETRIES = 2;
const STREAM_RETRY_BASE_MS = 500;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The agent loop. Each round streams the model's reply, runs its tool calls as their blocks
 * complete, appends the assistant message and one user message with the results in tool_use
 * order, and repeats until a reply has no calls (and no Stop hook objects), `maxTurns`, a
 * hook's stop, an error or an abort. Yields events as they happen; the last is `result`, and
 * the generator's return value is the same result.
 */
export async function* runAgent(options: RunAgentOptions): AsyncGenerator<AgentEvent, AgentResult> {
  const state = options.session.context.session;
  // The loop keeps the transcript hooks are given (whole messages, one JSON line each).
  const transcriptPath = options.transcriptPath ?? join(state.dir, "transcript.jsonl");
  if (options.transcriptPath === undefined) state.transcriptByAgentLoop = true;
  const transcript = new TranscriptWriter(
    [...new Set([transcriptPath, ...(options.conversationPath ? [options.conversationPath] : [])])],
    state.id,
  );
  try {
    return yield* loop(options, transcript, transcriptPath);
  } finally {
    // Also when the consumer stops early: the files are closed, whatever was written stays.
    await transcript.close();
  }
}

async function* loop(options: RunAgentOptions, transcript: TranscriptWriter, transcriptPath: string): AsyncGenerator<AgentEvent, AgentResult> {
  const started = performance.now();
  const { session, provider, signal, hooks } = options;
  const state = session.context.session;
  const common = { ...hookCommonInput(session.context), transcript_path: transcriptPath };
  // A sub-agent tool started by this loop finds the model here (shared with its sub-contexts;
  // a nested loop keeps the outermost one's entry).
  if (!session.context.extensions.has(AGENT_MODEL_KEY)) session.context.extensions.set(AGENT_MODEL_KEY, { provider, model: options.model, maxTokens: options.maxTokens } satisfies AgentModelInfo);
  const messages: AgentMessage[] = [...(options.messages ?? [])];
  const usage = emptyUsage();
  const denials: PermissionDenial[] = [];
  let turns = 0;
  let apiMs = 0;
  let stopReason: StopReason | null = null;
  let system = options.system ?? "";
  const budget =
    options.contextBudgetChars === false
      ? undefined
      : new ConversationBudget({
          sessionDir: session.context.session.dir,
          ...(options.contextBudgetChars !== undefined ? { budgetChars: options.contextBudgetChars } : {}),
          beforeCompact: async () => (await runHooks(hooks, "PreCompact", { ...common, trigger: "auto", custom_instructions: "" }, signal)).blockReason === undefined,
        });
  // Deferred tools are named, not sent: the model loads the ones it needs with ToolSearch.
  const deferredNote = deferredToolsMessage(session.deferredToolNames?.() ?? []);
  if (deferredNote !== undefined) system = `${system}\n\n${deferredNote}`.trim();

  const recordDenials = (outcomes: readonly ToolCallOutcome[]): void => {
    for (const outcome of outcomes) {
      if (outcome.permission?.behavior === "deny") {
        denials.push({ tool_name: outcome.tool?.name ?? "", tool_use_id: outcome.block.tool_use_id, tool_input: outcome.input ?? {}, reason: outcome.permission.reason });
      }
    }
  };

  const finish = async (subtype: AgentResultSubtype, terminal: string, error?: string, status?: number, apiError?: AgentResult["api_error"]): Promise<AgentResult> => {
    await transcript.close();
    // A skill's allowed-tools hold until the turn ends (the reference: until the next user message).
    if (session.context.permissionContext.skill) {
      const { skill: _ended, ...rest } = session.context.permissionContext;
      session.context.permissionContext = rest;
    }
    if (options.sessionEnd !== false) {
      await runHooks(hooks, "SessionEnd", { ...hookCommonInput(session.context), transcript_path: common.transcript_path, reason: terminal === "aborted" ? "other" : "prompt_input_exit" });
    }
    const result: AgentResult = {
      subtype,
      is_error: subtype !== "success" || error !== undefined,
      text: lastText(messages),
      messages,
      usage,
      num_turns: turns,
      duration_ms: Math.round(performance.now() - started),
      duration_api_ms: Math.round(apiMs),
      denials,
      stop_reason: stopReason,
      terminal_reason: terminal,
    };
    if (error !== undefined) result.error = error;
    if (status !== undefined) result.api_error_status = status;
    if (apiError !== undefined) result.api_error = apiError;
    return result;
  };

  // The hooks' transcript starts with the conversation so far when it is new (a resumed one has it).
  if (messages.length > 0 && transcriptPath !== options.conversationPath && (await isEmptyFile(transcriptPath))) {
    const first = new TranscriptWriter([transcriptPath], common.session_id);
    await first.append(messages);
    await first.close();
  }
  await transcript.touch();
  // Tool hooks (through the session's pipeline) get the same file.
  if (options.transcriptPath === undefined) state.transcriptPath = transcriptPath;

  const source = options.sessionStart ?? (options.messages && options.messages.length > 0 ? "resume" : "startup");
  if (source !== "none") {
    const out = await runHooks(hooks, "SessionStart", { ...common, source, model: options.model }, signal);
    yield* notices(out);
    if (out.additionalContext.length > 0) system = `${system}\n\n# Session context (SessionStart hooks)\n${out.additionalContext.join("\n")}`.trim();
  }

  if (options.prompt !== undefined) {
    const promptText = typeof options.prompt === "string" ? options.prompt : options.prompt.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    const out = await runHooks(hooks, "UserPromptSubmit", { ...common, prompt: promptText }, signal);
    yield* notices(out);
    if (out.blockReason !== undefined || out.stopReason !== undefined) {
      const why = out.blockReason ?? out.stopReason!;
      const result = await finish("error_during_execution", "prompt_blocked", `The prompt was blocked by a UserPromptSubmit hook: ${why}`);
      yield { type: "result", result };
      return result;
    }
    const content: UserContentBlock[] = typeof options.prompt === "string" ? [{ type: "text", text: options.prompt }] : [...options.prompt];
    for (const context of out.additionalContext) content.push({ type: "text", text: context });
    const user: AgentMessage = { role: "user", content: content.length === 1 && typeof options.prompt === "string" ? options.prompt : content };
    messages.push(user);
    await transcript.append([user]);
  }

  let stopHookActive = false;
  let streamRetries = 0;
  for (;;) {
    if (signal?.aborted) return yield* end(await finish("error_during_execution", "aborted", "aborted by the user"));
    if (options.maxTurns !== undefined && turns >= options.maxTurns) {
      return yield* end(await finish("error_max_turns", "max_turns", `stopped after ${turns} turns (--max-turns ${options.maxTurns})`));
    }
    turns++;
    const tools = await session.toolDefinitions("anthropic");
    const round = yield* runRound(
      session,
      provider,
      { model: options.model, system, messages, tools, maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS, ...(options.effort !== undefined ? { effort: options.effort } : {}) },
      signal,
      options.overBudget,
    );
    apiMs += round.apiMs;
    addUsage(usage, round.usage);
    if (round.error) {
      const aborted = signal?.aborted === true;
      // A stream that failed before it produced anything, without an HTTP status (the SDK has
      // already retried those), is tried again after a short backoff: e.g. an `overloaded_error`
      // event right after message_start. A deadline (no headers, a silent stream) is retried the
      // same way, also after some text, as long as no tool call of the reply has started.
      const timedOut = round.error.timeout !== undefined && round.toolUses.length === 0;
      if (!aborted && (!round.produced || timedOut) && round.error.status === undefined && streamRetries < MAX_STREAM_RETRIES) {
        streamRetries++;
        turns--;
        const what = round.produced ? "The model stream failed after some output, which is discarded" : "The model stream failed before any output";
        yield { type: "notice", text: `${what} (${round.error.message}); retrying (${streamRetries}/${MAX_STREAM_RETRIES}).` };
        await sleep(STREAM_RETRY_BASE_MS * 2 ** (streamRetries - 1), signal);
        continue;
      }
      // Nothing of a reply that did not complete enters the history; its calls' denials (a host's
      // deny that also interrupted the run) are still the run's.
      if (aborted) recordDenials(round.outcomes);
      return yield* end(await finish("error_during_execution", aborted ? "aborted" : "model_error", aborted ? "aborted by the user" : `model request failed${streamRetries > 0 ? ` (after ${streamRetries} ${streamRetries === 1 ? "retry" : "retries"})` : ""}: ${round.error.message}`, round.error.status, aborted ? undefined : round.error.apiError));
    }
    streamRetries = 0;
    stopReason = round.stopReason!;
    const assistant = { role: "assistant" as const, content: round.blocks };
    messages.push(assistant);
    yield { type: "assistant_message", message: assistant, messageId: round.messageId, stopReason, usage: round.usage };
    const added: AgentMessage[] = [assistant];

    if (round.toolUses.length > 0) {
      recordDenials(round.outcomes);
      for (const outcome of round.outcomes) for (const notice of outcome.notices) yield { type: "notice", text: notice };
      const user = resultsMessage(round.outcomes.map((o) => o.block), round.outcomes.flatMap((o) => o.newMessages));
      messages.push(...user);
      added.push(...user);
      await transcript.append(added);
      // The transcript keeps every result whole; the history sent to the model keeps within budget.
      const compaction = await budget?.apply(messages as ConversationMessage[]);
      if (compaction && compaction.compacted > 0) {
        yield { type: "notice", text: `Context budget: ${compaction.compacted} old tool results moved to files (${compaction.charsBefore} → ${compaction.charsAfter} characters)` };
      }
      yield { type: "turn_end", turn: turns, message: user[0] as Extract<AgentMessage, { role: "user" }>, stopReason };
      if (round.gated) return yield* end(await finish("error_max_budget_usd", "budget", "stopped: the cost passed the budget (--max-budget-usd)"));
      const stop = round.outcomes.find((o) => o.preventContinuation !== undefined)?.preventContinuation;
      if (stop !== undefined) {
        yield { type: "notice", text: `A hook stopped the agent: ${stop}` };
        return yield* end(await finish("success", "hook_stopped"));
      }
      if (signal?.aborted) return yield* end(await finish("error_during_execution", "aborted", "aborted by the user"));
      if (round.outcomes.some((o) => o.block.is_error !== true && o.tool !== undefined && options.endAfterTools?.includes(o.tool.name))) return yield* end(await finish("success", "completed"));
      stopHookActive = false;
      continue;
    }

    await transcript.append(added);
    yield { type: "turn_end", turn: turns, stopReason };
    if (stopReason === "pause_turn") continue; // the server paused a long turn: send it back to go on
    // Background agents still working: wait for their reports and give them to the model.
    const reports = options.awaitBackground === false ? [] : await backgroundReports(session.context, signal);
    if (reports.length > 0) {
      const note: AgentMessage = { role: "user", content: reports.map((text) => ({ type: "text" as const, text })) };
      messages.push(note);
      await transcript.append([note]);
      continue;
    }
    if (stopReason === "refusal" || stopReason === "max_tokens") return yield* end(await finish("success", "completed"));

    const out = await runHooks(
      hooks,
      "Stop",
      { ...hookCommonInput(session.context), stop_hook_active: stopHookActive, last_assistant_message: lastText(messages) },
      signal,
    );
    yield* notices(out);
    if (out.stopReason !== undefined) return yield* end(await finish("success", "hook_stopped"));
    if (out.blockReason !== undefined) {
      // Exit code 2 (or decision "block"): the model goes on, with the hook's reason.
      stopHookActive = true;
      const feedback: AgentMessage = { role: "user", content: `Stop hook feedback:\n${out.blockReason}` };
      messages.push(feedback);
      await transcript.append([feedback]);
      continue;
    }
    return yield* end(await finish("success", "completed"));
  }
}

/** Waits for the session's background agents (and promised commands) and takes their reports (none running: none). */
async function backgroundReports(context: ToolUseContext, signal: AbortSignal | undefined): Promise<string[]> {
  const registry = findTaskRegistry(context);
  if (!registry) return [];
  // Only the agents this agent started: a background sub-agent must not wait for itself.
  // Commands moved to the background at their timeout count too: the model was promised their end.
  const agents = registry.promised(context.agent.agentId);
  if (agents.length > 0) await untilSettled(Promise.all(agents.map((t) => t.done)), { signal });
  return registry.takeEndNotifications(context.agent.agentId);
}

function* end(result: AgentResult): Generator<AgentEvent, AgentResult> {
  yield { type: "result", result };
  return result;
}

function* notices(out: HookOutcome): Generator<AgentEvent> {
  for (const text of [...out.systemMessages, ...out.errors]) yield { type: "notice", text };
}

/**
 * The user message after a round: the results in tool_use order, then what tools asked to add
 * (user content joins the same message, keeping the roles alternating; assistant content follows).
 */
function resultsMessage(results: UserContentBlock[], extra: readonly ConversationMessage[]): AgentMessage[] {
  const content: UserContentBlock[] = [...results];
  const after: AgentMessage[] = [];
  for (const m of extra) {
    if (m.role === "user") {
      if (typeof m.content === "string") content.push({ type: "text", text: m.content });
      else content.push(...(m.content.filter((b) => b.type !== "tool_use") as UserContentBlock[]));
    } else {
      after.push({ role: "assistant", content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content.filter((b) => b.type === "text" || b.type === "tool_use") as Extract<AgentMessage, { role: "assistant" }>["content"]) });
    }
  }
  return [{ role: "user", content }, ...after];
}

function lastText(messages: readonly AgentMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    return m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  }
  return "";
}

/** Runs the loop to its end and returns the result (events are dropped). */
export async function runAgentToEnd(options: RunAgentOptions): Promise<AgentResult> {
  const it = runAgent(options);
  for (;;) {
    const next = await it.next();
    if (next.done) return next.value;
  }
}

async function isEmptyFile(path: string): Promise<boolean> {
  const s = await stat(path).catch(() => undefined);
  return s === undefined || s.size === 0;
}
