// The network of a sandboxed call approved to reach hosts: its own network namespace (nothing gets
// out, whatever the program does) plus one way out — armature's proxy, which answers HTTP CONNECT
// and absolute-form HTTP requests for the allowed hosts only. Inside, a tiny bridge (node, started
// by bwrap in front of the shell) listens on the namespace's own 127.0.0.1, HTTP(S)_PROXY name it,
// and each connection it accepts is handed to armature over the bridge's IPC channel.
import { connect, type Socket } from "node:net";
import { openTunnel, proxyFor } from "../net/proxy.js";
import { guardedLookup } from "../tools/web-fetch/address-guard.js";
import type { PermissionRule } from "../tool/types.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Which hosts the proxy lets through: `sandbox.network.allowedDomains` and WebFetch(domain:…) rules. */
export interface DomainPolicy {
  /** `example.com` (that host), `*.example.com` (its subdomains). */
  allowed: readonly string[];
  /** WebFetch(domain:…) deny rules: refused even when allowed. */
  denied: readonly string[];
}

function normalHost(host: string): string {
  return host.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
}

function matches(host: string, pattern: string): boolean {
  const p = normalHost(pattern.trim());
  if (p === "*") return true;
  if (p.startsWith("*.")) return host.endsWith(p.slice(1));
  return host === p;
}

/** The domain policy of a session: the settings' list plus WebFetch(domain:…) allow rules, minus its deny rules. */
export function domainPolicy(allowedDomains: readonly string[], rules: readonly PermissionRule[]): DomainPolicy {
  const fromRules = (behavior: string): string[] =>
    rules.filter((r) => r.toolName === "WebFetch" && r.behavior === behavior && r.ruleContent?.startsWith("domain:")).map((r) => r.ruleContent!.slice("domain:".length));
  return { allowed: [...allowedDomains, ...fromRules("allow")], denied: fromRules("deny") };
}

/** Why the proxy refuses a host, or undefined when it may pass. */
export function hostRefusal(host: string, policy: DomainPolicy): string | undefined {
  const h = normalHost(host);
  if (h === "") return "no host was named";
  if (policy.denied.some((p) => matches(h, p))) return `${h} is denied by a WebFetch(domain:…) rule`;
  if (!policy.allowed.some((p) => matches(h, p))) return `${h} is not in sandbox.network.allowedDomains`;
  return undefined;
}

/**
 * Hosts named exactly (no wildcard) may resolve to loopback or private addresses (`localhost`, an
 * internal registry); a wildcard's subdomains and every other name must resolve to public ones,
 * so an allowed domain cannot be pointed at the machine's own services.
 */
function exactHosts(policy: DomainPolicy): Set<string> {
  return new Set(policy.allowed.map((p) => normalHost(p.trim())).filter((p) => !p.includes("*")));
}

function resolveGuarded(host: string, exact: ReadonlySet<string>): Promise<string> {
  return new Promise((resolve, reject) => guardedLookup(exact)(host, {}, (err, address) => (err ? reject(err) : resolve(address as string))));
}

/** The upstream connection: through the host's own proxy when its environment names one, else direct, to the address the guard checked. */
async function upstream(scheme: "http" | "https", host: string, port: number, exact: ReadonlySet<string>, env: Env): Promise<Socket> {
  const address = await resolveGuarded(host, exact);
  const through = proxyFor(new URL(`${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`), env);
  if (through) return openTunnel(through, address, port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

function answer(client: Socket, status: string, message: string): void {
  const body = `armature's sandbox proxy: ${message}\n`;
  client.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function splice(a: Socket, b: Socket): void {
  const end = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on("error", end).on("close", end);
  b.on("error", end).on("close", end);
  a.pipe(b);
  b.pipe(a);
}

const MAX_HEAD = 64 * 1024;

/** One client connection: read the request head, judge its host, tunnel or forward it, or refuse. */
function serveClient(client: Socket, policy: DomainPolicy, exact: ReadonlySet<string>, env: Env): void {
  let head = Buffer.alloc(0);
  client.on("error", () => client.destroy());
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.length > MAX_HEAD) answer(client, "431 Request Header Fields Too Large", "the request head is too long");
      return;
    }
    client.off("data", onData);
    client.pause();
    const lines = head.subarray(0, end).toString("latin1").split("\r\n");
    const rest = head.subarray(end + 4);
    const request = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0] ?? "");
    if (!request) return answer(client, "400 Bad Request", "not an HTTP proxy request");
    const [, method, target, version] = request as unknown as [string, string, string, string];
    let scheme: "http" | "https";
    let host: string;
    let port: number;
    let path = "";
    if (method === "CONNECT") {
      const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
      if (!m) return answer(client, "400 Bad Request", `CONNECT needs host:port (got ${target})`);
      scheme = "https";
      host = normalHost(m[1]!);
      port = Number(m[2]);
    } else {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return answer(client, "400 Bad Request", `a proxy request names an absolute http:// URL (got ${target})`);
      }
      if (url.protocol !== "http:") return answer(client, "400 Bad Request", `only http:// URLs are forwarded; use CONNECT for ${url.protocol}//`);
      scheme = "http";
      host = normalHost(url.hostname);
      port = url.port === "" ? 80 : Number(url.port);
      path = `${url.pathname}${url.search}`;
    }
    const refusal = hostRefusal(host, policy);
    if (refusal) return answer(client, "403 Forbidden", `${refusal}. Add it there (or a WebFetch(domain:${host}) allow rule) to let sandboxed commands reach it.`);
    upstream(scheme, host, port, exact, env).then(
      (server) => {
        if (method === "CONNECT") {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        } else {
          const headers = lines.slice(1).filter((l) => !/^(proxy-connection|proxy-authorization|connection|keep-alive):/i.test(l));
          server.write(`${method} ${path} ${version}\r\n${[...headers, "Connection: close"].join("\r\n")}\r\n\r\n`);
        }
        if (rest.length > 0) server.write(rest);
        splice(client, server);
        client.resume();
      },
      (err: unknown) => answer(client, "502 Bad Gateway", `${host}:${port} could not be reached: ${err instanceof Error ? err.message : String(err)}`),
    );
  };
  client.on("data", onData);
}

export interface NetworkProxy {
  /** Serves one connection the call's bridge accepted (it hands over the socket itself). */
  serve(client: Socket): void;
  close(): void;
}

/**
 * The proxy of one call. It listens nowhere: the bridge inside the sandbox hands armature each
 * connection it accepts, as a descriptor over its IPC channel, so no path or port exists that
 * another call or another program could reach. `close` ends every connection still open.
 */
export function startNetworkProxy(policy: DomainPolicy, env: Env = process.env): NetworkProxy {
  const exact = exactHosts(policy);
  const clients = new Set<Socket>();
  let closed = false;
  return {
    serve: (client) => {
      if (closed) {
        client.destroy();
        return;
      }
      clients.add(client);
      client.on("close", () => clients.delete(client));
      serveClient(client, policy, exact, env);
    },
    close: () => {
      closed = true;
      for (const c of clients) c.destroy();
    },
  };
}
