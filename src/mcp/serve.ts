import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Approver } from "../permissions/types.js";
import { toolJsonSchema } from "../registry/definitions.js";
import { isDeniedOutright } from "../registry/pool.js";
import type { Session } from "../session/session.js";
import { skillListing, type Skill } from "../skills/load-skills.js";
import type { ConversationMessage, Tool, ToolResultBlock } from "../tool/types.js";
import { CLIENT_INFO } from "./connection.js";
import { approvalForm, canElicitForms } from "./serve-elicitation.js";

export interface ServeToolsOptions {
  /** Also serve the MCP tools this session is itself connected to (default false). */
  includeMcpTools?: boolean;
  /** Wait this long for the user's answer to an elicitation (ms, default 10 minutes). */
  elicitationTimeoutMs?: number;
  /**
   * The skills the sessions' Skill tool offers (`loadSkills`, which applies the trust gate). Where
   * the agent has them in its system prompt, an MCP client gets the listing (names and
   * descriptions) as the server's instructions and in the Skill tool's description.
   */
  skills?: readonly Skill[];
}

/** The armature session one MCP connection works in, built with the approver that asks that client. */
export type SessionFactory = (approver: Approver) => Session | Promise<Session>;

function safe(fn: () => boolean): boolean {
  try {
    return fn() === true;
  } catch {
    return false;
  }
}

/** Our contract as MCP annotations: read-only only when the tool says so for any input; anything else may destroy. */
export function toolAnnotations(tool: Tool): NonNullable<McpToolInfo["annotations"]> {
  const readOnly = safe(() => tool.isReadOnly({}));
  const annotations: NonNullable<McpToolInfo["annotations"]> = { readOnlyHint: readOnly, destructiveHint: !readOnly };
  if (tool.isMcp) annotations.openWorldHint = true;
  return annotations;
}

/**
 * The served tools: the session's pool, without ToolSearch (an MCP client gets every schema), MCP
 * tools unless asked, and the tools that need a person (questions, plan mode) unless the client
 * can show forms: a client that cannot answer ExitPlanMode must never enter plan mode.
 */
export function servedTools(session: Session, options: ServeToolsOptions, clientCanElicit: boolean): Tool[] {
  const context = session.context;
  return context.options.tools.filter(
    (t) =>
      t.name !== "ToolSearch" &&
      (options.includeMcpTools === true || !t.isMcp) &&
      (clientCanElicit || !safe(() => t.requiresUserInteraction())) &&
      !isDeniedOutright(t, context.permissionContext),
  );
}

/** A tool_result as an MCP tools/call result. */
export function toCallToolResult(block: ToolResultBlock): CallToolResult {
  const content: CallToolResult["content"] = [];
  if (typeof block.content === "string") content.push({ type: "text", text: block.content });
  else {
    for (const b of block.content) {
      if (b.type === "text") content.push({ type: "text", text: b.text });
      else if (b.type === "image") content.push({ type: "image", data: b.source.data, mimeType: b.source.media_type });
      else content.push({ type: "text", text: b.type === "document" ? documentPlaceholder(b) : `Tool loaded: ${b.tool_name}` });
    }
  }
  return block.is_error ? { content, isError: true } : { content };
}

/**
 * An MCP server (not yet connected to a transport) that serves a session's tools. Every call
 * runs through the session's pipeline: its permission engine, hooks and budgets. A call that
 * needs approval asks the client through MCP elicitation when it supports it, and is denied
 * with the reason otherwise. Returns the server and a function that closes its session.
 */
export async function createToolServer(makeSession: SessionFactory, options: ServeToolsOptions = {}): Promise<{ server: Server; session: Session }> {
  // logging: what a call adds to the conversation (a background task's end notification, a
  // skill's instructions) is sent as a notifications/message the client can pass on to its model.
  // The session first: what it serves decides the server's instructions. Its approver asks the
  // server, created below (calls, and so approvals, come only once it is connected).
  const canElicit = (): boolean => canElicitForms(server.getClientCapabilities());
  const approver: Approver = async (request) => {
    if (!canElicit()) {
      return {
        behavior: "deny",
        message: `${request.decision.reason}. The MCP client that called armature cannot be asked (it does not support elicitation): allow such calls with a rule in the served directory's settings (or --allow), or do something that does not need approval.`,
      };
    }
    const form = approvalForm(request);
    try {
      return form.answer(await server.elicitInput(form.params, { timeout: options.elicitationTimeoutMs ?? 600_000, signal: request.signal }));
    } catch (err) {
      return { behavior: "deny", message: `${request.decision.reason}, and asking the MCP client failed (${(err as Error).message}).` };
    }
  };
  const session = await makeSession(approver);
  const listing = servesSkills(session, options) ? skillListing(options.skills!) : "";
  const server = new Server(CLIENT_INFO, { capabilities: { tools: { listChanged: false }, logging: {} }, ...(listing !== "" ? { instructions: listing } : {}) });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: McpToolInfo[] = [];
    for (const tool of servedTools(session, options, canElicit())) {
      const schema = toolJsonSchema(tool) as McpToolInfo["inputSchema"];
      const description = await tool.description(session.context);
      tools.push({ name: tool.name, description: tool.name === SKILL_TOOL && listing !== "" ? `${description}\n\n${listing}` : description, inputSchema: { ...schema, type: "object" }, annotations: toolAnnotations(tool) });
    }
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const served = servedTools(session, options, canElicit()).some((t) => t.name === name || t.aliases.includes(name));
    if (!served) return { content: [{ type: "text", text: `Error: No such tool available: ${name}` }], isError: true };
    const progressToken = request.params._meta?.progressToken;
    const { results, newMessages } = await session.runTurnDetailed([{ type: "tool_use", id: `mcp_${randomUUID()}`, name, input: request.params.arguments ?? {} }], {
      signal: extra.signal,
      onProgress:
        progressToken === undefined
          ? undefined
          : (() => {
              let n = 0;
              return (p) => {
                const message = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
                void extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: ++n, message: message.slice(0, 1_000) } }).catch(() => undefined);
              };
            })(),
    });
    // What the call adds to the conversation (a skill's instructions, a background task's end)
    // also follows its result: a client passes a result to its model, seldom a log message.
    for (const message of newMessages) {
      await extra
        .sendNotification({ method: "notifications/message", params: { level: "info", logger: "armature", data: { type: "message", role: message.role, content: message.content } } })
        .catch(() => undefined);
    }
    const result = toCallToolResult(results[0]!);
    for (const message of newMessages) result.content.push(...messageContent(message));
    return result;
  });
  return { server, session };
}

const SKILL_TOOL = "Skill";

/** Skills are offered when there are some and the session serves its Skill tool. */
function servesSkills(session: Session, options: ServeToolsOptions): boolean {
  return (options.skills?.length ?? 0) > 0 && servedTools(session, options, true).some((t) => t.name === SKILL_TOOL);
}

/** A new message's text and images as MCP content (a message in a result carries no calls of its own). */
function messageContent(message: ConversationMessage): CallToolResult["content"] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  const content: CallToolResult["content"] = [];
  for (const b of message.content) {
    if (b.type === "text") content.push({ type: "text", text: b.text });
    else if (b.type === "image") content.push({ type: "image", data: b.source.data, mimeType: b.source.media_type });
  }
  return content;
}
