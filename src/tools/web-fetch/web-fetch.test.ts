import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession } from "../../session/session.js";
import type { ToolResultBlock } from "../../tool/types.js";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { nonPublicReason, type NameResolver } from "./address-guard.js";
import { createWebFetchTool, type WebFetchOptions } from "./web-fetch-tool.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    const handler = routes.get(req.url ?? "/");
    if (handler) return handler(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("not here");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  routes.set("/page", (_req, res) =>
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      "<!doctype html><html><head><title>T</title><script>alert(1)</script></head><body><h1>Release notes</h1><p>Version <b>5.0</b> drops <a href=\"/old\">the old API</a>.</p><ul><li>one</li><li>two</li></ul></body></html>",
    ),
  );
  routes.set("/plain", (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("just text\n"));
  routes.set("/json", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"a":1}'));
  routes.set("/same-host-redirect", (_req, res) => res.writeHead(301, { location: "/plain" }).end());
  routes.set("/other-host-redirect", (_req, res) => res.writeHead(302, { location: "https://elsewhere.example.org/x" }).end());
  routes.set("/redirect-to-private", (_req, res) => res.writeHead(302, { location: `http://127.0.0.2:${port}/plain` }).end());
  routes.set("/loop", (_req, res) => res.writeHead(302, { location: "/loop" }).end());
  routes.set("/big", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const chunk = "x".repeat(1024 * 1024 - 1) + "\n";
    let sent = 0;
    const more = (): void => {
      while (sent < 12) {
        sent++;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  });
  routes.set("/slow", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("start");
    const timer = setTimeout(() => res.end("late"), 10_000);
    res.on("close", () => clearTimeout(timer));
  });
  routes.set("/image.png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3])));
  routes.set("/counted", (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(`hit ${hits}`));
  routes.set("/long", (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("a".repeat(250) + "b".repeat(250)));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function fetchWith(options: WebFetchOptions, input: Record<string, unknown>, allow = ["WebFetch"]): Promise<ToolResultBlock> {
  return withTempDir(async (dir) => {
    const session = createSession({ cwd: dir, tools: [createWebFetchTool(options)], allow });
    try {
      const [result] = await session.runTurn([toolUse("WebFetch", { prompt: "summarise", ...input })]);
      return result!;
    } finally {
      await session.close();
    }
  });
}

const text = (r: ToolResultBlock): string => (typeof r.content === "string" ? r.content : r.content.map((b) => (b.type === "text" ? b.text : "")).join(""));
const local: WebFetchOptions = { allowHosts: ["127.0.0.1"] };

describe("WebFetch against a real server on 127.0.0.1", () => {
  it("turns HTML into Markdown without scripts", async () => {
    const r = await fetchWith(local, { url: `${base}/page` });
    expect(r.is_error).toBeUndefined();
    expect(text(r)).toContain("# Release notes");
    expect(text(r)).toContain("Version **5.0** drops [the old API](/old).");
    expect(text(r)).toMatch(/- +one/);
    expect(text(r)).not.toContain("alert");
  });

  it("returns text and JSON as they are", async () => {
    expect(text(await fetchWith(local, { url: `${base}/plain` }))).toBe("just text\n");
    expect(text(await fetchWith(local, { url: `${base}/json` }))).toBe('{"a":1}');
  });

  it("follows a redirect on the same host and reports one to another host without following it", async () => {
    expect(text(await fetchWith(local, { url: `${base}/same-host-redirect` }))).toBe("just text\n");
    const r = await fetchWith(local, { url: `${base}/other-host-redirect` });
    expect(r.is_error).toBeUndefined();
    expect(text(r)).toContain("REDIRECT DETECTED");
    expect(text(r)).toContain("Redirect URL: https://elsewhere.example.org/x");
    expect(text(r)).toContain('prompt: "summarise"');
  });

  it("stops a redirect loop", async () => {
    const r = await fetchWith(local, { url: `${base}/loop` });
    expect(r.is_error).toBe(true);
    expect(text(r)).toContain("Too many redirects");
  });

  it("keeps at most maxBytes of a 12 MB page and says it was cut, a page of text at a time", async () => {
    const r = await fetchWith({ ...local, maxBytes: 10 * 1024 * 1024 }, { url: `${base}/big` });
    expect(r.is_error).toBeUndefined();
    expect(text(r)).toMatch(/\[Characters 0 to 40000 of 10485\d{3}\. Continue with offset: 40000\.\]$/);
    const last = await fetchWith({ ...local, maxBytes: 10 * 1024 * 1024 }, { url: `${base}/big`, offset: 10 * 1024 * 1024 - 10 });
    expect(text(last)).toContain("only the first 10485760 bytes were read");
    expect(text(last)).toContain("This is the end of the page.");
  });

  it("pages through a long page with offset, and refuses an offset past the end", async () => {
    const opts = { ...local, pageChars: 200 };
    expect(text(await fetchWith(opts, { url: `${base}/long` }))).toBe(`${"a".repeat(200)}\n\n[Characters 0 to 200 of 500. Continue with offset: 200.]`);
    expect(text(await fetchWith(opts, { url: `${base}/long`, offset: 400 }))).toBe(`${"b".repeat(100)}\n\n[Characters 400 to 500 of 500. This is the end of the page.]`);
    const past = await fetchWith(opts, { url: `${base}/long`, offset: 900 });
    expect(past.is_error).toBe(true);
    expect(text(past)).toContain("past the end of the page (500 characters)");
  });

  it("gives up on a slow server after the time limit", async () => {
    const started = Date.now();
    const r = await fetchWith({ ...local, timeoutMs: 500 }, { url: `${base}/slow` });
    expect(r.is_error).toBe(true);
    expect(text(r)).toContain("took longer than");
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it("saves binary content to a file instead of putting it in the context", async () => {
    const r = await fetchWith(local, { url: `${base}/image.png` });
    const saved = /saved to (\S+);/.exec(text(r))?.[1];
    expect(text(r)).toContain("binary content (image/png, 8 bytes)");
    expect(saved).toBeDefined();
  });

  it("reports a 404 as an error", async () => {
    const r = await fetchWith(local, { url: `${base}/missing` });
    expect(r.is_error).toBe(true);
    expect(text(r)).toContain("Request failed with status code 404");
  });

  it("caches a page: the second fetch does not reach the server", async () => {
    const tool = createWebFetchTool(local);
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [tool], allow: ["WebFetch"] });
      const [a] = await session.runTurn([toolUse("WebFetch", { url: `${base}/counted`, prompt: "p" })]);
      const [b] = await session.runTurn([toolUse("WebFetch", { url: `${base}/counted`, prompt: "p" })]);
      expect(text(b!)).toBe(text(a!));
      await session.close();
    });
  });

  it("hands the page and the prompt to a summarizer when one is configured", async () => {
    const seen: Array<{ prompt: string; content: string }> = [];
    const r = await fetchWith(
      { ...local, summarize: async ({ prompt, content }) => (seen.push({ prompt, content }), `answer to ${prompt}`) },
      { url: `${base}/plain`, prompt: "what is it?" },
    );
    expect(text(r)).toBe("answer to what is it?");
    expect(seen).toEqual([{ prompt: "what is it?", content: "just text\n" }]);
  });
});

describe("WebFetch refuses what is not a public address", () => {
  it.each([
    ["loopback by IP", "http://127.0.0.1:1/"],
    ["another loopback address", "http://127.0.0.2/"],
    ["private network", "http://10.1.2.3/"],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
    ["IPv6 loopback", "http://[::1]/"],
    ["IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]/"],
    ["decimal IPv4 (the URL parser makes it 127.0.0.1)", "http://2130706433/"],
    ["octal-ish IPv4", "http://0177.0.0.1/"],
    ["unique-local IPv6", "http://[fd00:ec2::254]/"],
    ["0.0.0.0", "http://0.0.0.0/"],
  ])("%s: %s", async (_what, url) => {
    const r = await fetchWith({}, { url });
    expect(r.is_error).toBe(true);
    expect(text(r)).toMatch(/refuses|not a public address|without a dot/);
  });

  it("refuses localhost and names without a dot before any lookup", async () => {
    const r = await fetchWith({}, { url: "http://localhost:8080/" });
    expect(text(r)).toContain("WebFetch cannot fetch localhost or other hostnames without a dot.");
  });

  it("checks the address a name resolves to when it connects (a name that resolves to 127.0.0.1)", async () => {
    const resolveName: NameResolver = (_host, cb) => cb(null, [{ address: "127.0.0.1", family: 4 }]);
    const before = hits;
    const r = await fetchWith({ resolveName }, { url: `http://rebind.test.example:${port}/plain` });
    expect(r.is_error).toBe(true);
    expect(text(r)).toContain("resolves to 127.0.0.1");
    expect(hits).toBe(before);
  });

  it("a rebinding name that answers public first and loopback later is refused on the connection that would reach loopback", async () => {
    let answers = 0;
    // First DNS answer public (the same-host redirect hop resolves again), then loopback.
    const resolveName: NameResolver = (_host, cb) => cb(null, [{ address: answers++ === 0 ? "93.184.215.14" : "127.0.0.1", family: 4 }]);
    const before = hits;
    const tool = createWebFetchTool({ resolveName, timeoutMs: 3000 });
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [tool], allow: ["WebFetch"] });
      // The first connection goes to the public address (unreachable here): it fails or times out; the point is the second.
      await session.runTurn([toolUse("WebFetch", { url: `http://rebind.test.example:${port}/plain`, prompt: "p" })]);
      const [second] = await session.runTurn([toolUse("WebFetch", { url: `http://rebind.test.example:${port}/json`, prompt: "p" })]);
      expect(text(second!)).toContain("resolves to 127.0.0.1");
      await session.close();
    });
    expect(hits).toBe(before);
  }, 15_000);

  it("a same-host redirect to a private address is refused on the redirect hop", async () => {
    // 127.0.0.1 is allowed for the test server, 127.0.0.2 is not.
    const r = await fetchWith(local, { url: `${base}/redirect-to-private` });
    expect(text(r)).toMatch(/REDIRECT DETECTED|not a public address/);
  });

  it("sends no credentials and fetches only http(s)", async () => {
    expect(text(await fetchWith({}, { url: "https://user:pw@example.com/" }))).toContain("does not send credentials");
    expect(text(await fetchWith({}, { url: "file:///etc/passwd" }))).toContain("http(s) URLs only");
    expect(text(await fetchWith({}, { url: "not a url" }))).toContain("url");
  });

  it.each([
    ["8.8.8.8", null],
    ["93.184.215.14", null],
    ["2606:4700::1111", null],
    ["127.0.0.1", "not public"],
    ["100.64.0.1", "not public"],
    ["::ffff:10.0.0.1", "leads to 10.0.0.1"],
    ["64:ff9b::7f00:1", "leads to 127.0.0.1"],
    ["2002:7f00:1::", "leads to 127.0.0.1"],
    ["fe80::1%eth0", "not public"],
    ["ff02::1", "not public"],
  ])("nonPublicReason(%s)", (address, expected) => {
    const reason = nonPublicReason(address);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toContain(expected === "not public" ? "not a public address" : expected);
  });
});

describe("WebFetch permissions", () => {
  it("asks without a rule, and a WebFetch(domain:) rule decides by host", async () => {
    const r = await fetchWith(local, { url: `${base}/plain` }, []);
    expect(r.is_error).toBe(true);
    expect(text(r)).toContain("Permission to use WebFetch was denied");
    expect(text(await fetchWith(local, { url: `${base}/plain` }, ["WebFetch(domain:127.0.0.1)"]))).toBe("just text\n");
    expect((await fetchWith(local, { url: `${base}/plain` }, ["WebFetch(domain:example.com)"])).is_error).toBe(true);
  });

  it("keeps the saved binary file readable", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: [createWebFetchTool(local)], allow: ["WebFetch"], sessionDir: dir });
      const [r] = await session.runTurn([toolUse("WebFetch", { url: `${base}/image.png`, prompt: "p" })]);
      const saved = /saved to (\S+);/.exec(text(r!))![1]!;
      expect((await readFile(saved)).subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      await session.close();
    });
  });
});
