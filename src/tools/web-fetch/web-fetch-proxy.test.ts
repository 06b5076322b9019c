// WebFetch through HTTPS_PROXY/HTTP_PROXY (issue 26): a real CONNECT proxy on 127.0.0.1. The SSRF
// guard judges the target before anything reaches the proxy, and the tunnel goes to the address
// it judged; NO_PROXY exempts targets.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { startTestProxy, type TestProxy } from "../../../test/proxy-server.js";
import { noProxyMatches, proxyFor } from "../../net/proxy.js";
import { createSession } from "../../session/session.js";
import type { ToolResultBlock } from "../../tool/types.js";
import type { NameResolver } from "./address-guard.js";
import { createWebFetchTool, type WebFetchOptions } from "./web-fetch-tool.js";

let target: Server;
let targetPort: number;
let proxy: TestProxy;
let proxyUrl: string;
let asked: string[];

beforeAll(async () => {
  target = createServer((req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(`page ${req.url} via ${req.headers.host}`));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetPort = (target.address() as AddressInfo).port;
  proxy = await startTestProxy();
  proxyUrl = proxy.url;
  asked = proxy.asked;
});

afterAll(async () => {
  await proxy.close();
  target.closeAllConnections();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

const saved = { HTTP_PROXY: process.env.HTTP_PROXY, HTTPS_PROXY: process.env.HTTPS_PROXY, NO_PROXY: process.env.NO_PROXY };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  asked.length = 0;
});

async function fetchWith(options: WebFetchOptions, url: string): Promise<ToolResultBlock> {
  return withTempDir(async (dir) => {
    const session = createSession({ cwd: dir, tools: [createWebFetchTool({ cacheTtlMs: 0, ...options })], allow: ["WebFetch"] });
    try {
      const [result] = await session.runTurn([toolUse("WebFetch", { prompt: "summarise", url })]);
      return result!;
    } finally {
      await session.close();
    }
  });
}
const text = (r: ToolResultBlock): string => (typeof r.content === "string" ? r.content : JSON.stringify(r.content));

describe("WebFetch through a proxy on 127.0.0.1", () => {
  it("HTTP_PROXY: the page comes through a CONNECT tunnel to the address the guard judged", async () => {
    process.env.HTTP_PROXY = proxyUrl;
    const result = await fetchWith({ allowHosts: ["127.0.0.1"] }, `http://127.0.0.1:${targetPort}/doc`);
    expect(result.is_error).toBeFalsy();
    expect(text(result)).toContain(`page /doc via 127.0.0.1:${targetPort}`);
    expect(asked).toEqual([`CONNECT 127.0.0.1:${targetPort}`]);
  });

  it("a name is resolved and judged here; the proxy is asked for the address, never the name", async () => {
    process.env.HTTP_PROXY = proxyUrl;
    const resolveName: NameResolver = (_host, cb) => cb(null, [{ address: "127.0.0.1", family: 4 }]);
    const result = await fetchWith({ allowHosts: ["docs.internal.test"], resolveName }, `http://docs.internal.test:${targetPort}/named`);
    expect(result.is_error).toBeFalsy();
    expect(text(result)).toContain("page /named via docs.internal.test");
    expect(asked).toEqual([`CONNECT 127.0.0.1:${targetPort}`]);
  });

  it.each([
    ["a private literal", "http://10.1.2.3/secret", undefined],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/", undefined],
    ["a name that resolves to loopback", "https://rebind.example.com/x", "127.0.0.1"],
    ["a name with one private address among public ones", "https://mixed.example.com/x", "192.168.1.5"],
  ])("attack: %s is refused before anything reaches the proxy", async (_what, url, resolvesTo) => {
    process.env.HTTP_PROXY = proxyUrl;
    process.env.HTTPS_PROXY = proxyUrl;
    const resolveName: NameResolver = (_host, cb) => cb(null, [{ address: "93.184.216.34", family: 4 }, ...(resolvesTo ? [{ address: resolvesTo, family: 4 }] : [])]);
    const result = await fetchWith({ resolveName }, url);
    expect(result.is_error).toBe(true);
    expect(text(result)).toMatch(/not a public address|refuses/);
    expect(asked).toEqual([]);
  });

  it("NO_PROXY exempts the target: the request goes direct", async () => {
    process.env.HTTP_PROXY = proxyUrl;
    process.env.NO_PROXY = "localhost,127.0.0.1";
    const result = await fetchWith({ allowHosts: ["127.0.0.1"] }, `http://127.0.0.1:${targetPort}/direct`);
    expect(result.is_error).toBeFalsy();
    expect(text(result)).toContain("page /direct");
    expect(asked).toEqual([]);
  });

  it("a proxy that refuses the tunnel: an error naming the proxy and its answer", async () => {
    const refusing = await startTestProxy({ refuse: 403 });
    process.env.HTTP_PROXY = refusing.url;
    const result = await fetchWith({ allowHosts: ["127.0.0.1"] }, `http://127.0.0.1:${targetPort}/x`);
    await refusing.close();
    expect(result.is_error).toBe(true);
    expect(text(result)).toContain("refused the tunnel");
    expect(text(result)).toContain("403");
  });

  it("the page comes through the tunnel, not around it: a target only the proxy can reach", async () => {
    const only = await startTestProxy({ tunnelTo: targetPort });
    const unreachable = await closedPort();
    process.env.HTTP_PROXY = only.url;
    const result = await fetchWith({ allowHosts: ["127.0.0.1"] }, `http://127.0.0.1:${unreachable}/tunnelled`);
    await only.close();
    expect(text(result)).toContain("page /tunnelled");
    expect(only.asked).toEqual([`CONNECT 127.0.0.1:${unreachable}`]);
  });
});

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe("the proxy rule", () => {
  const env = (e: Record<string, string>) => e;
  it.each([
    ["https target, HTTPS_PROXY", "https://example.com/", env({ HTTPS_PROXY: "http://p:8080" }), "http://p:8080/"],
    ["lower-case variable", "https://example.com/", env({ https_proxy: "p:3128" }), "http://p:3128/"],
    ["http target ignores HTTPS_PROXY", "http://example.com/", env({ HTTPS_PROXY: "http://p:8080" }), undefined],
    ["http target, HTTP_PROXY", "http://example.com/", env({ HTTP_PROXY: "http://p:8080" }), "http://p:8080/"],
    ["NO_PROXY=*", "https://example.com/", env({ HTTPS_PROXY: "http://p", NO_PROXY: "*" }), undefined],
    ["NO_PROXY domain covers subdomains", "https://docs.example.com/", env({ HTTPS_PROXY: "http://p", NO_PROXY: "example.com" }), undefined],
    ["NO_PROXY .domain", "https://docs.example.com/", env({ HTTPS_PROXY: "http://p", NO_PROXY: ".example.com" }), undefined],
    ["NO_PROXY is not a suffix match of other names", "https://notexample.com/", env({ HTTPS_PROXY: "http://p", NO_PROXY: "example.com" }), "http://p/"],
    ["NO_PROXY with another port", "https://example.com/", env({ HTTPS_PROXY: "http://p", NO_PROXY: "example.com:8443" }), "http://p/"],
    ["NO_PROXY with the port", "https://example.com:8443/", env({ HTTPS_PROXY: "http://p", NO_PROXY: "example.com:8443" }), undefined],
    ["NO_PROXY IPv6", "https://[::1]/", env({ HTTPS_PROXY: "http://p", NO_PROXY: "[::1]" }), undefined],
  ])("%s", (_what, url, e, expected) => {
    expect(proxyFor(new URL(url), e)?.href).toBe(expected);
  });

  it("a bad proxy URL is an error naming the variable", () => {
    expect(() => proxyFor(new URL("https://example.com/"), { HTTPS_PROXY: "socks5://p:1080" })).toThrow(/HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL/);
    expect(() => proxyFor(new URL("https://example.com/"), { HTTPS_PROXY: "http://[bad" })).toThrow(/HTTPS_PROXY is not a URL/);
  });

  it("noProxyMatches ignores blanks and spaces", () => {
    expect(noProxyMatches(new URL("https://a.test/"), " , a.test ")).toBe(true);
    expect(noProxyMatches(new URL("https://a.test/"), "")).toBe(false);
  });
});
