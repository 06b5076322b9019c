// `armature/ai-sdk`: the session's tools as a Vercel AI SDK (6.x and 7.x) tool set. A separate
// entry point: `ai` is an optional peer dependency, never loaded by the main entry.
import { randomUUID } from "node:crypto";
import * as ai from "ai";
import { dynamicTool, jsonSchema, type LanguageModel, type ToolSet } from "ai";
import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { AsyncQueue } from "../orchestration/async-queue.js";
import { toolJsonSchema } from "../registry/definitions.js";
import { TOOL_SEARCH_TOOL_NAME } from "../registry/tool-search/index.js";
import { hostApprovals } from "../session/host-approvals.js";
import { neutralToolDefinitions } from "../session/neutral-tools.js";
import type { Session } from "../session/session.js";
import type { ConversationMessage, Tool, ToolResultBlock, ToolUseBlock } from "../tool/types.js";
import { putToPersonIfAsked, registerOwnTool } from "./tool-approval.js";
import { toolSearchDescription } from "./tool-search-prompt.js";

export { aiSdkNotifications, type AiSdkNotifications } from "./notifications.js";
export { aiSdkToolApproval, type AiSdkApprovalQuery, type AiSdkApprovalStatus, type AiSdkToolApproval } from "./tool-approval.js";

export interface AiSdkToolsOptions {
  /** Aborts every call started through the tool set (besides each call's own abortSignal). */
  signal?: AbortSignal;
  /**
   * The model the tool set is for. Accepted for compatibility: the set no longer depends on the
   * provider (deferred tools are loaded by AI SDK 7's own tool search for every model, and given
   * in full on AI SDK 6).
   */
  model?: LanguageModel;
  /** Accepted for compatibility, like `model`. */
  provider?: "anthropic" | "neutral";
  /**
   * Who approves a call that would ask: `"ai-sdk"` (default) hands it to the AI SDK's approval
   * flow — on AI SDK 7 through `generateText({ toolApproval: aiSdkToolApproval(session) })`, which
   * also gives the request armature's reason; on AI SDK 6 (and on 7 without `toolApproval`)
   * through each tool's `needsApproval` — so a `tool-approval-request` is answered by a
   * `tool-approval-response`, and an approved call then runs as approved; `"session"`: the
   * session's own `canUseTool` is asked while the call runs.
   */
  approvals?: "ai-sdk" | "session";
}

/** What a tool's `execute` yields before its result (AI SDK preliminary results): one per progress event. */
export interface AiSdkToolProgress {
  type: "progress";
  toolUseId: string;
  data: unknown;
}

/**
 * A tool's output (its last yield): the tool_result, and what the call's turn adds to the
 * conversation after it — a background task's end notification, a skill's instructions, a
 * plan-mode reminder. The model gets them in the call's result, after its text (the AI SDK's loop
 * has no other place between steps); `armature exec` prints them as lines of their own.
 */
export type AiSdkToolOutput = ToolResultBlock & { newMessages?: ConversationMessage[] };

/** AI SDK 7's `toolSearch()` (absent from AI SDK 6): read off the namespace, so that 6 still links. */
const nativeToolSearch = (ai as { toolSearch?: typeof ai.toolSearch }).toolSearch;

/**
 * The session's tools (those the model may see) as an AI SDK `ToolSet`. Each `execute` runs the
 * call through armature's pipeline — validation, hooks, permissions, result budgets — as one
 * turn of the session, yielding its progress as preliminary results and the tool_result last
 * (with the turn's new messages, see `AiSdkToolOutput`; ends that come while no call runs:
 * `aiSdkNotifications`).
 * Deferred tools: on AI SDK 7 they are `deferLoading` tools and the set has a `ToolSearch` (the
 * SDK's `toolSearch()`, searching with armature's ToolSearch), so the SDK sends a tool only once
 * a search found it, from the next step on, for any provider; a tool found stays loaded in the
 * session, and a set built again for a later request has it in full. On AI SDK 6 every tool is
 * sent in full.
 * A call that would ask goes to the SDK's approval flow (see `approvals`). Calls the SDK runs in
 * parallel keep armature's ordering rule: a call that is not concurrency-safe waits for the
 * running ones and runs alone. A failed call reaches the model as an `error-text` output, never
 * as an exception.
 */
export async function aiSdkTools(session: Session, options: AiSdkToolsOptions = {}): Promise<ToolSet> {
  const byName = new Map(session.context.options.tools.map((t) => [t.name, t] as const));
  const native = nativeToolSearch !== undefined && byName.has(TOOL_SEARCH_TOOL_NAME) && session.deferredToolNames().length > 0;
  const definitions = native ? await deferringDefinitions(session, byName) : await fullDefinitions(session);
  const approvalFlow = (options.approvals ?? "ai-sdk") === "ai-sdk";
  const approvals = hostApprovals(session);
  const lock = new SharedExclusiveLock();
  const set: ToolSet = {};
  for (const def of definitions) {
    const armatureTool = byName.get(def.name);
    const block = (id: string, input: unknown): ToolUseBlock => ({ type: "tool_use", id, name: def.name, input });
    const made = dynamicTool({
      description: def.description,
      inputSchema: jsonSchema(def.inputSchema as Parameters<typeof jsonSchema>[0]),
      ...(def.deferLoading ? { deferLoading: true } : {}),
      ...(approvalFlow ? { needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) => (await putToPersonIfAsked(session, def.name, toolCallId, input)) !== undefined } : {}),
      execute: async function* (input, { toolCallId, abortSignal }) {
        const signal = anySignal([abortSignal, options.signal]);
        const approved = approvals.settle(toolCallId);
        const release = await lock.acquire(isSafe(armatureTool, input));
        try {
          const progress = new AsyncQueue<AiSdkToolProgress>();
          const running = session
            .runTurnDetailed([block(toolCallId, input)], {
              ...(signal ? { signal } : {}),
              ...(approved ? { approvedToolUseIds: [toolCallId] } : {}),
              onProgress: ({ toolUseId, data }) => progress.push({ type: "progress", toolUseId, data }),
            })
            .finally(() => progress.close());
          yield* progress;
          const { results, newMessages } = await running;
          const output: AiSdkToolOutput = newMessages.length > 0 ? { ...results[0]!, newMessages } : results[0]!;
          yield output;
        } finally {
          release();
        }
      },
      toModelOutput: ({ output }) => toModelOutput(output as AiSdkToolOutput),
    });
    registerOwnTool(made, session, approvalFlow);
    set[def.name] = made;
  }
  if (native) set[TOOL_SEARCH_TOOL_NAME] = sessionToolSearch(session, nativeToolSearch, options.signal);
  return set;
}

interface Definition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  deferLoading?: boolean;
}

/** Every tool the model may see, deferred ones in full (AI SDK 6: its tool set is fixed for a run). */
async function fullDefinitions(session: Session): Promise<Definition[]> {
  return (await neutralToolDefinitions(session)).map((d) => ({ name: d.name, description: d.description, inputSchema: d.parameters }));
}

/** The tools sent now in full, then the deferred ones not loaded yet, marked `deferLoading` (AI SDK 7). */
async function deferringDefinitions(session: Session, byName: ReadonlyMap<string, Tool>): Promise<Definition[]> {
  const out: Definition[] = (await session.toolDefinitions("openai"))
    .filter((d) => d.function.name !== TOOL_SEARCH_TOOL_NAME)
    .map((d) => ({ name: d.function.name, description: d.function.description, inputSchema: d.function.parameters }));
  for (const name of session.deferredToolNames()) {
    const tool = byName.get(name);
    if (tool) out.push({ name, description: await tool.description(session.context), inputSchema: toolJsonSchema(tool), deferLoading: true });
  }
  return out;
}

/**
 * AI SDK 7's tool search, searching through the session: each query runs armature's ToolSearch as
 * a turn (its `select:` and keyword rules, its hooks), which also loads what it found into the
 * session; the SDK then sends the tools found from the next step on.
 */
function sessionToolSearch(session: Session, toolSearch: typeof ai.toolSearch, signal: AbortSignal | undefined): ToolSet[string] {
  const deferred = session.deferredToolNames();
  const search = async ({ query }: { query: string }): Promise<string[]> => {
    const call: ToolUseBlock = { type: "tool_use", id: `toolsearch_${randomUUID()}`, name: TOOL_SEARCH_TOOL_NAME, input: { query } };
    const [result] = await session.runTurn([call], signal ? { signal } : {});
    if (!result || result.is_error || typeof result.content === "string") return [];
    return result.content.flatMap((b) => (b.type === "tool_reference" ? [b.tool_name] : []));
  };
  // A `select:` query may name every deferred tool: the SDK's cap must not cut it.
  return { ...toolSearch({ search, maxResults: Math.max(1, deferred.length) }), description: toolSearchDescription(deferred) };
}

type ModelOutput = Awaited<ReturnType<NonNullable<Parameters<typeof dynamicTool>[0]["toModelOutput"]>>>;

/**
 * A tool_result as the AI SDK's model output: text, an error text, or text and images. The
 * turn's new messages follow the result's text, each a paragraph of its own (a text output stays
 * text: some providers send anything else as JSON).
 */
export function toModelOutput(block: AiSdkToolOutput): ModelOutput {
  const own = typeof block.content === "string" ? [{ type: "text" as const, text: block.content }] : block.content;
  const added = (block.newMessages ?? []).flatMap(messageBlocks);
  const parts = [...own, ...added];
  const textOf = (blocks: typeof parts): string => blocks.map((b) => (b.type === "text" ? b.text : "")).filter((t) => t !== "").join("\n");
  const text = [textOf(own), ...added.map((b) => textOf([b]))].filter((t) => t !== "").join("\n\n");
  if (block.is_error) return { type: "error-text", value: text };
  if (!parts.some((b) => b.type === "image")) return { type: "text", value: text };
  return {
    type: "content",
    value: parts.map((b) =>
      b.type === "image"
        ? { type: "image-data" as const, data: b.source.data, mediaType: b.source.media_type }
        : { type: "text" as const, text: b.type === "text" ? b.text : b.type === "document" ? documentPlaceholder(b) : `Tool loaded: ${b.tool_name}` },
    ),
  };
}

/** A new message's text and image blocks (a message in a tool result carries no calls or results of its own). */
function messageBlocks(message: ConversationMessage): Array<Extract<ToolResultBlock["content"], unknown[]>[number]> {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return message.content.filter((b): b is Extract<typeof b, { type: "text" | "image" }> => b.type === "text" || b.type === "image");
}

function isSafe(tool: Tool | undefined, input: unknown): boolean {
  if (!tool) return false;
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) return false;
  try {
    return tool.isConcurrencySafe(parsed.data) === true;
  } catch {
    return false;
  }
}

function anySignal(signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

/** Concurrency-safe calls share; any other call runs alone. Waiters are served in arrival order. */
class SharedExclusiveLock {
  private shared = 0;
  private exclusive = false;
  private readonly waiters: Array<{ safe: boolean; grant: () => void }> = [];

  acquire(safe: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiters.push({ safe, grant: () => resolve(() => this.release(safe)) });
      this.pump();
    });
  }

  private release(safe: boolean): void {
    if (safe) this.shared--;
    else this.exclusive = false;
    this.pump();
  }

  private pump(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      if (this.exclusive || (!next.safe && this.shared > 0)) return;
      this.waiters.shift();
      if (next.safe) this.shared++;
      else this.exclusive = true;
      next.grant();
    }
  }
}
