// `armature/ai-sdk`: the session's tools as a Vercel AI SDK (6.x) tool set. A separate entry
// point: `ai` is an optional peer dependency, never loaded by the main entry.
import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { dynamicTool, jsonSchema, type ToolSet } from "ai";
import type { Session } from "../session/session.js";
import type { Tool, ToolResultBlock } from "../tool/types.js";

export interface AiSdkToolsOptions {
  /** Aborts every call started through the tool set (besides each call's own abortSignal). */
  signal?: AbortSignal;
}

/**
 * The session's tools (those the model may see) as an AI SDK `ToolSet`. Each `execute` runs the
 * call through armature's pipeline — validation, hooks, permissions, result budgets — as one
 * turn of the session. Calls the SDK runs in parallel keep armature's ordering rule: a call
 * that is not concurrency-safe waits for the running ones and runs alone. A failed call reaches
 * the model as an `error-text` output, never as an exception.
 */
export async function aiSdkTools(session: Session, options: AiSdkToolsOptions = {}): Promise<ToolSet> {
  const definitions = await session.toolDefinitions("anthropic");
  const byName = new Map(session.context.options.tools.map((t) => [t.name, t] as const));
  const lock = new SharedExclusiveLock();
  const set: ToolSet = {};
  for (const def of definitions) {
    if (def.input_schema === undefined) continue; // deferred: loaded through ToolSearch
    const armatureTool = byName.get(def.name);
    set[def.name] = dynamicTool({
      description: def.description,
      inputSchema: jsonSchema(def.input_schema as Parameters<typeof jsonSchema>[0]),
      execute: async (input, { toolCallId, abortSignal }) => {
        const signal = anySignal([abortSignal, options.signal]);
        const release = await lock.acquire(isSafe(armatureTool, input));
        try {
          const [result] = await session.runTurn([{ type: "tool_use", id: toolCallId, name: def.name, input }], signal ? { signal } : {});
          return result!;
        } finally {
          release();
        }
      },
      toModelOutput: ({ output }) => toModelOutput(output as ToolResultBlock),
    });
  }
  return set;
}

type ModelOutput = Awaited<ReturnType<NonNullable<Parameters<typeof dynamicTool>[0]["toModelOutput"]>>>;

/** A tool_result as the AI SDK's model output: text, an error text, or text and images. */
export function toModelOutput(block: ToolResultBlock): ModelOutput {
  const text = typeof block.content === "string" ? block.content : block.content.map((b) => (b.type === "text" ? b.text : "")).filter((t) => t !== "").join("\n");
  if (block.is_error) return { type: "error-text", value: text };
  if (typeof block.content === "string" || !block.content.some((b) => b.type === "image")) return { type: "text", value: text };
  return {
    type: "content",
    value: block.content.map((b) =>
      b.type === "image"
        ? { type: "image-data" as const, data: b.source.data, mediaType: b.source.media_type }
        : { type: "text" as const, text: b.type === "text" ? b.text : b.type === "document" ? documentPlaceholder(b) : `Tool loaded: ${b.tool_name}` },
    ),
  };
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
