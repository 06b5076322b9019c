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
