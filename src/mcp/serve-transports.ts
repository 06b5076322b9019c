import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isLoopbackName, originHostProblem } from "./http-origin.js";
import type { AddressInfo } from "node:net";
import type { Readable, Writable } from "node:stream";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Session } from "../session/session.js";
import { createToolServer, type ServeToolsOptions, type SessionFactory } from "./serve.js";
import { LineStdioServerTransport } from "./stdio-server-transport.js";

export interface StdioServeOptions extends ServeToolsOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Largest message read (bytes, default 64 MiB): a longer one gets a JSON-RPC error and is dropped. */
  maxMessageBytes?: number;
  /** Ends serving (SIGTERM, SIGINT): stdin is let go, the session closed. */
  signal?: AbortSignal;
  /** Told about each line answered with an error (the --verbose log). */
  onRejected?: (message: string) => void;
}

/**
 * Serves over stdio until the client closes stdin or `signal` aborts; resolves then, with the
 * session closed. A line that is not a valid message, or is over the limit, is answered with a
 * JSON-RPC error, and serving goes on.
 */
export async function serveStdio(makeSession: SessionFactory, options: StdioServeOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const { server, session } = await createToolServer(makeSession, options);
  const transport = new LineStdioServerTransport(stdin, options.stdout ?? process.stdout, options.maxMessageBytes);
  const done = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    options.signal?.addEventListener("abort", () => void transport.close(), { once: true });
  });
  await server.connect(transport);
  // The SDK's Protocol sets onerror on connect; what it reports are the lines answered with an error.
  const onRejected = options.onRejected;
  if (onRejected) server.onerror = (err) => onRejected(err.message);
  if (options.signal?.aborted) await transport.close();
  await done;
  await server.close().catch(() => undefined);
  await session.close();
}

export interface HttpServeOptions extends ServeToolsOptions {
  host?: string;
  /** 0: any free port. */
  port: number;
  /** The bearer token clients must send; generated when not given. */
  token?: string;
  /** Serve without a token (default false): only on a loopback address, for tools that cannot send one. */
  noToken?: boolean;
  /** Origins allowed besides loopback ones; host names allowed besides the bound address (see http-origin). */
  allowedOrigins?: readonly string[];
  allowedHosts?: readonly string[];
  /** An MCP session no request has touched for this long is closed (ms, default 15 minutes; 0: never). */
  idleTimeoutMs?: number;
  /**
   * At most this many MCP sessions at once (default 256). A new one past it closes the session
   * idle longest (a client that went away without ending its session); it is refused with 503
   * only when every session has a call running.
   */
  maxSessions?: number;
  /** A request whose headers and body have not all arrived by then is answered 408 (ms, default 30 s). */
  requestTimeoutMs?: number;
  /** Told about sessions opened, reaped and refused (the --verbose log). */
  onEvent?: (message: string) => void;
}

export const HTTP_SERVE_DEFAULTS = { idleTimeoutMs: 15 * 60_000, maxSessions: 256, requestTimeoutMs: 30_000 } as const;

export interface HttpServeHandle {
  url: string;
  port: number;
  host: string;
  /** The token clients must send, or null when serving without one (`noToken`). */
  token: string | null;
  /** Whether the token was generated (the caller prints it). */
  generatedToken: boolean;
  /** MCP sessions open now. */
  readonly openSessions: number;
  close(): Promise<void>;
}

interface Served {
  transport: StreamableHTTPServerTransport;
  session: Session;
  /** When a request of this session last began or ended (monotonic: `performance.now()`, which a clock change does not move). */
  lastSeen: number;
  /** Calls (POST requests) of this session still open. */
  open: number;
}

/** What a browser page on an allowed origin (the MCP Inspector's) may send and read, for its CORS checks. */
const CORS_HEADERS = {
  "access-control-allow-methods": "GET, POST, DELETE",
  "access-control-allow-headers": "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
  "access-control-max-age": "600",
};

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Serves Streamable HTTP on `host:port` (127.0.0.1 by default) at `/mcp`. A request with a
 * foreign `Origin` or `Host` is refused first (http-origin); every request needs
 * `Authorization: Bearer <token>`. Each MCP session gets its own armature session (its own
 * read-file state and approvals), closed when the client ends the MCP session or the server stops.
 */
export async function serveHttp(makeSession: SessionFactory, options: HttpServeOptions): Promise<HttpServeHandle> {
  const host = options.host ?? "127.0.0.1";
  if (options.noToken === true && (options.token !== undefined || !isLoopbackName(host.replace(/^\[|\]$/g, "")))) {
    throw new Error(`serving without a token is only for a loopback address and without a token (got ${options.token !== undefined ? "a token" : `host ${host}`})`);
  }
  const generatedToken = options.token === undefined && options.noToken !== true;
  const token = options.noToken === true ? null : (options.token ?? randomBytes(24).toString("base64url"));
  const sessions = new Map<string, Served>();
  const idleTimeoutMs = options.idleTimeoutMs ?? HTTP_SERVE_DEFAULTS.idleTimeoutMs;
  const maxSessions = options.maxSessions ?? HTTP_SERVE_DEFAULTS.maxSessions;
  const requestTimeoutMs = options.requestTimeoutMs ?? HTTP_SERVE_DEFAULTS.requestTimeoutMs;
  const log = options.onEvent ?? (() => {});
  let reaped = 0;

  const closeServed = async (served: Served): Promise<void> => {
    await served.transport.close().catch(() => undefined);
    await served.session.close();
  };
  /** Closes the sessions idle past the timeout (none with a request or an event stream open). */
  const reap = (now: number): void => {
    if (idleTimeoutMs <= 0) return;
    for (const [id, served] of sessions) {
      if (served.open > 0 || now - served.lastSeen < idleTimeoutMs) continue;
      sessions.delete(id);
      reaped++;
      log(`closed idle MCP session ${id} (no request for ${Math.round((now - served.lastSeen) / 1000)} s); ${reaped} reaped so far, ${sessions.size} open`);
      void closeServed(served);
    }
  };
  /** Makes room for a new session: closes the one idle longest (no call running); false when every one has a call running. */
  const evictLongestIdle = (): boolean => {
    let oldest: [string, Served] | undefined;
    for (const entry of sessions) if (entry[1].open === 0 && (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    if (oldest === undefined) return false;
    const [id, served] = oldest;
    sessions.delete(id);
    reaped++;
    log(`closed MCP session ${id}, idle longest (no request for ${Math.round((performance.now() - served.lastSeen) / 1000)} s), to make room for a new one under the limit of ${maxSessions}; ${reaped} reaped so far`);
    void closeServed(served);
    return true;
  };
  const reaper = idleTimeoutMs > 0 ? setInterval(() => reap(performance.now()), Math.max(50, Math.min(30_000, idleTimeoutMs / 4))) : undefined;
  reaper?.unref();
  /**
   * Counts a request against its session while it is open, so that reaping never cuts a call.
   * A GET (the client's standing event stream) is not a call: a session whose client holds one
   * and sends nothing is idle, and a live client told 404 afterwards starts a new session.
   */
  const touch = (served: Served, req: IncomingMessage, res: ServerResponse): void => {
    served.lastSeen = performance.now();
    if (req.method === "GET") return;
    served.open++;
    served.lastSeen = performance.now();
    res.once("close", () => {
      served.open--;
      served.lastSeen = performance.now();
    });
  };

  const reply = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/mcp") return reply(res, 404, "Not found: the MCP endpoint is /mcp");
    const problem = originHostProblem(req.headers, { host, port: (http.address() as AddressInfo).port, allowedOrigins: options.allowedOrigins, allowedHosts: options.allowedHosts });
    if (problem !== null) return reply(res, 403, problem);
    // The origin passed the check above: let the browser page read the answers, and answer its preflight (sent without the token).
    const origin = req.headers.origin;
    if (typeof origin === "string") {
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      for (const [name, value] of Object.entries(CORS_HEADERS)) res.setHeader(name, value);
    }
    if (req.method === "OPTIONS") return void res.writeHead(204).end();
    if (token !== null && !tokenMatches(req.headers.authorization, token)) return reply(res, 401, "Unauthorized: send Authorization: Bearer <token>", { "www-authenticate": "Bearer" });
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const found = sessions.get(sid);
      if (!found) return reply(res, 404, "Session not found: it was closed (ended by the client, or idle too long); initialize a new one");
      touch(found, req, res);
      await found.transport.handleRequest(req, res);
      return;
    }
    if (sessions.size >= maxSessions) reap(performance.now());
    while (sessions.size >= maxSessions) if (!evictLongestIdle()) break;
    if (sessions.size >= maxSessions) {
      log(`refused a new MCP session: ${sessions.size} open, each with a call running; the limit is ${maxSessions}`);
      return reply(res, 503, `Too many MCP sessions (${maxSessions} open, each with a call running; the server's limit): try again when a call has finished`, { "retry-after": "5" });
    }
    const { server, session } = await createToolServer(makeSession, options);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(16).toString("hex"),
      onsessioninitialized: (id) => {
        const served: Served = { transport, session, lastSeen: performance.now(), open: 0 };
        sessions.set(id, served);
        touch(served, req, res);
        log(`opened MCP session ${id}; ${sessions.size} open`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      void session.close();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // A first request that did not initialize a session leaves nothing behind.
    if (transport.sessionId === undefined) {
      await transport.close().catch(() => undefined);
      await session.close();
    }
  };

  // A client that sends its headers or body too slowly is answered 408 and cut off (checked every
  // second, not Node's default 30 s, so that the deadline holds).
  const http = createServer({ requestTimeout: requestTimeoutMs, headersTimeout: Math.min(requestTimeoutMs, 60_000), connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs) }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${(err as Error).message}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    host,
    token,
    generatedToken,
    get openSessions() {
      return sessions.size;
    },
    async close() {
      if (reaper) clearInterval(reaper);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(closeServed));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
