import { createServer, type Server } from "node:http";
import { connect, createServer as createTcpServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionRule } from "../tool/types.js";
import { domainPolicy, hostRefusal, startNetworkProxy, type DomainPolicy } from "./network-proxy.js";

const rule = (behavior: "allow" | "deny", raw: string, toolName = "WebFetch"): PermissionRule => ({ behavior, toolName, ruleContent: raw, raw: `${toolName}(${raw})`, source: "test" });

describe("hostRefusal (pure)", () => {
  const policy = domainPolicy(["example.com", "*.corp.test", "localhost"], [rule("allow", "domain:docs.rs"), rule("deny", "domain:secret.corp.test"), rule("allow", "domain:ignored.test", "Bash")]);
  it.each<[string, boolean]>([
    ["example.com", true],
    ["EXAMPLE.com.", true],
    ["[example.com]", true],
    ["docs.rs", true],
    ["a.corp.test", true],
    ["a.b.corp.test", true],
    ["localhost", true],
    // attacks: look-alikes, suffix tricks, the apex of a wildcard, a deny rule, a Bash rule's content
    ["www.example.com", false],
    ["example.com.evil.net", false],
    ["evilexample.com", false],
    ["corp.test", false],
    ["evilcorp.test", false],
    ["secret.corp.test", false],
    ["ignored.test", false],
    ["127.0.0.1", false],
    ["", false],
  ])("%s → %s", (host, passes) => {
    expect(hostRefusal(host, policy) === undefined).toBe(passes);
  });

  it("says which list to add a refused host to", () => {
    expect(hostRefusal("other.net", policy)).toBe("other.net is not in sandbox.network.allowedDomains");
    expect(hostRefusal("secret.corp.test", policy)).toContain("denied by a WebFetch(domain:…) rule");
  });
});

/** Sends raw bytes to the proxy through a loopback listener that hands it each connection, as the bridge does. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(port, "127.0.0.1");
    let got = "";
    c.setEncoding("utf8");
    c.on("data", (d: string) => (got += d));
    c.on("end", () => resolve(got));
    c.on("error", reject);
    c.write(request);
  });
}

describe("the proxy, handed each connection (a real HTTP server on 127.0.0.1)", () => {
  let server: Server;
  let port = 0;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} host=${req.headers.host} proxy-auth=${req.headers["proxy-authorization"] ?? "-"}`);
      res.setHeader("Connection", "close");
      res.end("hello from upstream");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => server.close());

  const withProxy = async (policy: DomainPolicy, fn: (socket: number) => Promise<void>): Promise<void> => {
    const proxy = startNetworkProxy(policy, {});
    const front = createTcpServer((c) => proxy.serve(c));
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    try {
      await fn((front.address() as AddressInfo).port);
    } finally {
      proxy.close();
      front.close();
    }
  };

  it("an allowed host: absolute-form HTTP is forwarded in origin form without proxy headers, CONNECT tunnels", async () => {
    await withProxy({ allowed: ["localhost"], denied: [] }, async (socket) => {
      const before = seen.length;
      const plain = await exchange(socket, `GET http://localhost:${port}/a?b=1 HTTP/1.1\r\nHost: localhost:${port}\r\nProxy-Authorization: Basic eDp5\r\n\r\n`);
      expect(plain).toMatch(/^HTTP\/1\.1 200/);
      expect(plain).toContain("hello from upstream");
      expect(seen[before]).toBe(`GET /a?b=1 host=localhost:${port} proxy-auth=-`);
      const tunnel = await exchange(socket, `CONNECT localhost:${port} HTTP/1.1\r\nHost: localhost:${port}\r\n\r\nGET /t HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200/);
      expect(seen[before + 1]).toBe("GET /t host=x proxy-auth=-");
    });
  });

  it.each<[string, DomainPolicy, string, RegExp]>([
    ["a host not in the list (CONNECT)", { allowed: ["example.com"], denied: [] }, `CONNECT localhost:PORT HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 403[^]*localhost is not in sandbox.network.allowedDomains/],
    ["a host not in the list (absolute form)", { allowed: ["example.com"], denied: [] }, `GET http://localhost:PORT/ HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 403/],
    ["an allowed host's name smuggled in the Host header", { allowed: ["example.com"], denied: [] }, `GET http://localhost:PORT/ HTTP/1.1\r\nHost: example.com\r\n\r\n`, /^HTTP\/1\.1 403/],
    ["a wildcard cannot reach loopback (only a name listed exactly may)", { allowed: ["*"], denied: [] }, `CONNECT localhost:PORT HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 502[^]*not a public address/],
    ["an IP literal not listed", { allowed: ["*"], denied: [] }, `CONNECT 127.0.0.1:PORT HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 502[^]*not a public address/],
    ["origin form (not a proxy request)", { allowed: ["localhost"], denied: [] }, `GET / HTTP/1.1\r\nHost: localhost\r\n\r\n`, /^HTTP\/1\.1 400/],
    ["https in absolute form", { allowed: ["localhost"], denied: [] }, `GET https://localhost:PORT/ HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400/],
    ["garbage", { allowed: ["localhost"], denied: [] }, `\x16\x03\x01 hello\r\n\r\n`, /^HTTP\/1\.1 400/],
  ])("refused: %s, and nothing reaches the server", async (_name, policy, request, expected) => {
    await withProxy(policy, async (socket) => {
      const before = seen.length;
      expect(await exchange(socket, request.replaceAll("PORT", String(port)))).toMatch(expected);
      expect(seen.length).toBe(before);
    });
  });
});
