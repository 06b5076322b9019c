import { z } from "zod";
import { buildTool } from "../tool/build-tool.js";
import type { AnyObjectSchema, ProgressCallback, Tool, ToolResultBlock, ToolUseContext } from "../tool/types.js";
import { lazyJsonSchemaValidator } from "./json-schema.js";
import { mcpToolName } from "./names.js";
import { mapMcpResult, type McpCallResult } from "./results.js";

/** A tool as tools/list describes it. */
export interface RemoteToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** What the wrapper needs from the connection it calls through. */
export interface McpToolCaller {
  readonly serverName: string;
  /** The name in tool names and permission rules (`[A-Za-z0-9_-]`). */
  readonly normalizedName: string;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress: (p: { progress: number; total?: number; message?: string }) => void },
  ): Promise<McpCallResult>;
}

/** Longest description passed on (the reference caps MCP descriptions too). */
export const MAX_MCP_DESCRIPTION_CHARS = 2_048;
/** Results past this are persisted to a file with a preview, as any tool's. */
export const MCP_MAX_RESULT_SIZE_CHARS = 100_000;

/** Any object: the server's JSON Schema (via `inputJSONSchema`) is what validates. */
const passThroughObject = z.looseObject({}) as unknown as AnyObjectSchema;

export interface McpToolExtras {
  /** The server's tool name (before normalisation). */
  readonly remoteName: string;
  /** The description the server listed (capped at MAX_MCP_DESCRIPTION_CHARS). */
  readonly remoteDescription: string;
  readonly annotations: NonNullable<RemoteToolInfo["annotations"]>;
  /** `openWorldHint` (absent counts as true: the tool may reach beyond the machine). */
  readonly openWorld: boolean;
}

export type McpTool = Tool & McpToolExtras;

/**
 * A remote tool as one of ours: `mcp__<server>__<tool>`, the server's schema passed through
 * and checked with Ajv before the call, annotations mapped to the contract and failing
 * closed when absent (`readOnlyHint` → read-only and concurrency-safe; not destructive only
 * when `destructiveHint` is false or the tool is read-only), deferred by default.
 */
export function createMcpTool(caller: McpToolCaller, info: RemoteToolInfo): McpTool {
  const name = mcpToolName(caller.normalizedName, info.name);
  const annotations = info.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true;
  const destructive = !readOnly && annotations.destructiveHint !== false;
  let description = info.description ?? "";
  if (description.length > MAX_MCP_DESCRIPTION_CHARS) description = `${description.slice(0, MAX_MCP_DESCRIPTION_CHARS)}… [truncated]`;
  const schema = info.inputSchema;
  const validate = lazyJsonSchemaValidator(schema, `The MCP tool ${name}`);
  const tool = buildTool<AnyObjectSchema, McpCallResult>({
    name,
    description,
    inputSchema: passThroughObject,
    inputJSONSchema: schema,
    validateJsonInput: validate,
    searchHint: [caller.serverName, info.title ?? annotations.title].filter(Boolean).join(" "),
    isMcp: true,
    mcpServer: caller.normalizedName,
    shouldDefer: true,
    maxResultSizeChars: MCP_MAX_RESULT_SIZE_CHARS,
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    isDestructive: () => destructive,
    getToolUseSummary: () => `${caller.serverName}: ${info.name}`,

    async call(input, context: ToolUseContext, onProgress: ProgressCallback) {
      const data = await caller.callTool(info.name, input, {
        signal: context.abortController.signal,
        onProgress: (p) => onProgress({ toolUseId: "", data: { type: "mcp_progress", server: caller.serverName, tool: info.name, ...p } }),
      });
      return { data };
    },

    mapToolResultToToolResultBlockParam(data, toolUseId): ToolResultBlock {
      return mapMcpResult(data, toolUseId, MCP_MAX_RESULT_SIZE_CHARS);
    },
  });
  return Object.assign(tool, { remoteName: info.name, remoteDescription: description, annotations, openWorld: annotations.openWorldHint !== false });
}
