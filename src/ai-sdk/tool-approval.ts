// AI SDK 7's `generateText({ toolApproval })`: armature's decision as the approval status of each
// call. AI SDK 7 deprecates the per-tool `needsApproval` (AI SDK 6's only way, which the tool set
// still sets); with `toolApproval` the person also sees armature's reason in the request.
import type { ModelMessage, ToolSet } from "ai";
import { hostApprovals } from "../session/host-approvals.js";
import type { Session } from "../session/session.js";

/** What AI SDK 7 passes a `toolApproval` function (the fields armature reads). */
export interface AiSdkApprovalQuery {
  toolCall: { toolCallId: string; toolName: string; input: unknown };
  tools?: ToolSet | undefined;
  messages?: ModelMessage[];
}

/**
 * An approval status as AI SDK 7 reads it: `user-approval` puts the call to a person (the SDK
 * returns a `tool-approval-request` carrying `reason`); `not-applicable` lets it run, and
 * armature's pipeline then allows or denies it with its own result.
 */
export type AiSdkApprovalStatus = { type: "not-applicable" } | { type: "user-approval"; reason?: string };

export type AiSdkToolApproval = (query: AiSdkApprovalQuery) => Promise<AiSdkApprovalStatus>;

/** The tools `aiSdkTools` made: the session each belongs to, and whether the SDK's flow approves its calls. */
const ownTools = new WeakMap<object, { session: Session; approvalFlow: boolean }>();

export function registerOwnTool(tool: object, session: Session, approvalFlow: boolean): void {
  ownTools.set(tool, { session, approvalFlow });
}

/**
 * Asks armature whether a call of one of the session's tools would need a person, and if so
 * remembers that it was put to one: once the person approves, the SDK runs the call and armature
 * runs it as approved. Returns the reason armature would ask, or undefined when it would not.
 */
export async function putToPersonIfAsked(session: Session, toolName: string, toolCallId: string, input: unknown): Promise<{ reason: string } | undefined> {
  const decision = await session.checkPermission({ type: "tool_use", id: toolCallId, name: toolName, input });
  if (decision.behavior !== "ask") return undefined;
  hostApprovals(session).putToPerson(toolCallId);
  return { reason: decision.reason };
}

/**
 * A `toolApproval` for AI SDK 7's `generateText` / `streamText` / `ToolLoopAgent`: a call of the
 * session's tools that armature would ask about is put to a person (`user-approval`, armature's
 * reason in the request's `reason`); once approved, the SDK runs it and armature runs it as
 * approved. Every other call of the session's tools runs, and armature's pipeline allows or denies
 * it (a denied call reaches the model as an `error-text` result, as on AI SDK 6). A tool that is not
 * the session's keeps its own `needsApproval`; a set made with `approvals: "session"` is left to
 * the session's `canUseTool`.
 *
 * ```ts
 * generateText({ model, tools: await aiSdkTools(session), toolApproval: aiSdkToolApproval(session), messages })
 * ```
 */
export function aiSdkToolApproval(session: Session): AiSdkToolApproval {
  return async ({ toolCall, tools, messages }) => {
    const tool = tools?.[toolCall.toolName];
    const own = tool === undefined ? undefined : ownTools.get(tool);
    // A set made with `approvals: "session"`: the session's canUseTool answers while the call runs.
    if (own?.session === session && !own.approvalFlow) return { type: "not-applicable" };
    if (tool === undefined || own?.session === session) {
      const asked = await putToPersonIfAsked(session, toolCall.toolName, toolCall.toolCallId, toolCall.input);
      return asked ? { type: "user-approval", reason: asked.reason } : { type: "not-applicable" };
    }
    return (await foreignNeedsApproval(tool, toolCall, messages ?? [])) ? { type: "user-approval" } : { type: "not-applicable" };
  };
}

/** What the SDK itself would decide for a tool that is not armature's: its own `needsApproval`. */
async function foreignNeedsApproval(tool: ToolSet[string], toolCall: AiSdkApprovalQuery["toolCall"], messages: ModelMessage[]): Promise<boolean> {
  const needs: unknown = (tool as { needsApproval?: unknown }).needsApproval;
  if (typeof needs !== "function") return needs === true;
  return (await (needs as (input: unknown, options: { toolCallId: string; messages: ModelMessage[]; context: unknown }) => unknown)(toolCall.input, {
    toolCallId: toolCall.toolCallId,
    messages,
    context: undefined,
  })) === true;
}
