// A real forward proxy on 127.0.0.1 for the proxy tests: CONNECT tunnels and absolute-form
// requests, over plain HTTP or TLS (an https:// proxy, with the fixture certificate). It records
// what it was asked, with the Proxy-Authorization it got.
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";

const TLS_DIR = join(import.meta.dirname, "fixtures", "tls");
/** A self-signed certificate for 127.0.0.1 and localhost, and its key (test use only). */
export const TEST_CERT = readFileSync(join(TLS_DIR, "cert.pem"), "utf8");
export const TEST_KEY = readFileSync(join(TLS_DIR, "key.pem"), "utf8");

export interface TestProxy {
  url: string;
  /** `CONNECT host:port` or `METHOD absolute-url`, in order. */
  asked: string[];
  /** The Proxy-Authorization header of each request ("" when none). */
  auth: string[];
  close(): Promise<void>;
}

/**
 * `refuse`: answer every request with this status. `tunnelTo`: CONNECT goes to this port on
 * 127.0.0.1 whatever was asked (a target only the proxy can reach: a request sent around the
 * proxy fails).
 */
export async function startTestProxy(options: { tls?: boolean; refuse?: number; tunnelTo?: number } = {}): Promise<TestProxy> {
  const asked: string[] = [];
  const auth: string[] = [];
  const sockets = new Set<Socket>();
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    asked.push(`${req.method} ${req.url}`);
    auth.push(req.headers["proxy-authorization"] ?? "");
    if (options.refuse) return void res.writeHead(options.refuse).end();
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      return void res.writeHead(400).end("not an absolute-form request");
    }
    const headers = { ...req.headers };
    // Hop-by-hop headers stay on this hop, as in a real proxy.
    for (const name of ["proxy-authorization", "connection", "keep-alive", "proxy-connection"]) delete headers[name];
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };
  const server: Server = options.tls ? createHttpsServer({ cert: TEST_CERT, key: TEST_KEY }, forward) : createHttpServer(forward);
  server.on("connection", (s: Socket) => sockets.add(s));
  server.on("secureConnection", (s: Socket) => sockets.add(s));
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    asked.push(`CONNECT ${req.url}`);
    auth.push(req.headers["proxy-authorization"] ?? "");
    sockets.add(client);
    if (options.refuse) return void client.end(`HTTP/1.1 ${options.refuse} Refused\r\n\r\n`);
    const [host, port] = String(req.url).split(/:(?=\d+$)/);
    const upstream = connect(options.tunnelTo ?? Number(port), options.tunnelTo ? "127.0.0.1" : host!.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    auth,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
