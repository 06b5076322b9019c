import type { ProjectCodeBoundary } from "../sandbox/project-code.js";
import type { DynamicToolSource } from "../session/session.js";
import type { Tool } from "../tool/types.js";
import type { McpScope, McpServerConfig, McpServerEntry } from "./config.js";
import type { McpConnection } from "./connection.js";
import type { RemoteToolInfo } from "./tool.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** Default start-up timeout per server (ms); env `MCP_TIMEOUT` overrides. */
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;
/** Default per-call timeout (ms); env `MCP_TOOL_TIMEOUT` overrides. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 600_000;

export type McpServerState = "connected" | "failed" | "closed" | "pending" | "disabled";

export interface McpServerStatus {
  name: string;
  scope: McpScope;
  source: string;
  status: McpServerState;
  error?: string;
  tools: number;
  /** Process group leader of a stdio server. */
  pid?: number;
  /** How armature reaches it. */
  transport: McpServerConfig["type"];
  /** The name and version the server gave in its MCP `initialize` answer (once connected). */
  serverInfo?: { name: string; version: string };
  /** The server's tools as it listed them (once connected). */
  toolList?: Array<{ name: string; description?: string; annotations?: RemoteToolInfo["annotations"] }>;
  /** Where it runs or listens: the command of a stdio server, the URL of a remote one (never its env or headers). */
  location?: string;
}

/** What `setServers` changed: the reference's McpSetServersResult. */
export interface McpSetServersResult {
  added: string[];
  removed: string[];
  /** Servers that failed to connect, with the reason. */
  errors: Record<string, string>;
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
  /**
   * Replaces the servers an earlier call added with `entries` (the Agent SDK's setMcpServers):
   * servers of the call before that are not named again are closed, new names are connected, a
   * name with a changed configuration is reconnected. Servers the manager started with stay,
   * unless named here (then they are replaced and become part of the set) or in the host's
   * process (`sdk`: the host's call names all of its own). Resolves once the new
   * servers connected or failed.
   */
  setServers(entries: readonly McpServerEntry[]): Promise<McpSetServersResult>;
  /** Closes a server's connection and connects it again (its process restarted); throws with the reason on failure. */
  reconnect(name: string): Promise<void>;
  /** Turns a server off (closed, its tools gone, status `disabled`) or on again (connected anew); throws for an unknown name or a failed connect. */
  setEnabled(name: string, enabled: boolean): Promise<void>;
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

  // The MCP SDK is loaded with the first server: a manager with none (a host that may add some) costs nothing.
  let load: Promise<typeof import("./connection.js")> | undefined;
  const makeConnection = async (entry: McpServerEntry): Promise<McpConnection> => {
    const { McpConnection: Connection } = await (load ??= import("./connection.js"));
    const connection: McpConnection = new Connection(entry, {
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
    return connection;
  };
  const start = async (c: McpConnection): Promise<void> => {
    try {
      await c.connect(startupTimeoutMs);
      emit({ type: "connected", server: c.serverName, tools: c.tools.length });
    } catch (err) {
      c.status = "failed";
      c.error = (err as Error).message;
      emit({ type: "failed", server: c.serverName, error: c.error });
    }
  };

  const seen = new Set<string>();
  let connections: McpConnection[] = [];
  for (const entry of entries) {
    if (seen.has(entry.normalizedName)) continue;
    seen.add(entry.normalizedName);
    connections.push(await makeConnection(entry));
  }
  await Promise.all(connections.map(start));
  /** The names the last setServers call named (only those are removed by the next). */
  let dynamic = new Set<string>();
  /** Servers turned off (setEnabled): closed, listed as disabled, no tools. */
  const disabled = new Set<string>();
  const find = (name: string): number => {
    const index = connections.findIndex((c) => c.serverName === name);
    if (index < 0) throw new Error(`no MCP server is named ${JSON.stringify(name)}`);
    return index;
  };

  let closed = false;
  const manager: McpManager = {
    tools() {
      const out: Tool[] = [];
      for (const c of connections) if (!disabled.has(c.serverName) && (c.status === "connected" || c.restartable)) out.push(...c.tools);
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    servers() {
      return connections.map((c) => {
        const off = disabled.has(c.serverName);
        const live = !off && (c.status === "connected" || c.restartable);
        const s: McpServerStatus = { name: c.serverName, scope: c.entry.scope, source: c.entry.source, status: off ? "disabled" : c.status, tools: live ? c.tools.length : 0, transport: c.entry.config.type };
        if (c.error !== undefined && !off) s.error = c.error;
        if (c.pid !== undefined) s.pid = c.pid;
        const info = off ? undefined : c.client?.getServerVersion();
        if (info) s.serverInfo = { name: info.name, version: info.version };
        if (live) s.toolList = c.tools.map((t) => ({ name: t.remoteName, ...(t.remoteDescription !== "" ? { description: t.remoteDescription } : {}), ...(Object.keys(t.annotations).length > 0 ? { annotations: t.annotations } : {}) }));
        const location = configLocation(c.entry.config);
        if (location !== undefined) s.location = location;
        return s;
      });
    },
    async setServers(next) {
      if (closed) throw new Error("the MCP servers are closed");
      const wanted = new Map<string, McpServerEntry>();
      for (const entry of next) if (!wanted.has(entry.normalizedName)) wanted.set(entry.normalizedName, entry);
      const result: McpSetServersResult = { added: [], removed: [], errors: {} };
      const keep: McpConnection[] = [];
      const closing: McpConnection[] = [];
      const fresh: McpConnection[] = [];
      for (const c of connections) {
        const entry = wanted.get(c.normalizedName);
        if (entry === undefined) {
          if (dynamic.has(c.normalizedName) || c.entry.config.type === "sdk") {
            closing.push(c);
            result.removed.push(c.serverName);
          } else keep.push(c);
        } else if (sameConfig(entry, c.entry)) {
          keep.push(c);
          wanted.delete(c.normalizedName);
        } else closing.push(c);
      }
      for (const entry of wanted.values()) {
        const c = await makeConnection(entry);
        fresh.push(c);
        result.added.push(entry.name);
      }
      await Promise.allSettled(closing.map((c) => c.close()));
      connections = [...keep, ...fresh];
      dynamic = new Set(next.map((e) => e.normalizedName));
      await Promise.all(fresh.map(start));
      for (const c of fresh) if (c.status === "failed") result.errors[c.serverName] = c.error ?? "failed to connect";
      changed();
      return result;
    },
    async reconnect(name) {
      const index = find(name);
      const old = connections[index]!;
      disabled.delete(name);
      await old.close();
      const c = await makeConnection(old.entry);
      connections[index] = c;
      await start(c);
      changed();
      if (c.status === "failed") throw new Error(`MCP server ${name} did not reconnect: ${c.error ?? "failed"}`);
    },
    async setEnabled(name, enabled) {
      const index = find(name);
      if (enabled) {
        if (disabled.has(name)) await manager.reconnect(name);
        return;
      }
      if (disabled.has(name)) return;
      disabled.add(name);
      await connections[index]!.close();
      changed();
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
  return manager;
}

function configLocation(config: McpServerConfig): string | undefined {
  if (config.type === "stdio") return config.command;
  if (config.type === "http" || config.type === "sse") return config.url;
  return undefined;
}

function sameConfig(a: McpServerEntry, b: McpServerEntry): boolean {
  return a.name === b.name && JSON.stringify(a.config) === JSON.stringify(b.config);
}
