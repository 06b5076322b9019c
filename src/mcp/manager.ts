import type { ProjectCodeBoundary } from "../sandbox/project-code.js";
import type { DynamicToolSource } from "../session/session.js";
import type { Tool } from "../tool/types.js";
import type { McpScope, McpServerEntry } from "./config.js";
import { McpConnection } from "./connection.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** Default start-up timeout per server (ms); env `MCP_TIMEOUT` overrides. */
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;
/** Default per-call timeout (ms); env `MCP_TOOL_TIMEOUT` overrides. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 600_000;

export type McpServerState = "connected" | "failed" | "closed" | "pending";

export interface McpServerStatus {
  name: string;
  scope: McpScope;
  source: string;
  status: McpServerState;
  error?: string;
  tools: number;
  /** Process group leader of a stdio server. */
  pid?: number;
}

export type McpEvent =
  | { type: "connected"; server: string; tools: number }
  | { type: "failed"; server: string; error: string }
  | { type: "tools_changed"; server: string; tools: number }
  | { type: "lost"; server: string; error: string };

export interface ConnectMcpOptions {
  cwd: string;
  /** Added to the environment of stdio servers (the session's `env`). */
  env?: Record<string, string>;
  /** Start-up timeout per server (default: env MCP_TIMEOUT, else 30 s). */
  startupTimeoutMs?: number;
  /** Per-call timeout (default: env MCP_TOOL_TIMEOUT, else 600 s). */
  toolTimeoutMs?: number;
  onEvent?: (event: McpEvent) => void;
  /** The transport of each `{type: "sdk"}` server (servers in the host process, e.g. the Agent SDK's). */
  sdkTransport?: (serverName: string) => Transport;
  /** Use (and refresh) the OAuth tokens `armature mcp login` stored under `<dir>/mcp-oauth/` (the CLI passes its config dir). */
  oauthConfigDir?: string;
  /**
   * Where the stdio servers of the project's own configuration (scopes `project` and `local`) run
   * (sandbox/project-code.ts): inside the sandbox's boundary. Absent: on the host.
   */
  projectBoundary?: ProjectCodeBoundary;
}

/** The connected servers: a tool source for `createSession({ toolSource })`. */
export interface McpManager extends DynamicToolSource {
  servers(): McpServerStatus[];
  /** Every connected server's tools, sorted by name. */
  tools(): Tool[];
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * Connects every server in parallel, each within the start-up timeout. A server that fails
 * is reported (event and status) and left out; the others go on. The first entry of a name
 * wins (pass them highest precedence first).
 */
export async function connectMcpServers(entries: readonly McpServerEntry[], options: ConnectMcpOptions): Promise<McpManager> {
  const startupTimeoutMs = options.startupTimeoutMs ?? envMs("MCP_TIMEOUT", DEFAULT_MCP_STARTUP_TIMEOUT_MS);
  const toolTimeoutMs = options.toolTimeoutMs ?? envMs("MCP_TOOL_TIMEOUT", DEFAULT_MCP_TOOL_TIMEOUT_MS);
  const listeners = new Set<() => void>();
  const emit = (event: McpEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // a reporting callback must not break the connections
    }
  };
  const changed = (): void => {
    for (const listener of [...listeners]) listener();
  };
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) baseEnv[k] = v;
  Object.assign(baseEnv, options.env ?? {});

  const seen = new Set<string>();
  const connections: McpConnection[] = [];
  for (const entry of entries) {
    if (seen.has(entry.normalizedName)) continue;
    seen.add(entry.normalizedName);
    const connection: McpConnection = new McpConnection(entry, {
      env: baseEnv,
      cwd: options.cwd,
      toolTimeoutMs,
      ...(options.sdkTransport ? { sdkTransport: options.sdkTransport } : {}),
      ...(options.projectBoundary ? { projectBoundary: options.projectBoundary } : {}),
      ...(options.oauthConfigDir !== undefined ? { oauthConfigDir: options.oauthConfigDir } : {}),
      onToolsChanged: () => {
        emit({ type: "tools_changed", server: entry.name, tools: connection.tools.length });
        changed();
      },
      onLost: (reason) => {
        emit({ type: "lost", server: entry.name, error: reason });
        changed();
      },
    });
    connections.push(connection);
  }

  await Promise.all(
    connections.map(async (c) => {
      try {
        await c.connect(startupTimeoutMs);
        emit({ type: "connected", server: c.serverName, tools: c.tools.length });
      } catch (err) {
        c.status = "failed";
        c.error = (err as Error).message;
        emit({ type: "failed", server: c.serverName, error: c.error });
      }
    }),
  );

  let closed = false;
  return {
    tools() {
      const out: Tool[] = [];
      for (const c of connections) if (c.status === "connected" || c.restartable) out.push(...c.tools);
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    servers() {
      return connections.map((c) => {
        const s: McpServerStatus = { name: c.serverName, scope: c.entry.scope, source: c.entry.source, status: c.status, tools: c.status === "connected" || c.restartable ? c.tools.length : 0 };
        if (c.error !== undefined) s.error = c.error;
        if (c.pid !== undefined) s.pid = c.pid;
        return s;
      });
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await Promise.allSettled(connections.map((c) => c.close()));
    },
  };
}
