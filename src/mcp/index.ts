// The MCP SDK is loaded only when a server is used: import("./manager.js") / ("./serve.js").
export {
  expandEnvVars,
  mergeMcpApproval,
  parseMcpServers,
  projectMcpServersAllowed,
  readMcpConfigFlag,
  readProjectMcpJson,
  McpConfigError,
} from "./config.js";
export type { McpApprovalSettings, McpScope, McpServerConfig, McpServerEntry, ParsedMcpServers } from "./config.js";
export { mcpToolName, normalizeMcpName, MAX_TOOL_NAME_LENGTH } from "./names.js";
export type { ConnectMcpOptions, McpEvent, McpManager, McpServerStatus } from "./manager.js";
export type { McpTool, RemoteToolInfo } from "./tool.js";

import type { McpServerEntry } from "./config.js";
import type { ConnectMcpOptions, McpManager } from "./manager.js";

/**
 * Connects to MCP servers (loading the SDK on first use) and returns a tool source for
 * `createSession({ toolSource })`.
 */
export async function connectMcpServers(entries: readonly McpServerEntry[], options: ConnectMcpOptions): Promise<McpManager> {
  const { connectMcpServers: connect } = await import("./manager.js");
  return connect(entries, options);
}

export type { HttpServeHandle, HttpServeOptions, StdioServeOptions } from "./serve-transports.js";
export type { ServeToolsOptions, SessionFactory } from "./serve.js";

import type { HttpServeHandle, HttpServeOptions, StdioServeOptions } from "./serve-transports.js";
import type { SessionFactory } from "./serve.js";

/** Serves a session's tools over stdio until the client closes stdin (see `armature mcp serve`). */
export async function serveMcpStdio(makeSession: SessionFactory, options?: StdioServeOptions): Promise<void> {
  const { serveStdio } = await import("./serve-transports.js");
  return serveStdio(makeSession, options);
}

/** Serves a session's tools over Streamable HTTP at `/mcp`, bearer token required. */
export async function serveMcpHttp(makeSession: SessionFactory, options: HttpServeOptions): Promise<HttpServeHandle> {
  const { serveHttp } = await import("./serve-transports.js");
  return serveHttp(makeSession, options);
}
