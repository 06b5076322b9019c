// `fetch` with the one proxy rule (see proxy.ts), for the connections armature makes to servers a
// user configured: MCP over HTTP and HTTP hooks. Node 20's fetch ignores the proxy variables; a
// target the rule sends to a proxy goes through node:http instead: an https target through a
// CONNECT tunnel (TLS to the target inside it), an http one as an absolute-form request to the
// proxy. Targets the rule leaves direct use the global fetch unchanged.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { Readable } from "node:stream";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { connectToProxy, defaultPort, openTunnel, proxyAuthorization, proxyFor } from "./proxy.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface ProxiedFetchOptions {
  /** Where the proxy variables are read (default: process.env, at each request). */
  env?: Env;
  /** CAs for TLS to an https:// proxy and to targets reached through one (default: the system's). */
  ca?: ConnectionOptions["ca"];
}

const MAX_REDIRECTS = 20;
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** A fetch that honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY. */
export function createProxiedFetch(options: ProxiedFetchOptions = {}): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const proxy = proxyFor(url, options.env ?? process.env);
    if (!proxy) return fetch(request);
    return viaProxy(request, proxy, options);
  };
}

/** The default proxied fetch (process.env, system CAs). */
export const proxiedFetch = createProxiedFetch();

async function viaProxy(request: Request, proxy: URL, options: ProxiedFetchOptions): Promise<Response> {
  let method = request.method;
  let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  let url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  headers["accept-encoding"] ??= "identity"; // nothing here decodes a compressed body
  for (let hop = 0; ; hop++) {
    const response = await send(url, method, headers, body, proxy, options, request.signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined && request.redirect !== "manual") {
      response.resume();
      if (request.redirect === "error") throw new TypeError(`fetch ${url.href}: redirected (${status}) and redirect is "error"`);
      if (hop >= MAX_REDIRECTS) throw new TypeError(`fetch ${request.url}: more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
        if (method !== "HEAD") method = "GET";
        body = undefined;
        delete headers["content-type"];
        delete headers["content-length"];
      }
      if (next.origin !== url.origin) delete headers.authorization;
      url = next;
      const nextProxy = proxyFor(url, options.env ?? process.env);
      if (!nextProxy) return fetch(url, { method, headers, ...(body ? { body } : {}), signal: request.signal, redirect: request.redirect });
      proxy = nextProxy;
      continue;
    }
    return toResponse(response, method);
  }
}

function send(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, proxy: URL, options: ProxiedFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const outgoing: OutgoingHttpHeaders = { ...headers, host: url.host };
  if (body) outgoing["content-length"] = String(body.length);
  const tls: Pick<ConnectionOptions, "ca"> = options.ca !== undefined ? { ca: options.ca } : {};
  return new Promise((resolve, reject) => {
    const start = (req: ReturnType<typeof httpRequest>): void => {
      req.on("response", resolve);
      req.on("error", (err) => reject(signal.aborted ? err : new Error(`${method} ${url.href} through the proxy ${proxy.protocol}//${proxy.host} failed: ${err.message}`, { cause: err })));
      req.end(body);
    };
    if (url.protocol === "http:") {
      // Absolute form: the proxy makes the request (its credentials ride along).
      const auth = proxyAuthorization(proxy);
      if (auth) outgoing["proxy-authorization"] = auth;
      start(httpRequest({ method, path: url.href, headers: outgoing, signal, createConnection: () => connectToProxy(proxy, tls) }));
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    openTunnel(proxy, host, Number(defaultPort(url)), signal, tls).then((tunnel) => {
      const socket = tlsConnect({ socket: tunnel, host, servername: isIP(host) === 0 ? host : undefined, ...tls });
      start(httpsRequest({ method, host, path: `${url.pathname}${url.search}`, headers: outgoing, signal, createConnection: () => socket }));
    }, reject);
  });
}

function toResponse(message: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i]!, message.rawHeaders[i + 1]!);
  const status = message.statusCode ?? 502;
  if (NULL_BODY_STATUS.has(status) || method === "HEAD") {
    message.resume();
    return new Response(null, { status, statusText: message.statusMessage ?? "", headers });
  }
  return new Response(Readable.toWeb(message) as ReadableStream<Uint8Array>, { status, statusText: message.statusMessage ?? "", headers });
}
