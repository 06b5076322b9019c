// `armature/ai-sdk`: the session's tools as a Vercel AI SDK (6.x) tool set. A separate entry
// point: `ai` is an optional peer dependency, never loaded by the main entry.
import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { dynamicTool, jsonSchema, type LanguageModel, type ToolSet } from "ai";
import { AsyncQueue } from "../orchestration/async-queue.js";
import { DEFERRED_TOOL_PLACEHOLDER } from "../registry/definitions.js";
import { hostApprovals } from "../session/host-approvals.js";
import { neutralToolDefinitions } from "../session/neutral-tools.js";
import type { Session } from "../session/session.js";
import type { ConversationMessage, Tool, ToolResultBlock, ToolUseBlock } from "../tool/types.js";

export { aiSdkNotifications, type AiSdkNotifications } from "./notifications.js";

export interface AiSdkToolsOptions {
  /** Aborts every call started through the tool set (besides each call's own abortSignal). */
  signal?: AbortSignal;
  /**
   * The model the tool set is for. An Anthropic model (provider id `anthropic.*`) also gets
   * armature's Anthropic-only tools (ToolSearch over deferred tools); any other model gets
   * every tool in full and nothing provider-specific. Without it (and without `provider`), the
   * provider-neutral set.
   */
  model?: LanguageModel;
  /** Says the provider outright instead of `model`. */
  provider?: "anthropic" | "neutral";
  /**
   * Who approves a call that would ask: `"ai-sdk"` (default) marks it `needsApproval`, so the
   * AI SDK's approval flow (a `tool-approval-request`, answered by a `tool-approval-response`)
   * decides, and an approved call then runs as approved; `"session"`: the session's own
   * `canUseTool` is asked while the call runs.
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

/**
 * The session's tools (those the model may see) as an AI SDK `ToolSet`. Each `execute` runs the
 * call through armature's pipeline — validation, hooks, permissions, result budgets — as one
 * turn of the session, yielding its progress as preliminary results and the tool_result last
 * (with the turn's new messages, see `AiSdkToolOutput`; ends that come while no call runs:
 * `aiSdkNotifications`).
 * A call that would ask is marked `needsApproval` (see `approvals`). Calls the SDK runs in
 * parallel keep armature's ordering rule: a call that is not concurrency-safe waits for the
 * running ones and runs alone. A failed call reaches the model as an `error-text` output, never
 * as an exception.
 */
export async function aiSdkTools(session: Session, options: AiSdkToolsOptions = {}): Promise<ToolSet> {
  const byName = new Map(session.context.options.tools.map((t) => [t.name, t] as const));
  const anthropic = (options.provider ?? providerOf(options.model)) === "anthropic";
  const definitions = anthropic
    ? await anthropicDefinitions(session)
    : (await neutralToolDefinitions(session)).map((d) => ({ name: d.name, description: d.description, inputSchema: d.parameters }));
  const approvalFlow = (options.approvals ?? "ai-sdk") === "ai-sdk";
  const approvals = hostApprovals(session);
  const lock = new SharedExclusiveLock();
  const set: ToolSet = {};
  for (const def of definitions) {
    const armatureTool = byName.get(def.name);
    const block = (id: string, input: unknown): ToolUseBlock => ({ type: "tool_use", id, name: def.name, input });
    set[def.name] = dynamicTool({
      description: def.description,
      inputSchema: jsonSchema(def.inputSchema as Parameters<typeof jsonSchema>[0]),
      ...(approvalFlow
        ? {
            needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) => {
              const ask = (await session.checkPermission(block(toolCallId, input))).behavior === "ask";
              if (ask) approvals.putToPerson(toolCallId);
              return ask;
            },
          }
        : {}),
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
  }
  return set;
}

interface Definition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

function providerOf(model: LanguageModel | undefined): "anthropic" | "neutral" {
  if (typeof model === "object" && model !== null && "provider" in model && typeof model.provider === "string") {
    return model.provider.split(".")[0] === "anthropic" ? "anthropic" : "neutral";
  }
  return typeof model === "string" && model.startsWith("anthropic/") ? "anthropic" : "neutral";
}

/** What the session sends Anthropic, less the placeholder (a Messages API switch, not a tool the SDK can hold). */
async function anthropicDefinitions(session: Session): Promise<Definition[]> {
  return (await session.toolDefinitions("anthropic"))
    .filter((d) => d.name !== DEFERRED_TOOL_PLACEHOLDER.name)
    .map((d) => ({ name: d.name, description: d.description, inputSchema: d.input_schema }));
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
