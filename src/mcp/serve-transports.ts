import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { originHostProblem } from "./http-origin.js";
import type { AddressInfo } from "node:net";
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Session } from "../session/session.js";
import { createToolServer, type ServeToolsOptions, type SessionFactory } from "./serve.js";

/**
 * Serves over stdio until the client closes stdin; resolves then, with the session closed.
 */
export async function serveStdio(makeSession: SessionFactory, options: ServeToolsOptions & { stdin?: Readable; stdout?: Writable } = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const { server, session } = await createToolServer(makeSession, options);
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const done = new Promise<void>((resolve) => {
    const finish = (): void => resolve();
    transport.onclose = finish;
    stdin.once("end", finish);
    stdin.once("close", finish);
  });
  await server.connect(transport);
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
  /** Origins allowed besides loopback ones; host names allowed besides the bound address (see http-origin). */
  allowedOrigins?: readonly string[];
  allowedHosts?: readonly string[];
}

export interface HttpServeHandle {
  url: string;
  port: number;
  host: string;
  token: string;
  /** Whether the token was generated (the caller prints it). */
  generatedToken: boolean;
  close(): Promise<void>;
}

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
  const generatedToken = options.token === undefined;
  const token = options.token ?? randomBytes(24).toString("base64url");
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; session: Session }>();

  const reply = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/mcp") return reply(res, 404, "Not found: the MCP endpoint is /mcp");
    const problem = originHostProblem(req.headers, { host, port: (http.address() as AddressInfo).port, allowedOrigins: options.allowedOrigins, allowedHosts: options.allowedHosts });
    if (problem !== null) return reply(res, 403, problem);
    if (!tokenMatches(req.headers.authorization, token)) return reply(res, 401, "Unauthorized: send Authorization: Bearer <token>", { "www-authenticate": "Bearer" });
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const found = sessions.get(sid);
      if (!found) return reply(res, 404, "Session not found");
      await found.transport.handleRequest(req, res);
      return;
    }
    const { server, session } = await createToolServer(makeSession, options);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(16).toString("hex"),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, session });
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

  const http = createServer((req, res) => {
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
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async ({ transport, session }) => {
        await transport.close().catch(() => undefined);
        await session.close();
      }));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
