import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { openTunnel, proxyFor } from "../../net/proxy.js";
import { BlockedAddressError, guardedLookup, nonPublicReason, type NameResolver } from "./address-guard.js";

export interface FetchLimits {
  /** Bytes of body kept at most; the rest is cut off (default 10 MiB). */
  maxBytes: number;
  /** The whole fetch, redirects included (ms). */
  timeoutMs: number;
  /** Same-host redirects followed at most. */
  maxRedirects: number;
  /** Hosts that skip the public-address check (lower case, e.g. `127.0.0.1` for tests). */
  allowHosts: ReadonlySet<string>;
  /** How host names are resolved (default: the system resolver). */
  resolveName?: NameResolver;
  /** The proxy for a URL (default: the environment's HTTPS_PROXY / HTTP_PROXY / NO_PROXY). */
  proxyFor?: (url: URL) => URL | undefined;
}

export type FetchOutcome =
  | { kind: "page"; url: string; status: number; statusText: string; contentType: string; body: Buffer; truncated: boolean }
  | { kind: "redirect"; from: string; to: string; status: number };

const USER_AGENT = "armature-WebFetch/1 (+an LLM agent's tool layer; fetching on a user's behalf)";

/** Hosts the same site answers under: `example.com` and `www.example.com`. */
function sameSite(a: URL, b: URL): boolean {
  const strip = (h: string): string => h.toLowerCase().replace(/^www\./, "");
  return strip(a.hostname) === strip(b.hostname) && a.port === b.port;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/** Refuses an IP-literal host that is not public (names are checked at connect time). */
export function checkLiteralHost(url: URL, allowHosts: ReadonlySet<string>): void {
  const host = bareHost(url);
  if (allowHosts.has(host) || isIP(host) === 0) return;
  const reason = nonPublicReason(host);
  if (reason) throw new BlockedAddressError(host, reason);
}

/**
 * GETs `url` with the address guard on every connection. Redirects within the same site are
 * followed (each hop checked again); a redirect to another host is returned, not followed.
 */
export async function fetchUrl(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  try {
    return await fetchHops(url, limits, AbortSignal.any([signal, deadline]));
  } catch (err) {
    if (deadline.aborted && !signal.aborted) {
      throw new Error(`Fetching ${url.href} took longer than ${Math.round(limits.timeoutMs / 1000)} s; try again later or another page.`);
    }
    throw err;
  }
}

async function fetchHops(url: URL, limits: FetchLimits, both: AbortSignal): Promise<FetchOutcome> {
  let current = url;
  for (let hop = 0; ; hop++) {
    checkLiteralHost(current, limits.allowHosts);
    const response = await get(current, limits, both);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      const next = new URL(location, current);
      if (next.protocol !== "http:" && next.protocol !== "https:") throw new Error(`The page redirects to ${next.href}, which is not an http(s) URL.`);
      if (!sameSite(current, next)) return { kind: "redirect", from: current.href, to: next.href, status };
      if (hop >= limits.maxRedirects) throw new Error(`Too many redirects (more than ${limits.maxRedirects}) from ${url.href}.`);
      current = next;
      continue;
    }
    const { body, truncated } = await readBody(response, limits.maxBytes, both);
    return {
      kind: "page",
      url: current.href,
      status,
      statusText: response.statusMessage ?? "",
      contentType: String(response.headers["content-type"] ?? ""),
      body,
      truncated,
    };
  }
}

/** The target's address, judged by the guard (every address the name has), for a proxied request. */
function guardedAddress(url: URL, limits: FetchLimits): Promise<string> {
  const host = bareHost(url);
  if (isIP(host) !== 0) return Promise.resolve(host); // a literal: judged by checkLiteralHost
  return new Promise((resolve, reject) => {
    guardedLookup(limits.allowHosts, limits.resolveName)(host, {}, (err, address) => (err ? reject(err) : resolve(String(address))));
  });
}

/**
 * A socket to the target through the proxy the environment names (none: undefined). The guard
 * has judged the target; the tunnel goes to the address it judged, never to the name.
 */
async function proxiedSocket(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<Socket | undefined> {
  const proxy = (limits.proxyFor ?? proxyFor)(url);
  if (!proxy) return undefined;
  const address = await guardedAddress(url, limits);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const tunnel = await openTunnel(proxy, address, port, signal);
  if (url.protocol !== "https:") return tunnel;
  return tlsConnect({ socket: tunnel, servername: isIP(bareHost(url)) === 0 ? bareHost(url) : undefined, host: bareHost(url) });
}

async function get(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<IncomingMessage> {
  const requestFn = url.protocol === "https:" ? httpsRequest : httpRequest;
  const socket = await proxiedSocket(url, limits, signal);
  return new Promise((resolve, reject) => {
    const req = requestFn(url, {
      method: "GET",
      signal,
      // No agent: with one (even agent: false) node:http ignores createConnection and connects
      // to the target itself, around the tunnel.
      ...(socket ? { createConnection: () => socket } : {}),
      lookup: guardedLookup(limits.allowHosts, limits.resolveName),
      headers: {
        "user-agent": USER_AGENT,
        accept: "text/markdown, text/html, */*",
        "accept-encoding": "identity",
      },
    });
    req.on("response", resolve);
    req.on("error", reject);
    req.end();
  });
}

async function readBody(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
      const room = maxBytes - size;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = chunk.length > room || response.readableLength > 0 || !response.complete;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    if (!response.complete) response.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}
