import { randomBytes } from "node:crypto";
import type { Span } from "@opentelemetry/api";
import { persistOversizedResult, resultTextLength } from "../budget/persist.js";
import type { HookCommonInput, HookInput, HookOutcome, HookRunner, HookEventName } from "../hooks/types.js";
import { resolvePermission } from "../permissions/resolve.js";
import { networkApproved } from "../sandbox/boundary.js";
import type { Approver, PermissionDecision, PermissionResolver } from "../permissions/types.js";
import type {
  ConversationMessage,
  ProgressCallback,
  Tool,
  ToolProgress,
  ToolResultBlock,
  ToolUseContext,
} from "../tool/types.js";
import { classifyError, formatClassifiedError, toolUseError } from "./errors.js";
import { ToolUseError } from "../tool/tool-use-error.js";
import { observableInput, permissionRequestFor } from "./permission-request.js";
import { parseToolInput, runtimeSchema, type PreparedCall } from "./prepare.js";

/**
 * The OpenTelemetry API is loaded only once a tracer provider has been registered (it keeps its
 * registrations on this global); until then every span would be a no-op, and loading the API
 * costs a process start some 50 ms.
 */
const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");
let otelApi: typeof import("@opentelemetry/api") | undefined;
/** SpanStatusCode.ERROR (a const enum value of the API, stable across its 1.x versions). */
const SPAN_STATUS_ERROR = 2;

/** Whether a tracer provider has been registered (checked before every call, without an await). */
function tracing(): boolean {
  return Boolean((globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_GLOBAL]?.trace);
}

async function startSpan(block: { name: string; id: string }): Promise<Span | undefined> {
  if (!tracing()) return undefined;
  otelApi ??= await import("@opentelemetry/api");
  return otelApi.trace.getTracer("armature").startSpan("armature.tool_call", {
    attributes: { "armature.tool.name": block.name, "armature.tool_use.id": block.id },
  });
}

export interface PipelineServices {
  hooks?: HookRunner;
  /** Asked when the decision is `ask`; without one (and without a PermissionRequest hook) an ask is denied. */
  approver?: Approver;
  resolvePermission: PermissionResolver;
  /** Calls (tool_use ids) the host already had a person approve; one that would ask runs as approved. */
  approvedToolUseIds?: ReadonlySet<string>;
  /** How long a tool that ignores the abort signal is waited for before it is abandoned. */
  abandonGraceMs: number;
  /** The words of a refused call's result, instead of armature's own (see {@link RefusalText}). */
  refusalText?: RefusalText;
}

/**
 * A call refused before it ran: `unapproved` when it needed an approval no one could give (no
 * approver, no PermissionRequest hook answered), `hook` when a PreToolUse hook's
 * permissionDecision denied it (`reason` is the hook's, absent when it gave none).
 */
export interface Refusal {
  kind: "unapproved" | "hook";
  tool: Tool;
  input: Record<string, unknown>;
  reason?: string;
}

/**
 * The text the model gets for a refusal (sent as is, with `is_error`), or undefined for
 * armature's own. `armature agent` passes the reference CLI's words.
 */
export type RefusalText = (refusal: Refusal) => string | undefined;

/** Decisions of askForApproval that are a refusal for want of anyone to ask. */
const UNAPPROVED = new WeakSet<PermissionDecision>();

export function defaultPipelineServices(overrides: Partial<PipelineServices> = {}): PipelineServices {
  return { resolvePermission: (r) => resolvePermission(r), abandonGraceMs: 2_000, ...overrides };
}

export interface ToolCallOutcome {
  block: ToolResultBlock;
  newMessages: ConversationMessage[];
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
  isError: boolean;
  /** Set when a hook asked the agent loop to stop (`continue: false`). */
  preventContinuation?: string;
  /** The permission decision, when the call got that far. */
  permission?: PermissionDecision;
  tool?: Tool;
  /** The input the call ran with (after hooks and approvals). */
  input?: Record<string, unknown>;
  /** Messages for the user (hooks' systemMessage, non-blocking hook errors). */
  notices: string[];
  /** The tool's own output of a call that ran (before it became a tool_result): a host's structured view. */
  data?: unknown;
}

export class ToolAbandonedError extends Error {
  constructor(toolName: string, graceMs: number) {
    super(`${toolName} did not stop within ${graceMs} ms of the abort and was abandoned; it may still be running in the background`);
    this.name = "ToolAbandonedError";
  }
}

/** The turn was aborted while a call waited for a hook or an approval: the call did not run. */
export class CallInterruptedError extends Error {
  constructor(toolName: string, waitingFor: string) {
    super(`Error: ${toolName} was interrupted while waiting for ${waitingFor}: the turn was aborted and the call did not run.`);
    this.name = "CallInterruptedError";
  }
}

/**
 * Settles with `work`, or rejects with a CallInterruptedError as soon as `signal` aborts: a
 * turn never waits on an approver or a hook runner that ignores its signal.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, toolName: string, waitingFor: string): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new CallInterruptedError(toolName, waitingFor));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new CallInterruptedError(toolName, waitingFor));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

function errorOutcome(toolUseId: string, message: string, extra: Partial<ToolCallOutcome> = {}, wrap = true): ToolCallOutcome {
  return {
    block: { type: "tool_result", tool_use_id: toolUseId, content: wrap ? toolUseError(message) : message, is_error: true },
    newMessages: [],
    isError: true,
    notices: [],
    ...extra,
  };
}

/** The fields every hook input carries, from the context the hook runs in. */
export function hookCommonInput(context: ToolUseContext): HookCommonInput {
  return {
    session_id: context.session.id,
    // Never a path that does not exist: the session writes one only when it keeps a transcript.
    ...(context.session.transcriptPath !== undefined ? { transcript_path: context.session.transcriptPath } : {}),
    cwd: context.workspace.cwd,
    permission_mode: context.permissionContext.mode,
  };
}

function hookInput(
  event: HookEventName,
  context: ToolUseContext,
  tool: Tool,
  toolUseId: string,
  toolInput: unknown,
  extra?: Partial<HookInput>,
): HookInput {
  return {
    ...hookCommonInput(context),
    hook_event_name: event,
    tool_name: tool.name,
    tool_input: toolInput,
    tool_use_id: toolUseId,
    ...extra,
  };
}

/**
 * Waits for a call; once the signal aborts, gives it `graceMs` to settle, then abandons it. A
 * tool written in JavaScript may return its result directly instead of a promise.
 */
function withAbandonment<T>(promise: T | Promise<T>, signal: AbortSignal, toolName: string, graceMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => reject(new ToolAbandonedError(toolName, graceMs)), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const settle = (): void => {
      signal.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    };
    Promise.resolve(promise).then(
      (value) => {
        settle();
        resolve(value);
      },
      (err: unknown) => {
        settle();
        reject(err);
      },
    );
  });
}

/**
 * One tool_use through every stage: lookup → abort check → schema parse → validateInput →
 * backfill → PreToolUse hooks → permission → call → result budget → PostToolUse hooks.
 * Never throws: every failure becomes an `is_error` tool_result the model can act on.
 */
export async function runToolUse(
  prepared: PreparedCall,
  context: ToolUseContext,
  services: PipelineServices,
  onProgress?: (progress: ToolProgress) => void,
): Promise<ToolCallOutcome> {
  const span = tracing() ? await startSpan(prepared.block) : undefined;
  try {
    const outcome = await runStages(prepared, context, services, onProgress);
    if (outcome.isError) span?.setStatus({ code: SPAN_STATUS_ERROR });
    return outcome;
  } catch (err) {
    // The stages catch what tools throw; this is the last net for a bug in the pipeline itself.
    span?.setStatus({ code: SPAN_STATUS_ERROR });
    return errorOutcome(prepared.block.id, formatClassifiedError(classifyError(err)));
  } finally {
    span?.end();
  }
}

async function runStages(
  prepared: PreparedCall,
  context: ToolUseContext,
  services: PipelineServices,
  onProgress: ((progress: ToolProgress) => void) | undefined,
): Promise<ToolCallOutcome> {
  const { block, tool } = prepared;
  const id = block.id;
  const signal = context.abortController.signal;

  // 1. lookup
  if (!tool) return errorOutcome(id, prepared.parsed.ok ? `Error: No such tool available: ${block.name}` : prepared.parsed.message);
  // 2. abort check
  if (signal.aborted) {
    return errorOutcome(id, `Error: ${tool.name} was not started: the turn was aborted before this call began.`, { tool });
  }
  // 3. schema parse (done once, when the call was prepared)
  if (!prepared.parsed.ok) return errorOutcome(id, prepared.parsed.message, { tool });
  let input = prepared.parsed.input;

  const notices: string[] = [];
  const additionalContext: HookContext[] = [];
  let preventContinuation: string | undefined;
  const hooks = services.hooks;

  try {
    // What the synchronous members need (normally loaded before the turn was prepared).
    if (tool.load) await tool.load();
    // 4. validateInput
    const validation = await tool.validateInput(input, context);
    if (!validation.result) return errorOutcome(id, validation.message, { tool, input });

    // 5. backfill: derived fields for hooks and permissions; the transcript keeps the original.
    let observable = observableInput(tool, input, context);

    // 6. PreToolUse hooks
    let hookDecision: { behavior: "allow" | "deny" | "ask"; reason?: string } | undefined;
    if (hooks?.has("PreToolUse", tool.name)) {
      const out = await untilAborted(hooks.run("PreToolUse", hookInput("PreToolUse", context, tool, id, observable), tool.name, signal), signal, tool.name, "its PreToolUse hooks");
      collectNotices(out, notices);
      additionalContext.push(...out.additionalContext.map((text) => ({ event: "PreToolUse", text })));
      if (out.stopReason !== undefined) preventContinuation = out.stopReason;
      if (out.blockReason !== undefined) {
        return errorOutcome(id, `PreToolUse hook blocked this call: ${out.blockReason}`, { tool, input, notices, preventContinuation });
      }
      if (out.updatedInput) {
        const reparsed = parseToolInput(tool, runtimeSchema(tool), out.updatedInput, context);
        if (!reparsed.ok) return errorOutcome(id, `A PreToolUse hook rewrote the input, and the rewrite is invalid.\n${reparsed.message}`, { tool, input, notices });
        input = reparsed.input;
        const revalidated = await tool.validateInput(input, context);
        if (!revalidated.result) return errorOutcome(id, revalidated.message, { tool, input, notices });
        observable = observableInput(tool, input, context);
      }
      if (out.permissionDecision) {
        hookDecision = { behavior: out.permissionDecision };
        if (out.permissionDecisionReason !== undefined) hookDecision.reason = out.permissionDecisionReason;
      }
    }

    // 7. permission resolution
    const toolPermission = await tool.checkPermissions(input, context);
    let decision = services.resolvePermission(permissionRequestFor(tool, input, observable, context, toolPermission, hookDecision));
    const asked = decision.behavior === "ask" ? decision : undefined;
    // The boundary the call runs in is the one judged for the input that runs (an approval keeps it).
    let judged = decision;
    if (decision.behavior === "ask") decision = await askForApproval(prepared, tool, input, decision, context, services, notices);
    if (decision.behavior === "allow" && decision.updatedInput) {
      // An input rewritten by the tool's check, a PermissionRequest hook or the approver is
      // judged like an original: parsed, validated and checked by the tool again, then the whole
      // decision chain (rules, protected paths, the working directories). A rewrite never
      // launders a call: what it adds that needs approval of its own is denied.
      const reparsed = parseToolInput(tool, runtimeSchema(tool), decision.updatedInput, context);
      if (!reparsed.ok) return errorOutcome(id, reparsed.message, { tool, input, notices, permission: decision });
      input = reparsed.input;
      const revalidated = await tool.validateInput(input, context);
      if (!revalidated.result) return errorOutcome(id, `The rewritten input is not valid: ${revalidated.message}`, { tool, input, notices, permission: decision });
      observable = observableInput(tool, input, context);
      const rewrittenPermission = await tool.checkPermissions(input, context);
      const recheck = services.resolvePermission(permissionRequestFor(tool, input, observable, context, rewrittenPermission));
      judged = recheck;
      const refusal = rewriteRefusal(recheck, asked);
      if (refusal !== null) decision = { ...recheck, behavior: "deny", reason: refusal };
    }
    if (decision.behavior === "deny") {
      context.denials.count++;
      context.denials.recent.push({ toolName: tool.name, toolUseId: id, reason: decision.reason });
      if (context.denials.recent.length > 50) context.denials.recent.shift();
      if (hooks?.has("PermissionDenied", tool.name)) {
        const out = await hooks.run("PermissionDenied", hookInput("PermissionDenied", context, tool, id, observable, { reason: decision.reason }), tool.name, signal);
        collectNotices(out, notices);
      }
      const refusal: Refusal | undefined =
        hookDecision?.behavior === "deny" && decision.source === "hook" && asked === undefined
          ? { kind: "hook", tool, input, ...(hookDecision.reason !== undefined ? { reason: hookDecision.reason } : {}) }
          : UNAPPROVED.has(decision)
            ? { kind: "unapproved", tool, input, reason: decision.reason }
            : undefined;
      const words = refusal ? services.refusalText?.(refusal) : undefined;
      if (words !== undefined) return errorOutcome(id, words, { tool, input, notices, permission: decision, preventContinuation }, false);
      return errorOutcome(id, `Permission to use ${tool.name} was denied. ${decision.reason}`, { tool, input, notices, permission: decision, preventContinuation });
    }

    // 8. call, with progress and the abort signal (checked again: hooks and approvals take time)
    if (signal.aborted) {
      return errorOutcome(id, `Error: ${tool.name} was not started: the turn was aborted before this call began.`, { tool, input, notices });
    }
    const progress: ProgressCallback = onProgress ? (p) => onProgress({ toolUseId: id, data: p.data }) : noProgress;
    const callContext = judged.sandbox === undefined ? context : { ...context, sandboxBoundary: judged.sandbox, sandboxNetwork: networkApproved(decision, asked !== undefined) };
    const result = await withAbandonment(tool.call(input, callContext, progress), signal, tool.name, services.abandonGraceMs);

    // 9. result budget
    let resultBlock = tool.mapToolResultToToolResultBlockParam(result.data, id);
    if (resultTextLength(resultBlock.content) > tool.maxResultSizeChars) {
      resultBlock = await persistOversizedResult(resultBlock, context.session.dir);
    }

    // 10. PostToolUse hooks
    if (hooks?.has("PostToolUse", tool.name)) {
      const out = await hooks.run("PostToolUse", hookInput("PostToolUse", context, tool, id, observable, { tool_response: result.data }), tool.name, signal);
      collectNotices(out, notices);
      additionalContext.push(...out.additionalContext.map((text) => ({ event: "PostToolUse", text })));
      if (out.blockReason !== undefined) additionalContext.push({ event: "PostToolUse", text: `feedback: ${out.blockReason}` });
      if (out.stopReason !== undefined) preventContinuation = out.stopReason;
    }

    const outcome: ToolCallOutcome = {
      block: appendContext(resultBlock, additionalContext),
      newMessages: result.newMessages ?? [],
      isError: resultBlock.is_error === true,
      tool,
      input,
      permission: decision,
      notices,
      data: result.data,
    };
    if (result.contextModifier) outcome.contextModifier = result.contextModifier;
    if (preventContinuation !== undefined) outcome.preventContinuation = preventContinuation;
    return outcome;
  } catch (err) {
    const classified = classifyError(err);
    const interrupted = signal.aborted;
    // A refusal (ToolUseError) is wrapped like a failed validation; a failure while the tool ran
    // is its bare message, as the reference sends both (`EISDIR: illegal operation…`).
    const refusal = err instanceof ToolUseError;
    const abandoned = err instanceof ToolAbandonedError;
    const message = err instanceof CallInterruptedError
      ? err.message
      : abandoned
      ? formatClassifiedError(classified)
      : interrupted
        ? `Error: ${tool.name} was interrupted: the call was aborted (${formatClassifiedError(classified)})`
        : classified.message;
    if (hooks?.has("PostToolUseFailure", tool.name)) {
      try {
        const out = await hooks.run(
          "PostToolUseFailure",
          hookInput("PostToolUseFailure", context, tool, id, input, { error: message, is_interrupt: interrupted }),
          tool.name,
        );
        collectNotices(out, notices);
        additionalContext.push(...out.additionalContext.map((text) => ({ event: "PostToolUseFailure", text })));
        if (out.blockReason !== undefined) additionalContext.push({ event: "PostToolUseFailure", text: `feedback: ${out.blockReason}` });
      } catch (hookErr) {
        notices.push(`PostToolUseFailure hook failed: ${classifyError(hookErr).message}`);
      }
    }
    const outcome = errorOutcome(id, message, { tool, input, notices }, refusal || interrupted || abandoned);
    outcome.block = appendContext(outcome.block, additionalContext);
    return outcome;
  }
}

const noProgress: ProgressCallback = () => {};

/**
 * Why a rewritten input may not run, or null. It may when the full chain allows it as rewritten,
 * or asks only for what the approval already answered: the same concern, or the mode's plain
 * "needs approval" (no rule, protected path or outside path involved).
 */
function rewriteRefusal(recheck: PermissionDecision, asked: PermissionDecision | undefined): string | null {
  if (recheck.behavior === "allow") return null;
  if (recheck.behavior === "deny") return `The rewritten input is not allowed as rewritten: ${recheck.reason}`;
  if (asked && recheck.source === asked.source && recheck.reason === asked.reason) return null;
  if (asked && (recheck.source ?? "").startsWith("mode:") && / needs approval in \w+ mode$/.test(recheck.reason)) return null;
  return `The rewritten input needs approval of its own, which the approval of the original input does not give: ${recheck.reason}`;
}

function collectNotices(out: HookOutcome, notices: string[]): void {
  notices.push(...out.systemMessages, ...out.errors);
}

/** Text a hook added for the model, with the event that produced it. */
interface HookContext {
  event: string;
  text: string;
}

/**
 * A random tag of this process, in every hook output label: a file or command output written
 * before the session started (`cat notes.txt`) cannot know it, so it cannot forge the label.
 * The system prompt names it.
 */
const HOOK_OUTPUT_TAG = randomBytes(6).toString("hex");

export function hookOutputTag(): string {
  return HOOK_OUTPUT_TAG;
}

/**
 * How hook text is shown to the model: in a content block of its own after the tool's output,
 * under a label naming the hook event and carrying the tag, so that it never reads as part of
 * what the tool returned and tool output cannot pass for it.
 */
export function labelHookContext(event: string, text: string): string {
  return `[${event} hook output ${HOOK_OUTPUT_TAG}: added by a hook configured in settings, not part of the tool's result]\n${text}`;
}

function appendContext(block: ToolResultBlock, extra: readonly HookContext[]): ToolResultBlock {
  if (extra.length === 0) return block;
  const text = extra.map((c) => labelHookContext(c.event, c.text)).join("\n\n");
  const own = typeof block.content === "string" ? [{ type: "text" as const, text: block.content }] : block.content;
  return { ...block, content: [...own, { type: "text" as const, text }] };
}

async function askForApproval(
  prepared: PreparedCall,
  tool: Tool,
  input: Record<string, unknown>,
  decision: PermissionDecision,
  context: ToolUseContext,
  services: PipelineServices,
  notices: string[],
): Promise<PermissionDecision> {
  if (services.approvedToolUseIds?.has(prepared.block.id)) return { behavior: "allow", reason: "Approved by the user", rule: null, source: "host" };
  const hooks = services.hooks;
  const signal = context.abortController.signal;
  if (hooks?.has("PermissionRequest", tool.name)) {
    const out = await untilAborted(
      hooks.run(
        "PermissionRequest",
        hookInput("PermissionRequest", context, tool, prepared.block.id, input, { permission_reason: decision.reason }),
        tool.name,
        signal,
      ),
      signal,
      tool.name,
      "its PermissionRequest hooks",
    );
    collectNotices(out, notices);
    if (out.permissionDecision === "allow" || out.permissionDecision === "deny") {
      const answered: PermissionDecision = {
        behavior: out.permissionDecision,
        reason: out.permissionDecisionReason ?? `${out.permissionDecision === "allow" ? "Allowed" : "Denied"} by a PermissionRequest hook`,
        rule: null,
        source: "hook",
      };
      if (out.updatedInput) answered.updatedInput = out.updatedInput;
      return answered;
    }
  }
  if (!services.approver) {
    const refused: PermissionDecision = {
      behavior: "deny",
      reason: `${decision.reason}, and this run cannot ask for approval. Ask the user to allow it (e.g. an allow rule), or do something that does not need approval.`,
      rule: decision.rule,
      source: decision.source,
    };
    UNAPPROVED.add(refused);
    return refused;
  }
  const asking = services.approver({ toolUse: prepared.block, tool, input, decision, agentId: context.agent.agentId, signal });
  const answer = await untilAborted(asking, signal, tool.name, "approval");
  if (answer.behavior === "allow") {
    const allowed: PermissionDecision = { behavior: "allow", reason: answer.reason ?? "Approved by the user", rule: null, source: answer.source ?? "approver" };
    if (answer.updatedInput) allowed.updatedInput = answer.updatedInput;
    return allowed;
  }
  const denied: PermissionDecision = {
    behavior: "deny",
    reason: answer.message ?? "The user declined this call. Do not retry it as is; ask the user what to do instead.",
    rule: null,
    source: answer.source ?? "approver",
  };
  if (answer.unasked === true) UNAPPROVED.add(denied);
  return denied;
}
