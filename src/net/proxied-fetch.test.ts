// The proxied fetch (issue 26) against a real proxy and real servers on 127.0.0.1: absolute-form
// for http targets, CONNECT (TLS to the target inside the tunnel) for https ones, an https://
// proxy, credentials, NO_PROXY, redirects, streaming bodies and a refusing proxy.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestProxy, TEST_CERT, TEST_KEY, type TestProxy } from "../../test/proxy-server.js";
import { createProxiedFetch } from "./proxied-fetch.js";

function handler(scheme: string) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (req.url === "/moved") return void res.writeHead(302, { location: "/doc" }).end();
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: first\n\n");
        return; // held open: the first event must arrive before the end
      }
      res.writeHead(200, { "content-type": "text/plain", "x-seen": "yes" }).end(`${scheme} ${req.method} ${req.url} host=${req.headers.host} body=${body} auth=${req.headers["proxy-authorization"] ?? "-"}`);
    });
  };
}

let plain: Server;
let secure: Server;
let plainBase: string;
let secureBase: string;
let proxy: TestProxy;
let tlsProxy: TestProxy;

beforeAll(async () => {
  plain = createServer(handler("http"));
  secure = createHttpsServer({ cert: TEST_CERT, key: TEST_KEY }, handler("https"));
  await Promise.all([plain, secure].map((s) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))));
  plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  secureBase = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
  [proxy, tlsProxy] = await Promise.all([startTestProxy(), startTestProxy({ tls: true })]);
});

afterAll(async () => {
  await Promise.all([proxy.close(), tlsProxy.close()]);
  plain.closeAllConnections();
  secure.closeAllConnections();
  await Promise.all([plain, secure].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

const asked = (p: TestProxy): string[] => p.asked.splice(0);
beforeEach(() => {
  for (const p of [proxy, tlsProxy]) p.asked.length = p.auth.length = 0;
});
const port = (base: string): string => new URL(base).port;

describe("proxiedFetch", () => {
  it.each([
    ["http target, http proxy: absolute form", () => proxy, () => plainBase, "HTTP_PROXY", () => `POST ${plainBase}/doc?q=1`, "http"],
    ["https target, http proxy: CONNECT", () => proxy, () => secureBase, "HTTPS_PROXY", () => `CONNECT 127.0.0.1:${port(secureBase)}`, "https"],
    ["https target, https proxy: CONNECT inside TLS", () => tlsProxy, () => secureBase, "HTTPS_PROXY", () => `CONNECT 127.0.0.1:${port(secureBase)}`, "https"],
    ["http target, https proxy: absolute form over TLS", () => tlsProxy, () => plainBase, "HTTP_PROXY", () => `POST ${plainBase}/doc?q=1`, "http"],
  ])("%s", async (_what, via, base, variable, expected, scheme) => {
    const f = createProxiedFetch({ env: { [variable]: via().url }, ca: TEST_CERT });
    const response = await f(`${base()}/doc?q=1`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-seen")).toBe("yes");
    expect(await response.text()).toBe(`${scheme} POST /doc?q=1 host=127.0.0.1:${port(base())} body={"a":1} auth=-`);
    expect(asked(via())).toEqual([expected()]);
  });

  it("the request goes through the tunnel, not around it: a target only the proxy can reach", async () => {
    const only = await startTestProxy({ tunnelTo: Number(port(secureBase)) });
    try {
      const f = createProxiedFetch({ env: { HTTPS_PROXY: only.url }, ca: TEST_CERT });
      // Port 9 (discard) has no listener here: only the proxy's route reaches the server.
      expect(await (await f("https://127.0.0.1:9/only")).text()).toContain("https GET /only host=127.0.0.1:9");
      expect(only.asked).toEqual(["CONNECT 127.0.0.1:9"]);
    } finally {
      await only.close();
    }
  });

  it("credentials in the proxy URL go as Proxy-Authorization to the proxy, never to the target", async () => {
    const url = new URL(proxy.url);
    url.username = "me";
    url.password = "p@ss";
    for (const base of [plainBase, secureBase]) {
      const f = createProxiedFetch({ env: { HTTP_PROXY: url.href, HTTPS_PROXY: url.href }, ca: TEST_CERT });
      expect(await (await f(`${base}/x`)).text()).toContain("auth=-");
    }
    expect(proxy.auth).toEqual([`Basic ${Buffer.from("me:p@ss").toString("base64")}`, `Basic ${Buffer.from("me:p@ss").toString("base64")}`]);
    expect(asked(proxy)).toEqual([`GET ${plainBase}/x`, `CONNECT 127.0.0.1:${port(secureBase)}`]);
  });

  it("NO_PROXY exempts the target: it goes direct, the proxy is asked nothing", async () => {
    const f = createProxiedFetch({ env: { HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" } });
    expect(await (await f(`${plainBase}/direct`)).text()).toContain("GET /direct");
    expect(asked(proxy)).toEqual([]);
  });

  it("redirects: followed through the proxy by default; returned as they are with redirect: manual", async () => {
    const f = createProxiedFetch({ env: { HTTP_PROXY: proxy.url } });
    expect(await (await f(`${plainBase}/moved`)).text()).toContain("GET /doc");
    expect(asked(proxy)).toEqual([`GET ${plainBase}/moved`, `GET ${plainBase}/doc`]);
    const manual = await f(`${plainBase}/moved`, { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/doc");
  });

  it("a streamed body arrives as it comes (an event stream stays open)", async () => {
    const f = createProxiedFetch({ env: { HTTPS_PROXY: proxy.url }, ca: TEST_CERT });
    const controller = new AbortController();
    const response = await f(`${secureBase}/stream`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it("a proxy that refuses: an error naming the proxy and its answer", async () => {
    const refusing = await startTestProxy({ refuse: 407 });
    try {
      const f = createProxiedFetch({ env: { HTTPS_PROXY: refusing.url }, ca: TEST_CERT });
      await expect(f(`${secureBase}/x`)).rejects.toThrow(/the proxy http:\/\/127\.0\.0\.1:\d+ refused the tunnel to 127\.0\.0\.1:\d+: 407/);
    } finally {
      await refusing.close();
    }
  });

  it("a proxy nobody listens on: an error naming the request and the proxy, never a direct connection", async () => {
    const f = createProxiedFetch({ env: { HTTP_PROXY: "http://127.0.0.1:9" } });
    await expect(f(`${plainBase}/x`)).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:\d+\/x through the proxy http:\/\/127\.0\.0\.1:9 failed: connect ECONNREFUSED/);
  });

  it("an https:// proxy whose certificate is not trusted is refused (no silent fallback to plain or direct)", async () => {
    const f = createProxiedFetch({ env: { HTTPS_PROXY: tlsProxy.url } });
    await expect(f(`${secureBase}/x`)).rejects.toThrow(/could not be reached: .*(self-signed|certificate)/);
    expect(asked(tlsProxy)).toEqual([]);
  });
});
