import { getEventListeners } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerEntry } from "./config.js";
import type { McpCallResult } from "./results.js";
import { proxiedFetch } from "../net/proxied-fetch.js";
import { FileOAuthProvider, hasStoredTokens, OAuthLoginNeeded } from "./oauth.js";
import { ProcessGroupStdioTransport } from "./stdio-transport.js";
import type { ProjectCodeBoundary } from "../sandbox/project-code.js";
import { createMcpTool, type McpTool, type McpToolCaller, type RemoteToolInfo } from "./tool.js";

export const CLIENT_INFO = { name: "armature", version: "0.1.0" };

export interface ConnectionOptions {
  /** Environment of stdio servers: this plus the server's own `env`. */
  env: Record<string, string>;
  cwd: string;
  /** Per-call timeout (ms). */
  toolTimeoutMs: number;
  /** Called after the server's tool list changed (list_changed, reconnect). */
  onToolsChanged: () => void;
  /** Called when the connection is lost for good. */
  onLost: (reason: string) => void;
  /** The transport of a `{type: "sdk"}` server (a server in the host process). */
  sdkTransport?: (serverName: string) => Transport;
  /** Where a project's own stdio servers run (ConnectMcpOptions.projectBoundary). */
  projectBoundary?: ProjectCodeBoundary;
  /** Where `armature mcp login` stores OAuth tokens (`<dir>/mcp-oauth/`): remote servers with tokens there use and refresh them. */
  oauthConfigDir?: string;
}

export type ConnectionStatus = "pending" | "connected" | "failed" | "closed";

/** A stdio server that crashed is restarted at the next call, this many times in a row at most. */
export const MAX_STDIO_RESTARTS = 3;

/** How long after a crash the restart waits: none for the first, then 1 s, 2 s, … up to 8 s. */
function restartDelayMs(crashes: number): number {
  return crashes <= 1 ? 0 : Math.min(1_000 * 2 ** (crashes - 2), 8_000);
}

/** One server: its client, its tools as ours, and what to do when it drops. */
export class McpConnection implements McpToolCaller {
  status: ConnectionStatus = "pending";
  error: string | undefined;
  tools: McpTool[] = [];
  client: Client | undefined;
  private transport: Transport | undefined;
  private reconnecting: Promise<void> | undefined;
  private closing = false;
  /** Crashes of a stdio server with no call answered since, and when the last one was. */
  private crashes = 0;
  private crashedAt = 0;

  constructor(
    readonly entry: McpServerEntry,
    private readonly options: ConnectionOptions,
  ) {}

  get serverName(): string {
    return this.entry.name;
  }

  get normalizedName(): string {
    return this.entry.normalizedName;
  }

  /** A crashed stdio server that the next call restarts: its tools stay in the pool meanwhile. */
  get restartable(): boolean {
    return this.entry.config.type === "stdio" && this.status === "failed" && this.crashes > 0 && this.crashes <= MAX_STDIO_RESTARTS && !this.closing;
  }

  /** The server's process group leader (stdio). */
  get pid(): number | undefined {
    return this.transport instanceof ProcessGroupStdioTransport ? this.transport.pid : undefined;
  }

  /** The stored OAuth login of a remote server without its own Authorization header, if there is one. */
  private async oauthProvider(): Promise<FileOAuthProvider | undefined> {
    const config = this.entry.config;
    const dir = this.options.oauthConfigDir;
    if ((config.type !== "http" && config.type !== "sse") || dir === undefined) return undefined;
    if (Object.keys(config.headers).some((h) => h.toLowerCase() === "authorization")) return undefined;
    return (await hasStoredTokens(dir, config.url)) ? new FileOAuthProvider(this.entry.name, config.url, dir) : undefined;
  }

  private makeTransport(authProvider: FileOAuthProvider | undefined): Transport {
    const config = this.entry.config;
    if (config.type === "sdk") {
      if (!this.options.sdkTransport) throw new Error(`MCP server ${this.entry.name}: an in-process (sdk) server needs a host to reach it`);
      return this.options.sdkTransport(this.entry.name);
    }
    if (config.type === "stdio") {
      const cwd = config.cwd ?? this.options.cwd;
      const projectCode = this.entry.scope === "project" || this.entry.scope === "local";
      const contained = projectCode ? this.options.projectBoundary?.(config.command, config.args, cwd) : undefined;
      if (contained && "refused" in contained) throw new Error(`MCP server ${this.entry.name} (the project's) was not started: ${contained.refused}`);
      return new ProcessGroupStdioTransport({
        command: contained ? contained.file : config.command,
        args: contained ? contained.args : config.args,
        env: { ...this.options.env, ...config.env },
        cwd,
        ...(contained ? { contained } : {}),
      });
    }
    // The proxy variables apply to MCP servers over HTTP as to every connection armature makes.
    const options = { requestInit: { headers: config.headers }, fetch: proxiedFetch, ...(authProvider ? { authProvider } : {}) };
    if (config.type === "sse") return new SSEClientTransport(new URL(config.url), options);
    return new StreamableHTTPClientTransport(new URL(config.url), options);
  }

  /** Connects and lists the tools; throws with a message naming the server on failure. */
  async connect(timeoutMs: number): Promise<void> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = this.makeTransport(await this.oauthProvider());
    client.onerror = () => {
      // Transport hiccups (a stray stdout line) are not fatal; a lost connection arrives as onclose.
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.refreshTools().catch(() => undefined);
    });
    try {
      await client.connect(transport, { timeout: timeoutMs });
      this.client = client;
      this.transport = transport;
      await this.refreshTools(timeoutMs, false);
    } catch (err) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      this.client = undefined;
      throw new Error(this.describeFailure(err, transport));
    }
    client.onclose = () => this.onClosed(client);
    this.status = "connected";
    this.error = undefined;
  }

  /** A 401 from a remote server: named, and said what to do, instead of the raw body. */
  private unauthorized(err: unknown): string | undefined {
    if (err instanceof OAuthLoginNeeded) return err.message;
    const is401 = err instanceof UnauthorizedError || ((err instanceof StreamableHTTPError || err instanceof SseError) && err.code === 401);
    if (!is401 || this.entry.config.type === "stdio" || this.entry.config.type === "sdk") return undefined;
    const sent = Object.keys(this.entry.config.headers ?? {}).some((h) => h.toLowerCase() === "authorization");
    const header = `set a token in the server's "headers": {"Authorization": "Bearer \${TOKEN}"}`;
    return (
      `MCP server ${this.serverName} answered 401 Unauthorized: it needs OAuth authorization` +
      (sent ? " (the Authorization header in its configuration was refused)" : "") +
      (this.options.oauthConfigDir !== undefined
        ? `. Run \`armature mcp login ${this.serverName}\` once (the tokens are saved and refreshed), or ${header}.`
        : `. This connection does not log in (no oauthConfigDir): ${header}.`)
    );
  }

  private describeFailure(err: unknown, transport: Transport): string {
    const unauthorized = this.unauthorized(err);
    if (unauthorized !== undefined) return unauthorized;
    let message = err instanceof Error ? err.message : String(err);
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) message = `no answer within the start-up timeout (MCP_TIMEOUT)`;
    if (transport instanceof ProcessGroupStdioTransport) {
      if (transport.exitCode !== null || transport.exitSignal !== null) message += ` (the server exited with ${transport.exitSignal ?? `code ${transport.exitCode}`})`;
      const tail = transport.stderr.trim();
      if (tail) message += `; its stderr ends with: ${tail.slice(-500)}`;
    }
    return message;
  }

  /** tools/list (every page) → our tools; tells the pool unless this is the first listing. */
  async refreshTools(timeoutMs = 30_000, notify = true): Promise<void> {
    const client = this.client;
    if (!client) return;
    const infos: RemoteToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      infos.push(...(page.tools as RemoteToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = infos.map((info) => createMcpTool(this, info));
    if (notify) this.options.onToolsChanged();
  }

  private onClosed(client: Client): void {
    if (this.closing || this.client !== client) return;
    this.client = undefined;
    // An HTTP server may come back (restart, dropped session): reconnect at the next call.
    if (this.entry.config.type !== "stdio") return;
    const transport = this.transport;
    let reason = "the server process exited";
    if (transport instanceof ProcessGroupStdioTransport) reason = this.describeFailure(new Error(reason), transport);
    this.crashed(reason);
  }

  /** Counts a crash (or a failed restart): restarted at the next call, or lost for good past the limit. */
  private crashed(reason: string): void {
    this.status = "failed";
    this.crashes++;
    this.crashedAt = performance.now(); // monotonic, as the backoff it starts
    if (this.restartable) {
      this.error = `${reason}; it is restarted at the next call`;
      return;
    }
    this.error = `${reason}; it crashed ${this.crashes} times in a row, so it is not restarted again`;
    this.options.onLost(this.error);
  }

  /** Restarts a crashed stdio server, after the backoff; a failure counts as one more crash. */
  private async restart(signal: AbortSignal): Promise<void> {
    const wait = this.crashedAt + restartDelayMs(this.crashes) - performance.now();
    if (wait > 0) await delay(wait, signal);
    try {
      await this.reconnect();
    } catch (err) {
      this.crashed(`restarting it failed: ${(err as Error).message}`);
    }
  }

  private async reconnect(): Promise<void> {
    this.reconnecting ??= (async () => {
      const old = this.client;
      this.client = undefined;
      await old?.close().catch(() => undefined);
      const before = this.tools.map((t) => t.name).join("\n");
      await this.connect(30_000);
      if (this.tools.map((t) => t.name).join("\n") !== before) this.options.onToolsChanged();
    })().finally(() => {
      this.reconnecting = undefined;
    });
    return this.reconnecting;
  }

  /** A dropped HTTP session (404), a refused or reset connection: the request never ran, so it may be sent again. */
  private static isDroppedSession(err: unknown): boolean {
    if (err instanceof StreamableHTTPError) return err.code === 404;
    if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed && /not connected/i.test(err.message);
    const cause = (err as { cause?: { code?: string } }).cause;
    return err instanceof TypeError && /fetch failed/.test(err.message) && (cause?.code === "ECONNREFUSED" || cause?.code === "ECONNRESET");
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress: (p: { progress: number; total?: number; message?: string }) => void },
  ): Promise<McpCallResult> {
    const remote = this.entry.config.type !== "stdio";
    if (!this.client && this.restartable) await this.restart(options.signal);
    if (!this.client && remote && !this.closing) {
      try {
        await this.reconnect();
      } catch (err) {
        return errorResult(`MCP server ${this.serverName} is not reachable: ${(err as Error).message}`);
      }
    }
    for (let attempt = 0; ; attempt++) {
      const client = this.client;
      if (!client && this.restartable) return errorResult(`MCP server ${this.serverName} is down: ${this.error}. Try the call again later.`);
      if (!client) return errorResult(`MCP server ${this.serverName} is not connected${this.error ? `: ${this.error}` : ""}. Its tools cannot be used in this session.`);
      try {
        const result = (await withoutLeftoverListeners(options.signal, () =>
          client.callTool({ name, arguments: args }, undefined, {
            signal: options.signal,
            timeout: this.options.toolTimeoutMs,
            resetTimeoutOnProgress: false,
            onprogress: (p) => options.onProgress({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) }),
          }),
        )) as McpCallResult;
        this.crashes = 0;
        return result;
      } catch (err) {
        if (options.signal.aborted) throw err;
        if (remote && attempt === 0 && McpConnection.isDroppedSession(err)) {
          try {
            await this.reconnect();
            continue;
          } catch (again) {
            return errorResult(`MCP server ${this.serverName} dropped the session and could not be reconnected: ${(again as Error).message}`);
          }
        }
        const unauthorized = this.unauthorized(err);
        if (unauthorized !== undefined) return errorResult(unauthorized);
        if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
          return errorResult(`MCP server ${this.serverName} did not answer ${name} within ${this.options.toolTimeoutMs} ms (MCP_TOOL_TIMEOUT); the call was cancelled.`);
        }
        if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
          return errorResult(`MCP server ${this.serverName} closed the connection during ${name}${this.error ? `: ${this.error}` : ""}.`);
        }
        // The SDK's message may carry its prefix twice ("MCP error -32602: MCP error -32602: …").
        if (err instanceof McpError) return errorResult(err.message.replace(/^(MCP error -?\d+: )\1/, "$1"));
        return errorResult(`MCP server ${this.serverName} failed on ${name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.status = "closed";
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  }
}

/**
 * Runs `start` and, once its promise settles, removes the abort listeners it added to `signal`
 * while it started. The SDK adds one per request (to send notifications/cancelled) and never
 * removes it, so a signal that outlives the call (the turn's, which the session may use for
 * its next turn) would collect one per call.
 */
async function withoutLeftoverListeners<T>(signal: AbortSignal, start: () => Promise<T>): Promise<T> {
  const before = getEventListeners(signal, "abort");
  const pending = start();
  const added = getEventListeners(signal, "abort").filter((l) => !before.includes(l));
  try {
    return await pending;
  } finally {
    for (const listener of added) signal.removeEventListener("abort", listener as (event: Event) => void);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function errorResult(text: string): McpCallResult {
  return { content: [{ type: "text", text }], isError: true };
}
