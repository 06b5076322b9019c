// `armature/openai-agents`: the session's tools as OpenAI Agents SDK (`@openai/agents`) function
// tools, with the SDK's own approval flow. A separate entry point: `@openai/agents` is an
// optional peer dependency, never loaded by the main entry.
import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { tool, type FunctionTool, type RunContext } from "@openai/agents";
import type { Session } from "../session/session.js";
import { hostApprovals } from "../session/host-approvals.js";
import { neutralToolDefinitions } from "../session/neutral-tools.js";
import type { ToolResultBlock, ToolUseBlock } from "../tool/types.js";

export interface AgentsToolsOptions {
  /** Aborts every call started through these tools (besides the SDK's own per-call signal). */
  signal?: AbortSignal;
  /**
   * Who approves a call that would ask: `"agents-sdk"` (default) makes it `needsApproval`, so
   * the run stops with an interruption; `result.state.approve(item)` / `reject(item)` and
   * running the state again decide it, and an approved call runs as approved. `"session"`: the
   * session's own `canUseTool` is asked while the call runs.
   */
  approvals?: "agents-sdk" | "session";
}

type NonStrictParameters = Extract<Parameters<typeof tool>[0], { strict: false }>["parameters"];

/**
 * The session's tools (those the model may see; deferred ones in full, no ToolSearch) as Agents
 * SDK function tools, for `new Agent({ tools })`. Each call runs through armature's pipeline —
 * validation, hooks, permissions, result budgets — as one turn of the session; armature
 * validates the input, so the tools are non-strict and send armature's JSON Schema as is. A
 * failed call reaches the model as its error text, never as an exception.
 */
export async function agentsTools(session: Session, options: AgentsToolsOptions = {}): Promise<FunctionTool[]> {
  const definitions = await neutralToolDefinitions(session);
  const approvals = hostApprovals(session);
  const approvalFlow = (options.approvals ?? "agents-sdk") === "agents-sdk";
  return definitions.map((def) => {
    const block = (id: string, input: unknown): ToolUseBlock => ({ type: "tool_use", id, name: def.name, input });
    return tool({
      name: def.name,
      description: def.description,
      parameters: def.parameters as unknown as NonStrictParameters,
      strict: false,
      needsApproval: approvalFlow
        ? async (_context: RunContext, input: unknown, callId?: string) => {
            const id = callId ?? "";
            const ask = (await session.checkPermission(block(id, input))).behavior === "ask";
            if (ask) approvals.putToPerson(id);
            return ask;
          }
        : false,
      execute: async (input, _context, details) => {
        const id = details?.toolCall?.callId ?? `call_${Math.random().toString(36).slice(2)}`;
        const signal = anySignal([details?.signal, options.signal]);
        const approved = approvals.settle(id);
        const [result] = await session.runTurn([block(id, input)], {
          ...(signal ? { signal } : {}),
          ...(approved ? { approvedToolUseIds: [id] } : {}),
        });
        return toAgentsOutput(result!);
      },
      // armature answers every failure as a result; anything thrown here is a bug, and the
      // model is told so rather than the run ending.
      errorFunction: (_context, error) => `armature could not run ${def.name}: ${(error as Error)?.message ?? String(error)}`,
    });
  });
}

type AgentsOutput = string | Array<{ type: "text"; text: string } | { type: "image"; image: string }>;

/** A tool_result as an Agents SDK tool output: its text, or text and images (data URLs). */
export function toAgentsOutput(block: ToolResultBlock): AgentsOutput {
  if (typeof block.content === "string") return block.content;
  const parts = block.content.map((b) =>
    b.type === "image"
      ? { type: "image" as const, image: `data:${b.source.media_type};base64,${b.source.data}` }
      : { type: "text" as const, text: b.type === "text" ? b.text : b.type === "document" ? documentPlaceholder(b) : `Tool loaded: ${b.tool_name}` },
  );
  return parts.some((p) => p.type === "image") ? parts : parts.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

function anySignal(signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}
