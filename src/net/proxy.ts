// The one proxy rule for connections armature itself makes (WebFetch, MCP over HTTP and HTTP
// hooks through `proxiedFetch`; the sandbox proxy's upstream can call the same functions):
// HTTPS_PROXY for https targets, HTTP_PROXY for http ones (lower-case names too), and NO_PROXY's
// exceptions; the proxy itself is http:// or https://. The SSRF guard judges the target first;
// the tunnel then goes to the address the guard checked, so the proxy cannot be handed a
// different answer for the name.
import { connect, isIP, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";

type Env = Readonly<Record<string, string | undefined>>;

function variable(env: Env, name: string): string | undefined {
  const value = env[name] ?? env[name.toLowerCase()];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** The proxy for a target URL, or undefined (no variable for its scheme, or NO_PROXY names it). A bad proxy URL is an error naming the variable. */
export function proxyFor(target: URL, env: Env = process.env): URL | undefined {
  const name = target.protocol === "https:" ? "HTTPS_PROXY" : target.protocol === "http:" ? "HTTP_PROXY" : undefined;
  if (!name) return undefined;
  const value = variable(env, name);
  if (value === undefined) return undefined;
  if (noProxyMatches(target, variable(env, "NO_PROXY") ?? "")) return undefined;
  let proxy: URL;
  try {
    proxy = new URL(value.includes("://") ? value : `http://${value}`);
  } catch {
    throw new Error(`${name} is not a URL: ${JSON.stringify(value)}`);
  }
  if (proxy.protocol !== "http:" && proxy.protocol !== "https:") throw new Error(`${name} must be an http:// or https:// proxy URL (got ${proxy.protocol}//)`);
  return proxy;
}

export function defaultPort(url: URL): string {
  return url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
}

/**
 * Whether NO_PROXY exempts a target: `*`; a host (`example.com` also covers its subdomains, as
 * does `.example.com`); an IP address; any of them with `:port` to exempt that port only.
 */
export function noProxyMatches(target: URL, noProxy: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = defaultPort(target);
  for (const raw of noProxy.split(/[,\s]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      entryPort = bracketed[2];
    } else if (/^[^:]+:\d+$/.test(entry)) {
      [entry, entryPort] = entry.split(":") as [string, string];
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    const bare = entry.replace(/^\*?\./, "");
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/** The Proxy-Authorization value for a proxy URL with credentials (undefined without). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === "") return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`;
}

/** A connection to the proxy itself: TLS for an https:// proxy (checked against `tls.ca` or the system's CAs). */
export function connectToProxy(proxy: URL, tls: Pick<ConnectionOptions, "ca"> = {}): Socket {
  const host = proxy.hostname.replace(/^\[|\]$/g, "");
  const port = Number(defaultPort(proxy));
  if (proxy.protocol !== "https:") return connect({ host, port });
  return tlsConnect({ host, port, servername: isIP(host) === 0 ? host : undefined, ...tls });
}

/**
 * A tunnel through an HTTP proxy (CONNECT) to `address:port`: the socket once the proxy
 * answered 2xx, else an error naming the proxy and its answer. The proxy's credentials, when
 * its URL has them, go as Basic Proxy-Authorization.
 */
export function openTunnel(proxy: URL, address: string, port: number, signal?: AbortSignal, tls?: Pick<ConnectionOptions, "ca">): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const authority = address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
    const socket = connectToProxy(proxy, tls);
    const where = `the proxy ${proxy.protocol}//${proxy.host}`;
    const fail = (err: Error): void => {
      socket.destroy();
      reject(err);
    };
    const onAbort = (): void => fail(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = (): void => signal?.removeEventListener("abort", onAbort);
    socket.once("error", (err) => {
      done();
      fail(new Error(`${where} could not be reached: ${err.message}`));
    });
    socket.once(proxy.protocol === "https:" ? "secureConnect" : "connect", () => {
      const auth = proxyAuthorization(proxy);
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`);
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 16_384) fail(new Error(`${where} sent an over-long answer to CONNECT`));
        return;
      }
      socket.off("data", onData);
      done();
      const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(head.subarray(0, end).toString("latin1"));
      if (!status || !status[1]!.startsWith("2")) {
        fail(new Error(`${where} refused the tunnel to ${authority}: ${status ? `${status[1]}${status[2]}` : "not an HTTP answer"}`));
        return;
      }
      socket.removeAllListeners("error");
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on("data", onData);
  });
}
